package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
)

func TestRunBadFlagsExit2(t *testing.T) {
	cases := [][]string{
		{"run"},
		{"run", "--nope", "x.json"},
		{"run", "--seed", "-3", "x.json"},
		{"run", "--format", "xml", "x.json"},
		{"run", "--series", "every", "x.json"},
		{"run", "--explain", "0", "-"},
		{"run", "a.json", "b.json"},
	}
	for _, args := range cases {
		var out, errb bytes.Buffer
		if code := Main(args, strings.NewReader("{}"), &out, &errb); code != 2 {
			t.Errorf("%v: got exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if out.Len() != 0 {
			t.Errorf("%v: wrote %q on stdout, want nothing", args, out.String())
		}
	}
}

// Flags that say nothing to the command as given are usage errors, not
// ignored: --explain-json without --explain printed the result, and
// --explain printed its text whatever --format asked for.
func TestRunExplainFlagsContradict(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--explain-json", "../../examples/admin-guide.json"}, "tuxlb run: --explain-json prints the explanations --explain N asks for"},
		{[]string{"run", "--explain", "4", "--format", "psr", "../../examples/admin-guide.json"}, "tuxlb run: --explain prints explanations, not the result: --format psr does not apply"},
		{[]string{"run", "--explain", "4", "--format", "json", "../../examples/admin-guide.json"}, "--format json does not apply (--explain-json prints them as JSON)"},
	} {
		if code, out, errs := cli(t, tc.args...); code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %.80q, stderr %q; want 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
}

func TestRunMissingFileExit1(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"run", "/nonexistent/scenario.json"}, nil, &out, &errb); code != 1 {
		t.Errorf("got exit %d, want 1", code)
	}
	if !strings.Contains(errb.String(), "scenario.json") {
		t.Errorf("stderr %q: want it to name the file", errb.String())
	}
}

// TestRunModelErrorsNameTheFile checks that errors found against the model
// (after the document was read) name the scenario file too.
func TestRunModelErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.json")
	doc := `{"ubbconfig": "*RESOURCES\nMODEL SHM\n*MACHINES\nh LMID=s1\n*GROUPS\nG LMID=s1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 CLOPT=\"-s A\"\n",
		"services": {"A": {"service_time": {"dist": "const", "ms": 1}}},
		"workload": {"trace_csv": "time_ms,service,origin\n0,A,s9\n"}}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "tuxlb run: " + path + `: trace row 1: origin: unknown LMID "s9" (the UBBCONFIG has s1)` + "\n"
	for _, args := range [][]string{{"run", path}, {"run", "--explain", "1", path}} {
		var out, errb bytes.Buffer
		if code := Main(args, nil, &out, &errb); code != 1 || errb.String() != want {
			t.Errorf("%v: got exit %d, stderr %q; want 1 and %q", args, code, errb.String(), want)
		}
	}
}

// TestRunFailedLeavesNoDispatchFile: a run that fails removes the dispatch
// log it had started, so no empty or partial log is left to be mistaken for one.
func TestRunFailedLeavesNoDispatchFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.json")
	doc := `{"ubbconfig": "*RESOURCES\nMODEL SHM\n*MACHINES\nh LMID=s1\n*GROUPS\nG LMID=s1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 CLOPT=\"-s A\"\n",
		"workload": {"trace_csv": "time_ms,service,origin\n0,A,s9\n"}}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "dispatch.csv")
	var out, errb bytes.Buffer
	if code := Main([]string{"run", "--dispatch", log, path}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1 (stderr %q)", code, errb.String())
	}
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Errorf("the failed run left %s behind (stat: %v)", log, err)
	}
}

func TestWrapWords(t *testing.T) {
	tests := []struct {
		text  string
		width int
		want  []string
	}{
		{"", 10, nil},
		{"a b c", 10, []string{"a b c"}},
		{"aaaa bbbb cccc", 9, []string{"aaaa bbbb", "cccc"}},
		{"aaaa  bbbb\ncccc", 4, []string{"aaaa", "bbbb", "cccc"}},
		{"x averyveryverylongword y", 5, []string{"x", "averyveryverylongword", "y"}},
	}
	for _, tt := range tests {
		if got := wrapWords(tt.text, tt.width); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("wrapWords(%q, %d): got %q, want %q", tt.text, tt.width, got, tt.want)
		}
	}
}

