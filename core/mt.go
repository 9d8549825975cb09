package core

import (
	"github.com/tuxlb/tuxlb/core/internal/evq"
)

// Multithreaded servers (docs/engine.md, "Multithreaded servers"): an
// instance with MAXDISPATCHTHREADS = k > 1 has k dispatch threads, each
// running one request at a time, all taking requests from its queue. Such
// an instance keeps its threads in a threads.Set; a single-threaded instance
// keeps its one request in serverState's own fields, so the paths of a
// model without multithreaded instances test one pointer and no more.
//
// The rules: a request entering a queue starts on the free thread that has
// been free longest (ties to the first instance in scan order, then the
// lowest thread); a thread that becomes free takes the queue's next request;
// an instance that comes up takes up to k waiting requests, threads in
// number order; a request waiting for its children's replies holds its
// thread, not the instance; a crash holds every thread's request until the
// notice, where they fail in thread order; a stopping instance takes
// nothing and is gone when its last request ends. To the dispatch rules it
// looks idle (its idle bit) while a thread is free, or with tuning mt_idle
// "no_request" while no thread holds a request.

// holdsAny reports whether instance sv processes or holds a request.
func holdsAny(sv *serverState) bool {
	if sv.mt != nil {
		return sv.mt.Free < sv.mt.K
	}
	return sv.busy
}

// mtFree is enter's choice of the free thread on queue q, in a model with
// multithreaded instances: the instance whose free thread has been free
// longest (ties to the first in scan order, then the lowest thread), its
// mt.Pick set to that thread; -1 when no up instance has a free thread.
func (e *engine) mtFree(q *queueState) int32 {
	best, bestT := int32(-1), int64(0)
	for _, i := range q.servers {
		sv := &e.servers[i]
		if sv.state != stateUp {
			continue
		}
		if m := sv.mt; m != nil {
			if j := m.LongestFree(); j >= 0 && (best < 0 || m.Since[j] < bestT) {
				best, bestT = i, m.Since[j]
				m.Pick = j
			}
		} else if !sv.busy && (best < 0 || sv.idleSince < bestT) {
			best, bestT = i, sv.idleSince
		}
	}
	return best
}

// mtLook sets multithreaded instance i's idle bit by its threads: idle
// while a thread is free (mt_idle "server"), or while none holds a request
// (mt_idle "no_request").
func (e *engine) mtLook(i int32) {
	m := e.servers[i].mt
	if m.Free == m.K || (m.Free > 0 && !e.mtNoReq) {
		e.markIdle(i)
	} else {
		e.markBusy(i)
	}
}

// mtStart begins request s at t on thread mt.Pick of instance i.
func (e *engine) mtStart(i, s int32, t int64) {
	sv := &e.servers[i]
	m := sv.mt
	f := e.pool.At(s)
	j := m.Start(s, t)
	e.mtLook(i)
	e.queues[sv.queue].inService++
	f.server, f.thread, f.startUS = i, j, t
	end := t + e.serviceTime(f, sv)
	if end > MaxTimeUS {
		e.overTime(f, end, "it would end", e.timeFields(f, sv))
	}
	m.Due[j] = end
	e.heap.Push(evq.Key(end, i))
	if e.life != nil && e.life.timeouts != nil {
		e.armTimeout(i, s, t)
	}
}

// mtCompletion is completionTurn for multithreaded instance i at tc: the
// lowest thread whose own work ends at tc (each has its heap entry); false
// for a stale entry (the instance crashed, or its request was aborted).
func (e *engine) mtCompletion(i int32, tc int64) bool {
	sv := &e.servers[i]
	m := sv.mt
	if sv.state != stateUp && sv.state != stateStopping {
		return false
	}
	j := m.DueAt(tc)
	if j < 0 {
		return false
	}
	e.advance(tc)
	m.Pick = j
	if e.app != nil {
		e.appCompletion(sv, m.Cur[j], tc)
		return true
	}
	s := m.Cur[j]
	f := e.pool.At(s)
	e.endWithReply(f, sv, tc)
	e.mtFreeThread(sv, j, tc)
	e.st.complete(f, sv)
	e.finish(s)
	e.mtNext(sv, tc)
	return true
}

// mtAccrue accounts thread j's busy time up to t (the instance's busy time
// is the sum of its threads').
func (e *engine) mtAccrue(sv *serverState, j int32, t int64) {
	bin, measured := sv.mt.Accrue(j, t, e.setup.WarmupUS)
	sv.binBusy += bin
	sv.busyUS += measured
}

// mtFreeThread ends thread j's request at t: its busy time is accounted
// and the thread is free (it takes its next request in mtNext).
func (e *engine) mtFreeThread(sv *serverState, j int32, t int64) {
	e.mtAccrue(sv, j, t)
	sv.mt.Release(j)
	e.queues[sv.queue].inService--
}

