package core

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
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
func scaleToRequests(b *testing.B, sc *scenario.Scenario, n int64) {
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

// BenchmarkApplication runs an application end to end: bankapp's TRANSFER
// on two machines (examples/bankapp-transfer.json: 120 tellers, nested
// WITHDRAWAL and DEPOSIT calls, routed by account), its duration scaled so
// that a run issues about b.N requests (about 0.2 requests per client per
// second of it). ns/op is per request, nested ones included.
func BenchmarkApplication(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "bankapp-transfer.json"))
	if err != nil {
		b.Fatal(err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		b.Fatal(err)
	}
	// 120 tellers with a 1 s think issue about 119 requests/s, and a third
	// of them are transfers with two calls: about 198 requests/s in all
	sc.Workload.Generate.DurationMS = max(float64(b.N)/198*1000, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	res, err := Run(sc, RunOptions{MaxRequests: max(int64(b.N)*4, 10000)})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Requests.Issued)/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkNested and BenchmarkClients take the two parts of an application
// apart, each on the MP benchmark's model (bench/apps): nested calls alone
// (open-loop streams; TRANSFER tpcalls ACCOUNT on servers of its own) and
// client populations alone (256 clients issuing the four services, no
// calls). ns/op is per request executed, nested ones included, so each
// compares with BenchmarkScenario/mp's as it is.
func BenchmarkNested(b *testing.B)  { benchPart(b, "nested.json") }
func BenchmarkClients(b *testing.B) { benchPart(b, "clients.json") }

func benchPart(b *testing.B, file string) {
	res := runProbed(b, filepath.Join("..", "bench", "apps", file))
	b.ReportMetric(float64(res.Requests.Issued)/b.Elapsed().Seconds(), "requests/s")
}

// runProbed runs the scenario of file, timed, with its duration set so
// that it issues about b.N requests (scaleByProbe).
func runProbed(b *testing.B, file string) *result.Result {
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		b.Fatal(err)
	}
	scaleByProbe(b, sc, int64(b.N))
	b.ReportAllocs()
	b.ResetTimer()
	res, err := Run(sc, RunOptions{MaxRequests: max(int64(b.N)*4, 10000)})
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// scaleByProbe sets a generated workload's duration so that a run issues
// about n requests, from the requests a 20-second run issues (clients and
// calls have no rate to add up).
func scaleByProbe(b *testing.B, sc *scenario.Scenario, n int64) {
	g := sc.Workload.Generate
	probe, pg := *sc, *g
	pg.DurationMS = 20_000
	probe.Workload.Generate = &pg
	res, err := Run(&probe, RunOptions{})
	if err != nil {
		b.Fatal(err)
	}
	g.DurationMS = max(float64(n)/(float64(res.Requests.Issued)/pg.DurationMS), 1000)
}

// BenchmarkFeatureCost runs pairs of examples that differ by one feature,
// their durations scaled so that a run issues about b.N requests (TMS
// requests included): mssq-set against multithreaded (four processes on one
// queue against one process of four dispatch threads, the same load), and
// bankapp-transfer against transactions (the same tellers, every TRANSFER
// in a transaction). ns/op is per request issued.
func BenchmarkFeatureCost(b *testing.B) {
	for _, name := range []string{"mssq-set", "multithreaded", "bankapp-transfer", "transactions"} {
		b.Run(name, func(b *testing.B) {
			res := runProbed(b, filepath.Join("..", "examples", name+".json"))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(res.Requests.Issued), "ns/req")
		})
	}
}
