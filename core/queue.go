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
	head, tail [prioLevels]int32 // slot indexes, -1 when empty
	nonEmpty   [2]uint64         // bit l set: level l (priority l+1) has requests
	n          int
}

// init empties q.
func (q *waitQueue) init() {
	for i := range q.head {
		q.head[i], q.tail[i] = -1, -1
	}
	q.nonEmpty = [2]uint64{}
	q.n = 0
}

// push appends slot s (whose prio is 1..100) at the tail of its level.
func (q *waitQueue) push(pool *flightPool, s int32) {
	f := pool.at(s)
	l := f.prio - 1
	f.next = -1
	if q.tail[l] < 0 {
		q.head[l] = s
		q.nonEmpty[l>>6] |= 1 << (l & 63)
	} else {
		pool.at(q.tail[l]).next = s
	}
	q.tail[l] = s
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
			if seq := pool.at(q.head[l]).enqSeq; best < 0 || seq < bestSeq {
				best, bestSeq = l, seq
			}
		}
	}
	return q.popLevel(pool, best)
}

func (q *waitQueue) popLevel(pool *flightPool, l int32) int32 {
	s := q.head[l]
	q.head[l] = pool.at(s).next
	if q.head[l] < 0 {
		q.tail[l] = -1
		q.nonEmpty[l>>6] &^= 1 << (l & 63)
	}
	q.n--
	return s
}
