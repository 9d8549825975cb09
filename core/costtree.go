package core

import "github.com/tuxlb/tuxlb/core/internal/costtree"

// Tuxedo's least-cost rule, for a service with many candidate queues, is
// read from tournament trees (core/internal/costtree) instead of a scan,
// from costTreeMin queues up: a tree's leaves are the service's
// candidate queues (svcInfo.queues, in scan order), their costs W(q) (SHM,
// e.queues[q].work) or C_m(q) (MP from origin m, e.counters), and each
// leaf adds L·n (SHM) or (L+N)·n (MP) to its cost: the scan's fractions.
//
// Services with the same candidate queues, in the same order, each with
// one LOAD for all of them, share their trees, which leave L out (it is
// the same for every queue), within the bounds costtree states; a shared
// tree that meets a cost of costtree.ShareMax or more is dropped and no
// tree is shared from then on (unshare).
//
// Trees are built when first needed (a service's first request that finds no
// idle server; for MP, per origin machine), so a model of many services and
// machines pays only for those that queue. A change of the candidates
// (rebuildCandidates) drops every tree; an MP counter reset makes them stale.

// costTreeMin is the number of candidate queues from which a service's
// least cost is read from a tree. A variable for the tests, which set it to
// 1 to check that trees and scans choose alike.
var costTreeMin = 64

// costSlots holds a service's trees: t[m] for origin m (MP), t[0] (SHM);
// nil until first needed. Services that share trees share their costSlots.
type costSlots struct {
	t      []*costtree.Tree
	shared bool // held by more than one service: the trees leave L out
}

// costTreesSetup decides, after the candidates are known or have changed,
// which services read their least cost from trees and which share them,
// and drops the trees built for the candidates of before.
func (e *engine) costTreesSetup() {
	e.shmTrees, e.mpTrees = false, false
	for s := range e.svc {
		e.svc[s].trees = nil
	}
	for _, sv := range e.routeSets {
		sv.trees = nil
	}
	if e.alg != algSHM && e.alg != algMP {
		e.trees.Reset(0)
		return
	}
	slots := 1
	if e.alg == algMP {
		slots = len(e.m.Machines)
	}
	groups := map[string]*costSlots{}
	netOK := true // every N below ShareMaxLoad (SHM: none)
	for _, n := range e.netFor {
		netOK = netOK && uint64(n) < costtree.ShareMaxLoad
	}
	var b []byte
	any := false
	setup := func(sv *svcInfo) {
		if len(sv.queues) < costTreeMin {
			return
		}
		any = true
		share := !e.trees.NoShare && netOK
		b = b[:0]
		for _, sq := range sv.queues {
			share = share && sq.load == sv.queues[0].load && uint64(sq.load) < costtree.ShareMaxLoad && uint64(sq.n) < costtree.ShareMaxN
			b = append(b, byte(sq.q), byte(sq.q>>8), byte(sq.q>>16), byte(sq.q>>24))
		}
		if share {
			if cs := groups[string(b)]; cs != nil {
				cs.shared = true
				sv.trees = cs
				return
			}
		}
		sv.trees = &costSlots{t: make([]*costtree.Tree, slots)}
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
	if !any {
		e.trees.Reset(0)
		return
	}
	e.trees.Reset(len(e.queues) * slots)
	e.shmTrees, e.mpTrees = e.alg == algSHM, e.alg == algMP
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
	cost := e.workCost
	if m >= 0 {
		cost = e.counterCost
	}
	k, ok := e.trees.Least(t, cost)
	if !ok {
		// a shared tree met a cost of ShareMax or more: share none from
		// now on, and read sv's least cost from a tree of its own
		e.trees.NoShare = true
		e.costTreesSetup()
		return e.leastTree(sv, m)
	}
	return k
}

// workCost and counterCost are the costs the trees read: W(q), and C_m(q)
// at m·len(queues)+q.
func (e *engine) workCost(q int32) int64    { return e.queues[q].work }
func (e *engine) counterCost(i int32) int64 { return e.counters[i] }

// newTree makes a stale tree for sv's queues (origin m), shared or not.
func (e *engine) newTree(sv *svcInfo, m int, shared bool) *costtree.Tree {
	leaves := make([]costtree.Leaf, len(sv.queues))
	base := 0
	if m >= 0 {
		base = m * len(e.queues)
	}
	for k := range sv.queues {
		sq := &sv.queues[k]
		i := base + int(sq.q)
		load := sq.load
		if shared {
			load = 0
		}
		if m >= 0 {
			load += e.netFor[i]
		}
		leaves[k] = costtree.Leaf{At: int32(i), Add: load * sq.n, N: sq.n}
	}
	return e.trees.New(leaves, shared)
}

// costChanged lists queue q's leaf as changed in the live trees it is a
// leaf of, after its W(q) changed (SHM, m = -1) or its C_m(q) (MP, origin
// m). Callers test shmTrees or trees.Live first.
//
//go:noinline
func (e *engine) costChanged(q int32, m int) {
	if e.trees.Live() == 0 {
		return
	}
	if m >= 0 {
		q += int32(m * len(e.queues))
	}
	e.trees.Changed(q)
}
