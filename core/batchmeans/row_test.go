package batchmeans

import (
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/workload"
)

// TestRow, worked by hand: 40 rows 10 ms apart (0 to 390 ms), observed
// responses 1 ms for the first 20 and 3 ms for the last 20, simulated 2 ms
// each, over a window of 0.39 s. The observed mean is 2 ms; the 20
// batches of two rows have means 1 ms (ten) and 3 ms (ten), whose spread
// and correlation give the mean's interval: standard deviation 1.026 ms
// over sqrt(20), times Student's t for 19 degrees of freedom (2.093), is
// 0.4802 ms; the deviations are −1 (ten) then +1 (ten), whose lag-1
// products sum to 9 − 1 + 9 = 17 over a sum of squares of 20: φ = 0.85,
// A = 1.85/0.15 = 12.333, √A = 3.5119: 2 ± 1.6863 ms. Every
// row but the last is answered within the window (39 of 40): 100
// requests/s both ways.
func TestRow(t *testing.T) {
	var obs []workload.ObservedRow
	var s hist.Acc
	for i := range 40 {
		us := int64(1000)
		if i >= 20 {
			us = 3000
		}
		obs = append(obs, workload.ObservedRow{TimeUS: int64(i) * 10_000, US: us})
		s.Add(2000)
	}
	w := NewWindow(obs, 1, 0)
	for _, r := range obs {
		w.Svc[0].Sim.Add(r.TimeUS, 2000, r.TimeUS+2000 <= w.ToUS)
	}
	overall, rows := w.Rows(obs, func(int) string { return "S" }, []hist.Acc{s}, &s)
	if len(rows) != 1 || overall.Observed != rows[0].Observed {
		t.Fatalf("rows %+v, overall %+v: want one service's, the overall row its figures", rows, overall)
	}
	row := rows[0]
	if row.Service != "S" || row.Observed.Mean != 2 || row.Simulated.Mean != 2 || len(row.ObservedBatches) != 20 {
		t.Fatalf("row %+v: want service S, both means 2 ms, 20 batch means", row)
	}
	if iv := row.ObservedCI.Mean; iv == nil || iv.Lo < 0.3133 || iv.Lo > 0.3141 || iv.Hi < 3.6859 || iv.Hi > 3.6867 {
		t.Errorf("the mean's interval %+v: want 2 ± 1.6863 ms", iv)
	}
	if tp := row.ThroughputPerS; tp.Observed != 100 || tp.Simulated != 100 {
		t.Errorf("throughput %+v: want 39 answered in 0.39 s, 100/s both ways", tp)
	}
	if row.ObservedCI.P50 == nil || row.ObservedCI.P99 == nil {
		t.Errorf("the percentiles' intervals are missing: %+v", row.ObservedCI)
	}
}

// TestRowPercentileBatches, worked by hand: 40 rows 10 ms apart whose
// responses grow with their issue time, 1000 + 10·i µs for row i (the
// histogram holds them exactly), so x(k) = 1000 + 10·(k-1) µs. The p50 is
// the 20th (HdrHistogram's rank ⌊0.5·40 + ½⌋), 1190 µs. The 20 batches of
// two rows: the first ten hold only rows at most 1190 µs (a fraction 1), the
// last ten none (0): mean 0.5, standard deviation √(20·0.25/19) = 0.5130,
// 2.093 · 0.5130 / √20 = 0.2401, and the fractions are as correlated as
// the means of TestRow (φ = 0.85, √A = 3.5119): h = 0.8432, so the ranks
// (0.5 ± h)·40: ⌊−13.7⌋ = −14, cut to 1, and ⌈53.7⌉ + 1 = 55, cut to 40,
// the interval [x(1), x(40)] = [1, 1.39] ms. The interval of independent
// observations would be [x(14), x(27)] (binomial(40, ½): F(13) = 0.019 ≤
// 0.025 < F(14), F(25) = 0.960 < 0.975 ≤ F(26) = 0.981), [1.13, 1.26] ms:
// the batches, which disagree completely and in two runs, widen it to the
// whole sample. Rows
// alternating 1 and 1.01 ms, every batch half at most the p50 (1 ms), agree
// (h = 0) and leave the independent interval, [x(14), x(27)] = [1, 1.01] ms.
// Batches in pairs, two low (their rows 1000 + 10·j µs, j counting the
// low rows) then two high (1200 + 10·j): x(k) = 1000 + 10·(k−1) up to
// k = 20, 1200 + 10·(k−21) after, the p50 x(20) = 1190 µs, and the
// fractions 1, 1, 0, 0, 1, 1, 0, 0, ...: deviations ±0.5 whose 19 lag-1
// products alternate +0.25, −0.25 from +: φ = 0.25/5 = 0.05, √A =
// √(1.05/0.95) = 1.0513, h = 0.2401 · 1.0513 = 0.2524, the ranks
// ⌊9.90⌋ = 9 and ⌈30.10⌉ + 1 = 32: [x(9), x(32)] = [1.08, 1.31] ms, a
// rank wider each way than the plain [x(10), x(31)].
func TestRowPercentileBatches(t *testing.T) {
	for _, c := range []struct {
		resp   func(i int) int64
		lo, hi float64
	}{
		{func(i int) int64 { return 1000 + 10*int64(i) }, 1, 1.39},
		{func(i int) int64 { return 1000 + 10*int64(i%2) }, 1, 1.01},
		{func(i int) int64 {
			j := int64(i/8*4 + i%4) // the row's place among the low rows, or among the high
			if i/2%4 < 2 {
				return 1000 + 10*j
			}
			return 1200 + 10*j
		}, 1.08, 1.31},
	} {
		var obs []workload.ObservedRow
		var s hist.Acc
		for i := range 40 {
			obs = append(obs, workload.ObservedRow{TimeUS: int64(i) * 10_000, US: c.resp(i)})
			s.Add(2000)
		}
		w := NewWindow(obs, 1, 0)
		_, rows := w.Rows(obs, func(int) string { return "S" }, []hist.Acc{s}, &s)
		if iv := rows[0].ObservedCI.P50; iv == nil || iv.Lo != c.lo || iv.Hi != c.hi {
			t.Errorf("p50's interval %+v: want [%v, %v] ms", iv, c.lo, c.hi)
		}
	}
}

