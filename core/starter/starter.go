// Package starter starts a scenario from an administrator's own files: a
// UBBCONFIG (and DMCONFIG) and a request log as they come (docs/scenario.md,
// Starting from your own files). [New] makes a complete scenario to edit
// from them; [WithFiles] and [ParseScenario] put files into a scenario;
// [Adapt] fits a scenario to a configuration that changed (the playground
// calls it when a new one is pasted or dropped); [ParseTraceMap] reads the
// column mapping of the CLI's --trace-map and the API's trace_map. It sits
// above core: it makes core scenarios, and reads logs with core/trace.
package starter

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/trace"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// Defaults of a scenario made from an administrator's files (New).
const (
	DefaultLoad       = 0.5   // target busy fraction of every server
	defaultServiceMS  = 10.0  // mean service time (exponential) when nothing is measured
	defaultDomainMS   = 20.0  // mean response time (exponential) of a remote domain
	defaultDurationMS = 60000 // length of the generated workload
)

// Files are an administrator's own files as they come: a UBBCONFIG, a
// DMCONFIG, a request log, and how to read the log's columns. A nil field was
// not given. The names are the files' names, for the scenario's name.
type Files struct {
	UBBConfig *string
	DMConfig  *string
	Trace     *string
	Columns   *scenario.TraceMap // nil: the scenario's own mapping, if any
	// SkipBad skips the trace's unreadable rows (workload.trace_skip_bad).
	SkipBad bool
	// PSC is a tmadmin printservice listing (psc or psc -v) of the running
	// application: the services each server advertises, for the servers
	// that advertise at run time (Advertise).
	PSC *string
	// Advertised is what another source (the servers a ULOG shows at
	// work: FromFit passes the report's advertise) says the servers that
	// advertise at run time offer, merged with the listing's (Advertise).
	Advertised []Advertised
	UBBName    string
	TraceName  string
	Load       float64 // New's target busy fraction; 0 = DefaultLoad
	// UBBPath and DMPath name the configuration's files in the diagnostics
	// of the starter's reading of them (FILE:LINE:COL): the paths they were
	// read from; "" is the scenario's field, "ubbconfig" and "dmconfig".
	UBBPath, DMPath string
	// PSCPath names the psc listing (PSC) in the warnings about its rows
	// (FILE:LINE, as UBBPath does the configuration): the path it was read
	// from; "" is "psc". Its errors keep "psc:LINE: ", for the caller to
	// name (their diagnostics' source is SourcePSC).
	PSCPath string
}

// WithFiles returns the scenario that runs the files: sc with each part a
// file gives replaced (the UBBCONFIG, the DMCONFIG, the trace: a trace
// replaces the whole workload, keeping sc's column mapping unless f has one,
// its trace_skip_bad and its trace_rate_scale).
// With no sc, the starter scenario of the files, whose workload is the trace
// when one is given. sc is not modified.
func WithFiles(sc *scenario.Scenario, f Files) (*scenario.Scenario, error) {
	out, _, err := WithFilesWarn(sc, f)
	return out, err
}

// WithFilesWarn is WithFiles, and, with no sc, what the starter had to
// leave out or make up (stand-in services, a psc listing's unknown rows),
// worded for the user.
func WithFilesWarn(sc *scenario.Scenario, f Files) (*scenario.Scenario, []string, error) {
	if f.Trace != nil && strings.TrimSpace(*f.Trace) == "" {
		return nil, nil, traceProblem("the file is empty (want a CSV header and rows)")
	}
	if sc == nil {
		st, warns, err := buildWarn(f, f.Trace != nil)
		if err != nil {
			return nil, nil, err
		}
		if f.Trace != nil {
			st.Workload = scenario.Workload{TraceCSV: *f.Trace, Columns: f.Columns, TraceSkipBad: f.SkipBad}
		}
		return st, warns, nil
	}
	out := *sc
	if f.UBBConfig != nil {
		out.UBBConfig = *f.UBBConfig
	}
	if f.DMConfig != nil {
		out.DMConfig = *f.DMConfig
	}
	if f.Trace != nil {
		w := &sc.Workload
		out.Workload = scenario.Workload{TraceCSV: *f.Trace, Columns: w.Columns, TraceSkipBad: w.TraceSkipBad, TraceRateScale: w.TraceRateScale}
	}
	if f.Columns != nil {
		out.Workload.Columns = f.Columns
	}
	if f.SkipBad {
		out.Workload.TraceSkipBad = true
	}
	return &out, nil, nil
}

