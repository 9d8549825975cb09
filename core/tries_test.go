package core

import (
	"strings"
	"testing"
)

// TestTriesOfFullQueuesAreBounded: three requests of a 1000 s service at
// one single-server queue of capacity 1 (the second waits, the third is
// blocked). Tried every 1 ms under BLOCKTIME 60 s, the third would try
// 60 000 times: past a bound of 1 000 tries (100 a request issued, here
// 300) the run stops with an error naming tuning.enqueue_retry_ms. Tried
// every 1 s, it tries 60 times and fails with TPEBLOCK.
func TestTriesOfFullQueuesAreBounded(t *testing.T) {
	defer func(v int64) { maxTries = v }(maxTries)
	maxTries = 1000
	doc := func(retryMS string) string {
		return `{"ubbconfig": "*RESOURCES\nMODEL SHM\nMASTER A\n*MACHINES\nm LMID=A\n*GROUPS\nG LMID=A GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 CLOPT=\"-s S\"\n",
			"services": {"S": {"service_time": {"dist": "const", "ms": 1000000}}},
			"tuning": {"queue_capacity": 1, "enqueue_retry_ms": ` + retryMS + `},
			"workload": {"trace_csv": "time_ms,service\n0,S\n0,S\n0,S\n"}}`
	}
	sc, err := ParseScenario([]byte(doc("1")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(sc, RunOptions{})
	want := "tuning.enqueue_retry_ms: more than 1000 tries of full queues, every 1 ms (request 3 the last)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("retry every 1 ms: error %v, want one containing %q", err, want)
	}
	if sc, err = ParseScenario([]byte(doc("1000"))); err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, RunOptions{})
	if err != nil {
		t.Fatalf("retry every 1 s: %v", err)
	}
	if res.Requests.Failed["TPEBLOCK"] != 1 {
		t.Errorf("retry every 1 s: failed %v, want one TPEBLOCK", res.Requests.Failed)
	}
}
