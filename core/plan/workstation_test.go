package plan

import (
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/workload"
)

// wsUBB has a WSL (two instances) on machine s2 and an application server on s1.
const wsUBB = "*RESOURCES\nMODEL MP\nLDBAL Y\nMASTER s1\n*MACHINES\nn1 LMID=s1\nn2 LMID=s2 MAXWSCLIENTS=4\n" +
	"*GROUPS\nG1 LMID=s1 GRPNO=1\nWS LMID=s2 GRPNO=2\n*SERVERS\napp SRVGRP=G1 SRVID=1 CLOPT=\"-s A\"\n" +
	"WSL SRVGRP=WS SRVID=7 MIN=2 CLOPT=\"-A -- -n //h:1 -m 1 -x 2\"\n*SERVICES\nA\n"

func wsScenario(edit func(*scenario.Scenario)) *scenario.Scenario {
	sc := &scenario.Scenario{UBBConfig: wsUBB,
		Services: map[string]scenario.ServiceSpec{"A": {ServiceTime: &scenario.Dist{Dist: "const", MS: f(1)}}},
		Workload: scenario.Workload{Generate: &scenario.Generator{DurationMS: 10,
			Clients: []scenario.ClientSet{{Name: "ws", Count: 3, Via: "WS/7", Script: []scenario.ScriptEntry{{Service: "A"}}}}}}}
	if edit != nil {
		edit(sc)
	}
	return sc
}

func resolveWS(t *testing.T, sc *scenario.Scenario) error {
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

// The client set's via resolves to the WSL, whose machine is its origin.
func TestViaResolves(t *testing.T) {
	m, err := ubb.Load(ubb.Input{UBBConfig: wsUBB})
	if err != nil {
		t.Fatal(err)
	}
	st := &Setup{Model: m}
	n := workload.NewNames(m)
	n.NeedMS = make([]bool, len(m.Services))
	timed := func(string, int) error { return nil }
	for _, tc := range []struct {
		via   string
		first bool
	}{{"WS/7", true}, {"WS/8", false}} {
		cs := wsScenario(nil).Workload.Generate.Clients[0]
		cs.Via = tc.via
		cp, err := st.clientSet(n, &cs, "workload.generate.clients[0]", timed)
		if err != nil {
			t.Fatalf("%s: %v", tc.via, err)
		}
		if cp.Via != &m.Workstations[0] || cp.ViaFirst != tc.first || cp.Origin != 1 {
			t.Errorf("%s: via %p (want %p), first %v (want %v), origin %d (want 1, s2)", tc.via, cp.Via, &m.Workstations[0], cp.ViaFirst, tc.first, cp.Origin)
		}
	}
	cs := wsScenario(nil).Workload.Generate.Clients[0]
	cs.Via = ""
	if cp, err := st.clientSet(n, &cs, "f", timed); err != nil || cp.Via != nil || cp.Origin != 0 {
		t.Errorf("without via: %+v, %v; want no workstation, origin s1", cp, err)
	}
}

func TestViaErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*scenario.Scenario)
		want string
	}{
		{"not a WSL", func(sc *scenario.Scenario) { sc.Workload.Generate.Clients[0].Via = "G1/1" },
			`workload.generate.clients[0].via: "G1/1" is not a WSL instance (via names one as GROUP/SRVID; the UBBCONFIG's WSLs: WS/7)`},
		{"no such instance", func(sc *scenario.Scenario) { sc.Workload.Generate.Clients[0].Via = "WS/9" },
			`workload.generate.clients[0].via: "WS/9" is not a WSL instance`},
		{"no WSL", func(sc *scenario.Scenario) {
			sc.UBBConfig = strings.Replace(sc.UBBConfig, "WSL SRVGRP", "other SRVGRP", 1)
		}, `workload.generate.clients[0].via: "WS/7": the UBBCONFIG has no WSL`},
		{"via and origin", func(sc *scenario.Scenario) { sc.Workload.Generate.Clients[0].Origin = "s1" },
			"workload.generate.clients[0].via: give via or origin, not both"},
		{"bad handling time", func(sc *scenario.Scenario) {
			sc.Workstation = &scenario.WorkstationSpec{HandlingTime: &scenario.Dist{Dist: "const", MS: f(-1)}}
		}, "workstation.handling_time"},
	} {
		err := resolveWS(t, wsScenario(tc.edit))
		if err == nil || !strings.Contains(err.Error(), tc.want) || diag.ErrorCode(err) != diag.EINVALID {
			t.Errorf("%s: got %v, want an invalid-input error with %q", tc.name, err, tc.want)
		}
	}
	if err := resolveWS(t, wsScenario(func(sc *scenario.Scenario) { sc.Workload.Generate.Clients[0].Via = "" })); err != nil {
		t.Errorf("without via: %v", err)
	}
}

// A handling time is compiled for client sets with via; without any, it is
// not used, and a warning says so.
func TestHandlingTime(t *testing.T) {
	m, err := ubb.Load(ubb.Input{UBBConfig: wsUBB})
	if err != nil {
		t.Fatal(err)
	}
	h := &scenario.WorkstationSpec{HandlingTime: &scenario.Dist{Dist: "const", MS: f(2)}}
	st, err := Resolve(m, wsScenario(func(sc *scenario.Scenario) { sc.Workstation = h }), Options{})
	if err != nil || st.HandlingTime == nil || st.HandlingTime.SampleMS(nil) != 2 || len(st.Warnings) != 0 {
		t.Errorf("with via: %v, %v, warnings %q; want a const 2 ms sampler and no warning", st, err, st.Warnings)
	}
	if st.App.Clients[0].Via == nil || st.App.Clients[0].Origin != 1 {
		t.Errorf("the set's via and origin: %+v", st.App.Clients[0])
	}
	st, err = Resolve(m, wsScenario(func(sc *scenario.Scenario) { sc.Workstation = h; sc.Workload.Generate.Clients[0].Via = "" }), Options{})
	if err != nil || st.HandlingTime != nil || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "workstation.handling_time: no client set connects through a WSL (via), so it is not used") {
		t.Errorf("without via: %v, warnings %q", err, st.Warnings)
	}
}

// TestClientsTotalBound: client sets of 100 000 clients each are accepted
// up to MaxClientsTotal clients in all; the set that passes it is named.
func TestClientsTotalBound(t *testing.T) {
	sets := MaxClientsTotal/100_000 + 1
	sc := wsScenario(func(sc *scenario.Scenario) {
		g := sc.Workload.Generate
		g.Clients = nil
		for k := range sets {
			g.Clients = append(g.Clients, scenario.ClientSet{Name: "c" + strings.Repeat("x", k%3) + string(rune('a'+k%26)) + string(rune('a'+k/26)),
				Count: 100_000, Script: []scenario.ScriptEntry{{Service: "A"}}})
		}
	})
	err := resolveWS(t, sc)
	want := "workload.generate.clients[100].count"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "10000000 clients in all") {
		t.Fatalf("got %v, want an error naming %s", err, want)
	}
	sc.Workload.Generate.Clients = sc.Workload.Generate.Clients[:sets-1]
	if err := resolveWS(t, sc); err != nil {
		t.Fatalf("%d clients: %v", MaxClientsTotal, err)
	}
}
