package core

import (
	"math"
	"math/big"
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

func TestFlogMatchesMathLog(t *testing.T) {
	r := newRng(7, 0)
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
			continue // subnormals: amd64's math.Log is wrong there; see TestFlogSubnormal
		}
		if got, want := flog(x), math.Log(x); ulps(got, want) > 1 {
			t.Fatalf("flog(%v) = %v, want %v within 1 ulp", x, got, want)
		}
	}
}

func TestFlogSubnormal(t *testing.T) {
	// ln(x) for subnormal x, as a correctly rounded libm (glibc) gives it.
	tests := []struct{ x, want float64 }{
		{math.SmallestNonzeroFloat64, -744.4400719213812},
		{0x1p-1060, -734.7360113935421},
	}
	for _, tt := range tests {
		if got := flog(tt.x); ulps(got, tt.want) > 1 {
			t.Errorf("flog(%v) = %v, want %v within 1 ulp", tt.x, got, tt.want)
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

func TestFexpWithinOneULPOfExact(t *testing.T) {
	r := newRng(8, 0)
	xs := []float64{-700, -1, -0.5, 0.5, 1, 12.142061717452577, 700}
	for range 3000 {
		xs = append(xs, float64(r.Float64()*60)-30, float64(r.Float64()*2)-1)
	}
	for _, x := range xs {
		if got, want := fexp(x), bigExp(x); ulps(got, want) > 1 {
			t.Fatalf("fexp(%v) = %v, want %v within 1 ulp", x, got, want)
		}
	}
}

func TestFexpNearMathExp(t *testing.T) {
	// amd64's math.Exp is assembly with its own rounding: both are within an
	// ulp of the exact value, hence within 2 ulps of each other.
	r := newRng(9, 0)
	var xs []float64
	for x := -745.0; x <= 709; x += 0.37 {
		xs = append(xs, x)
	}
	for range 100_000 {
		xs = append(xs, float64(r.Float64()*40)-20, float64(r.Float64()*2)-1, r.Float64()*1e-9)
	}
	for _, x := range xs {
		if got, want := fexp(x), math.Exp(x); ulps(got, want) > 2 {
			t.Fatalf("fexp(%v) = %v, want %v within 2 ulps", x, got, want)
		}
	}
}

func TestFmathSpecialCases(t *testing.T) {
	tests := []struct {
		name      string
		got, want float64
	}{
		{"flog(0)", flog(0), math.Inf(-1)},
		{"flog(+Inf)", flog(math.Inf(1)), math.Inf(1)},
		{"flog(1)", flog(1), 0},
		{"fexp(0)", fexp(0), 1},
		{"fexp(-Inf)", fexp(math.Inf(-1)), 0},
		{"fexp(+Inf)", fexp(math.Inf(1)), math.Inf(1)},
		{"fexp(1000)", fexp(1000), math.Inf(1)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if !math.IsNaN(flog(-1)) {
		t.Errorf("flog(-1) = %v, want NaN", flog(-1))
	}
}