func TestParseSeqs(t *testing.T) {
	got, ids, err := parseSeqs("3,7,10-12,2008.1,TELLER:3:12,tellers:62:0~1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"2008.1", "TELLER:3:12", "tellers:62:0~1"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids: got %q, want %q", ids, want)
	}
	want := map[int64]bool{3: true, 7: true, 10: true, 11: true, 12: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if r := groupRanges(got); !reflect.DeepEqual(r, [][2]int64{{3, 12}}) {
		t.Errorf("ranges: got %v, want [[3 12]]", r)
	}
	for _, bad := range []string{"", "5-3", "0", "1-5000", "-3", "3,,4", "99999999999999999999", "1-99999999999999999999"} {
		if _, _, err := parseSeqs(bad); err == nil {
			t.Errorf("parseSeqs(%q): got no error", bad)
		}
	}
	if _, _, err := parseSeqs(fmt.Sprintf("1-%d", core.MaxExplain)); err != nil {
		t.Errorf("a range of %d requests: %v", core.MaxExplain, err)
	}
}

// A range of more requests than one explanation covers says so, as the
// HTTP API does, instead of repeating the syntax.
func TestRunExplainTooMany(t *testing.T) {
	code, out, errs := cli(t, "run", "--explain", "1-100000", "../../examples/mp-netload.json")
	want := fmt.Sprintf("tuxlb run: --explain: \"1-100000\": too many requests (at most %d in a range N-M)\n", core.MaxExplain)
	if code != 2 || out != "" || errs != want {
		t.Errorf("--explain 1-100000: exit %d, stdout %.80q, stderr %q; want 2 and %q", code, out, errs, want)
	}
}

// Explanations count against --memory-budget: each lists every candidate
// of its service, so 1000 of them among 4000 instances would hold about
// 4 GiB (1000 among 9900 once held 7 GB). Over the budget the run is
// refused naming --explain; fewer explanations are printed.
func TestRunExplainCountsAgainstBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString(`*RESOURCES\nIPCKEY 1\nMASTER s1\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=s1\n*GROUPS\nG LMID=s1 GRPNO=1\n*SERVERS\n`)
	for e := range 4 {
		fmt.Fprintf(&b, `srv%d SRVGRP=G SRVID=%d MIN=1000 CLOPT=\"-s S0 --\"\n`, e, 1+e*1000)
	}
	path := writeFile(t, "big.json", `{"ubbconfig": "`+b.String()+`", "services": {"S0": {"service_time": {"dist": "const", "ms": 1}}},
  "workload": {"generate": {"duration_ms": 1000, "streams": [{"service": "S0", "arrivals": "constant", "rate_per_s": 1000}]}}}`)
	code, out, errs := cli(t, "run", "--memory-budget", "1G", "--explain", "1-1000", path)
	if code != 1 || out != "" || !strings.Contains(errs, "more than --memory-budget 1.0 GiB; the largest part (--explain): 1000 explanations × 4000 candidates each (the instances that offer S0)") {
		t.Errorf("--explain 1-1000: exit %d, stdout %.80q, stderr %q; want 1 and the explanations named", code, out, errs)
	}
	if code, out, errs := cli(t, "run", "--memory-budget", "1G", "--explain", "1-2", path); code != 0 || !strings.Contains(out, "Request 2 (#2)") {
		t.Errorf("--explain 1-2: exit %d, stdout %.80q, stderr %q; want 0 and two explanations", code, out, errs)
	}
}

const cliScenario = `{
  "ubbconfig": "*RESOURCES\nIPCKEY 123456\nMASTER SITE1\nMODEL SHM\nLDBAL N\n\n*MACHINES\nnode1 LMID=SITE1 APPDIR=\"/a\" TUXCONFIG=\"/a/t\" TUXDIR=\"/t\"\n\n*GROUPS\nAPP LMID=SITE1 GRPNO=1\n\n*SERVERS\nsimpserv SRVGRP=APP SRVID=1 MIN=2 CLOPT=\"-s TOUPPER --\"\n\n*SERVICES\nTOUPPER LOAD=50 PRIO=50\n",
  "workload": {"trace_csv": "time_ms,service,service_ms\n0,TOUPPER,10\n1,TOUPPER,10\n"}
}`

