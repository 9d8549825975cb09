package ulog

import (
	"math"
	"slices"

	"github.com/tuxlb/tuxlb/core/internal/rng"
)

// What a Log keeps of each request, and how much of it (docs/fit.md, "A
// long log"). Up to a bound, everything, one record a thing: each call's
// and execution's span, each service time, each arrival, each
// execution's start. Past it, a long log's records stop growing with it:
//
//   - arrivals (and the executions' starts that may become arrivals) are
//     counted by service, host and minute, a record each, so the rates
//     and their hours stay counts of every request;
//   - the calls' and executions' spans (the network's latency and its
//     clocks' offsets, the remote domains' response times) are those that
//     started in one second in 2, then 4, 8, ..., as needed (and as the
//     log's length allows: one in 64 seconds read so far, at least): the
//     seconds are chosen by a hash of their number, the same for calls and
//     executions, so a call kept finds every execution it could pair with;
//   - a service's times are all of them up to SamplesKept, and then a
//     uniform sample of that many (a reservoir).
//
// Below the bound the log reads as if there were none.

// DefaultKeep is how many spans, arrivals and starts a Log keeps one by one
// when Options.Keep is 0: about 50 bytes each while the log is read, 800 MB
// for a log of about 3 million requests.
const DefaultKeep = 1 << 24

// SamplesKept is how many of a service's times a Log keeps: past it, a
// uniform sample of that many (a reservoir, the same for the same log).
const SamplesKept = 1 << 17

// minuteUS is the unit of the arrivals' counts, secondUS of the spans'
// thinning; minSeconds how many seconds of the log's a thinning keeps at
// least (its length read so far over 2^level).
const (
	minuteUS   = 60_000_000
	secondUS   = 1_000_000
	minSeconds = 64
)

// keeper is the walk's account of what it keeps.
type keeper struct {
	max    int  // spans, arrivals and starts held before the next thinning
	held   int  // held now (arrivals and starts only while not binned)
	level  uint // spans kept: those of the seconds whose hash has level low bits 0
	binned bool // arrivals and starts counted by minute
	bins   map[binKey]int32
	rng    rng.PCG // the reservoirs' draws
	// a service's times kept (SamplesKept)
	samples int
}

// binKey is a minute's arrivals of a service at a host.
type binKey struct {
	svc, host Name
	minute    int64
}

func newKeeper(o Options) keeper {
	k := keeper{max: o.Keep, samples: o.Samples}
	if k.max <= 0 {
		k.max = DefaultKeep
	}
	if k.samples <= 0 {
		k.samples = SamplesKept
	}
	k.rng.Seed(0x5eed_0f_7e5e_7f0e, 1)
	return k
}

// minuteOf is the minute of us (µs since 1970), rounded down; secondOf its
// second.
func minuteOf(us int64) int64 { return floorDiv(us, minuteUS) }
func secondOf(us int64) int64 { return floorDiv(us, secondUS) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a < 0 && a%b != 0 {
		q--
	}
	return q
}

// keptSecond says whether the spans that started in second m are kept.
func (k *keeper) keptSecond(m int64) bool {
	if k.level == 0 {
		return true
	}
	x := uint64(m) + 0x9e3779b97f4a7c15 // splitmix64's finalizer
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	return x&(1<<k.level-1) == 0
}

// keepCall says whether a call that started at us is kept; keepExec the
// same of an execution: it is kept when its second or the one before is,
// so that a call kept that ends by its next second's end finds every
// execution inside it (Log.Latency pairs only those).
func (k *keeper) keepCall(us int64) bool { return k.keptSecond(secondOf(us)) }
func (k *keeper) keepExec(us int64) bool {
	m := secondOf(us)
	return k.keptSecond(m) || k.keptSecond(m-1)
}

// pairable says whether a call of the log, kept, had every execution inside
// it kept too: always when nothing was thinned. (On the stamps' own
// clocks: an execution on a machine whose clock runs a second or more
// ahead of the caller's may be of a second not kept; the call then finds
// fewer executions, most often none, and is left out.)
func (lg *Log) pairable(c Span) bool {
	return lg.KeptOneIn <= 1 || secondOf(c.EndUS) <= secondOf(c.StartUS)+1
}

// grow counts one more record held, thinning first when that passes the
// bound.
func (w *walker) grow() {
	k := &w.k
	if k.held++; k.held > k.max {
		w.thin()
	}
}

// thin makes room: it counts the arrivals and starts by minute, then keeps
// the spans of fewer seconds until they are half the bound, or one in
// (the seconds read so far / minSeconds): the next thinning waits until
// they have doubled.
func (w *walker) thin() {
	k, lg := &w.k, w.lg
	if !k.binned {
		w.bin()
	}
	k.held = len(lg.CallSpans) + len(lg.Executions)
	most := uint(0) // the most level the length allows
	for (lg.LastUS-lg.FirstUS)/secondUS>>(most+1) >= minSeconds && most < 40 {
		most++
	}
	for k.held > k.max/2 && k.level < most {
		k.level++
		lg.CallSpans = slices.DeleteFunc(lg.CallSpans, func(s Span) bool { return !k.keepCall(s.StartUS) })
		lg.Executions = slices.DeleteFunc(lg.Executions, func(s Span) bool { return !k.keepExec(s.StartUS) })
		k.held = len(lg.CallSpans) + len(lg.Executions)
	}
	lg.KeptOneIn = 1 << min(k.level, 62)
	k.max = max(k.max, 2*k.held)
}

