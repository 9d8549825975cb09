package ubb

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSpawn(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want Spawn
		err  string
	}{
		{"", Spawn{Low: 1, TerminateS: 60, High: 2, CreateS: 50}, ""},
		{"L", Spawn{Load: true, Low: 50, TerminateS: 60, High: 100, CreateS: 50}, ""},
		{"1,600:1,1", Spawn{Low: 1, TerminateS: 600, High: 1, CreateS: 1}, ""},
		{"L20,5:80,7", Spawn{Load: true, Low: 20, TerminateS: 5, High: 80, CreateS: 7}, ""},
		{":3", Spawn{Low: 1, TerminateS: 60, High: 3, CreateS: 50}, ""},
		{",10", Spawn{Low: 1, TerminateS: 10, High: 2, CreateS: 50}, ""},
		{":,5", Spawn{Low: 1, TerminateS: 60, High: 2, CreateS: 5}, ""},
		{"0,0:0,0", Spawn{Low: 0, TerminateS: 0, High: 0, CreateS: 0}, ""},
		{"5", Spawn{Low: 5, TerminateS: 60, High: 5, CreateS: 50}, ""},
		{"3:2", Spawn{}, "low 3 is above high 2"},
		{"1,x:2,5", Spawn{}, `terminate must be a whole number from 0 to 32767, got "x"`},
		{"1:2:3", Spawn{}, "more than one ':'"},
		{"1,2,3", Spawn{}, "more than one ','"},
		{"-1", Spawn{}, "low must be a whole number"},
		{"+1", Spawn{}, "low must be a whole number"},
		{"1:40000", Spawn{}, "high must be a whole number"},
		{"l1", Spawn{}, "low must be a whole number"},
	} {
		got, err := ParseSpawn(tc.arg)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseSpawn(%q): got %v, %v; want an error with %q", tc.arg, got, err, tc.err)
			}
		case err != nil:
			t.Errorf("ParseSpawn(%q): got error %v, want %+v", tc.arg, err, tc.want)
		case *got != tc.want:
			t.Errorf("ParseSpawn(%q): got %+v, want %+v", tc.arg, *got, tc.want)
		}
	}
}

func TestLifecycleParameters(t *testing.T) {
	m := mustLoad(t, head+
		"a SRVGRP=G1 SRVID=1 MIN=2 MAX=4 RQADDR=QA RESTART=Y MAXGEN=3 GRACE=0 CLOPT=\"-s X -p L,30:200,10 -- -p 9\"\n"+
		"b SRVGRP=G1 SRVID=10\n"+
		"*SERVICES\nDEFAULT: SVCTIMEOUT=5\nX\nX SRVGRP=G1 SVCTIMEOUT=7\nY SVCTIMEOUT=0\n")
	want := &ServerLifecycle{Restart: true, MaxGen: 3, GraceS: 0, Entry: 0, MinSrvID: 3,
		Spawn: &Spawn{Load: true, Low: 50, TerminateS: 30, High: 200, CreateS: 10}}
	if got := m.Servers[0].Life; !reflect.DeepEqual(got, want) {
		t.Errorf("a's lifecycle: got %+v, want %+v", got, want)
	}
	if m.Servers[0].Life != m.Servers[1].Life {
		t.Errorf("instances of one entry: want one shared lifecycle")
	}
	if got, want := m.Servers[len(m.Servers)-1].Lifecycle(), (ServerLifecycle{MaxGen: 1, GraceS: 86400, MinSrvID: 11}); got != want {
		t.Errorf("b's lifecycle (defaults): got %+v, want %+v", got, want)
	}
	x := m.Service("X")
	if x.SvcTimeoutS != 5 || x.Params("G1").SvcTimeoutS != 7 || x.Params("G2").SvcTimeoutS != 5 {
		t.Errorf("X SVCTIMEOUT: got %d, G1 %d, G2 %d; want 5, 7, 5", x.SvcTimeoutS, x.Params("G1").SvcTimeoutS, x.Params("G2").SvcTimeoutS)
	}
	if y := m.Service("Y"); y.SvcTimeoutS != 0 {
		t.Errorf("Y SVCTIMEOUT: got %d, want 0", y.SvcTimeoutS)
	}
}