// New makes a complete scenario from a UBBCONFIG (f.UBBConfig, required), a
// DMCONFIG and a trace, to start editing from:
//   - an advertise entry for every server without -s in its CLOPT, listing
//     the services it takes without one (every *SERVICES service), to trim;
//   - a service time for every service a local server offers: exponential, of
//     the trace's mean service_ms for the service when it has one, else of
//     mean 10 ms; a response time for every remote domain used (exponential,
//     of mean 20 ms);
//   - without a trace, a Poisson stream for every service from the default
//     origin, at the rate that keeps each server f.Load busy when its time is
//     split evenly among the services it offers (imported services: as if one
//     server answered in 20 ms), for 60 s;
//   - with a trace, a Poisson stream per service and origin at the rate the
//     trace has over its span, for that span.
func New(f Files) (*scenario.Scenario, error) {
	return build(f, false)
}

// NewWithWarnings is New, and what it had to leave out of f (the psc
// listing's rows that name no server of the UBBCONFIG, say), worded for
// the user.
func NewWithWarnings(f Files) (*scenario.Scenario, []string, error) {
	sc, ts, warns, err := buildAll(f, false)
	if ts != nil && ts.skipped > 0 {
		// a run of the scenario has no trace to count them in: say so here
		warns = append(warns, fmt.Sprintf("%d unreadable rows of the trace skipped (--trace-skip-bad), the first: %s", ts.skipped, ts.firstSkipped))
	}
	return sc, warns, err
}

func build(f Files, replay bool) (*scenario.Scenario, error) {
	sc, _, err := buildWarn(f, replay)
	return sc, err
}

// buildWarn is build, and what it left out of f, for the user.
func buildWarn(f Files, replay bool) (*scenario.Scenario, []string, error) {
	sc, _, warns, err := buildAll(f, replay)
	return sc, warns, err
}

