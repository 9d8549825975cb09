package core

import (
	"maps"
	"slices"
	"sort"

	"github.com/tuxlb/tuxlb/core/batchmeans"
	"github.com/tuxlb/tuxlb/core/internal/ci"
	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/workload"
)

// validationAcc is the validation window and, per service and overall, the
// batches the observed rows fall into and what the run's responses to them
// add up to.
type validationAcc struct {
	fromUS, toUS int64 // the window: rows issued at or after fromUS; throughput up to toUS
	svc          []validationSide
	all          validationSide
}

// validationSide is one row's batches: bounds[b] is the first issue time of
// batch b+1 (a row issued at t is in the batch that counts the bounds ≤ t),
// obs and sim the observed and simulated sums.
type validationSide struct {
	bounds   []int64
	obs, sim batchSums
}

// batchSums adds up responses by batch, and counts those answered within
// the window.
type batchSums struct {
	bounds []int64
	sum    []int64
	n      []int64
	done   int64
}

func (b *batchSums) add(t, resp int64, done bool) {
	k := sort.Search(len(b.bounds), func(i int) bool { return b.bounds[i] > t })
	b.sum[k] += resp
	b.n[k]++
	if done {
		b.done++
	}
}

// means returns the means (ms) of the batches that hold a response.
func (b *batchSums) means() []float64 {
	out := []float64{}
	for k := range b.sum {
		if b.n[k] > 0 {
			out = append(out, usec.Round6(float64(b.sum[k])/float64(b.n[k])/1000))
		}
	}
	return out
}

// newSide is the batches whose bounds are given: nb-1 issue times.
func newSide(bounds []int64) validationSide {
	nb := len(bounds) + 1
	mk := func() batchSums {
		return batchSums{bounds: bounds, sum: make([]int64, nb), n: make([]int64, nb)}
	}
	return validationSide{bounds: bounds, obs: mk(), sim: mk()}
}

// newValidationAcc sets up the window (from fromUS to the last observed
// row's issue time) and the batches of the observed rows in it
// ([batchmeans.Bounds]), adding the observed responses up.
func newValidationAcc(obs []workload.ObservedRow, nsvc int, fromUS int64) *validationAcc {
	v := &validationAcc{fromUS: fromUS, svc: make([]validationSide, nsvc)}
	for _, o := range obs {
		v.toUS = max(v.toUS, o.TimeUS)
	}
	bounds := batchmeans.Bounds(obs, nsvc, fromUS)
	for s := range nsvc {
		v.svc[s] = newSide(bounds[s])
	}
	v.all = newSide(bounds[nsvc])
	for _, o := range obs {
		if o.TimeUS >= fromUS {
			done := o.TimeUS+o.US <= v.toUS
			v.svc[o.Service].obs.add(o.TimeUS, o.US, done)
			v.all.obs.add(o.TimeUS, o.US, done)
		}
	}
	return v
}

// traceResult fills the result's trace block (what reading the trace found)
// and, when the log observed responses, its validation: the observed
// responses of the rows issued in the validation window beside the run's
// for the same rows (stats.validated counted those that completed), each
// figure's interval and the verdicts.
func (e *engine) traceResult(r *result.Result) {
	w := e.setup.Work
	if w == nil || !w.Traced {
		return
	}
	r.Trace = &result.TraceRead{Rows: w.Info.Rows, Skipped: w.Info.Skipped, SkippedExamples: slices.Clone(w.Info.Examples),
		Columns: maps.Clone(w.Info.Columns)}
	if r.Trace.SkippedExamples == nil {
		r.Trace.SkippedExamples = []string{}
	}
	if len(w.Observed) == 0 {
		return
	}
	st := &e.st
	va := st.v
	obs := make([]hist.Acc, len(e.m.Services))
	var all hist.Acc
	for _, o := range w.Observed {
		if o.TimeUS >= va.fromUS {
			obs[o.Service].Add(o.US)
			all.Add(o.US)
		}
	}
	tol := e.setup.Tolerance
	from, to := usec.ToMS(va.fromUS), usec.ToMS(va.toUS)
	v := &result.Validation{FromMS: &from, ToMS: &to, Replications: 1,
		Tolerance: &result.Tolerances{Mean: tol[0], P50: tol[1], P95: tol[2], P99: tol[3]}}
	spanS := float64(va.toUS-va.fromUS) / 1e6
	v.Overall = validationRow("", &all, &st.vAll, &va.all, spanS)
	v.Services = []result.ValidationRow{}
	for s := range obs {
		if obs[s].N > 0 {
			v.Services = append(v.Services, validationRow(e.m.Services[s].Name, &obs[s], &st.vSim[s], &va.svc[s], spanS))
		}
	}
	v.Judge()
	r.Validation = v
}

// validationRow compares the observed responses obs with the simulated sim,
// over the batches of side and a window of spanS seconds: the summaries,
// the observed figures' intervals, the batch means and the throughputs.
func validationRow(service string, obs, sim *hist.Acc, side *validationSide, spanS float64) result.ValidationRow {
	oh := obs.Hist()
	row := result.ValidationRow{Service: service, Observed: obs.Summary(oh), Simulated: sim.Summary(sim.Hist()),
		ObservedBatches: side.obs.means(), SimulatedBatches: side.sim.means(),
		ObservedCI: &result.Intervals{}, ThroughputPerS: &result.Throughput{}}
	if spanS > 0 {
		*row.ThroughputPerS = result.Throughput{Observed: usec.Round6(float64(side.obs.done) / spanS), Simulated: usec.Round6(float64(side.sim.done) / spanS)}
	}
	if bm := row.ObservedBatches; len(bm) >= 2 {
		_, h := ci.Mean95(bm) // the batch means' spread; the interval is about the exact mean
		m := row.Observed.Mean
		row.ObservedCI.Mean = &result.Interval{Lo: usec.Round6(max(m-h, 0)), Hi: usec.Round6(m + h)}
	}
	for _, q := range []struct {
		p  float64
		iv **result.Interval
	}{{0.5, &row.ObservedCI.P50}, {0.95, &row.ObservedCI.P95}, {0.99, &row.ObservedCI.P99}} {
		l, u := ci.QuantileRanks(obs.N, q.p)
		if l > 0 {
			*q.iv = &result.Interval{Lo: usec.ToMS(min(oh.AtRank(l), obs.Max)), Hi: usec.ToMS(min(oh.AtRank(u), obs.Max))}
		}
	}
	return row
}
