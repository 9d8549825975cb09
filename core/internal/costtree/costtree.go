// Package costtree keeps the tournament trees from which the engine reads
// Tuxedo's least-cost rule for a service with many candidate queues,
// instead of scanning them ([Forest], [Tree]).
//
// A tree's leaves are one service's candidate queues, in scan order; each
// inner node holds the cheapest of its four children's winners, the first
// on a tie, so the root is what the scan finds: the least cost, ties to the
// first in scan order. A leaf's cost is a fraction, numerator over n, and
// fractions are compared exactly ([LessFrac]); a node keeps its winner's
// numerator. A leaf's numerator is a cost the engine keeps (W(q) for SHM,
// C_m(q) for MP: the leaf's [Leaf.At] names which) plus what the leaf adds
// to it ([Leaf.Add]: L·n, or (L+N)·n).
//
// The trees are lazy. Most requests find an idle server and never read
// them, so a change of a cost only lists its leaves as changed in the trees
// they are in ([Forest.Changed]); a tree is repaired when it is next read
// ([Forest.Least]): each listed leaf takes its new numerator and the nodes
// above it are computed again, up to the first that keeps its winner and
// numerator. A tree is always the function of its leaves' numerators that
// an update at every change would have kept, so the root, the choice, is
// the same. A tree that is not read for a while stops listing changes (it
// goes stale, after [Budget] changes a leaf) and is rebuilt in full when
// next read; a model whose requests all find an idle server then pays one
// test per change ([Forest.Live]).
//
// A shared tree serves services with the same candidate queues, in the
// same order, each with one LOAD for all of them: L is the same for every
// queue, so it drops out of the comparison and the leaves add 0 (SHM) or
// N·n (MP). That is exact while no product overflows: the engine shares
// trees only with n, LOAD and N below [ShareMaxN] and [ShareMaxLoad], and
// the costs a shared tree reads must stay below [ShareMax]; when one does
// not, [Forest.Least] says so and the engine stops sharing.
package costtree

import "math"

// LessFrac reports whether a/b < c/d for positive b and d, exactly: the
// least-cost rule's comparison of two costs.
func LessFrac(a, b, c, d int64) bool { return a*d < c*b }

// Budget is, per leaf, how many changes a tree lists between two reads
// before it goes stale: listing a change costs a few instructions, a
// rebuild about as many per leaf as a listing, so a tree no longer read
// costs at most a few rebuilds' worth before it stops listing.
const Budget = 4

// ShareMax, ShareMaxN and ShareMaxLoad bound a shared tree's costs, its
// n, and L and N: then no product of the comparison, shared or per service,
// reaches 2^52 (of 2^63), so both order the queues alike. UBBCONFIG's LOAD
// and NETLOAD are at most 32 767.
const (
	ShareMax     = 1 << 40
	ShareMaxN    = 1 << 10
	ShareMaxLoad = 1 << 16
)

// Leaf is one candidate queue of a tree: At names its cost (an index the
// engine's cost function reads), Add is what its numerator adds to that
// cost, N its number of servers (at most a model's 10 000 instances: it
// fits the int32 a node keeps it in).
type Leaf struct {
	At     int32
	Add, N int64
}

// Forest is every tree of one engine, and which leaves each cost is.
type Forest struct {
	// first[at] is the first leaf whose cost is at (none: its t is nil),
	// more[at] the others: most costs are one tree's leaf, so a change of
	// one reads one 16-byte entry (a list a cost was an allocation of its
	// own, another cache line at every change in a model of thousands)
	first []member
	more  [][]member
	built []*Tree // every tree
	live  int     // trees built and not stale: they list changes
	// NoShare is set once a shared tree met a cost of ShareMax or more:
	// the engine shares no tree from then on
	NoShare bool
}

// node is a tree node: its winner (a leaf k, or -1 past the last leaf),
// the winner's numerator (math.MaxInt64 for none) and its n, so that two
// nodes compare without a look at their leaves.
type node struct {
	key int64
	win int32
	n   int32
}

