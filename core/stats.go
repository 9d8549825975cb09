package core

import (
	"cmp"
	"maps"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/tuxlb/tuxlb/core/result"
)

// Percentile histograms record microseconds from 1 us to histMaxUS with 3
// significant digits: a recorded value is off by at most 1 part in 1000
// (exact below 2048 us). histMaxUS is the longest simulated time, so every
// duration fits; the exact maximum is kept apart, and percentiles never
// exceed it.
const (
	histMaxUS  = MaxTimeUS
	histDigits = 3
)

// summaryAcc accumulates one distribution of durations: exact count, sum and
// maximum, and a histogram for percentiles in HdrHistogram's layout (3
// significant digits from 1 µs to histMaxUS), kept in two arrays of counts by
// bucket index. A value below frontMaxUS (zeros, most waits, included) is
// counted in front, a compact array of 32-bit counts (allocated on first
// use); a larger one in far, 64-bit counts grown to the highest bucket seen
// (an HdrHistogram of the whole range would allocate 250 KB for a
// distribution's first long value). hist reads the two together, as if every
// value had been recorded in one HdrHistogram.
type summaryAcc struct {
	n, sum, max int64
	front       []uint32 // counts by bucket index below frontLen, not yet in far
	far         []int64  // counts by bucket index: values past front, and front's counts added by addFront
}

// The histogram's layout for 3 significant digits from 1 µs (as
// hdrhistogram.New computes it): 2048 sub-buckets, of which the upper 1024
// repeat in every bucket after the first; a value v lies in bucket b, the
// number of bits of v|2047 less 11, at index (b+1)·1024 + (v>>b) - 1024.
const (
	histSubHalfMag = 10
	histSubMask    = 1<<(histSubHalfMag+1) - 1
	frontBuckets   = 8 // front covers buckets 0..7: values below 2^18 µs (262 ms)
	frontMaxUS     = 1 << (histSubHalfMag + frontBuckets)
	frontLen       = (frontBuckets + 1) << histSubHalfMag
	// front is added to the histogram at least every frontFlushEvery values
	// (stats.complete does it for all every frontFlushEvery requests), so
	// that no 32-bit count can overflow
	frontFlushEvery = 1 << 31
)

// histIndex is the histogram's bucket index of v >= 0.
func histIndex(v int64) int {
	b := bits.Len64(uint64(v|histSubMask)) - (histSubHalfMag + 1)
	return b<<histSubHalfMag + int(v>>b) // (b+1)·1024 + (v>>b) - 1024
}

// histValue is the lowest value at bucket index i: histIndex(histValue(i)) == i.
func histValue(i int) int64 {
	if i < 2<<histSubHalfMag {
		return int64(i)
	}
	b := i>>histSubHalfMag - 1
	return int64(i&(1<<histSubHalfMag-1)+1<<histSubHalfMag) << b
}

// note counts v, whose bucket index is i, if it fits in front, and reports
// whether it did; if not, the caller calls spill(v). It is the part of
// recording that makes no call, so that it is inlined: stats.complete counts
// a wait in two distributions with the bucket index found once, and front's
// own bounds check is the only branch (whether a wait is zero, or which
// bucket a value falls in, is a coin toss the processor would mispredict).
func (a *summaryAcc) note(v int64, i int) bool {
	a.n++
	a.sum += v
	a.max = max(a.max, v)
	if uint(i) < uint(len(a.front)) {
		a.front[i]++
		return true
	}
	return false
}

// spill counts v (already in the exact figures) in the histogram: v past
// front, or a value below frontMaxUS past the front's length, which grows
// the front to hold it.
func (a *summaryAcc) spill(v int64) {
	if v < frontMaxUS {
		i := histIndex(v)
		a.growFront(i + 1)
		a.front[i]++
		return
	}
	i := histIndex(min(v, histMaxUS))
	a.growFar(i + 1)
	a.far[i]++
}

// A front starts at frontMinLen counts (1 KB: the first 256 buckets, from 0
// to 255 µs, where the zero waits of a queue whose requests find an idle
// server all fall) and doubles up to frontLen (36 KB) as larger values come,
// so that a distribution that records few or small values, such as the wait
// of one of thousands of queues, costs little memory. Counting a value is
// the same whatever the front's length (note's bounds check; spill past it).
const frontMinLen = 256

