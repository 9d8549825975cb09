package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/storage"
)

// smallRuns are the small runs whose cost in the server beside the
// engine's the benchmarks below compare: testdata/scenario.json (one
// machine, three servers, one service) and bench/scenarios/mp-standard.json
// (two machines, sixteen servers, four services, eight streams), each cut
// to about 1 000 requests.
var smallRuns = []struct {
	name, path string
	durationMS int
}{
	{"simpapp-1k", "testdata/scenario.json", 3333},                 // 300/s
	{"mp-standard-1k", "../bench/scenarios/mp-standard.json", 391}, // 2 560/s
}

// smallRunScenario is one of smallRuns' scenarios, cut to its duration.
func smallRunScenario(tb testing.TB, path string, durationMS int) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var sc map[string]any
	if err := json.Unmarshal(data, &sc); err != nil {
		tb.Fatal(err)
	}
	sc["workload"].(map[string]any)["generate"].(map[string]any)["duration_ms"] = durationMS
	out, err := json.Marshal(sc)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// cpuTime is the CPU (user and system) this process has used so far: the
// benchmarks report CPU per operation, every goroutine's (the database's
// and the collector's too), not only the wall time of the one that times.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEngineRun is the engine's own part of a small run: core.Run of
// the scenario read once. BenchmarkPostRun is the same run through POST
// /api/v1/runs on a SQLite file: the body read and checked, the run, the
// result encoded, stored and sent. The ratio of their cpu-ns/op is the
// server's cost per run against the engine's (docs/benchmarks.md):
//
//	go test ./server/ -run '^$' -bench 'EngineRun|PostRun' -benchtime 200x
func BenchmarkEngineRun(b *testing.B) {
	for _, r := range smallRuns {
		body := smallRunScenario(b, r.path, r.durationMS)
		b.Run(r.name, func(b *testing.B) { benchEngineRun(b, body) })
		b.Run(r.name+"/as-tuxlb-run", func(b *testing.B) { benchCLIRun(b, body) })
	}
}

func benchEngineRun(b *testing.B, body []byte) {
	sc, err := core.ParseScenario(body)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu := cpuTime(b)
	b.ResetTimer()
	for range b.N {
		if _, err := core.Run(sc, core.RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
}

// benchCLIRun is what `tuxlb run` does with the scenario in process: read
// it (core.ParseScenario), run it, encode the result (result.Encode).
func benchCLIRun(b *testing.B, body []byte) {
	b.ReportAllocs()
	cpu := cpuTime(b)
	b.ResetTimer()
	for range b.N {
		sc, err := core.ParseScenario(body)
		if err != nil {
			b.Fatal(err)
		}
		res, err := core.Run(sc, core.RunOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(encodeResult(res)) == 0 {
			b.Fatal("empty result")
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
}

func BenchmarkPostRun(b *testing.B) {
	for _, r := range smallRuns {
		body := string(smallRunScenario(b, r.path, r.durationMS))
		b.Run(r.name, func(b *testing.B) { benchPostRun(b, body, "") })
		b.Run(r.name+"/indent=false", func(b *testing.B) { benchPostRun(b, body, "?indent=false") })
	}
}

func benchPostRun(b *testing.B, body, query string) {
	db, err := storage.Open(filepath.Join(b.TempDir(), "tuxlb.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	srv := New(Config{Store: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), AllowedHosts: []string{"example.com"}})
	b.ReportAllocs()
	var sent int
	cpu := cpuTime(b)
	b.ResetTimer()
	for range b.N {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/runs"+query, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			b.Fatalf("POST /api/v1/runs: %d %s", rec.Code, rec.Body.String())
		}
		sent += rec.Body.Len()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(sent)/float64(b.N), "resp-bytes/op")
}
