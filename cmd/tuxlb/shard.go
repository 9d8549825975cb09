package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/pool"
)

// maxPartialBytes bounds a partial file read by `tuxlb sweep merge`.
const maxPartialBytes = 1 << 30

// flagSet says whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// runShard runs shard i of n of the sweep and prints its partial result. An
// interrupted or failed shard prints nothing: a partial is whole or absent.
func runShard(ctx context.Context, sw *sweep.Sweep, scenario []byte, i, n int, opt pool.SweepOptions,
	bar *sweepBar, stdout, stderr io.Writer) int {
	units := sw.ShardUnits(i, n)
	samples, err := pool.SweepUnits(ctx, sw, units, opt)
	bar.finish()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "tuxlb sweep: interrupted: shard %d/%d not written\n", i, n)
			return 130
		}
		fmt.Fprintf(stderr, "tuxlb sweep: shard %d/%d: %v\n", i, n, err)
		return 1
	}
	p, err := sw.NewPartial(scenario, i, n, units, samples)
	if err == nil {
		var out []byte
		if out, err = sweep.EncodePartial(p); err == nil {
			_, err = stdout.Write(out)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb sweep: shard %d/%d: %v\n", i, n, err)
		return 1
	}
	return 0
}

// runSweepMerge is `tuxlb sweep merge [--format F] PARTIAL...`: the
// partials of every shard of one sweep, combined into the bytes the
// unsharded sweep prints.
func runSweepMerge(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "table", "output: table, csv or json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tuxlb sweep merge [--format table|csv|json] PARTIAL.json...   (- reads one from standard input)")
		fs.PrintDefaults()
	}
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	switch {
	case len(files) == 0:
		fmt.Fprintln(stderr, "tuxlb sweep merge: want the partials to merge: PARTIAL.json... (- reads one from standard input)")
		fs.Usage()
		return 2
	case *format != "table" && *format != "csv" && *format != "json":
		fmt.Fprintf(stderr, "tuxlb sweep merge: --format: %q is not table, csv or json\n", *format)
		return 2
	}
	names := make([]string, len(files))  // the partials as errors name them: - is <stdin>
	labels := make([]string, len(files)) // and as the arguments they are
	for k, name := range files {
		names[k], labels[k] = displayName(name), fmt.Sprintf("partial %d", k+1)
	}
	if err := stdinOnce(files, labels); err != nil {
		fmt.Fprintf(stderr, "tuxlb sweep merge: %v\n", err)
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tuxlb sweep merge: "+format+"\n", a...)
		return 1
	}
	parts := make([]*sweep.Partial, len(files))
	for k, name := range names {
		data, err := readPartialFile(files[k], stdin)
		if err != nil {
			return fail("%v", err)
		}
		if parts[k], err = sweep.ReadPartial(data); err != nil {
			return fail("%s: %v", name, err)
		}
		if parts[k].Fingerprint != parts[0].Fingerprint { // before compiling anything
			return fail("%s: a partial of another sweep (fingerprint %s, %s has %s)",
				name, parts[k].Fingerprint, names[0], parts[0].Fingerprint)
		}
	}
	sc, err := core.ParseScenario(parts[0].Scenario)
	if err != nil {
		return fail("%s: scenario: %v", names[0], err)
	}
	sw, err := sweep.Compile(sc, parts[0].Spec)
	if err != nil {
		return fail("%s: %v", names[0], err)
	}
	res, err := sw.Merge(parts[0].Scenario, parts, names)
	if err != nil {
		return fail("%v", err)
	}
	if _, err := stdout.Write(encodeSweep(res, *format)); err != nil {
		return fail("%v", err)
	}
	return 0
}

// readPartialFile reads a partial; "-" reads standard input (once: the
// caller checks that only one partial is "-").
func readPartialFile(path string, stdin io.Reader) ([]byte, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	name := displayName(path)
	data, err := io.ReadAll(io.LimitReader(r, maxPartialBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxPartialBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB", name, maxPartialBytes>>20)
	}
	return data, nil
}

// encodeSweep is a sweep result in the format of --format.
func encodeSweep(res *sweep.Result, format string) []byte {
	switch format {
	case "json":
		return sweep.Encode(res)
	case "csv":
		return sweep.EncodeCSV(res)
	}
	return sweep.EncodeTable(res)
}
