package fmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ulps returns how many representable float64 values lie between a and b.
func ulps(a, b float64) uint64 {
	if a == b {
		return 0
	}
	ia, ib := int64(math.Float64bits(a)), int64(math.Float64bits(b))
	if (ia < 0) != (ib < 0) {
		return math.MaxUint64
	}
	if ia > ib {
		return uint64(ia - ib)
	}
	return uint64(ib - ia)
}

func TestLogMatchesMathLog(t *testing.T) {
	r := newSource(7, 0)
	var xs []float64
	for e := -1070; e <= 1020; e += 3 {
		xs = append(xs, math.Ldexp(1, e), math.Ldexp(1.37, e))
	}
	for range 100_000 {
		xs = append(xs, r.Float64(), 1-r.Float64(), float64(r.Float64()*1e6))
	}
	xs = append(xs, 1, 2, math.E, 0.5, math.MaxFloat64)
	for _, x := range xs {
		if x < 0x1p-1022 {
			continue // subnormals: amd64's math.Log is wrong there; see TestLogSubnormal
		}
		if got, want := Log(x), math.Log(x); ulps(got, want) > 1 {
			t.Fatalf("Log(%v) = %v, want %v within 1 ulp", x, got, want)
		}
	}
}

func TestLogSubnormal(t *testing.T) {
	// ln(x) for subnormal x, as a correctly rounded libm (glibc) gives it.
	tests := []struct{ x, want float64 }{
		{math.SmallestNonzeroFloat64, -744.4400719213812},
		{0x1p-1060, -734.7360113935421},
	}
	for _, tt := range tests {
		if got := Log(tt.x); ulps(got, tt.want) > 1 {
			t.Errorf("Log(%v) = %v, want %v within 1 ulp", tt.x, got, tt.want)
		}
	}
}

// bigExp returns e**x correctly rounded to float64, computed in 256-bit
// arithmetic: the Taylor series of x/2^20, then squared 20 times.
func bigExp(x float64) float64 {
	const prec, halvings = 256, 20
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.SetMantExp(y, -halvings)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for k := int64(1); k <= 40; k++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(k))
		sum.Add(sum, term)
	}
	for range halvings {
		sum.Mul(sum, sum)
	}
	f, _ := sum.Float64()
	return f
}

func TestExpWithinOneULPOfExact(t *testing.T) {
	r := newSource(8, 0)
	xs := []float64{-700, -1, -0.5, 0.5, 1, 12.142061717452577, 700}
	for range 3000 {
		xs = append(xs, float64(r.Float64()*60)-30, float64(r.Float64()*2)-1)
	}
	for _, x := range xs {
		if got, want := Exp(x), bigExp(x); ulps(got, want) > 1 {
			t.Fatalf("Exp(%v) = %v, want %v within 1 ulp", x, got, want)
		}
	}
}

func TestExpNearMathExp(t *testing.T) {
	// amd64's math.Exp is assembly with its own rounding: both are within an
	// ulp of the exact value, hence within 2 ulps of each other.
	r := newSource(9, 0)
	var xs []float64
	for x := -745.0; x <= 709; x += 0.37 {
		xs = append(xs, x)
	}
	for range 100_000 {
		xs = append(xs, float64(r.Float64()*40)-20, float64(r.Float64()*2)-1, r.Float64()*1e-9)
	}
	for _, x := range xs {
		if got, want := Exp(x), math.Exp(x); ulps(got, want) > 2 {
			t.Fatalf("Exp(%v) = %v, want %v within 2 ulps", x, got, want)
		}
	}
}

func TestSpecialCases(t *testing.T) {
	tests := []struct {
		name      string
		got, want float64
	}{
		{"Log(0)", Log(0), math.Inf(-1)},
		{"Log(+Inf)", Log(math.Inf(1)), math.Inf(1)},
		{"Log(1)", Log(1), 0},
		{"Exp(0)", Exp(0), 1},
		{"Exp(-Inf)", Exp(math.Inf(-1)), 0},
		{"Exp(+Inf)", Exp(math.Inf(1)), math.Inf(1)},
		{"Exp(1000)", Exp(1000), math.Inf(1)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if !math.IsNaN(Log(-1)) {
		t.Errorf("Log(-1) = %v, want NaN", Log(-1))
	}
}

// source draws the inputs of the tests: the PCG generator, seeded as the
// engine's own (core/internal/rng) seeds it, so the inputs are the ones
// these tests drew when they lived in core.
type source struct{ *rand.PCG }

func newSource(seed, stream uint64) source {
	return source{rand.NewPCG(seed, stream^0x9e3779b97f4a7c15)}
}

// Float64 is a uniform value in [0, 1) with 53 random bits, as the engine draws it.
func (s source) Float64() float64 { return float64(s.Uint64()>>11) / (1 << 53) }
