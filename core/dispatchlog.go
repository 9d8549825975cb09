package core

import (
	"io"

	"github.com/tuxlb/tuxlb/core/internal/deque"
	"github.com/tuxlb/tuxlb/core/internal/dlog"
)

// dispatchLog streams the dispatch log in issue order. Rows complete out of
// order (a request's row is complete when its reply time is known), so it
// keeps the in-flight requests in issue order and writes the longest
// complete prefix: memory is O(requests in flight). Which cells a row has
// is said here (flush); core/internal/dlog writes them.
type dispatchLog struct {
	slots  deque.Deque[int32] // the in-flight requests' slots in issue order
	out    *dlog.Log
	row    dlog.Row // the row being written, reused
	parent bool     // rows name their calling request (e.app.slots)
}

func newDispatchLog(w io.Writer, m *Model, parent bool) *dispatchLog {
	thread := false
	for i := range m.Servers {
		thread = thread || (m.Servers[i].DispatchThreads() > 1 && !m.Servers[i].Gateway)
	}
	n := dlog.Names{Services: make([]string, len(m.Services)), Machines: make([]string, len(m.Machines)),
		Servers: make([][2]string, len(m.Servers)), Queues: make([]string, len(m.Queues)), Reasons: reasons.Names}
	for i := range m.Services {
		n.Services[i] = m.Services[i].Name
	}
	for i := range m.Machines {
		n.Machines[i] = m.Machines[i].LMID
	}
	for i := range m.Servers {
		n.Servers[i] = [2]string{m.Servers[i].ID, m.Queues[m.Servers[i].QueueIdx].Name}
	}
	for q := range m.Queues {
		n.Queues[q] = m.Queues[q].Name
	}
	return &dispatchLog{out: dlog.New(w, n, parent, thread), parent: parent}
}

// issue adds slot s, just issued (nil-safe: no log, nothing to do).
func (l *dispatchLog) issue(s int32) {
	if l != nil {
		l.slots.PushTail(s)
	}
}

// done marks slot s's row complete and writes the rows that can be. Only
// the oldest row's completion can lengthen the complete prefix (after each
// flush the oldest row is incomplete), so flush runs only then.
func (l *dispatchLog) done(e *engine, s int32) {
	e.pool.At(s).done = true
	if *l.slots.At(0) == s {
		l.flush(e, false)
	}
}

// flush writes the complete rows of the oldest requests (every row left,
// once the run is over: all) and frees their slots: which cells each row
// has is said here.
func (l *dispatchLog) flush(e *engine, all bool) {
	r := &l.row
	for l.slots.Len() > 0 {
		s := *l.slots.At(0)
		f := e.pool.At(s)
		if !f.done && !all {
			break
		}
		r.ID, r.Seq, r.Service, r.Origin = f.req.ID, f.req.Seq, int32(f.req.Service), int32(f.req.Origin)
		r.Queue, r.Server, r.Thread, r.Reason = f.queue, f.server, -1, uint8(f.reason)
		if f.server >= 0 {
			r.Thread = f.thread
		}
		r.IssueUS, r.EnqueueUS, r.StartUS, r.EndUS, r.ReplyUS = f.req.TimeUS, f.enqueueUS, f.startUS, f.endUS, f.replyUS
		switch {
		case !f.done: // its outcome never came (a reply lost with its machine, a queue whose instance is held to the end): the cells it has
			r.Has = 0
			if f.queue >= 0 {
				r.Has |= dlog.Enqueue
			}
			if f.server >= 0 {
				r.Has |= dlog.Start
			}
			if f.server >= 0 && f.endUS > 0 { // ended: a forwarder whose forward went with its machine
				r.Has |= dlog.End
			}
		case f.queue < 0: // failed before reaching a queue: TPENOENT
			r.Has = 0
		case f.reason.failed() && f.reason != reasonSvcFail && f.reason != reasonTime: // TPESVCERR: reached a queue, maybe started, never ended
			r.Has = 0
			if f.reason != reasonBlock { // TPEBLOCK: its queue never had room for it
				r.Has |= dlog.Enqueue
			}
			if f.server >= 0 { // it started on an instance of its queue
				r.Has |= dlog.Start
			}
			if !f.noReply && !f.unanswered { // lost with its machine, or TPNOREPLY: no reply ever came
				r.Has |= dlog.Reply
			}
		default: // the instance is one of its queue's (enter and takeNext start only those)
			r.Has = dlog.All
			// TPNOREPLY: no reply is sent; a reply lost with its machine
			// at the end of the work shows none
			if f.unanswered || f.replyUS == f.endUS && f.noReply {
				r.Has = dlog.Enqueue | dlog.Start | dlog.End
			}
		}
		if l.parent {
			r.Parent = e.app.parent[s]
		}
		l.out.Append(r)
		e.free = append(e.free, s)
		l.slots.TakeAt(0)
	}
}

// close writes the rows still buffered and reports the first write error;
// given the engine of a run that ended, it first writes the rows still
// waiting for an outcome (one row per request, whatever became of it).
func (l *dispatchLog) close(e *engine) error {
	if l == nil {
		return nil
	}
	if e != nil {
		l.flush(e, true)
	}
	return l.out.Close()
}
