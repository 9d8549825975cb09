// Package fit fits measured service times to the distributions a scenario's
// service_time takes (exp, erlang, gamma, hyperexp, lognormal, empirical),
// measures each candidate's Kolmogorov–Smirnov distance to the samples and
// picks one by a stated criterion (docs/fit.md); samples that are whole
// milliseconds, durations between two millisecond stamps, are fitted as
// such ([FitWith]: the likelihood and the distance of each family's
// distribution as the stamps would show it). It is a leaf below core:
// its Dist has the JSON shape of scenario.Dist, so a fit is pasted into a
// scenario as it is. Everything is deterministic: the same samples give the
// same bytes, natively and in WebAssembly (logs and exponentials through
// fmath, parameters rounded to four significant digits, distances to four
// decimals).
package fit

import (
	"math"
	"slices"
	"strconv"

	"github.com/tuxlb/tuxlb/core/internal/ci"
	"github.com/tuxlb/tuxlb/core/internal/fmath"
)

// Dist is a distribution as a scenario's service_time spells it (the JSON
// shape of scenario.Dist).
type Dist struct {
	Dist      string    `json:"dist"`
	MS        *float64  `json:"ms,omitempty"`
	MeanMS    *float64  `json:"mean_ms,omitempty"`
	SDMS      *float64  `json:"sd_ms,omitempty"`
	Shape     *float64  `json:"shape,omitempty"`
	K         *int      `json:"k,omitempty"`
	SamplesMS []float64 `json:"samples_ms,omitempty"`
}

// Candidate is one family fitted to the samples, with its distance.
type Candidate struct {
	Family     string  `json:"family"`
	Parameters int     `json:"parameters"`       // free parameters (an empirical's: its points)
	KS         float64 `json:"ks"`               // Kolmogorov–Smirnov distance to the samples
	Fit        *Dist   `json:"fit,omitempty"`    // omitted for the empirical (it is the result's fit when chosen)
	Points     int     `json:"points,omitempty"` // the empirical's number of points
}

// Result is the fit of one set of samples.
type Result struct {
	Samples int     `json:"samples"`
	MeanMS  float64 `json:"mean_ms"`
	SDMS    float64 `json:"sd_ms"`
	// MeanCIMS is the mean's 95% interval [lo, hi]: mean ± t(0.975, n−1)
	// · sd / √n (Student's t), the samples taken as independent (a
	// service's executions are, unlike its responses); omitted below 2.
	MeanCIMS   *[2]float64 `json:"mean_ci_ms,omitempty"`
	Fit        *Dist       `json:"fit"`
	KS         float64     `json:"ks"`
	Choice     string      `json:"choice"` // why Fit was chosen, in words
	Candidates []Candidate `json:"candidates"`
	// ResolutionMS is the grid the samples were fitted on (FitWith), 0
	// (omitted) for samples fitted as exact values.
	ResolutionMS float64 `json:"resolution_ms,omitempty"`
	// Warning says what the samples cannot show (most of them 0 on the grid).
	Warning string `json:"warning,omitempty"`
}

// MaxPoints is the most points an empirical fit keeps: beyond it, evenly
// spaced order statistics of the samples.
const MaxPoints = 1000

// The families, simplest first: the order in which the criterion prefers
// them when their distances are within the margin of the best.
var families = []string{"exp", "erlang", "gamma", "hyperexp", "lognormal"}

// Margin is how much farther (in KS distance) than the best parametric fit
// a simpler family may be and still be chosen: max(0.005, 0.5/√n).
func Margin(n int) float64 { return max(0.005, 0.5/math.Sqrt(float64(n))) }

// Threshold is the KS distance above which no parametric family is kept and
// the empirical distribution is chosen: max(0.03, 1.63/√n), the 1% critical
// value of the Kolmogorov test, floored so that a long log does not refuse
// a family over differences too small to change a queue.
func Threshold(n int) float64 { return max(0.03, 1.63/math.Sqrt(float64(n))) }

