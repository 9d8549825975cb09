package core

import (
	"math/bits"
	"strconv"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/costtree"
	"github.com/tuxlb/tuxlb/core/internal/evq"
	"github.com/tuxlb/tuxlb/core/internal/life"
	"github.com/tuxlb/tuxlb/core/internal/paged"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/threads"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/workload"
)

// Random streams derived from the seed (request keys use their own).
const (
	streamPolicy  = 0x706f6c // random and p2c choices
	streamService = 0        // service time of a request, seeded by its Key
	streamRemote  = 1        // remote domain's response time, seeded by its Key
	// a generated request's routing value, seeded by its Key
	streamRouteValue = workload.StreamRouteValue
)

// simOptions are the knobs of simulate beyond RunOptions.
type simOptions struct {
	RunOptions
	BinUS     int64 // series bin width; 0: chosen from HorizonUS
	HorizonUS int64 // expected time of the last issue (0: unknown)
	explain   *explainer
	// everyScan plays every -p scan, skipping none (for the tests that
	// check that skipping scans changes nothing)
	everyScan bool
	// replyTurns plays every reply in a turn of its own, and ends every
	// application's request in endServed (for the tests that check that
	// playing some ahead, and ending some in steps, changes nothing)
	replyTurns bool
}

// flightPool holds the engine's in-flight records, slot s's at
// pool.At(s), in pages that never move.
type flightPool = paged.Pool[flight]

// flight is the record of one request between its issue and its dispatch
// log row: pooled in engine.pool and reused through a free list, so the
// engine allocates nothing per request. It is three whole cache lines (a
// page of records is page aligned), and a waiting request's start and its
// completion read only the first two (TestFlightLayout).
type flight struct {
	next       int32 // link in a waitQueue level
	server     int32 // instance that processes it; -1 until it starts
	load       int32 // L(s,q) of the chosen queue (a LOAD, at most 32 767)
	queue      int32 // chosen queue (index into Model.Queues); -1 on failure
	startUS    int64
	endUS      int64
	replyUS    int64
	remoteUS   int64 // a gateway's remote-domain time
	enqueueUS  int64
	enqSeq     uint64
	reason     reason // the second line: its flags, then its request
	counted    bool   // issued at or after the warm-up: in the statistics
	forwardee  bool   // a tpforward child: no deadline of its own
	unanswered bool   // a TPNOREPLY tpacall child, or a request one forwarded to: no reply time, response or timeout
	prio       uint8  // effective priority 1..100
	done       bool   // its log row is complete
	orphan     bool   // it arrived over the network at an orphaned queue
	noReply    bool   // its tpforward child failed at its issue: its row has no reply time
	req        workload.Request
	chosen     int32 // instance the dispatch rule picked
	thread     int32 // its server's dispatch thread that took it (0-based; 0 single-threaded)
}

// reset makes f the fresh record of request r: the same as
// *f = flight{req: *r, queue: -1, server: -1, chosen: -1, counted: counted},
// written field by field into the pool, without the temporary copy of the
// whole record that the compiler makes for the composite literal.
func (f *flight) reset(r *workload.Request, counted bool) {
	f.next, f.server, f.load, f.queue = 0, -1, 0, -1
	f.startUS, f.endUS, f.replyUS, f.remoteUS, f.enqueueUS, f.enqSeq = 0, 0, 0, 0, 0, 0
	f.reason, f.counted, f.forwardee, f.unanswered, f.prio, f.done, f.orphan, f.noReply = 0, counted, false, false, 0, false, false, false
	f.req.Set(r)
	f.chosen, f.thread = -1, 0
}

// serverState is a server instance as the engine plays it.
type serverState struct {
	busy      bool // processing a request (up or stopping)
	gateway   bool
	state     instState
	stopCause life.Cause // why a stopping instance stops
	idx       int32      // its index in Model.Servers
	cur       int32      // slot of the request it processes
	held      int32      // down: slot of the request it was processing when it crashed, -1 for none
	gen       uint32     // bumped when a pending come-up or BBL notice must not happen
	due       int64      // busy: when its request ends (its completion event's time)
	idleSince int64      // when it last finished a request or came up (0: up since the start)
	ran       bool       // it was up at some time of the run
	started   bool       // it started a request at some time of the run (threads_used)
	idleAlarm bool       // a spare of a -p set: idle for terminate seconds, it ends itself
	alarmSet  bool       // idleAlarm: its alarm is pending in the life-cycle heap
	queue     int32
	machine   int32
	group     int32
	speed     float64
	mark      int64 // start of busy time not yet accounted
	binBusy   int64 // busy time in the open series bin
	busyUS    int64 // busy time after the warm-up (the result's)
	// mt holds the dispatch threads of an instance with more than one (MAXDISPATCHTHREADS > 1,
	// mt.go); nil for one thread, whose state is the fields above. For a multithreaded instance
	// busy, cur, due, idleSince, mark and held are unused.
	mt *threads.Set
}

