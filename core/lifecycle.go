package core

import (
	"math"
	"slices"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/life"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/internal/vocab"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/workload"
)

// instState is the life-cycle state of a server instance (docs/engine.md,
// "Life cycle"). Candidates are the first three.
type instState uint8

// The instance states.
const (
	stateUp         instState = iota // running: takes and processes requests
	stateDown                        // crashed, not yet noticed by the BBL
	stateRestarting                  // the BBL is restarting it; up tuning.boot_ms later
	stateStopping                    // shut down: finishes its request, then gone
	stateBooting                     // booted from gone; up tuning.boot_ms later
	stateGone                        // not running (spares start gone)
)

var instStates = vocab.Table[instState]{What: "state", Names: []string{"up", "down", "restarting", "stopping", "booting", "gone"}}

// String returns the state's name as results and explanations spell it.
func (s instState) String() string { return instStates.Name(s) }

// candidate reports whether an instance in state s is a candidate of the
// services it advertises: up, down or restarting.
func (s instState) candidate() bool { return s <= stateRestarting }

// noTime is "never": the time of nothing pending.
const noTime = math.MaxInt64

// lifeChange is one entry of the result's life-cycle list.
type lifeChange struct {
	t        int64
	srv      int32
	from, to instState
	cause    life.Cause
}

// spawnSet is one *SERVERS entry with CLOPT -p: its queues (the MSSQ
// queue; for a conversational entry without RQADDR, each instance's own),
// its instances and the time since which the BBL has seen the measure at
// or above high (-1: not now).
type spawnSet struct {
	sp          ubb.Spawn
	queues      []int32
	machine     int32
	servers     []int32 // the entry's instances, scan order
	minSrvID    int     // SRVIDs from here on are spares
	terminateUS int64   // a spare idle this long ends itself
	above       int64
}

// lifecycle is the engine's state for server life cycles. It exists only
// when something can change an instance's state (scenario events,
// SVCTIMEOUT, -p, spares); otherwise the engine's hot path sees a nil
// pointer and a next-event time of noTime.
type lifecycle struct {
	events   []plan.Event
	next     int // the next scenario event
	items    life.Heap
	scanUS   int64 // SCANUNIT
	sanityUS int64 // SCANUNIT x SANITYSCAN
	bootUS   int64
	nextScan int64 // the next BBL scan that makes -p decisions; noTime without -p
	sets     []spawnSet
	setOf    []int32 // per instance: its spawnSet when it is a spare with an idle alarm
	timeouts []int64 // SVCTIMEOUT in us at [service*ngroups+group]; nil when none
	ngroups  int
	// per instance, as Oracle's MIB keeps them: the generation (1 when it
	// first came up, one more for each counted restart) and when that
	// generation's count started (the instant it came up, or a GRACE reset)
	gen     []int32
	startUS []int64
	changes []lifeChange
	dirty   bool // the candidates changed: rebuild them before the next choice
	// lost machines (nil without lose events): lost[m], and per instance listed[i]: gone with its
	// machine, still a candidate until the DBBL notices; lostGen[m] cancels a pending notice when
	// the machine comes back first
	lost           []bool
	nlost          int
	listed         []bool
	lostGen        []uint32
	bblQueryUS     int64
	machineChanges []machineChange
}

// machineChange is one entry of the result's machine_changes.
type machineChange struct {
	t       int64
	machine int32
	what    string
}

