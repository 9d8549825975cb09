package core

import "math/bits"

// choose picks the queue for request f of service sv by the run's algorithm
// (docs/engine.md). It returns the index into sv.queues, the instance the rule
// picked and the dispatch log's reason. MP counters are charged here, at issue.
func (e *engine) choose(f *flight, sv *svcInfo) (k int32, chosen int32, why reason) {
	switch e.alg {
	case algFirst:
		return sv.candQ[0], sv.cands[0], reasonFirst
	case algSHM:
		if c := e.firstIdle(sv); c >= 0 {
			return sv.queueOf(c), c, reasonIdle
		}
		k = e.leastSHM(sv)
		return k, sv.queues[k].first, reasonLeastLoad
	case algMP:
		return e.chooseMP(f, sv)
	case algRoundRobin:
		s := f.req.Service
		j := e.rr[s] % int64(len(sv.cands))
		e.rr[s]++
		return sv.candQ[j], sv.cands[j], reasonRoundRobin
	case algRandom:
		j := e.rng.IntN(len(sv.cands))
		return sv.candQ[j], sv.cands[j], reasonRandom
	case algJSQ:
		k = e.leastJSQ(sv)
		return k, sv.queues[k].first, reasonJSQ
	case algP2C:
		j := e.pickP2C(sv)
		return sv.candQ[j], sv.cands[j], reasonP2C
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

// lessFrac reports whether a/b < c/d for positive b and d, exactly.
func lessFrac(a, b, c, d int64) bool { return a*d < c*b }

// leastSHM returns the candidate queue with the least W(q)/n(q) + L(s,q),
// ties to the first.
func (e *engine) leastSHM(sv *svcInfo) int32 {
	best := int32(0)
	var bn, bd int64
	for k := range sv.queues {
		sq := &sv.queues[k]
		q := &e.queues[sq.q]
		num, den := q.work+sq.load*q.n, q.n
		if k == 0 || lessFrac(num, den, bn, bd) {
			best, bn, bd = int32(k), num, den
		}
	}
	return best
}

// chooseMP is the MP round-robin algorithm for a request issued on its origin.
func (e *engine) chooseMP(f *flight, sv *svcInfo) (int32, int32, reason) {
	m := f.req.Origin
	row := e.counters[m*len(e.queues):]
	if c := e.firstIdleLocal(sv, m); c >= 0 {
		k := sv.queueOf(c)
		row[sv.queues[k].q] += sv.queues[k].load
		return k, c, reasonIdle
	}
	best := int32(0)
	var bn, bd, bcharge int64
	netRow := e.netFor[m*len(e.queues):]
	for k := range sv.queues {
		sq := &sv.queues[k]
		n := e.queues[sq.q].n
		net := netRow[sq.q]
		num := row[sq.q] + (sq.load+net)*n
		if k == 0 || lessFrac(num, n, bn, bd) {
			best, bn, bd, bcharge = int32(k), num, n, sq.load+net
		}
	}
	if e.loadOnly {
		bcharge = sv.queues[best].load
	}
	row[sv.queues[best].q] += bcharge
	return best, sv.queues[best].first, reasonLeastLoad
}

// firstIdleLocal returns the first idle candidate of sv on machine m in scan
// order, or -1. Under the default reading of idle it matches the candidates'
// bit set against the idle servers' a word (64 servers) at a time, rather
// than testing each candidate in turn.
func (e *engine) firstIdleLocal(sv *svcInfo, m int) int32 {
	if e.idleQueue {
		for _, j := range sv.local[m] {
			if c := sv.cands[j]; e.idle(c) {
				return c
			}
		}
		return -1
	}
	for w, cands := range sv.localBits[m] {
		if x := cands & e.idleBits[w]; x != 0 {
			return int32(w*64 + bits.TrailingZeros64(x))
		}
	}
	return -1
}

// firstIdle returns the first idle candidate of sv in scan order, or -1,
// matching bit sets a word at a time as firstIdleLocal does.
func (e *engine) firstIdle(sv *svcInfo) int32 {
	if e.idleQueue {
		for _, c := range sv.cands {
			if e.idle(c) {
				return c
			}
		}
		return -1
	}
	for w, cands := range sv.candBits {
		if x := cands & e.idleBits[w]; x != 0 {
			return int32(w*64 + bits.TrailingZeros64(x))
		}
	}
	return -1
}

// netLoadFor returns N(q) for a request issued on machine m: 0 for a local
// queue, else the NETLOAD of q's machine (or of m, tuning netload "origin").
func (e *engine) netLoadFor(m int, q int32) int64 {
	qm := int(e.queues[q].machine)
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
	return lessFrac(int64(qa.wait.n+qa.inService), qa.n, int64(qb.wait.n+qb.inService), qb.n)
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
