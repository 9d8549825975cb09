package starter

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/trace"
	"github.com/tuxlb/tuxlb/core/ulog"
)

// A trace read without a UBBCONFIG: names as they are, rows without an
// origin from "(default)"; with one, LMIDs and a scenario that runs.
func TestFitTrace(t *testing.T) {
	text := "time_ms,service,service_ms\n0,A,2\n500,A,4\n1000,B,1\n2000,A,3\n"
	rep, err := Fit(FitSources{Trace: &text})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Services["A"]
	if rep.Source != "trace" || a == nil || a.Samples != 3 || *a.MeanMS != 3 || a.Fit == nil {
		t.Fatalf("report %+v, A %+v", rep, a)
	}
	// 3 requests of A over the 2 s span: 1.5/s.
	if got := rep.Arrivals.Services["A"]; got.RatePerS != 1.5 || got.Origins["(default)"] != 1.5 || rep.Arrivals.SpanS != 2 {
		t.Errorf("arrivals %+v", rep.Arrivals)
	}
	ubbText := starterUBB
	rep, err = Fit(FitSources{Trace: &text, UBBConfig: &ubbText})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Arrivals.Services["A"].Origins; got["site1"] != 1.5 {
		t.Errorf("origins %v, want the default LMID site1", got)
	}
	sc, warn, err := FromFit(Files{UBBConfig: &ubbText}, rep)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Services["A"].ServiceTime != rep.Services["A"].Fit || sc.Workload.Generate.DurationMS != 2000 || len(sc.Workload.Generate.Streams) != 2 {
		t.Errorf("scenario %+v", sc)
	}
	// A and B are served by local servers and timed: nothing is left out;
	// C, a service of the UBBCONFIG the log never names, keeps the
	// starter's time, and the warnings say so.
	if want := []string{"a service not in the log keeps the starter's exponential of mean 10 ms (figures): C"}; !slices.Equal(warn, want) {
		t.Errorf("warnings %q, want %q", warn, want)
	}
	data, _ := json.Marshal(sc)
	parsed, err := core.ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := core.Run(parsed, core.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	// Unknown names against the UBBCONFIG name the row.
	bad := "time_ms,service,service_ms\n0,NOPE,2\n"
	if _, err := Fit(FitSources{Trace: &bad, UBBConfig: &ubbText}); err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("unknown service: %v", err)
	}
	if _, err := Fit(FitSources{}); err == nil {
		t.Error("no source: want an error")
	}
}

// Two and a half hours of arrivals from a ULOG: hourly rates labelled with
// their clock time, the last hour's over the half it covers.
func TestRatesHourly(t *testing.T) {
	const start = int64(1796119200) * 1e6 // 2026-12-01 10:00:00 UTC
	var arr arrivals
	for i := range 3600 { // one a second in the first hour
		arr.add(start+int64(i)*1e6, "A", "SITE1", 1)
	}
	for i := range 1800 { // one every two seconds in the second
		arr.add(start+3600e6+int64(i)*2e6, "A", "SITE2", 1)
	}
	for i := range 1800 { // one a second for the next half hour
		arr.add(start+7200e6+int64(i)*1e6, "A", "SITE1", 1)
	}
	got := rates(arr, true, start, nil)
	// Span: the last arrival at 2 h 29 min 59 s = 8 999 s; 7 200 requests.
	a := got.Services["A"]
	if got.SpanS != 8999 || got.Start != "2026-12-01T10:00:00.000Z" || a.RatePerS != 0.8 {
		t.Errorf("span %g start %s rate %g", got.SpanS, got.Start, a.RatePerS)
	}
	want := []HourRate{{Hour: 0, From: "10:00", RatePerS: 1}, {Hour: 1, From: "11:00", RatePerS: 0.5}, {Hour: 2, From: "12:00", RatePerS: 1}}
	if len(a.Hourly) != 3 {
		t.Fatalf("hourly %+v", a.Hourly)
	}
	for i, h := range a.Hourly {
		if h.Hour != want[i].Hour || h.From != want[i].From || h.RatePerS != want[i].RatePerS {
			t.Errorf("hour %d: %+v, want %+v", i, h, want[i])
		}
	}
	// SITE1: 5 400 of the 8 999 s; SITE2: 1 800.
	if a.Origins["SITE1"] != 0.6 || a.Origins["SITE2"] != 0.2 {
		t.Errorf("origins %v", a.Origins)
	}
}

