package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
