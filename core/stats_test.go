package core

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
)

// TestStatsHandWorked: LDBAL=N, R1 at 0 ms and R2 at 1 ms, 10 ms each, both
// on G1/1. R2 waits 1..10 ms. Span 20 ms.
func TestStatsHandWorked(t *testing.T) {
	m := engModel(t, strings.Replace(twoSHM, "ldbal Y", "ldbal N", 1))
	res, _ := runLog(t, engSetup(m), engRequests(t, m, "0 S site1 10\n1 S site1 10"))
	if res.SpanMS != 20 {
		t.Errorf("span: got %v, want 20", res.SpanMS)
	}
	if want := (result.Summary{Count: 2, Mean: 4.5, P50: 0, P95: 9, P99: 9, Max: 9}); res.WaitMS != want {
		t.Errorf("wait: got %+v, want %+v", res.WaitMS, want)
	}
	// p50: 10000 us lies in the histogram's 8 us wide bucket 10000..10007,
	// reported by its highest value (3 significant digits).
	if want := (result.Summary{Count: 2, Mean: 14.5, P50: 10.007, P95: 19, P99: 19, Max: 19}); res.ResponseMS != want {
		t.Errorf("response: got %+v, want %+v", res.ResponseMS, want)
	}
	s1, s2 := res.Servers[0], res.Servers[1]
	if s1.Requests != 2 || s1.LoadDone != 100 || s1.BusyMS != 20 || s1.Utilization != 1 || s1.Share != 1 || s1.Chosen != 2 {
		t.Errorf("G1/1: got %+v", s1)
	}
	if s2.Requests != 0 || s2.Utilization != 0 || s2.Chosen != 0 {
		t.Errorf("G1/2: got %+v", s2)
	}
	if !reflect.DeepEqual(s1.Done, []result.ServiceCount{{Service: "S", Requests: 2}}) {
		t.Errorf("G1/1 done: got %+v", s1.Done)
	}
	if q := res.Queues[0]; q.MaxLength != 1 || q.AvgLength != 0.45 || q.Enqueued != 2 {
		t.Errorf("queue G1/1: got max %d avg %v enqueued %d, want 1, 0.45, 2", q.MaxLength, q.AvgLength, q.Enqueued)
	}
	// Machine utilization: the mean of G1/1 (1) and G1/2 (0), both advertise S.
	if want := (result.MachineStats{LMID: "site1", Issued: 2, Served: 2, Local: 2, Utilization: 0.5}); res.Machines[0] != want {
		t.Errorf("machine: got %+v, want %+v", res.Machines[0], want)
	}
	if want := (result.Balance{JainUtilization: 0.5, MaxOverMean: 2}); res.Balance != want {
		t.Errorf("balance: got %+v, want %+v", res.Balance, want)
	}
	// Two requests are too few to judge an offered load: no warning about it
	// (TestOfferedLoadWarning has one with enough requests).
	wantWarn := []string{"G1/2 never got a request", "only 2 requests completed"}
	if len(res.Warnings) != len(wantWarn) {
		t.Fatalf("warnings: got %q, want %d", res.Warnings, len(wantWarn))
	}
	for i, w := range wantWarn {
		if !strings.Contains(res.Warnings[i], w) {
			t.Errorf("warning %d: got %q, want it to mention %q", i, res.Warnings[i], w)
		}
	}
	// Series: no horizon given, so 1 ms bins; 20 of them.
	ser := res.Series
	if ser.BinMS != 1 || len(ser.StartMS) != 20 {
		t.Fatalf("series: got bin %v ms and %d bins, want 1 ms and 20", ser.BinMS, len(ser.StartMS))
	}
	wantQ := make([]float64, 20)
	for k := 1; k < 10; k++ {
		wantQ[k] = 1
	}
	if !reflect.DeepEqual(ser.Queue[0].Values, wantQ) {
		t.Errorf("queue length series: got %v, want %v", ser.Queue[0].Values, wantQ)
	}
	if u := ser.Util[0].Values; u[0] != 1 || u[19] != 1 || ser.Util[1].Values[5] != 0 {
		t.Errorf("utilization series: got %v / %v", u, ser.Util[1].Values)
	}
	if d := ser.Dispatch[0].Values; d[0] != 1 || d[1] != 1 || d[2] != 0 {
		t.Errorf("dispatch series: got %v", d)
	}
	if h := res.Services[0].Histogram; sum(h.Counts) != 2 || len(h.BoundsMS) != len(h.Counts) {
		t.Errorf("histogram: got %+v, want 2 counts", h)
	}
}

