package dlring

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/evq"
)

// Rings against plain slices: 40 members enter three rings (one at a time,
// or a sorted batch with Add) and leave them in random order, 20 000 steps;
// after each, every ring lists its members in the order they entered, its
// first what First says, and Linked tells the members in one.
func TestRingsAsSlices(t *testing.T) {
	const n, rings = 40, 3
	r := New(n, rings)
	want := make([][]int32, rings)
	in := make([]int, n) // 1 + the member's ring, 0 for none
	rnd := rand.New(rand.NewPCG(3, 4))
	for step := 0; step < 20_000; step++ {
		switch g := int32(rnd.IntN(n)); {
		case in[g] > 0:
			r.Out(g)
			k := in[g] - 1
			want[k] = slices.DeleteFunc(want[k], func(x int32) bool { return x == g })
			in[g] = 0
		case rnd.IntN(4) == 0: // a batch of the members in no ring, in a random order of keys
			k := rnd.IntN(rings)
			var keys []evq.Event
			for h := range int32(n) {
				if in[h] == 0 && rnd.IntN(2) == 0 {
					keys = append(keys, evq.Key(rnd.Int64N(1000), h))
				}
			}
			sorted := slices.Clone(keys)
			slices.Sort(sorted)
			r.Add(k, keys)
			for _, key := range sorted {
				want[k] = append(want[k], key.Idx())
				in[key.Idx()] = k + 1
			}
		default:
			k := rnd.IntN(rings)
			if first := r.In(k, g); first != (len(want[k]) == 0) {
				t.Fatalf("step %d: In(%d, %d) first %v with %d in the ring", step, k, g, first, len(want[k]))
			}
			want[k] = append(want[k], g)
			in[g] = k + 1
		}
		for k := range rings {
			var got []int32
			for g := r.First(k); g >= 0; g = r.Next(g) {
				if got = append(got, g); len(got) > n {
					t.Fatalf("step %d: ring %d does not close", step, k)
				}
			}
			if !slices.Equal(got, want[k]) {
				t.Fatalf("step %d: ring %d holds %v, want %v", step, k, got, want[k])
			}
		}
		for g := range int32(n) {
			if r.Linked(g) != (in[g] > 0) {
				t.Fatalf("step %d: Linked(%d) %v", step, g, r.Linked(g))
			}
		}
	}
}
