package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/starter"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/ulog"
)

func init() {
	commands["fit"] = command{
		summary: "fit service times, calls and rates from a request log or ULOG files (TMTRACE)",
		run:     runFit,
	}
}

// ulogFlag is the repeatable --ulog FILE.
type ulogFlag []string

func (u *ulogFlag) String() string     { return strings.Join(*u, ",") }
func (u *ulogFlag) Set(v string) error { *u = append(*u, v); return nil }

// ulogPlan is the memory fitting a ULOG file plans for its size: a file on
// disk is read as a stream, so what is held is what the walk keeps of its
// executions and calls (a span, a sample and an arrival each: about 300
// bytes a request, whatever its lines), the fit's own copies, and the
// collector's room, which the budget (the process's memory limit) bounds.
// Measured live at most: a log of nothing but one short call a request (4
// lines, 267 bytes a request) 1.16 bytes a byte, 310 MB for 267 MB (its
// peak 0.40 GB within --memory-budget 400M); a log of nested calls,
// transactions and /Q (app13's) 0.2, its peak 0.31 GB for 280 MB within
// 290 MiB. So a byte and a half a byte. Before the files were streamed,
// 280 MB took 0.95 GB. A ULOG read from standard input or a pipe is held
// whole (it cannot be read twice): ulogHeldFactor, 6 bytes a byte, as every
// file did before.
func ulogPlan(size int64) int64 { return size + size/2 }

// ulogFits is the size of ULOG files whose plan is mem.
func ulogFits(mem int64) int64 { return mem / 3 * 2 }

const ulogHeldFactor = 6

// readULOGs opens the --ulog files ("-" once: standard input): a regular
// file is read as the fit goes, anything else (standard input, a pipe) is
// read whole now. Together they may hold at most the budget: a file
// counts ulogPlan, a file held ulogHeldFactor bytes a byte.
func readULOGs(paths []string, stdin io.Reader, budget int64) ([]ulog.File, error) {
	const advice = "give fewer days or machines, or cut a day's file to the hours you need (keep its name: ULOGPFX.mmddyy gives the date), " +
		"or raise --memory-budget"
	over := func(total int64, name string) error {
		return fmt.Errorf("--ulog: with %s the ULOG files hold %s or more, over the %s that fit in --memory-budget %s "+
			"(fitting a ULOG file holds up to 1.5 bytes of memory for each of its bytes): %s",
			name, admission.SizeText(total), admission.SizeText(ulogFits(budget)), admission.SizeText(budget), advice)
	}
	var out []ulog.File
	var planned, total int64 // memory, and the files' bytes
	for _, p := range paths {
		if fi, err := os.Stat(p); p != "-" && err == nil && fi.Mode().IsRegular() {
			if planned+ulogPlan(fi.Size()) > budget {
				return nil, over(total+fi.Size(), p)
			}
			f, err := ulogFile(p, fi.Size(), ulogFits(budget-planned))
			if err != nil {
				return nil, fmt.Errorf("--ulog: %w", err)
			}
			if f.Size != fi.Size() && planned+ulogPlan(f.Size) > budget { // gzipped: its text's size
				return nil, over(total+f.Size, p)
			}
			planned, total = planned+ulogPlan(f.Size), total+f.Size
			out = append(out, f)
			continue
		}
		s, err := readTextLimit(p, "--ulog", stdin, max(budget-planned, 0)/ulogHeldFactor)
		if err != nil {
			if tl := (*tooLargeError)(nil); errors.As(err, &tl) {
				return nil, fmt.Errorf("--ulog: %s holds more than the %s that fit in --memory-budget %s beside the files before it "+
					"(a ULOG from standard input or a pipe is held whole, about %d bytes of memory for each of its bytes; a file is read as the fit goes, 1.5): "+
					"give it as a file, or %s", displayName(p), admission.SizeText(max(budget-planned, 0)/ulogHeldFactor), admission.SizeText(budget),
					ulogHeldFactor, advice)
			}
			return nil, err
		}
		planned, total = planned+int64(len(*s))*ulogHeldFactor, total+int64(len(*s))
		out = append(out, ulog.File{Name: displayName(p), Text: *s}) // as given: every machine's ULOG has the same base name
	}
	return out, nil
}

// deflateMaxRatio is the most a gzip file's text can be for each of its
// bytes: deflate codes 258 bytes repeated in no less than 2 bits.
const deflateMaxRatio = 1032