func sum(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s
}

// TestSeriesMerge: one 500 ms request with 1 ms bins fills 240 bins twice;
// the bins merge to 4 ms and there are 125 of them, all busy.
func TestSeriesMerge(t *testing.T) {
	m := engModel(t, oneServer)
	res, _ := runLog(t, engSetup(m), engRequests(t, m, "0 S site1 500"))
	ser := res.Series
	if ser.BinMS != 4 || len(ser.StartMS) != 125 || ser.StartMS[124] != 496 {
		t.Fatalf("series: got bin %v ms, %d bins, want 4 ms and 125", ser.BinMS, len(ser.StartMS))
	}
	for k, u := range ser.Util[0].Values {
		if u != 1 {
			t.Fatalf("bin %d: utilization %v, want 1", k, u)
		}
	}
	if ser.Dispatch[0].Values[0] != 1 || sumF(ser.Dispatch[0].Values) != 1 {
		t.Errorf("dispatches: got %v", ser.Dispatch[0].Values)
	}
}

func sumF(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// TestCounterSeries: the MP reset case (reset every 10 ms, span 3 s) lists
// 300 resets and the counters site1 keeps for both queues.
func TestCounterSeries(t *testing.T) {
	var tc dispatchCase
	for _, c := range dispatchCases {
		if strings.HasPrefix(c.name, "MP reset") {
			tc = c
		}
	}
	m := engModel(t, tc.model)
	setup := engSetup(m)
	tc.tweak(setup)
	res, _ := runLog(t, setup, engRequests(t, m, tc.reqs))
	ser := res.Series
	if len(ser.ResetsMS) != 300 || ser.ResetsMS[0] != 10 || ser.ResetsMS[299] != 3000 {
		t.Errorf("resets: got %d, first %v", len(ser.ResetsMS), ser.ResetsMS[:1])
	}
	if len(ser.Counters) != 2 || ser.Counters[0].Machine != "site1" || ser.Counters[0].Queue != "G1/1" || ser.Counters[1].Queue != "G2/1" {
		t.Fatalf("counters: got %+v", ser.Counters)
	}
}

func TestWarmupExcluded(t *testing.T) {
	m := engModel(t, oneServer)
	setup := engSetup(m)
	setup.WarmupUS = 5000
	res, _ := runLog(t, setup, engRequests(t, m, "0 S site1 10\n6 S site1 2\n20 S site1 2"))
	// R1 is simulated (R2 waits behind it until 10 ms) but not counted.
	if res.Requests.Issued != 2 || res.WaitMS.Max != 4 || res.WaitMS.Count != 2 {
		t.Errorf("got issued %d, wait %+v; want 2 issued, max wait 4 ms", res.Requests.Issued, res.WaitMS)
	}
	// Busy after the warm-up: 5..10 (R1) + 10..12 + 20..22 = 9 ms of 17.
	if got := res.Servers[0].BusyMS; got != 9 {
		t.Errorf("busy: got %v ms, want 9", got)
	}
}

// TestOfferedLoadWarning: 200 requests 1 ms apart, 10 ms each, on one server
// offer 10 servers' worth of work: warned; the first 3 alone are too few to say.
func TestOfferedLoadWarning(t *testing.T) {
	run := func(n int) []string {
		var trace strings.Builder
		trace.WriteString("time_ms,service,service_ms\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&trace, "%d,S,10\n", i)
		}
		doc, _ := json.Marshal(map[string]any{
			"ubbconfig": "*RESOURCES\nMODEL SHM\n*MACHINES\nh LMID=A\n*GROUPS\nG LMID=A GRPNO=1\n*SERVERS\ns SRVGRP=G SRVID=1 CLOPT=\"-s S\"\n",
			"workload":  map[string]any{"trace_csv": trace.String()},
		})
		sc, err := ParseScenario(doc)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(sc, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Warnings
	}
	has := func(ws []string) bool {
		for _, w := range ws {
			if strings.Contains(w, "offered load") {
				return true
			}
		}
		return false
	}
	if ws := run(200); !has(ws) {
		t.Errorf("200 requests at 10x capacity: no offered-load warning in %q", ws)
	}
	if ws := run(3); has(ws) {
		t.Errorf("3 requests: got an offered-load warning in %q", ws)
	}
}
