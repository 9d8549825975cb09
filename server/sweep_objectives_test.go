package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
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

// TestCompareObjectives: compare takes objective= (repeatable); each run
// gets a verdict per objective on its own value (one run: no interval,
// which the answer says), here the limits set just around the runs' own
// p99 so that one meets and one does not; an unknown service is a 422
// naming the field.
func TestCompareObjectives(t *testing.T) {
	h := newHarness(t, nil)
	run := h.postRun("", scenarioJSON(t))
	rec := h.do(http.MethodGet, "/api/v1/compare?runs="+run.ID+"&variant=SERVERS.simpserv.MIN=1&figure=response_p99_ms[TOUPPER]", "", "")
	var plain comparison
	decode(t, rec, &plain)
	a, b := plain.Runs[0].Figures["response_p99_ms[TOUPPER]"], plain.Runs[1].Figures["response_p99_ms[TOUPPER]"]
	if a == b {
		t.Fatalf("both runs have the p99 %v: no limit between them", a)
	}
	limit := (a + b) / 2
	obj := "response_p99_ms[TOUPPER]<=" + strconv.FormatFloat(limit, 'f', -1, 64)
	rec = h.do(http.MethodGet, "/api/v1/compare?runs="+run.ID+"&variant=SERVERS.simpserv.MIN=1&objective="+url.QueryEscape(obj)+
		"&objective="+url.QueryEscape("utilization_max<=1"), "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	var cmp comparison
	decode(t, rec, &cmp)
	if len(cmp.Objectives) != 2 || cmp.JudgedOn != "value" || cmp.Note == "" {
		t.Errorf("objectives %+v, judged on %q, note %q", cmp.Objectives, cmp.JudgedOn, cmp.Note)
	}
	for i, x := range []float64{a, b} {
		want := []string{"no", "yes"}
		if x <= limit {
			want[0] = "yes"
		}
		r := cmp.Runs[i]
		if len(r.Verdicts) != 2 || r.Verdicts[0] != want[0] || r.Verdicts[1] != "yes" || *r.Meets != (want[0] == "yes") {
			t.Errorf("run %d (p99 %v against %v): verdicts %v meets %v", i, x, limit, r.Verdicts, r.Meets)
		}
	}
	rec = h.do(http.MethodGet, "/api/v1/compare?runs="+run.ID+"&variant=SERVERS.simpserv.MIN=1&objective="+url.QueryEscape("response_p99_ms[NOSUCH]<=1"), "", "")
	p := wantProblem(t, rec, "/api/v1/compare", http.StatusUnprocessableEntity, "invalid")
	if len(p.Errors) == 0 || p.Errors[0].Field != "objective" || !strings.Contains(p.Detail, `no service "NOSUCH"`) {
		t.Errorf("unknown service: %+v", p)
	}
}
