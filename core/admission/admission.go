// Package admission estimates, before anything of a request is built, the
// memory a run, a model or a sweep of the engine will hold at its peak
// (docs/api.md, Settings and limits): the CLI and the server refuse what
// passes their budget, naming the part that is too large. It is a leaf: it
// reads a scenario and a Model, not the engine, whose sizes it mirrors
// (SeriesLines, EngineBins, TargetBins: core's tests fail when they
// drift) and whose costs per item its tests measure on real runs.
package admission

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// A Cost is an estimate, made before anything of a request is built, of
// the memory it will hold at its peak: a sum of products of the sizes that
// drive it (instances × the services each advertises, the time series'
// bins × columns, replications, a sweep's points × its model, ...). A
// caller with a memory budget compares Bytes with it and, when it is over,
// names the largest term: the product that is too large and the field that
// sets it. The bytes per item are measured (TestCostCoversRun compares them
// with real runs); the estimate errs on the high side, never by orders of
// magnitude.
type Cost struct {
	Terms []CostTerm
}

// CostTerm is one product of a Cost.
type CostTerm struct {
	Field string // the input that sets it: "ubbconfig", "replications", "workload.trace_csv", "vary", "bin_ms"
	What  string // the product in words: "10000 instances × 5000 services each = 50000000 (instance, service) pairs"
	Bytes int64
}

// Bytes is the estimated peak.
func (c Cost) Bytes() int64 {
	var n int64
	for _, t := range c.Terms {
		n += t.Bytes
	}
	return n
}

// Largest is the term of the most bytes.
func (c Cost) Largest() CostTerm {
	if len(c.Terms) == 0 {
		return CostTerm{}
	}
	return slices.MaxFunc(c.Terms, func(a, b CostTerm) int { return cmp.Compare(a.Bytes, b.Bytes) })
}

// add appends a term of n items of per bytes each.
func (c *Cost) add(field, what string, n, per int64) {
	if n > 0 {
		c.Terms = append(c.Terms, CostTerm{Field: field, What: what, Bytes: satMul(n, per)})
	}
}

// satMul is a × b, saturating instead of overflowing.
func satMul(a, b int64) int64 {
	if a != 0 && b > (1<<62)/a {
		return 1 << 62
	}
	return a * b
}

// Measured bytes per item of a run (each counts the engine's state, the
// result and its encoding, which an interactive run holds at once, and the
// copy of the encoding a caller writes).
const (
	costPerInstance = 6 << 10 // a server instance: its plan, engine state, statistics and their JSON, outside the series
	// a dispatch thread past an instance's first: its state (its request,
	// end, free-since, marks: 72 bytes) and its by_thread figures and their
	// JSON (about 150 bytes)
	costPerThread   = 256
	costPerPair     = 272 // an (instance, service) pair: the engine's candidate lists and done counts, the result's counts
	costPerCounter  = 16  // an MP counter, per machine and queue
	costPerCell     = 8   // a number of the time series in the engine's bins
	costPerLineCell = 36  // a number of a line of the result's series: the float, its JSON twice
	costPerRow      = CostPerTraceRow
	costPerRep      = 1 << 10 // a replication's figures, kept to combine them
	costRunBase     = 64 << 10
	costSeriesBins  = 160 // the bins a run's series ends with, at most (auto width: 60 to 240, 120 targeted)
)

// The engine's sizes the estimate depends on, as core has them: the lines
// of each kind a result's series show (the busiest; more with
// RunOptions.AllSeries), the bins the engine keeps at most, and the bins
// it aims at.
const (
	SeriesLines = 64
	TargetBins  = 120
	EngineBins  = 2 * TargetBins
	MaxCells    = 16_000_000 // the numbers the engine's bins hold at most: fewer bins past it
	MinBins     = 16
)

// cellBins is the most bins of cols numbers each that MaxCells holds (core's
// timeseries.CellBins).
func cellBins(cols int64) int64 { return max(MaxCells/max(cols, 1), MinBins) &^ 1 }