// quad is a node's four children: 64 bytes, one cache line (the nodes of a
// tree of thousands of queues are page aligned).
type quad [4]node

// leaf is a leaf's cost index and what its numerator adds to the cost.
type leaf struct {
	add int64
	at  int32
}

// member says that leaf node i of tree t reads the cost it is listed under.
type member struct {
	t    *Tree
	i    int32
	more int32 // in first: how many leaves more lists
}

// Tree is one tournament tree of four-way nodes: 1 is the root, node p's
// children are 4p-2 to 4p+1 (its parent (i+2)/4), base+k is the leaf k. A
// node's winner, numerator and n sit together, and the four children of
// node p side by side as nd[p], so that a step up the tree reads one cache
// line (a model of thousands of queues does not keep its trees in the
// first-level cache) and a tree of 4 096 leaves is six steps deep.
type Tree struct {
	base int32  // the first leaf's node (the leaf slots are a power of 4)
	nd   []quad // nd[p]: node p's children; node i is nd[(i+2)>>2][(i+2)&3] (Tree.node)
	lf   []leaf // per leaf k
	// unit: every n is 1, so numerators compare as they are; shared: every
	// cost must stay below ShareMax
	unit, shared bool
	// stale: the nodes are not kept (never read, out of budget, or made
	// stale by the engine): rebuild before use. A tree that is not stale is
	// live.
	stale bool
	// budget is how many more changes the tree lists before it goes stale;
	// each read sets it to Budget per leaf.
	budget int32
	// dirty lists the leaf nodes changed since the last read (a leaf
	// changed twice is listed twice)
	dirty []int32
}

// Reset drops every tree and makes room for costs 0 to n-1.
func (f *Forest) Reset(n int) {
	clear(f.built) // unreachable once the engine drops them
	f.built = f.built[:0]
	clear(f.first)
	clear(f.more)
	if cap(f.first) < n {
		f.first, f.more = make([]member, n), make([][]member, n)
	}
	f.first, f.more = f.first[:n], f.more[:n]
	f.live = 0
}

// Live is how many trees list changes: 0 when none is built or every one
// is stale, and then a change need not be reported.
func (f *Forest) Live() int { return f.live }

// New makes a stale tree of the given leaves, shared or not.
func (f *Forest) New(leaves []Leaf, shared bool) *Tree {
	size := int32(1)
	for int(size) < len(leaves) {
		size *= 4
	}
	n := len(leaves)
	base := (size-1)/3 + 1 // the nodes above the leaves number (size-1)/3
	t := &Tree{base: base, nd: make([]quad, base), lf: make([]leaf, n),
		unit: true, shared: shared, stale: true}
	f.built = append(f.built, t)
	for k, l := range leaves {
		t.lf[k] = leaf{add: l.Add, at: l.At}
		t.node(int(base) + k).n = int32(l.N)
		t.unit = t.unit && l.N == 1
		mb := member{t: t, i: base + int32(k)}
		if first := &f.first[l.At]; first.t == nil {
			*first = mb
		} else {
			f.more[l.At] = append(f.more[l.At], mb)
			first.more++
		}
	}
	for i := int(base) + n; i < int(base+size); i++ {
		*t.node(i) = node{key: math.MaxInt64, win: -1}
	}
	return t
}

// Least returns the leaf of least cost in t, reading each cost it needs
// through cost, after building or repairing t; it reports false, and
// changes nothing the engine reads, if t is shared and a cost is not below
// ShareMax.
func (f *Forest) Least(t *Tree, cost func(at int32) int64) (int32, bool) {
	if t.stale {
		if !t.build(cost) {
			return 0, false
		}
		t.stale = false
		f.live++
	} else if len(t.dirty) > 0 {
		if !t.repair(cost) {
			return 0, false
		}
	}
	t.budget = Budget * int32(len(t.lf))
	return t.node(1).win, true
}