// TestRowP99Tail, worked by hand: 1000 rows 10 ms apart whose responses
// grow with their issue time, 1001 + i µs for row i (the histogram holds
// them exactly), so x(r) = 1000 + r µs. The 20 batches hold 50 rows each.
// The p99 is x(990) = 1990 µs (rank ⌊0.99·1000 + ½⌋); every row of the
// first 19 batches is at most it (a fraction 1), 40 of the last's 50
// (0.8): mean 0.99, deviations 0.01 (19) and −0.19, sum of squares
// 19·0.0001 + 0.0361 = 0.038, s = √(0.038/19) = 0.044721, s/√20 = 0.01;
// the lag-1 products 18·0.0001 − 0.0019 < 0 leave φ = 0, so h = 2.093 ·
// 0.01 = 0.02093. The ranks (0.99 ± h)·1000: ⌊969.07⌋ = 969 and
// ⌈1010.93⌉ + 1 = 1012, past n, so the upper end asked for, the 1.01093
// quantile, lies beyond the largest response: the tail fitted to the k =
// 2·1000·0.01 = 20 largest gives it, read at the cap 1 − 0.01² = 0.9999.
// Threshold x(980) = 1980 µs, the 20 largest 1981..2000 µs, mean 1990.5,
// mean excess e = 10.5 µs: 1980 + 10.5·ln(20/(1000·0.0001)) = 1980 +
// 10.5·ln 200 = 1980 + 10.5·5.298317 = 2035.63, rounded 2036 µs. The p99's
// interval is [x(969), 2036 µs] = [1.969, 2.036] ms, where the order
// statistics alone stop at the largest, 2 ms. The p95, x(950) = 1950 µs,
// has no tail fitted: the last batch holds none at most it (0), the rest
// all (1): mean 0.95, sum of squares 19·0.0025 + 0.9025 = 0.95, s =
// √0.05 = 0.223607, s/√20 = 0.05, h = 0.10465 (φ = 0 again: 18·0.0025 −
// 0.0475 < 0), the ranks ⌊845.35⌋ = 845 and 1000: [1.845, 2] ms.
func TestRowP99Tail(t *testing.T) {
	var obs []workload.ObservedRow
	var s hist.Acc
	for i := range 1000 {
		obs = append(obs, workload.ObservedRow{TimeUS: int64(i) * 10_000, US: 1001 + int64(i)})
		s.Add(2000)
	}
	w := NewWindow(obs, 1, 0)
	_, rows := w.Rows(obs, func(int) string { return "S" }, []hist.Acc{s}, &s)
	ci := rows[0].ObservedCI
	if iv := ci.P99; iv == nil || iv.Lo != 1.969 || iv.Hi != 2.036 {
		t.Errorf("p99's interval %+v: want [1.969, 2.036] ms", iv)
	}
	if iv := ci.P95; iv == nil || iv.Lo != 1.845 || iv.Hi != 2 {
		t.Errorf("p95's interval %+v: want [1.845, 2] ms", iv)
	}
}

// TestTailQuantile, worked by hand: the histogram of 1000 responses 1001..
// 2000 µs (exact), the p99's tail fitted to the k = 20 largest: threshold
// x(980) = 1980 µs, mean excess 10.5 µs. At q = 0.999: 1980 +
// 10.5·ln(20/1) = 1980 + 10.5·2.995732 = 2011.455 µs; at q = 0.98 (the
// threshold's own quantile), 1980. Of 19 responses nothing is fitted: k is
// at least 10, and the threshold x(n−k) needs n ≥ 2·k = 20.
func TestTailQuantile(t *testing.T) {
	var a hist.Acc
	for i := range 1000 {
		a.Add(1001 + int64(i))
	}
	for _, c := range []struct{ q, want float64 }{{0.999, 2011.455}, {0.98, 1980}} {
		if x, ok := tailQuantile(a.Hist(), a.Max, 0.99, c.q); !ok || x < c.want-0.001 || x > c.want+0.001 {
			t.Errorf("q = %v: got %v, %v; want %v", c.q, x, ok, c.want)
		}
	}
	var few hist.Acc
	for i := range 19 {
		few.Add(1001 + int64(i))
	}
	if _, ok := tailQuantile(few.Hist(), few.Max, 0.99, 0.999); ok {
		t.Errorf("19 responses: a tail was fitted to them, want none (k = 10 needs 20)")
	}
}
