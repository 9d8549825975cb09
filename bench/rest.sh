#!/bin/sh
# Times POST /api/v1/runs of a scenario against a fresh `tuxlb serve` on
# 127.0.0.1 (any free port, a temporary database): one warm-up request, then
# RUNS timed ones, each printed as "rest: SECONDS" (curl's time_total).
# Usage: bench/rest.sh BIN SCENARIO.json [RUNS]   (run from the repository root)
set -eu
BIN=$1
SCENARIO=$2
RUNS=${3:-5}
DIR=$(mktemp -d)
server=""
cleanup() {
	[ -n "$server" ] && { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; } || true
	rm -rf "$DIR"
}
trap cleanup EXIT INT TERM

"$BIN" serve --addr 127.0.0.1:0 --db "$DIR/tuxlb.db" >"$DIR/out.log" 2>"$DIR/err.log" &
server=$!
url=""
for _ in $(seq 100); do
	url=$(sed -n 's/^tuxlb: listening on \(http:[^ ]*\).*/\1/p' "$DIR/out.log" | head -n1)
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { echo "rest.sh: tuxlb serve did not start" >&2; cat "$DIR/err.log" >&2; exit 1; }

post() {
	curl -sS -o "$DIR/body.json" -w '%{http_code} %{time_total}\n' -X POST \
		-H 'Content-Type: application/json' --data-binary "@$SCENARIO" "$url/api/v1/runs"
}
post >/dev/null
for _ in $(seq "$RUNS"); do
	set -- $(post)
	[ "$1" = 201 ] || { echo "rest.sh: POST /api/v1/runs: status $1" >&2; cat "$DIR/body.json" >&2; exit 1; }
	echo "rest: $2"
done
