package fit

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/internal/fmath"
)

// Options say how the samples were measured.
type Options struct {
	// ResolutionUS, when above 0, says the samples are durations between
	// two clock stamps of that resolution (1000: a ULOG's millisecond
	// stamps), each stamp truncated to it. When every sample is a whole
	// multiple of it, the samples are fitted as such (docs/fit.md, "Samples
	// in whole milliseconds"); otherwise, and with 0, as exact values ([Fit]).
	ResolutionUS int64
	// Spans, when not nil, gives for each sample how many differences of
	// stamps it sums: 1 for a span between two stamps, 1 + w for a ULOG
	// execution's own work, its span less w waits (tpcalls, tpgetrplys)
	// each between two stamps of their own. A sum of more differences has
	// a wider error (docs/fit.md); counts above MaxSpans count as MaxSpans.
	// Nil (or of another length than the samples) is 1 for every sample,
	// and so is any count when the samples' sd is above 20 steps.
	Spans []int
}

// MaxSpans is the most differences of stamps a sample's error model takes.
const MaxSpans = 4

// FitWith fits the samples as [Fit] does, on the grid o gives when every
// sample lies on it.
func FitWith(samplesMS []float64, o Options) *Result {
	if o.ResolutionUS <= 0 || !OnGrid(samplesMS, o.ResolutionUS) {
		return Fit(samplesMS)
	}
	spans := o.Spans
	if len(spans) != len(samplesMS) {
		spans = nil
	}
	return fitGrid(samplesMS, o.ResolutionUS, spans)
}

// OnGrid says every sample (ms) is a whole multiple of resUS microseconds
// (and not negative).
func OnGrid(samplesMS []float64, resUS int64) bool {
	if resUS <= 0 {
		return false
	}
	for _, v := range samplesMS {
		us := math.Round(v * 1000)
		if !(v >= 0) || math.Abs(v*1000-us) > 1e-6 || us > 1e15 || int64(us)%resUS != 0 {
			return false
		}
	}
	return true
}

// maxBins is the most distinct values the grid likelihood and distance
// take one by one: samples of more are counted in maxBins cells of about
// equal counts.
const maxBins = 1000

// spreadSteps is the samples' standard deviation (grid steps) above which
// every sample is taken for one difference of stamps, whatever Spans says:
// the variance the others add, (m−1)/6 step² with m <= MaxSpans, is then
// under 1/800 of the samples'.
const spreadSteps = 20

// zeroShare is the share of 0 samples from which the report warns that the
// stamps cannot resolve the service time.
const zeroShare = 0.5

// histogram is grid samples counted per value (grid steps).
type histogram struct {
	vals   []int64 // distinct values, increasing
	counts []int   // their counts
	n      int
}

func newHistogram(samplesMS []float64, resUS int64) histogram {
	k := make([]int64, len(samplesMS))
	for i, v := range samplesMS {
		k[i] = int64(math.Round(v*1000)) / resUS
	}
	slices.Sort(k)
	h := histogram{n: len(k)}
	for i := 0; i < len(k); {
		j := i
		for j < len(k) && k[j] == k[i] {
			j++
		}
		h.vals = append(h.vals, k[i])
		h.counts = append(h.counts, j-i)
		i = j
	}
	return h
}

// moments are the mean and the standard deviation (n−1) of the counted
// values, in grid steps.
func (h histogram) moments() (mean, sd float64) {
	sum := 0.0
	for i, v := range h.vals {
		sum += float64(float64(h.counts[i]) * float64(v))
	}
	mean = sum / float64(h.n)
	if h.n < 2 {
		return mean, 0
	}
	ss := 0.0
	for i, v := range h.vals {
		d := float64(v) - mean
		ss += float64(float64(h.counts[i]) * float64(d*d))
	}
	return mean, math.Sqrt(ss / float64(h.n-1))
}

// cells are the histogram's counts in cells that cover the grid from 0 to
// the largest value: cell j holds the values above top[j−1] up to top[j].
// With at most maxBins distinct values, each value is a cell and each gap
// between two of them another (of count 0); with more, the values are
// merged into maxBins cells of about n/maxBins samples each.
type cells struct {
	top    []int64
	counts []int
	cum    []float64 // the share of samples at or below each cell's top
	merged bool
}