func TestLifecycleErrors(t *testing.T) {
	for _, tc := range []struct{ entry, want string }{
		{"a SRVGRP=G1 SRVID=1 RESTART=yes", `t.ubb:8:29: server a: RESTART must be Y or N, got "yes"`},
		{"a SRVGRP=G1 SRVID=1 MAXGEN=0", `t.ubb:8:28: MAXGEN must be a number from 1 to 256, got "0"`},
		{"a SRVGRP=G1 SRVID=1 MAXGEN=257", `t.ubb:8:28: MAXGEN must be a number from 1 to 256, got "257"`},
		{"a SRVGRP=G1 SRVID=1 GRACE=-1", `t.ubb:8:27: GRACE must be a number from 0 to 2147483647, got "-1"`},
		{"a SRVGRP=G1 SRVID=1 MIN=1 MAX=2 RQADDR=Q CLOPT=\"-p 4:3\"", `t.ubb:8:52: server a: CLOPT -p "4:3": low 4 is above high 3`},
		{"a SRVGRP=G1 SRVID=1\n*SERVICES\nS SVCTIMEOUT=x", `t.ubb:10:14: SVCTIMEOUT must be a number from 0 to 2147483647, got "x"`},
		{"a SRVGRP=G1 SRVID=1 CONV=yes", `t.ubb:8:26: server a: CONV must be Y or N, got "yes"`},
	} {
		if got := firstError(t, head+tc.entry+"\n"); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.entry, got, tc.want)
		}
	}
}

func TestSpawnIgnoredWithWarning(t *testing.T) {
	for _, tc := range []struct{ entry, want string }{
		{"a SRVGRP=G1 SRVID=1 MIN=1 MAX=3 CLOPT=\"-p 1:2\"", "applies to an MSSQ set"},
		{"a SRVGRP=G1 SRVID=1 MIN=2 RQADDR=Q CLOPT=\"-p 1:2\"", "needs MAX greater than MIN"},
		{"a SRVGRP=G1 SRVID=1 MIN=1 MAX=3 CONV=N CLOPT=\"-p 1:2\"", "or a conversational server (CONV=Y)"},
		{"a SRVGRP=G1 SRVID=1 MIN=2 CONV=Y CLOPT=\"-p 1:2\"", "needs MAX greater than MIN"},
	} {
		m := mustLoad(t, head+tc.entry+"\n")
		if m.Servers[0].Life == nil || m.Servers[0].Life.Spawn != nil {
			t.Errorf("%s: got %+v, want a lifecycle without spawn", tc.entry, m.Servers[0].Life)
		}
		found := false
		for _, w := range m.Warnings {
			found = found || strings.Contains(w.Message, tc.want)
		}
		if !found {
			t.Errorf("%s: warnings %v, want one with %q", tc.entry, m.Warnings, tc.want)
		}
	}
}

// CONV=Y: without RQADDR, -p spawns over the instances' own queues and
// never decays (Conv); with RQADDR it is an MSSQ set like any other.
func TestSpawnConversational(t *testing.T) {
	m := mustLoad(t, head+
		"a SRVGRP=G1 SRVID=1 MIN=1 MAX=3 CONV=Y CLOPT=\"-p 1,5:2,3\"\n"+
		"b SRVGRP=G1 SRVID=10 MIN=1 MAX=2 CONV=Y RQADDR=QB CLOPT=\"-p 1,5:2,3\"\n"+
		"c SRVGRP=G1 SRVID=20 CONV=Y\n")
	if sp := m.Servers[0].Life.Spawn; sp == nil || !sp.Conv || sp.High != 2 {
		t.Errorf("a (CONV=Y, no RQADDR): spawn %+v, want Conv", sp)
	}
	if sp := m.Servers[3].Life.Spawn; sp == nil || sp.Conv {
		t.Errorf("b (CONV=Y, RQADDR): spawn %+v, want an MSSQ spawn (not Conv)", sp)
	}
	if c := m.Servers[len(m.Servers)-1]; c.Life != nil {
		t.Errorf("c (CONV=Y alone): lifecycle %+v, want none", c.Life)
	}
	for _, w := range m.Warnings {
		if strings.Contains(w.Message, "-p") {
			t.Errorf("unexpected warning %v", w)
		}
	}
}
