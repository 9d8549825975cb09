package core

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
)

// wsDoc is one machine with a WSL and two servers of A; workstation
// clients with an exponential think and handling time.
const wsDoc = `{
  "ubbconfig": "*RESOURCES\nMODEL SHM\nLDBAL Y\n*MACHINES\nn1 LMID=s1 MAXWSCLIENTS=20\n*GROUPS\nG1 LMID=s1 GRPNO=1\nWS LMID=s1 GRPNO=2\n*SERVERS\na SRVGRP=G1 SRVID=1 MIN=2 CLOPT=\"-s A\"\nWSL SRVGRP=WS SRVID=1 CLOPT=\"-A -- -n //h:1 -m 1 -x 4\"\n*SERVICES\nA\n",
  "services": {"A": {"service_time": {"dist": "exp", "mean_ms": 3}}},
  "workstation": {"handling_time": {"dist": "exp", "mean_ms": 0.5}},
  "workload": {"generate": {"duration_ms": 2000, "clients": [
    {"name": "ws", "count": 10, "via": "WS/1", "think": {"dist": "exp", "mean_ms": 20}, "services": [{"service": "A"}]}]}}
}`

// The handling draws come from streams seeded by each request's key: the
// time a client's request spends on its way in (enqueue_us - issue_us: one
// machine, no crossing) is the same under every policy, although the
// servers, waits, replies and so the send times differ.
func TestWorkstationDrawsDoNotDependOnThePolicy(t *testing.T) {
	inbound := func(policy string) (map[string][2]int64, string) {
		sc, err := ParseScenario([]byte(wsDoc))
		if err != nil {
			t.Fatal(err)
		}
		sc.Policy = policy
		var buf bytes.Buffer
		res, err := Run(sc, RunOptions{Dispatch: &buf})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Workstation) != 1 || res.Workstation[0].Handlers != 3 || *res.Clients[0].NotConnected != 0 {
			t.Fatalf("%s: workstation %+v: want 3 handlers (4, 4, 2 clients), all connected", policy, res.Workstation)
		}
		rows, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][2]int64{}
		servers := ""
		positive := 0
		for _, row := range rows[1:] {
			issue, _ := strconv.ParseInt(row[3], 10, 64)
			enq, _ := strconv.ParseInt(row[6], 10, 64)
			out[row[0]] = [2]int64{issue, enq - issue}
			servers += row[4]
			if enq > issue {
				positive++
			}
		}
		if positive < len(rows)/2 {
			t.Fatalf("%s: %d of %d requests chosen after their send: want most (exp handling time)", policy, positive, len(rows)-1)
		}
		return out, servers
	}
	a, sa := inbound("tuxedo")
	b, sb := inbound("round_robin")
	if sa == sb {
		t.Fatalf("the policies chose the same servers: the test shows nothing")
	}
	if len(a) < 100 {
		t.Fatalf("%d requests: want a busy run", len(a))
	}
	for id, x := range a {
		if y, ok := b[id]; ok && x[1] != y[1] {
			t.Errorf("%s: inbound handling %d µs under tuxedo, %d under round_robin", id, x[1], y[1])
		}
	}
}

// An explanation of a request whose choice its workstation handler
// deferred says when its client sent it and when it was chosen.
func TestWorkstationExplained(t *testing.T) {
	sc, err := ParseScenario([]byte(wsDoc))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := Run(sc, RunOptions{Dispatch: &buf}); err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(&buf).ReadAll()
	row := rows[1]
	ex, err := Explain(sc, RunOptions{}, 1, 1)
	if err != nil || len(ex) != 1 {
		t.Fatalf("%v, %v", ex, err)
	}
	issue, _ := strconv.ParseInt(row[3], 10, 64)
	enq, _ := strconv.ParseInt(row[6], 10, 64)
	want := "Its client sent it at " + strconv.FormatFloat(float64(issue)/1000, 'f', -1, 64) + " ms through a workstation handler, which passed it on (this choice) at " +
		strconv.FormatFloat(float64(enq)/1000, 'f', -1, 64) + " ms"
	if enq == issue || !strings.Contains(ex[0].Text, want) {
		t.Errorf("row %v: explanation %q, want %q", row, ex[0].Text, want)
	}
}
