// Package hist holds the engine's distributions of durations: the exact
// count, sum and maximum of a distribution and a histogram of its values for
// percentiles in HdrHistogram's layout (3 significant digits from 1 µs to
// [MaxUS]), counted by [Acc], read out as its nonzero buckets ([Hist]),
// merged ([Merge]), and turned into the result's figures in milliseconds
// ([Acc.Summary], [Acc.Chart]).
//
// Counting a value is the engine's per-request work: [Acc.Note] and [Index]
// are short enough to be inlined into the engine's loop, and the rest of
// counting ([Acc.Spill]) is the rare call.
package hist

import (
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
)

// Histograms record microseconds from 1 us to MaxUS with Digits
// significant digits: a recorded value is off by at most 1 part in 1000
// (exact below 2048 us). MaxUS is the longest simulated time, so every
// duration fits; the exact maximum is kept apart, and percentiles never
// exceed it.
const (
	MaxUS  = usec.Max
	Digits = 3
)

// Acc accumulates one distribution of durations: exact count, sum and
// maximum, and a histogram for percentiles in HdrHistogram's layout (Digits
// significant digits from 1 µs to MaxUS), kept in arrays of counts by
// bucket index. A value below FrontMaxUS (zeros, most waits, included) is
// counted in front, a compact array of 32-bit counts (allocated on first
// use) whose counts [Acc.FlushFront] moves to low's 64-bit ones; a larger
// one in far, 64-bit counts from front's last bucket up to the highest
// bucket seen (an HdrHistogram of the whole range would allocate 250 KB for
// a distribution's first long value; a queue whose waits are all long
// allocates nothing below 262 ms). A distribution made by [KeepingFew]
// keeps its first values in few before any of them, their bucket indices
// one after the other (two bytes a value, up to fewMax of them), and counts
// them in the arrays only when there are more: the engine's per-queue waits,
// where a model of thousands of queues may see a few hundred waits a queue
// spread over many buckets (an overload), which in arrays would take 36 KB
// and more a queue, and a cache and TLB miss a wait; and, in a model of
// many services, the services' waits and responses ([Acc.KeepFew]). [Acc.Hist] reads them
// together, as if every value had been recorded in one HdrHistogram.
type Acc struct {
	N, Sum, Max int64
	front       []uint32 // counts by bucket index below frontLen, not yet in low
	low         []int64  // front's counts added by FlushFront, by bucket index below frontLen
	far         []int64  // counts of the values past front, by bucket index less frontLen
	few         []uint16 // bucket indices of values counted before any array was (see Spill)
	keepFew     bool     // whether few takes values while there is no array (KeepingFew)
}

// KeepFew makes a distribution that has counted nothing yet keep its first
// values in few, as KeepingFew's do.
func (a *Acc) KeepFew() { a.keepFew = a.N == 0 }

// KeepingFew returns n distributions that keep their first values in few
// (up to fewMax), rather than count each in their arrays from the first.
func KeepingFew(n int) []Acc {
	accs := make([]Acc, n)
	for i := range accs {
		accs[i].keepFew = true
	}
	return accs
}

// The histogram's layout for 3 significant digits from 1 µs (as
// hdrhistogram.New computes it): 2048 sub-buckets, of which the upper 1024
// repeat in every bucket after the first; a value v lies in bucket b, the
// number of bits of v|2047 less 11, at index (b+1)·1024 + (v>>b) - 1024.
const (
	subHalfMag   = 10
	subMask      = 1<<(subHalfMag+1) - 1
	frontBuckets = 8 // front covers buckets 0..7: values below 2^18 µs (262 ms)
	// FrontMaxUS bounds the values an Acc counts in its front.
	FrontMaxUS = 1 << (subHalfMag + frontBuckets)
	frontLen   = (frontBuckets + 1) << subHalfMag
	// FlushEvery: a front must be added to its histogram ([Acc.FlushFront])
	// at least every FlushEvery values, so that no 32-bit count can overflow
	FlushEvery = 1 << 31
)

// Index is the histogram's bucket index of v >= 0.
func Index(v int64) int {
	b := bits.Len64(uint64(v|subMask)) - (subHalfMag + 1)
	return b<<subHalfMag + int(v>>b) // (b+1)·1024 + (v>>b) - 1024
}

