package core

import "math"

// Tuxedo's least-cost rule, for a service with many candidate queues, from
// a tournament tree instead of a scan: each leaf is one of the service's
// candidate queues (svcInfo.queues, in scan order), each inner node holds
// the cheaper of its two children's winners, the left one on a tie, so the
// root is what the scan finds: the least cost, ties to the first in scan
// order. Costs are the scan's fractions, compared exactly (lessFrac): W(q) +
// L·n over n for SHM, C_m(q) + (L+N)·n over n for MP from origin m; a node
// keeps its winner's numerator. Below costTreeMin queues the scan is
// cheaper and is kept.
//
// The trees are lazy. Most requests find an idle server and never read
// them, so a change of W(q) (SHM) or of C_m(q) (MP) only lists q's leaf as
// changed in the trees q is a leaf of (costTrees.members); the tree is
// repaired when it is next read (repair): each listed leaf takes its new
// numerator and the nodes above it are computed again, up to the first
// that keeps its winner and numerator. A tree is always the function of
// its leaves' numerators that an update at every change would have kept,
// so the root, the choice, is the same. A tree that is not read for a
// while stops listing changes (it goes stale, costTree.budget) and is
// rebuilt in full when next read; a model whose requests all find an idle
// server then pays one test per change (costTrees.live).
//
// Services with the same candidate queues, in the same order, each with
// one LOAD for all of them, share their trees: L is the same for every
// queue, so it drops out of the comparison and the tree keeps W(q) over n
// (SHM) or C_m(q) + N·n over n (MP). That is exact while no product
// overflows: services share trees only with n, LOAD and N below shareMaxN
// and shareMaxLoad, and the costs W(q) or C_m(q) of a shared tree must stay
// below shareMax, else the trees are dropped and no longer shared
// (costTrees.noShare).
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

// shareMax, shareMaxN and shareMaxLoad bound a shared tree's W(q) or
// C_m(q), its n, and L and N: then no product of the comparison, shared or
// per service, reaches 2^52 (of 2^63), so both order the queues alike.
// UBBCONFIG's LOAD and NETLOAD are at most 32 767.
const (
	shareMax     = 1 << 40
	shareMaxN    = 1 << 10
	shareMaxLoad = 1 << 16
)

// costTrees is the engine's bookkeeping of the trees.
type costTrees struct {
	// members[q] (SHM) or [m*len(queues)+q] (MP, origin m) lists the
	// leaves queue q is in the trees of
	members [][]costMember
	built   []*costTree // every tree
	live    int         // trees built and not stale: they list changes
	noShare bool        // a shared tree met a cost of shareMax or more
}

// costSlots holds a service's trees: t[m] for origin m (MP), t[0] (SHM);
// nil until first needed. Services that share trees share their costSlots.
type costSlots struct {
	t      []*costTree
	shared bool // held by more than one service: the trees leave L out
}

// costTree is one tournament tree: node 1 is the root, node size+k the
// leaf of queue k; win is a node's winner (k, or -1 past the last queue),
// key its numerator (math.MaxInt64 for none).
type costTree struct {
	size int32
	win  []int32
	key  []int64
	// per leaf k: where its W(q) (e.queues) or C_m(q) (e.counters) is,
	// what its numerator adds to it (L·n, (L+N)·n; shared: 0, N·n), n
	at  []int32
	add []int64
	n   []int64
	mp  bool // at indexes e.counters, else e.queues
	// unit: every n is 1, so numerators compare as they are; shared: L
	// is left out, every numerator must stay below shareMax
	unit, shared bool
	// stale: the nodes are not kept (built before an MP counter reset,
	// never read, or out of budget): rebuild before use. A tree that is
	// not stale is live.
	stale bool
	// budget is how many more changes the tree lists before it goes stale;
	// each read sets it to costTreeBudget per leaf.
	budget int32
	// dirty lists the leaf nodes changed since the last read (a leaf
	// changed twice is listed twice)
	dirty []int32
}

// costMember says that queue q is leaf node i of tree t.
type costMember struct {
	t *costTree
	i int32
}

