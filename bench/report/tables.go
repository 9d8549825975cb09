package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// report is everything bench/run.sh measured; a figure that could not be
// read leaves its error in problems and its rows say "not measured".
type report struct {
	dir      string
	now      time.Time
	native   benchSet
	bare     benchSet // BenchmarkBareLoop natively, the reference
	sweep    benchSet // BenchmarkSweepWorkers (pool), when measured
	node     benchSet
	chromium map[string]float64
	// wsweep: the Chromium sweep's fastest milliseconds by number of Web
	// Workers (bench/wasm/sweep.html), over wsweepRuns runs each
	wsweep     map[int]float64
	wsweepRuns int
	wasm       map[string]wasmSize // the playground's modules by name (tuxlb, tuxlb-tools)
	run1m      []timing
	issued1m   int64
	bare1m     []timing // bench/bareloop's test binary, 1 M requests, as a process
	run5m      []timing
	issued5m   int64
	dispatch   []timing
	rest       []float64 // seconds per POST, sorted
	engine     wasmbenchRun
	simpy      map[string]simpyRun
	simpyT     map[string][]timing
	cpuRows    []pprofRow
	cpuSum     string
	memRows    []pprofRow
	memSum     string
	// scale: BenchmarkScale and BenchmarkScaleOverload, tuxlb run at 16 and
	// 4 096 instances (1 M requests), the JSON of 1 000 requests at 4 096
	scale     benchSet
	trace     benchSet // BenchmarkTraceVsGenerated
	scaleRuns map[int][]timing
	scaleJSON int64
	scaleAll  int64
	// instr: instructions a request in tuxlb's own code (bench/instr.sh,
	// cachegrind), by name: mp, app, scale-N, overload-N
	instr    map[string]float64
	problems []string
}

// newReport reads every raw figure in dir.
func newReport(dir string, now time.Time) *report {
	r := &report{dir: dir, now: now, simpy: map[string]simpyRun{}, simpyT: map[string][]timing{}}
	p := func(name string) string { return filepath.Join(dir, name) }
	var err error
	if r.native, err = parseBench(p("native.txt")); err != nil {
		r.note(err)
	}
	if r.bare, err = parseBench(p("bare.txt")); err != nil {
		r.note(err)
	}
	if r.sweep, err = parseBench(p("sweep.txt")); err != nil {
		r.note(err)
	}
	if r.node, err = parseBench(p("node.txt")); err != nil {
		r.note(err)
	}
	if r.chromium, _, err = parseWasmbench(p("chromium.txt")); err != nil {
		r.note(err)
	}
	if r.wsweep, r.wsweepRuns, err = parseWasmsweep(p("chromium-sweep.txt")); err != nil {
		r.note(err)
	}
	if r.wasm, err = parseWasmSize(p("wasm-size.txt")); err != nil {
		r.note(err)
	}
	r.run1m, r.issued1m = r.endToEnd(p("run1m.time"), p("run1m.json"))
	r.run5m, r.issued5m = r.endToEnd(p("run5m.time"), p("run5m.json"))
	if r.bare1m, err = parseTimes(p("bare1m.time")); err != nil {
		r.note(err)
	}
	if r.dispatch, err = parseTimes(p("run1m-dispatch.time")); err != nil {
		r.note(err)
	}
	if r.rest, err = parseRest(p("rest.txt")); err != nil {
		r.note(err)
	}
	if runs, err := parseWasmbenchRuns(p("engine100k.txt")); err != nil {
		r.note(err)
	} else {
		r.engine = runs["mp-100k.json"]
	}
	for _, style := range []string{"events", "process"} {
		if r.simpy[style], err = parseSimPy(p("simpy-" + style + ".txt")); err != nil {
			r.note(err)
		}
		if r.simpyT[style], err = parseTimes(p("simpy-" + style + ".time")); err != nil {
			r.note(err)
		}
	}
	if r.scale, err = parseBench(p("scale.txt")); err != nil {
		r.note(err)
	}
	if r.trace, err = parseBench(p("trace.txt")); err != nil {
		r.note(err)
	}
	r.scaleRuns = map[int][]timing{}
	for _, n := range []int{16, 4096} {
		if r.scaleRuns[n], err = parseTimes(p(fmt.Sprintf("scale-%d-1m.time", n))); err != nil {
			r.note(err)
		}
	}
	if r.scaleJSON, err = readSize(p("scale-4096-1k.size")); err != nil {
		r.note(err)
	}
	if r.scaleAll, err = readSize(p("scale-4096-1k-all.size")); err != nil {
		r.note(err)
	}
	if r.cpuRows, r.cpuSum, err = parsePprofTop(p("profile-cpu.txt")); err != nil {
		r.note(err)
	}
	if r.memRows, r.memSum, err = parsePprofTop(p("profile-alloc.txt")); err != nil {
		r.note(err)
	}
	if root, err := os.Getwd(); err != nil {
		r.note(err)
	} else if r.instr, err = instrPerRequest(p("instr"), root); err != nil {
		r.note(err)
	}
	return r
}

