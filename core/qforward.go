package core

import (
	"strconv"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/msgq"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/workload"
)

// This file plays /Q (docs/engine.md, "/Q: TMQUEUE and TMQFORWARD"): an
// enqueue is a request of its queue space's service, and its message is
// stored at the tail of its queue when it ends (qStore); each TMQFORWARD
// instance takes one message at a time from the first of its queues that
// holds an available one and calls the service named like the queue, in a
// transaction it owns (fwdLook, fwdTake); the outcome deletes the message
// or puts it back at the head, available again after the queue's retry
// delay, moves it to the error queue or drops it (fwdOutcome, fwdFailed).
// The engine has a qState only when the scenario has qspaces.
//
// A forwarder's looks that can find nothing are not played: one that
// sleeps -i seconds looks at sleepUS + j·idle (j ≥ 1), and only the first
// of those looks at or after a message becomes available in one of its
// queues is scheduled (qNotify). It is the same run as a timer every -i
// seconds, without the events that change nothing (and a run whose
// queues are empty ends).

// forwarder is one TMQFORWARD instance.
type forwarder struct {
	plan    *plan.Forwarder
	server  int32
	machine int32
	busy    bool  // it holds a message: its forward, then its commit, run
	lost    bool  // crashed while forwarding: its failure is handled at the notice
	gen     int64 // bumped at each take: the outcomes of older forwards are stale
	awaited int64 // the Seq of the forward whose outcome it waits for, 0 for none
	x       int32 // its forward's transaction, 1 + its index in tranState.xs; 0 for none
	msg     msgq.Msg
	q       int32 // the queue of the message it holds
	takeUS  int64
	sleepUS int64 // when it last found nothing (-i above 0: it looks every idle µs from then)
	wakeAt  int64 // its next look, -1 for none scheduled
	wakeGen int64 // bumped at each look: older wake-ups are stale
}

// qState is the engine's state for /Q.
type qState struct {
	plan  *plan.QPlan
	store *msgq.Store
	fw    []forwarder
	fwOf  []int32 // per server instance: its forwarder, -1 for none
	avail appHeap // messages available again after a retry delay, in the order they failed
	wake  appHeap // forwarders' looks, in scan order within an instant
	fails int64   // failures so far (the order of avail)
	// waking and wakePos: the wake-up turn being played (its instant) and
	// the instance whose look it has got to (scan order): a forwarder
	// with -i above 0 before it has had its look of that instant
	waking  int64
	wakePos int32
	looking int32 // 1 + a forwarder whose forward failed at its issue: it looks again at once (fwdLook), so qNotify need not wake it
}

// newQState sets /Q up for e: every forwarder up at 0 looks in the wake-up
// turn of 0.
func newQState(e *engine, qp *plan.QPlan) *qState {
	q := &qState{plan: qp, waking: -1, store: msgq.New(len(qp.Queues), e.setup.WarmupUS), fw: make([]forwarder, len(qp.Forwarders)),
		fwOf: make([]int32, len(e.servers))}
	for i := range q.fwOf {
		q.fwOf[i] = -1
	}
	for k := range qp.Forwarders {
		fp := &qp.Forwarders[k]
		sv := &e.servers[fp.Server]
		q.fw[k] = forwarder{plan: fp, server: int32(fp.Server), machine: sv.machine, wakeAt: -1}
		q.fwOf[fp.Server] = int32(k)
		for _, qi := range fp.Queues {
			q.store.Queues[qi].Readers = append(q.store.Queues[qi].Readers, int32(k))
		}
		if sv.state == stateUp {
			q.schedule(int32(k), 0)
		}
	}
	return q
}

// schedule makes forwarder fi look at t (in the wake-up turn of t).
func (q *qState) schedule(fi int32, t int64) {
	fw := &q.fw[fi]
	fw.wakeAt = t
	fw.wakeGen++
	q.wake.push(appEvent{t: t, seq: int64(fw.server), class: classQWake, caller: fi, callerSeq: fw.wakeGen})
}

// qHeld stops the run when the messages stored and the requests held at
// t are more than RunOptions.MaxInFlight.
func (e *engine) qHeld(t int64) {
	if lim := e.opt.MaxInFlight; lim > 0 && e.q.store.Held+int64(e.pool.Len()) > lim && e.fault == nil {
		err := diag.Errorf(diag.ETOOLARGE, "backlog: more than %d /Q messages and requests held at once at %s ms (the most one run may hold); "+
			"the forwarders cannot keep up with the enqueues: add forwarders or servers, lower the rate, or shorten the run",
			lim, usec.FormatMS(t))
		err.Limit = diag.LimitInFlight
		e.fault = err
	}
}

