package core

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/workload"
)

// bufUBB routes S and P by R, two entries told apart by BUFTYPE: FML
// (ranges 1-10 → G1, * → G2) and FML32 or VIEW:v (1-10 → G2, * → G1).
// U is not routed.
const bufUBB = "*RESOURCES\nMODEL SHM\n*MACHINES\nm LMID=site1\n*GROUPS\nG1 LMID=site1 GRPNO=1\nG2 LMID=site1 GRPNO=2\n" +
	"*SERVERS\na SRVGRP=G1 SRVID=1 CLOPT=\"-s S,P,U,Q\"\nb SRVGRP=G2 SRVID=1 CLOPT=\"-s S,P\"\n" +
	"*SERVICES\nS ROUTING=R\nP ROUTING=R\nU\n*ROUTING\nR FIELD=ACCT BUFTYPE=FML RANGES=\"1-10:G1,*:G2\"\n" +
	"R FIELD=ACCT BUFTYPE=\"FML32;VIEW:v\" RANGES=\"1-10:G2,*:G1\"\n"

func openBuf(t *testing.T, w string) ([]workload.Request, error) {
	t.Helper()
	var sc scenario.Scenario
	if err := json.Unmarshal([]byte(`{"ubbconfig":"x","workload":`+w+`}`), &sc); err != nil {
		t.Fatal(err)
	}
	m, err := ubb.Load(ubb.Input{UBBConfig: bufUBB})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := workload.Open(m, &sc, 1, 0)
	if err != nil {
		return nil, err
	}
	reqs := drain(rs)
	return reqs, rs.Err()
}

// TestTraceBufType: the buftype column (CSV, mapped, or a JSON row's field)
// picks the entry; its ranges are numbered after the earlier entries'.
func TestTraceBufType(t *testing.T) {
	// R's routes: 1 = FML 1-10, 2 = FML *, 3 = FML32 1-10, 4 = FML32 *
	for _, c := range []struct {
		name, w string
		want    []int32
	}{
		{"csv", `{"trace_csv":"time_ms,service,service_ms,route,buftype\n0,S,1,5,\n1,S,1,5,FML\n2,S,1,5,FML32\n3,S,1,50,VIEW:v\n4,S,1,5,XML\n5,S,1,,FML32\n6,S,1,,XML\n7,U,1,5,XML\n8,S,1,50,\n"}`,
			[]int32{1, 1, 3, 4, workload.RouteNoBuf, workload.RouteNone, workload.RouteNoBuf, workload.RouteNone, 2}},
		{"log column", `{"trace_csv":"ts,svc,dur,acct,buffer_type\n0,S,1,5,FML32\n","columns":{"time":"ts","service":"svc","service_ms":"dur","route":"acct"}}`,
			[]int32{3}},
		{"json", `{"trace":[{"time_ms":0,"service":"S","service_ms":1,"route":5,"buftype":"VIEW:v"},{"time_ms":1,"service":"P","service_ms":1,"route":5},{"time_ms":2,"service":"S","service_ms":1,"buftype":"VIEW:w"}]}`,
			[]int32{3, 1, workload.RouteNoBuf}},
	} {
		t.Run(c.name, func(t *testing.T) {
			reqs, err := openBuf(t, c.w)
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != len(c.want) {
				t.Fatalf("got %d requests, want %d", len(reqs), len(c.want))
			}
			for i, r := range reqs {
				if r.Route != c.want[i] {
					t.Errorf("request %d: got route %d, want %d", i+1, r.Route, c.want[i])
				}
			}
		})
	}
}

