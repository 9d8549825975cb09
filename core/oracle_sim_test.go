package core

// The reference simulator of the differential test (oracle_test.go): a
// deliberately simple and slow reading of the written rules (docs/engine.md),
// sharing nothing with the engine but the configuration reader (LoadModel)
// and the routing criteria's range matching. It plays a trace whose rows all
// carry service_ms; remote domains must answer in a constant time. It
// covers LDBAL=N, SHM and MP LDBAL=Y, round_robin and jsq, routing,
// networks, speeds, gateways, priorities and the life cycle (events,
// sanity-scan notices, RESTART/MAXGEN/GRACE, boot_ms, orphaned queues,
// stopping instances), multithreaded instances (MAXDISPATCHTHREADS: k
// threads per instance, tuning mt_idle, the thread column, per-thread
// figures); not SVCTIMEOUT, -p, random or p2c.
//
// It also plays application scenarios (oracle_app_test.go reads their
// document): nested calls (tpcall, tpacall runs with or without
// noreply steps, tpforward; p = 1 only; route inherit or constant), closed-loop client sets (const think and
// backoff, a script or a single service, retries) and the caller's
// deadline, as the application rules of the contract describe them; and
// the workstation front end: clients connecting through a WSL at t = 0
// (handlers, mpx, maxh, MAXWSCLIENTS), their requests' origin on the WSL's
// machine, a const handling time before the choice and after the reply.
//
// And transactions (AUTOTRAN, TMSNAME): starting at a request's start,
// joining, TPETRAN, one- and two-phase commits through the TMS queues,
// aborts on TRANTIME and on the owner's failure, the owner handed over by
// tpforward. The generator emits them under oracleTransactions
// (oracle_gen_test.go); TestOracleTransactionCases plays the hand-worked
// cases of testdata/spec with it.
//
// And /Q (oracle_q_test.go): enqueues from trace rows, a stream of
// constant arrivals, client scripts and call steps; TMQFORWARD instances
// forwarding messages in transactions they own, retries, error queues,
// -d, -i timers and -i 0 wake-ups, -t, crashes and shutdowns.

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// oReq is one request as the oracle sees it. Times are -1 until known.
type oReq struct {
	n        int
	svc      string
	origin   int
	issue    int64
	svcUS    int64
	prio     int // 0: none given
	route    string
	hasRoute bool

	q, srv                 int
	thr                    int // the thread of srv that took it (0-based), -1: none
	enq, start, end, reply int64
	reason                 string
	entry                  int64 // order of entry into its queue
	remoteUS               int64
	done, failed, timedOut bool
	arriveAt               int64 // network arrival time, -1: none

	// Applications.
	id       string   // the log's id ("" until issued: then its number)
	parent   *oReq    // the calling request of a nested one (log column parent)
	caller   *oReq    // tpcall/tpacall child: the request whose server waits for it
	client   *oClient // client request: the client waiting for it
	fwdFrom  *oReq    // tpforward child: the request that forwarded to it
	replyM   int      // the machine its reply goes back to
	deadline int64    // when its caller stops waiting, -1: nobody waits with one
	dlDone   bool     // its caller's wait is over (outcome or deadline)
	ownEnd   int64    // when its own work ended (then held while steps run), -1
	step     int      // its next step
	outst    []*oReq  // the children its server waits for
	nested   bool     // issued by a server
	retry    bool     // a client's retry
	atIssue  bool     // failed at its issue (TPENOENT, TPESYSTEM)
	noreply  bool     // issued by a noreply step (TPNOREPLY)
	stream   bool     // a stream's request (not a trace row)
	// unanswered: nobody gets its outcome (a noreply child, or a request
	// one forwarded to): no reply is ever sent, lastT is its last event
	unanswered bool
	lastT      int64
	chooseAt   int64 // a workstation client's request: when its handler chooses it, -1: none pending
	placeSeq   int64 // the order of its choice (its entry into the network)

	// Transactions.
	tran    *oTran // the transaction it runs in, nil: none
	tmsFor  *oTran // a TMS request: the transaction it serves
	tmsKind string // prepare, commit or abort

	// /Q (oracle_q_test.go).
	enqQ  *oMQ  // an enqueue: the /Q queue its TMQUEUE request stores a message in at its end
	fwdBy *oFwd // a forward Q#n~k: the TMQFORWARD instance waiting for it
}

// oTran is one transaction X.
type oTran struct {
	owner       *oReq
	coord       int      // the machine where X started
	parts       []string // participants, in joining order
	deadline    int64    // -1: no TRANTIME
	aborted     bool
	timeout     bool // aborted at its deadline
	committing  bool // its commit has begun
	committed   bool
	phase       int // 1: prepares out, 2: commits out
	outst       int // TMS replies still to come back
	commitStart int64
	commitEnd   int64
	// fwd: X begun by a TMQFORWARD instance for its forward (owner then
	// names the forward Q#n~k, for the TMS rows' ids and parent, but the
	// forwarder, not the forward, commits).
	fwd *oFwd
}

// ownedBy says whether r is X's owner: the request that commits it (never
// a forward: the forwarder owns its transaction).
func (x *oTran) ownedBy(r *oReq) bool { return x.fwd == nil && x.owner == r }

// oInst is one server instance: k dispatch threads (one for a
// single-threaded instance), each running one request at a time.
type oInst struct {
	state     string // up, down, restarting, stopping, booting, gone
	th        []oThr // its threads, in number order
	idleLook  bool   // down: whether it looked idle when it crashed
	noticeAt  int64  // down: when the BBL notices
	comeUpAt  int64  // restarting/booting: when it comes up
	gen       int    // the MIB's generation: 1 when it comes up from gone
	startAt   int64  // the MIB's start time: when it came up, or a GRACE reset
	stopCause string // what made it stopping (shutdown or decay)
	// lostListed: gone with its lost machine while a candidate, and still
	// listed on the bulletin board (the DBBL has not noticed)
	lostListed bool
	fwdBusy    bool // a TMQFORWARD instance holding a message
}

// oThr is one dispatch thread of an instance.
type oThr struct {
	busy      *oReq // the request it processes (held while down)
	endAt     int64 // when its own work ends, -1: not working
	freeSince int64 // when it last became free: its last end, or the come-up
}

// holds reports whether some thread of the instance holds a request.
func (in *oInst) holds() bool {
	if in.fwdBusy {
		return true
	}
	for k := range in.th {
		if in.th[k].busy != nil {
			return true
		}
	}
	return false
}

// freeThreads counts the threads that hold no request.
func (in *oInst) freeThreads() int {
	n := 0
	for k := range in.th {
		if in.th[k].busy == nil {
			n++
		}
	}
	return n
}

type oChange struct {
	t               int64
	srv             int
	from, to, cause string
}

// oracle is the state of one reference run.
type oracle struct {
	m        *Model
	sc       *scenario.Scenario
	policy   string
	idleQ    bool // tuning idle "queue"
	netOrig  bool // tuning netload "origin"
	ctrLoad  bool // tuning mp_counter "load"
	mtNoReq  bool // tuning mt_idle "no_request"
	threaded bool // some instance has more than one thread: the thread column
	resetUS  int64
	fwdUS    int64
	bootUS   int64
	latUS    int64
	blockUS  int64
	sanityUS int64
	speed    []float64
	remote   map[string]int64 // domain -> const response time

	insts    []oInst
	waiting  [][]*oReq // per queue, in entry order
	handoffs []int
	ctr      [][]int64 // [machine][queue]
	resetK   int64
	rr       map[string]int
	entrySeq int64
	reqs     []*oReq
	changes  []oChange
	events   []oEvent
	spawns   []*oSpawn
	lastScan int64 // the last instant whose -p step ran
	stuck    bool  // the run did not end within its bound of steps

	// For the result's figures (oracle_figures_test.go): each instance's
	// busy time, each queue's longest waiting line, the last instant of a
	// scenario event.
	busyUS    []int64
	thrBusy   [][]int64 // per instance and thread: busy time (µs)
	thrHeld   [][]int64 // per instance and thread: time held for replies (µs)
	thrUsed   []int     // per instance: the most threads busy at once
	qMax      []int64
	qEnq      []int64 // requests that entered each queue
	qArea     []int64 // each queue's waiting length integrated over time (µs)
	qMark     []int64 // when qArea was last brought up to date
	lastEvent int64

	// Applications (readApp).
	app       bool               // calls or clients: the log has a parent column
	pending   []*oReq            // trace rows not yet issued, in trace order
	calls     map[string][]oStep // service -> its steps
	svcTimeUS map[string]int64   // service -> its const service time
	blockSvc  map[string]int64   // service -> its own BLOCKTIME (µs)
	sets      []*oClientSet
	durUS     int64
	notices   []oNotice
	heldUS    []int64
	callsBy   map[string]int64 // service -> children its servers issued
	// noreplySteps: some step is noreply (the result counts them apart)
	noreplySteps bool
	hits         map[string]int // what the run exercised, for the coverage tally

	// Transactions: some *SERVICES entry has AUTOTRAN=Y (the TMS servers
	// are in m then).
	choiceAt int64 // when the request being placed is chosen (its issue, or its handler's turn)
	tranOn   bool
	trans    []*oTran       // in start order
	tmsUS    int64          // one TMS request's time (tms_time, const)
	tmsQueue map[string]int // group with TMSNAME -> its TMS queue
	tmsName  map[string]string
	// The workstation front end: the handling time (const), and per WSL
	// of the model its handlers' clients and the clients refused.
	handleUS int64
	wsl      []*oWSL
	// /Q (oracle_q_test.go): the scenario's message queues, its
	// forwarders (TMQFORWARD instances, in scan order), each queue space's
	// enqueue time and group.
	qOn     bool
	mqs     []*oMQ
	fwds    []*oFwd
	fwdOf   map[int]*oFwd
	enqUS   map[string]int64
	qsGroup map[string]string
	failSeq int64
	qWaking bool  // a forwarder is looking in the wake-up turn
	placed  int64 // choices made so far
	// Lost machines (oracle_lose_test.go): per machine, lost now, and when
	// the DBBL notices it (-1: no notice to come); the DBBL's period.
	mLost     []bool
	mNoticeAt []int64
	bblqUS    int64
	// clientTimeout: the last TPETIME a client saw at its deadline (an
	// outcome, so an event of the span: with a lost request it may be the
	// last one)
	clientTimeout int64
}

