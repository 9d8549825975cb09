package core

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// genRequests is a synthetic Poisson workload over services and origins,
// generated on the fly (the workload code's generators replace it once
// merged; this keeps the engine's benchmark independent of them).
type genRequests struct {
	r        Rand
	n, total int64
	t        float64 // us
	meanGap  float64 // us
	nsvc, nm int
}

func (g *genRequests) Next(r *Request) bool {
	if g.n >= g.total {
		return false
	}
	g.n++
	g.t += -math.Log(1-g.r.Float64()) * g.meanGap
	*r = Request{Seq: g.n, TimeUS: int64(g.t), Service: g.r.IntN(g.nsvc), Origin: g.r.IntN(g.nm),
		ServiceUS: -1, Key: g.r.Uint64()}
	return true
}
func (g *genRequests) Err() error   { return nil }
func (g *genRequests) Total() int64 { return g.total }

// benchExp draws exponential service times (benchmarks only).
type benchExp float64

func (e benchExp) SampleMS(r *Rand) float64 { return -math.Log(1-r.Float64()) * float64(e) }
func (e benchExp) MeanMS() float64          { return float64(e) }

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

func BenchmarkRun(b *testing.B) {
	for _, kind := range []string{"shm", "mp", "mssq"} {
		b.Run(kind, func(b *testing.B) {
			m := benchModel(b, kind)
			setup := engSetup(m)
			for s := range setup.ServiceTime {
				setup.ServiceTime[s] = make([]Sampler, len(m.Groups))
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
