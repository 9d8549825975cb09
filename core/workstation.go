package core

import (
	"slices"

	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/evq"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/wsconnect"
)

// This file plays the workstation front end (docs/engine.md, "The
// workstation front end"): client sets connected through a WSL. At t = 0
// the clients connect to its handlers (connectClients, by package
// wsconnect's rule); a connected client's requests enter on the WSL's
// machine (the plan made it their origin); a request is chosen one
// handling draw after its client sent it (deferChoice, then wshChoice in
// the turn after the network arrivals), and its reply or failure reaches
// the client one more draw after it reached the handler (wshOut, added where a reply's time is set). A run
// whose client sets have no via never comes here.

// Random streams of the handling draws, seeded by the request's key.
const (
	streamWSHIn  = 0x77736869 // "wshi": a request on its way in
	streamWSHOut = 0x7773686f // "wsho": its reply or failure on its way out
)

// wshState is the engine's state for the workstation front end.
type wshState struct {
	handling dist.Sampler // workstation.handling_time; nil: every draw is 0
	conn     wsconnect.Connections
	// deferUS is the handling draw of the client request being issued: when
	// above 0, issue numbers it and leaves its choice for that much later
	deferUS int64
	draw    rng.PCG
}

// connectClients connects the clients of every set with via to their
// WSL's handlers, at t = 0 ([wsconnect.Connect]): a client not connected
// issues nothing. It returns nil when no set has via.
func connectClients(e *engine, a *appState) *wshState {
	if !slices.ContainsFunc(a.plan.Clients, func(c plan.Client) bool { return c.Via != nil }) {
		return nil
	}
	w := &wshState{handling: e.setup.HandlingTime, conn: wsconnect.Connect(e.m, a.plan.Clients, a.plan.NClient)}
	for g, off := range w.conn.Off {
		a.cl[g].off = off
	}
	return w
}

// wshDraw is a handling draw for request key on stream: whole
// microseconds, 0 without a handling time.
func (w *wshState) wshDraw(key uint64, stream uint64) int64 {
	if w.handling == nil {
		return 0
	}
	w.draw.Seed(key, stream)
	return usec.Round(w.handling.SampleMS(&w.draw) * 1000)
}

// wshOut is the handling draw of the reply or failure of the request
// whose slot is sl (key: its key) on its way from the handler to its
// workstation client; 0 for any other caller.
func (a *appState) wshOut(sl *appSlot, key uint64) int64 {
	if !sl.ws {
		return 0
	}
	return a.wsh.wshDraw(key, streamWSHOut)
}

// deferChoice is issue's step for a workstation client's request whose
// handling draw is above 0: it is numbered and logged now, at its send, and
// chosen that much later, in the turn after the network arrivals (wshChoice).
func (e *engine) deferChoice(s int32, f *flight) {
	a := e.app
	at := f.req.TimeUS + a.wsh.deferUS
	a.wsh.deferUS = 0
	if at > MaxTimeUS {
		e.overTime(f, at, "it would be chosen", "workstation.handling_time")
	}
	a.retries.push(appEvent{t: at, seq: f.req.Seq, class: classChoice, caller: s})
	a.lo = min(a.lo, at)
}

// wshChoice is the handler's turn for the request in slot s, sent by its
// workstation client one handling draw ago: it is chosen now, as issue
// chooses; a failure at its choice reaches the client one more draw later.
func (e *engine) wshChoice(ev *appEvent) {
	a := e.app
	s, t := ev.caller, ev.t
	f := e.pool.At(s)
	key, seq := f.req.Key, f.req.Seq
	e.place(s, f, t)
	if code := a.atIssue; code != 0 {
		sl := a.slots[s]
		if d := a.wshOut(&sl, key); d > 0 {
			e.answer(&sl, seq, code, t+d)
		} else {
			e.answerNow(&sl, code, t)
		}
	}
}

// place chooses the queue of request s (record f, issued already) at t and
// sends it there: issue's second half, for a request whose choice a
// workstation handler deferred. It mirrors issue with t for the issue
// time; issue keeps its own copy so the plain path pays no call.
func (e *engine) place(s int32, f *flight, t int64) {
	r := &f.req
	sv := &e.svc[r.Service]
	var ex *result.Explanation
	if sv.routes != nil || e.opt.explain != nil {
		sv, ex = e.routeExplain(f, sv)
	}
	if ex != nil {
		e.opt.explain.note = sprintf("Its client sent it at %s ms through a workstation handler, which passed it on (this choice) at %s ms, one handling time later; its reply or failure reaches the client one more handling time after it reaches the handler.",
			usec.FormatMS(r.TimeUS), usec.FormatMS(t))
	}
	if e.life != nil && e.life.nlost > 0 && e.life.lost[r.Origin] {
		sv = nil // issued from a lost machine: TPESYSTEM
	}
	e.app.atIssue = 0
	if sv == nil || len(sv.cands) == 0 {
		f.reason = reasonNoEnt
		if sv == nil {
			f.reason = reasonSystem
		}
		e.app.atIssue = f.reason
		e.st.flow(f, -1)
		e.st.fail(f)
		if ex != nil {
			e.opt.explain.finish(e, ex, f)
		}
		e.finish(s)
		return
	}
	sq, chosen, reason := e.choose(f, sv)
	f.queue, f.chosen, f.reason, f.load = sq.q, chosen, reason, int32(sq.load)
	f.prio = uint8(sq.prio)
	if p := r.Prio; p > 0 {
		f.prio = uint8(min(p, prioLevels))
	}
	e.st.chosen(f)
	e.st.flow(f, sq.machine)
	e.chosen[chosen]++
	if qm := sq.machine; int(qm) != r.Origin {
		e.st.crossing(f, qm)
		if e.setup.LatencyUS > 0 {
			if at := t + e.setup.LatencyUS; at > MaxTimeUS {
				e.overTime(f, at, "it would arrive at its queue", "network.latency_ms")
			}
			// among the arrivals of its instant in issue order: requests
			// issued after it may have been sent before its choice
			seq := f.req.Seq
			e.arr.PushAmong(evq.Arrival{T: t + e.setup.LatencyUS, Slot: s}, func(o int32) bool { return e.pool.At(o).req.Seq > seq })
			if ex != nil {
				e.opt.explain.finish(e, ex, f)
			}
			return
		}
	}
	e.enter(s, f, t)
	if ex != nil {
		e.opt.explain.finish(e, ex, f)
	}
}

// workstationResult adds the connections to r: clients[].not_connected
// for the sets with via, and workstation[].
func (e *engine) workstationResult(r *result.Result) {
	w := e.app.wsh
	for k := range e.app.plan.Clients {
		if e.app.plan.Clients[k].Via != nil {
			n := w.conn.NotConnected[k]
			r.Clients[k].NotConnected = &n
		}
	}
	r.Workstation = make([]result.WorkstationStats, len(w.conn.WSL))
	for k, c := range w.conn.WSL {
		ws := &e.m.Workstations[k]
		clients := append([]int{}, c.Clients...)
		r.Workstation[k] = result.WorkstationStats{ID: ws.ID, Machine: ws.LMID, Handlers: len(clients),
			Clients: clients, NotConnected: c.NotConnected}
	}
}