// buildAll is buildWarn, and what the trace said (nil without one).
func buildAll(f Files, replay bool) (*scenario.Scenario, *traceStats, []string, error) {
	if f.UBBConfig == nil || strings.TrimSpace(*f.UBBConfig) == "" {
		return nil, nil, nil, diag.FieldErrorf("ubbconfig", "missing (the starter scenario is made from a UBBCONFIG)")
	}
	load := f.Load
	if load == 0 {
		load = DefaultLoad
	}
	if load < 0.01 || load > 10 {
		return nil, nil, nil, diag.FieldErrorf("load", "want a busy fraction between 0.01 and 10, got %g", load)
	}
	dm := ""
	if f.DMConfig != nil {
		dm = *f.DMConfig
	}
	m, adv, warns, err := loadFiles(f)
	if err != nil {
		return nil, nil, nil, err
	}
	sc := &scenario.Scenario{UBBConfig: *f.UBBConfig, DMConfig: dm, Advertise: advertiseOf(adv)}
	local, remote := offered(m, sc)
	standing := false
	if len(local)+len(remote) == 0 && f.Trace == nil {
		// every server advertises at run time: each starts with one
		// service named like it, so that the configuration runs as it is
		if stand := standIns(m); len(stand) > 0 {
			f.Advertised = append(slices.Clip(f.Advertised), stand...)
			var more []string
			if m, adv, more, err = loadFiles(f); err != nil {
				return nil, nil, nil, err
			}
			warns = append(append(warns, more...), standInWarning(stand))
			standing = true
			sc.Advertise = advertiseOf(adv)
			local, remote = offered(m, sc)
		}
	}
	var ts *traceStats
	if f.Trace != nil {
		if ts, err = measureTrace(m, *f.Trace, f.Columns, f.SkipBad); err != nil {
			return nil, nil, nil, err
		}
		warns = append(warns, responseColumns(ts.columns, len(ts.svcN) > 0, f.Columns)...)
	}
	means := map[string]float64{}
	for _, s := range local {
		means[s] = defaultServiceMS
		if ts != nil && ts.svcN[s] > 0 {
			means[s] = roundToUS(float64(ts.svcUS[s]) / float64(ts.svcN[s]) / 1000)
		}
		if sc.Services == nil {
			sc.Services = map[string]scenario.ServiceSpec{}
		}
		d := &scenario.Dist{Dist: "exp", MeanMS: ptr(means[s])}
		if means[s] <= 0 {
			d = &scenario.Dist{Dist: "const", MS: ptr(0.0)}
		}
		sc.Services[s] = scenario.ServiceSpec{ServiceTime: d}
	}
	for _, s := range remote {
		d := m.Service(s).Remote.Domain
		if sc.Domains == nil {
			sc.Domains = map[string]scenario.DomainSpec{}
		}
		sc.Domains[d] = scenario.DomainSpec{ResponseTime: scenario.Dist{Dist: "exp", MeanMS: ptr(defaultDomainMS)}}
	}
	if len(local)+len(remote) == 0 {
		return nil, nil, append(configWarnings(m), warns...), nothingToRun(m)
	}
	warns = append(warns, runtimeWarnings(m)...)
	if ts != nil {
		sc.Workload.Generate = ts.streams(m)
	} else {
		sc.Workload.Generate = capacityStreams(m, local, remote, means, load)
		var idle []string // offered by spares alone (MIN=0): no capacity to size a stream from
		for _, s := range local {
			if len(servingGroups(m, s)) == 0 {
				idle = append(idle, s)
			}
		}
		if len(idle) > 0 {
			slices.Sort(idle)
			warns = append(warns, fmt.Sprintf("%s: no running server offers it (its servers are spares until booted: MIN=0), so its stream is a trickle of 0.001 a second; "+
				"boot one with an event, e.g. \"events\": [{\"at_ms\": 0, \"boot\": \"GROUP/SRVID\"}], and raise the rate", strings.Join(idle, ", ")))
		}
	}
	sc.Name = scenarioName(f, load, ts != nil, replay)
	if standing {
		sc.Name += "; every server runs a stand-in service named like it (its services advertise at run time)"
	}
	// what reading the configuration left out or took as written (an
	// unknown keyword, a skeleton's placeholder) comes first, as the run
	// of the scenario will list it: read with the scenario's advertise map
	in := ubb.Input{UBBName: cmp.Or(f.UBBPath, "ubbconfig"), UBBConfig: sc.UBBConfig, DMName: cmp.Or(f.DMPath, "dmconfig"),
		DMConfig: sc.DMConfig, Advertise: sc.Advertise}
	if final, err := core.LoadModel(in); err == nil {
		m = final
	}
	return sc, ts, append(configWarnings(m), warns...), nil
}

// configWarnings are the warnings of reading m's configuration, each
// FILE:LINE:COL: message, but for those about servers that advertise at
// run time (runtimeWarnings and the stand-ins say those for the starter).
func configWarnings(m *core.Model) []string {
	out := make([]string, 0, len(m.Warnings))
	for _, d := range m.Warnings {
		if strings.Contains(d.Message, ubb.NoAdvertiseWarning) {
			continue
		}
		d.Severity = "" // the caller says they are warnings
		out = append(out, d.String())
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// roundToUS rounds milliseconds to the microsecond.
func roundToUS(ms float64) float64 {
	return float64(usec.FromMS(ms)) / 1000
}

// round3 rounds a rate to three significant digits.
func round3(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 3, 64), 64)
	return v
}

// offered lists the services local servers offer and the imported
// ones, by name, and fills sc.Advertise for servers without -s.
func offered(m *core.Model, sc *scenario.Scenario) (local, remote []string) {
	seen := map[string]bool{}
	for _, srv := range m.Servers {
		if srv.System || srv.Gateway {
			continue
		}
		if srv.AdvertiseSource == "services" && len(srv.Services) > 0 {
			if sc.Advertise == nil {
				sc.Advertise = map[string][]string{}
			}
			sc.Advertise[srv.Name] = slices.Clone(srv.Services)
		}
		for _, s := range srv.Services {
			if svc := m.Service(s); svc != nil && svc.Remote == nil && !seen[s] {
				seen[s] = true
				local = append(local, s)
			}
		}
	}
	for _, s := range m.Services {
		if s.Remote != nil {
			remote = append(remote, s.Name)
		}
	}
	slices.Sort(local)
	return local, remote
}

