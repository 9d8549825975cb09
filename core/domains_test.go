package core

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// domainsScenario reads fidelity case 162 (RSVC imported with RDOM="RA,RB,RC").
func domainsScenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile("../testdata/spec/162-gateway-rdom-failover/scenario.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestDomainDownErrors(t *testing.T) {
	ms := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		name string
		edit func(sc *scenario.Scenario)
		want string
	}{
		{"from missing", func(sc *scenario.Scenario) {
			sc.Domains["RA"] = scenario.DomainSpec{ResponseTime: sc.Domains["RA"].ResponseTime, Down: []scenario.DownInterval{{ToMS: ms(5)}}}
		},
			"domains.RA.down[0].from_ms: missing"},
		{"negative", func(sc *scenario.Scenario) {
			sc.Domains["RA"] = scenario.DomainSpec{ResponseTime: sc.Domains["RA"].ResponseTime, Down: []scenario.DownInterval{{FromMS: ms(-1)}}}
		}, "domains.RA.down[0].from_ms: must be >= 0"},
		{"to before from", func(sc *scenario.Scenario) {
			sc.Domains["RA"] = scenario.DomainSpec{ResponseTime: sc.Domains["RA"].ResponseTime, Down: []scenario.DownInterval{{FromMS: ms(5), ToMS: ms(5)}}}
		}, "domains.RA.down[0].to_ms: must be after from_ms (5), got 5"},
		{"after an open interval", func(sc *scenario.Scenario) {
			sc.Domains["RA"] = scenario.DomainSpec{ResponseTime: sc.Domains["RA"].ResponseTime, Down: []scenario.DownInterval{{FromMS: ms(5)}, {FromMS: ms(9)}}}
		}, "domains.RA.down[1].from_ms: 9 is before the end of domains.RA.down[0], the end of the run (it has no to_ms)"},
		{"alternate missing", func(sc *scenario.Scenario) { delete(sc.Domains, "RC") },
			"domains.RC: missing; service RSVC fails over to it (RDOM=RA,RB,RC) when RA and RB are down, and needs its response_time"},
		{"alternate without response_time", func(sc *scenario.Scenario) { sc.Domains["RB"] = scenario.DomainSpec{Down: sc.Domains["RB"].Down} },
			"domains.RB.response_time"},
		{"unknown domain", func(sc *scenario.Scenario) {
			sc.Domains["RX"] = scenario.DomainSpec{ResponseTime: sc.Domains["RA"].ResponseTime, Down: []scenario.DownInterval{{FromMS: ms(1)}}}
		},
			"domains.RX: unknown remote domain (the DMCONFIG has RA, RB and RC)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := domainsScenario(t)
			c.edit(sc)
			_, err := Run(sc, RunOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) || diag.ErrorCode(err) != diag.EINVALID {
				t.Errorf("got %v, want an invalid-input error containing %q", err, c.want)
			}
		})
	}
}

// TestDomainAlternateNeededOnlyWhenReachable: an alternate needs a
// response_time only when every domain before it in the list is down at
// times.
func TestDomainAlternateNeededOnlyWhenReachable(t *testing.T) {
	sc := domainsScenario(t)
	ra := sc.Domains["RA"]
	sc.Domains = map[string]scenario.DomainSpec{"RA": {ResponseTime: ra.ResponseTime}}
	var log bytes.Buffer
	if _, err := Run(sc, RunOptions{Dispatch: &log}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n")[1:] {
		if f := strings.Split(line, ","); f[10] != "first" {
			t.Errorf("row %s: want every request sent (to RA)", line)
		}
	}
}

// TestDomainDownFarAwayChangesNothing: a down interval the run never
// reaches takes the application path (the gateway's failure needs it), and
// the result and the dispatch log are the bytes the same scenario gives
// without it (fidelity cases 30 and 44).
func TestDomainDownFarAwayChangesNothing(t *testing.T) {
	for _, name := range []string{"30-gateway-vs-local", "44-gateway-remote-machine"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("../testdata/spec/" + name + "/scenario.json")
			if err != nil {
				t.Fatal(err)
			}
			run := func(far bool) (string, string) {
				sc, err := ParseScenario(data)
				if err != nil {
					t.Fatal(err)
				}
				if far {
					for k, d := range sc.Domains {
						from := 1e8
						d.Down = []scenario.DownInterval{{FromMS: &from}}
						sc.Domains[k] = d
					}
				}
				var log bytes.Buffer
				res, err := Run(sc, RunOptions{Dispatch: &log})
				if err != nil {
					t.Fatal(err)
				}
				out, _ := json.Marshal(res)
				return string(out), log.String()
			}
			r0, l0 := run(false)
			r1, l1 := run(true)
			if l0 != l1 {
				t.Errorf("dispatch logs differ:\n%s\nwith a far interval:\n%s", l0, l1)
			}
			if r0 != r1 {
				t.Errorf("results differ:\n%s\nwith a far interval:\n%s", r0, r1)
			}
		})
	}
}

