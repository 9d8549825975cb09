package core

// /Q in the reference simulator (oracle_sim_test.go), read from the rules
// of /Q alone (TMQUEUE and TMQFORWARD, and the readings written beside
// them), not from the engine: an enqueue is a request of the queue space
// (its TMQUEUE instances chosen like any service's) whose end stores a
// message at the tail of its queue; each TMQFORWARD instance takes one
// message at a time, the first available of its first queue (in -q order)
// that has one, and calls the service named like the queue with the id
// Q#n~k, in a transaction it owns when the queue space's group has a
// TMSNAME (first participant that group, TRANTIME -t). On success (the
// reply, then the commit) the message is deleted; on a failure (any code,
// TPETIME at the forward's own deadline or at X's) X is aborted and the
// message goes back to the head of its queue after retry_delay_ms, its
// count one higher, or to the error queue (k = 0 there), or is dropped
// (retries exhausted without an error queue, out of the error queue
// itself, or -d on TPESVCFAIL). A forwarder that finds nothing sleeps -i
// seconds (a timer), or with -i 0 until a message of one of its queues
// becomes available. Order within an instant: after client requests,
// messages available again (in the order they failed), then forwarders
// waking up (in scan order); a forwarder looks again at the instant its
// forward ends, in that turn.

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/ubb"
)

var (
	// oracleQ lets the application generator add /Q (a queue space, its
	// enqueues and forwarders) to about one scenario in four.
	oracleQ = flag.Bool("oracle.q", true, "let the random application scenarios add /Q: a queue space, enqueues and TMQFORWARD")
	// oracleQN is the number of scenarios of TestOracleQueues, each of
	// which has /Q.
	oracleQN = flag.Int("oracle.qn", 1000, "number of random /Q scenarios the differential test runs")
)

// oMQ is one /Q queue of a queue space: its messages stored and not held
// by a forwarder, head first (those waiting out a retry delay included).
type oMQ struct {
	qspace, name string
	retries      int
	delayUS      int64
	errQ         *oMQ
	msgs         []*oMsg
	count        int // messages numbered so far: the next one's n

	enqueued, forwarded, retried, toErr, dropped int64
	depthMax, area, mark                         int64
	tiq                                          []int64 // each forwarded message's time in the queue
}

// oMsg is one message.
type oMsg struct {
	q        *oMQ
	n, k     int
	route    string
	hasRoute bool
	stored   int64 // its first storing in q
	avail    bool  // available (not waiting out a retry delay)
	availAt  int64 // when a delayed one becomes available
	failSeq  int64 // order of the failure that delayed it
	takenAt  int64 // when a forwarder last took it
}

// oFwd is one TMQFORWARD instance.
type oFwd struct {
	inst           int
	queues         []*oMQ
	idleUS, tranUS int64
	del            bool
	due            bool  // looks in the wake-up turn of this instant
	wakeAt         int64 // its -i timer, -1: none
	lastLook       int64 // when it last looked, -1: never
	msg            *oMsg // the message it holds
	req            *oReq // its forward of msg
	x              *oTran
	// lostMsg: lost with its machine while holding msg, which fails when it
	// comes up again after the restore
	lostMsg bool
}

// oStreamDoc is a generated stream as the reference reads it: enqueues at
// constant arrivals only.
type oStreamDoc struct {
	Service  string  `json:"service"`
	Enqueue  string  `json:"enqueue"`
	Origin   string  `json:"origin"`
	Arrivals string  `json:"arrivals"`
	RatePerS float64 `json:"rate_per_s"`
}

// readQSpaces reads the scenario's qspaces: the queues (queue spaces by
// name, then queues by name), their retries, delays and error queues, and
// each queue space's const enqueue time; the Model gets its /Q queues.
func (o *oracle) readQSpaces() error {
	if len(o.sc.QSpaces) == 0 {
		return nil
	}
	o.qOn = true
	o.enqUS, o.qsGroup = map[string]int64{}, map[string]string{}
	var list []ubb.MsgQueue
	spaces := make([]string, 0, len(o.sc.QSpaces))
	for qs := range o.sc.QSpaces {
		spaces = append(spaces, qs)
	}
	sort.Strings(spaces)
	for _, qs := range spaces {
		spec := o.sc.QSpaces[qs]
		if d := spec.EnqueueTime; d != nil {
			if d.Dist != "const" || d.MS == nil {
				return fmt.Errorf("oracle: qspaces.%s.enqueue_time: only const", qs)
			}
			o.enqUS[qs] = oRoundUS(*d.MS)
		}
		k := o.m.QSpaceIndex(qs)
		if k < 0 {
			return fmt.Errorf("oracle: no TMQUEUE advertises %s", qs)
		}
		o.qsGroup[qs] = o.m.QSpaces[k].Group
		names := make([]string, 0, len(spec.Queues))
		for q := range spec.Queues {
			names = append(names, q)
		}
		sort.Strings(names)
		first := len(o.mqs)
		for _, q := range names {
			qspec := spec.Queues[q]
			mq := &oMQ{qspace: qs, name: q}
			if qspec.Retries != nil {
				mq.retries = *qspec.Retries
			}
			if qspec.RetryDelayMS != nil {
				mq.delayUS = oRoundUS(*qspec.RetryDelayMS)
			}
			o.mqs = append(o.mqs, mq)
			list = append(list, ubb.MsgQueue{QSpace: qs, Name: q})
		}
		if spec.ErrorQueue != "" {
			var e *oMQ
			for _, mq := range o.mqs[first:] {
				if mq.name == spec.ErrorQueue {
					e = mq
				}
			}
			if e == nil {
				return fmt.Errorf("oracle: error queue %s of %s", spec.ErrorQueue, qs)
			}
			for _, mq := range o.mqs[first:] {
				mq.errQ = e
			}
		}
	}
	o.m = o.m.WithQueues(list)
	return nil
}