func (h histogram) cells() cells {
	var c cells
	add := func(top int64, k int) {
		c.top = append(c.top, top)
		c.counts = append(c.counts, k)
	}
	if len(h.vals) <= maxBins {
		prev := int64(-1)
		for i, v := range h.vals {
			if v-1 > prev {
				add(v-1, 0)
			}
			add(v, h.counts[i])
			prev = v
		}
	} else {
		c.merged = true
		acc, target := 0, float64(h.n)/maxBins
		for i, v := range h.vals {
			acc += h.counts[i]
			if float64(acc) >= target || i == len(h.vals)-1 {
				add(v, acc)
				acc = 0
			}
		}
	}
	c.cum = make([]float64, len(c.counts))
	run := 0
	for j, k := range c.counts {
		run += k
		c.cum[j] = float64(run) / float64(h.n)
	}
	return c
}

// partials returns, for a continuous distribution X of mean m (grid steps)
// and t >= 0, G(t) = E[(t−X)⁺] = ∫₀ᵗ F and H(t) = E[(X−t)⁺] = ∫ₜ^∞ (1−F):
// the rounded distribution is their differences (gridModel).
type partials func(t float64) (g, h float64)

// phi is the standard normal distribution function.
func phi(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// partialsOf is d's G and H in grid steps of res ms, with d's parameters as
// given (the engine's reading of them, as cdfOf).
func partialsOf(d *Dist, res float64) partials {
	mean := *d.MeanMS / res
	expo := func(m float64) partials {
		return func(t float64) (float64, float64) {
			return t + float64(m*math.Expm1(-t/m)), float64(m * fmath.Exp(-t/m))
		}
	}
	gam := func(k float64) partials {
		return func(t float64) (float64, float64) {
			x := t * k / mean
			p0, q0 := gammaPQ(k, x)
			p1, q1 := gammaPQ(k+1, x)
			return float64(t*p0) - float64(mean*p1), float64(mean*q1) - float64(t*q0)
		}
	}
	switch d.Dist {
	case "exp":
		return expo(mean)
	case "gamma":
		return gam(*d.Shape)
	case "erlang":
		return gam(float64(*d.K))
	case "hyperexp":
		cv := *d.SDMS / *d.MeanMS
		cv2 := float64(cv * cv)
		p := 0.5 * (1 + math.Sqrt((cv2-1)/(cv2+1)))
		a, b := expo(mean/(2*p)), expo(mean/(2*(1-p)))
		return func(t float64) (float64, float64) {
			ga, ha := a(t)
			gb, hb := b(t)
			return float64(p*ga) + float64((1-p)*gb), float64(p*ha) + float64((1-p)*hb)
		}
	case "lognormal":
		cv := *d.SDMS / *d.MeanMS
		v := fmath.Log(1 + float64(cv*cv))
		mu, sigma := fmath.Log(mean)-v/2, math.Sqrt(v)
		return func(t float64) (float64, float64) {
			if t <= 0 {
				return 0, mean
			}
			if sigma == 0 {
				return max(t-mean, 0), max(mean-t, 0)
			}
			z := (fmath.Log(t) - mu) / sigma
			return float64(t*phi(z)) - float64(mean*phi(z-sigma)), float64(mean*phi(sigma-z)) - float64(t*phi(-z))
		}
	}
	panic("fit: no partials for " + d.Dist)
}

// gauss6 are the 6-point Gauss–Legendre nodes and weights on [−1, 1].
var gauss6 = [6][2]float64{
	{-0.9324695142031521, 0.1713244923791704}, {-0.6612093864662645, 0.3607615730481386},
	{-0.2386191860831909, 0.4679139345726910}, {0.2386191860831909, 0.4679139345726910},
	{0.6612093864662645, 0.3607615730481386}, {0.9324695142031521, 0.1713244923791704},
}

// bspline is the centered cardinal B-spline of order n (the density of
// the sum of n uniforms on [−½, ½)) at x.
func bspline(n int, x float64) float64 {
	sum, binom, fact := 0.0, 1.0, 1.0
	for k := 2; k < n; k++ {
		fact *= float64(k)
	}
	for k := 0; k <= n; k++ {
		if y := x + float64(n)/2 - float64(k); y > 0 {
			sum += float64(binom * math.Pow(y, float64(n-1)))
		}
		binom = -binom * float64(n-k) / float64(k+1)
	}
	return sum / fact
}

// smoothed returns part for a sum of m differences of stamps, at whole t:
// its error is that of one difference (what the grid model takes) plus an
// independent error of m−1 more, whose density is the B-spline of order
// 2m−2 on (−(m−1), m−1); so G and H become their averages over it,
// G̃(t) = ∫ G(t − e) B(e) de, by 6-point Gauss–Legendre on each unit piece
// (where B is a polynomial). G(s) = 0 and H(s) = mean − s for s <= 0. The
// points t − e are whole numbers plus one of six fractions, the same for
// every m: at ks they are computed once for all the groups.
func smoothed(at *nodeValues, m int, mean float64) partials {
	if m <= 1 {
		return at.part
	}
	type node struct {
		back int64 // t − e = (t − back) + gaussFrac[i]
		i    int
		w    float64
	}
	var nodes []node
	for piece := -(m - 1); piece < m-1; piece++ {
		for i, g := range gauss6 {
			e := float64(piece) + (1+g[0])/2
			nodes = append(nodes, node{back: int64(piece) + 1, i: i, w: float64(g[1]/2) * bspline(2*m-2, e)})
		}
	}
	return func(t float64) (float64, float64) {
		var g, h float64
		for _, nd := range nodes {
			gs, hs := at.get(int64(t)-nd.back, nd.i, mean)
			g += float64(nd.w * gs)
			h += float64(nd.w * hs)
		}
		return g, h
	}
}

// gaussFrac are the fractions 1 − (1+ξ)/2 of the Gauss nodes ξ: a node's
// point t − e is a whole number plus one of them.
var gaussFrac = func() (f [6]float64) {
	for i, g := range gauss6 {
		f[i] = (1 - g[0]) / 2
	}
	return f
}()

// nodeValues caches part at the points k + gaussFrac[i].
type nodeValues struct {
	part partials
	vals map[int64]*[6][2]float64
	done map[int64]*[6]bool
}

func (n *nodeValues) get(k int64, i int, mean float64) (float64, float64) {
	s := float64(k) + gaussFrac[i]
	if s <= 0 {
		return 0, mean - s
	}
	v, ok := n.vals[k]
	if !ok {
		v = new([6][2]float64)
		n.vals[k] = v
		n.done[k] = new([6]bool)
	}
	if d := n.done[k]; !d[i] {
		v[i][0], v[i][1] = n.part(s)
		d[i] = true
	}
	return v[i][0], v[i][1]
}

// gridModel is a distribution as the stamps show it, at the cells' tops:
// for each cell j, the probability of a duration at or below its top, from
// below (cdf) and from above (sf = 1 − cdf), each the side that does not
// cancel, and the probability of the cell.
//
// A duration x between stamps truncated to the grid, the first at a phase u
// uniform in [0, 1) steps, reads D = ⌊u + x⌋; so P(D ≤ d) = P(X + U < d+1)
// = ∫₀¹ F(d+1−u) du = G(d+1) − G(d), and P(D > d) = H(d) − H(d+1).
type gridModel struct {
	cdf, sf, p []float64
}

func newGridModel(c cells, part partials, mean float64) gridModel {
	b := len(c.counts)
	m := gridModel{cdf: make([]float64, b), sf: make([]float64, b), p: make([]float64, b)}
	tPrev := 0.0
	gPrev, hPrev := part(0)
	for j := range b {
		t0 := float64(c.top[j])
		t1 := t0 + 1
		g0, h0 := gPrev, hPrev
		if t0 != tPrev {
			g0, h0 = part(t0)
		}
		g1, h1 := part(t1)
		m.cdf[j], m.sf[j] = g1-g0, h0-h1
		tPrev, gPrev, hPrev = t1, g1, h1
		switch {
		case t1 <= mean && j == 0:
			m.p[j] = m.cdf[j]
		case t1 <= mean:
			m.p[j] = m.cdf[j] - m.cdf[j-1]
		case j == 0:
			m.p[j] = 1 - m.sf[j]
		default:
			m.p[j] = m.sf[j-1] - m.sf[j]
		}
	}
	return m
}

// logLik is Σ count·ln p over the cells.
func (m gridModel) logLik(c cells) float64 {
	ll := 0.0
	for j, k := range c.counts {
		if k > 0 {
			ll += float64(float64(k) * fmath.Log(max(m.p[j], 1e-300)))
		}
	}
	return ll
}

// group is the samples made of m differences of stamps, counted per cell.
type group struct {
	m      int
	counts []int
	share  float64
}

// gridData is the samples as the grid fit takes them: their cells and
// their groups by number of differences.
type gridData struct {
	c      cells
	groups []group
	res    float64
}

// models is d as each group's stamps show it.
func (g gridData) models(d *Dist) []gridModel {
	mean := *d.MeanMS / g.res
	at := &nodeValues{part: partialsOf(d, g.res), vals: map[int64]*[6][2]float64{}, done: map[int64]*[6]bool{}}
	out := make([]gridModel, len(g.groups))
	for i, gr := range g.groups {
		out[i] = newGridModel(g.c, smoothed(at, gr.m, mean), mean)
	}
	return out
}

// logLik is the log-likelihood of the counts under d.
func (g gridData) logLik(d *Dist) float64 {
	ll := 0.0
	for i, m := range g.models(d) {
		ll += m.logLik(cells{counts: g.groups[i].counts})
	}
	return ll
}

// ks is the largest gap between the samples' distribution function and
// d's as the stamps show it (the mixture over the groups), at the cells'
// tops: with a cell for each value and each gap, every point where either
// steps, which is the supremum over the grid.
func (g gridData) ks(d *Dist) float64 {
	mean := *d.MeanMS / g.res
	ms := g.models(d)
	dist := 0.0
	for j, f := range g.c.cum {
		cdf := 0.0
		for i, m := range ms {
			v := m.cdf[j]
			if float64(g.c.top[j]+1) > mean {
				v = 1 - m.sf[j]
			}
			cdf += float64(g.groups[i].share * v)
		}
		dist = max(dist, math.Abs(f-cdf))
	}
	return dist
}

// golden maximizes f on [lo, hi] by golden-section search, a fixed number
// of steps (the interval shrinks to 0.618⁴⁰ ≈ 4·10⁻⁹ of its width).
func golden(f func(float64) float64, lo, hi float64) float64 {
	const r = 0.6180339887498949
	a, b := lo, hi
	x1, x2 := b-float64(r*(b-a)), a+float64(r*(b-a))
	f1, f2 := f(x1), f(x2)
	for range 40 {
		if f1 >= f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - float64(r*(b-a))
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + float64(r*(b-a))
			f2 = f(x2)
		}
	}
	if f1 >= f2 {
		return x1
	}
	return x2
}

