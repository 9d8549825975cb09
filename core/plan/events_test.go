package plan

import (
	"slices"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/fixture"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

func TestIDRanges(t *testing.T) {
	for _, tc := range []struct {
		ids  []int
		want string
	}{
		{[]int{1}, "1"},
		{[]int{3, 1, 2}, "1-3"},
		{[]int{1, 2, 3, 7, 10, 11, 12}, "1-3,7,10-12"},
		{[]int{5, 9}, "5,9"},
	} {
		if got := idRanges(tc.ids); got != tc.want {
			t.Errorf("idRanges(%v): got %q, want %q", tc.ids, got, tc.want)
		}
	}
}

// Each target form resolves to the hand model's instances in scan order
// (G1/1 = 0, G2/2 = 1, GW/1 = 2): a group to its instances, a machine to the
// instances on it (site1 holds G1/1 and the gateway), GROUP/SRVID to one; a
// group with no instances (G3, added empty) is a warning, not an error, and
// the event changes nothing; a lost machine carries its index.
func TestEventTargets(t *testing.T) {
	m := fixture.HandModel()
	m.Groups = append(m.Groups, ubb.Group{Name: "G3", GrpNo: 4, LMIDs: []string{"site2"}})
	at := func(ms float64) *float64 { return &ms }
	sc := baseScenario()
	sc.Events = []scenario.Event{
		{AtMS: at(1), Kill: "group:G1"},
		{AtMS: at(2), Shutdown: "machine:site1"},
		{AtMS: at(3), Boot: "G2/2"},
		{AtMS: at(4), Kill: "group:G3"},
		{AtMS: at(5), Lose: "site2"},
	}
	st, err := Resolve(m, sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind    EventKind
		servers []int32
	}{{EventKill, []int32{0}}, {EventShutdown, []int32{0, 2}}, {EventBoot, []int32{1}}, {EventKill, nil}, {EventLose, []int32{1}}}
	if len(st.Events) != len(want) {
		t.Fatalf("got %d events, want %d", len(st.Events), len(want))
	}
	for i, w := range want {
		if ev := st.Events[i]; ev.Kind != w.kind || !slices.Equal(ev.Servers, w.servers) || ev.AtUS != int64(i+1)*1000 {
			t.Errorf("event %d: got %v at %d µs on %v, want %v at %d µs on %v", i, ev.Kind, ev.AtUS, ev.Servers, w.kind, (i+1)*1000, w.servers)
		}
	}
	if ev := st.Events[4]; ev.Machine != 1 {
		t.Errorf("lose site2: machine %d, want 1", ev.Machine)
	}
	if w := "events[3].kill: group G3 has no server instances: the event changes nothing"; !slices.Contains(st.Warnings, w) {
		t.Errorf("warnings %q: want %q", st.Warnings, w)
	}

	for _, tc := range []struct {
		ev   scenario.Event
		want string
	}{
		{scenario.Event{AtMS: at(1), Kill: "group:GX"}, `events[0].kill: unknown group "GX" (want a group of *GROUPS)`},
		{scenario.Event{AtMS: at(1), Boot: "machine:site9"}, `events[0].boot: unknown LMID "site9" (want an LMID of *MACHINES)`},
		{scenario.Event{AtMS: at(1), Lose: "site9"}, `events[0].lose: unknown LMID "site9" (want an LMID of *MACHINES)`},
		{scenario.Event{AtMS: at(1), Shutdown: "simpserv"}, `events[0].shutdown: target "simpserv": want GROUP/SRVID, group:GROUP or machine:LMID`},
	} {
		sc := baseScenario()
		sc.Events = []scenario.Event{tc.ev}
		if _, err := Resolve(m, sc, Options{}); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error starting %q", tc.ev, err, tc.want)
		}
	}
}

// TestEventTargetsLeaveTMSOut: with TMS servers modelled (WithTMS), group:
// and machine: targets leave them out, naming one is an error, and a lost
// machine loses them like any instance.
func TestEventTargetsLeaveTMSOut(t *testing.T) {
	m := fixture.HandModel()
	m.TMS = []ubb.TMSGroup{{Group: "G1", Name: "TMS", Count: 2, LMID: m.Servers[0].LMID, Machine: m.Servers[0].Machine, Queue: "G1/TMS"}}
	m = m.WithTMS() // G1/30001 = 3, G1/30002 = 4, on site1
	at := func(ms float64) *float64 { return &ms }
	sc := baseScenario()
	sc.Events = []scenario.Event{
		{AtMS: at(1), Kill: "group:G1"},
		{AtMS: at(2), Shutdown: "machine:site1"},
		{AtMS: at(5), Lose: "site1"},
	}
	st, err := Resolve(m, sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]int32{{0}, {0, 2}, {0, 2, 3, 4}} {
		if got := st.Events[i].Servers; !slices.Equal(got, want) {
			t.Errorf("event %d: servers %v, want %v", i, got, want)
		}
	}
	sc.Events = []scenario.Event{{AtMS: at(1), Boot: "G1/30002"}}
	if _, err := Resolve(m, sc, Options{}); err == nil || !strings.Contains(err.Error(), "events[0].boot: G1/30002 is a TMS server") {
		t.Errorf("got %v, want an error naming the TMS server", err)
	}
}