// setupForwarders makes one forwarder per TMQFORWARD instance, in scan
// order; those up at t = 0 look in its wake-up turn.
func (o *oracle) setupForwarders() {
	o.fwdOf = map[int]*oFwd{}
	if !o.qOn {
		return
	}
	for _, fw := range o.m.Forwarders {
		for _, id := range fw.Servers {
			i := slices.IndexFunc(o.m.Servers, func(s ubb.Server) bool { return s.ID == id })
			f := &oFwd{inst: i, idleUS: int64(fw.IdleS) * 1_000_000, tranUS: int64(fw.TranTimeS) * 1_000_000,
				del: fw.Delete, wakeAt: -1, lastLook: -1, due: o.insts[i].state == "up"}
			for _, q := range fw.Queues {
				for _, mq := range o.mqs {
					if mq.name == q {
						f.queues = append(f.queues, mq)
						break
					}
				}
			}
			o.fwds = append(o.fwds, f)
			o.fwdOf[i] = f
		}
	}
	sort.SliceStable(o.fwds, func(a, b int) bool { return o.fwds[a].inst < o.fwds[b].inst })
}

// enqueueTarget reads "QSPACE:Q".
func (o *oracle) enqueueTarget(text string) (*oMQ, error) {
	qs, q, _ := strings.Cut(text, ":")
	for _, mq := range o.mqs {
		if mq.qspace == qs && mq.name == q {
			return mq, nil
		}
	}
	return nil, fmt.Errorf("oracle: enqueue %q: no such queue", text)
}

// readStreams reads the generated streams: enqueues at constant arrivals
// (the n-th at n·1000/rate ms, rounded to µs, while before the duration),
// merged with the trace rows by time, trace rows first at equal times.
func (o *oracle) readStreams(streams []oStreamDoc) error {
	if len(streams) > 1 {
		return fmt.Errorf("oracle: one stream only")
	}
	for _, st := range streams {
		if st.Enqueue == "" || st.Arrivals != "constant" {
			return fmt.Errorf("oracle: streams of constant enqueues only")
		}
		mq, err := o.enqueueTarget(st.Enqueue)
		if err != nil {
			return err
		}
		origin := 0
		if st.Origin != "" {
			origin = o.m.MachineIndex(st.Origin)
		}
		for n := 0; ; n++ {
			at := oRoundUS(float64(n) * 1000 / st.RatePerS)
			if at >= o.durUS {
				break
			}
			r := o.newReq(mq.qspace, origin, at)
			r.enqQ, r.svcUS = mq, o.enqUS[mq.qspace]
			r.stream = true
			o.pending = append(o.pending, r)
			o.hits["stream enqueue"]++
		}
	}
	sort.SliceStable(o.pending, func(a, b int) bool { return o.pending[a].issue < o.pending[b].issue })
	return nil
}

// qAccrue brings mq's depth integral up to t, before its depth changes.
func (o *oracle) qAccrue(mq *oMQ, t int64) {
	mq.area += int64(len(mq.msgs)) * (t - mq.mark)
	mq.mark = t
}

// put stores m in mq at t, at the tail (or the head), and wakes the -i 0
// forwarders of mq when it is available.
func (o *oracle) put(mq *oMQ, m *oMsg, head bool, t int64) {
	o.qAccrue(mq, t)
	if head {
		mq.msgs = append([]*oMsg{m}, mq.msgs...)
	} else {
		mq.msgs = append(mq.msgs, m)
	}
	mq.depthMax = max(mq.depthMax, int64(len(mq.msgs)))
	if m.avail {
		o.wake(mq)
		for _, f := range o.fwds { // a timer: it looked in this turn already
			if o.qWaking && f.idleUS > 0 && f.msg == nil && f.lastLook == t && o.insts[f.inst].state == "up" && slices.Contains(f.queues, mq) {
				o.hits["timer forwarder passed in the wake-up turn"]++
			}
		}
	}
}

