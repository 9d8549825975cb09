package rng

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/fmath"
)

// TestZigguratLayers checks the computed layers against their definition:
// x_1 = R, the base layer R + 1 wide, widths decreasing to 0, every layer of
// area zigV (width × height), and the recurrence closing at the top
// (zigV/x_255 + e^-x_255 = e^0 = 1).
func TestZigguratLayers(t *testing.T) {
	z := zigExp
	width := func(i int) float64 { return z[i].w * (1 << 53) }
	if got := width(1); got != zigR {
		t.Errorf("x_1 = %v, want R = %v", got, zigR)
	}
	if got := width(0); math.Abs(got-(zigR+1)) > 1e-9 {
		t.Errorf("base width x_0 = %v, want R + 1 = %v", got, zigR+1)
	}
	for i := 1; i < zigLayers; i++ {
		want := 0.0 // above the top layer
		if i+1 < zigLayers {
			want = width(i + 1)
		}
		if !(z[i].next < width(i)) || z[i].next != want {
			t.Fatalf("layer %d: next %v, width %v; want next = the width of layer %d, smaller", i, z[i].next, width(i), i+1)
		}
		if area := width(i) * (zigExpWedge[i].fHi - zigExpWedge[i].fLo); math.Abs(area-zigV)/zigV > 1e-9 {
			t.Errorf("layer %d: area %v, want %v", i, area, zigV)
		}
	}
	if area := width(0) * fmath.Exp(-zigR); math.Abs(area-zigV)/zigV > 1e-12 {
		t.Errorf("base layer: area %v, want %v", area, zigV)
	}
	if top := width(zigLayers - 1); math.Abs(zigV/top+fmath.Exp(-top)-1) > 1e-9 {
		t.Errorf("top layer: zigV/x_255 + e^-x_255 = %v, want 1", zigV/top+fmath.Exp(-top))
	}
	if z[zigLayers-1].next != 0 || zigExpWedge[zigLayers-1].fHi != 1 {
		t.Errorf("top layer: next %v, top %v; want 0 and 1", z[zigLayers-1].next, zigExpWedge[zigLayers-1].fHi)
	}
}

// expCheck compares n draws with the exponential distribution of mean 1:
// the first three moments (within 5 standard errors: E X = 1, E X² = 2,
// E X³ = 6, whose draws have variances 1, 20 and 684), Kolmogorov–Smirnov
// against the exact CDF 1 - e^-x (D·√n < 1.95, p = 0.001), and a chi-square
// test over 512 bins of equal probability (511 degrees of freedom: mean 511,
// sd 32; it fails above 5 sd, 671). It returns the first failure.
func expCheck(draws []float64) error {
	n := float64(len(draws))
	var m1, m2, m3 float64
	const bins = 512
	var count [bins]float64
	for _, x := range draws {
		if !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("draw %v, want a finite value >= 0", x)
		}
		m1 += x
		m2 += x * x
		m3 += x * x * x
		count[min(int((1-fmath.Exp(-x))*bins), bins-1)]++
	}
	for _, m := range []struct {
		name      string
		got, want float64
		variance  float64
	}{{"mean", m1 / n, 1, 1}, {"E X²", m2 / n, 2, 20}, {"E X³", m3 / n, 6, 684}} {
		if se := math.Sqrt(m.variance / n); math.Abs(m.got-m.want) > 5*se {
			return fmt.Errorf("%s = %.5f, want %v ± %.5f (5 standard errors)", m.name, m.got, m.want, 5*se)
		}
	}
	var chi2 float64
	for _, c := range count {
		e := n / bins
		chi2 += (c - e) * (c - e) / e
	}
	if chi2 > 671 {
		return fmt.Errorf("chi-square over %d equiprobable bins = %.0f, want below 671 (511 degrees of freedom)", bins, chi2)
	}
	s := slices.Clone(draws)
	slices.Sort(s)
	var d float64
	for i, x := range s {
		c := 1 - fmath.Exp(-x)
		d = max(d, math.Abs(c-float64(i)/n), math.Abs(float64(i+1)/n-c))
	}
	if ks := d * math.Sqrt(n); ks > 1.95 {
		return fmt.Errorf("Kolmogorov–Smirnov D·√n = %.3f, want below 1.95", ks)
	}
	return nil
}

// TestExpFloat64Distribution draws 2 M values from each of two seeds and
// checks them against the exponential distribution. The draws that leave
// the fast path (tail and wedges) are about 1.1% of them.
func TestExpFloat64Distribution(t *testing.T) {
	const n = 2_000_000
	for _, seed := range []uint64{1, 2} {
		r := New(seed, 3)
		draws := make([]float64, n)
		beyond := 0
		for i := range draws {
			draws[i] = r.ExpFloat64()
			if draws[i] >= zigR {
				beyond++
			}
		}
		if err := expCheck(draws); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		// P(X >= R) = e^-R: about 906 of 2 M, sd 30
		if want := n * fmath.Exp(-zigR); math.Abs(float64(beyond)-want) > 5*math.Sqrt(want) {
			t.Errorf("seed %d: %d draws at or beyond R, want %.0f ± %.0f", seed, beyond, want, 5*math.Sqrt(want))
		}
	}
}

// TestExpFloat64Tail draws from the tail alone (a random number whose low bits
// pick the base layer and whose high bits put the point beyond R): the draws
// less R must be exponential of mean 1 again.
func TestExpFloat64Tail(t *testing.T) {
	const n = 200_000
	r := New(5, 3)
	b := ^uint64(0) &^ (zigLayers - 1) // base layer, x = (2^53 - 1)·w ≈ R + 1
	draws := make([]float64, n)
	for i := range draws {
		x := expSlow(r, b)
		if x < zigR {
			t.Fatalf("a tail draw gave %v, want at least R = %v", x, zigR)
		}
		draws[i] = x - zigR
	}
	if err := expCheck(draws); err != nil {
		t.Error(err)
	}
}

// TestExpCheckRejects shows that expCheck has the power to find a sampler
// that is slightly wrong: the ziggurat with every wedge point accepted
// (0.5% of the mass misplaced), and inversion with a mean 1% too large.
func TestExpCheckRejects(t *testing.T) {
	const n = 2_000_000
	wedgeless := func(r *PCG) float64 { // the fast path, and x itself otherwise
		b := r.Uint64()
		i := b & (zigLayers - 1)
		x := float64(b>>11) * zigExp[i].w
		if i == 0 && x >= zigR {
			return zigR - fmath.Log(1-r.Float64())
		}
		return x
	}
	for _, c := range []struct {
		name string
		draw func(*PCG) float64
	}{
		{"every wedge point accepted", wedgeless},
		{"mean 1.01", func(r *PCG) float64 { return -1.01 * fmath.Log(1-r.Float64()) }},
	} {
		r := New(1, 3)
		draws := make([]float64, n)
		for i := range draws {
			draws[i] = c.draw(r)
		}
		if err := expCheck(draws); err == nil {
			t.Errorf("%s: expCheck passed, want a failure", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
}
