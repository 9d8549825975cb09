package core

import (
	"maps"
	"slices"

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
	tol := e.setup.Tolerance
	from, to := usec.ToMS(va.FromUS), usec.ToMS(va.ToUS)
	v := &result.Validation{FromMS: &from, ToMS: &to, Replications: 1,
		Tolerance: &result.Tolerances{Mean: tol[0], P50: tol[1], P95: tol[2], P99: tol[3]}}
	name := func(s int) string { return e.m.Services[s].Name }
	v.Overall, v.Services = va.Rows(w.Observed, name, st.vSim, &st.vAll)
	v.Judge()
	r.Validation = v
}
