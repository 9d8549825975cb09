package core

import (
	"github.com/tuxlb/tuxlb/core/internal/usec"
)

// This file ends requests in a run with applications and hands their
// outcomes to their callers (docs/engine.md, "Applications"): a request
// ends on its server (release, endServed, then serverNext; steps writes
// out the same for a request that ends as a plain one: plainEnd), or fails
// (failParent: TPESVCFAIL for a caller whose child failed or timed out;
// appFailSvc: TPESVCERR); its reply or failure travels to its caller as an
// application event (answer, or answerNow in the same turn) and is handed
// over if the caller still waits for it (deliver); the requests that
// forwarded to it end with its reply (answer, loseForwarders).

// deliver hands a reply or failure to its caller, if the caller still waits
// for it: a client takes the outcome; a server holding the calling request
// goes on with its steps, or fails it with TPESVCFAIL. A reply to a server
// that crashed is lost (its request fails at the crash's notice).
func (e *engine) deliver(ev *appEvent) {
	a := e.app
	switch ev.kind {
	case callerClient:
		c := &a.cl[ev.caller]
		if c.waiting != ev.awaited {
			return
		}
		c.waiting = 0
		e.clientOutcome(c, ev.code, ev.t)
	case callerTMS:
		e.tranReply(ev)
	case callerFwd:
		e.fwdOutcome(ev.caller, ev.callerSeq, ev.awaited, ev.code, ev.t)
	case callerServer:
		p := ev.caller
		if !e.holding(p, ev.callerSeq) {
			return
		}
		if !a.settle(p, ev.awaited) {
			return
		}
		sl := &a.slots[p]
		if ev.code != 0 {
			a.why = sprintf("its nested request #%d failed with %s at %s ms", ev.awaited, ev.code, usec.FormatMS(ev.t))
			e.failParent(p, ev.t)
			return
		}
		if sl.pending--; sl.pending == 0 {
			e.runSteps(p, ev.t)
		}
	}
}

// holding reports whether the request in slot p (Seq seq) is still held by
// its server, waiting for replies: not ended, not failed, its server not
// crashed.
func (e *engine) holding(p int32, seq int64) bool {
	f := e.pool.At(p)
	if f.req.Seq != seq || !e.app.slots[p].holding || f.server < 0 {
		return false
	}
	sv := &e.servers[f.server]
	if sv.mt != nil {
		return sv.mt.Cur[f.thread] == p
	}
	return sv.busy && sv.cur == p
}

// settle removes child seq from the replies the request in slot p
// awaits; false when it was not awaited.
func (a *appState) settle(p int32, seq int64) bool {
	out := a.outs[p]
	for i, x := range out {
		if x == seq {
			out[i] = out[len(out)-1]
			a.outs[p] = out[:len(out)-1]
			return true
		}
	}
	return false
}

// awaits reports whether the request in slot p awaits child seq's reply.
func (a *appState) awaits(p int32, seq int64) bool {
	for _, x := range a.outs[p] {
		if x == seq {
			return true
		}
	}
	return false
}

// answerNow hands outcome code to the caller of sl at t, in this turn (a
// failure at issue).
func (e *engine) answerNow(sl *appSlot, code reason, t int64) {
	a := e.app
	switch sl.kind {
	case callerClient:
		c := &a.cl[sl.caller]
		if c.waiting == sl.awaited {
			c.waiting = 0
			e.clientOutcome(c, code, t)
		}
	case callerFwd:
		e.fwdOutcome(sl.caller, sl.callerSeq, sl.awaited, code, t)
	case callerServer:
		if e.holding(sl.caller, sl.callerSeq) && a.settle(sl.caller, sl.awaited) {
			a.why = sprintf("the request it called (#%d) forwarded to a service that failed at its issue with %s", sl.awaited, code)
			e.failParent(sl.caller, t)
		}
	}
}

// release ends the request in slot p (record f) on its server at t: its
// end time, the server's busy and held time; it returns the server, still
// to take its next request (serverNext).
func (e *engine) release(p int32, f *flight, t int64) *serverState {
	sv := &e.servers[f.server]
	f.endUS = t
	if sv.mt != nil {
		e.mtRelease(p, sv, t)
		return sv
	}
	e.accrueBusy(sv, t)
	if sl := &e.app.slots[p]; sl.holding {
		e.app.stopHold(sv.idx, t, e.setup.WarmupUS)
		sl.holding = false
	}
	sv.busy = false
	e.queues[sv.queue].inService--
	return sv
}

