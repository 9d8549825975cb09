package evq

import (
	"math"
	"math/bits"
)

// WheelK is how many events a bucket of a Wheel holds: seven keys after
// their count, one cache line.
const WheelK = 7

// Wheel is a calendar queue of order keys (Event: time, then index) that
// pops them in exactly the order a Heap does, for timers that are pushed
// at or after the last one popped and spread over a known span ahead of
// it: the clients' think and backoff timers. Time is cut into buckets of
// 1<<shift µs; the buckets form a ring that reaches a whole number of
// them past the latest bucket of the events popped (base), and an event
// further ahead, or one for a bucket already holding WheelK, waits in a
// heap of its own (far). A bucket's events are kept in no order: the
// earliest of them is found when its bucket comes first. A push and a pop
// take about 140 instructions together whatever the number of timers (a
// heap of 256 took 190, climbing eight levels, more as it grows).
//
// Every event in a bucket is in [base, base+len(b)) by its bucket
// number (time>>shift): it was pushed within the reach of a base no later
// than today's, and base is the latest bucket number of the events popped,
// each the earliest of all then. So a bucket holds the events of one
// bucket number, and the first bucket found going round the ring from base
// holds the earliest of the buckets' events; the earliest of all is that
// or far's. Pushing an event earlier than the last popped one is allowed:
// it waits in far.
type Wheel struct {
	top   Event  // the earliest event; None when empty
	at    int    // its bucket's index times 8 plus its place there, -1 when it waits in far
	shift uint   // IdxBits + log2 of a bucket's span in µs: an event's bucket number is its key >> shift
	base  uint64 // see above
	mask  uint64 // len(b) - 1
	in    int    // events in the buckets
	b     []bucket
	bits  []uint64 // bit i of word i/64: bucket i holds an event
	far   Heap
}

// bucket is a bucket's count n, then its n events in no order: eight
// words, indexed by a number masked to three bits, so with no bounds check.
type bucket [WheelK + 1]Event

// Init empties w and sizes it: buckets of 1<<spanLog2 µs, and a ring of
// buckets buckets (a power of two from 64 on; 0: none, every event waits
// in far, a heap).
func (w *Wheel) Init(spanLog2 uint, buckets int) {
	*w = Wheel{top: None, at: -1, shift: IdxBits + spanLog2, mask: uint64(max(buckets, 1) - 1),
		b: make([]bucket, buckets), bits: make([]uint64, buckets/64)}
	if buckets == 0 {
		w.base = math.MaxUint64 // every bucket number is past the reach
	}
	w.far.Init()
}

// A TimerSet is Count timers, each set again about once in MeanUS µs and
// coming due at most about AheadUS after it is set: a client set's think
// times (its mean think time, and four times the longest mean of its think
// and backoff times).
type TimerSet struct {
	Count           int
	MeanUS, AheadUS float64
}

// WheelFor returns WheelSize's span and buckets for the timers of sets.
func WheelFor(sets []TimerSet) (uint, int) {
	var rate, ahead float64
	for _, ts := range sets {
		rate += float64(max(ts.Count, 0)) / max(ts.MeanUS, 1)
		ahead = max(ahead, ts.AheadUS)
	}
	return WheelSize(rate, ahead)
}

// WheelBytes is what a wheel of buckets buckets holds besides its heap.
func WheelBytes(buckets int) int64 { return int64(buckets)*(WheelK+1)*8 + int64(buckets)/8 }

// WheelSize returns the bucket span (log2 of µs) and number of buckets for
// timers coming due at a rate of about rate a µs, each at most about
// ahead µs after it was set: about one timer a bucket where they are
// densest, a ring reaching ahead (at most 1<<14 buckets, 1 MB of keys; past
// that, buckets of up to about four timers); and no buckets when those reach
// less than half of ahead (more than a few timers would wait in far, behind
// a ring out of the caches).
func WheelSize(rate, ahead float64) (uint, int) {
	var s uint
	for s < 39 && float64(uint64(2)<<s)*rate <= 1 {
		s++
	}
	n := 64
	for n < 1<<14 && float64(n)*float64(uint64(1)<<s) < ahead {
		n *= 2
	}
	for s < 39 && float64(n)*float64(uint64(1)<<s) < ahead && float64(uint64(2)<<s)*rate <= 4 {
		s++
	}
	if float64(n)*float64(uint64(1)<<s) < ahead/2 {
		return s, 0
	}
	return s, n
}