// wake: a message of mq became available; the -i 0 forwarders of mq that
// are up and hold none look in this instant's wake-up turn.
func (o *oracle) wake(mq *oMQ) {
	for _, f := range o.fwds {
		if f.idleUS == 0 && f.msg == nil && o.insts[f.inst].state == "up" && slices.Contains(f.queues, mq) {
			if o.qWaking && !f.due {
				o.hits["made due in the wake-up turn"]++
				if slices.ContainsFunc(o.fwds, func(g *oFwd) bool { return g.due && g.inst > f.inst }) {
					o.hits["made due in the wake-up turn before another"]++
				}
			}
			f.due = true
		}
	}
}

// store: r, an enqueue, ended at t: its message is stored at the tail of
// its queue, available at once.
func (o *oracle) store(r *oReq, t int64) {
	mq := r.enqQ
	m := &oMsg{q: mq, n: mq.count, route: r.route, hasRoute: r.hasRoute, stored: t, avail: true, availAt: -1}
	mq.count++
	mq.enqueued++
	o.put(mq, m, false, t)
	o.hits["message stored"]++
}

// look: forwarder f looks for a message at t: the first available one of
// the first of its queues that holds one; none: it sleeps.
func (o *oracle) look(f *oFwd, t int64) {
	f.lastLook = t
	for _, mq := range f.queues {
		if slices.ContainsFunc(mq.msgs, func(m *oMsg) bool { return !m.avail && m.availAt == t }) {
			o.hits["look before an available-again turn"]++
		}
	}
	for _, mq := range f.queues {
		for j, m := range mq.msgs {
			if m.avail {
				o.fwdTake(f, mq, j, t)
				return
			}
		}
	}
	f.wakeAt = -1
	if f.idleUS > 0 {
		f.wakeAt = t + f.idleUS
	}
}

// fwdTake: f takes message j of mq at t and calls the service named like the
// queue, in a transaction it owns when the queue space's group has a TMS.
func (o *oracle) fwdTake(f *oFwd, mq *oMQ, j int, t int64) {
	m := mq.msgs[j]
	o.qAccrue(mq, t)
	mq.msgs = append(mq.msgs[:j:j], mq.msgs[j+1:]...)
	m.takenAt = t
	f.msg, f.wakeAt, f.due = m, -1, false
	o.insts[f.inst].fwdBusy = true
	mc := o.m.Servers[f.inst].Machine
	r := o.newReq(mq.name, mc, t)
	r.id = fmt.Sprintf("%s#%d~%d", mq.name, m.n, m.k)
	r.route, r.hasRoute = m.route, m.hasRoute
	r.svcUS = o.svcTimeUS[mq.name]
	r.fwdBy, r.nested = f, true // a request issued by a server
	r.deadline = t + o.limit(mq.name)
	f.req, f.x = r, nil
	if g := o.qsGroup[mq.qspace]; o.tmsQueue != nil {
		if _, ok := o.tmsQueue[g]; ok {
			x := &oTran{owner: r, fwd: f, coord: mc, parts: []string{g}, deadline: -1}
			if f.tranUS > 0 {
				x.deadline = t + f.tranUS
			}
			r.tran, f.x = x, x
			o.trans = append(o.trans, x)
			o.hits["forward in X"]++
		}
	}
	if m.k > 0 {
		o.hits["forward retry"]++
	}
	o.issue(r)
	if r.atIssue { // the forwarder learns at once
		o.hits["forward failed at issue"]++
		r.dlDone = true
		o.fwdFail(f, r.reason, t)
	}
}

// fwdLearn: the outcome of w, a forward, reaches its forwarder at t (code
// "" a reply, else the failure; TPETIME at the forward's deadline).
func (o *oracle) fwdLearn(w *oReq, code string, t int64) {
	f := w.fwdBy
	w.dlDone = true
	if f.req != w || f.msg == nil {
		return // it no longer waits for it
	}
	if o.insts[f.inst].state == "down" { // lost: the notice handles the message
		o.hits["forward outcome lost at a down forwarder"]++
		return
	}
	if f.lostMsg { // lost with its machine: its come-up handles the message
		o.hits["forward outcome lost at a lost forwarder"]++
		return
	}
	if code != "" {
		o.hits["forward "+code]++
		o.fwdFail(f, code, t)
		return
	}
	if x := f.x; x != nil { // the forwarder commits X
		x.committing, x.commitStart = true, t
		if len(x.parts) == 1 {
			x.phase = 2
			o.hits["forward one-phase"]++
			o.issueTMSAll(x, "commit", t)
			return
		}
		x.phase = 1
		o.hits["forward two-phase"]++
		o.issueTMSAll(x, "prepare", t)
		return
	}
	o.fwdDone(f, t)
}

