package core

import (
	"github.com/tuxlb/tuxlb/core/internal/bitset"
	"github.com/tuxlb/tuxlb/core/internal/costtree"
)

// choose picks the queue for request f of service sv by the run's algorithm
// (docs/engine.md). It returns the chosen entry of sv.queues, the instance the
// rule picked and the dispatch log's reason. MP counters are charged here, at
// issue. Tuxedo's rules are written out in their cases rather than in
// functions of their own: a call fewer per request on the hot path.
func (e *engine) choose(f *flight, sv *svcInfo) (sq *svcQueue, chosen int32, why reason) {
	switch e.alg {
	case algFirst:
		return &sv.queues[sv.candQ[0]], sv.cands[0], reasonFirst
	case algSHM:
		var c int32 // the first idle candidate
		if e.slowIdle {
			c = e.firstIdleOf(sv.cands, sv.candBits, sv.candSum)
		} else {
			c = bitset.FirstCommon(sv.candBits, e.idleBits)
		}
		if c >= 0 {
			return &sv.queues[sv.queueOf(c)], c, reasonIdle
		}
		if e.shmTrees && len(sv.queues) >= costTreeMin {
			best := &sv.queues[e.leastTree(sv, -1)]
			return best, best.first, reasonLeastLoad
		}
		// the least W(q)/n(q) + L(s,q), ties to the first, compared as
		// num/n(q) with num = W(q) + L·n(q) (n(q) is svcQueue's copy)
		qs := sv.queues
		best := &qs[0]
		bn := e.queues[best.q].work + best.load*best.n
		for k := 1; k < len(qs); k++ {
			sq := &qs[k]
			num := e.queues[sq.q].work + sq.load*sq.n
			if costtree.LessFrac(num, sq.n, bn, best.n) {
				best, bn = sq, num
			}
		}
		return best, best.first, reasonLeastLoad
	case algMP:
		m := f.req.Origin
		nq := len(e.queues)
		var c int32 // the first idle candidate on the origin machine
		if e.slowIdle {
			c = e.firstIdleOf(sv.local[m], sv.localBits[m], sv.localSum[m])
		} else {
			c = bitset.FirstCommon(sv.localBits[m], e.idleBits)
		}
		if c >= 0 {
			sq = &sv.queues[sv.queueOf(c)]
			e.counters[m*nq+int(sq.q)] += sq.load // one access: no row to slice
			if e.trees.Live() != 0 {
				e.costChanged(sq.q, m)
			}
			return sq, c, reasonIdle
		}
		if e.mpTrees && len(sv.queues) >= costTreeMin {
			// the scan's charge below, written again here: sharing it
			// cost the scan path about 15 instructions a request
			best := &sv.queues[e.leastTree(sv, m)]
			net := e.netLoadFor(m, int(best.machine)) // (from its entry, read anyway: netFor would be a miss more)
			if e.loadOnly {
				net = 0
			}
			e.counters[m*nq+int(best.q)] += best.load + net
			e.costChanged(best.q, m)
			return best, best.first, reasonLeastLoad
		}
		row, netRow := e.counters[m*nq:m*nq+nq], e.netFor[m*nq:m*nq+nq]
		// The least C_m(q)/n(q) + L(s,q) + N(q), as num/n with num =
		// C_m(q) + (L+N)·n, compared in int64 as docs/engine.md says;
		// n(q) is svcQueue's copy, so the loop reads no queueState.
		qs := sv.queues
		best := &qs[0]
		bn := row[best.q] + (best.load+netRow[best.q])*best.n
		for k := 1; k < len(qs); k++ {
			sq := &qs[k]
			num := row[sq.q] + (sq.load+netRow[sq.q])*sq.n
			if costtree.LessFrac(num, sq.n, bn, best.n) {
				best, bn = sq, num
			}
		}
		net := netRow[best.q]
		if e.loadOnly { // a conditional move: after the loop a branch here mispredicts
			net = 0
		}
		row[best.q] += best.load + net
		return best, best.first, reasonLeastLoad
	case algRoundRobin:
		s := f.req.Service
		j := e.rr[s] % int64(len(sv.cands))
		e.rr[s]++
		return &sv.queues[sv.candQ[j]], sv.cands[j], reasonRoundRobin
	case algRandom:
		j := e.rng.IntN(len(sv.cands))
		return &sv.queues[sv.candQ[j]], sv.cands[j], reasonRandom
	case algJSQ:
		sq = &sv.queues[e.leastJSQ(sv)]
		return sq, sq.first, reasonJSQ
	case algP2C:
		j := e.pickP2C(sv)
		return &sv.queues[sv.candQ[j]], sv.cands[j], reasonP2C
	}
	panic("core: choose: unknown algorithm " + e.alg.String())
}

