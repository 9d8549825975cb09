package core

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/workload"
)

// genRequests is a synthetic Poisson workload over services and origins,
// generated on the fly (the workload code's generators replace it once
// merged; this keeps the engine's benchmark independent of them).
type genRequests struct {
	r        rng.PCG
	n, total int64
	t        float64 // us
	meanGap  float64 // us
	nsvc, nm int
}

func (g *genRequests) Next(r *workload.Request) bool {
	if g.n >= g.total {
		return false
	}
	g.n++
	g.t += -math.Log(1-g.r.Float64()) * g.meanGap
	*r = workload.Request{Seq: g.n, TimeUS: int64(g.t), Service: g.r.IntN(g.nsvc), Origin: g.r.IntN(g.nm),
		ServiceUS: -1, Key: g.r.Uint64()}
	return true
}
func (g *genRequests) Err() error   { return nil }
func (g *genRequests) Total() int64 { return g.total }

// benchExp draws exponential service times (benchmarks only).
type benchExp float64

func (e benchExp) SampleMS(r *rng.PCG) float64 { return -math.Log(1-r.Float64()) * float64(e) }
func (e benchExp) MeanMS() float64             { return float64(e) }

// benchModel is 2 machines x 8 servers (MP) or 1 x 16 (SHM), 4 services;
// mssq puts each group's 8 servers on one queue.
func benchModel(b *testing.B, kind string) *Model {
	var s strings.Builder
	model, machines := "MP", 2
	if kind != "mp" {
		model, machines = "SHM", 1
	}
	fmt.Fprintf(&s, "model %s ldbal Y\n", model)
	for m := 1; m <= machines; m++ {
		fmt.Fprintf(&s, "machine site%d netload 100\n", m)
	}
	for g := 1; g <= 2; g++ {
		fmt.Fprintf(&s, "group G%d site%d\n", g, min(g, machines))
		rq := ""
		if kind == "mssq" {
			rq = fmt.Sprintf(" rq=Q%d", g)
		}
		fmt.Fprintf(&s, "server G%d 1 simpserv A,B,C,D n=8%s\n", g, rq)
	}
	t := &testing.T{}
	return engModel(t, s.String())
}

// BenchmarkRun simulates the standard scenarios of bench/scenarios (the performance targets:
// Poisson arrivals at 80% load, all statistics on, no dispatch log), the
// generation duration scaled so the run has b.N requests. Setup and
// workload opening are outside the timer; generating requests is inside.
func BenchmarkRun(b *testing.B) {
	for _, kind := range []string{"shm", "mp", "mssq"} {
		b.Run(kind, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join("..", "bench", "scenarios", kind+"-standard.json"))
			if err != nil {
				b.Skip(err)
			}
			sc, err := ParseScenario(data)
			if err != nil {
				b.Fatal(err)
			}
			g := sc.Workload.Generate
			var rate float64
			for _, st := range g.Streams {
				rate += st.RatePerS
			}
			g.DurationMS = float64(b.N)/rate*1000*1.05 + 1000
			setup, err := newSetup(sc, RunOptions{})
			if err != nil {
				b.Fatal(err)
			}
			reqs, err := workload.Open(setup.Model, sc, setup.Seed, DefaultMaxRequests)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			res, err := simulate(setup, &limitRequests{Stream: reqs, n: int64(b.N)}, simOptions{HorizonUS: int64(g.DurationMS * 1000)})
			if err != nil {
				b.Fatal(err)
			}
			if res.Requests.Issued != int64(b.N) {
				b.Fatalf("issued %d, want %d", res.Requests.Issued, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}

// BenchmarkRunSynthetic is the engine on a synthetic workload of the same
// shape (16 servers, 4 services, 80% load), independent of the workload code.
func BenchmarkRunSynthetic(b *testing.B) {
	for _, kind := range []string{"shm", "mp", "mssq"} {
		b.Run(kind, func(b *testing.B) {
			m := benchModel(b, kind)
			setup := engSetup(m)
			for s := range setup.ServiceTime {
				setup.ServiceTime[s] = make([]dist.Sampler, len(m.Groups))
				for g := range m.Groups {
					setup.ServiceTime[s][g] = benchExp(4)
				}
			}
			// 16 servers x 1/4 ms at 80%: 3200 requests per second.
			reqs := &genRequests{total: int64(b.N), meanGap: 1e6 / 3200, nsvc: len(m.Services), nm: len(m.Machines)}
			reqs.r.Seed(1, 1)
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := simulate(setup, reqs, simOptions{}); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}

// limitRequests stops a workload after n requests.
type limitRequests struct {
	workload.Stream
	n int64
}

func (l *limitRequests) Next(r *workload.Request) bool {
	if l.n == 0 {
		return false
	}
	l.n--
	return l.Stream.Next(r)
}
