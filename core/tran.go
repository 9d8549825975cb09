package core

import (
	"github.com/tuxlb/tuxlb/core/internal/evq"
	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/workload"
)

// This file plays transactions (docs/engine.md, "Transactions"): a request
// starting outside a transaction with AUTOTRAN=Y for its instance's group
// starts X and owns it (tranStart); children in X join their group as a
// participant, or fail TPETRAN in a group without TMSNAME (tranJoin); the
// owner's end becomes its commit, prepares and commits to the TMS queues
// while its instance stays held (tranEnd, issueTMS, tranReply); X's
// deadline and a failing owner abort it (tranTimeout, ownerFailed). The
// engine has a tranState only when some *SERVICES entry has AUTOTRAN=Y:
// the plain path sees a nil pointer.

// tranX is one transaction.
type tranX struct {
	owner       int32 // the owner's slot
	ownerSeq    int64 // and its Seq (the slot may be reused after it ends)
	ownerID     string
	coord       int32   // the machine where X started: TMS requests come from it
	parts       []int32 // participant groups, in joining order
	members     []slotRef
	deadline    int64 // -1: no TRANTIME
	commitStart int64
	outst       int32 // TMS replies still to come back
	phase       uint8 // 1: the prepares are out, 2: the commits
	gen         int64 // its start number: the entry is reused after a commit
	counted     bool  // started at or after the warm-up
	closed      bool  // committed and ended: the entry is free for the next transaction
	aborted     bool
	timeout     bool
	committing  bool
	// fwd is the TMQFORWARD that owns X, 1 + its index in qState.fw (0:
	// X's owner is a request; then owner is -1)
	fwd int32
	// live counts X's requests not yet finished: an aborted X's entry is
	// free again when the last of them finishes (tranLeave)
	live int32
}

// slotRef names an in-flight request: its slot and its Seq.
type slotRef struct {
	slot int32
	seq  int64
}

// tranState is the engine's state for transactions.
type tranState struct {
	xs      []tranX
	free    []int32 // entries of xs free again (their transactions committed)
	nstart  int64   // transactions started
	ngroups int
	// auto[s*ngroups+g]: AUTOTRAN of service s for group g: -2 none, -1
	// without TRANTIME, else TRANTIME in µs
	auto    []int64
	tmsQ    []int32 // per group: its TMS queue, -1 without TMSNAME
	tmsSvc  []int   // per group: the service its TMS requests run under
	qGroup  []int32 // per queue: its group
	tmsKey  uint64
	directQ int32   // the TMS queue issue sends the next request to, -1: none
	dl      appHeap // transaction deadlines, in start order within an instant

	started, committed, onePhase, twoPhase, timeouts, failed, parts int64
	commit                                                          hist.Acc
}

// streamTMS seeds a TMS request's tms_time draw, with its request's key.
const streamTMS = 0x746d73 // "tms"

// newTranState sets transactions up for e, when some *SERVICES entry has
// AUTOTRAN=Y (nil otherwise).
func newTranState(e *engine) *tranState {
	m := e.m
	if !m.Transactions() {
		return nil
	}
	tr := &tranState{ngroups: len(m.Groups), directQ: -1}
	group := make(map[string]int32, len(m.Groups))
	for g := range m.Groups {
		group[m.Groups[g].Name] = int32(g)
	}
	tr.auto = make([]int64, len(m.Services)*len(m.Groups))
	for s := range m.Services {
		for g := range m.Groups {
			p := m.Services[s].Params(m.Groups[g].Name)
			v := int64(-2)
			switch {
			case p.AutoTran && p.TranTimeS > 0:
				v = int64(p.TranTimeS) * 1_000_000
			case p.AutoTran:
				v = -1
			}
			tr.auto[s*len(m.Groups)+g] = v
		}
	}
	tr.tmsQ, tr.tmsSvc = make([]int32, len(m.Groups)), make([]int, len(m.Groups))
	for g := range tr.tmsQ {
		tr.tmsQ[g] = -1
	}
	tr.qGroup = make([]int32, len(m.Queues))
	for q := range m.Queues {
		g := group[m.Queues[q].Group]
		tr.qGroup[q] = g
		if s := &m.Servers[m.Queues[q].Servers[0]]; s.TMS {
			tr.tmsQ[g] = int32(q)
			for k := range m.Services {
				if m.Services[k].Name == s.Name {
					tr.tmsSvc[g] = k
				}
			}
		}
	}
	return tr
}

