package core

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
)

// These tests go the whole way: UBBCONFIG text and trace CSV in a scenario
// document, through ParseScenario and Run.

const shmScenario = `{
  "name": "two servers, LDBAL=Y",
  "ubbconfig": "*RESOURCES\nIPCKEY 123456\nMASTER SITE1\nMODEL SHM\nLDBAL Y\n\n*MACHINES\nnode1 LMID=SITE1 APPDIR=\"/a\" TUXCONFIG=\"/a/t\" TUXDIR=\"/t\"\n\n*GROUPS\nAPP LMID=SITE1 GRPNO=1\n\n*SERVERS\nsimpserv SRVGRP=APP SRVID=1 MIN=2 CLOPT=\"-s TOUPPER --\"\n\n*SERVICES\nTOUPPER LOAD=50 PRIO=50\n",
  "workload": {"trace_csv": "time_ms,service,service_ms\n0,TOUPPER,10\n1,TOUPPER,10\n2,TOUPPER,10\n2,TOUPPER,1.5\n"}
}`

// R1, R2: first idle (APP/1, APP/2). R3: both busy, 0/1+50 each: tie to
// APP/1 (W=50). R4: APP/1 50/1+50 = 100, APP/2 0/1+50 = 50: APP/2.
const shmWant = `id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason
1,TOUPPER,SITE1,0,APP/1,APP/1,0,0,10000,10000,idle
2,TOUPPER,SITE1,1000,APP/2,APP/2,1000,1000,11000,11000,idle
3,TOUPPER,SITE1,2000,APP/1,APP/1,2000,10000,20000,20000,least-load
4,TOUPPER,SITE1,2000,APP/2,APP/2,2000,11000,12500,12500,least-load
`

func TestRunScenarioDocument(t *testing.T) {
	sc, err := ParseScenario([]byte(shmScenario))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	res, err := Run(sc, RunOptions{Dispatch: &log})
	if err != nil {
		t.Fatal(err)
	}
	if log.String() != shmWant {
		t.Errorf("dispatch log:\n got %s\nwant %s", log.String(), shmWant)
	}
	if res.Name != "two servers, LDBAL=Y" || res.Model != "SHM" || !res.LDBAL || res.Policy != "tuxedo" || res.Seed != 1 {
		t.Errorf("header: got name %q model %s ldbal %v policy %s seed %d", res.Name, res.Model, res.LDBAL, res.Policy, res.Seed)
	}
	if res.Requests.Issued != 4 || res.Requests.Completed != 4 || res.SpanMS != 20 {
		t.Errorf("got %+v, span %v; want 4 issued and completed, span 20 ms", res.Requests, res.SpanMS)
	}
	// Same bytes twice.
	again, _ := Run(sc, RunOptions{})
	if !bytes.Equal(result.Encode(res), result.Encode(again)) {
		t.Errorf("two runs of one scenario give different bytes")
	}
	ex, err := Explain(sc, RunOptions{}, 4, 1)
	if err != nil || len(ex) != 1 || ex[0].Winner != "APP/2" || ex[0].Candidates[0].Cost != "50/1 + 50 = 100" {
		t.Errorf("explain 4: got %+v, %v", ex, err)
	}
}

// TestVariantsSeeSameWork: generated requests keep their issue times and
// service times under every policy (servers have the same speed).
func TestVariantsSeeSameWork(t *testing.T) {
	doc := strings.Replace(shmScenario, `"workload": {"trace_csv": "time_ms,service,service_ms\n0,TOUPPER,10\n1,TOUPPER,10\n2,TOUPPER,10\n2,TOUPPER,1.5\n"}`,
		`"services": {"TOUPPER": {"service_time": {"dist": "exp", "mean_ms": 4}}},
		 "workload": {"generate": {"duration_ms": 2000, "streams": [{"service": "TOUPPER", "arrivals": "poisson", "rate_per_s": 300}]}}`, 1)
	sc, err := ParseScenario([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	work := func(policy string) [][2]string {
		var log bytes.Buffer
		if _, err := Run(sc, RunOptions{Policy: policy, Dispatch: &log}); err != nil {
			t.Fatal(err)
		}
		var out [][2]string
		for _, row := range parseLog(t, log.String()) {
			out = append(out, [2]string{itoa(row.issue), itoa(row.end - row.start)})
		}
		return out
	}
	base := work("tuxedo")
	if len(base) < 400 {
		t.Fatalf("got %d requests, want about 600", len(base))
	}
	for _, p := range []string{"round_robin", "random", "jsq", "p2c"} {
		got := work(p)
		if len(got) != len(base) {
			t.Fatalf("%s: %d requests, want %d", p, len(got), len(base))
		}
		for i := range got {
			if got[i] != base[i] {
				t.Fatalf("%s: request %d: issue and service %v, want %v", p, i+1, got[i], base[i])
			}
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestRunErrors(t *testing.T) {
	sc, err := ParseScenario([]byte(shmScenario))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(sc, RunOptions{Policy: "fastest"}); diag.ErrorCode(err) != diag.EINVALID || !strings.Contains(err.Error(), "policy") {
		t.Errorf("bad policy: got %v, want an invalid error naming the policy", err)
	}
	if _, err := Explain(sc, RunOptions{}, 9, 1); diag.ErrorCode(err) != diag.ENOTFOUND {
		t.Errorf("explain past the end: got %v, want not_found", err)
	}
	if _, err := Explain(sc, RunOptions{}, 0, 1); diag.ErrorCode(err) != diag.EINVALID {
		t.Errorf("explain request 0: got %v, want invalid", err)
	}
}