// fwdDone: f's forward succeeded (and its commit ended) at t: the message
// is deleted, counted forwarded.
func (o *oracle) fwdDone(f *oFwd, t int64) {
	m := f.msg
	m.q.forwarded++
	m.q.tiq = append(m.q.tiq, m.takenAt-m.stored)
	o.hits["forwarded"]++
	o.fwdRelease(f, t)
}

// fwdFail: f's forward failed with code at t: X is aborted, the message
// handled, and f looks again.
func (o *oracle) fwdFail(f *oFwd, code string, t int64) {
	if x := f.x; x != nil && !x.aborted && !x.committing {
		o.abortTran(x, false, t)
	}
	o.msgFail(f, f.msg, code, t)
	o.fwdRelease(f, t)
}

// fwdTimeout: X of forwarder x.fwd timed out at t (its aborts issued): the
// forwarder gets TPETIME at once, unless it is down (then the notice
// handles the message).
func (o *oracle) fwdTimeout(x *oTran, t int64) {
	f := x.fwd
	if f.x != x || f.msg == nil || o.insts[f.inst].state == "down" {
		return
	}
	o.hits["forward X timeout"]++
	f.req.dlDone = true
	o.msgFail(f, f.msg, "TPETIME", t)
	o.fwdRelease(f, t)
}

// fwdRelease: f holds no message any more at t; a stopping forwarder is
// gone, an up one looks again at once.
func (o *oracle) fwdRelease(f *oFwd, t int64) {
	f.msg, f.req, f.x = nil, nil, nil
	in := &o.insts[f.inst]
	in.fwdBusy = false
	if in.state == "stopping" {
		o.hits["forwarder stopped after its message"]++
		o.change(t, f.inst, "gone", in.stopCause)
		o.orphanCheck(o.m.Servers[f.inst].QueueIdx, t)
		return
	}
	if in.state == "up" {
		o.look(f, t)
	}
}

// fwdNotice: the BBL notices at t that forwarder f crashed: a commit begun
// is finished by the TMS (the message deleted, counted forwarded), else X
// is aborted and the message handled as a TPESVCERR failure.
func (o *oracle) fwdNotice(f *oFwd, t int64) {
	o.insts[f.inst].fwdBusy = false
	if f.msg == nil {
		return
	}
	m, x := f.msg, f.x
	if f.req != nil {
		f.req.dlDone = true
	}
	f.msg, f.req, f.x = nil, nil, nil
	if x != nil && x.committing {
		o.hits["forwarder lost in its commit"]++
		m.q.forwarded++
		m.q.tiq = append(m.q.tiq, m.takenAt-m.stored)
		return
	}
	o.hits["forwarder lost its forward"]++
	if x != nil && !x.aborted {
		o.abortTran(x, false, t)
	}
	o.msgFail(f, m, "TPESVCERR", t)
}

// msgFail handles m after a failure with code at t: deleted (-d on
// TPESVCFAIL), back at the head of its queue (its count one higher,
// available after the queue's delay), or, its retries exhausted, to the
// error queue (a new message there, k = 0, available at once) or dropped.
func (o *oracle) msgFail(f *oFwd, m *oMsg, code string, t int64) {
	mq := m.q
	switch {
	case f.del && code == "TPESVCFAIL":
		o.hits["-d deletes"]++
		mq.dropped++
	case m.k >= mq.retries:
		if e := mq.errQ; e != nil && e != mq {
			o.hits["to the error queue"]++
			mq.toErr++
			n := &oMsg{q: e, n: e.count, route: m.route, hasRoute: m.hasRoute, stored: t, avail: true, availAt: -1}
			e.count++
			o.put(e, n, false, t)
			return
		}
		if mq.errQ == mq {
			o.hits["dropped out of the error queue"]++
		} else {
			o.hits["dropped"]++
		}
		mq.dropped++
	default:
		m.k++
		mq.retried++
		if mq.delayUS > 0 {
			o.failSeq++
			m.avail, m.availAt, m.failSeq = false, t+mq.delayUS, o.failSeq
			o.hits["retry delayed"]++
		} else {
			m.avail, m.availAt = true, -1
			o.hits["retry at once"]++
		}
		o.put(mq, m, true, t)
	}
}

// qNext is the next instant of /Q's own: a delayed message becoming
// available, a forwarder due now, or an -i timer of a forwarder with a
// message in its queues (a timer with none only finds nothing: it is
// followed without being played, keeping its phase).
func (o *oracle) qNext(now int64) int64 {
	t := int64(math.MaxInt64)
	for _, mq := range o.mqs {
		for _, m := range mq.msgs {
			if !m.avail {
				t = min(t, m.availAt)
			}
		}
	}
	for _, f := range o.fwds {
		if o.insts[f.inst].state != "up" || f.msg != nil {
			continue
		}
		if f.due {
			t = min(t, now)
			continue
		}
		if f.idleUS == 0 || f.wakeAt < 0 || !slices.ContainsFunc(f.queues, func(mq *oMQ) bool { return len(mq.msgs) > 0 }) {
			continue
		}
		if f.wakeAt < now {
			f.wakeAt += (now - f.wakeAt + f.idleUS - 1) / f.idleUS * f.idleUS
		}
		t = min(t, f.wakeAt)
	}
	return t
}

