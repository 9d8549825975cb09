package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// write puts text in a file of a fresh temporary folder.
func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSplice(t *testing.T) {
	for _, c := range []struct {
		doc, want, err string
	}{
		{"a\n" + beginMark + "\nold\n" + endMark + "\nz\n", "a\n" + beginMark + "\nNEW\n" + endMark + "\nz\n", ""},
		{"a\n" + beginMark + "\n" + endMark + "\n", "a\n" + beginMark + "\nNEW\n" + endMark + "\n", ""},
		{"no marks\n", "", "want the lines"},
		{endMark + "\n" + beginMark + "\n", "", "want the lines"},
	} {
		got, err := splice([]byte(c.doc), []byte("NEW\n"))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("splice(%q): got error %v, want %q", c.doc, err, c.err)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("splice(%q) = %q, %v; want %q", c.doc, got, err, c.want)
		}
	}
}

func TestParseBench(t *testing.T) {
	p := write(t, "native.txt", `goos: linux
BenchmarkScenario/mp-2   	 1000000	       364.4 ns/op	   2738922 requests/s	      16 B/op	       0 allocs/op
BenchmarkScenario/mp-2   	 1000000	       300.0 ns/op	   3300000 requests/s	      12 B/op	       1 allocs/op
BenchmarkScenario/mp-2   	 1000000	       500.0 ns/op	   2000000 requests/s	      10 B/op	       0 allocs/op
BenchmarkScenario/shm    	 1000000	       577.9 ns/op	   1728919 requests/s	      13 B/op	       0 allocs/op
PASS
`)
	set, err := parseBench(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(set.names, ","); got != "BenchmarkScenario/mp,BenchmarkScenario/shm" {
		t.Errorf("names %q, want the two benchmarks without the -2 suffix", got)
	}
	med, best, ok := set.stat("BenchmarkScenario/mp")
	if !ok || med != 2738922 || best != 3300000 {
		t.Errorf("stat = %v, %v, %v; want median 2738922, best 3300000", med, best, ok)
	}
	if r := set.runs["BenchmarkScenario/mp"][1]; r.nsPerOp != 300 || r.bytesPerOp != 12 || r.allocsPerOp != 1 {
		t.Errorf("second run %+v, want 300 ns, 12 B, 1 alloc", r)
	}
	if _, _, ok := set.stat("BenchmarkScenario/nope"); ok {
		t.Error("stat of a missing benchmark: got ok, want not ok")
	}
	if _, err := parseBench(write(t, "bad.txt", "BenchmarkX-2 10 fast ns/op\n")); err == nil || !strings.Contains(err.Error(), "bad.txt:1") {
		t.Errorf("bad value: got %v, want an error naming bad.txt:1", err)
	}
}

func TestParseTimes(t *testing.T) {
	got, err := parseTimes(write(t, "t", "Command exited with non-zero status 1\n0.41 51234\n0.39 50000\n0.45 49000 0.52\n"))
	if err != nil || len(got) != 3 || got[1] != (timing{0.39, 50000, 0}) || got[2] != (timing{0.45, 49000, 0.52}) {
		t.Fatalf("got %v, %v; want three timings, the second 0.39 s 50000 kB, the third with 0.52 CPU seconds", got, err)
	}
	if c := leastCPU(got); c != 0.52 {
		t.Errorf("leastCPU = %v, want 0.52 (runs without a CPU time left out)", c)
	}
	if best, rss := fastest(got); best.wallS != 0.39 || rss != 51234 {
		t.Errorf("fastest = %v, %d; want 0.39 s and the larger RSS 51234", best, rss)
	}
	if _, err := parseTimes(write(t, "t", "killed\n")); err == nil {
		t.Error("no timing line: got no error")
	}
}

func TestParseOutputs(t *testing.T) {
	s, err := parseSimPy(write(t, "s", "1001803 requests in 4.62 s wall (4.10 s simulating): 216840 requests/s end to end, 244342 requests/s simulating (SimPy 3.0.11, Python 3.11.2)\n"))
	if err != nil || s != (simpyRun{1001803, 244342}) {
		t.Errorf("parseSimPy = %+v, %v", s, err)
	}
	w, agent, err := parseWasmbench(write(t, "c", "wasmbench: userAgent Headless/1\nwasmbench: mp-standard.json requests=998156 requests/s=1343775\nwasmbench: done\n"))
	if err != nil || w["mp-standard.json"] != 1343775 || agent != "Headless/1" {
		t.Errorf("parseWasmbench = %v, %q, %v", w, agent, err)
	}
	if _, _, err := parseWasmsweep(write(t, "w", "wasmsweep: workers=1 ms 900.5\nwasmsweep: error Error: boom\n")); err == nil {
		t.Error("parseWasmsweep of a run without its 2-worker line: no error")
	}
	ws, err := parseWasmSize(write(t, "z", "tuxlb 6935575 1366584\ntuxlb-tools 7711640 1518662\n"))
	if err != nil || ws["tuxlb"] != (wasmSize{6935575, 1366584}) || ws["tuxlb-tools"] != (wasmSize{7711640, 1518662}) {
		t.Errorf("parseWasmSize = %v, %v", ws, err)
	}
	if _, err := parseWasmSize(write(t, "z2", "tuxlb 6935575 x\n")); err == nil {
		t.Error("parseWasmSize of a bad size: no error")
	}
	rows, sum, err := parsePprofTop(write(t, "p", "Type: cpu\nShowing nodes accounting for 2.24s, 92.18% of 2.43s total\n      flat  flat%   sum%        cum   cum%\n     0.43s 17.70% 17.70%      0.53s 21.81%  github.com/tuxlb/tuxlb/core.flog\n"))
	if err != nil || sum != "2.24s, 92.18% of 2.43s total" || len(rows) != 1 || rows[0] != (pprofRow{"17.70%", "21.81%", "github.com/tuxlb/tuxlb/core.flog"}) {
		t.Errorf("parsePprofTop = %+v, %q, %v", rows, sum, err)
	}
}

func TestParseRestAndEngine(t *testing.T) {
	got, err := parseRest(write(t, "r", "rest: 0.035\nrest: 0.031\nnoise\nrest: 0.033\n"))
	if err != nil || len(got) != 3 || got[0] != 0.031 || got[1] != 0.033 {
		t.Errorf("parseRest = %v, %v; want [0.031 0.033 0.035]", got, err)
	}
	if _, err := parseRest(write(t, "r", "rest: soon\n")); err == nil || !strings.Contains(err.Error(), "soon") {
		t.Errorf("bad seconds: got %v, want an error quoting them", err)
	}
	runs, err := parseWasmbenchRuns(write(t, "e", "wasmbench: mp-100k.json requests=99446 requests/s=3693539\nwasmbench: done\n"))
	if err != nil || runs["mp-100k.json"] != (wasmbenchRun{99446, 3693539}) {
		t.Errorf("parseWasmbenchRuns = %v, %v", runs, err)
	}
	r := &report{rest: []float64{0.0310, 0.0320}, engine: wasmbenchRun{100000, 4e6}}
	if over, ok := r.restOverhead(); !ok || over < 0.2399 || over > 0.2401 {
		t.Errorf("restOverhead = %v, %v; want 31 ms / 25 ms - 1 = 0.24", over, ok)
	}
}

func TestRatiosToTheBareLoop(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"bare.txt": "BenchmarkBareLoop-2 2000000 200.0 ns/op 5000000 requests/s 0 B/op 0 allocs/op\n" +
			"BenchmarkBareLoop-2 2000000 180.0 ns/op 5500000 requests/s 0 B/op 0 allocs/op\n",
		"sweep.txt": "BenchmarkSweepWorkers/workers=1-2 3 400000000 ns/op\nBenchmarkSweepWorkers/workers=1-2 3 380000000 ns/op\n" +
			"BenchmarkSweepWorkers/workers=2-2 3 200000000 ns/op\nBenchmarkSweepWorkers/workers=2-2 3 250000000 ns/op\n",
		"run1m.time":  "0.25 20000 0.30\n0.22 21000 0.27\n",
		"bare1m.time": "0.30 3000 0.21\n0.20 3000 0.19\n",
		"run1m.json":  `{"requests":{"issued":990000}}`,
		"chromium-sweep.txt": "wasmsweep: userAgent HeadlessChrome\nwasmsweep: workers=1 ms 1300.5 1200.0 1250.1\n" +
			"wasmsweep: workers=2 ms 800.0 700.0 790.2\nwasmsweep: exit 0\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := newReport(dir, time.Time{})
	if got := r.bareRate(); got != 5.5e6 {
		t.Errorf("bareRate = %v, want the fastest run's 5.5e6", got)
	}
	if got := r.bare.runs[bareName][0].iters; got != 2e6 {
		t.Errorf("iterations = %v, want 2e6", got)
	}
	// 990000 requests in 0.22 s = 4.5 M/s, 0.82 of 5.5 M/s
	if got := ratio(r.e2eRate(), r.bareRate()); got != "0.82 ×" {
		t.Errorf("ratio of tuxlb run to the bare loop = %q, want \"0.82 ×\"", got)
	}
	if got := ratio(1, 0); got != "" {
		t.Errorf("ratio to a missing reference = %q, want empty", got)
	}
	one, two, ok := r.sweepSpeedup()
	if !ok || one != 380e6 || two != 200e6 {
		t.Errorf("sweepSpeedup = %v, %v, %v; want the fastest of each, 380e6 and 200e6", one, two, ok)
	}
	var out strings.Builder
	r.writeTargets(&out)
	for _, want := range []string{
		// 990000 / 0.27 s of CPU = 273 ns per request; 1 M / 0.19 s = 190 ns
		"| `tuxlb run` end to end, 1 M requests: ≥ 0.8 × the bare event loop | 4.50 M (fastest of 7 runs) = 0.82 × the bare loop's 5.50 M (`BenchmarkBareLoop`, fastest of 2); 0.90 × the bare loop run as a process like `tuxlb run` (5.00 M); by CPU time per request, 273 ns against the bare process's 190 ns: 0.70 × | **met** |",
		"| sweeps natively: 2 workers ≥ 1.8 × one | 1.90 × (`BenchmarkSweepWorkers`: 380 ms on 1 worker, 200 ms on 2, fastest of 2 each) | **met** |",
		"| WASM in node: ≥ 2 M requests/s | not measured (`BenchmarkScenario/mp`) | not measured |",
		// 1200 ms / 700 ms, the fastest of each
		"| sweeps in Chromium: 2 Web Workers ≥ 1.6 × one | 1.71 × (bench/wasm/sweep.html: 1200 ms on 1 Web Worker, 700 ms on 2, fastest of 3 each) | **met** |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("targets table lacks the row\n%s\ngot:\n%s", want, out.String())
		}
	}
}