// xOf returns the transaction of the request in slot s, or nil.
func (e *engine) xOf(s int32) *tranX {
	if k := e.app.slots[s].tran; k > 0 {
		return &e.tr.xs[k-1]
	}
	return nil
}

// owns reports whether the request in slot s owns x.
func (e *engine) owns(x *tranX, s int32) bool {
	return x.owner == s && x.ownerSeq == e.pool.At(s).req.Seq
}

// tranStart is start's hook: request s starts on instance i at t. Outside a
// transaction, with AUTOTRAN for i's group (which has a TMSNAME), it starts
// X and owns it. A gateway starts none, nor a TMS request.
func (e *engine) tranStart(i, s int32, t int64) {
	tr := e.tr
	sl := &e.app.slots[s]
	sv := &e.servers[i]
	f := e.pool.At(s)
	if sl.tran != 0 || sv.gateway || f.reason == reasonTMS || tr.tmsQ[sv.group] < 0 {
		return
	}
	lim := tr.auto[f.req.Service*tr.ngroups+int(sv.group)]
	if lim == -2 {
		return
	}
	xi := e.openTran(s, f.req.Seq, e.parentID(f), sv.machine, sv.group, lim, t)
	tr.xs[xi].members = append(tr.xs[xi].members, slotRef{s, f.req.Seq})
	tr.xs[xi].live++
	sl.tran = xi + 1
}

// tranLeave is finish's hook: the request in slot s is done. When it was
// the last request of an aborted transaction, the transaction's entry is
// free again (a committed one's is freed at its commit).
func (e *engine) tranLeave(s int32) {
	k := e.app.slots[s].tran
	if k == 0 {
		return
	}
	tr := e.tr
	x := &tr.xs[k-1]
	if x.live--; x.live == 0 && x.aborted && !x.closed {
		if x.counted {
			tr.parts += int64(len(x.parts)) // participants_mean counts it as it closes
		}
		x.closed, x.members = true, x.members[:0]
		tr.free = append(tr.free, k-1)
	}
}

// openTran starts a transaction at t and returns its index: owned by the
// request in slot owner (Seq ownerSeq; -1 for a forwarder's), named id,
// coordinated from machine coord, group its first participant, timing out
// lim µs later (below 0: never).
func (e *engine) openTran(owner int32, ownerSeq int64, id string, coord, group int32, lim, t int64) int32 {
	tr := e.tr
	// a committed transaction's entry is reused: every request of it has
	// ended (aborted ones keep theirs, for the requests still in them)
	var xi int32
	if n := len(tr.free); n > 0 {
		xi, tr.free = tr.free[n-1], tr.free[:n-1]
	} else {
		tr.xs = append(tr.xs, tranX{})
		xi = int32(len(tr.xs) - 1)
	}
	tr.nstart++
	x := &tr.xs[xi]
	*x = tranX{owner: owner, ownerSeq: ownerSeq, ownerID: id, coord: coord, parts: append(x.parts[:0], group),
		members: x.members[:0], deadline: -1, gen: tr.nstart, counted: t >= e.setup.WarmupUS}
	if lim > 0 && t+lim <= MaxTimeUS {
		x.deadline = t + lim
	}
	if x.counted {
		tr.started++
	}
	if x.deadline >= 0 {
		tr.dl.push(appEvent{t: x.deadline, seq: tr.nstart, class: classTranDeadline, caller: xi, awaited: tr.nstart})
	}
	return xi
}