// build computes every node of t from its costs now, and reports false if
// t is shared and a cost is not below ShareMax.
func (t *Tree) build(cost func(int32) int64) bool {
	for k := range int32(len(t.lf)) {
		lf := &t.lf[k]
		v := cost(lf.at)
		if t.shared && uint64(v) >= ShareMax {
			return false
		}
		nd := t.node(int(t.base + k))
		nd.key, nd.win = v+lf.add, k
	}
	for p := int(t.base) - 1; p >= 1; p-- {
		*t.node(p) = winner(&t.nd[p], t.unit)
	}
	t.dirty = t.dirty[:0]
	return true
}

// repair gives the leaves listed in t.dirty their numerators now and
// computes the nodes above each again, up to the first that keeps its
// winner and numerator; it reports false if t is shared and a cost is not
// below ShareMax. (A leaf of a tree of thousands of queues climbs six
// levels, each a node's four children read as one line and compared, with
// no call.)
func (t *Tree) repair(cost func(int32) int64) bool {
	nd, unit := t.nd, t.unit
	for _, leaf := range t.dirty {
		lf := &t.lf[leaf-t.base]
		v := cost(lf.at)
		if t.shared && uint64(v) >= ShareMax {
			return false
		}
		i := int(leaf)
		x := &nd[(i+2)>>2][(i+2)&3]
		if v += lf.add; v == x.key {
			continue
		}
		x.key = v
		for p := (i + 2) >> 2; p >= 1; p = (p + 2) >> 2 {
			w := winner(&nd[p], unit)
			q := &nd[(p+2)>>2][(p+2)&3]
			if q.win == w.win && q.key == w.key { // then its n too
				break
			}
			*q = w
		}
	}
	t.dirty = t.dirty[:0]
	return true
}

// node returns node i.
func (t *Tree) node(i int) *node { return &t.nd[(i+2)>>2][(i+2)&3] }

// winner is what the node whose children are c holds: the first of least
// cost, a later one only when strictly cheaper (the scan's test). unit is
// the tree's.
func winner(c *quad, unit bool) node {
	w := c[0]
	w = cheaper(w, c[1], unit)
	w = cheaper(w, c[2], unit)
	return cheaper(w, c[3], unit)
}

// cheaper returns b if it is strictly cheaper than a, else a. A node past
// the last leaf (numerator math.MaxInt64) is never cheaper, and follows
// only such nodes.
func cheaper(a, b node, unit bool) node {
	if b.win >= 0 && (unit && b.key < a.key || !unit && LessFrac(b.key, int64(b.n), a.key, int64(a.n))) {
		return b
	}
	return a
}

// Changed lists the leaves of cost at as changed in the live trees they
// are in; a tree out of budget goes stale instead. Callers test Live
// first.
func (f *Forest) Changed(at int32) {
	if first := &f.first[at]; first.t != nil {
		f.change(first.t, first.i)
		if first.more > 0 {
			for _, mb := range f.more[at] {
				f.change(mb.t, mb.i)
			}
		}
	}
}

// change lists leaf node i of t as changed, if t is live.
func (f *Forest) change(t *Tree, i int32) {
	if t.stale {
		return
	}
	if t.budget--; t.budget < 0 {
		f.drop(t)
		return
	}
	t.dirty = append(t.dirty, i)
}

// drop makes live tree t stale: it lists no more changes.
func (f *Forest) drop(t *Tree) {
	t.dirty = t.dirty[:0]
	t.stale = true
	f.live--
}

// StaleAll makes every tree stale (the engine's costs were reset).
func (f *Forest) StaleAll() {
	for _, t := range f.built {
		if !t.stale {
			f.drop(t)
		}
	}
}

// Stale reports whether t is stale.
func (t *Tree) Stale() bool { return t.stale }

// Listed is how many changes t lists for its next read.
func (t *Tree) Listed() int { return len(t.dirty) }
