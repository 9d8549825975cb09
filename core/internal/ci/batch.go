package ci

import "math"

// BatchMeans95 returns the half-width of the 95% confidence interval of
// the mean of a series in time order from its batch means xs (the means of
// batches of consecutive values, in time order; 0 for fewer than two): the
// batch-means interval of Student's t with len(xs)-1 degrees of freedom,
// its variance s²/b multiplied by A = (1 + φ)/(1 − φ), φ the batch means'
// lag-1 autocorrelation Σ (x[i] − x̄)(x[i−1] − x̄) / Σ (x[i] − x̄)² cut to
// [0, 0.9]. A is the variance of the mean of a first-order autoregressive
// series over that of as many independent values: the autoregression
// adjustment of ASAP3 and Skart (Steiger, Lada, Wilson, Joines and
// Goldsman, "ASAP3: a batch means procedure for steady-state simulation
// analysis", ACM TOMACS 15, 2005; Tafazzoli and Wilson, "Skart: a
// skewness- and autoregression-adjusted batch-means procedure for
// simulation analysis", IIE Transactions 43, 2011), for the correlation
// that batches shorter than a busy spell leave between neighbours. Batch
// means that alternate (φ < 0) get the plain interval. The half-width is
// rounded to the millionth.
func BatchMeans95(xs []float64) float64 {
	b := len(xs)
	if b < 2 {
		return 0
	}
	fb := float64(b)
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / fb
	var ss, lag float64
	for i, x := range xs {
		ss += float64((x - mean) * (x - mean)) // no fused multiply-add
		if i > 0 {
			lag += float64((x - mean) * (xs[i-1] - mean))
		}
	}
	if ss == 0 {
		return 0
	}
	phi := min(max(lag/ss, 0), 0.9)
	se := math.Sqrt(float64(ss/(fb-1)) / fb * (1 + phi) / (1 - phi))
	return round6(studentT975(b-1) * se)
}
