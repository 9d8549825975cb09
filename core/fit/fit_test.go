package fit

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// draw returns n samples of a known distribution from a seeded generator.
func draw(n int, seed uint64, f func(r *rand.Rand) float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	x := make([]float64, n)
	for i := range x {
		x[i] = f(r)
	}
	return x
}

// gammaDraw is Marsaglia and Tsang's method, for shape >= 1.
func gammaDraw(r *rand.Rand, shape, scale float64) float64 {
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		z := r.NormFloat64()
		v := 1 + c*z
		if v <= 0 {
			continue
		}
		v = v * v * v
		if math.Log(r.Float64()) < 0.5*z*z+d-d*v+d*math.Log(v) {
			return d * v * scale
		}
	}
}

func within(t *testing.T, name string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*want {
		t.Errorf("%s: got %g, want %g within %g%%", name, got, want, rel*100)
	}
}

// Each family is recovered from 5 000 samples of it: the family, its mean
// within 3% (the standard error of a mean of 5 000 samples is under 1.5%
// of it for every case here, cv <= 1.6), its shape parameter within 8%.
func TestRecoversFamilies(t *testing.T) {
	const n = 5000
	t.Run("exp", func(t *testing.T) {
		r := Fit(draw(n, 1, func(r *rand.Rand) float64 { return 12 * r.ExpFloat64() }))
		if r.Fit.Dist != "exp" {
			t.Fatalf("fit %+v, want exp (%s)", r.Fit, r.Choice)
		}
		within(t, "mean", *r.Fit.MeanMS, 12, 0.03)
	})
	t.Run("erlang", func(t *testing.T) {
		r := Fit(draw(n, 2, func(r *rand.Rand) float64 {
			return 2*r.ExpFloat64() + 2*r.ExpFloat64() + 2*r.ExpFloat64() + 2*r.ExpFloat64()
		}))
		if r.Fit.Dist != "erlang" || *r.Fit.K != 4 {
			t.Fatalf("fit %+v, want erlang k=4 (%s) %+v", r.Fit, r.Choice, r.Candidates)
		}
		within(t, "mean", *r.Fit.MeanMS, 8, 0.03)
	})
	t.Run("gamma", func(t *testing.T) {
		r := Fit(draw(n, 3, func(r *rand.Rand) float64 { return gammaDraw(r, 1.6, 5) }))
		if r.Fit.Dist != "gamma" {
			t.Fatalf("fit %+v, want gamma (%s) %+v", r.Fit, r.Choice, r.Candidates)
		}
		within(t, "mean", *r.Fit.MeanMS, 8, 0.03)
		within(t, "shape", *r.Fit.Shape, 1.6, 0.08)
	})
	t.Run("hyperexp", func(t *testing.T) {
		// Balanced, mean 10, sd 16: cv² = 2.56, p = (1+√(1.56/3.56))/2.
		p := 0.5 * (1 + math.Sqrt(1.56/3.56))
		r := Fit(draw(n, 4, func(r *rand.Rand) float64 {
			if r.Float64() < p {
				return 10 / (2 * p) * r.ExpFloat64()
			}
			return 10 / (2 * (1 - p)) * r.ExpFloat64()
		}))
		if r.Fit.Dist != "hyperexp" {
			t.Fatalf("fit %+v, want hyperexp (%s) %+v", r.Fit, r.Choice, r.Candidates)
		}
		within(t, "mean", *r.Fit.MeanMS, 10, 0.05)
		within(t, "sd", *r.Fit.SDMS, 16, 0.10)
	})
	t.Run("lognormal", func(t *testing.T) {
		// mu = ln 20 - 0.32, sigma = 0.8: mean 20, sd 20·√(e^0.64 − 1) = 18.9.
		r := Fit(draw(n, 5, func(r *rand.Rand) float64 { return math.Exp(math.Log(20) - 0.32 + 0.8*r.NormFloat64()) }))
		if r.Fit.Dist != "lognormal" {
			t.Fatalf("fit %+v, want lognormal (%s) %+v", r.Fit, r.Choice, r.Candidates)
		}
		within(t, "mean", *r.Fit.MeanMS, 20, 0.03)
		within(t, "sd", *r.Fit.SDMS, 20*math.Sqrt(math.Exp(0.64)-1), 0.08)
	})
	t.Run("empirical", func(t *testing.T) {
		// Two modes, 2–4 ms and 30–40 ms: no family comes near.
		r := Fit(draw(n, 6, func(r *rand.Rand) float64 {
			if r.IntN(2) == 0 {
				return 2 + 2*r.Float64()
			}
			return 30 + 10*r.Float64()
		}))
		if r.Fit.Dist != "empirical" || len(r.Fit.SamplesMS) != MaxPoints {
			t.Fatalf("fit %s with %d points, want empirical of %d (%s) %+v", r.Fit.Dist, len(r.Fit.SamplesMS), MaxPoints, r.Choice, r.Candidates)
		}
		// The points' function steps by 1/1000 where the samples' steps by
		// 1/5000, the points sit mid-step (distance 2/5000), and rounding to
		// the microsecond moves a point past a few samples: within 2/1000.
		if r.KS > 0.002 {
			t.Errorf("empirical KS %g: 1 000 evenly spaced points should be within 2/1000 of the samples", r.KS)
		}
	})
}

