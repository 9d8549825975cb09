// Package mergetree is the winner tree that merges a workload's sources by
// time: leaf k holds source k's next time, and each inner node the smallest
// key of its subtree, that is the earliest leaf, ties going to the lower
// leaf (rank). A match is one unsigned min of two packed keys (no branch),
// and a new time for the winner replays the one path from its leaf to the
// root: log2(leaves) matches, always the same number. (A binary heap's
// sift-down costs two comparisons of two fields a level and stops early, at
// a point the processor mispredicts.)
package mergetree

// A tree's keys pack a leaf's next time above the leaf's number:
// t<<leafBits | leaf. Times are below 2^40 (the engine's are at most
// 10^12 µs), so 24 bits are left for the leaf.
const (
	leafBits = 24
	leafMask = 1<<leafBits - 1
	// MaxLeaves is the most leaves a tree may have.
	MaxLeaves = leafMask + 1
	// NoMore is the time of a leaf whose source has ended: later than any
	// time, and its key (with any leaf) still fits in 64 bits.
	NoMore = int64(1)<<(64-leafBits) - 1
)

// Tree is a winner tree over up to MaxLeaves sources.
type Tree struct {
	nodes []uint64 // nodes[1] is the root, node i has children 2i and 2i+1, leaf k is nodes[half+k]
	half  int      // the number of leaves: a power of 2
}

// New builds the tree of leaves with the given times (at most MaxLeaves of
// them, each below 2^40 or NoMore); the leaves that pad it to a power of 2
// hold NoMore.
func New(times []int64) Tree {
	half := 1
	for half < len(times) {
		half *= 2
	}
	m := Tree{nodes: make([]uint64, 2*half), half: half}
	for k := range half {
		t := NoMore
		if k < len(times) {
			t = times[k]
		}
		m.nodes[half+k] = uint64(t)<<leafBits | uint64(k)
	}
	for i := half - 1; i > 0; i-- {
		m.nodes[i] = min(m.nodes[2*i], m.nodes[2*i+1])
	}
	return m
}

// Top returns the earliest leaf's time (NoMore when all have ended) and the leaf.
func (m *Tree) Top() (int64, int) {
	x := m.nodes[1]
	return int64(x >> leafBits), int(x & leafMask)
}

// Set gives leaf k the time t and replays its path to the root.
func (m *Tree) Set(k int, t int64) {
	nodes := m.nodes             // a local slice: the stores cannot change it, no reload
	mask := uint(len(nodes) - 1) // i&mask == i (the length is a power of 2): the compiler drops the bounds checks
	i := uint(m.half + k)
	w := uint64(t)<<leafBits | uint64(k)
	nodes[i] = w
	for i > 1 {
		w = min(w, nodes[(i^1)&mask])
		i >>= 1
		nodes[i&mask] = w
	}
}
