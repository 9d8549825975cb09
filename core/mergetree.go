package core

// noMore is the time of a merge-tree leaf whose source has ended: later than
// any request's (times are at most MaxTimeUS), with room to add 1.
const noMore = int64(1) << 62

// mergeTree is a winner tree over a workload's sources: leaf k holds source
// k's next time, and each inner node the earliest leaf of its subtree, ties
// going to the left subtree, that is to the lower rank. A new time for the
// winner replays the one path from its leaf to the root: log2(leaves)
// matches of one comparison each, always the same number, with no
// data-dependent branch. (A binary heap's sift-down costs two comparisons a
// level and stops early, at a point the processor mispredicts.)
type mergeTree struct {
	nodes []treeNode // nodes[1] is the root, node i has children 2i and 2i+1, leaf k is nodes[half+k]
	half  int        // the number of leaves: a power of 2
}

// treeNode is a match's winner: a leaf and its time.
type treeNode struct {
	t    int64
	leaf int
}

// newMergeTree builds the tree of leaves with the given times; the leaves
// that pad it to a power of 2 hold noMore.
func newMergeTree(times []int64) mergeTree {
	half := 1
	for half < len(times) {
		half *= 2
	}
	m := mergeTree{nodes: make([]treeNode, 2*half), half: half}
	for k := range half {
		t := noMore
		if k < len(times) {
			t = times[k]
		}
		m.nodes[half+k] = treeNode{t: t, leaf: k}
	}
	for i := half - 1; i > 0; i-- {
		l, r := m.nodes[2*i], m.nodes[2*i+1]
		if r.t < l.t {
			l = r
		}
		m.nodes[i] = l
	}
	return m
}

// top returns the earliest leaf and its time (noMore when all have ended).
func (m *mergeTree) top() treeNode { return m.nodes[1] }

// set gives leaf k the time t and replays its path to the root.
func (m *mergeTree) set(k int, t int64) {
	nodes := m.nodes // a local slice: the stores cannot change it, no reload
	i := m.half + k
	w := treeNode{t: t, leaf: k}
	nodes[i] = w
	for i > 1 {
		// The sibling wins when earlier, or as early and on the left (i odd:
		// w comes from the right child).
		if s := nodes[i^1]; s.t < w.t+int64(i&1) {
			w = s
		}
		i >>= 1
		nodes[i] = w
	}
}