// CostPerTraceRow is what a row of the JSON trace rows (workload.trace)
// costs compiled, the request it becomes (core holds those whole, sorted):
// 124 bytes measured for a row of time, service, origin and service time.
const CostPerTraceRow = 128

// A trace_csv is not held as rows: each run reads its text (the caller's)
// as it plays it, holding the LookAheadRequests requests it reads before
// it starts (workload.LookAheadRequests) and a reorder heap of at most
// ReorderRows requests (workload.MaxReorderRows), costPerHeldRow each.
// What it holds a row is the observed response of a log that has one,
// kept apart for the validation (24 bytes in a slice grown by append).
// A log further out of time order than ReorderRows is read whole and
// sorted, at CostPerTraceRow a row more than this estimate (docs/
// scenario.md says so).
const (
	LookAheadRequests = 16384
	ReorderRows       = 4096
	costPerHeldRow    = 128
	costRowObserved   = 48
)

// TraceRowCost is what a row of the request log text costs as a run reads
// it: by the columns its header (its first line) names, or the mapping cm
// gives. Only an observed response costs anything.
func TraceRowCost(text string, cm *scenario.TraceMap) int64 {
	head, _, _ := strings.Cut(text, "\n")
	delim := ","
	if cm != nil && cm.Delimiter != "" {
		delim = cm.Delimiter
	}
	if cm != nil && cm.Observed != "" {
		return costRowObserved
	}
	for _, c := range strings.Split(head, delim) {
		if strings.EqualFold(strings.Trim(strings.TrimSpace(c), `"`), "observed_ms") {
			return costRowObserved
		}
	}
	return 0
}

// modelSize is what of a model drives a run's memory.
type modelSize struct {
	instances, queues, machines, pairs, services int64
	// threads: the dispatch threads of multithreaded instances past their
	// first (MAXDISPATCHTHREADS - 1 each)
	threads int64
	mp      bool
}

func sizeOf(m *ubb.Model) modelSize {
	s := modelSize{instances: int64(len(m.Servers)), queues: int64(len(m.Queues)), machines: int64(len(m.Machines)), services: int64(len(m.Services)),
		mp: m.Model == "MP"}
	for i := range m.Servers {
		s.pairs += int64(len(m.Servers[i].Services))
		if !m.Servers[i].Gateway {
			s.threads += int64(m.Servers[i].DispatchThreads() - 1)
		}
	}
	return s
}

// traceRows is the number of rows of sc's trace, counted without reading it.
func traceRows(sc *scenario.Scenario) (field string, rows int64) {
	if sc.Workload.TraceCSV != "" {
		return "workload.trace_csv", int64(strings.Count(sc.Workload.TraceCSV, "\n")) + 1
	}
	return "workload.trace", int64(len(sc.Workload.Trace))
}

// RunCost estimates what one run of sc on its model m holds at its peak,
// with its replications (run one after another), outside the requests it
// holds at once (RunOptions.MaxInFlight bounds those, at about
// BytesPerInFlight each).
func RunCost(sc *scenario.Scenario, m *ubb.Model) Cost {
	c := runCost(sc, sizeOf(m))
	if k := int64(max(sc.Replications, 1)); k > 1 {
		c.add("replications", itoa64(k)+" replications' figures", k, costPerRep)
	}
	return c
}