// qStore is the end of enqueue f at t: its message is stored at the tail
// of its queue, available at once.
func (e *engine) qStore(f *flight, t int64) {
	qi := f.req.Queue - 1
	if t >= e.setup.WarmupUS {
		e.q.store.Queues[qi].Enqueued++
	}
	e.q.store.Add(qi, msgq.Msg{Key: f.req.Key, RouteVal: workload.RouteText(&f.req), Buf: f.req.Buf}, t)
	e.qHeld(t)
	e.qNotify(qi, t)
}

// qNotify is a message of queue qi becoming available at t: each forwarder
// reading qi that is up and holds no message looks at its first look at or
// after t (-i 0: at t, in the wake-up turn; else its next timer).
func (e *engine) qNotify(qi int32, t int64) {
	q := e.q
	for _, fi := range q.store.Queues[qi].Readers {
		fw := &q.fw[fi]
		if fw.busy || fi+1 == q.looking || e.servers[fw.server].state != stateUp {
			continue
		}
		at := t
		if idle := fw.plan.IdleUS; idle > 0 {
			j := max((t-fw.sleepUS+idle-1)/idle, 1)
			at = fw.sleepUS + j*idle
			if at == t && q.waking == t && fw.server <= q.wakePos {
				at += idle // its look of t came earlier in this wake-up turn, and found nothing
			}
		}
		if at > MaxTimeUS || fw.wakeAt >= 0 && fw.wakeAt <= at {
			continue
		}
		q.schedule(fi, at)
	}
}

// qAvailable is failed message ev.awaited of queue ev.caller available
// again, in the turn after client requests of the instant its delay ends.
func (e *engine) qAvailable(ev *appEvent) {
	e.q.store.MakeReady(ev.caller, ev.awaited)
	e.qNotify(ev.caller, ev.t)
}

// fwdWake is forwarder ev.caller's look, if it still applies.
func (e *engine) fwdWake(ev *appEvent) {
	e.q.waking, e.q.wakePos = ev.t, int32(ev.seq) // where the wake-up turn of ev.t has got to
	fw := &e.q.fw[ev.caller]
	if ev.callerSeq != fw.wakeGen || fw.busy || e.servers[fw.server].state != stateUp {
		return
	}
	e.fwdLook(ev.caller, ev.t)
}

// fwdLook is forwarder fi looking for a message at t: the first available
// one of the first of its queues that holds one; with none it sleeps. A
// forward that fails at its issue leaves the forwarder free at once: it
// looks again, in this loop (a message failing at its issue with many
// retries and no delay is taken again and again in one instant, and would
// otherwise nest a call each time).
func (e *engine) fwdLook(fi int32, t int64) {
	q := e.q
	for {
		fw := &q.fw[fi]
		fw.wakeAt = -1
		fw.wakeGen++
		qi, i := e.fwdFind(fi)
		if qi < 0 {
			fw.sleepUS = t
			return
		}
		if !e.fwdTake(fi, qi, i, t) || e.fault != nil {
			return
		}
		if st := e.servers[fw.server].state; st != stateUp {
			if st == stateStopping {
				e.stopped(fw.server, t)
			}
			return
		}
	}
}

// fwdFind is where forwarder fi's next message is: the first available one
// of the first of its queues that holds one (-1: none).
func (e *engine) fwdFind(fi int32) (int32, int) {
	for _, qi := range e.q.fw[fi].plan.Queues {
		if i := e.q.store.FirstReady(qi); i >= 0 {
			return qi, i
		}
	}
	return -1, 0
}

// streamForward seeds a forward's key from its message's.
const streamForward = 0x71666f7277617264 // "qforward"

