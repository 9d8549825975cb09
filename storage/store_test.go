package storage

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/internal/pgtest"
)

// backend is one implementation of Store under test.
type backend struct {
	name string
	// target makes a fresh, empty database for t and returns what Connect
	// takes: a file path or a URL.
	target func(t testing.TB) string
}

// backends are the implementations every conformance test runs against.
var backends = []backend{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "tuxlb.db") }},
	{"postgres", pgtest.Database},
}

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// eachStore runs test once per backend, as subtests named after them, each
// with a freshly opened store on an empty database.
func eachStore(t *testing.T, test func(t *testing.T, st Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, openStore(t, b.target(t))) })
	}
}

// openStore connects to target with a clock that ticks one second per
// call, so created_at values differ and are predictable (PostgreSQL's sweep
// leases follow it too, instead of the database server's clock), and closes
// the store when the test ends.
func openStore(t testing.TB, target string) Store {
	t.Helper()
	st, err := Connect(context.Background(), target)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var mu sync.Mutex
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	switch db := st.(type) {
	case *DB:
		db.Now = now
	case *Postgres:
		db.Now, db.LeaseClock = now, now
	default:
		t.Fatalf("Connect returned a %T", st)
	}
	return st
}

// sampleRun returns a run numbered i with a scenario of its own.
func sampleRun(i int, dispatch bool) *records.StoredRun {
	r := &records.StoredRun{
		ID:            fmt.Sprintf("run%019d", i),
		ScenarioID:    fmt.Sprintf("scn%019d", i),
		Scenario:      []byte(fmt.Sprintf(`{"name":"s%d"}`, i)),
		Name:          fmt.Sprintf("s%d", i),
		EngineVersion: "0.1.0",
		Result:        []byte(fmt.Sprintf(`{"requests":{"issued":%d}}`, i)),
		Headline: result.Headline{Issued: int64(i), Completed: int64(i), WaitP99MS: 1.5, Jain: 0.25, NetworkSent: 3,
			SaturatedMachines: i % 3},
		HasDispatch: dispatch,
	}
	if dispatch {
		r.DispatchGzip = []byte{0x1f, 0x8b, byte(i)}
	}
	return r
}

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			target := b.target(t)
			fsys, dir := fs.FS(sqliteMigrations), "migrations"
			if IsPostgresURL(target) {
				fsys, dir = postgresMigrations, "migrations/postgres"
			}
			list, err := loadMigrations(fsys, dir)
			if err != nil || len(list) == 0 {
				t.Fatalf("loadMigrations: %d migrations, %v", len(list), err)
			}
			for round := 1; round <= 2; round++ {
				st, err := Connect(context.Background(), target)
				if err != nil {
					t.Fatalf("round %d: Connect: %v", round, err)
				}
				v, err := st.SchemaVersion(context.Background())
				if err != nil || v != list[len(list)-1].version {
					t.Errorf("round %d: schema version got %d (%v), want %d", round, v, err, list[len(list)-1].version)
				}
				if rows := schemaRows(t, st); rows != len(list) {
					t.Errorf("round %d: schema_version rows got %d, want %d", round, rows, len(list))
				}
				st.Close()
			}
		})
	}
}

// schemaRows counts the rows of schema_version: one per migration applied.
func schemaRows(t testing.TB, st Store) int {
	t.Helper()
	var n int
	var err error
	switch db := st.(type) {
	case *DB:
		err = db.write.QueryRow("SELECT COUNT(*) FROM schema_version").Scan(&n)
	case *Postgres:
		err = db.pool.QueryRow(context.Background(), "SELECT COUNT(*) FROM schema_version").Scan(&n)
	}
	if err != nil {
		t.Fatalf("count schema_version: %v", err)
	}
	return n
}

func TestRunRoundTrip(t *testing.T) { eachStore(t, testRunRoundTrip) }

