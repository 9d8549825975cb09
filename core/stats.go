package core

import (
	"math"

	"github.com/tuxlb/tuxlb/core/batchmeans"
	"github.com/tuxlb/tuxlb/core/internal/donecount"
	"github.com/tuxlb/tuxlb/core/internal/hist"
)

// stats accumulates the per-request statistics of a run. Requests issued
// before the warm-up are simulated but not counted here.
type stats struct {
	issued, completed, timedOut int64
	failed                      [numFailures]int64 // per failure code (reason - reasonNoEnt)
	svcFailed                   []int64            // [service*numFailures + code]

	wait, resp   hist.Acc
	qWait        []hist.Acc
	qBatch       *hist.Batch  // a model of a thousand queues or more: their nonzero waits, not counted yet
	qEnqueued    []int64      // per queue: requests enqueued (counted in its state, added here by addApart)
	qs           []queueState // the engine's queues, with their zero waits and enqueues counted apart
	sWait, sResp []hist.Acc   // per service: copied from svc by finish
	svc          []svcAcc     // per service, as complete counts it

	svcIssued, svcCompleted, svcTimedOut, svcBusy []int64 // svcBusy: copied from svc by finish
	srvRequests, srvLoad, srvChosen               []int64
	warmChosen                                    []int64 // per server: requests chosen before the warm-up
	done                                          donecount.Table
	mIssued, mServed, mLocal, mSent, mRecv        []int64

	firstIssue, lastIssue int64
	warmUS                int64
	blockAfter            int64 // a response longer than this times out: BLOCKTIME, or never
	// svcBlock[s] replaces blockAfter for service s; nil when no service has a BLOCKTIME of its own
	svcBlock []int64
	// flows counts the requests issued by origin machine, the chosen
	// queue's machine (0 for none: failed at issue, else 1 + its index) and
	// dispatch reason, at [(origin*(machines+1) + machine)*numReasons + reason]
	flows []int64
	nm1   int
	// vSim[s] is the response of service s's trace rows whose log observed
	// one, vAll theirs all together (the result's validation); nil when the
	// log observed none. v holds the validation window and batches.
	vSim []hist.Acc
	vAll hist.Acc
	v    *batchmeans.Window
}

// validated counts the response of a trace row whose log observed one, issued
// at t and answered at reply, if it lies in the validation window. It is
// apart from complete, which calls it rarely, so as not to weigh on it.
//
//go:noinline
func (st *stats) validated(s int, t, resp, reply int64) {
	v := st.v
	if t < v.FromUS {
		return
	}
	st.vSim[s].Add(resp)
	st.vAll.Add(resp)
	v.Svc[s].Sim.Add(t, resp, reply <= v.ToUS)
	v.All.Sim.Add(t, resp, reply <= v.ToUS)
}

// numReasons is how many dispatch reasons and failure codes there are.
var numReasons = len(reasons.Names)

// flow counts request f, dispatched to a queue on machine m (-1: none).
func (st *stats) flow(f *flight, m int32) {
	if f.counted {
		st.flows[(f.req.Origin*st.nm1+int(m)+1)*numReasons+int(f.reason)]++
	}
}

