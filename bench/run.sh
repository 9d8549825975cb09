#!/bin/sh
# The body of `go tool task bench`: measures the engine (native benchmarks,
# WASM under node and headless Chromium, `tuxlb run` end to end with peak RSS,
# the SimPy baseline, sweeps on 1 and 2 workers, a CPU and allocation
# profile) and, beside each, the bare event loop of the MP scenario
# (bench/bareloop, the reference for the physical limit) into bench/out/,
# then writes the tables of docs/benchmarks.md from those files
# (bench/report), every speed also as a ratio to the bare loop, and the
# instructions a request of the plain path, an application and the scale
# benchmarks (bench/instr.sh, cachegrind: the same on a busy machine).
# Run from the repository root. About 3 minutes on a 2-core machine.
set -eu
OUT=bench/out
MP=bench/scenarios/mp-standard.json
PY=/usr/bin/python3
BENCHTIME=${BENCHTIME:-2000000x}
COUNT=${COUNT:-5}
NODECOUNT=${NODECOUNT:-3}
rm -rf "$OUT"
mkdir -p "$OUT" bin

step() { echo "bench: $*" >&2; }

# timed FILE CMD...: runs CMD, appending "WALL_SECONDS PEAK_RSS_KB CPU_SECONDS"
# to FILE: the wall clock around it, its peak RSS from /usr/bin/time, and the
# CPU time (user + system, every thread) as the kernel accounts it, to the
# microsecond (getrusage of the children: CMD's, and /usr/bin/time's own
# fraction of a millisecond). /usr/bin/time prints hundredths of a second,
# 8% a step on a run of 0.13 s: the CPU ratio to the bare loop flipped
# between 0.86 and 1.00 from one task run to the next. (Not python's own
# child for the RSS: a fork's peak counts the forking process's pages.)
timed() {
	file=$1
	shift
	"$PY" -c '
import resource, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.run(["/usr/bin/time", "-o", sys.argv[1] + ".rss", "-f", "%M"] + sys.argv[2:])
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
rss = open(sys.argv[1] + ".rss").read().split()[-1]
with open(sys.argv[1], "a") as out:
    out.write("%.3f %s %.6f\n" % (wall, rss, ru.ru_utime + ru.ru_stime))
sys.exit(p.returncode)
' "$file" "$@"
	rm -f "$file.rss"
}

if [ ! -x /usr/bin/time ] || ! "$PY" -c 'import simpy' 2>/dev/null || ! command -v valgrind >/dev/null; then
	step "installing time, python3-simpy3 and valgrind (apt)"
	apt-get install -y time python3-simpy3 valgrind >"$OUT/apt.log" 2>&1
fi

uptime >"$OUT/load.txt"
{
	echo "go $(go env GOVERSION)"
	echo "node $(node --version 2>/dev/null || echo missing)"
	echo "chromium $(/usr/bin/chromium --version 2>/dev/null || echo missing)"
	echo "python $("$PY" -c 'import platform, simpy; print(platform.python_version(), "simpy", simpy.__version__)')"
} >"$OUT/versions.txt"

step "building bin/tuxlb and bin/bareloop.test"
go build -o bin/tuxlb ./cmd/tuxlb
go test -c -o bin/bareloop.test ./bench/bareloop

# bare BENCHCOUNT: the bare event loop, appended to bare.txt; it runs before
# the native benchmarks and again before the end-to-end runs, and the
# fastest of all is the reference.
bare() {
	go test ./bench/bareloop -run '^$' -bench '^BenchmarkBareLoop$' -benchtime "$BENCHTIME" -count "$1" >>"$OUT/bare.txt"
}

step "the playground's two modules, built as go tool task wasm builds them, with brotli"
mkdir -p "$OUT/wasm"
GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o "$OUT/wasm/tuxlb.wasm" ./wasm
GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -pgo=cmd/tuxlb/default.pgo -o "$OUT/wasm/tuxlb-tools.wasm" ./wasm/tools
go run ./internal/precompress "$OUT/wasm" >/dev/null
for m in tuxlb tuxlb-tools; do
	echo "$m $(wc -c <"$OUT/wasm/$m.wasm") $(wc -c <"$OUT/wasm/$m.wasm.br")"
done >"$OUT/wasm-size.txt"

step "the bare event loop (bench/bareloop, -count $COUNT)"
bare "$COUNT"

step "native benchmarks (-benchtime $BENCHTIME -count $COUNT)"
go test ./core -run '^$' -bench '^(BenchmarkScenario|BenchmarkRun|BenchmarkRunSynthetic|BenchmarkApplication|BenchmarkNested|BenchmarkClients)$' -benchtime "$BENCHTIME" -count "$COUNT" >"$OUT/native.txt"

step "WASM benchmarks under node"
GOOS=js GOARCH=wasm go test -pgo=wasm/default.pgo ./bench/bareloop ./core -run '^$' -bench '^(BenchmarkBareLoop|BenchmarkScenario|BenchmarkRun)$' -benchtime "$BENCHTIME" -count "$NODECOUNT" \
	-exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" >"$OUT/node.txt"

step "WASM in headless Chromium"
bench/wasm/chromium.sh 1000000 5 >"$OUT/chromium.txt" || step "chromium failed (see $OUT/chromium.txt)"

step "a sweep in headless Chromium on 1 and 2 Web Workers"
bench/wasm/chromium.sh --sweep 7 >"$OUT/chromium-sweep.txt" || step "chromium sweep failed (see $OUT/chromium-sweep.txt)"

step "the bare event loop again, beside the end-to-end runs"
bare 3