// TestScaleTargets: the scale rows are read from BenchmarkScale's and
// BenchmarkScaleOverload's net-ns/req (the fewest of the runs, each size's
// over that of 16 instances, the worst judged), BenchmarkScaleOverloadScan,
// the scaled runs' peak RSS and the JSON's size, and judged against their
// targets; the scale table gives each size's figures.
func TestScaleTargets(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"scale.txt": "BenchmarkScale/servers=16-2 1000000 250.0 ns/op 230.0 net-ns/req 7 B/op 0 allocs/op\n" +
			"BenchmarkScale/servers=16-2 1000000 240.0 ns/op 200.0 net-ns/req 7 B/op 0 allocs/op\n" +
			"BenchmarkScale/servers=256-2 1000000 290.0 ns/op 280.0 net-ns/req 9 B/op 0 allocs/op\n" +
			"BenchmarkScale/servers=4096-2 1000000 390.0 ns/op 250.0 net-ns/req 68 B/op 0 allocs/op\n" +
			"BenchmarkScaleOverload/servers=16-2 300000 618.0 ns/op 500.0 net-ns/req 84 B/op 0 allocs/op\n" +
			"BenchmarkScaleOverload/servers=4096-2 300000 1200 ns/op 900.0 net-ns/req 1231 B/op 1 allocs/op\n" +
			"BenchmarkScaleOverloadScan/servers=4096-2 300000 10896 ns/op 9000 net-ns/req 1228 B/op 0 allocs/op\n",
		"scale-16-1m.time":       "0.30 21000\n",
		"scale-4096-1m.time":     "0.52 55296\n0.50 56000\n",
		"scale-4096-1k.size":     "3700000\n",
		"scale-4096-1k-all.size": "36700000\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	rep := newReport(dir, time.Unix(0, 0))
	rep.writeTargets(&b)
	rep.writeScale(&b)
	out := b.String()
	for _, want := range []string{
		// 280/200 = 1.4 over 1.3; 250/200 = 1.25
		"worst 1.40 × at 256 instances (256: 1.40, 4096: 1.25; fewest net-ns/req of 2 runs each) | **missed** |",
		// 900/500
		"worst 1.80 × at 4096 instances (4096: 1.80; fewest net-ns/req of 1 runs each) | **met** |",
		"900 net ns a request from the trees, 9000 from the scan (10.0 × faster) | **met** |",
		"55 MB (16 instances: 21 MB) | **met** |", // the largest peak of the runs,
		"3.7 MB (`--series all`: 36.7 MB) | **met** |",
		"| 16 | 200 | 1.00 | 0 | 500 | 1.00 | 0 |",
		"| 64 | | | | | |",
		"| 4096 | 250 | 1.25 | 0 | 900 | 1.80 | 1 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("targets lack %q:\n%s", want, out)
		}
	}
}