func (st *stats) init(e *engine) {
	nsvc, nsrv, nq, nm := len(e.m.Services), len(e.m.Servers), len(e.m.Queues), len(e.m.Machines)
	st.warmUS, st.blockAfter = e.setup.WarmupUS, e.setup.BlockUS
	if st.blockAfter <= 0 { // BLOCKTIME 0: no time-out
		st.blockAfter = math.MaxInt64
	}
	for s := range e.m.Services {
		if b := e.m.Services[s].BlockTimeS; b > 0 {
			if st.svcBlock == nil {
				st.svcBlock = make([]int64, nsvc)
				for k := range st.svcBlock {
					st.svcBlock[k] = st.blockAfter
				}
			}
			st.svcBlock[s] = int64(b) * 1_000_000
		}
	}
	st.firstIssue = -1
	st.qWait, st.qEnqueued = hist.KeepingFew(nq), make([]int64, nq) // thousands of queues may see few waits each
	st.qBatch = hist.BatchFor(st.qWait)
	st.sWait, st.sResp = make([]hist.Acc, nsvc), make([]hist.Acc, nsvc)
	st.svc = make([]svcAcc, nsvc)
	if nsvc >= svcFewFrom {
		// a model of hundreds of services may see a few hundred responses
		// a service, spread over its distributions' 36 KB: kept as a list
		// (two bytes each) until there are thousands
		for s := range st.svc {
			st.svc[s].wait.KeepFew()
			st.svc[s].resp.KeepFew()
		}
	}
	for _, p := range []*[]int64{&st.svcIssued, &st.svcCompleted, &st.svcTimedOut, &st.svcBusy} {
		*p = make([]int64, nsvc)
	}
	st.svcFailed = make([]int64, nsvc*numFailures)
	for _, p := range []*[]int64{&st.srvRequests, &st.srvLoad, &st.srvChosen, &st.warmChosen} {
		*p = make([]int64, nsrv)
	}
	st.done.Init(e.m)
	for _, p := range []*[]int64{&st.mIssued, &st.mServed, &st.mLocal, &st.mSent, &st.mRecv} {
		*p = make([]int64, nm)
	}
	st.nm1 = nm + 1
	st.flows = make([]int64, nm*st.nm1*numReasons)
	if w := e.setup.Work; w != nil && len(w.Observed) > 0 {
		st.vSim = make([]hist.Acc, nsvc)
		st.v = batchmeans.NewWindow(w.Observed, nsvc, max(st.warmUS, e.setup.ValidateAfterUS))
	}
}

func (st *stats) issue(f *flight) {
	if !f.counted {
		return
	}
	st.issued++
	st.svcIssued[f.req.Service]++
	st.mIssued[f.req.Origin]++
	if st.firstIssue < 0 {
		st.firstIssue = f.req.TimeUS
	}
	st.lastIssue = f.req.TimeUS
}

func (st *stats) fail(f *flight) {
	if f.counted {
		code := int(f.reason - reasonNoEnt)
		st.failed[code]++
		st.svcFailed[f.req.Service*numFailures+code]++
	}
}

// chosen notes that the dispatch rule chose f.chosen for f. The series
// counts every choice per server (series.dispatch); only those before the
// warm-up are counted here, to be taken off (see finish): no count for a
// request after the warm-up, and none at all in a run without one.
func (st *stats) chosen(f *flight) {
	if !f.counted {
		st.warmChosen[f.chosen]++
	}
}

// crossing counts a request sent from its origin to a queue on machine qm.
func (st *stats) crossing(f *flight, qm int32) {
	if f.counted {
		st.mSent[f.req.Origin]++
		st.mRecv[qm]++
	}
}

func (st *stats) enqueue(f *flight) {
	if f.counted {
		c := &st.qs[f.queue].enqueued
		if *c++; *c == 0 { // 2^32 since addApart (a run of lost requests)
			st.qEnqueued[f.queue] += 1 << 32
		}
	}
}

// queueLength notes that queue q holds n waiting requests at t.
func (st *stats) queueLength(q int32, n, t int64) {
	if a := &st.qs[q]; t >= st.warmUS && n > int64(a.maxLen) {
		a.maxLen = int32(n)
	}
}

func (st *stats) complete(f *flight, sv *serverState) {
	if !f.counted {
		return
	}
	s := f.req.Service
	wait, resp := f.startUS-f.enqueueUS, f.replyUS-f.req.TimeUS
	if st.completed++; st.completed%hist.FlushEvery == 0 {
		st.addFronts() // no front's 32-bit count can overflow
	}
	iw, ir := hist.Index(wait), hist.Index(resp)
	// a queue's zero waits, most of its waits below saturation, count in
	// its state (queueState.zero), beside what the request touched of it
	// already, rather than in its distribution's two cache lines: a large
	// model's queues do not all fit in the cache
	if wait == 0 {
		st.qs[f.queue].zero++
	} else if st.qBatch != nil {
		st.qBatch.Note(f.queue, wait)
	} else if a := &st.qWait[f.queue]; !a.Note(wait, iw) {
		a.Spill(wait)
	}
	sa := &st.svc[s]
	if !sa.wait.Note(wait, iw) {
		sa.wait.Spill(wait)
	}
	if !f.unanswered && f.reason != reasonTMS { // a TPNOREPLY child's reply is never sent, a TMS request's goes to no caller: no response, no timeout
		if !sa.resp.Note(resp, ir) {
			sa.resp.Spill(resp)
		}
		lim := st.blockAfter
		if st.svcBlock != nil {
			lim = st.svcBlock[s]
		}
		if st.v != nil && f.req.Observed { // (its record's third line only when the log observed any)
			st.validated(s, f.req.TimeUS, resp, f.replyUS)
		}
		if resp > lim && !f.forwardee { // a tpforward child has no deadline of its own
			st.timedOut++
			st.svcTimedOut[s]++
		}
	}
	sa.busy += f.endUS - f.startUS
	if sv.mt != nil {
		sv.mt.Requests[f.thread]++
	}
	// done's counts give srvRequests, srvLoad and mServed (see finish).
	// The layout is tested here: a method testing it would call addSparse,
	// which would keep it from being inlined.
	if d := &st.done; d.Dense {
		d.AddDense(sv.idx, int32(s), int64(f.load))
	} else {
		d.AddSparse(sv.idx, int32(s), int64(f.load))
	}
	if int(sv.machine) == f.req.Origin {
		st.mLocal[sv.machine]++
	}
}

