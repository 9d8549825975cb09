package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// calibUBB is one machine with an MSSQ set of n simpserv instances offering
// QA and QB.
func calibUBB(n int) string {
	return "*RESOURCES\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=site1\n*GROUPS\nG1 LMID=site1 GRPNO=1\n" +
		fmt.Sprintf("*SERVERS\nsimpserv SRVGRP=G1 SRVID=1 MIN=%d MAX=%d RQADDR=Q1 REPLYQ=Y CLOPT=\"-s QA,QB\"\n", n, n)
}

// calibExport is a production export made on three servers: Poisson
// arrivals of QA (100/s, service times exponential of mean 10 ms) and QB
// (40/s, 20 ms) for 40 s, from a fixed seed, each row with its service time
// and the response the true configuration gave it (its dispatch log's
// reply_us - issue_us).
func calibExport(t *testing.T) string {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	type row struct {
		at, svcMS float64
		svc       string
	}
	var rows []row
	for _, s := range []struct {
		svc        string
		rate, mean float64
	}{{"QA", 100, 10}, {"QB", 40, 20}} {
		for at := r.ExpFloat64() * 1000 / s.rate; at < 40000; at += r.ExpFloat64() * 1000 / s.rate {
			rows = append(rows, row{at, r.ExpFloat64() * s.mean, s.svc})
		}
	}
	// in time order
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && rows[j].at < rows[j-1].at; j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
	var b strings.Builder
	b.WriteString("time_ms,service,id,service_ms\n")
	for i, rw := range rows {
		fmt.Fprintf(&b, "%.3f,%s,r%d,%.3f\n", rw.at, rw.svc, i, rw.svcMS)
	}
	var dl bytes.Buffer
	sc := &scenario.Scenario{UBBConfig: calibUBB(3), Workload: scenario.Workload{TraceCSV: b.String()}}
	if _, err := core.Run(sc, core.RunOptions{Dispatch: &dl}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&dl).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	resp := map[string]string{}
	for _, rec := range recs[1:] {
		issue, _ := strconv.ParseInt(rec[3], 10, 64)
		reply, _ := strconv.ParseInt(rec[9], 10, 64)
		resp[rec[0]] = strconv.FormatFloat(float64(reply-issue)/1000, 'f', 3, 64)
	}
	var out strings.Builder
	out.WriteString("time_ms,service,id,service_ms,observed_ms\n")
	for i, rw := range rows {
		fmt.Fprintf(&out, "%.3f,%s,r%d,%.3f,%s\n", rw.at, rw.svc, i, rw.svcMS, resp["r"+strconv.Itoa(i)])
	}
	return out.String()
}

