package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
)

// With the database file deleted under a running server, writes are 503
// naming the file (not 201 and lost) and readiness fails; reads of what is
// still open go on.
func TestDeletedDatabaseIsUnavailable(t *testing.T) {
	h := newHarness(t, nil)
	path := filepath.Join(filepath.Dir(h.db.Path()), "tuxlb.db")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, body string }{
		{"/api/v1/runs", scenarioJSON(t)},
		{"/api/v1/scenarios", scenarioJSON(t)},
	} {
		rec := h.do("POST", tc.path, "application/json", tc.body)
		p := wantProblem(t, rec, tc.path, 503, "unavailable")
		if !strings.Contains(p.Detail, path) || !strings.Contains(p.Detail, "deleted") {
			t.Errorf("%s: detail %q, want the database file named", tc.path, p.Detail)
		}
	}
	for _, probe := range []string{"/healthz", "/readyz"} {
		p := wantProblem(t, h.do("GET", probe, "", ""), probe, 503, "unavailable")
		if !strings.Contains(p.Detail, path) {
			t.Errorf("%s: detail %q, want the database file named", probe, p.Detail)
		}
	}
	if rec := h.do("GET", "/livez", "", ""); rec.Code != 200 {
		t.Errorf("/livez with the database file deleted: %d, want 200", rec.Code)
	}
}

// fullStore is a store whose disk is full while full is set: its writes and
// its Ping fail as storage's do then (an EFULL error naming the file).
type fullStore struct {
	Store
	full *atomic.Bool
}

var errFull = &diag.Error{Code: diag.EFULL, Message: "database /srv/tuxlb.db: its disk is full: database or disk is full"}

func (f fullStore) CreateRun(ctx context.Context, r *records.StoredRun) error {
	if f.full.Load() {
		return errFull
	}
	return f.Store.CreateRun(ctx, r)
}

func (f fullStore) PutScenario(ctx context.Context, s *records.SavedScenario) (bool, error) {
	if f.full.Load() {
		return false, errFull
	}
	return f.Store.PutScenario(ctx, s)
}

func (f fullStore) Ping(ctx context.Context) error {
	if f.full.Load() {
		return errFull
	}
	return f.Store.Ping(ctx)
}

// A full disk is the server's condition, not the request's: 503
// storage-full (not 413), readiness failing until there is room again.
func TestFullDiskIsStorageFull(t *testing.T) {
	full := &atomic.Bool{}
	full.Store(true)
	h := newHarness(t, func(c *Config) { c.Store = fullStore{Store: c.Store, full: full} })
	for _, path := range []string{"/api/v1/runs", "/api/v1/scenarios"} {
		rec := h.do("POST", path, "application/json", scenarioJSON(t))
		p := wantProblem(t, rec, path, 503, "storage-full")
		if !strings.Contains(p.Detail, "disk is full") || rec.Header().Get("Retry-After") == "" {
			t.Errorf("%s: detail %q, Retry-After %q; want the full disk said and a Retry-After", path, p.Detail, rec.Header().Get("Retry-After"))
		}
	}
	wantProblem(t, h.do("GET", "/readyz", "", ""), "/readyz", 503, "storage-full")
	if rec := h.do("GET", "/livez", "", ""); rec.Code != 200 {
		t.Errorf("/livez with the disk full: %d, want 200", rec.Code)
	}
	full.Store(false)
	if rec := h.do("GET", "/readyz", "", ""); rec.Code != 200 {
		t.Errorf("/readyz once there is room: %d, want 200", rec.Code)
	}
	if rec := h.do("POST", "/api/v1/runs", "application/json", scenarioJSON(t)); rec.Code != 201 {
		t.Errorf("a run once there is room: %d %s, want 201", rec.Code, rec.Body)
	}
}
