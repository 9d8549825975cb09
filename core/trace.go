package core

import (
	"cmp"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tuxlb/tuxlb/core/ubb"
)

// Trace fields, in the order of traceColumns.
const (
	colTime = iota
	colService
	colOrigin
	colServiceMS
	colPrio
	colID
	colRoute
	numCols
)

// traceColumns are the standard column names of trace_csv.
var traceColumns = [numCols]string{"time_ms", "service", "origin", "service_ms", "prio", "id", "route"}

// names resolves service names and LMIDs of a model to indexes.
type names struct {
	m        *Model
	services map[string]int
	machines map[string]int
	origin   int // the default origin: MASTER, else the only machine, else -1
	// needMS[s] is set when service s has no distribution for some group that
	// may serve it (group needGroup[s]): its requests must carry service_ms.
	needMS    []bool
	needGroup []string
	// crit[s] is the routing criterion of service s, nil when it has none.
	crit []*ubb.Criterion
}

// untimed words the problem of a request of service s without service_ms, or
// returns "" when s has a distribution wherever it may be served.
func (n *names) untimed(s int) string {
	if n.needMS == nil || !n.needMS[s] {
		return ""
	}
	return sprintf("missing; service %s has no service_time for group %s (give services.%s.service_time)",
		n.m.Services[s].Name, n.needGroup[s], n.m.Services[s].Name)
}

func newNames(m *Model) *names {
	n := &names{m: m, services: map[string]int{}, machines: map[string]int{}, origin: -1}
	n.crit = make([]*ubb.Criterion, len(m.Services))
	for i, s := range m.Services {
		n.services[s.Name] = i
		if s.Routing != "" {
			n.crit[i] = m.Criterion(s.Routing)
		}
	}
	for i, mc := range m.Machines {
		n.machines[mc.LMID] = i
	}
	if i, ok := n.machines[m.Master]; ok && m.Master != "" {
		n.origin = i
	} else if len(m.Machines) == 1 {
		n.origin = 0
	}
	return n
}

// service resolves a service name; the message follows the field name.
func (n *names) service(name string) (int, string) {
	if name == "" {
		return 0, "missing"
	}
	if i, ok := n.services[name]; ok {
		return i, ""
	}
	for _, s := range n.m.Services {
		if strings.EqualFold(s.Name, name) {
			return 0, sprintf("unknown service %q (service names are case-sensitive: did you mean %s?)", name, s.Name)
		}
	}
	return 0, sprintf("unknown service %q", name)
}

// lmid resolves an origin machine, "" meaning the default one.
func (n *names) lmid(name string) (int, string) {
	if name == "" {
		if n.origin < 0 {
			return 0, "missing, and there is no default (no MASTER machine, and more than one machine)"
		}
		return n.origin, ""
	}
	if i, ok := n.machines[name]; ok {
		return i, ""
	}
	return 0, sprintf("unknown LMID %q (the UBBCONFIG has %s)", name, machineList(n.m))
}

// rowError is the error of trace row row (1-based, header excluded).
func rowError(row int, field, msg string) error {
	return Errorf(EINVALID, "trace row %d: %s: %s", row, field, msg)
}

// sortTrace orders trace requests by time, keeping row order for ties.
func sortTrace(reqs []Request) {
	slices.SortStableFunc(reqs, func(a, b Request) int { return cmp.Compare(a.TimeUS, b.TimeUS) })
}

// traceJSON compiles the JSON rows of workload.trace.
func traceJSON(n *names, rows []TraceRow, seed uint64) ([]Request, error) {
	reqs := make([]Request, 0, len(rows))
	for i, row := range rows {
		r, err := traceJSONRow(n, &row, i+1)
		if err != nil {
			return nil, err
		}
		r.Key = requestKey(seed, 0, uint64(i))
		reqs = append(reqs, r)
	}
	sortTrace(reqs)
	return reqs, nil
}

func traceJSONRow(n *names, row *TraceRow, num int) (Request, error) {
	r := Request{ID: row.ID, ServiceUS: -1}
	if row.TimeMS == nil {
		return r, rowError(num, "time_ms", "missing")
	}
	t, err := msValueToUS(*row.TimeMS)
	if msg := timeProblem(t, err); msg != "" {
		return r, rowError(num, "time_ms", msg)
	}
	r.TimeUS = t
	var msg string
	if r.Service, msg = n.service(row.Service); msg != "" {
		return r, rowError(num, "service", msg)
	}
	if r.Origin, msg = n.lmid(row.Origin); msg != "" {
		return r, rowError(num, "origin", msg)
	}
	if row.ServiceMS != nil {
		us, err := msValueToUS(*row.ServiceMS)
		if msg := timeProblem(us, err); msg != "" {
			return r, rowError(num, "service_ms", msg)
		}
		r.ServiceUS = us
	} else if msg := n.untimed(r.Service); msg != "" {
		return r, rowError(num, "service_ms", msg)
	}
	if row.Prio != nil {
		if *row.Prio < 1 || *row.Prio > 100 {
			return r, rowError(num, "prio", sprintf("must be between 1 and 100, got %d", *row.Prio))
		}
		r.Prio = *row.Prio
	}
	if row.Route != nil {
		r.RouteVal = string(*row.Route)
		n.route(&r)
	}
	return r, nil
}

