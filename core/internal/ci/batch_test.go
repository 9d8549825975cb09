package ci

import "testing"

// TestBatchMeans95, worked by hand. The batch means 1, 1, 3, 3, 1, 1, 3, 3
// have mean 2, deviations −1, −1, 1, 1, −1, −1, 1, 1, sum of squares 8 and
// lag-1 products 1, −1, 1, −1, 1, −1, 1 summing to 1: φ = 1/8, A =
// 1.125/0.875 = 1.285714. s = √(8/7) = 1.069045, s/√8 = 0.377964,
// t(0.975, 7) = 2.365: the plain half-width 0.893885, times √A = 1.133893:
// 1.013569. The means 1, 3, 1, 3, 1, 3, 1, 3 alternate (products all −1,
// φ = −7/8, cut to 0): the plain half-width, 0.893885. Ten means in two
// runs, five 1s then five 3s (φ = (4 − 1 + 4)/10 = 0.7, A = 1.7/0.3 =
// 5.666667): s = √(10/9) = 1.054093, s/√10 = 0.333333, t(9) = 2.262:
// 0.754, times √A = 2.380476: 1.794879. Equal means, or one, give 0.
func TestBatchMeans95(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, 1, 3, 3, 1, 1, 3, 3}, 1.013569},
		{[]float64{1, 3, 1, 3, 1, 3, 1, 3}, 0.893885},
		{[]float64{1, 1, 1, 1, 1, 3, 3, 3, 3, 3}, 1.794879},
		{[]float64{2, 2, 2}, 0},
		{[]float64{2}, 0},
	} {
		if got := BatchMeans95(c.xs); got < c.want-2e-6 || got > c.want+2e-6 {
			t.Errorf("BatchMeans95(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}
