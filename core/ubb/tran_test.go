package ubb

import (
	"reflect"
	"strings"
	"testing"
)

// tranConfig has three groups on two machines: G1 (TMSNAME, default
// TMSCOUNT), G2 (no TMSNAME), G3 (TMSNAME with TMSCOUNT=2) on site2.
const tranConfig = "*RESOURCES\nMODEL MP\nMASTER site1\n*MACHINES\nm1 LMID=site1\nm2 LMID=site2\n" +
	"*GROUPS\nG1 LMID=site1 GRPNO=1 TMSNAME=TMS_ORA\nG2 LMID=site1 GRPNO=2\nG3 LMID=site2,site1 GRPNO=3 TMSNAME=TMS TMSCOUNT=2\n" +
	"*SERVERS\na SRVGRP=G1 SRVID=1 MIN=2 CLOPT=\"-s A,B\"\nb SRVGRP=G2 SRVID=5 CLOPT=\"-s A,B\"\nc SRVGRP=G3 SRVID=1 RQADDR=Q3 MIN=2 CLOPT=\"-s A\"\n"

// TestTransactionsConfig: AUTOTRAN and TRANTIME per entry (the SRVGRP entry
// first), TMSNAME/TMSCOUNT per group, the TMS list only when some entry has
// AUTOTRAN=Y.
func TestTransactionsConfig(t *testing.T) {
	m := mustLoad(t, tranConfig+"*SERVICES\nA AUTOTRAN=Y\nA SRVGRP=G3 AUTOTRAN=N TRANTIME=9\nB TRANTIME=7\nB SRVGRP=G2 AUTOTRAN=Y TRANTIME=0\n")
	a, b := m.Service("A"), m.Service("B")
	for _, c := range []struct {
		svc, group string
		auto       bool
		trantime   int
	}{
		{"A", "G1", true, 30}, // the general entry, TRANTIME's default
		{"A", "G3", false, 0}, // the SRVGRP entry says N
		{"B", "G1", false, 0}, // TRANTIME alone starts nothing
		{"B", "G2", true, 0},  // TRANTIME=0: no timeout
		{"A", "G2", true, 30}, // general again
	} {
		s := a
		if c.svc == "B" {
			s = b
		}
		p := s.Params(c.group)
		if p.AutoTran != c.auto || p.TranTimeS != c.trantime {
			t.Errorf("%s in %s: AUTOTRAN %v TRANTIME %d, want %v %d", c.svc, c.group, p.AutoTran, p.TranTimeS, c.auto, c.trantime)
		}
	}
	want := []TMSGroup{
		{Group: "G1", Name: "TMS_ORA", Count: 3, LMID: "site1", Machine: 0, Queue: "G1/TMS"},
		{Group: "G3", Name: "TMS", Count: 2, LMID: "site2", Machine: 1, Queue: "G3/TMS"},
	}
	if !reflect.DeepEqual(m.TMS, want) || !m.Transactions() {
		t.Errorf("TMS = %+v, want %+v", m.TMS, want)
	}
	// G2 offers A and B, both AUTOTRAN there, and has no TMSNAME: one warning naming both.
	var warned []string
	for _, w := range m.Warnings {
		if strings.Contains(w.Message, "TMSNAME") {
			warned = append(warned, w.String())
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "t.ubb:9:1") ||
		!strings.Contains(warned[0], "group G2 has no TMSNAME") || !strings.Contains(warned[0], ": A, B") {
		t.Errorf("warnings about TMSNAME: %q, want one at G2's line naming A, B", warned)
	}
}

// TestNoAutoTranNoTMS: TMSNAME without any AUTOTRAN=Y models no TMS server
// and changes nothing of the Model's JSON.
func TestNoAutoTranNoTMS(t *testing.T) {
	m := mustLoad(t, tranConfig+"*SERVICES\nA TRANTIME=5\nB AUTOTRAN=N\n")
	if m.TMS != nil || m.Transactions() {
		t.Errorf("TMS = %+v, want none", m.TMS)
	}
	if w := m.WithTMS(); w != m {
		t.Errorf("WithTMS without transactions made a copy")
	}
	for _, w := range m.Warnings {
		if strings.Contains(w.Message, "TMSNAME") {
			t.Errorf("unexpected warning %v", w)
		}
	}
	plain := mustLoad(t, strings.NewReplacer(" TMSNAME=TMS_ORA", "", " TMSNAME=TMS TMSCOUNT=2", "").Replace(tranConfig)+"*SERVICES\nA\nB\n")
	if !reflect.DeepEqual(m.Groups[0].LMIDs, plain.Groups[0].LMIDs) || len(m.Servers) != len(plain.Servers) {
		t.Errorf("TMSNAME changed the servers")
	}
}

// TestWithTMS: the TMS instances come after every *SERVERS instance, groups
// in *GROUPS order, SRVIDs 30001.., sharing one queue GROUP/TMS after the
// other queues, on the group's first machine.
func TestWithTMS(t *testing.T) {
	m := mustLoad(t, tranConfig+"*SERVICES\nA AUTOTRAN=Y\n")
	nServers, nQueues := len(m.Servers), len(m.Queues)
	w := m.WithTMS()
	if len(m.Servers) != nServers || len(m.Queues) != nQueues {
		t.Fatalf("WithTMS changed m")
	}
	var ids, queues []string
	for _, s := range w.Servers {
		ids = append(ids, s.ID+"@"+s.LMID+">"+w.Queues[s.QueueIdx].Name)
	}
	for _, q := range w.Queues {
		queues = append(queues, q.Name)
	}
	wantIDs := []string{"G1/1@site1>G1/1", "G1/2@site1>G1/2", "G2/5@site1>G2/5", "G3/1@site2>Q3", "G3/2@site2>Q3",
		"G1/30001@site1>G1/TMS", "G1/30002@site1>G1/TMS", "G1/30003@site1>G1/TMS",
		"G3/30001@site2>G3/TMS", "G3/30002@site2>G3/TMS"}
	if !reflect.DeepEqual(ids, wantIDs) {
		t.Errorf("servers %v\nwant %v", ids, wantIDs)
	}
	if want := []string{"G1/1", "G1/2", "G2/5", "Q3", "G1/TMS", "G3/TMS"}; !reflect.DeepEqual(queues, want) {
		t.Errorf("queues %v, want %v", queues, want)
	}
	for _, s := range w.Servers[nServers:] {
		if !s.TMS || !s.System || len(s.Services) != 0 || s.Spare {
			t.Errorf("%s: %+v, want a TMS system server advertising nothing", s.ID, s)
		}
	}
	if w.Servers[nServers].Name != "TMS_ORA" || w.Servers[nServers+3].Name != "TMS" {
		t.Errorf("TMS names %s, %s", w.Servers[nServers].Name, w.Servers[nServers+3].Name)
	}
	if got := w.Queues[nQueues+1].Servers; !reflect.DeepEqual(got, []int{nServers + 3, nServers + 4}) {
		t.Errorf("G3/TMS servers %v", got)
	}
	var names []string
	for _, s := range w.Services {
		names = append(names, s.Name)
	}
	if want := []string{"A", "B", "TMS", "TMS_ORA"}; !reflect.DeepEqual(names, want) || w.Service("TMS").Load != 50 || len(m.Services) != 2 {
		t.Errorf("services %v, want %v (and m's unchanged)", names, want)
	}
}

// TestTransactionsErrors: TMSCOUNT outside 2..256 and a bad AUTOTRAN are
// errors naming the line and column, whether or not TMSNAME is given.
func TestTransactionsErrors(t *testing.T) {
	for _, c := range []struct{ ubb, want string }{
		{strings.Replace(tranConfig, "TMSCOUNT=2", "TMSCOUNT=1", 1), `t.ubb:10:50: TMSCOUNT must be a number from 2 to 256, got "1"`},
		{strings.Replace(tranConfig, "TMSCOUNT=2", "TMSCOUNT=257", 1), `t.ubb:10:50: TMSCOUNT must be a number from 2 to 256, got "257"`},
		{strings.Replace(tranConfig, "G2 LMID=site1 GRPNO=2", "G2 LMID=site1 GRPNO=2 TMSCOUNT=0", 1), `t.ubb:9:32: TMSCOUNT must be a number from 2 to 256, got "0"`},
		{tranConfig + "*SERVICES\nA AUTOTRAN=yes\n", `t.ubb:16:12: AUTOTRAN must be Y or N, got "yes"`},
		{tranConfig + "*SERVICES\nA AUTOTRAN=Y TRANTIME=-1\n", `t.ubb:16:23: TRANTIME must be a number from 0 to 2147483647, got "-1"`},
	} {
		if got := firstError(t, c.ubb); got != c.want {
			t.Errorf("got %q\nwant %q", got, c.want)
		}
	}
}
