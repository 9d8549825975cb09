package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/admission"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// defaultCLIBudget is the memory a CLI command may plan to hold, unless
// --memory-budget (or TUXLB_MEMORY_BUDGET) says otherwise: twice the
// server's default, since the command is the process's only work.
const defaultCLIBudget = 4 << 30

// budgetFlag declares --memory-budget on fs, its default taken from
// TUXLB_MEMORY_BUDGET when set. A value of the variable that is not a size
// is the error: the command refuses it once its flags are parsed (exit 2),
// as serve does, rather than run on a budget it was not given.
func budgetFlag(fs *flag.FlagSet) (*int64, error) {
	budget := new(int64)
	n, err := envSize("TUXLB_MEMORY_BUDGET", defaultCLIBudget)
	if err != nil {
		n = defaultCLIBudget
	}
	*budget = n
	fs.Func("memory-budget", fmt.Sprintf("most memory the command may plan to hold, with K/M/G suffix (default %s) [TUXLB_MEMORY_BUDGET]",
		admission.SizeText(*budget)), func(v string) (err error) { *budget, err = parseSize(v); return err })
	return budget, err
}

// limitMemory is set by the binary's main (not by tests, which share one
// process): the batch commands then give the Go runtime their budget as
// its memory limit (useBudget).
var limitMemory bool

// useBudget makes budget the runtime's soft memory limit, in the binary:
// the collector, which the batch commands run at GOGC=400
// (pool.GCPercent), then works harder as the heap nears the budget, so the
// process's memory follows what the command holds (its estimate fits the
// budget) instead of up to five times that: a 200 MB log estimated at
// 1.8 GiB grew the process to 3.8 GB.
func useBudget(budget int64) {
	if limitMemory {
		debug.SetMemoryLimit(budget)
	}
}

// overBudget is the error of a command whose estimate did not fit the
// budget (d), naming the flag, the largest part and the field behind it.
func overBudget(d admission.Decision, what string) error {
	return errors.New(d.Refusal(what, "--memory-budget "+admission.SizeText(d.Budget), true))
}

// admitRun checks a run of sc on its configuration m against the budget
// before anything else of it is built, with parallel runs of it at once
// (what: "replications", "variants"), every line of their series when
// allSeries, and the extra terms once (explanations), and returns the
// requests each may hold at once with what is left.
func admitRun(sc *scenario.Scenario, m *core.Model, budget int64, parallel int, what string, allSeries bool, extra ...admission.CostTerm) (int64, error) {
	cost := admission.RunCost(sc, m)
	if allSeries {
		cost.Terms = append(cost.Terms, admission.AllSeriesCost(sc, m))
	}
	parallel = max(parallel, 1)
	if parallel > 1 {
		for i := range cost.Terms {
			cost.Terms[i].What = fmt.Sprint(parallel) + " " + what + " at once × " + cost.Terms[i].What
			cost.Terms[i].Bytes *= int64(parallel)
		}
	}
	cost.Terms = append(cost.Terms, extra...)
	d := admission.Decide(cost, budget)
	if !d.Fits {
		return 0, overBudget(d, "run")
	}
	return d.InFlight(admission.InFlightBytes(sc, m), parallel), nil
}

// readBounded reads r (named name in errors) into a string of at most
// limit bytes: a file larger than that, or a device that never ends
// (/dev/zero), is an error once limit is passed. A regular file is read
// into one buffer of its size; anything else in pieces of 1 MiB joined at
// the end, so that reading holds at most about twice what was read. A
// gzipped file is read as its text (ungzipped), the limit on the text. Text
// saved as UTF-16 is an error naming the file (notUTF16).
func readBounded(r io.Reader, name string, limit int64) (string, error) {
	r, err := ungzipped(r, name)
	if err != nil {
		return "", err
	}
	s, err := readBoundedBytes(r, name, limit)
	if errors.Is(err, errGzipShort) {
		err = fmt.Errorf("%s: %w", name, err)
	}
	if err == nil {
		err = notUTF16(s, name)
	}
	return s, err
}

// notUTF16 refuses text saved as UTF-16 (Windows tools' "Unicode text"),
// which starts with its byte-order mark: read as UTF-8 it is other bytes,
// a log in which no column is found, a configuration of control
// characters, a document of invalid bytes.
func notUTF16(s, name string) error {
	for _, bom := range []string{"\xff\xfe", "\xfe\xff"} {
		if strings.HasPrefix(s, bom) {
			return fmt.Errorf("%s: UTF-16 text (it starts with the byte-order mark % X): save it as UTF-8", name, bom)
		}
	}
	return nil
}

// tooLargeError is a read of name past its limit of bytes.
type tooLargeError struct {
	name  string
	limit int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %d MiB", e.name, e.limit>>20)
}

// tooLarge is the error of name read past limit bytes.
func tooLarge(name string, limit int64) error { return &tooLargeError{name, limit} }

// readBoundedBytes is readBounded without the check of the text.
func readBoundedBytes(r io.Reader, name string, limit int64) (string, error) {
	var b strings.Builder
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() <= limit {
			b.Grow(int(fi.Size()) + 1)
			n, err := io.Copy(&b, io.LimitReader(r, limit+1))
			if err != nil {
				return "", err
			}
			if n > limit {
				return "", tooLarge(name, limit)
			}
			return b.String(), nil
		}
	}
	var pieces [][]byte
	var total int64
	for {
		piece := make([]byte, min(1<<20, limit+1-total))
		n, err := io.ReadFull(r, piece)
		pieces, total = append(pieces, piece[:n]), total+int64(n)
		if total > limit {
			return "", tooLarge(name, limit)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	b.Grow(int(total))
	for _, p := range pieces {
		b.Write(p)
	}
	return b.String(), nil
}

// admitTrace checks a request log's rows against the budget before it is
// read: a log is held as its text, and at admission.TraceRowCost bytes a
// row (its observed responses) besides.
func admitTrace(text *string, cm *scenario.TraceMap, path string, budget int64) error {
	if text == nil {
		return nil
	}
	rows := int64(strings.Count(*text, "\n"))
	cost := admission.Cost{Terms: []admission.CostTerm{{Field: "--trace", What: path + ": " + fmt.Sprint(rows) + " rows' observed responses",
		Bytes: rows * admission.TraceRowCost(*text, cm)}, {Field: "--trace", What: path + ": its text", Bytes: int64(len(*text))}}}
	if d := admission.Decide(cost, budget); !d.Fits {
		return overBudget(d, "log")
	}
	return nil
}

// admitSweep checks a sweep (its points compiled, workers runs at once)
// against the budget before any point is compiled.
func admitSweep(sc *scenario.Scenario, m *core.Model, spec sweep.Spec, budget int64, workers int) error {
	cost, err := sweep.Cost(sc, m, spec, workers)
	if err != nil {
		return nil // sweep.Compile says what is wrong, in its words
	}
	if d := admission.Decide(cost, budget); !d.Fits {
		return overBudget(d, "sweep")
	}
	return nil
}
