package core

// Transactions in the reference simulator (oracle_sim_test.go), read from
// the rules of docs/engine.md ("Transactions") alone: a request that starts
// outside a transaction with AUTOTRAN=Y for its instance's group (the group
// having TMSNAME) starts X and owns it; children in X join their group as a
// participant, or fail TPETRAN in a group without TMSNAME; the owner's
// commit (one prepare and one commit per participant, or one commit for a
// single one) holds its instance; TRANTIME and a failing owner abort X.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readTransactions models the TMS servers when some *SERVICES entry has
// AUTOTRAN=Y, and reads transactions.tms_time (const only; default 1 ms).
func (o *oracle) readTransactions() error {
	if !o.m.Transactions() {
		return nil
	}
	o.tranOn = true
	o.m = o.m.WithTMS()
	o.tmsQueue, o.tmsName = map[string]int{}, map[string]string{}
	for _, t := range o.m.TMS {
		o.tmsName[t.Group] = t.Name
	}
	for q := range o.m.Queues {
		if s := &o.m.Servers[o.m.Queues[q].Servers[0]]; s.TMS {
			o.tmsQueue[s.Group] = q
		}
	}
	o.tmsUS = 1000
	if tr := o.sc.Transactions; tr != nil && tr.TMSTime != nil {
		d := tr.TMSTime
		if d.Dist != "const" || d.MS == nil {
			return fmt.Errorf("oracle: transactions.tms_time: only const")
		}
		o.tmsUS = oRoundUS(*d.MS)
	}
	return nil
}

// loadOf is the LOAD a request carries in queue q (a TMS request's: 50).
func (o *oracle) loadOf(r *oReq, q int) int64 {
	if r.tmsFor != nil {
		return 50
	}
	return int64(o.params(r.svc, q).Load)
}

// finish: r's work and steps are done at t. X's owner commits (or, after
// X timed out, ends with TPETIME); anything else ends with its reply.
func (o *oracle) finish(r *oReq, t int64) {
	x := r.tran
	if x == nil || !x.ownedBy(r) {
		o.succeed(r, t)
		return
	}
	if x.aborted {
		o.hits["owner ends after abort"]++
		o.failAborted(r, t)
		return
	}
	x.committing, x.commitStart = true, t
	if o.m.Servers[r.srv].Gateway {
		o.hits["gateway owner commits"]++
	}
	if len(o.insts[r.srv].th) > 1 {
		o.hits["commit on a multithreaded server"]++
	}
	if o.m.Servers[r.srv].Machine != x.coord {
		o.hits["owner away from the coordinator"]++
	}
	if len(x.parts) == 1 {
		x.phase = 2
		o.hits["one-phase"]++
		o.issueTMSAll(x, "commit", t)
		return
	}
	x.phase = 1
	o.hits["two-phase"]++
	o.issueTMSAll(x, "prepare", t)
}

// failAborted fails r of an aborted X at a step (or, the owner, at its
// end): TPETIME for the owner after a timeout, else TPESVCFAIL.
func (o *oracle) failAborted(r *oReq, t int64) {
	if x := r.tran; x.ownedBy(r) && x.timeout {
		o.endTPETIME(r, t)
		return
	}
	o.failParent(r, t)
}

// endTPETIME ends X's owner r at t with TPETIME (X timed out): its caller
// gets TPETIME when it would have had the reply.
func (o *oracle) endTPETIME(r *oReq, t int64) {
	o.hits["owner TPETIME"]++
	o.release(r, t)
	r.failed, r.reason = true, "TPETIME"
	// a gateway's (remoteUS > 0) comes after the remote domain's time, as
	// any gateway reply does; through a workstation handler, one draw more
	r.reply = t + r.remoteUS + o.back(r) + o.wsOut(r)
	if r.unanswered {
		r.reply, r.lastT = -1, t
	}
	o.outcome(r, "TPETIME")
}

// ownerFailed aborts X when r, its owner, ends with a failure before the
// commit began.
func (o *oracle) ownerFailed(r *oReq, t int64) {
	if x := r.tran; x != nil && x.ownedBy(r) && !x.aborted && !x.committing {
		o.hits["owner failed"]++
		o.abortTran(x, false, t)
	}
}

// abortTran aborts X at t: an abort request to each participant's TMS
// queue; after a timeout, every request of X holding its instance while it
// waits for replies (in issue order) stops waiting and ends.
func (o *oracle) abortTran(x *oTran, timeout bool, t int64) {
	x.aborted, x.timeout = true, timeout
	o.issueTMSAll(x, "abort", t)
	if !timeout {
		return
	}
	if x.fwd != nil && x.fwd.lostMsg {
		o.hits["timeout of a lost forwarder's transaction"]++
	} else if x.fwd != nil { // the forwarder gets TPETIME at once, before the rest of X
		o.fwdTimeout(x, t)
	}
	var waiting []*oReq
	for _, r := range o.reqs {
		if ok, down := o.holding(r); r.tran == x && ok && !down {
			waiting = append(waiting, r)
		}
	}
	for _, r := range waiting {
		for _, c := range r.outst { // their replies are discarded
			c.dlDone = true
		}
		r.outst = nil
		o.hits["waiting ends at timeout"]++
		o.failAborted(r, t)
	}
}

