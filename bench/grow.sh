#!/bin/sh
# How a request's cost grows with the application (docs/benchmarks.md, "As
# the application grows"): bench/grow.py's application grown in machines,
# services and clients, each run through bin/tuxlb for about 250 000 and
# 1 000 000 requests, the fastest of three runs each; prints a line a size:
# the net nanoseconds a request (the difference of the two runs over the
# difference in requests, so the fixed cost drops out) and the longer run's
# peak RSS. Run from the repository root after `go tool task build`; about
# two minutes.
set -eu
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
# best FILE: the fastest of three runs of FILE, in microseconds, and its requests issued
best() {
	b=""
	for i in 1 2 3; do
		s=$(date +%s%N)
		bin/tuxlb run --no-progress "$1" >"$DIR/out.json"
		e=$(date +%s%N)
		t=$(((e - s) / 1000))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["headline"]["issued"])' "$DIR/out.json")"
}
echo "machines services servers/machine clients/machine net-ns/req peak-MB"
while read -r M S N C; do
	# requests a millisecond: machines x servers x 0.7 / 4 ms
	per_ms=$(python3 -c "print($M * $N * (($S + 49) // 50) * 0.7 / 4)")
	d1=$(python3 -c "print(int(250000 / $per_ms))")
	d2=$(python3 -c "print(int(1000000 / $per_ms))")
	python3 bench/grow.py "$M" "$S" "$N" "$C" "$d1" >"$DIR/a.json"
	python3 bench/grow.py "$M" "$S" "$N" "$C" "$d2" >"$DIR/b.json"
	set -- $(best "$DIR/a.json") $(best "$DIR/b.json")
	rss=$(/usr/bin/time -f %M bin/tuxlb run --no-progress "$DIR/b.json" 2>&1 >/dev/null | tail -1)
	echo "$M $S $((N * ((S + 49) / 50))) $C $((($3 - $1) * 1000 / ($4 - $2))) $((rss / 1024))"
done <<SIZES
2 4 8 128
8 4 8 128
32 4 8 128
128 4 8 128
2 40 8 128
2 400 1 128
2 2000 1 128
2 4 8 4096
2 4 8 65536
SIZES
