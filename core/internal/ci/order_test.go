package ci

import (
	"math"
	"testing"
)

// TestQuantileRanks: the median of 10 observations, worked by hand from
// binomial(10, ½): F(1) = 11/1024 ≤ 0.025 < F(2) = 56/1024, and F(7) =
// 968/1024 < 0.975 ≤ F(8) = 1013/1024, so [x(2), x(9)]; the 90th
// percentile of 20: binomial(20, 0.9) has F(14) = 0.0113 ≤ 0.025 < F(15) =
// 0.0432 and F(19) = 0.8784 < 0.975 ≤ F(20) = 1, so [x(15), x(20)] (u = 21
// is cut to n).
func TestQuantileRanks(t *testing.T) {
	for _, c := range []struct {
		n    int64
		p    float64
		l, u int64
	}{{10, 0.5, 2, 9}, {20, 0.9, 15, 20}} {
		if l, u := QuantileRanks(c.n, c.p); l != c.l || u != c.u {
			t.Errorf("n=%d p=%g: got [x(%d), x(%d)], want [x(%d), x(%d)]", c.n, c.p, l, u, c.l, c.u)
		}
	}
	// large n: the normal approximation n·p ± 1.96·√(n·p·(1-p)) within a rank or two
	n, p := int64(100000), 0.99
	l, u := QuantileRanks(n, p)
	h := 1.96 * math.Sqrt(float64(n)*p*(1-p))
	if math.Abs(float64(l)-(float64(n)*p-h)) > 2 || math.Abs(float64(u)-(float64(n)*p+h)) > 2 {
		t.Errorf("n=%d p=%g: got [%d, %d], want about %.1f ± %.1f", n, p, l, u, float64(n)*p, h)
	}
}

// TestKS2: exact p-values against the Gnedenko–Korolyuk formula for equal
// sizes, P(D ≥ k/n) = 2·Σ_{j≥1} (-1)^(j+1)·C(2n, n-j·k) / C(2n, n).
func TestKS2(t *testing.T) {
	// two fully separated samples of 2: D = 1, p = 2/C(4,2) = 1/3
	if d, p := KS2([]float64{1, 2}, []float64{3, 4}); d != 1 || math.Abs(p-1.0/3) > 1e-12 {
		t.Errorf("separated 2 and 2: got D=%v p=%v, want 1 and 1/3", d, p)
	}
	// n = m = 10, D = 5/10: 2·(C(20,5) - C(20,0))/C(20,10) = 31006/184756
	xs := []float64{1, 2, 3, 4, 5, 11, 12, 13, 14, 15}
	ys := []float64{6, 7, 8, 9, 10, 16, 17, 18, 19, 20}
	d, p := KS2(xs, ys)
	if d != 0.5 || math.Abs(p-31006.0/184756) > 1e-12 {
		t.Errorf("n=m=10: got D=%v p=%v, want 0.5 and %v", d, p, 31006.0/184756)
	}
	// the same sample: D = 0, p = 1
	if d, p := KS2(xs, xs); d != 0 || p != 1 {
		t.Errorf("identical: got D=%v p=%v", d, p)
	}
}
