package usec

import (
	"math"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/rng"
)

// TestRoundIsMathRound: Round, which rounds by truncating and testing the
// remainder, gives what math.Round gives (halves away from zero) on every
// edge: around each half and whole number from 0 to 4096 and around 2^k for
// every k up to the cap (one and two units in the last place either side),
// denormals, the cap itself, and 2 M random values across the exponents.
func TestRoundIsMathRound(t *testing.T) {
	t.Parallel()
	want := func(x float64) int64 {
		if !(x > 0) {
			return 0
		}
		if x >= math.MaxInt64/2 {
			return math.MaxInt64 / 2
		}
		return int64(math.Round(x))
	}
	check := func(x float64) {
		if got, w := Round(x), want(x); got != w {
			t.Fatalf("Round(%v) = %d, want %d", x, got, w)
		}
	}
	around := func(x float64) {
		lo, hi := x, x
		for range 3 {
			check(lo)
			check(hi)
			lo, hi = math.Nextafter(lo, math.Inf(-1)), math.Nextafter(hi, math.Inf(1))
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -1, -0.5, math.NaN(), math.Inf(1), math.Inf(-1),
		math.SmallestNonzeroFloat64, 0.49999999999999994, 0.5, 1e-300, math.MaxInt64 / 2, math.MaxFloat64} {
		around(x)
	}
	for k := 0; k <= 8192; k++ {
		around(float64(k) / 2)
	}
	for k := -1074; k <= 64; k++ {
		around(math.Ldexp(1, k))
		around(math.Ldexp(1.5, k))
	}
	r := rng.New(7, 0)
	for range 2_000_000 {
		x := math.Ldexp(r.Float64(), int(r.IntN(70))-5)
		check(x)
		check(math.Floor(x) + 0.5)
	}
}
