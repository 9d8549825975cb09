package server

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// TestSweepJobPrecision: a sweep job takes precision, max_replications and
// figures, and its result is what tuxlb sweep prints for the same spec.
func TestSweepJobPrecision(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SweepWorkers = 2 })
	body, err := json.Marshal(map[string]any{"scenario": json.RawMessage(scenarioJSON(t)), "vary": []string{"rate_scale=0.5,1"},
		"replications": 2, "precision": 0.05, "max_replications": 6, "figures": []string{"utilization_max[machine:site1]"}})
	if err != nil {
		t.Fatal(err)
	}
	id := h.postSweep(string(body))
	h.startSweeps()
	j := h.waitSweep(id, sweep.Done, sweep.Failed)
	if j.Status != sweep.Done {
		t.Fatalf("job: %+v", j)
	}
	want := expectedSweep(t, sweep.Spec{Vary: []string{"rate_scale=0.5,1"}, Replications: 2, Precision: 0.05, MaxReplications: 6,
		Figures: []string{"utilization_max[machine:site1]"}})
	got, _ := json.Marshal(j.Result)
	var a, b bytes.Buffer
	json.Compact(&a, got)
	json.Compact(&b, want)
	if a.String() != b.String() {
		t.Errorf("result:\n%s\nwant:\n%s", got, want)
	}
	var res sweep.Result
	if err := json.Unmarshal(want, &res); err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Points {
		if _, ok := p.Figures["utilization_max[machine:site1]"]; !ok || p.Replications < 2 {
			t.Errorf("point %d: %d replications, figures %v", p.Index, p.Replications, p.Figures)
		}
	}
	for _, c := range []struct{ field, want string }{
		{`"precision": -1`, "precision: want a number > 0"},
		{`"figures": ["utilization_max[machine:NOSUCH]"]`, `no machine "NOSUCH"`},
		{`"objective": "response_p99_ms[NOSUCH]<=10"`, `no service "NOSUCH"`},
	} {
		body := `{"scenario":` + scenarioJSON(t) + `,"vary":["rate_scale=1"],` + c.field + `}`
		rec := h.do(http.MethodPost, "/api/v1/sweeps", "application/json", body)
		p := wantProblem(t, rec, "/api/v1/sweeps", http.StatusUnprocessableEntity, "invalid")
		if !strings.Contains(p.Detail, c.want) {
			t.Errorf("%s: detail %q, want %q", c.field, p.Detail, c.want)
		}
	}
}

// TestCompareFigures: compare takes figure= for a service's or a machine's
// figure; each run gives it, computed here from the run itself, with its
// difference against the base; an unknown one is refused naming it.
func TestCompareFigures(t *testing.T) {
	h := newHarness(t, nil)
	run := h.postRun("", scenarioJSON(t))
	rec := h.do(http.MethodGet, "/api/v1/compare?runs="+run.ID+"&variant=policy=jsq&figure=response_p99_ms[TOUPPER]&figure=max_utilization", "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	var cmp comparison
	decode(t, rec, &cmp)
	sc, _ := core.ParseScenario([]byte(scenarioJSON(t)))
	v, _ := sweep.ParseVariant("policy=jsq")
	vsc, _ := sweep.ApplyVariant(sc, v)
	res, err := core.Run(vsc, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var p99 float64
	for _, s := range res.Services {
		if s.Name == "TOUPPER" {
			p99 = s.ResponseMS.P99
		}
	}
	got := cmp.Runs[1].Figures
	if got["response_p99_ms[TOUPPER]"] != p99 || got["utilization_max"] != res.Headline["utilization_max"] {
		t.Errorf("figures %v, want p99 %v and utilization_max %v", got, p99, res.Headline["utilization_max"])
	}
	d := cmp.Runs[1].Diff["response_p99_ms[TOUPPER]"]
	if want := math.Round((p99-cmp.Runs[0].Figures["response_p99_ms[TOUPPER]"])*1e6) / 1e6; d.Abs != want {
		t.Errorf("diff %+v, want %v", d, want)
	}
	for _, c := range []struct{ q, want string }{
		{"figure=response_p99_ms[NOSUCH]", `has no service "NOSUCH"`},
		{"figure=utilization_max[machine:NOSUCH]", `has no machine "NOSUCH"`},
		{"figure=p99", `unknown figure "p99"`},
	} {
		rec := h.do(http.MethodGet, "/api/v1/compare?runs="+run.ID+"&variant=policy=jsq&"+c.q, "", "")
		if p := wantProblem(t, rec, "/api/v1/compare", http.StatusUnprocessableEntity, "invalid"); !strings.Contains(p.Detail, c.want) {
			t.Errorf("%s: %s, want %q", c.q, p.Detail, c.want)
		}
	}
}