// Every candidate the report offers is a service_time the scenario accepts
// as it is, not only the chosen one: two sample sets, one with a long tail
// (sd above the mean: the hyperexponential is offered) and one narrow
// (the erlang is), so that every family is tried.
func TestCandidatesAreServiceTimes(t *testing.T) {
	ubbText := starterUBB
	seen := map[bool]map[string]bool{false: {}, true: {}}
	for _, c := range []struct{ tail, whole bool }{{true, false}, {false, false}, {true, true}, {false, true}} {
		tail := c.tail
		var b strings.Builder
		b.WriteString("time_ms,service,service_ms\n")
		for i := range 400 {
			v := float64(i%20+1) * 0.3
			if !tail {
				v = 5 + float64(i%20)*0.2
			} else if i%25 == 0 {
				v = 60 + float64(i%7)
			}
			if c.whole { // and the same in whole milliseconds: fitted on the grid
				v = math.Round(v)
			}
			b.WriteString(itoa(i*10) + ",A," + ftoa(v) + "\n")
		}
		text := b.String()
		rep, err := Fit(FitSources{Trace: &text, UBBConfig: &ubbText})
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Services["A"].ResolutionMS != nil; got != c.whole {
			t.Errorf("whole %v: resolution_ms %v", c.whole, got)
		}
		whole := c.whole
		for _, c := range rep.Services["A"].Candidates {
			if c.Fit == nil {
				continue
			}
			seen[whole][c.Family] = true
			sc, _, err := FromFit(Files{UBBConfig: &ubbText}, rep)
			if err != nil {
				t.Fatal(err)
			}
			spec := sc.Services["A"]
			spec.ServiceTime = toCore(c.Fit)
			sc.Services["A"] = spec
			data, _ := json.Marshal(sc)
			parsed, err := core.ParseScenario(data)
			if err == nil {
				_, err = core.Compile(parsed, core.RunOptions{})
			}
			if err != nil {
				t.Errorf("%s candidate %+v: %v", c.Family, c.Fit, err)
			}
		}
	}
	if len(seen[false]) != 5 || len(seen[true]) != 5 {
		t.Errorf("families tried %v, want all 5 of exact and of whole-ms samples", seen)
	}
}