// defaultOrigin is the LMID requests come from by default.
func defaultOrigin(m *core.Model) string {
	if i := trace.NewNames(m).DefaultOrigin(); i >= 0 {
		return m.Machines[i].LMID
	}
	return m.Machines[0].LMID
}

// capacityStreams gives every service a Poisson stream from the default
// origin that keeps every server at most load busy by construction,
// whichever of its servers Tuxedo's rules pick (the first idle one, the
// least loaded queue, or always the first with LDBAL N): each running
// server's time (spare instances past MIN serve nothing; a multithreaded
// one has its MAXDISPATCHTHREADS threads' worth, its busy fraction being
// over them) is split evenly among the services it offers, and a service's
// offered work (rate × mean) is load times the smallest share any of its
// servers gives it. A server's
// busy fraction is at most the work offered to the services it offers, the
// sum of those shares times load: at most load. A routed service's values
// are drawn from its RANGES (routeFor); a group that gets the fraction f of
// them holds its servers to f of the work, so the smallest share is
// divided by f.
func capacityStreams(m *core.Model, local, remote []string, means map[string]float64, load float64) *scenario.Generator {
	minShare := map[string]map[string]float64{} // service -> SRVGRP -> smallest share of its servers
	for _, srv := range m.Servers {
		if srv.System || srv.Gateway || srv.Spare {
			continue
		}
		var mine []string
		for _, s := range srv.Services {
			if _, ok := means[s]; ok && !slices.Contains(mine, s) {
				mine = append(mine, s)
			}
		}
		for _, s := range mine {
			if minShare[s] == nil {
				minShare[s] = map[string]float64{}
			}
			sh := float64(srv.DispatchThreads()) / float64(len(mine))
			if old, ok := minShare[s][srv.Group]; !ok || sh < old {
				minShare[s][srv.Group] = sh
			}
		}
	}
	origin := defaultOrigin(m)
	g := &scenario.Generator{DurationMS: defaultDurationMS}
	names := append(slices.Clone(local), remote...)
	slices.Sort(names)
	for _, s := range names {
		st := scenario.Stream{Service: s, Origin: origin, Arrivals: "poisson"}
		rate := load * 1000 / defaultDomainMS
		if mean, ok := means[s]; ok {
			offers := map[string]bool{}
			for grp := range minShare[s] {
				offers[grp] = true
			}
			work := math.Inf(1) // servers' worth of work the service may be offered
			if rs := routeFor(m, s, offers); rs != nil {
				st.Route = rs.spec
				for grp, frac := range rs.group {
					work = min(work, minShare[s][grp]/frac)
				}
			} else {
				for _, sh := range minShare[s] {
					work = min(work, sh)
				}
			}
			if math.IsInf(work, 1) {
				work = 0
			}
			rate = load * work * 1000 / max(mean, 0.001)
		}
		st.RatePerS = max(round3(rate), 0.001)
		g.Streams = append(g.Streams, st)
	}
	return g
}

// traceStats are what a trace says about the load: requests per service and
// origin, service times, and its span.
type traceStats struct {
	count        map[[2]int]int64 // (service, origin) -> requests
	svcUS        map[string]int64 // service -> sum of service_ms given
	svcN         map[string]int64
	routes       map[string]map[string]int64 // service -> routing value given -> rows
	columns      map[string]string           // how each column was read (trace.Info.Columns)
	first, last  int64
	skipped      int    // rows skipped (trace_skip_bad)
	firstSkipped string // the first of them, "row N: why"
}

// traceProblem is the error of a trace file as a whole: "trace: WHY",
// about the trace.
func traceProblem(why string) *diag.Error {
	e := diag.FieldErrorf("trace", "%s", why)
	e.Diagnostics[0].Source, e.Diagnostics[0].Field = ubb.SourceTrace, ""
	return e
}

