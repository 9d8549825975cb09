package core

import (
	"testing"
)

// An aborted transaction's entry is free again once its last request has
// finished: a long run whose every transaction aborts holds as many
// entries as transactions are in flight at once, not one per abort.
func TestAbortedTransactionEntriesReused(t *testing.T) {
	ubbText := `*RESOURCES\nMODEL SHM\n*MACHINES\nn1 LMID=s1\n*GROUPS\nG1 LMID=s1 GRPNO=1 TMSNAME=TMS TMSCOUNT=2\n*SERVERS\n` +
		`app SRVGRP=G1 SRVID=1 MIN=2 CLOPT=\"-s PAY\"\n*SERVICES\nPAY AUTOTRAN=Y\nGONE\n`
	sc, err := ParseScenario([]byte(`{"ubbconfig": "` + ubbText + `",
	  "services": {"PAY": {"service_time": {"dist": "exp", "mean_ms": 2}, "calls": [{"service": "GONE"}]}},
	  "workload": {"generate": {"duration_ms": 20000, "streams": [{"service": "PAY", "arrivals": "poisson", "rate_per_s": 200}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := runEngine(t, sc, simOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := e.result()
	ts := res.Transactions
	if ts.Started < 3000 || ts.Aborted.Failed != ts.Started || ts.ParticipantsMean != 1 {
		t.Fatalf("want thousands of transactions, every one aborted (GONE has no server), one participant each: %+v", ts)
	}
	if n := len(e.tr.xs); n > 20 {
		t.Errorf("%d transaction entries for %d aborted transactions: their entries are not reused", n, ts.Started)
	}
}
