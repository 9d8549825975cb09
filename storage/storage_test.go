package storage

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core"
)

// openTemp opens a fresh database in t.TempDir() with a clock that ticks one
// second per call, so created_at values differ and are predictable.
func openTemp(t *testing.T) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "tuxlb.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var mu sync.Mutex
	db.Now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	return db
}

// sampleRun returns a run numbered i with a scenario of its own.
func sampleRun(i int, dispatch bool) *Run {
	r := &Run{
		ID:            fmt.Sprintf("run%019d", i),
		ScenarioID:    fmt.Sprintf("scn%019d", i),
		Scenario:      []byte(fmt.Sprintf(`{"name":"s%d"}`, i)),
		Name:          fmt.Sprintf("s%d", i),
		EngineVersion: "0.1.0",
		Result:        []byte(fmt.Sprintf(`{"requests":{"issued":%d}}`, i)),
		Headline:      core.Headline{Issued: int64(i), Completed: int64(i), WaitP99MS: 1.5, Jain: 0.25, NetworkSent: 3},
		HasDispatch:   dispatch,
	}
	if dispatch {
		r.DispatchGzip = []byte{0x1f, 0x8b, byte(i)}
	}
	return r
}

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuxlb.db")
	for round := 1; round <= 2; round++ {
		db, err := Open(path)
		if err != nil {
			t.Fatalf("round %d: Open: %v", round, err)
		}
		list, err := loadMigrations()
		if err != nil {
			t.Fatal(err)
		}
		v, err := db.SchemaVersion(context.Background())
		if err != nil || v != list[len(list)-1].version {
			t.Errorf("round %d: schema version got %d (%v), want %d", round, v, err, list[len(list)-1].version)
		}
		var rows int
		db.write.QueryRow("SELECT COUNT(*) FROM schema_version").Scan(&rows)
		if rows != len(list) {
			t.Errorf("round %d: schema_version rows got %d, want %d", round, rows, len(list))
		}
		var mode string
		db.write.QueryRow("PRAGMA journal_mode").Scan(&mode)
		var fk int
		db.read.QueryRow("PRAGMA foreign_keys").Scan(&fk)
		if mode != "wal" || fk != 1 {
			t.Errorf("round %d: journal_mode %q foreign_keys %d, want wal 1", round, mode, fk)
		}
		db.Close()
	}
}

func TestOpenRejectsBadPath(t *testing.T) {
	for _, path := range []string{"", "a?b.db", "x#y"} {
		_, err := Open(path)
		if got := core.ErrorCode(err); got != core.EINVALID {
			t.Errorf("Open(%q): code got %q, want %q", path, got, core.EINVALID)
		}
	}
}

func TestRunRoundTrip(t *testing.T) {
	db := openTemp(t)
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
	gz, err := db.Dispatch(ctx, want.ID)
	if err != nil || !bytes.Equal(gz, want.DispatchGzip) {
		t.Errorf("Dispatch got %x (%v), want %x", gz, err, want.DispatchGzip)
	}
}

func TestNotFound(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	if err := db.CreateRun(ctx, sampleRun(1, false)); err != nil {
		t.Fatal(err)
	}
	checks := map[string]error{}
	_, checks["run"] = db.Run(ctx, "nosuchrun")
	_, checks["dispatch of unknown run"] = db.Dispatch(ctx, "nosuchrun")
	_, checks["dispatch not kept"] = db.Dispatch(ctx, sampleRun(1, false).ID)
	_, checks["scenario"] = db.Scenario(ctx, "nosuchscenario")
	for name, err := range checks {
		if got := core.ErrorCode(err); got != core.ENOTFOUND {
			t.Errorf("%s: code got %q (%v), want %q", name, got, err, core.ENOTFOUND)
		}
	}
}

func TestCreateRunIsOneTransaction(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	if err := db.CreateRun(ctx, sampleRun(1, true)); err != nil {
		t.Fatal(err)
	}
	dup := sampleRun(2, true)
	dup.ID = sampleRun(1, true).ID // same run id: the runs insert fails
	if got := core.ErrorCode(db.CreateRun(ctx, dup)); got != core.ECONFLICT {
		t.Errorf("duplicate run id: code got %q, want %q", got, core.ECONFLICT)
	}
	if _, err := db.Scenario(ctx, dup.ScenarioID); core.ErrorCode(err) != core.ENOTFOUND {
		t.Errorf("scenario of the failed run was kept (err %v): the transaction was not rolled back", err)
	}
}

func TestRunsPagination(t *testing.T) {
	db := openTemp(t)
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

func TestRunsBadCursor(t *testing.T) {
	db := openTemp(t)
	for _, c := range []string{"garbage!", "c2VxOg", "c2VxOi01", "bm9wZTox"} {
		_, _, err := db.Runs(context.Background(), 10, c)
		if got := core.ErrorCode(err); got != core.EINVALID {
			t.Errorf("cursor %q: code got %q, want %q", c, got, core.EINVALID)
		}
	}
}

func TestPutScenario(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	s := &Scenario{ID: "abc", Name: "n", Body: []byte(`{"a":1}`)}
	tests := []struct {
		name        string
		sc          *Scenario
		wantCreated bool
		wantCode    string
	}{
		{"first", s, true, ""},
		{"same again", &Scenario{ID: "abc", Body: []byte(`{"a":1}`)}, false, ""},
		{"other body, same id", &Scenario{ID: "abc", Body: []byte(`{"a":2}`)}, false, core.ECONFLICT},
	}
	for _, tt := range tests {
		created, err := db.PutScenario(ctx, tt.sc)
		if created != tt.wantCreated || core.ErrorCode(err) != tt.wantCode {
			t.Errorf("%s: got created %v err %v, want %v code %q", tt.name, created, err, tt.wantCreated, tt.wantCode)
		}
	}
	got, err := db.Scenario(ctx, "abc")
	if err != nil || string(got.Body) != `{"a":1}` || got.Name != "n" {
		t.Errorf("Scenario: got %+v (%v)", got, err)
	}
}

func TestConcurrentWrites(t *testing.T) {
	db := openTemp(t)
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
	if v, err := db.IntegrityCheck(ctx); v != "ok" {
		t.Errorf("integrity_check got %q (%v), want ok", v, err)
	}
}

func BenchmarkCreateRun(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "tuxlb.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	result := bytes.Repeat([]byte("x"), 64<<10) // a typical result is tens of KiB
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		r := sampleRun(i, true)
		r.Result = result
		if err := db.CreateRun(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}
