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
// gives the mean's interval: standard deviation 1.026 ms over sqrt(20),
// times Student's t for 19 degrees of freedom (2.093): 2 ± 0.480 ms. Every
// row but the last is answered within the window (39 of 40): 100
// requests/s both ways.
func TestRow(t *testing.T) {
	var obs []workload.ObservedRow
	var o, s hist.Acc
	for i := range 40 {
		us := int64(1000)
		if i >= 20 {
			us = 3000
		}
		obs = append(obs, workload.ObservedRow{TimeUS: int64(i) * 10_000, US: us})
		o.Add(us)
		s.Add(2000)
	}
	w := NewWindow(obs, 1, 0)
	for _, r := range obs {
		w.Svc[0].Sim.Add(r.TimeUS, 2000, r.TimeUS+2000 <= w.ToUS)
	}
	row := w.Svc[0].Row("S", &o, &s, float64(w.ToUS-w.FromUS)/1e6)
	if row.Service != "S" || row.Observed.Mean != 2 || row.Simulated.Mean != 2 || len(row.ObservedBatches) != 20 {
		t.Fatalf("row %+v: want service S, both means 2 ms, 20 batch means", row)
	}
	if iv := row.ObservedCI.Mean; iv == nil || iv.Lo < 1.519 || iv.Lo > 1.521 || iv.Hi < 2.479 || iv.Hi > 2.481 {
		t.Errorf("the mean's interval %+v: want 2 ± 0.480 ms", iv)
	}
	if tp := row.ThroughputPerS; tp.Observed != 100 || tp.Simulated != 100 {
		t.Errorf("throughput %+v: want 39 answered in 0.39 s, 100/s both ways", tp)
	}
	if row.ObservedCI.P50 == nil || row.ObservedCI.P99 == nil {
		t.Errorf("the percentiles' intervals are missing: %+v", row.ObservedCI)
	}
}