// growFront makes front at least n (at most frontLen) counts long, keeping
// its counts.
func (a *summaryAcc) growFront(n int) {
	if n <= len(a.front) {
		return
	}
	size := max(frontMinLen, 2*len(a.front))
	for size < n {
		size *= 2
	}
	var f []uint32
	if size >= frontLen {
		f = takeFront()
	} else {
		f = make([]uint32, size)
	}
	copy(f, a.front)
	a.front = f
}

// freeFronts holds the full-length fronts of finished runs, zeroed, for
// later runs to take (a run has one per queue and two per service at most):
// see lookBufs for why a sweep of short runs wants its big buffers reused.
// Shorter fronts are left to the collector.
var freeFronts sync.Pool // of *[]uint32, frontLen long

// takeFront returns a front of zero counts.
func takeFront() []uint32 {
	if p, ok := freeFronts.Get().(*[]uint32); ok {
		return *p
	}
	return make([]uint32, frontLen)
}

// releaseFront hands a's front back, zeroed, once its histogram has been
// read for the last time.
func (a *summaryAcc) releaseFront() {
	if f := a.front; f != nil {
		if len(f) == frontLen {
			clear(f)
			freeFronts.Put(&f)
		}
		a.front = nil
	}
}

// growFar makes far at least n buckets long.
func (a *summaryAcc) growFar(n int) {
	if n > len(a.far) {
		a.far = append(a.far, make([]int64, n-len(a.far))...)
	}
}

// addFront adds front's counts to far and empties front.
func (a *summaryAcc) addFront() {
	if a.front == nil {
		return
	}
	a.growFar(len(a.front))
	for i, c := range a.front {
		a.far[i] += int64(c)
		a.front[i] = 0
	}
}

// sumExact sets a's exact figures to those of the parts together: their
// counts and sums added, the largest maximum. The histogram is merged apart
// (see mergeHists).
func (a *summaryAcc) sumExact(parts []summaryAcc) {
	a.n, a.sum, a.max = 0, 0, 0
	for i := range parts {
		a.n += parts[i].n
		a.sum += parts[i].sum
		a.max = max(a.max, parts[i].max)
	}
}

// bin is one nonzero bucket of a histogram: its index and count.
type bin struct {
	i int32
	n int64
}

// hist is a histogram read out for the result: its nonzero buckets in index
// order, and their total. Reading the buckets once and walking only the
// nonzero ones is what keeps building a result cheap: the histogram has
// about 31 000 buckets (up to histMaxUS), of which a run uses a few hundred.
type hist struct {
	bins  []bin
	total int64
}

// hist reads a's histogram: front's counts and far's (values past front, and
// front's counts added to far when they could have overflowed). When far is
// in use, front is added to it first (reading twice gives the same).
func (a *summaryAcc) hist() hist {
	if a.n == 0 {
		return hist{}
	}
	top := histIndex(min(a.max, histMaxUS)) // no value lies in a later bucket
	if a.far == nil {
		return binsOf(a.front[:min(top+1, len(a.front))])
	}
	a.addFront() // far reaches past front: this allocates nothing
	return binsOf(a.far[:min(top+1, len(a.far))])
}

// binsOf returns the histogram of counts c by bucket index, in a slice of
// its exact size (a run reads several dozen histograms whose buckets are
// mostly empty).
func binsOf[T uint32 | int64](c []T) hist {
	n := 0
	for _, x := range c {
		n += b2i(x != 0)
	}
	bins := appendBins(make([]bin, 0, n), c, 0)
	return hist{bins: bins, total: sumBins(bins)}
}

// appendBins appends the nonzero counts of c, bucket i0+i for c[i].
func appendBins[T uint32 | int64](bins []bin, c []T, i0 int) []bin {
	i := 0
	// most buckets are empty: skip them eight at a time
	for ; i+8 <= len(c); i += 8 {
		blk := c[i : i+8 : i+8]
		if blk[0]|blk[1]|blk[2]|blk[3]|blk[4]|blk[5]|blk[6]|blk[7] == 0 {
			continue
		}
		for j, n := range blk {
			if n != 0 {
				bins = append(bins, bin{int32(i0 + i + j), int64(n)})
			}
		}
	}
	for ; i < len(c); i++ {
		if c[i] != 0 {
			bins = append(bins, bin{int32(i0 + i), int64(c[i])})
		}
	}
	return bins
}

func sumBins(bins []bin) (n int64) {
	for _, b := range bins {
		n += b.n
	}
	return n
}