func itoa(i int) string     { return strconv.Itoa(i) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// Service times all in whole milliseconds (a ULOG's, or a trace's) are
// fitted on the millisecond grid: the report says so per service and in
// its criterion, and warns of a service mostly at 0 ms; a trace with
// fractions of a millisecond is fitted as before.
func TestFitWholeMilliseconds(t *testing.T) {
	var b strings.Builder
	b.WriteString("time_ms,service,service_ms\n")
	for i := range 200 {
		a := "0" // A: 17 in 20 at 0 ms
		if i%20 >= 17 {
			a = "1"
		}
		b.WriteString(itoa(i*10) + ",A," + a + "\n")
		b.WriteString(itoa(i*10+5) + ",B," + itoa(2+i%7) + "\n")
	}
	text := b.String()
	rep, err := Fit(FitSources{Trace: &text})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"A", "B"} {
		if r := rep.Services[s].ResolutionMS; r == nil || *r != 1 || !strings.Contains(rep.Services[s].Choice, "on the 1 ms grid") {
			t.Errorf("%s: resolution %v, choice %q: want 1 ms", s, r, rep.Services[s].Choice)
		}
	}
	if rep.Criterion != Criterion+CriterionGrid {
		t.Errorf("criterion %q: want the grid's sentence", rep.Criterion)
	}
	if len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0], "A: 85% of samples are 0 ms") {
		t.Errorf("warnings %q: want A's 85%% at 0 ms", rep.Warnings)
	}
	frac := "time_ms,service,service_ms\n0,C,2.5\n10,C,3.25\n20,C,1\n30,C,4.125\n"
	rep, err = Fit(FitSources{Trace: &frac})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Services["C"]; c.ResolutionMS != nil || rep.Criterion != Criterion || strings.Contains(c.Choice, "grid") {
		t.Errorf("fractions of a ms: resolution %v, criterion %q, choice %q", c.ResolutionMS, rep.Criterion, c.Choice)
	}
	// The bank's ULOGs (core/ulog/testdata/bank): millisecond stamps.
	var files []ulog.File
	for _, f := range []string{"node1/ULOG.120126", "node2/ULOG.120126"} {
		data, err := os.ReadFile("../ulog/testdata/bank/" + f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, ulog.File{Name: "ULOG.120126", Text: string(data)})
	}
	if rep, err = Fit(FitSources{ULOG: files}); err != nil {
		t.Fatal(err)
	}
	if r := rep.Services["TRANSFER"].ResolutionMS; r == nil || *r != 1 || rep.Criterion != Criterion+CriterionGrid {
		t.Errorf("ULOG: TRANSFER resolution %v, criterion %q", r, rep.Criterion)
	}
	// TRANSFER's own work is its span less two tpcalls: three differences.
	if c := rep.Services["TRANSFER"].Choice; !strings.Contains(c, "(10 samples of 3 differences of stamps)") {
		t.Errorf("ULOG: TRANSFER choice %q, want its samples' three differences of stamps", c)
	}
}

// distinctTrace is a log of n rows, each of its own service and one of n/2
// origins.
func distinctTrace(n int) string {
	var b strings.Builder
	b.WriteString("time_ms,service,origin,service_ms\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d,SVC%06d,M%d,1\n", i, i, i/2)
	}
	return b.String()
}

