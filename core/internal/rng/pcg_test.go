package rng

import (
	"math/rand/v2"
	"testing"
)

// TestRngIsPCG checks that PCG draws exactly the bits of math/rand/v2's PCG
// seeded with (seed, stream^0x9e3779b97f4a7c15), on many seeds and streams
// (edge values among them, so that every carry of the 128-bit step happens)
// and many draws each.
func TestRngIsPCG(t *testing.T) {
	edges := []uint64{0, 1, 2, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, 1<<64 - 1,
		0x9e3779b97f4a7c15, 0x9e3779b97f4a7c15 ^ (1<<64 - 1), 1442695040888963407,
		1<<64 - 1442695040888963407, 1<<64 - 1442695040888963407 - 1}
	seeds := append([]uint64(nil), edges...)
	src := rand.NewPCG(20261130, 7)
	for len(seeds) < 300 {
		seeds = append(seeds, src.Uint64())
	}
	draws := 0
	for i, seed := range seeds {
		for j, stream := range seeds[:40] {
			var r PCG
			r.Seed(seed, stream)
			want := rand.NewPCG(seed, stream^0x9e3779b97f4a7c15)
			n := 20
			if i < 10 && j < 10 {
				n = 20000
			}
			for k := 0; k < n; k++ {
				if got, w := r.Uint64(), want.Uint64(); got != w {
					t.Fatalf("seed %#x stream %#x draw %d: got %#x, want %#x", seed, stream, k, got, w)
				}
				draws++
			}
		}
	}
	if draws < 300000 {
		t.Fatalf("only %d draws compared", draws)
	}
}