// readHists reads the histograms of accs.
func readHists(accs []summaryAcc) []hist {
	out := make([]hist, len(accs))
	for i := range accs {
		out[i] = accs[i].hist()
	}
	return out
}

// mergeHists returns the sum of parts: the overall distributions are merged
// from the per-service ones at the end rather than recorded twice per
// request.
func mergeHists(parts []hist) hist {
	top := -1
	for _, p := range parts {
		if len(p.bins) > 0 {
			top = max(top, int(p.bins[len(p.bins)-1].i))
		}
	}
	if top < 0 {
		return hist{}
	}
	counts := make([]int64, top+1)
	for _, p := range parts {
		for _, b := range p.bins {
			counts[b.i] += b.n
		}
	}
	return binsOf(counts)
}

// percentiles returns the values at the 50th, 95th and 99th percentiles:
// the highest value of the bucket where the count reaches the rank
// percentileRank gives, as HdrHistogram's ValueAtQuantile returns them.
func (h hist) percentiles() (p [3]int64) {
	if h.total == 0 {
		return p
	}
	ranks := [3]int64{percentileRank(50, h.total), percentileRank(95, h.total), percentileRank(99, h.total)}
	var cum int64
	k := 0
	for _, b := range h.bins {
		cum += b.n
		for k < len(ranks) && cum >= ranks[k] {
			p[k] = histHighest(int(b.i))
			k++
		}
		if k == len(ranks) {
			break
		}
	}
	return p
}

// percentileRank is HdrHistogram's rank of percentile q (0 < q <= 100) of
// total > 0 values: ⌊q·total/100 + ½⌋, at least 1 and at most total.
func percentileRank(q float64, total int64) int64 {
	rank := (q/100)*float64(total) + 0.5
	if !(rank >= 1) {
		return 1
	}
	if rank >= float64(total) {
		return total
	}
	return int64(rank)
}

// histHighest is the highest value at bucket index i.
func histHighest(i int) int64 {
	b := max(i>>histSubHalfMag-1, 0)
	return histValue(i) + 1<<b - 1
}

// summary returns the distribution in milliseconds; h is a's histogram.
func (a *summaryAcc) summary(h hist) result.Summary {
	if a.n == 0 {
		return result.Summary{}
	}
	p := h.percentiles()
	return result.Summary{
		Count: a.n,
		Mean:  roundF(float64(a.sum) / float64(a.n) / 1000),
		P50:   usToMS(min(p[0], a.max)),
		P95:   usToMS(min(p[1], a.max)),
		P99:   usToMS(min(p[2], a.max)),
		Max:   usToMS(a.max),
	}
}

// usToMS converts microseconds to milliseconds, exactly representable to 6
// decimals.
func usToMS(us int64) float64 { return roundF(float64(us) / 1000) }

// roundF rounds x to 6 decimals, so the JSON is stable and readable.
func roundF(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1e6) / 1e6
}

// stats accumulates the per-request statistics of a run. Requests issued
// before the warm-up are simulated but not counted here.
type stats struct {
	issued, completed, timedOut int64
	failed                      [numFailures]int64 // per failure code (reason - reasonNoEnt)
	svcFailed                   []int64            // [service*numFailures + code]

	wait, resp   summaryAcc
	qWait        []summaryAcc
	sWait, sResp []summaryAcc // per service: copied from svc by finish
	svc          []svcAcc     // per service, as complete counts it

	svcIssued, svcCompleted, svcTimedOut, svcBusy []int64 // svcBusy: copied from svc by finish
	srvRequests, srvLoad, srvChosen, busy         []int64
	warmChosen                                    []int64 // per server: requests chosen before the warm-up
	done                                          doneCounts
	qEnqueued, qMax, qArea                        []int64
	mIssued, mServed, mLocal, mSent, mRecv        []int64

	firstIssue, lastIssue int64
	warmUS                int64
	blockAfter            int64 // a response longer than this times out: BLOCKTIME, or never
	// svcBlock[s] replaces blockAfter for service s; nil when no service
	// has a BLOCKTIME of its own
	svcBlock []int64
	// flows counts the requests issued by origin machine, the chosen
	// queue's machine (0 for none: failed at issue, else 1 + its index) and
	// dispatch reason, at [(origin*(machines+1) + machine)*numReasons + reason]
	flows []int64
	nm1   int
	// vSim[s] is the response of service s's trace rows whose log observed
	// one, vAll theirs all together (the result's validation); nil when the
	// log observed none. v holds the validation window and batches.
	vSim []summaryAcc
	vAll summaryAcc
	v    *validationAcc
}

