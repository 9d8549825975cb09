package core

import "math/bits"

// prioLevels is the number of priorities (PRIO and trace prio are 1..100).
const prioLevels = 100

// oldestEvery makes every 10th hand-off of a queue take its oldest waiting
// request, whatever the priorities (docs/engine.md).
const oldestEvery = 10

// waitQueue is the waiting part of one request queue: a FIFO per priority
// level, linked through the in-flight records (flight.next), and a bitmap of
// the non-empty levels. Higher priority is served first, FIFO among equals;
// the oldest request is the one with the smallest enqueue number among the
// level heads, since each level is FIFO.
type waitQueue struct {
	nonEmpty [2]uint64 // bit l set: level l (priority l+1) has requests
	// lv holds each level's FIFO, apart from the queue's figures: 800
	// bytes that a queue whose requests never wait never touches, so that
	// the queues' figures the engine reads at every request stay a few
	// cache lines each
	lv       *[prioLevels]fifo
	n        int32 // requests waiting
	handoffs uint8 // the queue's hand-offs so far, modulo oldestEvery
}

// handOff counts a hand-off of the queue (a request taken, waiting or as it
// arrives): an oldestEvery-th one, which takes the oldest, returns true.
func (q *waitQueue) handOff() bool {
	if q.handoffs++; q.handoffs < oldestEvery {
		return false
	}
	q.handoffs = 0
	return true
}

// fifo is one priority level's FIFO: its first and last requests' slots
// plus one, 0 when it is empty (so that zeroed memory is empty levels).
type fifo struct{ head, tail int32 }

// init empties q, its levels in lv (zeroed).
func (q *waitQueue) init(lv *[prioLevels]fifo) {
	*q = waitQueue{lv: lv}
}

// push appends slot s (whose prio is 1..100) at the tail of its level.
func (q *waitQueue) push(pool *flightPool, s int32) {
	f := pool.At(s)
	l := f.prio - 1
	f.next = -1
	v := &q.lv[l]
	if v.tail == 0 {
		v.head = s + 1
		q.nonEmpty[l>>6] |= 1 << (l & 63)
	} else {
		pool.At(v.tail - 1).next = s
	}
	v.tail = s + 1
	q.n++
}

// popHighest removes the first request of the highest non-empty level.
func (q *waitQueue) popHighest(pool *flightPool) int32 {
	var l int32
	if q.nonEmpty[1] != 0 {
		l = 127 - int32(bits.LeadingZeros64(q.nonEmpty[1]))
	} else {
		l = 63 - int32(bits.LeadingZeros64(q.nonEmpty[0]))
	}
	return q.popLevel(pool, l)
}

// popOldest removes the request that entered the queue first.
func (q *waitQueue) popOldest(pool *flightPool) int32 {
	best := int32(-1)
	var bestSeq uint64
	for w := 0; w < 2; w++ {
		for m := q.nonEmpty[w]; m != 0; m &= m - 1 {
			l := int32(w*64 + bits.TrailingZeros64(m))
			if seq := pool.At(q.lv[l].head - 1).enqSeq; best < 0 || seq < bestSeq {
				best, bestSeq = l, seq
			}
		}
	}
	return q.popLevel(pool, best)
}

func (q *waitQueue) popLevel(pool *flightPool, l int32) int32 {
	v := &q.lv[l]
	s := v.head - 1
	next := pool.At(s).next
	v.head = next + 1
	if next < 0 {
		v.tail = 0
		q.nonEmpty[l>>6] &^= 1 << (l & 63)
	}
	q.n--
	return s
}