// route resolves r's routing value against its service's criterion.
func (n *names) route(r *Request) {
	if c := n.crit[r.Service]; c != nil {
		r.Route = routeOf(c, r.RouteVal)
	}
}

// timeProblem words a converted time's problem: not a number, too large or
// negative; "" when it is fine.
func timeProblem(us int64, err error) string {
	if err != nil {
		return err.Error()
	}
	if us < 0 {
		return "must be >= 0"
	}
	return ""
}

// csvTrace reads trace_csv, with the optional column mapping cm.
type csvTrace struct {
	n        *names
	cm       TraceMap
	mapped   bool
	col      [numCols]int    // index of each field's column, -1 when absent
	header   [numCols]string // the column name of each field, for errors
	timeUnit string
	svcShift int
	first    *time.Time // rfc3339: the first row's time
}

// traceCSV compiles workload.trace_csv.
func traceCSV(n *names, text string, cm *TraceMap, seed uint64) ([]Request, error) {
	ct := &csvTrace{n: n, timeUnit: "ms", svcShift: 3}
	if cm != nil {
		ct.cm, ct.mapped = *cm, true
	}
	rd, err := ct.reader(text)
	if err != nil {
		return nil, err
	}
	head, err := rd.Read()
	switch {
	case errors.Is(err, io.EOF):
		return nil, Errorf(EINVALID, "trace_csv: missing header row (want columns %s)", strings.Join(traceColumns[:], ", "))
	case err != nil:
		return nil, Errorf(EINVALID, "trace_csv: header row: %v", err)
	}
	if err := ct.readHeader(head); err != nil {
		return nil, err
	}
	reqs, err := ct.rows(rd, len(head), seed)
	if err != nil {
		return nil, err
	}
	sortTrace(reqs)
	return reqs, nil
}

// rows reads the data rows; width is the number of header fields.
func (ct *csvTrace) rows(rd *csv.Reader, width int, seed uint64) ([]Request, error) {
	var reqs []Request
	for num := 1; ; num++ {
		rec, err := rd.Read()
		switch {
		case errors.Is(err, io.EOF):
			return reqs, nil
		case err != nil:
			return nil, csvError(num, err)
		case len(rec) == 1 && strings.TrimSpace(rec[0]) == "":
			num-- // a line of blanks is not a row
			continue
		case len(rec) != width:
			return nil, Errorf(EINVALID, "trace row %d: has %d fields, the header has %d", num, len(rec), width)
		}
		r, err := ct.row(rec, num)
		if err != nil {
			return nil, err
		}
		r.Key = requestKey(seed, 0, uint64(num-1))
		reqs = append(reqs, r)
	}
}

func csvError(num int, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return Errorf(EINVALID, "trace row %d (line %d col %d): %v", num, pe.Line, pe.Column, pe.Err)
	}
	return Errorf(EINVALID, "trace row %d: %v", num, err)
}

// reader checks the mapping's units and delimiter and returns the CSV reader.
func (ct *csvTrace) reader(text string) (*csv.Reader, error) {
	rd := csv.NewReader(strings.NewReader(text))
	rd.FieldsPerRecord = -1
	rd.ReuseRecord = true
	rd.TrimLeadingSpace = true
	if d := ct.cm.Delimiter; d != "" {
		r, size := utf8.DecodeRuneInString(d)
		if size != len(d) || r == '"' || r == '\n' || r == '\r' || r == utf8.RuneError {
			return nil, Errorf(EINVALID, "workload.columns.delimiter: want one character other than a quote or newline, got %q", d)
		}
		rd.Comma = r
	}
	switch u := ct.cm.TimeUnit; u {
	case "", "ms", "s", "us", "rfc3339":
		if u != "" {
			ct.timeUnit = u
		}
	default:
		return nil, Errorf(EINVALID, "workload.columns.time_unit: unknown unit %q (want ms, s, us or rfc3339)", u)
	}
	switch u := ct.cm.ServiceUnit; u {
	case "", "ms":
	case "s":
		ct.svcShift = 6
	case "us":
		ct.svcShift = 0
	default:
		return nil, Errorf(EINVALID, "workload.columns.service_unit: unknown unit %q (want ms, s or us)", u)
	}
	return rd, nil
}

