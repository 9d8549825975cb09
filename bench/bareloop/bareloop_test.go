package bareloop

import (
	"math"
	"testing"
)

// TestModel checks that the loop plays the standard MP model: every request
// completes, the servers are busy 80% of the time (the offered load:
// 8 streams × 0.32 requests/ms × 5 ms mean service time over 16 servers), and
// some requests cross to the other machine.
func TestModel(t *testing.T) {
	const n = 400_000
	r := Run(n, 1)
	if r.Issued != n || r.Completed != n {
		t.Fatalf("issued %d, completed %d; want %d and %d", r.Issued, r.Completed, n, n)
	}
	if u := r.Utilization(); math.Abs(u-0.8) > 0.01 {
		t.Errorf("utilization %.4f, want 0.80 ± 0.01", u)
	}
	if want := float64(n) / (8 * 0.32); math.Abs(r.SpanMS-want)/want > 0.01 {
		t.Errorf("span %.0f ms, want about n / 2.56 requests/ms = %.0f ms", r.SpanMS, want)
	}
	if f := float64(r.Crossings) / n; f < 0.05 || f > 0.5 {
		t.Errorf("%.1f%% of requests crossed the network, want some but not most", 100*f)
	}
	if r2 := Run(n, 1); r2 != r {
		t.Errorf("a second run with the same seed gave %+v, want %+v", r2, r)
	}
}

// BenchmarkBareLoop plays b.N requests of the standard MP model and reports
// the requests per second of wall time: the reference for docs/benchmarks.md.
func BenchmarkBareLoop(b *testing.B) {
	b.ReportAllocs()
	r := Run(int64(b.N), 1)
	b.ReportMetric(float64(r.Issued)/b.Elapsed().Seconds(), "requests/s")
}