// oWSL is one WSL's connections.
type oWSL struct {
	handlers []int
	refused  int
}

// oStep is one step of a service's calls.
type oStep struct {
	svc, mode string
	inherit   bool
	route     string
	noreply   bool
	enq       *oMQ // an enqueue step: svc is the queue space
}

// oNotice is a reply or a failure on its way to a waiting caller: w's
// outcome (code "" for a reply), arriving at t; seq orders one instant's.
type oNotice struct {
	t    int64
	seq  int
	w    *oReq
	code string
}

// oEntry is one script entry of a client set.
type oEntry struct {
	svc, route string
	hasRoute   bool
	enq        *oMQ // an enqueue: svc is the queue space
}

// oClientSet is one client set; its counters are the outcomes its clients saw.
type oClientSet struct {
	name          string
	count         int
	origin        int
	thinkUS, boUS int64
	script        []oEntry
	retryMax      int
	on            map[string]bool
	clients       []*oClient
	requests      int64
	completed     int64
	timedOut      int64
	retried       int64
	failed        map[string]int64
	resps         []int64
	via           string // the WSL instance its clients connect through ("": none)
	refused       int    // its clients that did not connect
}

// oClient is one client: when it issues next, where it is in its script.
type oClient struct {
	set    *oClientSet
	c      int
	nextAt int64 // -1: waiting for an outcome
	pos    int   // script entry of its current request
	n, k   int   // request number, retries of it made
	wait   *oReq
	off    bool // a workstation client that did not connect: it never issues
}

// oSpawn is the -p of one *SERVERS entry.
type oSpawn struct {
	sp       ubb.Spawn
	queues   []int // the MSSQ queue, or (CONV=Y without RQADDR) each instance's
	servers  []int
	minSrvID int
	above    int64 // when the measure was first seen at or above high, -1: not
}

type oEvent struct {
	at     int64
	action string
	insts  []int
	mach   int // lose, restore: the machine
}

// oRoundUS rounds a JSON millisecond value to whole microseconds, halves
// away from zero, exactly: the value is the decimal the user wrote (the
// shortest text that reads back as ms), not its binary approximation.
func oRoundUS(ms float64) int64 { return oTextUS(strconv.FormatFloat(ms, 'g', -1, 64)) }

// oTextUS rounds decimal text in milliseconds to whole microseconds, halves
// away from zero, with exact rational arithmetic.
func oTextUS(text string) int64 {
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		panic("oracle: not a number: " + text)
	}
	r.Mul(r, big.NewRat(1000, 1))
	neg := r.Sign() < 0
	r.Abs(r)
	r.Add(r, big.NewRat(1, 2))
	us := new(big.Int).Quo(r.Num(), r.Denom()).Int64()
	if neg {
		us = -us
	}
	return us
}

// newOracle reads the scenario: the model through LoadModel, the rest from
// the scenario's fields directly.
func newOracle(sc *scenario.Scenario) (*oracle, error) {
	m, err := LoadModel(ubb.Input{UBBConfig: sc.UBBConfig, DMConfig: sc.DMConfig, Advertise: sc.Advertise})
	if err != nil {
		return nil, err
	}
	o := &oracle{m: m, sc: sc, policy: "tuxedo", rr: map[string]int{}, remote: map[string]int64{},
		calls: map[string][]oStep{}, svcTimeUS: map[string]int64{}, blockSvc: map[string]int64{},
		callsBy: map[string]int64{}, hits: map[string]int{}}
	if err := o.readQSpaces(); err != nil {
		return nil, err
	}
	if err := o.readTransactions(); err != nil {
		return nil, err
	}
	m = o.m
	if sc.Policy != "" {
		o.policy = sc.Policy
	}
	o.sanityUS = m.ScanUnitUS * int64(m.SanityScan)
	o.blockUS = m.ScanUnitUS * int64(m.BlockTime)
	o.resetUS, o.fwdUS, o.bootUS = o.sanityUS, 100, 1000000
	if tu := sc.Tuning; tu != nil {
		o.idleQ = tu.Idle == "queue"
		o.netOrig = tu.NetLoad == "origin"
		o.ctrLoad = tu.MPCounter == "load"
		o.mtNoReq = tu.MTIdle == "no_request"
		if tu.MPResetMS != nil {
			o.resetUS = oRoundUS(*tu.MPResetMS)
		}
		if tu.GatewayForwardMS != nil {
			o.fwdUS = oRoundUS(*tu.GatewayForwardMS)
		}
		if tu.BootMS != nil {
			o.bootUS = oRoundUS(*tu.BootMS)
		}
	}
	if sc.Network != nil {
		o.latUS = oRoundUS(sc.Network.LatencyMS)
	}
	o.speed = make([]float64, len(m.Machines))
	for i := range m.Machines {
		o.speed[i] = 1
		if ms, ok := sc.Machines[m.Machines[i].LMID]; ok && ms.Speed != nil {
			o.speed[i] = *ms.Speed
		}
	}
	for name, d := range sc.Domains {
		if d.ResponseTime.Dist != "const" {
			return nil, fmt.Errorf("oracle: domain %s: only const response times", name)
		}
		o.remote[name] = oRoundUS(*d.ResponseTime.MS)
	}
	o.mLost, o.mNoticeAt = make([]bool, len(m.Machines)), make([]int64, len(m.Machines))
	for i := range o.mNoticeAt {
		o.mNoticeAt[i] = -1
	}
	o.bblqUS = m.ScanUnitUS * int64(max(m.BBLQuery, 1))
	o.insts = make([]oInst, len(m.Servers))
	o.thrBusy, o.thrHeld, o.thrUsed = make([][]int64, len(m.Servers)), make([][]int64, len(m.Servers)), make([]int, len(m.Servers))
	for i := range m.Servers {
		k := m.Servers[i].DispatchThreads()
		o.threaded = o.threaded || k > 1
		o.insts[i] = oInst{state: "up", th: make([]oThr, k), comeUpAt: -1, noticeAt: -1, gen: 1}
		for j := range o.insts[i].th {
			o.insts[i].th[j].endAt = -1
		}
		o.thrBusy[i], o.thrHeld[i] = make([]int64, k), make([]int64, k)
		if m.Servers[i].Spare {
			o.insts[i].state = "gone"
		}
	}
	o.waiting = make([][]*oReq, len(m.Queues))
	o.busyUS = make([]int64, len(m.Servers))
	o.heldUS = make([]int64, len(m.Servers))
	o.qMax = make([]int64, len(m.Queues))
	o.qEnq = make([]int64, len(m.Queues))
	o.qArea = make([]int64, len(m.Queues))
	o.qMark = make([]int64, len(m.Queues))
	o.handoffs = make([]int, len(m.Queues))
	o.ctr = make([][]int64, len(m.Machines))
	for i := range o.ctr {
		o.ctr[i] = make([]int64, len(m.Queues))
	}
	byEntry := map[int]*oSpawn{}
	for i := range m.Servers {
		s := &m.Servers[i]
		if s.Life == nil || s.Life.Spawn == nil {
			continue
		}
		sp := byEntry[s.Life.Entry]
		if sp == nil {
			sp = &oSpawn{sp: *s.Life.Spawn, minSrvID: s.Life.MinSrvID, above: -1}
			byEntry[s.Life.Entry] = sp
			o.spawns = append(o.spawns, sp)
		}
		sp.servers = append(sp.servers, i)
		if !slices.Contains(sp.queues, s.QueueIdx) {
			sp.queues = append(sp.queues, s.QueueIdx)
		}
	}
	for _, ev := range sc.Events {
		e := oEvent{at: oRoundUS(*ev.AtMS)}
		target := ""
		switch {
		case ev.Lose != "" || ev.Restore != "":
			e.action, e.mach = "lose", m.MachineIndex(ev.Lose)
			if ev.Restore != "" {
				e.action, e.mach = "restore", m.MachineIndex(ev.Restore)
			}
			o.events = append(o.events, e)
			continue
		case ev.Kill != "":
			e.action, target = "kill", ev.Kill
		case ev.Shutdown != "":
			e.action, target = "shutdown", ev.Shutdown
		default:
			e.action, target = "boot", ev.Boot
		}
		for i := range m.Servers {
			s := &m.Servers[i]
			if s.TMS { // never a target
				continue
			}
			if s.ID == target || "group:"+s.Group == target || "machine:"+s.LMID == target {
				e.insts = append(e.insts, i)
			}
		}
		o.events = append(o.events, e)
	}
	sort.SliceStable(o.events, func(a, b int) bool { return o.events[a].at < o.events[b].at })
	o.setupForwarders()
	return o, o.readTrace()
}