// issueTMSAll issues one TMS request of kind to each participant of X, in
// participant order.
func (o *oracle) issueTMSAll(x *oTran, kind string, t int64) {
	for _, g := range x.parts {
		o.issueTMS(x, kind, g, t)
	}
	if kind != "abort" {
		x.outst = len(x.parts)
	}
}

// issueTMS issues X's TMS request of kind to group g's TMS queue at t: no
// choice, from the coordinator's machine, named OWNER!kind@GROUP.
func (o *oracle) issueTMS(x *oTran, kind, g string, t int64) {
	r := o.newReq(o.tmsName[g], x.coord, t)
	r.id = x.owner.id + "!" + kind + "@" + g
	r.parent, r.tmsFor, r.tmsKind = x.owner, x, kind
	r.svcUS, r.reason = o.tmsUS, "tms"
	r.unanswered = kind == "abort" // nobody waits for an abort
	o.reqs = append(o.reqs, r)
	r.n = len(o.reqs)
	r.q = o.tmsQueue[g]
	if o.m.Queues[r.q].Machine != r.origin {
		o.hits["TMS crossing"]++
		if o.latUS > 0 {
			r.arriveAt = t + o.latUS
			return
		}
	}
	o.enqueue(r, t)
}

// tmsReply: the reply of w, a prepare or commit, reaches the coordinator at
// t. The last prepare's issues the commits; the last commit's ends the
// owner with its reply. A reply reaching an owner no longer held (its
// instance crashed) is lost, as is one reaching a down instance.
func (o *oracle) tmsReply(w *oReq, t int64) {
	x := w.tmsFor
	ok, down := o.holding(x.owner)
	if x.fwd != nil { // the forwarder waits, holding the message of X
		ok, down = x.fwd.x == x && x.fwd.msg != nil, o.insts[x.fwd.inst].state == "down" || x.fwd.lostMsg
	}
	if !ok || down {
		o.hits["TMS reply lost"]++
		return
	}
	x.outst--
	if x.outst > 0 {
		return
	}
	if x.phase == 1 {
		x.phase = 2
		o.issueTMSAll(x, "commit", t)
		return
	}
	x.committed, x.commitEnd = true, t
	if x.fwd != nil {
		o.fwdDone(x.fwd, t)
		return
	}
	o.succeed(x.owner, t)
}

// oTranFigures are the result's transactions block as the oracle counts it.
type oTranFigures struct {
	Started, Committed, OnePhase, TwoPhase int64
	Timeout, Failed                        int64
	Participants                           []int64 // of each transaction started
	CommitUS                               []int64 // of each committed one
}

func (o *oracle) tranFigures() oTranFigures {
	var f oTranFigures
	for _, x := range o.trans {
		f.Started++
		f.Participants = append(f.Participants, int64(len(x.parts)))
		switch {
		case x.committed:
			f.Committed++
			if len(x.parts) == 1 {
				f.OnePhase++
			} else {
				f.TwoPhase++
			}
			f.CommitUS = append(f.CommitUS, x.commitEnd-x.commitStart)
		case x.aborted && x.timeout:
			f.Timeout++
		case x.aborted:
			f.Failed++
		}
	}
	slices.Sort(f.CommitUS)
	return f
}