// queueState is a request queue as the engine plays it.
type queueState struct {
	// what a request that does not wait reads and writes of its queue, in
	// its first cache line (64 bytes: e.queues' elements are two whole lines)
	wait      waitQueue // 32 bytes
	work      int64     // W(q): sum of L(s,q) over waiting requests
	inService int32     // requests its instances hold (busy threads; held at a crash until the notice)
	threads   int32     // dispatch threads of its instances (their number when all have one)
	one       int32     // its one instance, -1 when it has several
	zero      uint32    // zero waits not yet in its distribution (stats.addApart)
	enqueued  uint32    // requests enqueued after the warm-up not yet in its counts (stats.addApart)
	// the second line: its instances, and its waiting line's length accounted as it changes
	// (accrueQueue), which a waiting request touches as it enters and as it starts
	n       int32 // n(q): instances that are candidates (up, down or restarting)
	gone    int32 // instances that are gone: all of them, and the queue is orphaned
	servers []int32
	machine int32
	maxLen  int32 // the longest waiting line after the warm-up
	lenMark int64 // start of the length's time not yet accounted
	binArea int64 // waiting x us in the open series bin
	area    int64 // the waiting line's length integrated over the measured time (µs)
}

// svcInfo is what the dispatch rules need about one service, precomputed.
type svcInfo struct {
	service int32      // the service's index in Model.Services
	all     []int32    // every instance advertising the service (spares too), scan order
	cands   []int32    // candidate instances in scan order
	candQ   []int32    // per candidate: index into queues
	queues  []svcQueue // distinct candidate queues, at their first candidate's position
	local   [][]int32  // per machine: the candidates on it, scan order
	// per machine: the candidates on it as a bit set of server indexes
	// (bit i of word i/64), to match against engine.idleBits
	localBits [][]uint64
	candBits  []uint64 // all candidates as a bit set of server indexes
	// candSum and localSum summarise candBits and localBits: bit w of word
	// w/64 set when word w has a candidate (see bitset.FirstCommon)
	candSum  []uint64
	localSum [][]uint64
	candRank []int32 // per word of candBits: the candidates in the words before it
	// routes is set for a service with a routing criterion: per range of
	// the criterion, the candidates it leaves (routing.go).
	routes []routeTarget
	// trees give the least cost when the service has at least costTreeMin
	// queues (costtree.go), else nil
	trees *costSlots
}

// queueOf returns the index into sv.queues of candidate server c: cands is
// in ascending server order, so c's position in it is the number of
// candidates before it, counted from candBits (a per-server table would cost
// services x servers memory; a binary search over cands mispredicted about
// two branches a request).
func (sv *svcInfo) queueOf(c int32) int32 {
	w := c >> 6
	below := sv.candBits[w] & (1<<(c&63) - 1)
	return sv.candQ[sv.candRank[w]+int32(bits.OnesCount64(below))]
}

// svcQueue is one distinct candidate queue of a service.
type svcQueue struct {
	q     int32
	first int32 // its first candidate instance
	load  int64 // L(s,q)
	// n(q), a copy of the queue's: the MP cost loop reads it with the
	// rest of the entry (fillCandidates refreshes it whenever n(q) changes)
	n       int64
	prio    int32 // PRIO of s for q's group
	machine int32 // the queue's machine
}