// validated counts the response of a trace row whose log observed one,
// issued at t and answered at reply, if it lies in the validation window.
// It is apart from complete, which calls it rarely, so as not to weigh on
// it.
//
//go:noinline
func (st *stats) validated(s int, t, resp, reply int64) {
	v := st.v
	if t < v.fromUS {
		return
	}
	addValue(&st.vSim[s], resp)
	addValue(&st.vAll, resp)
	v.svc[s].sim.add(t, resp, reply <= v.toUS)
	v.all.sim.add(t, resp, reply <= v.toUS)
}

// addValue counts v in a: note, else spill.
func addValue(a *summaryAcc, v int64) {
	if !a.note(v, histIndex(v)) {
		a.spill(v)
	}
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
	st.qWait = make([]summaryAcc, nq)
	st.sWait, st.sResp = make([]summaryAcc, nsvc), make([]summaryAcc, nsvc)
	st.svc = make([]svcAcc, nsvc)
	for _, p := range []*[]int64{&st.svcIssued, &st.svcCompleted, &st.svcTimedOut, &st.svcBusy} {
		*p = make([]int64, nsvc)
	}
	st.svcFailed = make([]int64, nsvc*numFailures)
	for _, p := range []*[]int64{&st.srvRequests, &st.srvLoad, &st.srvChosen, &st.busy, &st.warmChosen} {
		*p = make([]int64, nsrv)
	}
	st.done.init(e.m)
	for _, p := range []*[]int64{&st.qEnqueued, &st.qMax, &st.qArea} {
		*p = make([]int64, nq)
	}
	for _, p := range []*[]int64{&st.mIssued, &st.mServed, &st.mLocal, &st.mSent, &st.mRecv} {
		*p = make([]int64, nm)
	}
	st.nm1 = nm + 1
	st.flows = make([]int64, nm*st.nm1*numReasons)
	if w := e.setup.Work; w != nil && len(w.Observed) > 0 {
		st.vSim = make([]summaryAcc, nsvc)
		st.v = newValidationAcc(w.Observed, nsvc, max(st.warmUS, e.setup.ValidateAfterUS))
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
		st.qEnqueued[f.queue]++
	}
}

// queueLength notes that queue q holds n waiting requests at t.
func (st *stats) queueLength(q int32, n, t int64) {
	if t >= st.warmUS && n > st.qMax[q] {
		st.qMax[q] = n
	}
}

func (st *stats) complete(f *flight, sv *serverState) {
	if !f.counted {
		return
	}
	s := f.req.Service
	wait, resp := f.startUS-f.enqueueUS, f.replyUS-f.req.TimeUS
	if st.completed++; st.completed%frontFlushEvery == 0 {
		st.addFronts() // no front's 32-bit count can overflow
	}
	iw, ir := histIndex(wait), histIndex(resp)
	if a := &st.qWait[f.queue]; !a.note(wait, iw) {
		a.spill(wait)
	}
	sa := &st.svc[s]
	if !sa.wait.note(wait, iw) {
		sa.wait.spill(wait)
	}
	if !f.unanswered && f.reason != reasonTMS { // a TPNOREPLY child's reply is never sent, a TMS request's goes to no caller: no response, no timeout
		if !sa.resp.note(resp, ir) {
			sa.resp.spill(resp)
		}
		lim := st.blockAfter
		if st.svcBlock != nil {
			lim = st.svcBlock[s]
		}
		if f.req.Observed {
			st.validated(s, f.req.TimeUS, resp, f.replyUS)
		}
		if resp > lim && !f.forwardee { // a tpforward child has no deadline of its own
			st.timedOut++
			st.svcTimedOut[s]++
		}
	}
	sa.busy += f.endUS - f.startUS
	if sv.mt != nil {
		sv.mt.requests[f.thread]++
	}
	// done's counts give srvRequests, srvLoad and mServed (see finish).
	// The layout is tested here: a method testing it would call addSparse,
	// which would keep it from being inlined.
	if d := &st.done; d.dense {
		d.addDense(sv.idx, int32(s), f.load)
	} else {
		d.addSparse(sv.idx, int32(s), f.load)
	}
	if int(sv.machine) == f.req.Origin {
		st.mLocal[sv.machine]++
	}
}

