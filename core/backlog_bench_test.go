package core

import (
	"io"
	"runtime"
	"testing"
)

// BenchmarkBacklog measures what a request held by a run costs: one server
// busy 10 ms with each of 10 000 requests a second for 100 s, so that about
// a million requests wait at the end. Sampled every few thousand requests
// (RunOptions.Progress), the live heap's growth over the start, divided by
// the requests held then, at its peak, is reported as B/held: the figure
// behind BytesPerInFlight.
func BenchmarkBacklog(b *testing.B) {
	sc := boundedScenario(b, "SHM", map[string]any{
		"services": map[string]any{"BALANCE": map[string]any{"service_time": map[string]any{"dist": "const", "ms": 10}}},
		"workload": map[string]any{"generate": map[string]any{"duration_ms": 100_000, "streams": []any{
			map[string]any{"service": "BALANCE", "origin": "SITE1", "arrivals": "constant", "rate_per_s": 10000}}}},
	})
	for _, log := range []io.Writer{nil, io.Discard} {
		name := "no log"
		if log != nil {
			name = "log" // the log's reorder ring holds every request too
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				base := int64(m.HeapAlloc)
				var peak float64
				opt := RunOptions{Dispatch: log, Progress: func(done, _ int64) {
					runtime.ReadMemStats(&m)
					held := done - done/100 // one done per 100 issued
					if held > 100_000 {
						peak = max(peak, float64(int64(m.HeapAlloc)-base)/float64(held))
					}
				}}
				if _, err := Run(sc, opt); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(peak, "B/held")
			}
		})
	}
}
