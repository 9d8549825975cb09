package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// benchRun is one line of `go test -bench` output.
type benchRun struct {
	iters                                     float64 // b.N
	nsPerOp, reqPerS, bytesPerOp, allocsPerOp float64
	netNs                                     float64 // BenchmarkScale's net-ns/req
}

// benchSet is the runs of every benchmark in one output file, by name
// without the -GOMAXPROCS suffix, in first-seen order.
type benchSet struct {
	names []string
	runs  map[string][]benchRun
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// parseBench reads `go test -bench` output. A benchmark line is the name,
// the iteration count, then value/unit pairs.
func parseBench(path string) (benchSet, error) {
	set := benchSet{runs: map[string][]benchRun{}}
	f, err := os.Open(path)
	if err != nil {
		return set, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		name := procSuffix.ReplaceAllString(fields[0], "")
		var r benchRun
		if n, err := strconv.ParseFloat(fields[1], 64); err == nil {
			r.iters = n
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return set, fmt.Errorf("%s:%d: %q is not a number", path, line, fields[i])
			}
			switch fields[i+1] {
			case "ns/op":
				r.nsPerOp = v
			case "requests/s":
				r.reqPerS = v
			case "B/op":
				r.bytesPerOp = v
			case "allocs/op":
				r.allocsPerOp = v
			case "net-ns/req":
				r.netNs = v
			}
		}
		if _, ok := set.runs[name]; !ok {
			set.names = append(set.names, name)
		}
		set.runs[name] = append(set.runs[name], r)
	}
	return set, sc.Err()
}

// stat is the median and best of a benchmark's requests/s over its runs.
func (s benchSet) stat(name string) (median, best float64, ok bool) {
	var v []float64
	for _, r := range s.runs[name] {
		v = append(v, r.reqPerS)
	}
	if len(v) == 0 {
		return 0, 0, false
	}
	slices.Sort(v)
	return v[len(v)/2], v[len(v)-1], true
}

// bestNs is the fewest ns/op among a benchmark's runs.
func (s benchSet) bestNs(name string) (float64, bool) {
	var best float64
	for i, r := range s.runs[name] {
		if i == 0 || r.nsPerOp < best {
			best = r.nsPerOp
		}
	}
	return best, best > 0
}

// bestNet is the fewest net-ns/req among a benchmark's runs.
func (s benchSet) bestNet(name string) (float64, bool) {
	var best float64
	for _, r := range s.runs[name] {
		if r.netNs > 0 && (best == 0 || r.netNs < best) {
			best = r.netNs
		}
	}
	return best, best > 0
}

// readSize reads a byte count (`wc -c` output) from a file.
func readSize(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}

// timing is one run of a process: wall seconds, peak RSS and, when
// measured, CPU seconds (user + system, every thread; 0 when not measured).
type timing struct {
	wallS float64
	rssKB int64
	cpuS  float64
}

// parseTimes reads the "SECONDS KB [CPU_SECONDS]" lines bench/run.sh
// appends, skipping /usr/bin/time's other messages (such as a non-zero exit
// status).
func parseTimes(path string) ([]timing, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []timing
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 && len(f) != 3 {
			continue
		}
		w, err1 := strconv.ParseFloat(f[0], 64)
		k, err2 := strconv.ParseInt(f[1], 10, 64)
		var c float64
		var err3 error
		if len(f) == 3 {
			c, err3 = strconv.ParseFloat(f[2], 64)
		}
		if err1 == nil && err2 == nil && err3 == nil {
			out = append(out, timing{w, k, c})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no \"SECONDS KB\" line", path)
	}
	return out, nil
}

