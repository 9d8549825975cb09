// Package evq holds the engine's two queues of pending events: the
// completions, a binary min-heap of 8-byte order keys (time, then the
// instance's scan index: [Key], [Heap]), and the network arrivals, a FIFO
// ring in the order they come due ([Arrivals]). Events of the same instant
// run in the order of docs/engine.md: MP counter resets first, applied
// lazily, so they never enter a queue; then the life-cycle step; then
// completions; then network arrivals; then new requests, which the engine
// reads from the workload one at a time and compares with the heap's top
// and the FIFO's head, so they never enter either. The pushes, the FIFO's
// pop and the reads of the next time are short enough for the engine's
// loop to inline; the heap's pop, a loop, is a call. The clients' think
// timers, application events the engine keeps apart, wait in a calendar of
// the same keys that pops them in a heap's order ([Wheel]).
package evq

import (
	"math"

	"github.com/tuxlb/tuxlb/core/internal/usec"
)

// NoTime is "never": the time of nothing pending (core's noTime).
const NoTime = math.MaxInt64

// IdxBits is how many low bits of a completion's order key hold the
// instance's scan index: a configuration has at most 10 000 instances
// (core's maxInstances, checked again when its engine starts), well below 1<<IdxBits, and the
// clock is bounded by usec.Max < 1<<40, so time<<IdxBits | index fits a
// uint64.
const IdxBits = 24

// Event is a pending completion, its order key: t<<IdxBits | i for
// instance i's completion at time t. Eight bytes, so the heap is a flat
// slice of integers the garbage collector never scans, and one integer
// comparison orders two completions.
//
// The order is the one of docs/engine.md, by time, then scan index: for
// keys a and b of times ta, tb < 1<<40 and indexes ia, ib < 1<<IdxBits,
// a < b exactly when ta < tb, or ta == tb and ia < ib. A completion past
// usec.Max stops the run (core's overTime) before the next pop, so its
// key's time is clamped to usec.Max+1, within the 40 bits.
//
// A completion whose instance crashed (or whose request was aborted) is
// stale: the instance is then no longer busy with a request due at that
// time, and core's engine loop skips it without moving the clock (a skip has no
// effect at all). Live or stale is told from the instance itself (busy, and
// its request due at the key's time), so the key carries
// nothing else. A stale completion can share its key only with completions
// of the same instance at the same time, and pops of equal keys are
// consecutive (a key pushed meanwhile equal to them joins them, a smaller
// one runs first either way). Whenever the instance is busy with a request
// due then, that request's own completion is among them, and whichever of
// them pops first completes it, the others are skipped; so the effects are
// those of popping each request's own completion, in the order of the
// engine's earlier key (time, scan index, generation), where a stale
// completion popped before the live one and was skipped.
type Event uint64

// Key returns the order key of instance i's completion at t.
func Key(t int64, i int32) Event {
	return Event(min(t, usec.Max+1))<<IdxBits | Event(i)
}

// T returns the event's time.
func (ev Event) T() int64 { return int64(ev >> IdxBits) }

// Idx returns the event's instance.
func (ev Event) Idx() int32 { return int32(ev & (1<<IdxBits - 1)) }

// Heap is a hand-written binary min-heap of events (no interfaces, no
// allocation once it has grown to the number of events in flight). It is
// 1-based: the root is ev[1], node i's children are 2i and 2i+1, its parent
// i/2 (shifts rather than signed divisions), and ev[0] holds 0, an event no
// event is below, so that a sift up stops there without testing i > 0.
// Init must run before the first Push.
type Heap struct {
	ev []Event // ev[0] = 0, then the events
}

// Init empties h: slot 0, then None in slot 1 past the slice's end.
func (h *Heap) Init() { h.ev = append(h.ev[:0], 0, None)[:1] }

func (h *Heap) Len() int { return len(h.ev) - 1 }

// Top returns the earliest event; the heap must not be empty.
func (h *Heap) Top() Event { return h.ev[1] }

