package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/internal/pgtest"
)

// Replicas that start together on an empty database migrate it once: the
// advisory lock makes the others wait, and they find the schema up to date.
// Without the lock, concurrent CREATE TABLEs fail or schema_version gets
// duplicate rows.
func TestPostgresConcurrentOpenMigratesOnce(t *testing.T) {
	url := pgtest.Database(t)
	const replicas = 6
	var wg sync.WaitGroup
	stores := make([]*Postgres, replicas)
	errs := make([]error, replicas)
	for i := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = OpenPostgres(context.Background(), url)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: OpenPostgres: %v", i, err)
		}
		defer stores[i].Close()
	}
	list, _ := loadMigrations(postgresMigrations, "migrations/postgres")
	if got := schemaRows(t, stores[0]); got != len(list) {
		t.Errorf("schema_version rows got %d, want %d (one per migration)", got, len(list))
	}
	// The lock is released: a run written through one replica is read
	// through another.
	if err := stores[1].CreateRun(context.Background(), sampleRun(1, true)); err != nil {
		t.Fatal(err)
	}
	if _, err := stores[replicas-1].Run(context.Background(), sampleRun(1, true).ID); err != nil {
		t.Errorf("run written through replica 1, read through replica %d: %v", replicas-1, err)
	}
}

// Two stores on one database see each other's records, and the same
// scenario stored through both gets one row (created once).
func TestPostgresStoresShareRecords(t *testing.T) {
	url := pgtest.Database(t)
	a, b := openStore(t, url), openStore(t, url)
	ctx := context.Background()
	var wg sync.WaitGroup
	created := make([]bool, 20)
	errs := make([]error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := []Store{a, b}[i%2]
			created[i], errs[i] = st.PutScenario(ctx, &records.SavedScenario{ID: "same", Body: []byte(`{"x":1}`)})
		}()
	}
	wg.Wait()
	news := 0
	for i := range 20 {
		if errs[i] != nil {
			t.Errorf("PutScenario %d: %v", i, errs[i])
		}
		if created[i] {
			news++
		}
	}
	if news != 1 {
		t.Errorf("scenario created %d times across two stores, want exactly 1", news)
	}
	if err := a.CreateRun(ctx, sampleRun(7, true)); err != nil {
		t.Fatal(err)
	}
	got, err := b.Run(ctx, sampleRun(7, true).ID)
	if err != nil || string(got.Result) != string(sampleRun(7, true).Result) {
		t.Errorf("run written through a, read through b: got %+v (%v)", got, err)
	}
}

func TestOpenPostgresErrors(t *testing.T) {
	tests := []struct {
		url      string
		wantCode string
	}{
		{"postgres://u@127.0.0.1:notaport/db", diag.EINVALID},
		{"postgres://u@127.0.0.1:1/db?connect_timeout=2", diag.EUNAVAILABLE}, // nothing listens on port 1
	}
	for _, tt := range tests {
		_, err := OpenPostgres(context.Background(), tt.url)
		if got := diag.ErrorCode(err); got != tt.wantCode {
			t.Errorf("OpenPostgres(%q): code got %q (%v), want %q", tt.url, got, err, tt.wantCode)
		}
	}
	_, err := OpenPostgres(context.Background(), "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=2")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %v: want an error that does not show the password", err)
	}
}