func (r *report) note(err error) { r.problems = append(r.problems, err.Error()) }

// endToEnd reads the timings and the issued count of a `tuxlb run`.
func (r *report) endToEnd(timePath, jsonPath string) ([]timing, int64) {
	t, err := parseTimes(timePath)
	if err != nil {
		r.note(err)
		return nil, 0
	}
	n, err := issued(jsonPath)
	if err != nil {
		r.note(err)
	}
	return t, n
}

// fastest is the quickest of the timings, and the largest peak RSS seen.
func fastest(ts []timing) (best timing, maxRSS int64) {
	for i, t := range ts {
		if i == 0 || t.wallS < best.wallS {
			best = t
		}
		maxRSS = max(maxRSS, t.rssKB)
	}
	return best, maxRSS
}

// leastCPU is the smallest CPU time among the timings (0 if none was
// measured).
func leastCPU(ts []timing) float64 {
	var best float64
	for _, t := range ts {
		if t.cpuS > 0 && (best == 0 || t.cpuS < best) {
			best = t.cpuS
		}
	}
	return best
}

// bareProcRequests is how many requests the bare loop's process runs.
const bareProcRequests = 1_000_000

// cpuRatio compares tuxlb run with the bare loop as processes by CPU time
// per request (less sensitive to other work on the machine than the wall
// clock): tuxlb's requests per CPU second over the bare loop's.
func (r *report) cpuRatio() (tux, bare float64, ok bool) {
	t, b := leastCPU(r.run1m), leastCPU(r.bare1m)
	if t <= 0 || b <= 0 || r.issued1m <= 0 {
		return 0, 0, false
	}
	return t / float64(r.issued1m), b / bareProcRequests, true
}

// write prints the generated section.
func (r *report) write(w io.Writer) {
	cpus, model := machine()
	fmt.Fprintf(w, "\nGenerated by `go tool task bench` on %s: %d CPUs (%s); %s; load before the run: `%s`.\n",
		r.now.Format("2006-01-02 15:04 UTC"), cpus, model, oneLine(readTrim(r.dir, "versions.txt")), readTrim(r.dir, "load.txt"))
	fmt.Fprintln(w, "Other work on the machine slows some runs: benchmark figures are the median of several runs with the best in brackets, and every target is judged on the fastest run.")
	r.writeTargets(w)
	r.writeBenchmarks(w)
	r.writeScale(w)
	r.writeInstr(w)
	r.writeTrace(w)
	r.writeEndToEnd(w)
	r.writeProfile(w)
	if len(r.problems) > 0 {
		fmt.Fprintln(w, "\nNot measured this time:")
		for _, p := range r.problems {
			fmt.Fprintf(w, "- %s\n", p)
		}
	}
	fmt.Fprintln(w)
}

func oneLine(s string) string {
	out := []rune{}
	for _, c := range s {
		if c == '\n' {
			out = append(out, ';', ' ')
			continue
		}
		out = append(out, c)
	}
	return string(out)
}

// benchCell is "median (best)" of a benchmark's requests/s, and the best,
// which targets are judged on.
func benchCell(s benchSet, name string) (string, float64, bool) {
	med, best, ok := s.stat(name)
	if !ok {
		return "not measured", 0, false
	}
	return fmt.Sprintf("%s (%s)", mrps(med), mrps(best)), best, true
}

// bareName is the reference benchmark's name, natively and under node;
// bareFile is its line in bench/wasm's output (Chromium).
const (
	bareName = "BenchmarkBareLoop"
	bareFile = "bare-loop"
)

// bareRate is the bare loop's fastest requests/s natively (0 if not measured).
func (r *report) bareRate() float64 {
	_, best, _ := r.bare.stat(bareName)
	return best
}

// ratio formats v as a multiple of the reference ref ("" without one).
func ratio(v, ref float64) string {
	if v <= 0 || ref <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2f ×", v/ref)
}

