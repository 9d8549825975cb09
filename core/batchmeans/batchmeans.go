// Package batchmeans cuts the rows a replay's request log observed into
// batches of consecutive rows by issue time, per service and all together:
// the batches whose means give a validation's interval for the observed
// mean and its batch means, and whose spread widens its percentiles'
// intervals (docs/scenario.md, "Replay validation"); and the validation
// window's sums by batch ([Window]), to which core adds the simulated
// responses as the run's requests complete, and its validation rows
// ([Window.Rows]).
package batchmeans

import (
	"cmp"
	"slices"

	"github.com/tuxlb/tuxlb/core/workload"
)

// Max is how many batches the rows of one service (or all of them) are cut
// into: enough for a test, few enough that a batch's mean averages out the
// responses' correlation.
const Max = 20

// count is how many batches n rows are cut into: Max, fewer when there are
// under 2 rows a batch.
func count(n int) int { return min(Max, max(n/2, 1)) }

// Bounds cuts the rows of obs issued at or after fromUS into batches of
// consecutive rows, those of each service s < nsvc apart (bounds[s]) and
// all together (bounds[nsvc]): the first issue time of each batch after
// the first (a row issued at t is in the batch that counts the bounds ≤ t).
// A log in time order (the usual case) is batched in two passes over the
// rows, holding nothing of their size; another is sorted first.
func Bounds(obs []workload.ObservedRow, nsvc int, fromUS int64) [][]int64 {
	bounds := make([][]int64, nsvc+1)
	if !slices.IsSortedFunc(obs, func(a, b workload.ObservedRow) int { return cmp.Compare(a.TimeUS, b.TimeUS) }) {
		ts := make([][]int64, nsvc+1)
		for _, o := range obs {
			if o.TimeUS >= fromUS {
				ts[o.Service] = append(ts[o.Service], o.TimeUS)
				ts[nsvc] = append(ts[nsvc], o.TimeUS)
			}
		}
		for s := range ts {
			slices.Sort(ts[s])
			bounds[s] = boundsOf(ts[s])
		}
		return bounds
	}
	// count the window's rows, then take the issue time of each row that
	// starts a batch: row b·n/nb of its service (and overall)
	n := make([]int, nsvc+1)
	for _, o := range obs {
		if o.TimeUS >= fromUS {
			n[o.Service]++
			n[nsvc]++
		}
	}
	seen := make([]int, nsvc+1)
	note := func(k int, t int64) {
		nb := count(n[k])
		if b := len(bounds[k]) + 1; b < nb && seen[k] == b*n[k]/nb {
			bounds[k] = append(bounds[k], t)
		}
		seen[k]++
	}
	for _, o := range obs {
		if o.TimeUS >= fromUS {
			note(int(o.Service), o.TimeUS)
			note(nsvc, o.TimeUS)
		}
	}
	return bounds
}

// boundsOf cuts the issue times ts (in time order) into count(len(ts))
// batches of consecutive rows: the first issue time of each batch after the
// first.
func boundsOf(ts []int64) []int64 {
	nb := count(len(ts))
	bounds := make([]int64, 0, nb-1)
	for b := 1; b < nb; b++ {
		bounds = append(bounds, ts[b*len(ts)/nb])
	}
	return bounds
}