// availableAgain makes the first message (in the order they failed) whose
// delay ends at t available; false when there is none.
func (o *oracle) availableAgain(t int64) bool {
	var best *oMsg
	for _, mq := range o.mqs {
		for _, m := range mq.msgs {
			if !m.avail && m.availAt == t && (best == nil || m.failSeq < best.failSeq) {
				best = m
			}
		}
	}
	if best == nil {
		return false
	}
	best.avail, best.availAt = true, -1
	o.hits["available again"]++
	o.wake(best.q)
	return true
}

// wakeUp lets the first forwarder (in scan order) due at t look; false
// when there is none.
func (o *oracle) wakeUp(t int64) bool {
	// Timers the run did not follow (a forwarder with nothing in its
	// queues) are brought up to t first, so that every tick at t is played
	// in scan order.
	for _, f := range o.fwds {
		if f.idleUS > 0 && f.wakeAt >= 0 && f.wakeAt < t {
			f.wakeAt += (t - f.wakeAt + f.idleUS - 1) / f.idleUS * f.idleUS
		}
	}
	for _, f := range o.fwds {
		if o.insts[f.inst].state != "up" || f.msg != nil || !(f.due || (f.idleUS > 0 && f.wakeAt == t)) {
			continue
		}
		if !f.due {
			o.hits["-i timer"]++
		}
		f.due = false
		o.qWaking = true
		o.look(f, t)
		o.qWaking = false
		return true
	}
	return false
}

// oQResult is what compareQ reads of the engine's result, through its JSON,
// by the names the contract gives /Q's figures.
type oQResult struct {
	QSpaces []struct {
		Name   string `json:"name"`
		Queues []struct {
			Name         string `json:"name"`
			Enqueued     int64  `json:"enqueued"`
			Forwarded    int64  `json:"forwarded"`
			Retried      int64  `json:"retried"`
			ToErrorQueue int64  `json:"to_error_queue"`
			Dropped      int64  `json:"dropped"`
			Depth        struct {
				Max  int64   `json:"max"`
				Mean float64 `json:"mean"`
			} `json:"depth"`
			TimeInQueueMS result.Summary `json:"time_in_queue_ms"`
		} `json:"queues"`
	} `json:"qspaces"`
}

// compareQ checks the result's qspaces against the reference's own counts:
// present exactly when the scenario has qspaces, queue spaces by name and
// their queues by name.
func (o *oracle) compareQ(res *result.Result, seen map[string]int) string {
	js, err := json.Marshal(res)
	if err != nil {
		return err.Error()
	}
	var qr oQResult
	if err := json.Unmarshal(js, &qr); err != nil {
		return err.Error()
	}
	if !o.qOn {
		if qr.QSpaces != nil {
			return "qspaces: present in a run without qspaces"
		}
		return ""
	}
	var got []string
	k := 0
	span := o.spanUS()
	for _, qs := range qr.QSpaces {
		for _, q := range qs.Queues {
			if k >= len(o.mqs) {
				return fmt.Sprintf("qspaces: engine has more queues than the reference's %d", len(o.mqs))
			}
			mq := o.mqs[k]
			k++
			got = append(got, qs.Name+":"+q.Name)
			if qs.Name != mq.qspace || q.Name != mq.name {
				return fmt.Sprintf("qspaces[%d]: engine %s:%s, reference %s:%s", k-1, qs.Name, q.Name, mq.qspace, mq.name)
			}
			g := fmt.Sprint(q.Enqueued, q.Forwarded, q.Retried, q.ToErrorQueue, q.Dropped, q.Depth.Max)
			w := fmt.Sprint(mq.enqueued, mq.forwarded, mq.retried, mq.toErr, mq.dropped, mq.depthMax)
			if g != w {
				return fmt.Sprintf("queue %s:%s enqueued/forwarded/retried/to_error_queue/dropped/depth max: engine %s, reference %s",
					mq.qspace, mq.name, g, w)
			}
			area := mq.area + int64(len(mq.msgs))*(span-mq.mark)
			if want := ratio(area, span); !nearRat(q.Depth.Mean, want) {
				return fmt.Sprintf("queue %s:%s depth mean: engine %v, reference %v (%d µs·messages over %d µs)",
					mq.qspace, mq.name, q.Depth.Mean, ratF(want), area, span)
			}
			if msg := compareSummary("queue "+mq.qspace+":"+mq.name+" time_in_queue_ms", q.TimeInQueueMS, append([]int64(nil), mq.tiq...), seen); msg != "" {
				return msg
			}
			seen["qspace queue"]++
			if mq.forwarded > 0 {
				seen["qspace queue forwarded"]++
			}
			if mq.retried > 0 {
				seen["qspace queue retried"]++
			}
			if mq.toErr > 0 {
				seen["qspace queue to_error_queue"]++
			}
			if mq.dropped > 0 {
				seen["qspace queue dropped"]++
			}
		}
	}
	if k != len(o.mqs) {
		return fmt.Sprintf("qspaces: engine %v, reference %d queues", got, len(o.mqs))
	}
	return ""
}