// initLifecycle sets up e.life when something can change an instance's
// state: scenario events, a SVCTIMEOUT or a -p. (The initial states are
// set by initServers: spares start gone.)
func (e *engine) initLifecycle() {
	e.nextLife = noTime
	m := e.m
	L := &lifecycle{events: e.setup.Events, scanUS: m.ScanUnitUS, sanityUS: m.ScanUnitUS * int64(max(m.SanityScan, 1)),
		bootUS: e.setup.BootUS, nextScan: noTime, ngroups: len(m.Groups)}
	L.timeouts = e.serviceTimeouts()
	L.sets = e.spawnSets()
	for k := range L.events {
		if k := L.events[k].Kind; (k == plan.EventLose || k == plan.EventRestore) && L.lost == nil {
			L.lost, L.lostGen = make([]bool, len(m.Machines)), make([]uint32, len(m.Machines))
			L.listed = make([]bool, len(e.servers))
			L.bblQueryUS = m.ScanUnitUS * int64(max(m.BBLQuery, 1))
		}
	}
	if len(L.events) == 0 && L.timeouts == nil && len(L.sets) == 0 {
		return
	}
	if L.scanUS <= 0 {
		L.scanUS = 10_000_000
		L.sanityUS = L.scanUS * 12
	}
	if len(L.sets) > 0 {
		L.nextScan = L.scanUS
		e.initAlarms(L)
	}
	L.gen = make([]int32, len(e.servers))
	L.startUS = make([]int64, len(e.servers))
	for i := range L.gen {
		L.gen[i] = 1 // spares too: a boot sets both again when it comes up
	}
	e.life = L
	e.more = true // until the loop knows: -p scans are due from the start
	e.scheduleLife()
}

// initAlarms gives the spares of each -p set their idle alarm, except where
// it could never end them: with low 0 the measure is never below low.
func (e *engine) initAlarms(L *lifecycle) {
	for k := range L.sets {
		set := &L.sets[k]
		if set.sp.Low == 0 || set.sp.Conv {
			continue // never below 0; non-MSSQ conversational servers do not decay
		}
		for _, i := range set.servers {
			if e.m.Servers[i].SrvID < set.minSrvID {
				continue // MIN instances never decay
			}
			if L.setOf == nil {
				L.setOf = make([]int32, len(e.servers))
			}
			L.setOf[i] = int32(k)
			e.servers[i].idleAlarm = true
		}
	}
}

// initialState is the state an instance starts in: up, or gone for a spare.
func (e *engine) initialState(i int) instState {
	if e.m.Servers[i].Spare {
		return stateGone
	}
	return stateUp
}

// serviceTimeouts returns SVCTIMEOUT in us per (service, group), or nil
// when no service has one.
func (e *engine) serviceTimeouts() []int64 {
	m := e.m
	var out []int64
	for s := range m.Services {
		for g := range m.Groups {
			to := m.Services[s].Params(m.Groups[g].Name).SvcTimeoutS
			if to <= 0 {
				continue
			}
			if out == nil {
				out = make([]int64, len(m.Services)*len(m.Groups))
			}
			out[s*len(m.Groups)+g] = int64(to) * 1_000_000
		}
	}
	return out
}

// spawnSets lists the *SERVERS entries whose -p can act.
func (e *engine) spawnSets() []spawnSet {
	var out []spawnSet
	byEntry := map[int]int{}
	for i := range e.m.Servers {
		s := &e.m.Servers[i]
		if s.Life == nil || s.Life.Spawn == nil {
			continue
		}
		k, ok := byEntry[s.Life.Entry]
		if !ok {
			k = len(out)
			byEntry[s.Life.Entry] = k
			out = append(out, spawnSet{sp: *s.Life.Spawn, machine: int32(s.Machine),
				minSrvID: s.Life.MinSrvID, terminateUS: int64(s.Life.Spawn.TerminateS) * 1_000_000, above: -1})
		}
		set := &out[k]
		set.servers = append(set.servers, int32(i))
		if q := int32(s.QueueIdx); !slices.Contains(set.queues, q) {
			set.queues = append(set.queues, q)
		}
	}
	return out
}

// scheduleLife recomputes when the next life-cycle step is due: the next
// scenario event, the next BBL work item, or the next -p scan while
// requests remain to be issued or are in the system.
func (e *engine) scheduleLife() {
	L := e.life
	t := int64(noTime)
	if L.next < len(L.events) {
		t = L.events[L.next].AtUS
	}
	if len(L.items) > 0 {
		t = min(t, L.items[0].T)
	}
	if L.nextScan != noTime && (e.more || e.inSystem > 0) {
		t = min(t, L.nextScan)
	}
	e.nextLife = t
}