func TestTranslatePG(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"no rows", pgx.ErrNoRows, diag.ENOTFOUND},
		{"unique", &pgconn.PgError{Code: "23505"}, diag.ECONFLICT},
		{"foreign key", &pgconn.PgError{Code: "23503"}, diag.ECONFLICT},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, diag.EUNAVAILABLE},
		{"cannot connect now", &pgconn.PgError{Code: "57P03"}, diag.EUNAVAILABLE},
		{"connection failure", &pgconn.PgError{Code: "08006"}, diag.EUNAVAILABLE},
		{"too many connections", &pgconn.PgError{Code: "53300"}, diag.EUNAVAILABLE},
		{"disk full", &pgconn.PgError{Code: "53100"}, diag.EFULL},
		{"value too large", &pgconn.PgError{Code: "54000"}, diag.ETOOLARGE},
		{"deadlock", &pgconn.PgError{Code: "40P01"}, diag.EINTERNAL},
		{"syntax error", &pgconn.PgError{Code: "42601"}, diag.EINTERNAL},
		{"eof", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), diag.EUNAVAILABLE},
		{"canceled", context.Canceled, diag.ECANCELED},
		{"coded already", diag.Errorf(diag.EINVALID, "x"), diag.EINVALID},
		{"other", errors.New("boom"), diag.EINTERNAL},
	}
	for _, tt := range tests {
		if got := diag.ErrorCode(translatePG(tt.err)); got != tt.want {
			t.Errorf("%s: code got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// The database going away makes every method answer EUNAVAILABLE (not a
// hang, not a bare driver error), and once it is back the same store works
// again without being reopened: the pool replaces its dropped connections.
func TestPostgresOutageAndRecovery(t *testing.T) {
	cluster := pgtest.Own(t)
	url, err := cluster.CreateDatabase(context.Background(), "outage")
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := st.CreateRun(ctx, sampleRun(1, true)); err != nil {
		t.Fatal(err)
	}
	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"Ping":      func() error { return st.Ping(ctx) },
		"Run":       func() error { _, err := st.Run(ctx, sampleRun(1, true).ID); return err },
		"Runs":      func() error { _, _, err := st.Runs(ctx, 10, ""); return err },
		"Dispatch":  func() error { _, _, err := st.Dispatch(ctx, sampleRun(1, true).ID); return err },
		"CreateRun": func() error { return st.CreateRun(ctx, sampleRun(2, false)) },
		"Scenario":  func() error { _, err := st.Scenario(ctx, sampleRun(1, true).ScenarioID); return err },
		"PutScenario": func() error {
			_, err := st.PutScenario(ctx, &records.SavedScenario{ID: "x", Body: []byte("{}")})
			return err
		},
	}
	for name, call := range calls {
		if got := diag.ErrorCode(call()); got != diag.EUNAVAILABLE {
			t.Errorf("database stopped: %s code got %q, want %q", name, got, diag.EUNAVAILABLE)
		}
	}
	if err := cluster.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// The first call may still meet a connection the server dropped; within
	// a few tries every call works again.
	for name, call := range calls {
		var err error
		for try := 0; try < 5; try++ {
			if err = call(); err == nil || diag.ErrorCode(err) != diag.EUNAVAILABLE {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			t.Errorf("database back: %s got %v, want success", name, err)
		}
	}
	got, err := st.Run(ctx, sampleRun(1, true).ID)
	if err != nil || string(got.Result) != string(sampleRun(1, true).Result) {
		t.Errorf("after recovery the run stored before the outage: got %+v (%v)", got, err)
	}
}

// TestPostgresLeaseByDatabaseClock: leases are set and judged by the
// database server's clock, not the replicas': a replica whose clock runs an
// hour ahead cannot take over the job of one whose clock runs an hour behind
// while its lease runs (by the replicas' own clocks it would have run out
// long ago).
func TestPostgresLeaseByDatabaseClock(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Database(t)
	behind, ahead := connect(t, url).(*Postgres), connect(t, url).(*Postgres)
	behind.Now = func() time.Time { return time.Now().Add(-time.Hour) }
	ahead.Now = func() time.Time { return time.Now().Add(time.Hour) }
	if err := behind.CreateSweep(ctx, sweepJob("job-clock", 1)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := behind.ClaimSweepPoints(ctx, "behind", 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	if j, pts, err := ahead.ClaimSweepPoints(ctx, "ahead", 1, time.Minute); diag.ErrorCode(err) != diag.ENOTFOUND {
		t.Fatalf("claim by the replica an hour ahead: %+v %v, %v; want not found (the lease runs by the database's clock)", j, pts, err)
	}
	if err := behind.RenewSweepUnits(ctx, "job-clock", "behind", time.Minute); err != nil {
		t.Errorf("renewal by the replica an hour behind, within its lease: %v", err)
	}
	var lease time.Time
	if err := behind.pool.QueryRow(ctx, "SELECT lease_until FROM sweep_units WHERE job_id = 'job-clock'").Scan(&lease); err != nil ||
		lease.Sub(time.Now()) > 2*time.Minute || lease.Sub(time.Now()) < 30*time.Second {
		t.Errorf("lease until %v (now %v), %v; want about a minute from the database's now", lease, time.Now(), err)
	}
	if _, err := behind.SaveSweepUnit(ctx, "job-clock", "behind", 0, []byte(`{"index":0}`), time.Minute, nil); err != nil {
		t.Errorf("save by the replica an hour behind, within its lease: %v", err)
	}
}

// A PostgreSQL disk that fills (SQLSTATE 53100, raised here by triggers on
// the tables a run and Ping's test write use) is storage_full, and Ping
// fails until a write fits again.
func TestPostgresFullDisk(t *testing.T) {
	url := pgtest.Database(t)
	ctx := context.Background()
	db, err := OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.pool.Exec(ctx, `CREATE FUNCTION tuxlb_full() RETURNS trigger AS $$
		BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100'; END $$ LANGUAGE plpgsql;
		CREATE TRIGGER full_runs BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION tuxlb_full();
		CREATE TRIGGER full_probe BEFORE INSERT ON schema_version FOR EACH ROW EXECUTE FUNCTION tuxlb_full();`); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("Ping before any write met the full disk: %v", err)
	}
	if err := db.CreateRun(ctx, sampleRun(1, false)); diag.ErrorCode(err) != diag.EFULL {
		t.Fatalf("a run on a full disk: got %v, want storage_full", err)
	}
	if err := db.Ping(ctx); diag.ErrorCode(err) != diag.EFULL {
		t.Errorf("Ping while full: got %v, want storage_full", err)
	}
	if _, err := db.pool.Exec(ctx, `DROP TRIGGER full_runs ON runs; DROP TRIGGER full_probe ON schema_version`); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(ctx); err != nil {
		t.Errorf("Ping once there is room: %v", err)
	}
	if err := db.CreateRun(ctx, sampleRun(1, false)); err != nil {
		t.Errorf("the run once there is room: %v", err)
	}
}

// TestPostgresSweepWorkNotifies: a replica listening with SweepWork is told
// when another stores a sweep job and when one releases points it held,
// and not by a claim (which frees nothing).
func TestPostgresSweepWorkNotifies(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url := pgtest.Database(t)
	listener, poster := connect(t, url).(*Postgres), connect(t, url).(*Postgres)
	work := listener.SweepWork(ctx)
	wait := func(what string) {
		t.Helper()
		select {
		case <-work:
		case <-time.After(10 * time.Second):
			t.Fatalf("no notification within 10 s of %s", what)
		}
	}
	quiet := func(what string) {
		t.Helper()
		select {
		case <-work:
			t.Errorf("a notification after %s, want none", what)
		case <-time.After(300 * time.Millisecond):
		}
	}
	wait("listening") // once when it starts listening: what was sent before is lost
	quiet("nothing")
	if err := poster.CreateSweep(ctx, sweepJob("job-notify", 2)); err != nil {
		t.Fatal(err)
	}
	wait("another store's CreateSweep")
	if _, _, err := poster.ClaimSweepPoints(ctx, "poster", 2, time.Minute); err != nil {
		t.Fatal(err)
	}
	quiet("a claim")
	if err := poster.ReleaseSweepUnits(ctx, "job-notify", "poster"); err != nil {
		t.Fatal(err)
	}
	wait("another store's ReleaseSweepUnits")
	if err := poster.ReleaseSweepUnits(ctx, "job-notify", "poster"); err != nil {
		t.Fatal(err)
	}
	quiet("a release of no points")
}