// idle reports whether instance i counts as idle under the run's reading:
// not processing a request (default), or its queue holds no waiting request.
func (e *engine) idle(i int32) bool {
	sv := &e.servers[i]
	if e.idleQueue {
		// a restarting instance is never idle; a down one's queue is tested like any other
		return sv.state != stateRestarting && e.queues[sv.queue].wait.n == 0
	}
	// the look the dispatch rules see: not processing, a down instance's as
	// it was when it crashed, never for a restarting one (see setState)
	return e.idleBits[i>>6]&(1<<(i&63)) != 0
}

// firstIdle returns the first of the candidate instances cs (scan order)
// that is idle, or -1, testing each in turn. It serves the reading idle
// "queue"; under the default reading the callers match bit sets instead
// (bitset.FirstCommon).
func (e *engine) firstIdle(cs []int32) int32 {
	for _, c := range cs {
		if e.idle(c) {
			return c
		}
	}
	return -1
}

// firstIdleOf returns the first idle one of the candidates cs (their bit
// set bs, its summary sum) when choose cannot match the bits word by word
// (engine.slowIdle): under the reading idle "queue" by testing each, in a
// large model through the summaries. It is a call of its own so that the
// common case in choose stays as short as it was.
//
//go:noinline
func (e *engine) firstIdleOf(cs []int32, bs, sum []uint64) int32 {
	if e.idleQueue {
		return e.firstIdle(cs)
	}
	return bitset.FirstCommonSum(bs, sum, e.idleBits, e.idleSum)
}

// markIdle sets server i's idle bit, and its word's summary bit.
func (e *engine) markIdle(i int32) {
	w := i >> 6
	e.idleBits[w] |= 1 << (i & 63)
	if e.sums {
		e.idleSum[w>>6] |= 1 << (w & 63)
	}
}

// markBusy clears server i's idle bit, and its word's summary bit when no
// other server of the word is idle (without a branch: whether it was the
// last is a coin toss the processor would mispredict).
func (e *engine) markBusy(i int32) {
	w := i >> 6
	x := e.idleBits[w] &^ (1 << (i & 63))
	e.idleBits[w] = x
	if e.sums {
		e.idleSum[w>>6] &^= uint64(b2i(x == 0)) << (w & 63)
	}
}

// netLoadFor returns N(q) for a request issued on machine m, of a queue on
// machine qm: 0 for a local queue, else the NETLOAD of qm (or of m, tuning
// netload "origin").
func (e *engine) netLoadFor(m, qm int) int64 {
	if qm == m {
		return 0
	}
	if e.netOrigin {
		return e.netload[m]
	}
	return e.netload[qm]
}

// jsqLess reports whether queue a is shorter than queue b by the jsq
// measure (waiting + in service) / n(q).
func (e *engine) jsqLess(a, b int32) bool {
	qa, qb := &e.queues[a], &e.queues[b]
	return costtree.LessFrac(int64(qa.wait.n+qa.inService), int64(qa.n), int64(qb.wait.n+qb.inService), int64(qb.n))
}

// leastJSQ returns the candidate queue with the fewest requests waiting plus
// in service per instance, ties to the first.
func (e *engine) leastJSQ(sv *svcInfo) int32 {
	best := int32(0)
	for k := 1; k < len(sv.queues); k++ {
		if e.jsqLess(sv.queues[k].q, sv.queues[best].q) {
			best = int32(k)
		}
	}
	return best
}

// pickP2C draws two distinct candidate instances and returns the position of
// the one whose queue is shorter by the jsq measure, ties to the first drawn.
func (e *engine) pickP2C(sv *svcInfo) int {
	n := len(sv.cands)
	if n == 1 {
		return 0
	}
	a := e.rng.IntN(n)
	b := e.rng.IntN(n - 1)
	if b >= a {
		b++
	}
	qa := sv.queues[sv.candQ[a]].q
	qb := sv.queues[sv.candQ[b]].q
	if e.jsqLess(qb, qa) {
		return b
	}
	return a
}