// tranJoin is issue's hook after the choice of queue q for request s: a
// child in X joins q's group to X, or, when the group has no TMSNAME,
// fails at its issue with TPETRAN (true: issue then finishes it).
func (e *engine) tranJoin(s, q, chosen int32) bool {
	x := e.xOf(s)
	if x == nil {
		return false
	}
	tr := e.tr
	f := e.pool.At(s)
	g := tr.qGroup[q]
	if tr.tmsQ[g] < 0 {
		f.queue, f.chosen, f.reason = -1, chosen, reasonTran
		e.app.atIssue = reasonTran
		e.st.flow(f, -1)
		e.st.fail(f)
		e.ser.fail(f.reason)
		return true // issue finishes it
	}
	found := false
	for _, p := range x.parts {
		found = found || p == g
	}
	if !found {
		x.parts = append(x.parts, g)
	}
	x.members = append(x.members, slotRef{s, f.req.Seq})
	return false
}

// issueDirect is issue's path for a TMS request (slot s, request f): no
// choice, no counter; it goes to tr.directQ.
func (e *engine) issueDirect(s int32, f *flight) {
	tr := e.tr
	q := tr.directQ
	tr.directQ = -1
	qs := &e.queues[q]
	f.queue, f.reason, f.load, f.prio = q, reasonTMS, 50, 50
	e.st.flow(f, qs.machine)
	if int(qs.machine) != f.req.Origin {
		e.st.crossing(f, qs.machine)
		if e.setup.LatencyUS > 0 {
			at := f.req.TimeUS + e.setup.LatencyUS
			if at > MaxTimeUS {
				e.overTime(f, at, "it would arrive at its queue", "network.latency_ms")
			}
			e.arr.Push(evq.Arrival{T: at, Slot: s})
			return
		}
	}
	e.enter(s, f, f.req.TimeUS)
}

// issueTMS issues x's request of kind (prepare, commit, abort) to each
// participant's TMS queue at t, in participant order. Nobody waits for an
// abort.
func (e *engine) issueTMS(xi int32, kind string, t int64) {
	tr := e.tr
	x := &tr.xs[xi]
	n := len(x.parts)
	for k := 0; k < n; k++ {
		x = &tr.xs[xi]
		g := x.parts[k]
		key := workload.Mix64(uint64(xi+1) ^ workload.Mix64(uint64(e.issued)+0x7472616e))
		r := workload.Request{TimeUS: t, Service: tr.tmsSvc[g], Origin: int(x.coord), Key: key,
			ID: x.ownerID + "!" + kind + "@" + e.m.Groups[g].Name}
		if smp := e.setup.TMSTime; smp != nil {
			e.draw.Seed(key, streamTMS)
			r.ServiceUS = usec.Round(smp.SampleMS(&e.draw) * 1000)
		}
		a := e.app
		a.bindTo(callerTMS, xi, x.ownerSeq, 0).replyTo = x.coord
		a.bindID = x.ownerID
		if kind == "abort" {
			a.bind.kind, a.bind.unanswered = callerNone, true
		}
		a.bound = true
		tr.directQ = tr.tmsQ[g]
		if err := e.issue(&r); err != nil {
			a.bound, a.bindID, tr.directQ = false, "", -1
			if e.fault == nil {
				e.fault = err
			}
			return
		}
	}
	if kind != "abort" {
		tr.xs[xi].outst = int32(n)
	}
}

// tranEnd is endServed's hook: the request in slot s would end with its
// reply at t. X's owner begins its commit instead (its instance stays
// held), or, after X timed out, ends with TPETIME; true when it did either.
func (e *engine) tranEnd(s int32, t int64) bool {
	x := e.xOf(s)
	if x == nil || !e.owns(x, s) || x.committing {
		return false
	}
	if x.aborted {
		e.failAborted(s, t)
		return true
	}
	xi := e.app.slots[s].tran - 1
	f := e.pool.At(s)
	sl := &e.app.slots[s]
	if !sl.holding { // it ran no steps: its thread is held now
		sv := &e.servers[f.server]
		sl.holding, e.app.outs[s] = true, e.app.outs[s][:0]
		if m := sv.mt; m != nil {
			m.Hold(f.thread, t)
		} else {
			sv.due = -1 // no completion is pending while it holds the request
			e.app.holdAt[sv.idx] = t
		}
	}
	e.tranCommit(xi, t)
	return true
}

