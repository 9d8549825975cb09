package core

import (
	"maps"
	"slices"

	"github.com/tuxlb/tuxlb/core/batchmeans"
	"github.com/tuxlb/tuxlb/core/internal/ci"
	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
)

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
		if o.TimeUS >= va.FromUS {
			obs[o.Service].Add(o.US)
			all.Add(o.US)
		}
	}
	tol := e.setup.Tolerance
	from, to := usec.ToMS(va.FromUS), usec.ToMS(va.ToUS)
	v := &result.Validation{FromMS: &from, ToMS: &to, Replications: 1,
		Tolerance: &result.Tolerances{Mean: tol[0], P50: tol[1], P95: tol[2], P99: tol[3]}}
	spanS := float64(va.ToUS-va.FromUS) / 1e6
	v.Overall = validationRow("", &all, &st.vAll, &va.All, spanS)
	v.Services = []result.ValidationRow{}
	for s := range obs {
		if obs[s].N > 0 {
			v.Services = append(v.Services, validationRow(e.m.Services[s].Name, &obs[s], &st.vSim[s], &va.Svc[s], spanS))
		}
	}
	v.Judge()
	r.Validation = v
}

// validationRow compares the observed responses obs with the simulated sim,
// over the batches of side and a window of spanS seconds: the summaries,
// the observed figures' intervals, the batch means and the throughputs.
func validationRow(service string, obs, sim *hist.Acc, side *batchmeans.Side, spanS float64) result.ValidationRow {
	oh := obs.Hist()
	row := result.ValidationRow{Service: service, Observed: obs.Summary(oh), Simulated: sim.Summary(sim.Hist()),
		ObservedBatches: side.Obs.Means(), SimulatedBatches: side.Sim.Means(),
		ObservedCI: &result.Intervals{}, ThroughputPerS: &result.Throughput{}}
	if spanS > 0 {
		*row.ThroughputPerS = result.Throughput{Observed: usec.Round6(float64(side.Obs.Done) / spanS), Simulated: usec.Round6(float64(side.Sim.Done) / spanS)}
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
