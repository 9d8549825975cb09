package dist

import (
	"math"

	"github.com/tuxlb/tuxlb/core/internal/fmath"
	"github.com/tuxlb/tuxlb/core/internal/rng"
)

// Normal draws a standard normal value by Marsaglia's polar method, which
// needs only log and sqrt. The second value of the pair is dropped so that a
// Sampler holds no state between draws.
func Normal(r *rng.PCG) float64 {
	for {
		u := float64(2*r.Float64()) - 1
		v := float64(2*r.Float64()) - 1
		s := float64(u*u) + float64(v*v)
		if s > 0 && s < 1 {
			return float64(u * math.Sqrt(float64(-2*fmath.Log(s))/s))
		}
	}
}

// Const is a constant duration (ms).
type Const float64

func (c Const) SampleMS(*rng.PCG) float64 { return float64(c) }
func (c Const) MeanMS() float64           { return float64(c) }

// Exp is the exponential distribution of the given mean (ms).
type Exp float64

func (e Exp) SampleMS(r *rng.PCG) float64 { return float64(float64(e) * r.ExpFloat64()) }
func (e Exp) MeanMS() float64             { return float64(e) }

// Uniform is uniform on [lo, lo+width) ms.
type Uniform struct{ lo, width float64 }

func (u Uniform) SampleMS(r *rng.PCG) float64 { return float64(u.width*r.Float64()) + u.lo }
func (u Uniform) MeanMS() float64             { return u.lo + u.width/2 }

// lognormalDist is exp(mu + sigma·Z), with mu and sigma derived from the
// distribution's own mean m and standard deviation s:
// sigma² = ln(1 + s²/m²), mu = ln(m) - sigma²/2.
type lognormalDist struct{ mu, sigma, mean float64 }

func newLognormal(mean, sd float64) Sampler {
	if sd == 0 {
		return Const(mean)
	}
	cv := sd / mean
	v := fmath.Log(1 + float64(cv*cv))
	return lognormalDist{mu: fmath.Log(mean) - v/2, sigma: math.Sqrt(v), mean: mean}
}

func (l lognormalDist) SampleMS(r *rng.PCG) float64 {
	return fmath.Exp(float64(l.sigma*Normal(r)) + l.mu)
}
func (l lognormalDist) MeanMS() float64 { return l.mean }

// Empirical draws one of its samples, each as likely.
type Empirical struct {
	samples []float64
	mean    float64
}

func (e Empirical) SampleMS(r *rng.PCG) float64 { return e.samples[r.IntN(len(e.samples))] }
func (e Empirical) MeanMS() float64             { return e.mean }

// gammaDist uses Marsaglia and Tsang's method (2000) for shape >= 1; for
// shape < 1 it draws with shape+1 and multiplies by U^(1/shape).
type gammaDist struct {
	shape, scale, mean float64
	d, c               float64 // Marsaglia–Tsang constants for max(shape, shape+1)
}

func newGamma(shape, mean float64) Sampler {
	a := shape
	if a < 1 {
		a++
	}
	d := a - 1.0/3
	return gammaDist{shape: shape, scale: mean / shape, mean: mean, d: d, c: 1 / math.Sqrt(9*d)}
}

func (g gammaDist) SampleMS(r *rng.PCG) float64 {
	x := g.unit(r)
	if g.shape < 1 {
		u := 1 - r.Float64() // (0, 1]
		x = float64(x * fmath.Exp(fmath.Log(u)/g.shape))
	}
	return float64(x * g.scale)
}

// unit draws Gamma(a, 1) for a = g.d + 1/3 >= 1.
func (g gammaDist) unit(r *rng.PCG) float64 {
	for {
		z := Normal(r)
		v := float64(g.c*z) + 1
		if v <= 0 {
			continue
		}
		v = float64(float64(v*v) * v)
		u := 1 - r.Float64()
		if fmath.Log(u) < float64(0.5*z*z)+float64(g.d*(1-v+fmath.Log(v))) {
			return float64(g.d * v)
		}
	}
}

func (g gammaDist) MeanMS() float64 { return g.mean }

// erlangDist sums k exponential phases of mean mean/k.
type erlangDist struct {
	k           int
	mean, scale float64
}

func (e erlangDist) SampleMS(r *rng.PCG) float64 {
	sum := 0.0
	for range e.k {
		sum += r.ExpFloat64()
	}
	return float64(sum * e.scale)
}
func (e erlangDist) MeanMS() float64 { return e.mean }

// hyperexpDist is a balanced two-phase hyperexponential (dist.go).
type hyperexpDist struct{ p, m1, m2, mean float64 }

func (h hyperexpDist) SampleMS(r *rng.PCG) float64 {
	if r.Float64() < h.p {
		return float64(h.m1 * r.ExpFloat64())
	}
	return float64(h.m2 * r.ExpFloat64())
}
func (h hyperexpDist) MeanMS() float64 { return h.mean }

// weibullDist draws scale × E^(1/k) for E exponential of mean 1 (the
// inverse of the CDF 1 - exp(-(x/scale)^k)), with the portable log and exp.
type weibullDist struct{ inv, scale, mean float64 }

func (w weibullDist) SampleMS(r *rng.PCG) float64 {
	e := r.ExpFloat64()
	if e == 0 {
		return 0
	}
	return float64(w.scale * fmath.Exp(float64(w.inv*fmath.Log(e))))
}
func (w weibullDist) MeanMS() float64 { return w.mean }

// gammaFn is Γ(z) for z >= 1: shifted up to w = z + n >= 15 by the
// recurrence Γ(z) = Γ(z+n) / (z (z+1) ... (z+n-1)), where Stirling's series
// for ln Γ(w) to its 1/w^11 term is exact to about 1e-16; with the portable
// log and exp, so that it gives the same bits natively and in WebAssembly.
func gammaFn(z float64) float64 {
	prod := 1.0
	w := z
	for w < 15 {
		prod = float64(prod * w)
		w++
	}
	inv := 1 / w
	inv2 := float64(inv * inv)
	// 1/(12w) - 1/(360w^3) + 1/(1260w^5) - 1/(1680w^7) + 1/(1188w^9) - 691/(360360w^11), by Horner
	c := -691.0 / 360360
	c = float64(c*inv2) + 1.0/1188
	c = float64(c*inv2) - 1.0/1680
	c = float64(c*inv2) + 1.0/1260
	c = float64(c*inv2) - 1.0/360
	c = float64(c*inv2) + 1.0/12
	series := float64(c * inv)
	lg := float64(float64(w-0.5)*fmath.Log(w)) - w + 0.91893853320467274178 + series // ½ ln 2π
	return fmath.Exp(lg) / prod
}
