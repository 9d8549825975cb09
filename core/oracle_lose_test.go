package core

// Lost machines in the reference simulator (oracle_sim_test.go), from the
// rules of docs/engine.md, "A lost machine": a `lose` event stops the
// machine and its BBL at once, its instances are gone without notice and
// what waited or ran there never replies; the other machines keep choosing
// its instances until the DBBL notices at the first k·SCANUNIT·BBLQUERY at
// or after the loss; `restore` boots its MIN instances.

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/scenario"
)

// loseMachine is a `lose` event for machine m at t.
func (o *oracle) loseMachine(m int, t int64) {
	if o.mLost[m] {
		return
	}
	o.hits["lose"]++
	o.mLost[m] = true
	k := max(1, (t+o.bblqUS-1)/o.bblqUS)
	o.mNoticeAt[m] = k * o.bblqUS
	for i := range o.insts {
		if o.m.Servers[i].Machine != m {
			continue
		}
		in := &o.insts[i]
		if in.state == "gone" {
			continue
		}
		listed := o.candidateState(i)
		working := in.state == "up" || in.state == "stopping"
		for k := range in.th {
			b := in.th[k].busy
			if b == nil {
				continue
			}
			if working { // (a down instance's time was counted at its crash)
				o.busyUS[i] += t - b.start
				o.thrBusy[i][k] += t - b.start
				if b.ownEnd >= 0 {
					o.heldUS[i] += t - b.ownEnd
					o.thrHeld[i][k] += t - b.ownEnd
					o.hits["lost while holding"]++
				}
				o.hits["lost in service"]++
			} else {
				o.hits["lost held by a down instance"]++
			}
			in.th[k].busy, in.th[k].endAt = nil, -1
			o.lostReq(b)
		}
		if f := o.fwdOf[i]; f != nil { // as if killed, but no BBL notices it
			o.hits["forwarder lost"]++
			f.due, f.wakeAt = false, -1
			if f.x != nil && f.x.committing && f.msg != nil { // its commit had begun: it loses nothing
				o.hits["lost forwarder in its commit"]++
				o.fwdNotice(f, t)
			}
			f.lostMsg = f.msg != nil
		}
		in.comeUpAt, in.noticeAt = -1, -1
		o.change(t, i, "gone", "lose")
		in.lostListed = listed
	}
	// Its clients stop: what they wait for reaches nobody, a retry due is
	// given up; at the restore they start again with their next request.
	for _, cs := range o.sets {
		if cs.origin != m {
			continue
		}
		for _, cl := range cs.clients {
			if cl.off {
				continue
			}
			if w := cl.wait; w != nil {
				w.dlDone = true
				cl.wait = nil
				cl.n, cl.k = cl.n+1, 0
				cl.pos = (cl.pos + 1) % len(cs.script)
				o.hits["client lost while waiting"]++
			} else if cl.k > 0 { // its retry is given up too
				cl.n, cl.k = cl.n+1, 0
				cl.pos = (cl.pos + 1) % len(cs.script)
				o.hits["client lost before its retry"]++
			}
			cl.nextAt = -1
			o.hits["client lost"]++
		}
	}
	for q := range o.m.Queues {
		if o.m.Queues[q].Machine != m || len(o.waiting[q]) == 0 {
			continue
		}
		o.accrue(q, t)
		for _, r := range o.waiting[q] {
			o.lostReq(r)
			o.hits["lost waiting"]++
		}
		o.waiting[q] = nil
	}
}

// lostReq is r lost with its machine: TPESVCERR, no end, no reply;
// whoever waits for it sees TPETIME at its deadline. The loss is no
// request event of the span (neither an issue nor a reply).
func (o *oracle) lostReq(r *oReq) {
	r.failed, r.done, r.reason, r.end, r.reply = true, true, "TPESVCERR", -1, -1
}

// commitsNeverDone: at the end of the run, an owner whose commit never
// completed (a prepare or commit lost with its machine) is still held; its
// row is a lost request's, and its thread busy and held to the span's end.
// What queues behind it waits to the span's end too.
func (o *oracle) commitsNeverDone() {
	span := o.spanUS()
	for q := range o.waiting {
		if len(o.waiting[q]) > 0 && o.qMark[q] < span {
			o.accrue(q, span)
			o.hits["waits to the span's end"]++
		}
	}
	for _, r := range o.reqs {
		if x := r.tran; !r.done && x != nil && x.ownedBy(r) && x.committing && !x.committed {
			o.hits["commit never completes"]++
			if i, k := r.srv, r.thr; o.insts[i].th[k].busy == r {
				o.busyUS[i] += span - r.start
				o.thrBusy[i][k] += span - r.start
				o.heldUS[i] += span - r.ownEnd
				o.thrHeld[i][k] += span - r.ownEnd
			}
			o.lostReq(r)
		}
	}
}