// engine plays one run forward.
type engine struct {
	setup *plan.Setup
	m     *Model
	opt   simOptions
	reqs  workload.Stream

	alg       algorithm
	idleQueue bool
	netOrigin bool
	loadOnly  bool
	maxReq    int64

	svc      []svcInfo
	queuePos []int32 // fillCandidates' scratch: per queue, its index in a service's queues or -1
	servers  []serverState
	chosen   []int64 // per instance: requests that chose it in the open series bin (dense: touched as a request is issued)
	queues   []queueState
	netload  []int64
	counters []int64 // MP: C_m(q) at [m*len(queues)+q]
	// shmTrees and mpTrees say some service reads its least cost from a tree (costtree.go): a
	// change of W(q) or of C_m(q) is listed in the live trees holding q
	shmTrees, mpTrees bool
	trees             costtree.Forest
	netFor            []int64  // MP: N(q) for origin m at [m*len(queues)+q]
	idleBits          []uint64 // bit i of word i/64 set while server i is not busy
	// idleSum summarises idleBits: bit w of word w/64 set while word w of
	// idleBits is not zero (see bitset.FirstCommon); sums says the model has
	// summaries (at least bitset.SummaryWords words of servers)
	idleSum []uint64
	sums    bool
	// slowIdle: idleQueue or sums, choose's first idle candidate is found by firstIdleOf
	slowIdle bool
	rr       []int64
	// noValue[s], noMatch[s]: requests of routed service s without a
	// routing value, or with one no range holds (for the warnings)
	noValue, noMatch []int64
	// noBuf[s]: requests of routed service s whose buffer type no entry of its criterion holds.
	noBuf []int64
	// routing[s] is the criterion of routed service s when its entries
	// differ by BUFTYPE (nil otherwise, and nil for all when none does):
	// nested requests pick their entry by the buffer type they inherit.
	routing []*workload.CritSet
	crit    []*criterion // crit[s]: service s's routing criterion (its first entry), nil for none
	bufs    *workload.BufTable
	rng     rng.PCG
	draw    rng.PCG

	heap      evq.Heap     // completions
	arr       evq.Arrivals // network arrivals
	life      *lifecycle   // nil when no instance can change state
	threaded  bool         // some instance has more than one dispatch thread (mt.go)
	mtNoReq   bool         // tuning mt_idle "no_request"
	app       *appState    // nil when the scenario has no calls and no clients
	tr        *tranState   // nil when no *SERVICES entry has AUTOTRAN=Y
	q         *qState      // nil when the scenario has no qspaces (qforward.go)
	routeSets []*svcInfo   // the per-group candidates of routed services (routing.go)
	nextLife  int64        // when the next life-cycle step is due; noTime for none
	more      bool         // the workload has more requests to issue
	inSystem  int64        // requests issued and not yet finished
	pool      flightPool
	levels    levels // the waiting queues' FIFOs
	free      []int32
	enqSeq    uint64
	now       int64
	issued    int64
	spanUS    int64
	stop      bool
	// fault is the first reason the run cannot go on (a time past MaxTimeUS), set where no error
	// can be returned and checked by loop after every step.
	fault     error
	events    int64 // completions and arrivals handled, for checkpoints while draining
	lifeSteps int64 // life-cycle steps run, for checkpoints between them

	nextReset    int64
	nextBoundary int64 // min(nextReset, series bin end)
	st           stats
	ser          series
	log          *dispatchLog
	logged       bool // a dispatch log or requests to explain (or transactions): see finish
	// ids: someone reads the requests' ids (a dispatch log, an explanation), so nested and client
	// requests get theirs (parent.step, NAME:c:n) and the log's parent column its value; without a
	// reader a request built here has no id (idOf gives its number), and no string is built for it
	ids bool
}

// algorithm is how choose picks a queue: the policy, with tuxedo resolved by
// MODEL and LDBAL.
type algorithm uint8

// Tuxedo's algorithms; those of the comparison policies follow them
// (core/vocab.go).
const (
	algFirst algorithm = iota
	algSHM
	algMP
)

// simulate plays reqs forward on setup and returns the result.
func simulate(setup *plan.Setup, reqs workload.Stream, opt simOptions) (*result.Result, error) {
	e, err := newEngine(setup, reqs, opt)
	if err != nil {
		return nil, err
	}
	if err := e.loop(); err != nil {
		_ = e.log.close(nil)
		return nil, err
	}
	if e.tr != nil {
		e.finishStuck()
	}
	e.spanEnd()
	if err := e.log.close(e); err != nil {
		return nil, diag.Errorf(diag.EINTERNAL, "dispatch log: %v", err)
	}
	return e.result(), nil
}

// loop is the event loop: completions, network arrivals and new requests in
// the order docs/engine.md gives, played by steps a slice at a time.
//
// steps returns to loop every 4096 requests or events. In WebAssembly a
// function runs in baseline code until it is called again after it got hot
// (V8 has no on-stack replacement for WebAssembly), so a single call playing
// the whole run would stay in baseline code to its end, at about half speed;
// and loop lets a garbage collection go on there between slices (letGCRun).
func (e *engine) loop() error {
	var next workload.Request
	have := e.reqs.Next(&next)
	for {
		var out stepOutcome
		var err error
		if have, out, err = e.steps(&next, have); err != nil {
			return err
		}
		if out == stepsStopped {
			return nil
		}
		if out == stepsDrained {
			break
		}
		letGCRun()
	}
	if err := e.reqs.Err(); err != nil {
		return err
	}
	e.finishSeries()
	return e.checkSums()
}

// stepOutcome is how a call of steps ended, or how a turn of it went.
type stepOutcome uint8

const (
	stepsMore    stepOutcome = iota // at a checkpoint: call steps again
	stepsStopped                    // the run stopped (e.stop)
	stepsDrained                    // no request or event is left
	// turnPlayed: the turn is played and steps goes on (never returned by
	// steps itself)
	turnPlayed
)

