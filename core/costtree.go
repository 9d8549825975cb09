package core

// Tuxedo's least-cost rule, for a service with many candidate queues, from
// a tournament tree instead of a scan: each leaf is one of the service's
// candidate queues (svcInfo.queues, in scan order), each inner node holds
// the cheaper of its two children's winners, the left one on a tie, so the
// root is what the scan finds: the least cost, ties to the first in scan
// order. Costs are the scan's fractions, compared exactly (lessFrac): W(q) +
// L·n over n for SHM, C_m(q) + (L+N)·n over n for MP from origin m. A
// change of W(q) (SHM) or of C_m(q) (MP) updates the trees q is a leaf of, a
// path of log2(queues) nodes each; the choice reads the root. Below
// costTreeMin queues the scan is cheaper and is kept.
//
// Trees are built when first needed (a service's first request that finds
// no idle server; for MP, per origin machine), so a model of many services
// and machines pays only for those that queue. A change of the candidates
// (rebuildCandidates) drops every tree; an MP counter reset marks them
// stale, rebuilt at their next use.

// costTreeMin is the number of candidate queues from which a service's
// least cost is read from a tree. A variable for the tests, which set it to
// 1 to check that trees and scans choose alike.
var costTreeMin = 64

// costTree is one tournament tree: win[1] is the root, win[size+k] the leaf
// of queue k (-1 past the last queue).
type costTree struct {
	size  int32
	win   []int32
	stale bool // built before an MP counter reset: rebuild before use
}

// costMember says queue q is leaf k of service sv's trees.
type costMember struct {
	sv *svcInfo
	k  int32
}

// costTreesSetup decides, after the candidates are known or have changed,
// whether any service reads its least cost from a tree, and drops the
// trees built for the candidates of before.
func (e *engine) costTreesSetup() {
	clear(e.built) // the trees of before are unreachable once the services drop them
	e.built = e.built[:0]
	clear(e.members)
	e.shmTrees, e.mpTrees = false, false
	if e.alg != algSHM && e.alg != algMP {
		return
	}
	big := false
	reset := func(sv *svcInfo) {
		sv.tree, sv.mtrees, sv.member = nil, nil, false
		big = big || len(sv.queues) >= costTreeMin
	}
	for s := range e.svc {
		reset(&e.svc[s])
	}
	for _, sv := range e.routeSets {
		reset(sv)
	}
	if !big {
		return
	}
	if e.members == nil {
		e.members = make([][]costMember, len(e.queues))
	}
	e.shmTrees, e.mpTrees = e.alg == algSHM, e.alg == algMP
}

// leastTree returns the index into sv.queues of the least-cost queue, from
// sv's tree (for MP, that of origin m; m is -1 for SHM), building it first
// if needed.
func (e *engine) leastTree(sv *svcInfo, m int) int32 {
	var t *costTree
	if m < 0 {
		if t = sv.tree; t == nil {
			t = e.newTree(sv)
			sv.tree = t
		}
	} else {
		if sv.mtrees == nil {
			sv.mtrees = make([]*costTree, len(e.m.Machines))
		}
		if t = sv.mtrees[m]; t == nil {
			t = e.newTree(sv)
			sv.mtrees[m] = t
		}
	}
	if t.stale {
		e.buildTree(t, sv, m)
	}
	return t.win[1]
}

// newTree makes a stale tree for sv's queues and makes sv's queues its
// members, once.
func (e *engine) newTree(sv *svcInfo) *costTree {
	size := int32(1)
	for int(size) < len(sv.queues) {
		size *= 2
	}
	t := &costTree{size: size, win: make([]int32, 2*size), stale: true}
	e.built = append(e.built, t)
	if !sv.member {
		sv.member = true
		for k := range sv.queues {
			q := sv.queues[k].q
			e.members[q] = append(e.members[q], costMember{sv: sv, k: int32(k)})
		}
	}
	return t
}

// buildTree computes every node of t from sv's queues' costs now.
func (e *engine) buildTree(t *costTree, sv *svcInfo, m int) {
	for k := int32(0); k < t.size; k++ {
		t.win[t.size+k] = -1
		if int(k) < len(sv.queues) {
			t.win[t.size+k] = k
		}
	}
	for i := t.size - 1; i >= 1; i-- {
		t.win[i] = e.cheaper(sv, m, t.win[2*i], t.win[2*i+1])
	}
	t.stale = false
}

// cheaper returns the cheaper of sv's queues a and b (a before b in scan
// order, or -1 for none), a on a tie: the scan's test, b replacing a only
// when it costs strictly less.
func (e *engine) cheaper(sv *svcInfo, m int, a, b int32) int32 {
	if b < 0 {
		return a
	}
	if a < 0 {
		return b
	}
	qa, qb := &sv.queues[a], &sv.queues[b]
	var na, nb int64
	if m < 0 {
		na = e.queues[qa.q].work + qa.load*qa.n
		nb = e.queues[qb.q].work + qb.load*qb.n
	} else {
		nq := len(e.queues)
		row, net := e.counters[m*nq:m*nq+nq], e.netFor[m*nq:m*nq+nq]
		na = row[qa.q] + (qa.load+net[qa.q])*qa.n
		nb = row[qb.q] + (qb.load+net[qb.q])*qb.n
	}
	if lessFrac(nb, qb.n, na, qa.n) {
		return b
	}
	return a
}

// costChanged updates the trees queue q is a leaf of, after its W(q)
// changed (SHM, m = -1) or its C_m(q) (MP, origin m). Callers test
// shmTrees or mpTrees first.
//
//go:noinline
func (e *engine) costChanged(q int32, m int) {
	for _, mb := range e.members[q] {
		t := mb.sv.tree
		if m >= 0 {
			if mb.sv.mtrees == nil {
				continue
			}
			t = mb.sv.mtrees[m]
		}
		if t == nil || t.stale {
			continue
		}
		for i := (t.size + mb.k) >> 1; i >= 1; i >>= 1 {
			t.win[i] = e.cheaper(mb.sv, m, t.win[2*i], t.win[2*i+1])
		}
	}
}

// staleTrees marks every tree stale after the MP counters were reset.
func (e *engine) staleTrees() {
	for _, t := range e.built {
		t.stale = true
	}
}