// measureTrace reads the request log text (trace.Read) for its rates and
// service times, skipping its unreadable rows when skipBad is set.
func measureTrace(m *core.Model, text string, cm *scenario.TraceMap, skipBad bool) (*traceStats, error) {
	var cols *trace.Columns
	if cm != nil {
		c := trace.Columns(*cm)
		cols = &c
	}
	ts := &traceStats{count: map[[2]int]int64{}, svcUS: map[string]int64{}, svcN: map[string]int64{}, routes: map[string]map[string]int64{}}
	rows := 0
	info, err := trace.Read(text, cols, trace.Options{SkipBad: skipBad}, trace.NewNames(m), func(r *trace.Request) {
		if r.Status == trace.StatusNotSent {
			return // never reached a server (TPENOENT...): no arrival, as a replay does not play it
		}
		if rows == 0 || r.TimeUS < ts.first {
			ts.first = r.TimeUS
		}
		rows++
		ts.last = max(ts.last, r.TimeUS)
		ts.count[[2]int{r.Service, r.Origin}]++
		if r.Route != "" {
			name := m.Services[r.Service].Name
			if ts.routes[name] == nil {
				ts.routes[name] = map[string]int64{}
			}
			ts.routes[name][r.Route]++
		}
		if r.ServiceUS >= 0 {
			name := m.Services[r.Service].Name
			ts.svcUS[name] += r.ServiceUS
			ts.svcN[name]++
		}
	})
	if err != nil {
		return nil, diag.Invalid(err)
	}
	if rows == 0 {
		return nil, traceProblem("no rows after the header")
	}
	ts.columns = info.Columns
	if ts.skipped = info.Skipped; len(info.Examples) > 0 {
		ts.firstSkipped = info.Examples[0]
	}
	return ts, nil
}