// steps plays the run forward from the next new request (next, if have)
// until the next checkpoint, and returns whether a new request is held in
// next then, and how it ended.
//
// Each pass plays one turn, the first due in the order within an instant
// of docs/engine.md: MP counter resets (applied by advance as the clock
// moves), scenario events and the BBL's work (lifeTurn), completions
// (completionTurn), the applications' replies and deadlines (appTurn),
// network arrivals (arrivalTurn), senders retrying a full queue (appTurn),
// new requests (requestTurn), client requests (appTurn).
func (e *engine) steps(next *workload.Request, have bool) (bool, stepOutcome, error) {
	// tn is when the next new request is due, capped below evq.EmptyT so that a
	// heap or FIFO with nothing in it (evq.EmptyT, noTime) never runs before it,
	// and evq.EmptyT-1 when there is none (every event runs before "no request").
	tn := capTime(have, next)
	for {
		tc := e.heap.TopT() // evq.EmptyT when empty; most turns pass the life cycle by on it (lifeDue's first test; noTime is past any tc)
		if e.nextLife <= tc && e.lifeDue(have, next) {
			if out, err := e.lifeTurn(have, next); out != turnPlayed {
				return have, out, err
			}
			continue
		}
		// completions run before arrivals of the same instant, both before
		// the next new request of that instant; no application event comes
		// before lo, which saves most turns a call
		if ta := e.arr.Next; e.app != nil && e.app.lo <= min(tc, ta, tn) && e.app.due(e, tc, ta, tn) {
			if err := e.appTurn(); err != nil {
				return have, stepsMore, err
			}
		} else if tc <= ta && tc <= tn {
			// The two turns every request takes, a completion and a new
			// request, start here rather than in a method of their own: a
			// call each would cost the plain path about 2.5% more
			// instructions a request. An application's request that ends
			// as a plain one does (plainEnd) ends here too, and its caller
			// is answered. The rest goes to completionTurn and requestTurn.
			i := e.heap.Pop().Idx()
			if sv := &e.servers[i]; sv.mt != nil || !sv.busy || sv.due != tc || e.app != nil && !e.app.plainEnd(e, sv) {
				if !e.completionTurn(i, sv, tc) {
					continue // stale: its instance crashed, it never completes
				}
			} else {
				// sv ends its request at tc (its reply on its way) and
				// takes its next one
				e.advance(tc)
				s := sv.cur
				f := e.pool.At(s)
				f.endUS = tc
				f.replyUS = tc + f.remoteUS
				if int(sv.machine) != f.req.Origin {
					f.replyUS += e.setup.LatencyUS
				}
				if f.replyUS > e.spanUS {
					e.spanUS = f.replyUS
					if f.replyUS > MaxTimeUS {
						e.overTime(f, f.replyUS, "its reply would reach its caller", e.replyFields(f, sv))
					}
				}
				e.accrueBusy(sv, tc)
				sv.busy = false
				q := &e.queues[sv.queue]
				q.inService--
				e.st.complete(f, sv)
				e.finish(s)
				if a := e.app; a != nil {
					a.ahead[3]++ // its caller answered as endServed does
					if sl := &a.slots[s]; sl.kind == callerClient {
						e.answerPlain(sl, f.req.Seq, f.replyUS)
					} else {
						e.answer(sl, f.req.Seq, 0, f.replyUS)
					}
				}
				if sv.state != stateUp {
					e.stopped(i, tc)
				} else {
					e.markIdle(i)
					sv.idleSince = tc
					if q.wait.n > 0 {
						e.takeNext(i, q, tc)
					} else if sv.idleAlarm {
						e.armDecay(i, tc)
					}
				}
				if e.app != nil && len(e.app.replies) > 0 { // (none waits in a run without calls)
					e.replyAhead(tc)
				}
			}
		} else if ta < tc && ta <= tn {
			e.arrivalTurn(ta)
		} else {
			if !have || next.TimeUS < e.now || next.TimeUS > MaxTimeUS || (e.life != nil && e.life.nlost > 0) || e.issued&4095 == 4095 {
				var out stepOutcome
				var err error
				if have, out, err = e.requestTurn(next, have); out != turnPlayed {
					return have, out, err
				}
			} else {
				e.advance(next.TimeUS)
				if err := e.issue(next); err != nil {
					return have, stepsMore, err
				}
				if e.fault != nil {
					return have, stepsMore, e.fault
				}
				if e.stop {
					return have, stepsStopped, nil
				}
				have = e.reqs.Next(next)
			}
			tn = capTime(have, next)
			continue
		}
		if !e.eventsGoOn() {
			out, err := e.eventCheckpoint()
			return have, out, err
		}
	}
}

// lifeTurn plays the life cycle's turn at e.nextLife (lifeStep: scenario
// events, then the BBL's work), and says whether steps goes on.
func (e *engine) lifeTurn(have bool, next *workload.Request) (stepOutcome, error) {
	e.lifeStep(have, next)
	if e.fault != nil {
		return stepsMore, e.fault
	}
	if e.stop {
		return stepsStopped, nil
	}
	// life-cycle steps are checkpoints too, so a run of scenario events or
	// BBL scans is cancelled as requests are
	if e.lifeSteps++; e.lifeSteps&4095 == 0 {
		if err := e.canceled(); err != nil {
			return stepsMore, err
		}
		return stepsMore, nil
	}
	return turnPlayed, nil
}

