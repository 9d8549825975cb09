// Command report writes the generated part of docs/benchmarks.md (between
// the lines "<!-- bench:begin -->" and "<!-- bench:end -->") from the raw
// figures bench/run.sh leaves in bench/out: the machine, each performance
// target met or missed, the benchmark tables, end-to-end runs with peak RSS,
// the SimPy comparison and the profile's top functions. Every speed is also
// given as a ratio to the bare event loop (bench/bareloop) measured in the
// same run.
//
// Usage: go run ./bench/report [-dir bench/out] [-doc docs/benchmarks.md]
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

const (
	beginMark = "<!-- bench:begin -->"
	endMark   = "<!-- bench:end -->"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr, time.Now().UTC()))
}

// run is main without the exit and the clock, for the test.
func run(args []string, stderr io.Writer, now time.Time) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "bench/out", "folder of bench/run.sh's raw figures")
	doc := fs.String("doc", "docs/benchmarks.md", "markdown file whose generated section is replaced")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	old, err := os.ReadFile(*doc)
	if err != nil {
		fmt.Fprintf(stderr, "report: %v\n", err)
		return 1
	}
	var body bytes.Buffer
	newReport(*dir, now).write(&body)
	out, err := splice(old, body.Bytes())
	if err != nil {
		fmt.Fprintf(stderr, "report: %s: %v\n", *doc, err)
		return 1
	}
	if err := os.WriteFile(*doc, out, 0o644); err != nil {
		fmt.Fprintf(stderr, "report: %v\n", err)
		return 1
	}
	return 0
}

// splice replaces what lies between the begin and end marks (each on its
// own line) with body.
func splice(doc, body []byte) ([]byte, error) {
	b := bytes.Index(doc, []byte(beginMark+"\n"))
	e := bytes.Index(doc, []byte(endMark))
	if b < 0 || e < 0 || e < b {
		return nil, errors.New("want the lines " + beginMark + " and then " + endMark)
	}
	var out bytes.Buffer
	out.Write(doc[:b+len(beginMark)+1])
	out.Write(body)
	out.Write(doc[e:])
	return out.Bytes(), nil
}

// machine describes the computer from /proc/cpuinfo.
func machine() (cpus int, model string) {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "processor":
			cpus++
		case "model name":
			model = strings.TrimSpace(v)
		}
	}
	return cpus, model
}

// mrps formats requests per second in millions.
func mrps(v float64) string { return fmt.Sprintf("%.2f M", v/1e6) }

// mb formats kilobytes as megabytes.
func mb(kb int64) string { return fmt.Sprintf("%.0f MB", float64(kb)/1024) }

// verdict is "met" or "missed" for a figure against a floor (or, with
// ceiling, a limit).
func verdict(ok bool) string {
	if ok {
		return "**met**"
	}
	return "**missed**"
}