// TestOracleQueueCases plays the hand-worked /Q cases of testdata/spec
// (those with qspaces) through the reference simulator: its dispatch log
// must be the one worked out by hand, and its request counts and qspaces
// figures those of expect.json, so that the reference's reading of /Q is
// checked against the derivations before it judges random scenarios; and
// the engine must agree with the reference on every figure.
func TestOracleQueueCases(t *testing.T) {
	all, err := filepath.Glob("../testdata/spec/[0-9]*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range all {
		raw, err := os.ReadFile(filepath.Join(dir, "scenario.json"))
		if err != nil || !strings.Contains(string(raw), `"qspaces"`) {
			continue
		}
		want, err := os.ReadFile(filepath.Join(dir, "dispatch.csv"))
		if err != nil {
			continue
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			doc := oracleQTrace(t, raw)
			o, err := newAppOracle(doc)
			if err != nil {
				t.Fatal(err)
			}
			if got := o.run(); got != string(want) {
				t.Errorf("dispatch log:\n got\n%s want\n%s", got, want)
			}
			var exp struct {
				Requests struct {
					Issued    int64            `json:"issued"`
					Completed *int64           `json:"completed"`
					Failed    map[string]int64 `json:"failed"`
				} `json:"requests"`
				QSpaces map[string]struct {
					Queues map[string]struct {
						Enqueued, Forwarded, Retried, Dropped *int64
						ToErrorQueue                          *int64 `json:"to_error_queue"`
						Depth                                 struct{ Max *int64 }
						TimeInQueueMS                         struct{ Mean, Max *float64 } `json:"time_in_queue_ms"`
					}
				} `json:"qspaces"`
			}
			rawExp, err := os.ReadFile(filepath.Join(dir, "expect.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(rawExp, &exp); err != nil {
				t.Fatal(err)
			}
			issued, done, failed, _ := o.counts()
			if exp.Requests.Failed == nil {
				exp.Requests.Failed = map[string]int64{}
			}
			if issued != exp.Requests.Issued || fmt.Sprint(failed) != fmt.Sprint(exp.Requests.Failed) ||
				(exp.Requests.Completed != nil && *exp.Requests.Completed != done) {
				t.Errorf("issued/completed/failed: reference %d/%d/%v, expect.json %+v", issued, done, failed, exp.Requests)
			}
			for qs, spec := range exp.QSpaces {
				for q, w := range spec.Queues {
					mq, err := o.enqueueTarget(qs + ":" + q)
					if err != nil {
						t.Fatal(err)
					}
					check := func(name string, want *int64, got int64) {
						if want != nil && *want != got {
							t.Errorf("%s:%s %s: reference %d, expect.json %d", qs, q, name, got, *want)
						}
					}
					check("enqueued", w.Enqueued, mq.enqueued)
					check("forwarded", w.Forwarded, mq.forwarded)
					check("retried", w.Retried, mq.retried)
					check("to_error_queue", w.ToErrorQueue, mq.toErr)
					check("dropped", w.Dropped, mq.dropped)
					check("depth.max", w.Depth.Max, mq.depthMax)
					var sum, mx int64
					for _, v := range mq.tiq {
						sum, mx = sum+v, max(mx, v)
					}
					if m := w.TimeInQueueMS.Mean; m != nil && math.Abs(float64(sum)/float64(len(mq.tiq))/1000-*m) > 5e-7 { // (the result's 6 decimals)
						t.Errorf("%s:%s time_in_queue_ms.mean: reference %v, expect.json %v", qs, q, mq.tiq, *m)
					}
					if m := w.TimeInQueueMS.Max; m != nil && float64(mx)/1000 != *m {
						t.Errorf("%s:%s time_in_queue_ms.max: reference %v, expect.json %v", qs, q, mq.tiq, *m)
					}
				}
			}
			if msg, err := oracleCompareApp(doc, map[string]int{}); err != nil || msg != "" {
				t.Errorf("engine and reference differ: %s %v", msg, err)
			}
		})
	}
	if n < 4 {
		t.Errorf("%d /Q cases with a dispatch.csv, want at least 4", n)
	}
}