// stopHold accounts server i's time holding a request up to t.
func (a *appState) stopHold(i int32, t, warm int64) {
	if t > warm {
		a.held[i] += t - max(a.holdAt[i], warm)
	}
}

// serverNext is server sv, free at t, taking its next request, or gone if
// it was stopping: a single-threaded instance up is idle from t, and takes
// its queue's next waiting request, or, with none, its decay alarm is set
// (-p). steps writes the same out for the plain completion, its hot path.
func (e *engine) serverNext(sv *serverState, t int64) {
	if sv.mt != nil {
		e.mtNext(sv, t)
		return
	}
	i := sv.idx
	if sv.state != stateUp {
		e.stopped(i, t)
		return
	}
	e.markIdle(i)
	sv.idleSince = t
	if q := &e.queues[sv.queue]; q.wait.n > 0 {
		e.takeNext(i, q, t)
	} else if sv.idleAlarm {
		e.armDecay(i, t)
	}
}

// replyAt is when the reply of request f (slot data sl), ended at t on
// server sv, reaches its caller: after the remote domain's time for a
// gateway, and the crossing back when its caller is on another machine.
func (e *engine) replyAt(f *flight, sl *appSlot, sv *serverState, t int64) int64 {
	if f.unanswered {
		return t // no reply is sent: its end is its last event
	}
	at := t + f.remoteUS
	if sv.machine != sl.replyTo {
		at += e.setup.LatencyUS
	}
	if sl.ws {
		at += e.app.wshOut(sl, f.req.Key) // a workstation client's handler passes it on
	}
	return at
}

// endServed ends the request in slot s (its record f) on its server at t
// with its reply.
func (e *engine) endServed(s int32, f *flight, t int64) {
	if e.q != nil && f.req.Queue > 0 {
		e.qStore(f, t) // an enqueue: its message is stored
	}
	if e.tr != nil && e.tranEnd(s, t) {
		return // X's owner: its commit begins (or X timed out)
	}
	sv := e.release(s, f, t)
	sl := &e.app.slots[s]
	f.replyUS = e.replyAt(f, sl, sv, t)
	if f.replyUS > e.spanUS {
		e.spanUS = f.replyUS
		if f.replyUS > MaxTimeUS {
			e.overTime(f, f.replyUS, "its reply would reach its caller", e.replyFields(f, sv))
		}
	}
	e.st.complete(f, sv)
	e.finish(s)
	// the slot is free, but nothing takes it before answer is done: answer
	// issues nothing
	e.answer(sl, f.req.Seq, 0, f.replyUS)
	e.serverNext(sv, t)
}

// failParent fails the request in slot p with TPESVCFAIL at t: a child of
// it failed or timed out. Its server is free; the failure reaches its
// caller as a reply would.
func (e *engine) failParent(p int32, t int64) {
	if e.tr != nil {
		e.ownerFailed(p, t)
	}
	e.endFailed(p, t, reasonSvcFail, reasonSvcFail)
}

// endFailed ends the request in slot p, held waiting for replies, at t
// with reason why: its outstanding children are dropped, its instance is
// released, and its caller gets code when the reply would have reached it;
// then the instance takes its next request.
func (e *engine) endFailed(p int32, t int64, why, code reason) {
	f := e.pool.At(p)
	sv := e.release(p, f, t)
	sl := &e.app.slots[p]
	e.app.outs[p], sl.pending = e.app.outs[p][:0], 0
	f.reason = why
	f.replyUS = e.replyAt(f, sl, sv, t)
	e.spanUS = max(e.spanUS, f.replyUS)
	e.st.fail(f)
	e.ser.fail(f.reason)
	copied := *sl
	e.finish(p)
	e.answer(&copied, f.req.Seq, code, f.replyUS)
	e.serverNext(sv, t)
}

