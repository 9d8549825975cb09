package fit

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
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

// stamped is each duration as a log of millisecond stamps shows it: the
// start stamp at a phase drawn uniformly in [0, 1) ms, the end at start +
// x, both truncated to the millisecond, the difference in whole ms.
func stamped(x []float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 13))
	d := make([]float64, len(x))
	for i, v := range x {
		s := r.Float64()
		d[i] = math.Floor(s+v) - math.Floor(s)
	}
	return d
}

// candidate returns r's candidate of the family, nil when it has none.
func candidate(r *Result, fam string) *Candidate {
	for i := range r.Candidates {
		if r.Candidates[i].Family == fam {
			return &r.Candidates[i]
		}
	}
	return nil
}

// Durations rounded by millisecond stamps are fitted as such: the family and
// its parameters come out as from the exact draws (means within 2%, shapes
// within 10%), and no candidate puts mass at 0 ms — where the exact-value
// fit of the same rounded samples gives up for the empirical, 0 ms included.
func TestGridRecoversFamilies(t *testing.T) {
	const n = 5000
	cases := []struct {
		name  string
		fam   string
		mean  float64
		shape float64
		f     func(r *rand.Rand) float64
	}{
		{"gamma 4, mean 3 ms", "erlang", 3, 4, func(r *rand.Rand) float64 { return gammaDraw(r, 4, 0.75) }},
		{"gamma 4, mean 8 ms", "erlang", 8, 4, func(r *rand.Rand) float64 { return gammaDraw(r, 4, 2) }},
		{"exp, mean 2 ms", "exp", 2, 1, func(r *rand.Rand) float64 { return 2 * r.ExpFloat64() }},
		{"exp, mean 5 ms", "exp", 5, 1, func(r *rand.Rand) float64 { return 5 * r.ExpFloat64() }},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := draw(n, uint64(20+i), c.f)
			d := stamped(x, uint64(40+i))
			exact := Fit(x)
			if exact.Fit.Dist != c.fam {
				t.Fatalf("exact draws: fit %+v, want %s (%s)", exact.Fit, c.fam, exact.Choice)
			}
			if old := Fit(d); old.Fit.Dist != "empirical" {
				t.Errorf("rounded draws fitted as exact values: %s, want the empirical (no family within the threshold)", old.Fit.Dist)
			}
			r := FitWith(d, Options{ResolutionUS: 1000})
			if r.ResolutionMS != 1 || r.Warning != "" {
				t.Errorf("resolution %g, warning %q: want 1 ms, none", r.ResolutionMS, r.Warning)
			}
			if r.Fit.Dist != c.fam || (c.fam == "erlang" && *r.Fit.K != *exact.Fit.K) {
				t.Fatalf("fit %+v, want %s as from the exact draws %+v (%s) %+v", r.Fit, c.fam, exact.Fit, r.Choice, r.Candidates)
			}
			within(t, "mean vs the exact draws'", *r.Fit.MeanMS, *exact.Fit.MeanMS, 0.02)
			// The standard error of the mean is under 1.5% of it (cv <= 1).
			within(t, "mean vs the true one", *r.Fit.MeanMS, c.mean, 0.045)
			within(t, "gamma shape vs the exact draws'", *candidate(r, "gamma").Fit.Shape, *candidate(exact, "gamma").Fit.Shape, 0.10)
			within(t, "gamma shape vs the true one", *candidate(r, "gamma").Fit.Shape, c.shape, 0.10)
			for _, cd := range r.Candidates {
				if cd.Fit != nil && (cd.Fit.Dist == "const" || cd.Fit.Dist == "empirical") {
					t.Errorf("candidate %s: %+v puts mass at points", cd.Family, cd.Fit)
				}
			}
			if e := gridEmpirical(newHistogram(d, 1000), 1); slices.Min(e.SamplesMS) <= 0 {
				t.Errorf("the grid's empirical has a point at %g ms", slices.Min(e.SamplesMS))
			}
		})
	}
}

