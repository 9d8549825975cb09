package dist

import (
	"math"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// gammaFn against values known exactly: Γ(1) = Γ(2) = 1, Γ(1.5) = √π/2,
// Γ(5) = 24, Γ(11) = 10!.
func TestGammaFn(t *testing.T) {
	for _, c := range []struct{ z, want float64 }{
		{1, 1}, {2, 1}, {1.5, math.Sqrt(math.Pi) / 2}, {5, 24}, {11, 3628800}, {3.5, 15 * math.Sqrt(math.Pi) / 8},
	} {
		if got := gammaFn(c.z); math.Abs(got-c.want)/c.want > 1e-13 {
			t.Errorf("gammaFn(%g) = %.17g, want %.17g", c.z, got, c.want)
		}
	}
}

// The heavy-tailed distributions have the mean and spread they were given:
// hyperexp its mean and sd (E[X²] = sd² + mean²), weibull its mean and the
// second moment scale² Γ(1 + 2/k).
func TestHeavyTailMoments(t *testing.T) {
	const n = 2_000_000
	for _, c := range []struct {
		d          scenario.Dist
		mean, sec2 float64 // E[X], E[X²]
	}{
		{scenario.Dist{Dist: "hyperexp", MeanMS: fp(10), SDMS: fp(30)}, 10, 30*30 + 100},
		{scenario.Dist{Dist: "hyperexp", MeanMS: fp(4), SDMS: fp(5)}, 4, 25 + 16},
		{scenario.Dist{Dist: "weibull", MeanMS: fp(10), Shape: fp(0.7)}, 10, sq(10/gammaFn(1+1/0.7)) * gammaFn(1+2/0.7)},
		{scenario.Dist{Dist: "weibull", MeanMS: fp(10), Shape: fp(3)}, 10, sq(10/gammaFn(1+1/3.0)) * gammaFn(1+2/3.0)},
	} {
		smp, err := New(&c.d, "d")
		if err != nil {
			t.Fatal(err)
		}
		var r rng.PCG
		r.Seed(3, 4)
		var s1, s2 float64
		for i := 0; i < n; i++ {
			x := smp.SampleMS(&r)
			s1 += x
			s2 += x * x
		}
		m1, m2 := s1/n, s2/n
		if math.Abs(m1-c.mean)/c.mean > 0.01 || math.Abs(m2-c.sec2)/c.sec2 > 0.05 {
			t.Errorf("%s: mean %.4f (want %.4f), E[X²] %.3f (want %.3f)", c.d.Dist, m1, c.mean, m2, c.sec2)
		}
		if smp.MeanMS() != c.mean {
			t.Errorf("%s: MeanMS %g", c.d.Dist, smp.MeanMS())
		}
	}
}

func TestHeavyTailErrors(t *testing.T) {
	for _, c := range []struct {
		d    scenario.Dist
		want string
	}{
		{scenario.Dist{Dist: "hyperexp", MeanMS: fp(10), SDMS: fp(10)}, "d.sd_ms: must be above mean_ms (10) for a hyperexponential"},
		{scenario.Dist{Dist: "hyperexp", MeanMS: fp(10)}, "d.sd_ms: missing"},
		{scenario.Dist{Dist: "weibull", MeanMS: fp(10), Shape: fp(0.05)}, "d.shape: must be between 0.1 and 100"},
		{scenario.Dist{Dist: "weibull", MeanMS: fp(10), SDMS: fp(3), Shape: fp(2)}, "d.sd_ms: not a parameter of dist \"weibull\""},
	} {
		_, err := New(&c.d, "d")
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.d, err, c.want)
		}
	}
}

func fp(v float64) *float64 { return &v }
func sq(v float64) float64  { return v * v }
func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
