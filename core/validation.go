package core

import (
	"slices"

	"github.com/tuxlb/tuxlb/core/result"
)

// traceResult fills the result's trace block (what reading the trace found)
// and, when the log observed responses, its validation: the observed
// responses of the rows issued at or after the warm-up beside the run's for
// the same rows (stats.validated counted those that completed).
func (e *engine) traceResult(r *result.Result) {
	w := e.setup.Work
	if w == nil || !w.Traced {
		return
	}
	r.Trace = &result.TraceRead{Rows: w.Info.Rows, Skipped: w.Info.Skipped, SkippedExamples: slices.Clone(w.Info.Examples)}
	if r.Trace.SkippedExamples == nil {
		r.Trace.SkippedExamples = []string{}
	}
	if len(w.Observed) == 0 {
		return
	}
	st := &e.st
	obs := make([]summaryAcc, len(e.m.Services))
	var all summaryAcc
	for _, o := range w.Observed {
		if o.TimeUS >= st.warmUS {
			addValue(&obs[o.Service], o.US)
			addValue(&all, o.US)
		}
	}
	v := &result.Validation{Overall: validationRow("", &all, &st.vAll), Services: []result.ValidationRow{}}
	for s := range obs {
		if obs[s].n > 0 {
			v.Services = append(v.Services, validationRow(e.m.Services[s].Name, &obs[s], &st.vSim[s]))
		}
	}
	r.Validation = v
}

// validationRow compares the observed responses obs with the simulated sim.
func validationRow(service string, obs, sim *summaryAcc) result.ValidationRow {
	o, s := obs.summary(obs.hist()), sim.summary(sim.hist())
	row := result.ValidationRow{Service: service, Observed: o, Simulated: s}
	if s.Count > 0 {
		rel := func(sim, obs float64) *float64 {
			if obs == 0 {
				return nil
			}
			x := roundF((sim - obs) / obs)
			return &x
		}
		row.RelativeError = result.RelativeErrors{Mean: rel(s.Mean, o.Mean), P50: rel(s.P50, o.P50), P95: rel(s.P95, o.P95), P99: rel(s.P99, o.P99)}
	}
	return row
}
