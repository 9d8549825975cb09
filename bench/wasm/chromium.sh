#!/bin/sh
# Times the engine compiled to WebAssembly in headless Chromium: builds
# bench/wasm for GOOS=js, serves it with wasm_exec.js and the standard
# scenarios from a temporary folder on 127.0.0.1, loads the page and prints
# the page's "wasmbench:" console lines (the bare loop's first, bench/bareloop).
# With --sweep it times one sweep on 1 and on 2 Web Workers instead
# (sweep.html: the playground's second module, tuxlb-tools.wasm, in each
# worker) and prints
# the page's "wasmsweep:" lines.
# Usage (from the repository root):
#   bench/wasm/chromium.sh [REQUESTS [RUNS]]
#   bench/wasm/chromium.sh --sweep [RUNS]
set -eu
PAGE=index.html
TAG=wasmbench
if [ "${1:-}" = --sweep ]; then
	PAGE=sweep.html
	TAG=wasmsweep
	shift
	N=0
	RUNS=${1:-5}
else
	N=${1:-1000000}
	RUNS=${2:-3}
fi
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
TIMEOUT=${TIMEOUT:-180}
DIR=$(mktemp -d)
server=""
browser=""
cleanup() {
	[ -n "$browser" ] && { kill "$browser" 2>/dev/null; wait "$browser" 2>/dev/null; } || true
	[ -n "$server" ] && { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; } || true
	rm -rf "$DIR"
}
trap cleanup EXIT INT TERM

mkdir -p "$DIR/www/scenarios" "$DIR/profile"
if [ "$PAGE" = sweep.html ]; then
	GOOS=js GOARCH=wasm go build -trimpath -pgo=cmd/tuxlb/default.pgo -o "$DIR/www/tuxlb-tools.wasm" ./wasm/tools
	cp bench/wasm/sweep.html bench/wasm/sweep-worker.js "$DIR/www/"
	cp examples/mp-netload.json "$DIR/www/scenarios/"
else
	GOOS=js GOARCH=wasm go build -pgo=wasm/default.pgo -o "$DIR/www/wasmbench.wasm" ./bench/wasm
	cp bench/wasm/index.html "$DIR/www/"
fi
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$DIR/www/"
cp bench/scenarios/*.json "$DIR/www/scenarios/"
scenarios=$(cd bench/scenarios && ls *.json | tr '\n' ',' | sed 's/,$//')

python3 -u -m http.server --bind 127.0.0.1 --directory "$DIR/www" 0 >"$DIR/server.log" 2>&1 &
server=$!
port=""
for _ in $(seq 50); do
	port=$(sed -n 's/.* port \([0-9][0-9]*\).*/\1/p' "$DIR/server.log" | head -n1)
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { echo "chromium.sh: http.server did not start" >&2; cat "$DIR/server.log" >&2; exit 1; }

"$CHROMIUM" --no-sandbox --headless --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run --user-data-dir="$DIR/profile" \
	--enable-logging=stderr --v=0 \
	"http://127.0.0.1:$port/$PAGE?n=$N&runs=$RUNS&bare=1&scenarios=$scenarios" \
	>"$DIR/chromium.log" 2>&1 &
browser=$!
i=0
while ! grep -q "$TAG: \\(exit\\|error\\)" "$DIR/chromium.log"; do
	i=$((i + 1))
	if [ "$i" -gt $((TIMEOUT * 10)) ]; then
		echo "chromium.sh: no result after ${TIMEOUT}s" >&2
		tail -n 20 "$DIR/chromium.log" >&2
		exit 1
	fi
	sleep 0.1
done
sed -n "s/.*\"\\($TAG: [^\"]*\\)\".*/\\1/p" "$DIR/chromium.log"
grep -q "$TAG: exit 0" "$DIR/chromium.log"
