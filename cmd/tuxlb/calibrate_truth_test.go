package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// truthUBB is a payments application on two machines: PAYMENT on SITE1's
// MSSQ set tpcalls DEBIT on SITE2's and sends AUDIT with TPNOREPLY to
// auditsrv, which advertises at run time (-A, no *SERVICES line of its
// own: its ULOG says what it runs); BALANCE comes to SITE2 from SITE1.
const truthUBB = `*RESOURCES
IPCKEY 71234
MASTER SITE1
MODEL MP
LDBAL Y
*MACHINES
"node1" LMID=SITE1 NETLOAD=50
"node2" LMID=SITE2 NETLOAD=50
*GROUPS
G1 LMID=SITE1 GRPNO=1
G2 LMID=SITE2 GRPNO=2
*SERVERS
paysrv SRVGRP=G1 SRVID=1 MIN=2 RQADDR=payq CLOPT="-s PAYMENT"
ledger SRVGRP=G2 SRVID=1 MIN=2 RQADDR=ledq CLOPT="-s DEBIT,BALANCE"
auditsrv SRVGRP=G2 SRVID=10 CLOPT="-A"
*SERVICES
PAYMENT
DEBIT
BALANCE
`

// truthScenario is the truth the files are made from: latency 2 ms,
// PAYMENT erlang k=4 of 4 ms then DEBIT (exp 3 ms) and AUDIT (1.5 ms, no
// reply awaited), BALANCE exp 2 ms; 60 PAYMENT and 40 BALANCE a second
// from SITE1 for 40 s.
func truthScenario(noReply bool) *scenario.Scenario {
	ms := func(v float64) *float64 { return &v }
	k := 4
	return &scenario.Scenario{UBBConfig: truthUBB, Network: &scenario.NetworkSpec{LatencyMS: 2},
		Advertise: map[string][]string{"auditsrv": {"AUDIT"}},
		Services: map[string]scenario.ServiceSpec{
			"PAYMENT": {ServiceTime: &scenario.Dist{Dist: "erlang", MeanMS: ms(4), K: &k},
				Calls: []scenario.CallStep{{Service: "DEBIT"}, {Service: "AUDIT", Mode: "tpacall", NoReply: noReply}}},
			"DEBIT":   {ServiceTime: &scenario.Dist{Dist: "exp", MeanMS: ms(3)}},
			"BALANCE": {ServiceTime: &scenario.Dist{Dist: "exp", MeanMS: ms(2)}},
			"AUDIT":   {ServiceTime: &scenario.Dist{Dist: "const", MS: ms(1.5)}},
		},
		Seed: ptrU(11),
		Workload: scenario.Workload{Generate: &scenario.Generator{DurationMS: 40000, Streams: []scenario.Stream{
			{Service: "PAYMENT", Origin: "SITE1", Arrivals: "poisson", RatePerS: 60},
			{Service: "BALANCE", Origin: "SITE1", Arrivals: "poisson", RatePerS: 40},
		}}}}
}

func ptrU(v uint64) *uint64 { return &v }

// truthFiles runs the truth and writes what production would have left:
// each machine's ULOG with TMTRACE lines (ULOGMILLISEC=Y: stamps cut to the
// millisecond, at category) and a monitoring export in the European way
// (";", DD/MM/YYYY HH:MM:SS,mmm, decimal commas, an Elapsed(ms) column, a
// total line), every line from the truth's dispatch log.
func truthFiles(t *testing.T, dir string) (ulogs []string, export string) {
	t.Helper()
	return truthFilesOf(t, dir, truthScenario(true))
}

