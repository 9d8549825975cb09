// Package msgq holds the messages of the /Q queues a run plays ([Store]):
// each queue's messages, head first, numbered in the order they were
// stored, and what is measured of them after the warm-up: the depth
// (largest, integrated over time, and per series bin), the time a
// forwarded message spent in its queue, and the outcome counters. Which
// forwarder takes which message, and when, is the engine's.
package msgq

import (
	"github.com/tuxlb/tuxlb/core/internal/deque"
	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
)

// Msg is one stored message.
type Msg struct {
	N int64 // its number in its queue, from 0
	K int32 // its retries so far
	// Ready: available to a forwarder (a failed message is not, until its
	// retry delay ends: MakeReady)
	Ready    bool
	StoredUS int64 // when it was first stored in this queue
	Key      uint64
	RouteVal string // its routing value as written
	Buf      int32
}

// Queue is one /Q queue: its messages and its figures. The counters are
// the engine's to add to, after the warm-up.
type Queue struct {
	msgs    deque.Deque[Msg] // head first
	next    int64            // the next message's number
	Readers []int32          // the forwarders that read it

	Enqueued, Forwarded, Retried, ToError, Dropped int64

	area, mark, max int64 // depth x µs since the warm-up, its last change, its largest
	binArea         int64 // depth x µs in the open series bin
	tiq             hist.Acc
}

// Store is every /Q queue of a run.
type Store struct {
	Queues []Queue
	Held   int64 // messages in every queue
	warmUS int64
}

// New returns a store of n empty queues, measured from warmUS.
func New(n int, warmUS int64) *Store {
	return &Store{Queues: make([]Queue, n), warmUS: warmUS}
}

// accrue accounts queue q's depth up to t.
func (s *Store) accrue(q *Queue, t int64) {
	d := int64(q.msgs.Len())
	if t > s.warmUS {
		q.area += d * (t - max(q.mark, s.warmUS))
	}
	q.binArea += d * (t - q.mark)
	q.mark = t
}

// push puts m in queue qi at t, at its tail (or its head).
func (s *Store) push(qi int32, m Msg, head bool, t int64) {
	q := &s.Queues[qi]
	s.accrue(q, t)
	if head {
		q.msgs.PushHead(m)
	} else {
		q.msgs.PushTail(m)
	}
	if t >= s.warmUS {
		q.max = max(q.max, int64(q.msgs.Len()))
	}
	s.Held++
}

// Add stores m as a new message at the tail of queue qi at t, available at
// once, numbered after the queue's last.
func (s *Store) Add(qi int32, m Msg, t int64) {
	q := &s.Queues[qi]
	m.N, m.Ready, m.StoredUS = q.next, true, t
	q.next++
	s.push(qi, m, false, t)
}

// PutBack stores m, taken from queue qi, at the queue's head again at t.
func (s *Store) PutBack(qi int32, m Msg, t int64) { s.push(qi, m, true, t) }

// TakeAt removes the message at position i of queue qi (from its head) at t.
func (s *Store) TakeAt(qi int32, i int, t int64) Msg {
	q := &s.Queues[qi]
	s.accrue(q, t)
	s.Held--
	return q.msgs.TakeAt(i)
}

// FirstReady is the position of queue qi's first available message, -1
// for none.
func (s *Store) FirstReady(qi int32) int {
	q := &s.Queues[qi]
	for i := range q.msgs.Len() {
		if q.msgs.At(i).Ready {
			return i
		}
	}
	return -1
}

// MakeReady makes message n of queue qi available again, if it is there
// and waits out its retry delay.
func (s *Store) MakeReady(qi int32, n int64) {
	q := &s.Queues[qi]
	for i := range q.msgs.Len() {
		if m := q.msgs.At(i); m.N == n && !m.Ready {
			m.Ready = true
			return
		}
	}
}

// Forwarded counts message m of queue qi forwarded, taken at takeUS.
func (s *Store) Forwarded(qi int32, m *Msg, takeUS int64) {
	if takeUS < s.warmUS {
		return
	}
	q := &s.Queues[qi]
	q.Forwarded++
	v := takeUS - m.StoredUS
	if !q.tiq.Note(v, hist.Index(v)) {
		q.tiq.Spill(v)
	}
}

// CloseBins closes the open series bin of every queue at b and returns
// each one's depth x µs in it.
func (s *Store) CloseBins(b int64) []int64 {
	out := make([]int64, len(s.Queues))
	for k := range s.Queues {
		q := &s.Queues[k]
		s.accrue(q, b)
		out[k], q.binArea = q.binArea, 0
	}
	return out
}

// Stats returns queue qi's figures, named name, for a run ending at endUS
// whose measured span is spanUS (its depth series is the caller's).
func (s *Store) Stats(qi int32, name string, endUS, spanUS int64) result.MsgQueueStats {
	q := &s.Queues[qi]
	s.accrue(q, endUS)
	st := result.MsgQueueStats{Name: name, Enqueued: q.Enqueued, Forwarded: q.Forwarded, Retried: q.Retried,
		ToErrorQueue: q.ToError, Dropped: q.Dropped, TimeInQueueMS: q.tiq.Summary(q.tiq.Hist())}
	st.Depth.Max = q.max
	if spanUS > 0 {
		st.Depth.Mean = usec.Round6(float64(q.area) / float64(spanUS))
	}
	q.tiq.ReleaseFront()
	return st
}