// readTrace reads the generator's CSV: time_ms,service,origin,service_ms,prio,route
// and, with /Q, a last column enqueue (QSPACE:Q, service and service_ms
// empty). The rows wait in o.pending; each gets its number when it is issued.
func (o *oracle) readTrace() error {
	if strings.TrimSpace(o.sc.Workload.TraceCSV) == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSpace(o.sc.Workload.TraceCSV), "\n")
	if lines[0] != "time_ms,service,origin,service_ms,prio,route" && lines[0] != "time_ms,service,origin,service_ms,prio,route,enqueue" {
		return fmt.Errorf("oracle: unexpected trace header %q", lines[0])
	}
	for _, line := range lines[1:] {
		f := strings.Split(line, ",")
		var r *oReq
		if len(f) > 6 && f[6] != "" {
			mq, err := o.enqueueTarget(f[6])
			if err != nil {
				return err
			}
			r = o.newReq(mq.qspace, o.m.MachineIndex(f[2]), oTextUS(f[0]))
			r.enqQ, r.svcUS = mq, o.enqUS[mq.qspace]
		} else {
			r = o.newReq(f[1], o.m.MachineIndex(f[2]), oTextUS(f[0]))
			r.svcUS = oTextUS(f[3])
		}
		if f[4] != "" {
			r.prio, _ = strconv.Atoi(f[4])
		}
		if f[5] != "" {
			r.route, r.hasRoute = f[5], true
		}
		o.pending = append(o.pending, r)
	}
	sort.SliceStable(o.pending, func(a, b int) bool { return o.pending[a].issue < o.pending[b].issue })
	return nil
}

// newReq is a request of svc from machine origin at t, not yet issued.
func (o *oracle) newReq(svc string, origin int, t int64) *oReq {
	return &oReq{svc: svc, origin: origin, replyM: origin, issue: t, q: -1, srv: -1, thr: -1,
		enq: -1, start: -1, end: -1, reply: -1, arriveAt: -1, deadline: -1, ownEnd: -1, chooseAt: -1}
}

func (o *oracle) params(svc string, q int) ubb.ServiceParams {
	return o.m.Service(svc).Params(o.m.Queues[q].Group)
}

func (o *oracle) change(t int64, i int, to, cause string) {
	o.changes = append(o.changes, oChange{t, i, o.insts[i].state, to, cause})
	if to == "stopping" {
		o.insts[i].stopCause = cause
	}
	o.insts[i].state = to
}

func (o *oracle) candidateState(i int) bool {
	s := o.insts[i].state
	return s == "up" || s == "down" || s == "restarting" || o.insts[i].lostListed
}

// n is n(q): the instances of q that are candidates in the life-cycle sense.
func (o *oracle) n(q int) int64 {
	c := int64(0)
	for _, i := range o.m.Queues[q].Servers {
		if o.candidateState(i) {
			c++
		}
	}
	return c
}

// looksIdle is the dispatch rules' idle test.
func (o *oracle) looksIdle(i int) bool {
	in := &o.insts[i]
	switch in.state {
	case "up":
		if o.idleQ {
			return len(o.waiting[o.m.Servers[i].QueueIdx]) == 0
		}
		return o.serverIdle(in)
	case "down":
		if o.idleQ {
			return len(o.waiting[o.m.Servers[i].QueueIdx]) == 0
		}
		return in.idleLook
	}
	return false
}

// serverIdle is idle "server" by its threads: a thread free (mt_idle
// "server"), or no thread holding a request (mt_idle "no_request"); with
// one thread both are "not processing".
func (o *oracle) serverIdle(in *oInst) bool {
	if o.mtNoReq {
		return !in.holds()
	}
	return in.freeThreads() > 0
}

func (o *oracle) advertises(i int, svc string) bool {
	for _, s := range o.m.Servers[i].Services {
		if s == svc {
			return true
		}
	}
	return false
}

// candQueues lists the queues of the candidates, in queue (scan) order.
func (o *oracle) candQueues(cands []int) []int {
	var qs []int
	for q := range o.m.Queues {
		for _, i := range cands {
			if o.m.Servers[i].QueueIdx == q {
				qs = append(qs, q)
				break
			}
		}
	}
	return qs
}

// choose picks the queue for r at t, or returns a failure reason.
func (o *oracle) choose(r *oReq) (int, string) {
	var cands []int
	for i := range o.m.Servers {
		if o.candidateState(i) && o.advertises(i, r.svc) {
			cands = append(cands, i)
		}
	}
	svc := o.m.Service(r.svc)
	if svc.Routing != "" {
		c := o.m.Criterion(svc.Routing)
		if !r.hasRoute {
			return -1, "TPESYSTEM"
		}
		k := c.Match(c.ParseValue(r.route))
		if k < 0 {
			return -1, "TPESYSTEM"
		}
		in := func(g string) []int {
			var out []int
			for _, i := range cands {
				if g == "*" || o.m.Servers[i].Group == g {
					out = append(out, i)
				}
			}
			return out
		}
		got := in(c.Ranges[k].Group)
		if last := c.Ranges[len(c.Ranges)-1]; len(got) == 0 && last.CatchAll {
			got = in(last.Group)
		}
		cands = got
	}
	if len(cands) == 0 {
		return -1, "TPENOENT"
	}
	qOf := func(i int) int { return o.m.Servers[i].QueueIdx }
	switch o.policy {
	case "round_robin":
		k := o.rr[r.svc]
		o.rr[r.svc] = k + 1
		return qOf(cands[k%len(cands)]), "round_robin"
	case "jsq":
		best, bn, bd := -1, int64(0), int64(1)
		for _, q := range o.candQueues(cands) {
			num := int64(len(o.waiting[q]))
			for _, i := range o.m.Queues[q].Servers {
				num += int64(len(o.insts[i].th) - o.insts[i].freeThreads())
			}
			d := o.n(q)
			if best < 0 || num*bd < bn*d {
				best, bn, bd = q, num, d
			}
		}
		return best, "jsq"
	}
	if !o.m.LDBAL {
		return qOf(cands[0]), "first"
	}
	if o.m.Model == "SHM" {
		for _, i := range cands {
			if o.looksIdle(i) {
				return qOf(i), "idle"
			}
		}
		best, bn, bd := -1, int64(0), int64(1)
		for _, q := range o.candQueues(cands) {
			w := int64(0)
			for _, x := range o.waiting[q] {
				w += int64(o.params(x.svc, q).Load)
			}
			d := o.n(q)
			num := w + int64(o.params(r.svc, q).Load)*d
			if best < 0 || num*bd < bn*d {
				best, bn, bd = q, num, d
			}
		}
		return best, "least-load"
	}
	// MP
	m := r.origin
	if k := o.choiceAt / o.resetUS; k > o.resetK { // (a workstation's request is chosen after its issue)
		o.resetK = k
		for q := range o.ctr[m] {
			for mm := range o.ctr {
				o.ctr[mm][q] = 0
			}
		}
	}
	for _, i := range cands {
		if o.m.Servers[i].Machine == m && o.looksIdle(i) {
			q := qOf(i)
			o.ctr[m][q] += int64(o.params(r.svc, q).Load)
			return q, "idle"
		}
	}
	N := func(q int) int64 {
		if o.m.Queues[q].Machine == m {
			return 0
		}
		if o.netOrig {
			return int64(o.m.Machines[m].NetLoad)
		}
		return int64(o.m.Machines[o.m.Queues[q].Machine].NetLoad)
	}
	best, bn, bd := -1, int64(0), int64(1)
	for _, q := range o.candQueues(cands) {
		d := o.n(q)
		num := o.ctr[m][q] + (int64(o.params(r.svc, q).Load)+N(q))*d
		if best < 0 || num*bd < bn*d {
			best, bn, bd = q, num, d
		}
	}
	charge := int64(o.params(r.svc, best).Load)
	if !o.ctrLoad {
		charge += N(best)
	}
	o.ctr[m][best] += charge
	return best, "least-load"
}

// wsOut is the handler's time passing r's reply or failure to the
// workstation client waiting for it (0 for any other caller, and for a
// reply nobody gets).
func (o *oracle) wsOut(r *oReq) int64 {
	if w := waited(r); w.client != nil && w.client.set.via != "" && !r.unanswered {
		o.hits["ws reply draw"]++
		return o.handleUS
	}
	return 0
}

// tellAt is r's failure at its issue (or a forwarded child's) reaching the
// caller of w: at once, or through a workstation handler one draw later.
func (o *oracle) tellAt(w, r *oReq, t int64) {
	if h := o.wsOut(w); h > 0 {
		o.notices = append(o.notices, oNotice{t: t + h, seq: r.n, w: w, code: r.reason})
		o.hits["ws failure at issue delayed"]++
		return
	}
	o.learn(w, r.reason, t)
}

