package core

import "math"

// Events of the same instant run in this order (docs/engine.md): MP counter
// resets first, applied lazily (see engine.advance), so they never enter the
// heap; then the life-cycle step (engine.lifeStep); then completions, in the
// heap below; then network arrivals, in their
// own FIFO (arrivalQueue); then new requests, read from the workload one at a
// time and compared with the heap's top and the FIFO's head, so they never
// enter either.

// idxBits is how many low bits of a completion's order key hold the
// instance's scan index: a configuration has at most 10 000 instances
// (maxInstances, checked again by newEngine), well below 1<<idxBits, and the
// clock is bounded by MaxTimeUS < 1<<40, so time<<idxBits | index fits a
// uint64.
const idxBits = 24

// event is a pending completion, its order key: t<<idxBits | i for
// instance i's completion at time t. Eight bytes, so the heap is a flat
// slice of integers the garbage collector never scans, and one integer
// comparison orders two completions.
//
// The order is the one of docs/engine.md, by time, then scan index: for
// keys a and b of times ta, tb < 1<<40 and indexes ia, ib < 1<<idxBits,
// a < b exactly when ta < tb, or ta == tb and ia < ib. A completion past
// MaxTimeUS stops the run (engine.overTime) before the next pop, so its
// key's time is clamped to MaxTimeUS+1, within the 40 bits.
//
// A completion whose instance crashed (or whose request was aborted) is
// stale: the instance is then no longer busy with a request due at that
// time, and engine.loop skips it without moving the clock (a skip has no
// effect at all). Live or stale is told from the instance itself (busy, and
// its request due at the key's time: serverState.due), so the key carries
// nothing else. A stale completion can share its key only with completions
// of the same instance at the same time, and pops of equal keys are
// consecutive (a key pushed meanwhile equal to them joins them, a smaller
// one runs first either way). Whenever the instance is busy with a request
// due then, that request's own completion is among them, and whichever of
// them pops first completes it, the others are skipped; so the effects are
// those of popping each request's own completion, in the order of the
// engine's earlier key (time, scan index, generation), where a stale
// completion popped before the live one and was skipped.
type event uint64

// completionKey returns the order key of instance i's completion at t.
func completionKey(t int64, i int32) event {
	return event(min(t, MaxTimeUS+1))<<idxBits | event(i)
}

// t returns the event's time.
func (ev event) t() int64 { return int64(ev >> idxBits) }

// idx returns the event's instance.
func (ev event) idx() int32 { return int32(ev & (1<<idxBits - 1)) }

// eventHeap is a hand-written binary min-heap of events (no interfaces, no
// allocation once it has grown to the number of events in flight). It is
// 1-based: the root is ev[1], node i's children are 2i and 2i+1, its parent
// i/2 (shifts rather than signed divisions), and ev[0] holds 0, an event no
// event is below, so that a sift up stops there without testing i > 0.
// init must run before the first push.
type eventHeap struct {
	ev []event // ev[0] = 0, then the events
}

// init empties h: slot 0, then noEvent in slot 1 past the slice's end.
func (h *eventHeap) init() { h.ev = append(h.ev[:0], 0, noEvent)[:1] }

func (h *eventHeap) len() int { return len(h.ev) - 1 }

// top returns the earliest event; the heap must not be empty.
func (h *eventHeap) top() event { return h.ev[1] }

// topT returns the earliest event's time, or emptyT when the heap is empty:
// an empty heap's slot 1 holds noEvent (init writes it, and so does the pop
// that empties the heap), read past the slice's end.
func (h *eventHeap) topT() int64 { return h.ev[:2][1].t() }

// emptyT is the time of noEvent, which topT returns for an empty heap: after
// every event's (a completion past MaxTimeUS stops the run).
const emptyT = int64(noEvent >> idxBits)

// push adds e. The heap is sifted with a hole: parents move down into it
// and e is written once, where it belongs.
func (h *eventHeap) push(e event) {
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

// pop removes and returns the earliest event; the heap must not be empty.
// The last event x fills the hole left at the root: the smaller child moves
// up into the hole until x fits there. x's slot gets noEvent first, so the
// one node whose right child it was reads that child as absent, and every
// node's two children can be read as a pair.
func (h *eventHeap) pop() event {
	ev := h.ev
	top := ev[1]
	last := len(ev) - 1
	x := ev[last]
	ev[last] = noEvent
	h.ev = h.ev[:last]
	i := 1
	for {
		l := 2 * i
		if l >= last {
			break
		}
		// which child is smaller is a coin toss: pick it with a
		// conditional move rather than a branch (m&1 drops the bounds
		// check)
		g := (*[2]event)(ev[l : l+2])
		m := b2i(g[1] < g[0]) & 1
		if g[m] >= x {
			break
		}
		ev[i] = g[m]
		i = l + m
	}
	if i < last {
		ev[i] = x
	}
	return top
}

// noEvent is written into the slot an event leaves: larger than any event.
const noEvent event = math.MaxUint64

// arrival is a request that crossed the network: it enters its queue at t.
type arrival struct {
	t    int64 // microseconds
	slot int32 // its in-flight slot
}

// arrivalQueue holds the network arrivals in the order they come due: a FIFO
// ring, not a heap. Every arrival is pushed at its issue time + the one
// network latency (plan.Setup.LatencyUS), issue times never go down, and Seq
// grows with the issue order, so the push order is already the (time, Seq)
// order the arrivals run in, and a push or pop is a few instructions.
type arrivalQueue struct {
	buf  []arrival // a ring; its length is 0 or a power of two
	head int       // index in buf of the earliest arrival
	n    int       // arrivals held
	next int64     // time of the earliest arrival; noTime when empty
}

// push adds a, due at or after every arrival held.
func (q *arrivalQueue) push(a arrival) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = a
	q.n++
	// a.t is at or after every arrival held: the head's time stays, or
	// replaces noTime when the queue was empty
	q.next = min(q.next, a.t)
}

// grow doubles the ring, unwrapping it.
func (q *arrivalQueue) grow() {
	nb := make([]arrival, max(16, 2*len(q.buf)))
	for i := range q.n {
		nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf, q.head = nb, 0
}

// pop removes the earliest arrival and returns its slot; q must not be empty.
func (q *arrivalQueue) pop() int32 {
	s := q.buf[q.head].slot
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	q.next = noTime
	if q.n > 0 {
		q.next = q.buf[q.head].t
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
