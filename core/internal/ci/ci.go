// Package ci computes the confidence intervals tuxlb reports over
// replications (a run's, a sweep point's): the mean and the half-width of
// its 95% confidence interval, by Student's t; over the batch means of a
// series in time order ([BatchMeans95]); and a replay validation's
// distribution-free percentile ranks, exponential tail ([ExpTailQuantile])
// and two-sample test.
package ci

import "math"

// Mean95 returns the mean of xs and the half-width of its 95% confidence
// interval (Student's t with len(xs)-1 degrees of freedom; 0 for fewer than
// two values), each rounded to the millionth as every figure of a result is.
func Mean95(xs []float64) (mean, halfWidth float64) {
	n := float64(len(xs))
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean = sum / n
	var ss float64
	for _, x := range xs {
		ss += float64((x - mean) * (x - mean)) // no fused multiply-add
	}
	if len(xs) < 2 {
		return round6(mean), 0
	}
	sd := math.Sqrt(ss / (n - 1))
	return round6(mean), round6(studentT975(len(xs)-1) * sd / math.Sqrt(n))
}

// round6 rounds x to the millionth, NaN and infinities to 0 (core's roundF).
func round6(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1e6) / 1e6
}

// studentT975 is the 97.5% quantile of Student's t with df degrees of freedom.
func studentT975(df int) float64 {
	table := [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	switch {
	case df <= len(table):
		return table[df-1]
	case df <= 40:
		return 2.021
	case df <= 60:
		return 2.000
	default:
		return 1.984
	}
}

// T975 is Student's t 97.5% quantile with df degrees of freedom (df ≥ 1),
// from the table Mean95 uses: the factor of a two-sided 95% interval.
func T975(df int) float64 { return studentT975(max(df, 1)) }