// back is the crossing back from r's queue's machine to the machine its
// reply goes to (its origin; for a forwarded child, the forwarder's caller's).
func (o *oracle) back(r *oReq) int64 {
	if o.m.Queues[r.q].Machine != r.replyM {
		return o.latUS
	}
	return 0
}

func (o *oracle) fail(r *oReq, t int64) {
	o.ownerFailed(r, t)
	r.failed, r.done, r.reason, r.end, r.reply = true, true, "TPESVCERR", -1, t+o.back(r)+o.wsOut(r)
	if r.unanswered { // nobody to tell: no reply crosses back
		r.reply, r.lastT = -1, t
	}
	o.outcome(r, "TPESVCERR")
}

// issue numbers r, logs it and chooses its queue. A request that fails at
// its issue (TPENOENT, TPESYSTEM) is done at once: the issuer handles it.
func (o *oracle) issue(r *oReq) {
	o.number(r)
	o.place(r, r.issue)
}

// number gives r its number and id, in issue order.
func (o *oracle) number(r *oReq) {
	o.reqs = append(o.reqs, r)
	r.n = len(o.reqs)
	if r.id == "" {
		r.id = strconv.Itoa(r.n)
	}
}

// place chooses r's queue at t and sends it there.
func (o *oracle) place(r *oReq, t int64) {
	o.choiceAt = t
	o.placed++
	r.placeSeq = o.placed
	q, reason := o.choose(r)
	r.reason = reason
	if q < 0 {
		r.failed, r.done, r.atIssue = true, true, true
		return
	}
	if x := r.tran; x != nil { // a child in X: its group joins, or it cannot
		g := o.m.Queues[q].Group
		if _, ok := o.tmsQueue[g]; !ok {
			r.reason = "TPETRAN"
			r.failed, r.done, r.atIssue = true, true, true
			o.hits["TPETRAN"]++
			return
		}
		if !slices.Contains(x.parts, g) {
			x.parts = append(x.parts, g)
		}
		if o.m.Servers[o.m.Queues[q].Servers[0]].Gateway {
			o.hits["gateway joins X"]++
		}
	}
	r.q = q
	if o.m.Queues[q].Machine != r.origin && o.latUS > 0 {
		r.arriveAt = t + o.latUS
		return
	}
	o.enqueue(r, t)
}

func (o *oracle) orphaned(q int) bool {
	for _, i := range o.m.Queues[q].Servers {
		if o.insts[i].state != "gone" {
			return false
		}
	}
	return true
}

func (o *oracle) enqueue(r *oReq, t int64) {
	q := r.q
	r.enq = t
	if o.mLost[o.m.Queues[q].Machine] { // sent to a lost machine: lost there
		o.lostReq(r)
		o.hits["lost on arrival"]++
		return
	}
	if o.orphaned(q) {
		o.fail(r, t)
		return
	}
	o.qEnq[q]++
	// The free thread free longest; ties to the first instance in scan
	// order, then the lowest thread number.
	best, bestK := -1, -1
	for _, i := range o.m.Queues[q].Servers {
		in := &o.insts[i]
		if in.state != "up" {
			continue
		}
		for k := range in.th {
			if in.th[k].busy == nil && (best < 0 || in.th[k].freeSince < o.insts[best].th[bestK].freeSince) {
				best, bestK = i, k
			}
		}
	}
	o.entrySeq++
	r.entry = o.entrySeq
	if best >= 0 {
		o.handoffs[q]++
		o.start(r, best, bestK, t)
		return
	}
	o.accrue(q, t)
	o.waiting[q] = append(o.waiting[q], r)
	o.qMax[q] = max(o.qMax[q], int64(len(o.waiting[q])))
}

func (o *oracle) prioOf(r *oReq) int {
	if r.tmsFor != nil {
		return 50
	}
	if r.prio > 0 {
		return r.prio
	}
	return o.params(r.svc, r.q).Prio
}

// take hands the next waiting request of i's queue to i's thread k.
func (o *oracle) take(i, k int, t int64) {
	q := o.m.Servers[i].QueueIdx
	w := o.waiting[q]
	if len(w) == 0 {
		return
	}
	o.handoffs[q]++
	x := 0
	if o.handoffs[q]%10 != 0 {
		for j := range w {
			if o.prioOf(w[j]) > o.prioOf(w[x]) {
				x = j
			}
		}
	}
	r := w[x]
	o.accrue(q, t)
	o.waiting[q] = append(w[:x:x], w[x+1:]...)
	o.start(r, i, k, t)
}

func (o *oracle) start(r *oReq, i, k int, t int64) {
	s := &o.m.Servers[i]
	r.srv, r.thr, r.start = i, k, t
	var dur int64
	if s.Gateway {
		dur = o.fwdUS
		r.remoteUS = o.remote[o.m.Service(r.svc).Remote.Domain]
	} else {
		dur = int64(math.Round(float64(r.svcUS) / o.speed[s.Machine]))
	}
	in := &o.insts[i]
	in.th[k].busy, in.th[k].endAt = r, t+dur
	o.thrUsed[i] = max(o.thrUsed[i], len(in.th)-in.freeThreads())
	if o.tranOn && r.tran == nil && r.tmsFor == nil && s.Gateway {
		if _, ok := o.tmsQueue[s.Group]; ok && o.m.Service(r.svc).Params(s.Group).AutoTran {
			o.hits["gateway AUTOTRAN starts none"]++ // (the remote domain's business)
		}
	}
	if o.tranOn && r.tran == nil && r.tmsFor == nil && !s.Gateway {
		p := o.m.Service(r.svc).Params(s.Group)
		if _, ok := o.tmsQueue[s.Group]; ok && p.AutoTran {
			x := &oTran{owner: r, coord: s.Machine, parts: []string{s.Group}, deadline: -1}
			if p.TranTimeS > 0 {
				x.deadline = t + int64(p.TranTimeS)*1000000
			}
			r.tran = x
			o.trans = append(o.trans, x)
			o.hits["transaction"]++
		}
	}
}

// complete ends the own work of thread k of instance i at t: the steps of
// its service run now (a gateway forwards: no steps), else the request ends.
func (o *oracle) complete(i, k int, t int64) {
	th := &o.insts[i].th[k]
	r := th.busy
	th.endAt = -1
	r.ownEnd = t
	if !o.m.Servers[i].Gateway && len(o.calls[r.svc]) > 0 {
		o.runSteps(r, t)
		return
	}
	o.finish(r, t)
}

// release ends r on its thread at t: its busy time (and the time it held
// r waiting for replies) is counted, and the thread takes its next
// request; a stopping instance takes none, and is gone when its last
// request ends.
func (o *oracle) release(r *oReq, t int64) {
	i, k := r.srv, r.thr
	in := &o.insts[i]
	o.busyUS[i] += t - r.start
	o.heldUS[i] += t - r.ownEnd
	o.thrBusy[i][k] += t - r.start
	o.thrHeld[i][k] += t - r.ownEnd
	in.th[k].busy, in.th[k].endAt = nil, -1
	r.end, r.done = t, true
	if in.state == "stopping" {
		if in.holds() {
			o.hits["stopping drains threads"]++
			return
		}
		o.change(t, i, "gone", in.stopCause)
		o.orphanCheck(o.m.Servers[i].QueueIdx, t)
		return
	}
	in.th[k].freeSince = t
	o.take(i, k, t)
}

// succeed ends r at t with its reply on the way back; an enqueue's
// message is stored then.
func (o *oracle) succeed(r *oReq, t int64) {
	o.release(r, t)
	if r.enqQ != nil {
		o.store(r, t)
	}
	r.reply = t + r.remoteUS + o.back(r) + o.wsOut(r)
	if r.unanswered { // its reply is never sent
		r.reply, r.lastT = -1, t
		o.hits["noreply served"]++
	}
	o.outcome(r, "")
}

// failParent ends r at t with TPESVCFAIL: one of its children failed.
func (o *oracle) failParent(r *oReq, t int64) {
	o.hits["TPESVCFAIL"]++
	o.ownerFailed(r, t)
	o.release(r, t)
	r.failed, r.reason = true, "TPESVCFAIL"
	r.reply = t + o.back(r) + o.wsOut(r)
	if r.unanswered {
		r.reply, r.lastT = -1, t
	}
	o.outcome(r, "TPESVCFAIL")
}

// waited is the request whose caller r's outcome answers: r itself, or for a
// forwarded child the request that forwarded to it (up the chain).
func waited(r *oReq) *oReq {
	for r.fwdFrom != nil {
		r = r.fwdFrom
	}
	return r
}

// outcome sends r's reply (code "") or failure, known at r.reply, to the
// caller of the request it answers; forwarders up the chain get r's reply_us.
func (o *oracle) outcome(r *oReq, code string) {
	if r.tmsFor != nil { // its owner waits for it, unless it is an abort
		if !r.unanswered {
			o.notices = append(o.notices, oNotice{t: r.reply, seq: r.n, w: r})
		}
		return
	}
	for w := r; w.fwdFrom != nil; w = w.fwdFrom {
		w.fwdFrom.reply = r.reply
	}
	w := waited(r)
	if w.client == nil && w.caller == nil && w.fwdBy == nil {
		return
	}
	o.notices = append(o.notices, oNotice{t: r.reply, seq: r.n, w: w, code: code})
	if w.deadline >= 0 && r.reply == w.deadline {
		o.hits["outcome at the deadline"]++
	}
	if w.caller != nil && code == "TPESVCERR" {
		o.hits["child TPESVCERR"]++
	}
	if r.fwdFrom != nil && r.fwdFrom.fwdFrom != nil {
		o.hits["forward chain"]++
	}
}

