package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/pool"
)

// TestSweepBridge: the page's way (plan, units in any order, reduce) gives
// the bytes of the CLI's pool.
func TestSweepBridge(t *testing.T) {
	data, err := os.ReadFile("../../examples/mp-netload.json")
	if err != nil {
		t.Fatal(err)
	}
	spec := `{"vary":["rate_scale=0.5,1","policy=tuxedo,jsq"],"replications":2,"objective":"response_p99_ms<=100"}`
	var plan sweepPlanAnswer
	if err := json.Unmarshal([]byte(sweepPlan(string(data), spec)), &plan); err != nil || plan.Units != 8 || plan.Points != 4 {
		t.Fatalf("plan: %+v, %v", plan, err)
	}
	samples := make([]*string, plan.Units)
	for u := plan.Units - 1; u >= 0; u-- {
		var a struct{ Sample string }
		if err := json.Unmarshal([]byte(sweepUnit(string(data), spec, u, nil)), &a); err != nil || a.Sample == "" {
			t.Fatalf("unit %d: %v", u, err)
		}
		samples[u] = &a.Sample
	}
	all, _ := json.Marshal(samples)
	var red struct{ Result, CSV string }
	if err := json.Unmarshal([]byte(sweepReduce(string(data), spec, string(all))), &red); err != nil {
		t.Fatal(err)
	}
	sc, _ := core.ParseScenario(data)
	var sp sweep.Spec
	json.Unmarshal([]byte(spec), &sp)
	sw, err := sweep.Compile(sc, sp)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pool.Sweep(context.Background(), sw, pool.SweepOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := string(sweep.Encode(res)); red.Result != want {
		t.Errorf("bridge result differs from the pool's:\n%s\nwant\n%s", red.Result, want)
	}
	if !strings.HasPrefix(red.CSV, "rate_scale,policy,replications,issued,") {
		t.Errorf("csv: %.80q", red.CSV)
	}
	if msg := sweepPlan(string(data), `{"vary":["nope=1"]}`); !strings.Contains(msg, "vary nope: unknown key") {
		t.Errorf("bad key: %s", msg)
	}
}

// TestSweepPendingPrecision: a sweep to a precision run the page's way —
// sweepPending says which units to run, they run (here in reverse order,
// as workers may finish them), sweepPending again until it asks for none,
// then sweepReduce — gives the bytes of sweep.Sweep.Run and of the CLI's
// pool, and some point needed more than one batch.
func TestSweepPendingPrecision(t *testing.T) {
	data := example(t, "mp-netload.json")
	spec := `{"vary":["rate_scale=0.5,1"],"replications":2,"objective":"response_p99_ms<=100","precision":0.02,"max_replications":6}`
	var plan sweepPlanAnswer
	if err := json.Unmarshal([]byte(sweepPlan(data, spec)), &plan); err != nil || plan.Points != 2 || plan.Units != 12 || plan.Replications != 2 || plan.MaxReplications != 6 {
		t.Fatalf("plan: %+v, %v", plan, err)
	}
	samples := make([]*string, plan.Units)
	all := func() string {
		b, _ := json.Marshal(samples)
		return string(b)
	}
	rounds, ran := 0, 0
	for {
		ans := sweepPending(data, spec, all())
		var p struct{ Units []int }
		if err := json.Unmarshal([]byte(ans), &p); err != nil || p.Units == nil {
			t.Fatalf("sweepPending: %s (%v)", ans, err)
		}
		if len(p.Units) == 0 {
			break
		}
		if rounds++; rounds > plan.Units {
			t.Fatalf("sweepPending still asks for units after %d rounds: %v", rounds, p.Units)
		}
		for i := len(p.Units) - 1; i >= 0; i-- {
			u := p.Units[i]
			if samples[u] != nil {
				t.Fatalf("round %d asks again for unit %d", rounds, u)
			}
			var a struct{ Sample string }
			if err := json.Unmarshal([]byte(sweepUnit(data, spec, u, nil)), &a); err != nil || a.Sample == "" {
				t.Fatalf("unit %d: %v", u, err)
			}
			samples[u] = &a.Sample
			ran++
		}
	}
	if rounds < 2 || ran <= plan.Points*plan.Replications {
		t.Errorf("%d rounds, %d runs: want a point that needed a second batch (choose a tighter precision)", rounds, ran)
	}
	var red struct{ Result string }
	if err := json.Unmarshal([]byte(sweepReduce(data, spec, all())), &red); err != nil || red.Result == "" {
		t.Fatalf("sweepReduce: %v", err)
	}
	sc, err := core.ParseScenario([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var sp sweep.Spec
	if err := json.Unmarshal([]byte(spec), &sp); err != nil {
		t.Fatal(err)
	}
	sw, err := sweep.Compile(sc, sp)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := sw.Run(core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := string(sweep.Encode(serial)); red.Result != want {
		t.Errorf("the bridge's result differs from sweep.Sweep.Run's:\n%s\nwant\n%s", red.Result, want)
	}
	pooled, err := pool.Sweep(context.Background(), sw, pool.SweepOptions{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := string(sweep.Encode(pooled)); red.Result != want {
		t.Errorf("the bridge's result differs from the pool's:\n%s\nwant\n%s", red.Result, want)
	}
	if !strings.Contains(red.Result, `"precision": 0.02`) {
		t.Errorf("the result does not carry the precision: %.300s", red.Result)
	}
	// A half-done sweep: sweepReduce lists only the points complete so far,
	// and sweepPending asks for exactly the units left of the current round.
	half := make([]*string, plan.Units)
	copy(half, samples)
	half[0] = nil
	var p struct{ Units []int }
	json.Unmarshal([]byte(sweepPending(data, spec, func() string { b, _ := json.Marshal(half); return string(b) }())), &p)
	if fmt.Sprint(p.Units) != "[0]" {
		t.Errorf("with unit 0 missing, sweepPending asks for %v, want [0]", p.Units)
	}
	if msg := sweepPending(data, spec, "[1]"); !strings.Contains(msg, `"error"`) {
		t.Errorf("bad samples: %s", msg)
	}
}
