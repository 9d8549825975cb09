package core

// Event classes, in the order events of the same instant run (docs/engine.md). MP
// counter resets come first but are applied lazily (see engine.advance), so
// they never enter the heap; new requests are read from the workload one at a
// time and compared with the heap's top, so they never enter it either.
const (
	evCompletion uint8 = 1 // a server finishes; key = server index (scan order)
	evArrival    uint8 = 2 // a request crossed the network; key = its Seq
	evNew        uint8 = 3 // a new request; never stored, used for comparisons
)

// event is one pending happening: small and pointer-free, so the heap is a
// flat slice the garbage collector never scans.
type event struct {
	t   int64 // microseconds
	key int64 // server index or request Seq: the order within a class
	idx int32 // server index or in-flight slot
	cls uint8
}

// before reports whether a runs before b: by time, then class, then key.
func (a *event) before(b *event) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.cls != b.cls {
		return a.cls < b.cls
	}
	return a.key < b.key
}

// eventHeap is a hand-written binary min-heap of events (no interfaces, no
// allocation once it has grown to the number of events in flight).
type eventHeap struct {
	ev []event
}

func (h *eventHeap) len() int { return len(h.ev) }

// top returns the earliest event; the heap must not be empty.
func (h *eventHeap) top() *event { return &h.ev[0] }

// push adds e. The heap is sifted with a hole: parents move down into it
// and e is written once, where it belongs.
func (h *eventHeap) push(e event) {
	h.ev = append(h.ev, e)
	i := len(h.ev) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&h.ev[p]) {
			break
		}
		h.ev[i] = h.ev[p]
		i = p
	}
	h.ev[i] = e
}

// pop removes and returns the earliest event; the heap must not be empty.
// The last event fills the hole left at the root: the smaller child moves up
// into the hole until the last event fits there.
func (h *eventHeap) pop() event {
	top := h.ev[0]
	last := len(h.ev) - 1
	x := h.ev[last]
	h.ev = h.ev[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= last {
			break
		}
		m := l
		if r := l + 1; r < last {
			// which child is smaller is a coin toss: pick it with a
			// conditional move rather than a branch
			m += b2i(h.ev[r].before(&h.ev[l]))
		}
		if !h.ev[m].before(&x) {
			break
		}
		h.ev[i] = h.ev[m]
		i = m
	}
	if i < last {
		h.ev[i] = x
	}
	return top
}

// b2i returns 1 for true and 0 for false, without a branch.
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}