// The zeros are explained, not kept: an exponential of mean 2 ms shows 0 ms
// with probability ∫₀¹ f(x)(1−x) dx = 1 − 2(1 − e^−½) = 0.2131; the rounded
// draws have about that share of zeros and the fitted model gives it.
func TestGridZerosExplained(t *testing.T) {
	const n = 5000
	want := 1 - 2*(1-math.Exp(-0.5))
	d := stamped(draw(n, 22, func(r *rand.Rand) float64 { return 2 * r.ExpFloat64() }), 42)
	zeros := 0
	for _, v := range d {
		if v == 0 {
			zeros++
		}
	}
	se := math.Sqrt(want * (1 - want) / n)
	if got := float64(zeros) / n; math.Abs(got-want) > 3*se {
		t.Errorf("share of 0 ms %g, want %g ± %g", got, want, 3*se)
	}
	r := FitWith(d, Options{ResolutionUS: 1000})
	h := newHistogram(d, 1000)
	gm := newGridModel(h.cells(), partialsOf(r.Fit, 1), *r.Fit.MeanMS)
	if math.Abs(gm.p[0]-want) > 3*se {
		t.Errorf("the fit %+v gives 0 ms probability %g, want %g ± %g", r.Fit, gm.p[0], want, 3*se)
	}
}

// Durations below the stamps' resolution: an exponential of mean 0.2 ms
// shows 0 ms with probability 1 − 0.2(1 − e^−5) = 0.8013. The fit keeps
// the mean (the rounding's mean is 0) and the report says the shape is not
// measured.
func TestGridBelowResolution(t *testing.T) {
	const n = 5000
	x := draw(n, 30, func(r *rand.Rand) float64 { return 0.2 * r.ExpFloat64() })
	d := stamped(x, 31)
	r := FitWith(d, Options{ResolutionUS: 1000})
	if r.Fit.Dist != "exp" {
		t.Fatalf("fit %+v, want exp (%s) %+v", r.Fit, r.Choice, r.Candidates)
	}
	within(t, "mean vs the exact draws'", *r.Fit.MeanMS, *Fit(x).Fit.MeanMS, 0.05)
	zeros := 0
	for _, v := range d {
		zeros += b2i(v == 0)
	}
	share, want := float64(zeros)/n, 1-0.2*(1-math.Exp(-5))
	if se := math.Sqrt(want * (1 - want) / n); math.Abs(share-want) > 3*se {
		t.Errorf("share of 0 ms %g, want %g ± %g", share, want, 3*se)
	}
	if w := fmt.Sprintf("%.0f%% of samples are 0 ms: the 1 ms stamps cannot resolve", 100*share); !strings.HasPrefix(r.Warning, w) {
		t.Errorf("warning %q, want %q...", r.Warning, w)
	}
	// Every sample 0 ms: a constant 0, and the warning.
	r = FitWith([]float64{0, 0, 0}, Options{ResolutionUS: 1000})
	if r.Fit.Dist != "const" || *r.Fit.MS != 0 || !strings.HasPrefix(r.Warning, "100% of samples are 0 ms") {
		t.Errorf("all zeros: %+v, warning %q", r.Fit, r.Warning)
	}
	// Under half at 0 ms: no warning.
	if r = FitWith([]float64{0, 1, 2, 0, 3}, Options{ResolutionUS: 1000}); r.Warning != "" {
		t.Errorf("2 zeros in 5: warning %q", r.Warning)
	}
}

// The rounded distribution by hand: an exponential of mean 1 step has
// G(t) = t − 1 + e^−t, so P(D ≤ 0) = G(1) − G(0) = e^−1 = 0.3679,
// P(D ≤ 1) = G(2) − G(1) = 1 + e^−2 − e^−1 = 0.7675, P(D ≤ 2) = 1 + e^−3 −
// e^−2 = 0.9145. Against the samples 0, 0, 1, 2 (0.5, 0.75, 1): the
// distance is 0.5 − 0.3679 = 0.1321 (0.0175 at 1, 0.0855 at 2).
func TestGridByHand(t *testing.T) {
	one := 1.0
	h := newHistogram([]float64{0, 2, 0, 1}, 1000)
	c := h.cells()
	gm := newGridModel(c, partialsOf(&Dist{Dist: "exp", MeanMS: &one}, 1), 1)
	e1, e2, e3 := math.Exp(-1), math.Exp(-2), math.Exp(-3)
	for i, want := range []float64{e1, 1 + e2 - e1, 1 + e3 - e2} {
		got := gm.cdf[i]
		if i > 0 { // above the mean: from the survival side
			got = 1 - gm.sf[i]
		}
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("P(D <= %d) = %.15g, want %.15g", i, got, want)
		}
	}
	if want := (1 + e2 - e1) - e1; math.Abs(gm.p[1]-want) > 1e-12 {
		t.Errorf("P(D = 1) = %g, want %g", gm.p[1], want)
	}
	gd := gridData{c: c, res: 1, groups: groups(c, []float64{0, 2, 0, 1}, 1000, nil)}
	if got, want := gd.ks(&Dist{Dist: "exp", MeanMS: &one}), 0.5-e1; math.Abs(got-want) > 1e-12 {
		t.Errorf("distance %g, want %g", got, want)
	}
	// The same through the gamma of shape 1 and the lognormal's limits.
	gam := partialsOf(&Dist{Dist: "gamma", MeanMS: &one, Shape: &one}, 1)
	for _, x := range []float64{0.5, 1, 2, 7} {
		g, hh := gam(x)
		if math.Abs(g-(x-1+math.Exp(-x))) > 1e-12 || math.Abs(hh-math.Exp(-x)) > 1e-12 {
			t.Errorf("gamma(1) partials at %g: %g, %g", x, g, hh)
		}
	}
	// Points as the stamps show them: a point at 0.25 steps reads 0 with
	// probability 0.75; against the samples 0, 1 (½ at 0) the distance is ¼.
	c2 := newHistogram([]float64{0, 1}, 1000).cells()
	if d := ksGridPoints(c2, []float64{0.25}, 1); math.Abs(d-0.25) > 1e-12 {
		t.Errorf("points distance %g, want 0.25", d)
	}
	if d := ksGridPoints(c2, []float64{0.5}, 1); d != 0 {
		t.Errorf("points distance %g, want 0", d)
	}
}

