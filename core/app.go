package core

import (
	"slices"
	"strconv"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/dlring"
	"github.com/tuxlb/tuxlb/core/internal/evq"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/workload"
)

// Applications (docs/engine.md, "Applications") are the steps a server runs
// after its own work (nested tpcall, tpacall and tpforward requests, the
// server held busy until their replies arrive), client populations that
// wait for each outcome before thinking and issuing the next request, and
// the caller's deadline. The engine has an appState only when the scenario
// has calls or clients; the plain path sees a nil pointer.
//
// This file holds what they share: the application state (appState, a
// request's appSlot), its events (appEvent, appHeap) merged in their order
// and played one a turn (appTurn), issue's hook (take), the senders retrying
// a full queue (blocked, retryEnter) and the figures (appResult). The call
// steps are in calls.go, the requests' ends and replies in replies.go, the
// client populations in clients.go, the deadlines in deadlines.go.

// callerKind is who waits for a request's outcome.
type callerKind uint8

const (
	callerNone   callerKind = iota // an open-loop trace or stream request: nobody waits
	callerClient                   // a client of a client set
	callerServer                   // a server instance holding the calling request
	callerTMS                      // a transaction's owner, committing (tran.go)
	callerFwd                      // a TMQFORWARD waiting for its forward (qforward.go)
)

// The classes of application events, in their order within an instant
// (after completions; arrivals and new trace and stream requests come
// between deadlines and client requests).
const (
	classReply        uint8 = iota // a reply or failure reaching a waiting caller
	classDeadline                  // a caller's deadline
	classTranDeadline              // a transaction's deadline (tran.go)
	classChoice                    // a workstation handler choosing a client's request (right after network arrivals)
	classRetry                     // a sender trying a full queue again (after network arrivals)
	classClient                    // a client issuing its next request
	classQAvail                    // a /Q message available again after its retry delay (qforward.go)
	classQWake                     // a TMQFORWARD looking for a message
)

// codeTimeout is the outcome a caller sees at its deadline (TPETIME); it is
// no dispatch reason, so it sits past them.
const codeTimeout reason = 255

// appEvent is one pending application event.
type appEvent struct {
	t         int64
	seq       int64 // order within the class: the replying or timed request's Seq, the client's index
	callerSeq int64 // the calling request's Seq, for a server caller
	awaited   int64 // the Seq the caller waits for
	caller    int32 // the client's index, or the calling request's slot
	class     uint8
	kind      callerKind
	code      reason // the outcome: 0 for a reply, else the failure (codeTimeout at a deadline)
}

func (a *appEvent) before(b *appEvent) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.class != b.class {
		return a.class < b.class
	}
	return a.seq < b.seq
}

// appHeap is a binary min-heap of appEvents. It is life.Heap's code for
// another type on purpose: a generic heap calls before through a
// dictionary instead of inlining it (about 5% more instructions on a run
// with SVCTIMEOUT, whose every start pushes a BBL item).
type appHeap []appEvent

