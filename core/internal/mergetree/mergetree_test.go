package mergetree

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// maxTime is the engine's largest time, 10^12 µs (core.MaxTimeUS).
const maxTime = 1_000_000_000_000

// TestMergeTreeOrderRandom plays random sorted lists of times, one per leaf,
// through the winner tree and compares the order with a plain
// reference: every entry sorted by time, then leaf, then position in its list.
func TestMergeTreeOrderRandom(t *testing.T) {
	type entry struct {
		t    int64
		leaf int
		pos  int
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 300 {
		nleaf := 1 + rng.IntN(12)
		span := int64(1 + rng.IntN(50)) // small spans make many ties
		if trial%10 == 0 {
			span = maxTime // the largest times
		}
		lists := make([][]int64, nleaf)
		var want []entry
		first := make([]int64, nleaf)
		for k := range lists {
			n := rng.IntN(40) // some leaves are empty, some end early
			for range n {
				lists[k] = append(lists[k], maxTime-rng.Int64N(span))
			}
			slices.Sort(lists[k])
			for j, v := range lists[k] {
				want = append(want, entry{v, k, j})
			}
			first[k] = NoMore
			if n > 0 {
				first[k] = lists[k][0]
			}
		}
		// concatenated in leaf order, a stable sort by time is the reference
		slices.SortStableFunc(want, func(a, b entry) int { return int(a.t - b.t) })
		tr := New(first)
		pos := make([]int, nleaf)
		for i, w := range want {
			at, leaf := tr.Top()
			got := entry{at, leaf, pos[leaf]}
			if got != w {
				t.Fatalf("trial %d, entry %d: got %+v, want %+v", trial, i, got, w)
			}
			next := NoMore
			if pos[leaf]++; pos[leaf] < len(lists[leaf]) {
				next = lists[leaf][pos[leaf]]
			}
			tr.Set(leaf, next)
		}
		if at, leaf := tr.Top(); at != NoMore {
			t.Fatalf("trial %d: got leaf %d at %d after the last of %d entries, want the end", trial, leaf, at, len(want))
		}
	}
}