// oracleQTrace rewrites a /Q case's trace (time_ms, service, service_ms,
// enqueue, and origin, prio and route when it has them) in the
// reference's columns: the origin site1 when it gives none, a service
// row's time its service's const time.
func oracleQTrace(t *testing.T, raw []byte) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	services, _ := doc["services"].(map[string]any)
	wl := doc["workload"].(map[string]any)
	csv, _ := wl["trace_csv"].(string)
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	head := strings.Split(lines[0], ",")
	var b strings.Builder
	b.WriteString("time_ms,service,origin,service_ms,prio,route,enqueue\n")
	for _, line := range lines[1:] {
		row := map[string]string{}
		for k, v := range strings.Split(line, ",") {
			row[head[k]] = v
		}
		ms := row["service_ms"]
		if ms == "" && row["service"] != "" {
			st := services[row["service"]].(map[string]any)["service_time"].(map[string]any)
			ms = fmt.Sprint(st["ms"])
		}
		origin := row["origin"]
		if origin == "" {
			origin = "site1"
		}
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s,%s\n", row["time_ms"], row["service"], origin, ms, row["prio"], row["route"], row["enqueue"])
	}
	wl["trace_csv"] = b.String()
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOracleQueues is the differential test on application scenarios with
// /Q (genAppScenarioQ): the dispatch logs, counts and figures as for
// TestOracleApplications, and the qspaces block.
func TestOracleQueues(t *testing.T) {
	t.Parallel()
	n := *oracleQN
	if testing.Short() {
		n = min(n, 60)
	}
	bad := 0
	seen := map[string]int{}
	for k := 0; k < n; k++ {
		seed := *oracleSeed + uint64(k)
		doc := genAppScenarioQ(seed)
		msg, err := oracleCompareApp(doc, seen)
		if err != nil {
			msg = err.Error()
		}
		if msg != "" {
			bad++
			if bad <= 3 {
				t.Errorf("q seed %d: %s", seed, msg)
				if *oracleShow && bad == 1 {
					t.Logf("scenario:\n%s", doc)
				}
			}
		}
	}
	t.Logf("coverage over %d /Q scenarios: %v", n, seen)
	if bad > 0 {
		t.Errorf("%d of %d /Q scenarios differ from the reference simulator", bad, n)
	}
}

var oracleQShow = flag.Uint64("oracle.qshow", 0, "print the /Q scenario of this seed, both dispatch logs and both qspaces (0: skip)")

// TestOracleQueuesShow prints one /Q scenario of TestOracleQueues (its
// seed by -oracle.qshow), the engine's and the reference's dispatch logs
// and queue figures, for diagnosing a difference.
func TestOracleQueuesShow(t *testing.T) {
	if *oracleQShow == 0 {
		t.Skip("no -oracle.qshow seed")
	}
	oracleShowDoc(t, genAppScenarioQ(*oracleQShow))
}

