package core

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// runEngine compiles sc and plays it with the given options (its context,
// its dispatch log and the engine's knobs), returning the engine as it
// ended (for its counters) and the result's JSON.
func runEngine(t *testing.T, sc *scenario.Scenario, sopt simOptions) (*engine, string, error) {
	t.Helper()
	p, err := Compile(sc, RunOptions{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	reqs, base, err := p.open(RunOptions{Dispatch: sopt.Dispatch})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	base.Context = sopt.Context
	base.everyScan, base.replyTurns = sopt.everyScan, sopt.replyTurns
	e, err := newEngine(p.setup, reqs, base)
	if err != nil {
		t.Fatalf("newEngine: %v", err)
	}
	if err := e.loop(); err != nil {
		return e, "", err
	}
	_ = e.log.close(e)
	res := e.result()
	res.Name = p.name
	return e, string(result.Encode(res)), nil
}

// spawnScenario is srvA, SRVID=1 MIN=1 MAX=3, an MSSQ set (RQADDR=QA) with
// CLOPT clopt.
func spawnScenario(t *testing.T, scanUnit, clopt, trace string, events ...string) *scenario.Scenario {
	t.Helper()
	return spawnScenarioOf(t, "RQADDR=QA", scanUnit, clopt, trace, events...)
}

// spawnScenarioOf is spawnScenario with entry instead of RQADDR=QA (CONV=Y:
// a conversational entry with a queue per instance).
func spawnScenarioOf(t *testing.T, entry, scanUnit, clopt, trace string, events ...string) *scenario.Scenario {
	t.Helper()
	ubb := "*RESOURCES\nIPCKEY 1\nMASTER site1\nMODEL SHM\nLDBAL Y\nSCANUNIT " + scanUnit + "\nSANITYSCAN 2\n\n" +
		"*MACHINES\nnode1 LMID=site1\n\n*GROUPS\nG1 LMID=site1 GRPNO=1\n\n" +
		"*SERVERS\nsrvA SRVGRP=G1 SRVID=1 MIN=1 MAX=3 " + entry + " CLOPT=\"-s SVC " + clopt + "\"\n\n*SERVICES\nSVC LOAD=50\n"
	doc := fmt.Sprintf(`{"ubbconfig": %q, "tuning": {"boot_ms": 5}, "events": [%s], "workload": {"trace_csv": %q}}`,
		ubb, strings.Join(events, ","), trace)
	sc, err := ParseScenario([]byte(doc))
	if err != nil {
		t.Fatalf("ParseScenario: %v", err)
	}
	return sc
}

// A -p set with SCANUNIT 1MS and two requests almost 10^9 ms apart: a scan
// every millisecond would be 10^9 life-cycle steps. The BBL's scans between
// the two requests can decide nothing, so the run takes a handful.
func TestSpawnScansBetweenDistantRequestsAreSkipped(t *testing.T) {
	sc := spawnScenario(t, "1MS", "-p 1,1:2,1", "time_ms,service,service_ms\n0,SVC,1\n999000000,SVC,1\n")
	e, out, err := runEngine(t, sc, simOptions{})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if e.lifeSteps > 20 {
		t.Errorf("%d life-cycle steps for two requests; want a handful", e.lifeSteps)
	}
	if !strings.Contains(out, `"completed": 2`) {
		t.Errorf("both requests should complete:\n%s", out[:min(len(out), 600)])
	}
}

// Skipping scans changes no decision: random -p scenarios (MSSQ sets and
// conversational entries without RQADDR; quiet stretches, some longer than
// the spares' terminate time; kills, shutdowns and boots) give the same
// bytes with every scan played. The spawn test is met or exceeded, decay the
// spares' own idle alarms: both must show up in the cases.
func TestSkippedSpawnScansChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	spawns, decays, convSpawns := 0, 0, 0
	for k := 0; k < 300; k++ {
		var trace strings.Builder
		trace.WriteString("time_ms,service,service_ms\n")
		at := 0
		for n := 0; n < 40; n++ {
			if r.IntN(8) == 0 {
				at += 200 + r.IntN(2400) // a quiet stretch of many scans
			}
			at += r.IntN(6)
			fmt.Fprintf(&trace, "%d,SVC,%d\n", at, 1+r.IntN(30))
		}
		clopt := fmt.Sprintf("-p %s%d,%d:%d,%d", []string{"", "L"}[r.IntN(2)], r.IntN(2), r.IntN(3), 1+r.IntN(2), r.IntN(3))
		if strings.Contains(clopt, "L") {
			clopt = fmt.Sprintf("-p L%d,%d:%d,%d", 50*r.IntN(2), r.IntN(3), 50+50*r.IntN(2), r.IntN(3))
		}
		var events []string // kills, shutdowns and boots among the scans
		for n, ev := 0, 0; n < r.IntN(5); n++ {
			ev += 1 + r.IntN(max(at/4, 1))
			events = append(events, fmt.Sprintf(`{"at_ms": %d, %q: "G1/%d"}`, ev,
				[]string{"kill", "shutdown", "boot"}[r.IntN(3)], 1+r.IntN(3)))
		}
		entry := []string{"RQADDR=QA", "CONV=Y"}[r.IntN(2)]
		sc := spawnScenarioOf(t, entry, []string{"1MS", "5MS", "20MS"}[r.IntN(3)], clopt, trace.String(), events...)
		_, skipped, err1 := runEngine(t, sc, simOptions{})
		_, every, err2 := runEngine(t, sc, simOptions{everyScan: true})
		if err1 != nil || err2 != nil {
			t.Fatalf("case %d (%s %s): %v / %v", k, entry, clopt, err1, err2)
		}
		if skipped != every {
			t.Fatalf("case %d (%s %s): skipping scans changed the result:\n%s", k, entry, clopt, firstDiff(skipped, every))
		}
		n := strings.Count(skipped, `"cause": "spawn"`)
		spawns += n
		decays += strings.Count(skipped, `"cause": "decay"`)
		if entry == "CONV=Y" {
			convSpawns += n
			if strings.Contains(skipped, `"cause": "decay"`) {
				t.Errorf("case %d (%s %s): a conversational entry without RQADDR decayed", k, entry, clopt)
			}
		}
	}
	if spawns < 50 || decays < 50 || convSpawns < 20 {
		t.Errorf("the cases spawned %d spares (%d conversational) and decayed %d: too few to test anything", spawns, convSpawns, decays)
	}
	t.Logf("%d spawns (%d conversational), %d decays", spawns, convSpawns, decays)
}

// Life-cycle steps are checkpoints: a canceled run whose work is scenario
// events stops with ECANCELED instead of playing them all.
func TestCanceledRunStopsBetweenLifeCycleSteps(t *testing.T) {
	var ev strings.Builder
	for i := 0; i < 10000; i++ {
		if i > 0 {
			ev.WriteString(",")
		}
		action := "kill"
		if i%2 == 1 {
			action = "boot"
		}
		fmt.Fprintf(&ev, `{"at_ms": %d, %q: "G1/1"}`, 1+i, action)
	}
	ubb := "*RESOURCES\nIPCKEY 1\nMASTER site1\nMODEL SHM\nLDBAL Y\n\n*MACHINES\nnode1 LMID=site1\n\n*GROUPS\nG1 LMID=site1 GRPNO=1\n\n*SERVERS\nsrvA SRVGRP=G1 SRVID=1 CLOPT=\"-s SVC\"\n\n*SERVICES\nSVC LOAD=50\n"
	doc := fmt.Sprintf(`{"ubbconfig": %q, "events": [%s], "workload": {"trace_csv": "time_ms,service,service_ms\n0,SVC,1\n"}}`, ubb, ev.String())
	sc, err := ParseScenario([]byte(doc))
	if err != nil {
		t.Fatalf("ParseScenario: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e, _, err := runEngine(t, sc, simOptions{RunOptions: RunOptions{Context: ctx}})
	var ce *diag.Error
	if !errors.As(err, &ce) || ce.Code != diag.ECANCELED {
		t.Fatalf("err = %v, want ECANCELED", err)
	}
	if e.lifeSteps > 4096 {
		t.Errorf("%d life-cycle steps after the cancellation; want at most one slice (4096)", e.lifeSteps)
	}
}

// firstDiff shows the first differing line of two texts, with context.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < min(len(la), len(lb)); i++ {
		if la[i] != lb[i] {
			lo := max(0, i-6)
			return fmt.Sprintf("line %d:\n%s\n- %s\n+ %s", i+1, strings.Join(la[lo:i], "\n"), la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(la), len(lb))
}
