package core

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRepliesAheadChangeNothing: a client's outcome handed over when its
// reply is sent, ahead of the turn at which it reaches the client
// (clientReply), a reply due at once played in its completion's turn
// when it is the next event of all (replyAhead), and a request that ends
// as a plain one ended in steps itself (plainEnd), give the same result
// and the same dispatch log, byte for byte, as every reply played in a
// turn of its own and every request ended in endServed. On generated
// client applications whose deadlines fall among their response times
// (below), and on the differential tests' applications (nested calls,
// failures, workstation handlers, /Q, transactions and life cycles; in
// the last two every client's outcome keeps its turn). Both of
// clientReply's ways must show up: outcomes handed over ahead, and
// outcomes kept to their turn because the request's deadline passes
// before its reply arrives; and replies played in their completion's
// turn, and requests ended in steps.
func TestRepliesAheadChangeNothing(t *testing.T) {
	var ahead, kept, inTurn, plain int64
	check := func(name string, doc []byte) {
		sc, err := ParseScenario(doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var log1, log2 bytes.Buffer
		e, fast, err1 := runEngine(t, sc, simOptions{RunOptions: RunOptions{Dispatch: &log1}})
		_, turns, err2 := runEngine(t, sc, simOptions{RunOptions: RunOptions{Dispatch: &log2}, replyTurns: true})
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("%s: errors differ: ahead %v, in turn %v", name, err1, err2)
		}
		if fast != turns {
			t.Fatalf("%s: results differ:\nahead   %s\nin turn %s", name, fast, turns)
		}
		if !bytes.Equal(log1.Bytes(), log2.Bytes()) {
			t.Fatalf("%s: dispatch logs differ (%d and %d bytes)", name, log1.Len(), log2.Len())
		}
		if e != nil && e.app != nil {
			ahead += e.app.ahead[0]
			kept += e.app.ahead[1]
			inTurn += e.app.ahead[2]
			plain += e.app.ahead[3]
		}
	}
	for seed := uint64(1); seed <= 60; seed++ {
		check(fmt.Sprintf("client seed %d", seed), genClientsNearDeadline(seed))
	}
	for seed := uint64(1); seed <= 200; seed++ {
		check(fmt.Sprintf("application seed %d", seed), genAppScenarioWith(seed, seed%4 == 0))
	}
	t.Logf("%d outcomes handed over ahead, %d kept to their turn by a deadline, %d replies played in their completion's turn, %d requests ended in steps",
		ahead, kept, inTurn, plain)
	if ahead < 10_000 || kept < 10 || inTurn < 1000 || plain < 10_000 {
		t.Errorf("handed over ahead %d, kept by a deadline %d, replies in their completion's turn %d, requests ended in steps %d: "+
			"want at least 10 000, 10, 1 000 and 10 000", ahead, kept, inTurn, plain)
	}
}

// genClientsNearDeadline is an MP application of two or three machines
// whose clients' deadlines (SCANUNIT 1 ms x BLOCKTIME) fall among their
// response times: services of 1 to 6 ms on average, some calling another,
// replies crossing a network of 0.2 to 2 ms, clients on every machine,
// some retrying TPETIME or TPESVCERR (a server killed now and then fails
// its request), a warm-up at times.
func genClientsNearDeadline(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0xc11e47))
	nm := 2 + r.IntN(2)
	var u strings.Builder
	fmt.Fprintf(&u, "*RESOURCES\nIPCKEY 1\nMASTER s1\nMODEL MP\nLDBAL Y\nSCANUNIT 1MS\nBLOCKTIME %d\n\n*MACHINES\n", 4+r.IntN(12))
	for m := 1; m <= nm; m++ {
		fmt.Fprintf(&u, "n%d LMID=s%d\n", m, m)
	}
	u.WriteString("\n*GROUPS\n")
	for m := 1; m <= nm; m++ {
		fmt.Fprintf(&u, "G%d LMID=s%d GRPNO=%d\n", m, m, m)
	}
	u.WriteString("\n*SERVERS\n")
	for m := 1; m <= nm; m++ {
		fmt.Fprintf(&u, "srv SRVGRP=G%d SRVID=1 MIN=%d CLOPT=\"-s A,B,C --\"\n", m, 1+r.IntN(3))
	}
	u.WriteString("\n*SERVICES\nA LOAD=50\nB LOAD=50\nC LOAD=50\n")
	var svcs []string
	for _, s := range []string{"A", "B", "C"} {
		calls := ""
		if s == "A" && r.IntN(2) == 0 {
			calls = `, "calls": [{"service": "C"}]`
		}
		svcs = append(svcs, fmt.Sprintf(`%q: {"service_time": {"dist": "exp", "mean_ms": %d}%s}`, s, 1+r.IntN(6), calls))
	}
	var sets []string
	for m := 1; m <= nm; m++ {
		retry := ""
		if r.IntN(2) == 0 {
			retry = fmt.Sprintf(`, "retry": {"max": %d, "on": ["TPETIME", "TPESVCERR"], "backoff": {"dist": "const", "ms": 1}}`, 1+r.IntN(2))
		}
		sets = append(sets, fmt.Sprintf(`{"name": "c%d", "count": %d, "origin": "s%d", "think": {"dist": "exp", "mean_ms": %d},
			"services": [{"service": "A", "weight": 2}, {"service": "B", "weight": 1}]%s}`, m, 2+r.IntN(8), m, 5+r.IntN(30), retry))
	}
	events := ""
	if r.IntN(3) == 0 {
		events = `, "events": [{"at_ms": 700, "kill": "G1/1"}, {"at_ms": 900, "boot": "G1/1"}]`
	}
	return fmt.Appendf(nil, `{"ubbconfig": %q, "services": {%s}, "network": {"latency_ms": %g}, "warmup_ms": %d, "seed": %d%s,
		"workload": {"generate": {"duration_ms": 2000, "clients": [%s]}}}`,
		u.String(), strings.Join(svcs, ", "), 0.2+float64(r.IntN(10))*0.2, 300*r.IntN(2), seed, events, strings.Join(sets, ", "))
}
