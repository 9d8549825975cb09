package core

import (
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// replayUBB is one simpserv offering TOUPPER in 15 ms (const): a trace
// played on it is worked out by hand, one request after another.
const replayUBB = "*RESOURCES\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=site1\n*GROUPS\nG1 LMID=site1 GRPNO=1\n" +
	"*SERVERS\nsimpserv SRVGRP=G1 SRVID=1 CLOPT=\"-s TOUPPER\"\n"

func replayScenario(w scenario.Workload) *scenario.Scenario {
	return &scenario.Scenario{UBBConfig: replayUBB,
		Services: map[string]scenario.ServiceSpec{"TOUPPER": {ServiceTime: &scenario.Dist{Dist: "const", MS: f(15)}}},
		Workload: w}
}

func runOne(t *testing.T, w scenario.Workload, opt RunOptions) *result.Result {
	t.Helper()
	res, err := Run(replayScenario(w), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTraceSkipBad: with trace_skip_bad the rows that cannot be read are
// counted and named; without it the first is the error, naming its row
// and column.
func TestTraceSkipBad(t *testing.T) {
	log := "time_ms,service\n0,TOUPPER\nn/a,TOUPPER\n20,TOUPPER\n10,TOUPPER\n30,NOSUCH\n40,TOUPPER\ntotal,5\n"
	_, err := Run(replayScenario(scenario.Workload{TraceCSV: log}), RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "trace row 2") || !strings.Contains(err.Error(), "time") {
		t.Fatalf("without trace_skip_bad: got %v, want the error of row 2's time", err)
	}
	res := runOne(t, scenario.Workload{TraceCSV: log, TraceSkipBad: true}, RunOptions{})
	// rows 1, 3, 4 and 6 are read (0, 20, 10 and 40 ms: row 4, out of time
	// order, is played in order, as without trace_skip_bad); 2 (n/a), 5 (an
	// unknown service) and 7 (a total line) are skipped
	tr := res.Trace
	if tr == nil || tr.Rows != 4 || tr.Skipped != 3 || len(tr.SkippedExamples) != 3 {
		t.Fatalf("trace block: got %+v, want 4 rows read and 3 skipped", tr)
	}
	for i, row := range []string{"row 2:", "row 5:", "row 7:"} {
		if !strings.HasPrefix(tr.SkippedExamples[i], row) {
			t.Errorf("skipped example %d: got %q, want it to start %q", i, tr.SkippedExamples[i], row)
		}
	}
	if res.Requests.Issued != 4 || res.Requests.Completed != 4 {
		t.Errorf("requests: got %+v, want the 4 rows read", res.Requests)
	}
	found := false
	for _, w := range res.Warnings {
		found = found || strings.Contains(w, "skipped (trace_skip_bad): 3 of 7, the first: row 2:")
	}
	if !found {
		t.Errorf("warnings %q say nothing of the skipped rows", res.Warnings)
	}
	// a log of which nothing can be read is an error, not an empty run
	_, err = Run(replayScenario(scenario.Workload{TraceCSV: "time_ms,service\nx,TOUPPER\n0,NOSUCH\n", TraceSkipBad: true}), RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "every row of the trace was skipped as unreadable (2 rows; the first: row 1: time_ms") {
		t.Errorf("every row skipped: got %v", err)
	}
	// a JSON trace has its rows counted, none skipped
	res = runOne(t, scenario.Workload{Trace: []scenario.TraceRow{{TimeMS: f(0), Service: "TOUPPER"}}}, RunOptions{})
	if res.Trace == nil || res.Trace.Rows != 1 || res.Trace.Skipped != 0 || res.Trace.SkippedExamples == nil {
		t.Errorf("JSON trace block: got %+v", res.Trace)
	}
}

// TestTraceRateScale: rows at 0, 10 and 20 ms on one server taking 15 ms.
// At scale 1 the responses are 15 (0..15), 20 (15..30 for a request of 10)
// and 25 (30..45 for 20): mean 20 ms. At scale 2 the rows are issued at 0,
// 5 and 10 ms: 15, 25 (15..30 for 5) and 35 (30..45 for 10): mean 25 ms,
// the same span of 45 ms.
func TestTraceRateScale(t *testing.T) {
	log := "time_ms,service\n0,TOUPPER\n10,TOUPPER\n20,TOUPPER\n"
	for _, c := range []struct {
		scale      *float64
		mean, span float64
	}{{nil, 20, 45}, {f(1), 20, 45}, {f(2), 25, 45}, {f(1e6), 0, 0}, {f(0.0001), 0, 0}} {
		sc := replayScenario(scenario.Workload{TraceCSV: log, TraceRateScale: c.scale})
		res, err := Run(sc, RunOptions{})
		if c.mean == 0 {
			if err == nil || !strings.Contains(err.Error(), "workload.trace_rate_scale") {
				t.Errorf("scale %v: got %v, want an error naming workload.trace_rate_scale", *c.scale, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if res.ResponseMS.Mean != c.mean || res.SpanMS != c.span {
			t.Errorf("scale %v: got mean %v span %v, want %v and %v", c.scale, res.ResponseMS.Mean, res.SpanMS, c.mean, c.span)
		}
	}
	// JSON rows are scaled too
	rows := []scenario.TraceRow{{TimeMS: f(0), Service: "TOUPPER"}, {TimeMS: f(10), Service: "TOUPPER"}, {TimeMS: f(20), Service: "TOUPPER"}}
	if res := runOne(t, scenario.Workload{Trace: rows, TraceRateScale: f(2)}, RunOptions{}); res.ResponseMS.Mean != 25 {
		t.Errorf("JSON rows at scale 2: got mean %v, want 25", res.ResponseMS.Mean)
	}
	// nothing to scale
	_, err := Run(replayScenario(scenario.Workload{TraceRateScale: f(2),
		Generate: &scenario.Generator{DurationMS: 10, Streams: []scenario.Stream{{Service: "TOUPPER", Arrivals: "constant", RatePerS: 100}}}}), RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "workload.trace_rate_scale") {
		t.Errorf("no trace: got %v, want an error naming workload.trace_rate_scale", err)
	}
}

// TestValidation: the rows of TestTraceRateScale with observed responses
// of 10, 20 and 36 ms (mean 22) against the simulated 15, 20 and 25 (mean
// 20): the relative error of the mean is (20-22)/22 = -0.090909. With a
// warm-up of 5 ms the first row is left out of both: observed 20 and 36
// (mean 28), simulated 20 and 25 (mean 22.5), error -0.196429.
func TestValidation(t *testing.T) {
	log := "time_ms,service,observed_ms\n0,TOUPPER,10\n10,TOUPPER,20\n20,TOUPPER,36\n"
	for _, c := range []struct {
		warmup             float64
		n                  int64
		obs, sim, relError float64
	}{{0, 3, 22, 20, -0.090909}, {5, 2, 28, 22.5, -0.196429}} {
		sc := replayScenario(scenario.Workload{TraceCSV: log})
		if c.warmup != 0 {
			sc.WarmupMS = &scenario.Warmup{MS: c.warmup}
		}
		res, err := Run(sc, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v := res.Validation
		if v == nil || len(v.Services) != 1 || v.Services[0].Service != "TOUPPER" {
			t.Fatalf("warm-up %v: validation %+v, want one row for TOUPPER", c.warmup, v)
		}
		o, s := v.Overall.Observed, v.Overall.Simulated
		if o.Count != c.n || s.Count != c.n || o.Mean != c.obs || s.Mean != c.sim || *v.Overall.RelativeError.Mean != c.relError {
			t.Errorf("warm-up %v: overall %+v, want %d rows, observed mean %v, simulated %v, error %v", c.warmup, v.Overall, c.n, c.obs, c.sim, c.relError)
		}
		// the simulated side is the same rows' responses as the run's own
		// figures (the trace is the whole workload here)
		if s != res.ResponseMS || v.Services[0].Simulated != res.Services[0].ResponseMS || v.Services[0].Observed != o {
			t.Errorf("warm-up %v: simulated %+v, the run's response %+v", c.warmup, s, res.ResponseMS)
		}
		if o.Max != 36 || o.P99 != 36 {
			t.Errorf("warm-up %v: observed max %v p99 %v, want 36", c.warmup, o.Max, o.P99)
		}
	}
	// an export as it comes, its response column mapped: the same rows
	export := "Timestamp;Service;Machine;Elapsed(ms);Account\n" +
		"13/11/2026 10:00:00,000;TOUPPER;site1;10,0;A1\n" +
		"13/11/2026 10:00:00,010;TOUPPER;site1;20,0;A2\n" +
		"13/11/2026 10:00:00,020;TOUPPER;site1;36,0;A3\n"
	res := runOne(t, scenario.Workload{TraceCSV: export, Columns: &scenario.TraceMap{Observed: "Elapsed(ms)"}}, RunOptions{})
	if v := res.Validation; v == nil || v.Overall.Observed.Mean != 22 || v.Overall.Simulated.Mean != 20 {
		t.Errorf("mapped export: validation %+v, want observed mean 22 and simulated 20", v)
	}
	// no observed column, or a scaled replay: no validation
	if res := runOne(t, scenario.Workload{TraceCSV: "time_ms,service\n0,TOUPPER\n"}, RunOptions{}); res.Validation != nil {
		t.Errorf("no observed column: got validation %+v", res.Validation)
	}
	if res := runOne(t, scenario.Workload{TraceCSV: log, TraceRateScale: f(2)}, RunOptions{}); res.Validation != nil {
		t.Errorf("scaled: got validation %+v", res.Validation)
	}
}
