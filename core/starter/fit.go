package starter

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/fit"
	"github.com/tuxlb/tuxlb/core/internal/capped"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/trace"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/ulog"
)

// FitSources are what `tuxlb fit` reads: a request log (Trace, read with
// Columns) or ULOG files, and optionally the UBBCONFIG (and DMCONFIG) whose
// names they are resolved against (a ULOG's host names map to LMIDs through
// *MACHINES).
type FitSources struct {
	Trace     *string
	TraceName string
	Columns   *scenario.TraceMap
	SkipBad   bool // skip the trace's unreadable rows, counted in the report's trace block
	ULOG      []ulog.File
	UBBConfig *string
	DMConfig  *string
	PSC       *string // a tmadmin psc listing: what servers that advertise at run time offer (Files.PSC)
	PSCPath   string  // the listing's name in warnings (Files.PSCPath)
	// BeforeUS, when above 0, fits from the log's first part only: the
	// trace's rows issued before it, the ULOG's lines stamped less than it
	// after the first (a hold-out window: the rest judges the model).
	BeforeUS int64
	// AtUS, when above 0, cuts the ULOG files at that instant instead (µs
	// since 1970, as their stamps: ulog.ReadCut): ForCalibration sets it.
	AtUS int64
	// ULOGZone is the zone of the ULOG files' stamps (their machines'
	// local time), where ForCalibration places the export's first row;
	// nil: the export's own (its trace map's tz).
	ULOGZone *trace.Zone
	// ULOGKeep is how many records of requests (spans, arrivals, starts)
	// the reading of the ULOG files keeps one by one, 0 for
	// ulog.DefaultKeep: past it, a long log's are thinned and counted by
	// minute (ulog.Options.Keep).
	ULOGKeep int
	notes    []string // what ForCalibration has to say, among the report's warnings
}

// Observes says whether a trace has an observed response column (its own,
// or one cols maps): what a calibration judges by. A header that cannot be
// read says yes: reading the trace reports it.
func Observes(text string, cols *scenario.TraceMap) bool {
	var c *trace.Columns
	if cols != nil {
		x := trace.Columns(*cols)
		c = &x
	}
	rd, err := trace.NewReader(text, c, trace.Options{}, &interned{})
	return err != nil || rd.Observed()
}

// ForCalibration is src as calibrate fits it, with the hold-out window
// beforeUS (0: none): from the ULOG files when there are any (the export
// is then only replayed), else from the export. With ULOG files and a
// dated export, the ULOG is cut at the export's first row plus beforeUS,
// the instant the judged rows start at, so that no execution the fit reads
// is judged; an export whose times are not dated leaves the ULOG's cut
// beforeUS after its own first line, with a warning.
func ForCalibration(src FitSources, beforeUS int64) (FitSources, error) {
	src.BeforeUS = beforeUS
	if len(src.ULOG) == 0 {
		return src, nil
	}
	export, cols, skip := src.Trace, src.Columns, src.SkipBad
	src.Trace, src.Columns, src.SkipBad = nil, nil, false
	if beforeUS <= 0 || export == nil {
		return src, nil
	}
	var c *trace.Columns
	if cols != nil {
		x := trace.Columns(*cols)
		c = &x
	}
	// the export's errors are the trace's (diag.Invalid keeps their
	// source), so that they name the export, not the UBBCONFIG
	rd, err := trace.NewReader(*export, c, trace.Options{SkipBad: skip}, &interned{})
	if err != nil {
		return src, diag.Invalid(err)
	}
	var r trace.Request
	if ok, err := rd.Next(&r); err != nil {
		return src, diag.Invalid(err)
	} else if !ok {
		return src, nil
	}
	if src.AtUS, _ = rd.StartIn(src.ULOGZone); src.AtUS > 0 {
		src.AtUS += beforeUS
	} else {
		src.notes = append(src.notes, "the export's times are not dated (offsets or times of day), so the hold-out cuts the ULOG "+
			"at its own first line plus the window and the export at its first row plus it: they meet only if the two logs start together")
	}
	return src, nil
}

// LoadULOGZone reads FitSources.ULOGZone from name (a tz database name
// such as Europe/Paris, an offset such as +01:00, or a POSIX TZ rule); its
// error starts with what (the flag or the option that named it).
func LoadULOGZone(what, name string) (*trace.Zone, error) {
	z, err := trace.LoadZone(name)
	if err != nil {
		return nil, diag.Errorf(diag.EINVALID, "%s: %s", what, strings.TrimPrefix(err.Error(), "workload.columns.tz: "))
	}
	return z, nil
}

