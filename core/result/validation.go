package result

import (
	"math"

	"github.com/tuxlb/tuxlb/core/internal/ci"
)

// The verdicts of a validation, from best to worst.
const (
	Pass         = "pass"
	Inconclusive = "inconclusive"
	Fail         = "fail"
)

// DefaultTolerances are the relative tolerances of the figures that
// validation.tolerance does not name: 10% for the mean and the median, 15%
// for p95 and 20% for p99, the tails' order statistics being the noisier
// (a minute of a few thousand responses gives p99 an interval of about
// -10% to +20% by itself: its rows come in bursts).
var DefaultTolerances = Tolerances{Mean: 0.1, P50: 0.1, P95: 0.15, P99: 0.2}

// worse returns the worse of two verdicts.
func worse(a, b string) string {
	rank := func(v string) int {
		switch v {
		case Fail:
			return 2
		case Inconclusive:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// Judge fills in v's relative errors, relative intervals, KS tests and
// verdicts from what the rows hold: the observed and simulated figures,
// their intervals, the batch means (docs/scenario.md#replay-validation).
//
// A validation with no service (no observed row in the window) is
// inconclusive: nothing was judged.
func (v *Validation) Judge() {
	v.Verdict = Pass
	if len(v.Services) == 0 {
		v.Verdict = Inconclusive
	}
	tol := DefaultTolerances
	if v.Tolerance != nil {
		tol = *v.Tolerance
	}
	judgeRow(&v.Overall, tol)
	for i := range v.Services {
		judgeRow(&v.Services[i], tol)
		v.Verdict = worse(v.Verdict, v.Services[i].Verdict)
	}
}

// point is the interval of a figure x without one: [x, x].
func point(iv *Interval, x float64) Interval {
	if iv == nil {
		return Interval{x, x}
	}
	return *iv
}

// judgeRow judges one row: each figure's relative interval
// [sim_lo/obs_hi - 1, sim_hi/obs_lo - 1] against its tolerance.
func judgeRow(r *ValidationRow, tol Tolerances) {
	o, s := r.Observed, r.Simulated
	r.RelativeError, r.RelativeCI = RelativeErrors{}, &Intervals{}
	r.Verdicts, r.Verdict = &FigureVerdicts{}, Pass
	var sci, oci Intervals
	if r.SimulatedCI != nil {
		sci = *r.SimulatedCI
	}
	if r.ObservedCI != nil {
		oci = *r.ObservedCI
	}
	figs := []struct {
		obs, sim  float64
		oci, sciv *Interval
		rel       **float64
		relCI     **Interval
		verdict   *string
		tol       float64
	}{
		{o.Mean, s.Mean, oci.Mean, sci.Mean, &r.RelativeError.Mean, &r.RelativeCI.Mean, &r.Verdicts.Mean, tol.Mean},
		{o.P50, s.P50, oci.P50, sci.P50, &r.RelativeError.P50, &r.RelativeCI.P50, &r.Verdicts.P50, tol.P50},
		{o.P95, s.P95, oci.P95, sci.P95, &r.RelativeError.P95, &r.RelativeCI.P95, &r.Verdicts.P95, tol.P95},
		{o.P99, s.P99, oci.P99, sci.P99, &r.RelativeError.P99, &r.RelativeCI.P99, &r.Verdicts.P99, tol.P99},
	}
	for _, f := range figs {
		if o.Count == 0 { // no observed row in the window: nothing to judge
			*f.verdict = Inconclusive
			r.Verdict = worse(r.Verdict, Inconclusive)
			continue
		}
		if s.Count == 0 { // nothing completed: no figure to compare
			*f.verdict = Fail
			r.Verdict = Fail
			continue
		}
		if f.obs > 0 {
			x := round6((f.sim - f.obs) / f.obs)
			*f.rel = &x
		}
		oiv, siv := point(f.oci, f.obs), point(f.sciv, f.sim)
		if oiv.Lo <= 0 { // a relative difference to 0 is not bounded
			*f.verdict = Inconclusive
			r.Verdict = worse(r.Verdict, Inconclusive)
			continue
		}
		rel := Interval{round6(max(siv.Lo, 0)/oiv.Hi - 1), round6(siv.Hi/oiv.Lo - 1)}
		*f.relCI = &rel
		*f.verdict = verdict(rel, f.tol)
		r.Verdict = worse(r.Verdict, *f.verdict)
	}
	r.KS = nil
	if len(r.ObservedBatches) >= 2 && len(r.SimulatedBatches) >= 2 {
		d, p := ci.KS2(r.ObservedBatches, r.SimulatedBatches)
		r.KS = &KSTest{ObservedBatches: len(r.ObservedBatches), SimulatedBatches: len(r.SimulatedBatches),
			Statistic: round6(d), PValue: round6(p)}
	}
}

// verdict is pass when rel lies within [-tol, tol], fail when wholly
// outside it, inconclusive when it straddles an edge.
func verdict(rel Interval, tol float64) string {
	switch {
	case rel.Lo >= -tol && rel.Hi <= tol:
		return Pass
	case rel.Hi < -tol || rel.Lo > tol:
		return Fail
	default:
		return Inconclusive
	}
}

// combineValidation makes the first result's validation that of all the
// replications: each simulated figure the mean over them with its 95%
// interval (ci.Mean95), the simulated batch means of all of them, the
// simulated throughput their mean; then judges it again. The observed side
// is the first's (every replication replays the same rows; with warmup_ms
// "auto" each finds its own warm-up, and the first's window is kept). A
// replication without a row of the first's service counts nothing for it.
func combineValidation(results []*Result) {
	v := results[0].Validation
	if v == nil {
		return
	}
	k := len(results)
	rows := []*ValidationRow{&v.Overall}
	for i := range v.Services {
		rows = append(rows, &v.Services[i])
	}
	for ri, row := range rows {
		sums := make([]Summary, 0, k)
		var tput []float64
		batches := []float64{}
		for _, res := range results {
			rv := res.Validation
			if rv == nil {
				continue
			}
			var other *ValidationRow
			if ri == 0 {
				other = &rv.Overall
			} else {
				for j := range rv.Services {
					if rv.Services[j].Service == row.Service {
						other = &rv.Services[j]
					}
				}
			}
			if other == nil {
				continue
			}
			sums = append(sums, other.Simulated)
			if other.ThroughputPerS != nil {
				tput = append(tput, other.ThroughputPerS.Simulated)
			}
			batches = append(batches, other.SimulatedBatches...)
		}
		if len(sums) < 2 {
			continue
		}
		fig := func(get func(Summary) float64) (float64, *Interval) {
			xs := make([]float64, len(sums))
			for i, s := range sums {
				xs[i] = get(s)
			}
			m, h := ci.Mean95(xs)
			return m, &Interval{round6(max(m-h, 0)), round6(m + h)}
		}
		var s Summary
		var sci Intervals
		var count float64
		for _, x := range sums {
			count += float64(x.Count)
		}
		s.Count = int64(math.Round(count / float64(len(sums))))
		s.Mean, sci.Mean = fig(func(x Summary) float64 { return x.Mean })
		s.P50, sci.P50 = fig(func(x Summary) float64 { return x.P50 })
		s.P95, sci.P95 = fig(func(x Summary) float64 { return x.P95 })
		s.P99, sci.P99 = fig(func(x Summary) float64 { return x.P99 })
		s.Max, sci.Max = fig(func(x Summary) float64 { return x.Max })
		row.Simulated, row.SimulatedCI = s, &sci
		if row.ThroughputPerS != nil && len(tput) > 0 {
			row.ThroughputPerS.Simulated, _ = ci.Mean95(tput)
		}
		row.SimulatedBatches = batches
	}
	v.Replications = k
	v.Judge()
}