// completionTurn plays the completion of instance i (sv) at tc, just popped
// from the heap, when it is not a single-threaded instance's request without
// applications (steps plays that one): a multithreaded instance's, one with
// applications (its steps run), or a stale one. It returns false for a stale
// completion (its instance crashed: it never completes).
func (e *engine) completionTurn(i int32, sv *serverState, tc int64) bool {
	if sv.mt != nil {
		return e.mtCompletion(i, tc)
	}
	if !sv.busy || sv.due != tc {
		return false
	}
	e.advance(tc)
	e.appCompletion(sv, sv.cur, tc)
	e.replyAhead(tc)
	return true
}

// replyAhead plays the turn of a reply due at tc, the time of the
// completion just played, when no other completion or life-cycle step is
// due then: it is the next event of all (replies come first among the
// rest), and a pass of the loop less (a reply's turn has no error).
func (e *engine) replyAhead(tc int64) {
	if a := e.app; len(a.replies) > 0 && a.replies[0].t == tc && e.heap.TopT() > tc && e.nextLife > tc && e.fault == nil && !e.stop &&
		!e.opt.replyTurns {
		a.ahead[2]++
		a.dueSrc = 0
		e.appTurn()
	}
}

// arrivalTurn plays the network arrival at ta: the request enters its queue.
func (e *engine) arrivalTurn(ta int64) {
	s := e.arr.Pop()
	e.advance(ta)
	e.enter(s, e.pool.At(s), ta)
}

// requestTurn issues the next new request (next, if have), and returns
// whether a new request is held in next then, and whether steps goes on
// (turnPlayed) or how it ends.
func (e *engine) requestTurn(next *workload.Request, have bool) (bool, stepOutcome, error) {
	if !have {
		return have, stepsDrained, nil
	}
	if next.TimeUS < e.now {
		return have, stepsMore, diag.Errorf(diag.EINVALID, "request %d: issue time %d us is before %d us (workload out of order)", next.Seq, next.TimeUS, e.now)
	}
	if next.TimeUS > MaxTimeUS {
		return have, stepsMore, diag.Errorf(diag.EINVALID, "request %d: issue time %d us is past the longest simulated time (%s)", next.Seq, next.TimeUS, usec.MaxText)
	}
	if e.life != nil && e.life.nlost > 0 && !next.Trace && e.life.lost[next.Origin] {
		// a stream of a lost machine issues nothing while it is lost
		return e.reqs.Next(next), turnPlayed, nil
	}
	e.advance(next.TimeUS)
	if err := e.issue(next); err != nil {
		return have, stepsMore, err
	}
	if e.fault != nil {
		return have, stepsMore, e.fault
	}
	if e.stop {
		return have, stepsStopped, nil
	}
	if e.issued&4095 == 0 {
		if err := e.checkpoint(); err != nil {
			return have, stepsMore, err
		}
		return e.reqs.Next(next), stepsMore, nil
	}
	return e.reqs.Next(next), turnPlayed, nil
}

// eventsGoOn follows a completion, an arrival or an application event: it
// counts the event and reports whether steps goes on, with no fault, no
// stop and no checkpoint due (every 4096 events); eventCheckpoint then says
// how steps ends.
func (e *engine) eventsGoOn() bool {
	if e.fault != nil || e.stop {
		return false
	}
	e.events++
	return e.events&4095 != 0
}

// eventCheckpoint is how steps ends when eventsGoOn says it does not go on:
// the run's fault, its stop, or a checkpoint.
func (e *engine) eventCheckpoint() (stepOutcome, error) {
	if e.fault != nil {
		return stepsMore, e.fault
	}
	if e.stop {
		return stepsStopped, nil
	}
	if err := e.canceled(); err != nil {
		return stepsMore, err
	}
	return stepsMore, nil
}

// capTime returns when the next new request is due for the loop's
// comparisons: its issue time, at most evq.EmptyT-1; evq.EmptyT-1 when there is none.
// Events are due before evq.EmptyT-1 (past MaxTimeUS the run stops), so an event
// runs before the request exactly when its time is at most the issue time.
func capTime(have bool, next *workload.Request) int64 {
	if !have {
		return evq.EmptyT - 1
	}
	return min(next.TimeUS, evq.EmptyT-1)
}

// checkpoint honours cancellation and reports progress.
func (e *engine) checkpoint() error {
	if err := e.canceled(); err != nil {
		return err
	}
	if e.opt.Progress != nil {
		e.opt.Progress(e.issued, e.reqs.Total())
	}
	return nil
}

// canceled returns the ECANCELED error once the run's context is done.
func (e *engine) canceled() error {
	if ctx := e.opt.Context; ctx != nil {
		if err := ctx.Err(); err != nil {
			return diag.Errorf(diag.ECANCELED, "run canceled after %d requests: %v", e.issued, err)
		}
	}
	return nil
}

