package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/sweep"
)

// TestSweepJobObjectives: a sweep job takes objectives, a list held all at
// once, beside the single objective of old; its result is what tuxlb sweep
// gives for the same spec, with a verdict per point and objective; an
// unknown figure or service in one is a 422 naming its field.
func TestSweepJobObjectives(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SweepWorkers = 2 })
	objs := []string{"response_p99_ms[TOUPPER]<=50", "utilization_max<=0.95"}
	body, err := json.Marshal(map[string]any{"scenario": json.RawMessage(scenarioJSON(t)), "vary": []string{"SERVERS.simpserv.MIN=1,2,3"},
		"replications": 2, "objective": "response_p99_ms<=100", "objectives": objs})
	if err != nil {
		t.Fatal(err)
	}
	id := h.postSweep(string(body))
	h.startSweeps()
	j := h.waitSweep(id, sweep.Done, sweep.Failed)
	if j.Status != sweep.Done {
		t.Fatalf("job: %+v", j)
	}
	want := expectedSweep(t, sweep.Spec{Vary: []string{"SERVERS.simpserv.MIN=1,2,3"}, Replications: 2,
		Objective: "response_p99_ms<=100", Objectives: objs})
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
	if len(res.Objectives) != 3 || res.Objectives[0].Text != "response_p99_ms<=100" || res.Objectives[2].Text != objs[1] {
		t.Errorf("objectives %+v: want the single one first, then the list", res.Objectives)
	}
	for _, p := range res.Points {
		if len(p.Verdicts) != 3 {
			t.Errorf("point %d: verdicts %v", p.Index, p.Verdicts)
		}
	}
	for _, c := range []struct{ field, body, want string }{
		{"objectives[1]", `"objectives": ["response_p99_ms<=100", "response_p99_ms[PAYMENT]<=80"]`, `no service "PAYMENT"`},
		{"objectives[0]", `"objective": "response_p99_ms<=100", "objectives": ["resp_p99<=80"]`, `unknown figure "resp_p99"`},
		{"objectives[0]", `"objectives": ["` + strings.Repeat("x", 2000) + `"]`, "bytes, more than"},
	} {
		rec := h.do(http.MethodPost, "/api/v1/sweeps", "application/json",
			`{"scenario":`+scenarioJSON(t)+`,"vary":["rate_scale=1"],`+c.body+`}`)
		p := wantProblem(t, rec, "/api/v1/sweeps", http.StatusUnprocessableEntity, "invalid")
		if !strings.Contains(p.Detail, c.want) || len(p.Errors) == 0 || p.Errors[0].Field != c.field {
			t.Errorf("%s: detail %q, errors %+v; want field %s and %q", c.body, p.Detail, p.Errors, c.field, c.want)
		}
	}
}