// tranCommit begins transaction xi's commit at t: one commit to its only
// participant, or prepares to each.
func (e *engine) tranCommit(xi int32, t int64) {
	x := &e.tr.xs[xi]
	x.committing, x.commitStart = true, t
	if len(x.parts) == 1 {
		x.phase = 2
		e.issueTMS(xi, "commit", t)
	} else {
		x.phase = 1
		e.issueTMS(xi, "prepare", t)
	}
}

// tranReply is the reply of a prepare or commit of transaction xi reaching
// the coordinator at t: after the last prepare, the commits go out; after
// the last commit, the owner ends with its reply. A reply for an owner no
// longer held (its instance crashed) is lost.
func (e *engine) tranReply(ev *appEvent) {
	tr := e.tr
	xi := ev.caller
	x := &tr.xs[xi]
	if x.fwd > 0 && !e.fwdHolds(x.fwd-1, xi) || x.fwd == 0 && !e.holding(x.owner, x.ownerSeq) {
		return
	}
	if x.outst--; x.outst > 0 {
		return
	}
	if x.phase == 1 {
		x.phase = 2
		e.issueTMS(xi, "commit", ev.t)
		return
	}
	x = &tr.xs[xi]
	if x.counted {
		tr.committed++
		if len(x.parts) == 1 {
			tr.onePhase++
		} else {
			tr.twoPhase++
		}
		v := ev.t - x.commitStart
		if !tr.commit.Note(v, hist.Index(v)) {
			tr.commit.Spill(v)
		}
		tr.parts += int64(len(x.parts))
	}
	if x.fwd > 0 {
		e.fwdCommitted(x.fwd-1, ev.t)
	} else {
		e.endServed(x.owner, e.pool.At(x.owner), ev.t)
	}
	x = &tr.xs[xi]
	x.closed, x.members = true, x.members[:0]
	tr.free = append(tr.free, xi)
}

// stepFails is runSteps' hook at the request in slot p's next step, at t:
// after X was aborted, its noreply steps are still issued, and the first
// other step that happens fails it (true: it failed, or the run stopped).
func (e *engine) stepFails(p int32, t int64) bool {
	x := e.xOf(p)
	if x == nil || !x.aborted {
		return false
	}
	a := e.app
	f := e.pool.At(p)
	steps := a.plan.Calls[f.req.Service]
	for int(a.slots[p].step) < len(steps) {
		j := int(a.slots[p].step)
		st := &steps[j]
		a.slots[p].step++
		if !e.stepHappens(f, j, st) {
			continue
		}
		if st.NoReply {
			if !e.callChild(p, j, t) {
				return true
			}
			continue
		}
		a.why = "its transaction was aborted before this step"
		e.failAborted(p, t)
		return true
	}
	return false
}

// failAborted fails the request in slot p of an aborted X at t: the owner
// with TPETIME after a timeout, any other with TPESVCFAIL.
func (e *engine) failAborted(p int32, t int64) {
	x := e.xOf(p)
	if e.owns(x, p) && x.timeout {
		e.endTimedOut(p, t)
		return
	}
	e.failParent(p, t)
}

// endTimedOut ends X's owner in slot p at t with TPETIME (X timed out): its
// caller gets TPETIME when it would have had the reply.
func (e *engine) endTimedOut(p int32, t int64) {
	e.endFailed(p, t, reasonTime, codeTimeout)
}

