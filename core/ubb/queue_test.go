package ubb

import (
	"reflect"
	"strings"
	"testing"
)

// qHead is a valid start with a TMQUEUE advertising queue space QS in
// group G1: a server written after it begins on line 9.
const qHead = "*RESOURCES\nMODEL SHM\n*MACHINES\nm1 LMID=site1\n*GROUPS\nG1 LMID=site1 GRPNO=1\n*SERVERS\n" +
	"/opt/tux/bin/TMQUEUE SRVGRP=G1 SRVID=1 MIN=2 CLOPT=\"-A -s QS:TMQUEUE -- \"\n"

func TestForwarderOptions(t *testing.T) {
	for _, tc := range []struct {
		clopt string
		want  Forwarder
	}{
		// the defaults: -i 30, -t 60
		{`-A -- -q REQ`, Forwarder{Queues: []string{"REQ"}, IdleS: 30, TranTimeS: 60}},
		// values glued to their options, several queues in -q order
		{`-A -- -qB,A -i2 -t0`, Forwarder{Queues: []string{"B", "A"}, IdleS: 2, TranTimeS: 0}},
		// flags, grouped getopt-style; -f delay and -n skipped with their values
		{`-A -- -de -f 5 -n -q REQ -i 0`, Forwarder{Queues: []string{"REQ"}, IdleS: 0, TranTimeS: 60, Delete: true, ExitEmpty: true}},
		{`-- -d -i 7 -q REQ -e`, Forwarder{Queues: []string{"REQ"}, IdleS: 7, TranTimeS: 60, Delete: true, ExitEmpty: true}},
		// -i before -- is not the forwarder's
		{`-A -i 9 -- -q REQ`, Forwarder{Queues: []string{"REQ"}, IdleS: 30, TranTimeS: 60}},
	} {
		m := mustLoad(t, qHead+"TMQFORWARD SRVGRP=G1 SRVID=5 MIN=2 CLOPT=\""+tc.clopt+"\"\n")
		if len(m.Forwarders) != 1 {
			t.Fatalf("%s: got %d forwarders, want 1", tc.clopt, len(m.Forwarders))
		}
		tc.want.ID, tc.want.Server, tc.want.Servers, tc.want.Group, tc.want.LMID = "G1/5", 2, []string{"G1/5", "G1/6"}, "G1", "site1"
		if got := m.Forwarders[0]; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got  %+v\n want %+v", tc.clopt, got, tc.want)
		}
		// a system server: advertises nothing without -s
		if s := m.Servers[2]; len(s.Services) != 0 || !s.System {
			t.Errorf("%s: the forwarder advertises %v (system %v), want nothing", tc.clopt, s.Services, s.System)
		}
	}
}

func TestQSpaces(t *testing.T) {
	m := mustLoad(t, qHead+"*GROUPS\nG2 LMID=site1 GRPNO=2\n*SERVERS\n"+
		"TMQUEUE SRVGRP=G2 SRVID=1 CLOPT=\"-s QS:TMQUEUE -s QT:TMQUEUE\"\napp SRVGRP=G1 SRVID=3 CLOPT=\"-s A\"\n")
	want := []QSpace{
		{Name: "QS", Group: "G1", Servers: []string{"G1/1", "G1/2", "G2/1"}},
		{Name: "QT", Group: "G2", Servers: []string{"G2/1"}},
	}
	if !reflect.DeepEqual(m.QSpaces, want) {
		t.Errorf("got %+v\nwant %+v", m.QSpaces, want)
	}
	if m.QSpaceIndex("QT") != 1 || m.QSpaceIndex("A") != -1 {
		t.Errorf("QSpaceIndex: QT %d, A %d; want 1, -1", m.QSpaceIndex("QT"), m.QSpaceIndex("A"))
	}
	n := 0
	for _, w := range m.Warnings {
		if strings.Contains(w.String(), "queue space") {
			n++
			if !strings.Contains(w.String(), "t.ubb:12:1: warning: queue space QS is advertised by TMQUEUE instances of groups G1 and G2: its group is G1") {
				t.Errorf("got %s", w)
			}
		}
	}
	if n != 1 {
		t.Errorf("want one warning naming QS's two groups, got %v", m.Warnings)
	}
	// a configuration without /Q servers has neither
	if m := mustLoad(t, head+"app SRVGRP=G1 SRVID=3 CLOPT=\"-s A\"\n"); m.QSpaces != nil || m.Forwarders != nil {
		t.Errorf("no /Q servers: got %+v, %+v", m.QSpaces, m.Forwarders)
	}
}

func TestForwarderRejections(t *testing.T) {
	// On line 9, `TMQFORWARD SRVGRP=G1 SRVID=5 CLOPT="` is 36 columns: the
	// CLOPT's text starts at column 37.
	for _, tc := range []struct{ clopt, want string }{
		{`-A -- -q REQ -i x`, `t.ubb:9:53: server TMQFORWARD: CLOPT -i idletime must be a whole number from 0 to 2147483647, got "x"`},
		{`-A -- -q REQ -t-1`, `t.ubb:9:52: server TMQFORWARD: CLOPT -t trantime must be a whole number from 0 to 2147483647, got "-1"`},
		{`-A -- -i 5`, `t.ubb:9:36: server TMQFORWARD: TMQFORWARD needs -q QUEUE[,QUEUE...] after -- in its CLOPT`},
		{`-A -q REQ --`, `t.ubb:9:36: server TMQFORWARD: TMQFORWARD needs -q`},
		{`-A -- -q A,,B`, `t.ubb:9:46: server TMQFORWARD: CLOPT -q "A,,B" has an empty queue name`},
		{`-A -- -q A,A`, `t.ubb:9:46: server TMQFORWARD: CLOPT -q names queue A twice`},
		{`-A -- -q`, `t.ubb:9:43: server TMQFORWARD: CLOPT -q needs a value`},
	} {
		got := firstError(t, qHead+"TMQFORWARD SRVGRP=G1 SRVID=5 CLOPT=\""+tc.clopt+"\"\n")
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s:\n got  %s\n want %s...", tc.clopt, got, tc.want)
		}
	}
	if got := firstError(t, qHead+"TMQFORWARD SRVGRP=G1 SRVID=5\n"); !strings.Contains(got, "t.ubb:9:1: server TMQFORWARD: TMQFORWARD needs CLOPT=") {
		t.Errorf("no CLOPT: got %s", got)
	}
}
