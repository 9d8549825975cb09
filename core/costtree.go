package core

// Tuxedo's least-cost rule, for a service with many candidate queues, from
// a tournament tree instead of a scan: each leaf is one of the service's
// candidate queues (svcInfo.queues, in scan order), each inner node holds
// the cheaper of its two children's winners, the left one on a tie, so the
// root is what the scan finds: the least cost, ties to the first in scan
// order. Costs are the scan's fractions, compared exactly (lessFrac): W(q) +
// L·n over n for SHM, C_m(q) + (L+N)·n over n for MP from origin m. Below
// costTreeMin queues the scan is cheaper and is kept.
//
// The trees are lazy. Most requests find an idle server and never read
// them, so a change of W(q) (SHM) or of C_m(q) (MP) only lists q's leaf as
// changed in the trees q is a leaf of (engine.members); the tree is
// repaired when it is next read (repair), each node above a changed leaf
// computed once, bottom up. A node is a function of the leaves' costs
// only, so the repaired tree is the one an update at every change would
// have kept: the same root, the same choice. A tree that is not read for
// a while stops listing changes (it goes stale, costTree.budget) and is
// rebuilt in full when next read; a model whose requests all find an idle
// server then pays one test per change (engine.liveTrees).
//
// Trees are built when first needed (a service's first request that finds
// no idle server; for MP, per origin machine), so a model of many services
// and machines pays only for those that queue. A change of the candidates
// (rebuildCandidates) drops every tree; an MP counter reset makes them
// stale.

// costTreeMin is the number of candidate queues from which a service's
// least cost is read from a tree. A variable for the tests, which set it to
// 1 to check that trees and scans choose alike.
var costTreeMin = 64

// costTreeBudget is, per leaf, how many changes a tree lists between two
// reads before it goes stale: listing a change costs a few instructions,
// a rebuild about as many per leaf as a listing, so a tree no longer read
// costs at most a few rebuilds' worth before it stops listing.
const costTreeBudget = 4

// costTree is one tournament tree: win[1] is the root, win[size+k] the leaf
// of queue k (-1 past the last queue).
type costTree struct {
	size int32
	win  []int32
	// stale: win is not kept (built before an MP counter reset, or out of
	// budget): rebuild before use. A tree that is not stale is live.
	stale bool
	// budget is how many more changes the tree lists before it goes stale;
	// each read sets it back to costTreeBudget per leaf.
	budget int32
	// dirty lists the nodes of the leaves whose cost changed since the
	// last read, each once: bit i of mark is set for node i listed (and,
	// during a repair, for the inner nodes listed at one level).
	dirty []int32
	mark  []uint64
}

// costMember says that queue q is leaf node i of tree t.
type costMember struct {
	t *costTree
	i int32
}

// costTreesSetup decides, after the candidates are known or have changed,
// whether any service reads its least cost from a tree, and drops the
// trees built for the candidates of before.
func (e *engine) costTreesSetup() {
	clear(e.built) // the trees of before are unreachable once the services drop them
	e.built = e.built[:0]
	clear(e.members)
	e.liveTrees = 0
	e.shmTrees, e.mpTrees = false, false
	if e.alg != algSHM && e.alg != algMP {
		return
	}
	big := false
	reset := func(sv *svcInfo) {
		sv.tree, sv.mtrees = nil, nil
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
		// SHM: per queue q; MP: per origin m and queue q, at m*len(queues)+q
		n := len(e.queues)
		if e.alg == algMP {
			n *= len(e.m.Machines)
		}
		e.members = make([][]costMember, n)
	}
	e.shmTrees, e.mpTrees = e.alg == algSHM, e.alg == algMP
}

// leastTree returns the index into sv.queues of the least-cost queue, from
// sv's tree (for MP, that of origin m; m is -1 for SHM), building or
// repairing it first if needed.
func (e *engine) leastTree(sv *svcInfo, m int) int32 {
	var t *costTree
	if m < 0 {
		if t = sv.tree; t == nil {
			t = e.newTree(sv, m)
			sv.tree = t
		}
	} else {
		if sv.mtrees == nil {
			sv.mtrees = make([]*costTree, len(e.m.Machines))
		}
		if t = sv.mtrees[m]; t == nil {
			t = e.newTree(sv, m)
			sv.mtrees[m] = t
		}
	}
	if t.stale {
		e.buildTree(t, sv, m)
		t.stale = false
		e.liveTrees++
	} else if len(t.dirty) > 0 {
		e.repair(t, sv, m)
	}
	t.budget = costTreeBudget * t.size
	return t.win[1]
}

// newTree makes a stale tree for sv's queues (origin m) and makes its
// leaves members of their queues'.
func (e *engine) newTree(sv *svcInfo, m int) *costTree {
	size := int32(1)
	for int(size) < len(sv.queues) {
		size *= 2
	}
	t := &costTree{size: size, win: make([]int32, 2*size), stale: true, mark: make([]uint64, (2*size+63)/64)}
	e.built = append(e.built, t)
	base := 0
	if m >= 0 {
		base = m * len(e.queues)
	}
	for k := range sv.queues {
		q := base + int(sv.queues[k].q)
		e.members[q] = append(e.members[q], costMember{t: t, i: size + int32(k)})
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
}

// repair computes again, bottom up, the nodes above the leaves listed in
// t.dirty, each once: the leaves are all at one depth, so the list holds
// one level's nodes at a time, their parents listed in its place.
func (e *engine) repair(t *costTree, sv *svcInfo, m int) {
	list := t.dirty
	for _, i := range list {
		t.mark[i>>6] &^= 1 << (i & 63)
	}
	for list[0] > 1 {
		w := 0
		for _, i := range list {
			p := i >> 1
			if bit := uint64(1) << (p & 63); t.mark[p>>6]&bit == 0 {
				t.mark[p>>6] |= bit
				list[w] = p
				w++
			}
		}
		list = list[:w]
		for _, p := range list {
			t.win[p] = e.cheaper(sv, m, t.win[2*p], t.win[2*p+1])
			t.mark[p>>6] &^= 1 << (p & 63)
		}
	}
	t.dirty = t.dirty[:0]
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

// costChanged lists queue q's leaf as changed in the live trees it is a
// leaf of, after its W(q) changed (SHM, m = -1) or its C_m(q) (MP, origin
// m); a tree out of budget goes stale instead. Callers test shmTrees or
// liveTrees first.
//
//go:noinline
func (e *engine) costChanged(q int32, m int) {
	if e.liveTrees == 0 {
		return
	}
	if m >= 0 {
		q += int32(m * len(e.queues))
	}
	for _, mb := range e.members[q] {
		t := mb.t
		if t.stale {
			continue
		}
		if t.budget--; t.budget < 0 {
			e.dropTree(t)
			continue
		}
		if bit := uint64(1) << (mb.i & 63); t.mark[mb.i>>6]&bit == 0 {
			t.mark[mb.i>>6] |= bit
			t.dirty = append(t.dirty, mb.i)
		}
	}
}

// dropTree makes live tree t stale: it lists no more changes.
func (e *engine) dropTree(t *costTree) {
	for _, i := range t.dirty {
		t.mark[i>>6] &^= 1 << (i & 63)
	}
	t.dirty = t.dirty[:0]
	t.stale = true
	e.liveTrees--
}

// staleTrees makes every tree stale after the MP counters were reset.
func (e *engine) staleTrees() {
	for _, t := range e.built {
		if !t.stale {
			e.dropTree(t)
		}
	}
}
