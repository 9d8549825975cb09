package evq

import (
	"slices"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/usec"
)

// TestHeapRandom: completions pushed and popped in a random
// interleaving come out in (time, scan index) order, each exactly once.
func TestHeapRandom(t *testing.T) {
	r := rng.New(5, 1)
	var h Heap
	h.Init()
	var last *Event
	pushed, popped := 0, 0
	after := func(a, b *Event) bool { // a runs after b
		return a.T() > b.T() || a.T() == b.T() && a.Idx() > b.Idx()
	}
	count := map[Event]int{} // pushed minus popped, per key
	for step := range 200_000 {
		if h.Len() == 0 || (step < 150_000 && r.IntN(3) > 0) {
			// after the last pop, at few distinct times and indexes, so
			// that indexes decide often
			base := int64(0)
			if last != nil {
				base = last.T() + 1
			}
			ev := Key(base+int64(r.IntN(4)), int32(r.IntN(8)))
			h.Push(ev)
			count[ev]++
			pushed++
			continue
		}
		e := h.Pop()
		count[e]--
		popped++
		if last != nil && after(last, &e) {
			t.Fatalf("pop %d: got %+v after %+v", popped, e, *last)
		}
		last = &e
	}
	for h.Len() > 0 {
		e := h.Pop()
		count[e]--
		popped++
		if after(last, &e) {
			t.Fatalf("pop %d: got %+v after %+v", popped, e, *last)
		}
		last = &e
	}
	if popped != pushed {
		t.Errorf("popped %d events, want %d", popped, pushed)
	}
	for ev, n := range count {
		if n != 0 {
			t.Errorf("event (t %d, index %d): popped %d times fewer than pushed", ev.T(), ev.Idx(), n)
		}
	}
}

// TestHeapOrder: completions pop by time, then scan index, down to the
// largest time and index the key holds; a completion past usec.Max (the run
// then stops) sorts after every time within it.
func TestHeapOrder(t *testing.T) {
	const maxIdx = 1<<IdxBits - 1
	var h Heap
	h.Init()
	type tc struct {
		t int64
		i int32
	}
	in := []tc{{5, 1}, {usec.Max, maxIdx}, {5, 0}, {1, 9}, {usec.Max + 7, 0}, {usec.Max, 0}, {0, maxIdx}, {5, maxIdx}}
	for _, c := range in {
		h.Push(Key(c.t, c.i))
	}
	want := []tc{{0, maxIdx}, {1, 9}, {5, 0}, {5, 1}, {5, maxIdx}, {usec.Max, 0}, {usec.Max, maxIdx}, {usec.Max + 1, 0}}
	for k, w := range want {
		ev := h.Pop()
		if got := (tc{ev.T(), ev.Idx()}); got != w {
			t.Errorf("pop %d: got (t %d, index %d), want (t %d, index %d)", k, got.t, got.i, w.t, w.i)
		}
	}
	if h.Len() != 0 {
		t.Errorf("left: got %d events, want 0", h.Len())
	}
	if usec.Max+1 >= 1<<(64-IdxBits) {
		t.Errorf("usec.Max+1 = %d does not fit the key's %d time bits", int64(usec.Max+1), 64-IdxBits)
	}
}

// TestHeapEmptyTop: TopT is EmptyT for an empty heap (fresh, and
// emptied again after growing), and the earliest time otherwise; EmptyT-1
// is after every time a completion's key holds.
func TestHeapEmptyTop(t *testing.T) {
	var h Heap
	h.Init()
	if got := h.TopT(); got != EmptyT {
		t.Errorf("fresh: topT = %d, want EmptyT %d", got, EmptyT)
	}
	for round := range 3 {
		n := 1 + round*40 // the heap's array grows in the later rounds
		for k := range n {
			h.Push(Key(int64(1000-k), int32(k)))
		}
		if got, want := h.TopT(), int64(1000-n+1); got != want {
			t.Errorf("round %d: topT = %d, want %d", round, got, want)
		}
		for h.Len() > 0 {
			h.Pop()
		}
		if got := h.TopT(); got != EmptyT {
			t.Errorf("round %d, emptied: topT = %d, want EmptyT %d", round, got, EmptyT)
		}
	}
	if Key(NoTime, 0).T() >= EmptyT-1 {
		t.Errorf("a clamped completion's time %d is not before EmptyT-1 = %d", Key(NoTime, 0).T(), EmptyT-1)
	}
}

// TestArrivals: arrivals come out in the order they went in, equal
// times included, across the ring's wrap-around and growth; next is the
// head's time, NoTime when empty.
func TestArrivals(t *testing.T) {
	var q Arrivals
	q.Next = NoTime
	in, out := int32(0), int32(0)
	tm := func(s int32) int64 { return int64(s / 3) } // three arrivals a microsecond
	for round := range 50 {
		for range round%7 + round%3 {
			q.Push(Arrival{T: tm(in), Slot: in})
			in++
		}
		for range round % 5 {
			if q.n == 0 {
				break
			}
			if q.Next != tm(out) {
				t.Fatalf("next: got %d, want %d", q.Next, tm(out))
			}
			if got := q.Pop(); got != out {
				t.Fatalf("pop: got slot %d, want %d", got, out)
			}
			out++
		}
	}
	for q.n > 0 {
		if got := q.Pop(); got != out {
			t.Fatalf("pop: got slot %d, want %d", got, out)
		}
		out++
	}
	if out != in || q.Next != NoTime {
		t.Errorf("popped %d of %d, next %d: want all, NoTime", out, in, q.Next)
	}
}

// PushAmong puts an arrival among those of its instant by issue order (the
// after function), and never before an arrival of an earlier instant.
func TestPushAmong(t *testing.T) {
	var q Arrivals
	q.Next = NoTime
	seq := map[int32]int64{1: 10, 2: 30, 3: 40, 4: 20, 5: 5}
	for _, a := range []Arrival{{T: 5, Slot: 1}, {T: 7, Slot: 2}, {T: 7, Slot: 3}} {
		q.Push(a)
	}
	later := func(s int64) func(int32) bool { return func(o int32) bool { return seq[o] > s } }
	q.PushAmong(Arrival{T: 7, Slot: 4}, later(20)) // issued before 2 and 3, after 1
	q.PushAmong(Arrival{T: 7, Slot: 5}, later(5))  // issued before all: stays after slot 1's earlier instant
	var got []int32
	for q.n > 0 {
		got = append(got, q.Pop())
	}
	if want := []int32{1, 5, 4, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("popped %v, want %v", got, want)
	}
}