step "tuxlb run, mp-standard, 1M requests, and the bare loop as a process, 1M requests, 7 times each"
for i in 1 2 3 4 5 6 7; do
	timed "$OUT/run1m.time" bin/tuxlb run "$MP" >"$OUT/run1m.json"
	timed "$OUT/bare1m.time" bin/bareloop.test -test.run '^$' -test.bench . -test.benchtime 1000000x >/dev/null
done

step "tuxlb run, mp-standard scaled to 5M requests"
"$PY" -c 'import json, sys; s = json.load(open(sys.argv[1])); s["workload"]["generate"]["duration_ms"] = 5e6 / 2.56; json.dump(s, sys.stdout)' \
	"$MP" >"$OUT/mp-5m.json"
timed "$OUT/run5m.time" bin/tuxlb run "$OUT/mp-5m.json" >"$OUT/run5m.json"

step "tuxlb run, 1M requests with the dispatch log to a file"
timed "$OUT/run1m-dispatch.time" bin/tuxlb run --dispatch "$OUT/dispatch.csv" "$MP" >/dev/null
wc -c <"$OUT/dispatch.csv" >"$OUT/dispatch.size"
rm -f "$OUT/dispatch.csv"

step "REST API: POST /api/v1/runs, mp-standard scaled to 100k, against ParseScenario + Run in process"
"$PY" -c 'import json, sys; s = json.load(open(sys.argv[1])); s["workload"]["generate"]["duration_ms"] = 1e5 / 2.56; json.dump(s, sys.stdout)' \
	"$MP" >"$OUT/mp-100k.json"
go run ./bench/wasm -n 100000 -runs 7 "$OUT/mp-100k.json" >"$OUT/engine100k.txt"
bench/rest.sh bin/tuxlb "$OUT/mp-100k.json" 7 >"$OUT/rest.txt" || step "REST measurement failed"

for style in events process; do
	step "SimPy baseline, $style style"
	timed "$OUT/simpy-$style.time" "$PY" bench/simpy/tuxlb_simpy.py --style "$style" --json "$MP" \
		>/dev/null 2>"$OUT/simpy-$style.txt"
done

if [ -d pool ]; then
	step "sweeps: the same sweep on 1 and 2 workers (pool's BenchmarkSweepWorkers)"
	go test ./pool -run '^$' -bench '^BenchmarkSweepWorkers$' -count "$COUNT" >"$OUT/sweep.txt" || step "sweep benchmark failed"
fi

step "profile: BenchmarkScenario/mp, CPU and allocations"
go test ./core -run '^$' -bench '^BenchmarkScenario$/^mp$' -benchtime 5000000x \
	-cpuprofile "$OUT/cpu.prof" -memprofile "$OUT/mem.prof" -o "$OUT/core.test" >"$OUT/profile-bench.txt"
go tool pprof -top -nodecount=15 "$OUT/core.test" "$OUT/cpu.prof" >"$OUT/profile-cpu.txt" 2>/dev/null
go tool pprof -sample_index=alloc_space -top -nodecount=10 "$OUT/core.test" "$OUT/mem.prof" >"$OUT/profile-alloc.txt" 2>/dev/null

step "a request log replayed vs the same workload generated: BenchmarkTraceVsGenerated"
go test ./core -run '^$' -bench '^BenchmarkTraceVsGenerated$' -benchtime 1000000x -count 3 >"$OUT/trace.txt"

step "scale: BenchmarkScale and BenchmarkScaleOverload (16 to 4096 instances, 80% and 120% load), tuxlb run at 16 and 4096 instances (1M requests) and the JSON of 1000 requests at 4096"
# three rounds of every size rather than three runs of one size after another, so that a slow
# spell of the machine does not fall on all the runs of one size
go test -c -o "$OUT/scale.test" ./core
for i in 1 2 3; do
	(cd core && "../$OUT/scale.test" -test.run '^$' -test.bench '^BenchmarkScale$' -test.benchtime 1000000x) >>"$OUT/scale.txt"
	# 1M requests at 120% too: an overloaded model's backlog grows all through its run, and at 4096
	# instances a request costs more as it does, to a steady cost reached by about a million (a run
	# of 300000 measured requests 75000 to 300000, about a fifth below it)
	(cd core && "../$OUT/scale.test" -test.run '^$' -test.bench '^BenchmarkScaleOverload$' -test.benchtime 1000000x) >>"$OUT/scale.txt"
	(cd core && "../$OUT/scale.test" -test.run '^$' -test.bench '^BenchmarkScaleOverloadScan$' -test.benchtime 100000x) >>"$OUT/scale.txt"
done
for n in 16 4096; do
	"$PY" bench/scale.py "$MP" "$n" 1e6 >"$OUT/scale-$n-1m.json"
	for i in 1 2 3; do
		timed "$OUT/scale-$n-1m.time" bin/tuxlb run "$OUT/scale-$n-1m.json" >/dev/null
	done
done
"$PY" bench/scale.py "$MP" 4096 1000 >"$OUT/scale-4096-1k.json"
bin/tuxlb run "$OUT/scale-4096-1k.json" | wc -c >"$OUT/scale-4096-1k.size"
bin/tuxlb run --series all "$OUT/scale-4096-1k.json" | wc -c >"$OUT/scale-4096-1k-all.size"

step "instructions a request (cachegrind): the plain path, an application, the scale benchmarks at every size"
sh bench/instr.sh "$OUT" || step "instruction counts failed"

step "writing docs/benchmarks.md"
go run ./bench/report -dir "$OUT" -doc docs/benchmarks.md
