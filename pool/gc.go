package pool

import (
	"os"
	"runtime/debug"
)

// GCPercent is the garbage collector's target (what GOGC sets) that the
// tuxlb binary's batch commands (run, sweep, compare...; not serve) run
// with, unless GOGC is set in their environment. A run keeps
// little alive (its statistics and the requests in flight: a few MB) but
// makes about 2 MB of short-lived buffers per 10 000 requests (its look-ahead,
// histograms read out for the result). At Go's default of 100 the collector
// then ran every few milliseconds during a sweep, stopping both workers each
// time: a sweep on 2 workers was only 1.1 times as fast as on one. At 400 it
// is 1.8 times, a single run is a few percent faster, and a 5 M-request run
// peaks at 28 MB instead of 26.
const GCPercent = 400

// TuneGC sets the collector's target to GCPercent, unless the GOGC
// environment variable chose one. The binary calls it once at start;
// benchmarks of the pool call it to measure what the binary does.
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
