package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
)

// GET /runs/{id}/explain recomputes the explanations of a stored run from
// its scenario and options: the same ones core.Explain (the CLI's
// --explain-json) gives for that scenario and seed.
func TestExplainStoredRun(t *testing.T) {
	h := newHarness(t, nil)
	scenario := scenarioJSON(t)
	created := h.postRun("?seed=3", scenario)
	rec := h.do(http.MethodGet, "/api/v1/runs/"+created.ID+"/explain?request=2-3", "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	var got struct {
		ID           string               `json:"id"`
		Explanations []result.Explanation `json:"explanations"`
	}
	decode(t, rec, &got)
	sc, err := core.ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(3)
	want, err := core.Explain(sc, core.RunOptions{Seed: &seed}, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(got.Explanations)
	wb, _ := json.Marshal(want)
	if got.ID != created.ID || string(gb) != string(wb) {
		t.Errorf("explanations:\n got  %s\n want %s", gb, wb)
	}
	if len(got.Explanations) != 2 || got.Explanations[0].Seq != 2 {
		t.Errorf("want requests 2 and 3, got %d explanations", len(got.Explanations))
	}
	for _, c := range []struct {
		query  string
		status int
		slug   string
	}{
		{"", http.StatusUnprocessableEntity, "invalid"},
		{"?request=x", http.StatusNotFound, "not-found"}, // an id no request has
		{"?request=-3", http.StatusUnprocessableEntity, "invalid"},
		{"?request=5-2", http.StatusUnprocessableEntity, "invalid"},
		{"?request=1-500", http.StatusUnprocessableEntity, "invalid"},
		{"?request=99999999", http.StatusNotFound, "not-found"},
		// past int64: a number too large, not an id to look up
		{"?request=99999999999999999999", http.StatusUnprocessableEntity, "invalid"},
		{"?request=1-99999999999999999999", http.StatusUnprocessableEntity, "invalid"},
	} {
		rec := h.do(http.MethodGet, "/api/v1/runs/"+created.ID+"/explain"+c.query, "", "")
		wantProblem(t, rec, "/api/v1/runs/"+created.ID+"/explain", c.status, c.slug)
	}
	rec = h.do(http.MethodGet, "/api/v1/runs/nosuchrun/explain?request=1", "", "")
	if rec.Code != http.StatusNotFound && rec.Code != http.StatusBadRequest {
		t.Errorf("unknown run: status %d", rec.Code)
	}
}

// GET /runs/{id}/explain?request= takes a request id as the dispatch log
// shows it (a client's shoppers:2:0 and its nested call shoppers:2:0.1):
// the explanation is core.ExplainID's for the stored scenario and seed, of
// the request with that id.
func TestExplainStoredRunByID(t *testing.T) {
	h := newHarness(t, nil)
	data, err := os.ReadFile("../examples/self-call-deadlock.json")
	if err != nil {
		t.Fatal(err)
	}
	created := h.postRun("", string(data))
	sc, err := core.ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"shoppers:2:0", "shoppers:2:0.1"} {
		rec := h.do(http.MethodGet, "/api/v1/runs/"+created.ID+"/explain?request="+url.QueryEscape(id), "", "")
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d: %s", id, rec.Code, rec.Body.String())
		}
		var got struct {
			Explanations []result.Explanation `json:"explanations"`
		}
		decode(t, rec, &got)
		want, err := core.ExplainID(sc, core.RunOptions{}, id)
		if err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(got.Explanations)
		wb, _ := json.Marshal(want)
		if string(gb) != string(wb) || len(got.Explanations) != 1 || got.Explanations[0].ID != id {
			t.Errorf("%s: explanations\n got  %s\n want %s", id, gb, wb)
		}
	}
}

// Explanations count against the run's share of the memory budget: each
// lists every candidate of its service, so 100 of them among 4000
// instances hold about 400 MiB (1 GiB was seen, uncounted). Over the share
// they are a 413 naming the request parameter; fewer of them are answered.
func TestExplainCountsItsExplanations(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxRuns, c.SweepWorkers, c.MemoryBudget = 2, 1, 1<<30 }) // shares of 256 MiB
	u, _ := json.Marshal(admissionUBB(4, 1000, 1, 0))
	var rows []string
	for i := range 100 {
		rows = append(rows, fmt.Sprintf(`{"time_ms": %d, "service": "S0"}`, i))
	}
	created := h.postRun("", `{"ubbconfig": `+string(u)+`, "services": {"S0": {"service_time": {"dist": "const", "ms": 1}}},`+
		` "workload": {"trace": [`+strings.Join(rows, ",")+`]}}`)
	path := "/api/v1/runs/" + created.ID + "/explain"
	p := wantProblem(t, h.do(http.MethodGet, path+"?request=1-100", "", ""), path, http.StatusRequestEntityTooLarge, "over-budget")
	if len(p.Errors) != 1 || p.Errors[0].Field != "request" || !strings.Contains(p.Detail, "100 explanations × 4000 candidates each (the instances that offer S0)") {
		t.Errorf("detail %q errors %+v, want the explanations named and the field request", p.Detail, p.Errors)
	}
	if rec := h.do(http.MethodGet, path+"?request=1-10", "", ""); rec.Code != http.StatusOK {
		t.Errorf("10 explanations: status %d, want 200", rec.Code)
	}
}
