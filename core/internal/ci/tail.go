package ci

import "math"

// TailK is how many of n observations' largest an exponential tail above
// the p-quantile is fitted to: twice as many as lie above the quantile,
// 2·n·(1−p) rounded, and at least 10.
func TailK(n int64, p float64) int64 {
	return max(10, int64(math.Round(2*float64(n)*(1-p))))
}

// TailCap is the highest quantile an exponential tail fitted to a
// p-quantile's neighbourhood is read at: 1 − (1−p)², a tail probability as
// many times smaller than 1−p as 1−p is smaller than 1 (0.9999 for the
// p99). Of an exponential distribution it is twice the p-quantile; the
// tail is not trusted further from the data than that.
func TailCap(p float64) float64 { return 1 - (1-p)*(1-p) }

// ExpTailQuantile returns the q-quantile of an exponential tail fitted by
// peaks over a threshold to the k largest of n observations: above the
// threshold u = x(n−k), P(X > u + y) = (k/n)·exp(−y/e), e the mean excess
// of the k largest over u (the exponential's maximum-likelihood scale), so
// the q-quantile, for q ≥ 1 − k/n, is u + e·ln(k / (n·(1 − q))). Queues'
// responses have about exponential tails (an M/M/c queue's wait is
// exponential past zero).
func ExpTailQuantile(u, e float64, k, n int64, q float64) float64 {
	return u + e*math.Log(float64(k)/(float64(n)*(1-q)))
}
