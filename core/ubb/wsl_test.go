package ubb

import (
	"strings"
	"testing"
)

// wsHead is a valid start with MAXWSCLIENTS=25 on site1: servers written
// after it begin on line 8.
const wsHead = "*RESOURCES\nMODEL SHM\n*MACHINES\nm1 LMID=site1 MAXWSCLIENTS=25\n*GROUPS\nG1 LMID=site1 GRPNO=1\n*SERVERS\n"

func TestWorkstationOptions(t *testing.T) {
	for _, tc := range []struct {
		clopt string
		want  Workstation
	}{
		// -M by default: MAXWSCLIENTS / mpx rounded up (25 / 10 -> 3)
		{`-A -- -n //h:1`, Workstation{NetAddr: "//h:1", MinHandlers: 0, MaxHandlers: 3, MPX: 10}},
		// the number glued to its option; 25 / 3 -> 9
		{`-A -- -n//h:1 -m2 -x3`, Workstation{NetAddr: "//h:1", MinHandlers: 2, MaxHandlers: 9, MPX: 3}},
		// the default -M is at least -m
		{`-A -- -m 5 -n //h:1 -x 10`, Workstation{NetAddr: "//h:1", MinHandlers: 5, MaxHandlers: 5, MPX: 10}},
		// other options and their arguments kept and ignored; a tab
		{"-A -- -w WSH -n\t//h:1 -p 2048 -P 2050 -M 4 -t 3", Workstation{NetAddr: "//h:1", MaxHandlers: 4, MPX: 10}},
		// -m before -- is not the WSL's
		{`-A -m 7 -- -n //h:1 -M 0`, Workstation{NetAddr: "//h:1", MPX: 10}},
	} {
		m := mustLoad(t, wsHead+"WSL SRVGRP=G1 SRVID=5 MIN=2 CLOPT=\""+tc.clopt+"\"\napp SRVGRP=G1 SRVID=1 CLOPT=\"-s A\"\n")
		if len(m.Workstations) != 1 {
			t.Fatalf("%s: got %d workstations, want 1", tc.clopt, len(m.Workstations))
		}
		got := m.Workstations[0]
		tc.want.ID, tc.want.LMID, tc.want.Machine, tc.want.Server, tc.want.Count = "G1/5", "site1", 0, 0, 2
		if got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.clopt, got, tc.want)
		}
		if w, first := m.WorkstationOf("G1/6"); w != &m.Workstations[0] || first {
			t.Errorf("%s: WorkstationOf(G1/6) = %v, %v; want the WSL, not its first instance", tc.clopt, w, first)
		}
		if w, first := m.WorkstationOf("G1/5"); w != &m.Workstations[0] || !first {
			t.Errorf("%s: WorkstationOf(G1/5) = %v, %v; want the WSL's first instance", tc.clopt, w, first)
		}
		if w, _ := m.WorkstationOf("G1/1"); w != nil {
			t.Errorf("%s: WorkstationOf(G1/1) = %v, want nil (not a WSL)", tc.clopt, w)
		}
		if m.Machines[0].MaxWSClients != 25 {
			t.Errorf("MaxWSClients: got %d, want 25", m.Machines[0].MaxWSClients)
		}
	}
}

func TestWorkstationRejections(t *testing.T) {
	// On line 8, `WSL SRVGRP=G1 SRVID=5 CLOPT="` is 29 columns: the
	// CLOPT's text starts at column 30.
	for _, tc := range []struct{ clopt, want string }{
		{`-A -- -n //h:1 -m x`, `t.ubb:8:48: server WSL: CLOPT -m minh must be a whole number from 0 to 256, got "x"`},
		{`-A -- -n //h:1 -m257`, `t.ubb:8:47: server WSL: CLOPT -m minh must be a whole number from 0 to 256, got "257"`},
		{`-A -- -n //h:1 -x 0`, `t.ubb:8:48: server WSL: CLOPT -x mpx must be a whole number from 1 to 32767, got "0"`},
		{`-A -- -n //h:1 -x32768`, `t.ubb:8:47: server WSL: CLOPT -x mpx must be a whole number from 1 to 32767, got "32768"`},
		{`-A -- -n //h:1 -M +2`, `t.ubb:8:48: server WSL: CLOPT -M maxh must be a whole number`},
		{`-A -- -n //h:1 -m 3 -M 2`, `t.ubb:8:53: server WSL: CLOPT -M 2 (maxh) is below -m 3 (minh)`},
		{`-A -- -m 1`, `t.ubb:8:29: server WSL: WSL needs -n netaddr after -- in its CLOPT`},
		{`-A -n //h:1`, `t.ubb:8:29: server WSL: WSL needs -n netaddr after --`},
		{`-A -- -n //h:1 -x`, `t.ubb:8:45: server WSL: CLOPT -x needs a value`},
	} {
		got := firstError(t, wsHead+"WSL SRVGRP=G1 SRVID=5 CLOPT=\""+tc.clopt+"\"\n")
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s:\n got  %s\n want %s...", tc.clopt, got, tc.want)
		}
	}
	if got := firstError(t, wsHead+"WSL SRVGRP=G1 SRVID=5\n"); !strings.Contains(got, "t.ubb:8:1: server WSL: WSL needs CLOPT=") {
		t.Errorf("no CLOPT: got %s", got)
	}
	if got := firstError(t, strings.Replace(wsHead, "25", "32768", 1)+"WSL SRVGRP=G1 SRVID=5 CLOPT=\"-- -n a\"\n"); !strings.Contains(got, "t.ubb:4:28: MAXWSCLIENTS must be a number from 0 to 32767") {
		t.Errorf("MAXWSCLIENTS: got %s", got)
	}
}

func TestWorkstationWarnsWithoutMaxWSClients(t *testing.T) {
	m := mustLoad(t, head+"WSL SRVGRP=G1 SRVID=5 CLOPT=\"-A -- -n //h:1 -m 1\"\n")
	found := false
	for _, w := range m.Warnings {
		if strings.Contains(w.String(), "t.ubb:8:1: warning: server WSL (G1/5): MAXWSCLIENTS of machine site1 is 0, so no workstation client connects") {
			found = true
		}
	}
	if !found {
		t.Errorf("want a warning naming the WSL, got %v", m.Warnings)
	}
	// -M defaults to 0 / 10 = 0, raised to -m
	if w := m.Workstations[0]; w.MaxHandlers != 1 || w.MinHandlers != 1 {
		t.Errorf("got %+v, want min 1, max 1", w)
	}
	if m := mustLoad(t, wsHead+"WSL SRVGRP=G1 SRVID=5 CLOPT=\"-A -- -n //h:1\"\n"); len(m.Warnings) != 0 {
		t.Errorf("with MAXWSCLIENTS: got warnings %v", m.Warnings)
	}
}
