package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const bankULOG = "../../core/ulog/testdata/bank/"

// tuxlbRun runs Main and returns its exit code, stdout and stderr.
func tuxlbRun(args ...string) (int, string, string) { return tuxlbRunStdin("", args...) }

// tuxlbRunStdin runs Main with stdin as its standard input.
func tuxlbRunStdin(stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// The bank ULOGs (core/ulog/testdata/bank/NOTES.md): own-work times, calls
// and arrivals as constructed, hosts mapped to LMIDs; --out then run.
func TestFitULOGThenRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sc.json")
	code, stdout, stderr := tuxlbRun("fit", "--ulog", bankULOG+"node1/ULOG.120126", "--ulog", bankULOG+"node2/ULOG.120126",
		"--ubbconfig", bankULOG+"ubbconfig", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Services map[string]struct {
			Samples  int
			MeanMS   float64     `json:"mean_ms"`
			MeanCIMS *[2]float64 `json:"mean_ci_ms"`
			Fit      map[string]any
			Calls    []struct {
				Service, Mode string
				P             *float64
			}
		}
		Arrivals struct {
			SpanS    float64 `json:"span_s"`
			Services map[string]struct {
				Origins map[string]float64
			}
		}
		ULOG    struct{ Malformed int }
		Servers map[string][]string
		Network struct {
			LatencyMS float64 `json:"latency_ms"`
			Samples   int
			Measured  bool
		}
		Figures []struct{ Figure, Source string }
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	// The client's TRANSFER call spans 11+w+a ms, TRANSFER's execution on
	// node2 9+w+a ms (NOTES.md): (11 - 9) / 2 = 1 ms each way, 10 samples.
	if n := rep.Network; n.LatencyMS != 1 || n.Samples != 10 || !n.Measured {
		t.Errorf("network %+v, want 1 ms from 10 calls", n)
	}
	if got := rep.Servers["node2!BAL"]; len(got) != 2 || got[0] != "DEPOSIT" || got[1] != "WITHDRAWAL" || len(rep.Figures) == 0 {
		t.Errorf("servers %v figures %v", rep.Servers, rep.Figures)
	}
	for _, f := range rep.Figures {
		if f.Source != "measured" {
			t.Errorf("figure %+v: the bank's scenario has every figure measured", f)
		}
	}
	x := rep.Services["TRANSFER"]
	if x.Samples != 10 || x.MeanMS != 2.9 || len(x.Calls) != 3 || x.Calls[2].Service != "AUDIT" || x.Calls[2].Mode != "tpacall" ||
		x.Calls[2].P == nil || *x.Calls[2].P != 0.3 || x.Calls[0].P != nil {
		t.Errorf("TRANSFER: %+v", x)
	}
	// its mean's interval, as docs/fit.md shows it: 2.9 ± t(0.975, 9) · 0.8756 / √10
	if iv := x.MeanCIMS; iv == nil || *iv != [2]float64{2.274, 3.526} {
		t.Errorf("TRANSFER's mean interval %v, want [2.274 3.526]", iv)
	}
	if d := rep.Services["DEPOSIT"]; d.Fit["dist"] != "const" || d.Fit["ms"] != 4.0 {
		t.Errorf("DEPOSIT: %+v, want const 4 ms", d)
	}
	if o := rep.Arrivals.Services["TRANSFER"].Origins; len(o) != 1 || o["SITE1"] != 1.11 || rep.Arrivals.SpanS != 9 {
		t.Errorf("arrivals %+v: want TRANSFER 10 in 9 s (1.11/s) from SITE1 (host node1)", rep.Arrivals)
	}
	if rep.ULOG.Malformed != 2 || !strings.Contains(stderr, "2 malformed TRACE lines") {
		t.Errorf("malformed %d, stderr %q", rep.ULOG.Malformed, stderr)
	}
	code, runOut, stderr := tuxlbRun("run", out)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var res struct {
		Requests struct {
			Issued, Completed, Nested int
			Failed                    map[string]int
		}
	}
	if err := json.Unmarshal([]byte(runOut), &res); err != nil {
		t.Fatal(err)
	}
	if res.Requests.Issued == 0 || res.Requests.Issued != res.Requests.Completed || len(res.Requests.Failed) != 0 || res.Requests.Nested == 0 {
		t.Errorf("run: %+v, want every request completed, nested calls made", res.Requests)
	}
	// init --ulog makes the same scenario.
	init := filepath.Join(t.TempDir(), "init.json")
	code, _, stderr = tuxlbRun("init", "--ubbconfig", bankULOG+"ubbconfig", "--ulog", bankULOG+"node1/ULOG.120126",
		"--ulog", bankULOG+"node2/ULOG.120126", "--out", init)
	if code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	// its service times were fitted: the next step is not to set them by
	// hand (every figure of the bank's log is measured)
	if !strings.Contains(stderr, "Next: run it, and judge it by an export") || strings.Contains(stderr, "what you measure") {
		t.Errorf("init --ulog's next step:\n%s", stderr)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(init)
	if !bytes.Equal(a, b) {
		t.Error("init --ulog and fit --out wrote different scenarios")
	}
}

const fitUBB = `*RESOURCES
MODEL SHM
LDBAL Y
*MACHINES
h LMID=SITE1
*GROUPS
G LMID=SITE1 GRPNO=1
*SERVERS
srv SRVGRP=G SRVID=1 MIN=4 CLOPT="-s QUERY,UPDATE"
`

// A two-hour request log whose QUERY times are lognormal (mean 8 ms, sd
// 6 ms) and UPDATE times exponential (mean 15 ms): the report names the
// families, gives hourly rates (2 000 rows in the first hour, 1 000 in the
// second), and the scenario --out writes runs.
func TestFitTraceThenRun(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("time_ms,service,origin,service_ms\n")
	sigma := math.Sqrt(math.Log(1 + 36.0/64))
	mu := math.Log(8) - sigma*sigma/2
	for i := range 3000 {
		var at float64
		if i < 2000 {
			at = float64(i) * 1800 // 2 000 in the first hour
		} else {
			at = 3600000 + float64(i-2000)*3600 // 1 000 in the second
		}
		if i%3 == 2 {
			fmt.Fprintf(&b, "%.0f,UPDATE,SITE1,%.3f\n", at, 15*r.ExpFloat64())
		} else {
			fmt.Fprintf(&b, "%.0f,QUERY,SITE1,%.3f\n", at, math.Exp(mu+sigma*r.NormFloat64()))
		}
	}
	tracePath, ubbPath, out := filepath.Join(dir, "log.csv"), filepath.Join(dir, "ubb"), filepath.Join(dir, "sc.json")
	os.WriteFile(tracePath, []byte(b.String()), 0o644)
	os.WriteFile(ubbPath, []byte(fitUBB), 0o644)
	code, stdout, stderr := tuxlbRun("fit", "--trace", tracePath, "--ubbconfig", ubbPath, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Services map[string]struct {
			Samples int
			Fit     struct {
				Dist   string
				MeanMS float64 `json:"mean_ms"`
			}
		}
		Arrivals struct {
			Services map[string]struct {
				RatePerS float64 `json:"rate_per_s"`
				Hourly   []struct {
					Hour     int
					RatePerS float64 `json:"rate_per_s"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	q, u := rep.Services["QUERY"], rep.Services["UPDATE"]
	if q.Samples != 2000 || q.Fit.Dist != "lognormal" || math.Abs(q.Fit.MeanMS-8) > 0.4 {
		t.Errorf("QUERY: %+v, want lognormal of mean 8 ms", q)
	}
	if u.Samples != 1000 || u.Fit.Dist != "exp" || math.Abs(u.Fit.MeanMS-15) > 1.5 {
		t.Errorf("UPDATE: %+v, want exp of mean 15 ms", u)
	}
	// QUERY: rows with i mod 3 of 0 or 1: 1 334 in the first hour
	// (0.3706/s), 666 in the second, which the log covers up to its last
	// row (3 596.4 s: 0.1852/s); rates to three digits.
	h := rep.Arrivals.Services["QUERY"].Hourly
	if len(h) != 2 || h[0].RatePerS != 0.371 || h[1].RatePerS != 0.185 {
		t.Errorf("QUERY hourly %+v, want 0.371 then 0.185 per second", h)
	}
	code, runOut, stderr := tuxlbRun("run", out)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var res struct {
		Requests struct {
			Issued, Completed int
		}
	}
	json.Unmarshal([]byte(runOut), &res)
	// About 3 000 requests over the two hours.
	if res.Requests.Completed < 2700 || res.Requests.Completed > 3300 || res.Requests.Issued != res.Requests.Completed {
		t.Errorf("run: %+v, want about 3 000 completed", res.Requests)
	}
}

func TestFitFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"fit"}, 2, "want --trace FILE or --ulog FILE"},
		{[]string{"fit", "--trace", "a", "--ulog", "b"}, 2, "one of them"},
		{[]string{"fit", "--ulog", bankULOG + "node1/ULOG.120126", "--out", "x"}, 2, "--out needs --ubbconfig"},
		{[]string{"fit", "--ulog", "/nonexistent/ULOG.010126"}, 1, "--ulog: open /nonexistent"},
		{[]string{"fit", "--ulog", "-", "--ubbconfig", "-"}, 2, "standard input"},
		{[]string{"init", "--ubbconfig", bankULOG + "ubbconfig", "--fit"}, 2, "--fit fits a --trace"},
	} {
		code, _, stderr := tuxlbRun(tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, tt.code, tt.msg)
		}
	}
	// A trace row that cannot be read names the file and the row.
	p := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(p, []byte("time_ms,service,service_ms\n0,A,1\nx,A,2\n"), 0o644)
	if code, _, stderr := tuxlbRun("fit", "--trace", p); code != 1 || !strings.Contains(stderr, "bad.csv") || !strings.Contains(stderr, "row 2") {
		t.Errorf("bad row: exit %d, %q", code, stderr)
	}
}

// The --ulog files are read as the fit goes, whatever their size: fitting
// plans 1.5 bytes for each byte of a ULOG file (ulogPlan), up to what the
// records it keeps one by one take (ulogKeep: a quarter of the budget, 48
// bytes each; past them a long log's are thinned and counted by minute),
// and ulogHeldFactor (6) for one from standard input, held whole. The
// bank's two files, 2 139 and 15 481 bytes, are fitted within a budget of
// 1 KiB: 1 024 / 4 / 48 = 5 records, so the report says the log is long.
// With the second from standard input, min(3 208, the bound) bytes are
// planned for the first, and the rest of the budget over 6 is what
// standard input may hold: 94 KiB (96 256; a bound of 501 records, 48 096
// bytes) leaves 15 508 bytes, enough for 15 481; 93 KiB (95 232) leaves
// 15 337 (15.0 KiB), too few.
func TestFitULOGBudget(t *testing.T) {
	n1, n2 := bankULOG+"node1/ULOG.120126", bankULOG+"node2/ULOG.120126"
	for _, f := range []struct {
		path string
		size int64
	}{{n1, 2139}, {n2, 15481}} {
		if fi, err := os.Stat(f.path); err != nil || fi.Size() != f.size {
			t.Fatalf("%s: %v, want %d bytes (the derivation above)", f.path, err, f.size)
		}
	}
	if code, out, stderr := tuxlbRun("fit", "--memory-budget", "1K", "--ulog", n1, "--ulog", n2); code != 0 || !strings.Contains(out, `"a long log: past 5 records of its requests kept one by one`) {
		t.Errorf("1K: exit %d: %s\n%s", code, stderr, out)
	}
	if code, out, stderr := tuxlbRun("fit", "--ulog", n1, "--ulog", n2); code != 0 || strings.Contains(out, "a long log") {
		t.Errorf("the default budget: exit %d: %s\n%s", code, stderr, out)
	}
	text, err := os.ReadFile(n2)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := tuxlbRunStdin(string(text), "fit", "--memory-budget", "94K", "--ulog", n1, "--ulog", "-"); code != 0 {
		t.Errorf("94K, standard input: exit %d: %s", code, stderr)
	}
	code, _, stderr := tuxlbRunStdin(string(text), "fit", "--memory-budget", "93K", "--ulog", n1, "--ulog", "-")
	if code != 1 || !strings.Contains(stderr, "--ulog: <stdin> holds more than the 15.0 KiB that fit in --memory-budget 93.0 KiB beside the files before it") {
		t.Errorf("93K, standard input: exit %d: %s", code, stderr)
	}
}

// A day's ULOG rotated and gzipped (ULOG.120126.gz) is read through gzip,
// as the fit goes, its day from its name: the report is the plain files'.
// One cut short is an error naming it.
func TestFitULOGGzipped(t *testing.T) {
	dir := t.TempDir()
	gz := func(src, dst string, cut int) string {
		text, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(text)
		zw.Close()
		p := filepath.Join(dir, dst)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b.Bytes()[:b.Len()-cut], 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	n1, n2 := gz(bankULOG+"node1/ULOG.120126", "node1/ULOG.120126.gz", 0), gz(bankULOG+"node2/ULOG.120126", "node2/ULOG.120126.gz", 0)
	code, want, stderr := tuxlbRun("fit", "--ulog", bankULOG+"node1/ULOG.120126", "--ulog", bankULOG+"node2/ULOG.120126", "--ubbconfig", bankULOG+"ubbconfig")
	if code != 0 {
		t.Fatalf("plain: exit %d: %s", code, stderr)
	}
	code, got, stderr := tuxlbRun("fit", "--ulog", n1, "--ulog", n2, "--ubbconfig", bankULOG+"ubbconfig")
	got = strings.NewReplacer(n1, bankULOG+"node1/ULOG.120126", n2, bankULOG+"node2/ULOG.120126").Replace(got) // the malformed lines' names
	if code != 0 || got != want {
		t.Errorf("gzipped: exit %d: %s\n%s\nwant\n%s", code, stderr, got, want)
	}
	// an empty one (20 bytes of gzip for 0 of text) is no text over 4 GiB
	empty := filepath.Join(dir, "empty", "ULOG.120126.gz")
	os.MkdirAll(filepath.Dir(empty), 0o755)
	var eb bytes.Buffer
	ez := gzip.NewWriter(&eb)
	ez.Close()
	os.WriteFile(empty, eb.Bytes(), 0o644)
	if code, _, stderr := tuxlbRun("fit", "--memory-budget", "1M", "--ulog", empty); code != 1 || !strings.Contains(stderr, "no TRACE lines") {
		t.Errorf("empty: exit %d: %s", code, stderr)
	}
	cut := gz(bankULOG+"node2/ULOG.120126", "cut/ULOG.120126.gz", 30)
	if code, _, stderr := tuxlbRun("fit", "--ulog", n1, "--ulog", cut); code != 1 || !strings.Contains(stderr, cut) || !strings.Contains(stderr, "the gzip data ends short of its end") {
		t.Errorf("cut short: exit %d: %s", code, stderr)
	}
}

// A gzipped request log (export.csv.gz) is read as its text, from a file
// or standard input; the limits are on the text.
func TestTraceGzipped(t *testing.T) {
	dir := t.TempDir()
	plain := calibExport(t)
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(plain))
	zw.Close()
	p, pz := filepath.Join(dir, "export.csv"), filepath.Join(dir, "export.csv.gz")
	os.WriteFile(p, []byte(plain), 0o644)
	os.WriteFile(pz, b.Bytes(), 0o644)
	code, want, stderr := tuxlbRun("fit", "--trace", p)
	if code != 0 {
		t.Fatalf("plain: exit %d: %s", code, stderr)
	}
	if code, got, stderr := tuxlbRun("fit", "--trace", pz); code != 0 || got != want {
		t.Errorf("gzipped file: exit %d: %s", code, stderr)
	}
	if code, got, stderr := tuxlbRunStdin(b.String(), "fit", "--trace", "-"); code != 0 || got != want {
		t.Errorf("gzipped standard input: exit %d: %s", code, stderr)
	}
	if code, _, stderr := tuxlbRunStdin(b.String()[:b.Len()/2], "fit", "--trace", "-"); code != 1 ||
		!strings.Contains(stderr, "<stdin>: the gzip data ends short of its end") {
		t.Errorf("cut short: exit %d: %s", code, stderr)
	}
}

// A gzipped ULOG whose trailer is not its text's size is counted by
// decompressing it: members joined (gzip a; gzip b; cat a.gz b.gz) end in
// the last member's size, an empty file gzipped in 0 beside its 20 bytes.
// Taken as a text over 4 GiB (the trailer's size plus 4 GiB), each was
// refused at any budget under that.
func TestFitULOGGzipMembers(t *testing.T) {
	dir := t.TempDir()
	member := func(text []byte) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(text)
		zw.Close()
		return b.Bytes()
	}
	n1, n2 := bankULOG+"node1/ULOG.120126", bankULOG+"node2/ULOG.120126"
	text, err := os.ReadFile(n2)
	if err != nil {
		t.Fatal(err)
	}
	// node2's 15 481 bytes as two members, the last of its last 100 bytes:
	// the trailer says 100, under the file's size (some 3 KB)
	joined := filepath.Join(dir, "node2", "ULOG.120126.gz")
	os.MkdirAll(filepath.Dir(joined), 0o755)
	if err := os.WriteFile(joined, append(member(text[:len(text)-100]), member(text[len(text)-100:])...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, want, stderr := tuxlbRun("fit", "--ulog", n1, "--ulog", n2)
	if code != 0 {
		t.Fatalf("plain: exit %d: %s", code, stderr)
	}
	code, got, stderr := tuxlbRun("fit", "--ulog", n1, "--ulog", joined)
	if got = strings.ReplaceAll(got, joined, n2); code != 0 || got != want {
		t.Errorf("members joined: exit %d: %s\n%s\nwant\n%s", code, stderr, got, want)
	}
	// an empty day's file rotated: no lines, read as such
	empty := filepath.Join(dir, "empty", "ULOG.120126.gz")
	os.MkdirAll(filepath.Dir(empty), 0o755)
	if err := os.WriteFile(empty, member(nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := tuxlbRun("fit", "--ulog", n1, "--ulog", n2, "--ulog", empty); code != 0 || !strings.Contains(stderr, empty+": no TRACE lines") {
		t.Errorf("empty: exit %d: %s", code, stderr)
	}
	// a file cut short in the middle (its trailer 4 bytes of its data): an
	// error naming it
	cut := filepath.Join(dir, "cut", "ULOG.120126.gz")
	os.MkdirAll(filepath.Dir(cut), 0o755)
	m := member(text)
	if err := os.WriteFile(cut, m[:len(m)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := tuxlbRun("fit", "--ulog", n1, "--ulog", cut); code != 1 || !strings.Contains(stderr, cut) || !strings.Contains(stderr, "the gzip data ends short of its end") {
		t.Errorf("cut short: exit %d: %s", code, stderr)
	}
	// one cut where its last 4 bytes (data) say over a GiB, more than
	// deflate makes of a file of its size (1 032 bytes a byte): counted,
	// it is cut short; taken as its text's size, it was over a 1G budget
	k := len(m) / 2
	for v := int64(0); k < len(m) && !(v > 1<<30 && v/1032 > int64(k)); k++ {
		v = int64(binary.LittleEndian.Uint32(m[k-3 : k+1]))
	}
	if k == len(m) {
		t.Fatal("no cut point whose last 4 bytes say over a GiB")
	}
	if err := os.WriteFile(cut, m[:k], 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := tuxlbRun("fit", "--memory-budget", "1G", "--ulog", n1, "--ulog", cut); code != 1 || !strings.Contains(stderr, cut) || !strings.Contains(stderr, "the gzip data ends short of its end") {
		t.Errorf("cut short, its last bytes saying over a GiB: exit %d: %s", code, stderr)
	}
}