// streams are the trace's rates as Poisson streams over its span (at least
// one second); a routed service draws its values from the trace's routing
// column when it has one (routeSource).
func (ts *traceStats) streams(m *core.Model) *scenario.Generator {
	spanMS := max(float64(ts.last-ts.first)/1000, 1000)
	g := &scenario.Generator{DurationMS: roundToUS(spanMS)}
	keys := make([][2]int, 0, len(ts.count))
	for k := range ts.count {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	for _, k := range keys {
		rate := float64(ts.count[k]) * 1000 / spanMS
		st := scenario.Stream{Service: m.Services[k[0]].Name, Origin: m.Machines[k[1]].LMID,
			Arrivals: "poisson", RatePerS: max(round3(rate), 0.001)}
		st.Route = routeSource{m, ts.routes}.stream(st.Service)
		g.Streams = append(g.Streams, st)
	}
	return g
}

// servingGroups are the groups with a running server that offers svc.
func servingGroups(m *core.Model, svc string) map[string]bool {
	out := map[string]bool{}
	for _, srv := range m.Servers {
		if !srv.System && !srv.Gateway && !srv.Spare && slices.Contains(srv.Services, svc) {
			out[srv.Group] = true
		}
	}
	return out
}

// scenarioName is the scenario's name: what it was made from and where to look.
func scenarioName(f Files, load float64, measured, replay bool) string {
	ubb := f.UBBName
	if ubb == "" {
		ubb = "the UBBCONFIG"
	}
	trace := f.TraceName
	if trace == "" {
		trace = "the trace"
	}
	switch {
	case replay:
		return fmt.Sprintf("%s replaying %s (defaults: see docs/scenario.md, Starting from your own files)", ubb, trace)
	case measured:
		return fmt.Sprintf("Starter for %s: streams at %s's rates; edit service times, trim advertise (see docs/scenario.md, Starting from your own files)",
			ubb, trace)
	}
	return fmt.Sprintf("Starter for %s: streams keep each server about %g%% busy; edit service times, trim advertise (see docs/scenario.md, Starting from your own files)",
		ubb, load*100)
}

// ParseTraceMap reads a column mapping written `key=value[,key=value...]`,
// the keys being the fields of workload.columns (time,
// time_unit, service, origin, service_ms, ..., date_order, tz, status; a delimiter
// "tab" is a tab): `time=ts,service=svc,time_unit=s`. A value holding a
// comma is written in double quotes, a quote in it doubled:
// `tz="CET-1CEST,M3.5.0,M10.5.0/3",service=svc`. It is how the CLI's
// --trace-map, the API's trace_map form part and the page's mapping field
// are read.
func ParseTraceMap(text string) (*scenario.TraceMap, error) {
	var m scenario.TraceMap
	mv := reflect.ValueOf(&m).Elem()
	parts, err := splitTraceMap(text)
	if err != nil {
		return nil, err
	}
	for _, part := range parts {
		key, val, ok := strings.Cut(part.text, "=")
		if part.quoted {
			val = part.value
		}
		key = strings.TrimSpace(key)
		i := slices.Index(traceMapKeys, key)
		switch {
		case !ok || key == "":
			return nil, diag.Errorf(diag.EINVALID, "%q: want key=COLUMN, e.g. time=ts,service=svc", part.text)
		case i < 0:
			return nil, diag.Errorf(diag.EINVALID, "%q: unknown key %q (want one of %s)", part.text, key, strings.Join(slices.DeleteFunc(slices.Clone(traceMapKeys), func(k string) bool { return k == "" }), ", "))
		}
		if key == "delimiter" && (val == "tab" || val == `\t`) {
			val = "\t"
		} else if key != "delimiter" && !part.quoted {
			val = strings.TrimSpace(val)
		}
		mv.Field(i).SetString(val)
	}
	return &m, nil
}

// traceMapPart is one key=value of a mapping: its text, and its value
// unquoted when it was written in double quotes.
type traceMapPart struct {
	text   string
	value  string
	quoted bool
}

// splitTraceMap cuts a mapping at the commas outside double quotes; a
// value that starts with a quote (after the '=' and any spaces) runs to the
// closing quote, "" standing for a quote in it.
func splitTraceMap(text string) ([]traceMapPart, error) {
	var parts []traceMapPart
	for len(text) > 0 || len(parts) == 0 {
		eq := strings.IndexAny(text, "=,")
		if eq >= 0 && text[eq] == '=' {
			rest := strings.TrimLeft(text[eq+1:], " ")
			if strings.HasPrefix(rest, `"`) {
				var b strings.Builder
				i := 1
				closed := false
				for i < len(rest) {
					if rest[i] == '"' {
						if i+1 < len(rest) && rest[i+1] == '"' {
							b.WriteByte('"')
							i += 2
							continue
						}
						closed = true
						i++
						break
					}
					b.WriteByte(rest[i])
					i++
				}
				if !closed {
					return nil, diag.Errorf(diag.EINVALID, "%q: the quote opened after %q is never closed", text, text[:eq+1])
				}
				after := strings.TrimLeft(rest[i:], " ")
				if after != "" && after[0] != ',' {
					return nil, diag.Errorf(diag.EINVALID, "%q: want a comma after the quoted value, got %q", text, after)
				}
				parts = append(parts, traceMapPart{text: text[:eq+1], value: b.String(), quoted: true})
				if after == "" {
					break
				}
				text = after[1:]
				continue
			}
		}
		part, next, more := strings.Cut(text, ",")
		parts = append(parts, traceMapPart{text: part})
		if !more {
			break
		}
		text = next
	}
	return parts, nil
}

// traceMapKeys are the keys of ParseTraceMap: the JSON names of
// scenario.TraceMap's fields, by field index (every field is a column name
// or a word: a string); "" for a field without one (json:"-", set by the
// program, never by a map).
var traceMapKeys = func() []string {
	t := reflect.TypeFor[scenario.TraceMap]()
	keys := make([]string, t.NumField())
	for i := range keys {
		if t.Field(i).Tag.Get("json") == "-" {
			continue
		}
		if t.Field(i).Type.Kind() != reflect.String {
			panic("starter: scenario.TraceMap." + t.Field(i).Name + " is not a string: ParseTraceMap cannot set it")
		}
		keys[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return keys
}()

// ParseScenario reads a scenario document (core.DecodeScenario) whose
// parts the files replace (WithFiles), so the document may leave out what a
// file gives: the ubbconfig with a UBBCONFIG file, the workload with a
// trace. The document is read as it was sent (a key given twice is an error
// naming it, positions are the document's own) and the spliced scenario is
// checked once (core.Check).
func ParseScenario(data []byte, f Files) (*scenario.Scenario, error) {
	sc, err := core.DecodeScenario(data)
	if err != nil {
		return nil, err
	}
	if sc, err = WithFiles(sc, f); err != nil {
		return nil, err
	}
	if err := core.Check(sc); err != nil {
		return nil, err
	}
	return sc, nil
}
