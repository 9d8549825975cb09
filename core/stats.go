package core

import (
	"cmp"
	"maps"
	"math"
	"math/bits"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"
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
// maximum, and a fixed-memory histogram (allocated on first use) for
// percentiles. A value below frontMaxUS (zeros, most waits, included) is
// only noted, as its bucket index in pend, a batch written in order; a full
// batch is counted into front, a compact array of 32-bit counts by the
// histogram's own bucket index, in one tight loop that finds front in the
// cache instead of missing it on every record. flush adds them all to the
// histogram before it is read. The histogram ends up the same as if every
// value had been recorded in it, and recording takes no branch on the value
// (whether a wait is zero is a coin toss the processor would mispredict).
type summaryAcc struct {
	n, sum, max int64
	pend        *[frontBatch]uint16 // bucket indexes of values in [0, frontMaxUS) not yet in front
	npend       int
	front       []uint32 // counts by bucket index, not yet in h
	frontN      int64    // values counted in front since it was last added to h
	h           *hdrhistogram.Histogram
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
	// frontBatch values are noted before they are counted in front
	frontBatch = 4096
	// front is added to the histogram when it holds frontFlushEvery values,
	// so that no 32-bit count can overflow
	frontFlushEvery = 1 << 31
)

// histIndex is the histogram's bucket index of v >= 0.
func histIndex(v int64) int {
	b := bits.Len64(uint64(v|histSubMask)) - (histSubHalfMag + 1)
	return (b+1)<<histSubHalfMag + int(v>>b) - 1<<histSubHalfMag
}

// histValue is the lowest value at bucket index i: histIndex(histValue(i)) == i.
func histValue(i int) int64 {
	if i < 2<<histSubHalfMag {
		return int64(i)
	}
	b := i>>histSubHalfMag - 1
	return int64(i&(1<<histSubHalfMag-1)+1<<histSubHalfMag) << b
}

func (a *summaryAcc) record(v int64) {
	a.recordExact(v)
	if v < frontMaxUS {
		if a.npend == frontBatch || a.pend == nil {
			a.count()
		}
		a.pend[a.npend] = uint16(histIndex(v))
		a.npend++
		return
	}
	if a.h == nil {
		a.h = hdrhistogram.New(1, histMaxUS, histDigits)
	}
	_ = a.h.RecordValue(min(v, histMaxUS)) // cannot fail: 0 <= v <= histMaxUS
}

// count counts the noted bucket indexes into front (allocating both on first
// use), first adding front to the histogram if it might overflow.
func (a *summaryAcc) count() {
	if a.pend == nil {
		a.pend, a.front = new([frontBatch]uint16), make([]uint32, frontLen)
		return
	}
	if a.frontN+int64(a.npend) >= frontFlushEvery {
		a.addFront()
	}
	front := a.front[:frontLen]
	for _, i := range a.pend[:a.npend] {
		front[i]++
	}
	a.frontN += int64(a.npend)
	a.npend = 0
}

// addFront adds front's counts to the histogram and empties it.
func (a *summaryAcc) addFront() {
	if a.frontN == 0 {
		return
	}
	if a.h == nil {
		a.h = hdrhistogram.New(1, histMaxUS, histDigits)
	}
	for i, c := range a.front {
		if c > 0 {
			_ = a.h.RecordValues(histValue(i), int64(c)) // cannot fail: the counts stay below n
			a.front[i] = 0
		}
	}
	a.frontN = 0
}

// flush counts the values still pending into front; every reader of the
// histogram calls it first.
func (a *summaryAcc) flush() {
	if a.pend != nil {
		a.count()
	}
}

// recordExact counts v in the exact figures only; the histogram is merged
// from parts later (see mergeHists).
func (a *summaryAcc) recordExact(v int64) {
	a.n++
	a.sum += v
	if v > a.max {
		a.max = v
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

// hist reads a's histogram: front's counts and h's (values past front, and
// front's counts added to h when they could have overflowed).
func (a *summaryAcc) hist() hist {
	if a.n == 0 {
		return hist{}
	}
	if a.h == nil && a.frontN == 0 && a.pend != nil {
		// Nothing counted in front yet (at most frontBatch values, as in a
		// small run): sorting the noted bucket indexes costs less than
		// counting them into front and scanning its 9 000 buckets.
		p := a.pend[:a.npend]
		slices.Sort(p)
		var bins []bin
		for i := 0; i < len(p); {
			j := i + 1
			for j < len(p) && p[j] == p[i] {
				j++
			}
			bins = append(bins, bin{int32(p[i]), int64(j - i)})
			i = j
		}
		return hist{bins: bins, total: int64(len(p))}
	}
	a.flush()
	top := histIndex(min(a.max, histMaxUS)) // no value lies in a later bucket
	bins := make([]bin, 0, min(int64(top+1), a.n))
	if a.h == nil {
		bins = appendBins(bins, a.front[:min(top+1, len(a.front))], 0)
		return hist{bins: bins, total: sumBins(bins)}
	}
	counts := a.h.Export().Counts[:top+1] // a copy: ours to add front to
	for i, c := range a.front[:min(top+1, len(a.front))] {
		counts[i] += int64(c)
	}
	bins = appendBins(bins, counts, 0)
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
	var total int64
	for _, p := range parts {
		for _, b := range p.bins {
			counts[b.i] += b.n
		}
		total += p.total
	}
	return hist{bins: appendBins(nil, counts, 0), total: total}
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
func (a *summaryAcc) summary(h hist) Summary {
	if a.n == 0 {
		return Summary{}
	}
	p := h.percentiles()
	return Summary{
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
	sWait, sResp []summaryAcc

	svcIssued, svcCompleted, svcTimedOut, svcBusy []int64
	srvRequests, srvLoad, srvChosen, busy         []int64
	done                                          doneCounts
	qEnqueued, qMax, qArea                        []int64
	mIssued, mServed, mLocal, mSent, mRecv        []int64

	firstIssue, lastIssue int64
	nsvc                  int
	warmUS, blockUS       int64
}

func (st *stats) init(e *engine) {
	nsvc, nsrv, nq, nm := len(e.m.Services), len(e.m.Servers), len(e.m.Queues), len(e.m.Machines)
	st.nsvc, st.warmUS, st.blockUS = nsvc, e.setup.WarmupUS, e.setup.BlockUS
	st.firstIssue = -1
	st.qWait = make([]summaryAcc, nq)
	st.sWait, st.sResp = make([]summaryAcc, nsvc), make([]summaryAcc, nsvc)
	for _, p := range []*[]int64{&st.svcIssued, &st.svcCompleted, &st.svcTimedOut, &st.svcBusy} {
		*p = make([]int64, nsvc)
	}
	st.svcFailed = make([]int64, nsvc*numFailures)
	for _, p := range []*[]int64{&st.srvRequests, &st.srvLoad, &st.srvChosen, &st.busy} {
		*p = make([]int64, nsrv)
	}
	st.done.init(e.m)
	for _, p := range []*[]int64{&st.qEnqueued, &st.qMax, &st.qArea} {
		*p = make([]int64, nq)
	}
	for _, p := range []*[]int64{&st.mIssued, &st.mServed, &st.mLocal, &st.mSent, &st.mRecv} {
		*p = make([]int64, nm)
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

func (st *stats) chosen(f *flight) {
	if f.counted {
		st.srvChosen[f.chosen]++
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
	st.completed++
	st.svcCompleted[s]++
	st.wait.recordExact(wait)
	st.resp.recordExact(resp)
	st.qWait[f.queue].record(wait)
	st.sWait[s].record(wait)
	st.sResp[s].record(resp)
	if st.blockUS > 0 && resp > st.blockUS {
		st.timedOut++
		st.svcTimedOut[s]++
	}
	st.svcBusy[s] += f.endUS - f.startUS
	st.srvRequests[sv.idx]++
	st.srvLoad[sv.idx] += f.load
	st.done.add(sv.idx, int32(s))
	st.mServed[sv.machine]++
	if int(sv.machine) == f.req.Origin {
		st.mLocal[sv.machine]++
	}
}

// chartHistogram buckets a service's response times for charts: about 20
// buckets of a 1-2-5 width reaching the 99th percentile, the last one
// stretched to the maximum (at most 40 buckets).
func chartHistogram(a *summaryAcc, hs hist) Histogram {
	h := Histogram{BoundsMS: []float64{}, Counts: []int64{}}
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

// doneCounts counts requests processed per (server, service), in memory
// linear in the advertisements rather than servers x services: each server
// has a block of counters for the services it advertises (sorted), and the
// rare request a server processes without advertising its service (another
// instance of its MSSQ set does) is counted in a map.
type doneCounts struct {
	off  []int32 // per server: start of its block; off[len] = end
	svc  []int32 // service index per counter, sorted within a block
	n    []int64
	more map[int64]int64 // server*nsvc + service -> count
	nsvc int64
}

func (d *doneCounts) init(m *Model) {
	index := make(map[string]int32, len(m.Services))
	for i := range m.Services {
		index[m.Services[i].Name] = int32(i)
	}
	d.nsvc = int64(len(m.Services))
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
	d.n = make([]int64, len(d.svc))
}

// add counts one request of service k processed by server i.
// The search takes no branch on the comparisons (which way it goes is a coin
// toss the processor would mispredict, about once a request): the block's
// first position whose service is not below k lies in [base, base+n], and
// each step halves n with a conditional move.
func (d *doneCounts) add(i, k int32) {
	base, hi := int(d.off[i]), int(d.off[i+1])
	if n := hi - base; n > 0 {
		for n > 1 {
			half := n >> 1
			base += half * b2i(d.svc[base+half] < k)
			n -= half
		}
		if base += b2i(d.svc[base] < k); base < hi && d.svc[base] == k {
			d.n[base]++
			return
		}
	}
	if d.more == nil {
		d.more = map[int64]int64{}
	}
	d.more[int64(i)*d.nsvc+int64(k)]++
}

// perServer returns, per server, the services it processed requests of
// with their counts, in service order.
func (d *doneCounts) perServer() [][]svcCount {
	out := make([][]svcCount, len(d.off)-1)
	for i := range out {
		for j := d.off[i]; j < d.off[i+1]; j++ {
			if d.n[j] > 0 {
				out[i] = append(out[i], svcCount{d.svc[j], d.n[j]})
			}
		}
	}
	if len(d.more) > 0 {
		keys := slices.Sorted(maps.Keys(d.more))
		for _, key := range keys {
			i := key / d.nsvc
			out[i] = append(out[i], svcCount{int32(key % d.nsvc), d.more[key]})
		}
		for i := range out {
			slices.SortFunc(out[i], func(a, b svcCount) int { return cmp.Compare(a.svc, b.svc) })
		}
	}
	return out
}

// svcCount is a number of requests of service svc.
type svcCount struct {
	svc int32
	n   int64
}