// Reading a log without a UBBCONFIG resolves each row's names by a map, not
// by a search of the names seen so far: twice the distinct names, twice the
// names looked at (a search looked at n²/2 names for n, 4 times as many
// for twice n) and about twice the allocations of the whole fit.
func TestFitNamesLinear(t *testing.T) {
	probes := func(n int) int64 {
		in := &interned{}
		if _, err := trace.Read(distinctTrace(n), nil, trace.Options{}, in, func(*trace.Request) {}); err != nil {
			t.Fatal(err)
		}
		if len(in.services.names) != n || len(in.origins.names) != (n+1)/2 {
			t.Fatalf("%d services and %d origins interned, want %d and %d", len(in.services.names), len(in.origins.names), n, (n+1)/2)
		}
		return in.services.probes + in.origins.probes
	}
	// at most one lookup of a service and one of an origin a row (the
	// reader answers the repeats of the first few names it resolved, at
	// most 16 of each column, itself): twice the rows, twice the lookups
	within := func(p, n int64) bool { return p <= 2*n && p >= 2*n-32 }
	if p1, p2 := probes(10_000), probes(20_000); !within(p1, 10_000) || !within(p2, 20_000) {
		t.Errorf("%d and %d names looked at for 10000 and 20000 rows, want about 20000 and 40000", p1, p2)
	}
	allocs := func(n int) float64 {
		text := distinctTrace(n)
		return testing.AllocsPerRun(1, func() {
			if _, err := Fit(FitSources{Trace: &text}); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a1, a2 := allocs(2000), allocs(4000); a2 < 1.6*a1 || a2 > 2.4*a1 {
		t.Errorf("fitting 2000 and 4000 distinct services: %.0f and %.0f allocations, want about twice", a1, a2)
	}
}

// A hold-out window: fitted from the trace's rows issued before BeforeUS
// only. Rows at 0, 100, ..., 900 ms of A (2 ms each) and, from 500 ms on,
// of B: before 500 ms, 5 rows of A and none of B.
func TestFitBefore(t *testing.T) {
	var b strings.Builder
	b.WriteString("time_ms,service,service_ms\n")
	for i := range 10 {
		b.WriteString(itoa(i*100) + ",A,2\n")
		if i >= 5 {
			b.WriteString(itoa(i*100+1) + ",B,3\n")
		}
	}
	text := b.String()
	rep, err := Fit(FitSources{Trace: &text, BeforeUS: 500_000})
	if err != nil {
		t.Fatal(err)
	}
	if a := rep.Services["A"]; a == nil || a.Samples != 5 || rep.Services["B"] != nil {
		t.Errorf("services %+v: want A from 5 rows and no B", rep.Services)
	}
	whole, err := Fit(FitSources{Trace: &text})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Services["A"].Samples != 10 || whole.Services["B"].Samples != 5 {
		t.Errorf("the whole log: A %d, B %d samples; want 10 and 5", whole.Services["A"].Samples, whole.Services["B"].Samples)
	}
}

// ForCalibration cuts the ULOG where the judged rows of the export start:
// at the export's first row plus the window. The ULOG of 1 December 2026
// has executions of S at 10:00:00.000, .010, ..., .050 (5 ms each); the
// export starts 10 ms before it, so a 30 ms window cuts the ULOG at
// .020: two executions (the third opens at the cut). An export timed by
// offsets cannot be placed: the ULOG is cut 30 ms after its own first
// line (three executions), with a warning.
func TestForCalibrationAlignsTheCut(t *testing.T) {
	var lg strings.Builder
	for i := range 6 {
		ms := fmt.Sprintf("%03d", i*10)
		lg.WriteString("100000." + ms + `.h!srv.1.1.0: TRACE:at: { tpservice({"S", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})` + "\n")
		lg.WriteString("100000." + fmt.Sprintf("%03d", i*10+5) + ".h!srv.1.1.0: TRACE:at: } tpservice\n")
	}
	ulogs := []ulog.File{{Name: "ULOG.120126", Text: lg.String()}}
	for _, tt := range []struct {
		name, export string
		want         int
		warn         bool
	}{
		{"dated", "ts,service,observed_ms\n2026-12-01 09:59:59.990,S,5\n2026-12-01 10:00:00.030,S,5\n", 2, false},
		{"offsets", "time_ms,service,observed_ms\n0,S,5\n40,S,5\n", 3, true},
	} {
		export := tt.export
		src, err := ForCalibration(FitSources{Trace: &export, ULOG: ulogs}, 30_000)
		if err != nil {
			t.Fatal(err)
		}
		if src.Trace != nil {
			t.Errorf("%s: the export is among the fit's sources, want it replayed only", tt.name)
		}
		rep, err := Fit(src)
		if err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(strings.Join(rep.Warnings, "|"), "the export's times are not dated")
		if s := rep.Services["S"]; s == nil || s.Samples != tt.want || warned != tt.warn {
			t.Errorf("%s: S %+v, warnings %q; want %d samples, the warning %v", tt.name, s, rep.Warnings, tt.want, tt.warn)
		}
	}
}

// A log of more distinct services (or origins) than a fit takes is refused
// at the row that passes the bound, naming the column to check; with
// SkipBad those rows are skipped. A ULOG naming as many is refused too.
func TestFitNamesBounded(t *testing.T) {
	text := distinctTrace(maxFitNames + 1)
	_, err := Fit(FitSources{Trace: &text})
	want := fmt.Sprintf("row %d", maxFitNames+1)
	if err == nil || !strings.Contains(err.Error(), "more than 20000 distinct services") || !strings.Contains(err.Error(), want) {
		t.Errorf("%d services: error %v, want one naming %s and the bound", maxFitNames+1, err, want)
	}
	rep, err := Fit(FitSources{Trace: &text, SkipBad: true})
	if err != nil || len(rep.Services) != maxFitNames {
		t.Errorf("skipping bad rows: %d services, error %v; want %d", len(rep.Services), err, maxFitNames)
	}
	var lg strings.Builder
	for i := range maxFitNames + 1 {
		fmt.Fprintf(&lg, "100000.000.h!srv.1.1.0: TRACE:at: { tpservice({\"S%d\", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})\n100000.001.h!srv.1.1.0: TRACE:at: } tpservice\n", i)
	}
	_, err = Fit(FitSources{ULOG: []ulog.File{{Name: "ULOG.120126", Text: lg.String()}}})
	if err == nil || !strings.Contains(err.Error(), "20001 distinct services, more than the 20000 a fit takes") {
		t.Errorf("a ULOG of %d services: error %v", maxFitNames+1, err)
	}
}

// A request log does not measure the network: fitted for a configuration
// of two machines, the scenario has no latency, and a warning says so (the
// figures say it too, but calibrate's replay shows none); for one machine
// there is nothing to say.
func TestFitTraceNetworkGuessedWarns(t *testing.T) {
	text := "time_ms,service,service_ms\n0,A,2\n500,A,4\n1000,A,3\n"
	mp := "*RESOURCES\nMODEL MP\nLDBAL Y\nMASTER S1\n*MACHINES\nn1 LMID=S1\nn2 LMID=S2\n*GROUPS\nG1 LMID=S1 GRPNO=1\nG2 LMID=S2 GRPNO=2\n" +
		"*SERVERS\nsimpserv SRVGRP=G1 SRVID=1 CLOPT=\"-s A\"\nsimpserv SRVGRP=G2 SRVID=1 CLOPT=\"-s A\"\n*SERVICES\nA\n"
	for _, c := range []struct {
		ubb  string
		want bool
	}{{mp, true}, {starterUBB, false}} {
		ubbText := c.ubb
		rep, err := Fit(FitSources{Trace: &text, UBBConfig: &ubbText})
		if err != nil {
			t.Fatal(err)
		}
		sc, warn, err := FromFit(Files{UBBConfig: &ubbText}, rep)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(warn, func(w string) bool {
			return strings.HasPrefix(w, "network.latency_ms: a request log does not measure it, so the scenario has none between its 2 machines")
		})
		if got != c.want || sc.Network != nil {
			t.Errorf("MP %v: warnings %q, network %+v; want the latency's warning %v, no network", c.want, warn, sc.Network, c.want)
		}
	}
}

// A missing day (a ULOG's gap) is left out of the span, and its hours have
// no rate: the scenario's profile runs the hours the log covers one after
// the other.
func TestRatesGap(t *testing.T) {
	const start = int64(1796166000) * 1e6 // 2026-12-01 23:00:00 UTC
	const dec2 = start + 3600e6           // 2026-12-02 00:00
	var arr arrivals
	for i := range 3600 { // one a second from 23:00 on 12/01
		arr.add(start+int64(i)*1e6, "A", "SITE1", 1)
	}
	for i := range 3600 { // and from 00:00 on 12/03, after a missing day
		arr.add(dec2+86400e6+int64(i)*1e6, "A", "SITE1", 1)
	}
	got := rates(arr, true, start, [][2]int64{{dec2, dec2 + 86400e6}})
	// By hand: first 12/01 23:00:00, last 12/03 00:59:59: 93 599 s, less
	// the day of 12/02, 86 400 s: 7 199 s covered; 7 200 requests, 1.000
	// a second (before: 0.0769, over 93 599 s). Hours from the first
	// request: hour 0 (23:00, 3 600 requests in 3 600 s), hours 1 to 24
	// in the gap (no rate), hour 25 (00:00 on 12/03, 3 600 in the 3 599 s
	// to the last request): 1.
	a := got.Services["A"]
	if got.SpanS != 7199 || a.RatePerS != 1 {
		t.Errorf("span %g rate %g, want 7199 and 1", got.SpanS, a.RatePerS)
	}
	var hours []HourRate
	for _, h := range a.Hourly {
		hours = append(hours, HourRate{Hour: h.Hour, From: h.From, RatePerS: h.RatePerS})
	}
	if want := []HourRate{{Hour: 0, From: "23:00", RatePerS: 1}, {Hour: 25, From: "00:00", RatePerS: 1}}; !reflect.DeepEqual(hours, want) {
		t.Errorf("hourly %+v, want %+v", hours, want)
	}
}

// keepLog is a ULOG of a client on h1 calling A, served 5 ms on h1: one a
// second for an hour from startS (seconds of the day), one every two
// seconds the next hour, one a second the next half hour: 7 200 requests.
func keepLog(startS int64) []ulog.File {
	var b strings.Builder
	line := func(us int64, what string) {
		ms := us / 1000
		s := ms / 1000
		fmt.Fprintf(&b, "%02d%02d%02d.%03d.h1!%s: TRACE:at: %s\n", s/3600, s/60%60, s%60, ms%1000, what[:strings.IndexByte(what, ' ')], what[strings.IndexByte(what, ' ')+1:])
	}
	t := startS * 1e6
	for i := range 7200 {
		line(t, "clt.100.1.0 { tpcall(\"A\", 0x0, 0, 0x0, 0x0, 0x0)")
		line(t+1000, "srv.200.1.1 { tpservice({\"A\", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})")
		line(t+6000, "srv.200.1.1 } tpservice")
		line(t+7000, "clt.100.1.0 } tpcall = 1")
		switch {
		case i < 3600 || i >= 5400:
			t += 1e6
		default:
			t += 2e6
		}
	}
	return []ulog.File{{Name: "h1/ULOG.120126", Text: b.String()}}
}

// A long log fitted with a bound on what its reading keeps one by one
// (FitSources.ULOGKeep) says what it says read whole: its arrivals are
// counted by minute, so the rates are the same, and an hour's rate the
// same when the log starts on a minute (the hours are then whole minutes);
// otherwise the minutes at an hour's edges go to the hour they start in:
// at most a minute's requests (60 at one a second) of 3 600 s, 0.017/s. The
// service's times are all kept (under ulog.SamplesKept), so its fit is the
// same. The report says the log was long.
func TestFitULOGKept(t *testing.T) {
	for _, startS := range []int64{10 * 3600, 10*3600 + 30} {
		files := keepLog(startS)
		whole, err := Fit(FitSources{ULOG: files})
		if err != nil {
			t.Fatal(err)
		}
		kept, err := Fit(FitSources{ULOG: files, ULOGKeep: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(kept.Warnings) != len(whole.Warnings)+1 || !strings.HasPrefix(kept.Warnings[len(kept.Warnings)-1], "a long log: past 1000 records") {
			t.Errorf("start %d: warnings %q, want the whole's %q and a long log's", startS, kept.Warnings, whole.Warnings)
		}
		a, wa := kept.Arrivals.Services["A"], whole.Arrivals.Services["A"]
		if kept.Arrivals.SpanS != whole.Arrivals.SpanS || a.RatePerS != wa.RatePerS || !reflect.DeepEqual(a.Origins, wa.Origins) || len(a.Hourly) != 3 || len(wa.Hourly) != 3 {
			t.Fatalf("start %d: arrivals %+v, read whole %+v", startS, kept.Arrivals, whole.Arrivals)
		}
		for h := range a.Hourly {
			d := math.Abs(a.Hourly[h].RatePerS - wa.Hourly[h].RatePerS)
			if startS%60 == 0 && d != 0 || d > 0.017 {
				t.Errorf("start %d: hour %d at %g/s, read whole %g/s", startS, h, a.Hourly[h].RatePerS, wa.Hourly[h].RatePerS)
			}
		}
		kept.Warnings, whole.Warnings, kept.Arrivals, whole.Arrivals = nil, nil, Arrivals{}, Arrivals{}
		k, _ := json.Marshal(kept)
		w, _ := json.Marshal(whole)
		if string(k) != string(w) {
			t.Errorf("start %d: the report but its arrivals and warnings\n%s\nread whole\n%s", startS, k, w)
		}
	}
}