// ulogFile is the ULOG file at path, of size bytes, to be read as the fit
// goes: as it is, or through gzip when it is gzipped (a day's ULOG rotated
// and compressed, ULOG.120126.gz), its Size then its text's. The gzip
// trailer gives the text's size modulo 4 GiB, of the last member only: a
// size under the file's, or over deflateMaxRatio times it, is no whole
// text (an empty file gzipped, 20 bytes for none; members joined, gzip a;
// gzip b; cat a.gz b.gz, the trailer b's; a file cut short, the trailer 4
// bytes of its data, most often gigabytes), and the text is then counted
// by decompressing it, up to limit bytes (one more is as over the budget
// as any more). A trailer not under the file's size is
// taken as the text's: of members joined, that is the last one's text
// only (the rest is not counted without decompressing it all).
func ulogFile(path string, size, limit int64) (ulog.File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return ulog.File{}, err
	}
	defer fh.Close()
	var magic [2]byte
	if n, _ := io.ReadFull(fh, magic[:]); n < 2 || magic != gzipMagic {
		return ulog.File{Name: displayName(path), Size: size, Open: func() (io.ReadCloser, error) { return os.Open(path) }}, nil
	}
	var trailer [4]byte
	if size < 18 {
		return ulog.File{}, fmt.Errorf("%s: a gzip file cut short (%d bytes)", path, size)
	}
	if _, err := fh.ReadAt(trailer[:], size-4); err != nil {
		return ulog.File{}, err
	}
	zr, err := gunzip(io.NewSectionReader(fh, 0, size), path)
	if err != nil {
		return ulog.File{}, err
	}
	text := int64(binary.LittleEndian.Uint32(trailer[:]))
	if text < size || text/deflateMaxRatio > size {
		n, err := io.Copy(io.Discard, io.LimitReader(zr, max(limit, 0)+1))
		if err != nil {
			return ulog.File{}, fmt.Errorf("%s: %w", path, err)
		}
		text = n
	}
	return ulog.File{Name: displayName(path), Size: text, Open: func() (io.ReadCloser, error) { return openGzip(path) }}, nil
}

// fitSources reads what fit and init --fit fit from.
func fitSources(files starter.Files, ulogs []ulog.File) starter.FitSources {
	return starter.FitSources{Trace: files.Trace, TraceName: files.TraceName, Columns: files.Columns, SkipBad: files.SkipBad, ULOG: ulogs,
		UBBConfig: files.UBBConfig, DMConfig: files.DMConfig, PSC: files.PSC, PSCPath: files.PSCPath}
}

// pscFlag declares --psc on init's and fit's flag sets.
func pscFlag(fs *flag.FlagSet, ff *fileFlags) *string {
	fs.StringVar(&ff.psc, "psc", "", "tmadmin printservice listing `FILE` (psc or psc -v): what the servers that advertise at run time offer")
	return &ff.psc
}

// encodeJSON is v as indented JSON, HTML characters as they are.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return buf.Bytes(), err
}

// runFit is `tuxlb fit (--trace FILE [--trace-map M] | --ulog FILE...)
// [--ubbconfig FILE [--dmconfig FILE]] [--out FILE]`: the fit report
// (starter.Fit) on standard output; with --out, also the scenario made from
// it (starter.FromFit). Exit 1 for a bad file, 2 for bad flags.
func runFit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var ff fileFlags
	var ulogs ulogFlag
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&ff.trace, "trace", "", "request log `FILE` (CSV): its service_ms column is fitted")
	fs.StringVar(&ff.traceMap, "trace-map", "", "how to read the log's columns: `time=COL,service=COL,...`")
	ff.skipFlag(fs)
	fs.Var(&ulogs, "ulog", "ULOG `FILE` with TMTRACE lines (ULOGPFX.mmddyy; repeat for several machines or days)")
	fs.StringVar(&ff.ubbconfig, "ubbconfig", "", "UBBCONFIG `FILE`: names resolved against it, hosts mapped to LMIDs (required by --out)")
	fs.StringVar(&ff.dmconfig, "dmconfig", "", "DMCONFIG `FILE`")
	out := fs.String("out", "", "also write a complete scenario made from the fit to `FILE` (needs --ubbconfig)")
	pscPath := pscFlag(fs, &ff)
	budget, budgetErr := budgetFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tuxlb fit --trace FILE [--trace-map MAP] [--ubbconfig FILE [--dmconfig FILE] [--psc FILE] [--out FILE]]")
		fmt.Fprintln(stderr, "       tuxlb fit --ulog FILE [--ulog FILE...] [--ubbconfig FILE [--dmconfig FILE] [--psc FILE] [--out FILE]]")
		fmt.Fprintln(stderr, "       prints the fit report (docs/fit.md); - for one of the files reads standard input")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if budgetErr != nil {
		fmt.Fprintf(stderr, "tuxlb fit: %v\n", budgetErr)
		return 2
	}
	useBudget(*budget)
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "tuxlb fit: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	case (ff.trace == "") == (len(ulogs) == 0):
		fmt.Fprintln(stderr, "tuxlb fit: want --trace FILE or --ulog FILE (one of them)")
		fs.Usage()
		return 2
	case *out != "" && ff.ubbconfig == "":
		fmt.Fprintln(stderr, "tuxlb fit: --out needs --ubbconfig FILE (the scenario is made for a configuration)")
		return 2
	case *out == "-":
		fmt.Fprintln(stderr, "tuxlb fit: --out: - would write the scenario to standard output, where fit prints its report: give a FILE")
		return 2
	case (ff.traceMap != "" || ff.skipBad) && ff.trace == "":
		fmt.Fprintln(stderr, "tuxlb fit: --trace-map and --trace-skip-bad read a --trace")
		return 2
	case *pscPath != "" && ff.ubbconfig == "":
		fmt.Fprintln(stderr, "tuxlb fit: --psc needs --ubbconfig FILE (its servers are the configuration's)")
		return 2
	}
	if err := ff.checkInputs(ulogs, *out); err != nil {
		fmt.Fprintf(stderr, "tuxlb fit: %v\n", err)
		return 2
	}
	files, err := ff.read(stdin)
	if err == nil {
		files.PSC, err = readText(*pscPath, "--psc", stdin)
		files.PSCPath = displayName(*pscPath)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb fit: %v\n", err)
		return 1
	}
	ulogFiles, err := readULOGs(ulogs, stdin, *budget)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb fit: %v\n", err)
		return 1
	}
	rep, err := starter.Fit(fitSources(files, ulogFiles))
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb fit: %s\n", fitError(err, &ff))
		return 1
	}
	data, err := encodeJSON(rep)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb fit: %v\n", err)
		return 1
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "tuxlb fit: warning: %s\n", w)
	}
	if *out != "" {
		sc, warn, err := starter.FromFit(files, rep)
		if err != nil {
			fmt.Fprintf(stderr, "tuxlb fit: %s\n", fitError(err, &ff))
			return 1
		}
		scData, err := encodeJSON(sc)
		if err == nil {
			err = os.WriteFile(*out, scData, 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "tuxlb fit: --out: %v\n", err)
			return 1
		}
		for _, w := range warn {
			fmt.Fprintf(stderr, "tuxlb fit: --out: %s\n", w)
		}
		fmt.Fprintf(stderr, "tuxlb fit: wrote %s (%s, %s); run it with tuxlb run %s\n",
			*out, timedFrom(sc, rep), count(len(sc.Workload.Generate.Streams), "stream", "streams"), *out)
	}
	if _, err := stdout.Write(data); err != nil {
		return 1
	}
	return 0
}

