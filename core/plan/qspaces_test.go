package plan

import (
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// qUBB has a TMQUEUE advertising queue space QS in group QG, a forwarder
// from queue A, and the application server of service A.
const qUBB = "*RESOURCES\nMODEL SHM\n*MACHINES\nn1 LMID=s1\n*GROUPS\nG1 LMID=s1 GRPNO=1\nQG LMID=s1 GRPNO=2\n*SERVERS\n" +
	"app SRVGRP=G1 SRVID=1 CLOPT=\"-s A\"\nTMQUEUE SRVGRP=QG SRVID=1 CLOPT=\"-s QS:TMQUEUE\"\n" +
	"TMQFORWARD SRVGRP=QG SRVID=2 CLOPT=\"-A -- -q A -i 5\"\n*SERVICES\nA\n"

func qScenario(edit func(*scenario.Scenario)) *scenario.Scenario {
	sc := &scenario.Scenario{UBBConfig: qUBB,
		Services: map[string]scenario.ServiceSpec{"A": {ServiceTime: &scenario.Dist{Dist: "const", MS: f(1)}}},
		Workload: scenario.Workload{Trace: []scenario.TraceRow{{TimeMS: f(0), Service: "A"}}}}
	if edit != nil {
		edit(sc)
	}
	return sc
}

// withQ gives the scenario queue space QS with queues A and ERR.
func withQ(sc *scenario.Scenario) {
	sc.QSpaces = map[string]scenario.QSpaceSpec{"QS": {Queues: map[string]scenario.QueueSpec{"A": {}, "ERR": {}}, ErrorQueue: "ERR"}}
}

func resolveQ(t *testing.T, sc *scenario.Scenario) error {
	t.Helper()
	m, err := ubb.Load(ubb.Input{UBBConfig: sc.UBBConfig})
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(sc); err != nil {
		return err
	}
	_, err = Resolve(m, sc, Options{})
	return err
}

// A configuration with TMQUEUE and TMQFORWARD servers and a scenario
// without /Q resolves as before: the system servers serve nothing.
func TestQServersAloneResolve(t *testing.T) {
	if err := resolveQ(t, qScenario(nil)); err != nil {
		t.Fatalf("got %v, want no error", err)
	}
}

// Every use of /Q that checks out resolves; every mistake is named.
func TestQChecks(t *testing.T) {
	const resolves = ""
	enq := func(sc *scenario.Scenario) { sc.Workload.Trace = []scenario.TraceRow{{TimeMS: f(0), Enqueue: "QS:A"}} }
	two := 2
	neg := -1
	for _, tc := range []struct {
		name string
		edit func(*scenario.Scenario)
		want string
	}{
		{"qspaces alone", withQ, resolves},
		{"trace row", func(sc *scenario.Scenario) { withQ(sc); enq(sc) }, resolves},
		{"stream", func(sc *scenario.Scenario) {
			withQ(sc)
			sc.Workload.Generate = &scenario.Generator{DurationMS: 10, Streams: []scenario.Stream{{Enqueue: "QS:ERR", Arrivals: "poisson", RatePerS: 1}}}
		}, resolves},
		{"script", func(sc *scenario.Scenario) {
			withQ(sc)
			sc.Workload.Generate = &scenario.Generator{DurationMS: 10, Clients: []scenario.ClientSet{{Name: "c", Count: 1, Script: []scenario.ScriptEntry{{Service: "A"}, {Enqueue: "QS:A"}}}}}
		}, resolves},
		{"call step", func(sc *scenario.Scenario) {
			withQ(sc)
			sc.Services["A"] = scenario.ServiceSpec{ServiceTime: &scenario.Dist{Dist: "const", MS: f(1)}, Calls: []scenario.CallStep{{Enqueue: "QS:A"}}}
		}, resolves},
		{"retries", func(sc *scenario.Scenario) {
			withQ(sc)
			sc.QSpaces["QS"].Queues["A"] = scenario.QueueSpec{Retries: &two, RetryDelayMS: f(10)}
		}, resolves},
		// the mistakes
		{"unknown queue space", func(sc *scenario.Scenario) {
			sc.QSpaces = map[string]scenario.QSpaceSpec{"QX": {Queues: map[string]scenario.QueueSpec{"A": {}}}}
		}, `qspaces.QX: no TMQUEUE server advertises queue space QX (the UBBCONFIG's queue spaces: QS; a TMQUEUE advertises one with CLOPT="-s QX:TMQUEUE")`},
		{"forwarder's queue in no queue space", func(sc *scenario.Scenario) {
			sc.QSpaces = map[string]scenario.QSpaceSpec{"QS": {Queues: map[string]scenario.QueueSpec{"B": {}}}}
		}, "qspaces: TMQFORWARD QG/2 forwards from queue A, which is in no queue space (give qspaces.QSPACE.queues.A)"},
		{"no queues", func(sc *scenario.Scenario) { sc.QSpaces = map[string]scenario.QSpaceSpec{"QS": {}} }, "qspaces.QS.queues: want at least one queue"},
		{"negative retries", func(sc *scenario.Scenario) {
			withQ(sc)
			sc.QSpaces["QS"].Queues["A"] = scenario.QueueSpec{Retries: &neg}
		}, "qspaces.QS.queues.A.retries: must be a whole number from 0 to 2147483647, got -1"},
		{"negative delay", func(sc *scenario.Scenario) {
			withQ(sc)
			sc.QSpaces["QS"].Queues["A"] = scenario.QueueSpec{RetryDelayMS: f(-1)}
		}, "qspaces.QS.queues.A.retry_delay_ms: "},
		{"error queue not a queue", func(sc *scenario.Scenario) {
			sc.QSpaces = map[string]scenario.QSpaceSpec{"QS": {Queues: map[string]scenario.QueueSpec{"A": {}}, ErrorQueue: "E"}}
		}, "qspaces.QS.error_queue: E is not a queue of queue space QS (its queues: A)"},
		{"bad enqueue time", func(sc *scenario.Scenario) {
			sc.QSpaces = map[string]scenario.QSpaceSpec{"QS": {Queues: map[string]scenario.QueueSpec{"A": {}}, EnqueueTime: &scenario.Dist{Dist: "nope"}}}
		}, "qspaces.QS.enqueue_time"},
		{"enqueue without qspaces", enq, `workload.trace[0].enqueue: "QS:A": qspaces has no queue space QS (give qspaces.QS.queues.A)`},
		{"enqueue of no queue", func(sc *scenario.Scenario) { withQ(sc); enq(sc); sc.Workload.Trace[0].Enqueue = "QS:Z" },
			`workload.trace[0].enqueue: "QS:Z": queue space QS has no queue Z (its queues: A, ERR)`},
		{"enqueue not QSPACE:Q", func(sc *scenario.Scenario) { withQ(sc); enq(sc); sc.Workload.Trace[0].Enqueue = "QS" },
			`workload.trace[0].enqueue: "QS": want QSPACE:QUEUE`},
		{"enqueue and service", func(sc *scenario.Scenario) { withQ(sc); enq(sc); sc.Workload.Trace[0].Service = "A" },
			"workload.trace[0]: give service or enqueue, not both"},
		{"enqueue and service_ms", func(sc *scenario.Scenario) { withQ(sc); enq(sc); sc.Workload.Trace[0].ServiceMS = f(1) },
			"workload.trace[0].service_ms: an enqueue's time is its queue space's enqueue_time"},
		{"enqueue step not a tpcall", func(sc *scenario.Scenario) {
			withQ(sc)
			sc.Services["A"] = scenario.ServiceSpec{ServiceTime: &scenario.Dist{Dist: "const", MS: f(1)}, Calls: []scenario.CallStep{{Enqueue: "QS:A", Mode: "tpacall"}}}
		}, "services.A.calls[0].mode: an enqueue step is a tpcall"},
	} {
		err := resolveQ(t, qScenario(tc.edit))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: got %v, want no error", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got  %v\n want %s", tc.name, err, tc.want)
		}
	}
}