// longestUS returns the longest wait or response counted so far.
func (st *stats) longestUS() int64 {
	var m int64
	for s := range st.svc {
		m = max(m, st.svc[s].wait.max, st.svc[s].resp.max)
	}
	return m
}

// addFronts adds every distribution's front to its histogram. It is rare:
// not inlined, so as not to weigh on complete's frame.
//
//go:noinline
func (st *stats) addFronts() { st.eachCounted((*summaryAcc).addFront) }

// releaseFronts hands every distribution's front back for later runs, once
// the result has been read out of them (sWait and sResp share svc's).
func (st *stats) releaseFronts() {
	st.eachCounted((*summaryAcc).releaseFront)
	for s := range st.sWait {
		st.sWait[s].front, st.sResp[s].front = nil, nil
	}
}

// eachCounted calls do on every distribution complete counts in: each
// queue's wait, each service's wait and response.
func (st *stats) eachCounted(do func(*summaryAcc)) {
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
// mergeHists); each server's requests and LOAD done from its per-service
// counts; each machine's requests served from its servers'; each server's
// requests chosen from the series' less those before the warm-up.
func (st *stats) finish(e *engine) {
	for s := range st.svc {
		a := &st.svc[s]
		st.sWait[s], st.sResp[s], st.svcBusy[s], st.svcCompleted[s] = a.wait, a.resp, a.busy, a.wait.n
	}
	e.ser.chosenTotals(st.srvChosen)
	for i, n := range st.warmChosen {
		st.srvChosen[i] -= n
	}
	st.wait.sumExact(st.sWait)
	st.resp.sumExact(st.sResp)
	st.done.perServerTotals(st.srvRequests, st.srvLoad)
	clear(st.mServed)
	for i := range e.m.Servers {
		st.mServed[e.m.Servers[i].Machine] += st.srvRequests[i]
	}
}

// svcAcc is what complete counts per service, together: one bounds check
// and one place in memory for a request rather than three.
type svcAcc struct {
	wait, resp summaryAcc
	busy       int64
}

// chartHistogram buckets a service's response times for charts: about 20
// buckets of a 1-2-5 width reaching the 99th percentile, the last one
// stretched to the maximum (at most 40 buckets).
func chartHistogram(a *summaryAcc, hs hist) result.Histogram {
	h := result.Histogram{BoundsMS: []float64{}, Counts: []int64{}}
	if a.n == 0 {
		return h
	}
	p99 := min(hs.percentiles()[2], a.max)
	width := niceUp(max((p99+19)/20, 1))
	nb := min((a.max+width)/width, 40)
	h.Counts = make([]int64, nb)
	for _, b := range hs.bins {
		h.Counts[min(histValue(int(b.i))/width, nb-1)] += b.n
	}
	h.BoundsMS = make([]float64, nb)
	for i := range nb {
		h.BoundsMS[i] = usToMS((i + 1) * width)
	}
	h.BoundsMS[nb-1] = usToMS(max(a.max, nb*width))
	return h
}

// niceUp returns the smallest 1, 2 or 5 x 10^k microseconds not below x.
func niceUp(x int64) int64 {
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= x {
				return m * p
			}
		}
		if p > math.MaxInt64/100 {
			return x
		}
	}
}

// doneCounts counts requests processed, and the LOAD they carried, per
// (server, service). A small model (servers x services up to doneDenseMax)
// has a dense table, one counter per pair, found by arithmetic. A larger one
// keeps memory linear in the advertisements rather than servers x services:
// each server has a block of counters for the services it advertises
// (sorted), and the rare request a server processes without advertising its
// service (another instance of its MSSQ set does) is counted in a map.
type doneCounts struct {
	dense      bool
	nsrv, nsvc int64
	c          []doneCount         // dense: [server*nsvc + service]; sparse: the blocks
	off        []int32             // sparse: per server, start of its block in c; off[len] = end
	svc        []int32             // sparse: service index per counter, sorted within a block
	more       map[int64]doneCount // sparse: server*nsvc + service -> counts
}

// doneCount is the requests processed of one (server, service) and the sum
// of their LOAD.
type doneCount struct{ n, load int64 }

// doneDenseMax is the most servers x services counted in a dense table
// (16 bytes each: 1 MiB).
const doneDenseMax = 1 << 16

