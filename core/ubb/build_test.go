package ubb

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// head is a valid start: servers written after it begin on line 8.
const head = "*RESOURCES\nMODEL SHM\n*MACHINES\nm1 LMID=site1\n*GROUPS\nG1 LMID=site1 GRPNO=1\n*SERVERS\n"

// mustLoad loads a UBBCONFIG that must be valid.
func mustLoad(t *testing.T, ubb string) *Model {
	t.Helper()
	m, err := Load(Input{UBBName: "t.ubb", UBBConfig: ubb})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return m
}

// firstError loads a UBBCONFIG that must be rejected and returns its first diagnostic.
func firstError(t *testing.T, ubb string) string {
	t.Helper()
	_, err := Load(Input{UBBName: "t.ubb", UBBConfig: ubb})
	if err == nil {
		t.Fatalf("got a model, want an error")
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("got %#v, want an ErrorList", err)
	}
	for _, d := range list {
		if d.Severity != "error" || d.File != "t.ubb" {
			t.Errorf("diagnostic %+v: want severity error in t.ubb", d)
		}
	}
	return list[0].String()
}

func TestRejections(t *testing.T) {
	tests := []struct {
		name, ubb, want string
	}{
		{"first section", "# c\n*MACHINES\nm LMID=a\n*RESOURCES\nMODEL SHM\n",
			"t.ubb:2:1: the first section must be *RESOURCES, found *MACHINES"},
		{"text before any section", "MODEL SHM\n*RESOURCES\n",
			`t.ubb:1:1: expected *RESOURCES before "MODEL"`},
		{"no sections", "# nothing\n\n",
			"t.ubb:1:1: no sections: expected *RESOURCES"},
		{"missing MODEL", "*RESOURCES\nLDBAL Y\n",
			"t.ubb:1:1: missing MODEL in *RESOURCES: expected MODEL SHM or MODEL MP"},
		{"invalid MODEL", "*RESOURCES\nMODEL  XP\n",
			`t.ubb:2:8: MODEL must be SHM or MP, got "XP"`},
		{"LDBAL", "*RESOURCES\nMODEL SHM\nLDBAL\tyes\n",
			`t.ubb:3:7: LDBAL must be Y or N, got "yes"`},
		{"resources KEYWORD=value", "*RESOURCES\nMODEL=SHM\n",
			"t.ubb:2:6: unexpected '=' after MODEL: lines of *RESOURCES are KEYWORD value, without '='"},
		{"resources no value", "*RESOURCES\nMODEL SHM\nLDBAL # Y\n",
			"t.ubb:3:1: expected a value after LDBAL (lines of *RESOURCES are KEYWORD value)"},
		{"resources two values", "*RESOURCES\nMODEL SHM MP\n",
			`t.ubb:2:11: unexpected "MP" after MODEL SHM: lines of *RESOURCES are KEYWORD value`},
		{"unterminated quote", head + `s SRVGRP=G1 SRVID=1 CLOPT="-A` + "\n",
			`t.ubb:8:27: unterminated quoted string: expected a closing '"' (a quoted value may run over 1000 lines at most)`},
		// the quote left open on line 8 is named there, not where the next
		// entry's quote would close it (line 9, or lines later)
		{"quote open before the next entry", head + `s SRVGRP=G1 SRVID=1 CLOPT="-A` + "\n" + `t SRVGRP=G1 SRVID=2 CLOPT="-A"` + "\n",
			`t.ubb:8:27: the quote opened at 8:27 is never closed before line 9, which starts the entry t: close it on line 8`},
		{"quote open before the next section", head + `s SRVGRP=G1 SRVID=1 CLOPT="-A` + "\n" + "*SERVICES\nS LOAD=50\n",
			`t.ubb:8:27: the quote opened at 8:27 is never closed before line 9, which starts the section *SERVICES: close it on line 8`},
		// lines of other blanks (a form feed, a vertical tab) start nothing
		// (they once crashed the search for the next entry)
		{"quote open over a line of a form feed", head + `s SRVGRP=G1 SRVID=1 CLOPT="-A` + "\n\f\n\v \n" + `t SRVGRP=G1 SRVID=2` + "\n",
			`t.ubb:8:27: the quote opened at 8:27 is never closed before line 11, which starts the entry t: close it on line 8`},
		{"KEY=value=", "*RESOURCES\nMODEL SHM\n*MACHINES\nDEFAULT:\n\t\tTUXCONFIG=TUXCONFIG=\"/x\"\n",
			"t.ubb:5:22: malformed TUXCONFIG=TUXCONFIG=...: expected one value per KEY=value (quote values that contain '=')"},
		{"KEY= at end of line", head + "s SRVGRP=G1 SRVID=\n",
			"t.ubb:8:18: expected a value after SRVID="},
		{"KEY==", head + "s SRVGRP==G1\n",
			"t.ubb:8:10: malformed SRVGRP=: expected a value after '=', found another '='"},
		{"'=' first", head + "= s\n",
			"t.ubb:8:1: unexpected '=': expected an entry name or KEY=value"},
		{"word after params", head + "s SRVGRP=G1 SRVID=1 junk\n",
			`t.ubb:8:21: unexpected "junk": expected KEY=value`},
		{"KEY=value before any entry", head + "SRVGRP=G1 SRVID=1\n",
			"t.ubb:8:1: SRVGRP=... before any entry of *SERVERS: expected an entry name first"},
		{"group on unknown LMID", "*RESOURCES\nMODEL SHM\n*MACHINES\nm LMID=a\n*GROUPS\nG LMID=b GRPNO=1\n",
			"t.ubb:6:8: group G: unknown LMID b: expected an LMID of *MACHINES"},
		{"failover LMID unknown", "*RESOURCES\nMODEL MP\n*MACHINES\nm LMID=a\n*GROUPS\nG LMID=a,b GRPNO=1\n",
			"t.ubb:6:8: group G: unknown LMID b: expected an LMID of *MACHINES"},
		{"server in unknown group", head + "s SRVGRP=G2 SRVID=1\n",
			"t.ubb:8:10: server s: unknown SRVGRP G2: expected a group of *GROUPS"},
		{"duplicate LMID", "*RESOURCES\nMODEL MP\n*MACHINES\nm1 LMID=a\nm2 LMID=a\n",
			"t.ubb:5:9: duplicate LMID a (first at line 4)"},
		{"duplicate group name", head[:len(head)-9] + "G1 LMID=site1 GRPNO=2\n",
			"t.ubb:7:1: duplicate group name G1 (first at line 6)"},
		{"duplicate GRPNO", head[:len(head)-9] + "G2 LMID=site1 GRPNO=0x1\n",
			"t.ubb:7:21: duplicate GRPNO 1 (first at line 6)"},
		{"GRPNO bad octal", head[:len(head)-9] + "G2 LMID=site1 GRPNO=08\n",
			`t.ubb:7:21: GRPNO must be a number from 1 to 29999, got "08"`},
		{"duplicate SRVID after MIN", head + "a SRVGRP=G1 SRVID=1 MIN=3\nb SRVGRP=G1 SRVID=3\n",
			"t.ubb:9:19: duplicate server G1/3: SRVID 3 of this entry (line 9) overlaps SRVID 1..3 of a (line 8) in group G1"},
		{"SRVIDs up to MAX overlap", head + "a SRVGRP=G1 SRVID=1 MAX=4\nb SRVGRP=G1 SRVID=4 MIN=2\n",
			"t.ubb:9:19: duplicate server G1/4: SRVID 4..5 of this entry (line 9) overlaps SRVID 1..4 of a (line 8) in group G1"},
		{"MAX below MIN", head + "s SRVGRP=G1 SRVID=1 MIN=3 MAX=2\n",
			`t.ubb:8:31: MAX must be a number from 3 to 1000, got "2"`},
		{"SRVID past 30000 with MAX", head + "s SRVGRP=G1 SRVID=29999 MAX=3\n",
			"t.ubb:8:19: SRVID 29999 with MAX=3 goes past SRVID 30000"},
		{"RQADDR across groups", head[:len(head)-9] + "G2 LMID=site1 GRPNO=2\n*SERVERS\n" +
			"a SRVGRP=G1 SRVID=1 RQADDR=Q\nb SRVGRP=G2 SRVID=1 RQADDR=Q\n",
			"t.ubb:10:28: RQADDR Q is already the queue of group G1 (line 9): an MSSQ set cannot span groups"},
		{"MAX 0 under MIN 1", head + "s SRVGRP=G1 SRVID=1 MAX=0\n",
			`t.ubb:8:25: MAX must be a number from 1 to 1000, got "0"`},
		{"MIN -1", head + "s SRVGRP=G1 SRVID=1 MIN=-1\n",
			`t.ubb:8:25: MIN must be a number from 0 to 1000, got "-1"`},
		{"MIN too big", head + "s SRVGRP=G1 SRVID=1 MIN=1001\n",
			`t.ubb:8:25: MIN must be a number from 0 to 1000, got "1001"`},
		{"MIN placeholder", head + "s SRVGRP=G1 SRVID=1 MIN=$MIN\n",
			`t.ubb:8:25: MIN must be a number from 0 to 1000, got "$MIN"`},
		{"SRVID 0", head + "s SRVGRP=G1 SRVID=0\n",
			`t.ubb:8:19: SRVID must be a number from 1 to 30000, got "0"`},
		{"SRVID too big", head + "s SRVGRP=G1 SRVID=30001\n",
			`t.ubb:8:19: SRVID must be a number from 1 to 30000, got "30001"`},
		{"SRVID not a number", head + "s SRVGRP=G1 SRVID=one\n",
			`t.ubb:8:19: SRVID must be a number from 1 to 30000, got "one"`},
		{"SRVID plus MIN too big", head + "s SRVGRP=G1 SRVID=29999 MIN=3\n",
			"t.ubb:8:19: SRVID 29999 with MIN=3 goes past SRVID 30000"},
		{"LOAD 0", head + "*SERVICES\nX LOAD=0\n",
			`t.ubb:9:8: LOAD must be a number from 1 to 32767, got "0"`},
		{"LOAD not a number", head + "*SERVICES\nX LOAD=high\n",
			`t.ubb:9:8: LOAD must be a number from 1 to 32767, got "high"`},
		{"LOAD from DEFAULT", head + "*SERVICES\nDEFAULT: LOAD=40000\nX\n",
			`t.ubb:9:15: LOAD must be a number from 1 to 32767, got "40000"`},
		{"PRIO 101", head + "*SERVICES\nX PRIO=101\n",
			`t.ubb:9:8: PRIO must be a number from 1 to 100, got "101"`},
		{"service unknown SRVGRP", head + "*SERVICES\nX SRVGRP=G9\n",
			"t.ubb:9:10: service X: unknown SRVGRP G9: expected a group of *GROUPS"},
		{"NETLOAD", "*RESOURCES\nMODEL MP\n*MACHINES\nm LMID=a NETLOAD=32768\n",
			`t.ubb:4:18: NETLOAD must be a number from 0 to 32767, got "32768"`},
		{"SHM with two machines", "*RESOURCES\nMODEL SHM\n*MACHINES\nm1 LMID=a\nm2 LMID=b\nm3 LMID=c\n",
			"t.ubb:5:1: MODEL SHM allows one machine: a second machine (b) needs MODEL MP"},
		{"SCANUNIT", "*RESOURCES\nMODEL SHM\nSCANUNIT 0\n",
			`t.ubb:3:10: SCANUNIT must be seconds from 1 to 60, or milliseconds from 1MS to 30000MS, got "0"`},
		{"SANITYSCAN", "*RESOURCES\nMODEL SHM\nSANITYSCAN x\n",
			`t.ubb:3:12: SANITYSCAN must be a number from 1 to 32767, got "x"`},
		{"MASTER unknown", "*RESOURCES\nMODEL SHM\nMASTER b,a\n*MACHINES\nm LMID=a\n",
			"t.ubb:3:8: MASTER b is not an LMID of *MACHINES"},
		{"missing LMID of machine", "*RESOURCES\nMODEL SHM\n*MACHINES\nm NETLOAD=1\n",
			"t.ubb:4:1: machine m: missing LMID="},
		{"missing GRPNO", head[:len(head)-9] + "G2 LMID=site1\n",
			"t.ubb:7:1: group G2: missing GRPNO="},
		{"no machines", "*RESOURCES\nMODEL SHM\n*MACHINES\n*GROUPS\n",
			"t.ubb:3:1: no machines: expected *MACHINES with at least one entry (PMID LMID=name)"},
		{"no *MACHINES", "*RESOURCES\nMODEL SHM\n",
			"t.ubb:1:1: no machines: expected *MACHINES with at least one entry (PMID LMID=name)"},
		{"missing LMID of group", head[:len(head)-9] + "G2 GRPNO=2\n",
			"t.ubb:7:1: group G2: missing LMID="},
		{"GRPNO too big", head[:len(head)-9] + "G2 LMID=site1 GRPNO=30000\n",
			`t.ubb:7:21: GRPNO must be a number from 1 to 29999, got "30000"`},
		{"empty LMID list", head[:len(head)-9] + "G2 LMID=\",\" GRPNO=2\n",
			"t.ubb:7:9: group G2: LMID is empty: expected an LMID of *MACHINES"},
		{"BLOCKTIME 0", "*RESOURCES\nMODEL SHM\nBLOCKTIME 0\n*MACHINES\nm LMID=a\n",
			`t.ubb:3:11: BLOCKTIME must be a number from 1 to 32767, got "0"`},
		{"SCANUNIT ms too big", "*RESOURCES\nMODEL SHM\nSCANUNIT 30001MS\n*MACHINES\nm LMID=a\n",
			`t.ubb:3:10: SCANUNIT must be seconds from 1 to 60, or milliseconds from 1MS to 30000MS, got "30001MS"`},
		{"missing SRVGRP", head + "s SRVID=1\n", "t.ubb:8:1: server s: missing SRVGRP="},
		{"missing SRVID", head + "s SRVGRP=G1\n", "t.ubb:8:1: server s: missing SRVID="},
		{"value errors before missing ones", head + "s SRVGRP=G1\nt SRVGRP=G1 SRVID=1 MIN=x\n",
			`t.ubb:9:25: MIN must be a number from 0 to 1000, got "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := firstError(t, tt.ubb); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestTooManyInstances(t *testing.T) {
	var b strings.Builder
	b.WriteString(head)
	for i := 0; i < 11; i++ {
		fmt.Fprintf(&b, "s SRVGRP=G1 SRVID=%d MIN=1000\n", 1000*(i+1))
	}
	want := "t.ubb:18:1: too many server instances: more than 10000"
	if got := firstError(t, b.String()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestInstancesAndQueues checks MIN expansion, scan order, machines of
// instances and MSSQ sets.
func TestInstancesAndQueues(t *testing.T) {
	m := mustLoad(t, "*RESOURCES\nMODEL MP\n*MACHINES\nn1 LMID=a\nn2 LMID=b NETLOAD=100\n"+
		"*GROUPS\nG1 LMID=b,a GRPNO=1\nG2 LMID=a GRPNO=2\n*SERVERS\n"+
		"x SRVGRP=G2 SRVID=5 MIN=2 MAX=4 RQADDR=Q CLOPT=\"-s S\"\n"+
		"y SRVGRP=G1 SRVID=1 CLOPT=\"-s S\"\n"+
		"z SRVGRP=G2 SRVID=3 RQADDR=Q CLOPT=\"-s S\"\n"+
		"w SRVGRP=G2 SRVID=9 CLOPT=\"-s S\"\n")
	type inst struct {
		ID, LMID, Queue string
		Spare           bool
	}
	var got []inst
	for _, s := range m.Servers {
		got = append(got, inst{s.ID, s.LMID, s.Queue, s.Spare})
	}
	// MAX=4 reserves SRVIDs 5..8: 5 and 6 run (MIN=2), 7 and 8 are spares.
	want := []inst{{"G2/5", "a", "Q", false}, {"G2/6", "a", "Q", false}, {"G2/7", "a", "Q", true}, {"G2/8", "a", "Q", true},
		{"G1/1", "b", "G1/1", false}, {"G2/3", "a", "Q", false}, {"G2/9", "a", "G2/9", false}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("instances: got %v, want %v", got, want)
	}
	var queues []string
	for _, q := range m.Queues {
		queues = append(queues, fmt.Sprintf("%s %v", q.Name, q.Servers))
	}
	if want := []string{"Q [0 1 2 3 5]", "G1/1 [4]", "G2/9 [6]"}; !reflect.DeepEqual(queues, want) {
		t.Errorf("queues: got %v, want %v", queues, want)
	}
	for i, s := range m.Servers {
		if m.Queues[s.QueueIdx].Name != s.Queue || m.Machines[s.Machine].LMID != s.LMID {
			t.Errorf("server %d: QueueIdx %d / Machine %d do not match %s / %s", i, s.QueueIdx, s.Machine, s.Queue, s.LMID)
		}
	}
	if m.Machines[1].NetLoad != 100 || m.Machines[0].NetLoad != 0 {
		t.Errorf("netload: got %d,%d want 0,100", m.Machines[0].NetLoad, m.Machines[1].NetLoad)
	}
}

// TestServiceParams checks LOAD and PRIO: defaults, DEFAULT: lines that reach
// only later entries, SRVGRP-specific entries, and the sort order.
func TestServiceParams(t *testing.T) {
	m := mustLoad(t, head[:len(head)-9]+"G2 LMID=site1 GRPNO=2\n*SERVERS\n"+
		"s SRVGRP=G1 SRVID=1 CLOPT=\"-s ZNEW,A\"\n"+
		"*SERVICES\nB\nDEFAULT: LOAD=20\nA PRIO=0x0A\nDEFAULT: PRIO=70\nC\nA SRVGRP=G2 LOAD=0100\nD SRVGRP=G1\n")
	got := map[string]string{}
	var order []string
	for _, s := range m.Services {
		order = append(order, s.Name)
		got[s.Name] = fmt.Sprintf("%d/%d %v", s.Load, s.Prio, s.ByGroup)
	}
	want := map[string]string{
		"A":    "20/10 map[G2:{64 70 0 false 0}]",
		"B":    "50/50 map[]",
		"C":    "20/70 map[]",
		"D":    "50/50 map[G1:{20 70 0 false 0}]",
		"ZNEW": "50/50 map[]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if want := []string{"A", "B", "C", "D", "ZNEW"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order: got %v, want %v", order, want)
	}
	a := m.Service("A")
	if p := a.Params("G2"); p != (ServiceParams{Load: 64, Prio: 70}) {
		t.Errorf("A in G2: got %+v, want {64 70}", p)
	}
	if p := a.Params("G1"); p != (ServiceParams{Load: 20, Prio: 10}) {
		t.Errorf("A in G1: got %+v, want {20 10}", p)
	}
}

func TestResources(t *testing.T) {
	tests := []struct {
		lines         string
		model         string
		ldbal         bool
		master        string
		scanUS        int64
		sanity, block int
	}{
		{"MODEL SHM", "SHM", false, "", 10_000_000, 12, 6},
		{"MODEL MP\nLDBAL Y\nMASTER a,b", "MP", true, "a", 10_000_000, 12, 6},
		{"MODEL SHM\nLDBAL N\nSCANUNIT 5", "SHM", false, "", 5_000_000, 24, 12},
		{"MODEL SHM\nSCANUNIT 1000MS", "SHM", false, "", 1_000_000, 120, 60},
		{"MODEL SHM\nSCANUNIT 250ms", "SHM", false, "", 250_000, 480, 240},
		{"MODEL SHM\nSCANUNIT 7", "SHM", false, "", 7_000_000, 17, 8},
		{"MODEL SHM\nSCANUNIT 60\nBLOCKTIME 3", "SHM", false, "", 60_000_000, 2, 3},
		{"MODEL SHM\nSCANUNIT 60MS\nSANITYSCAN 010", "SHM", false, "", 60_000, 8, 1000},
		{"MODEL SHM\nSCANUNIT 500MS", "SHM", false, "", 500_000, 240, 120},
		{"MODEL SHM\nSCANUNIT 30000MS", "SHM", false, "", 30_000_000, 4, 2},
		{"MODEL SHM\nSCANUNIT 1MS", "SHM", false, "", 1000, 120000, 60000},
	}
	for _, tt := range tests {
		m := mustLoad(t, "*RESOURCES\n"+tt.lines+"\n*MACHINES\nm LMID=a\n")
		got := fmt.Sprintf("%s %v %q %d %d %d", m.Model, m.LDBAL, m.Master, m.ScanUnitUS, m.SanityScan, m.BlockTime)
		want := fmt.Sprintf("%s %v %q %d %d %d", tt.model, tt.ldbal, tt.master, tt.scanUS, tt.sanity, tt.block)
		if got != want {
			t.Errorf("%q: got %s, want %s", tt.lines, got, want)
		}
	}
}

// BenchmarkLoadLarge loads a configuration near the limits: 10 000
// instances, 5 000 services and 2 000 DEFAULT: lines. It must stay fast.
func BenchmarkLoadLarge(b *testing.B) {
	var s strings.Builder
	s.WriteString(head)
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&s, "DEFAULT: K%d=1\nsrv SRVGRP=G1 SRVID=%d MIN=1000\n", i, 1+1000*i)
	}
	s.WriteString("*SERVICES\n")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&s, "DEFAULT: LOAD=%d\nS%d PRIO=%d\n", 1+i%100, i, 1+i%100)
	}
	text := s.String()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Load(Input{UBBName: "b.ubb", UBBConfig: text}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestOneDuplicateErrorPerEntry(t *testing.T) {
	_, err := Load(Input{UBBName: "t.ubb", UBBConfig: head + "a SRVGRP=G1 SRVID=1 MIN=500\nb SRVGRP=G1 SRVID=1 MIN=500\n"})
	if err == nil {
		t.Fatal("got a model, want an error")
	}
	diags := diagnosticsOf(t, err)
	if len(diags) != 1 || diags[0].String() != "t.ubb:9:19: duplicate server G1/1: SRVID 1..500 of this entry (line 9) overlaps SRVID 1..500 of a (line 8) in group G1" {
		t.Errorf("got %v, want the one duplicate G1/1", diags)
	}
}

// TestMinZeroEntries: MIN=0 makes every instance of an entry a spare (MAX
// of them; without MAX, one), with a warning; MIN=0 MAX=0 is an entry that
// never boots: it has no instance, and a warning says it is ignored.
func TestMinZeroEntries(t *testing.T) {
	m, err := Load(Input{UBBName: "t.ubb", UBBConfig: "*RESOURCES\nMODEL SHM\n*MACHINES\nn LMID=a\n*GROUPS\nG LMID=a GRPNO=1\n*SERVERS\n" +
		"x SRVGRP=G SRVID=1 MIN=0 MAX=2 CLOPT=\"-s S\"\ny SRVGRP=G SRVID=5 MIN=0 CLOPT=\"-s S\"\nz SRVGRP=G SRVID=9 MIN=0 MAX=0 CLOPT=\"-s S\"\n" +
		"w SRVGRP=G SRVID=10 CLOPT=\"-s S\"\n"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range m.Servers {
		got = append(got, fmt.Sprintf("%s %v", s.ID, s.Spare))
	}
	if want := []string{"G/1 true", "G/2 true", "G/5 true", "G/10 false"}; !reflect.DeepEqual(got, want) {
		t.Errorf("instances %v, want %v", got, want)
	}
	var warns []string
	for _, d := range m.Warnings {
		warns = append(warns, d.String())
	}
	for _, want := range []string{
		"t.ubb:8:24: warning: server x: MIN=0: none of its 2 instances runs at the start (spares until a boot event brings one up)",
		"t.ubb:9:24: warning: server y: MIN=0: its one instance does not run at the start (spares until a boot event brings one up)",
		"t.ubb:10:30: warning: server z: MIN=0 MAX=0: the entry has no instance; it is ignored",
	} {
		if !slices.Contains(warns, want) {
			t.Errorf("warnings %q lack %q", warns, want)
		}
	}
}

// A parameter given twice in one entry (on a continuation line, or twice
// on a line) is read at its last value with a warning at it naming the
// first, as a *RESOURCES keyword given again is: it was taken without a
// word. The same parameter in DEFAULT: and in the entry is no repeat.
func TestParameterGivenAgainInAnEntry(t *testing.T) {
	m, err := Load(Input{UBBName: "t.ubb", UBBConfig: "*RESOURCES\nMODEL SHM\n*MACHINES\nn LMID=a\n*GROUPS\nG LMID=a GRPNO=1 GRPNO=2\n*SERVERS\n" +
		"DEFAULT: MIN=1\nx SRVGRP=G SRVID=1 MIN=2\n  CLOPT=\"-s S\"\n  MIN=3\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Servers); got != 3 || m.Groups[0].GrpNo != 2 {
		t.Errorf("%d instances, GRPNO %d; want MIN=3 and GRPNO=2, the last values", got, m.Groups[0].GrpNo)
	}
	var warns []string
	for _, d := range m.Warnings {
		warns = append(warns, d.String())
	}
	want := []string{
		"t.ubb:6:18: warning: GRPNO given again in this entry: this value replaces the one at 6:10",
		"t.ubb:11:3: warning: MIN given again in this entry: this value replaces the one at 9:20",
	}
	if !reflect.DeepEqual(warns, want) {
		t.Errorf("warnings\n  %q\nwant\n  %q", warns, want)
	}
}