// truthFilesOf is truthFiles of the truth sc.
func truthFilesOf(t *testing.T, dir string, sc *scenario.Scenario) (ulogs []string, export string) {
	t.Helper()
	var dl bytes.Buffer
	if _, err := core.Run(sc, core.RunOptions{Dispatch: &dl}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&dl).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	get := func(r []string, name string) string { return r[col[name]] }
	num := func(r []string, name string) int64 {
		v, err := strconv.ParseInt(get(r, name), 10, 64)
		if err != nil {
			t.Fatalf("%s %q: %v", name, get(r, name), err)
		}
		return v
	}
	host := map[string]string{"SITE1": "node1", "SITE2": "node2", "G1": "node1", "G2": "node2"}
	proc := map[string]string{"G1/1": "paysrv.4001", "G1/2": "paysrv.4002", "G2/1": "ledger.5001", "G2/2": "ledger.5002", "G2/10": "auditsrv.5010"}
	const base = 10 * 3600 * 1_000_000 // 10:00:00 on the ULOGs' day
	stamp := func(us int64) string {
		ms := (base + us) / 1000
		s := ms / 1000
		return fmt.Sprintf("%02d%02d%02d.%03d", s/3600, s/60%60, s%60, ms%1000)
	}
	type line struct {
		us   int64
		seq  int
		text string
	}
	lines := map[string][]line{}
	seq := 0
	add := func(h string, us int64, tag, text string) {
		seq++
		lines[h] = append(lines[h], line{us, seq, stamp(us) + "." + h + "!" + tag + ": TRACE:at: " + text})
	}
	children := map[string][][]string{}
	var execs [][]string
	var exp strings.Builder
	exp.WriteString("Start;Service;Host;Elapsed(ms)\n")
	n := 0
	for _, r := range recs[1:] {
		if p := get(r, "parent"); p != "" {
			children[p] = append(children[p], r)
		}
		if get(r, "server") != "" && get(r, "end_us") != "" {
			execs = append(execs, r)
		}
		if get(r, "parent") != "" || get(r, "reply_us") == "" {
			continue
		}
		n++ // a client's call, and its row in the export
		h, tag := host[get(r, "origin")], fmt.Sprintf("client.3000.%d.0", n)
		add(h, num(r, "issue_us"), tag, fmt.Sprintf(`{ tpcall("%s", 0x1, 0, 0x2, 0x3, 0x0)`, get(r, "service")))
		add(h, num(r, "reply_us"), tag, "} tpcall = 1")
		ms := (base + num(r, "issue_us")) / 1000
		s := ms / 1000
		el := strings.Replace(strconv.FormatFloat(float64(num(r, "reply_us")-num(r, "issue_us"))/1000, 'f', 3, 64), ".", ",", 1)
		fmt.Fprintf(&exp, "06/12/2026 %02d:%02d:%02d,%03d;%s;%s;%s\n", s/3600, s/60%60, s%60, ms%1000, get(r, "service"), h, el)
	}
	exp.WriteString("Total;;;\n")
	// each server thread's executions in the order it ran them
	slices.SortStableFunc(execs, func(a, b []string) int {
		return strings.Compare(get(a, "server"), get(b, "server")) + 2*cmpInt(num(a, "start_us"), num(b, "start_us"))
	})
	for _, r := range execs {
		srv := get(r, "server")
		h, tag := host[strings.Split(srv, "/")[0]], proc[srv]+".1.0"
		add(h, num(r, "start_us"), tag, fmt.Sprintf(`{ tpservice({"%s", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})`, get(r, "service")))
		for _, c := range children[get(r, "id")] {
			if get(c, "service") == "AUDIT" { // TPNOREPLY: flags 0x4, no tpgetrply
				add(h, num(c, "issue_us"), tag, `{ tpacall("AUDIT", 0x1, 0, 0x4)`)
				add(h, num(c, "issue_us"), tag, "} tpacall = 0")
				continue
			}
			add(h, num(c, "issue_us"), tag, fmt.Sprintf(`{ tpcall("%s", 0x1, 0, 0x2, 0x3, 0x0)`, get(c, "service")))
			add(h, num(c, "reply_us"), tag, "} tpcall = 1")
		}
		add(h, num(r, "end_us"), tag, "} tpservice")
	}
	for _, h := range []string{"node1", "node2"} {
		ls := lines[h]
		slices.SortStableFunc(ls, func(a, b line) int { return cmpInt(a.us, b.us)*2 + cmpInt(int64(a.seq), int64(b.seq)) })
		var b strings.Builder
		b.WriteString("095959.000." + h + "!BBL.100.1.0: LIBTUX_CAT:262: INFO: Std main starting\n")
		for _, l := range ls {
			b.WriteString(l.text + "\n")
		}
		path := filepath.Join(dir, h, "ULOG.120626")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		ulogs = append(ulogs, path)
	}
	export = filepath.Join(dir, "export.csv")
	if err := os.WriteFile(export, []byte(exp.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return ulogs, export
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

// TestCalibrateKnownTruth takes an application's own files, made from a
// truth known in advance, from files to verdicts with no hand edit: the
// UBBCONFIG as it is (a server advertising at run time), two machines'
// ULOGs and a European export. The fit finds the truth's structure (the
// latency, the TPNOREPLY step, the families and means) and the replay
// passes (the p99 with a tolerance of 30%: BALANCE's 1 600 rows put 16
// above it, and its interval reaches about +35% when the batches' tails
// are correlated); the same model with the no-reply call waited for, or
// the latency 1 ms off, fails.
func TestCalibrateKnownTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 40 s of two machines five times")
	}
	dir := t.TempDir()
	ulogs, export := truthFiles(t, dir)
	ubbPath := filepath.Join(dir, "ubb.cfg")
	if err := os.WriteFile(ubbPath, []byte(truthUBB), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "fitted.json")
	args := []string{"calibrate", "--ubbconfig", ubbPath, "--ulog", ulogs[0], "--ulog", ulogs[1], "--trace", export,
		"--trace-map", "date_order=dmy", "--trace-skip-bad", "--tolerance", "p99=30%", "--out", out, "--replications", "5", "--format", "json"}
	var stdout, stderr bytes.Buffer
	if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("calibrate: exit %d (0: every service passes)\n%s\n%.3000s", code, stderr.String(), stdout.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var fitted scenario.Scenario
	if err := json.Unmarshal(data, &fitted); err != nil {
		t.Fatal(err)
	}
	// the median of whole-millisecond figures, interpolated: 2 ms to
	// within the few waits in its window
	if fitted.Network == nil || math.Abs(fitted.Network.LatencyMS-2) > 0.05 {
		t.Errorf("network %+v, want the latency measured: 2 ms", fitted.Network)
	}
	pay := fitted.Services["PAYMENT"]
	if len(pay.Calls) != 2 || pay.Calls[0].Service != "DEBIT" || pay.Calls[1].Service != "AUDIT" || !pay.Calls[1].NoReply || pay.Calls[0].NoReply {
		t.Errorf("PAYMENT's calls %+v, want tpcall DEBIT then AUDIT with noreply", pay.Calls)
	}
	if d := pay.ServiceTime; d == nil || d.Dist != "erlang" || *d.K != 4 || *d.MeanMS < 3.9 || *d.MeanMS > 4.1 {
		t.Errorf("PAYMENT's service time %+v, want erlang k=4 of about 4 ms", d)
	}
	for svc, mean := range map[string]float64{"DEBIT": 3, "BALANCE": 2} {
		if d := fitted.Services[svc].ServiceTime; d == nil || d.Dist != "exp" || *d.MeanMS < 0.95*mean || *d.MeanMS > 1.05*mean {
			t.Errorf("%s's service time %+v, want exp of about %g ms", svc, d, mean)
		}
	}
	if got := fitted.Advertise["auditsrv"]; !slices.Equal(got, []string{"AUDIT"}) {
		t.Errorf("auditsrv advertises %v, want what its ULOG shows it ran: AUDIT", got)
	}
	// A hold-out window: fitted from the first 20 s (the ULOGs' lines and
	// the generated streams' span), judged on the rows after them.
	held := filepath.Join(dir, "held.json")
	hargs := append(slices.Clone(args[:len(args)-6]), "--out", held, "--replications", "5", "--validate-after", "20s", "--format", "json")
	stdout.Reset()
	// 20 s of rows to judge by: the tails' intervals are wider, so a
	// figure may be inconclusive (exit 4), never a failure (3)
	if code := Main(hargs, strings.NewReader(""), &stdout, &stderr); code != 0 && code != 4 {
		t.Fatalf("calibrate --validate-after 20s: exit %d, want 0 or 4\n%s", code, stderr.String())
	}
	var ans struct {
		Validation struct {
			FromMS float64 `json:"from_ms"`
		} `json:"validation"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &ans); err != nil {
		t.Fatal(err)
	}
	hdata, _ := os.ReadFile(held)
	var hsc scenario.Scenario
	if err := json.Unmarshal(hdata, &hsc); err != nil {
		t.Fatal(err)
	}
	if ans.Validation.FromMS != 20000 || hsc.Workload.Generate == nil || hsc.Workload.Generate.DurationMS > 20000 || hsc.Workload.Generate.DurationMS < 19000 {
		t.Errorf("held out: judged from %g ms, streams fitted over %+v ms; want from 20000, fitted over the first 20 s", ans.Validation.FromMS, hsc.Workload.Generate)
	}
	// The same model with one structural element wrong fails its replay.
	for name, wrong := range map[string]func(*scenario.Scenario){
		"the no-reply call waited for": func(sc *scenario.Scenario) {
			p := sc.Services["PAYMENT"]
			p.Calls = slices.Clone(p.Calls)
			p.Calls[1].NoReply = false
			sc.Services["PAYMENT"] = p
		},
		"the latency 1 ms off": func(sc *scenario.Scenario) { sc.Network = &scenario.NetworkSpec{LatencyMS: 3} },
	} {
		var sc scenario.Scenario
		json.Unmarshal(data, &sc)
		wrong(&sc)
		path := filepath.Join(dir, "wrong.json")
		b, _ := json.Marshal(&sc)
		os.WriteFile(path, b, 0o644)
		stdout.Reset()
		if code := Main([]string{"run", "--trace", export, "--trace-map", "date_order=dmy", "--trace-skip-bad", "--replications", "5", path},
			strings.NewReader(""), &stdout, io.Discard); code != 0 {
			t.Fatalf("%s: run exit %d", name, code)
		}
		var res struct {
			Validation struct {
				Verdict string `json:"verdict"`
			} `json:"validation"`
			Trace struct {
				Columns map[string]string `json:"columns"`
			} `json:"trace"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		// the result says how each column was read: the elapsed time is
		// the observed response, never the service time
		if c := res.Trace.Columns; c["Elapsed(ms)"] != "observed" || c["Start"] != "time" || c["Host"] != "origin" {
			t.Errorf("%s: the trace block's columns %v, want Elapsed(ms) observed, Start time, Host origin", name, c)
		}
		if res.Validation.Verdict != "fail" {
			t.Errorf("%s: verdict %q, want fail", name, res.Validation.Verdict)
		}
	}
}

// TestCalibrateULOGZone: an export written in UTC without a zone beside
// ULOGs in their machines' local time, an hour ahead (+01:00). Without
// --ulog-tz the hold-out cut, the export's first row plus 20 s on the
// export's clock, falls before the ULOGs' first line: nothing is fitted
// and a warning gives both times. With --ulog-tz +01:00 the cut is placed
// on the ULOGs' clock, and the fit reads their first 20 s.
func TestCalibrateULOGZone(t *testing.T) {
	if testing.Short() {
		t.Skip("fits and replays 40 s of two machines twice")
	}
	dir := t.TempDir()
	ulogs, export := truthFiles(t, dir)
	data, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	utc := strings.ReplaceAll(string(data), " 10:00:", " 09:00:") // the 40 s of rows, an hour earlier
	if utc == string(data) {
		t.Fatal("the export has no row at 10:00")
	}
	if err := os.WriteFile(export, []byte(utc), 0o644); err != nil {
		t.Fatal(err)
	}
	ubbPath := filepath.Join(dir, "ubb.cfg")
	if err := os.WriteFile(ubbPath, []byte(truthUBB), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"calibrate", "--ubbconfig", ubbPath, "--ulog", ulogs[0], "--ulog", ulogs[1], "--trace", export,
		"--trace-map", "date_order=dmy", "--trace-skip-bad", "--out", filepath.Join(dir, "fitted.json"), "--replications", "1",
		"--validate-after", "20s", "--format", "json"}
	const cutWarning = "is not after the ULOG's first line"
	for _, c := range []struct {
		zone     []string
		cutWarns bool
	}{{nil, true}, {[]string{"--ulog-tz", "+01:00"}, false}} {
		var stdout, stderr bytes.Buffer
		code := Main(append(slices.Clone(args), c.zone...), strings.NewReader(""), &stdout, &stderr)
		var ans struct {
			FitWarnings []string `json:"fit_warnings"`
			Out         string
		}
		if err := json.Unmarshal(stdout.Bytes(), &ans); err != nil {
			t.Fatalf("%v: exit %d, %v\n%s", c.zone, code, err, stderr.String())
		}
		warned := slices.ContainsFunc(ans.FitWarnings, func(w string) bool { return strings.Contains(w, cutWarning) })
		fitted, _ := os.ReadFile(filepath.Join(dir, "fitted.json"))
		var sc scenario.Scenario
		if err := json.Unmarshal(fitted, &sc); err != nil {
			t.Fatal(err)
		}
		measured := sc.Services["PAYMENT"].ServiceTime != nil && sc.Services["PAYMENT"].ServiceTime.Dist == "erlang"
		if warned != c.cutWarns || measured == c.cutWarns {
			t.Errorf("%v: exit %d, the cut's warning %v (want %v), PAYMENT's time measured %v (want %v)\nwarnings %q",
				c.zone, code, warned, c.cutWarns, measured, !c.cutWarns, ans.FitWarnings)
		}
	}
	var stderr bytes.Buffer
	if code := Main([]string{"calibrate", "--ubbconfig", ubbPath, "--trace", export, "--ulog-tz", "Europe/Nowhere", "--out", "x.json"},
		strings.NewReader(""), io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "--ulog-tz places the --trace export beside the --ulog files") {
		t.Errorf("--ulog-tz without --ulog: exit %d, %s; want 2 naming the flag", code, stderr.String())
	}
	stderr.Reset()
	if code := Main(append(slices.Clone(args), "--ulog-tz", "Europe/Nowhere"), strings.NewReader(""), io.Discard, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), `--ulog-tz: unknown zone "Europe/Nowhere"`) {
		t.Errorf("an unknown zone: exit %d, %s; want 2 naming the flag and the zone", code, stderr.String())
	}
}

// TestFitLongLogKnownTruth fits five minutes of the truth's two machines
// (30 000 requests, about 20 MB of ULOG) read whole, and within budgets
// whose records kept one by one it passes (--memory-budget 16M: 87 381
// records; 4M: 21 845): past them the arrivals are counted by minute and
// the spans thinned (one second in 2 here: a thinning keeps at least a
// 64th of the seconds read so far), and the fitted scenario is the same,
// byte for byte (the rates are the same counts over the same span, the
// service times all kept, the latency the same from under half the calls:
// 2 ms to within its millisecond stamps); the report says the log was
// long.
func TestFitLongLogKnownTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("writes five minutes of two machines' ULOGs")
	}
	dir := t.TempDir()
	sc := truthScenario(true)
	sc.Workload.Generate.DurationMS = 300000
	ulogs, _ := truthFilesOf(t, dir, sc)
	ubbPath := filepath.Join(dir, "ubb.cfg")
	if err := os.WriteFile(ubbPath, []byte(truthUBB), 0o644); err != nil {
		t.Fatal(err)
	}
	fitted := map[string]string{}
	for _, budget := range []string{"4G", "16M", "4M"} {
		out := filepath.Join(dir, "fitted-"+budget+".json")
		var stdout, stderr bytes.Buffer
		if code := Main([]string{"fit", "--memory-budget", budget, "--ubbconfig", ubbPath, "--ulog", ulogs[0], "--ulog", ulogs[1], "--out", out},
			strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d\n%s", budget, code, stderr.String())
		}
		long := strings.Contains(stderr.String(), "warning: a long log: past ")
		if long != (budget != "4G") {
			t.Errorf("%s: the long log's warning %v, want it past the bound only\n%s", budget, long, stderr.String())
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		fitted[budget] = string(data)
		var rep struct {
			Network struct {
				LatencyMS float64 `json:"latency_ms"`
				Samples   int     `json:"samples"`
			} `json:"network"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: latency %g ms from %d calls", budget, rep.Network.LatencyMS, rep.Network.Samples)
		if math.Abs(rep.Network.LatencyMS-2) > 0.05 || rep.Network.Samples < 1000 {
			t.Errorf("%s: latency %g ms from %d calls, want 2 ms from 1 000 or more", budget, rep.Network.LatencyMS, rep.Network.Samples)
		}
	}
	for _, budget := range []string{"16M", "4M"} {
		if fitted[budget] != fitted["4G"] {
			t.Errorf("%s: the fitted scenario differs from the one read whole\n%s\nwhole\n%s", budget, fitted[budget], fitted["4G"])
		}
	}
}