// bin counts the arrivals held and the executions' starts by minute, and
// those to come.
func (w *walker) bin() {
	k, lg := &w.k, w.lg
	k.binned, k.bins = true, map[binKey]int32{}
	lg.ArrivalsBinned, lg.ArrivalsFirstUS, lg.ArrivalsLastUS = true, math.MaxInt64, math.MinInt64
	old := lg.Arrivals
	lg.Arrivals = make([]Arrival, 0, 1024)
	moved := make([]int32, len(old))
	for i, a := range old {
		moved[i] = -1
		if a.Weight != 0 { // (0: a call that never reached a server)
			moved[i] = int32(w.binArrival(a))
		}
	}
	for _, sp := range w.stacks { // the open calls' arrivals, to take back if undelivered
		for _, f := range *sp {
			if f.arrival >= 0 {
				f.arrival = int(moved[f.arrival])
			}
		}
	}
	for _, t := range w.tallies {
		starts := t.start
		t.start = nil
		for _, s := range starts {
			t.binStart(s)
		}
	}
}

// binArrival adds a to its minute's count (binned), returning its place
// in Arrivals.
func (w *walker) binArrival(a Arrival) int {
	k, lg := &w.k, w.lg
	lg.ArrivalsFirstUS, lg.ArrivalsLastUS = min(lg.ArrivalsFirstUS, a.TimeUS), max(lg.ArrivalsLastUS, a.TimeUS)
	key := binKey{a.Service, a.Host, minuteOf(a.TimeUS)}
	if i, ok := k.bins[key]; ok {
		lg.Arrivals[i].Weight += a.Weight
		return int(i)
	}
	k.bins[key] = int32(len(lg.Arrivals))
	lg.Arrivals = append(lg.Arrivals, Arrival{TimeUS: key.minute * minuteUS, Weight: a.Weight, Service: a.Service, Host: a.Host})
	return len(lg.Arrivals) - 1
}

// binStart adds s to its minute's count of the service's starts.
func (t *tally) binStart(s startAt) {
	if t.bins == nil { // (a service first run once the log was binned)
		t.bins = map[binKey]int32{}
	}
	key := binKey{0, s.host, minuteOf(s.us)}
	if i, ok := t.bins[key]; ok {
		t.start[i].n += s.n
		return
	}
	t.bins[key] = int32(len(t.start))
	t.start = append(t.start, startAt{us: key.minute * minuteUS, host: s.host, n: s.n})
}

// arrive notes a request from outside at us: its place in Arrivals, whose
// weight an undelivered call takes back.
func (w *walker) arrive(us int64, svc, host string) int {
	lg := w.lg
	a := Arrival{TimeUS: us, Service: lg.name(svc), Host: lg.name(host), Weight: 1}
	if !w.k.binned {
		w.grow()
	}
	if w.k.binned {
		return w.binArrival(a)
	}
	lg.Arrivals = append(lg.Arrivals, a)
	return len(lg.Arrivals) - 1
}

// started notes an execution's start (an arrival if no traced process
// called its service).
func (w *walker) started(t *tally, us int64, host Name) {
	t.firstUS, t.lastUS = min(t.firstUS, us), max(t.lastUS, us)
	if !w.k.binned {
		w.grow()
	}
	if w.k.binned {
		t.binStart(startAt{us: us, host: host, n: 1})
		return
	}
	t.start = append(t.start, startAt{us: us, host: host, n: 1})
}

// span notes a call's (execution false) or an execution's span when its
// second is kept.
func (w *walker) span(list *[]Span, s Span, execution bool) {
	keeps := w.k.keepCall
	if execution {
		keeps = w.k.keepExec
	}
	if !keeps(s.StartUS) {
		return
	}
	w.grow()
	if !keeps(s.StartUS) {
		return // (the growth thinned its second away)
	}
	*list = append(*list, s)
}

// timed notes one of s's executions' own time and its spans' count: every
// one up to SamplesKept, then each in the reservoir with the chance that
// keeps it a uniform sample of all.
func (w *walker) timed(s *Service, us int64, spans int) {
	s.Timed++
	if len(s.OwnUS) < w.k.samples {
		s.OwnUS = append(s.OwnUS, us)
		s.OwnSpans = append(s.OwnSpans, spans)
		return
	}
	if j := w.k.rng.IntN(s.Timed); j < w.k.samples {
		s.OwnUS[j], s.OwnSpans[j] = us, spans
	}
}