// appFailSvc is failSvc in a run with applications: request s fails with
// TPESVCERR at t, and the failure reaches its caller (after the crossing
// back to its caller's machine).
func (e *engine) appFailSvc(s int32, t int64) {
	if e.tr != nil {
		e.ownerFailed(s, t)
	}
	f := e.pool.At(s)
	sl := &e.app.slots[s]
	if sl.holding { // a stopping instance's held request aborted (SVCTIMEOUT)
		e.app.stopHold(f.server, t, e.setup.WarmupUS)
		sl.holding = false
	}
	f.reason = reasonSvcErr
	f.replyUS = t
	if e.queues[f.queue].machine != sl.replyTo && !f.unanswered {
		f.replyUS += e.setup.LatencyUS
	}
	if sl.ws && !f.unanswered {
		f.replyUS += e.app.wshOut(sl, f.req.Key)
	}
	e.spanUS = max(e.spanUS, f.replyUS)
	e.st.fail(f)
	e.ser.fail(f.reason)
	copied := *sl
	e.finish(s)
	e.answer(&copied, f.req.Seq, reasonSvcErr, f.replyUS)
}

// answer sends the outcome of request seq (slot data sl) to its caller at
// at, and completes the requests that forwarded to it: their reply is its.
func (e *engine) answer(sl *appSlot, seq int64, code reason, at int64) {
	a := e.app
	if sl.fwdFrom >= 0 {
		e.endForwarders(sl, at)
	}
	if sl.kind == callerNone || sl.kind == callerClient && e.clientReply(sl, code, at) {
		return
	}
	a.replies.push(appEvent{t: at, seq: seq, class: classReply, kind: sl.kind, caller: sl.caller, callerSeq: sl.callerSeq,
		awaited: sl.awaited, code: code})
	a.lo = min(a.lo, at)
}

// answerPlain is answer for a client's request ended as a plain one (plainEnd,
// with quick: none forwarded to it), less the tests that leaves to clientReply.
func (e *engine) answerPlain(sl *appSlot, seq, at int64) {
	if a, c := e.app, &e.app.cl[sl.caller]; e.life == nil && c.waiting == sl.awaited && at <= c.dlAt {
		a.ahead[0], c.waiting = a.ahead[0]+1, 0
		e.clientOutcome(c, 0, at)
		return
	}
	e.answer(sl, seq, 0, at)
}

// clientReply hands outcome code, reaching a client at at, over to it now
// when nothing could come between (docs/architecture.md, "The engine's
// files"): false when it must wait for its turn at at. A client no longer
// waiting for it drops it.
func (e *engine) clientReply(sl *appSlot, code reason, at int64) bool {
	a := e.app
	if sl.ws || e.life != nil || e.tr != nil || e.opt.replyTurns {
		return false
	}
	c := &a.cl[sl.caller]
	if c.waiting != sl.awaited {
		return true
	}
	if at > c.dlAt {
		a.ahead[1]++
		return false // its deadline passes first
	}
	a.ahead[0]++
	c.waiting = 0
	e.clientOutcome(c, code, at)
	return true
}

// crashHold is crash's hook: server i, holding the request in slot s,
// crashed at t; its held time ends.
func (e *engine) crashHold(i, s int32, t int64) {
	if sl := &e.app.slots[s]; sl.holding {
		e.app.stopHold(i, t, e.setup.WarmupUS)
		sl.holding = false // replies to it are lost; it fails at the notice
	}
}

// loseForwarders ends the requests that forwarded to request s, lost with
// its machine: no reply comes for them either (their rows keep no reply).
func (e *engine) loseForwarders(s int32) { e.endForwarders(&e.app.slots[s], -1) }

// endForwarders completes the requests that forwarded to the request of
// slot data sl with its reply, which reaches their caller at at; at -1:
// it never comes (each keeps its end as its last time).
func (e *engine) endForwarders(sl *appSlot, at int64) {
	a := e.app
	for p, pseq := sl.fwdFrom, sl.fwdSeq; p >= 0; {
		pf := e.pool.At(p)
		if pf.req.Seq != pseq || !a.slots[p].forwarded {
			break
		}
		next, nseq := a.slots[p].fwdFrom, a.slots[p].fwdSeq
		a.slots[p].forwarded = false
		pf.replyUS = at
		if at < 0 {
			pf.replyUS, pf.noReply = pf.endUS, true
		}
		e.st.complete(pf, &e.servers[pf.server])
		e.finish(p)
		p, pseq = next, nseq
	}
}
