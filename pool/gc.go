package pool

import (
	"os"
	"runtime/debug"
)

// GCPercent is the garbage collector's target (what GOGC sets) that the
// tuxlb binary's batch commands (run, sweep, compare...; not serve) run
// with, unless GOGC is set in their environment. A run keeps little alive
// (its statistics and the requests in flight: a few MB) and makes under 1 MB
// of short-lived buffers per 10 000 requests (the histograms read out for its
// result, the series; its big buffers are reused from run to run). At Go's
// default of 100 the collector still runs every few runs of a sweep, stopping
// every worker each time: BenchmarkSweepWorkers takes 64 ms on one worker and
// 35 ms on two, against 55 and 27 ms at 400. A 5 M-request run peaks at
// about the same memory either way (24-28 MB).
const GCPercent = 400

// TuneGC sets the collector's target to GCPercent, unless the GOGC
// environment variable chose one. The binary calls it once at start;
// benchmarks of the pool call it to measure what the binary does.
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