// pscError is an error about the --psc listing, named by its path ("" when
// err is about something else).
func pscError(err error, path string) string {
	if path == "" || !fromSource(err, starter.SourcePSC) {
		return ""
	}
	return displayName(path) + strings.TrimPrefix(err.Error(), "psc")
}

// fitError names the file an error of fit comes from.
func fitError(err error, ff *fileFlags) string {
	if msg := pscError(err, ff.psc); msg != "" {
		return msg
	}
	if ff.ubbconfig != "" && fromSource(err, ubb.SourceUBBConfig) {
		return displayName(ff.ubbconfig) + strings.TrimPrefix(err.Error(), "ubbconfig")
	}
	return fileError(err, ff, "")
}

// count is n and the noun, singular for 1: count(1, "stream", "streams")
// is "1 stream".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// timedFrom says how many of the scenario's services have the service
// time the log measured: the others keep the starter's.
func timedFrom(sc *scenario.Scenario, rep *starter.FitReport) string {
	return fmt.Sprintf("%d of %s timed from the log", timedCount(sc, rep), count(len(sc.Services), "service", "services"))
}

// timedCount is the number of the scenario's services whose service time
// the log measured.
func timedCount(sc *scenario.Scenario, rep *starter.FitReport) int {
	n := 0
	for name := range sc.Services {
		if sr := rep.Services[name]; sr != nil && sr.Fit != nil {
			n++
		}
	}
	return n
}

// initFitted is init's scenario with --fit or --ulog: the fit report made
// into a scenario (starter.FromFit); nil after printing the problem.
func initFitted(files starter.Files, ulogs []string, ff *fileFlags, budget int64, stdin io.Reader, stderr io.Writer) (*scenario.Scenario, *starter.FitReport, error) {
	if ff.trace != "" && len(ulogs) > 0 {
		fmt.Fprintln(stderr, "tuxlb init: fit from a --trace or from --ulog files, not both")
		return nil, nil, nil
	}
	ulogFiles, err := readULOGs(ulogs, stdin, budget)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb init: %v\n", err)
		return nil, nil, err
	}
	rep, err := starter.Fit(fitSources(files, ulogFiles))
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb init: %s\n", fitError(err, ff))
		return nil, nil, err
	}
	sc, warn, err := starter.FromFit(files, rep)
	if err != nil {
		fmt.Fprintf(stderr, "tuxlb init: %s\n", fitError(err, ff))
		return nil, nil, err
	}
	for _, w := range append(rep.Warnings, warn...) {
		fmt.Fprintf(stderr, "tuxlb init: warning: %s\n", w)
	}
	return sc, rep, nil
}
