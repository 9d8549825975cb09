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
// level heads, since each level is FIFO. Its FIFOs are column q of levels.
type waitQueue struct {
	nonEmpty [2]uint64 // bit l set: level l (priority l+1) has requests
	q        int32     // its column in levels
	n        int32     // requests waiting
	handoffs uint8     // the queue's hand-offs so far, modulo oldestEvery
}

// levels holds the queues' FIFOs level by level, a level's of every queue
// side by side: requests wait at their services' few priorities, 8 bytes a
// queue each (32 KB a level at 4 096 queues, rather than 3.2 MB in all).
type levels struct {
	fifos []fifo
	nq    int
}

// at is queue q's FIFO of level l.
func (lv *levels) at(l, q int32) *fifo { return &lv.fifos[int(l)*lv.nq+int(q)] }

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

// push appends slot s (whose prio is 1..100) at the tail of its level.
func (q *waitQueue) push(pool *flightPool, lv *levels, s int32) {
	f := pool.At(s)
	l := int32(f.prio) - 1
	f.next = -1
	v := lv.at(l, q.q)
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
func (q *waitQueue) popHighest(pool *flightPool, lv *levels) int32 {
	var l int32
	if q.nonEmpty[1] != 0 {
		l = 127 - int32(bits.LeadingZeros64(q.nonEmpty[1]))
	} else {
		l = 63 - int32(bits.LeadingZeros64(q.nonEmpty[0]))
	}
	return q.popLevel(pool, lv.at(l, q.q), l)
}

// popOldest removes the request that entered the queue first.
func (q *waitQueue) popOldest(pool *flightPool, lv *levels) int32 {
	best := int32(-1)
	var bestSeq uint64
	for w := 0; w < 2; w++ {
		for m := q.nonEmpty[w]; m != 0; m &= m - 1 {
			l := int32(w*64 + bits.TrailingZeros64(m))
			if seq := pool.At(lv.at(l, q.q).head - 1).enqSeq; best < 0 || seq < bestSeq {
				best, bestSeq = l, seq
			}
		}
	}
	return q.popLevel(pool, lv.at(best, q.q), best)
}

func (q *waitQueue) popLevel(pool *flightPool, v *fifo, l int32) int32 {
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