// holding: r's instance holds it waiting for replies, and is not down.
func (o *oracle) holding(r *oReq) (ok, down bool) {
	if r.srv < 0 || o.insts[r.srv].th[r.thr].busy != r || r.ownEnd < 0 || r.done {
		return false, false
	}
	return true, o.insts[r.srv].state == "down"
}

// learn: w's caller learns w's outcome at t (code "" a reply, else the
// failure it sees: TPETIME at the deadline).
func (o *oracle) learn(w *oReq, code string, t int64) {
	if w.tmsFor != nil {
		o.tmsReply(w, t)
		return
	}
	if w.dlDone {
		return // the caller stopped waiting already
	}
	if w.fwdBy != nil {
		o.fwdLearn(w, code, t)
		return
	}
	if w.client == nil && w.caller == nil {
		return // open loop: nobody waits
	}
	if cl := w.client; cl != nil {
		w.dlDone = true
		o.clientOutcome(cl, w, code, t)
		return
	}
	p := w.caller
	ok, down := o.holding(p)
	if !ok {
		w.dlDone = true
		return
	}
	if down { // lost: the held request fails at the notice
		w.dlDone = true
		o.hits["lost at a down caller"]++
		return
	}
	k := -1
	for j, c := range p.outst {
		if c == w {
			k = j
		}
	}
	if k < 0 {
		w.dlDone = true
		return
	}
	w.dlDone = true
	p.outst = append(p.outst[:k:k], p.outst[k+1:]...)
	if code != "" {
		if code == "TPETIME" {
			o.hits["child TPETIME"]++
		}
		for _, c := range p.outst { // the rest go on, their replies discarded
			c.dlDone = true
		}
		p.outst = nil
		o.failParent(p, t)
		return
	}
	if len(p.outst) == 0 {
		o.runSteps(p, t)
	}
}

// runSteps runs r's steps from its next one at t: it issues the children of
// the next tpcall, tpacall run or tpforward, or ends r after the last.
func (o *oracle) runSteps(r *oReq, t int64) {
	steps := o.calls[r.svc]
	if x := r.tran; x != nil && x.aborted && r.step < len(steps) {
		// X was aborted: noreply steps are still issued; the first other
		// step fails r, and nothing after it is issued.
		for r.step < len(steps) && steps[r.step].noreply {
			o.child(r, t)
			o.hits["noreply after abort"]++
		}
		if r.step < len(steps) {
			o.hits["step after abort"]++
			o.failAborted(r, t)
			return
		}
	}
	if r.step >= len(steps) {
		o.finish(r, t)
		return
	}
	switch steps[r.step].mode {
	case "tpcall":
		c := o.child(r, t)
		if c.atIssue {
			o.failParent(r, t)
			return
		}
		r.outst = []*oReq{c}
	case "tpacall":
		o.hits["tpacall"]++
		for r.step < len(steps) && steps[r.step].mode == "tpacall" {
			c := o.child(r, t)
			if c.noreply {
				// nobody waits for it: its failure, even at its issue,
				// reaches no one
				if c.atIssue {
					o.hits["noreply failed at issue"]++
				}
				continue
			}
			if c.atIssue {
				for _, x := range r.outst {
					x.dlDone = true
				}
				r.outst = nil
				if r.step < len(steps) && steps[r.step].mode == "tpacall" {
					o.hits["tpacall run cut"]++
				}
				o.failParent(r, t)
				return
			}
			r.outst = append(r.outst, c)
		}
		if len(r.outst) > 1 {
			o.hits["tpacall run >1"]++
		}
		if len(r.outst) == 0 { // every step of the run was noreply: nothing to wait for
			o.hits["all-noreply run"]++
			o.runSteps(r, t)
		}
	case "tpforward":
		o.hits["tpforward"]++
		// A forwarded child that fails at its issue is handled at once, in
		// r's turn: X, handed to it, is aborted at its issue, while r's
		// instance still holds r; then r ends and its instance takes its
		// next request, and only then does r's caller learn of the failure.
		c := o.child(r, t)
		if c.atIssue {
			o.ownerFailed(c, t) // the owner X was handed to failed
		}
		o.release(r, t)
		if c.atIssue {
			o.hits["forward failed at issue"]++
			if r.unanswered {
				r.lastT = t
			}
			o.tellAt(waited(c), c, t)
		}
	}
}

// child issues r's next step at t from r's instance's machine.
func (o *oracle) child(r *oReq, t int64) *oReq {
	st := o.calls[r.svc][r.step]
	r.step++
	c := o.newReq(st.svc, o.m.Servers[r.srv].Machine, t)
	c.id = r.id + "." + strconv.Itoa(r.step)
	c.parent, c.nested = r, true
	c.svcUS = o.svcTimeUS[st.svc]
	if st.enq != nil { // a tpenqueue: the queue space's request, like a tpcall
		c.enqQ, c.svcUS = st.enq, o.enqUS[st.svc]
		o.hits["enqueue step"]++
	}
	if st.inherit {
		c.route, c.hasRoute = r.route, r.hasRoute
	} else {
		c.route, c.hasRoute = st.route, true
	}
	switch {
	case st.mode == "tpforward":
		c.fwdFrom, c.replyM = r, r.replyM
		c.unanswered = r.unanswered // it answers r's caller: nobody, for a noreply r
		if r.unanswered {
			o.hits["noreply forwards"]++
		}
	case st.noreply: // no caller, no deadline
		c.noreply, c.unanswered = true, true
		o.hits["noreply"]++
	default:
		c.caller = r
		c.deadline = t + o.limit(st.svc)
	}
	if r.tran != nil && !st.noreply { // a noreply child is never in X
		c.tran = r.tran
		if st.mode == "tpforward" && r.tran.ownedBy(r) {
			r.tran.owner = c // the forwarded child owns X now
			o.hits["owner forwarded"]++
		}
	}
	o.callsBy[r.svc]++
	o.hits["nested"]++
	o.issue(c)
	if c.q >= 0 && !c.atIssue && o.m.Queues[c.q].Machine != c.origin {
		o.hits["nested crossing"]++
	}
	if c.q >= 0 && !c.atIssue && o.m.Servers[o.m.Queues[c.q].Servers[0]].Gateway {
		o.hits["nested to a gateway"]++
	}
	if c.q >= 0 && c.q == o.m.Servers[r.srv].QueueIdx {
		o.hits["call into its own queue"]++
	}
	if c.atIssue && c.caller != nil {
		c.dlDone = true // its parent fails at once
	}
	return c
}

// limit is the caller's wait for a request of svc: its own BLOCKTIME, else
// SCANUNIT × BLOCKTIME.
func (o *oracle) limit(svc string) int64 {
	if b, ok := o.blockSvc[svc]; ok {
		return b
	}
	return o.blockUS
}

// accrue brings queue q's length integral up to t, before its line changes.
func (o *oracle) accrue(q int, t int64) {
	o.qArea[q] += int64(len(o.waiting[q])) * (t - o.qMark[q])
	o.qMark[q] = t
}

func (o *oracle) orphanCheck(q int, t int64) {
	if !o.orphaned(q) {
		return
	}
	o.accrue(q, t)
	for _, r := range o.waiting[q] {
		o.fail(r, t)
	}
	o.waiting[q] = nil
}

func (o *oracle) event(e oEvent) {
	t := e.at
	o.lastEvent = max(o.lastEvent, t)
	switch e.action {
	case "lose":
		o.loseMachine(e.mach, t)
		return
	case "restore":
		o.restoreMachine(e.mach, t)
		return
	}
	for _, i := range e.insts {
		in := &o.insts[i]
		if o.mLost[o.m.Servers[i].Machine] { // nothing runs there to act
			o.hits["event on a lost machine"]++
			continue
		}
		switch {
		case e.action == "kill" && in.state == "up":
			in.idleLook = o.serverIdle(in)
			for k := range in.th {
				b := in.th[k].busy
				if b == nil {
					continue
				}
				// held, no longer worked on
				o.busyUS[i] += t - b.start
				o.thrBusy[i][k] += t - b.start
				if b.ownEnd >= 0 {
					o.heldUS[i] += t - b.ownEnd
					o.thrHeld[i][k] += t - b.ownEnd
					o.hits["crash while holding"]++
				}
			}
			if len(in.th)-in.freeThreads() > 1 {
				o.hits["crash with several threads busy"]++
			}
			in.noticeAt = (t + o.sanityUS - 1) / o.sanityUS * o.sanityUS
			if in.noticeAt == 0 {
				in.noticeAt = o.sanityUS
			}
			o.change(t, i, "down", "kill")
		case e.action == "shutdown" && in.state == "up" && in.holds():
			for k := range in.th {
				if b := in.th[k].busy; b != nil && b.ownEnd >= 0 {
					o.hits["stopping while holding"]++
				}
			}
			o.change(t, i, "stopping", "shutdown")
		case e.action == "shutdown" && (in.state == "up" || in.state == "restarting"):
			in.comeUpAt = -1
			o.change(t, i, "gone", "shutdown")
			o.orphanCheck(o.m.Servers[i].QueueIdx, t)
		case e.action == "boot" && in.state == "gone":
			in.comeUpAt = t + o.bootUS
			o.change(t, i, "booting", "boot")
		}
	}
}