// fwdTake is forwarder fi taking the message at position i of queue qi at
// t: it begins the forward's transaction (when the queue space's group has
// a TMS) and calls the service named like the queue. It returns true when
// the forward failed at its issue: the message is handled, and the
// forwarder, free again, is to look again (fwdLook).
func (e *engine) fwdTake(fi, qi int32, i int, t int64) bool {
	q := e.q
	m := q.store.TakeAt(qi, i, t)
	fw := &q.fw[fi]
	spec := &q.plan.Queues[qi]
	fw.busy, fw.msg, fw.q, fw.takeUS, fw.x, fw.awaited = true, m, qi, t, 0, 0
	fw.gen++
	id := "" // Q#n~k, when someone reads ids (engine.ids)
	if e.ids {
		id = spec.Name + "#" + strconv.FormatInt(m.N, 10) + "~" + strconv.Itoa(int(m.K))
	}
	if tr := e.tr; tr != nil && tr.tmsQ[spec.Group] >= 0 {
		fw.x = e.openTran(-1, -1, id, fw.machine, int32(spec.Group), fw.plan.TranUS, t) + 1
		tr.xs[fw.x-1].fwd = fi + 1
	}
	r := workload.Request{TimeUS: t, Service: spec.Service, Origin: int(fw.machine), ServiceUS: -1, ID: id,
		Key: workload.Mix64(m.Key ^ workload.Mix64(uint64(m.K)+streamForward)), RouteVal: m.RouteVal, Buf: m.Buf}
	e.routeRequest(&r)
	a := e.app
	a.bindTo(callerFwd, fi, fw.gen, fw.x)
	a.mode = "forward"
	a.bound = true
	if err := e.issue(&r); err != nil {
		a.bound = false
		if e.fault == nil {
			e.fault = err
		}
		return false
	}
	seq := e.issued
	fw.awaited = seq
	if t >= e.setup.WarmupUS {
		a.nested++ // a request issued by a server (the forwarder)
	}
	if code := a.atIssue; code != 0 {
		fw.awaited, q.looking = 0, fi+1
		e.fwdFailed(fi, code, t, false) // it failed at its issue
		q.looking = 0
		return true
	}
	e.deadlineFor(r.Service, t, seq, callerFwd, fi, fw.gen)
	return false
}

// routeRequest sets r's routing range from its routing value, for its
// service's criterion (as a nested request's is).
func (e *engine) routeRequest(r *workload.Request) {
	if e.routing != nil && e.routing[r.Service] != nil {
		r.Route = e.routing[r.Service].Route(e.bufs, r.Buf, r.RouteVal)
	} else if crit := e.m.Criterion(e.m.Services[r.Service].Routing); crit != nil && r.RouteVal != "" {
		r.Route = workload.RouteOf(crit, r.RouteVal)
	}
}

// fwdOutcome is the outcome of forward seq (code 0: its reply) reaching
// forwarder fi at t, if the forwarder still waits for it: a reply begins
// the commit (or, without a transaction, deletes the message); a failure
// or TPETIME aborts the transaction and sends the message back.
func (e *engine) fwdOutcome(fi int32, gen, seq int64, code reason, t int64) {
	fw := &e.q.fw[fi]
	if !fw.busy || fw.lost || fw.gen != gen || fw.awaited != seq {
		return // (a forwarder killed while forwarding hears nothing: its failure comes at the notice)
	}
	fw.awaited = 0
	if code != 0 {
		e.fwdFailed(fi, code, t, true)
		return
	}
	if fw.x > 0 {
		e.tranCommit(fw.x-1, t)
		return
	}
	e.fwdDone(fi, t)
}

// fwdDone is forwarder fi's message forwarded at t (and its transaction
// committed): the message is deleted, and the forwarder looks again.
func (e *engine) fwdDone(fi int32, t int64) {
	fw := &e.q.fw[fi]
	e.fwdDeleted(fw)
	e.fwdNext(fi, t)
}

// fwdDeleted counts forwarder fw's message forwarded: deleted with its
// forward's commit.
func (e *engine) fwdDeleted(fw *forwarder) {
	fw.busy, fw.x = false, 0
	e.q.store.Forwarded(fw.q, &fw.msg, fw.takeUS)
}

// fwdNext is forwarder fi free at t: it looks again, or, stopping, is gone.
func (e *engine) fwdNext(fi int32, t int64) {
	fw := &e.q.fw[fi]
	switch e.servers[fw.server].state {
	case stateUp:
		e.fwdLook(fi, t)
	case stateStopping:
		e.stopped(fw.server, t)
	}
}