func testRunRoundTrip(t *testing.T, db Store) {
	ctx := context.Background()
	want := sampleRun(1, true)
	want.Policy, want.Seed, want.RerunOf = "jsq", "7", "run0000000000000000000"
	if err := db.CreateRun(ctx, want); err != nil {
		t.Fatalf("CreateRun: %v", err)
	}
	got, err := db.Run(ctx, want.ID)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !bytes.Equal(got.Result, want.Result) || !bytes.Equal(got.Scenario, want.Scenario) {
		t.Errorf("bytes changed: result %s scenario %s", got.Result, got.Scenario)
	}
	if got.Headline != want.Headline || got.Policy != "jsq" || got.Seed != "7" || got.RerunOf != want.RerunOf {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if !got.CreatedAt.Equal(want.CreatedAt) || !got.HasDispatch {
		t.Errorf("created_at got %v, want %v; dispatch %v", got.CreatedAt, want.CreatedAt, got.HasDispatch)
	}
	gz, size, err := readDispatch(ctx, db, want.ID)
	if err != nil || !bytes.Equal(gz, want.DispatchGzip) || size != int64(len(want.DispatchGzip)) {
		t.Errorf("Dispatch got %x, size %d (%v), want %x", gz, size, err, want.DispatchGzip)
	}
}

func TestNotFound(t *testing.T) { eachStore(t, testNotFound) }

func testNotFound(t *testing.T, db Store) {
	ctx := context.Background()
	if err := db.CreateRun(ctx, sampleRun(1, false)); err != nil {
		t.Fatal(err)
	}
	checks := map[string]error{}
	_, checks["run"] = db.Run(ctx, "nosuchrun")
	_, _, checks["dispatch of unknown run"] = db.Dispatch(ctx, "nosuchrun")
	_, _, checks["dispatch not kept"] = db.Dispatch(ctx, sampleRun(1, false).ID)
	_, checks["scenario"] = db.Scenario(ctx, "nosuchscenario")
	for name, err := range checks {
		if got := diag.ErrorCode(err); got != diag.ENOTFOUND {
			t.Errorf("%s: code got %q (%v), want %q", name, got, err, diag.ENOTFOUND)
		}
	}
}

func TestCreateRunIsOneTransaction(t *testing.T) { eachStore(t, testCreateRunIsOneTransaction) }

func testCreateRunIsOneTransaction(t *testing.T, db Store) {
	ctx := context.Background()
	if err := db.CreateRun(ctx, sampleRun(1, true)); err != nil {
		t.Fatal(err)
	}
	dup := sampleRun(2, true)
	dup.ID = sampleRun(1, true).ID // same run id: the runs insert fails
	if got := diag.ErrorCode(db.CreateRun(ctx, dup)); got != diag.ECONFLICT {
		t.Errorf("duplicate run id: code got %q, want %q", got, diag.ECONFLICT)
	}
	if _, err := db.Scenario(ctx, dup.ScenarioID); diag.ErrorCode(err) != diag.ENOTFOUND {
		t.Errorf("scenario of the failed run was kept (err %v): the transaction was not rolled back", err)
	}
}

func TestRunsPagination(t *testing.T) { eachStore(t, testRunsPagination) }

func testRunsPagination(t *testing.T, db Store) {
	ctx := context.Background()
	for i := 1; i <= 7; i++ {
		if err := db.CreateRun(ctx, sampleRun(i, i%2 == 0)); err != nil {
			t.Fatal(err)
		}
	}
	var got []int64
	cursor, pages := "", 0
	for {
		list, next, err := db.Runs(ctx, 3, cursor)
		if err != nil {
			t.Fatalf("Runs(%q): %v", cursor, err)
		}
		pages++
		for _, s := range list {
			got = append(got, s.Headline.Issued)
			if s.HasDispatch != (s.Headline.Issued%2 == 0) || s.CreatedAt == "" {
				t.Errorf("summary %+v: dispatch flag or created_at wrong", s)
			}
			if want := int(s.Headline.Issued % 3); s.Headline.SaturatedMachines != want {
				t.Errorf("run %d listed with saturated_machines %d, want %d", s.Headline.Issued, s.Headline.SaturatedMachines, want)
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	want := []int64{7, 6, 5, 4, 3, 2, 1}
	if fmt.Sprint(got) != fmt.Sprint(want) || pages != 3 {
		t.Errorf("got %v in %d pages, want %v in 3", got, pages, want)
	}
}

func TestRunsBadCursor(t *testing.T) { eachStore(t, testRunsBadCursor) }

func testRunsBadCursor(t *testing.T, db Store) {
	for _, c := range []string{"garbage!", "c2VxOg", "c2VxOi01", "bm9wZTox"} {
		_, _, err := db.Runs(context.Background(), 10, c)
		if got := diag.ErrorCode(err); got != diag.EINVALID {
			t.Errorf("cursor %q: code got %q, want %q", c, got, diag.EINVALID)
		}
	}
}

func TestPutScenario(t *testing.T) { eachStore(t, testPutScenario) }

func testPutScenario(t *testing.T, db Store) {
	ctx := context.Background()
	s := &records.SavedScenario{ID: "abc", Name: "n", Body: []byte(`{"a":1}`)}
	tests := []struct {
		name        string
		sc          *records.SavedScenario
		wantCreated bool
		wantCode    string
	}{
		{"first", s, true, ""},
		{"same again", &records.SavedScenario{ID: "abc", Body: []byte(`{"a":1}`)}, false, ""},
		{"other body, same id", &records.SavedScenario{ID: "abc", Body: []byte(`{"a":2}`)}, false, diag.ECONFLICT},
	}
	for _, tt := range tests {
		created, err := db.PutScenario(ctx, tt.sc)
		if created != tt.wantCreated || diag.ErrorCode(err) != tt.wantCode {
			t.Errorf("%s: got created %v err %v, want %v code %q", tt.name, created, err, tt.wantCreated, tt.wantCode)
		}
	}
	got, err := db.Scenario(ctx, "abc")
	if err != nil || string(got.Body) != `{"a":1}` || got.Name != "n" {
		t.Errorf("Scenario: got %+v (%v)", got, err)
	}
}

func TestConcurrentWrites(t *testing.T) { eachStore(t, testConcurrentWrites) }

func testConcurrentWrites(t *testing.T, db Store) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 1; i <= 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- db.CreateRun(ctx, sampleRun(i, true))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("CreateRun: %v", err)
		}
	}
	list, _, err := db.Runs(ctx, 100, "")
	if err != nil || len(list) != 40 {
		t.Errorf("stored runs got %d (%v), want 40", len(list), err)
	}
	if sq, ok := db.(*DB); ok {
		if v, err := sq.IntegrityCheck(ctx); v != "ok" {
			t.Errorf("integrity_check got %q (%v), want ok", v, err)
		}
	}
}