func (o *oracle) notice(i int, t int64) {
	in := &o.insts[i]
	in.noticeAt = -1
	for k := range in.th { // every held request fails, in thread order
		if r := in.th[k].busy; r != nil {
			in.th[k].busy, in.th[k].endAt = nil, -1
			o.fail(r, t)
		}
	}
	if f := o.fwdOf[i]; f != nil { // a forwarder loses its forward with the process
		o.fwdNotice(f, t)
	}
	life := o.m.Servers[i].Lifecycle()
	restart := false
	if life.Restart {
		switch {
		case in.gen < life.MaxGen:
			in.gen++
			restart = true
		case life.GraceS > 0 && t-in.startAt >= int64(life.GraceS)*1000000:
			in.gen, in.startAt = 1, t
			restart = true
		case life.GraceS == 0:
			restart = true
		}
	}
	if restart {
		in.comeUpAt = t + o.bootUS
		o.change(t, i, "restarting", "restart")
		return
	}
	cause := "MAXGEN"
	if !life.Restart {
		cause = "RESTART=N"
	}
	o.change(t, i, "gone", cause)
	o.orphanCheck(o.m.Servers[i].QueueIdx, t)
}

// abortAt is when the BBL aborts a request instance i holds in service
// (SVCTIMEOUT), or -1: the first scan at or after start + SVCTIMEOUT, the
// earliest over its threads.
func (o *oracle) abortAt(i int) int64 {
	in := &o.insts[i]
	if (in.state != "up" && in.state != "stopping") || o.m.Servers[i].Gateway || o.m.Servers[i].TMS {
		return -1
	}
	best := int64(-1)
	for k := range in.th {
		th := &in.th[k]
		if th.busy == nil {
			continue
		}
		to := int64(o.params(th.busy.svc, o.m.Servers[i].QueueIdx).SvcTimeoutS) * 1000000
		if to == 0 {
			continue
		}
		su := o.m.ScanUnitUS
		at := (th.busy.start + to + su - 1) / su * su
		if th.endAt >= 0 && at > th.endAt {
			continue
		}
		// still in service then: working, or holding it for replies
		if best < 0 || at < best {
			best = at
		}
	}
	return best
}

// abort ends i's requests at t with TPESVCERR, every thread's at once in
// thread order: the instance crashes and the crash is noticed at once.
func (o *oracle) abort(i int, t int64) {
	in := &o.insts[i]
	for k := range in.th {
		r := in.th[k].busy
		if r == nil {
			continue
		}
		in.th[k].busy, in.th[k].endAt = nil, -1
		o.busyUS[i] += t - r.start
		o.thrBusy[i][k] += t - r.start
		if r.ownEnd >= 0 {
			o.heldUS[i] += t - r.ownEnd
			o.thrHeld[i][k] += t - r.ownEnd
			o.hits["SVCTIMEOUT while holding"]++
		}
		o.fail(r, t)
	}
	if in.state == "stopping" {
		o.change(t, i, "gone", "SVCTIMEOUT")
		o.orphanCheck(o.m.Servers[i].QueueIdx, t)
		return
	}
	o.change(t, i, "down", "SVCTIMEOUT")
	o.notice(i, t)
}

// measure is what -p compares for sp: the requests waiting in its queues
// (with L, their LOAD) and their up instances.
func (o *oracle) measure(sp *oSpawn) (w, up int64) {
	for _, q := range sp.queues {
		for _, r := range o.waiting[q] {
			if sp.sp.Load {
				w += int64(o.params(r.svc, q).Load)
			} else {
				w++
			}
		}
		for _, i := range o.m.Queues[q].Servers {
			if o.insts[i].state == "up" {
				up++
			}
		}
	}
	return w, up
}

// spawnStep is the BBL's -p decisions at scan t, entry by entry: spawn once
// the measure has met or exceeded high for create seconds.
func (o *oracle) spawnStep(t int64) {
	for _, sp := range o.spawns {
		if o.mLost[o.m.Servers[sp.servers[0]].Machine] { // its BBL is stopped
			continue
		}
		w, up := o.measure(sp)
		above := up > 0 && w >= int64(sp.sp.High)*up || (up == 0 && w > 0)
		if !above {
			sp.above = -1
			continue
		}
		if sp.above < 0 {
			sp.above = t
		}
		if t-sp.above >= int64(sp.sp.CreateS)*1000000 {
			for _, i := range sp.servers {
				if o.m.Servers[i].SrvID >= sp.minSrvID && o.insts[i].state == "gone" {
					o.insts[i].comeUpAt = t + o.bootUS
					o.change(t, i, "booting", "spawn")
					sp.above = t
					break
				}
			}
		}
	}
}

// decayAt is when spare i of sp ends itself, or -1: terminate seconds after
// it became idle, if it is up and idle (and low is not 0: the measure is
// never below 0).
func (o *oracle) decayAt(sp *oSpawn, i int) int64 {
	in := &o.insts[i]
	if o.m.Servers[i].SrvID < sp.minSrvID || in.state != "up" || in.holds() || sp.sp.Low == 0 || sp.sp.Conv {
		return -1
	}
	since := int64(0) // idle since its last thread became free
	for k := range in.th {
		since = max(since, in.th[k].freeSince)
	}
	return since + int64(sp.sp.TerminateS)*1000000
}

// decayStep is the spares whose idle alarm goes off at t ending themselves,
// in scan order, while the measure of their set is below low.
func (o *oracle) decayStep(t int64) {
	for i := range o.insts {
		for _, sp := range o.spawns {
			if !slices.Contains(sp.servers, i) || o.decayAt(sp, i) != t {
				continue
			}
			if w, up := o.measure(sp); w < int64(sp.sp.Low)*up {
				o.change(t, i, "gone", "decay")
				o.orphanCheck(o.m.Servers[i].QueueIdx, t)
			}
		}
	}
}

// active: requests remain to be issued or are in the system.
func (o *oracle) active(next int) bool {
	if next < len(o.pending) {
		return true
	}
	for _, r := range o.reqs {
		if !r.done {
			return true
		}
	}
	return false
}

// clientIssue: client cl issues its current request at t.
func (o *oracle) clientIssue(cl *oClient, t int64) {
	cs := cl.set
	e := cs.script[cl.pos]
	r := o.newReq(e.svc, cs.origin, t)
	r.id = fmt.Sprintf("%s:%d:%d", cs.name, cl.c, cl.n)
	if cl.k > 0 {
		r.id += fmt.Sprintf("~%d", cl.k)
		r.retry = true
		cs.retried++
	}
	r.route, r.hasRoute = e.route, e.hasRoute
	r.svcUS = o.svcTimeUS[e.svc]
	if e.enq != nil {
		r.enqQ, r.svcUS = e.enq, o.enqUS[e.svc]
		o.hits["client enqueue"]++
	}
	r.client, r.deadline = cl, t+o.limit(e.svc)
	cl.wait, cl.nextAt = r, -1
	if cs.via != "" && o.handleUS > 0 {
		// a workstation client: its handler chooses the request one
		// handling time after the send
		o.number(r)
		r.chooseAt = t + o.handleUS
		o.hits["ws deferred choice"]++
		return
	}
	o.issue(r)
	if r.atIssue {
		o.tellAt(r, r, t)
	}
}

// clientOutcome: client cl sees code ("" a reply) for its request w at t,
// then retries after a backoff or thinks before its next request.
func (o *oracle) clientOutcome(cl *oClient, w *oReq, code string, t int64) {
	cs := cl.set
	cs.requests++
	cs.resps = append(cs.resps, t-w.issue)
	switch code {
	case "":
		cs.completed++
	case "TPETIME":
		cs.timedOut++
		o.hits["client TPETIME"]++
		o.clientTimeout = max(o.clientTimeout, t)
	default:
		cs.failed[code]++
		o.hits["client "+code]++
	}
	cl.wait = nil
	if code != "" && cs.on[code] && cl.k < cs.retryMax {
		cl.k++
		cl.nextAt = t + cs.boUS
		o.hits["retry"]++
		return
	}
	cl.n, cl.k = cl.n+1, 0
	cl.pos = (cl.pos + 1) % len(cs.script)
	cl.nextAt = t + cs.thinkUS
}