// Fit fits the samples (milliseconds, >= 0, any order; not modified). It
// returns nil for no samples.
func Fit(samplesMS []float64) *Result {
	n := len(samplesMS)
	if n == 0 {
		return nil
	}
	x := slices.Clone(samplesMS)
	slices.Sort(x)
	mean, sd := moments(x)
	r := &Result{Samples: n, MeanMS: sig4(mean), SDMS: sig4(sd), MeanCIMS: meanCI(n, mean, sd)}
	if x[0] == x[n-1] { // every sample the same: a constant fits exactly
		r.Fit = &Dist{Dist: "const", MS: ptr(roundUS(x[0]))}
		r.Choice = "every sample is the same: a constant"
		r.Candidates = []Candidate{{Family: "const", Parameters: 1, KS: 0, Fit: r.Fit}}
		return r
	}
	for _, fam := range families {
		d := fitFamily(fam, x, mean, sd)
		if d == nil {
			continue
		}
		cdf := cdfOf(d)
		r.Candidates = append(r.Candidates, Candidate{Family: fam, Parameters: 2 - b2i(fam == "exp"),
			KS: round4(ksContinuous(x, cdf)), Fit: d})
	}
	emp := empirical(x)
	r.Candidates = append(r.Candidates, Candidate{Family: "empirical", Parameters: len(emp.SamplesMS),
		KS: round4(ksSteps(x, emp.SamplesMS)), Points: len(emp.SamplesMS)})
	return choose(r, n, "", emp, "empirical")
}

