#!/bin/sh
# Counts the instructions a request takes in tuxlb's own code, which unlike
# the wall clock does not depend on what else the machine runs: core's test
# binary under valgrind's cachegrind (no cache simulation), GOMAXPROCS=1,
# GODEBUG=asyncpreemptoff=1 and GOGC=off, each benchmark at two sizes. The
# report (bench/report) sums each run's instructions in the repository's own
# source files and divides the difference by the difference in requests.
# With the collector off, identical runs count the same: with it on, the
# runtime's share varied with the collector's timing, and so did the
# engine's own code a little (up to 1.3%: while the collector marks, every
# pointer the engine writes takes the write barrier's path). The largest
# run allocates a few hundred MB at most.
# The test binary is compiled with bin/tuxlb's profile (cmd/tuxlb/default.pgo),
# so that the engine counted is the one the binary runs.
# Writes OUT/instr/NAME.N.cg for each benchmark NAME at b.N = N.
# Usage: bench/instr.sh OUT   (from the repository root; about a minute)
set -eu
OUT=$1
mkdir -p "$OUT/instr"
rm -f "$OUT/instr"/*.cg
go test -c -pgo=cmd/tuxlb/default.pgo -o "$OUT/instr/core.test" ./core
BIN=$(cd "$OUT/instr" && pwd)/core.test
DIR=$(cd "$OUT/instr" && pwd)

# count NAME BENCH N: one run of core's benchmark BENCH at b.N = N (from
# core/, where the benchmarks find their scenarios)
count() {
	(cd core && GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 GOGC=off valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file="$DIR/$1.$3.cg" "$BIN" -test.run '^$' -test.bench "$2" -test.benchtime "${3}x" >/dev/null 2>&1)
}

# pair NAME BENCH N1 N2: both sizes, side by side (the machine has two cores)
pair() {
	count "$1" "$2" "$3" &
	count "$1" "$2" "$4"
	wait
}

pair mp '^BenchmarkScenario$/^mp$' 100000 300000
pair app '^BenchmarkApplication$' 100000 300000
pair nested '^BenchmarkNested$' 100000 300000
pair clients '^BenchmarkClients$' 100000 300000
for n in 16 64 256 1024 4096; do
	pair "scale-$n" "^BenchmarkScale\$/^servers=$n\$" 100000 300000
	pair "overload-$n" "^BenchmarkScaleOverload\$/^servers=$n\$" 100000 300000
done
rm -f "$BIN"