func oracleShowDoc(t *testing.T, doc []byte) {
	msg, err := oracleCompareApp(doc, map[string]int{})
	t.Logf("difference: %s %v\nscenario:\n%s", msg, err, doc)
	sc, err := ParseScenario(doc)
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	res, err := Run(sc, RunOptions{Dispatch: &buf})
	if err != nil {
		t.Fatal(err)
	}
	o, err := newAppOracle(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := o.run()
	js, _ := json.Marshal(res.QSpaces)
	t.Logf("engine:\n%s\nreference:\n%s\nengine qspaces: %s", buf.String(), want, js)
	for _, mq := range o.mqs {
		t.Logf("reference %s:%s enqueued %d forwarded %d retried %d to_error_queue %d dropped %d depth max %d tiq %v",
			mq.qspace, mq.name, mq.enqueued, mq.forwarded, mq.retried, mq.toErr, mq.dropped, mq.depthMax, mq.tiq)
	}
	for _, c := range res.Lifecycle {
		t.Logf("engine change %+v", c)
	}
}

var oracleQDoc = flag.String("oracle.qdoc", "", "compare the engine and the reference on this scenario file and print both (empty: skip)")

// TestOracleQueuesDoc is TestOracleQueuesShow for a scenario file (a
// minimal scenario written by hand, in the reference's trace columns).
func TestOracleQueuesDoc(t *testing.T) {
	if *oracleQDoc == "" {
		t.Skip("no -oracle.qdoc file")
	}
	doc, err := os.ReadFile(*oracleQDoc)
	if err != nil {
		t.Fatal(err)
	}
	oracleShowDoc(t, doc)
}

var (
	oracleQMin     = flag.Uint64("oracle.qmin", 0, "minimise the /Q scenario of this seed and print it (0: skip)")
	oracleQMinWhat = flag.String("oracle.qminwhat", "", "with -oracle.qmin or -oracle.appmin: keep only variants whose difference contains this text")
	oracleAppMin   = flag.Uint64("oracle.appmin", 0, "minimise the application scenario of this seed (TestOracleApplications) and print it (0: skip)")
)

// TestOracleQueuesMinimise shrinks a /Q seed's scenario while the engine
// and the reference still differ (with -oracle.qminwhat, in a difference
// containing that text): it drops trace rows, events, client sets, script
// entries, call steps, *SERVERS and *SERVICES lines, streams, and lowers
// client counts, one at a time, as long as the scenario stays valid.
func TestOracleQueuesMinimise(t *testing.T) {
	if *oracleQMin == 0 {
		t.Skip("no -oracle.qmin seed")
	}
	oracleMinimiseDoc(t, *oracleQMin, genAppScenarioQ(*oracleQMin))
}

// TestOracleApplicationsMinimise is TestOracleQueuesMinimise for a seed of
// TestOracleApplications (-oracle.appmin).
func TestOracleApplicationsMinimise(t *testing.T) {
	if *oracleAppMin == 0 {
		t.Skip("no -oracle.appmin seed")
	}
	oracleMinimiseDoc(t, *oracleAppMin, genAppScenario(*oracleAppMin))
}

func oracleMinimiseDoc(t *testing.T, seed uint64, doc []byte) {
	fails := func(doc []byte) bool {
		msg, err := oracleCompareApp(doc, map[string]int{})
		return err == nil && msg != "" && strings.Contains(msg, *oracleQMinWhat)
	}
	if !fails(doc) {
		t.Fatalf("seed %d does not fail", seed)
	}
	for changed := true; changed; {
		changed = false
		for _, v := range qVariants(t, doc) {
			if fails(v) {
				doc, changed = v, true
				break
			}
		}
	}
	oracleShowDoc(t, doc)
}

// qVariants are the documents one step smaller than doc.
func qVariants(t *testing.T, doc []byte) [][]byte {
	var out [][]byte
	edit := func(f func(d map[string]any) bool) {
		var d map[string]any
		if err := json.Unmarshal(doc, &d); err != nil {
			t.Fatal(err)
		}
		if f(d) {
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	var d map[string]any
	_ = json.Unmarshal(doc, &d)
	wl := d["workload"].(map[string]any)
	if csv, ok := wl["trace_csv"].(string); ok {
		lines := strings.Split(strings.TrimSpace(csv), "\n")
		for i := 1; i < len(lines); i++ {
			edit(func(d map[string]any) bool {
				l := slices.Delete(slices.Clone(lines), i, i+1)
				w := d["workload"].(map[string]any)
				if len(l) == 1 {
					delete(w, "trace_csv")
				} else {
					w["trace_csv"] = strings.Join(l, "\n") + "\n"
				}
				return true
			})
		}
	}
	if evs, ok := d["events"].([]any); ok {
		for i := range evs {
			edit(func(d map[string]any) bool {
				d["events"] = slices.Delete(d["events"].([]any), i, i+1)
				return true
			})
		}
	}
	gen, _ := wl["generate"].(map[string]any)
	if _, ok := gen["streams"]; ok {
		edit(func(d map[string]any) bool {
			delete(d["workload"].(map[string]any)["generate"].(map[string]any), "streams")
			return true
		})
	}
	if cl, ok := gen["clients"].([]any); ok {
		for i := range cl {
			if len(cl) > 1 {
				edit(func(d map[string]any) bool {
					g := d["workload"].(map[string]any)["generate"].(map[string]any)
					g["clients"] = slices.Delete(g["clients"].([]any), i, i+1)
					return true
				})
			}
			edit(func(d map[string]any) bool {
				c := d["workload"].(map[string]any)["generate"].(map[string]any)["clients"].([]any)[i].(map[string]any)
				if n := c["count"].(float64); n > 1 {
					c["count"] = n - 1
					return true
				}
				return false
			})
			if sc, ok := cl[i].(map[string]any)["script"].([]any); ok && len(sc) > 1 {
				for j := range sc {
					edit(func(d map[string]any) bool {
						c := d["workload"].(map[string]any)["generate"].(map[string]any)["clients"].([]any)[i].(map[string]any)
						c["script"] = slices.Delete(c["script"].([]any), j, j+1)
						return true
					})
				}
			}
		}
	}
	for name, s := range d["services"].(map[string]any) {
		calls, _ := s.(map[string]any)["calls"].([]any)
		for j := range calls {
			edit(func(d map[string]any) bool {
				sp := d["services"].(map[string]any)[name].(map[string]any)
				c := slices.Delete(sp["calls"].([]any), j, j+1)
				if len(c) == 0 {
					delete(sp, "calls")
				} else {
					sp["calls"] = c
				}
				return true
			})
		}
	}
	lines := strings.Split(d["ubbconfig"].(string), "\n")
	section := ""
	for i, l := range lines {
		if strings.HasPrefix(l, "*") {
			section = l
			continue
		}
		if l == "" || (section != "*SERVERS" && section != "*SERVICES" && section != "*ROUTING") {
			continue
		}
		edit(func(d map[string]any) bool {
			d["ubbconfig"] = strings.Join(slices.Delete(slices.Clone(lines), i, i+1), "\n")
			return true
		})
	}
	return out
}
