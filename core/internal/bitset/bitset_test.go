package bitset

import (
	"math/rand/v2"
	"testing"
)

// TestFirstCommon: over sets of 1 to 5 000 bits, sparse and dense, the
// first bit set in both is the one testing every bit in order finds, with
// summaries (FirstCommonSum, through FirstCommonOf) and without
// (FirstCommon); -1 when they have none in common.
func TestFirstCommon(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	none := 0
	for round := range 2000 {
		n := 1 + r.IntN(5000)
		words := (n + 63) / 64
		a, b := make([]uint64, words), make([]uint64, words)
		pa, pb := r.IntN(1000), r.IntN(1000) // per mille
		if round%2 == 0 {
			pa, pb = r.IntN(8), r.IntN(8) // sparse: most words empty
		}
		for i := range n {
			if r.IntN(1000) < pa {
				a[i/64] |= 1 << (i % 64)
			}
			if r.IntN(1000) < pb {
				b[i/64] |= 1 << (i % 64)
			}
		}
		want := int32(-1)
		for i := range n {
			if a[i/64]&b[i/64]&(1<<(i%64)) != 0 {
				want = int32(i)
				break
			}
		}
		if want < 0 {
			none++
		}
		aSum, bSum := make([]uint64, (words+63)/64), make([]uint64, (words+63)/64)
		Summarise(aSum, a)
		Summarise(bSum, b)
		if got := FirstCommon(a, b); got != want {
			t.Fatalf("round %d (%d bits): FirstCommon = %d, want %d", round, n, got, want)
		}
		if got := FirstCommonOf(a, aSum, b, bSum); got != want {
			t.Fatalf("round %d (%d bits): through the summaries = %d, want %d", round, n, got, want)
		}
		for w := range words {
			if got := aSum[w/64]>>(w%64)&1 == 1; got != (a[w] != 0) {
				t.Fatalf("round %d: summary bit %d is %v, word %d is %#x", round, w, got, w, a[w])
			}
		}
	}
	if none == 0 {
		t.Error("no round had sets without a common bit")
	}
}
