package evq

import (
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/usec"
)

// TestWheelAsHeap: a Wheel and a Heap given the same pushes, in a random
// interleaving with pops, pop the same events and report the same top and
// length after every step: the ring small and its buckets narrow, so that
// events go far ahead, fill buckets, tie, come back round the ring, and now
// and then fall before the last one popped; now and then one index's events
// are dropped from both.
func TestWheelAsHeap(t *testing.T) {
	for _, c := range []struct {
		span    uint
		buckets int
		spread  int // pushes fall within spread µs after the last pop
	}{{0, 64, 8}, {0, 64, 200}, {3, 64, 2000}, {5, 128, 50_000}, {10, 64, 1 << 20}, {0, 0, 100}} {
		r := rng.New(7, uint64(c.spread))
		var w Wheel
		var h Heap
		w.Init(c.span, c.buckets)
		h.Init()
		now, inBuckets := int64(0), 0
		for step := range 100_000 {
			if w.in > 0 {
				inBuckets++
			}
			if step%5000 == 4999 {
				// a machine lost: the events of one index dropped from both
				gone := int32(r.IntN(6))
				w.Drop(func(e Event) bool { return e.Idx() == gone })
				var kept []Event
				for h.Len() > 0 {
					if e := h.Pop(); e.Idx() != gone {
						kept = append(kept, e)
					}
				}
				for _, e := range kept {
					h.Push(e)
				}
			} else if h.Len() == 0 || step < 80_000 && r.IntN(2) == 0 {
				at := now + int64(r.IntN(c.spread))
				if r.IntN(50) == 0 {
					at = max(now-int64(r.IntN(100)), 0) // before the last pop: allowed, it waits far
				}
				if r.IntN(1000) == 0 {
					at = usec.Max + 1 // past the clock's end
				}
				e := Key(at, int32(r.IntN(6)))
				w.Push(e)
				h.Push(e)
			} else {
				got, want := w.Pop(), h.Pop()
				if got != want {
					t.Fatalf("%+v, step %d: popped (%d, %d), want (%d, %d)", c, step, got.T(), got.Idx(), want.T(), want.Idx())
				}
				now = got.T()
			}
			want := None
			if h.Len() > 0 {
				want = h.Top()
			}
			if w.Len() != h.Len() || w.Top() != want || w.Empty() != (h.Len() == 0) {
				t.Fatalf("%+v, step %d: %d events, top %v; want %d, %v", c, step, w.Len(), w.Top(), h.Len(), want)
			}
		}
		for h.Len() > 0 {
			if got, want := w.Pop(), h.Pop(); got != want {
				t.Fatalf("%+v, draining: popped %v, want %v", c, got, want)
			}
		}
		if c.buckets > 0 && inBuckets < 50_000 || c.buckets == 0 && inBuckets > 0 {
			t.Errorf("%+v: events in the buckets at %d steps of 100 000: the wheel hardly used, or used without buckets", c, inBuckets)
		}
		if w.Len() != 0 || w.Top() != None {
			t.Errorf("%+v: drained, %d events left, top %v", c, w.Len(), w.Top())
		}
	}
}

// TestWheelSize: about one timer a bucket at the given rate, and a ring
// that reaches the given span ahead, within its bounds.
func TestWheelSize(t *testing.T) {
	for _, c := range []struct {
		rate, ahead float64
		span        uint
		buckets     int
	}{
		{1.0 / 390, 400_000, 8, 2048},    // 256 clients, 100 ms of think: 256 µs buckets
		{1.0 / 256, 1024 * 256, 8, 1024}, // exactly one a bucket, exactly the reach
		{2, 100, 0, 128},                 // denser than one a µs: 1 µs buckets
		{1e-9, 1e12, 29, 1 << 11},        // sparse and far
		{1e-6, 1e10, 20, 1 << 14},        // the most buckets, then wider ones
		{1e-6, 1e15, 21, 0},              // beyond their reach: none
		{0, 0, 39, 64},                   // nothing: the widest
	} {
		span, n := WheelSize(c.rate, c.ahead)
		if span != c.span || n != c.buckets {
			t.Errorf("WheelSize(%g, %g) = %d, %d; want %d, %d", c.rate, c.ahead, span, n, c.span, c.buckets)
		}
	}
}