// gridFamily returns fam's fit to the grid samples: the mean is the
// samples' mean m (ms), the second parameter maximizes the likelihood of
// the rounded samples given it; nil when the family is not offered.
func gridFamily(fam string, gd gridData, m, sdCorr float64, shape *float64) *Dist {
	ll := gd.logLik
	gammaK := func() float64 { // the gamma's shape, found once for the gamma and the erlang
		if *shape == 0 {
			u := golden(func(u float64) float64 {
				return ll(&Dist{Dist: "gamma", MeanMS: &m, Shape: ptr(fmath.Exp(u))})
			}, fmath.Log(1e-3), fmath.Log(1e6))
			*shape = min(max(fmath.Exp(u), 1e-3), 1e6)
		}
		return *shape
	}
	mm := max(sig4(m), floorMS)
	switch fam {
	case "exp":
		return &Dist{Dist: "exp", MeanMS: ptr(mm)}
	case "gamma":
		return &Dist{Dist: "gamma", MeanMS: ptr(mm), Shape: ptr(sig4(gammaK()))}
	case "erlang": // the likelier of the whole numbers either side of the gamma's shape (offered from 1.5)
		k := gammaK()
		if k < 1.5 {
			return nil
		}
		lo, hi := min(max(int(math.Floor(k)), 2), 10_000), min(int(math.Ceil(k)), 10_000)
		best := lo
		if hi != lo && ll(&Dist{Dist: "erlang", MeanMS: &m, K: &hi}) > ll(&Dist{Dist: "erlang", MeanMS: &m, K: &lo}) {
			best = hi
		}
		return &Dist{Dist: "erlang", MeanMS: ptr(mm), K: ptr(best)}
	case "hyperexp": // offered when the samples' sd, less the rounding's, is above the mean
		if sdCorr <= m {
			return nil
		}
		u := golden(func(u float64) float64 {
			cv2 := 1 + fmath.Exp(u)
			return ll(&Dist{Dist: "hyperexp", MeanMS: &m, SDMS: ptr(m * math.Sqrt(cv2))})
		}, fmath.Log(1e-4), fmath.Log(1e4))
		sd := sig4(m * math.Sqrt(1+fmath.Exp(u)))
		if sd <= mm {
			return nil
		}
		return &Dist{Dist: "hyperexp", MeanMS: ptr(mm), SDMS: ptr(sd)}
	case "lognormal":
		u := golden(func(u float64) float64 {
			return ll(&Dist{Dist: "lognormal", MeanMS: &m, SDMS: ptr(m * fmath.Exp(u))})
		}, fmath.Log(1e-3), fmath.Log(1e2))
		return &Dist{Dist: "lognormal", MeanMS: ptr(mm), SDMS: ptr(sig4(m * fmath.Exp(u)))}
	}
	return nil
}

