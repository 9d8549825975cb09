package core

import "github.com/tuxlb/tuxlb/core/internal/usec"

// This file holds the callers' deadlines (docs/engine.md, "Applications"):
// a caller waits for a request's outcome at most its service's BLOCKTIME
// (plan.App's BlockUS: else SCANUNIT x BLOCKTIME). The deadlines of one
// length are kept by one deadlineQueue, which appState.next merges with the
// other application events: a FIFO of the servers' and TMQFORWARDs'
// (deadlineFor, from callChild in calls.go and qforward.go), and a ring of
// the clients awaiting one (clientDeadline, from clientIssue).

// deadlineQueue holds the pending deadlines of one length (a service's
// BLOCKTIME): issued in order, they fall due in order. Most are settled
// long before they fall due (a request takes milliseconds, BLOCKTIME is a
// minute by default), so deadlineFor sweeps the settled ones out of the
// FIFO once it has doubled since the last sweep: it stays about twice the
// deadlines still awaited, within the caches. A settled deadline stays
// settled (Seqs are never reused): next dropping it or a sweep is the same.
type deadlineQueue struct {
	lim          int64
	evs          []appEvent
	head         int
	sweepAt      int      // the length at which deadlineFor sweeps next
	top          appEvent // the first deadline of its clients' ring (appState.rings) as next returns it
	unl, scanned int64    // at most the first deadline out of the ring (noTime: none); e.issued at link's last scan
	eager        bool     // clients enter the ring as they issue
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

// A client awaits one request at a time, so its deadline is its state's (dlAt);
// the clients awaiting one are in issue order, their deadlines' order, in their
// length's ring (appState.rings), and leave it as their wait ends (clientOutcome,
// loseClients): its first is the first deadline. A client enters as it issues
// (eager), or once a deadline out of the ring could be next (link, from next).

// clientDeadline sets the deadline of client g's request of service svc,
// issued at t (deadlineFor's rules).
func (a *appState) clientDeadline(g int32, svc int, t int64) {
	c := &a.cl[g]
	if c.dlAt = noTime; a.dlOf[svc] >= 0 && t+a.dl[a.dlOf[svc]].lim <= MaxTimeUS {
		q := &a.dl[a.dlOf[svc]]
		if c.dlAt = t + q.lim; q.eager {
			if !a.rings.In(int(a.dlOf[svc]), g) { // not the first
				return
			}
		} else if q.unl == noTime { // the first out of the ring
			q.unl = c.dlAt
		} else {
			return
		}
		a.dlLo, a.lo = min(a.dlLo, c.dlAt), min(a.lo, c.dlAt)
	}
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
// not reached the caller, the caller gets TPETIME (a client goes on, a calling
// server fails its request with TPESVCFAIL). The request itself goes on.
func (e *engine) deadline(ev *appEvent) {
	a := e.app
	switch ev.kind {
	case callerClient:
		c := &a.cl[ev.caller]
		if c.waiting != ev.awaited {
			return
		}
		c.waiting, e.spanUS = 0, max(e.spanUS, ev.t)
		e.clientOutcome(c, codeTimeout, ev.t)
	case callerFwd: // (TPETIME answers no one: no event of the span, as at X's timeout)
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

// settled is whether deadline ev of a queue is past caring: its caller, a
// server, has had its nested request's outcome; next drops it. (A client's
// leaves its ring with its outcome; a TMQFORWARD's stays.)
func (e *engine) settled(ev *appEvent) bool {
	return ev.kind == callerServer && (!e.holding(ev.caller, ev.callerSeq) || !e.app.awaits(ev.caller, ev.awaited))
}