// TestOracleTransactionCases plays the hand-worked transaction cases of
// testdata/spec (those with AUTOTRAN=Y) through the reference simulator:
// its dispatch log must be the one worked out by hand, and its transaction,
// request and client counts those of expect.json, so that the reference
// and the hand derivations check each other as the engine is checked
// against both.
func TestOracleTransactionCases(t *testing.T) {
	all, err := filepath.Glob("../testdata/spec/[0-9]*")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string // the cases with transactions
	for _, dir := range all {
		// (the /Q cases are the /Q reference's: oracle_q_test.go; a case
		// without a dispatch log is an input error, nothing to play)
		if _, err := os.Stat(filepath.Join(dir, "dispatch.csv")); err != nil {
			continue
		}
		if sc, err := os.ReadFile(filepath.Join(dir, "scenario.json")); err == nil && strings.Contains(string(sc), "AUTOTRAN=Y") && !strings.Contains(string(sc), `"qspaces"`) {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) < 9 {
		t.Fatalf("%d cases with transactions, want at least 9", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			doc := oracleTrace(t, dir)
			o, err := newAppOracle(doc)
			if err != nil {
				t.Fatal(err)
			}
			got := o.run()
			want, err := os.ReadFile(filepath.Join(dir, "dispatch.csv"))
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("dispatch log:\n got\n%s want\n%s", got, want)
			}
			var exp struct {
				Requests struct {
					Issued    int64            `json:"issued"`
					Completed int64            `json:"completed"`
					Failed    map[string]int64 `json:"failed"`
				} `json:"requests"`
				Clients map[string]struct {
					Requests, Completed int64
					Failed              map[string]int64
					TimedOut            int64 `json:"timed_out"`
					Retried             int64
				} `json:"clients"`
				Transactions struct {
					Started, Committed *int64
					OnePhase           *int64 `json:"one_phase"`
					TwoPhase           *int64 `json:"two_phase"`
					Aborted            struct{ Timeout, Failed int64 }
					PartMean           *float64 `json:"participants_mean"`
					CommitMS           struct {
						Count *int64
						Mean  *float64
						Max   *float64
					} `json:"commit_ms"`
				} `json:"transactions"`
			}
			raw, err := os.ReadFile(filepath.Join(dir, "expect.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &exp); err != nil {
				t.Fatal(err)
			}
			issued, done, failed, _ := o.counts()
			if exp.Requests.Failed == nil {
				exp.Requests.Failed = map[string]int64{}
			}
			if g, w := fmt.Sprint(issued, done, failed), fmt.Sprint(exp.Requests.Issued, exp.Requests.Completed, exp.Requests.Failed); g != w {
				t.Errorf("issued/completed/failed: oracle %s, expect.json %s", g, w)
			}
			for _, cs := range o.sets {
				w, ok := exp.Clients[cs.name]
				if !ok {
					continue
				}
				if w.Failed == nil {
					w.Failed = map[string]int64{}
				}
				g := fmt.Sprint(cs.requests, cs.completed, cs.failed, cs.timedOut, cs.retried)
				if ws := fmt.Sprint(w.Requests, w.Completed, w.Failed, w.TimedOut, w.Retried); g != ws {
					t.Errorf("client set %s requests/completed/failed/timed out/retried: oracle %s, expect.json %s", cs.name, g, ws)
				}
			}
			f := o.tranFigures()
			et := exp.Transactions
			check := func(name string, want *int64, got int64) {
				if want != nil && *want != got {
					t.Errorf("transactions.%s: oracle %d, expect.json %d", name, got, *want)
				}
			}
			check("started", et.Started, f.Started)
			check("committed", et.Committed, f.Committed)
			check("one_phase", et.OnePhase, f.OnePhase)
			check("two_phase", et.TwoPhase, f.TwoPhase)
			check("aborted.timeout", &et.Aborted.Timeout, f.Timeout)
			check("aborted.failed", &et.Aborted.Failed, f.Failed)
			check("commit_ms.count", et.CommitMS.Count, int64(len(f.CommitUS)))
			var sum, parts int64
			for _, v := range f.CommitUS {
				sum += v
			}
			for _, p := range f.Participants {
				parts += p
			}
			if w := et.PartMean; w != nil && float64(parts)/float64(len(f.Participants)) != *w {
				t.Errorf("participants_mean: oracle %d/%d, expect.json %v", parts, len(f.Participants), *w)
			}
			if w := et.CommitMS.Mean; w != nil && float64(sum)/float64(len(f.CommitUS))/1000 != *w {
				t.Errorf("commit_ms.mean: oracle %d µs over %d, expect.json %v", sum, len(f.CommitUS), *w)
			}
			if w := et.CommitMS.Max; w != nil && float64(f.CommitUS[len(f.CommitUS)-1])/1000 != *w {
				t.Errorf("commit_ms.max: oracle %v, expect.json %v", f.CommitUS, *w)
			}
		})
	}
}

