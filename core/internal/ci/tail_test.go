package ci

import (
	"math"
	"testing"
)

// TestTailK: twice the observations above the quantile, at least 10. Of
// 1000, the p99 has 10 above it: k = 20; of 3000, 30 above: 60; of 300,
// 3 above: 6, raised to 10; the p95 of 1000, 50 above: 100.
func TestTailK(t *testing.T) {
	for _, c := range []struct {
		n    int64
		p    float64
		want int64
	}{{1000, 0.99, 20}, {3000, 0.99, 60}, {300, 0.99, 10}, {1000, 0.95, 100}} {
		if got := TailK(c.n, c.p); got != c.want {
			t.Errorf("TailK(%d, %g) = %d, want %d", c.n, c.p, got, c.want)
		}
	}
}

// TestTailCap: 1 − (1−p)²: 1 − 0.01² = 0.9999 for the p99, 1 − 0.05² =
// 0.9975 for the p95.
func TestTailCap(t *testing.T) {
	if got := TailCap(0.99); math.Abs(got-0.9999) > 1e-12 {
		t.Errorf("TailCap(0.99) = %v, want 0.9999", got)
	}
	if got := TailCap(0.95); math.Abs(got-0.9975) > 1e-12 {
		t.Errorf("TailCap(0.95) = %v, want 0.9975", got)
	}
}

// TestExpTailQuantile, worked by hand: threshold 100, mean excess 20,
// fitted to the 20 largest of 1000 (a tail probability of 0.02 at the
// threshold). The 0.99-quantile is 100 + 20·ln(20/(1000·0.01)) = 100 +
// 20·ln 2 = 113.862944; the 0.999-quantile 100 + 20·ln 20 = 159.914645;
// at q = 0.98, the threshold itself (ln 1 = 0). An exponential of mean 20
// has that tail from any threshold: its quantiles 20·ln(1/(1−q)) from 0
// are the fit's with u = 0 and k/n = 1: 20·ln 100 = 92.103404 at 0.99.
func TestExpTailQuantile(t *testing.T) {
	for _, c := range []struct {
		u, e float64
		k, n int64
		q    float64
		want float64
	}{
		{100, 20, 20, 1000, 0.99, 113.862944},
		{100, 20, 20, 1000, 0.999, 159.914645},
		{100, 20, 20, 1000, 0.98, 100},
		{0, 20, 1000, 1000, 0.99, 92.103404},
	} {
		if got := ExpTailQuantile(c.u, c.e, c.k, c.n, c.q); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("ExpTailQuantile(%v, %v, %d, %d, %v) = %.6f, want %.6f", c.u, c.e, c.k, c.n, c.q, got, c.want)
		}
	}
}