// lifeDue reports whether the life-cycle step at e.nextLife runs before
// the next completion, the next network arrival and the next new request.
// It first notes whether the workload has more requests to issue (e.more:
// have, or a client that will issue again), for the step and scheduleLife.
func (e *engine) lifeDue(have bool, next *workload.Request) bool {
	e.more = have || e.app != nil && e.app.active > 0
	t := e.nextLife
	return (e.heap.Len() == 0 || t <= e.heap.Top().T()) && t <= e.arr.Next && (!have || t <= next.TimeUS) &&
		(e.app == nil || t <= e.app.topT(e, t))
}

// lifeStep runs everything of the life cycle at e.nextLife, in the order of
// docs/engine.md: scenario events (as listed: eventsTurn), then the BBL's
// work (bblTurn): crash notices and SVCTIMEOUT aborts (scan order), -p
// spawning decisions, instances coming up (scan order), -p spares ending
// themselves (scan order). have and next are the loop's next new request,
// for skipping scans that cannot change anything (skipScans).
func (e *engine) lifeStep(have bool, next *workload.Request) {
	L := e.life
	t := e.nextLife
	// -p scans and alarms play while requests remain to be issued or are
	// in the system, judged as the step begins
	active := e.more || e.inSystem > 0
	scan := L.nextScan == t
	if scan {
		L.nextScan += L.scanUS
		scan = active
	}
	e.dropStale(t, active)
	events := L.next < len(L.events) && L.events[L.next].AtUS == t
	if !scan && !events && (len(L.items) == 0 || L.items[0].T != t) {
		e.scheduleLife()
		return
	}
	e.advance(t)
	if events {
		e.spanUS = max(e.spanUS, t) // a scenario event is an event of the run
	}
	e.eventsTurn(t)
	e.bblTurn(t, scan, active, have, next)
	e.scheduleLife()
}

// dropStale pops the life-cycle items at t that no longer do anything;
// active: -p still plays (lifeStep).
func (e *engine) dropStale(t int64, active bool) {
	L := e.life
	for len(L.items) > 0 && L.items[0].T == t && (!e.live(&L.items[0]) || L.items[0].Kind == life.ItemDecay && !active) {
		// a completed request's timeout check, a cancelled restart, the
		// alarm of a spare that worked since (set again if it is idle)
		if it := L.items.Pop(); it.Kind == life.ItemDecay {
			e.alarmDue(&it, t, active)
		}
	}
}

// eventsTurn applies the scenario events at t, as listed.
func (e *engine) eventsTurn(t int64) {
	L := e.life
	for L.next < len(L.events) && L.events[L.next].AtUS == t {
		e.applyEvent(&L.events[L.next], t)
		L.next++
	}
}

// bblTurn is the BBL's work at t, after the scenario events: crash notices
// and SVCTIMEOUT aborts (scan order), the -p spawning decisions when scan,
// then the items of the later phases (bblItems); the candidates are rebuilt
// last if an instance's state changed. active, have and next are lifeStep's.
func (e *engine) bblTurn(t int64, scan, active, have bool, next *workload.Request) {
	L := e.life
	for len(L.items) > 0 && L.items[0].T <= t && life.Phase(L.items[0].Kind) == 0 {
		it := L.items.Pop()
		e.noticeOrAbort(&it, t)
	}
	if scan {
		e.spawnScan(t)
		if !e.opt.everyScan {
			e.skipScans(t, have, next) // before the come-ups and alarms of t, which it counts as events
		}
	}
	e.bblItems(t, active)
	if L.dirty {
		e.rebuildCandidates()
	}
}

// bblItems plays the life-cycle items still due at t after the spawning
// decisions, in the heap's order (itemPhase): instances coming up and -p
// spares ending themselves (scan order), and any notice or abort due by
// then. active: -p still plays (lifeStep).
func (e *engine) bblItems(t int64, active bool) {
	L := e.life
	for len(L.items) > 0 && L.items[0].T <= t {
		it := L.items.Pop()
		switch it.Kind {
		case life.ItemUp:
			e.comeUp(&it, t) // with terminate 0 it may set an alarm of this instant
		case life.ItemDecay:
			e.alarmDue(&it, t, active)
		default:
			e.noticeOrAbort(&it, t)
		}
	}
}