// The distances are the true sup: worked by hand on four samples.
func TestKSByHand(t *testing.T) {
	// Samples 1, 2, 2, 4 against the uniform on [0, 4] (F(x) = x/4):
	// at 1: F = .25, Fn- = 0, Fn = .25; at 2: F = .5, Fn- = .25, Fn = .75
	// (distance .25); at 4: F = 1, Fn- = .75. So D = .25.
	d := ksContinuous([]float64{1, 2, 2, 4}, func(x float64) float64 { return x / 4 })
	if d != 0.25 {
		t.Errorf("D = %g, want 0.25", d)
	}
	// Steps: samples 1, 2, 3, 4 against points 1, 1: at 1 the points'
	// function is 1 and the samples' 1/4, so D = 3/4.
	if d := ksSteps([]float64{1, 2, 3, 4}, []float64{1, 1}); d != 0.75 {
		t.Errorf("steps D = %g, want 0.75", d)
	}
}

// gammaP against closed forms: P(1, x) = 1 − e^−x, P(2, x) = 1 − (1+x)e^−x.
func TestGammaP(t *testing.T) {
	for _, x := range []float64{0.01, 0.5, 1, 2.5, 7, 30} {
		if got, want := gammaP(1, x), 1-math.Exp(-x); math.Abs(got-want) > 1e-12 {
			t.Errorf("P(1,%g) = %g, want %g", x, got, want)
		}
		if got, want := gammaP(2, x), 1-(1+x)*math.Exp(-x); math.Abs(got-want) > 1e-12 {
			t.Errorf("P(2,%g) = %g, want %g", x, got, want)
		}
	}
}

// The same samples give the same bytes, in any order.
func TestDeterministic(t *testing.T) {
	x := draw(2000, 9, func(r *rand.Rand) float64 { return gammaDraw(r, 2.3, 3) })
	a, _ := json.Marshal(Fit(x))
	rev := make([]float64, len(x))
	for i, v := range x {
		rev[len(x)-1-i] = v
	}
	b, _ := json.Marshal(Fit(rev))
	if string(a) != string(b) {
		t.Errorf("order changed the result:\n%s\n%s", a, b)
	}
}

func TestEdgeCases(t *testing.T) {
	if Fit(nil) != nil {
		t.Error("no samples: want nil")
	}
	r := Fit([]float64{3, 3, 3})
	if r.Fit.Dist != "const" || *r.Fit.MS != 3 {
		t.Errorf("equal samples: got %+v, want const 3", r.Fit)
	}
	// Zeros (a millisecond log's fast calls) do not break the log-based fits.
	r = Fit([]float64{0, 0, 1, 2, 1, 0, 3, 1, 2, 5})
	for _, c := range r.Candidates {
		if math.IsNaN(c.KS) || c.KS < 0 || c.KS > 1 {
			t.Errorf("%s: KS %g", c.Family, c.KS)
		}
	}
}

// Wilson–Hilferty above a = 1000 meets the series at the boundary.
func TestGammaPLargeShape(t *testing.T) {
	for _, z := range []float64{-3, -1, 0, 0.5, 2} {
		x := 1000 + z*math.Sqrt(1000)
		series := gammaP(1000, x)
		wh := gammaP(1000.0000001, x)
		if math.Abs(series-wh) > 1e-4 {
			t.Errorf("x=%g: series %g, Wilson–Hilferty %g", x, series, wh)
		}
	}
}

// BenchmarkFit fits 100 000 gamma samples: every family, the distances and
// the empirical.
func BenchmarkFit(b *testing.B) {
	x := draw(100_000, 11, func(r *rand.Rand) float64 { return gammaDraw(r, 2.3, 3) })
	b.ReportAllocs()
	for b.Loop() {
		Fit(x)
	}
}