// TestTraceRatio: the replayed log's row is read from
// BenchmarkTraceVsGenerated, the fastest run of each, and judged against
// twice the generated cost.
func TestTraceRatio(t *testing.T) {
	dir := t.TempDir()
	text := "BenchmarkTraceVsGenerated/generated-2 1000000 250.0 ns/op 5 B/op 0 allocs/op\n" +
		"BenchmarkTraceVsGenerated/generated-2 1000000 200.0 ns/op 5 B/op 0 allocs/op\n" +
		"BenchmarkTraceVsGenerated/trace-2 1000000 700.0 ns/op 10 B/op 0 allocs/op\n" +
		"BenchmarkTraceVsGenerated/trace-2 1000000 500.0 ns/op 10 B/op 1 allocs/op\n"
	if err := os.WriteFile(filepath.Join(dir, "trace.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	newReport(dir, time.Unix(0, 0)).writeTrace(&b)
	// 500 / 200 = 2.5: over the target of 2
	for _, want := range []string{"| generated | 200 | 0 | 1 |", "| trace_csv | 500 | 1 | 2.50 (target 2: not met) |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the trace table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestApplicationTarget: the applications row divides the plain path's
// fastest requests/s by the application's (BenchmarkScenario/mp and
// BenchmarkApplication of native.txt) and judges it against 1.3.
func TestApplicationTarget(t *testing.T) {
	for _, tc := range []struct {
		app  string
		want string
	}{
		{"2000000", "| applications: a request of bankapp's tellers (a client population, nested calls, routing by account) ≤ 1.3 × a plain request (`BenchmarkApplication` against `BenchmarkScenario/mp`, fastest runs) | 2.50 × (2.00 M against 5.00 M) | **missed** |"},
		{"4000000", "| 1.25 × (4.00 M against 5.00 M) | **met** |"},
		// the parts: nested calls judged against 1.2, client populations against 1.3
		{"2000000", "| nested calls: a request of open-loop streams whose TRANSFER tpcalls ACCOUNT (bench/apps/nested.json), nested ones included ≤ 1.2 × a plain request (`BenchmarkNested` against `BenchmarkScenario/mp`, fastest runs) | 1.25 × (4.00 M against 5.00 M) | **missed** |"},
		{"2000000", "| client populations: a request of 256 clients on the MP model (bench/apps/clients.json) ≤ 1.3 × a plain request (`BenchmarkClients` against `BenchmarkScenario/mp`, fastest runs) | 1.25 × (4.00 M against 5.00 M) | **met** |"},
	} {
		dir := t.TempDir()
		native := "BenchmarkScenario/mp-2 1000000 250.0 ns/op 4000000 requests/s 4 B/op 0 allocs/op\n" +
			"BenchmarkScenario/mp-2 1000000 200.0 ns/op 5000000 requests/s 4 B/op 0 allocs/op\n" +
			"BenchmarkApplication-2 1000000 500.0 ns/op " + tc.app + " requests/s 3 B/op 0 allocs/op\n" +
			"BenchmarkNested-2 1000000 250.0 ns/op 4000000 requests/s 3 B/op 0 allocs/op\n" +
			"BenchmarkClients-2 1000000 250.0 ns/op 4000000 requests/s 3 B/op 0 allocs/op\n"
		if err := os.WriteFile(filepath.Join(dir, "native.txt"), []byte(native), 0o644); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		newReport(dir, time.Time{}).writeTargets(&out)
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("application at %s requests/s: targets table lacks\n%s\ngot:\n%s", tc.app, tc.want, out.String())
		}
	}
}

// cgFile is a cachegrind output of one event (Ir) whose files under root
// count own instructions, and whose runtime file and a folder beside root
// count more, by amounts that differ between runs as own does.
func cgFile(root string, own int64) string {
	return "desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: core.test\nevents: Ir\n" +
		"fl=/usr/local/go/src/runtime/mgc.go\nfn=runtime.gcBgMarkWorker\n10 " + strconv.FormatInt(own/7, 10) + "\n" +
		"fl=" + root + "/core/engine.go\nfn=github.com/tuxlb/tuxlb/core.(*engine).steps\n" +
		"12 " + strconv.FormatInt(own-own/4, 10) + "\n13 " + strconv.FormatInt(own/4, 10) + "\n" +
		"fl=" + root + "-other/x.go\nfn=other\n1 " + strconv.FormatInt(own/3, 10) + "\n" +
		"summary: 99\n"
}

// TestInstructionsPerRequest: each benchmark's two cachegrind runs give the
// instructions of the repository's own files (not the runtime's, not a
// folder that only starts like the root) a request, the scale benchmarks'
// b.N/4 warm-up run counted; the targets and the table judge the ratios.
func TestInstructionsPerRequest(t *testing.T) {
	root := "/repo"
	dir := t.TempDir()
	instr := filepath.Join(dir, "instr")
	if err := os.Mkdir(instr, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]int64{
		"mp.100000": 100e6, "mp.300000": 100e6 + 200_000*1600, // 1 600 a request
		"app.100000": 50e6, "app.300000": 50e6 + 200_000*3200, // 3 200: 2 x the plain path
		"nested.100000": 50e6, "nested.300000": 50e6 + 200_000*1920, // 1.2 x: met
		"clients.100000": 50e6, "clients.300000": 50e6 + 200_000*2240, // 1.4 x: missed
		"scale-16.100000": 1e6, "scale-16.300000": 1e6 + 250_000*1700, // 1.25 x 200 000 requests
		"scale-4096.100000": 9e6, "scale-4096.300000": 9e6 + 250_000*2380, // 1.4 x
		"overload-16.100000": 1e6, "overload-16.300000": 1e6 + 250_000*2000,
		"overload-1024.100000": 1e6, "overload-1024.300000": 1e6 + 250_000*3000, // 1.5 x
	}
	for name, own := range files {
		if err := os.WriteFile(filepath.Join(instr, name+".cg"), []byte(cgFile(root, own)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := instrPerRequest(instr, root)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{"mp": 1600, "app": 3200, "scale-16": 1700, "scale-4096": 2380, "overload-1024": 3000} {
		if got[name] != want {
			t.Errorf("%s: %g instructions a request, want %g", name, got[name], want)
		}
	}
	rep := &report{instr: got}
	var b strings.Builder
	rep.writeTargets(&b)
	rep.writeInstr(&b)
	for _, want := range []string{
		"| 2.00 × (3200 against 1600 instructions a request) | **missed** |",
		"(80% load) | worst 1.40 × at 4096 instances (4096: 1.40) | **missed** |",
		"(120% load) | worst 1.50 × at 1024 instances (1024: 1.50) | **met** |",
		"| `BenchmarkApplication` (bankapp's tellers) | 3200 | 2.00 |",
		"nested calls ≤ 1.2 × a plain request, by instructions (cachegrind: tuxlb's own code, `BenchmarkNested` against `BenchmarkScenario/mp`) | 1.20 × (1920 against 1600 instructions a request) | **met** |",
		"client populations ≤ 1.3 × a plain request, by instructions (cachegrind: tuxlb's own code, `BenchmarkClients` against `BenchmarkScenario/mp`) | 1.40 × (2240 against 1600 instructions a request) | **missed** |",
		"| `BenchmarkNested` (nested calls) | 1920 | 1.20 |",
		"| `BenchmarkClients` (client populations) | 2240 | 1.40 |",
		"| 16 | 1700 | 1.00 | 2000 | 1.00 |",
		"| 64 | | | | |",
		"| 1024 | | | 3000 | 1.50 |",
		"| 4096 | 2380 | 1.40 | | |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	// a benchmark with one run, or none at all, is an error naming it
	if err := os.Remove(filepath.Join(instr, "app.300000.cg")); err != nil {
		t.Fatal(err)
	}
	if _, err := instrPerRequest(instr, root); err == nil || !strings.Contains(err.Error(), "app has 1 runs") {
		t.Errorf("one run of app: %v, want an error naming app", err)
	}
	if _, err := instrPerRequest(t.TempDir(), root); err == nil || !strings.Contains(err.Error(), "valgrind") {
		t.Errorf("no counts: %v, want an error naming valgrind", err)
	}
	bad := write(t, "bad.cg", "events: Ir\nfl=/repo/a.go\nfn=f\n12 x\n")
	if _, err := ownInstructions(bad, root); err == nil || !strings.Contains(err.Error(), "bad.cg:4") {
		t.Errorf("a bad count: %v, want the file and line", err)
	}
}