func TestRunEndToEnd(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sc.json")
	if err := os.WriteFile(path, []byte(cliScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "log.csv")
	var out, errb bytes.Buffer
	if code := Main([]string{"run", path, "--dispatch", logPath}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res result.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Requests.Completed != 2 {
		t.Fatalf("result: %v, %+v", err, res.Requests)
	}
	if !bytes.Equal(out.Bytes(), result.Encode(&res)) {
		t.Errorf("stdout is not EncodeResult's bytes")
	}
	log, _ := os.ReadFile(logPath)
	want := "id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason\n" +
		"1,TOUPPER,SITE1,0,APP/1,APP/1,0,0,10000,10000,first\n" +
		"2,TOUPPER,SITE1,1000,APP/1,APP/1,1000,10000,20000,20000,first\n"
	if string(log) != want {
		t.Errorf("dispatch log:\n got %s\nwant %s", log, want)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--format", "psr", "-"}, "simpserv   APP/1       APP       1   SITE1    2       100"},
		{[]string{"run", "--format", "psc", "-"}, "TOUPPER       TOUPPER       simpserv   APP       2   SITE1    0       AVAIL"},
		{[]string{"run", "--explain", "2", "-"}, "LDBAL=N: every request for TOUPPER goes to its first candidate"},
		{[]string{"run", "--explain", "2", "--explain-json", "-"}, `"rule": "first"`},
		{[]string{"run", "--policy", "jsq", "--seed", "3", "-"}, `"policy": "jsq"`},
	}
	for _, c := range cases {
		out.Reset()
		errb.Reset()
		if code := Main(c.args, strings.NewReader(cliScenario), &out, &errb); code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, errb.String())
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%v: got\n%s\nwant it to contain %q", c.args, out.String(), c.want)
		}
	}
}

func TestRunBadScenarioExit1(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main([]string{"run", "-"}, strings.NewReader(`{"ubbconfig": "", "bogus": 1}`), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "bogus") {
		t.Errorf("got exit %d, stderr %q; want 1 and the unknown field named", code, errb.String())
	}
}

// manyServers is cliScenario with 80 instances of one queue each (MIN=80):
// more than the 64 lines a result's series keep by default.
var manyServers = strings.Replace(strings.Replace(cliScenario, "MIN=2", "MIN=80 MAX=80", 1), "LDBAL N", "LDBAL Y", 1)

// --series all prints every line of the time series, as RunOptions.AllSeries
// does; without it the 80 servers' lines are cut to 64 and "others".
func TestRunSeriesAll(t *testing.T) {
	sc, err := core.ParseScenario([]byte(manyServers))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		all   bool
		lines int
	}{{[]string{"run", "-"}, false, 65}, {[]string{"run", "--series", "summary", "-"}, false, 65}, {[]string{"run", "--series", "all", "-"}, true, 80}} {
		var out, errb bytes.Buffer
		if code := Main(c.args, strings.NewReader(manyServers), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errb.String())
		}
		res, err := core.Run(sc, core.RunOptions{AllSeries: c.all})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), result.Encode(res)) {
			t.Errorf("%v: stdout is not the result with AllSeries %v", c.args, c.all)
		}
		if len(res.Series.Util) != c.lines {
			t.Errorf("%v: %d utilization lines, want %d", c.args, len(res.Series.Util), c.lines)
		}
	}
}

// TestTableWarningsSayWarningOnce: a configuration's warning is a positioned
// diagnostic that says "warning:" itself (ubbconfig:16:1: warning: ...); the
// tables and the summary print it as it is, and prefix only the result's
// other warnings.
func TestTableWarningsSayWarningOnce(t *testing.T) {
	// shm-ldbal-y's simpserv has no -s: the model warns at its line 16.
	const diag = "ubbconfig:16:1: warning: server simpserv has no -s in its CLOPT"
	for _, format := range []string{"psr", "psc", "summary"} {
		code, stdout, stderr := runMain("run", "--format", format, "../../examples/shm-ldbal-y.json")
		if code != 0 {
			t.Fatalf("--format %s: exit %d: %s", format, code, stderr)
		}
		out := stdout + stderr
		if !strings.Contains(out, "\n"+diag) && !strings.HasPrefix(out, diag) {
			t.Errorf("--format %s: want the line %q..., got:\n%s", format, diag, out)
		}
		if strings.Contains(out, "warning: ubbconfig:") {
			t.Errorf("--format %s: the diagnostic is prefixed with a second \"warning:\":\n%s", format, out)
		}
	}
	// a warning of the result itself keeps its prefix
	_, _, stderr := runMain("run", "--format", "psr", "../../examples/admin-guide.json")
	if !strings.Contains(stderr, "warning: offered load 2.50") {
		t.Errorf("admin-guide: want \"warning: offered load 2.50...\", got:\n%s", stderr)
	}
}

// An issue number past int64 is a number too large, not a request id to
// look up (ids are the dispatch log's, and one of digits only is a number).
func TestRunExplainNumberTooLarge(t *testing.T) {
	for _, arg := range []string{"99999999999999999999", "1-99999999999999999999"} {
		code, out, errs := cli(t, "run", "--explain", arg, "../../examples/admin-guide.json")
		if code != 2 || out != "" || !strings.Contains(errs, fmt.Sprintf("--explain: %q: request number too large", arg)) {
			t.Errorf("--explain %s: exit %d, stdout %q, stderr %q; want exit 2 and the number named too large", arg, code, out, errs)
		}
	}
}