// TopT returns the earliest event's time, or EmptyT when the heap is empty:
// an empty heap's slot 1 holds None (Init writes it, and so does the Pop
// that empties the heap), read past the slice's end.
func (h *Heap) TopT() int64 { return h.ev[:2][1].T() }

// EmptyT is the time of None, which topT returns for an empty heap: after
// every event's (a completion past usec.Max stops the run).
const EmptyT = int64(None >> IdxBits)

// Push adds e. The heap is sifted with a hole: parents move down into it
// and e is written once, where it belongs.
func (h *Heap) Push(e Event) {
	h.ev = append(h.ev, e)
	i := len(h.ev) - 1
	for {
		p := i >> 1
		if e >= h.ev[p] {
			break
		}
		h.ev[i] = h.ev[p]
		i = p
	}
	h.ev[i] = e
}

// Pop removes and returns the earliest event; the heap must not be empty.
// The last event x fills the hole left at the root: the smaller child moves
// up into the hole until x fits there. x's slot gets None first, so the
// one node whose right child it was reads that child as absent, and every
// node's two children can be read as a pair.
func (h *Heap) Pop() Event {
	ev := h.ev
	top := ev[1]
	last := len(ev) - 1
	x := ev[last]
	ev[last] = None
	h.ev = h.ev[:last]
	i := 1
	for l := 2; l < last; l = 2 * i {
		// which child is smaller is a coin toss: pick it with a
		// conditional move rather than a branch
		c, d := ev[l], ev[l+1]
		r := d < c
		if r {
			c = d
		}
		l += b2i(r)
		if c >= x {
			break
		}
		ev[i] = c
		i = l
	}
	if i < last {
		ev[i] = x
	}
	return top
}

// None is written into the slot an event leaves: larger than any event.
const None Event = math.MaxUint64

// Arrival is a request that crossed the network: it enters its queue at t.
type Arrival struct {
	T    int64 // microseconds
	Slot int32 // its in-flight slot
}

// Arrivals holds the network arrivals in the order they come due: a FIFO
// ring, not a heap. Every arrival is pushed at its issue time + the one
// network latency (plan.Setup.LatencyUS), issue times never go down, and Seq
// grows with the issue order, so the push order is already the (time, Seq)
// order the arrivals run in, and a push or pop is a few instructions.
type Arrivals struct {
	buf  []Arrival // a ring; its length is 0 or a power of two
	head int       // index in buf of the earliest arrival
	n    int       // arrivals held
	Next int64     // time of the earliest arrival; NoTime when empty (set it so before the first Push)
}

// Push adds a, due at or after every arrival held.
func (q *Arrivals) Push(a Arrival) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = a
	q.n++
	// a.T is at or after every arrival held: the head's time stays, or
	// replaces NoTime when the queue was empty
	q.Next = min(q.Next, a.T)
}

// PushAmong adds a, due at or after every arrival held, among those of
// its instant in issue order: before each one at the tail of the same time
// that after says was issued after it. A request whose choice was deferred
// (a workstation client's, chosen one handling draw after its issue) is
// pushed later than requests issued after it that arrive at the same
// instant.
func (q *Arrivals) PushAmong(a Arrival, after func(slot int32) bool) {
	q.Push(a)
	mask := len(q.buf) - 1
	for i := q.n - 1; i > 0; i-- {
		cur, prev := (q.head+i)&mask, (q.head+i-1)&mask
		if q.buf[prev].T != a.T || !after(q.buf[prev].Slot) {
			break
		}
		q.buf[cur], q.buf[prev] = q.buf[prev], q.buf[cur]
	}
}

// grow doubles the ring, unwrapping it.
func (q *Arrivals) grow() {
	nb := make([]Arrival, max(16, 2*len(q.buf)))
	for i := range q.n {
		nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf, q.head = nb, 0
}

// Pop removes the earliest arrival and returns its slot; q must not be empty.
func (q *Arrivals) Pop() int32 {
	s := q.buf[q.head].Slot
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	q.Next = NoTime
	if q.n > 0 {
		q.Next = q.buf[q.head].T
	}
	return s
}

// b2i returns 1 for true and 0 for false, without a branch.
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}