// Len returns the number of events held.
func (w *Wheel) Len() int { return w.in + w.far.Len() }

// Empty reports whether the wheel holds no event.
func (w *Wheel) Empty() bool { return w.top == None }

// Top returns the earliest event: None when the wheel is empty.
func (w *Wheel) Top() Event { return w.top }

// Push adds e.
func (w *Wheel) Push(e Event) {
	bn := uint64(e) >> (w.shift & 63)
	if i := bn & w.mask; bn-w.base <= w.mask {
		if bk := &w.b[i]; bk[0] < WheelK {
			n := bk[0] + 1
			bk[0], bk[n&7] = n, e
			if e < w.top {
				w.top, w.at = e, int(i*8+uint64(n))
			}
			w.in++
			w.bits[i>>6] |= 1 << (i & 63)
			return
		}
	}
	w.far.Push(e)
	if e < w.top {
		w.top, w.at = e, -1
	}
}

// Pop removes and returns the earliest event; the wheel must not be empty.
// It finds the next: the earliest of the first bucket going round from
// base, and far's first.
func (w *Wheel) Pop() Event {
	top := w.top
	if w.at < 0 {
		w.far.Pop()
		w.base = max(w.base, uint64(top)>>(w.shift&63)) // (it may be earlier)
	} else {
		i := uint(w.at) / 8
		bk := &w.b[i]
		n := bk[0]
		bk[0], bk[w.at&7] = n-1, bk[n&7]
		if n == 1 {
			w.bits[i>>6] &^= 1 << (i & 63)
		}
		w.in--
		w.base = uint64(top) >> (w.shift & 63)
	}
	w.top, w.at = w.far.ev[:2][1], -1 // None when far is empty
	if w.in == 0 {
		return top
	}
	i := w.base & w.mask
	k := i >> 6
	m := w.bits[k] &^ (1<<(i&63) - 1)
	for m == 0 {
		k = (k + 1) & (w.mask >> 6)
		m = w.bits[k]
	}
	i = k<<6 + uint64(bits.TrailingZeros64(m))
	bk := &w.b[i]
	best, at := bk[1], uint64(1)
	for j := uint64(2); j <= uint64(bk[0]); j++ {
		if e := bk[j&7]; e < best {
			best, at = e, j
		}
	}
	if best < w.top {
		w.top, w.at = best, int(i*8+at)
	}
	return top
}

// Drop removes every event gone reports true for (a machine's clients lost
// with it): rare, so it goes through every bucket and rebuilds far.
func (w *Wheel) Drop(gone func(Event) bool) {
	w.top, w.at = None, -1
	for i := range w.b {
		bk := &w.b[i]
		n := uint64(0)
		for j := uint64(1); j <= uint64(bk[0]); j++ {
			if e := bk[j&7]; !gone(e) {
				n++
				bk[n&7] = e
				if e < w.top {
					w.top, w.at = e, int(uint64(i)*8+n)
				}
			}
		}
		w.in -= int(uint64(bk[0]) - n)
		if bk[0] = Event(n); n == 0 {
			w.bits[i>>6] &^= 1 << (i & 63)
		}
	}
	kept := make([]Event, 0, w.far.Len())
	for _, e := range w.far.ev[1:] {
		if !gone(e) {
			kept = append(kept, e)
		}
	}
	w.far.Init()
	for _, e := range kept {
		w.far.Push(e)
	}
	if f := w.far.ev[:2][1]; f < w.top {
		w.top, w.at = f, -1
	}
}
