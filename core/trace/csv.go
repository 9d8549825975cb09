package trace

import (
	"errors"
	"fmt"
	"github.com/tuxlb/tuxlb/core/internal/capped"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// csvTrace reads trace_csv, with the optional column mapping cm. A header of
// the trace format (time_ms and service, nothing unknown) is read strictly;
// any other header is a log: its columns are found by common names (or the
// mapping), the rest are ignored, and a note says how it was read.
type csvTrace struct {
	n        Resolver
	cm       Columns
	mapped   bool
	log      bool            // not the strict trace format: columns found by names, others ignored
	enq      int             // the trace format's enqueue column, -1 when absent
	col      [numCols]int    // index of each field's column, -1 when absent
	header   [numCols]string // the column name of each field, for errors
	ignored  []string        // columns of a log that no field uses
	timeUnit string          // ms, s, us, ns, rfc3339, datetime; "" = decided by the first time cell
	nameUnit string          // the unit a guessed time column's name gives ("" none)
	svcShift int
	decided  bool   // the first time cell has been read (unit and epoch decided)
	epoch    bool   // numeric times are absolute: counted from the first row
	firstNS  int64  // absolute times: the first row's time in ns
	firstTxt string // absolute times: the first row's cell
	how      string // how the times were read, for the note

	text     string // the whole log, for decideOrder's look at the time column
	comma    rune
	order    byte   // orderDMY, orderMDY or orderNone: dates written with the year last
	orderHow string // how the order was decided, for the note
	zone     *Zone  // the zone of times without one
	unzoned  bool   // some date-time had no zone
	prevSec  int64  // the last date-time read, in s since 1970 (Zone.toUTC)
	rowNum   int    // the row being read, for the note
	// the times in an hour the change back from summer time repeats, and
	// the first of them, for the note
	repeated  int
	repeatRow int
	repeatTxt string
	// times of day (timeUnit "clock"): the days passed since the first
	// row, and the last time read (ns since the first row's midnight)
	clockDays int64
	clockPrev int64
	obsShift  int // the observed column's unit, as svcShift
	// statusCol: how the status column's name says to read it (a tperrno
	// column's numbers are tperrno codes, an error column's text a failure)
	statusCol StatusColumn

	skipBad  bool     // rows that cannot be read are skipped and counted
	skipped  int      // rows skipped
	examples []string // the first few skipped rows' problems
	kept     int      // rows handed on
	fatal    error    // a problem of the whole log, which no skipping gets past

	services, origins names // the names resolved so far
	// plain is 1 when the times, decided, are offsets in a unit (shifted
	// by plainShift to microseconds), 2 when they are not, 0 undecided
	plain      byte
	plainShift int
	fields     [][2]int // the fields the log has, and their columns
}

// names holds the first names of a column resolved, and their indexes: a
// log names a few services and machines over and over, and comparing a
// cell with a few short names is quicker than hashing it.
type names struct {
	name []string
	idx  []int
	// for fast.go's match: the names matched as a word (see wordOf);
	// comma is the log's delimiter
	words []nameWord
	comma rune
}

// maxNames bounds the names held.
const maxNames = 16

// resolve resolves name, by the names held, else by res (whose answer is
// held when it is one).
func (ns *names) resolve(name string, res func(string) (int, string)) (int, string) {
	for i, n := range ns.name {
		if n == name {
			return ns.idx[i], ""
		}
	}
	i, msg := res(name)
	if msg == "" && len(ns.name) < maxNames {
		ns.name, ns.idx = append(ns.name, name), append(ns.idx, i)
		if w, m, n := wordOf(name, ns.comma); n >= 0 {
			ns.words = append(ns.words, nameWord{w, m, n, i})
		}
	}
	return i, msg
}

// Info is what reading a log found besides its rows.
type Info struct {
	Note     string   // how a log's columns were read ("" for the plain trace format)
	Rows     int      // rows handed on
	Skipped  int      // rows skipped (Options.SkipBad)
	Examples []string // up to MaxSkipExamples of the skipped rows' problems, "row N: why"
	Observed bool     // the log has an observed response column
	// Columns says how each column of the header was read: the field it
	// gave ("time", "service", "origin", "service_ms", "prio", "id",
	// "route", "buftype", "observed", "status": workload.columns' names) or
	// "ignored".
	Columns map[string]string
}

// MaxColumns bounds the columns of a log's header.
const MaxColumns = 10_000

// MaxSkipExamples bounds Info.Examples.
const MaxSkipExamples = 5

// Options says how to read a log.
type Options struct {
	// SkipBad skips the rows that cannot be read (a field that is not a
	// number or a date-time, a wrong number of fields, an unknown name, a
	// row out of time order) and counts them, instead of stopping at the
	// first.
	SkipBad bool
}

// ReadCSV reads a request log (a scenario's trace_csv), with the optional
// column mapping cols, resolving its names with n. It hands each row to add
// in the file's order (r is add's only during the call: the next row
// overwrites it; its strings are pieces of text, for add to keep) and
// returns a note saying how a log's columns were read ("" for the plain
// trace format). The first problem, with the header, the mapping or a row,
// is an *Error naming the row and the column; add is not called after it.
func ReadCSV(text string, cols *Columns, n Resolver, add func(r *Request)) (note string, err error) {
	info, err := Read(text, cols, Options{}, n, add)
	return info.Note, err
}

// Read is ReadCSV with options; it returns what it found besides the rows.
func Read(text string, cols *Columns, opt Options, n Resolver, add func(r *Request)) (Info, error) {
	rd, err := NewReader(text, cols, opt, n)
	if err != nil {
		return Info{}, err
	}
	var r, prev Request
	repeated, first := 0, 0
	for {
		ok, err := rd.Next(&r)
		if err != nil {
			return Info{}, err
		}
		if !ok {
			info := rd.Info()
			if repeated > 0 {
				// an export written twice over a stretch, or two exports
				// that overlap, joined: each row is a request all the same
				// (two alike are possible), but say so
				say := fmt.Sprintf("%d rows repeat the row before them in every column read (row %d the first): each is played as a request; "+
					"if the export wrote rows twice, remove them", repeated, first)
				if info.Note == "" {
					info.Note = "trace_csv: " + say
				} else {
					info.Note += "; " + say
				}
			}
			return info, nil
		}
		if prev.Row > 0 && r.TimeUS == prev.TimeUS {
			a, b := r, prev
			a.Row, b.Row = 0, 0
			if a == b {
				if repeated++; repeated == 1 {
					first = r.Row
				}
			}
		}
		prev = r
		add(&r)
	}
}

// Reader reads a log's rows one at a time, in the file's order, from the
// text in place: it holds a row, never the log. A row's ID and Route are
// pieces of the text (no copy), so the text stays as long as they do.
type Reader struct {
	ct    *csvTrace
	sc    scanner
	head  []string
	width int
	num   int
	err   error
	// the fast path (fast.go): each column's role, nil when the log's
	// lines are all read in full; the delimiter; whether each service
	// needs no service time (Resolver.Untimed: 0 not asked, 1 none, 2 one)
	roles []uint8
	comma byte
	timed []uint8
	tso   bool // the columns are time_ms, service and origin (fastTSO)
}

// NewReader reads the header of a log (text, with the optional column
// mapping cols) and returns the reader of its rows.
func NewReader(text string, cols *Columns, opt Options, n Resolver) (*Reader, error) {
	// a byte-order mark goes before parsing: before a quoted first column
	// name it would be a bare quote
	text = strings.TrimPrefix(text, "\ufeff")
	ct := &csvTrace{n: n, svcShift: 3, obsShift: 3, text: text, skipBad: opt.SkipBad, zone: UTC}
	if cols != nil {
		// DrawServiceTimes alone maps no column: a log in the trace format
		// is still read strictly
		ct.cm, ct.mapped = *cols, *cols != (Columns{DrawServiceTimes: cols.DrawServiceTimes})
	}
	if err := ct.reader(text); err != nil {
		return nil, err
	}
	// a header of very many columns costs a name and a lookup each before
	// any row is read: a log has tens (counted as the delimiters of the
	// first line, quoted ones too: a bound, not the columns)
	first, _, _ := strings.Cut(text, "\n")
	if n := strings.Count(first, string(ct.comma)); n >= MaxColumns {
		return nil, errorf("trace_csv: header row: %d columns or more, past the %d a log may have (is this a log of requests?)", n+1, MaxColumns)
	}
	rd := &Reader{ct: ct, sc: scanner{text: text, comma: ct.comma}}
	head, perr, ok := rd.sc.next()
	switch {
	case !ok:
		return nil, errorf("trace_csv: missing header row (want columns %s)", strings.Join(traceColumns[:], ", "))
	case perr != nil:
		return nil, errorf("trace_csv: header row: %v", perr.csvError())
	}
	rd.head = slices.Clone(head) // the scanner reuses its record
	if err := ct.readHeader(rd.head); err != nil {
		return nil, err
	}
	if i := ct.col[colServiceMS]; ct.cm.DrawServiceTimes && i >= 0 {
		ct.col[colServiceMS] = -1 // drawn: the column is not read
		if ct.log {
			ct.ignored = append(ct.ignored, strings.TrimSpace(strings.TrimPrefix(rd.head[i], "\ufeff"))+" (service times drawn from the scenario)")
		}
	}
	rd.width = len(rd.head)
	rd.setFast()
	return rd, nil
}

// Info is what the reader found besides the rows, once Next has returned
// false.
func (rd *Reader) Info() Info {
	ct := rd.ct
	return Info{Note: ct.note(), Rows: ct.kept, Skipped: ct.skipped, Examples: ct.examples, Observed: ct.col[colObserved] >= 0,
		Columns: ct.columns(rd.head)}
}

// Start is the first row's time on the wall clock of the zone the log is
// read in (tz, UTC by default), in µs since 1970 read as UTC, once Next
// has read a row: a date-time as written when it gives no zone. False
// when the log's times are not dated (offsets from its start, or times of
// day without a date).
func (rd *Reader) Start() (int64, bool) { return rd.StartIn(nil) }

// StartIn is Start on the wall clock of zone z rather than the log's (nil:
// the log's): where another log stamped in z's local time (a ULOG) has the
// first row's instant.
func (rd *Reader) StartIn(z *Zone) (int64, bool) {
	ct := rd.ct
	if z == nil {
		z = ct.zone
	}
	if ct.firstTxt == "" || !(ct.epoch || ct.timeUnit == "rfc3339" || ct.timeUnit == "datetime") {
		return 0, false
	}
	sec := ct.firstNS / 1e9
	if ct.firstNS%1e9 < 0 {
		sec--
	}
	return ct.firstNS/1000 + z.offsetAt(sec)*1e6, true
}

// Observed says whether the log has an observed response column.
func (rd *Reader) Observed() bool { return rd.ct.col[colObserved] >= 0 }

// HasColumn says whether the log has a column for the trace field named
// as workload.columns names it (id, route, observed...).
func (rd *Reader) HasColumn(field string) bool {
	i := slices.Index(mapField[:], field)
	return i >= 0 && rd.ct.col[i] >= 0
}

// columns says how each column of head was read (Info.Columns).
func (ct *csvTrace) columns(head []string) map[string]string {
	out := make(map[string]string, len(head))
	for _, h := range head {
		out[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = "ignored"
	}
	for f := range numCols {
		if i := ct.col[f]; i >= 0 && i < len(head) {
			out[strings.TrimSpace(strings.TrimPrefix(head[i], "\ufeff"))] = mapField[f]
		}
	}
	return out
}

// Next reads the next row into r: false at the end of the log, or with
// the first problem (an *Error naming the row and the column; with
// Options.SkipBad, only a problem of the whole log).
func (rd *Reader) Next(r *Request) (bool, error) {
	if rd.ct.plain == 1 && rd.roles != nil && rd.err == nil && (rd.tso && rd.fastTSO(r) || rd.fast(r)) {
		return true, nil
	}
	return rd.next(r)
}

// next is Next's full reading.
func (rd *Reader) next(r *Request) (bool, error) {
	ct := rd.ct
	for rd.err == nil {
		rec, perr, ok := rd.sc.next()
		rd.num++
		num := rd.num
		var err error
		switch {
		case !ok:
			rd.num--
			return false, nil
		case perr != nil:
			err = &Error{msg: capped.Sprintf("trace row %d (line %d col %d): %s", num, perr.line, perr.col, perr.msg), Row: num,
				Why: capped.Sprintf("%s (line %d col %d of the text)", perr.msg, perr.line, perr.col)}
		case len(rec) == 1 && isBlank(rec[0]):
			rd.num-- // a line of blanks is not a row
			continue
		case len(rec) != rd.width:
			err = &Error{msg: fmt.Sprintf("trace row %d: has %d fields, the header has %d", num, len(rec), rd.width), Row: num,
				Why: fmt.Sprintf("has %d fields, the header has %d", len(rec), rd.width)}
		}
		if err == nil {
			err = ct.row(r, rec, num)
		}
		if err != nil {
			if !ct.skipBad || ct.fatal != nil {
				rd.err = err
				return false, err
			}
			ct.skip(err)
			continue
		}
		ct.kept++
		return true, nil
	}
	return false, rd.err
}

// isBlank says whether a cell is all white space.
func isBlank(c string) bool { return strings.TrimSpace(c) == "" }

// csvError words a record's problem as encoding/csv does.
func (pe *parseErr) csvError() string {
	if pe.start != pe.line {
		return fmt.Sprintf("record on line %d; parse error on line %d, column %d: %s", pe.start, pe.line, pe.col, pe.msg)
	}
	return fmt.Sprintf("parse error on line %d, column %d: %s", pe.line, pe.col, pe.msg)
}

// skip counts a skipped row, keeping the first few problems as "row N: why".
func (ct *csvTrace) skip(err error) {
	ct.skipped++
	if len(ct.examples) < MaxSkipExamples {
		ct.examples = append(ct.examples, strings.TrimPrefix(err.Error(), "trace "))
	}
}

// reader checks the mapping's units and delimiter and returns the CSV reader.
// Without a delimiter in the mapping, a header line with no comma but a
// semicolon, tab or bar uses that.
func (ct *csvTrace) reader(text string) error {
	if d := ct.cm.Delimiter; d != "" {
		r, size := utf8.DecodeRuneInString(d)
		if size != len(d) || r == '"' || r == '\n' || r == '\r' || r == utf8.RuneError {
			return errorf("workload.columns.delimiter: want one character other than a quote or newline, got %q", d)
		}
		ct.comma = r
	} else {
		ct.comma = sniffDelimiter(text)
	}
	switch o := strings.ToLower(strings.TrimSpace(ct.cm.DateOrder)); o {
	case "":
	case "dmy":
		ct.order, ct.orderHow = orderDMY, " DD/MM/YYYY (day first, as date_order says)"
	case "mdy":
		ct.order, ct.orderHow = orderMDY, " MM/DD/YYYY (month first, as date_order says)"
	default:
		return errorf("workload.columns.date_order: want dmy or mdy, got %q", ct.cm.DateOrder)
	}
	if ct.cm.TZ != "" {
		z, err := LoadZone(ct.cm.TZ)
		if err != nil {
			return err
		}
		ct.zone = z
	}
	switch u := ct.cm.TimeUnit; u {
	case "", "ms", "s", "us", "ns", "rfc3339", "datetime":
		ct.timeUnit = u
	default:
		return errorf("workload.columns.time_unit: unknown unit %q (want ms, s, us, ns, rfc3339 or datetime)", u)
	}
	if ct.timeUnit == "" && ct.mapped && ct.cm.Time != "" {
		ct.nameUnit = "ms" // a mapped column's name says nothing; small numbers are ms
	}
	switch u := ct.cm.ServiceUnit; u {
	case "", "ms":
	case "s":
		ct.svcShift = 6
	case "us":
		ct.svcShift = 0
	default:
		return errorf("workload.columns.service_unit: unknown unit %q (want ms, s or us)", u)
	}
	return nil
}

// sniffDelimiter picks the delimiter of a header line that has no comma.
func sniffDelimiter(text string) rune {
	line, _, _ := strings.Cut(text, "\n")
	if strings.ContainsRune(line, ',') {
		return ','
	}
	for _, r := range []rune{';', '\t', '|'} {
		if strings.ContainsRune(line, r) {
			return r
		}
	}
	return ','
}

// readHeader finds the column of each field. A header holding time_ms and
// service without a mapping is the trace format: an unknown column is an
// error. Otherwise each field's column is the mapped one, else the standard
// name, else the first of its common names (see logNames) found; columns no
// field uses are ignored (a production log has many).
func (ct *csvTrace) readHeader(head []string) error {
	names := make([]string, len(head))
	for i, h := range head {
		names[i] = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
	}
	ct.enq = -1
	ct.log = ct.mapped || !slices.Contains(names, traceColumns[colTime]) ||
		!slices.Contains(names, traceColumns[colService]) && !slices.Contains(names, EnqueueColumn)
	if !ct.log {
		return ct.strictHeader(names)
	}
	mapping := [numCols]string{ct.cm.Time, ct.cm.Service, ct.cm.Origin, ct.cm.ServiceMS, ct.cm.Prio, ct.cm.ID, ct.cm.Route, ct.cm.BufType, ct.cm.Observed, ct.cm.Status}
	used := make([]bool, len(names))
	// Mapped fields first, so that a column mapped to one field is not
	// found by its name for another (observed=Elapsed(ms) is not service_ms).
	for pass := range 2 {
		for f := range numCols {
			if (mapping[f] != "") != (pass == 0) {
				continue
			}
			i, unit, err := findColumn(names, f, mapping[f], used)
			if err != nil {
				return err
			}
			ct.col[f], ct.header[f] = i, traceColumns[f]
			if mapping[f] != "" {
				ct.header[f] = mapping[f]
			}
			if i < 0 {
				continue
			}
			ct.header[f], used[i] = names[i], true
			switch {
			case f == colTime && mapping[f] == "" && ct.cm.TimeUnit == "":
				ct.nameUnit = unit
			case f == colServiceMS && ct.cm.ServiceUnit == "" && unit != "":
				ct.svcShift = map[string]int{"ms": 3, "s": 6, "us": 0, "ns": -3}[unit]
			case f == colObserved && unit != "":
				ct.obsShift = map[string]int{"ms": 3, "s": 6, "us": 0, "ns": -3}[unit]
			case f == colStatus:
				ct.statusCol = StatusColumnOf(names[i])
			}
		}
	}
	for _, f := range []int{colTime, colService} {
		if ct.col[f] < 0 {
			return columnError(f, "trace_csv: missing column %q (no column has a name like %s; name yours with workload.columns.%s)",
				ct.header[f], strings.Join(logNames[f][:min(4, len(logNames[f]))], ", "), mapField[f])
		}
	}
	for i, h := range names {
		if !used[i] {
			ct.ignored = append(ct.ignored, h)
		}
	}
	return nil
}

// EnqueueColumn is the trace format's column of a /Q enqueue ("QSPACE:Q",
// with service and service_ms empty).
const EnqueueColumn = "enqueue"

// mapField is the workload.columns field of each trace field.
var mapField = [numCols]string{"time", "service", "origin", "service_ms", "prio", "id", "route", "buftype", "observed", "status"}

// strictHeader reads a header of the trace format.
func (ct *csvTrace) strictHeader(names []string) error {
	ct.header = traceColumns
	for i := range ct.col {
		ct.col[i] = -1
	}
	ct.timeUnit = "ms"
	for i, h := range names {
		f := slices.Index(traceColumns[:], h)
		switch {
		case h == EnqueueColumn && ct.enq >= 0:
			return errorf("trace_csv: column %q appears twice", h)
		case h == EnqueueColumn:
			ct.enq = i
		case f >= 0 && ct.col[f] >= 0:
			return errorf("trace_csv: column %q appears twice", h)
		case f >= 0:
			ct.col[f] = i
		default:
			return errorf("trace_csv: unknown column %q (want %s, %s; with workload.columns, other columns are ignored)",
				h, strings.Join(traceColumns[:], ", "), EnqueueColumn)
		}
	}
	return nil
}

// cell returns the trimmed value of field f in rec, "" when absent.
func (ct *csvTrace) cell(rec []string, f int) string {
	if i := ct.col[f]; uint(i) < uint(len(rec)) {
		if c := rec[i]; c == "" || c[0]-'!' < 0x7f-'!' && c[len(c)-1]-'!' < 0x7f-'!' {
			return c // neither starts nor ends with a blank
		}
		return strings.TrimSpace(rec[i])
	}
	return ""
}

func (ct *csvTrace) row(r *Request, rec []string, num int) error {
	if ct.fields == nil {
		for f, i := range ct.col {
			if i >= 0 {
				ct.fields = append(ct.fields, [2]int{f, i})
			}
		}
	}
	var cells [numCols]string // the trimmed cells of the fields the log has
	for _, fi := range ct.fields {
		if i := fi[1]; i < len(rec) {
			c := rec[i]
			if c != "" && (c[0]-'!' >= 0x7f-'!' || c[len(c)-1]-'!' >= 0x7f-'!') { // starts or ends with a blank
				c = strings.TrimSpace(c)
			}
			cells[fi[0]] = c
		}
	}
	*r = Request{Row: num, ID: cells[colID], ServiceUS: -1, ObservedUS: -1}
	var err error
	if r.TimeUS, err = ct.time(cells[colTime], num); err != nil {
		return err
	}
	var msg string
	if ct.enq >= 0 && ct.enq < len(rec) && strings.TrimSpace(rec[ct.enq]) != "" {
		if cells[colService] != "" || cells[colServiceMS] != "" {
			return rowError(num, EnqueueColumn, "give service or enqueue, not both (an enqueue's time is its queue space's enqueue_time: leave service and service_ms empty)")
		}
		if r.Service, r.Queue, msg = ct.n.Enqueue(strings.TrimSpace(rec[ct.enq])); msg != "" {
			return rowError(num, EnqueueColumn, msg)
		}
	} else if r.Service, msg = ct.services.resolve(cells[colService], ct.n.Service); msg != "" {
		return rowError(num, ct.header[colService], msg)
	}
	if r.Origin, msg = ct.origins.resolve(cells[colOrigin], ct.n.Origin); msg != "" {
		return rowError(num, ct.header[colOrigin], msg)
	}
	if c := cells[colServiceMS]; c != "" {
		us, err := usec.Parse(decimalComma(c), ct.svcShift)
		if msg := usec.Problem(us, err); msg != "" {
			return rowError(num, ct.header[colServiceMS], quoteCell(msg, err, c))
		}
		r.ServiceUS = us
	} else if msg := ct.n.Untimed(r.Service); msg != "" && r.Queue == 0 {
		return rowError(num, ct.header[colServiceMS], msg)
	}
	if c := cells[colPrio]; c != "" {
		p, err := strconv.Atoi(c)
		if err != nil || p < 1 || p > 100 {
			return rowError(num, ct.header[colPrio], fmt.Sprintf("want an integer between 1 and 100, got %q", capped.Text(c)))
		}
		r.Prio = p
	}
	if c := cells[colBufType]; c != "" {
		if msg := ubb.CheckBufType(c); msg != "" {
			return rowError(num, ct.header[colBufType], msg)
		}
		r.BufType = c
	}
	if c := cells[colRoute]; c != "" {
		r.Route = c
	}
	if c := cells[colObserved]; c != "" {
		us, err := usec.Parse(decimalComma(c), ct.obsShift)
		if msg := usec.Problem(us, err); msg != "" {
			return rowError(num, ct.header[colObserved], quoteCell(msg, err, c))
		}
		r.ObservedUS = us
	}
	if c := cells[colStatus]; c != "" {
		st, ok := ReadStatus(c, ct.statusCol)
		if !ok {
			return rowError(num, ct.header[colStatus], statusProblem(c))
		}
		r.Status = st
	}
	return nil
}

// note says how a log was read, for the result's warnings.
func (ct *csvTrace) note() string {
	if !ct.log {
		return ""
	}
	var b strings.Builder
	b.WriteString("trace_csv: read as a log: ")
	for f := range numCols {
		if ct.col[f] < 0 {
			continue
		}
		if f > 0 {
			b.WriteString(", ")
		}
		b.WriteString(fmt.Sprintf("%s from column %q", traceColumns[f], ct.header[f]))
		if f == colTime && ct.how != "" {
			b.WriteString(" (" + ct.how + ")")
		}
		if u := map[int]string{6: "seconds", 0: "microseconds", -3: "nanoseconds"}; f == colServiceMS && u[ct.svcShift] != "" {
			b.WriteString(" (in " + u[ct.svcShift] + ")")
		} else if f == colObserved && u[ct.obsShift] != "" {
			b.WriteString(" (in " + u[ct.obsShift] + ")")
		}
	}
	if len(ct.ignored) > 0 {
		b.WriteString("; ignored: " + strings.Join(ct.ignored, ", "))
	}
	if ct.unzoned {
		if ct.zone == UTC {
			b.WriteString("; times without a zone read as UTC (give tz=ZONE, e.g. tz=Europe/Paris, for local times)")
		} else {
			b.WriteString("; times without a zone read as local times in " + ct.zone.String() + ", by the tz " + tzRelease + " rules")
		}
		if ct.repeated > 0 {
			b.WriteString(fmt.Sprintf("; %d times fell in an hour the change back from summer time repeats (the first: row %d, %q), "+
				"each read as its first pass (summer time) unless that would go back before the row before it, then as its second",
				ct.repeated, ct.repeatRow, capped.Text(ct.repeatTxt)))
		}
	}
	return b.String()
}

// quoteCell adds the cell to a "not a number" problem.
func quoteCell(msg string, err error, c string) string {
	if errors.Is(err, usec.ErrNotNumber) {
		return fmt.Sprintf("%s: %q", msg, capped.Text(c))
	}
	return msg
}