// The grid's empirical by hand: samples 0, 0, 2, 2 ms spread over [0, ½)
// and [1.5, 2.5); the quantiles at 1/8, 3/8, 5/8, 7/8 are 0.125, 0.375,
// 1.75, 2.25 (mean 1.125), scaled by 1/1.125 to the samples' mean 1.
func TestGridEmpiricalByHand(t *testing.T) {
	e := gridEmpirical(newHistogram([]float64{2, 0, 2, 0}, 1000), 1)
	want := []float64{0.111, 0.333, 1.556, 2}
	if !slices.Equal(e.SamplesMS, want) {
		t.Errorf("points %v, want %v", e.SamplesMS, want)
	}
	// A bimodal rounded log: no family fits, the empirical is chosen, with
	// no point at 0.
	d := stamped(draw(5000, 6, func(r *rand.Rand) float64 {
		if r.IntN(2) == 0 {
			return 0.2 + 2*r.Float64()
		}
		return 30 + 10*r.Float64()
	}), 7)
	r := FitWith(d, Options{ResolutionUS: 1000})
	if r.Fit.Dist != "empirical" || slices.Min(r.Fit.SamplesMS) <= 0 || len(r.Fit.SamplesMS) != MaxPoints {
		t.Errorf("bimodal: %s, smallest point %g (%s)", r.Fit.Dist, slices.Min(r.Fit.SamplesMS), r.Choice)
	}
	mean, _ := newHistogram(d, 1000).moments()
	within(t, "empirical mean", meanOf(r.Fit.SamplesMS), mean, 0.001)
}

func meanOf(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Samples off the grid, or no resolution, are fitted as exact values: the
// same bytes as Fit.
func TestFitWithOffGrid(t *testing.T) {
	x := draw(2000, 9, func(r *rand.Rand) float64 { return gammaDraw(r, 2.3, 3) })
	a, _ := json.Marshal(Fit(x))
	for _, o := range []Options{{}, {ResolutionUS: 1000}} {
		b, _ := json.Marshal(FitWith(x, o))
		if string(a) != string(b) {
			t.Errorf("%+v: changed the fit of exact samples", o)
		}
	}
	for _, c := range []struct {
		x   []float64
		res int64
		on  bool
	}{
		{[]float64{0, 1, 17, 3000}, 1000, true}, {[]float64{0.003, 1.5}, 1, true}, {[]float64{1, 2.5}, 1000, false},
		{[]float64{10, 20}, 10_000, true}, {[]float64{10, 25}, 10_000, false}, {[]float64{-1, 2}, 1000, false}, {[]float64{1}, 0, false},
	} {
		if got := OnGrid(c.x, c.res); got != c.on {
			t.Errorf("OnGrid(%v, %d) = %v", c.x, c.res, got)
		}
	}
	// In any order, the same bytes.
	d := stamped(x, 3)
	a, _ = json.Marshal(FitWith(d, Options{ResolutionUS: 1000}))
	slices.Reverse(d)
	b, _ := json.Marshal(FitWith(d, Options{ResolutionUS: 1000}))
	if string(a) != string(b) {
		t.Error("order changed the grid fit")
	}
}

// BenchmarkFitGrid fits 100 000 samples in whole milliseconds, taken for
// one difference of stamps each, then for one to four.
func BenchmarkFitGrid(b *testing.B) {
	x := stamped(draw(100_000, 11, func(r *rand.Rand) float64 { return gammaDraw(r, 2.3, 3) }), 12)
	spans := make([]int, len(x))
	for i := range spans {
		spans[i] = 1 + i%4
	}
	for _, o := range []Options{{ResolutionUS: 1000}, {ResolutionUS: 1000, Spans: spans}} {
		b.Run("spans "+strconv.FormatBool(o.Spans != nil), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				FitWith(x, o)
			}
		})
	}
}

