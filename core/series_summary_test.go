package core

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/timeseries"
)

// summaryScenario is an MP scenario of n instances on two machines (each
// with a queue of its own) at about 60% load, for the series' summary.
func summaryScenario(t *testing.T, n int) *scenario.Scenario {
	t.Helper()
	data := fmt.Sprintf(`{
  "ubbconfig": "*RESOURCES\nIPCKEY 200100\nMASTER SITE1\nMODEL MP\nLDBAL Y\nOPTIONS LAN\n*MACHINES\nn1 LMID=SITE1\nn2 LMID=SITE2\n*GROUPS\nG1 LMID=SITE1 GRPNO=1\nG2 LMID=SITE2 GRPNO=2\n*SERVERS\nsrv SRVGRP=G1 SRVID=1 MIN=%[1]d MAX=%[1]d CLOPT=\"-s SVC --\"\nsrv SRVGRP=G2 SRVID=1 MIN=%[1]d MAX=%[1]d CLOPT=\"-s SVC --\"\n*SERVICES\nSVC LOAD=50\n",
  "services": {"SVC": {"service_time": {"dist": "exp", "mean_ms": 10}}},
  "workload": {"generate": {"duration_ms": 2000, "streams": [
    {"service": "SVC", "origin": "SITE1", "arrivals": "poisson", "rate_per_s": %[2]g},
    {"service": "SVC", "origin": "SITE2", "arrivals": "poisson", "rate_per_s": %[2]g}]}}
}`, n/2, 0.6*float64(n)/2/0.010)
	sc, err := ParseScenario([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestSeriesSummary: past timeseries.Limit lines of a kind, a result keeps the
// busiest (by busy time for servers, in their usual order) and one
// "others" line holding the rest: the sum of their dispatches and queue
// lengths and the mean of their utilizations, bin by bin; AllSeries keeps
// every line, and the kept lines are the same as there.
func TestSeriesSummary(t *testing.T) {
	t.Parallel()
	const n = 100
	sum, err := Run(summaryScenario(t, n), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := Run(summaryScenario(t, n), RunOptions{AllSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	if all.Series.Summarised != nil || len(all.Series.Util) != n || len(all.Series.Queue) != n || len(all.Series.Dispatch) != n {
		t.Fatalf("AllSeries: %d, %d, %d lines, summarised %+v; want %d of each, none", len(all.Series.Queue),
			len(all.Series.Util), len(all.Series.Dispatch), all.Series.Summarised, n)
	}
	s := sum.Series
	nc := len(all.Series.Counters)
	if nc <= timeseries.Limit {
		t.Fatalf("%d counter lines, want more than %d for the test", nc, timeseries.Limit)
	}
	if want := (result.SeriesSummary{Limit: timeseries.Limit, Queues: n - timeseries.Limit, Servers: n - timeseries.Limit, Counters: nc - timeseries.Limit}); s.Summarised == nil || *s.Summarised != want {
		t.Fatalf("summarised %+v, want %+v", s.Summarised, want)
	}
	for _, lines := range [][]result.NamedSeries{s.Queue, s.Util, s.Dispatch} {
		if len(lines) != timeseries.Limit+1 || lines[timeseries.Limit].Name != timeseries.Others {
			t.Fatalf("%d lines, the last %q; want %d and %q", len(lines), lines[len(lines)-1].Name, timeseries.Limit+1, timeseries.Others)
		}
	}
	// everything but the series is the same
	a, b := *sum, *all
	a.Series, b.Series = result.Series{}, result.Series{}
	if ea, eb := string(result.Encode(&a)), string(result.Encode(&b)); ea != eb {
		t.Fatal("the summary changed more than the series")
	}
	// the kept servers are the busiest, and the same in util and dispatches
	busy := map[string]float64{}
	for _, sv := range sum.Servers {
		busy[sv.ID] = sv.BusyMS
	}
	kept := map[string]bool{}
	least := math.Inf(1)
	for k, l := range s.Util[:timeseries.Limit] {
		if s.Dispatch[k].Name != l.Name {
			t.Fatalf("line %d: utilization of %s, dispatches of %s", k, l.Name, s.Dispatch[k].Name)
		}
		kept[l.Name] = true
		least = min(least, busy[l.Name])
	}
	if len(kept) != timeseries.Limit {
		t.Fatalf("%d distinct servers kept, want %d", len(kept), timeseries.Limit)
	}
	for id, b := range busy {
		if !kept[id] && b > least {
			t.Errorf("server %s (busy %g ms) left out, while one busy %g ms is kept", id, b, least)
		}
	}
	// the kept lines are those of AllSeries, in the same order
	check := func(what string, got, every []result.NamedSeries, how string) {
		t.Helper()
		pos := map[string]int{}
		for k, l := range every {
			pos[l.Name] = k
		}
		last := -1
		rest := make([]float64, len(got[0].Values))
		left := 0
		in := map[string]bool{}
		for _, l := range got[:timeseries.Limit] {
			k, ok := pos[l.Name]
			if !ok || k <= last || !slices.Equal(l.Values, every[k].Values) {
				t.Fatalf("%s: line %s is not AllSeries' (or out of order)", what, l.Name)
			}
			last, in[l.Name] = k, true
		}
		for _, l := range every {
			if in[l.Name] {
				continue
			}
			left++
			for i, v := range l.Values {
				rest[i] += v
			}
		}
		for i := range rest {
			want := rest[i]
			if how == "mean" {
				want /= float64(left)
			}
			if got := got[timeseries.Limit].Values[i]; math.Abs(got-want) > 1e-6*float64(left) {
				t.Fatalf("%s: others at bin %d is %g, want the %s of the %d left out, %g", what, i, got, how, left, want)
			}
		}
	}
	check("utilization", s.Util, all.Series.Util, "mean")
	check("dispatches", s.Dispatch, all.Series.Dispatch, "sum")
	check("queue_length", s.Queue, all.Series.Queue, "sum")
	// the counters kept are those of AllSeries that reached the highest
	// values, in its order, and there is no "others" line of them
	if len(s.Counters) != timeseries.Limit {
		t.Fatalf("%d counter lines, want %d", len(s.Counters), timeseries.Limit)
	}
	peak := func(c result.CounterSeries) float64 { return slices.Max(c.Values) }
	k, lowest, highestOut := 0, math.Inf(1), math.Inf(-1)
	for _, c := range all.Series.Counters {
		if k < len(s.Counters) && c.Machine == s.Counters[k].Machine && c.Queue == s.Counters[k].Queue {
			if !slices.Equal(c.Values, s.Counters[k].Values) {
				t.Fatalf("counter %s → %s differs from AllSeries'", c.Machine, c.Queue)
			}
			lowest = min(lowest, peak(c))
			k++
			continue
		}
		highestOut = max(highestOut, peak(c))
	}
	if k != timeseries.Limit || highestOut > lowest {
		t.Errorf("%d kept counters found in AllSeries' order; the highest left out peaks at %g, the lowest kept at %g", k, highestOut, lowest)
	}
	if !strings.Contains(string(result.Encode(sum)), `"summarised": {`) {
		t.Error("the encoded result does not say the series are summarised")
	}
}

// TestSeriesNoSummaryUpToLimit: with at most timeseries.Limit lines of each kind
// (32 servers with a queue each on two machines: 64 counters), the series
// are the same with and without AllSeries (and not marked summarised).
func TestSeriesNoSummaryUpToLimit(t *testing.T) {
	t.Parallel()
	a, err := Run(summaryScenario(t, timeseries.Limit/2), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(summaryScenario(t, timeseries.Limit/2), RunOptions{AllSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Series.Summarised != nil || string(result.Encode(a)) != string(result.Encode(b)) {
		t.Error("a result of 32 servers differs with AllSeries, or is marked summarised")
	}
	if len(a.Series.Util) != timeseries.Limit/2 || len(a.Series.Counters) < timeseries.Limit/2 {
		t.Errorf("%d utilization and %d counter lines, want %d and at least as many", len(a.Series.Util), len(a.Series.Counters), timeseries.Limit/2)
	}
}

// The memory estimate mirrors the engine's sizes (it is a leaf and cannot
// read them): the lines a result's series show, the bins kept at most and
// aimed at.
func TestAdmissionMirrorsEngine(t *testing.T) {
	t.Parallel()
	if admission.MaxCells != timeseries.MaxCells || admission.MinBins != timeseries.MinBins {
		t.Errorf("admission.MaxCells, MinBins = %d, %d; timeseries' are %d, %d", admission.MaxCells, admission.MinBins, timeseries.MaxCells, timeseries.MinBins)
	}
	if admission.SeriesLines != timeseries.Limit || admission.EngineBins != timeseries.AutoMaxBins || admission.TargetBins != timeseries.TargetBins {
		t.Errorf("admission has %d lines, %d and %d bins; the engine %d, %d and %d",
			admission.SeriesLines, admission.EngineBins, admission.TargetBins, timeseries.Limit, timeseries.AutoMaxBins, timeseries.TargetBins)
	}
	if admission.BytesPerInFlight != BytesPerInFlight {
		t.Errorf("admission has %d bytes per request in flight, the engine %d", admission.BytesPerInFlight, BytesPerInFlight)
	}
}