// ownerFailed is the hook of a request in slot s ending with a failure at
// t: when it owns X and X's commit has not begun, X is aborted.
func (e *engine) ownerFailed(s int32, t int64) {
	if x := e.xOf(s); x != nil && e.owns(x, s) && !x.aborted && !x.committing {
		e.abortTran(e.app.slots[s].tran-1, false, t)
	}
}

// abortTran aborts transaction xi at t: an abort request to each participant.
// After a timeout, every request of X holding its instance while it waits
// for replies ends now, in issue order.
func (e *engine) abortTran(xi int32, timeout bool, t int64) {
	tr := e.tr
	x := &tr.xs[xi]
	x.aborted, x.timeout = true, timeout
	if x.counted {
		if timeout {
			tr.timeouts++
		} else {
			tr.failed++
		}
	}
	e.issueTMS(xi, "abort", t)
	if !timeout {
		return
	}
	if fi := tr.xs[xi].fwd - 1; fi >= 0 && e.fwdHolds(fi, xi) {
		// the forwarder that owns X gets TPETIME first
		e.q.fw[fi].awaited = 0
		e.fwdFailed(fi, codeTimeout, t, true)
	}
	members := tr.xs[xi].members
	for _, m := range members {
		if !e.holding(m.slot, m.seq) || e.app.slots[m.slot].tran != xi+1 {
			continue
		}
		e.app.why = sprintf("its transaction timed out at %s ms", usec.FormatMS(t))
		e.failAborted(m.slot, t)
	}
}

// tranTimeout is transaction ev.caller's deadline: it is aborted unless its
// commit has begun (or it was aborted already).
func (e *engine) tranTimeout(ev *appEvent) {
	if e.tranSettled(ev) {
		return
	}
	e.spanUS = max(e.spanUS, ev.t)
	e.abortTran(ev.caller, true, ev.t)
}

// tranSettled is whether transaction deadline ev is past caring: its
// transaction aborted or is committing (the entry may be another
// transaction's now).
func (e *engine) tranSettled(ev *appEvent) bool {
	x := &e.tr.xs[ev.caller]
	return x.gen != ev.awaited || x.aborted || x.committing
}

// finishStuck ends the run's owners whose commit waits for a reply that
// will never come (a prepare or commit lost with its machine): their
// thread stayed held to the end, and their row is written now like a lost
// request's (TPESVCERR, no end_us, no reply_us), counted as failed. The
// requests that forwarded to them, or to a request still waiting in a
// queue, complete with no reply.
func (e *engine) finishStuck() {
	tr := e.tr
	for xi := range tr.xs {
		x := &tr.xs[xi]
		if !x.committing || x.closed || x.fwd > 0 || !e.holding(x.owner, x.ownerSeq) {
			continue
		}
		f := e.pool.At(x.owner)
		f.reason, f.noReply = reasonSvcErr, true
		e.st.fail(f)
		e.loseForwarders(x.owner) // those that forwarded to it complete, no reply coming
		e.finish(x.owner)
	}
	// so do those that forwarded to a request still waiting behind a held
	// instance (a slot no chain waits on stops at its first link)
	for s := range int32(e.pool.Len()) {
		e.loseForwarders(s)
	}
}

// tranResult adds the transactions' figures to r.
func (e *engine) tranResult(r *result.Result) {
	tr := e.tr
	ts := &result.TransactionStats{Started: tr.started, Committed: tr.committed, OnePhase: tr.onePhase, TwoPhase: tr.twoPhase,
		Aborted: result.AbortedCounts{Timeout: tr.timeouts, Failed: tr.failed}}
	parts := tr.parts // of those committed, counted as they closed
	for k := range tr.xs {
		if x := &tr.xs[k]; x.counted && !x.closed {
			parts += int64(len(x.parts))
		}
	}
	if tr.started > 0 {
		ts.ParticipantsMean = usec.Round6(float64(parts) / float64(tr.started))
	}
	h := tr.commit.Hist()
	ts.CommitMS, ts.CommitHistogram = tr.commit.Summary(h), tr.commit.Chart(h)
	tr.commit.ReleaseFront()
	r.Transactions = ts
}
