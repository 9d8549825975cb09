package ulog

import (
	"slices"
)

// Latency is the one-way network latency between machines that the log
// measures (Log.Latency).
type Latency struct {
	MS float64 // the estimate, in milliseconds (0 without samples)
	// Samples counts the calls paired with an execution on another machine;
	// Window those of them the estimate is the median of.
	Samples, Window int
}

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
// the latency plus half the request's queue wait. Queue waits are never
// negative, so the latency is the low end of those figures: the estimate is
// the median of the pairs within 2 ms of the smallest (the spread of
// millisecond stamps), never below 0. Whole-second logs measure none.
func (lg *Log) Latency(machine func(host string) string) Latency {
	if !lg.Millis || len(lg.CallSpans) == 0 {
		return Latency{}
	}
	byService := map[string][]Span{}
	for _, e := range lg.Executions {
		byService[e.Service] = append(byService[e.Service], e)
	}
	for _, ex := range byService {
		slices.SortStableFunc(ex, func(a, b Span) int { return cmpInt(a.StartUS, b.StartUS) })
	}
	var half []int64 // (span - execution) / 2, in microseconds, doubled to stay whole
	for _, c := range lg.CallSpans {
		ex := byService[c.Service]
		i, _ := slices.BinarySearchFunc(ex, c.StartUS, func(e Span, t int64) int { return cmpInt(e.StartUS, t) })
		found, n := -1, 0
		for j := i; j < len(ex) && ex[j].StartUS <= c.EndUS && j-i < maxCandidates; j++ {
			if ex[j].EndUS <= c.EndUS {
				found = j
				n++
			}
		}
		if n != 1 || (i+maxCandidates < len(ex) && ex[i+maxCandidates].StartUS <= c.EndUS) {
			continue
		}
		e := ex[found]
		if machine(e.Host) == machine(c.Host) {
			continue
		}
		half = append(half, (c.EndUS-c.StartUS)-(e.EndUS-e.StartUS))
	}
	if len(half) == 0 {
		return Latency{}
	}
	slices.Sort(half)
	w := 0
	for w < len(half) && half[w] <= half[0]+2*windowUS {
		w++
	}
	var med float64
	if w%2 == 1 {
		med = float64(half[w/2])
	} else {
		med = float64(half[w/2-1]+half[w/2]) / 2
	}
	return Latency{MS: max(med/2, 0) / 1000, Samples: len(half), Window: w}
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
