package server

import (
	"context"
	"strings"
	"testing"
)

// What the server echoes back is bounded: a scenario's name, a sweep's
// keys and objective are refused past their limits, and a list page of
// runs stored with enormous names stays small.
func TestEchoedStringsBounded(t *testing.T) {
	h := newHarness(t, nil)
	long := strings.Repeat("n", 1001) // a name may have 1000 bytes (docs/scenario.md)
	sc := strings.Replace(scenarioJSON(t), `"simpapp, three servers"`, `"`+long+`"`, 1)
	for _, path := range []string{"/api/v1/runs", "/api/v1/scenarios"} {
		p := wantProblem(t, h.do("POST", path, "application/json", sc), path, 422, "invalid")
		if len(p.Errors) != 1 || p.Errors[0].Field != "name" {
			t.Errorf("%s: errors %+v, want the name named", path, p.Errors)
		}
	}
	for _, tc := range []struct{ body, field string }{
		{`{"scenario": ` + scenarioJSON(t) + `, "vary": ["rate_scale=` + strings.Repeat("1,", 40_000) + `1"]}`, "vary[0]"},
		{`{"scenario": ` + scenarioJSON(t) + `, "vary": ["rate_scale=1,2"], "objective": "response_p99_ms<=` + strings.Repeat("9", 2000) + `"}`, "objective"},
	} {
		p := wantProblem(t, h.do("POST", "/api/v1/sweeps", "application/json", tc.body), "/api/v1/sweeps", 422, "invalid")
		if len(p.Errors) != 1 || p.Errors[0].Field != tc.field {
			t.Errorf("errors %+v, want %s named", p.Errors, tc.field)
		}
	}
	// runs stored before names were bounded
	huge := strings.Repeat("N", 9_900_000)
	for i := 0; i < 20; i++ {
		run := h.postRun("?seed="+string(rune('1'+i%9)), scenarioJSON(t))
		stored, err := h.db.Run(context.Background(), run.ID)
		if err != nil {
			t.Fatal(err)
		}
		stored.ID, stored.Name = newRunID(), huge
		if err := h.db.CreateRun(context.Background(), stored); err != nil {
			t.Fatal(err)
		}
	}
	rec := h.do("GET", "/api/v1/runs", "", "")
	if rec.Code != 200 || rec.Body.Len() > 256<<10 {
		t.Errorf("a page of runs with 9.9 MB names: got %d with %d bytes, want 200 and a small page", rec.Code, rec.Body.Len())
	}
}