// costTreesSetup decides, after the candidates are known or have changed,
// which services read their least cost from trees and which share them,
// and drops the trees built for the candidates of before.
func (e *engine) costTreesSetup() {
	ct := &e.trees
	clear(ct.built) // the trees of before are unreachable once the services drop them
	ct.built = ct.built[:0]
	clear(ct.members)
	ct.live = 0
	e.shmTrees, e.mpTrees = false, false
	for s := range e.svc {
		e.svc[s].trees = nil
	}
	for _, sv := range e.routeSets {
		sv.trees = nil
	}
	if e.alg != algSHM && e.alg != algMP {
		return
	}
	slots := 1
	if e.alg == algMP {
		slots = len(e.m.Machines)
	}
	groups := map[string]*costSlots{}
	netOK := true // every N below shareMaxLoad (SHM: none)
	for _, n := range e.netFor {
		netOK = netOK && uint64(n) < shareMaxLoad
	}
	var b []byte
	setup := func(sv *svcInfo) {
		if len(sv.queues) < costTreeMin {
			return
		}
		share := !ct.noShare && netOK
		b = b[:0]
		for _, sq := range sv.queues {
			share = share && sq.load == sv.queues[0].load && uint64(sq.load) < shareMaxLoad && uint64(sq.n) < shareMaxN
			b = append(b, byte(sq.q), byte(sq.q>>8), byte(sq.q>>16), byte(sq.q>>24))
		}
		if share {
			if cs := groups[string(b)]; cs != nil {
				cs.shared = true
				sv.trees = cs
				return
			}
		}
		sv.trees = &costSlots{t: make([]*costTree, slots)}
		if share {
			groups[string(b)] = sv.trees
		}
	}
	for s := range e.svc {
		setup(&e.svc[s])
	}
	for _, sv := range e.routeSets {
		setup(sv)
	}
	if !e.anyTrees() {
		return
	}
	if ct.members == nil {
		ct.members = make([][]costMember, len(e.queues)*slots)
	}
	e.shmTrees, e.mpTrees = e.alg == algSHM, e.alg == algMP
}

// anyTrees reports whether some service reads its least cost from trees.
func (e *engine) anyTrees() bool {
	for s := range e.svc {
		if e.svc[s].trees != nil {
			return true
		}
	}
	for _, sv := range e.routeSets {
		if sv.trees != nil {
			return true
		}
	}
	return false
}

// leastTree returns the index into sv.queues of the least-cost queue, from
// sv's tree (for MP, that of origin m; m is -1 for SHM), building or
// repairing it first if needed.
func (e *engine) leastTree(sv *svcInfo, m int) int32 {
	cs := sv.trees
	t := cs.t[max(m, 0)]
	if t == nil {
		t = e.newTree(sv, m, cs.shared)
		cs.t[max(m, 0)] = t
	}
	if t.stale {
		if !e.buildTree(t) {
			return e.unshare(sv, m)
		}
		t.stale = false
		e.trees.live++
	} else if len(t.dirty) > 0 {
		if !e.repair(t) {
			return e.unshare(sv, m)
		}
	}
	t.budget = costTreeBudget * t.size
	return t.win[1]
}

// unshare drops every tree and shares none from now on, after a shared
// tree's numerator passed shareMax, and returns sv's least cost from a tree
// of its own.
func (e *engine) unshare(sv *svcInfo, m int) int32 {
	e.trees.noShare = true
	e.costTreesSetup()
	return e.leastTree(sv, m)
}

