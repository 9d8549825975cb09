package core_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
)

// appRun runs an application scenario and returns its result and dispatch rows.
func appRun(t *testing.T, doc string) (*result.Result, [][]string) {
	t.Helper()
	sc, err := core.ParseScenario([]byte(doc))
	if err != nil {
		t.Fatalf("ParseScenario: %v", err)
	}
	var buf bytes.Buffer
	res, err := core.Run(sc, core.RunOptions{Dispatch: &buf})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("dispatch log: %v", err)
	}
	return res, rows
}

const twoServers = `*RESOURCES\nIPCKEY 1\nMASTER site1\nMODEL SHM\nLDBAL Y\nSCANUNIT 10MS\nSANITYSCAN 1\nBLOCKTIME %d\n\n` +
	`*MACHINES\nnode1 LMID=site1\n\n*GROUPS\nG1 LMID=site1 GRPNO=1\n\n` +
	`*SERVERS\nxfer SRVGRP=G1 SRVID=1 %s CLOPT=\"-s XFER\"\nacct SRVGRP=G1 SRVID=2 CLOPT=\"-s WD,DEP\"\n\n*SERVICES\nXFER\nWD\nDEP\n`

// A server holding a request for its nested reply crashes: the reply
// reaching the down instance is lost, and the request fails with TPESVCERR
// at the BBL's notice (the next sanity scan), not when the reply comes.
func TestCrashOfHoldingServerFailsItsRequestAtTheNotice(t *testing.T) {
	doc := fmt.Sprintf(`{"ubbconfig": "`+twoServers+`",
	  "services": {"XFER": {"service_time": {"dist": "const", "ms": 1}, "calls": [{"service": "WD"}]},
	               "WD": {"service_time": {"dist": "const", "ms": 5}}, "DEP": {"service_time": {"dist": "const", "ms": 1}}},
	  "events": [{"at_ms": 3, "kill": "G1/1"}],
	  "workload": {"trace_csv": "time_ms,service\n0,XFER\n"}}`, 100, "")
	res, rows := appRun(t, doc)
	// XFER works 0-1 ms, calls WD (1-6 ms); G1/1 crashes at 3 ms, the scan at 10 ms notices it.
	want := [][]string{
		{"1", "XFER", "site1", "0", "G1/1", "G1/1", "0", "0", "", "10000", "TPESVCERR", ""},
		{"1.1", "WD", "site1", "1000", "G1/2", "G1/2", "1000", "1000", "6000", "6000", "idle", "1"},
	}
	if len(rows) != 3 {
		t.Fatalf("rows: %v", rows)
	}
	for i, w := range want {
		if got := strings.Join(rows[i+1], ","); got != strings.Join(w, ",") {
			t.Errorf("row %d:\n got  %s\n want %s", i+1, got, strings.Join(w, ","))
		}
	}
	if res.Requests.Failed["TPESVCERR"] != 1 || res.Requests.Completed != 1 {
		t.Errorf("requests: %+v", res.Requests)
	}
	// held from 1 ms to the crash at 3 ms
	if h := *res.Servers[0].HeldMS; h != 2 {
		t.Errorf("G1/1 held_ms = %g, want 2", h)
	}
}

