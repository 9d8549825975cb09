package ci

import "slices"

// QuantileRanks returns the 1-based ranks l ≤ u of the order statistics
// whose interval [x(l), x(u)] is a distribution-free confidence interval of
// at least 95% for the p-quantile of n independent observations of a
// continuous distribution (0 < p < 1, n ≥ 1). The number B of observations
// at or below the quantile is binomial(n, p), and x(l) ≤ ξp < x(u) holds
// exactly when l ≤ B ≤ u-1, so the coverage is F(u-1) - F(l-1), F the
// binomial distribution function: l-1 is the largest k with F(k) ≤ 0.025
// (l = 1 when there is none) and u-1 the smallest k with F(k) ≥ 0.975
// (u = n when that passes n, and the coverage is then below 95%). For
// n = 10, p = 0.5: F(1) = 11/1024 and F(8) = 1013/1024, so [x(2), x(9)]
// with coverage 1002/1024 = 97.9%.
func QuantileRanks(n int64, p float64) (l, u int64) {
	if n <= 0 {
		return 0, 0
	}
	pmf, lo := binomialPMF(n, p)
	l, u = 1, n
	var cdf float64
	found := false
	for i, q := range pmf {
		k := lo + int64(i)
		cdf += q
		if cdf <= 0.025 {
			l = k + 1 // F(k) ≤ 0.025: l-1 may be k
		}
		if !found && cdf >= 0.975 {
			u, found = k+1, true
		}
	}
	return min(max(l, 1), n), min(u, n)
}

// binomialPMF returns the probabilities of binomial(n, p) from lo on,
// normalised, leaving out the tails below 1e-18 of the mode's term: they are
// computed outward from the mode by the ratio of consecutive terms, which
// takes multiplications only (the same bits everywhere) and never
// underflows the way (1-p)^n would.
func binomialPMF(n int64, p float64) (pmf []float64, lo int64) {
	mode := min(int64(float64(n+1)*p), n)
	r := p / (1 - p)
	var up, down []float64
	t := 1.0
	for k := mode; k < n; k++ { // term(k+1) = term(k)·(n-k)/(k+1)·p/(1-p)
		t = float64(t*float64(n-k)) / float64(k+1) * r
		if t < 1e-18 {
			break
		}
		up = append(up, t)
	}
	t = 1.0
	for k := mode; k > 0; k-- { // term(k-1) = term(k)·k/(n-k+1)·(1-p)/p
		t = float64(t*float64(k)) / float64(n-k+1) / r
		if t < 1e-18 {
			break
		}
		down = append(down, t)
	}
	slices.Reverse(down)
	pmf = append(append(down, 1), up...)
	lo = mode - int64(len(down))
	var sum float64
	for _, q := range pmf {
		sum += q
	}
	for i := range pmf {
		pmf[i] /= sum
	}
	return pmf, lo
}

// KS2 is the two-sample Kolmogorov–Smirnov test of xs against ys: the
// statistic D = sup |Fx - Fy| of their empirical distribution functions and
// its exact p-value P(D' ≥ D) under the hypothesis that both come from one
// continuous distribution. The p-value counts lattice paths (Hodges, "The
// significance probability of the Smirnov two-sample test", Arkiv för
// Matematik 3, 1958): the merged order of the n + m values is a path from
// (0, 0) to (n, m), every one of the C(n+m, n) paths equally likely, and
// D' < D exactly when the path keeps |i·m - j·n| < D·n·m at every point; the
// count of those paths, over C(n+m, n), is 1 - p. The test compares in
// integers (i·m - j·n), so no rounding decides a boundary. Counts are kept
// as float64, exact below 2^53 and within a part in 10^15 above; n + m is
// bounded by the callers (a few thousand), whose C(n+m, n) stays far from
// float64's range at n ≤ 30. Empty samples give D = 0 and p = 1.
func KS2(xs, ys []float64) (d, p float64) {
	n, m := int64(len(xs)), int64(len(ys))
	if n == 0 || m == 0 {
		return 0, 1
	}
	a, b := slices.Clone(xs), slices.Clone(ys)
	slices.Sort(a)
	slices.Sort(b)
	var i, j, dnm int64
	for i < n && j < m {
		v := min(a[i], b[j])
		for i < n && a[i] == v {
			i++
		}
		for j < m && b[j] == v {
			j++
		}
		dnm = max(dnm, abs64(i*m-j*n))
	}
	if dnm == 0 {
		return 0, 1
	}
	// paths[j] holds the paths from (0,0) to (i,j) that stay inside; all[j]
	// every path, for C(n+m, n)
	paths, all := make([]float64, m+1), make([]float64, m+1)
	for i := int64(0); i <= n; i++ {
		for j := int64(0); j <= m; j++ {
			if i == 0 && j == 0 {
				paths[0], all[0] = 1, 1
				continue
			}
			var left, lefta float64
			if j > 0 {
				left, lefta = paths[j-1], all[j-1]
			}
			if i == 0 {
				paths[j], all[j] = left, lefta
			} else {
				paths[j], all[j] = paths[j]+left, all[j]+lefta
			}
			if abs64(i*m-j*n) >= dnm {
				paths[j] = 0
			}
		}
	}
	return float64(dnm) / float64(n*m), max(0, 1-paths[m]/all[m])
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
