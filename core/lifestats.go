package core

import (
	"fmt"

	"github.com/tuxlb/tuxlb/core/internal/life"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
)

// maxChanges bounds the life-cycle changes a result lists.
const maxChanges = 10000

// lifeResult adds what only runs with life cycles report: the changes, each
// instance's final state, up time and utilization over its up time, and
// the boot time that ran.
func (e *engine) lifeResult(r *result.Result) {
	L := e.life
	if L == nil {
		return
	}
	boot := usec.ToMS(L.bootUS)
	r.Tuning.BootMS = &boot
	r.Lifecycle = []result.LifeChange{}
	for k := range L.changes[:min(len(L.changes), maxChanges)] {
		c := &L.changes[k]
		r.Lifecycle = append(r.Lifecycle, result.LifeChange{AtUS: c.t, AtMS: usec.ToMS(c.t), Server: e.m.Servers[c.srv].ID,
			From: c.from.String(), To: c.to.String(), Cause: c.cause.String()})
	}
	for _, c := range L.machineChanges {
		r.MachineChanges = append(r.MachineChanges, result.MachineChange{AtUS: c.t, AtMS: usec.ToMS(c.t), LMID: e.m.Machines[c.machine].LMID, Change: c.what})
	}
	if n := len(L.changes); n > maxChanges {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d life-cycle changes; only the first %d are listed in lifecycle", n, maxChanges))
	}
	up := e.upTimes()
	for i := range r.Servers {
		s := &r.Servers[i]
		s.State = e.servers[i].state.String()
		upMS := usec.ToMS(up[i])
		s.UpMS = &upMS
		u := frac(float64(e.servers[i].busyUS), float64(up[i])*float64(e.m.Servers[i].DispatchThreads()))
		s.UpUtilization = &u
	}
}

// running reports whether an instance in state s is alive (up or stopping):
// the time it counts as up.
func (s instState) running() bool { return s == stateUp || s == stateStopping }

// upTimes returns each instance's time up or stopping between the warm-up
// and the span, from its initial state and its changes.
func (e *engine) upTimes() []int64 {
	ran := make([]bool, len(e.servers))
	for i := range ran {
		ran[i] = e.initialState(i).running()
	}
	runs := func(yield func(life.Run) bool) {
		for k := range e.life.changes {
			if c := &e.life.changes[k]; c.from.running() != c.to.running() && !yield(life.Run{T: c.t, Srv: c.srv, Runs: c.to.running()}) {
				return
			}
		}
	}
	return life.UpTimes(ran, runs, e.setup.WarmupUS, e.spanUS)
}