// sweepSpeedup is how many times faster the sweep benchmark ran on 2
// workers than on 1 (fastest run of each).
func (r *report) sweepSpeedup() (one, two float64, ok bool) {
	one, ok1 := r.sweep.bestNs("BenchmarkSweepWorkers/workers=1")
	two, ok2 := r.sweep.bestNs("BenchmarkSweepWorkers/workers=2")
	return one, two, ok1 && ok2
}

func (r *report) writeTargets(w io.Writer) {
	fmt.Fprint(w, "\n### Targets\n\n")
	fmt.Fprintln(w, "| target | measured | |")
	fmt.Fprintln(w, "|---|---|---|")
	row := func(target, figure string, ok, measured bool) {
		v := "not measured"
		if measured {
			v = verdict(ok)
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", target, figure, v)
	}
	bare := r.bareRate()
	e2e := r.e2eRate()
	if e2e > 0 && bare > 0 {
		fig := fmt.Sprintf("%s (fastest of 7 runs) = %s the bare loop's %s (`BenchmarkBareLoop`, fastest of %d)",
			mrps(e2e), ratio(e2e, bare), mrps(bare), len(r.bare.runs[bareName]))
		if bp, _ := fastest(r.bare1m); bp.wallS > 0 {
			fig += fmt.Sprintf("; %s the bare loop run as a process like `tuxlb run` (%s)", ratio(e2e, bareProcRequests/bp.wallS), mrps(bareProcRequests/bp.wallS))
		}
		if t, b, ok := r.cpuRatio(); ok {
			fig += fmt.Sprintf("; by CPU time per request, %.0f ns against the bare process's %.0f ns: %.2f ×", t*1e9, b*1e9, b/t)
		}
		row("`tuxlb run` end to end, 1 M requests: ≥ 0.8 × the bare event loop", fig, e2e >= 0.8*bare, true)
	} else {
		row("`tuxlb run` end to end, 1 M requests: ≥ 0.8 × the bare event loop", "not measured", false, false)
	}
	sp, spp := r.simpyRate("events"), r.simpyRate("process")
	if e2e > 0 && sp > 0 && spp > 0 {
		row("≥ 50 × SimPy end to end", fmt.Sprintf("%.0f × the events-style SimPy model (%s); %.0f × the process style; %.0f × the issue's 0.09 M",
			e2e/sp, mrps(sp), e2e/spp, e2e/0.09e6), e2e/sp >= 50, true)
	} else {
		row("≥ 50 × SimPy end to end", "not measured", false, false)
	}
	cell, best, ok := benchCell(r.node, "BenchmarkScenario/mp")
	_, nodeBare, _ := r.node.stat(bareName)
	if nb := ratio(best, nodeBare); nb != "" {
		cell += fmt.Sprintf("; %s the bare loop under node (%s)", nb, mrps(nodeBare))
	}
	row("WASM in node: ≥ 2 M requests/s", cell+" (`BenchmarkScenario/mp`)", best >= 2e6, ok)
	c := r.chromium["mp-standard.json"]
	cc := mrps(c) + " (bench/wasm, best of 5)"
	if cb := ratio(c, r.chromium[bareFile]); cb != "" {
		cc += fmt.Sprintf("; %s the bare loop in Chromium (%s)", cb, mrps(r.chromium[bareFile]))
	}
	row("WASM in Chromium: ≥ 2 M requests/s", cc, c >= 2e6, c > 0)
	_, plain, pok := benchCell(r.native, "BenchmarkScenario/mp")
	for _, ab := range appBenches {
		target := fmt.Sprintf("%s: a request of %s ≤ %.1f × a plain request (`%s` against `BenchmarkScenario/mp`, fastest runs)", ab.title, ab.what, ab.target, ab.bench)
		if _, app, aok := benchCell(r.native, ab.bench); aok && pok && app > 0 {
			row(target, fmt.Sprintf("%.2f × (%s against %s)", plain/app, mrps(app), mrps(plain)), plain/app <= ab.target, true)
		} else {
			row(target, "not measured", false, false)
		}
	}
	_, rss := fastest(r.run5m)
	row("5 M requests, no dispatch log: < 100 MB peak RSS", fmt.Sprintf("%s (%d requests)", mb(rss), r.issued5m), rss < 100*1024, rss > 0)
	if one, two, ok := r.sweepSpeedup(); ok {
		row("sweeps natively: 2 workers ≥ 1.8 × one", fmt.Sprintf("%.2f × (`BenchmarkSweepWorkers`: %.0f ms on 1 worker, %.0f ms on 2, fastest of %d each)",
			one/two, one/1e6, two/1e6, len(r.sweep.runs["BenchmarkSweepWorkers/workers=1"])), one/two >= 1.8, true)
	} else {
		row("sweeps natively: 2 workers ≥ 1.8 × one", "not measured (no `BenchmarkSweepWorkers`)", false, false)
	}
	if one, two := r.wsweep[1], r.wsweep[2]; one > 0 && two > 0 {
		row("sweeps in Chromium: 2 Web Workers ≥ 1.6 × one", fmt.Sprintf("%.2f × (bench/wasm/sweep.html: %.0f ms on 1 Web Worker, %.0f ms on 2, fastest of %d each)",
			one/two, one, two, r.wsweepRuns), one/two >= 1.6, true)
	} else {
		row("sweeps in Chromium: 2 Web Workers ≥ 1.6 × one", "not measured (no bench/wasm/sweep.html result)", false, false)
	}

	first, tools := r.wasm["tuxlb"], r.wasm["tuxlb-tools"]
	row("the playground's first download: `tuxlb.wasm` ≤ 1.4 MB with brotli (`go tool task wasm`'s build, brotli's best level)",
		fmt.Sprintf("%.2f MB (%d bytes; %.1f MB raw); the second module, `tuxlb-tools.wasm` (fit, sweeps, optimize, fetched when first asked for): %.2f MB (%.1f MB raw)",
			float64(first.brotli)/1e6, first.brotli, float64(first.raw)/1e6, float64(tools.brotli)/1e6, float64(tools.raw)/1e6),
		first.brotli <= wasmFirstTarget, first.brotli > 0)

	for _, load := range []struct {
		bench, what string
		target      float64
	}{{"BenchmarkScale", "80% load", scaleTarget80}, {"BenchmarkScaleOverload", "120% load", scaleTarget120}} {
		worst, at, all, ok := r.scaleWorst(load.bench)
		row(fmt.Sprintf("scale: per-request cost at every size from 16 to 4 096 instances ≤ %.1f × that at 16, net of the fixed cost (`%s`, %s)", load.target, load.bench, load.what),
			fmt.Sprintf("worst %.2f × at %d instances (%s; fewest net-ns/req of %d runs each)", worst, at, all, len(r.scale.runs[load.bench+"/servers=16"])),
			worst <= load.target, ok)
	}
	r.instrTargets(row)
	if tree, ok := r.scale.bestNet("BenchmarkScaleOverload/servers=4096"); ok {
		scan, sok := r.scale.bestNet("BenchmarkScaleOverloadScan/servers=4096")
		row("scale at 120% load: the least cost from trees faster than the scan at 4 096 instances (`BenchmarkScaleOverload`, `BenchmarkScaleOverloadScan`)",
			fmt.Sprintf("%.0f net ns a request from the trees, %.0f from the scan (%.1f × faster)", tree, scan, scan/tree),
			tree < scan, sok)
	}
	_, rss4k := fastest(r.scaleRuns[4096])
	_, rss16 := fastest(r.scaleRuns[16])
	row("scale: `tuxlb run` at 4 096 instances, 1 M requests ≤ 100 MB peak RSS",
		fmt.Sprintf("%s (16 instances: %s)", mb(rss4k), mb(rss16)), rss4k <= 100*1024, rss4k > 0)
	row("scale: the JSON of a 1 000-request run at 4 096 instances ≤ 5 MB",
		fmt.Sprintf("%.1f MB (`--series all`: %.1f MB)", float64(r.scaleJSON)/1e6, float64(r.scaleAll)/1e6), r.scaleJSON <= 5e6, r.scaleJSON > 0)

	fmt.Fprint(w, "\nEarlier targets, still checked:\n\n")
	fmt.Fprintln(w, "| target | measured | |")
	fmt.Fprintln(w, "|---|---|---|")
	cell, best, ok = benchCell(r.native, "BenchmarkScenario/mp")
	row("native engine, mp-standard, statistics on, no dispatch log: ≥ 5 M requests/s", cell+" (`BenchmarkScenario/mp`)", best >= 5e6, ok)
	row("`tuxlb run` end to end, 1 M requests: ≥ 4 M requests/s", fmt.Sprintf("%s (fastest of 7 runs)", mrps(e2e)), e2e >= 4e6, e2e > 0)
	if over, ok := r.restOverhead(); ok {
		row("REST API: a 100 k-request `POST /api/v1/runs` ≤ 120% of the engine alone",
			fmt.Sprintf("%.1f ms against %.1f ms: %+.0f%% (fastest of 7 each; median POST %.1f ms)",
				r.rest[0]*1000, r.engineSeconds()*1000, over*100, r.rest[len(r.rest)/2]*1000), over <= 0.2, true)
	} else {
		row("REST API: a 100 k-request `POST /api/v1/runs` ≤ 120% of the engine alone", "not measured", false, false)
	}
}

// engineSeconds is the fastest in-process ParseScenario + Run of the
// 100k-request scenario.
func (r *report) engineSeconds() float64 {
	if r.engine.rate <= 0 {
		return 0
	}
	return float64(r.engine.requests) / r.engine.rate
}

// restOverhead is how much longer the fastest POST took than the fastest
// in-process run, as a fraction.
func (r *report) restOverhead() (float64, bool) {
	e := r.engineSeconds()
	if e <= 0 || len(r.rest) == 0 {
		return 0, false
	}
	return r.rest[0]/e - 1, true
}

// simpyRate is the SimPy model's requests per second of whole-process wall
// time, the same measure as e2eRate's.
func (r *report) simpyRate(style string) float64 {
	best, _ := fastest(r.simpyT[style])
	if best.wallS <= 0 {
		return 0
	}
	return float64(r.simpy[style].requests) / best.wallS
}

// e2eRate is the fastest 1M `tuxlb run` in requests per second.
func (r *report) e2eRate() float64 {
	best, _ := fastest(r.run1m)
	if best.wallS <= 0 {
		return 0
	}
	return float64(r.issued1m) / best.wallS
}

func (r *report) writeBenchmarks(w io.Writer) {
	fmt.Fprint(w, "\n### Benchmarks (`go test ./core -bench`)\n\n")
	fmt.Fprint(w, "Sized by b.N requests, so ns, B and allocs per op are per request. `BenchmarkBareLoop` (bench/bareloop) is the bare event loop of the MP scenario, the reference: each figure's ratio to it is taken on the fastest runs, natively, under node and in Chromium alike. `BenchmarkScenario` runs `bench/scenarios` through ParseScenario and Run (everything but reading the file and writing the JSON); `BenchmarkRun` is the engine's own benchmark on the same scenarios with parsing and setup outside the timer; `BenchmarkRunSynthetic` the engine on a synthetic workload of 16 servers; `BenchmarkApplication` an application end to end (examples/bankapp-transfer.json: 120 tellers, TRANSFER calling WITHDRAWAL and DEPOSIT across two sites; per request, nested ones included), and `BenchmarkNested` and `BenchmarkClients` its two parts apart on the MP model (bench/apps: open-loop streams whose TRANSFER tpcalls ACCOUNT on servers of its own; 256 clients issuing the four services, no calls). Chromium runs bench/wasm (1 M requests, the same ParseScenario + Run).\n\n")
	fmt.Fprintln(w, "| benchmark | native requests/s | × bare loop | ns/request | B/request | allocs/request | node (WASM) requests/s | × bare loop | Chromium (WASM) requests/s | × bare loop |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	files := map[string]string{bareName: bareFile, "BenchmarkScenario/mp": "mp-standard.json", "BenchmarkScenario/shm": "shm-standard.json", "BenchmarkScenario/mssq": "mssq-standard.json"}
	bare := r.bareRate()
	_, nodeBare, _ := r.node.stat(bareName)
	chromeBare := r.chromium[bareFile]
	line := func(set benchSet, name string) {
		runs := set.runs[name]
		nat, best, _ := benchCell(set, name)
		nodeCell, nodeRatio := "—", ""
		if _, ok := r.node.runs[name]; ok {
			var nb float64
			nodeCell, nb, _ = benchCell(r.node, name)
			nodeRatio = ratio(nb, nodeBare)
		}
		chrome, chromeRatio := "—", ""
		if v, ok := r.chromium[files[name]]; ok {
			chrome, chromeRatio = mrps(v), ratio(v, chromeBare)
		}
		m := runs[len(runs)/2]
		fmt.Fprintf(w, "| `%s` | %s | %s | %.0f | %.0f | %.0f | %s | %s | %s | %s |\n", name, nat, ratio(best, bare), m.nsPerOp, m.bytesPerOp, m.allocsPerOp, nodeCell, nodeRatio, chrome, chromeRatio)
	}
	if _, ok := r.bare.runs[bareName]; ok {
		line(r.bare, bareName)
	}
	for _, name := range r.native.names {
		line(r.native, name)
	}
}

func (r *report) writeEndToEnd(w io.Writer) {
	fmt.Fprint(w, "\n### End to end: `tuxlb run` and SimPy on mp-standard\n\n")
	io.WriteString(w, "Wall time of the whole process (around it), its CPU time (user + system, every thread, the least of the runs; getrusage, to the microsecond) and peak RSS (`/usr/bin/time -f %M`), see bench/run.sh's `timed`; requests/s = requests issued / wall time.\n\n")
	fmt.Fprintln(w, "| run | requests | wall | requests/s | × bare loop | CPU | peak RSS | tuxlb's speed-up |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	e2e := r.e2eRate()
	bare := r.bareRate()
	line := func(name string, n int64, ts []timing, speedup string) {
		if len(ts) == 0 {
			fmt.Fprintf(w, "| %s | | not measured | | | | | |\n", name)
			return
		}
		best, rss := fastest(ts)
		rate := float64(n) / best.wallS
		cpu := ""
		if c := leastCPU(ts); c > 0 {
			cpu = fmt.Sprintf("%.2f s", c)
		}
		fmt.Fprintf(w, "| %s | %d | %.2f s | %s | %s | %s | %s | %s |\n", name, n, best.wallS, mrps(rate), ratio(rate, bare), cpu, mb(rss), speedup)
	}
	if bare > 0 {
		fmt.Fprintf(w, "| the bare event loop (`BenchmarkBareLoop`, in process, fastest of %d) | %.0f | | %s | 1.00 × | | | |\n",
			len(r.bare.runs[bareName]), r.bare.runs[bareName][0].iters, mrps(bare))
	}
	line("the bare event loop as a process (`bench/bareloop`'s test binary, fastest of 7)", bareProcRequests, r.bare1m, "")
	line("`tuxlb run mp-standard.json` (fastest of 7)", r.issued1m, r.run1m, "")
	line("`tuxlb run --dispatch FILE mp-standard.json`", r.issued1m, r.dispatch, "")
	line("`tuxlb run` on mp-standard scaled to 5 M", r.issued5m, r.run5m, "")
	for _, style := range []string{"events", "process"} {
		s := r.simpy[style]
		speed := ""
		if sr := r.simpyRate(style); sr > 0 && e2e > 0 {
			speed = fmt.Sprintf("%.0f ×", e2e/sr)
		}
		line(fmt.Sprintf("SimPy, %s style (`env.run()` alone: %s/s)", style, mrps(s.simulating)), s.requests, r.simpyT[style], speed)
	}
	if e := r.engineSeconds(); e > 0 {
		fmt.Fprintf(w, "| in process: ParseScenario + Run, mp-standard scaled to 100 k (`bench/wasm`, fastest of 7) | %d | %.1f ms | %s | %s | | | |\n",
			r.engine.requests, e*1000, mrps(r.engine.rate), ratio(r.engine.rate, bare))
	}
	if len(r.rest) > 0 {
		rate := float64(r.engine.requests) / r.rest[0]
		fmt.Fprintf(w, "| `POST /api/v1/runs` of the same 100 k scenario to `tuxlb serve` (curl, fastest of 7) | %d | %.1f ms | %s | %s | | | |\n",
			r.engine.requests, r.rest[0]*1000, mrps(rate), ratio(rate, bare))
	}
	if e2e > 0 {
		fmt.Fprintf(w, "| the issue's SimPy estimate | | | 0.09 M | %s | | | %.0f × |\n", ratio(0.09e6, bare), e2e/0.09e6)
	}
}

func (r *report) writeProfile(w io.Writer) {
	fmt.Fprint(w, "\n### Profile of `BenchmarkScenario/mp` (5 M requests)\n\n")
	fmt.Fprintf(w, "CPU, by own time (%s):\n\n", r.cpuSum)
	fmt.Fprintln(w, "| flat | cum | function |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, p := range r.cpuRows {
		fmt.Fprintf(w, "| %s | %s | `%s` |\n", p.flatPct, p.cumPct, p.function)
	}
	fmt.Fprintf(w, "\nAllocated bytes over the whole run (%s):\n\n", r.memSum)
	fmt.Fprintln(w, "| flat | cum | function |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, p := range r.memRows {
		fmt.Fprintf(w, "| %s | %s | `%s` |\n", p.flatPct, p.cumPct, p.function)
	}
}

// traceRatioTarget is the most a replayed request may cost, in times a
// generated one.
const traceRatioTarget = 2.0

// wasmFirstTarget is the most bytes, with brotli, of the module every
// visit of the playground downloads (tuxlb.wasm).
const wasmFirstTarget = 1_400_000

// scaleTarget80 and scaleTarget120 are the targets of BenchmarkScale and
// BenchmarkScaleOverload: the per-request cost at every size within this
// many times that at 16 instances.
const (
	scaleTarget80  = 1.3
	scaleTarget120 = 2.0
)

// scaleSizes are the sizes BenchmarkScale and BenchmarkScaleOverload run.
var scaleSizes = []int{16, 64, 256, 1024, 4096}

// scaleWorst is the largest ratio of a size's fewest net-ns/req to that of
// 16 instances in bench's runs, the size it is at, and every size's ratio;
// ok is false unless 16 and at least one other size were measured.
func (r *report) scaleWorst(bench string) (worst float64, at int, all string, ok bool) {
	return worstOf(func(n int) (float64, bool) { return r.scale.bestNet(fmt.Sprintf("%s/servers=%d", bench, n)) })
}

// worstOf is the largest ratio of a size's figure (of) to that of 16
// instances, the size it is at, and every size's ratio; ok is false unless
// 16 and at least one other size have a figure.
func worstOf(of func(n int) (float64, bool)) (worst float64, at int, all string, ok bool) {
	base, ok16 := of(16)
	var parts []string
	for _, n := range scaleSizes[1:] {
		v, vok := of(n)
		if !ok16 || !vok {
			continue
		}
		ok = true
		parts = append(parts, fmt.Sprintf("%d: %.2f", n, v/base))
		if v/base > worst {
			worst, at = v/base, n
		}
	}
	return worst, at, strings.Join(parts, ", "), ok
}

// writeScale prints BenchmarkScale and BenchmarkScaleOverload: per size,
// the fewest net ns a request, its ratio to 16 instances and the
// allocations a request.
func (r *report) writeScale(w io.Writer) {
	fmt.Fprint(w, "\n### Scale (`BenchmarkScale`, `BenchmarkScaleOverload`)\n\n")
	fmt.Fprint(w, "mp-standard with N instances, half on each machine, the rates scaled to keep the load at 80% (and 1.5 times that: 120%): net ns a request (the fewest of the runs; a run of b.N requests less one of b.N/4, over the difference), as a multiple of 16 instances', and allocations a request.\n\n")
	fmt.Fprintln(w, "| instances | 80%: net ns/request | × 16 | allocs/request | 120%: net ns/request | × 16 | allocs/request |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	measured := false
	for _, n := range scaleSizes {
		fmt.Fprintf(w, "| %d |", n)
		for _, bench := range []string{"BenchmarkScale", "BenchmarkScaleOverload"} {
			name := fmt.Sprintf("%s/servers=%d", bench, n)
			v, ok := r.scale.bestNet(name)
			base, bok := r.scale.bestNet(bench + "/servers=16")
			if !ok || !bok {
				fmt.Fprint(w, " | | |")
				continue
			}
			measured = true
			runs := r.scale.runs[name]
			fmt.Fprintf(w, " %.0f | %.2f | %.0f |", v, v/base, runs[len(runs)/2].allocsPerOp)
		}
		fmt.Fprintln(w)
	}
	if !measured {
		fmt.Fprintln(w, "\nNot measured.")
	}
}

// writeTrace prints BenchmarkTraceVsGenerated: a request of a log replayed
// against the same request generated, and their ratio.
func (r *report) writeTrace(w io.Writer) {
	fmt.Fprint(w, "\n### A request log replayed (`BenchmarkTraceVsGenerated`)\n\n")
	fmt.Fprint(w, "The standard SHM scenario through Run with 1 M requests: generated (its Poisson streams), and the same requests written as a log (time_ms, service, origin) in trace_csv, which Run reads through once to check it and again as it plays it. ns/request is the fastest of the runs.\n\n")
	gen, gok := r.trace.bestNs("BenchmarkTraceVsGenerated/generated")
	tr, tok := r.trace.bestNs("BenchmarkTraceVsGenerated/trace")
	if !gok || !tok {
		fmt.Fprintln(w, "Not measured.")
		return
	}
	allocs := func(name string) float64 {
		runs := r.trace.runs[name]
		return runs[len(runs)/2].allocsPerOp
	}
	fmt.Fprintln(w, "| workload | ns/request | allocs/request | × generated |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| generated | %.0f | %.0f | 1 |\n", gen, allocs("BenchmarkTraceVsGenerated/generated"))
	verdict := "met"
	if tr/gen > traceRatioTarget {
		verdict = "not met"
	}
	fmt.Fprintf(w, "| trace_csv | %.0f | %.0f | %.2f (target %.0f: %s) |\n", tr, allocs("BenchmarkTraceVsGenerated/trace"), tr/gen, traceRatioTarget, verdict)
}

// appBenches are the applications' benchmarks (core), each judged against
// a plain request (BenchmarkScenario/mp): by the wall clock (native.txt)
// and by instructions (instr is its name in bench/instr.sh), against the
// most a request may cost, in times a plain one.
var appBenches = []struct {
	bench, instr, title, label, what string
	target                           float64
}{
	{"BenchmarkApplication", "app", "applications", "bankapp's tellers", "bankapp's tellers (a client population, nested calls, routing by account)", 1.3},
	{"BenchmarkNested", "nested", "nested calls", "nested calls", "open-loop streams whose TRANSFER tpcalls ACCOUNT (bench/apps/nested.json), nested ones included", 1.2},
	{"BenchmarkClients", "clients", "client populations", "client populations", "256 clients on the MP model (bench/apps/clients.json)", 1.3},
}

// instrTargets adds the targets judged by instructions (bench/instr.sh):
// the applications' and the scale targets, whatever the machine's load.
func (r *report) instrTargets(row func(target, measured string, met, ok bool)) {
	mp := r.instr["mp"]
	for _, ab := range appBenches {
		app := r.instr[ab.instr]
		row(fmt.Sprintf("%s ≤ %.1f × a plain request, by instructions (cachegrind: tuxlb's own code, `%s` against `BenchmarkScenario/mp`)", ab.title, ab.target, ab.bench),
			fmt.Sprintf("%.2f × (%.0f against %.0f instructions a request)", app/mp, app, mp), app/mp <= ab.target, mp > 0 && app > 0)
	}
	for _, load := range []struct {
		name, what string
		target     float64
	}{{"scale", "80% load", scaleTarget80}, {"overload", "120% load", scaleTarget120}} {
		worst, at, all, ok := r.instrWorst(load.name)
		row(fmt.Sprintf("scale: every size from 16 to 4 096 instances ≤ %.1f × 16's, by instructions (%s)", load.target, load.what),
			fmt.Sprintf("worst %.2f × at %d instances (%s)", worst, at, all), worst <= load.target, ok)
	}
}

// instrWorst is scaleWorst by instructions: name is scale or overload.
func (r *report) instrWorst(name string) (worst float64, at int, all string, ok bool) {
	return worstOf(func(n int) (float64, bool) {
		v := r.instr[fmt.Sprintf("%s-%d", name, n)]
		return v, v > 0
	})
}

// writeInstr prints the instructions a request (bench/instr.sh): the plain
// path, an application, and every size of the scale benchmarks.
func (r *report) writeInstr(w io.Writer) {
	fmt.Fprint(w, "\n### Instructions a request (cachegrind)\n\n")
	fmt.Fprint(w, "Deterministic where the wall clock is not: core's test binary, compiled with `bin/tuxlb`'s profile (`cmd/tuxlb/default.pgo`) so that the engine counted is the one the binary runs, under `valgrind --tool=cachegrind` (`GOMAXPROCS=1`, `GODEBUG=asyncpreemptoff=1`, `GOGC=off`: with the collector on, its timing varied the counts between identical runs, the engine's own code's by up to 1.3% through the write barrier), each benchmark at b.N = 100 000 and 300 000; the instructions in the repository's own source files (not the runtime's), the difference of the two runs over the difference in requests (`bench/instr.sh`).\n\n")
	mp := r.instr["mp"]
	if mp <= 0 {
		fmt.Fprintln(w, "Not measured.")
		return
	}
	fmt.Fprintln(w, "| benchmark | instructions a request | × the plain path |")
	fmt.Fprintln(w, "|---|---|---|")
	fmt.Fprintf(w, "| `BenchmarkScenario/mp` (the plain path) | %.0f | 1 |\n", mp)
	for _, ab := range appBenches {
		if app := r.instr[ab.instr]; app > 0 {
			fmt.Fprintf(w, "| `%s` (%s) | %.0f | %.2f |\n", ab.bench, ab.label, app, app/mp)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| instances | 80% | × 16 | 120% | × 16 |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, n := range scaleSizes {
		fmt.Fprintf(w, "| %d |", n)
		for _, name := range []string{"scale", "overload"} {
			v, base := r.instr[fmt.Sprintf("%s-%d", name, n)], r.instr[name+"-16"]
			if v <= 0 || base <= 0 {
				fmt.Fprint(w, " | |")
				continue
			}
			fmt.Fprintf(w, " %.0f | %.2f |", v, v/base)
		}
		fmt.Fprintln(w)
	}
}
