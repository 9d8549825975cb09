package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ownUBB is an administrator's UBBCONFIG: two sites, a server without -s.
const ownUBB = `*RESOURCES
IPCKEY 123456
MASTER SITE1
MODEL MP
LDBAL Y
*MACHINES
"host1" LMID=SITE1 NETLOAD=100
"host2" LMID=SITE2
*GROUPS
G1 LMID=SITE1 GRPNO=1
G2 LMID=SITE2 GRPNO=2
*SERVERS
bankserv SRVGRP=G1 SRVID=1 CLOPT="-s BALANCE,DEPOSIT"
bankserv SRVGRP=G2 SRVID=2 CLOPT="-s BALANCE,DEPOSIT"
legacy SRVGRP=G2 SRVID=3
*SERVICES
BALANCE LOAD=50
DEPOSIT
AUDIT
`

// ownTrace is a log as an application writes it: date-times with a decimal
// comma, its own column names, a column tuxlb does not use.
const ownTrace = "timestamp;svc;exec_time_ms;user\n" +
	"2026-11-29 10:00:00,000;BALANCE;4,5;ann\n" +
	"2026-11-29 10:00:00,004;DEPOSIT;6;bob\n" +
	"2026-11-29 10:00:00,005;BALANCE;3;ann\n" +
	"2026-11-29 10:00:00,009;AUDIT;2;cy\n"

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// cli runs tuxlb and returns its exit code, stdout and stderr.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// embed writes doc (a scenario as a map) to dir/name.
func embed(t *testing.T, dir, name string, doc map[string]any) string {
	t.Helper()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunOwnFilesEqualsEmbedded: `run --ubbconfig U --trace T` with no
// scenario prints the same bytes as the scenario that embeds U and T in
// JSON with the documented defaults (init's service times, advertise and
// domains; the trace as the workload; the replay name).
func TestRunOwnFilesEqualsEmbedded(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ubb.cfg": ownUBB, "trace.csv": ownTrace})
	ubb, trace := filepath.Join(dir, "ubb.cfg"), filepath.Join(dir, "trace.csv")
	code, got, stderr := cli(t, "run", "--ubbconfig", ubb, "--trace", trace)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	code, initOut, stderr := cli(t, "init", "--ubbconfig", ubb, "--trace", trace)
	if code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(initOut), &doc); err != nil {
		t.Fatal(err)
	}
	doc["workload"] = map[string]any{"trace_csv": ownTrace}
	doc["name"] = "ubb.cfg replaying trace.csv (defaults: see docs/scenario.md, Starting from your own files)"
	code, want, stderr := cli(t, "run", embed(t, dir, "embedded.json", doc))
	if code != 0 {
		t.Fatalf("embedded: exit %d: %s", code, stderr)
	}
	if got != want {
		t.Errorf("--ubbconfig/--trace and the embedded scenario differ:\n got %.400s\nwant %.400s", got, want)
	}
	// The log was read as a log (the note is in the warnings) and replayed:
	// 4 requests; the measured service times are the mean of the log's.
	var res struct {
		Requests struct{ Issued int } `json:"requests"`
		Warnings []string             `json:"warnings"`
	}
	json.Unmarshal([]byte(got), &res)
	if res.Requests.Issued != 4 || !strings.Contains(strings.Join(res.Warnings, "\n"), `time_ms from column "timestamp" (date-times, counted from the first row)`) {
		t.Errorf("got issued %d, warnings %q", res.Requests.Issued, res.Warnings)
	}
	if svc := doc["services"].(map[string]any)["BALANCE"]; !strings.Contains(mustJSON(svc), `"mean_ms":3.75`) {
		t.Errorf("BALANCE's service time: got %s, want the log's mean (4.5+3)/2 = 3.75 ms", mustJSON(svc))
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestRunFilesReplaceScenarioParts: a scenario plus --ubbconfig/--trace
// equals the scenario with those parts replaced by hand; its column mapping
// applies to the new trace unless --trace-map gives one.
func TestRunFilesReplaceScenarioParts(t *testing.T) {
	log := "when|what|dur\n1764410400|BALANCE|2\n1764410400.5|DEPOSIT|3\n1764410401|BALANCE|1\n"
	dir := writeFiles(t, map[string]string{"ubb.cfg": ownUBB, "log.csv": log})
	base := map[string]any{
		"name": "mine", "ubbconfig": "*RESOURCES\nMODEL SHM\n", "seed": 7,
		"services": map[string]any{"BALANCE": map[string]any{"service_time": map[string]any{"dist": "const", "ms": 2}},
			"DEPOSIT": map[string]any{"service_time": map[string]any{"dist": "const", "ms": 2}},
			"AUDIT":   map[string]any{"service_time": map[string]any{"dist": "const", "ms": 2}}},
		"advertise": map[string]any{"legacy": []string{"AUDIT"}},
		"workload": map[string]any{"generate": map[string]any{"duration_ms": 1000, "streams": []any{
			map[string]any{"service": "X", "arrivals": "poisson", "rate_per_s": 1}}}},
	}
	scPath := embed(t, dir, "base.json", base)
	code, got, stderr := cli(t, "run", "--ubbconfig", filepath.Join(dir, "ubb.cfg"), "--trace", filepath.Join(dir, "log.csv"),
		"--trace-map", "time=when,time_unit=s,service=what,service_ms=dur", scPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	base["ubbconfig"] = ownUBB
	base["workload"] = map[string]any{"trace_csv": log, "columns": map[string]any{
		"time": "when", "time_unit": "s", "service": "what", "service_ms": "dur"}}
	code, want, stderr := cli(t, "run", embed(t, dir, "replaced.json", base))
	if code != 0 {
		t.Fatalf("replaced: exit %d: %s", code, stderr)
	}
	if got != want || !strings.Contains(got, `"issued": 3`) {
		t.Errorf("differ or not 3 requests:\n got %.300s\nwant %.300s", got, want)
	}
}

func TestRunOwnFilesErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"ubb.cfg":   ownUBB,
		"bad.cfg":   "*RESOURCES\nMODEL XX\n",
		"trace.csv": "ts,service\n2026-11-29 10:00:00,BALANCE\nlater,BALANCE\n",
		"svc.csv":   "ts,service\n2026-11-29 10:00:00,NOPE\n",
		"empty.csv": "\n",
		"dup.json":  "{\"policy\": \"tuxedo\",\n \"policy\": \"jsq\", \"workload\": {}}",
		"rest.json": "{\"workload\": {}}",
		"own.json":  "{\"ubbconfig\": \"*RESOURCES\\nMODEL XX\\n\", \"workload\": {}}",
	})
	p := func(n string) string { return filepath.Join(dir, n) }
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--ubbconfig", p("ubb.cfg"), "--trace", p("trace.csv")}, 1,
			"tuxlb run: " + p("trace.csv") + ": trace row 2: ts: not a date-time"},
		{[]string{"run", "--ubbconfig", p("ubb.cfg"), "--trace", p("svc.csv")}, 1,
			"tuxlb run: " + p("svc.csv") + `: trace row 1: service: unknown service "NOPE"`},
		{[]string{"run", "--ubbconfig", p("ubb.cfg"), "--trace", p("empty.csv")}, 1,
			"tuxlb run: " + p("empty.csv") + ": trace: the file is empty"},
		{[]string{"run", "--ubbconfig", p("bad.cfg")}, 1, p("bad.cfg") + ":2:"},
		// the configuration is read once, with the scenario, under the name it came by
		{[]string{"run", "--ubbconfig", p("bad.cfg"), p("rest.json")}, 1, "the configuration has errors:\n" + p("bad.cfg") + ":2:7: MODEL must be SHM or MP"},
		{[]string{"run", p("own.json")}, 1, "tuxlb run: " + p("own.json") + ": ubbconfig:2:7: MODEL must be SHM or MP"},
		{[]string{"run", "--ubbconfig", p("nope.cfg")}, 1, "tuxlb run: --ubbconfig: open " + p("nope.cfg")},
		{[]string{"run", "--ubbconfig", p("ubb.cfg"), "--trace", p("trace.csv"), "--trace-map", "colour=x"}, 1,
			`tuxlb run: --trace-map: "colour=x": unknown key "colour"`},
		// the document is read as written, with or without files spliced in
		{[]string{"run", p("dup.json")}, 1, "policy: given twice in one object (scenario line 2 col 2)"},
		{[]string{"run", "--ubbconfig", p("ubb.cfg"), p("dup.json")}, 1, "policy: given twice in one object (scenario line 2 col 2)"},
		{[]string{"run", "--trace", p("trace.csv")}, 2, "want one scenario file (or -), or --ubbconfig FILE"},
		{[]string{"init"}, 2, "tuxlb init: want the UBBCONFIG (tuxlb init FILE, or --ubbconfig FILE) and no other argument"},
		{[]string{"init", p("ubb.cfg"), p("ubb.cfg")}, 2, "and no other argument"},
		{[]string{"init", "--ubbconfig", p("ubb.cfg"), p("ubb.cfg")}, 2, "and no other argument"},
		{[]string{"init", p("bad.cfg")}, 1, p("bad.cfg") + ":2:"}, // the one argument is the UBBCONFIG
		{[]string{"init", "--ubbconfig", p("ubb.cfg"), "--load", "0"}, 2, "tuxlb init: --load"},
		{[]string{"init", "--ubbconfig", p("ubb.cfg"), "--load", "NaN"}, 2, `tuxlb init: --load: "NaN" is not a fraction between 0.01 and 10`},
		{[]string{"init", "--ubbconfig", "-", "--ulog", "-"}, 2, "tuxlb init: --ubbconfig and --ulog would each read standard input (-)"},
		{[]string{"init", "--ubbconfig", p("bad.cfg")}, 1, p("bad.cfg") + ":2:"},
	}
	for _, tt := range tests {
		code, _, stderr := cli(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: got exit %d, stderr %q; want %d and %q", tt.args[1:], code, stderr, tt.code, tt.want)
		}
	}
}