// oracleTrace reads a case's scenario and writes its trace in the form the
// reference reads (every row with its origin and service_ms: the row's own,
// else the service's const time; its prio and route kept), the rest of the
// document as it is.
func oracleTrace(t *testing.T, dir string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	services := doc["services"].(map[string]any)
	wl := doc["workload"].(map[string]any)
	csv, ok := wl["trace_csv"].(string)
	if !ok {
		return raw
	}
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	head := strings.Split(lines[0], ",")
	var b strings.Builder
	b.WriteString("time_ms,service,origin,service_ms,prio,route\n")
	for _, line := range lines[1:] {
		row := map[string]string{"origin": "site1"}
		for k, v := range strings.Split(line, ",") {
			if v != "" {
				row[head[k]] = v
			}
		}
		// (a gateway's imported service has no service time: the remote
		// domain's applies, whatever the row's service_ms)
		ms := "0"
		if v, ok := row["service_ms"]; ok { // the row's own time first
			ms = v
		} else if spec, ok := services[row["service"]].(map[string]any); ok {
			ms = fmt.Sprint(spec["service_time"].(map[string]any)["ms"])
		}
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s\n", row["time_ms"], row["service"], row["origin"], ms, row["prio"], row["route"])
	}
	wl["trace_csv"] = b.String()
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOracleTransactionsRandom plays random application scenarios with
// transactions (whatever the generator's switch says) through the
// reference: each must be a valid scenario the engine accepts, the
// reference run must end, every
// transaction must end committed or aborted (or with its owner lost during
// the commit), each commit must have its TMS rows, and over the seeds every
// kind of transaction event must occur.
func TestOracleTransactionsRandom(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	hits := map[string]int{}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		doc := genAppScenarioWith(seed, true)
		sc, err := ParseScenario(engineDoc(t, doc))
		if err != nil {
			t.Fatalf("seed %d: engine: %v", seed, err)
		}
		if _, err := Run(sc, RunOptions{}); err != nil {
			t.Fatalf("seed %d: engine: %v", seed, err)
		}
		o, err := newAppOracle(doc)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		o.run()
		if o.stuck {
			t.Fatalf("seed %d: the reference run did not end", seed)
		}
		rows := map[string]int{}
		for _, r := range o.reqs {
			if r.tmsFor != nil {
				rows[r.tmsKind+" "+fmt.Sprintf("%p", r.tmsFor)]++
				if r.parent == nil || !strings.HasPrefix(r.id, r.parent.id+"!"+r.tmsKind+"@") {
					t.Errorf("seed %d: TMS request %s, parent %v", seed, r.id, r.parent)
				}
			}
		}
		for _, x := range o.trans {
			key := fmt.Sprintf("%p", x)
			switch {
			case x.committed && x.aborted:
				t.Errorf("seed %d: transaction of %s both committed and aborted", seed, x.owner.id)
			case x.committed && len(x.parts) == 1:
				if rows["commit "+key] != 1 || rows["prepare "+key] != 0 {
					t.Errorf("seed %d: one-phase commit of %s: rows %v", seed, x.owner.id, rows)
				}
			case x.committed:
				if rows["commit "+key] != len(x.parts) || rows["prepare "+key] != len(x.parts) {
					t.Errorf("seed %d: two-phase commit of %s: rows %v", seed, x.owner.id, rows)
				}
			case x.aborted:
				if rows["abort "+key] != len(x.parts) || x.committing {
					t.Errorf("seed %d: abort of %s: rows %v", seed, x.owner.id, rows)
				}
			case x.committing && x.owner.failed && x.owner.reason == "TPESVCERR":
				hits["owner lost during commit"]++
			case x.fwd != nil && x.committing:
				hits["forwarder lost during commit"]++
			case x.fwd == nil && x.owner.failed && x.owner.reason == "TPESVCERR" && x.owner.end < 0:
				hits["owner lost with its machine, X left open"]++ // it never ends: no abort
			case x.fwd != nil && x.fwd.lostMsg:
				hits["forwarder lost with its machine, X left open"]++
			case !x.owner.done:
				hits["run ended with X open"]++
			default:
				t.Errorf("seed %d: transaction of %s neither committed nor aborted", seed, x.owner.id)
			}
		}
		for k, v := range o.hits {
			hits[k] += v
		}
	}
	t.Logf("coverage over %d scenarios: %v", n, hits)
	if testing.Short() {
		return // (the rarer paths need the full count: 60 seeds miss a timeout's end of waiting)
	}
	for _, k := range []string{"transaction", "one-phase", "two-phase", "TPETRAN", "transaction timeout",
		"owner failed", "owner forwarded", "owner TPETIME", "waiting ends at timeout", "TMS crossing", "step after abort",
		"gateway AUTOTRAN starts none", "gateway joins X"} {
		if hits[k] == 0 {
			t.Errorf("no scenario exercised %q", k)
		}
	}
}

// engineDoc is doc as the engine reads it: with the generator's switch off
// (an engine without transactions), client retries cannot list TPETRAN, so
// the code is taken out of retry.on.
func engineDoc(t *testing.T, doc []byte) []byte {
	if oracleTransactions {
		return doc
	}
	var d map[string]any
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	g, _ := d["workload"].(map[string]any)["generate"].(map[string]any)
	for _, c := range g["clients"].([]any) {
		r, ok := c.(map[string]any)["retry"].(map[string]any)
		if !ok || r["on"] == nil {
			continue
		}
		var on []any
		for _, code := range r["on"].([]any) {
			if code != "TPETRAN" {
				on = append(on, code)
			}
		}
		r["on"] = on
	}
	out, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