func (h *appHeap) push(ev appEvent) {
	*h = append(*h, ev)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a[i].before(&a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *appHeap) pop() appEvent {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(a) && a[l].before(&a[m]) {
			m = l
		}
		if r := l + 1; r < len(a) && a[r].before(&a[m]) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// appSlot is what applications keep of one in-flight request, beside its
// flight record (same slot index). It holds no pointer, so that binding a
// caller to a request (take) copies plain memory; the slot's parent id and
// awaited children are appState's parent and outs.
type appSlot struct {
	kind       callerKind
	caller     int32 // the client, or the calling request's slot
	callerSeq  int64 // the calling request's Seq
	awaited    int64 // the Seq its caller waits for: its own, or the forwarding request's
	replyTo    int32 // the machine its reply goes to: its origin, or the caller of the request that forwarded to it
	fwdFrom    int32 // the slot of the request that forwarded to it, -1 for none
	fwdSeq     int64
	unanswered bool // a TPNOREPLY tpacall child, or a request one forwarded to: nobody waits for its reply, never sent
	ws         bool // its caller is a workstation client, whose handler takes a draw to pass its reply or failure on
	// as a calling request:
	holding   bool  // its server holds it, waiting for replies
	forwarded bool  // it ended with tpforward; its reply is its child's
	step      int32 // the next call step to run
	pending   int32 // replies still awaited before the next step
	tran      int32 // its transaction: 1 + its index in tranState.xs, 0 for none
}

// appState is the engine's state for applications.
type appState struct {
	plan      *plan.App
	slots     []appSlot
	parent    []string  // per slot: the calling request's id, for the dispatch log's parent column ("" without ids)
	outs      [][]int64 // per slot: as a calling request, the Seqs of the children whose replies it awaits
	cl        []clientState
	replies   appHeap         // replies and failures on their way to a waiting caller
	dl        []deadlineQueue // the callers' deadlines, one queue per length
	dlLo      int64           // at most the time of the first of them (noTime: none): next passes them by while it is later
	lo        int64           // at most the first time of the replies, client requests, deadlines and retries (a push lowers it, due sets it); -1 for good with transactions or /Q
	dlOf      []int32         // per service: its deadline queue, -1 for no deadline
	rings     dlring.Rings    // per deadline queue, the clients awaiting a deadline of its length (deadlines.go)
	clients   evq.Wheel       // the clients' next requests: keys (time, client index)
	clientTop appEvent        // the clients' next request as next returns it: its time and client (seq) are next's
	dueSrc    int             // where the event due last found waits (next's second result), for pop
	retries   appHeap         // requests waiting for room in a full queue, and workstation handlers' choices
	wsh       *wshState       // the workstation front end; nil when no client set has via
	tdl       *appHeap        // the transactions' deadlines (tranState.dl), nil without transactions
	qs        *qState         // /Q, nil without qspaces
	active    int             // clients that will issue again
	ahead     [4]int64        // client outcomes handed over ahead of their turn, those a deadline kept to it (clientReply), replies played in their completion's turn (replyAhead), requests ended in steps (plainEnd)
	bind      appSlot
	req       workload.Request // the request a client issues (clientIssue): ServiceUS -1, no Seq, Prio or trace flags
	bindID    string           // the bound request's parent id
	bound     bool
	quick     bool   // no workstation handlers, transactions, /Q or replyTurns: plainEnd
	atIssue   reason // the failure at issue of the request issue just took, 0 for none
	// failover[s] and noDomain[s] count the requests of imported service s
	// (issued after the warm-up) that a gateway sent to an alternate remote
	// domain, and those it failed because no domain of the list was up.
	failover, noDomain []int64
	held               []int64
	holdAt             []int64
	nested             int64
	noreply            int64 // TPNOREPLY children issued
	retried            int64
	tries              int64   // tries of a full queue that found it full (blocked): at most maxTries, or 100 a request
	calls              []int64 // per service: requests its servers issued as a caller
	acc                []clientAcc
	draw               rng.PCG
	cur                int32  // the slot take gave the last request issued
	mode               string // how the request being bound is issued, for explanations
	why                string // why the last request failed with TPESVCFAIL, for explanations
}

// plainEnd reports whether the request server sv ends now ends as a plain
// one does, its reply sent (endServed): steps ends it, and answers its caller.
func (a *appState) plainEnd(e *engine, sv *serverState) bool {
	f := e.pool.At(sv.cur)
	return a.quick && !sv.gateway && a.plan.Calls[f.req.Service] == nil && !f.unanswered && !f.forwardee
}

// explainCaller notes who issued the request being explained (the one take
// just numbered).
func (a *appState) explainCaller(e *engine, ex *result.Explanation) {
	sl := &a.slots[a.cur]
	if sl.kind == callerFwd {
		ex.Mode, ex.IssuedBy = "forward", e.m.Servers[e.q.fw[sl.caller].server].ID
		return
	}
	if a.parent[a.cur] == "" {
		return
	}
	ex.Parent, ex.Mode = a.parent[a.cur], a.mode
	p := sl.caller
	if sl.fwdFrom >= 0 {
		p = sl.fwdFrom
	}
	if f := e.pool.At(p); f.server >= 0 {
		ex.IssuedBy = e.m.Servers[f.server].ID
	}
}

// newAppState sets up applications for e: every client's first think.
func newAppState(e *engine, ap *plan.App) *appState {
	a := &appState{plan: ap, held: make([]int64, len(e.servers)), holdAt: make([]int64, len(e.servers)),
		calls: make([]int64, len(e.m.Services)), acc: make([]clientAcc, len(ap.Clients)),
		failover: make([]int64, len(e.m.Services)), noDomain: make([]int64, len(e.m.Services)), dlLo: noTime,
		lo: -1}
	a.dlOf = make([]int32, len(ap.BlockUS))
	for sv, lim := range ap.BlockUS {
		a.dlOf[sv] = -1
		if lim <= 0 {
			continue
		}
		k := slices.IndexFunc(a.dl, func(q deadlineQueue) bool { return q.lim == lim })
		if k < 0 {
			k = len(a.dl)
			a.dl = append(a.dl, deadlineQueue{lim: lim, unl: noTime})
		}
		a.dlOf[sv] = int32(k)
	}
	a.cl, a.rings = make([]clientState, ap.NClient), dlring.New(ap.NClient, len(a.dl))
	a.clients.Init(evq.WheelFor(ap.Timers()))
	a.clientTop = appEvent{class: classClient, kind: callerClient}
	a.req.ServiceUS = -1
	a.wsh = connectClients(e, a) // at t = 0, before anything else
	for k := range ap.Clients {
		cp := &ap.Clients[k]
		for c := 0; c < cp.Count; c++ {
			g := cp.First + c
			cl := &a.cl[g]
			cl.acc, cl.cp, cl.c, cl.g, cl.dlAt = &a.acc[k], cp, int32(c), int32(g), noTime
			cl.rng.Seed(cp.KeyBase, uint64(c))
			cl.key = workload.Mix64(cp.KeyBase ^ workload.Mix64(uint64(c)+1))
			if cl.off {
				continue // not connected: it issues nothing
			}
			if at := a.pause(cp.Think, &cl.rng); at < ap.EndUS {
				a.think(g, at)
				a.active++
			}
		}
	}
	return a
}

// next returns the next application event (nil for none) and where it
// waits: 0 the replies, 1 the clients, 2+k deadline queue k; a client's
// request or a caller's deadline after horizon is not looked for. It drops
// the events that would change nothing as it finds them, without a turn
// (they must not move the clock: the deadlines of a run's last requests
// would stretch its series long past its last outcome): the deadlines of
// callers that have had their outcome (settled), the transactions'
// deadlines of those ended or committing.
func (a *appState) next(e *engine, horizon int64) (*appEvent, int) {
	var top *appEvent
	src := -1
	if len(a.replies) > 0 {
		top, src = &a.replies[0], 0
	}
	if !a.clients.Empty() {
		// a client's request: (t, classClient, its index)
		k := a.clients.Top()
		if t, g := k.T(), int64(k.Idx()); t <= horizon && (top == nil || t < top.t || t == top.t && (classClient < top.class || classClient == top.class && g < top.seq)) {
			a.clientTop.t, a.clientTop.seq = t, g // (its class and kind are set once)
			top, src = &a.clientTop, 1
		}
	}
	if len(a.retries) > 0 && (top == nil || a.retries[0].before(top)) {
		top, src = &a.retries[0], -2
	}
	for a.tdl != nil && len(*a.tdl) > 0 && (top == nil || (*a.tdl)[0].before(top)) {
		if !e.tranSettled(&(*a.tdl)[0]) {
			top, src = &(*a.tdl)[0], -3
			break
		}
		a.tdl.pop()
	}
	if q := a.qs; q != nil {
		if len(q.avail) > 0 && (top == nil || q.avail[0].before(top)) {
			top, src = &q.avail[0], -4
		}
		if len(q.wake) > 0 && (top == nil || q.wake[0].before(top)) {
			top, src = &q.wake[0], -5
		}
	}
	// The callers' deadlines last: they are mostly long after the rest
	// (passed by while dlLo is later than the first of the rest), and each
	// source's first event is checked only when it would come first
	// (whichever it drops could not change what comes next). A queue's
	// first waiting client is the first of its clients' deadlines.
	if a.dlLo <= horizon && (top == nil || a.dlLo <= top.t) {
		lo := int64(noTime)
		for k := range a.dl {
			q := &a.dl[k]
			if q.unl <= horizon {
				a.link(q, k, e.issued)
			}
			if g := a.rings.First(k); g >= 0 {
				c := &a.cl[g]
				q.top = appEvent{t: c.dlAt, seq: c.waiting, class: classDeadline, kind: callerClient, caller: g, awaited: c.waiting}
				if lo = min(lo, c.dlAt); c.dlAt <= horizon && (top == nil || q.top.before(top)) {
					top, src = &q.top, -6-k
				}
			}
			for ; q.head < len(q.evs) && q.evs[q.head].t <= horizon && (top == nil || q.evs[q.head].before(top)); q.head++ {
				if !e.settled(&q.evs[q.head]) {
					top, src = &q.evs[q.head], 2+k
					break
				}
			}
			if lo = min(lo, q.unl); q.head < len(q.evs) {
				lo = min(lo, q.evs[q.head].t) // a queue's deadlines come in time order
			}
		}
		a.dlLo = lo
	}
	return top, src
}

// link takes queue k's (q's) clients out of its ring into it in issue order, (issue time, client)
// (an instant's clients issue in their timers' order); q turns eager when such scans cost more.
func (a *appState) link(q *deadlineQueue, k int, issued int64) {
	var keys []evq.Event
	for g := range a.cl[:a.plan.NClient] {
		if c := &a.cl[g]; c.waiting != 0 && c.dlAt != noTime && int(a.dlOf[c.service]) == k && !a.rings.Linked(int32(g)) {
			keys = append(keys, evq.Key(c.issueUS, int32(g)))
		}
	}
	q.eager, q.unl, q.scanned = issued-q.scanned < int64(a.plan.NClient/2+4*a.rings.Add(k, keys)), noTime, issued
}

// pop removes and returns the next application event, the one due just
// found (appTurn runs right after it), but for a client's request, which
// appTurn takes itself.
func (a *appState) pop() appEvent {
	switch src := a.dueSrc; src {
	case 0:
		return a.replies.pop()
	case -2:
		return a.retries.pop()
	case -3:
		return a.tdl.pop()
	case -4:
		return a.qs.avail.pop()
	case -5:
		return a.qs.wake.pop()
	default:
		if src <= -6 {
			return a.dl[-6-src].top // its client ends its wait (clientOutcome)
		}
		q := &a.dl[src-2]
		q.head++
		return q.evs[q.head-1]
	}
}

// topT is when the next application event is due, if it is at most
// horizon; else anything above horizon (noTime for none).
func (a *appState) topT(e *engine, horizon int64) int64 {
	if top, _ := a.next(e, horizon); top != nil {
		return top.t
	}
	return noTime
}

// due reports whether the next application event runs before the
// completion at tc, the network arrival at ta and the new request at tn:
// replies and deadlines come after completions and before arrivals and new
// requests of their instant; client requests come last. Its caller (steps)
// calls it only when lo is at most the earliest of the three.
func (a *appState) due(e *engine, tc, ta, tn int64) bool {
	h := min(tc, ta, tn)
	// most turns: no source has anything by then (a lost machine's timers
	// are dropped with it: every timer is due); lo is their first time then
	if a.tdl == nil && a.qs == nil {
		lo := a.dlLo
		if len(a.replies) > 0 {
			lo = min(lo, a.replies[0].t)
		}
		if len(a.retries) > 0 {
			lo = min(lo, a.retries[0].t)
		}
		// a client's request before anything else (its class is the last
		// of an instant): next would find it (none: evq.None, at
		// evq.EmptyT, after h)
		k := a.clients.Top()
		if t, g := k.T(), k.Idx(); t < lo && t < h {
			a.lo, a.dueSrc, a.clientTop.t, a.clientTop.seq = t, 1, t, int64(g)
			return true
		}
		lo = min(lo, k.T())
		if a.lo = lo; lo > h {
			return false
		}
	}
	top, src := a.next(e, h)
	a.dueSrc = src
	if top == nil {
		return false
	}
	switch top.class {
	case classReply, classDeadline, classTranDeadline:
		return top.t < tc && top.t <= ta && top.t <= tn
	case classChoice, classRetry:
		return top.t < tc && top.t < ta && top.t <= tn
	}
	return top.t < tc && top.t < ta && top.t < tn
}

// take is issue's hook: slot s holds request f, just issued and numbered.
// It gives f the caller the issuer bound, if any (the slot's data beside
// its record: grow makes room for it).
func (a *appState) take(e *engine, s int32, f *flight) {
	a.cur = s
	// (the parent ids only with ids: the dispatch log and explanations
	// read them; a request's awaited children are cleared as it becomes a
	// caller)
	sl := &a.slots[s]
	if a.bound {
		sl.set(&a.bind)
		a.bound = false
		if e.ids {
			a.parent[s], a.bindID = a.bindID, ""
		}
	} else {
		*sl = appSlot{replyTo: -1, fwdFrom: -1, awaited: -1}
		if e.ids {
			a.parent[s] = ""
		}
	}
	if sl.awaited < 0 {
		sl.awaited = f.req.Seq
	}
	if sl.tran != 0 {
		e.tr.xs[sl.tran-1].live++ // a request in a transaction (tranLeave)
	}
	if sl.replyTo < 0 {
		sl.replyTo = int32(f.req.Origin)
	}
	f.forwardee, f.unanswered = sl.fwdFrom >= 0, sl.unanswered
	a.atIssue = 0
}

// bindTo binds the request issued next to caller (kind, caller, callerSeq) in
// transaction tran, its reply going to its origin, and returns the binding for
// the rest; field by field, as take reads it (set): a literal with computed
// fields is built on the stack and copied, wide loads waiting for narrow stores.
func (a *appState) bindTo(kind callerKind, caller int32, callerSeq int64, tran int32) *appSlot {
	b := &a.bind
	b.kind, b.caller, b.callerSeq, b.awaited, b.replyTo, b.fwdFrom, b.fwdSeq = kind, caller, callerSeq, -1, -1, -1, 0
	b.unanswered, b.ws, b.holding, b.forwarded, b.step, b.pending, b.tran = false, false, false, false, 0, 0, tran
	return b
}

// set makes sl a copy of b, field by field (bindTo).
func (sl *appSlot) set(b *appSlot) {
	sl.kind, sl.caller, sl.callerSeq, sl.awaited, sl.replyTo, sl.fwdFrom, sl.fwdSeq = b.kind, b.caller, b.callerSeq, b.awaited, b.replyTo, b.fwdFrom, b.fwdSeq
	sl.unanswered, sl.ws, sl.holding, sl.forwarded, sl.step, sl.pending, sl.tran = b.unanswered, b.ws, b.holding, b.forwarded, b.step, b.pending, b.tran
}

// idOf is request f's id as the dispatch log writes it.
func idOf(f *flight) string {
	if f.req.ID != "" {
		return f.req.ID
	}
	return strconv.FormatInt(f.req.Seq, 10)
}

// appTurn runs the next application event, the turn of its class: a reply
// or failure reaching its caller (deliver), a caller's deadline (deadline),
// a sender retrying a full queue (retryEnter), a client issuing its next
// request (clientIssue).
func (e *engine) appTurn() error {
	a := e.app
	if a.dueSrc == 1 {
		// a client's request (no event to copy)
		a.clients.Pop()
		t, g := a.clientTop.t, int32(a.clientTop.seq)
		e.advance(t)
		return e.clientIssue(int(g), t)
	}
	ev := a.pop()
	e.advance(ev.t)
	switch ev.class {
	case classReply:
		e.deliver(&ev)
	case classDeadline:
		e.deadline(&ev)
	case classRetry:
		e.retryEnter(&ev)
	case classTranDeadline:
		e.tranTimeout(&ev)
	case classChoice:
		e.wshChoice(&ev)
	case classQAvail:
		e.qAvailable(&ev)
	case classQWake:
		e.fwdWake(&ev)
	}
	return nil
}

// blocked is request s finding its queue full at t: its sender tries again
// every tuning.enqueue_retry_ms, the same queue, until the deadline of its
// issue (its service's BLOCKTIME, else SCANUNIT x BLOCKTIME) passes. A
// request nobody waits for (TPNOREPLY) and a TMS request have no deadline:
// theirs tries until the queue has room.
func (e *engine) blocked(s int32, t int64) {
	a := e.app
	f := e.pool.At(s)
	at, code := t+a.plan.RetryUS, reason(0)
	if lim := a.plan.BlockUS[f.req.Service]; lim > 0 && !f.unanswered && f.reason != reasonTMS && at >= f.req.TimeUS+lim {
		at, code = f.req.TimeUS+lim, reasonBlock
	}
	a.retries.push(appEvent{t: at, seq: f.req.Seq, class: classRetry, caller: s, code: code})
	a.lo = min(a.lo, at)
	if a.tries++; a.tries > max(maxTries, 100*e.issued) && e.fault == nil { // a try every µs for days would never end
		e.fault = diag.FieldErrorf("tuning.enqueue_retry_ms", "more than %d tries of full queues, every %s ms (request %d the last): raise it, or the queue_capacity", a.tries-1, usec.FormatMS(a.plan.RetryUS), f.req.Seq)
	}
}

// maxTries bounds the tries of full queues a run makes (with 100 per request issued; a var for the tests).
var maxTries int64 = 100_000_000

// retryEnter is a blocked request's sender at its next try: it enters the
// queue if it has room now, else waits again; at the deadline it fails with
// TPEBLOCK (its caller has had TPETIME then).
func (e *engine) retryEnter(ev *appEvent) {
	s := ev.caller
	f := e.pool.At(s)
	if ev.code == 0 {
		e.enter(s, f, ev.t)
		return
	}
	f.reason, f.replyUS = reasonBlock, ev.t
	e.spanUS = max(e.spanUS, ev.t)
	e.st.fail(f)
	e.ser.fail(f.reason)
	sl := e.app.slots[s]
	e.finish(s)
	e.answer(&sl, f.req.Seq, reasonBlock, ev.t)
}

// appResult adds the figures of applications to r.
func (e *engine) appResult(r *result.Result) {
	a := e.app
	nested, retried := a.nested, a.retried
	r.Requests.Nested, r.Requests.Retried = &nested, &retried
	if a.plan.NoReply {
		noreply := a.noreply
		r.Requests.Noreply = &noreply
	}
	for i := range r.Servers {
		held := usec.ToMS(a.held[i])
		r.Servers[i].HeldMS = &held
	}
	index := make(map[string]int, len(e.m.Services))
	for s := range e.m.Services {
		index[e.m.Services[s].Name] = s
	}
	for k := range r.Services {
		n := a.calls[index[r.Services[k].Name]]
		r.Services[k].CallsIssued = &n
	}
	spanS := float64(e.measuredUS()) / 1e6
	r.Clients = make([]result.ClientStats, len(a.plan.Clients))
	for k := range a.plan.Clients {
		cp, acc := &a.plan.Clients[k], &a.acc[k]
		failed := failedMap(acc.failed[:])
		n := acc.completed + acc.timedOut
		for _, x := range acc.failed {
			n += x
		}
		sum := acc.resp.Summary(acc.resp.Hist())
		cs := result.ClientStats{Name: cp.Name, Count: cp.Count, Requests: n, Completed: acc.completed, Failed: failed,
			TimedOut: acc.timedOut, Retried: acc.retried, ResponseMS: sum}
		if spanS > 0 {
			cs.ThroughputPerS = usec.Round6(float64(acc.completed) / spanS)
		}
		if n > 0 {
			cs.CycleMS = usec.Round6(sum.Mean + float64(acc.waited)/float64(n)/1000)
		}
		r.Clients[k] = cs
		acc.resp.ReleaseFront()
	}
	if a.wsh != nil {
		e.workstationResult(r)
	}
}
