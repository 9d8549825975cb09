package core

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/scenario"
)

// transientScenario is one server of SVC (4 ms, constant) and a trace: 100
// requests at time 0, then one every 10 ms from 1000 ms, 400 of them.
//
// By hand: request k of the burst (0-based) waits for the k before it and
// replies at 4(k+1) ms, so its response is 4(k+1) ms; the burst is served by
// 400 ms, and every later request finds the server idle: 4 ms. In batches of
// 5 (MSER-5), batch j < 20 has mean 4(5j+3) ms and batches 20..99 are all
// 4 ms. MSER(d) = Σ_{j≥d} (z_j − z̄_d)² / (100 − d)² is 0 for d ≥ 20 (no
// spread left) and > 0 below, and d may go up to 50: the first minimum is
// d = 20. The warm-up is the issue time of request 5 × 20 = 100 (0-based),
// the first of the later ones: 1000 ms. What is left is 400 requests, all
// at 4 ms.
func transientScenario(t *testing.T, warmup string) *scenario.Scenario {
	t.Helper()
	var rows []string
	for k := 0; k < 100; k++ {
		rows = append(rows, `{"time_ms": 0, "service": "SVC"}`)
	}
	for k := 0; k < 400; k++ {
		rows = append(rows, fmt.Sprintf(`{"time_ms": %d, "service": "SVC"}`, 1000+10*k))
	}
	doc := `{
  "name": "transient",
  "ubbconfig": "*RESOURCES\nIPCKEY 1\nMASTER SITE1\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=SITE1\n*GROUPS\nG LMID=SITE1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 CLOPT=\"-s SVC\"\n*SERVICES\nSVC LOAD=50\n",
  "services": {"SVC": {"service_time": {"dist": "const", "ms": 4}}},
  "warmup_ms": ` + warmup + `,
  "workload": {"trace": [` + strings.Join(rows, ",") + `]}
}`
	sc, err := ParseScenario([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestWarmupAuto(t *testing.T) {
	res, err := Run(transientScenario(t, `"auto"`), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.WarmupDetected || res.WarmupMS != 1000 {
		t.Fatalf("warm-up %v ms, detected %v; want 1000, true", res.WarmupMS, res.WarmupDetected)
	}
	if res.Requests.Completed != 400 || res.ResponseMS.Mean != 4 || res.ResponseMS.Max != 4 {
		t.Errorf("after the warm-up: %d completed, response mean %v max %v; want 400 at 4 ms",
			res.Requests.Completed, res.ResponseMS.Mean, res.ResponseMS.Max)
	}
	found := false
	for _, w := range res.Warnings {
		found = found || strings.Contains(w, "MSER-5") && strings.Contains(w, "1000 ms")
	}
	if !found {
		t.Errorf("no note of the detected warm-up in %q", res.Warnings)
	}
	// The same as giving the warm-up found by hand, but for the flag and the note.
	fixed, err := Run(transientScenario(t, "1000"), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fixed.WarmupDetected || fixed.Requests.Completed != res.Requests.Completed || fixed.ResponseMS != res.ResponseMS {
		t.Errorf("warmup_ms 1000 differs from auto: %+v vs %+v", fixed.ResponseMS, res.ResponseMS)
	}
	// It round-trips as "auto" and refuses other words.
	sc := transientScenario(t, `"auto"`)
	b, _ := json.Marshal(sc.WarmupMS)
	if string(b) != `"auto"` {
		t.Errorf("marshals as %s", b)
	}
	for _, bad := range []string{`"soon"`, `-1`, `true`} {
		doc := `{"ubbconfig": "*RESOURCES\nIPCKEY 1\nMASTER S\n*MACHINES\nh LMID=S\n", "warmup_ms": ` + bad + `}`
		sc, err := ParseScenario([]byte(doc))
		if err == nil {
			err = Check(sc)
		}
		if err == nil || !strings.Contains(err.Error(), "warmup_ms") {
			t.Errorf("warmup_ms %s: %v", bad, err)
		}
	}
}