// run plays everything and returns the dispatch log.
func (o *oracle) run() string {
	next := 0 // next trace row
	ev := 0   // next scenario event
	now := int64(0)
	o.connect()
	for _, cs := range o.sets {
		for _, cl := range cs.clients {
			if !cl.off {
				cl.nextAt = cs.thinkUS // each client thinks first
			}
		}
	}
	for steps := 0; ; steps++ {
		if steps > 10_000_000 || len(o.reqs) > 200_000 {
			o.stuck = true
			break
		}
		t := int64(math.MaxInt64)
		if next < len(o.pending) {
			t = o.pending[next].issue
		}
		if ev < len(o.events) {
			t = min(t, o.events[ev].at)
		}
		for i := range o.insts {
			in := &o.insts[i]
			if in.state == "down" {
				t = min(t, in.noticeAt)
			}
			if in.comeUpAt >= 0 {
				t = min(t, in.comeUpAt)
			}
			if in.state == "up" || in.state == "stopping" {
				for k := range in.th {
					if in.th[k].busy != nil && in.th[k].endAt >= 0 {
						t = min(t, in.th[k].endAt)
					}
				}
			}
			if a := o.abortAt(i); a >= 0 {
				t = min(t, a)
			}
		}
		for _, r := range o.reqs {
			if r.arriveAt >= 0 {
				t = min(t, r.arriveAt)
			}
			if r.chooseAt >= 0 {
				t = min(t, r.chooseAt)
			}
			if r.deadline >= 0 && !r.dlDone {
				t = min(t, r.deadline)
			}
		}
		for _, n := range o.notices {
			t = min(t, n.t)
		}
		for _, x := range o.trans {
			if x.deadline >= 0 && !x.aborted && !x.committing {
				t = min(t, x.deadline)
			}
		}
		for _, cs := range o.sets {
			for _, cl := range cs.clients {
				if cl.nextAt >= 0 && cl.nextAt < o.durUS {
					t = min(t, cl.nextAt)
				}
			}
		}
		if o.qOn {
			t = min(t, o.qNext(now))
		}
		for _, at := range o.mNoticeAt {
			if at >= 0 {
				t = min(t, at)
			}
		}
		if len(o.spawns) > 0 && o.active(next) {
			su := o.m.ScanUnitUS
			ns := (max(now, o.lastScan+1) + su - 1) / su * su
			t = min(t, ns)
			for _, sp := range o.spawns {
				for _, i := range sp.servers {
					if at := o.decayAt(sp, i); at >= now {
						t = min(t, at)
					}
				}
			}
		}
		if t == math.MaxInt64 {
			break
		}
		now = t
		// -p scans run while requests remain to be issued or are in the
		// system, as the instant begins (docs/engine.md, "-p").
		alive := len(o.spawns) > 0 && o.active(next)
		scanning := alive && t > o.lastScan && t%o.m.ScanUnitUS == 0
		for ev < len(o.events) && o.events[ev].at == t {
			o.event(o.events[ev])
			ev++
		}
		o.dbblNotice(t)
		for i := range o.insts {
			if o.insts[i].state == "down" && o.insts[i].noticeAt == t {
				o.notice(i, t)
			} else if o.abortAt(i) == t {
				o.abort(i, t)
			}
		}
		if scanning {
			o.lastScan = t
			o.spawnStep(t)
		}
		for i := range o.insts {
			if in := &o.insts[i]; in.comeUpAt == t {
				in.comeUpAt = -1
				for k := range in.th {
					in.th[k].freeSince = t
				}
				if in.state == "booting" { // from gone: generation 1, started now
					in.gen, in.startAt = 1, t
				}
				o.change(t, i, "up", "booted")
				if f := o.fwdOf[i]; f != nil && f.lostMsg { // lost holding a message: it fails now
					f.lostMsg = false
					o.hits["lost forwarder's message fails at its come-up"]++
					o.fwdNotice(f, t)
				}
				if f := o.fwdOf[i]; f != nil { // it looks in the wake-up turn
					f.due, f.wakeAt = true, -1
				}
				// up to k waiting requests, threads in number order
				for k := range in.th {
					o.take(i, k, t)
				}
				if len(in.th)-in.freeThreads() > 1 {
					o.hits["come-up takes several"]++
				}
			}
		}
		if alive {
			o.decayStep(t)
		}
		// One thing at a time, from the first class of the instant's order
		// that has one: what it starts at this instant (a 0 µs service, a
		// reply with no crossing) comes before the later classes.
		// Completions of own work, in scan order then thread number
		// (their steps run now).
		completed := false
	completions:
		for i := range o.insts {
			in := &o.insts[i]
			if in.state != "up" && in.state != "stopping" {
				continue
			}
			for k := range in.th {
				if in.th[k].busy != nil && in.th[k].endAt == t {
					o.complete(i, k, t)
					completed = true
					break completions
				}
			}
		}
		if completed {
			continue
		}
		// Replies and failures reaching a waiting caller, by the replying
		// request's number.
		k := -1
		for j, n := range o.notices {
			if n.t == t && (k < 0 || n.seq < o.notices[k].seq) {
				k = j
			}
		}
		if k >= 0 {
			n := o.notices[k]
			o.notices = append(o.notices[:k:k], o.notices[k+1:]...)
			o.learn(n.w, n.code, t)
			continue
		}
		// Deadlines, in issue order.
		var due *oReq
		for _, r := range o.reqs {
			if r.deadline == t && !r.dlDone {
				due = r
				break
			}
		}
		if due != nil {
			o.learn(due, "TPETIME", t)
			continue
		}
		// Transaction deadlines, in the order the transactions started.
		var xdue *oTran
		for _, x := range o.trans {
			if x.deadline == t && !x.aborted && !x.committing {
				xdue = x
				break
			}
		}
		if xdue != nil {
			o.hits["transaction timeout"]++
			o.abortTran(xdue, true, t)
			continue
		}
		// Arrivals over the network, in issue order.
		arrived := false
		for _, r := range o.reqs {
			if r.arriveAt == t {
				for _, r2 := range o.reqs {
					if r2.arriveAt == t && r2.placeSeq < r.placeSeq {
						o.hits["arrival in issue order, not choice order"]++
					}
				}
				r.arriveAt = -1
				o.enqueue(r, t)
				arrived = true
				break
			}
		}
		if arrived {
			continue
		}
		// Workstation handlers' choices, in issue order.
		var ch *oReq
		for _, r := range o.reqs {
			if r.chooseAt == t {
				ch = r
				break
			}
		}
		if ch != nil {
			ch.chooseAt = -1
			if o.mLost[ch.origin] { // its handler is on a lost machine
				ch.reason, ch.failed, ch.done, ch.atIssue = "TPESYSTEM", true, true, true
				o.hits["ws choice on a lost machine"]++
				o.tellAt(ch, ch, t)
				continue
			}
			o.place(ch, t)
			if ch.atIssue {
				o.tellAt(ch, ch, t)
			}
			continue
		}
		// New trace requests, in trace order.
		if next < len(o.pending) && o.pending[next].issue == t {
			if r := o.pending[next]; o.mLost[r.origin] && r.stream { // a lost machine's stream issues nothing
				o.hits["stream on a lost machine"]++
			} else if o.mLost[r.origin] { // a trace row from a lost machine
				o.number(r)
				r.reason, r.failed, r.done, r.atIssue = "TPESYSTEM", true, true, true
				o.hits["trace row from a lost machine"]++
			} else {
				o.issue(r)
			}
			next++
			continue
		}
		// Client requests, by set then client number.
		issued := false
	clients:
		for _, cs := range o.sets {
			for _, cl := range cs.clients {
				if cl.nextAt == t && t < o.durUS {
					o.clientIssue(cl, t)
					issued = true
					break clients
				}
			}
		}
		if issued {
			continue
		}
		// /Q: messages available again (in the order they failed), then
		// forwarders waking up (in scan order).
		if o.qOn && (o.availableAgain(t) || o.wakeUp(t)) {
			continue
		}
	}
	o.commitsNeverDone()
	// Timed out: completed, and its response (oracle_figures_test.go's
	// respUS) longer than its limit; a forwarded child has none.
	for _, r := range o.reqs {
		r.timedOut = !r.failed && r.done && r.fwdFrom == nil && !r.unanswered && r.tmsFor == nil && o.respUS(r) > o.limit(r.svc)
	}
	return o.log()
}