// Samples of more than maxBins distinct values are counted in cells of
// about equal counts: a lognormal of mean 2 s (sd 2 s) is still recovered;
// and one long outlier does not coarsen the rest.
func TestGridCells(t *testing.T) {
	sigma := math.Sqrt(math.Log(2))
	x := draw(5000, 50, func(r *rand.Rand) float64 { return math.Exp(math.Log(2000) - sigma*sigma/2 + sigma*r.NormFloat64()) })
	d := stamped(x, 51)
	if c := newHistogram(d, 1000).cells(); !c.merged || len(c.top) > maxBins+1 {
		t.Fatalf("cells: merged %v, %d", c.merged, len(c.top))
	}
	r := FitWith(d, Options{ResolutionUS: 1000})
	exact := Fit(x)
	if r.Fit.Dist != "lognormal" || exact.Fit.Dist != "lognormal" || !strings.Contains(r.Choice, "cells of about equal counts") {
		t.Fatalf("fit %+v (%s), exact %+v", r.Fit, r.Choice, exact.Fit)
	}
	within(t, "mean", *r.Fit.MeanMS, *exact.Fit.MeanMS, 0.02)
	within(t, "sd", *r.Fit.SDMS, *exact.Fit.SDMS, 0.10)
	// Exponential draws of mean 2 ms and one of 1 000 s: every value its cell.
	e := stamped(draw(2000, 52, func(r *rand.Rand) float64 { return 2 * r.ExpFloat64() }), 53)
	e = append(e, 1e6)
	if c := newHistogram(e, 1000).cells(); c.merged || c.top[0] != 0 || c.top[1] != 1 {
		t.Errorf("one outlier: cells %v...", c.top[:3])
	}
}

// The B-splines by hand: order 2 is the triangle, order 4 is 2/3 at 0 and
// 1/6 at ±1, order 6 is 11/20 at 0, 13/60 at ±1 and 1/120 at ±2.
func TestBSpline(t *testing.T) {
	for _, c := range []struct {
		n       int
		x, want float64
	}{{2, 0, 1}, {2, 0.25, 0.75}, {2, -1, 0}, {4, 0, 2.0 / 3}, {4, 1, 1.0 / 6}, {4, -1, 1.0 / 6}, {4, 2, 0},
		{6, 0, 11.0 / 20}, {6, 1, 13.0 / 60}, {6, -2, 1.0 / 120}, {6, 3, 0}} {
		if got := bspline(c.n, c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("B%d(%g) = %g, want %g", c.n, c.x, got, c.want)
		}
	}
}

// A service's own work around one call is the sum of two differences of
// stamps (the span less the call's), whose error is wider than one's.
// Told so (Spans 2), the fit recovers the shape of the exact draws; taking
// each sample for one difference, it reads the wider error as a wider
// distribution.
func TestGridSpans(t *testing.T) {
	const n = 5000
	x := draw(n, 60, func(r *rand.Rand) float64 { return gammaDraw(r, 4, 0.5) }) // mean 2 ms
	r := rand.New(rand.NewPCG(61, 13))
	d := make([]float64, n)
	spans := make([]int, n)
	for i, own := range x {
		s := r.Float64()
		cs := s + own*r.Float64() // the call at a random point of the work
		ce := cs + 2 + 4*r.ExpFloat64()
		e := ce + own - (cs - s)
		d[i] = max((math.Floor(e)-math.Floor(s))-(math.Floor(ce)-math.Floor(cs)), 0) // as core/ulog reads it
		spans[i] = 2
	}
	exact := *candidate(Fit(x), "gamma").Fit.Shape
	two := FitWith(d, Options{ResolutionUS: 1000, Spans: spans})
	if two.Fit.Dist != "erlang" || *two.Fit.K != 4 {
		t.Errorf("spans 2: fit %+v, want erlang k=4 (%s) %+v", two.Fit, two.Choice, two.Candidates)
	}
	within(t, "spans 2: gamma shape", *candidate(two, "gamma").Fit.Shape, exact, 0.10)
	within(t, "spans 2: mean", *two.Fit.MeanMS, *Fit(x).Fit.MeanMS, 0.03)
	one := FitWith(d, Options{ResolutionUS: 1000})
	if s := *candidate(one, "gamma").Fit.Shape; math.Abs(s-exact) <= 0.10*exact {
		t.Errorf("one difference assumed: shape %g, expected it off by more than 10%% of %g", s, exact)
	}
}