// runCost is one run's cost.
func runCost(sc *scenario.Scenario, s modelSize) Cost {
	var c Cost
	c.add("", "a run's fixed part", 1, costRunBase)
	c.add("ubbconfig", itoa64(s.instances)+" server instances", s.instances, costPerInstance)
	if s.threads > 0 {
		c.add("ubbconfig", itoa64(s.threads)+" dispatch threads past their instances' first (MAXDISPATCHTHREADS)", s.threads, costPerThread)
	}
	if s.pairs > s.instances {
		c.add("ubbconfig", itoa64(s.instances)+" instances × "+itoa64(s.pairs/max(s.instances, 1))+
			" services each = "+itoa64(s.pairs)+" (instance, service) pairs", s.pairs, costPerPair)
	}
	cols := s.queues + 2*s.instances + 8
	counters := int64(0)
	if s.mp {
		counters = s.machines * s.queues
		cols += counters
		c.add("ubbconfig", itoa64(s.machines)+" machines × "+itoa64(s.queues)+" queues = "+itoa64(counters)+" MP counters",
			counters, costPerCounter)
	}
	// the engine keeps every column of EngineBins bins (allocated at
	// once); the result shows at most SeriesLines lines of each kind and
	// an "others" line (AllSeriesCost adds the rest)
	engineBins, bins, field := int64(EngineBins), int64(costSeriesBins), "ubbconfig"
	if sc.BinMS != nil {
		bins, field = max(4_000_000/max(cols, 1), 2*TargetBins), "bin_ms"
		engineBins = bins
	}
	engineBins, bins = min(engineBins, cellBins(cols)), min(bins, cellBins(cols))
	c.add(field, itoa64(engineBins)+" time-series bins × "+itoa64(cols)+" columns (queues, instances twice"+
		map[bool]string{true: ", MP counters", false: ""}[s.mp]+")", satMul(engineBins, cols), costPerCell)
	lines := s.shownLines(counters)
	c.add(field, itoa64(bins)+" time-series bins × "+itoa64(lines)+" lines of the result", satMul(bins, lines), costPerLineCell)
	if f, rows := traceRows(sc); rows > 0 {
		if sc.Workload.TraceCSV != "" {
			c.add(f, "the requests read ahead ("+itoa64(LookAheadRequests)+") and the reorder heap (at most "+itoa64(ReorderRows)+")",
				LookAheadRequests+ReorderRows, costPerHeldRow)
			if per := TraceRowCost(sc.Workload.TraceCSV, sc.Workload.Columns); per > 0 {
				c.add(f, itoa64(rows)+" trace rows' observed responses", rows, per)
			}
		} else {
			c.add(f, itoa64(rows)+" trace rows", rows, costPerRow)
		}
	}
	c.add("workload.trace_csv", "the trace's text", int64(len(sc.Workload.TraceCSV)), 1)
	appCost(&c, sc, s)
	return c
}

// shownLines is the number of lines of a result's series, summarised past
// SeriesLines lines of a kind (and the failures' lines).
func (s modelSize) shownLines(counters int64) int64 {
	kind := func(n int64) int64 {
		if n > SeriesLines {
			return SeriesLines + 1
		}
		return n
	}
	return kind(s.queues) + 2*kind(s.instances) + min(counters, SeriesLines) + 8
}

// AllSeriesCost is what a run of sc on m holds beyond RunCost when every
// line of its series is kept (RunOptions.AllSeries): the lines a summary
// leaves out.
func AllSeriesCost(sc *scenario.Scenario, m *ubb.Model) CostTerm {
	s := sizeOf(m)
	counters := int64(0)
	if s.mp {
		counters = s.machines * s.queues
	}
	cols := s.queues + 2*s.instances + 8 + counters
	bins := int64(costSeriesBins)
	if sc.BinMS != nil {
		bins = max(4_000_000/max(cols, 1), 2*TargetBins)
	}
	bins = min(bins, cellBins(cols))
	rest := max(cols-s.shownLines(counters), 0)
	return CostTerm{Field: "series", What: itoa64(bins) + " time-series bins × " + itoa64(rest) + " more lines (series all)",
		Bytes: satMul(satMul(bins, rest), costPerLineCell)}
}

// Measured bytes of a model's JSON as /validate and `tuxlb validate` print it.
const (
	jsonPerInstance = 400 // an instance's fields, indented
	jsonPerPair     = 14  // a service in an instance's list, indented, besides its name
	jsonPerQueue    = 150
	jsonPerService  = 200
	// jsonPeak is the peak over the JSON's size: the encoding, its
	// indented copy, and the buffers' growth.
	jsonPeak = 3
)