func TestBufTypeErrors(t *testing.T) {
	for _, c := range []struct{ name, w, want string }{
		{"csv list", `{"trace_csv":"time_ms,service,service_ms,route,buftype\n0,S,1,5,FML;FML32\n"}`,
			`trace row 1: buftype: want one buffer type, TYPE or TYPE:SUBTYPE (such as FML32 or VIEW:acct), got "FML;FML32"`},
		{"json empty subtype", `{"trace":[{"time_ms":0,"service":"S","service_ms":1,"buftype":"VIEW:"}]}`,
			`trace row 1: buftype: want TYPE or TYPE:SUBTYPE (such as FML32 or VIEW:acct), got "VIEW:"`},
		{"stream wildcard", `{"generate":{"duration_ms":10,"streams":[{"service":"S","arrivals":"poisson","rate_per_s":10,"buftype":"VIEW:*"}]}}`,
			`workload.generate.streams[0].buftype: want one buffer type`},
		{"stream unrouted", `{"generate":{"duration_ms":10,"streams":[{"service":"U","arrivals":"poisson","rate_per_s":10,"buftype":"FML"}]}}`,
			`workload.generate.streams[0].buftype: service U has no routing criterion (ROUTING= in *SERVICES), so its buffer type picks no routing entry`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := openBuf(t, c.w)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestStreamBufType: a stream's buftype picks the entry its values are
// checked and matched against; one no entry holds fails every request.
func TestStreamBufType(t *testing.T) {
	reqs, err := openBuf(t, `{"generate":{"duration_ms":1000,"streams":[
		{"service":"S","arrivals":"constant","rate_per_s":2,"route":{"values":[5]},"buftype":"FML32"},
		{"service":"S","arrivals":"constant","rate_per_s":2,"route":{"values":[5]},"buftype":"XML"},
		{"service":"S","arrivals":"constant","rate_per_s":2,"buftype":"FML"}]}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{3, workload.RouteNoBuf, workload.RouteNone, 3, workload.RouteNoBuf, workload.RouteNone} // at 0 and 500 ms, in stream order
	if len(reqs) != len(want) {
		t.Fatalf("got %d requests, want %d", len(reqs), len(want))
	}
	for i, r := range reqs {
		if r.Route != want[i] {
			t.Errorf("request %d: got route %d, want %d", i+1, r.Route, want[i])
		}
	}
}

// TestBufTypeClientsAndCalls: a client set's service entry gives its
// requests' buffer type (so does a script entry), and a nested request
// inherits its caller's: P's child S (route inherited) is routed by the
// same entry as P, and so is the child of Q, an unrouted service whose
// requests carry the value and buffer type for it.
func TestBufTypeClientsAndCalls(t *testing.T) {
	sc := &scenario.Scenario{UBBConfig: bufUBB,
		Services: map[string]scenario.ServiceSpec{
			"S": {ServiceTime: &scenario.Dist{Dist: "const", MS: ptr(1.0)}},
			"P": {ServiceTime: &scenario.Dist{Dist: "const", MS: ptr(1.0)}, Calls: []scenario.CallStep{{Service: "S"}}},
			"U": {ServiceTime: &scenario.Dist{Dist: "const", MS: ptr(1.0)}},
			"Q": {ServiceTime: &scenario.Dist{Dist: "const", MS: ptr(1.0)}, Calls: []scenario.CallStep{{Service: "S"}}},
		},
		Workload: scenario.Workload{Generate: &scenario.Generator{DurationMS: 10, Clients: []scenario.ClientSet{
			{Name: "a", Count: 1, Think: &scenario.Dist{Dist: "const", MS: ptr(3.0)},
				Services: []scenario.ClientService{{Service: "P", Route: &scenario.RouteSpec{Values: []scenario.RouteValue{"5"}}, BufType: "FML32"}}},
			{Name: "b", Count: 1, Think: &scenario.Dist{Dist: "const", MS: ptr(3.0)},
				Services: []scenario.ClientService{{Service: "P", Route: &scenario.RouteSpec{Values: []scenario.RouteValue{"5"}}}}},
			{Name: "c", Count: 1, Think: &scenario.Dist{Dist: "const", MS: ptr(3.0)},
				Services: []scenario.ClientService{{Service: "Q", Route: &scenario.RouteSpec{Values: []scenario.RouteValue{"5"}}, BufType: "VIEW:v"}}},
			{Name: "d", Count: 1, Think: &scenario.Dist{Dist: "const", MS: ptr(3.0)},
				Script: []scenario.ScriptEntry{{Service: "P", Route: ptr(scenario.RouteValue("5")), BufType: "FML32"}}},
		}}}}
	var log bytes.Buffer
	if _, err := Run(sc, RunOptions{Dispatch: &log}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{} // request id -> server
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n")[1:] {
		f := strings.Split(line, ",")
		got[f[0]] = f[4]
	}
	for id, want := range map[string]string{"a:0:0": "G2/1", "a:0:0.1": "G2/1", "b:0:0": "G1/1", "b:0:0.1": "G1/1",
		"c:0:0": "G1/1", "c:0:0.1": "G2/1", "d:0:0": "G2/1", "d:0:0.1": "G2/1"} {
		if got[id] != want {
			t.Errorf("%s: got server %q, want %s (log:\n%s)", id, got[id], want, log.String())
		}
	}
}

// TestExplainBufType: the explanation names the entry the buffer type
// picked, or says that none holds it.
func TestExplainBufType(t *testing.T) {
	sc := &scenario.Scenario{UBBConfig: bufUBB, Workload: scenario.Workload{
		TraceCSV: "time_ms,service,service_ms,route,buftype\n0,S,1,5,FML32\n1,S,1,5,\n2,S,1,5,XML\n"}}
	exs, err := Explain(sc, RunOptions{}, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		step result.RoutingStep
		text string
	}{
		{result.RoutingStep{Criterion: "R", Field: "ACCT", Value: "5", Range: "1-10:G2", Group: "G2", Candidates: 1, BufType: "FML32", EntryLine: 17},
			"S is routed by R, the entry at line 17 (for buffer type FML32; field ACCT): the value 5 falls in range 1-10:G2"},
		{result.RoutingStep{Criterion: "R", Field: "ACCT", Value: "5", Range: "1-10:G1", Group: "G1", Candidates: 1, EntryLine: 16},
			"S is routed by R, the entry at line 16 (the first: the request gives no buffer type; field ACCT)"},
		{result.RoutingStep{Criterion: "R", Field: "ACCT", Value: "5", BufType: "XML", NoEntry: true},
			"S is routed by R: its buffer type is XML, and no entry of R holds it (BUFTYPE), so the request fails with TPESYSTEM."},
	}
	for i, ex := range exs {
		if ex.Routing == nil || *ex.Routing != want[i].step {
			t.Errorf("request %d: routing got %+v, want %+v", i+1, ex.Routing, want[i].step)
		}
		if !strings.HasPrefix(ex.Text, want[i].text) {
			t.Errorf("request %d: text %q, want it to start with %q", i+1, ex.Text, want[i].text)
		}
	}
}