// FitReport is what a log says of each service, fitted (docs/fit.md).
type FitReport struct {
	Source    string                    `json:"source"` // "trace" or "ulog"
	Criterion string                    `json:"criterion"`
	Services  map[string]*ServiceReport `json:"services"`
	Arrivals  Arrivals                  `json:"arrivals"`
	ULOG      *ULOGSummary              `json:"ulog,omitempty"`
	Trace     *TraceRead                `json:"trace,omitempty"` // the rows read and skipped, and how each column was read, from a trace
	// From a ULOG: what each server process ran ("host!NAME"), what the
	// UBBCONFIG's servers without -s advertise by it, the remote domains'
	// response times and the network latency (fitmeasured.go).
	Servers   map[string][]string       `json:"servers,omitempty"`
	Advertise map[string][]string       `json:"advertise,omitempty"`
	Domains   map[string]*ServiceReport `json:"domains,omitempty"`
	Network   *NetworkReport            `json:"network,omitempty"`
	// Figures says, for each figure of the scenario --out writes, whether
	// the log measured it or the starter guessed it.
	Figures  []Figure `json:"figures,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// ServiceReport is one service's measured time, its fit and, from a ULOG,
// its executions and nested calls.
type ServiceReport struct {
	Samples int      `json:"samples"`
	MeanMS  *float64 `json:"mean_ms,omitempty"`
	SDMS    *float64 `json:"sd_ms,omitempty"`
	// MeanCIMS is the mean's 95% interval (fit.Result's).
	MeanCIMS *[2]float64 `json:"mean_ci_ms,omitempty"`
	// ResolutionMS is the grid the samples were fitted on: 1 when every
	// sample is a whole millisecond (a ULOG's, or such a trace's), omitted
	// when they were fitted as exact values (docs/fit.md).
	ResolutionMS *float64            `json:"resolution_ms,omitempty"`
	Fit          *scenario.Dist      `json:"fit,omitempty"`
	KS           *float64            `json:"ks,omitempty"`
	Choice       string              `json:"choice,omitempty"`
	Candidates   []fit.Candidate     `json:"candidates,omitempty"`
	Executions   int                 `json:"executions,omitempty"`
	Calls        []scenario.CallStep `json:"calls,omitempty"`
	// Commits and CommitMeanMS are, from a ULOG, the tpcommits inside its
	// executions (an AUTOTRAN commit at tpreturn) and their mean span: time
	// waiting for the TMS servers, left out of its samples.
	Commits      int      `json:"commits,omitempty"`
	CommitMeanMS *float64 `json:"commit_mean_ms,omitempty"`
	// Failed counts, from a ULOG, the calls to it that returned -1, by
	// tperrno; TPFail its executions that ended in tpreturn(TPFAIL).
	Failed map[string]int `json:"failed,omitempty"`
	TPFail int            `json:"tpfail,omitempty"`
}

// Arrivals are the requests that came from outside the measured services:
// each service's rate over the log's span, per origin, and per hour when
// the log spans more than one.
type Arrivals struct {
	SpanS    float64                     `json:"span_s"`
	Start    string                      `json:"start,omitempty"` // a ULOG's first line (UTC as written)
	Services map[string]*ServiceArrivals `json:"services"`
}

// ServiceArrivals is one service's arrivals.
type ServiceArrivals struct {
	RatePerS float64            `json:"rate_per_s"`
	Origins  map[string]float64 `json:"origins"` // LMID (or an unmapped host) -> requests per second
	Hourly   []HourRate         `json:"hourly,omitempty"`
}

// HourRate is the rate of one hour of the log, counted from its start.
type HourRate struct {
	Hour     int     `json:"hour"`
	From     string  `json:"from,omitempty"` // hh:mm, for a ULOG
	RatePerS float64 `json:"rate_per_s"`
	// gapS is how much of the hour a missing day takes, lengthS what is
	// left: its stretch of the scenario's profile.
	gapS, lengthS float64
}

// ULOGSummary counts what the ULOG files held.
type ULOGSummary struct {
	Files             int      `json:"files"`
	Lines             int      `json:"lines"`
	TraceLines        int      `json:"trace_lines"`
	Malformed         int      `json:"malformed"`
	MalformedExamples []string `json:"malformed_examples,omitempty"`
	Ignored           int      `json:"ignored"` // TRACE lines of another category than at
	Milliseconds      bool     `json:"milliseconds"`
}

// Criterion is how a fit is chosen, as the report states it.
const Criterion = "smallest Kolmogorov–Smirnov distance (KS) among exp, erlang, gamma, hyperexp and lognormal; " +
	"a simpler family (in that order) within max(0.005, 0.5/√n) of the best is preferred; " +
	"when the chosen one is farther than max(0.03, 1.63/√n), the empirical distribution (at most 1000 points)"

// CriterionGrid is what Criterion adds when some service's samples are all
// whole milliseconds and were fitted as such ([fit.FitWith]).
const CriterionGrid = "; samples all in whole milliseconds (differences of millisecond stamps) are fitted as such: " +
	"each family by the likelihood of its durations as the stamps would show them, the distance between the samples' and that " +
	"rounded distribution's functions on the millisecond grid, the empirical's points spread within their millisecond"

// resolutionUS is the grid of a ULOG's millisecond stamps, and of a trace
// whose service times are all whole milliseconds.
const resolutionUS = 1000

// arrival is one request from outside, for the rates: its time, its
// weight and its stream (arrivals.streams), a number where the service's
// and the origin's names would take four times the room: a long log has
// millions.
type arrival struct {
	us     int64
	w      float64
	stream int32
}

// stream is a service's requests from one origin.
type stream struct{ svc, origin string }

// arrivals are the requests from outside, in the log's order, and the
// streams they name.
type arrivals struct {
	at      []arrival
	streams []stream
	ids     map[stream]int32
	// the first and last arrival's times when at are minutes' counts
	// (firstUS < lastUS), else found in at
	firstUS, lastUS int64
	// the streams with executions no traced process called, weighted
	inferred map[int32]bool
}

// add notes a request of svc from origin at us, of weight w.
func (a *arrivals) add(us int64, svc, origin string, w float64) {
	k := stream{svc, origin}
	id, ok := a.ids[k]
	if !ok {
		if a.ids == nil {
			a.ids = map[stream]int32{}
		}
		id = int32(len(a.streams))
		a.streams = append(a.streams, k)
		a.ids[k] = id
	}
	a.at = append(a.at, arrival{us: us, w: w, stream: id})
}

// Fit reads src's log and fits each service's times (fit.Fit).
func Fit(src FitSources) (*FitReport, error) {
	var m *core.Model
	var pscWarn []string
	if src.UBBConfig != nil {
		var err error
		if m, _, pscWarn, err = loadFiles(Files{UBBConfig: src.UBBConfig, DMConfig: src.DMConfig, PSC: src.PSC, PSCPath: src.PSCPath}); err != nil {
			return nil, err
		}
		if src.Trace != nil {
			if err := checkOffered(m); err != nil {
				return nil, err // else every row would name an unknown service
			}
		}
	}
	rep := &FitReport{Criterion: Criterion, Services: map[string]*ServiceReport{}, Warnings: append(pscWarn, src.notes...)}
	samples := map[string][]float64{}
	spans := map[string][]int{} // a ULOG's: the differences of stamps each sample sums
	var arr arrivals
	var startUS int64
	var gaps [][2]int64 // a ULOG's days without a file
	switch {
	case src.Trace != nil && len(src.ULOG) > 0:
		return nil, diag.FieldErrorf("fit", "give a trace or ULOG files, not both")
	case src.Trace != nil:
		rep.Source = "trace"
		if strings.TrimSpace(*src.Trace) == "" {
			return nil, diag.FieldErrorf("trace", "the file is empty (want a CSV header and rows)")
		}
		var err error
		if arr, err = fitTrace(m, src, rep, samples); err != nil {
			return nil, err
		}
	case len(src.ULOG) > 0:
		rep.Source = "ulog"
		lg, err := ulog.ReadWith(src.ULOG, ulog.Options{BeforeUS: src.BeforeUS, AtUS: src.AtUS, Keep: src.ULOGKeep})
		if err != nil {
			e := diag.Invalid(err)
			e.Diagnostics = []diag.Diagnostic{{Source: diag.SourceULOG, Severity: diag.SeverityError, Message: err.Error()}}
			return nil, e
		}
		if len(lg.Services) > maxFitNames {
			return nil, diag.InSource(diag.FieldErrorf("ulog", "%s: the files name %d distinct services, more than the %d a fit takes",
				ulog.Names(src.ULOG), len(lg.Services), maxFitNames), diag.SourceULOG)
		}
		lmid := hostLMIDs(m, rep)
		if m != nil {
			// what servers without -s ran makes their services known
			// before they are fitted
			if seen := advertiseFromLog(m, lg, rep, lmid); len(seen) > 0 {
				var w []string
				if m, _, w, err = loadFiles(Files{UBBConfig: src.UBBConfig, DMConfig: src.DMConfig, PSC: src.PSC, PSCPath: src.PSCPath, Advertised: seen}); err != nil {
					return nil, err
				}
				rep.Warnings = append(rep.Warnings, slices.DeleteFunc(w, func(x string) bool { return slices.Contains(rep.Warnings, x) })...)
			}
		}
		arr = fitULOG(m, lg, rep, samples, spans, lmid)
		measureULOG(m, lg, rep, lmid)
		startUS, gaps = lg.FirstUS, lg.Gaps
	default:
		return nil, diag.FieldErrorf("fit", "want a trace or ULOG files")
	}
	names := make([]string, 0, len(rep.Services))
	for name := range rep.Services {
		names = append(names, name)
	}
	slices.Sort(names)
	grid := false
	for _, name := range names {
		sr := rep.Services[name]
		r := fit.FitWith(samples[name], fit.Options{ResolutionUS: resolutionUS, Spans: spans[name]})
		if r == nil {
			continue
		}
		sr.Samples = r.Samples
		sr.MeanMS, sr.SDMS, sr.MeanCIMS, sr.KS = ptr(r.MeanMS), ptr(r.SDMS), r.MeanCIMS, ptr(r.KS)
		sr.Fit, sr.Choice, sr.Candidates = toCore(r.Fit), r.Choice, r.Candidates
		if r.ResolutionMS > 0 {
			sr.ResolutionMS, grid = ptr(r.ResolutionMS), true
		}
		if r.Warning != "" {
			rep.Warnings = append(rep.Warnings, name+": "+r.Warning)
		}
	}
	for _, dr := range rep.Domains {
		grid = grid || dr.ResolutionMS != nil
	}
	if grid {
		rep.Criterion += CriterionGrid
	}
	rep.Arrivals = rates(arr, rep.Source == "ulog", startUS, gaps)
	if rep.Source == "ulog" {
		rep.Warnings = append(rep.Warnings, uncommitted(m, rep)...)
	}
	rep.Figures = figures(m, rep, arr)
	return rep, nil
}

// toCore is a fit as the scenario's distribution.
func toCore(d *fit.Dist) *scenario.Dist {
	return &scenario.Dist{Dist: d.Dist, MS: d.MS, MeanMS: d.MeanMS, SDMS: d.SDMS, Shape: d.Shape, K: d.K, SamplesMS: d.SamplesMS}
}

// interned resolves any name, for a log read without a UBBCONFIG: each
// name is numbered in the order first seen, found again by a map (a
// search of the names seen made reading a log of n distinct names take
// n² comparisons: 35 s for 80 000).
type interned struct {
	services, origins nameList
}

// nameList is names numbered in the order first seen.
type nameList struct {
	names []string
	index map[string]int
	// probes counts the names looked at to resolve one (the map's one
	// lookup per name): the tests' measure of the reading's work.
	probes int64
}

// maxFitNames bounds the distinct service names, and the origins, that a
// log read for a fit may hold: each service holds about 8 KB while fitted,
// and an application has far fewer (a log of more names has its service
// column wrong).
const maxFitNames = 20_000

func (n *interned) Service(name string) (int, string) {
	if name == "" {
		return 0, "empty service name"
	}
	if len(n.services.names) >= maxFitNames && !n.services.has(name) {
		return 0, fmt.Sprintf("more than %d distinct services: is this column the services' (--trace-map 'service=COLUMN')?", maxFitNames)
	}
	return n.services.intern(name), ""
}

func (n *interned) Origin(lmid string) (int, string) {
	if len(n.origins.names) >= maxFitNames && !n.origins.has(lmid) {
		return 0, fmt.Sprintf("more than %d distinct origins: is this column the origins' (--trace-map 'origin=COLUMN')?", maxFitNames)
	}
	return n.origins.intern(lmid), ""
}

func (n *interned) Untimed(int) string { return "" }

// Enqueue refuses an enqueue: without a UBBCONFIG there is no queue space.
func (n *interned) Enqueue(target string) (int, int32, string) {
	return 0, 0, fmt.Sprintf("%q: an enqueue needs the UBBCONFIG's queue spaces", capped.Text(target))
}

func (l *nameList) has(s string) bool {
	_, ok := l.index[s]
	return ok
}

func (l *nameList) intern(s string) int {
	l.probes++
	if i, ok := l.index[s]; ok {
		return i
	}
	if l.index == nil {
		l.index = map[string]int{}
	}
	l.index[s] = len(l.names)
	l.names = append(l.names, s)
	return len(l.names) - 1
}

func fitTrace(m *core.Model, src FitSources, rep *FitReport, samples map[string][]float64) (arrivals, error) {
	var cols *trace.Columns
	if src.Columns != nil {
		c := trace.Columns(*src.Columns)
		cols = &c
	}
	var res trace.Resolver
	in := &interned{}
	svcName := func(i int) string { return in.services.names[i] }
	origName := func(i int) string {
		if in.origins.names[i] == "" {
			return "(default)"
		}
		return in.origins.names[i]
	}
	if m != nil {
		res = trace.NewNames(m)
		svcName = func(i int) string { return m.Services[i].Name }
		origName = func(i int) string { return m.Machines[i].LMID }
	} else {
		res = in
	}
	var arr arrivals
	timed := 0
	info, err := trace.Read(*src.Trace, cols, trace.Options{SkipBad: src.SkipBad}, res, func(r *trace.Request) {
		if src.BeforeUS > 0 && r.TimeUS >= src.BeforeUS {
			return // held out: the rows after it judge the model
		}
		if r.Status == trace.StatusNotSent {
			return // never reached a server (TPENOENT...): no arrival, as a ULOG's refused calls are none
		}
		name := svcName(r.Service)
		if rep.Services[name] == nil {
			rep.Services[name] = &ServiceReport{}
		}
		if r.ServiceUS >= 0 {
			samples[name] = append(samples[name], float64(r.ServiceUS)/1000)
			timed++
		}
		arr.add(r.TimeUS, name, origName(r.Origin), 1)
	})
	if err != nil {
		return arrivals{}, diag.Invalid(err)
	}
	if len(arr.at) == 0 {
		return arrivals{}, traceProblem("no rows after the header")
	}
	rep.Trace = &TraceRead{Rows: info.Rows, Skipped: info.Skipped, SkippedExamples: slices.Clone(info.Examples), Columns: info.Columns}
	if rep.Trace.SkippedExamples == nil {
		rep.Trace.SkippedExamples = []string{}
	}
	if info.Skipped > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d unreadable rows of the trace skipped (trace.skipped_examples)", info.Skipped))
	}
	rep.Warnings = append(rep.Warnings, responseColumns(info.Columns, timed > 0, src.Columns)...)
	if timed == 0 {
		rep.Warnings = append(rep.Warnings, "the trace has no service time column (service_ms, or one mapped with --trace-map service_ms=COLUMN): only rates are measured")
	}
	return arr, nil
}

func fitULOG(m *core.Model, lg *ulog.Log, rep *FitReport, samples map[string][]float64, spans map[string][]int, lmid func(string) string) arrivals {
	rep.ULOG = &ULOGSummary{Files: lg.Files, Lines: lg.Lines, TraceLines: lg.TraceLines, Malformed: lg.Malformed,
		MalformedExamples: lg.MalformedExamples, Ignored: lg.Ignored, Milliseconds: lg.Millis}
	rep.Warnings = append(rep.Warnings, lg.Warnings...)
	if lg.Malformed > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d malformed TRACE lines skipped (ulog.malformed_examples)", lg.Malformed))
	}
	names := make([]string, 0, len(lg.Services))
	for n := range lg.Services {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		s := lg.Services[n]
		if m != nil && m.Service(n) == nil {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: not a service of the UBBCONFIG", n))
		}
		sr := &ServiceReport{Executions: s.Executions}
		for _, st := range s.Calls {
			cs := scenario.CallStep{Service: st.Service, Mode: st.Mode, NoReply: st.NoReply}
			if st.Mode == "tpenqueue" {
				cs = scenario.CallStep{Enqueue: st.Service} // a /Q enqueue: a tpcall of the queue space
			}
			if p := math.Round(st.P*1000) / 1000; p < 1 {
				cs.P = ptr(max(p, 0.001))
			}
			sr.Calls = append(sr.Calls, cs)
		}
		if s.Commits > 0 {
			sr.Commits = s.Commits
			sr.CommitMeanMS = ptr(math.Round(float64(s.CommitUS)/float64(s.Commits)) / 1000)
		}
		sr.Failed, sr.TPFail = s.Failed, s.TPFail
		if s.Conversations > 0 && len(s.OwnUS) > 0 {
			var sum int64
			for _, us := range s.OwnUS {
				sum += us
			}
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: conversational (%d of its %d executions send or receive on their caller's connection): "+
				"its time is the whole conversation, from tpservice to tpreturn, %.3g ms on average, of which %.3g ms waiting in tprecv for the other side; "+
				"that is how long it holds its server, and the simulation plays it as one request of that time (a caller's tpconnect is a tpcall step or an arrival); "+
				"the conversation's messages are not modelled",
				n, s.Conversations, s.Executions, float64(sum)/float64(len(s.OwnUS))/1000, float64(s.ConvRecvUS)/float64(s.Conversations)/1000))
		}
		if w := failedWarning(n, s); w != "" {
			rep.Warnings = append(rep.Warnings, w)
		}
		rep.Services[n] = sr
		if len(s.OwnUS) > 0 {
			samples[n] = make([]float64, len(s.OwnUS))
			for i, us := range s.OwnUS {
				samples[n][i] = float64(us) / 1000
			}
		}
		spans[n] = s.OwnSpans
		if s.Timed > len(s.OwnUS) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %d executions timed: its service time is fitted on a uniform sample of %d of them",
				n, s.Timed, len(s.OwnUS)))
		}
		s.OwnUS = nil // the samples hold them: a long log's are much of what it holds
	}
	arr := arrivals{at: make([]arrival, 0, len(lg.Arrivals)), inferred: map[int32]bool{}}
	for _, a := range lg.Arrivals {
		arr.add(a.TimeUS, lg.Name(a.Service), lmid(lg.Name(a.Host)), a.Weight)
		if lg.Inferred[[2]ulog.Name{a.Service, a.Host}] {
			arr.inferred[arr.at[len(arr.at)-1].stream] = true
		}
	}
	if lg.ArrivalsBinned && len(arr.at) > 0 {
		arr.firstUS, arr.lastUS = lg.ArrivalsFirstUS, lg.ArrivalsLastUS
		w := fmt.Sprintf("a long log: past %d records of its requests kept one by one, the arrivals are counted by minute "+
			"(an hour's rate takes the minutes at its edges as of the hour they start in)", lg.Keep)
		if lg.KeptOneIn > 1 {
			w += fmt.Sprintf(", and the network's latency is measured on the calls and executions that started in one second in %d", lg.KeptOneIn)
		}
		rep.Warnings = append(rep.Warnings, w)
	}
	lg.Arrivals = nil // arr holds them
	return arr
}

// failedWarning says what the fit did with the failed calls to s and its
// executions that returned TPFAIL: "" when there were none.
func failedWarning(name string, s *ulog.Service) string {
	if len(s.Failed) == 0 && s.TPFail == 0 {
		return ""
	}
	errs := make([]string, 0, len(s.Failed))
	for e := range s.Failed {
		errs = append(errs, e)
	}
	slices.Sort(errs)
	var all, lost []string
	total, notRun := 0, 0
	for _, e := range errs {
		all = append(all, fmt.Sprintf("%s %d", e, s.Failed[e]))
		total += s.Failed[e]
		if ulog.Undelivered(e) {
			lost = append(lost, e)
			notRun += s.Failed[e]
		}
	}
	var parts []string
	if total > 0 {
		parts = append(parts, fmt.Sprintf("%d calls failed (%s)", total, strings.Join(all, ", ")))
	}
	if notRun > 0 {
		parts = append(parts, fmt.Sprintf("the %d that never reached a server (%s) are not counted as arrivals or calls", notRun, strings.Join(lost, ", ")))
	}
	if s.TPFail > 0 {
		parts = append(parts, fmt.Sprintf("%d of its %d executions returned TPFAIL", s.TPFail, s.Executions))
	}
	s2 := fmt.Sprintf("%s: %s; the executions that ran are counted and timed whatever their outcome (the simulation plays them as successes)", name, strings.Join(parts, "; "))
	if total > 0 {
		// an export's rows are each a request, and their responses judged
		// unless its status column says they failed
		s2 += "; an export replayed beside them needs a status column (status, result, rc, tperrno...; or status=COLUMN) " +
			"for its failed requests' responses to be left out of the validation"
	}
	return s2
}

// cutStep is a call step breakCycles left out: the callee's executions it
// caused, per second.
type cutStep struct {
	callee string
	rate   float64
}

// breakCycles leaves out of sc the steps that close a cycle of calls (R
// calls S, which calls R: a scenario's calls form no cycle, and a run
// refuses one), in the order of the services' names and their steps, and
// returns them with the rate of the callee's executions each caused (the
// caller's executions a second times the step's p), which the caller's
// stream replaces, and a warning for each.
func breakCycles(sc *scenario.Scenario, r *FitReport) ([]cutStep, []string) {
	names := make([]string, 0, len(sc.Services))
	for n := range sc.Services {
		names = append(names, n)
	}
	slices.Sort(names)
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var cut []cutStep
	var warn []string
	var path []string
	var visit func(n string)
	visit = func(n string) {
		color[n] = grey
		path = append(path, n)
		spec := sc.Services[n]
		kept := spec.Calls[:0:0]
		for _, c := range spec.Calls {
			if c.Service == "" { // an enqueue
				kept = append(kept, c)
				continue
			}
			switch color[c.Service] {
			case grey:
				p := 1.0
				if c.P != nil {
					p = *c.P
				}
				rate := 0.0
				if sr := r.Services[n]; sr != nil && r.Arrivals.SpanS > 0 {
					rate = float64(sr.Executions) * p / r.Arrivals.SpanS
				}
				cycle := append(slices.Clone(path[slices.Index(path, c.Service):]), c.Service)
				mode := c.Mode
				if mode == "" {
					mode = "tpcall"
				}
				cut = append(cut, cutStep{callee: c.Service, rate: rate})
				warn = append(warn, fmt.Sprintf("%s: its %s of %s closes a cycle of calls (%s), which a run refuses: that step is left out, "+
					"and the executions of %s it caused are a stream of their own (%.3g a second, from the default origin); "+
					"%s no longer waits for them", n, mode, c.Service, strings.Join(cycle, " -> "), c.Service, round3(rate), n))
				continue
			case white:
				if _, ok := sc.Services[c.Service]; ok {
					visit(c.Service)
				}
			}
			kept = append(kept, c)
		}
		if len(kept) != len(spec.Calls) {
			spec.Calls = kept
			sc.Services[n] = spec
		}
		path = path[:len(path)-1]
		color[n] = black
	}
	for _, n := range names {
		if color[n] == white {
			visit(n)
		}
	}
	return cut, warn
}

// hourUS is an hour in microseconds.
const hourUS = 3600 * 1e6

// rates are the arrivals per service and origin over the span of arr (at
// least a second), and per hour when the span is longer than one.
//
// gaps are stretches [from, to) the log does not cover (a ULOG's days
// without a file): they are taken out of the span, and an hour they cover
// whole has no rate.
func rates(arr arrivals, absolute bool, startUS int64, gaps [][2]int64) Arrivals {
	out := Arrivals{Services: map[string]*ServiceArrivals{}}
	if len(arr.at) == 0 {
		return out
	}
	first, last := arr.at[0].us, arr.at[0].us
	for _, a := range arr.at {
		first, last = min(first, a.us), max(last, a.us)
	}
	if arr.firstUS < arr.lastUS { // minutes' counts
		first, last = arr.firstUS, arr.lastUS
	}
	spanUS := max(last-first, 1e6)
	// uncovered is how much of [a, b) the gaps hold
	uncovered := func(a, b int64) int64 {
		var n int64
		for _, g := range gaps {
			n += max(0, min(b, g[1])-max(a, g[0]))
		}
		return n
	}
	coveredUS := max(spanUS-uncovered(first, first+spanUS), 1e6)
	out.SpanS = roundToUS(float64(coveredUS)/1e6*1000) / 1000
	if absolute {
		out.Start = time.UnixMicro(startUS).UTC().Format("2006-01-02T15:04:05.000Z")
	}
	hours := int((spanUS + hourUS - 1) / hourUS)
	// each stream's sums (its service's, its origin's, its service's
	// hours), found once: the arrivals add to them in their order
	counts := map[string]*float64{}
	origins := map[string]map[string]*float64{}
	hourly := map[string][]float64{}
	type sums struct {
		count, origin *float64
		hourly        []float64
	}
	of := make([]sums, len(arr.streams))
	for i, st := range arr.streams {
		if counts[st.svc] == nil {
			counts[st.svc], origins[st.svc], hourly[st.svc] = new(float64), map[string]*float64{}, make([]float64, hours)
		}
		o := new(float64)
		origins[st.svc][st.origin] = o
		of[i] = sums{counts[st.svc], o, hourly[st.svc]}
	}
	for _, a := range arr.at {
		s := &of[a.stream]
		*s.count += a.w
		*s.origin += a.w
		s.hourly[min(int((a.us-first)/hourUS), hours-1)] += a.w
	}
	spanS := float64(coveredUS) / 1e6
	for svc, n := range counts {
		sa := &ServiceArrivals{RatePerS: round3(*n / spanS), Origins: map[string]float64{}}
		for o, c := range origins[svc] {
			sa.Origins[o] = round3(*c / spanS)
		}
		if hours > 1 {
			for h, c := range hourly[svc] {
				from := first + int64(h)*hourUS
				to := min(first+spanUS, from+hourUS)
				gap := uncovered(from, to)
				length := float64(to-from-gap) / 1e6
				if length < 1 && gap > 0 {
					continue // a missing day's hour: no rate
				}
				hr := HourRate{Hour: h, RatePerS: round3(c / max(length, 1)), gapS: float64(gap) / 1e6, lengthS: length}
				if absolute {
					hr.From = time.UnixMicro(first + int64(h)*hourUS).UTC().Format("15:04")
				}
				sa.Hourly = append(sa.Hourly, hr)
			}
		}
		out.Services[svc] = sa
	}
	return out
}

// FromFit makes a complete scenario from f's UBBCONFIG (New's starter)
// with what the report measured: each fitted service's service_time and
// calls, and streams at its arrival rates per origin (an hourly profile when
// it has one) over the log's span. Routed services draw their values from
// the trace's routing column when it has one, else from their RANGES; a
// call to a routed service draws them too, unless its caller is routed on
// the same FIELD (it then inherits the caller's value). It returns the
// scenario and what it had to leave out.
func FromFit(f Files, r *FitReport) (*scenario.Scenario, []string, error) {
	f.Advertised = append(slices.Clip(f.Advertised), advertisedOf(r.Advertise)...)
	sc, ts, warn, err := buildAll(f, false)
	if err != nil {
		return nil, nil, err
	}
	warn = slices.DeleteFunc(warn, func(w string) bool { return slices.Contains(r.Warnings, w) }) // said by the report already
	if r.Source == "ulog" && ts != nil {
		// fitted from the ULOG, the export is only replayed (calibrate):
		// what its columns would give as service times is beside the point,
		// and mapping one, as that warning advises, would change nothing
		cols := responseColumns(ts.columns, len(ts.svcN) > 0, f.Columns)
		warn = slices.DeleteFunc(warn, func(w string) bool { return slices.Contains(cols, w) })
	}
	m, err := core.LoadModel(ubb.Input{UBBName: "ubbconfig", UBBConfig: sc.UBBConfig, DMName: "dmconfig", DMConfig: sc.DMConfig, Advertise: sc.Advertise})
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, 0, len(r.Services))
	for n := range r.Services {
		names = append(names, n)
	}
	slices.Sort(names)
	qs := newQSpaces(m)
	for _, n := range names {
		sr := r.Services[n]
		spec, ok := sc.Services[n]
		if svc := m.Service(n); !ok && svc != nil && svc.Remote != nil {
			continue // imported: its callers' spans are its domain's response time
		}
		if !ok && m.QSpaceIndex(n) >= 0 {
			qs.time(n, sr.Fit) // a TMQUEUE's executions: the queue space's time per enqueue
			continue
		}
		if !ok {
			warn = append(warn, fmt.Sprintf("%s: no local server of the UBBCONFIG offers it: its fit is left out", n))
			continue
		}
		if sr.Fit != nil {
			spec.ServiceTime = sr.Fit
		} else {
			warn = append(warn, fmt.Sprintf("%s: no service times measured: it keeps the starter's exponential of mean %g ms", n, defaultServiceMS))
		}
		for _, c := range sr.Calls {
			if c.Enqueue != "" {
				if why := qs.add(c.Enqueue); why != "" {
					warn = append(warn, fmt.Sprintf("%s: enqueues to %s, %s: that step is left out", n, c.Enqueue, why))
					continue
				}
			} else if m.Service(c.Service) == nil {
				warn = append(warn, fmt.Sprintf("%s: calls %s, which the UBBCONFIG does not know: that call is left out", n, c.Service))
				continue
			}
			spec.Calls = append(spec.Calls, c)
		}
		sc.Services[n] = spec
	}
	var absent []string // local services the log never mentions: they keep the starter's time too
	for n := range sc.Services {
		if r.Services[n] == nil {
			absent = append(absent, n)
		}
	}
	if len(absent) > 0 {
		slices.Sort(absent)
		list := strings.Join(absent, ", ")
		if len(absent) > 8 {
			list = fmt.Sprintf("%s and %d more", strings.Join(absent[:8], ", "), len(absent)-8)
		}
		what := fmt.Sprintf("%d services not in the log keep", len(absent))
		if len(absent) == 1 {
			what = "a service not in the log keeps"
		}
		warn = append(warn, fmt.Sprintf("%s the starter's exponential of mean %g ms (figures): %s", what, defaultServiceMS, list))
	}
	cut, w := breakCycles(sc, r)
	warn = append(warn, w...)
	rs := routeSource{m: m}
	if ts != nil {
		rs.traced = ts.routes
	}
	routeCalls(sc, rs)
	g := &scenario.Generator{DurationMS: roundToUS(max(r.Arrivals.SpanS*1000, 1000))}
	origin := defaultOrigin(m)
	svcs := make([]string, 0, len(r.Arrivals.Services))
	for n := range r.Arrivals.Services {
		svcs = append(svcs, n)
	}
	slices.Sort(svcs)
	for _, n := range svcs {
		enqueue := strings.Contains(n, ":") // a client's tpenqueue, QSPACE:QNAME
		if enqueue {
			if why := qs.add(n); why != "" {
				warn = append(warn, fmt.Sprintf("enqueues to %s, %s, are left out", n, why))
				continue
			}
		} else if m.Service(n) == nil {
			warn = append(warn, fmt.Sprintf("%s: arrivals of a service the UBBCONFIG does not know are left out", n))
			continue
		}
		sa := r.Arrivals.Services[n]
		route := rs.stream(n)
		ors := make([]string, 0, len(sa.Origins))
		for o := range sa.Origins {
			ors = append(ors, o)
		}
		slices.Sort(ors)
		merged := map[string]float64{}
		var order []string
		for _, o := range ors {
			lm := o
			if m.MachineIndex(o) < 0 {
				lm = origin
			}
			if _, ok := merged[lm]; !ok {
				order = append(order, lm)
			}
			merged[lm] += sa.Origins[o]
		}
		for _, o := range order {
			st := scenario.Stream{Service: n, Origin: o, Arrivals: "poisson", Route: route}
			if enqueue {
				st.Service, st.Enqueue, st.Route = "", n, nil
			}
			share := merged[o] / max(sa.RatePerS, 1e-9)
			if len(sa.Hourly) > 1 {
				// the hours one after the other: an hour a missing day
				// cut short is as long as the part the log covers, and
				// the missing day's own hours are not there
				at := 0.0
				for _, h := range sa.Hourly {
					rate := round3(h.RatePerS * share)
					end := min(at+3600000, g.DurationMS)
					if h.gapS > 0 {
						end = min(roundToUS(at+h.lengthS*1000), g.DurationMS)
					}
					st.Profile = append(st.Profile, scenario.RatePoint{AtMS: at, RatePerS: rate}, scenario.RatePoint{AtMS: end, RatePerS: rate})
					at = end
				}
			} else {
				st.RatePerS = max(round3(merged[o]), 0.001)
			}
			g.Streams = append(g.Streams, st)
		}
	}
	for _, c := range cut {
		// the executions the cut step caused: a stream of their own
		if rate := round3(c.rate); rate > 0 {
			g.Streams = append(g.Streams, scenario.Stream{Service: c.callee, Origin: origin, Arrivals: "poisson", RatePerS: rate, Route: rs.stream(c.callee)})
		}
	}
	warn = append(warn, qs.into(sc)...)
	if w := tmsGuessed(m, sc, r); w != "" {
		warn = append(warn, w)
	}
	applyMeasured(sc, r)
	if sc.Network == nil && len(m.Machines) > 1 && r.Source == "trace" {
		// the figures say it too, but a request log's replay (calibrate)
		// shows no figures, and 0 shortens every crossing request
		warn = append(warn, fmt.Sprintf("network.latency_ms: a request log does not measure it, so the scenario has none between its %d machines "+
			"(a request that crosses them waits for no network): set network.latency_ms, or fit from ULOG files, which measure it", len(m.Machines)))
	}
	if len(g.Streams) > 0 {
		sc.Workload.Generate = g
	} else {
		warn = append(warn, "no arrivals measured: the starter's streams are kept")
	}
	ubbName := f.UBBName
	if ubbName == "" {
		ubbName = "the UBBCONFIG"
	}
	sc.Name = fmt.Sprintf("%s with service times, calls and rates fitted from a %s (see docs/fit.md)", ubbName, map[string]string{"trace": "request log", "ulog": "ULOG"}[r.Source])
	return sc, warn, nil
}

// qspaceSet gathers the /Q queues a fitted scenario needs: those its
// enqueues name and those the configuration's TMQFORWARD servers read.
type qspaceSet struct {
	m      *core.Model
	queues map[string]map[string]bool // queue space -> queue
	times  map[string]*scenario.Dist  // queue space -> its TMQUEUE's fitted time per enqueue
}

func newQSpaces(m *core.Model) *qspaceSet {
	return &qspaceSet{m: m, queues: map[string]map[string]bool{}, times: map[string]*scenario.Dist{}}
}

// time notes a queue space's fitted time (its TMQUEUE's executions), nil
// when the log has no times.
func (q *qspaceSet) time(space string, d *scenario.Dist) { q.times[space] = d }

// add notes the queue of an enqueue "QSPACE:QNAME", or says why it cannot
// be one (no TMQUEUE advertises the queue space).
func (q *qspaceSet) add(target string) string {
	space, queue, _ := strings.Cut(target, ":")
	if q.m.QSpaceIndex(space) < 0 {
		return fmt.Sprintf("a queue space no TMQUEUE of the UBBCONFIG advertises (CLOPT \"-s %s:TMQUEUE\")", space)
	}
	if q.queues[space] == nil {
		q.queues[space] = map[string]bool{}
	}
	q.queues[space][queue] = true
	return ""
}

// into writes the queue spaces into sc when the log enqueued, adding every
// queue a TMQFORWARD reads (to the queue space an enqueue named it in, else
// the first the configuration has), and says what the ULOG cannot tell.
func (q *qspaceSet) into(sc *scenario.Scenario) []string {
	if len(q.queues) == 0 {
		return nil
	}
	for _, f := range q.m.Forwarders {
		for _, queue := range f.Queues {
			found := false
			for _, qs := range q.queues {
				found = found || qs[queue]
			}
			if !found {
				q.add(q.m.QSpaces[0].Name + ":" + queue)
			}
		}
	}
	sc.QSpaces = map[string]scenario.QSpaceSpec{}
	var names []string
	for space, queues := range q.queues {
		spec := scenario.QSpaceSpec{Queues: map[string]scenario.QueueSpec{}, EnqueueTime: q.times[space]}
		for queue := range queues {
			spec.Queues[queue] = scenario.QueueSpec{}
			names = append(names, space+":"+queue)
		}
		sc.QSpaces[space] = spec
	}
	slices.Sort(names)
	return []string{fmt.Sprintf("/Q queues %s: a ULOG does not say their retries, retry delay or error queue (qmadmin's qcreate does): "+
		"they are left at 0 and none; give qspaces.QSPACE.queues.Q.retries, retry_delay_ms and error_queue", strings.Join(names, ", "))}
}

// ForReplay is the scenario calibrate replays: sc with the export's rows
// (f.Trace, read with f.Columns) in place of its streams, and the export's
// service time column, if it has one, left unread, so that every row's
// service time is drawn from sc's fitted distributions. Replaying the
// log's own service times would reproduce the log whatever was fitted, and
// the verdicts would judge nothing of the fit.
func ForReplay(sc *scenario.Scenario, f Files) (*scenario.Scenario, error) {
	out, err := WithFiles(sc, Files{Trace: f.Trace, TraceName: f.TraceName, Columns: f.Columns, SkipBad: f.SkipBad})
	if err != nil || out.Workload.TraceCSV == "" {
		return out, err
	}
	var cols scenario.TraceMap
	if out.Workload.Columns != nil {
		cols = *out.Workload.Columns
	}
	cols.DrawServiceTimes = true
	out.Workload.Columns = &cols
	return out, nil
}
