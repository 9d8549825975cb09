package core

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// scenarioBench is one benchmark of BenchmarkScenario: a standard scenario
// from bench/scenarios, with or without the dispatch log.
type scenarioBench struct {
	name     string
	file     string
	dispatch bool
}

// BenchmarkScenario runs the standard scenarios of bench/scenarios end to end
// through ParseScenario and Run (setup, generated workload, event loop, all
// statistics), with the scenario's duration scaled so that it issues about
// b.N requests: ns/op and allocs/op are per request. It reports the requests
// actually issued per second of wall time. The "-dispatch" variant also
// writes the dispatch log, to io.Discard.
func BenchmarkScenario(b *testing.B) {
	for _, c := range []scenarioBench{
		{"mp", "mp-standard.json", false},
		{"shm", "shm-standard.json", false},
		{"mssq", "mssq-standard.json", false},
		{"mp-dispatch", "mp-standard.json", true},
	} {
		b.Run(c.name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join("..", "bench", "scenarios", c.file))
			if err != nil {
				b.Fatal(err)
			}
			opt := RunOptions{MaxRequests: max(int64(b.N)*2, 1000)}
			if c.dispatch {
				opt.Dispatch = io.Discard
			}
			b.ReportAllocs()
			b.ResetTimer()
			sc, err := ParseScenario(data)
			if err != nil {
				b.Fatal(err)
			}
			scaleToRequests(b, sc, int64(b.N))
			res, err := Run(sc, opt)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(res.Requests.Issued)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}

// scaleToRequests sets a generated workload's duration so that its constant
// streams issue about n requests in all.
func scaleToRequests(b *testing.B, sc *Scenario, n int64) {
	g := sc.Workload.Generate
	if g == nil {
		b.Fatal("scenario has no generated workload")
	}
	var rate float64 // requests per second, all streams
	for _, s := range g.Streams {
		rate += s.RatePerS
	}
	if rate <= 0 {
		b.Fatal("scenario's streams have no constant rate_per_s")
	}
	g.DurationMS = float64(n) / rate * 1000
}
