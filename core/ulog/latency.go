package ulog

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Latency is the one-way network latency between machines that the log
// measures (Log.Latency).
type Latency struct {
	MS float64 // the estimate, in milliseconds (0 without samples)
	// Samples counts the calls paired with an execution on another machine;
	// Window those of them the estimate is the median of.
	Samples, Window int
	// Offsets are the pairs of machines whose clocks are seen apart (see
	// Log.offsets); those Corrected were taken into account when pairing.
	Offsets []Offset
}

// Offset is how far one machine's stamps run ahead of another's, seen in
// the calls from the one to services of the other.
type Offset struct {
	Caller, Server string  // machines
	MS             float64 // the server's clock less the caller's
	Calls          int     // the calls that show it (in the fullest bin and its neighbours)
	// Corrected says the server's stamps were moved back by MS when its
	// executions were paired with the caller's calls (and the caller's
	// forward by MS for the calls the other way, unless those show their
	// own offset). An offset seen in fewer than minOffsetCalls calls, or
	// one the calls the other way contradict, is not corrected: Why says
	// why.
	Corrected bool
	Why       string
}

// offsetNeighbours is how many executions either side of a call, on each
// other machine, Log.offsets looks at, among the offsetLook either side on
// every machine (a bound on its work a call); offsetBinUS the width of its
// histogram's bins (µs); minOffsetUS the least offset it reports:
// millisecond stamps put a call's and its execution's midpoints within 1
// ms of each other either way.
const (
	offsetNeighbours = 16
	offsetLook       = 16 * offsetNeighbours
	offsetBinUS      = 500
	minOffsetUS      = 1500
)

// minOffsetCalls is how many calls an offset must be seen in to be
// corrected (and suspectCalls how many to be reported at all);
// maxDisagreeUS how far apart the offsets of a pair of machines seen both
// ways (the one less the other's opposite) may be and still be corrected:
// two bins.
const (
	minOffsetCalls = 20
	suspectCalls   = 5
	maxDisagreeUS  = 2 * offsetBinUS
)

// maxCandidates bounds the executions looked at for one call: past it the
// call is ambiguous and left out.
const maxCandidates = 64

// windowUS is the width of the low window of Latency: two milliseconds,
// the spread that millisecond stamps give a half-difference of two spans
// (each span is off by less than a millisecond either way).
const windowUS = 2000

