package core

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"testing"
)

// TestQueueingTheoryThreads: one instance with k = 4 dispatch threads on
// its own queue, Poisson arrivals and exponential service, is M/M/4 (each
// thread takes a request of the one queue when it becomes free). At offered
// load a = lambda/mu = 800/s x 4 ms = 3.2 (rho = 0.8), Erlang C gives the
// mean wait Wq = C(4, 3.2) / (4 mu - lambda) = 0.5964 / 200 s = 2.98 ms.
//
// Tolerance, derived rather than guessed: the run's million waits, in issue
// order, are cut into 20 batches of 50 000. The queue forgets its state over
// a relaxation time of about 1 / (c mu (1 - sqrt(rho))^2) = 1 ms / 0.0111 =
// 90 ms, some 70 arrivals, so batches 700 times longer than that are as
// good as independent, and their means are close to normal. The standard
// error of the run's mean is then the batch means' standard deviation over
// sqrt(20); the test wants the Erlang C value within 4 of them (two-sided,
// about 1 in 1 000 for a correct engine once the t(19) tail is counted;
// the seed is fixed, so the outcome does not change from run to run), and
// that standard error below 4% of it (the same test on an MSSQ set of four
// single-threaded instances, M/M/4 as well, measured 3.0% at 400 000
// requests, so about 1.9% at a million), so the bound is tight enough to catch
// a wrong reading: one thread at a time would be rho = 3.2, an unbounded
// queue; the four threads taken as one server four times as fast (M/M/1 at
// mu' = 4 mu = 1000/s) would give Wq = 0.8 / (1000 - 800) s = 4 ms, 34%
// above.
func TestQueueingTheoryThreads(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("long runs")
	}
	if !oracleThreads {
		t.Skip("oracleThreads is off")
	}
	const (
		k     = 4
		rate  = 800.0 // per second
		meanS = 4.0   // ms
		n     = 1000000
	)
	doc := fmt.Sprintf(`{
  "ubbconfig": "*RESOURCES\nIPCKEY 123456\nMASTER SITE1\nMODEL SHM\nLDBAL N\n\n*MACHINES\nnode1 LMID=SITE1\n\n*GROUPS\nAPP LMID=SITE1 GRPNO=1\n\n*SERVERS\nmt SRVGRP=APP SRVID=1 MAXDISPATCHTHREADS=%d CLOPT=\"-s SVC --\"\n\n*SERVICES\nSVC LOAD=50\n",
  "services": {"SVC": {"service_time": {"dist": "exp", "mean_ms": %g}}},
  "seed": 11,
  "workload": {"generate": {"duration_ms": %g, "streams": [{"service": "SVC", "arrivals": "poisson", "rate_per_s": %g}]}}
}`, k, meanS, n/rate*1000, rate)
	sc, err := ParseScenario([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	res, err := Run(sc, RunOptions{Dispatch: &log})
	if err != nil {
		t.Fatal(err)
	}
	a := rate * meanS / 1000
	want := erlangC(k, a) / (k*1000/meanS - rate) * 1000 // ms

	recs, err := csv.NewReader(&log).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var waits []float64
	for _, r := range recs[1:] {
		if r[col["reason"]] != "first" || r[col["start_us"]] == "" {
			continue
		}
		enq, _ := strconv.ParseInt(r[col["enqueue_us"]], 10, 64)
		start, _ := strconv.ParseInt(r[col["start_us"]], 10, 64)
		waits = append(waits, float64(start-enq)/1000)
	}
	const batches = 20
	size := len(waits) / batches
	var sum, sumSq float64
	for b := 0; b < batches; b++ {
		var m float64
		for _, w := range waits[b*size : (b+1)*size] {
			m += w
		}
		m /= float64(size)
		sum += m
		sumSq += m * m
	}
	mean := sum / batches
	sd := math.Sqrt((sumSq - batches*mean*mean) / (batches - 1))
	se := sd / math.Sqrt(batches)
	t.Logf("%d waits: mean %.4f ms (batch standard error %.4f), Erlang C %.4f ms", len(waits), mean, se, want)
	if se > 0.04*want {
		t.Errorf("standard error %.4f ms is more than 4%% of %.4f ms: the run is too short to judge", se, want)
	}
	if math.Abs(mean-want) > 4*se {
		t.Errorf("mean wait: got %.4f ms, want Erlang C %.4f ms within 4 standard errors (%.4f)", mean, want, 4*se)
	}
	if u := res.Servers[0].Utilization; math.Abs(u-0.8) > 0.01*0.8 {
		t.Errorf("utilization (busy over k x span): got %.4f, want 0.8 within 1%%", u)
	}
}