// Value is the lowest value at bucket index i: Index(Value(i)) == i.
func Value(i int) int64 {
	if i < 2<<subHalfMag {
		return int64(i)
	}
	b := i>>subHalfMag - 1
	return int64(i&(1<<subHalfMag-1)+1<<subHalfMag) << b
}

// Highest is the highest value at bucket index i.
func Highest(i int) int64 {
	b := max(i>>subHalfMag-1, 0)
	return Value(i) + 1<<b - 1
}

// Note counts v, whose bucket index is i, if it fits in front, and reports
// whether it did; if not, the caller calls Spill(v). It is the part of
// recording that makes no call, so that it is inlined: the engine counts a
// wait in two distributions with the bucket index found once, and front's
// own bounds check is the only branch (whether a wait is zero, or which
// bucket a value falls in, is a coin toss the processor would mispredict).
func (a *Acc) Note(v int64, i int) bool {
	a.N++
	a.Sum += v
	a.Max = max(a.Max, v)
	if uint(i) < uint(len(a.front)) {
		a.front[i]++
		return true
	}
	return false
}

// Spill counts v (already in the exact figures) in the histogram: in few,
// for a distribution that keeps its first values there, while no array has
// been made and few has room (once it is full, its values go to the
// arrays); else v past front, or a value below FrontMaxUS past the front's
// length, which grows the front to hold it.
func (a *Acc) Spill(v int64) {
	if a.keepFew && a.keptInFew(v) {
		return
	}
	a.count(Index(min(v, MaxUS))) // below frontLen exactly when v < FrontMaxUS
}

// keptInFew counts v in few if there is no array yet and few has room,
// and reports whether it did; once few is full, it counts few's values in
// the arrays, for good.
func (a *Acc) keptInFew(v int64) bool {
	if a.front != nil || a.far != nil || a.low != nil {
		return false
	}
	if len(a.few) < fewMax {
		a.few = append(a.few, uint16(Index(min(v, MaxUS))))
		return true
	}
	a.spillFew()
	return false
}

// FewMax is how many values a distribution keeps in few (KeepFew).
const FewMax = fewMax

// ServicesKeepingFew is how many services a model has from which the
// engine keeps each service's first waits and responses in few (core's
// statistics, and admission's estimate of them).
const ServicesKeepingFew = 64

// fewMax is how many values a distribution keeps in few: 8 KB, where a
// distribution of waits that grow, as in an overload, takes 36 KB of front
// and as much again past it. Every bucket index fits in its uint16s.
const fewMax = 4096

// count counts a value of bucket index i in the arrays: in front below
// frontLen (growing it to hold i), else in far.
func (a *Acc) count(i int) {
	if i < frontLen {
		a.growFront(i + 1)
		a.front[i]++
		return
	}
	i -= frontLen
	a.growFar(i + 1)
	a.far[i]++
}

// spillFew counts few's values in the arrays and empties few, for good.
func (a *Acc) spillFew() {
	few := a.few
	a.few, a.keepFew = nil, false
	for _, i := range few {
		a.count(int(i))
	}
}

// AddZeros counts n values of 0, as n calls of Add(0) would: for a
// caller that counts zeros apart, in a small array of its own.
func (a *Acc) AddZeros(n uint32) {
	if n == 0 {
		return
	}
	a.N += int64(n)
	a.growFront(1)
	a.front[0] += n
}

// Add counts v: Note, else Spill.
func (a *Acc) Add(v int64) {
	if !a.Note(v, Index(v)) {
		a.Spill(v)
	}
}

// A front starts at frontMinLen counts (1 KB: the first 256 buckets, from 0
// to 255 µs, where the zero waits of a queue whose requests find an idle
// server all fall) and grows fourfold up to frontLen (36 KB) as larger
// values come (two copies on the way to a full front, rather than five),
// so that a distribution that records few or small values, such as the wait
// of one of thousands of queues, costs little memory. Counting a value is
// the same whatever the front's length (Note's bounds check; Spill past it).
const frontMinLen = 256

