// Package life holds what a server instance's life cycle is told in,
// apart from the engine that plays it (docs/engine.md, "Life cycle"): why
// an instance changed state ([Cause]), the BBL's pending work items and the
// -p spares' alarms ([Item]) in their order within an instant ([Heap]), the
// times of the periodic scans ([ScanAtOrAfter]), and each instance's time up
// ([UpTimes]).
package life

import (
	"iter"

	"github.com/tuxlb/tuxlb/core/internal/vocab"
)

// Cause is why an instance changed state.
type Cause uint8

// The causes of life-cycle changes.
const (
	Kill       Cause = iota // a scenario kill: up -> down
	Shutdown                // a scenario shutdown: -> stopping or gone
	Boot                    // a scenario boot: gone -> booting
	SvcTimeout              // SVCTIMEOUT aborted its request: up -> down
	Restart                 // the BBL noticed the crash and restarts it
	NoRestart               // noticed, RESTART=N: gone
	MaxGen                  // noticed, MAXGEN reached within GRACE of its start: gone
	Booted                  // restarting or booting -> up
	Spawn                   // -p: a spare booted
	Decay                   // -p: a spare shut down
	Lose                    // its machine was lost: gone without notice
	Restore                 // its machine came back: booting
)

// Causes are the causes' names, as the result's life-cycle list spells them.
var Causes = vocab.Table[Cause]{What: "cause", Names: []string{"kill", "shutdown", "boot", "SVCTIMEOUT", "restart",
	"RESTART=N", "MAXGEN", "booted", "spawn", "decay", "lose", "restore"}}

// String returns the cause as the result's life-cycle list spells it.
func (c Cause) String() string { return Causes.Name(c) }

// The kinds of life-cycle work items: the BBL's, and the -p spares' own
// alarms. At one instant notices, aborts and the DBBL's notices run first
// (phase 0), then come-ups (phase 1), then the alarms (phase 2).
const (
	ItemNotice uint8 = iota // the sanity scan notices a crash
	ItemAbort               // the scan aborts a request past its SVCTIMEOUT
	ItemUp                  // a restarting or booting instance comes up
	ItemDBBL                // the DBBL notices that machine srv is lost
	ItemDecay               // a -p spare idle for terminate seconds ends itself
)

// Phase is when an item of kind k runs within its instant.
func Phase(k uint8) uint8 {
	switch k {
	case ItemUp:
		return 1
	case ItemDecay:
		return 2
	}
	return 0
}

// Item is one piece of pending BBL work.
type Item struct {
	T    int64
	Seq  int64  // ItemAbort: the request's Seq; ItemDecay: since when the spare is idle
	Srv  int32  // the instance (ItemDBBL: the machine)
	Gen  uint32 // the instance's (or machine's) generation when the item was made
	Kind uint8
}

// before orders items by (time, phase, scan order).
func (a *Item) before(b *Item) bool {
	if a.T != b.T {
		return a.T < b.T
	}
	if pa, pb := Phase(a.Kind), Phase(b.Kind); pa != pb {
		return pa < pb
	}
	return a.Srv < b.Srv
}

// Heap is a binary min-heap of Items by (time, phase, scan order).
type Heap []Item

// Push adds it.
func (h *Heap) Push(it Item) {
	*h = append(*h, it)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a[i].before(&a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

// Pop removes and returns the first item; h must not be empty.
func (h *Heap) Pop() Item {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(a) && a[l].before(&a[m]) {
			m = l
		}
		if r := l + 1; r < len(a) && a[r].before(&a[m]) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// ScanAtOrAfter returns the first k*period (k >= 1) at or after t.
func ScanAtOrAfter(t, period int64) int64 {
	k := max((t+period-1)/period, 1)
	return k * period
}

// Run is a change of whether an instance runs (is up or stopping): at T,
// instance Srv starts running (Runs) or stops.
type Run struct {
	T    int64
	Srv  int32
	Runs bool
}

// UpTimes returns each instance's time running between from and to: ran[i]
// says whether instance i runs from time 0, runs are the changes of whether
// one runs, in time order.
func UpTimes(ran []bool, runs iter.Seq[Run], from, to int64) []int64 {
	up := make([]int64, len(ran))
	since := make([]int64, len(ran)) // when it started running; -1: not running
	for i, r := range ran {
		since[i] = -1
		if r {
			since[i] = 0
		}
	}
	add := func(i int32, end int64) {
		if a, b := max(since[i], from), min(end, to); b > a {
			up[i] += b - a
		}
	}
	for c := range runs {
		if c.Runs {
			since[c.Srv] = c.T
		} else {
			add(c.Srv, c.T)
			since[c.Srv] = -1
		}
	}
	for i := range since {
		if since[i] >= 0 {
			add(int32(i), to)
		}
	}
	return up
}
