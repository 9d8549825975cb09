package costtree

import (
	"math/rand/v2"
	"testing"
)

// scan is the least-cost scan the trees stand for: the first leaf of least
// (cost + Add) / N.
func scan(leaves []Leaf, cost []int64) int32 {
	best := 0
	for k := 1; k < len(leaves); k++ {
		a, b := cost[leaves[k].At]+leaves[k].Add, cost[leaves[best].At]+leaves[best].Add
		if LessFrac(a, leaves[k].N, b, leaves[best].N) {
			best = k
		}
	}
	return int32(best)
}

// TestLeastAsScan: two trees over overlapping costs answer as the scan
// does after any sequence of changes, read after every change or so seldom
// that they go stale, and across StaleAll.
func TestLeastAsScan(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 7, 16, 17, 41, 64} {
		r := rand.New(rand.NewPCG(uint64(n), 7))
		cost := make([]int64, n)
		var f Forest
		f.Reset(n)
		var sets [2][]Leaf
		for s := range sets {
			for _, at := range r.Perm(n) {
				nn := int64(1 + r.IntN(3*s+1)) // the first tree has every N 1
				sets[s] = append(sets[s], Leaf{At: int32(at), Add: 10 * nn, N: nn})
			}
		}
		trees := [2]*Tree{f.New(sets[0], false), f.New(sets[1], false)}
		wentStale := false
		for step := range 6000 {
			readEvery := []int{1, 3, 40 * n}[step/1000%3]
			switch s := r.IntN(2); {
			case r.IntN(readEvery) == 0:
				got, ok := f.Least(trees[s], func(at int32) int64 { return cost[at] })
				if want := scan(sets[s], cost); !ok || got != want {
					t.Fatalf("%d leaves, step %d, tree %d: %d (%v), scan %d", n, step, s, got, ok, want)
				}
			case r.IntN(500) == 0:
				f.StaleAll()
				if f.Live() != 0 {
					t.Fatalf("%d live trees after StaleAll", f.Live())
				}
			default:
				at := int32(r.IntN(n))
				cost[at] = int64(10 * r.IntN(4))
				live := f.Live()
				if live > 0 {
					f.Changed(at)
				}
				wentStale = wentStale || f.Live() < live
			}
		}
		if !wentStale {
			t.Errorf("%d leaves: no tree ran out of budget", n)
		}
	}
}

// TestSharedTreeBound: a shared tree that reads a cost of ShareMax or more
// reports it rather than answering; one not shared answers.
func TestSharedTreeBound(t *testing.T) {
	cost := []int64{5, ShareMax, 3}
	leaves := []Leaf{{At: 0, N: 1}, {At: 1, N: 1}, {At: 2, N: 1}}
	var f Forest
	f.Reset(len(cost))
	read := func(at int32) int64 { return cost[at] }
	if _, ok := f.Least(f.New(leaves, true), read); ok {
		t.Error("a shared tree answered over a cost of ShareMax")
	}
	if k, ok := f.Least(f.New(leaves, false), read); !ok || k != 2 {
		t.Errorf("a tree of its own: leaf %d (%v), want 2", k, ok)
	}
}