// TestMeanInterval: the mean's 95% interval, worked by hand for the samples
// 1..5 ms (mean 3, sd √2.5 = 1.5811, t(0.975, 4) = 2.776, half-width
// 2.776 · 1.5811 / √5 = 1.9629: [1.037, 4.963]); none for one sample; and
// over 1000 sets of 200 exponential samples of mean 10 ms (a fixed seed) it
// holds 10 in 93 to 97% of them.
func TestMeanInterval(t *testing.T) {
	if r := Fit([]float64{1, 2, 3, 4, 5}); r.MeanCIMS == nil || *r.MeanCIMS != [2]float64{1.037, 4.963} {
		t.Errorf("1..5: interval %v, want [1.037 4.963]", r.MeanCIMS)
	}
	if r := Fit([]float64{7}); r.MeanCIMS != nil {
		t.Errorf("one sample: interval %v, want none", r.MeanCIMS)
	}
	rd := rand.New(rand.NewPCG(5, 6))
	held := 0
	for range 1000 {
		x := make([]float64, 200)
		for i := range x {
			x[i] = rd.ExpFloat64() * 10
		}
		if iv := Fit(x).MeanCIMS; iv[0] <= 10 && 10 <= iv[1] {
			held++
		}
	}
	if held < 930 || held > 970 {
		t.Errorf("the interval held the true mean in %d of 1000 sets, want about 950", held)
	}
}

// Shift moves every mean by c and keeps each family's other parameter; a
// chosen fit shared with its candidate moves once; an empirical's points
// move, none below 1 µs; a hyperexponential whose sd would not stay above
// its mean is left. By hand, with c = 0.5: the lognormal (10, sd 4) becomes
// (10.5, sd 4), the erlang (6, k 3) (6.5, k 3); the mean 10 → 10.5 and its
// interval [9, 11] → [9.5, 11.5]; the points 0.2, 1, 3 with c = −0.5 become
// 0.001, 0.5, 2.5; a hyperexponential (4, sd 4.2) with c = 0.5 stays.
func TestResultShift(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	k := 3
	logn := &Dist{Dist: "lognormal", MeanMS: f(10), SDMS: f(4)}
	r := &Result{MeanMS: 10, MeanCIMS: &[2]float64{9, 11}, Fit: logn,
		Candidates: []Candidate{{Family: "erlang", Fit: &Dist{Dist: "erlang", MeanMS: f(6), K: &k}}, {Family: "lognormal", Fit: logn}}}
	r.Shift(0.5)
	if r.MeanMS != 10.5 || *r.MeanCIMS != [2]float64{9.5, 11.5} || *r.Fit.MeanMS != 10.5 || *r.Fit.SDMS != 4 ||
		*r.Candidates[0].Fit.MeanMS != 6.5 || *r.Candidates[0].Fit.K != 3 {
		t.Errorf("shifted: mean %v ci %v fit %v sd %v erlang %v k %v", r.MeanMS, *r.MeanCIMS, *r.Fit.MeanMS, *r.Fit.SDMS,
			*r.Candidates[0].Fit.MeanMS, *r.Candidates[0].Fit.K)
	}
	emp := &Result{MeanMS: 1.4, Fit: &Dist{Dist: "empirical", SamplesMS: []float64{0.2, 1, 3}}}
	emp.Shift(-0.5)
	if got := emp.Fit.SamplesMS; !slices.Equal(got, []float64{0.001, 0.5, 2.5}) {
		t.Errorf("empirical points %v, want 0.001 0.5 2.5", got)
	}
	h := &Result{MeanMS: 4, Fit: &Dist{Dist: "hyperexp", MeanMS: f(4), SDMS: f(4.2)}}
	h.Shift(0.5)
	if *h.Fit.MeanMS != 4 {
		t.Errorf("hyperexp mean %v, want 4 (left: sd 4.2 would not stay above 4.5)", *h.Fit.MeanMS)
	}
}