// growFront makes front at least n (at most frontLen) counts long, keeping
// its counts.
func (a *Acc) growFront(n int) {
	if n <= len(a.front) {
		return
	}
	size := max(frontMinLen, 4*len(a.front))
	for size < n {
		size *= 4
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

// freeFronts holds the full-length fronts of finished runs, for later runs
// to take (a run has one per queue and two per service at most): a sweep
// of short runs wants its big buffers reused rather than collected. They
// are zeroed when taken, not when handed back, so that a run that is the
// last (a CLI run, a server's one-off run) does not clear megabytes of
// fronts it leaves to the collector. Shorter fronts are left to the
// collector.
var freeFronts sync.Pool // of *[]uint32, frontLen long

// takeFront returns a front of zero counts.
func takeFront() []uint32 {
	if p, ok := freeFronts.Get().(*[]uint32); ok {
		clear(*p)
		return *p
	}
	return make([]uint32, frontLen)
}

// ReleaseFront hands a's front back once its histogram has been read for
// the last time.
func (a *Acc) ReleaseFront() {
	if f := a.front; f != nil {
		if len(f) == frontLen {
			freeFronts.Put(&f)
		}
		a.front = nil
	}
}

// DropFront forgets a's front without handing it back: for a copy of an
// Acc whose original releases it.
func (a *Acc) DropFront() { a.front = nil }

// InFront is how many values a's front and few hold that FlushFront has
// not added to the 64-bit counts yet.
func (a *Acc) InFront() (n int64) {
	for _, c := range a.front {
		n += int64(c)
	}
	return n + int64(len(a.few))
}

// growFar makes far at least n buckets long, its room growing as append's
// does (far never shrinks, so the room past its length is zero).
func (a *Acc) growFar(n int) {
	if n > len(a.far) {
		a.far = slices.Grow(a.far, n-len(a.far))[:n]
	}
}

// FlushFront adds front's counts, and few's values, to the histogram's
// 64-bit counts (low) and empties front and few.
func (a *Acc) FlushFront() {
	a.spillFew()
	if a.front == nil {
		return
	}
	if len(a.low) < len(a.front) {
		a.low = append(a.low, make([]int64, len(a.front)-len(a.low))...)
	}
	for i, c := range a.front {
		a.low[i] += int64(c)
		a.front[i] = 0
	}
}

// SumExact sets a's exact figures to those of the parts together: their
// counts and sums added, the largest maximum. The histogram is merged apart
// (see [Merge]).
func (a *Acc) SumExact(parts []Acc) {
	a.N, a.Sum, a.Max = 0, 0, 0
	for i := range parts {
		a.N += parts[i].N
		a.Sum += parts[i].Sum
		a.Max = max(a.Max, parts[i].Max)
	}
}

// Bin is one nonzero bucket of a histogram: its index and count.
type Bin struct {
	I int32
	N int64
}

// Hist is a histogram read out for the result: its nonzero buckets in index
// order, and their total. Reading the buckets once and walking only the
// nonzero ones is what keeps building a result cheap: the histogram has
// about 31 000 buckets (up to MaxUS), of which a run uses a few hundred.
type Hist struct {
	Bins  []Bin
	Total int64
}

// Hist reads a's histogram: front's counts, low's (front's counts added
// when they could have overflowed), far's (values past front) and few's.
// When low is in use, front is added to it first (reading twice gives the
// same).
func (a *Acc) Hist() Hist {
	if a.N == 0 {
		return Hist{}
	}
	h := a.arrays()
	if len(a.few) > 0 {
		h = withFew(h, a.few)
	}
	return h
}

// withFew returns h with the values of bucket indices few added; it sorts
// few.
func withFew(h Hist, few []uint16) Hist {
	sortFew(few)
	distinct := 1
	for k := 1; k < len(few); k++ {
		if few[k] != few[k-1] {
			distinct++
		}
	}
	bins := make([]Bin, 0, len(h.Bins)+distinct)
	j := 0
	for k := 0; k < len(few); {
		i, n := int32(few[k]), int64(0)
		for ; k < len(few) && int32(few[k]) == i; k++ {
			n++
		}
		for ; j < len(h.Bins) && h.Bins[j].I < i; j++ {
			bins = append(bins, h.Bins[j])
		}
		if j < len(h.Bins) && h.Bins[j].I == i {
			n += h.Bins[j].N
			j++
		}
		bins = append(bins, Bin{i, n})
	}
	bins = append(bins, h.Bins[j:]...)
	return Hist{Bins: bins, Total: h.Total + int64(len(few))}
}

// sortFew sorts bucket indices in two counting passes, a byte each (a
// radix sort): a model of thousands of queues reads thousands of few lists
// of hundreds of waits as its result is made, which slices.Sort took about
// three times as long to sort. A short list is sorted in place.
func sortFew(few []uint16) {
	if len(few) < 64 {
		slices.Sort(few)
		return
	}
	tmp := make([]uint16, len(few))
	byByte(tmp, few, 0)
	byByte(few, tmp, 8)
}

// byByte writes src into dst ordered by their byte at shift, keeping the
// order of equal ones.
func byByte(dst, src []uint16, shift uint) {
	var at [257]int
	for _, v := range src {
		at[int(v>>shift&0xff)+1]++
	}
	for b := 1; b < len(at); b++ {
		at[b] += at[b-1]
	}
	for _, v := range src {
		b := v >> shift & 0xff
		dst[at[b]] = v
		at[b]++
	}
}

// arrays reads the histogram of the values a counts in its arrays (all but
// few's).
func (a *Acc) arrays() Hist {
	top := Index(min(a.Max, MaxUS)) // no value lies in a later bucket
	if a.far == nil && a.low == nil {
		return binsOf(a.front[:min(top+1, len(a.front))])
	}
	far := a.far[:min(max(top+1-frontLen, 0), len(a.far))]
	if a.low == nil { // front holds every count below far's: read it as it is
		return joinBins(a.front[:min(top+1, len(a.front))], far)
	}
	a.FlushFront()
	return joinBins(a.low[:min(top+1, len(a.low))], far)
}

// joinBins returns the histogram of counts c by bucket index below
// frontLen and far from frontLen, in a slice of its exact size.
func joinBins[T uint32 | int64](c []T, far []int64) Hist {
	bins := appendBins(appendBins(make([]Bin, 0, nonzero(c)+nonzero(far)), c, 0), far, frontLen)
	return Hist{Bins: bins, Total: total(bins)}
}

// binsOf returns the histogram of counts c by bucket index, in a slice of
// its exact size (a run reads several dozen histograms whose buckets are
// mostly empty).
func binsOf[T uint32 | int64](c []T) Hist {
	bins := appendBins(make([]Bin, 0, nonzero(c)), c, 0)
	return Hist{Bins: bins, Total: total(bins)}
}

// nonzero is how many of counts c are not zero.
func nonzero[T uint32 | int64](c []T) int {
	n, i := 0, 0
	// most buckets are empty: skip them eight at a time, as appendBins does
	for ; i+8 <= len(c); i += 8 {
		blk := c[i : i+8 : i+8]
		if blk[0]|blk[1]|blk[2]|blk[3]|blk[4]|blk[5]|blk[6]|blk[7] == 0 {
			continue
		}
		for _, x := range blk {
			if x != 0 {
				n++
			}
		}
	}
	for ; i < len(c); i++ {
		if c[i] != 0 {
			n++
		}
	}
	return n
}

// total is the sum of the bins' counts.
func total(bins []Bin) (n int64) {
	for _, b := range bins {
		n += b.N
	}
	return n
}

// appendBins appends the nonzero counts of c, bucket i0+i for c[i].
func appendBins[T uint32 | int64](bins []Bin, c []T, i0 int) []Bin {
	i := 0
	// most buckets are empty: skip them eight at a time
	for ; i+8 <= len(c); i += 8 {
		blk := c[i : i+8 : i+8]
		if blk[0]|blk[1]|blk[2]|blk[3]|blk[4]|blk[5]|blk[6]|blk[7] == 0 {
			continue
		}
		for j, n := range blk {
			if n != 0 {
				bins = append(bins, Bin{int32(i0 + i + j), int64(n)})
			}
		}
	}
	for ; i < len(c); i++ {
		if c[i] != 0 {
			bins = append(bins, Bin{int32(i0 + i), int64(c[i])})
		}
	}
	return bins
}

// Read reads the histograms of accs.
func Read(accs []Acc) []Hist {
	out := make([]Hist, len(accs))
	for i := range accs {
		out[i] = accs[i].Hist()
	}
	return out
}

// Merge returns the sum of parts: the engine merges the overall
// distributions from the per-service ones at the end rather than recording
// them twice per request.
func Merge(parts []Hist) Hist {
	top := -1
	for _, p := range parts {
		if len(p.Bins) > 0 {
			top = max(top, int(p.Bins[len(p.Bins)-1].I))
		}
	}
	if top < 0 {
		return Hist{}
	}
	counts := make([]int64, top+1)
	for _, p := range parts {
		for _, b := range p.Bins {
			counts[b.I] += b.N
		}
	}
	return binsOf(counts)
}

// Percentiles returns the values at the 50th, 95th and 99th percentiles:
// the highest value of the bucket where the count reaches the rank
// PercentileRank gives, as HdrHistogram's ValueAtQuantile returns them.
func (h Hist) Percentiles() (p [3]int64) {
	if h.Total == 0 {
		return p
	}
	ranks := [3]int64{PercentileRank(50, h.Total), PercentileRank(95, h.Total), PercentileRank(99, h.Total)}
	var cum int64
	k := 0
	for _, b := range h.Bins {
		cum += b.N
		for k < len(ranks) && cum >= ranks[k] {
			p[k] = Highest(int(b.I))
			k++
		}
		if k == len(ranks) {
			break
		}
	}
	return p
}

// PercentileRank is HdrHistogram's rank of percentile q (0 < q <= 100) of
// total > 0 values: ⌊q·total/100 + ½⌋, at least 1 and at most total.
func PercentileRank(q float64, total int64) int64 {
	rank := (q/100)*float64(total) + 0.5
	if !(rank >= 1) {
		return 1
	}
	if rank >= float64(total) {
		return total
	}
	return int64(rank)
}

// AtRank returns the k-th smallest value (1-based) as h holds it: the
// highest value of the bucket where the count reaches k, as percentiles are
// read.
func (h Hist) AtRank(k int64) int64 {
	var cum int64
	for _, b := range h.Bins {
		if cum += b.N; cum >= k {
			return Highest(int(b.I))
		}
	}
	return 0
}

// Summary returns the distribution in milliseconds; h is a's histogram.
func (a *Acc) Summary(h Hist) result.Summary {
	if a.N == 0 {
		return result.Summary{}
	}
	p := h.Percentiles()
	return result.Summary{
		Count: a.N,
		Mean:  usec.Round6(float64(a.Sum) / float64(a.N) / 1000),
		P50:   usec.ToMS(min(p[0], a.Max)),
		P95:   usec.ToMS(min(p[1], a.Max)),
		P99:   usec.ToMS(min(p[2], a.Max)),
		Max:   usec.ToMS(a.Max),
	}
}

// Chart buckets a service's response times for charts: about 20 buckets of
// a 1-2-5 width reaching the 99th percentile, the last one stretched to the
// maximum (at most 40 buckets); h is a's histogram.
func (a *Acc) Chart(h Hist) result.Histogram {
	out := result.Histogram{BoundsMS: []float64{}, Counts: []int64{}}
	if a.N == 0 {
		return out
	}
	p99 := min(h.Percentiles()[2], a.Max)
	width := NiceUp(max((p99+19)/20, 1))
	nb := min((a.Max+width)/width, 40)
	out.Counts = make([]int64, nb)
	for _, b := range h.Bins {
		out.Counts[min(Value(int(b.I))/width, nb-1)] += b.N
	}
	out.BoundsMS = make([]float64, nb)
	for i := range nb {
		out.BoundsMS[i] = usec.ToMS((i + 1) * width)
	}
	out.BoundsMS[nb-1] = usec.ToMS(max(a.Max, nb*width))
	return out
}

// NiceUp returns the smallest 1, 2 or 5 x 10^k not below x: the width of a
// chart's buckets, and of the time series' bins.
func NiceUp(x int64) int64 {
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