// newTree makes a stale tree for sv's queues (origin m), shared or not, and
// makes its leaves members of their queues'.
func (e *engine) newTree(sv *svcInfo, m int, shared bool) *costTree {
	size := int32(1)
	for int(size) < len(sv.queues) {
		size *= 2
	}
	n := len(sv.queues)
	t := &costTree{size: size, win: make([]int32, 2*size), key: make([]int64, 2*size),
		at: make([]int32, n), add: make([]int64, n), n: make([]int64, n),
		mp: m >= 0, unit: true, shared: shared, stale: true}
	e.trees.built = append(e.trees.built, t)
	base := 0
	if m >= 0 {
		base = m * len(e.queues)
	}
	for k := range sv.queues {
		sq := &sv.queues[k]
		i := base + int(sq.q)
		t.at[k], t.n[k] = int32(i), sq.n
		t.unit = t.unit && sq.n == 1
		load := sq.load
		if shared {
			load = 0
		}
		if m >= 0 {
			t.add[k] = (load + e.netFor[i]) * sq.n
		} else {
			t.add[k] = load * sq.n
		}
		e.trees.members[i] = append(e.trees.members[i], costMember{t: t, i: size + int32(k)})
	}
	for i := size + int32(n); i < 2*size; i++ {
		t.win[i], t.key[i] = -1, math.MaxInt64
	}
	return t
}

// cost returns leaf k's W(q) or C_m(q), and false if t is shared and it is
// not below shareMax.
func (e *engine) cost(t *costTree, k int32) (int64, bool) {
	var v int64
	if t.mp {
		v = e.counters[t.at[k]]
	} else {
		v = e.queues[t.at[k]].work
	}
	return v, !t.shared || uint64(v) < shareMax
}

// buildTree computes every node of t from its queues' costs now, and
// reports false if t is shared and a cost is not below shareMax.
func (e *engine) buildTree(t *costTree) bool {
	for k := range int32(len(t.at)) {
		v, ok := e.cost(t, k)
		if !ok {
			return false
		}
		t.win[t.size+k], t.key[t.size+k] = k, v+t.add[k]
	}
	for p := t.size - 1; p >= 1; p-- {
		t.node(p)
	}
	t.dirty = t.dirty[:0]
	return true
}

// repair gives the leaves listed in t.dirty their numerators now and
// computes the nodes above each again, up to the first that keeps its
// winner and numerator; it reports false if t is shared and a cost is not
// below shareMax.
func (e *engine) repair(t *costTree) bool {
	for _, i := range t.dirty {
		k := i - t.size
		v, ok := e.cost(t, k)
		if !ok {
			return false
		}
		if v += t.add[k]; v == t.key[i] {
			continue
		}
		t.key[i] = v
		for i > 1 && t.node(i>>1) {
			i >>= 1
		}
	}
	t.dirty = t.dirty[:0]
	return true
}

// node computes node p from its children, the right one only when strictly
// cheaper (the scan's test), and reports whether its winner or numerator
// changed.
func (t *costTree) node(p int32) bool {
	l, r := 2*p, 2*p+1
	w, v := t.win[l], t.key[l]
	if wr, vr := t.win[r], t.key[r]; wr >= 0 {
		// a numerator of a leaf past the last queue is math.MaxInt64, never
		// less; otherwise the exact fractions' test, lessFrac
		if t.unit && vr < v || !t.unit && lessFrac(vr, t.n[wr], v, t.n[w]) {
			w, v = wr, vr
		}
	}
	if t.win[p] == w && t.key[p] == v {
		return false
	}
	t.win[p], t.key[p] = w, v
	return true
}

// costChanged lists queue q's leaf as changed in the live trees it is a
// leaf of, after its W(q) changed (SHM, m = -1) or its C_m(q) (MP, origin
// m); a tree out of budget goes stale instead. Callers test shmTrees or
// trees.live first.
//
//go:noinline
func (e *engine) costChanged(q int32, m int) {
	ct := &e.trees
	if ct.live == 0 {
		return
	}
	if m >= 0 {
		q += int32(m * len(e.queues))
	}
	for _, mb := range ct.members[q] {
		t := mb.t
		if t.stale {
			continue
		}
		if t.budget--; t.budget < 0 {
			e.dropTree(t)
			continue
		}
		t.dirty = append(t.dirty, mb.i)
	}
}

// dropTree makes live tree t stale: it lists no more changes.
func (e *engine) dropTree(t *costTree) {
	t.dirty = t.dirty[:0]
	t.stale = true
	e.trees.live--
}

// staleTrees makes every tree stale after the MP counters were reset.
func (e *engine) staleTrees() {
	for _, t := range e.trees.built {
		if !t.stale {
			e.dropTree(t)
		}
	}
}