// advance moves the clock to t, first applying MP resets and closing series
// bins that fall at or before t.
func (e *engine) advance(t int64) {
	e.now = t
	if t >= e.nextBoundary {
		e.crossBoundaries(t)
	}
}

// grow adds an in-flight slot to the pool (issue takes a free one when there
// is one), first setting the fault that stops the run when the pool is at the
// most one run may hold.
func (e *engine) grow() int32 {
	if lim := e.opt.MaxInFlight; lim > 0 && int64(e.pool.Len()) >= lim && e.fault == nil {
		err := diag.Errorf(diag.ETOOLARGE, "backlog: more than %d requests held at once at %s ms (the most one run may hold); "+
			"the servers cannot keep up with the workload: lower its rate, add servers, or shorten it",
			lim, strconv.FormatFloat(float64(e.now)/1000, 'f', -1, 64))
		err.Limit = diag.LimitInFlight
		e.fault = err
	}
	s := e.pool.Add()
	for a := e.app; a != nil && int(s) >= len(a.slots); { // applications' data beside the record
		a.slots, a.parent, a.outs = append(a.slots, appSlot{}), append(a.parent, ""), append(a.outs, nil)
	}
	return s
}

// issue handles a new request: choose its queue, send it there.
func (e *engine) issue(r *workload.Request) error {
	e.issued++
	if e.issued > e.maxReq {
		err := diag.Errorf(diag.ETOOLARGE, "the workload has more than %d requests (the maximum for one run)", e.maxReq)
		err.Limit = diag.LimitRequests
		return err
	}
	// (unsigned: a negative index is out of range too, with one test)
	if uint(r.Service) >= uint(len(e.svc)) || uint(r.Origin) >= uint(len(e.m.Machines)) {
		return diag.Errorf(diag.EINTERNAL, "request %d: service or origin index out of range", r.Seq)
	}
	// its in-flight slot: a free one, else a new one (taken here: a
	// function doing both would be too big to inline)
	var s int32
	if n := len(e.free) - 1; n >= 0 {
		s, e.free = e.free[n], e.free[:n]
	} else {
		s = e.grow()
	}
	e.inSystem++
	f := e.pool.At(s)
	f.reset(r, r.TimeUS >= e.setup.WarmupUS)
	f.req.Seq = e.issued // numbered as issued, whoever issues it
	if e.app != nil {
		e.app.take(e, s, f)
	}
	e.log.issue(s)
	e.st.issue(f)
	e.spanUS = max(e.spanUS, r.TimeUS)
	if e.tr != nil && e.tr.directQ >= 0 {
		e.issueDirect(s, f) // a transaction's request to a TMS queue
		return nil
	}
	if e.app != nil && e.app.wsh != nil && e.app.wsh.deferUS > 0 {
		// a workstation client's request: its handler chooses it one
		// handling draw later (place; workstation.go)
		e.deferChoice(s, f)
		return nil
	}
	sv := &e.svc[r.Service]
	var ex *result.Explanation
	if e.opt.explain != nil {
		sv, ex = e.routeExplain(f, sv)
	} else if sv.routes != nil {
		// a range whose group has a candidate takes the short way, in
		// line; the catch-all's group and the failures take route's
		if rt := r.Route; rt > 0 && int(rt) <= len(sv.routes) && e.hasCandidate(sv.routes[rt-1].sv) {
			sv = sv.routes[rt-1].sv
		} else {
			sv, _ = e.route(r, sv)
		}
	}
	if e.life != nil && e.life.nlost > 0 && e.life.lost[r.Origin] {
		sv = nil // issued from a lost machine: TPESYSTEM
	}
	if sv == nil || len(sv.cands) == 0 {
		f.reason = reasonNoEnt
		if sv == nil {
			f.reason = reasonSystem
		}
		if e.app != nil {
			e.app.atIssue = f.reason
		}
		e.st.flow(f, -1)
		e.st.fail(f)
		if ex != nil {
			e.opt.explain.finish(e, ex, f)
		}
		e.finish(s)
		return nil
	}
	sq, chosen, reason := e.choose(f, sv)
	f.queue, f.chosen, f.reason, f.load = sq.q, chosen, reason, int32(sq.load)
	f.prio = uint8(sq.prio)
	if e.tr != nil && e.tranJoin(s, f.queue, f.chosen) {
		// a child in a transaction, in a group without TMSNAME: TPETRAN
		// (tranJoin leaves its queue empty)
		if ex != nil {
			e.opt.explain.finish(e, ex, f)
		}
		e.finish(s)
		return nil
	}
	if p := r.Prio; p > 0 {
		f.prio = uint8(min(p, prioLevels))
	}
	e.st.chosen(f)
	e.st.flow(f, sq.machine)
	e.chosen[chosen]++
	if qm := sq.machine; int(qm) != r.Origin {
		e.st.crossing(f, qm)
		if e.setup.LatencyUS > 0 {
			if at := r.TimeUS + e.setup.LatencyUS; at > MaxTimeUS {
				e.overTime(f, at, "it would arrive at its queue", "network.latency_ms")
			}
			e.arr.Push(evq.Arrival{T: r.TimeUS + e.setup.LatencyUS, Slot: s})
			if ex != nil {
				e.opt.explain.finish(e, ex, f)
			}
			return nil
		}
	}
	e.enter(s, f, r.TimeUS)
	if ex != nil { // finish is not inlined: no call per request for nothing
		e.opt.explain.finish(e, ex, f)
	}
	return nil
}

