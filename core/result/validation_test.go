package result

import (
	"math"
	"testing"
)

// TestJudge: the relative interval [s_lo/o_hi - 1, s_hi/o_lo - 1] and the
// verdicts, worked by hand.
func TestJudge(t *testing.T) {
	row := ValidationRow{Service: "A",
		Observed:    Summary{Count: 100, Mean: 10, P50: 5, P95: 20, P99: 30},
		Simulated:   Summary{Count: 100, Mean: 10.5, P50: 7, P95: 20, P99: 30},
		ObservedCI:  &Intervals{Mean: &Interval{9, 11}, P50: &Interval{4.8, 5.2}, P95: &Interval{19, 21}, P99: &Interval{28, 32}},
		SimulatedCI: &Intervals{Mean: &Interval{10, 11}, P50: &Interval{6.9, 7.1}, P95: &Interval{20, 20}, P99: &Interval{30, 30}},
	}
	v := &Validation{Services: []ValidationRow{row}, Tolerance: &Tolerances{Mean: 0.1, P50: 0.1, P95: 0.1, P99: 0.1}}
	v.Judge()
	r := v.Services[0]
	// mean: [10/11 - 1, 11/9 - 1] = [-0.090909, 0.222222]: straddles +10%
	if m := r.RelativeCI.Mean; m == nil || m.Lo != -0.090909 || m.Hi != 0.222222 || r.Verdicts.Mean != Inconclusive {
		t.Errorf("mean: %v %q, want [-0.090909, 0.222222] inconclusive", r.RelativeCI.Mean, r.Verdicts.Mean)
	}
	// p50: [6.9/5.2 - 1, 7.1/4.8 - 1] = [0.326923, 0.479167]: wholly past +10%
	if p := r.RelativeCI.P50; p == nil || p.Lo != 0.326923 || p.Hi != 0.479167 || r.Verdicts.P50 != Fail {
		t.Errorf("p50: %v %q, want [0.326923, 0.479167] fail", r.RelativeCI.P50, r.Verdicts.P50)
	}
	// p95: [20/21 - 1, 20/19 - 1] = [-0.047619, 0.052632]: within ±10%
	if p := r.RelativeCI.P95; p == nil || p.Lo != -0.047619 || p.Hi != 0.052632 || r.Verdicts.P95 != Pass {
		t.Errorf("p95: %v %q, want [-0.047619, 0.052632] pass", r.RelativeCI.P95, r.Verdicts.P95)
	}
	if r.Verdict != Fail || v.Verdict != Fail || *r.RelativeError.Mean != 0.05 {
		t.Errorf("verdicts: service %q, run %q, relative error %v; want fail, fail, 0.05", r.Verdict, v.Verdict, *r.RelativeError.Mean)
	}
	// a wider tolerance on the mean and the p50 passes the service
	v.Tolerance = &Tolerances{Mean: 0.25, P50: 0.5, P95: 0.1, P99: 0.1}
	v.Judge()
	if v.Services[0].Verdict != Pass || v.Verdict != Pass {
		t.Errorf("tolerance 25%%/50%%: got %q, want pass", v.Verdict)
	}
	// nothing completed: fail
	v.Services[0].Simulated = Summary{}
	v.Judge()
	if v.Verdict != Fail || v.Services[0].Verdicts.P99 != Fail {
		t.Errorf("nothing completed: got %q, want fail", v.Verdict)
	}
	// nothing observed in the window (it starts after the log's last row):
	// nothing to judge, whatever was simulated
	empty := &Validation{Overall: ValidationRow{}}
	empty.Judge()
	if o := empty.Overall; empty.Verdict != Inconclusive || o.Verdict != Inconclusive || o.Verdicts.Mean != Inconclusive || o.Verdicts.P99 != Inconclusive {
		t.Errorf("an empty window: run %q, overall %q (%+v); want inconclusive throughout", empty.Verdict, o.Verdict, o.Verdicts)
	}
}

// TestCombineValidation: three replications whose simulated means are 9, 10
// and 11 give 10 ± t(0.975, 2)·1/√3 = 10 ± 4.303/1.732051 = 10 ± 2.484338,
// and every replication's batch means go to the KS test.
func TestCombineValidation(t *testing.T) {
	mk := func(mean float64) *Result {
		return &Result{Headline: map[string]float64{}, Validation: &Validation{
			Services: []ValidationRow{{Service: "A", Observed: Summary{Count: 50, Mean: 10, P50: 10, P95: 10, P99: 10},
				Simulated:        Summary{Count: 50, Mean: mean, P50: mean, P95: mean, P99: mean, Max: mean},
				ObservedBatches:  []float64{9, 10, 11},
				SimulatedBatches: []float64{mean, mean}}},
			Tolerance: &Tolerances{Mean: 0.1, P50: 0.1, P95: 0.1, P99: 0.1}, Replications: 1}}
	}
	res := CombineReplications([]*Result{mk(9), mk(10), mk(11)})
	v := res.Validation
	r := v.Services[0]
	if v.Replications != 3 || r.Simulated.Mean != 10 || r.SimulatedCI == nil || r.SimulatedCI.Mean.Lo != 7.515662 || r.SimulatedCI.Mean.Hi != 12.484338 {
		t.Fatalf("got %d replications, mean %v, interval %+v; want 3, 10, [7.515662, 12.484338]", v.Replications, r.Simulated.Mean, r.SimulatedCI)
	}
	if r.KS == nil || r.KS.SimulatedBatches != 6 || r.KS.ObservedBatches != 3 {
		t.Errorf("KS: %+v, want 3 observed batches against 6", r.KS)
	}
	// the relative interval uses the simulated interval: [7.515662/10 - 1, 12.484338/10 - 1]
	if m := r.RelativeCI.Mean; m == nil || math.Abs(m.Lo+0.248434) > 1e-6 || math.Abs(m.Hi-0.248434) > 1e-6 || r.Verdicts.Mean != Inconclusive {
		t.Errorf("relative interval %v %q, want ±0.248434 inconclusive", r.RelativeCI.Mean, r.Verdicts.Mean)
	}
}
