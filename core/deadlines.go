package core

import "github.com/tuxlb/tuxlb/core/internal/usec"

// This file holds the callers' deadlines (docs/engine.md, "Applications"):
// a caller waits for a request's outcome at most its service's BLOCKTIME
// (plan.App's BlockUS: else SCANUNIT x BLOCKTIME); the deadlines of one
// length wait in one FIFO (deadlineQueue), which appState.next merges with
// the other application events. The deadlines are set where a caller
// issues: callChild (calls.go) and clientIssue (clients.go).

// deadlineQueue holds the pending deadlines of one length (a service's
// BLOCKTIME): issued in order, they fall due in order, a FIFO. Most are
// settled long before they fall due (a client's requests take milliseconds,
// BLOCKTIME is a minute by default), so deadlineFor sweeps the settled ones
// out once the queue has doubled since the last sweep: it stays about twice
// the deadlines still awaited, within the caches. A settled deadline stays
// settled (Seqs are never reused): next dropping it or a sweep is the same.
type deadlineQueue struct {
	lim     int64
	evs     []appEvent
	head    int
	sweepAt int // the length at which deadlineFor sweeps next
}

// deadlineFor sets the deadline of a caller (kind, caller, callerSeq)
// waiting for request seq of service svc, issued at t: the service's
// BLOCKTIME later, the latest of its length's queue; none when the service
// has none or it would fall past MaxTimeUS.
func (e *engine) deadlineFor(svc int, t, seq int64, kind callerKind, caller int32, callerSeq int64) {
	a := e.app
	k := a.dlOf[svc]
	if k < 0 || t+a.dl[k].lim > MaxTimeUS {
		return
	}
	q := &a.dl[k]
	if q.head > 0 && q.head == len(q.evs) {
		q.evs, q.head = q.evs[:0], 0
	} else if len(q.evs) >= q.sweepAt {
		q.sweep(e)
	}
	at := t + q.lim
	q.evs = append(q.evs, appEvent{t: at, seq: seq, class: classDeadline, kind: kind, caller: caller, callerSeq: callerSeq, awaited: seq})
	a.dlLo, a.lo = min(a.dlLo, at), min(a.lo, at)
}

// sweep keeps q's deadlines not settled yet, in order, from evs[0].
func (q *deadlineQueue) sweep(e *engine) {
	kept := q.evs[:0]
	for i := q.head; i < len(q.evs); i++ {
		if !e.settled(&q.evs[i]) {
			kept = append(kept, q.evs[i])
		}
	}
	q.evs, q.head = kept, 0
	q.sweepAt = 2*len(kept) + 1024
}

// deadline is a caller's deadline for request ev.awaited: if its outcome has
// not reached the caller, the caller gets TPETIME (a client goes on, a
// calling server fails its request with TPESVCFAIL). The request itself
// goes on.
func (e *engine) deadline(ev *appEvent) {
	a := e.app
	switch ev.kind {
	case callerClient:
		c := &a.cl[ev.caller]
		if c.waiting != ev.awaited {
			return
		}
		c.waiting = 0
		e.spanUS = max(e.spanUS, ev.t)
		e.clientOutcome(c, codeTimeout, ev.t)
	case callerFwd:
		if fw := &e.q.fw[ev.caller]; fw.busy && fw.gen == ev.callerSeq && fw.awaited == ev.awaited {
			e.spanUS = max(e.spanUS, ev.t)
		}
		e.fwdOutcome(ev.caller, ev.callerSeq, ev.awaited, codeTimeout, ev.t)
	case callerServer:
		p := ev.caller
		if !e.holding(p, ev.callerSeq) || !a.awaits(p, ev.awaited) {
			return
		}
		e.spanUS = max(e.spanUS, ev.t)
		a.why = sprintf("its nested request #%d had not replied by its deadline, %s ms (TPETIME)", ev.awaited, usec.FormatMS(ev.t))
		e.failParent(p, ev.t)
	}
}

// settled is whether deadline ev is past caring: its caller has had its
// outcome (a client's, or a server's nested request's); next drops it.
func (e *engine) settled(ev *appEvent) bool {
	switch ev.kind {
	case callerClient:
		return e.app.cl[ev.caller].waiting != ev.awaited
	case callerServer:
		return !e.holding(ev.caller, ev.callerSeq) || !e.app.awaits(ev.caller, ev.awaited)
	}
	return false
}