// TestInitWritesARunnableScenario: init's scenario runs, has an advertise
// entry for the server without -s, and a stream for every service.
func TestInitWritesARunnableScenario(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ubb.cfg": ownUBB})
	out := filepath.Join(dir, "start.json")
	code, stdout, stderr := cli(t, "init", "--ubbconfig", filepath.Join(dir, "ubb.cfg"), "--out", out)
	if code != 0 || stdout != "" || !strings.Contains(stderr, "3 streams") {
		t.Fatalf("init: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	data, _ := os.ReadFile(out)
	for _, want := range []string{`"legacy": [`, `"service": "AUDIT"`, `"service": "BALANCE"`, `"service": "DEPOSIT"`, "about 50% busy"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("init output lacks %s:\n%s", want, data)
		}
	}
	code, got, stderr := cli(t, "run", out)
	if code != 0 || strings.Contains(got, "no -s") {
		t.Errorf("run: exit %d, stderr %q; or a warning about the missing -s is left", code, stderr)
	}
	// tuxlb init FILE, the UBBCONFIG as its one argument, flags before or
	// after it, writes the same scenario
	for _, args := range [][]string{{"init", filepath.Join(dir, "ubb.cfg")}, {"init", "--load", "0.5", filepath.Join(dir, "ubb.cfg")},
		{"init", filepath.Join(dir, "ubb.cfg"), "--out", "-"}} {
		code, stdout, stderr = cli(t, args...)
		if code != 0 || stdout != string(data) {
			t.Errorf("%v: exit %d, stderr %q; want the scenario of --ubbconfig", args, code, stderr)
		}
	}
}

// TestInitLoadWithALog: --load sizes the streams of a configuration
// without a log; given with --trace or --ulog, whose rates set the streams,
// it would be dropped unsaid, so it is a usage error. Without a log, or
// with a log and no --load, init succeeds.
func TestInitLoadWithALog(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ubb.cfg": ownUBB, "log.csv": "time_ms,service\n0,BALANCE\n1000,DEPOSIT\n"})
	ubbPath, logPath := filepath.Join(dir, "ubb.cfg"), filepath.Join(dir, "log.csv")
	code, _, stderr := cli(t, "init", ubbPath, "--trace", logPath, "--load", "0.3")
	if code != 2 || !strings.Contains(stderr, "--load sizes the streams of a configuration without a log") {
		t.Errorf("init --trace --load: exit %d, stderr %q; want 2 and why", code, stderr)
	}
	code, _, stderr = cli(t, "init", ubbPath, "--ulog", filepath.Join(dir, "ULOG.120126"), "--load", "0.3")
	if code != 2 || !strings.Contains(stderr, "--load sizes the streams") {
		t.Errorf("init --ulog --load: exit %d, stderr %q; want 2 and why", code, stderr)
	}
	if code, _, stderr = cli(t, "init", ubbPath, "--trace", logPath); code != 0 {
		t.Errorf("init --trace: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr = cli(t, "init", ubbPath, "--load", "0.3"); code != 0 {
		t.Errorf("init --load: exit %d, stderr %q", code, stderr)
	}
}

// TestRunUBBWarnsOnce: a UBBCONFIG run as it is lists each warning of
// reading it (a skeleton's placeholder) once: on standard error before the
// run, and not again in the summary or psr listing, which print the run's
// warnings themselves; with the JSON on standard output it stays on
// standard error.
func TestRunUBBWarnsOnce(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ubb.cfg": strings.Replace(ownUBB, "IPCKEY 123456", "IPCKEY <Replace with a valid IPC Key>", 1)})
	const placeholder = "IPCKEY <Replace with a valid IPC Key>: a skeleton's placeholder"
	for _, format := range []string{"summary", "psr", "json"} {
		code, stdout, stderr := cli(t, "run", filepath.Join(dir, "ubb.cfg"), "--format", format)
		if n := strings.Count(stdout+stderr, placeholder); code != 0 || n != 1 {
			t.Errorf("--format %s: exit %d, the placeholder's warning %d times; want once:\n%s\n%s", format, code, n, stderr, stdout)
		}
	}
}

// TestInitSaysWhatItSkipped: init --trace-skip-bad says how many rows it
// skipped and the first, as a warning: the scenario it writes has no trace
// to count them in (it was silent).
func TestInitSaysWhatItSkipped(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ubb.cfg": ownUBB, "log.csv": "time_ms,service\n0,BALANCE\nTotal,\n1000,DEPOSIT\n"})
	code, _, stderr := cli(t, "init", filepath.Join(dir, "ubb.cfg"), "--trace", filepath.Join(dir, "log.csv"), "--trace-skip-bad")
	if code != 0 || !strings.Contains(stderr, "tuxlb init: warning: 1 unreadable rows of the trace skipped (--trace-skip-bad), the first: row 2: ") {
		t.Errorf("exit %d, stderr %q; want the skipped row counted", code, stderr)
	}
	if code, _, stderr = cli(t, "init", filepath.Join(dir, "ubb.cfg"), "--trace", filepath.Join(dir, "log.csv")); code != 1 {
		t.Errorf("without --trace-skip-bad: exit %d, stderr %q; want 1", code, stderr)
	}
}

func TestRunFormats(t *testing.T) {
	path := "../../examples/admin-guide.json"
	code, out, stderr := cli(t, "run", "--format", "summary", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Warnings first, then the headline with the network share and the
	// saturated machine, then the machines.
	for i, want := range []string{"warning: offered load", "warning: machine SITE1 saturates", "requests     issued 2500",
		"network      625 of 2500 requests crossed it (25.0%)", "saturated    1 machine(s)", "machine  utilization", "SITE1         1.00"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q (item %d):\n%s", want, i, out)
		}
	}
	if strings.Index(out, "warning:") != 0 {
		t.Errorf("summary does not start with the warnings:\n%s", out)
	}
	code, out, stderr = cli(t, "run", "--format", "psr", path)
	if code != 0 || strings.Contains(out, "warning") || !strings.Contains(stderr, "warning: machine SITE1 saturates") {
		t.Errorf("psr: exit %d; want the warnings on stderr (got %q), not stdout", code, stderr)
	}
}

func TestProgressLine(t *testing.T) {
	tests := []struct {
		done, total int64
		want        string
	}{
		{0, 100, "[>         ]   0%  0 of 100 requests"},
		{45, 100, "[====>     ]  45%  45 of 100 requests"},
		{100, 100, "[==========] 100%  100 of 100 requests"},
		{120, 100, "[==========] 100%  120 of 100 requests"},
		{7, 0, "7 requests"},
	}
	for _, tt := range tests {
		if got := progressLine(tt.done, tt.total, 10); got != tt.want {
			t.Errorf("%d/%d: got %q, want %q", tt.done, tt.total, got, tt.want)
		}
	}
	var b bytes.Buffer
	bar := newProgressBar(&b, true) // not a terminal: draws nothing
	bar.update(5, 10)
	bar.done()
	if b.Len() != 0 {
		t.Errorf("a bar on a non-terminal wrote %q", b.String())
	}
}

// TestRunScenarioWithoutTheFilesParts: a scenario may leave out what the
// files give (its ubbconfig, its workload).
func TestRunScenarioWithoutTheFilesParts(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ubb.cfg": ownUBB, "trace.csv": ownTrace,
		"rest.json": `{"advertise": {"legacy": ["AUDIT"]}, "services": {"BALANCE": {"service_time": {"dist": "const", "ms": 1}},
			"DEPOSIT": {"service_time": {"dist": "const", "ms": 1}}, "AUDIT": {"service_time": {"dist": "const", "ms": 1}}}}`})
	code, out, stderr := cli(t, "run", "--ubbconfig", filepath.Join(dir, "ubb.cfg"), "--trace", filepath.Join(dir, "trace.csv"), filepath.Join(dir, "rest.json"))
	if code != 0 || !strings.Contains(out, `"issued": 4`) {
		t.Errorf("exit %d, stderr %q, stdout %.200s", code, stderr, out)
	}
}

