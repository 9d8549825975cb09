package fmath

import (
	"math"
	"testing"
)

// logBefore is Log as it was before its exponent was taken from the bits
// (engine 0.1.0): the reference the faster Log must match bit for bit.
func logBefore(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
		l1    = 6.666666666666735130e-01
		l2    = 3.999999999940941908e-01
		l3    = 2.857142874366239149e-01
		l4    = 2.222219843214978396e-01
		l5    = 1.818357216161805012e-01
		l6    = 1.531383769920937332e-01
		l7    = 1.479819860511658591e-01
	)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	f1, ki := math.Frexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * (l1 + float64(s4*(l3+float64(s4*(l5+float64(s4*l7)))))))
	t2 := float64(s4 * (l2 + float64(s4*(l4+float64(s4*l6)))))
	r := t1 + t2
	hfsq := float64(float64(0.5*f) * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2Lo))) - f)
}

// sameLog fails t unless Log and logBefore give the same bits for x (any
// NaN matching any NaN).
func sameLog(t *testing.T, x float64) {
	t.Helper()
	got, want := Log(x), logBefore(x)
	if math.IsNaN(got) && math.IsNaN(want) {
		return
	}
	if math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("Log(%v = %#016x): got %v (%#016x), want %v (%#016x)", x, math.Float64bits(x),
			got, math.Float64bits(got), want, math.Float64bits(want))
	}
}

func TestLogBitIdenticalEdges(t *testing.T) {
	if got, want := math.Float64bits(math.Sqrt2/2), uint64(1022<<52|sqrtHalfFrac); got != want {
		t.Fatalf("bits of √2/2: got %#016x, want %#016x", got, want)
	}
	xs := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), -1, -0x1p-1074,
		math.SmallestNonzeroFloat64, 0x1p-1060, math.Float64frombits(1<<52 - 1), 0x1p-1022,
		math.Nextafter(0x1p-1022, 1), 1, math.Nextafter(1, 0), math.Nextafter(1, 2), 2, 0.5,
		math.Sqrt2 / 2, math.Nextafter(math.Sqrt2/2, 0), math.Nextafter(math.Sqrt2/2, 1), math.Sqrt2,
		math.E, math.MaxFloat64, 0x1p-53, 1 - 0x1p-53}
	for e := -1074; e <= 1023; e++ {
		p := math.Ldexp(1, e)
		xs = append(xs, p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)), 1.37*p, -p)
	}
	for _, x := range xs {
		sameLog(t, x)
	}
}

// TestLogBitIdenticalRandom: 6 million inputs, a third of them as the
// samplers make them (1 - U, U uniform in [0, 1)), a third uniform in (0, 1]
// bit patterns below 1, a third any bit pattern at all.
func TestLogBitIdenticalRandom(t *testing.T) {
	const n = 2_000_000
	r := newSource(11, 3)
	for range n {
		sameLog(t, 1-r.Float64())
		sameLog(t, math.Float64frombits(r.Uint64()%math.Float64bits(1)+1))
		sameLog(t, math.Float64frombits(r.Uint64()))
	}
}