// mtNext is serverNext for a multithreaded instance: its thread mt.Pick,
// free at t, takes the queue's next request; a stopping instance takes
// none, and is gone once its last request has ended.
func (e *engine) mtNext(sv *serverState, t int64) {
	i, m := sv.idx, sv.mt
	if sv.state != stateUp {
		if m.Free == m.K {
			e.stopped(i, t)
		}
		return
	}
	m.Since[m.Pick] = t
	e.mtLook(i)
	if q := &e.queues[sv.queue]; q.wait.n > 0 {
		e.takeNext(i, q, t)
	} else if sv.idleAlarm && m.Free == m.K {
		e.armDecay(i, t)
	}
}

// mtRelease is release for a multithreaded instance: the request in slot p
// ends on its thread at t.
func (e *engine) mtRelease(p int32, sv *serverState, t int64) {
	j := e.pool.At(p).thread
	if sl := &e.app.slots[p]; sl.holding {
		e.mtStopHold(sv, j, t)
		sl.holding = false
	}
	e.mtFreeThread(sv, j, t)
}

// mtStopHold accounts thread j's time holding its request up to t.
func (e *engine) mtStopHold(sv *serverState, j int32, t int64) {
	e.app.held[sv.idx] += sv.mt.StopHold(j, t, e.setup.WarmupUS)
}

// mtCrash is crash for a multithreaded instance: every thread's request is
// held (not worked on) until the notice; the idle look stays as it was.
func (e *engine) mtCrash(i int32, t int64) {
	sv := &e.servers[i]
	m := sv.mt
	for j, s := range m.Cur {
		if s < 0 {
			continue
		}
		e.mtHalt(sv, int32(j), s, t) // replies to it are lost; it fails at the notice
		m.Held[j], m.Cur[j], m.Due[j] = s, -1, -1
	}
}

// mtHalt stops thread j of sv, processing or holding request s, at t: its
// busy time is accounted and, when it held s for replies, that hold ends
// (the replies will find no one).
func (e *engine) mtHalt(sv *serverState, j, s int32, t int64) {
	e.mtAccrue(sv, j, t)
	if e.app != nil {
		if sl := &e.app.slots[s]; sl.holding {
			e.mtStopHold(sv, j, t)
			sl.holding = false
		}
	}
}

// mtNotice fails, in thread order, the requests a crashed multithreaded
// instance held.
func (e *engine) mtNotice(sv *serverState, t int64) {
	m := sv.mt
	for j, s := range m.Held {
		if s < 0 {
			continue
		}
		m.Held[j] = -1
		m.Free++
		e.queues[sv.queue].inService--
		e.failSvc(s, t) // its hand-off stays in the every-10th count
	}
}

// mtAbortStopping is abort for a stopping multithreaded instance: every
// request it holds fails at t, in thread order, and it is gone.
func (e *engine) mtAbortStopping(sv *serverState, t int64) { e.mtHaltAll(sv, t, e.failSvc) }

// mtHaltAll halts every thread of sv processing a request at t, in thread
// order, and ends its request with end.
func (e *engine) mtHaltAll(sv *serverState, t int64, end func(s int32, t int64)) {
	m := sv.mt
	for j, s := range m.Cur {
		if s < 0 {
			continue
		}
		e.mtHalt(sv, int32(j), s, t)
		m.Cur[j], m.Due[j] = -1, -1
		m.Free++
		e.queues[sv.queue].inService--
		end(s, t)
	}
}

// mtComeUp is an instance coming up at t: every thread free since t, and
// up to k waiting requests taken, threads in number order.
func (e *engine) mtComeUp(sv *serverState, t int64) {
	i, m := sv.idx, sv.mt
	m.ComeUp(t)
	e.mtLook(i)
	q := &e.queues[sv.queue]
	for j := int32(0); j < m.K && q.wait.n > 0; j++ {
		m.Pick = j
		e.takeNext(i, q, t)
	}
	if q.wait.n == 0 && sv.idleAlarm && m.Free == m.K {
		e.armDecay(i, t)
	}
}

// mtInService reports whether a thread of sv processes or holds the
// request numbered seq (an SVCTIMEOUT check still applies).
func (e *engine) mtInService(sv *serverState, seq int64) bool {
	for _, s := range sv.mt.Cur {
		if s >= 0 && e.pool.At(s).req.Seq == seq {
			return true
		}
	}
	return false
}

// mtLose is a lost machine's end of a multithreaded instance at t: the
// requests its threads process or held at a crash never reply.
func (e *engine) mtLose(sv *serverState, t int64) {
	m := sv.mt
	e.mtHaltAll(sv, t, e.loseRequest)
	for j, h := range m.Held {
		if h < 0 {
			continue
		}
		m.Held[j] = -1
		m.Free++
		e.queues[sv.queue].inService--
		e.loseRequest(h, t)
	}
}

// mtSeries accounts, at a series bin's end b, the busy time of sv's busy
// threads.
func (e *engine) mtSeries(sv *serverState, b int64) {
	for j, s := range sv.mt.Cur {
		if s >= 0 {
			e.mtAccrue(sv, int32(j), b)
		}
	}
}