// fwdFailed is forwarder fi's forward failing at t with code: its
// transaction is aborted, and the message is deleted (-d and TPESVCFAIL),
// put back at the head of its queue with one more retry, moved to the
// error queue or dropped; then, with look, the forwarder looks again.
func (e *engine) fwdFailed(fi int32, code reason, t int64, look bool) {
	q := e.q
	fw := &q.fw[fi]
	if fw.x > 0 {
		if x := &e.tr.xs[fw.x-1]; !x.aborted && !x.committing {
			e.abortTran(fw.x-1, false, t)
		}
	}
	fw = &q.fw[fi]
	fw.busy, fw.x, fw.awaited = false, 0, 0
	m, qi := fw.msg, fw.q
	mq := &q.store.Queues[qi]
	spec := &q.plan.Queues[qi]
	counted := t >= e.setup.WarmupUS
	switch {
	case code == reasonSvcFail && fw.plan.Delete:
		mq.Dropped += int64(b2i(counted))
	case int(m.K) >= spec.Retries && spec.ErrorQueue >= 0 && spec.ErrorQueue != qi:
		mq.ToError += int64(b2i(counted))
		q.store.Add(spec.ErrorQueue, msgq.Msg{Key: m.Key, RouteVal: m.RouteVal, Buf: m.Buf}, t)
		e.qHeld(t)
		e.qNotify(spec.ErrorQueue, t)
	case int(m.K) >= spec.Retries:
		mq.Dropped += int64(b2i(counted))
	default:
		mq.Retried += int64(b2i(counted))
		m.K++
		at := t + spec.DelayUS
		m.Ready = spec.DelayUS == 0
		q.store.PutBack(qi, m, t)
		e.qHeld(t)
		if spec.DelayUS == 0 {
			e.qNotify(qi, t)
		} else if at <= MaxTimeUS {
			q.fails++
			q.avail.push(appEvent{t: at, seq: q.fails, class: classQAvail, caller: qi, awaited: m.N})
		}
	}
	if look {
		e.fwdNext(fi, t)
	}
}

// fwdCommitted is the last commit reply of forwarder fi's transaction
// reaching it at t.
func (e *engine) fwdCommitted(fi int32, t int64) {
	if fw := &e.q.fw[fi]; fw.busy {
		e.fwdDone(fi, t)
	}
}

// fwdHolds reports whether forwarder fi still waits for transaction xi's
// commit.
func (e *engine) fwdHolds(fi, xi int32) bool {
	fw := &e.q.fw[fi]
	return fw.busy && !fw.lost && fw.x == xi+1
}

// fwdCrash is forwarder instance i crashing at t: a commit begun finishes
// without it (the message counts as forwarded); a forward is lost with the
// process, handled at the notice.
func (e *engine) fwdCrash(i int32, t int64) {
	fi := e.q.fwOf[i]
	fw := &e.q.fw[fi]
	fw.wakeAt = -1
	fw.wakeGen++
	if !fw.busy {
		return
	}
	if fw.x > 0 && e.tr.xs[fw.x-1].committing {
		e.fwdDeleted(fw)
		return
	}
	fw.lost = true
}

// fwdNotice is the BBL noticing forwarder instance i down at t: the forward
// it lost aborts its transaction and fails its message with TPESVCERR.
func (e *engine) fwdNotice(i int32, t int64) {
	fi := e.q.fwOf[i]
	if fw := &e.q.fw[fi]; fw.lost {
		fw.lost = false
		e.fwdFailed(fi, reasonSvcErr, t, false)
	}
}

// fwdUp is forwarder instance i coming up at t: it looks in the wake-up
// turn of t. One lost with its machine while forwarding (no BBL noticed
// it) fails its message with TPESVCERR first, as at a notice: the
// forward's transaction is rolled back when the machine is back.
func (e *engine) fwdUp(i int32, t int64) {
	fi := e.q.fwOf[i]
	if fi < 0 {
		return
	}
	if fw := &e.q.fw[fi]; fw.lost {
		fw.lost = false
		e.fwdFailed(fi, reasonSvcErr, t, false)
	}
	e.q.schedule(fi, t)
}

// fwdBusy reports whether instance i is a forwarder holding a message.
func (e *engine) fwdBusy(i int32) bool {
	fi := e.q.fwOf[i]
	return fi >= 0 && e.q.fw[fi].busy
}

// qResult adds the queue spaces' figures to r.
func (e *engine) qResult(r *result.Result) {
	q := e.q
	var cur *result.QSpaceStats
	for k := range q.plan.Queues {
		spec := &q.plan.Queues[k]
		if cur == nil || cur.Name != spec.QSpace {
			r.QSpaces = append(r.QSpaces, result.QSpaceStats{Name: spec.QSpace})
			cur = &r.QSpaces[len(r.QSpaces)-1]
		}
		qs := q.store.Stats(int32(k), spec.Name, e.spanUS, e.measuredUS())
		qs.Depth.Series = e.ser.msgQueueSeries(k)
		cur.Queues = append(cur.Queues, qs)
	}
}