// choose applies the criterion to r's candidates (the empirical last, fit
// as emp): the simplest parametric family within the margin of the best
// distance, under the threshold, else the empirical (named empWhat). how
// says on what the distances were measured (" on the 1 ms grid ...", or ""
// for the samples as they are), for the choice's words.
func choose(r *Result, n int, how string, emp *Dist, empWhat string) *Result {
	best := math.Inf(1)
	for _, c := range r.Candidates[:len(r.Candidates)-1] {
		best = min(best, c.KS)
	}
	margin, threshold := Margin(n), Threshold(n)
	for _, c := range r.Candidates[:len(r.Candidates)-1] {
		if c.KS <= best+margin {
			if c.KS > threshold {
				break
			}
			r.Fit, r.KS = c.Fit, c.KS
			r.Choice = "the simplest family within " + f4(margin) + " of the best parametric distance (" + f4(best) + ")" + how +
				", under the threshold " + f4(threshold)
			return r
		}
	}
	e := r.Candidates[len(r.Candidates)-1]
	r.Fit, r.KS = emp, e.KS
	r.Choice = empWhat + ": no parametric family within the threshold " + f4(threshold) + " (best " + f4(best) + ")" + how
	return r
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// meanCI is Result.MeanCIMS of n samples of that mean and standard
// deviation: nil below 2.
func meanCI(n int, mean, sd float64) *[2]float64 {
	if n < 2 {
		return nil
	}
	h := ci.T975(n-1) * sd / math.Sqrt(float64(n))
	return &[2]float64{sig4(max(mean-h, 0)), sig4(mean + h)}
}

// moments returns the mean and the standard deviation (n-1) of x.
func moments(x []float64) (mean, sd float64) {
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	mean = sum / float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, v := range x {
		d := v - mean
		ss += float64(d * d)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}

// floorMS is the smallest sample the log-based estimators take (a zero of a
// millisecond-resolution log counts as one microsecond).
const floorMS = 0.001

// logMoments returns the mean and the variance (n) of ln max(x, floorMS).
func logMoments(x []float64) (mu, v float64) {
	sum := 0.0
	for _, s := range x {
		sum += fmath.Log(max(s, floorMS))
	}
	mu = sum / float64(len(x))
	for _, s := range x {
		d := fmath.Log(max(s, floorMS)) - mu
		v += float64(d * d)
	}
	return mu, v / float64(len(x))
}

// fitFamily returns fam's fit to the sorted samples x, nil when the family
// cannot fit them (a hyperexponential needs sd > mean; an erlang of k = 1 is
// the exponential).
func fitFamily(fam string, x []float64, mean, sd float64) *Dist {
	m := max(sig4(mean), floorMS)
	switch fam {
	case "exp": // maximum likelihood: the sample mean
		return &Dist{Dist: "exp", MeanMS: ptr(m)}
	case "gamma": // maximum likelihood (Minka's start, Newton steps); the mean is the sample mean
		return &Dist{Dist: "gamma", MeanMS: ptr(m), Shape: ptr(sig4(gammaShape(x, mean)))}
	case "erlang": // the gamma's shape rounded to a whole number of phases
		k := int(math.Round(gammaShape(x, mean)))
		if k < 2 {
			return nil
		}
		return &Dist{Dist: "erlang", MeanMS: ptr(m), K: ptr(min(k, 10_000))}
	case "hyperexp": // moments: the sample mean and standard deviation
		s := sig4(sd)
		if s <= m {
			return nil
		}
		return &Dist{Dist: "hyperexp", MeanMS: ptr(m), SDMS: ptr(s)}
	case "lognormal": // maximum likelihood on the logs, given as the mean and sd it implies
		mu, v := logMoments(x)
		lm := fmath.Exp(mu + v/2)
		ls := lm * math.Sqrt(max(fmath.Exp(v)-1, 0))
		if !(lm > 0) || lm > 1e9 || ls > 1e9 || math.IsNaN(ls) {
			return nil
		}
		return &Dist{Dist: "lognormal", MeanMS: ptr(max(sig4(lm), floorMS)), SDMS: ptr(sig4(ls))}
	}
	return nil
}

// gammaShape is the maximum-likelihood shape of a gamma fitted to x, within
// the engine's range [0.001, 1e6].
func gammaShape(x []float64, mean float64) float64 {
	mu, _ := logMoments(x)
	s := fmath.Log(max(mean, floorMS)) - mu
	if !(s > 1e-12) {
		return 1e6
	}
	k := (3 - s + math.Sqrt(float64((s-3)*(s-3))+24*s)) / (12 * s)
	for range 20 {
		step := (fmath.Log(k) - digamma(k) - s) / (1/k - trigamma(k))
		next := k - step
		if next <= 0 {
			next = k / 2
		}
		if math.Abs(next-k) <= 1e-12*k {
			k = next
			break
		}
		k = next
	}
	return min(max(k, 1e-3), 1e6)
}

// digamma is ψ(x) for x > 0: the recurrence up to 6, then the asymptotic series.
func digamma(x float64) float64 {
	r := 0.0
	for x < 6 {
		r -= 1 / x
		x++
	}
	f := 1 / float64(x*x)
	return r + fmath.Log(x) - 0.5/x - f*(1.0/12-f*(1.0/120-f*(1.0/252-f*(1.0/240-f/132))))
}

// trigamma is ψ'(x) for x > 0.
func trigamma(x float64) float64 {
	r := 0.0
	for x < 6 {
		r += 1 / float64(x*x)
		x++
	}
	f := 1 / float64(x*x)
	return r + 1/x + f/2 + f/x*(1.0/6-f*(1.0/30-f*(1.0/42-f/30)))
}

// empirical keeps the samples, or MaxPoints evenly spaced order statistics
// of them, each rounded to the microsecond.
func empirical(x []float64) *Dist {
	n := len(x)
	m := min(n, MaxPoints)
	pts := make([]float64, m)
	for i := range m {
		pts[i] = roundUS(x[(2*i+1)*n/(2*m)])
	}
	return &Dist{Dist: "empirical", SamplesMS: pts}
}

// cdfOf returns the distribution function of d, with its parameters as d
// gives them (rounded), as the engine reads them.
func cdfOf(d *Dist) func(float64) float64 {
	mean := *d.MeanMS
	switch d.Dist {
	case "exp":
		return func(x float64) float64 { return 1 - fmath.Exp(-x/mean) }
	case "gamma":
		k := *d.Shape
		return func(x float64) float64 { return gammaP(k, x*k/mean) }
	case "erlang":
		k := float64(*d.K)
		return func(x float64) float64 { return gammaP(k, x*k/mean) }
	case "hyperexp":
		cv := *d.SDMS / mean
		cv2 := float64(cv * cv)
		p := 0.5 * (1 + math.Sqrt((cv2-1)/(cv2+1)))
		m1, m2 := mean/(2*p), mean/(2*(1-p))
		return func(x float64) float64 {
			return float64(p*(1-fmath.Exp(-x/m1))) + float64((1-p)*(1-fmath.Exp(-x/m2)))
		}
	case "lognormal":
		sd := *d.SDMS
		v := fmath.Log(1 + float64(sd/mean)*float64(sd/mean))
		mu, sigma := fmath.Log(mean)-v/2, math.Sqrt(v)
		return func(x float64) float64 {
			if x <= 0 {
				return 0
			}
			if sigma == 0 {
				return b2f(fmath.Log(x) >= mu)
			}
			return 0.5 * math.Erfc(-(fmath.Log(x)-mu)/(sigma*math.Sqrt2))
		}
	}
	panic("fit: no cdf for " + d.Dist)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// gammaP is the regularized lower incomplete gamma function P(a, x): its
// series below a+1, its continued fraction above (Numerical Recipes' gammp);
// above a = 1000 (where the series would take thousands of terms per
// sample), the Wilson–Hilferty normal approximation, whose error there is
// below 1e-4.
func gammaP(a, x float64) float64 {
	p, _ := gammaPQ(a, x)
	return p
}

// gammaPQ is P(a, x) and its complement Q(a, x) = 1 − P(a, x), each from
// the side that computes it without cancellation: the series gives P (Q is
// 1 − P, not small there), the continued fraction gives Q (P is 1 − Q).
func gammaPQ(a, x float64) (p, q float64) {
	if x <= 0 {
		return 0, 1
	}
	if a > 1000 {
		v := 1 / (9 * a)
		z := (math.Cbrt(x/a) - (1 - v)) / (math.Sqrt(v) * math.Sqrt2)
		return 0.5 * math.Erfc(-z), 0.5 * math.Erfc(z)
	}
	lg, _ := math.Lgamma(a)
	lead := float64(a*fmath.Log(x)) - x - lg
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1.0; n < 100000; n++ {
			term *= x / (a + n)
			sum += term
			if math.Abs(term) < math.Abs(sum)*1e-15 {
				break
			}
		}
		p = min(sum*fmath.Exp(lead), 1)
		return p, 1 - p
	}
	const tiny = 1e-300
	b := x + 1 - a
	c := 1 / tiny
	d := 1 / b
	h := d
	for i := 1.0; i < 100000; i++ {
		an := -i * (i - a)
		b += 2
		d = float64(an*d) + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := float64(d * c)
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	q = min(fmath.Exp(lead)*h, 1)
	return max(1-fmath.Exp(lead)*h, 0), q
}

// ksContinuous is sup |F(x) − Fn(x)| for a continuous F and the sorted
// samples x (ties allowed): at each distinct value, against the empirical
// function just below it and at it.
func ksContinuous(x []float64, cdf func(float64) float64) float64 {
	n := float64(len(x))
	d := 0.0
	for i := 0; i < len(x); {
		j := i
		for j < len(x) && x[j] == x[i] {
			j++
		}
		f := cdf(x[i])
		d = max(d, math.Abs(f-float64(i)/n), math.Abs(f-float64(j)/n))
		i = j
	}
	return d
}

// ksSteps is sup |G(x) − Fn(x)| for two step functions, the empirical ones
// of the sorted samples x and of the sorted points pts: both are constant
// between the points of either, so the jump points are where to look.
func ksSteps(x, pts []float64) float64 {
	nx, np := float64(len(x)), float64(len(pts))
	i, j, d := 0, 0, 0.0
	for i < len(x) || j < len(pts) {
		var v float64
		switch {
		case j >= len(pts) || i < len(x) && x[i] <= pts[j]:
			v = x[i]
		default:
			v = pts[j]
		}
		for i < len(x) && x[i] <= v {
			i++
		}
		for j < len(pts) && pts[j] <= v {
			j++
		}
		d = max(d, math.Abs(float64(i)/nx-float64(j)/np))
	}
	return d
}

func ptr[T any](v T) *T { return &v }

// sig4 rounds x to four significant digits.
func sig4(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}

// round4 rounds a distance to four decimals.
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// roundUS rounds milliseconds to the microsecond.
func roundUS(x float64) float64 { return math.Round(x*1000) / 1000 }

func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

// Shift moves the fit of samples that were taken c ms short (or long, c
// below 0) of the durations: every mean by c (the mean's interval too),
// each family keeping its other parameter (the sd of a lognormal or a
// hyperexponential, the shape of a gamma, the phases of an erlang), a
// constant's or an empirical's points by c (at least 1 µs). The distances
// and the choice stay those of the samples. A hyperexponential whose sd
// would no longer be above its mean is left as it is.
func (r *Result) Shift(c float64) {
	if r == nil || c == 0 {
		return
	}
	r.MeanMS = sig4(r.MeanMS + c)
	if r.MeanCIMS != nil {
		r.MeanCIMS = &[2]float64{sig4(r.MeanCIMS[0] + c), sig4(r.MeanCIMS[1] + c)}
	}
	shiftDist(r.Fit, c)
	for i := range r.Candidates {
		if d := r.Candidates[i].Fit; d != r.Fit { // the chosen one is shared
			shiftDist(d, c)
		}
	}
}

func shiftDist(d *Dist, c float64) {
	if d == nil {
		return
	}
	switch {
	case d.MS != nil:
		d.MS = ptr(max(roundUS(*d.MS+c), 0.001))
	case d.SamplesMS != nil:
		for i, v := range d.SamplesMS {
			d.SamplesMS[i] = max(roundUS(v+c), 0.001)
		}
	case d.MeanMS != nil:
		m := *d.MeanMS + c
		if m <= 0 || d.Dist == "hyperexp" && d.SDMS != nil && *d.SDMS <= m {
			return
		}
		d.MeanMS = ptr(sig4(m))
	}
}