// endWithReply ends request f on instance sv at tc with its reply, on its
// way to its caller's machine: what steps writes out inline for the plain
// completion, its hot path, for the other completions without
// applications (a multithreaded instance's).
func (e *engine) endWithReply(f *flight, sv *serverState, tc int64) {
	f.endUS = tc
	f.replyUS = tc + f.remoteUS
	if int(sv.machine) != f.req.Origin {
		f.replyUS += e.setup.LatencyUS
	}
	if f.replyUS > e.spanUS {
		e.spanUS = f.replyUS
		if f.replyUS > MaxTimeUS {
			e.overTime(f, f.replyUS, "its reply would reach its caller", e.replyFields(f, sv))
		}
	}
}

// routeExplain is issue's step for an explained run (and place's for a
// routed service too), out of line: it returns the candidates of request
// f's service sv that its routing value leaves (nil: none), and f's
// explanation when it is one the run explains.
func (e *engine) routeExplain(f *flight, sv *svcInfo) (*svcInfo, *result.Explanation) {
	var rs routeStep
	if sv.routes != nil {
		sv, rs = e.route(&f.req, sv)
	}
	var ex *result.Explanation
	if e.opt.explain != nil {
		ex = e.opt.explain.begin(e, f, sv, &rs)
	}
	return sv, ex
}

// enter puts request s (its record f) into its queue at t: it starts at once
// on the instance of the queue that has been idle longest (the earliest end
// of its last request; ties to the first in scan order), else waits.
func (e *engine) enter(s int32, f *flight, t int64) {
	q := &e.queues[f.queue]
	f.enqueueUS = t
	if e.life != nil && int(q.gone) == len(q.servers) {
		if e.lostAt(q.machine) {
			e.loseRequest(s, t) // sent to a lost machine: no reply will come
			return
		}
		f.orphan = true // arrived over the network at an orphaned queue
		e.failSvc(s, t)
		return
	}
	best := int32(-1)
	if q.inService < q.threads {
		if e.threaded {
			best = e.mtFree(q)
		} else if i := q.one; i >= 0 {
			if sv := &e.servers[i]; !sv.busy && sv.state == stateUp {
				best = i
			}
		} else {
			for _, i := range q.servers {
				if sv := &e.servers[i]; !sv.busy && sv.state == stateUp && (best < 0 || sv.idleSince < e.servers[best].idleSince) {
					best = i
				}
			}
		}
	}
	if best < 0 && e.app != nil && e.app.plan.QueueCap > 0 && int(q.wait.n) >= e.app.plan.QueueCap {
		e.blocked(s, t) // a full queue: its sender tries again
		return
	}
	f.enqSeq = e.enqSeq
	e.enqSeq++
	e.st.enqueue(f)
	if best >= 0 {
		q.wait.handOff()
		e.start(best, s, f, t)
		return
	}
	e.accrueQueue(q, t)
	q.wait.push(&e.pool, &e.levels, s)
	q.work += int64(f.load)
	if e.shmTrees {
		e.costChanged(f.queue, -1)
	}
	e.st.queueLength(f.queue, int64(q.wait.n), t)
}

// start begins request s (its record f) on server i at t (on a
// multithreaded instance, on its thread mt.pick).
func (e *engine) start(i, s int32, f *flight, t int64) {
	sv := &e.servers[i]
	if sv.mt != nil {
		e.mtStart(i, s, t)
		if e.tr != nil {
			e.tranStart(i, s, t)
		}
		return
	}
	sv.busy, sv.cur, sv.mark, sv.started = true, s, t, true
	e.markBusy(i)
	e.queues[sv.queue].inService++
	f.server, f.startUS = i, t
	// t <= MaxTimeUS and a service time is at most MaxInt64/2 (usec.Round), so
	// the sum cannot overflow; past MaxTimeUS the run stops (see overTime).
	end := t + e.serviceTime(f, sv)
	if end > MaxTimeUS {
		e.overTime(f, end, "it would end", e.timeFields(f, sv))
	}
	sv.due = end
	e.heap.Push(evq.Key(end, i))
	if e.life != nil && e.life.timeouts != nil {
		e.armTimeout(i, s, t)
	}
	if e.tr != nil {
		e.tranStart(i, s, t)
	}
}