// dbblNotice: the DBBL finds the machines lost at t; their instances are no
// longer candidates.
func (o *oracle) dbblNotice(t int64) {
	for m, at := range o.mNoticeAt {
		if at != t {
			continue
		}
		o.mNoticeAt[m] = -1
		for i := range o.insts {
			if o.m.Servers[i].Machine == m && o.insts[i].lostListed {
				o.insts[i].lostListed = false
				o.hits["DBBL notices"]++
			}
		}
	}
}

// restoreMachine is a `restore` event for machine m at t: its MIN
// instances boot.
func (o *oracle) restoreMachine(m int, t int64) {
	if !o.mLost[m] {
		return
	}
	o.hits["restore"]++
	if o.mNoticeAt[m] >= 0 {
		o.hits["restored before the DBBL noticed"]++
	}
	o.mLost[m], o.mNoticeAt[m] = false, -1
	for _, cs := range o.sets { // its clients start again, thinking first
		if cs.origin != m {
			continue
		}
		for _, cl := range cs.clients {
			if !cl.off {
				cl.nextAt = t + cs.thinkUS
				o.hits["client restarts"]++
			}
		}
	}
	for i := range o.insts {
		s := &o.m.Servers[i]
		if s.Machine != m {
			continue
		}
		in := &o.insts[i]
		in.lostListed = false
		if s.Spare || in.state != "gone" {
			continue
		}
		in.comeUpAt = t + o.bootUS
		o.change(t, i, "booting", "restore")
	}
}

// oracleLose lets the generators lose and restore machines.
var oracleLose = flag.Bool("oracle.lose", true, "let the random scenarios lose and restore machines")

// genLose adds, from a random stream of its own (so that the rest of the
// scenario is what it was without it), now and then a `lose` of a machine
// other than the MASTER within the first spanMS of the run, most times a
// `restore` of it later, and a BBLQUERY of 1 to 10 scan units so that the
// DBBL notices within the run.
func genLose(seed uint64, sc *scenario.Scenario, nm, grain, spanMS int) {
	if !*oracleLose || nm < 2 {
		return
	}
	rng := rand.New(rand.NewPCG(seed, 0x10c5e)) // "lose"
	if rng.Float64() >= 0.35 {
		return
	}
	lmid := fmt.Sprintf("s%d", 2+rng.IntN(nm-1))
	at := rng.IntN(spanMS*1000) / grain * grain
	f := func(us int) *float64 { v := float64(us) / 1000; return &v }
	evs := []scenario.Event{{AtMS: f(at), Lose: lmid}}
	if rng.Float64() < 0.75 {
		evs = append(evs, scenario.Event{AtMS: f(at + rng.IntN(spanMS*1000)/grain*grain), Restore: lmid})
	}
	sc.UBBConfig = strings.Replace(sc.UBBConfig, "\n\n*MACHINES", fmt.Sprintf("\nBBLQUERY %d\n\n*MACHINES", 1+rng.IntN(10)), 1)
	for _, ev := range evs { // in time order, after the events of its instant
		k := len(sc.Events)
		for k > 0 && *sc.Events[k-1].AtMS > *ev.AtMS {
			k--
		}
		sc.Events = slices.Insert(sc.Events, k, ev)
	}
}

// The paths of a lost machine that the differential tests must exercise
// (with their default numbers of scenarios), so that a generator change
// cannot quietly stop testing them.
var (
	loseHitsTrace = []string{"lose", "restore", "DBBL notices", "restored before the DBBL noticed",
		"lost in service", "lost waiting", "lost on arrival", "trace row from a lost machine",
		"lost held by a down instance", "event on a lost machine"}
	loseHitsApp = []string{"lose", "restore", "DBBL notices", "lost while holding", "lost waiting",
		"lost on arrival", "client lost", "client lost while waiting",
		"client restarts", "stream on a lost machine", "ws choice on a lost machine", "forwarder lost",
		"lost forwarder's message fails at its come-up"}
)

// requireHits fails t for each path in want that no scenario exercised.
func requireHits(t *testing.T, seen map[string]int, want []string) {
	t.Helper()
	for _, k := range want {
		if seen[k] == 0 {
			t.Errorf("no scenario exercised %q", k)
		}
	}
}

// TestOracleLostMachineSpecCases runs the reference simulator on the
// hand-worked cases of lost machines (testdata/spec, those that lose a
// machine and whose trace has the reference's columns): its dispatch log
// must be the hand-derived one, and the engine's figures the ones it
// computes, so that the reference's reading of a lost machine is checked
// against the derivations before it judges random scenarios.
func TestOracleLostMachineSpecCases(t *testing.T) {
	playSpecCases(t, "lost-machine", func(doc []byte) bool {
		return bytes.Contains(doc, []byte(`"lose"`)) && bytes.Contains(doc, []byte(`time_ms,service,origin,service_ms,prio,route\n`))
	}, 3)
}