// TestCalibrate: the export fitted (from its first 20 s) and replayed on
// the configuration it came from passes (exit 0); on one with two servers
// instead of three (90% busy instead of 60%: responses far longer) it fails
// (exit 3). The replay draws the service times from the fitted
// distributions, never the rows' own (which would give the observed
// responses back whatever was fitted): the verdicts judge the fit. 20 s of
// 100 and 40 rows a second judge the true model within about ±21%, so the
// tolerance is 25%; the p99 of QB's 800 rows rests on its 8 largest, and
// when the batches' tails are correlated its interval reaches the largest
// (about −36% to +30% relative): p99 45%.
func TestCalibrate(t *testing.T) {
	dir := t.TempDir()
	export := filepath.Join(dir, "export.csv")
	if err := os.WriteFile(export, []byte(calibExport(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3} {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("ubb%d", n)), []byte(calibUBB(n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "sc.json")
	code, stdout, stderr := tuxlbRun("calibrate", "--ubbconfig", filepath.Join(dir, "ubb3"), "--trace", export, "--out", out,
		"--replications", "10", "--tolerance", "25%,p99=45%", "--validate-after", "20s")
	if code != 0 {
		t.Fatalf("the true configuration: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"PASS", "QA", "QB", "p99", "throughput/s"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var sc scenario.Scenario
	if err := json.Unmarshal(data, &sc); err != nil {
		t.Fatal(err)
	}
	if sc.Services["QA"].ServiceTime == nil || sc.Validation == nil || sc.Validation.AfterMS == nil || *sc.Validation.AfterMS != 20000 ||
		*sc.Validation.Tolerance.Default != 0.25 {
		t.Errorf("--out: want QA's fitted service time and the validation options (after 20000 ms, 25%%), got %s", data)
	}

	// the replay draws every row's service time from the fit: its
	// replications differ (with the rows' own times, every one would give
	// the same responses back, an interval of width 0)
	code, stdout, stderr = tuxlbRun("calibrate", "--ubbconfig", filepath.Join(dir, "ubb3"), "--trace", export, "--out", out,
		"--replications", "3", "--validate-after", "20s", "--format", "json")
	var drawn struct {
		Validation struct {
			Services []struct {
				Service     string
				SimulatedCI struct{ Mean struct{ Lo, Hi float64 } } `json:"simulated_ci"`
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &drawn); err != nil || len(drawn.Validation.Services) != 2 {
		t.Fatalf("the true configuration, --format json: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	for _, s := range drawn.Validation.Services {
		if iv := s.SimulatedCI.Mean; !(iv.Hi > iv.Lo) {
			t.Errorf("%s: the replications' mean response interval %+v, want the replications to differ (service times drawn from the fit)", s.Service, iv)
		}
	}

	code, stdout, stderr = tuxlbRun("calibrate", "--ubbconfig", filepath.Join(dir, "ubb2"), "--trace", export, "--out", out,
		"--replications", "3", "--tolerance", "15%", "--format", "json")
	if code != 3 {
		t.Fatalf("two servers instead of three: exit %d, want 3\n%s%s", code, stdout, stderr)
	}
	var ans struct {
		Validation struct {
			Verdict      string
			Replications int
			FromMS       float64 `json:"from_ms"`
			Services     []struct {
				Service  string
				Verdict  string
				Verdicts struct{ Mean string }
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &ans); err != nil {
		t.Fatalf("--format json: %v\n%s", err, stdout)
	}
	v := ans.Validation
	if v.Verdict != "fail" || v.Replications != 3 || v.FromMS != 0 || len(v.Services) != 2 {
		t.Errorf("two servers: got %+v, want fail over 2 services, 3 replications, from 0", v)
	}
	for _, s := range v.Services {
		if s.Verdicts.Mean != "fail" {
			t.Errorf("two servers, %s: mean verdict %q, want fail", s.Service, s.Verdicts.Mean)
		}
	}
}

// TestCalibrateUsage: bad flags exit 2, naming the flag.
func TestCalibrateUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--trace", "x.csv", "--out", "o.json"}, "--ubbconfig"},
		{[]string{"--ubbconfig", "u", "--out", "o.json"}, "--ulog FILE... or --trace"},
		{[]string{"--ubbconfig", "u", "--trace", "x.csv"}, "--out"},
		{[]string{"--ubbconfig", "u", "--trace", "x.csv", "--out", "o", "--tolerance", "p98=10%"}, "unknown figure"},
		{[]string{"--ubbconfig", "u", "--trace", "x.csv", "--out", "o", "--tolerance", "0"}, "--tolerance"},
		{[]string{"--ubbconfig", "u", "--trace", "x.csv", "--out", "o", "--validate-after", "soon"}, "--validate-after"},
		{[]string{"--ubbconfig", "u", "--trace", "x.csv", "--out", "o", "--validate-after", "1000000001"}, "--validate-after: \"1000000001\": past the longest simulated time"},
		{[]string{"--ubbconfig", "u", "--trace", "x.csv", "--out", "o", "--validate-after", "300h"}, "--validate-after: \"300h\": past the longest simulated time"},
		{[]string{"--ubbconfig", "u", "--trace", "x.csv", "--out", "o", "--replications", "101"}, "--replications"},
	} {
		code, _, stderr := tuxlbRun(append([]string{"calibrate"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %q", c.args, code, firstLine(stderr), c.want)
		}
	}
}

// hasLine says whether a line of text starts with first and holds also.
func hasLine(text, first, also string) bool {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, first) && strings.Contains(line, also) {
			return true
		}
	}
	return false
}

func firstLine(s string) string { line, _, _ := strings.Cut(s, "\n"); return line }

// TestRunValidationFlags: run's --replications, --tolerance and
// --validate-after reach the replay's validation.
func TestRunValidationFlags(t *testing.T) {
	dir := t.TempDir()
	export, ubb := filepath.Join(dir, "export.csv"), filepath.Join(dir, "ubb")
	os.WriteFile(export, []byte(calibExport(t)), 0o644)
	os.WriteFile(ubb, []byte(calibUBB(3)), 0o644)
	code, stdout, stderr := tuxlbRun("run", "--ubbconfig", ubb, "--trace", export, "--replications", "2",
		"--tolerance", "p99=30%,mean=5%", "--validate-after", "20000", "--no-progress")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Validation struct {
			FromMS       float64 `json:"from_ms"`
			Replications int
			Tolerance    struct{ Mean, P50, P99 float64 }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	v := res.Validation
	// --format summary ends with the validation's table
	code, stdout, stderr = tuxlbRun("run", "--ubbconfig", ubb, "--trace", export, "--tolerance", "15%", "--format", "summary", "--no-progress")
	if code != 0 || !strings.Contains(stdout, "Validation of rows issued from 0.000") || !hasLine(stdout, "QB", "p99") {
		t.Errorf("--format summary: exit %d, want the validation's table:\n%s%s", code, stdout, stderr)
	}
	if v.FromMS != 20000 || v.Replications != 2 || v.Tolerance.Mean != 0.05 || v.Tolerance.P99 != 0.3 || v.Tolerance.P50 != 0.1 {
		t.Errorf("got %+v, want from 20000 ms, 2 replications, tolerance mean 5%%, p99 30%%, p50 the default 10%%", v)
	}
	// a window past the log's last row: the table says no row is judged
	code, stdout, stderr = tuxlbRun("run", "--ubbconfig", ubb, "--trace", export, "--validate-after", "1000000", "--format", "summary", "--no-progress")
	if code != 0 || !strings.Contains(stdout, "Validation: no row judged (the window starts at 1000000.000 ms") || !strings.Contains(stdout, "INCONCLUSIVE") {
		t.Errorf("a window past the log: exit %d, want the table to say no row is judged:\n%s%s", code, stdout, stderr)
	}
}

// TestReplicationsRange: run's and calibrate's --replications take
// 1..100, as their help says (1: one run, docs/fit.md); 0 written, or
// past 100, is a usage error.
func TestReplicationsRange(t *testing.T) {
	for _, cmd := range []string{"run", "calibrate"} {
		code, out, _ := tuxlbRun(cmd, "--help")
		if code != 0 || !strings.Contains(out, "runs with derived seeds, 1..100 (1: one run)") || strings.Contains(out, "2..100") {
			t.Errorf("%s --help: exit %d; want --replications 1..100 in:\n%s", cmd, code, out)
		}
	}
	bankUBB, node1 := bankULOG+"ubbconfig", bankULOG+"node1/ULOG.120126"
	out := filepath.Join(t.TempDir(), "fitted.json")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"run", "--replications", "1", "--no-progress", "../../examples/admin-guide.json"}, 0},
		{[]string{"calibrate", "--replications", "1", "--ubbconfig", bankUBB, "--ulog", node1, "--out", out}, 0},
		{[]string{"run", "--replications", "0", "../../examples/admin-guide.json"}, 2},
		{[]string{"run", "--replications", "101", "../../examples/admin-guide.json"}, 2},
		{[]string{"calibrate", "--replications", "0", "--ubbconfig", bankUBB, "--ulog", node1, "--out", out}, 2},
	} {
		code, _, stderr := tuxlbRun(tc.args...)
		if code != tc.code || tc.code == 2 && !strings.Contains(stderr, "--replications: want 1..100, got "+tc.args[2]) {
			t.Errorf("%v: exit %d, stderr %q; want %d", tc.args, code, firstLine(stderr), tc.code)
		}
	}
}

// calibFiles writes calibUBB(2) and the export text into a directory of
// the test's: the directory and the two files' paths.
func calibFiles(t *testing.T, exportText string) (dir, ubbPath, export string) {
	t.Helper()
	dir = t.TempDir()
	ubbPath, export = filepath.Join(dir, "ubb"), filepath.Join(dir, "export.csv")
	if err := os.WriteFile(ubbPath, []byte(calibUBB(2)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(export, []byte(exportText), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, ubbPath, export
}

// An export without observed responses has nothing to judge the fitted
// scenario by: calibrate says so before it writes anything to --out.
func TestCalibrateNoObservedWritesNothing(t *testing.T) {
	dir, ubbPath, export := calibFiles(t, "time_ms,service,service_ms\n0,QA,2\n10,QA,3\n")
	out := filepath.Join(dir, "sc.json")
	code, _, stderr := tuxlbRun("calibrate", "--ubbconfig", ubbPath, "--trace", export, "--out", out)
	if code != 1 || !strings.Contains(stderr, "has no observed responses") {
		t.Errorf("exit %d, stderr %q; want exit 1 saying there are no observed responses", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out was written (%v), want nothing", err)
	}
}

// An export without service times calibrates nothing: the scenario keeps
// the starter's guesses, and calibrate says plainly that its verdicts
// judge them.
func TestCalibrateNothingMeasuredSaysSo(t *testing.T) {
	dir, ubbPath, export := calibFiles(t, "time_ms,service,observed_ms\n0,QA,2\n10,QA,3\n20,QA,2\n")
	_, _, stderr := tuxlbRun("calibrate", "--ubbconfig", ubbPath, "--trace", export, "--out", filepath.Join(dir, "sc.json"), "--replications", "2")
	if !strings.Contains(stderr, "warning: no service time was measured: the scenario keeps the starter's guesses, so the verdicts judge guesses") ||
		!strings.Contains(stderr, "0 of ") {
		t.Errorf("stderr %q: want the warning that nothing was calibrated", stderr)
	}
}

// Fitted from ULOG files, an export is only replayed: its response column
// left unmapped draws no warning that the log gives no service time or
// that mapping it as service_ms would, which would change nothing (the
// export's times are not read). Fitted from the export, the warning stays.
func TestCalibrateFromULOGNoExportColumnWarning(t *testing.T) {
	dir := t.TempDir()
	export := filepath.Join(dir, "export.csv")
	if err := os.WriteFile(export, []byte("Start,Svc,Elapsed(ms)\n2026-12-01 10:00:00.100,TRANSFER,17\n2026-12-01 10:00:01.100,TRANSFER,19\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const warning = `column "Elapsed(ms)" read as the observed response`
	_, _, stderr := tuxlbRun("calibrate", "--ubbconfig", bankULOG+"ubbconfig", "--ulog", bankULOG+"node1/ULOG.120126",
		"--trace", export, "--out", filepath.Join(dir, "a.json"), "--replications", "2")
	if strings.Contains(stderr, warning) || !strings.Contains(stderr, "wrote ") {
		t.Errorf("from a ULOG: stderr %q; want no warning about the export's columns", stderr)
	}
	_, _, stderr = tuxlbRun("calibrate", "--ubbconfig", bankULOG+"ubbconfig", "--trace", export, "--out", filepath.Join(dir, "b.json"), "--replications", "2")
	if !strings.Contains(stderr, warning) {
		t.Errorf("from the export: stderr %q; want the warning about its response column", stderr)
	}
}

// An export whose date order cannot be decided, given beside ULOG files
// with a hold-out window (read first to place the cut), is an error that
// names the export, not the UBBCONFIG, and does not offer
// --trace-skip-bad, which skips rows, for a problem of the whole column.
func TestCalibrateExportErrorNamesTheExport(t *testing.T) {
	bank := filepath.Join("..", "..", "core", "ulog", "testdata", "bank")
	dir := t.TempDir()
	export := filepath.Join(dir, "export.csv")
	if err := os.WriteFile(export, []byte("Start,Svc,Elapsed(ms)\n01/12/2026 10:00:00.100,TRANSFER,17\n01/12/2026 10:00:01.100,TRANSFER,19\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := tuxlbRun("calibrate", "--ubbconfig", filepath.Join(bank, "ubbconfig"),
		"--ulog", filepath.Join(bank, "node1", "ULOG.120126"), "--ulog", filepath.Join(bank, "node2", "ULOG.120126"),
		"--trace", export, "--out", filepath.Join(dir, "sc.json"), "--validate-after", "5s")
	if code != 1 || !strings.Contains(stderr, "tuxlb calibrate: "+export+": trace_csv: column \"Start\"") ||
		!strings.Contains(stderr, "date_order=dmy") || strings.Contains(stderr, "--trace-skip-bad") {
		t.Errorf("exit %d, stderr %q; want exit 1, the error naming %s and date_order, no --trace-skip-bad", code, stderr, export)
	}
}
