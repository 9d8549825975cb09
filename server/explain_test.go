package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
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
