package core_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// TestExplainTransactions: explaining a run with transactions names the
// TPETRAN child's rule and winner-less failure, and passes over the TMS
// requests (which no rule chose) without failing.
func TestExplainTransactions(t *testing.T) {
	sc := readScenario(t, "../testdata/spec/197-tpetran-group-without-tmsname")
	ex, err := core.Explain(sc, core.RunOptions{}, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	for _, x := range ex {
		rules[x.ID] = x.Rule + " " + x.Winner
	}
	if rules["1"] != "idle G1/1" || rules["1.1"] != "TPETRAN " || rules["4"] != "least-load G2/2" {
		t.Errorf("explanations: %v, want 1 idle on G1/1, 1.1 TPETRAN without a winner, 4 least-load on G2/2", rules)
	}
	if _, ok := rules["1!abort@G1"]; ok {
		t.Errorf("the TMS request was explained as a choice: %v", rules)
	}
}

// TestExplainEveryTransactionCase: every hand-worked transaction case can
// be explained whole (TMS requests, TPETIME owners, aborts, hand-overs).
func TestExplainEveryTransactionCase(t *testing.T) {
	for _, dir := range []string{"193-one-phase-commit", "194-two-phase-two-machines", "195-trantime-timeout-while-waiting",
		"196-tpforward-hands-over-commit", "198-noreply-child-not-in-transaction", "199-client-tpetime-row-retries",
		"200-forward-tpetran-client-retries", "201-failed-abort-later-step"} {
		sc := readScenario(t, "../testdata/spec/"+dir)
		ex, err := core.Explain(sc, core.RunOptions{}, 1, 20)
		if err != nil || len(ex) == 0 {
			t.Errorf("%s: %d explanations, %v", dir, len(ex), err)
		}
		for _, x := range ex {
			if x.Text == "" {
				t.Errorf("%s: request %s explained without a text", dir, x.ID)
			}
		}
	}
}

// TestTMSRequestInAFullQueue: a TMS request has no deadline, so in a bounded
// TMS queue its sender tries until the queue has room, past SCANUNIT x
// BLOCKTIME, rather than failing TPEBLOCK there. Four owners commit at 10 ms
// into G1/TMS (two servers, tms_time 50 ms, room for one waiting): two start,
// one waits, the fourth tries every 5 ms; at 60 ms both commits end, the
// waiting one starts on G1/30001 and the fourth enters and starts on
// G1/30002, ending at 110 ms with its owner.
func TestTMSRequestInAFullQueue(t *testing.T) {
	sc, err := core.ParseScenario([]byte(`{
  "ubbconfig": "*RESOURCES\nMODEL SHM\nLDBAL N\nSCANUNIT 10MS\nBLOCKTIME 1\n*MACHINES\nn1 LMID=site1\n*GROUPS\nG1 LMID=site1 GRPNO=1 TMSNAME=TMS TMSCOUNT=2\n*SERVERS\napp SRVGRP=G1 SRVID=1 MIN=4 RQADDR=QA CLOPT=\"-s A\"\n*SERVICES\nA AUTOTRAN=Y\n",
  "services": {"A": {"service_time": {"dist": "const", "ms": 10}}},
  "transactions": {"tms_time": {"dist": "const", "ms": 50}},
  "tuning": {"queue_capacity": 1, "enqueue_retry_ms": 5},
  "workload": {"trace_csv": "time_ms,service\n0,A\n0,A\n0,A\n0,A\n"}
}`))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res, err := core.Run(sc, core.RunOptions{Dispatch: &buf})
	if err != nil {
		t.Fatal(err)
	}
	want := "4!commit@G1,TMS,site1,10000,G1/30002,G1/TMS,60000,60000,110000,110000,tms,4"
	if !strings.Contains(buf.String(), want+"\n") || !strings.Contains(buf.String(), "\n4,A,site1,0,G1/4,QA,0,0,110000,110000,first,\n") {
		t.Errorf("dispatch log:\n%s\nwant the row %s and owner 4 ending at 110000", buf.String(), want)
	}
	if n := res.Requests.Failed["TPEBLOCK"]; n != 0 || res.Transactions.Committed != 4 {
		t.Errorf("TPEBLOCK %d, committed %d: want 0 and 4", n, res.Transactions.Committed)
	}
}

// TestCommitLostWithAMachine: site2 is lost at 23 ms, while the prepare to
// G2's TMS queue is crossing there (case 194's scenario): it is lost (no
// end, no reply), no commit is issued, and the owner's commit never
// completes; at the end of the run its row is written like a lost
// request's (TPESVCERR, no end_us, no reply_us), and the transaction is
// neither committed nor aborted.
func TestCommitLostWithAMachine(t *testing.T) {
	sc := readScenario(t, "../testdata/spec/194-two-phase-two-machines")
	at := 23.0
	sc.Events = []scenario.Event{{AtMS: &at, Lose: "site2"}}
	var buf bytes.Buffer
	res, err := core.Run(sc, core.RunOptions{Dispatch: &buf})
	if err != nil {
		t.Fatal(err)
	}
	want := "id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason,parent\n" +
		"1,P,site1,0,G1/1,G1/1,0,0,,,TPESVCERR,\n" +
		"1.1,C,site1,10000,G2/1,G2/1,11000,11000,21000,22000,first,1\n" +
		"1!prepare@G1,TMS_A,site1,22000,G1/30001,G1/TMS,22000,22000,23000,23000,tms,1\n" +
		"1!prepare@G2,TMS_B,site1,22000,,G2/TMS,23000,,,,TPESVCERR,1\n"
	if buf.String() != want {
		t.Errorf("dispatch log:\n%s\nwant\n%s", buf.String(), want)
	}
	if tr := res.Transactions; tr.Started != 1 || tr.Committed != 0 || tr.Aborted.Timeout+tr.Aborted.Failed != 0 || res.Requests.Failed["TPESVCERR"] != 2 {
		t.Errorf("transactions %+v, failed %v: want 1 started, none committed or aborted, 2 TPESVCERR", *tr, res.Requests.Failed)
	}
}