// TestTraceSkipBadFlag: --trace-skip-bad reads past a log's unreadable rows
// (here an "n/a" time and the total line), counted in the result; without
// it the first is the error; fit without a --trace refuses it.
func TestTraceSkipBadFlag(t *testing.T) {
	log := ownTrace + "n/a;BALANCE;3;dan\nTotal;4;;\n"
	dir := writeFiles(t, map[string]string{"ubb.cfg": ownUBB, "log.csv": log})
	ubb, trace := filepath.Join(dir, "ubb.cfg"), filepath.Join(dir, "log.csv")
	code, _, stderr := cli(t, "run", "--ubbconfig", ubb, "--trace", trace)
	if code != 1 || !strings.Contains(stderr, "log.csv: trace row 5: timestamp") {
		t.Errorf("without the flag: exit %d, %q; want 1 and row 5's timestamp named", code, stderr)
	}
	code, out, stderr := cli(t, "run", "--ubbconfig", ubb, "--trace", trace, "--trace-skip-bad")
	var res struct {
		Trace struct {
			Rows, Skipped int
			Examples      []string `json:"skipped_examples"`
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
		t.Fatalf("with the flag: exit %d, %s", code, stderr)
	}
	if res.Trace.Rows != 4 || res.Trace.Skipped != 2 || len(res.Trace.Examples) != 2 || !strings.HasPrefix(res.Trace.Examples[1], "row 6: ") {
		t.Errorf("trace block %+v, want 4 rows read and rows 5 and 6 skipped", res.Trace)
	}
	if code, _, stderr := cli(t, "fit", "--ulog", trace, "--trace-skip-bad"); code != 2 || !strings.Contains(stderr, "--trace-skip-bad read a --trace") {
		t.Errorf("fit --ulog --trace-skip-bad: exit %d, %q", code, stderr)
	}
}

// A trace row that cannot be read (a monitoring export's Total row) names
// the row and says how to skip such rows, unless they are skipped already.
func TestTraceRowErrorHintsSkipBad(t *testing.T) {
	path := writeFile(t, "export.csv", "Timestamp,Service,Elapsed(ms)\n2026-12-01 10:00:00,X,5\nTotal,,5\n")
	var out, errb bytes.Buffer
	code := Main([]string{"fit", "--trace", path}, nil, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "trace row 2") || !strings.Contains(errb.String(), "(--trace-skip-bad skips the rows that cannot be read, and counts them)") {
		t.Errorf("exit %d, stderr %q; want exit 1 naming row 2 and --trace-skip-bad", code, errb.String())
	}
	errb.Reset()
	if code := Main([]string{"fit", "--trace", path, "--trace-skip-bad"}, nil, &out, &errb); code != 0 {
		t.Errorf("with --trace-skip-bad: exit %d, stderr %q", code, errb.String())
	}
}

// A file saved as UTF-16 (Windows tools' "Unicode text": a byte-order mark,
// then two bytes a character) is refused naming the file and saying so,
// whichever flag reads it; read as UTF-8 a log had no column, a
// configuration only control characters.
func TestUTF16FilesNamed(t *testing.T) {
	utf16 := func(bom string, s string) string {
		var b strings.Builder
		b.WriteString(bom)
		for _, c := range []byte(s) { // ASCII
			if bom == "\xff\xfe" {
				b.WriteString(string([]byte{c, 0}))
			} else {
				b.WriteString(string([]byte{0, c}))
			}
		}
		return b.String()
	}
	dir := writeFiles(t, map[string]string{
		"ubb.cfg":   ownUBB,
		"ubb16.cfg": utf16("\xff\xfe", ownUBB),
		"trace.csv": utf16("\xff\xfe", "time_ms,service\r\n0,BALANCE\r\n"),
		"be.csv":    utf16("\xfe\xff", "time_ms,service\r\n0,BALANCE\r\n"),
		"sc.json":   utf16("\xff\xfe", `{"workload": {}}`),
		"ok.csv":    "\ufefftime_ms,service\r\n0,BALANCE\r\n", // UTF-8's byte-order mark is read as before
	})
	p := func(n string) string { return filepath.Join(dir, n) }
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--ubbconfig", p("ubb.cfg"), "--trace", p("trace.csv")}, 1,
			"tuxlb run: --trace: " + p("trace.csv") + ": UTF-16 text (it starts with the byte-order mark FF FE): save it as UTF-8"},
		{[]string{"fit", "--trace", p("be.csv")}, 1, "tuxlb fit: --trace: " + p("be.csv") + ": UTF-16 text (it starts with the byte-order mark FE FF)"},
		{[]string{"validate", "--ubbconfig", p("ubb16.cfg")}, 1, p("ubb16.cfg") + ": UTF-16 text (it starts with the byte-order mark FF FE): save it as UTF-8"},
		{[]string{"init", "--ubbconfig", p("ubb16.cfg")}, 1, "tuxlb init: --ubbconfig: " + p("ubb16.cfg") + ": UTF-16 text"},
		{[]string{"run", p("sc.json")}, 1, "tuxlb run: " + p("sc.json") + ": UTF-16 text (it starts with the byte-order mark FF FE): save it as UTF-8"},
		{[]string{"run", "--ubbconfig", p("ubb.cfg"), "--trace", p("ok.csv"), "--format", "summary"}, 0, ""},
	} {
		code, _, stderr := cli(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") > 2 {
			t.Errorf("%v: got exit %d, stderr %q; want %d and %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}

// A UBBCONFIG given where a scenario goes runs as --ubbconfig does: `tuxlb
// run ubb.cfg` prints the bytes of `tuxlb run --ubbconfig ubb.cfg`, for
// sweep too, its errors at their lines; a scenario's JSON is still read as
// one.
func TestUBBConfigAsTheArgument(t *testing.T) {
	ubbPath := "../../testdata/tuxedo-configs/dear531__tuxedo__ubbconfig.ubb"
	for _, cmd := range [][]string{{"run", "--no-progress"}, {"sweep", "--vary", "rate_scale=0.5,1"}} {
		code1, out1, err1 := runMain(append(cmd, "--ubbconfig", ubbPath)...)
		code2, out2, err2 := runMain(append(cmd, ubbPath)...)
		if code1 != 0 || code2 != 0 || out1 != out2 || out1 == "" {
			t.Errorf("%s: --ubbconfig FILE exit %d (%q), FILE exit %d (%q); the outputs differ: %v", cmd[0], code1, err1, code2, err2, out1 != out2)
		}
	}
	broken := writeFile(t, "broken.ubb", "# a config\n*RESOURCES\nLDBAL maybe\n")
	code, _, stderr := runMain("run", "--no-progress", broken)
	if code != 1 || !strings.Contains(stderr, broken+":3:7: LDBAL must be Y or N") {
		t.Errorf("a broken UBBCONFIG as the argument: exit %d, stderr %q; want 1 and its error at 3:7", code, stderr)
	}
	code, _, stderr = runMain("run", "--no-progress", "../../examples/shm-ldbal-y.json")
	if code != 0 {
		t.Errorf("a scenario as the argument: exit %d, %s", code, stderr)
	}
}