// longestUS returns the longest wait or response counted so far.
func (st *stats) longestUS() int64 {
	var m int64
	for s := range st.svc {
		m = max(m, st.svc[s].wait.Max, st.svc[s].resp.Max)
	}
	return m
}

// addFronts adds every distribution's front to its histogram. It is rare:
// not inlined, so as not to weigh on complete's frame.
//
//go:noinline
func (st *stats) addFronts() {
	st.addApart()
	st.eachCounted((*hist.Acc).FlushFront)
}

// addApart adds the queues' waits in a batch, and their zero waits and
// enqueued requests, counted apart in their states, to their distributions
// and counts.
func (st *stats) addApart() {
	st.qBatch.Flush()
	for i := range st.qEnqueued {
		st.qWait[i].AddZeros(st.qs[i].zero)
		st.qEnqueued[i] += int64(st.qs[i].enqueued)
		st.qs[i].zero, st.qs[i].enqueued = 0, 0
	}
}

// releaseFronts hands every distribution's front back for later runs, once
// the result has been read out of them (sWait and sResp share svc's).
func (st *stats) releaseFronts() {
	st.eachCounted((*hist.Acc).ReleaseFront)
	for s := range st.sWait {
		st.sWait[s].DropFront()
		st.sResp[s].DropFront()
	}
}

// eachCounted calls do on every distribution complete counts in: each
// queue's wait, each service's wait and response.
func (st *stats) eachCounted(do func(*hist.Acc)) {
	for i := range st.qWait {
		do(&st.qWait[i])
	}
	for i := range st.svc {
		do(&st.svc[i].wait)
		do(&st.svc[i].resp)
	}
}

// finish copies out the per-service figures complete counts together (svc)
// and derives, once the run is over, the figures that are sums of the
// per-request counts rather than counted per request: the overall wait and
// response count, sum and maximum, and each service's requests completed,
// from the per-service distributions (their histograms are merged by
// hist.Merge); each server's requests and LOAD done from its per-service
// counts; each machine's requests served from its servers'; each server's
// requests chosen from the series' less those before the warm-up.
func (st *stats) finish(e *engine) {
	st.addApart()
	for s := range st.svc {
		a := &st.svc[s]
		st.sWait[s], st.sResp[s], st.svcBusy[s], st.svcCompleted[s] = a.wait, a.resp, a.busy, a.wait.N
	}
	copy(st.srvChosen, e.chosen) // the open bin's, then the closed bins'

	e.ser.AddChosen(st.srvChosen)
	for i, n := range st.warmChosen {
		st.srvChosen[i] -= n
	}
	st.wait.SumExact(st.sWait)
	st.resp.SumExact(st.sResp)
	st.done.PerServerTotals(st.srvRequests, st.srvLoad)
	clear(st.mServed)
	for i := range e.m.Servers {
		st.mServed[e.m.Servers[i].Machine] += st.srvRequests[i]
	}
}

// svcFewFrom is how many services a model has from which their
// distributions keep their first values in a list (hist.Acc.KeepFew).
var svcFewFrom = hist.ServicesKeepingFew

// svcAcc is what complete counts per service, together: one bounds check
// and one place in memory for a request rather than three.
type svcAcc struct {
	wait, resp hist.Acc
	busy       int64
}
