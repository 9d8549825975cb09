// Command wasmbench times core.Run on the standard benchmark scenarios. It is
// the one harness for the three places the engine runs: natively
// (go run ./bench/wasm), under node (GOOS=js GOARCH=wasm with
// go_js_wasm_exec) and in a browser (chromium.sh loads it in headless
// Chromium).
//
// Usage: wasmbench [-n REQUESTS] [-runs K] [-bare] SCENARIO.json...
//
// Each scenario's generated workload is scaled to about REQUESTS requests
// and run K times (ParseScenario + Run, statistics on, no dispatch log); it
// prints one line per scenario with the best run's requests per second of
// wall time, after an untimed warm-up run of a tenth of the size. With -bare
// it first times bench/bareloop (the bare event loop of the MP scenario, the
// reference for the physical limit) the same way, as the line of
// "bare-loop". In a browser there are no files: the page passes each
// scenario's text in the environment variable TUXLB_BENCH_<base name>.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tuxlb/tuxlb/bench/bareloop"
	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the exit, for the test.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasmbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int64("n", 1_000_000, "requests per run (the scenario's duration is scaled to issue about this many)")
	runs := fs.Int("runs", 3, "runs per scenario; the fastest is reported")
	bare := fs.Bool("bare", false, "also time the bare event loop of the MP scenario (bench/bareloop)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || *n < 1 || *runs < 1 {
		fmt.Fprintln(stderr, "usage: wasmbench [-n REQUESTS] [-runs K] [-bare] SCENARIO.json...")
		return 2
	}
	if *bare {
		fmt.Fprintln(stdout, benchBare(*n, *runs))
	}
	for _, path := range fs.Args() {
		line, err := benchFile(path, *n, *runs)
		if err != nil {
			fmt.Fprintf(stderr, "wasmbench: %s: %v\n", path, err)
			return 1
		}
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintln(stdout, "wasmbench: done")
	return 0
}

// benchFile runs one scenario runs times and describes the fastest run.
func benchFile(path string, n int64, runs int) (string, error) {
	data, err := readScenario(path)
	if err != nil {
		return "", err
	}
	// an untimed warm-up of a tenth of the size: in a browser the engine's
	// functions start in the baseline compiler and are optimized once hot,
	// in the background; the timed runs measure the optimized code
	if _, _, err := runOnce(data, max(n/10, 1)); err != nil {
		return "", err
	}
	var best float64
	var issued int64
	for range runs {
		got, secs, err := runOnce(data, n)
		if err != nil {
			return "", err
		}
		if rate := float64(got) / secs; rate > best {
			best, issued = rate, got
		}
	}
	return fmt.Sprintf("wasmbench: %s requests=%d requests/s=%.0f", filepath.Base(path), issued, best), nil
}

// benchBare runs the bare loop runs times and describes the fastest run.
func benchBare(n int64, runs int) string {
	bareloop.Run(max(n/10, 1), 1) // warm-up, as benchFile's
	var best float64
	for range runs {
		start := time.Now()
		r := bareloop.Run(n, 1)
		if rate := float64(r.Issued) / time.Since(start).Seconds(); rate > best {
			best = rate
		}
	}
	return fmt.Sprintf("wasmbench: bare-loop requests=%d requests/s=%.0f", n, best)
}

// runOnce parses the scenario, scales it to n requests and runs it,
// returning the requests issued and the seconds taken.
func runOnce(data []byte, n int64) (int64, float64, error) {
	start := time.Now()
	sc, err := core.ParseScenario(data)
	if err != nil {
		return 0, 0, err
	}
	if err := scale(sc, n); err != nil {
		return 0, 0, err
	}
	res, err := core.Run(sc, core.RunOptions{MaxRequests: 2*n + 1000})
	if err != nil {
		return 0, 0, err
	}
	return res.Requests.Issued, time.Since(start).Seconds(), nil
}

// scale sets a generated workload's duration so that its streams, at their
// constant rate_per_s, issue about n requests.
func scale(sc *scenario.Scenario, n int64) error {
	g := sc.Workload.Generate
	if g == nil {
		return errors.New("workload: want a generated workload (workload.generate)")
	}
	var rate float64
	for _, s := range g.Streams {
		rate += s.RatePerS
	}
	if rate <= 0 {
		return errors.New("workload.generate.streams: no stream has a constant rate_per_s")
	}
	g.DurationMS = float64(n) / rate * 1000
	return nil
}

// readScenario reads the scenario from the environment (in a browser) or
// from its file.
func readScenario(path string) ([]byte, error) {
	if v, ok := os.LookupEnv("TUXLB_BENCH_" + filepath.Base(path)); ok {
		return []byte(v), nil
	}
	return os.ReadFile(path)
}
