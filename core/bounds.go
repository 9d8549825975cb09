package core

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/usec"
)

// MaxTimeUS bounds every time and duration of a scenario (about 11.6 days of
// simulated time), so that sums of times can never overflow an int64.
const MaxTimeUS = usec.Max

// The simulated clock never passes MaxTimeUS. Every input time and duration
// is at most MaxTimeUS on its own (the readers check), but a service time
// divided by a slow machine's speed, or requests queued behind one another,
// can reach further: setup rejects a scenario whose service times alone
// cannot be represented (plan.Resolve), and the engine stops with an error,
// naming the fields to change, when an event would fall past MaxTimeUS
// (engine.overTime). With every time at most MaxTimeUS, every loop that walks
// simulated time (series bins, MP resets) is bounded, and no time can wrap
// around the int64 range.

// overTime stops the run: request f would make the clock pass MaxTimeUS at
// at (what says how); fields names what to change.
func (e *engine) overTime(f *flight, at int64, what, fields string) {
	if e.fault != nil {
		return
	}
	e.fault = diag.Errorf(diag.EINVALID, "%s: request %d (service %s) %s at %s ms, past the longest simulated time (%s); "+
		"shorten the service times or the workload, or raise the machine's speed",
		fields, f.req.Seq, e.m.Services[f.req.Service].Name, what, strconv.FormatFloat(float64(at)/1000, 'g', 6, 64), usec.MaxText)
}

// timeFields names the inputs that set how long server sv is busy with f.
func (e *engine) timeFields(f *flight, sv *serverState) string {
	lmid := e.m.Machines[sv.machine].LMID
	switch {
	case sv.gateway:
		return "tuning.gateway_forward_ms"
	case f.req.ServiceUS >= 0:
		return "the request's service_ms and machines." + lmid + ".speed"
	}
	return "services." + e.m.Services[f.req.Service].Name + ".service_time and machines." + lmid + ".speed"
}

// replyFields names the inputs that set when f's reply reaches its caller.
func (e *engine) replyFields(f *flight, sv *serverState) string {
	if sv.gateway {
		if r := e.m.Services[f.req.Service].Remote; r != nil {
			return "domains." + r.Domain + ".response_time"
		}
	}
	return "network.latency_ms"
}

// checkSums refuses a result whose sums may have passed the int64 range.
// Every time is at most MaxTimeUS, so each sum is bounded by a count times a
// time: waits and responses by completed requests x the largest one, queue
// areas by the requests ever in flight x the span, busy times by servers x
// the span. Those bounds are far below 2^63 for any run that fits in memory
// today; the check makes the guarantee explicit rather than assumed.
func (e *engine) checkSums() error {
	st := &e.st
	type bound struct {
		n, t int64
		what string
	}
	for _, b := range []bound{
		{st.completed, st.longestUS(), "response times"},
		{int64(e.pool.Len()), e.spanUS, "queue lengths over time"},
		{int64(len(e.servers)), e.spanUS, "busy times"},
	} {
		if hi, lo := bits.Mul64(uint64(max(b.n, 0)), uint64(max(b.t, 0))); hi != 0 || lo > math.MaxInt64 {
			return diag.Errorf(diag.EINVALID, "the run is too large to account exactly: the sum of %s could pass the 64-bit range "+
				"(%d x %d us); shorten the workload or its service times", b.what, b.n, b.t)
		}
	}
	return nil
}