// takeNext hands up instance i, idle at t, the next waiting request of its
// queue q: every 10th hand-off the oldest, else the highest priority.
func (e *engine) takeNext(i int32, q *queueState, t int64) {
	e.accrueQueue(q, t)
	oldest := q.wait.handOff()
	var n int32
	if oldest {
		n = q.wait.popOldest(&e.pool, &e.levels)
	} else {
		n = q.wait.popHighest(&e.pool, &e.levels)
	}
	f := e.pool.At(n)
	q.work -= int64(f.load)
	if e.shmTrees {
		e.costChanged(e.servers[i].queue, -1)
	}
	e.start(i, n, f, t)
}

// finish marks s's dispatch log row complete and frees what can be freed.
// The common case (no dispatch log, nothing explained) is small enough to
// inline into its callers; the rest is finishLogged.
func (e *engine) finish(s int32) {
	e.inSystem--
	if e.logged {
		e.finishLogged(s)
		return
	}
	e.free = append(e.free, s)
}

// finishLogged is finish with a dispatch log or requests to explain.
func (e *engine) finishLogged(s int32) {
	if e.tr != nil {
		e.tranLeave(s)
	}
	if e.opt.explain != nil {
		e.opt.explain.done(e, e.pool.At(s))
	}
	if e.log == nil {
		e.free = append(e.free, s)
		return
	}
	e.log.done(e, s)
}

// serviceTime returns how long server sv is busy with f, and sets f's
// remote-domain time for a gateway.
func (e *engine) serviceTime(f *flight, sv *serverState) int64 {
	if sv.gateway {
		if rd := e.setup.Remote; rd != nil && f.req.Service < len(rd) && rd[f.req.Service] != nil {
			e.remoteDomain(f, rd[f.req.Service])
			return e.setup.GatewayForwardUS
		}
		if smp := e.setup.RemoteTime; f.req.Service < len(smp) && smp[f.req.Service] != nil {
			e.draw.Seed(f.req.Key, streamRemote)
			f.remoteUS = usec.Round(smp[f.req.Service].SampleMS(&e.draw) * 1000)
		}
		return e.setup.GatewayForwardUS
	}
	us := f.req.ServiceUS
	if us < 0 {
		us = 0
		if smp := e.sampler(f.req.Service, sv.group); smp != nil {
			e.draw.Seed(f.req.Key, streamService)
			var ms float64
			if d, ok := smp.(dist.Exp); ok {
				// the usual distribution, drawn here as its SampleMS does:
				// no interface call, and no wrapper call where Go does not
				// inline SampleMS (into a function grown big by
				// profile-guided inlining, in tuxlb.wasm)
				ms = float64(float64(d) * e.draw.ExpFloat64())
			} else {
				ms = smp.SampleMS(&e.draw)
			}
			us = usec.Round(ms * 1000)
		}
	}
	if sv.speed != 1 {
		us = usec.Round(float64(us) / sv.speed)
	}
	return us
}

func (e *engine) sampler(s int, g int32) dist.Sampler {
	if s >= len(e.setup.ServiceTime) || int(g) >= len(e.setup.ServiceTime[s]) {
		return nil
	}
	return e.setup.ServiceTime[s][g]
}

// accrueQueue accounts queue q's waiting length up to t.
func (e *engine) accrueQueue(q *queueState, t int64) {
	if n := int64(q.wait.n); n > 0 {
		q.binArea += n * (t - q.lenMark)
		if w := e.setup.WarmupUS; t > w {
			q.area += n * (t - max(q.lenMark, w))
			// a backlog carried over the warm-up counts in max_length
			// as it does in avg_length
			if n > int64(q.maxLen) {
				q.maxLen = int32(n)
			}
		}
	}
	q.lenMark = t
}

// accrueBusy accounts server sv's busy time up to t.
func (e *engine) accrueBusy(sv *serverState, t int64) {
	sv.binBusy += t - sv.mark
	if w := e.setup.WarmupUS; t > w {
		sv.busyUS += t - max(sv.mark, w)
	}
	sv.mark = t
}

// spanEnd accounts what stays busy, held or waiting to the end (an owner whose commit never completes,
// what queues behind it) to the span's end, not to the clock gone past it (to a DBBL's notice).
func (e *engine) spanEnd() {
	t := e.spanUS
	for i := range e.queues {
		e.accrueQueue(&e.queues[i], t)
	}
	for i := range e.servers {
		if sv := &e.servers[i]; sv.mt != nil {
			for j, s := range sv.mt.Cur {
				if s < 0 {
					continue
				}
				if e.mtAccrue(sv, int32(j), t); sv.mt.Due[j] < 0 {
					e.mtStopHold(sv, int32(j), t)
				}
			}
		} else if sv.busy {
			if e.accrueBusy(sv, t); e.app != nil && sv.due < 0 {
				e.app.stopHold(sv.idx, t, e.setup.WarmupUS)
			}
		}
	}
}

// b2i returns 1 for true and 0 for false, without a branch.
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}