// readHeader finds the column of each field: the mapping's name when given,
// else the standard one. Without a mapping an unknown column is an error; with
// one, columns it does not name are ignored (a production log has many).
func (ct *csvTrace) readHeader(head []string) error {
	want := traceColumns
	for i, name := range []string{ct.cm.Time, ct.cm.Service, ct.cm.Origin, ct.cm.ServiceMS, ct.cm.Prio, ct.cm.ID, ct.cm.Route} {
		if name != "" {
			want[i] = name
		}
	}
	ct.header = want
	for i := range ct.col {
		ct.col[i] = -1
	}
	for i, h := range head {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		f := slices.Index(want[:], h)
		switch {
		case f >= 0 && ct.col[f] >= 0:
			return Errorf(EINVALID, "trace_csv: column %q appears twice", h)
		case f >= 0:
			ct.col[f] = i
		case !ct.mapped:
			return Errorf(EINVALID, "trace_csv: unknown column %q (want %s)", h, strings.Join(traceColumns[:], ", "))
		}
	}
	for _, f := range []int{colTime, colService} {
		if ct.col[f] < 0 {
			return Errorf(EINVALID, "trace_csv: missing column %q", want[f])
		}
	}
	return nil
}

// cell returns the trimmed value of field f in rec, "" when absent.
func (ct *csvTrace) cell(rec []string, f int) string {
	i := ct.col[f]
	if i < 0 || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

func (ct *csvTrace) row(rec []string, num int) (Request, error) {
	r := Request{ID: strings.Clone(ct.cell(rec, colID)), ServiceUS: -1}
	var err error
	if r.TimeUS, err = ct.time(ct.cell(rec, colTime), num); err != nil {
		return r, err
	}
	var msg string
	if r.Service, msg = ct.n.service(ct.cell(rec, colService)); msg != "" {
		return r, rowError(num, ct.header[colService], msg)
	}
	if r.Origin, msg = ct.n.lmid(ct.cell(rec, colOrigin)); msg != "" {
		return r, rowError(num, ct.header[colOrigin], msg)
	}
	if c := ct.cell(rec, colServiceMS); c != "" {
		us, err := decimalToUS(c, ct.svcShift)
		if msg := timeProblem(us, err); msg != "" {
			return r, rowError(num, ct.header[colServiceMS], msg)
		}
		r.ServiceUS = us
	} else if msg := ct.n.untimed(r.Service); msg != "" {
		return r, rowError(num, ct.header[colServiceMS], msg)
	}
	if c := ct.cell(rec, colPrio); c != "" {
		p, err := strconv.Atoi(c)
		if err != nil || p < 1 || p > 100 {
			return r, rowError(num, ct.header[colPrio], sprintf("want an integer between 1 and 100, got %q", c))
		}
		r.Prio = p
	}
	if c := ct.cell(rec, colRoute); c != "" {
		r.RouteVal = strings.Clone(c)
		ct.n.route(&r)
	}
	return r, nil
}

// time converts a time cell to microseconds in the mapping's unit.
func (ct *csvTrace) time(c string, num int) (int64, error) {
	field := ct.header[colTime]
	if c == "" {
		return 0, rowError(num, field, "missing")
	}
	var us int64
	var err error
	switch ct.timeUnit {
	case "rfc3339":
		us, err = ct.stamp(c)
	case "s":
		us, err = decimalToUS(c, 6)
	case "us":
		us, err = decimalToUS(c, 0)
	default:
		us, err = decimalToUS(c, 3)
	}
	if msg := timeProblem(us, err); msg != "" {
		return 0, rowError(num, field, msg)
	}
	return us, nil
}

// stamp converts an RFC 3339 timestamp to microseconds after the first row's.
func (ct *csvTrace) stamp(c string) (int64, error) {
	t, err := time.Parse(time.RFC3339Nano, c)
	if err != nil {
		return 0, timeError(sprintf("not an RFC 3339 timestamp: %q", c))
	}
	if ct.first == nil {
		ct.first = &t
	}
	d := t.Sub(*ct.first)
	if d == math.MaxInt64 || d == math.MinInt64 {
		return 0, errTooLarge
	}
	us := int64(d / 1000)
	if rem := d % 1000; rem >= 500 {
		us++
	} else if rem <= -500 {
		us--
	}
	if us > MaxTimeUS {
		return 0, errTooLarge
	}
	if us < 0 {
		return 0, timeError(sprintf("must be >= 0: %s is before the first row's %s (RFC 3339 times count from the first row in the file)",
			c, ct.first.Format(time.RFC3339Nano)))
	}
	return us, nil
}

// requestKey is the random key of the n-th request (0-based) of a source:
// source 0 is the trace (n is its row), source i+1 is generated stream i.
// It depends on nothing else, so every variant of a scenario sees the same key.
func requestKey(seed, source, n uint64) uint64 {
	return mix64(keyBase(seed, source) ^ n)
}

// keyBase is the part of requestKey that does not change along a source.
func keyBase(seed, source uint64) uint64 {
	return mix64(seed^0x6a09e667f3bcc909) ^ mix64(source+0xbb67ae8584caa73b)
}

// mix64 is the splitmix64 finaliser: a bijection that scatters every input bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
