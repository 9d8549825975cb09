package starter

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// TestAdaptKeepsTheExamples: a scenario that fits its configuration comes
// back unchanged, with no note.
func TestAdaptKeepsTheExamples(t *testing.T) {
	paths, _ := filepath.Glob("../../examples/*.json")
	if len(paths) == 0 {
		t.Fatal("no examples")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := core.ParseScenario(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got, notes, err := Adapt(sc)
		if err != nil || len(notes) > 0 || !reflect.DeepEqual(got, sc) {
			t.Errorf("%s: got notes %q, error %v, changed %v", p, notes, err, !reflect.DeepEqual(got, sc))
		}
	}
}

// TestAdaptToANewConfig: the example's scenario (services TOUPPER, machine
// site1, a stream of TOUPPER) meets starterUBB (services A, B, C; server
// legacy without -s; LMID site1).
func TestAdaptToANewConfig(t *testing.T) {
	sc := &scenario.Scenario{
		UBBConfig: starterUBB,
		Advertise: map[string][]string{"simpserv": {"TOUPPER"}},
		Services: map[string]scenario.ServiceSpec{
			"TOUPPER": {ServiceTime: &scenario.Dist{Dist: "const", MS: ptr(2.0)}},
			"A":       {ServiceTime: &scenario.Dist{Dist: "const", MS: ptr(3.0)}, ByGroup: map[string]scenario.Dist{"GONE": {Dist: "const", MS: ptr(1.0)}}},
		},
		Machines: map[string]scenario.MachineSpec{"site2": {Speed: ptr(2.0)}, "site1": {Speed: ptr(0.5)}},
		Workload: scenario.Workload{Generate: &scenario.Generator{DurationMS: 1000, Streams: []scenario.Stream{
			{Service: "TOUPPER", Origin: "site1", Arrivals: "poisson", RatePerS: 5},
			{Service: "A", Origin: "site2", Arrivals: "poisson", RatePerS: 5},
		}}},
		Events: []scenario.Event{{AtMS: ptr(1.0), Kill: "G1/2"}, {AtMS: ptr(2.0), Kill: "machine:site2"},
			{AtMS: ptr(3.0), Boot: "G1/9"}, {AtMS: ptr(4.0), Shutdown: "group:G1"}},
	}
	got, notes, err := Adapt(sc)
	if err != nil {
		t.Fatal(err)
	}
	wantNotes := []string{
		"advertise.simpserv: dropped: no server of that name without -s in its CLOPT",
		"services.A.by_group.GONE: dropped: the UBBCONFIG has no such group",
		"services.TOUPPER: dropped: the configuration has no such service",
		"services.B: added with an exponential service time of mean 10 ms: set the real one",
		"services.C: added with an exponential service time of mean 10 ms: set the real one",
		"machines.site2: dropped: the UBBCONFIG has no such LMID",
		"workload.generate.streams[0]: dropped: service TOUPPER is not in the configuration",
		"workload.generate.streams[1]: dropped: origin site2 is not an LMID of the UBBCONFIG",
		"workload: no stream was left: one Poisson stream per service from site1, keeping each server about 50% busy",
		`events[1]: dropped: events[1].kill: unknown LMID "site2" (want an LMID of *MACHINES)`,
		"events[2]: dropped: events[2].boot: no server instance G1/9: group G1 has instances (spares included) with SRVIDs 1-3, and MAX bounds the spares",
	}
	if !reflect.DeepEqual(notes, wantNotes) {
		t.Errorf("notes:\n got %s\nwant %s", strings.Join(notes, "\n     "), strings.Join(wantNotes, "\n     "))
	}
	if *got.Services["A"].ServiceTime.MS != 3 || got.Services["A"].ByGroup != nil || got.Machines["site1"].Speed == nil {
		t.Errorf("kept parts changed: %+v %+v", got.Services["A"], got.Machines)
	}
	if len(got.Events) != 2 || got.Events[0].Kill != "G1/2" || got.Events[1].Shutdown != "group:G1" {
		t.Errorf("events: got %+v, want the kill of G1/2 and the shutdown of group:G1", got.Events)
	}
	if got.Advertise != nil || len(got.Workload.Generate.Streams) != 3 {
		t.Errorf("got advertise %v, streams %+v", got.Advertise, got.Workload.Generate)
	}
	// The adapted scenario runs.
	if _, err := core.Compile(got, core.RunOptions{}); err != nil {
		t.Errorf("the adapted scenario does not run: %v", err)
	}
	if sc.Services["TOUPPER"].ServiceTime == nil || len(sc.Workload.Generate.Streams) != 2 {
		t.Errorf("the scenario given was modified")
	}
}

// TestAdaptAddsReachableAlternates: adapting a scenario to its
// configuration adds the response time of an alternate whose domains before
// it are all down at times, and of no other.
func TestAdaptAddsReachableAlternates(t *testing.T) {
	sc := specScenario(t, "162-gateway-rdom-failover")
	ra := sc.Domains["RA"]
	sc.Domains = map[string]scenario.DomainSpec{"RA": ra} // RA is down at times: RB is reachable; RB is never down: RC is not
	out, notes, err := Adapt(sc)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out.Domains["RB"]; !ok {
		t.Errorf("RB not added (notes %v)", notes)
	}
	if _, ok := out.Domains["RC"]; ok {
		t.Errorf("RC added, but no domain before it is ever down")
	}
	if _, err := core.Run(out, core.RunOptions{}); err != nil {
		t.Errorf("the adapted scenario does not run: %v", err)
	}
}

// specScenario reads the scenario of the hand-worked spec case dir
// (testdata/spec).
func specScenario(t *testing.T, dir string) *scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile("../../testdata/spec/" + dir + "/scenario.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := core.ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestAdaptDropsClientsThroughAMissingWSL: a client set whose via names no
// WSL instance of the new configuration is dropped with a note.
func TestAdaptDropsClientsThroughAMissingWSL(t *testing.T) {
	sc := &scenario.Scenario{
		UBBConfig: starterUBB,
		Services:  map[string]scenario.ServiceSpec{"A": {ServiceTime: &scenario.Dist{Dist: "const", MS: ptr(3.0)}}},
		Workload: scenario.Workload{Generate: &scenario.Generator{DurationMS: 1000, Clients: []scenario.ClientSet{
			{Name: "ws", Count: 2, Via: "WSGRP/10", Script: []scenario.ScriptEntry{{Service: "A"}}},
			{Name: "local", Count: 2, Script: []scenario.ScriptEntry{{Service: "A"}}},
		}}},
	}
	got, notes, err := Adapt(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := "workload.generate.clients[0]: dropped: via WSGRP/10 is not a WSL instance of the UBBCONFIG"
	if !slicesContains(notes, want) {
		t.Errorf("notes %q: want %q", notes, want)
	}
	if cs := got.Workload.Generate.Clients; len(cs) != 1 || cs[0].Name != "local" {
		t.Errorf("clients: got %+v, want only local", cs)
	}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
