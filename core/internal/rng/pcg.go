// Package rng is the only source of randomness of the engine: a PCG
// generator seeded explicitly, so a run is reproducible everywhere, and the
// draws the engine makes from it (uniform, bounded, exponential). Derive
// independent streams with different stream numbers rather than sharing one
// generator.
package rng

import "math/bits"

// PCG is math/rand/v2's PCG (128-bit LCG state, DXSM output), written out
// here so that a draw is one short function the compiler inlines: in
// WebAssembly, where bits.Mul64 is plain Go rather than an instruction,
// rand.PCG's Uint64 and next exceed the inlining budget and cost two calls a
// draw. Only its carry step, addIncLo, is written per architecture
// (pcg_wasm.go, pcg_other.go). TestRngIsPCG checks it gives rand.PCG's bits.
// A PCG is a value: a struct may hold one and seed it in place ([PCG.Seed]).
type PCG struct {
	hi, lo uint64
}

// New returns a generator for (seed, stream).
func New(seed, stream uint64) *PCG {
	r := &PCG{}
	r.Seed(seed, stream)
	return r
}

// Seed resets r to the state rand.NewPCG(seed, stream^0x9e3779b97f4a7c15)
// has.
func (r *PCG) Seed(seed, stream uint64) {
	r.hi, r.lo = seed, stream^0x9e3779b97f4a7c15
}

// Uint64 returns a uniformly distributed 64-bit value: rand.PCG's Uint64.
func (r *PCG) Uint64() uint64 {
	const (
		mulHi    = 2549297995355413924
		mulLo    = 4865540595714422341
		incHi    = 6364136223846793005
		cheapMul = 0xda942042e4dd58b5
	)
	// state = state*mul + inc, modulo 2^128
	hi, lo := bits.Mul64(r.lo, mulLo)
	lo, c := addIncLo(lo)
	hi += r.hi*mulLo + r.lo*mulHi + incHi + c
	r.hi, r.lo = hi, lo
	// DXSM output
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// Float64 returns a uniform value in [0, 1) with 53 random bits.
func (r *PCG) Float64() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// IntN returns a uniform value in [0, n) without modulo bias. n must be > 0.
func (r *PCG) IntN(n int) int {
	// Lemire's multiply-and-reject; deterministic on every platform.
	un := uint64(n)
	for {
		x := r.Uint64()
		hi, lo := bits.Mul64(x, un)
		if lo >= un || lo >= (-un)%un {
			return int(hi)
		}
	}
}

// incLo is the low word of the PCG increment.
const incLo = 1442695040888963407