// Latency estimates the one-way network latency from the tpcalls that
// crossed machines. machine names a host's machine (hosts of one machine
// give the same name). A tpcall of X from host h (opened at t1, closed at
// t2) is paired with an execution of X when exactly one execution of X
// starts at or after t1 and ends at or before t2, and that execution ran on
// another machine than h; the pair says (t2 - t1 - (execution's span)) / 2,
// the latency plus half the request's queue wait. The stamps of an
// execution on another machine are first moved back by that machine's
// offset from h's when Log.offsets measured one (Offset.Corrected): the
// pairing by time takes the two clocks to be in step. Queue waits are never
// negative, so the latency is the low end of those figures: the estimate is
// the median of the pairs within 2 ms of the smallest (the spread of
// millisecond stamps), never below 0; with millisecond stamps the figures
// are whole milliseconds of t2 - t1 - span, taken as classes a millisecond
// wide and the median interpolated in its class. Whole-second logs
// measure none.
func (lg *Log) Latency(machine func(host string) string) Latency {
	if len(lg.CallSpans) == 0 || len(lg.Executions) == 0 {
		return Latency{}
	}
	// each service's executions by start: Executions sorted in place by
	// service, then start (no copy of them: a log's executions are most of
	// what it holds), each service's a piece of it
	slices.SortStableFunc(lg.Executions, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.Service, b.Service), cmpInt(a.StartUS, b.StartUS))
	})
	// each host's machine, asked once, when first needed
	machines := make([]string, len(lg.names))
	asked := make([]bool, len(lg.names))
	machineOf := func(h Name) string {
		if !asked[h] {
			machines[h], asked[h] = machine(lg.names[h]), true
		}
		return machines[h]
	}
	byService := map[Name][]Span{}
	for i := 0; i < len(lg.Executions); {
		j := i + 1
		for j < len(lg.Executions) && lg.Executions[j].Service == lg.Executions[i].Service {
			j++
		}
		byService[lg.Executions[i].Service] = lg.Executions[i:j:j]
		i = j
	}
	offsets := lg.offsets(byService, machineOf)
	// from each caller's machine, the machines whose clocks are corrected
	// for, and their executions by start (a service's, machine's)
	type server struct {
		machine string
		us      int64 // its clock less the caller's
	}
	from := map[string][]server{}
	moved := map[string]bool{} // the machines some caller's clock differs from
	for k, us := range offsetShifts(offsets) {
		from[k[0]] = append(from[k[0]], server{k[1], us})
		moved[k[1]] = true
	}
	type onM struct {
		svc     Name
		machine string
	}
	onMachine := map[onM][]Span{}
	for _, ex := range byService {
		for _, e := range ex {
			if m := machineOf(e.Host); moved[m] {
				k := onM{e.Service, m}
				onMachine[k] = append(onMachine[k], e) // by start, as ex
			}
		}
	}
	// inside counts the executions of ex within [t1, t2], skipping those on
	// the machines of skip: how many, the last, and whether there may be
	// more than maxCandidates
	inside := func(ex []Span, t1, t2 int64, skip []server) (n int, last Span, ambiguous bool) {
		i, _ := slices.BinarySearchFunc(ex, t1, func(e Span, t int64) int { return cmpInt(e.StartUS, t) })
		for j := i; j < len(ex) && ex[j].StartUS <= t2 && j-i < maxCandidates; j++ {
			if ex[j].EndUS <= t2 && !slices.ContainsFunc(skip, func(s server) bool { return s.machine == machineOf(ex[j].Host) }) {
				last = ex[j]
				n++
			}
		}
		return n, last, i+maxCandidates < len(ex) && ex[i+maxCandidates].StartUS <= t2
	}
	var half []int64 // (span - execution) / 2, in microseconds, doubled to stay whole
	for _, c := range lg.CallSpans {
		if !lg.pairable(c) {
			continue // (a long log's: some executions inside it were not kept)
		}
		cm := machineOf(c.Host)
		// the executions on clocks in step with the caller's, then on each
		// other machine's, with the call's span moved onto its clock
		n, e, ambiguous := inside(byService[c.Service], c.StartUS, c.EndUS, from[cm])
		for _, s := range from[cm] {
			k, last, amb := inside(onMachine[onM{c.Service, s.machine}], c.StartUS+s.us, c.EndUS+s.us, nil)
			if k > 0 {
				e = last
			}
			n, ambiguous = n+k, ambiguous || amb
		}
		if n != 1 || ambiguous || machineOf(e.Host) == cm {
			continue
		}
		half = append(half, (c.EndUS-c.StartUS)-(e.EndUS-e.StartUS))
	}
	if len(half) == 0 {
		return Latency{Offsets: offsets}
	}
	slices.Sort(half)
	w := 0
	for w < len(half) && half[w] <= half[0]+2*windowUS {
		w++
	}
	var med float64
	if onGrid(half[:w]) {
		// whole milliseconds: the median of the values as classes of
		// 1 ms each, interpolated in the median's class
		m := half[w/2]
		below, _ := slices.BinarySearch(half[:w], m)
		in := 0
		for j := below; j < w && half[j] == m; j++ {
			in++
		}
		med = float64(m) - 500 + (float64(w)/2-float64(below))/float64(in)*1000
	} else if w%2 == 1 {
		med = float64(half[w/2])
	} else {
		med = float64(half[w/2-1]+half[w/2]) / 2
	}
	return Latency{MS: max(med/2, 0) / 1000, Samples: len(half), Window: w, Offsets: offsets}
}

