package core

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core/scenario"
)

// scaleServers turns the standard MP scenario (two machines of 8 instances)
// into one of n instances, n/2 on each machine, with the streams' rates
// multiplied by n/16 so that the load stays at 80%. Each machine's
// instances are entries of at most 512 (MAX is at most 1000), SRVIDs 1,
// 1001, 2001, ...
func scaleServers(tb testing.TB, sc *scenario.Scenario, n int) {
	tb.Helper()
	if n%16 != 0 {
		tb.Fatalf("scaleServers: n = %d, want a multiple of 16", n)
	}
	var lines []string
	for _, grp := range []string{"GRP1", "GRP2"} {
		for left, id := n/2, 1; left > 0; id += 1000 {
			k := min(left, 512)
			lines = append(lines, fmt.Sprintf("banksrv     SRVGRP=%s SRVID=%d MIN=%d MAX=%d CLOPT=\"-s BALANCE,DEPOSIT,TRANSFER,REPORT --\"", grp, id, k, k))
			left -= k
		}
	}
	u := sc.UBBConfig
	start := strings.Index(u, "*SERVERS\n")
	end := strings.Index(u, "*SERVICES")
	if start < 0 || end < start {
		tb.Fatal("scaleServers: no *SERVERS section before *SERVICES")
	}
	sc.UBBConfig = u[:start] + "*SERVERS\n" + strings.Join(lines, "\n") + "\n\n" + u[end:]
	for i := range sc.Workload.Generate.Streams {
		sc.Workload.Generate.Streams[i].RatePerS *= float64(n) / 16
	}
}

// scaleSizes are the numbers of server instances BenchmarkScale and
// BenchmarkScaleOverload run.
var scaleSizes = []int{16, 64, 256, 1024, 4096}

// benchScale runs the standard MP scenario (bench/scenarios/mp-standard.json)
// with n server instances (scaleServers) at the load 80% × factor, issuing
// about b.N requests: ns/op is per request, the run's fixed cost (setup,
// the result) included. It also reports net-ns/req, the cost of a request
// net of the fixed cost: the difference between this run and one of b.N/4
// requests, divided by the difference in requests. allocs/op and B/op are
// those of the run of b.N requests, per request.
func benchScale(b *testing.B, data []byte, n int, factor float64) {
	run := func(reqs int64) (int64, time.Duration) {
		sc, err := ParseScenario(data)
		if err != nil {
			b.Fatal(err)
		}
		scaleServers(b, sc, n)
		for i := range sc.Workload.Generate.Streams {
			sc.Workload.Generate.Streams[i].RatePerS *= factor
		}
		scaleToRequests(b, sc, reqs)
		t0 := time.Now()
		res, err := Run(sc, RunOptions{MaxRequests: max(reqs*2, 1000)})
		if err != nil {
			b.Fatal(err)
		}
		return res.Requests.Issued, time.Since(t0)
	}
	quarter := max(int64(b.N)/4, 1)
	b.StopTimer()
	n0, t0 := run(quarter)
	b.ReportAllocs()
	b.StartTimer()
	n1, t1 := run(int64(b.N))
	b.StopTimer()
	if n1 > n0 {
		b.ReportMetric(float64(t1-t0)/float64(n1-n0), "net-ns/req")
	}
}

// readMPStandard reads bench/scenarios/mp-standard.json.
func readMPStandard(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join("..", "bench", "scenarios", "mp-standard.json"))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkScale runs the standard MP scenario (80% load on two machines)
// with 16 to 4 096 server instances (benchScale). The target is a
// per-request cost, net of the fixed cost, at every size within 1.3 times
// that of 16 (docs/benchmarks.md).
func BenchmarkScale(b *testing.B) {
	data := readMPStandard(b)
	for _, n := range scaleSizes {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) { benchScale(b, data, n, 1) })
	}
}

// BenchmarkScaleOverload is BenchmarkScale at 120% load (the streams' rates
// 1.5 times those of 80%): most requests find no idle server, so Tuxedo's
// least cost decides them, from the cost trees (costtree.go, internal/costtree) from 64
// queues, from the scan below. The target is at most twice the cost of 16
// instances at every size.
func BenchmarkScaleOverload(b *testing.B) {
	data := readMPStandard(b)
	for _, n := range scaleSizes {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) { benchScale(b, data, n, 1.5) })
	}
}

// BenchmarkScaleOverloadScan is BenchmarkScaleOverload at 4 096 instances
// with the trees off: the least cost from the scan of every candidate
// queue, as services of fewer than 64 queues take it.
func BenchmarkScaleOverloadScan(b *testing.B) {
	data := readMPStandard(b)
	defer func(v int) { costTreeMin = v }(costTreeMin)
	costTreeMin = 1 << 30
	b.Run("servers=4096", func(b *testing.B) { benchScale(b, data, 4096, 1.5) })
}
