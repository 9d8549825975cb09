package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
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

// ulogPlan is the memory fitting ULOG files plans for their size: a file
// on disk is read as a stream, so what is held is what the walk keeps of
// the requests' executions and calls (records of 24 bytes: a span, a
// service time, an arrival, a start; about 105 bytes a request, whatever
// its lines), the fit's own copies, and the collector's room, which the
// budget (the process's memory limit) bounds. Measured live at most: a log
// of nothing but one short call a request (4 lines, 338 bytes a request)
// 0.64 bytes a byte, 216 MB for 338 MB; a log of nested calls,
// transactions and /Q (app13's) 0.2. So a byte and a half a byte, up to
// what the records the walk keeps one by one take (ulogKeep): past them a
// long log's are thinned and counted by minute, and its memory no longer
// grows with it. Before the files were streamed, 280 MB took 0.95 GB.
func ulogPlan(size, budget int64) int64 { return min(size+size/2, ulogBound(budget)) }

// ulogKeep is how many records of requests the fit keeps one by one under
// budget: a quarter of it, at ulogRecordBytes each (a record's 24 bytes,
// twice for the slices' growth and what else the fit holds of it).
func ulogKeep(budget int64) int { return int(min(budget/4/ulogRecordBytes, math.MaxInt32)) }

// ulogBound is the most fitting ULOG files read as streams plans: their
// records (ulogKeep), twice for the collector's room.
func ulogBound(budget int64) int64 { return int64(ulogKeep(budget)) * ulogRecordBytes * 2 }

const ulogRecordBytes = 48

// ulogHeldFactor is what a ULOG read whole (from standard input or a pipe:
// it cannot be read twice) holds for each of its bytes.
const ulogHeldFactor = 6

// readULOGs opens the --ulog files ("-" once: standard input): a regular
// file is read as the fit goes, anything else (standard input, a pipe) is
// read whole now. A file is never too large (ulogPlan is bounded); one
// held whole may take ulogHeldFactor bytes a byte of what the budget
// leaves beside the files.
func readULOGs(paths []string, stdin io.Reader, budget int64) ([]ulog.File, error) {
	var out []ulog.File
	var streamed, held int64 // the files' bytes, and what those held whole plan
	for _, p := range paths {
		if fi, err := os.Stat(p); p != "-" && err == nil && fi.Mode().IsRegular() {
			f, err := ulogFile(p, fi.Size(), ulogBound(budget))
			if err != nil {
				return nil, fmt.Errorf("--ulog: %w", err)
			}
			streamed += f.Size
			out = append(out, f)
			continue
		}
		room := max(budget-ulogPlan(streamed, budget)-held, 0) / ulogHeldFactor
		s, err := readTextLimit(p, "--ulog", stdin, room)
		if err != nil {
			if tl := (*tooLargeError)(nil); errors.As(err, &tl) {
				return nil, fmt.Errorf("--ulog: %s holds more than the %s that fit in --memory-budget %s beside the files before it "+
					"(a ULOG from standard input or a pipe is held whole, about %d bytes of memory for each of its bytes; a file is read as the fit goes): "+
					"give it as a file, or raise --memory-budget", displayName(p), admission.SizeText(room), admission.SizeText(budget), ulogHeldFactor)
			}
			return nil, err
		}
		held += int64(len(*s)) * ulogHeldFactor
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
// by decompressing it, up to limit bytes (past them, the plan is at its
// bound anyway; a file cut short is found there). A trailer not under the file's size is
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
func fitSources(files starter.Files, ulogs []ulog.File, budget int64) starter.FitSources {
	return starter.FitSources{Trace: files.Trace, TraceName: files.TraceName, Columns: files.Columns, SkipBad: files.SkipBad, ULOG: ulogs,
		UBBConfig: files.UBBConfig, DMConfig: files.DMConfig, PSC: files.PSC, PSCPath: files.PSCPath, ULOGKeep: ulogKeep(budget)}
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
	rep, err := starter.Fit(fitSources(files, ulogFiles, *budget))
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
	rep, err := starter.Fit(fitSources(files, ulogFiles, budget))
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