// offsets finds the machines whose clocks are apart. A call that did not
// wait in a queue spends the latency going and the latency coming back:
// its execution's midpoint is the call's, on one clock; the server's clock
// ahead of the caller's by θ puts it θ later, and a wait w puts it w/2
// later. So, for each pair of machines (the caller's, the server's), the
// differences of midpoints between each call of X and the executions of X
// on the other machine near it in time (the offsetNeighbours either side
// on that machine, among the offsetLook either side on all, of a span no
// longer than the call's) pile up at θ, from the calls
// that did not wait, while the other executions spread them thin. The
// histogram's fullest bin gives θ (its middle) when it and its two
// neighbours hold at least suspectCalls calls and five times what three
// bins hold on average over the range seen; a θ below minOffsetUS either
// way is the stamps' own error, not reported. It is corrected (Latency
// pairs with the server's stamps moved back by θ) when seen in
// minOffsetCalls calls or more and the calls the other way, if they show
// an offset, show the opposite one within maxDisagreeUS. Hosts map to
// machines through machine; byService holds each service's executions.
func (lg *Log) offsets(byService map[Name][]Span, machine func(Name) string) []Offset {
	type pair struct{ caller, server string }
	hist := map[pair]map[int64]int{}
	byMid := map[Name][]int32{}       // a service's executions (their places in byService's) by midpoint
	ran := map[Name]map[string]bool{} // service -> the machines that ran it
	for svc, ex := range byService {
		m := make([]int32, len(ex))
		for i := range m {
			m[i] = int32(i)
		}
		slices.SortStableFunc(m, func(a, b int32) int { return cmpInt(ex[a].StartUS+ex[a].EndUS, ex[b].StartUS+ex[b].EndUS) })
		byMid[svc] = m
		ran[svc] = map[string]bool{}
		for _, e := range ex {
			ran[svc][machine(e.Host)] = true
		}
	}
	taken := map[string]int{} // a side's neighbours so far, by machine
	for _, c := range lg.CallSpans {
		ex, all := byMid[c.Service], byService[c.Service]
		mid := c.StartUS + c.EndUS // doubled midpoints stay whole
		i, _ := slices.BinarySearchFunc(ex, mid, func(e int32, t int64) int { return cmpInt(all[e].StartUS+all[e].EndUS, t) })
		cm := machine(c.Host)
		others := len(ran[c.Service])
		if ran[c.Service][cm] {
			others--
		}
		for _, side := range [2]struct{ from, step int }{{i - 1, -1}, {i, 1}} {
			clear(taken)
			full := 0 // the machines with all their neighbours this side
			for j, n := side.from, 0; j >= 0 && j < len(ex) && n < offsetLook && full < others; j, n = j+side.step, n+1 {
				e := all[ex[j]]
				sm := machine(e.Host)
				if sm == cm || taken[sm] == offsetNeighbours {
					continue
				}
				if taken[sm]++; taken[sm] == offsetNeighbours {
					full++
				}
				if e.EndUS-e.StartUS > c.EndUS-c.StartUS {
					continue
				}
				k := pair{cm, sm}
				if hist[k] == nil {
					hist[k] = map[int64]int{}
				}
				d := e.StartUS + e.EndUS - mid // twice the difference of midpoints
				b := d / (2 * offsetBinUS)
				if d < 0 && d%(2*offsetBinUS) != 0 {
					b-- // floor
				}
				hist[k][b]++
			}
		}
	}
	var out []Offset
	for k, h := range hist {
		lo, hi, total := int64(math.MaxInt64), int64(math.MinInt64), 0
		at := int64(0) // the fullest bin, the lowest of equals
		for b, n := range h {
			lo, hi, total = min(lo, b), max(hi, b), total+n
			if n > h[at] || n == h[at] && b < at {
				at = b
			}
		}
		best := h[at-1] + h[at] + h[at+1]
		mean3 := 3 * float64(total) / float64(hi-lo+1)
		theta := (float64(at) + 0.5) * offsetBinUS
		if best < suspectCalls || float64(best) < 5*mean3 || math.Abs(theta) < minOffsetUS {
			continue
		}
		out = append(out, Offset{Caller: k.caller, Server: k.server, MS: theta / 1000, Calls: best})
	}
	slices.SortFunc(out, func(a, b Offset) int {
		return cmp.Or(strings.Compare(a.Caller, b.Caller), strings.Compare(a.Server, b.Server))
	})
	// Corrected: seen in minOffsetCalls calls or more, and not contradicted
	// by the calls the other way (one clock's offset from the other is the
	// opposite of the other's from it, within two bins)
	for i := range out {
		o := &out[i]
		if o.Calls < minOffsetCalls {
			o.Why = fmt.Sprintf("seen in fewer than %d calls", minOffsetCalls)
			continue
		}
		o.Corrected = true
		for _, r := range out {
			if r.Caller == o.Server && r.Server == o.Caller && r.Calls >= minOffsetCalls &&
				math.Abs(1000*(o.MS+r.MS)) > maxDisagreeUS {
				o.Corrected = false
				o.Why = fmt.Sprintf("the calls from %s to %s put it at %s ms", r.Caller, r.Server, strconv.FormatFloat(-r.MS, 'f', -1, 64))
			}
		}
	}
	return out
}

// offsetShifts are, per pair of machines (the caller's, the server's),
// how far the server's clock runs ahead of the caller's (µs), from the
// corrected offsets: an offset measured from the caller to the server,
// else the opposite of one measured the other way.
func offsetShifts(offsets []Offset) map[[2]string]int64 {
	shift := map[[2]string]int64{}
	for _, o := range offsets {
		if o.Corrected {
			shift[[2]string{o.Caller, o.Server}] = int64(math.Round(o.MS * 1000))
		}
	}
	for _, o := range offsets {
		back := [2]string{o.Server, o.Caller}
		if _, own := shift[back]; o.Corrected && !own {
			shift[back] = -int64(math.Round(o.MS * 1000))
		}
	}
	return shift
}

// onGrid says every value (µs) is a whole millisecond.
func onGrid(v []int64) bool {
	for _, x := range v {
		if x%1000 != 0 {
			return false
		}
	}
	return true
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