// TestDomainDownNestedAcrossMachines: a nested call to an imported service
// whose only domain is down: the gateway, on another machine, fails it with
// TPESVCERR after forwarding; the failure crosses back to the calling
// server, whose request fails with TPESVCFAIL.
func TestDomainDownNestedAcrossMachines(t *testing.T) {
	ubbText := "*RESOURCES\nMODEL MP\nLDBAL N\nMASTER site1\n*MACHINES\nn1 LMID=site1\nn2 LMID=site2\n" +
		"*GROUPS\nAPP LMID=site1 GRPNO=1\nGWGRP LMID=site2 GRPNO=2\n" +
		"*SERVERS\nGWTDOMAIN SRVGRP=GWGRP SRVID=1\napp SRVGRP=APP SRVID=1 CLOPT=\"-s P\"\n*SERVICES\nP\n"
	dm := "*DM_LOCAL_DOMAINS\nLD GWGRP=GWGRP\n*DM_REMOTE_DOMAINS\nRA\n*DM_REMOTE_SERVICES\nR RDOM=RA\n"
	from, to := 5.0, 15.0
	sc := &scenario.Scenario{UBBConfig: ubbText, DMConfig: dm, Network: &scenario.NetworkSpec{LatencyMS: 1},
		Domains:  map[string]scenario.DomainSpec{"RA": {ResponseTime: scenario.Dist{Dist: "const", MS: ptr(3.0)}, Down: []scenario.DownInterval{{FromMS: &from, ToMS: &to}}}},
		Services: map[string]scenario.ServiceSpec{"P": {ServiceTime: &scenario.Dist{Dist: "const", MS: ptr(2.0)}, Calls: []scenario.CallStep{{Service: "R"}}}},
		Workload: scenario.Workload{TraceCSV: "time_ms,service\n0,P\n10,P\n"}}
	var log bytes.Buffer
	res, err := Run(sc, RunOptions{Dispatch: &log})
	if err != nil {
		t.Fatal(err)
	}
	// P at 0 on APP/1 (0-2000), calls R at 2000: crosses to site2 (3000), the gateway takes it at
	// 3000, RA up: end 3100, reply 3100+3000+1000 = 7100 back at APP/1; P ends 7100.
	// P at 10000 (request 3: the child was 2), calls R at 12000: at the gateway 13000, RA down [5000,15000):
	// TPESVCERR at 13100, the failure back at 14100; P fails TPESVCFAIL at 14100.
	want := "id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason,parent\n" +
		"1,P,site1,0,APP/1,APP/1,0,0,7100,7100,first,\n" +
		"1.1,R,site1,2000,GWGRP/1,GWGRP/1,3000,3000,3100,7100,first,1\n" +
		"3,P,site1,10000,APP/1,APP/1,10000,10000,14100,14100,TPESVCFAIL,\n" +
		"3.1,R,site1,12000,GWGRP/1,GWGRP/1,13000,13000,,14100,TPESVCERR,3\n"
	if log.String() != want {
		t.Errorf("dispatch log:\n%s\nwant\n%s", log.String(), want)
	}
	if res.Requests.Failed["TPESVCERR"] != 1 || res.Requests.Failed["TPESVCFAIL"] != 1 {
		t.Errorf("failed: got %v", res.Requests.Failed)
	}
}

// TestExplainDomainDown: the explanation of a request no domain took says so.
func TestExplainDomainDown(t *testing.T) {
	exs, err := Explain(domainsScenario(t), RunOptions{}, 7, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := "TPESVCERR at 60.1 ms: when gateway GWGRP/2 took it at 60 ms, no remote domain it is imported from (RDOM=RA,RB,RC) was up"
	if len(exs) != 1 || exs[0].Failure != want {
		t.Errorf("got %+v, want failure %q", exs, want)
	}
}