func (o *oracle) log() string {
	var b strings.Builder
	b.WriteString("id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason")
	if o.threaded {
		b.WriteString(",thread")
	}
	if o.app || o.tranOn {
		b.WriteString(",parent")
	}
	b.WriteString("\n")
	num := func(v int64) string {
		if v < 0 {
			return ""
		}
		return strconv.FormatInt(v, 10)
	}
	for _, r := range o.reqs {
		srv, q := "", ""
		if r.srv >= 0 {
			srv = o.m.Servers[r.srv].ID
		}
		if r.q >= 0 && r.reason != "TPENOENT" && r.reason != "TPESYSTEM" {
			q = o.m.Queues[r.q].Name
		}
		fmt.Fprintf(&b, "%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s", r.id, r.svc, o.m.Machines[r.origin].LMID, r.issue,
			srv, q, num(r.enq), num(r.start), num(r.end), num(r.reply), r.reason)
		if o.threaded {
			b.WriteString(",")
			if r.srv >= 0 {
				b.WriteString(strconv.Itoa(r.thr + 1))
			}
		}
		if o.app || o.tranOn {
			b.WriteString(",")
			if r.parent != nil {
				b.WriteString(r.parent.id)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// counts returns issued, completed, failed by code and timed out.
func (o *oracle) counts() (int64, int64, map[string]int64, int64) {
	var done, tout int64
	failed := map[string]int64{}
	for _, r := range o.reqs {
		switch {
		case r.failed:
			failed[r.reason]++
		case r.done:
			done++
			if r.timedOut {
				tout++
			}
		}
	}
	return int64(len(o.reqs)), done, failed, tout
}

// oConst is a const distribution of the application document.
type oConst struct {
	Dist string   `json:"dist"`
	MS   *float64 `json:"ms"`
}

// oAppDoc is what the oracle reads of an application document itself,
// beside the Scenario fields: service times, calls and client sets.
type oAppDoc struct {
	Services map[string]struct {
		ServiceTime *oConst `json:"service_time"`
		Calls       []struct {
			Service string          `json:"service"`
			Mode    string          `json:"mode"`
			P       *float64        `json:"p"`
			Route   json.RawMessage `json:"route"`
			NoReply bool            `json:"noreply"`
			Enqueue string          `json:"enqueue"`
		} `json:"calls"`
	} `json:"services"`
	Workstation *struct {
		HandlingTime *oConst `json:"handling_time"`
	} `json:"workstation"`
	Workload struct {
		Generate *struct {
			DurationMS float64      `json:"duration_ms"`
			Streams    []oStreamDoc `json:"streams"`
			Clients    []struct {
				Name     string  `json:"name"`
				Count    int     `json:"count"`
				Origin   string  `json:"origin"`
				Via      string  `json:"via"`
				Think    *oConst `json:"think"`
				Services []struct {
					Service string          `json:"service"`
					Route   json.RawMessage `json:"route"`
				} `json:"services"`
				Script []json.RawMessage `json:"script"`
				Retry  *struct {
					Max     int      `json:"max"`
					On      []string `json:"on"`
					Backoff *oConst  `json:"backoff"`
				} `json:"retry"`
			} `json:"clients"`
		} `json:"generate"`
	} `json:"workload"`
}

// newAppOracle reads an application document: the Scenario fields as
// newOracle reads them, the rest through oAppDoc.
func newAppOracle(doc []byte) (*oracle, error) {
	var sc scenario.Scenario
	if err := json.Unmarshal(doc, &sc); err != nil {
		return nil, err
	}
	o, err := newOracle(&sc)
	if err != nil {
		return nil, err
	}
	var d oAppDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	return o, o.readApp(&d)
}

// constUS is a const distribution in whole µs; at least lo.
func constUS(d *oConst, lo int64) (int64, error) {
	if d == nil {
		return lo, nil
	}
	if d.Dist != "const" || d.MS == nil {
		return 0, fmt.Errorf("oracle: only const distributions")
	}
	return max(oRoundUS(*d.MS), lo), nil
}

// oRouteConst reads a constant route: a JSON number (its text) or string.
func oRouteConst(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", fmt.Errorf("oracle: route %s: only constants", raw)
	}
	return n.String(), nil
}

func (o *oracle) readApp(d *oAppDoc) error {
	for name, s := range d.Services {
		if s.ServiceTime != nil {
			us, err := constUS(s.ServiceTime, 0)
			if err != nil {
				return err
			}
			o.svcTimeUS[name] = us
		}
		for _, c := range s.Calls {
			if c.P != nil && *c.P != 1 {
				return fmt.Errorf("oracle: p = 1 only")
			}
			st := oStep{svc: c.Service, mode: c.Mode, inherit: true, noreply: c.NoReply}
			if c.Enqueue != "" {
				mq, err := o.enqueueTarget(c.Enqueue)
				if err != nil {
					return err
				}
				st.svc, st.enq = mq.qspace, mq
			}
			o.noreplySteps = o.noreplySteps || c.NoReply
			if st.mode == "" {
				st.mode = "tpcall"
			}
			if len(c.Route) > 0 && string(c.Route) != `"inherit"` {
				r, err := oRouteConst(c.Route)
				if err != nil {
					return err
				}
				st.inherit, st.route = false, r
			}
			o.calls[name] = append(o.calls[name], st)
			o.app = true
		}
	}
	// A service's own BLOCKTIME (seconds) in *SERVICES, read from the text.
	section := ""
	for _, line := range strings.Split(o.sc.UBBConfig, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if strings.HasPrefix(f[0], "*") {
			section = f[0]
			continue
		}
		if section != "*SERVICES" {
			continue
		}
		for _, kv := range f[1:] {
			if v, ok := strings.CutPrefix(kv, "BLOCKTIME="); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					return err
				}
				o.blockSvc[f[0]] = int64(n) * 1000000
			}
		}
	}
	g := d.Workload.Generate
	if g == nil {
		return nil
	}
	if w := d.Workstation; w != nil {
		var err error
		if o.handleUS, err = constUS(w.HandlingTime, 0); err != nil {
			return err
		}
	}
	o.durUS = oRoundUS(g.DurationMS)
	if err := o.readStreams(g.Streams); err != nil {
		return err
	}
	for _, c := range g.Clients {
		o.app = true
		cs := &oClientSet{name: c.Name, count: c.Count, origin: o.m.MachineIndex(c.Origin),
			on: map[string]bool{"TPETIME": true}, failed: map[string]int64{}, via: c.Via}
		if c.Via != "" { // its requests enter on the WSL's machine
			cs.origin = -1
			for _, s := range o.m.Servers {
				if s.ID == c.Via {
					cs.origin = s.Machine
				}
			}
		}
		if cs.origin < 0 {
			return fmt.Errorf("oracle: client set %s: origin %q", c.Name, c.Origin)
		}
		var err error
		if cs.thinkUS, err = constUS(c.Think, 1); err != nil {
			return err
		}
		cs.boUS = 1
		if r := c.Retry; r != nil {
			cs.retryMax = r.Max
			if r.On != nil {
				cs.on = map[string]bool{}
				for _, code := range r.On {
					cs.on[code] = true
				}
			}
			if cs.boUS, err = constUS(r.Backoff, 1); err != nil {
				return err
			}
		}
		for _, sv := range c.Services {
			if len(c.Services) != 1 {
				return fmt.Errorf("oracle: one service only")
			}
			e := oEntry{svc: sv.Service}
			if len(sv.Route) > 0 { // {"values": [v]}: one value
				var rs struct {
					Values []json.RawMessage `json:"values"`
				}
				if err := json.Unmarshal(sv.Route, &rs); err != nil || len(rs.Values) != 1 {
					return fmt.Errorf("oracle: a one-value route only")
				}
				if e.route, err = oRouteConst(rs.Values[0]); err != nil {
					return err
				}
				e.hasRoute = true
			}
			cs.script = append(cs.script, e)
		}
		for _, raw := range c.Script {
			var e oEntry
			if json.Unmarshal(raw, &e.svc) != nil {
				var se struct {
					Service string          `json:"service"`
					Route   json.RawMessage `json:"route"`
					Enqueue string          `json:"enqueue"`
				}
				if err := json.Unmarshal(raw, &se); err != nil {
					return err
				}
				e.svc = se.Service
				if se.Enqueue != "" {
					mq, err := o.enqueueTarget(se.Enqueue)
					if err != nil {
						return err
					}
					e.svc, e.enq = mq.qspace, mq
				}
				if len(se.Route) > 0 {
					if e.route, err = oRouteConst(se.Route); err != nil {
						return err
					}
					e.hasRoute = true
				}
			}
			cs.script = append(cs.script, e)
		}
		for k := 0; k < c.Count; k++ {
			cs.clients = append(cs.clients, &oClient{set: cs, c: k, pos: k % len(cs.script), nextAt: -1})
		}
		o.sets = append(o.sets, cs)
	}
	return nil
}

// connect connects the clients of the sets with via at t = 0, sets in
// listed order, clients in number order: to the started handler with the
// fewest clients among those below mpx (the lowest number on a tie), else
// to a new handler while fewer than maxh run; not when every handler is
// full, when the machine has MAXWSCLIENTS clients already, or when via is
// not the WSL's first instance (only it takes clients).
func (o *oracle) connect() {
	o.wsl = make([]*oWSL, len(o.m.Workstations))
	for k, w := range o.m.Workstations {
		o.wsl[k] = &oWSL{handlers: make([]int, w.MinHandlers)}
	}
	perMachine := map[int]int{}
	for _, cs := range o.sets {
		if cs.via == "" {
			continue
		}
		k, first := -1, false
		for j, w := range o.m.Workstations {
			for i := w.Server; i < w.Server+w.Count; i++ {
				if o.m.Servers[i].ID == cs.via {
					k, first = j, i == w.Server
				}
			}
		}
		w, st := o.m.Workstations[k], o.wsl[k]
		for _, cl := range cs.clients {
			h := -1
			switch {
			case !first:
				o.hits["ws via a later instance"]++
			case perMachine[w.Machine] >= o.m.Machines[w.Machine].MaxWSClients:
				o.hits["ws MAXWSCLIENTS reached"]++
			default:
				for j, n := range st.handlers {
					if n < w.MPX && (h < 0 || n < st.handlers[h]) {
						h = j
					}
				}
				if h < 0 && len(st.handlers) < w.MaxHandlers {
					st.handlers = append(st.handlers, 0)
					h = len(st.handlers) - 1
					o.hits["ws handler started"]++
				}
				if h < 0 {
					o.hits["ws handlers full"]++
				}
			}
			if h < 0 {
				cl.off = true
				cs.refused++
				st.refused++
				continue
			}
			st.handlers[h]++
			perMachine[w.Machine]++
			o.hits["ws connected"]++
		}
	}
}