// issued reads requests.issued from a result JSON file.
func issued(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var r struct {
		Requests struct {
			Issued int64 `json:"issued"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	return r.Requests.Issued, nil
}

// simpyLine is the SimPy model's throughput line (on its standard error).
var simpyLine = regexp.MustCompile(`(\d+) requests in ([\d.]+) s wall \(([\d.]+) s simulating\): (\d+) requests/s end to end, (\d+) requests/s simulating`)

// simpyRun is the SimPy model's own account of a run.
type simpyRun struct {
	requests   int64
	simulating float64 // requests/s
}

func parseSimPy(path string) (simpyRun, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return simpyRun{}, err
	}
	m := simpyLine.FindStringSubmatch(string(data))
	if m == nil {
		return simpyRun{}, fmt.Errorf("%s: no throughput line", path)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	s, _ := strconv.ParseFloat(m[5], 64)
	return simpyRun{n, s}, nil
}

// chromiumLine is a scenario line of bench/wasm's output.
var chromiumLine = regexp.MustCompile(`wasmbench: (\S+) requests=(\d+) requests/s=(\d+)`)

// wasmbenchRun is one scenario line of bench/wasm's output.
type wasmbenchRun struct {
	requests int64
	rate     float64
}

// parseWasmbenchRuns returns bench/wasm's lines by scenario file name.
func parseWasmbenchRuns(path string) (map[string]wasmbenchRun, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]wasmbenchRun{}
	for _, m := range chromiumLine.FindAllStringSubmatch(string(data), -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		r, _ := strconv.ParseFloat(m[3], 64)
		out[m[1]] = wasmbenchRun{n, r}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no wasmbench result line", path)
	}
	return out, nil
}

// parseWasmbench returns requests/s by scenario file name, and the
// browser's user agent when the page printed it.
func parseWasmbench(path string) (map[string]float64, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	out := map[string]float64{}
	agent := ""
	for _, line := range strings.Split(string(data), "\n") {
		if m := chromiumLine.FindStringSubmatch(line); m != nil {
			out[m[1]], _ = strconv.ParseFloat(m[3], 64)
		}
		if a, ok := strings.CutPrefix(line, "wasmbench: userAgent "); ok {
			agent = a
		}
	}
	if len(out) == 0 {
		return nil, "", fmt.Errorf("%s: no wasmbench result line", path)
	}
	return out, agent, nil
}

// sweepLine is a result line of bench/wasm/sweep.html: the sweep's wall times
// in milliseconds on n Web Workers, one per run.
var sweepLine = regexp.MustCompile(`wasmsweep: workers=(\d+) ms ((?:[0-9.]+ ?)+)`)

// parseWasmsweep returns the fastest run's milliseconds by number of Web
// Workers, and how many runs each had.
func parseWasmsweep(path string) (best map[int]float64, runs int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	best = map[int]float64{}
	for _, m := range sweepLine.FindAllStringSubmatch(string(data), -1) {
		n, _ := strconv.Atoi(m[1])
		fields := strings.Fields(m[2])
		runs = len(fields)
		for _, f := range fields {
			ms, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: %q: %v", path, f, err)
			}
			if b, ok := best[n]; !ok || ms < b {
				best[n] = ms
			}
		}
	}
	if best[1] == 0 || best[2] == 0 {
		return nil, 0, fmt.Errorf("%s: no wasmsweep lines for 1 and 2 workers", path)
	}
	return best, runs, nil
}

// pprofRow is one row of `go tool pprof -top`.
type pprofRow struct {
	flatPct, cumPct string
	function        string
}

// parsePprofTop reads the rows of `pprof -top` and its "Showing nodes
// accounting for ..." summary line.
func parsePprofTop(path string) ([]pprofRow, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	var rows []pprofRow
	summary := ""
	inRows := false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "Showing nodes accounting for"):
			summary = strings.TrimPrefix(line, "Showing nodes accounting for ")
		case len(f) > 0 && f[0] == "flat":
			inRows = true
		case inRows && len(f) >= 6:
			rows = append(rows, pprofRow{f[1], f[4], strings.Join(f[5:], " ")})
		}
	}
	if len(rows) == 0 {
		return nil, "", fmt.Errorf("%s: no pprof rows", path)
	}
	return rows, summary, nil
}

// readTrim is a small file's text without surrounding space ("" if absent).
func readTrim(dir, name string) string {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// parseRest reads bench/rest.sh's "rest: SECONDS" lines.
func parseRest(path string) ([]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []float64
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "rest: "); ok {
			s, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q is not a number of seconds", path, v)
			}
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no \"rest: SECONDS\" line", path)
	}
	slices.Sort(out)
	return out, nil
}

// ownInstructions sums the instructions a cachegrind output file (one
// event, Ir) counts in source files under root: tuxlb's own code, without
// the runtime's share.
func ownInstructions(path, root string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	prefix := strings.TrimSuffix(root, "/") + "/"
	var sum int64
	own := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		switch {
		case strings.HasPrefix(s, "fl="):
			own = strings.HasPrefix(s[3:], prefix)
		case s == "" || s[0] < '0' || s[0] > '9':
			// desc:, cmd:, events:, fn=, summary:
		case own:
			fields := strings.Fields(s)
			if len(fields) != 2 {
				return 0, fmt.Errorf("%s:%d: %q is not a line number and a count", path, line, s)
			}
			n, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s:%d: %q is not a count", path, line, fields[1])
			}
			sum += n
		}
	}
	return sum, sc.Err()
}

// instrPerRequest reads the pairs of cachegrind files bench/instr.sh left in
// dir (NAME.N.cg, each NAME at two sizes N) and returns, by NAME, the
// instructions of tuxlb's own code a request: the difference of the two
// runs over the difference in requests. A BenchmarkScale run issues b.N/4
// requests before its b.N (its names start with scale- or overload-).
func instrPerRequest(dir, root string) (map[string]float64, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.cg"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%s: no cachegrind counts (bench/instr.sh: is valgrind installed?)", dir)
	}
	type run struct{ n, ir int64 }
	runs := map[string][]run{}
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".cg")
		dot := strings.LastIndexByte(base, '.')
		n, err := strconv.ParseInt(base[dot+1:], 10, 64)
		if dot < 0 || err != nil {
			return nil, fmt.Errorf("%s: want NAME.N.cg", f)
		}
		ir, err := ownInstructions(f, root)
		if err != nil {
			return nil, err
		}
		runs[base[:dot]] = append(runs[base[:dot]], run{n, ir})
	}
	out := map[string]float64{}
	for name, rs := range runs {
		if len(rs) != 2 || rs[0].n == rs[1].n {
			return nil, fmt.Errorf("%s: %s has %d runs, want two of different sizes", dir, name, len(rs))
		}
		slices.SortFunc(rs, func(a, b run) int { return int(a.n - b.n) })
		reqs := float64(rs[1].n - rs[0].n)
		if strings.HasPrefix(name, "scale-") || strings.HasPrefix(name, "overload-") {
			reqs *= 1.25
		}
		out[name] = float64(rs[1].ir-rs[0].ir) / reqs
	}
	return out, nil
}

// wasmSize is a module's bytes, raw and with brotli (bench/run.sh's
// wasm-size.txt).
type wasmSize struct{ raw, brotli int64 }

// parseWasmSize reads wasm-size.txt's "NAME RAW BROTLI" lines by name.
func parseWasmSize(path string) (map[string]wasmSize, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]wasmSize{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		raw, err1 := strconv.ParseInt(f[1], 10, 64)
		br, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: bad line %q", path, line)
		}
		out[f[0]] = wasmSize{raw, br}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no module sizes", path)
	}
	return out, nil
}