// gridEmpirical spreads each sample of value d uniformly over [d−½, d+½)
// grid steps ([0, ½) for a 0), takes n (at most MaxPoints) evenly spaced
// quantiles of that, scales them so that their mean is the samples' (the
// rounding's mean is 0: the samples' mean is the durations'), rounds them
// to the microsecond, at least 1 µs.
func gridEmpirical(h histogram, res float64) *Dist {
	m := min(h.n, MaxPoints)
	pts := make([]float64, m)
	i, before := 0, 0.0
	for q := range m {
		target := float64(2*q+1) / float64(2*m) * float64(h.n)
		for before+float64(h.counts[i]) < target {
			before += float64(h.counts[i])
			i++
		}
		lo, width := float64(h.vals[i])-0.5, 1.0
		if h.vals[i] == 0 {
			lo, width = 0, 0.5
		}
		pts[q] = lo + width*(target-before)/float64(h.counts[i])
	}
	sum := 0.0
	for _, p := range pts {
		sum += p
	}
	mean, _ := h.moments()
	f := mean / (sum / float64(m))
	for q, p := range pts {
		pts[q] = max(roundUS(float64(p*f)*res), 0.001)
	}
	return &Dist{Dist: "empirical", SamplesMS: pts}
}

// ksGridPoints is the distance between the samples and the empirical's
// points as the stamps would show them: a point y reads d or below with
// probability clamp(d+1−y, 0, 1).
func ksGridPoints(c cells, ptsMS []float64, res float64) float64 {
	y := make([]float64, len(ptsMS))
	for i, p := range ptsMS {
		y[i] = p / res
	}
	slices.Sort(y)
	m := float64(len(y))
	a, b := 0, 0 // y[:a] <= d; y[a:b] in (d, d+1)
	sumIn := 0.0
	d := 0.0
	for j, f := range c.cum {
		top := float64(c.top[j])
		for b < len(y) && y[b] < top+1 {
			sumIn += y[b]
			b++
		}
		for a < b && y[a] <= top {
			sumIn -= y[a]
			a++
		}
		g := (float64(a) + float64(float64(b-a)*(top+1)) - sumIn) / m
		d = max(d, math.Abs(f-g))
	}
	return d
}