func (d *doneCounts) init(m *Model) { d.initUpTo(m, doneDenseMax) }

// initUpTo is init with a dense table up to denseMax counters.
func (d *doneCounts) initUpTo(m *Model, denseMax int64) {
	d.nsrv, d.nsvc = int64(len(m.Servers)), int64(len(m.Services))
	if n := d.nsrv * d.nsvc; n <= denseMax {
		d.dense, d.c = true, make([]doneCount, n)
		return
	}
	index := make(map[string]int32, len(m.Services))
	for i := range m.Services {
		index[m.Services[i].Name] = int32(i)
	}
	d.off = make([]int32, len(m.Servers)+1)
	for i := range m.Servers {
		start := len(d.svc)
		for _, name := range m.Servers[i].Services {
			if k, ok := index[name]; ok {
				d.svc = append(d.svc, k)
			}
		}
		block := d.svc[start:]
		slices.Sort(block)
		d.svc = d.svc[:start+len(slices.Compact(block))]
		d.off[i+1] = int32(len(d.svc))
	}
	d.c = make([]doneCount, len(d.svc))
}

// Counting one request of service k, with LOAD load, processed by server i
// is addDense(i, k, load) for the dense table, else addSparse (stats.complete
// picks one, so that the dense case is inlined).

// addDense counts a request in the dense table.
func (d *doneCounts) addDense(i, k int32, load int64) {
	c := &d.c[int64(i)*d.nsvc+int64(k)]
	c.n, c.load = c.n+1, c.load+load
}

// addSparse counts a request in the blocks. The search takes no branch on the
// comparisons (which way it goes is a coin toss the processor would
// mispredict, about once a request): the block's first position whose
// service is not below k lies in [base, base+n], and each step halves n
// with a conditional move.
func (d *doneCounts) addSparse(i, k int32, load int64) {
	base, hi := int(d.off[i]), int(d.off[i+1])
	if n := hi - base; n > 0 {
		for n > 1 {
			half := n >> 1
			base += half * b2i(d.svc[base+half] < k)
			n -= half
		}
		if base += b2i(d.svc[base] < k); base < hi && d.svc[base] == k {
			d.c[base].n++
			d.c[base].load += load
			return
		}
	}
	if d.more == nil {
		d.more = map[int64]doneCount{}
	}
	key := int64(i)*d.nsvc + int64(k)
	c := d.more[key]
	d.more[key] = doneCount{c.n + 1, c.load + load}
}

// perServer returns, per server, the services it processed requests of
// with their counts, in service order.
func (d *doneCounts) perServer() [][]svcCount {
	out := make([][]svcCount, d.nsrv)
	if d.dense {
		for i := range out {
			for k, c := range d.c[int64(i)*d.nsvc : int64(i+1)*d.nsvc] {
				if c.n > 0 {
					out[i] = append(out[i], svcCount{int32(k), c.n})
				}
			}
		}
		return out
	}
	for i := range out {
		for j := d.off[i]; j < d.off[i+1]; j++ {
			if d.c[j].n > 0 {
				out[i] = append(out[i], svcCount{d.svc[j], d.c[j].n})
			}
		}
	}
	if len(d.more) > 0 {
		keys := slices.Sorted(maps.Keys(d.more))
		for _, key := range keys {
			i := key / d.nsvc
			out[i] = append(out[i], svcCount{int32(key % d.nsvc), d.more[key].n})
		}
		for i := range out {
			slices.SortFunc(out[i], func(a, b svcCount) int { return cmp.Compare(a.svc, b.svc) })
		}
	}
	return out
}

// perServerTotals sets requests[i] and load[i] to the requests server i
// processed and the sum of their LOAD, over all services.
func (d *doneCounts) perServerTotals(requests, load []int64) {
	clear(requests)
	clear(load)
	for i := range requests {
		var row []doneCount
		if d.dense {
			row = d.c[int64(i)*d.nsvc : int64(i+1)*d.nsvc]
		} else {
			row = d.c[d.off[i]:d.off[i+1]]
		}
		for _, c := range row {
			requests[i] += c.n
			load[i] += c.load
		}
	}
	for key, c := range d.more {
		requests[key/d.nsvc] += c.n
		load[key/d.nsvc] += c.load
	}
}

// svcCount is a number of requests of service svc.
type svcCount struct {
	svc int32
	n   int64
}
