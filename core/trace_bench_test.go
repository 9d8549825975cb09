package core

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/workload"
)

// BenchmarkTraceVsGenerated runs the standard SHM scenario (bench/scenarios)
// through Run with about b.N requests: "generated" draws its Poisson
// streams, "trace" replays the same requests written as a request log
// (time_ms, service, origin) in trace_csv, read and played by Run. Writing
// the log is outside the timer; compiling it (reading it through once to
// check it) and the run reading it again are inside, so ns/op and allocs/op
// per request say what a request costs replayed against generated.
func BenchmarkTraceVsGenerated(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "bench", "scenarios", "shm-standard.json"))
	if err != nil {
		b.Skip(err)
	}
	for _, kind := range []string{"generated", "trace"} {
		b.Run(kind, func(b *testing.B) {
			sc, err := ParseScenario(data)
			if err != nil {
				b.Fatal(err)
			}
			g := sc.Workload.Generate
			var rate float64
			for _, st := range g.Streams {
				rate += st.RatePerS
			}
			g.DurationMS = float64(b.N) / rate * 1000
			if kind == "trace" {
				sc.Workload = scenario.Workload{TraceCSV: traceOf(b, sc)}
			}
			b.ReportAllocs()
			b.ResetTimer()
			res, err := Run(sc, RunOptions{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(res.Requests.Issued)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}

// traceOf writes the generated requests of sc as a request log.
func traceOf(b *testing.B, sc *scenario.Scenario) string {
	setup, err := newSetup(sc, RunOptions{})
	if err != nil {
		b.Fatal(err)
	}
	reqs, err := workload.Open(setup.Model, sc, setup.Seed, DefaultMaxRequests)
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	sb.WriteString("time_ms,service,origin\n")
	var r workload.Request
	for reqs.Next(&r) {
		sb.WriteString(strconv.FormatFloat(float64(r.TimeUS)/1000, 'f', 3, 64))
		sb.WriteString("," + setup.Model.Services[r.Service].Name + "," + setup.Model.Machines[r.Origin].LMID + "\n")
	}
	return sb.String()
}