// ModelCost estimates what answering a model as JSON (/validate) holds at
// its peak: the model and its encoding, whose size grows with the names of
// every service of every instance.
func ModelCost(m *ubb.Model) Cost {
	var c Cost
	s := sizeOf(m)
	var names int64
	for i := range m.Servers {
		for _, name := range m.Servers[i].Services {
			names += int64(len(name))
		}
	}
	c.add("", "a model's fixed part", 1, costRunBase)
	c.add("ubbconfig", itoa64(s.instances)+" server instances, as JSON", s.instances, jsonPeak*jsonPerInstance+costPerInstance/4)
	c.add("ubbconfig", itoa64(s.instances)+" instances × "+itoa64(s.pairs/max(s.instances, 1))+" services each = "+
		itoa64(s.pairs)+" (instance, service) pairs of "+itoa64(names)+" bytes of names, as JSON",
		satMul(s.pairs, jsonPerPair)+names, jsonPeak)
	c.add("ubbconfig", itoa64(s.queues)+" queues, as JSON", s.queues+s.instances, jsonPeak*jsonPerQueue)
	c.add("ubbconfig", itoa64(int64(len(m.Services)))+" services, as JSON", int64(len(m.Services)), jsonPeak*jsonPerService)
	return c
}

// costPerCandidate is what one candidate of an explanation costs: its
// fields and its cost and note texts, and its JSON, indented, which the
// CLI and the server make of all the explanations at once (measured: about
// 800 bytes).
const costPerCandidate = 1 << 10

// ExplainCost estimates what explanations of requests requests of a run on
// m hold beyond the run (RunCost): each lists every candidate of its
// request's service (at most the instances that offer the service offered
// by the most), as values and as JSON. field names the input that asks for
// them ("--explain", "request").
func ExplainCost(m *ubb.Model, requests int64, field string) CostTerm {
	offering := map[string]int64{}
	most, busiest := int64(1), ""
	for i := range m.Servers {
		for _, svc := range m.Servers[i].Services {
			offering[svc]++
			if n := offering[svc]; n > most || n == most && svc < busiest {
				most, busiest = n, svc
			}
		}
	}
	what := itoa64(requests) + " explanations × " + itoa64(most) + " candidates each"
	if busiest != "" {
		what += " (the instances that offer " + busiest + ")"
	}
	return CostTerm{Field: field, What: what, Bytes: satMul(satMul(requests, most), costPerCandidate)}
}

// Measured bytes of a sweep's compiled point besides its trace: its copy
// of the scenario, its model and its plan.
const (
	costPointBase        = 32 << 10
	costPointPerInstance = 512
)

// SweepCost estimates what a sweep of sc (on its model m) with points
// points holds at its peak: every point compiled (points × the model and
// the trace), and workers runs at once. sweep.Cost counts a spec's points.
func SweepCost(sc *scenario.Scenario, m *ubb.Model, points int64, workers int) Cost {
	s := sizeOf(m)
	var c Cost
	per := costPointBase + costPointPerInstance*s.instances
	c.add("vary", itoa64(points)+" points × a model of "+itoa64(s.instances)+" instances", points, per)
	if f, rows := traceRows(sc); rows > 0 {
		per := int64(costPerRow)
		if sc.Workload.TraceCSV != "" {
			per = TraceRowCost(sc.Workload.TraceCSV, sc.Workload.Columns)
		}
		if per > 0 {
			c.add("vary", itoa64(points)+" points × "+itoa64(rows)+" trace rows (read for each point)"+" in "+f, satMul(points, rows), per)
		}
	}
	run := runCost(sc, s)
	w := int64(max(workers, 1))
	for _, t := range run.Terms {
		t.What = itoa64(w) + " runs at once × " + t.What
		t.Bytes = satMul(t.Bytes, w)
		c.Terms = append(c.Terms, t)
	}
	return c
}

// SizeText words a byte count for messages: "13.6 GiB", "292 MiB", "900 bytes".
func SizeText(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	f, u := float64(n)/1024, 0
	for f >= 1024 && u < len(units)-1 {
		f, u = f/1024, u+1
	}
	if f >= 100 {
		return strconv.FormatFloat(f, 'f', 0, 64) + " " + units[u]
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + units[u]
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