// skipScans moves the next -p scan past those that cannot change anything.
// A scan's decisions read only the waiting requests and up instances of
// each set, which change only at an event (a completion, an arrival, a new
// request, a scenario event, a life-cycle work item: a spare's idle alarm
// is one), and the time since the high-water mark was first met. So after
// the scan at t, every scan before the next event (come-ups and alarms at t
// included) decides what this one did, unless a set's create time runs out
// first with a spare to boot: the next scan that matters is the first at or
// after the earlier of the two. (A scan at the instant of a completion, an
// arrival or a request runs before it, and sees what this one saw.)
func (e *engine) skipScans(t int64, have bool, next *workload.Request) {
	L := e.life
	tn := min(e.heap.TopT(), e.arr.Next)
	if have {
		tn = min(tn, next.TimeUS)
	}
	if L.next < len(L.events) {
		tn = min(tn, L.events[L.next].AtUS)
	}
	if len(L.items) > 0 {
		tn = min(tn, L.items[0].T)
	}
	for k := range L.sets {
		set := &L.sets[k]
		if set.above >= 0 && e.spareGone(set) {
			tn = min(tn, set.above+int64(set.sp.CreateS)*1_000_000)
		}
	}
	if tn > MaxTimeUS {
		L.nextScan = noTime // nothing will happen again: no scan can decide anything
		return
	}
	if at := life.ScanAtOrAfter(tn, L.scanUS); at > L.nextScan {
		L.nextScan = at
	}
}

// spareGone reports whether some spare of set (an SRVID from MIN on) is
// gone: one a spawn can boot.
func (e *engine) spareGone(set *spawnSet) bool {
	for _, i := range set.servers {
		if e.m.Servers[i].SrvID >= set.minSrvID && e.servers[i].state == stateGone {
			return true
		}
	}
	return false
}

// pushLife adds a life-cycle work item and brings the next step forward if
// needed. Past the longest simulated time: an abort is not needed (the
// request's own end is past it too, and that stops the run), nor is an
// alarm (the run ends first), while a notice or a come-up stops the run with
// an error naming what to change.
func (e *engine) pushLife(it life.Item) {
	if it.T > MaxTimeUS {
		if it.Kind != life.ItemAbort && it.Kind != life.ItemDecay && e.fault == nil {
			what := "the BBL's sanity scan would notice its crash"
			if it.Kind == life.ItemUp {
				what = "it would come up"
			}
			e.fault = diag.Errorf(diag.EINVALID, "events, tuning.boot_ms, SCANUNIT x SANITYSCAN: instance %s: %s at %s ms, past the longest simulated time (%s)",
				e.m.Servers[it.Srv].ID, what, usec.FormatMS(it.T), usec.MaxText)
		}
		return
	}
	e.life.items.Push(it)
	e.nextLife = min(e.nextLife, it.T)
}

// setState moves instance i to state to at t, recording the change.
func (e *engine) setState(i int32, to instState, cause life.Cause, t int64) {
	sv := &e.servers[i]
	from := sv.state
	L := e.life
	L.changes = append(L.changes, lifeChange{t: t, srv: i, from: from, to: to, cause: cause})
	e.spanUS = max(e.spanUS, t)
	sv.state = to
	q := &e.queues[sv.queue]
	if from == stateGone {
		q.gone--
	}
	if to == stateGone {
		q.gone++
	}
	if from.candidate() != to.candidate() {
		L.dirty = true
	}
	if to != stateUp && !(to == stateDown) {
		// restarting, stopping, booting and gone never look idle; a down
		// instance keeps the look it had when it crashed
		e.markBusy(i)
	}
}

// applyEvent applies a scenario event to each of its instances, in scan order.
func (e *engine) applyEvent(ev *plan.Event, t int64) {
	switch ev.Kind {
	case plan.EventLose:
		e.loseMachine(ev, t)
		return
	case plan.EventRestore:
		e.restoreMachine(ev, t)
		return
	}
	for _, i := range ev.Servers {
		if e.lostAt(e.servers[i].machine) {
			continue // nothing runs on a lost machine
		}
		sv := &e.servers[i]
		switch ev.Kind {
		case plan.EventKill:
			if sv.state == stateUp {
				e.crash(i, life.Kill, t)
				e.pushLife(life.Item{T: e.nextSanity(t), Srv: i, Gen: sv.gen, Kind: life.ItemNotice})
			}
		case plan.EventShutdown:
			e.shutdown(i, life.Shutdown, t)
		case plan.EventBoot:
			if sv.state == stateGone && !e.lostAt(sv.machine) {
				e.boot(i, life.Boot, t)
			}
		case plan.EventLose, plan.EventRestore:
		default:
			panic("core: applyEvent: unknown event kind " + ev.Kind.String())
		}
	}
}

