package core

import "math/rand/v2"

// rng is the only source of randomness in core: a PCG generator seeded
// explicitly, so a run is reproducible everywhere. Derive independent streams
// with different stream numbers rather than sharing one generator.
type rng struct {
	pcg rand.PCG
}

// newRng returns a generator for (seed, stream).
func newRng(seed, stream uint64) *rng {
	r := &rng{}
	r.Seed(seed, stream)
	return r
}

// Seed resets r to the state NewRand(seed, stream) would have.
func (r *rng) Seed(seed, stream uint64) {
	r.pcg.Seed(seed, stream^0x9e3779b97f4a7c15)
}

// Uint64 returns a uniformly distributed 64-bit value.
func (r *rng) Uint64() uint64 { return r.pcg.Uint64() }

// Float64 returns a uniform value in [0, 1) with 53 random bits.
func (r *rng) Float64() float64 { return float64(r.pcg.Uint64()>>11) / (1 << 53) }

// IntN returns a uniform value in [0, n) without modulo bias. n must be > 0.
func (r *rng) IntN(n int) int {
	// Lemire's multiply-and-reject; deterministic on every platform.
	un := uint64(n)
	for {
		x := r.pcg.Uint64()
		hi, lo := mul64(x, un)
		if lo >= un || lo >= (-un)%un {
			return int(hi)
		}
	}
}

func mul64(x, y uint64) (hi, lo uint64) {
	const mask32 = 1<<32 - 1
	x0, x1 := x&mask32, x>>32
	y0, y1 := y&mask32, y>>32
	w0 := x0 * y0
	t := x1*y0 + w0>>32
	w1, w2 := t&mask32, t>>32
	w1 += x0 * y1
	return x1*y1 + w2 + w1>>32, x * y
}