// The call graph's cycles, a tpforward that is not last, an unknown called
// service and noreply on a step that is not a tpacall are input errors
// naming what is wrong.
func TestCallGraphErrors(t *testing.T) {
	ubb := fmt.Sprintf(twoServers, 100, "")
	for _, c := range []struct{ calls, want string }{
		{`"XFER": {"calls": [{"service": "WD"}]}, "WD": {"calls": [{"service": "DEP"}]}, "DEP": {"calls": [{"service": "XFER"}]}`,
			"cycle: DEP -> XFER -> WD -> DEP"},
		{`"XFER": {"calls": [{"service": "XFER"}]}`, "cycle: XFER -> XFER"},
		{`"XFER": {"calls": [{"service": "WD", "mode": "tpforward"}, {"service": "DEP"}]}`, "services.XFER.calls[0].mode: tpforward must be the last step"},
		{`"XFER": {"calls": [{"service": "NOPE"}]}`, `services.XFER.calls[0].service: unknown service "NOPE"`},
		{`"XFER": {"calls": [{"service": "WD", "p": 0}]}`, "services.XFER.calls[0].p: must be > 0"},
		{`"XFER": {"calls": [{"service": "WD", "mode": "tpcal"}]}`, `services.XFER.calls[0].mode: unknown call mode "tpcal"`},
		// noreply: a tpacall's only
		{`"XFER": {"calls": [{"service": "WD", "mode": "tpacall", "noreply": true}, {"service": "DEP", "noreply": true}]}`,
			"services.XFER.calls[1].noreply: allowed on a tpacall step only, this step is a tpcall"},
		{`"XFER": {"calls": [{"service": "WD", "mode": "tpcall", "noreply": true}]}`, "services.XFER.calls[0].noreply: allowed on a tpacall step only, this step is a tpcall"},
		{`"XFER": {"calls": [{"service": "WD", "mode": "tpforward", "noreply": true}]}`, "services.XFER.calls[0].noreply: allowed on a tpacall step only, this step is a tpforward"},
		{`"XFER": {"calls": [{"service": "WD", "mode": "tpacall", "noreply": 1}]}`, "services.XFER.calls[0].noreply"},
	} {
		doc := fmt.Sprintf(`{"ubbconfig": "%s", "services": {%s}, "workload": {"trace_csv": "time_ms,service,service_ms\n0,WD,1\n"}}`, ubb, c.calls)
		sc, err := core.ParseScenario([]byte(doc))
		if err == nil {
			_, err = core.Run(sc, core.RunOptions{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", c.calls, err, c.want)
		}
	}
}

// Client sets are checked as they are read.
func TestClientSetErrors(t *testing.T) {
	ubb := fmt.Sprintf(twoServers, 100, "")
	for _, c := range []struct{ clients, want string }{
		{`{"name": "a", "count": 1, "services": [{"service": "WD"}], "script": ["WD"]}`, "give services or script, exactly one"},
		{`{"name": "a", "count": 0, "script": ["WD"]}`, "clients[0].count: must be between 1 and 100000"},
		{`{"name": "a:b", "count": 1, "script": ["WD"]}`, "clients[0].name"},
		{`{"name": "a", "count": 1, "script": ["WD"], "retry": {"max": 1, "on": ["TPEBAD"]}}`, `clients[0].retry.on[0]: unknown code "TPEBAD"`},
		{`{"name": "a", "count": 1, "script": ["NOPE"]}`, `clients[0].script[0].service: unknown service "NOPE"`},
		{`{"name": "a", "count": 1, "script": [{"service": "WD", "rout": 1}]}`, "clients[0].script[0].rout: unknown field"},
		{`{"name": "a", "count": 1, "script": ["WD"], "origin": "site9"}`, `clients[0].origin: unknown LMID "site9"`},
	} {
		doc := fmt.Sprintf(`{"ubbconfig": "%s", "services": {"WD": {"service_time": {"dist": "const", "ms": 1}}},
			"workload": {"generate": {"duration_ms": 100, "clients": [%s]}}}`, ubb, c.clients)
		sc, err := core.ParseScenario([]byte(doc))
		if err == nil {
			_, err = core.Run(sc, core.RunOptions{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", c.clients, err, c.want)
		}
	}
}

// N clients with exponential think times and one exponential server form a
// closed queueing network whose throughput and response time exact Mean
// Value Analysis gives: R(n) = S(1 + Q(n-1)), X(n) = n/(R(n) + Z),
// Q(n) = X(n)R(n). Little's law N = X(R + Z) holds on clients[] too.
func TestClientsAgainstExactMVA(t *testing.T) {
	const n, sMS, zMS = 6, 10.0, 40.0
	var q, r, x float64
	for k := 1; k <= n; k++ {
		r = sMS * (1 + q)
		x = float64(k) / (r + zMS)
		q = x * r
	}
	ubb := "*RESOURCES\nIPCKEY 1\nMASTER site1\nMODEL SHM\nLDBAL Y\n\n*MACHINES\nnode1 LMID=site1\n\n*GROUPS\nG1 LMID=site1 GRPNO=1\n\n*SERVERS\nsrv SRVGRP=G1 SRVID=1 CLOPT=\"-s SVC\"\n\n*SERVICES\nSVC\n"
	doc := fmt.Sprintf(`{"ubbconfig": %q, "seed": 3, "services": {"SVC": {"service_time": {"dist": "exp", "mean_ms": %g}}},
		"workload": {"generate": {"duration_ms": 3000000, "clients": [{"name": "users", "count": %d, "think": {"dist": "exp", "mean_ms": %g}, "services": [{"service": "SVC"}]}]}}}`,
		ubb, sMS, n, zMS)
	sc, err := core.ParseScenario([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	res, err := core.Run(sc, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs := res.Clients[0]
	gotX := cs.ThroughputPerS / 1000 // per ms
	if rel := math.Abs(gotX-x) / x; rel > 0.02 {
		t.Errorf("throughput %.5f/ms, MVA %.5f/ms (%.1f%% off)", gotX, x, 100*rel)
	}
	if rel := math.Abs(cs.ResponseMS.Mean-r) / r; rel > 0.03 {
		t.Errorf("response %.3f ms, MVA %.3f ms (%.1f%% off)", cs.ResponseMS.Mean, r, 100*rel)
	}
	// Little's law on the clients: N = X (R + Z), X counting every outcome
	little := float64(cs.Requests) / res.SpanMS * cs.CycleMS
	if rel := math.Abs(little-n) / n; rel > 0.005 {
		t.Errorf("Little's law: requests/span x cycle = %.4f, want %d clients", little, n)
	}
}

// Properties of random application scenarios: every client request has one
// outcome, counted once in clients[]; every nested request's parent is an
// earlier row; held time never exceeds busy time; issued = completed +
// failed.
func TestApplicationProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for k := 0; k < 120; k++ {
		doc := randomApp(r)
		sc, err := core.ParseScenario([]byte(doc))
		if err != nil {
			t.Fatalf("case %d: %v\n%s", k, err, doc)
		}
		var buf bytes.Buffer
		res, err := core.Run(sc, core.RunOptions{Dispatch: &buf})
		if err != nil {
			t.Fatalf("case %d: %v\n%s", k, err, doc)
		}
		rows, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		clientRows := 0
		for _, row := range rows[1:] {
			id, parent := row[0], row[11]
			if parent != "" && !seen[parent] {
				t.Fatalf("case %d: row %s names parent %s, not an earlier row\n%s", k, id, parent, doc)
			}
			if parent != "" && !strings.HasPrefix(id, parent+".") {
				t.Fatalf("case %d: row %s has parent %s", k, id, parent)
			}
			seen[id] = true
			if strings.Contains(id, ":") && !strings.Contains(id, ".") {
				clientRows++
			}
		}
		outcomes := int64(0)
		for _, c := range res.Clients {
			outcomes += c.Requests
			sum := c.Completed + c.TimedOut
			for _, n := range c.Failed {
				sum += n
			}
			if sum != c.Requests {
				t.Fatalf("case %d: client set %s: %d outcomes, requests %d", k, c.Name, sum, c.Requests)
			}
		}
		if outcomes != int64(clientRows) {
			t.Fatalf("case %d: %d client requests in the log, %d outcomes in clients[]\n%s", k, clientRows, outcomes, doc)
		}
		failed := int64(0)
		for _, n := range res.Requests.Failed {
			failed += n
		}
		if res.Requests.Issued != res.Requests.Completed+failed || res.Requests.Issued != int64(len(rows)-1) {
			t.Fatalf("case %d: issued %d, completed %d, failed %d, rows %d", k, res.Requests.Issued, res.Requests.Completed, failed, len(rows)-1)
		}
		if n := flowsSum(res); n != res.Requests.Issued {
			t.Fatalf("case %d: flows sum to %d, issued %d", k, n, res.Requests.Issued)
		}
		for _, s := range res.Servers {
			if *s.HeldMS > s.BusyMS+1e-9 {
				t.Fatalf("case %d: %s held %g ms, busy %g ms", k, s.ID, *s.HeldMS, s.BusyMS)
			}
		}
	}
}

// randomApp makes a random application scenario: two machines, services
// A -> B -> C calling each other in random modes, clients and a trace,
// kills and short deadlines.
func randomApp(r *rand.Rand) string {
	modes := []string{"tpcall", "tpacall", "tpforward"}
	pick := func(l ...string) string { return l[r.IntN(len(l))] }
	ubb := fmt.Sprintf("*RESOURCES\nIPCKEY 1\nMASTER site1\nMODEL %s\nLDBAL %s\nSCANUNIT 10MS\nSANITYSCAN %d\nBLOCKTIME %d\n\n"+
		"*MACHINES\nn1 LMID=site1\nn2 LMID=site2\n\n*GROUPS\nG1 LMID=site1 GRPNO=1\nG2 LMID=site2 GRPNO=2\n\n"+
		"*SERVERS\nsa SRVGRP=G1 SRVID=1 MIN=%d RESTART=%s CLOPT=\"-s A,B\"\nsb SRVGRP=G2 SRVID=1 MIN=%d CLOPT=\"-s B,C\"\nsc SRVGRP=G1 SRVID=10 CLOPT=\"-s C\"\n\n"+
		"*SERVICES\nA\nB\nC\n", "MP", pick("Y", "N"), 1+r.IntN(3), 2+r.IntN(20), 1+r.IntN(2), pick("Y", "N"), 1+r.IntN(2))
	step := func(svc string, last bool) string {
		m := modes[r.IntN(2)]
		if last && r.IntN(3) == 0 {
			m = "tpforward"
		}
		p := ""
		if r.IntN(4) == 0 {
			p = fmt.Sprintf(`, "p": %.2f`, 0.3+0.6*r.Float64())
		}
		return fmt.Sprintf(`{"service": %q, "mode": %q%s}`, svc, m, p)
	}
	var aCalls, bCalls []string
	for i, n := 0, r.IntN(4); i < n; i++ {
		aCalls = append(aCalls, step(pick("B", "C"), i == n-1))
	}
	for i, n := 0, r.IntN(3); i < n; i++ {
		bCalls = append(bCalls, step("C", i == n-1))
	}
	svc := func(name string, calls []string) string {
		return fmt.Sprintf(`%q: {"service_time": {"dist": "exp", "mean_ms": %d}, "calls": [%s]}`, name, 1+r.IntN(8), strings.Join(calls, ","))
	}
	var events []string
	for i, n, at := 0, r.IntN(3), 0; i < n; i++ {
		at += r.IntN(150)
		events = append(events, fmt.Sprintf(`{"at_ms": %d, %q: %q}`, at, pick("kill", "shutdown", "boot"), pick("G1/1", "G2/1", "G1/10")))
	}
	clients := fmt.Sprintf(`{"name": "t", "count": %d, "origin": %q, "think": {"dist": "exp", "mean_ms": %d}, "services": [{"service": "A", "weight": 3}, {"service": "B"}],
		"retry": {"max": %d, "on": ["TPETIME", "TPESVCFAIL", "TPESVCERR"], "backoff": {"dist": "const", "ms": 2}}}`,
		1+r.IntN(8), pick("site1", "site2"), 1+r.IntN(30), r.IntN(3))
	if r.IntN(3) == 0 {
		clients += fmt.Sprintf(`, {"name": "s", "count": %d, "script": ["C", "A"]}`, 1+r.IntN(3))
	}
	return fmt.Sprintf(`{"ubbconfig": %q, "seed": %d, "network": {"latency_ms": %g}, "services": {%s, %s, %s}, "events": [%s],
		"workload": {"trace_csv": "time_ms,service,origin\n0,A,site1\n5,B,site2\n", "generate": {"duration_ms": %d, "clients": [%s]}}}`,
		ubb, r.IntN(100), float64(r.IntN(3))/2, svc("A", aCalls), svc("B", bCalls), svc("C", nil), strings.Join(events, ","), 100+r.IntN(400), clients)
}

// Bounded queues: in random overloaded runs no queue ever holds more
// waiting requests than its capacity, and every request has one outcome.
func TestBoundedQueuesNeverOverflow(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	for k := 0; k < 40; k++ {
		capacity := 1 + r.IntN(5)
		ubb := `*RESOURCES\nIPCKEY 1\nMASTER site1\nMODEL MP\nLDBAL Y\nSCANUNIT 1\nBLOCKTIME 2\n\n*MACHINES\nn1 LMID=site1\nn2 LMID=site2\n\n` +
			`*GROUPS\nG1 LMID=site1 GRPNO=1\nG2 LMID=site2 GRPNO=2\n\n*SERVERS\na SRVGRP=G1 SRVID=1 MIN=2 RQADDR=QA CLOPT=\"-s S\"\nb SRVGRP=G2 SRVID=1 CLOPT=\"-s S\"\n\n*SERVICES\nS\n`
		doc := fmt.Sprintf(`{"ubbconfig": "%s", "seed": %d, "network": {"latency_ms": 3},
			"tuning": {"queue_capacity": %d, "enqueue_retry_ms": %d},
			"services": {"S": {"service_time": {"dist": "exp", "mean_ms": 20}}},
			"workload": {"generate": {"duration_ms": 20000, "streams": [{"service": "S", "origin": "site1", "arrivals": "poisson", "rate_per_s": %d}],
			  "clients": [{"name": "c", "count": 30, "origin": "site2", "think": {"dist": "exp", "mean_ms": 50}, "services": [{"service": "S"}],
			   "retry": {"max": 2, "on": ["TPETIME"], "backoff": {"dist": "const", "ms": 10}}}]}}}`,
			ubb, k, capacity, 50+r.IntN(900), 100+r.IntN(200))
		res, rows := appRun(t, doc)
		for _, q := range res.Queues {
			if q.MaxLength > int64(capacity) {
				t.Fatalf("case %d: queue %s held %d, capacity %d", k, q.Name, q.MaxLength, capacity)
			}
		}
		if res.Requests.Failed["TPEBLOCK"] == 0 {
			t.Fatalf("case %d: an overloaded bounded queue blocked nobody", k)
		}
		failed := int64(0)
		for _, n := range res.Requests.Failed {
			failed += n
		}
		if res.Requests.Issued != res.Requests.Completed+failed || res.Requests.Issued != int64(len(rows)-1) {
			t.Fatalf("case %d: issued %d, completed %d, failed %d, rows %d", k, res.Requests.Issued, res.Requests.Completed, failed, len(rows)-1)
		}
	}
}

// A forward chain whose last child fails at its issue: every request of the
// chain keeps its row (no reply for the forwarders), and the client learns
// of the failure at once. (A forwarder two steps up once kept the log
// waiting for it forever.)
func TestForwardChainFailingAtIssueWritesEveryRow(t *testing.T) {
	ubb := `*RESOURCES\nIPCKEY 1\nMASTER site1\nMODEL SHM\nLDBAL Y\n\n*MACHINES\nn1 LMID=site1\n\n*GROUPS\nG1 LMID=site1 GRPNO=1\n\n` +
		`*SERVERS\nb SRVGRP=G1 SRVID=1 CLOPT=\"-s B\"\nd SRVGRP=G1 SRVID=2 CLOPT=\"-s D\"\n\n*SERVICES\nB\nD\nE\n`
	doc := `{"ubbconfig": "` + ubb + `",
	  "services": {"B": {"service_time": {"dist": "const", "ms": 1}, "calls": [{"service": "D", "mode": "tpforward"}]},
	               "D": {"service_time": {"dist": "const", "ms": 2}, "calls": [{"service": "E", "mode": "tpforward"}]},
	               "E": {"service_time": {"dist": "const", "ms": 1}}},
	  "workload": {"trace_csv": "time_ms,service\n0,B\n10,B\n", "generate": {"duration_ms": 20, "clients": [{"name": "w", "count": 1, "think": {"dist": "const", "ms": 5}, "script": ["B"]}]}}}`
	res, rows := appRun(t, doc)
	got := make([]string, 0, len(rows))
	for _, r := range rows[1:] {
		got = append(got, strings.Join(r, ","))
	}
	want := []string{
		"1,B,site1,0,G1/1,G1/1,0,0,1000,,idle,",
		"1.1,D,site1,1000,G1/2,G1/2,1000,1000,3000,,idle,1",
		"1.1.1,E,site1,3000,,,,,,,TPENOENT,1.1",
		"w:0:0,B,site1,5000,G1/1,G1/1,5000,5000,6000,,idle,",
		"w:0:0.1,D,site1,6000,G1/2,G1/2,6000,6000,8000,,idle,w:0:0",
		"w:0:0.1.1,E,site1,8000,,,,,,,TPENOENT,w:0:0.1",
		"7,B,site1,10000,G1/1,G1/1,10000,10000,11000,,idle,", // the 7th issued: ids count every request
		"7.1,D,site1,11000,G1/2,G1/2,11000,11000,13000,,idle,7",
		"7.1.1,E,site1,13000,,,,,,,TPENOENT,7.1",
		"w:0:1,B,site1,13000,G1/1,G1/1,13000,13000,14000,,idle,",
		"w:0:1.1,D,site1,14000,G1/2,G1/2,14000,14000,16000,,idle,w:0:1",
		"w:0:1.1.1,E,site1,16000,,,,,,,TPENOENT,w:0:1.1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("dispatch log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := res.Clients[0]; c.Failed["TPENOENT"] != 2 || c.Requests != 2 {
		t.Errorf("client outcomes: %+v", c)
	}
}

// A client's routing value for a service without a criterion is carried:
// the service's nested requests inherit it and are routed by it.
func TestRouteCarriedThroughAnUnroutedCaller(t *testing.T) {
	ubb := `*RESOURCES\nIPCKEY 1\nMASTER site1\nMODEL SHM\nLDBAL Y\n\n*MACHINES\nn1 LMID=site1\n\n*GROUPS\nG1 LMID=site1 GRPNO=1\nG2 LMID=site1 GRPNO=2\n\n` +
		`*SERVERS\nx SRVGRP=G1 SRVID=1 CLOPT=\"-s XFER\"\nw SRVGRP=G1 SRVID=2 CLOPT=\"-s WD\"\nw SRVGRP=G2 SRVID=2 CLOPT=\"-s WD\"\n\n` +
		`*SERVICES\nXFER\nWD ROUTING=ACCT\n\n*ROUTING\nACCT FIELD=ACCT BUFTYPE=\"FML\" RANGES=\"1-49:G1,50-99:G2\"\n`
	doc := `{"ubbconfig": "` + ubb + `",
	  "services": {"XFER": {"service_time": {"dist": "const", "ms": 1}, "calls": [{"service": "WD"}]}, "WD": {"service_time": {"dist": "const", "ms": 1}}},
	  "workload": {"generate": {"duration_ms": 20, "clients": [{"name": "a", "count": 1, "think": {"dist": "const", "ms": 4}, "script": [{"service": "XFER", "route": 70}, {"service": "XFER", "route": 7}]}]}}}`
	_, rows := appRun(t, doc)
	servers := map[string]string{}
	for _, r := range rows[1:] {
		servers[r[0]] = r[4]
	}
	if servers["a:0:0.1"] != "G2/2" || servers["a:0:1.1"] != "G1/2" {
		t.Errorf("WD children served by %v; want a:0:0.1 on G2/2 (70) and a:0:1.1 on G1/2 (7)", servers)
	}
}

// flowsSum adds up the result's flows (they must sum to requests.issued).
func flowsSum(res *result.Result) int64 {
	var n int64
	for _, f := range res.Flows {
		n += f.Requests
	}
	return n
}

// requests.noreply is in the result only when some call step is noreply:
// a scenario without one gives the same bytes as before (no key at all).
func TestNoreplyCountOnlyWithNoreplySteps(t *testing.T) {
	for _, c := range []struct {
		dir  string
		want int64 // -1: no key
	}{{"113-child-fails-at-issue", -1}, {"173-noreply-mixed-run", 2}} {
		sc := readScenario(t, filepath.Join(specDir, c.dir))
		res, err := core.Run(sc, core.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		js := result.Encode(res)
		has := bytes.Contains(js, []byte(`"noreply"`))
		switch {
		case c.want < 0 && (has || res.Requests.Noreply != nil):
			t.Errorf("%s: a result with no noreply step has requests.noreply", c.dir)
		case c.want >= 0 && (res.Requests.Noreply == nil || *res.Requests.Noreply != c.want):
			t.Errorf("%s: requests.noreply = %v, want %d", c.dir, res.Requests.Noreply, c.want)
		}
	}
}

// The explanation of a noreply child says it was issued with TPNOREPLY;
// that of a waited tpacall child of the same run does not.
func TestExplainNoreplyChild(t *testing.T) {
	sc := readScenario(t, filepath.Join(specDir, "173-noreply-mixed-run"))
	exs, err := core.Explain(sc, core.RunOptions{}, 2, 2) // #2 1.1 SLOW (noreply), #3 1.2 FAST
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != 2 {
		t.Fatalf("%d explanations, want 2", len(exs))
	}
	if ex := exs[0]; ex.Mode != "tpacall" || !strings.Contains(ex.Text, "tpacall with TPNOREPLY") {
		t.Errorf("1.1: mode %q, text %q: want tpacall, and TPNOREPLY named", ex.Mode, ex.Text)
	}
	if ex := exs[1]; ex.Mode != "tpacall" || strings.Contains(ex.Text, "TPNOREPLY") {
		t.Errorf("1.2: mode %q, text %q: want tpacall without TPNOREPLY", ex.Mode, ex.Text)
	}
}

// TestLostClientsStaleTimers: clients on a machine lost while they think
// keep a think timer that no longer applies; restored, each thinks again.
// Here the new timer often falls at the very time of the stale one (thinks
// of 50 or 100 ms: a client whose thinks were 100 and 100 ms had its next
// request due at 201 ms; lost at 101.5 and restored at 151 ms, it is due
// again at 201 ms when it draws 50): it issues once then, as a client never
// issues twice in one instant.
func TestLostClientsStaleTimers(t *testing.T) {
	doc := `{"ubbconfig": "*RESOURCES\nIPCKEY 1\nMASTER S1\nMODEL MP\nLDBAL Y\n*MACHINES\nn1 LMID=S1\nn2 LMID=S2\n` +
		`*GROUPS\nG1 LMID=S1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G1 SRVID=1 MIN=50\n*SERVICES\nA\n",
	  "services": {"A": {"service_time": {"dist": "const", "ms": 1}}},
	  "events": [{"at_ms": 101.5, "lose": "S2"}, {"at_ms": 151, "restore": "S2"}],
	  "workload": {"generate": {"duration_ms": 400, "clients": [{"name": "c", "count": 200, "origin": "S2",
	    "think": {"dist": "empirical", "samples_ms": [50, 100]}, "services": [{"service": "A"}]}]}}}`
	_, rows := appRun(t, doc)
	seen := map[string]bool{}
	at201 := 0
	for _, r := range rows[1:] {
		id, issue := r[0], r[3]
		client := id[:strings.LastIndexByte(id, ':')]
		if seen[client+"@"+issue] {
			t.Fatalf("client %s issued twice at %s µs", client, issue)
		}
		seen[client+"@"+issue] = true
		if issue == "201000" {
			at201++
		}
	}
	if at201 < 20 {
		t.Fatalf("%d requests issued at 201 ms, where stale and new timers meet; want many", at201)
	}
}

// The deadlines of callers that have had their outcome change nothing, and
// move no clock: a run's series ends with the bin of its span, not with
// the last such deadline. Here every request has ended by about 30 ms,
// and the deadlines (BLOCKTIME 100 x SCANUNIT 10 ms = 1 s) of the clients'
// XFER and of XFER's nested WD would fall up to a second later; S2, the
// machine of half the clients, lost at 5 ms and restored at 15 ms, leaves
// their think timers stale too (engine 0.7.1 stretched the series to the
// last of them).
func TestSeriesEndsAtTheSpan(t *testing.T) {
	doc := `{"ubbconfig": "*RESOURCES\nIPCKEY 1\nMASTER S1\nMODEL MP\nLDBAL Y\nSCANUNIT 10MS\nBLOCKTIME 100\n` +
		`*MACHINES\nn1 LMID=S1\nn2 LMID=S2\n*GROUPS\nG1 LMID=S1 GRPNO=1\n` +
		`*SERVERS\nxfer SRVGRP=G1 SRVID=1 MIN=4 CLOPT=\"-s XFER\"\nacct SRVGRP=G1 SRVID=10 MIN=4 CLOPT=\"-s WD\"\n*SERVICES\nXFER\nWD\n",
	  "services": {"XFER": {"service_time": {"dist": "const", "ms": 1}, "calls": [{"service": "WD"}]},
	               "WD": {"service_time": {"dist": "const", "ms": 2}}},
	  "events": [{"at_ms": 5, "lose": "S2"}, {"at_ms": 15, "restore": "S2"}],
	  "workload": {"generate": {"duration_ms": 20, "clients": [
	    {"name": "a", "count": 3, "origin": "S1", "think": {"dist": "const", "ms": 4}, "services": [{"service": "XFER"}]},
	    {"name": "b", "count": 3, "origin": "S2", "think": {"dist": "const", "ms": 4}, "services": [{"service": "XFER"}]}]}}}`
	res, rows := appRun(t, doc)
	if len(rows) < 10 || res.SpanMS > 40 {
		t.Fatalf("%d rows, span %g ms: want a run of a few dozen requests ending by 40 ms", len(rows)-1, res.SpanMS)
	}
	s := res.Series
	last := s.StartMS[len(s.StartMS)-1]
	if last >= res.SpanMS || last+s.BinMS < res.SpanMS {
		t.Errorf("series: last bin [%g, %g) ms, %d bins of %g ms; want the bin of the span, %g ms",
			last, last+s.BinMS, len(s.StartMS), s.BinMS, res.SpanMS)
	}
}

// A deadline still awaited outlives the sweeps of the settled ones around
// it: 40 clients issue about 36 requests a millisecond, one in 201 a SLOW
// one (1 500 ms) whose caller's deadline (BLOCKTIME 100 x SCANUNIT 10 ms =
// 1 s) falls some 36 000 FAST requests and thirty sweeps later. Every SLOW
// request times out, and its client, thinking 1 ms, issues again exactly
// 1 001 ms after it.
func TestAwaitedDeadlinesOutliveSweeps(t *testing.T) {
	doc := `{"ubbconfig": "*RESOURCES\nIPCKEY 1\nMASTER S1\nMODEL SHM\nLDBAL Y\nSCANUNIT 10MS\nBLOCKTIME 100\n` +
		`*MACHINES\nn1 LMID=S1\n*GROUPS\nG1 LMID=S1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G1 SRVID=1 MIN=60\n*SERVICES\nFAST\nSLOW\n",
	  "services": {"FAST": {"service_time": {"dist": "const", "ms": 0.1}}, "SLOW": {"service_time": {"dist": "const", "ms": 1500}}},
	  "workload": {"generate": {"duration_ms": 3000, "clients": [{"name": "c", "count": 40, "origin": "S1",
	    "think": {"dist": "const", "ms": 1}, "services": [{"service": "FAST", "weight": 200}, {"service": "SLOW", "weight": 1}]}]}}}`
	res, rows := appRun(t, doc)
	issues := map[string][]int64{} // each client's issue times, in order
	var slow []string              // "client@issue" of each SLOW request
	for _, r := range rows[1:] {
		id, issue := r[0], r[3]
		client := id[:strings.LastIndexByte(id, ':')]
		at, err := strconv.ParseInt(issue, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		issues[client] = append(issues[client], at)
		if r[1] == "SLOW" {
			slow = append(slow, client+"@"+issue)
		}
	}
	if len(rows) < 15000 || len(slow) < 50 {
		t.Fatalf("%d requests, %d SLOW: want tens of thousands and dozens", len(rows)-1, len(slow))
	}
	if got := res.Clients[0].TimedOut; got != int64(len(slow)) {
		t.Errorf("%d timed out, want every SLOW request: %d", got, len(slow))
	}
	followed := 0
	for _, s := range slow {
		client, issue, _ := strings.Cut(s, "@")
		at, _ := strconv.ParseInt(issue, 10, 64)
		ts := issues[client]
		k := slices.Index(ts, at)
		if k+1 < len(ts) {
			followed++
			if ts[k+1] != at+1_001_000 {
				t.Errorf("client %s: SLOW request at %d µs, next at %d µs; want %d (its deadline, then 1 ms of think)", client, at, ts[k+1], at+1_001_000)
			}
		}
	}
	if followed < len(slow)/2 {
		t.Errorf("only %d of %d SLOW requests followed by another of their client", followed, len(slow))
	}
}