// fitGrid fits samples that are whole multiples of resUS microseconds
// (docs/fit.md, "Samples in whole milliseconds").
func fitGrid(samplesMS []float64, resUS int64, spans []int) *Result {
	n := len(samplesMS)
	if n == 0 {
		return nil
	}
	res := float64(resUS) / 1000
	h := newHistogram(samplesMS, resUS)
	meanG, sdG := h.moments()
	mean, sd := meanG*res, sdG*res
	r := &Result{Samples: n, MeanMS: sig4(mean), SDMS: sig4(sd), MeanCIMS: meanCI(n, mean, sd), ResolutionMS: res}
	if h.vals[0] == 0 && float64(h.counts[0]) >= zeroShare*float64(n) {
		r.Warning = strconv.Itoa(int(math.Round(100*float64(h.counts[0])/float64(n)))) + "% of samples are 0 ms: the " +
			resText(res) + " stamps cannot resolve this service time (the fit's mean is right, its shape is not measured)"
	}
	if len(h.vals) == 1 {
		r.Fit = &Dist{Dist: "const", MS: ptr(roundUS(mean))}
		r.Choice = "every sample is the same: a constant"
		r.Candidates = []Candidate{{Family: "const", Parameters: 1, KS: 0, Fit: r.Fit}}
		return r
	}
	c := h.cells()
	if sdG > spreadSteps {
		spans = nil // the extra errors are too small beside the spread to change the fit
	}
	gd := gridData{c: c, res: res, groups: groups(c, samplesMS, resUS, spans)}
	// Each difference of stamps adds the variance of a triangular error,
	// 1/6 step², to the durations' (when they spread over many steps).
	errVar := 0.0
	for _, g := range gd.groups {
		errVar += float64(g.share*float64(g.m)) / 6
	}
	sdCorr := math.Sqrt(max(float64(sdG*sdG)-errVar, 0)) * res
	shape := 0.0
	for _, fam := range families {
		d := gridFamily(fam, gd, mean, sdCorr, &shape)
		if d == nil {
			continue
		}
		r.Candidates = append(r.Candidates, Candidate{Family: fam, Parameters: 2 - b2i(fam == "exp"),
			KS: round4(gd.ks(d)), Fit: d})
	}
	emp := gridEmpirical(h, res)
	r.Candidates = append(r.Candidates, Candidate{Family: "empirical", Parameters: len(emp.SamplesMS),
		KS: round4(ksGridPoints(c, emp.SamplesMS, res)), Points: len(emp.SamplesMS)})
	grid := "on the " + resText(res) + " grid"
	var notes []string
	if c.merged {
		notes = append(notes, strconv.Itoa(len(c.top))+" cells of about equal counts")
	}
	for _, g := range gd.groups {
		if g.m > 1 {
			notes = append(notes, strconv.Itoa(int(math.Round(g.share*float64(n))))+" samples of "+strconv.Itoa(g.m)+" differences of stamps")
		}
	}
	if len(notes) > 0 {
		grid += " (" + strings.Join(notes, ", ") + ")"
	}
	return choose(r, n, " "+grid, emp, "empirical, each sample spread within its step")
}

// groups counts the samples per cell by their number of differences of
// stamps (1 to MaxSpans; 1 for all when spans is nil, or when the cells
// are merged: their width dwarfs the error's).
func groups(c cells, samplesMS []float64, resUS int64, spans []int) []group {
	if spans == nil || c.merged {
		return []group{{m: 1, counts: c.counts, share: 1}}
	}
	var by [MaxSpans + 1][]int
	n := [MaxSpans + 1]int{}
	for i, v := range samplesMS {
		m := min(max(spans[i], 1), MaxSpans)
		if by[m] == nil {
			by[m] = make([]int, len(c.top))
		}
		k := int64(math.Round(v*1000)) / resUS
		j, _ := slices.BinarySearch(c.top, k)
		by[m][j]++
		n[m]++
	}
	var out []group
	for m := 1; m <= MaxSpans; m++ {
		if by[m] != nil {
			out = append(out, group{m: m, counts: by[m], share: float64(n[m]) / float64(len(samplesMS))})
		}
	}
	return out
}

// resText is a resolution in words: "1 ms", "10 ms", "0.1 ms".
func resText(res float64) string { return strconv.FormatFloat(res, 'g', -1, 64) + " ms" }