// nextSanity returns the first sanity scan at or after t (k >= 1).
func (e *engine) nextSanity(t int64) int64 { return life.ScanAtOrAfter(t, e.life.sanityUS) }

// crash makes up instance i down at t: the request it was processing is
// held (not worked on) until the crash is noticed; its idle or busy look
// stays as it was.
func (e *engine) crash(i int32, cause life.Cause, t int64) {
	sv := &e.servers[i]
	e.setState(i, stateDown, cause, t)
	sv.gen++ // a new generation: BBL work items from before the crash no longer apply
	if e.q != nil && e.q.fwOf[i] >= 0 {
		e.fwdCrash(i, t)
	}
	if sv.mt != nil {
		e.mtCrash(i, t)
		return
	}
	if sv.busy {
		e.accrueBusy(sv, t)
		if e.app != nil {
			e.crashHold(i, sv.cur, t)
		}
		sv.busy = false
		sv.held = sv.cur
	}
}

// shutdown stops instance i at t: an up instance finishes its request
// (stopping) or is gone at once; a restarting one is gone, its restart
// cancelled. Other states: nothing.
func (e *engine) shutdown(i int32, cause life.Cause, t int64) {
	sv := &e.servers[i]
	switch {
	case sv.state == stateUp && (holdsAny(sv) || e.q != nil && e.fwdBusy(i)):
		sv.stopCause = cause
		e.setState(i, stateStopping, cause, t)
	case sv.state == stateUp, sv.state == stateRestarting:
		sv.gen++ // cancels a pending come-up
		e.setState(i, stateGone, cause, t)
		e.orphanCheck(sv.queue, t)
	}
}

// boot makes gone instance i booting at t; it comes up tuning.boot_ms later.
func (e *engine) boot(i int32, cause life.Cause, t int64) {
	sv := &e.servers[i]
	e.setState(i, stateBooting, cause, t)
	e.pushLife(life.Item{T: t + e.life.bootUS, Srv: i, Gen: sv.gen, Kind: life.ItemUp})
}

// stopped is a stopping instance finishing its request: it is gone.
func (e *engine) stopped(i int32, t int64) {
	sv := &e.servers[i]
	e.setState(i, stateGone, sv.stopCause, t)
	e.orphanCheck(sv.queue, t)
}

// orphanCheck fails the requests waiting in queue q if all its instances
// are gone.
func (e *engine) orphanCheck(qi int32, t int64) {
	if q := &e.queues[qi]; int(q.gone) == len(q.servers) && q.wait.n > 0 {
		e.drainQueue(qi, t, e.failSvc)
	}
}

// drainQueue empties queue qi at t, oldest first, ending each request with
// end.
func (e *engine) drainQueue(qi int32, t int64, end func(s int32, t int64)) {
	q := &e.queues[qi]
	e.accrueQueue(q, t)
	for q.wait.n > 0 {
		s := q.wait.popOldest(&e.pool, &e.levels)
		q.work -= int64(e.pool.At(s).load)
		if e.shmTrees {
			e.costChanged(qi, -1)
		}
		end(s, t)
	}
	e.st.queueLength(qi, 0, t)
}

// failSvc fails request s with TPESVCERR at t: the failure reaches the
// client at t, plus the crossing back from a remote queue.
func (e *engine) failSvc(s int32, t int64) {
	if e.app != nil {
		e.appFailSvc(s, t)
		return
	}
	f := e.pool.At(s)
	f.reason = reasonSvcErr
	f.replyUS = t
	if int(e.queues[f.queue].machine) != f.req.Origin {
		f.replyUS += e.setup.LatencyUS
	}
	e.spanUS = max(e.spanUS, f.replyUS)
	e.st.fail(f)
	e.ser.fail(f.reason)
	e.finish(s)
}
