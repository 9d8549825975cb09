package trace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/internal/capped"
	"github.com/tuxlb/tuxlb/core/internal/usec"
)

// logNames are the common names of each trace field's column in logs, in
// order of preference, compared with a column name normalized by normColumn
// after a unit suffix (_ms, _s, _us, _ns, ...) is taken off it.
var logNames = [numCols][]string{
	colTime: {"time", "timestamp", "ts", "datetime", "date_time", "time_stamp", "@timestamp", "start_time", "start",
		"issue_time", "issued_at", "request_time", "event_time", "epoch", "unix_time", "when"},
	colService: {"service", "svc", "service_name", "svc_name", "svcname", "servicename", "tpservice", "operation", "op"},
	colOrigin:  {"origin", "lmid", "machine", "host", "hostname", "host_name", "node", "machine_name"},
	// A column named for a response (elapsed, duration, latency, rt,
	// response) is the response the log observed, never the service time,
	// unless a mapping says otherwise (workload.columns.service_ms).
	colServiceMS: {"service", "svc", "service_time", "svc_time", "exec_time"},
	colPrio:      {"prio", "priority"},
	colID:        {"id", "request_id", "req_id", "requestid"},
	colRoute:     {"route", "routing", "routing_value", "route_value"},
	colBufType:   {"buftype", "buffer_type", "buf_type", "tptype"},
	colObserved: {"observed", "observed_response", "response", "response_time", "resp_time", "elapsed", "elapsed_time",
		"duration", "latency", "rt"},
	// A request's outcome: a word (OK, FAIL, TPENOENT...) or a return code
	// (ReadStatus).
	colStatus: {"status", "result", "outcome", "rc", "return_code", "retcode", "tperrno", "errno", "error_code", "errcode",
		"error", "err", "success"},
}

// unitRule says whether a field's column name may carry a unit suffix.
func unitRule(f int, base string) (allowed, required bool) {
	switch f {
	case colTime:
		return true, false
	case colServiceMS:
		return true, base == "service" || base == "svc" // a bare "service" is the name
	case colObserved:
		return true, base == "response" // a bare "response" may be a reply code or text
	}
	return false, false
}

// unitSuffixes are the unit suffixes of column names.
var unitSuffixes = []struct{ suffix, unit string }{
	{"_milliseconds", "ms"}, {"_millis", "ms"}, {"_msec", "ms"}, {"_ms", "ms"},
	{"_microseconds", "us"}, {"_micros", "us"}, {"_usec", "us"}, {"_us", "us"},
	{"_nanoseconds", "ns"}, {"_nanos", "ns"}, {"_ns", "ns"},
	{"_seconds", "s"}, {"_secs", "s"}, {"_sec", "s"}, {"_s", "s"},
}

// normColumn lower-cases a column name and turns spaces, dashes, dots and
// brackets into single underscores: "Time (ms)" is "time_ms".
func normColumn(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch r {
		case ' ', '-', '.', '(', '[', '/':
			r = '_'
		case ')', ']':
			continue
		}
		if r == '_' && (b.Len() == 0 || strings.HasSuffix(b.String(), "_")) {
			continue
		}
		b.WriteRune(r)
	}
	return strings.TrimSuffix(b.String(), "_")
}

// splitUnit takes a unit suffix off a normalized name.
func splitUnit(n string) (base, unit string) {
	for _, u := range unitSuffixes {
		if b, ok := strings.CutSuffix(n, u.suffix); ok && b != "" {
			return b, u.unit
		}
	}
	return n, ""
}

// findColumn finds the column of field f among the header names: the mapped
// name when given (exactly, else normalized), else the standard name, else the
// first common name. It returns -1 when there is none, and the unit that the
// column's name gives ("" none).
func findColumn(names []string, f int, mapped string, used []bool) (int, string, error) {
	if mapped != "" {
		i := indexColumn(names, func(h string) bool { return h == mapped })
		if i < 0 {
			i = indexColumn(names, func(h string) bool { return normColumn(h) == normColumn(mapped) })
		}
		if i < 0 {
			return -1, "", columnError(f, "workload.columns.%s: no column %q in the header (it has %s)",
				mapField[f], mapped, strings.Join(names, ", "))
		}
		// a duration's column named with its unit, mapped or not, is in
		// that unit ("Elapsed(s)" seconds); a time's name gives none
		unit := ""
		if f == colServiceMS || f == colObserved {
			_, unit = splitUnit(normColumn(names[i]))
		}
		return i, unit, nil
	}
	if i := indexColumn(names, func(h string) bool { return h == traceColumns[f] }); i >= 0 && !used[i] {
		_, unit := splitUnit(traceColumns[f])
		return i, unit, twice(names, i)
	}
	norm := make([]string, len(names))
	for i, h := range names {
		norm[i] = normColumn(h)
	}
	for _, cand := range logNames[f] {
		allowed, required := unitRule(f, cand)
		for i, n := range norm {
			if used[i] {
				continue
			}
			base, unit := splitUnit(n)
			switch {
			case n == cand && !required:
				return i, "", twice(norm, i)
			case allowed && unit != "" && base == cand:
				return i, unit, twice(norm, i)
			}
		}
	}
	return -1, "", nil
}

func indexColumn(names []string, match func(string) bool) int {
	for i, h := range names {
		if match(h) {
			return i
		}
	}
	return -1
}

// twice is the error of a column name that appears again after index i.
func twice(names []string, i int) error {
	for _, h := range names[i+1:] {
		if h == names[i] {
			return errorf("trace_csv: column %q appears twice", h)
		}
	}
	return nil
}

// Shifts of each time unit: to microseconds and to nanoseconds.
var (
	unitShiftUS = map[string]int{"ms": 3, "s": 6, "us": 0, "ns": -3}
	unitShiftNS = map[string]int{"ms": 6, "s": 9, "us": 3, "ns": 0}
	unitWords   = map[string]string{"ms": "milliseconds", "s": "seconds", "us": "microseconds", "ns": "nanoseconds"}
)

// epochNS is the smallest absolute time: 10^8 s after 1970 (March 1973).
// A number at or above it in its unit is an epoch time, not an offset; no
// offset that large is a valid time (the limit is 10^9 ms).
const epochNS = 100_000_000 * 1_000_000_000

// time converts a time cell to microseconds. The first time cell decides
// what the column holds when the mapping does not say: a date-time, or a
// number in the unit the column's name gives, else judged by its magnitude.
// Date-times and epoch numbers count from the log's start (relative).
func (ct *csvTrace) time(c string, num int) (int64, error) {
	if ct.plain == 1 { // the most of logs: a number in the unit decided
		if us, ok := usec.ParsePlain(c, ct.plainShift); ok {
			ct.rowNum = num
			return us, nil
		}
	}
	ct.rowNum = num
	field := ct.header[colTime]
	if c == "" {
		return 0, rowError(num, field, "missing")
	}
	if !ct.decided {
		if err := ct.decide(c); err != nil {
			if ct.fatal != nil {
				return 0, err
			}
			return 0, rowError(num, field, err.Error())
		}
	}
	if ct.plain == 0 { // decided: say once whether the times are offsets in a unit
		ct.plain = 2
		if shift, ok := unitShiftUS[ct.timeUnit]; ok && !ct.epoch {
			ct.plain, ct.plainShift = 1, shift
		}
	}
	var us int64
	var err error
	switch {
	case ct.plain == 1:
		us, err = usec.Parse(decimalComma(c), ct.plainShift)
	case ct.timeUnit == "rfc3339" || ct.timeUnit == "datetime":
		us, err = ct.stamp(c)
	case ct.timeUnit == "clock":
		us, err = ct.clock(c)
	default:
		us, err = ct.number(decimalComma(c))
	}
	if msg := usec.Problem(us, err); msg != "" {
		return 0, rowError(num, field, msg)
	}
	return us, nil
}

// decide fixes the unit of the time column from its first cell c, and the
// order of dates written with the year last from the whole column
// (decideOrder). A cell that is neither a date-time nor a number decides
// nothing: it is that row's error, and the next row's cell decides.
func (ct *csvTrace) decide(c string) error {
	st, isStamp := cutStamp(c)
	if ct.timeUnit == "" {
		if isStamp || looksLikeDate(c) {
			ct.timeUnit = "datetime"
		} else if _, ok := cutClock(c); ok {
			ct.timeUnit = "clock"
			ct.decided, ct.clockPrev = true, -1
			ct.how = "times of day, no date: one more than 12 hours before the row above it is the next day; counted from the first row"
			return nil
		} else if _, err := wideNS(decimalComma(c), 0); err != nil {
			return usec.Error(fmt.Sprintf("not a time (want a date-time or a number): %q", capped.Text(c)))
		} else if ct.nameUnit != "" {
			ct.timeUnit = ct.nameUnit
		} else {
			ct.timeUnit = magnitudeUnit(decimalComma(c))
		}
	}
	switch ct.timeUnit {
	case "rfc3339", "datetime":
		if isStamp && st.needsOrder() && ct.order == orderNone {
			if err := ct.decideOrder(); err != nil {
				ct.fatal = err // the whole column's problem: no row is read
				return err
			}
		}
		ct.decided = true
		ct.how = "date-times" + ct.orderHow + ", counted from the first row"
		return nil
	}
	ct.decided = true
	ns, err := wideNS(decimalComma(c), unitShiftNS[ct.timeUnit])
	if err == nil && ns >= epochNS {
		ct.epoch = true
		ct.how = "epoch " + unitWords[ct.timeUnit] + ", counted from the first row"
	} else {
		ct.how = unitWords[ct.timeUnit]
	}
	return nil
}

// looksLikeDate says whether c starts like a date (YYYY-MM or YYYY/MM), so
// that a date-time with a zone it cannot read is named as such.
func looksLikeDate(c string) bool {
	if len(c) >= 7 && (c[4] == '-' || c[4] == '/') && strings.Trim(c[:4], "0123456789") == "" && c[5] >= '0' && c[5] <= '9' {
		return true
	}
	return len(c) >= 8 && (c[2] == '/' || c[2] == '.') && c[5] == c[2] && strings.Trim(c[:2]+c[3:5]+c[6:8], "0123456789") == ""
}

// magnitudeUnit judges the unit of a number with no unit: below 10^8 it is
// milliseconds from the start; above, an epoch time in seconds (to 10^11),
// milliseconds (to 10^14), microseconds (to 10^17) or nanoseconds.
func magnitudeUnit(c string) string {
	v, err := wideNS(c, 0)
	switch {
	case err != nil || v < 1e8:
		return "ms"
	case v < 1e11:
		return "s"
	case v < 1e14:
		return "ms"
	case v < 1e17:
		return "us"
	}
	return "ns"
}

// number converts a number of the column's unit: an offset from time 0, or
// an epoch time counted from the first row's.
func (ct *csvTrace) number(c string) (int64, error) {
	if !ct.epoch {
		return usec.Parse(c, unitShiftUS[ct.timeUnit])
	}
	ns, err := wideNS(c, unitShiftNS[ct.timeUnit])
	if err != nil {
		return 0, err
	}
	return ct.relative(ns, c, "epoch times")
}

// stamp converts a date-time to microseconds after the first row's.
func (ct *csvTrace) stamp(c string) (int64, error) {
	st, ok := cutStamp(c)
	var ns int64
	var zoned bool
	local := localPlain
	if ok && st.outOfRange(ct.order) {
		return 0, usec.Error(fmt.Sprintf("date-time out of the supported range (years %d to %d): %q", minYear, maxYear, capped.Text(c)))
	}
	if ok {
		ns, zoned, local, ok = st.instantIn(ct.order, ct.zone, ct.prevSec)
	}
	switch {
	case ok && local == localSkipped:
		return 0, usec.Error(fmt.Sprintf("%q is no time in %s: the change to summer time skips it (the clocks jump an hour forward); "+
			"fix the row, or read the log in the zone it was written in (tz)", capped.Text(c), ct.zone))
	case ok && local == localRepeat:
		ct.repeated++
		if ct.repeatRow == 0 {
			ct.repeatRow, ct.repeatTxt = ct.rowNum, c
		}
	}
	if !ok {
		if ct.timeUnit == "rfc3339" {
			return 0, usec.Error(fmt.Sprintf("not an RFC 3339 timestamp: %q", capped.Text(c)))
		}
		return 0, usec.Error(fmt.Sprintf("not a date-time (want YYYY-MM-DD HH:MM:SS[.fff][zone]%s, as in the first row): %q", ct.orderWant(), capped.Text(c)))
	}
	if !zoned {
		ct.unzoned = true
	}
	ct.prevSec = ns / 1_000_000_000
	what := "date-times"
	if ct.timeUnit == "rfc3339" {
		what = "RFC 3339 times"
	}
	return ct.relative(ns, c, what)
}

// cutClock reads a time of day written without a date, H:MM:SS with an
// optional fraction and AM or PM (as a date-time's time part), returning
// it in ns after midnight.
func cutClock(c string) (int64, bool) {
	if strings.ContainsAny(c, "-/") { // a date that did not parse, not a time of day
		return 0, false
	}
	st, ok := cutStamp("2000-01-01 " + strings.TrimSpace(c))
	if !ok || st.zone != "" {
		return 0, false
	}
	ns, _, ok := st.instant(orderNone, UTC, 0)
	return ns - clockDay0, ok
}

// clockDay0 is 2000-01-01T00:00:00Z in ns since 1970: cutClock's base.
const clockDay0 = 946_684_800 * 1_000_000_000

// dayNS is a day in nanoseconds.
const dayNS = 86_400 * 1_000_000_000

// clock converts a time of day: a log that writes no date runs from its
// first row's day, and a time more than 12 hours before the previous row's
// is taken for the next day (a log across midnight).
func (ct *csvTrace) clock(c string) (int64, error) {
	ns, ok := cutClock(c)
	if !ok {
		return 0, usec.Error(fmt.Sprintf("not a time of day (want HH:MM:SS[.fff], as in the first row): %q", capped.Text(c)))
	}
	abs := ct.clockDays*dayNS + ns
	if ct.clockPrev >= 0 && abs < ct.clockPrev-dayNS/2 {
		ct.clockDays++
		abs += dayNS
	}
	ct.clockPrev = abs
	return ct.relative(abs, c, "times of day")
}

// originRows is how many rows from the top decide where the times of a
// log of date-times or epoch times start: the earliest of them.
const originRows = 4096

// relative is ns (an absolute time) after the log's start, in µs rounded
// half away from zero: the earliest time of its first originRows rows
// (origin), with skipBad too (the rows that cannot be read are passed
// over, as they will be).
func (ct *csvTrace) relative(ns int64, c, what string) (int64, error) {
	if ct.firstTxt == "" {
		ct.firstNS, ct.firstTxt = ns, strings.Clone(c)
		if ct.timeUnit != "clock" {
			if o, txt, row, ok := ct.origin(ns); ok {
				ct.firstNS, ct.firstTxt = o, strings.Clone(txt)
				ct.how = strings.TrimSuffix(ct.how, "the first row") + fmt.Sprintf("row %d's %s, the earliest of the first %d rows", row, capped.Text(txt), originRows)
			}
		}
	}
	if (ns > 0 && ct.firstNS < 0 && ns-ct.firstNS < 0) || (ns < 0 && ct.firstNS > 0 && ns-ct.firstNS > 0) {
		return 0, usec.ErrTooLarge
	}
	d := ns - ct.firstNS
	us := d / 1000
	if rem := d % 1000; rem >= 500 {
		us++
	} else if rem <= -500 {
		us--
	}
	if us > usec.Max {
		return 0, usec.ErrTooLarge
	}
	if us < 0 {
		return 0, usec.Error(fmt.Sprintf("must be >= 0: %s is before the log's start, %s (%s count from the earliest of the first %d rows)",
			capped.Text(c), capped.Text(ct.firstTxt), what, originRows))
	}
	return us, nil
}

// origin is the earliest time of the log's first originRows rows, and its
// cell, when one is earlier than first (the first row's): an export whose
// rows are written as requests end (in the order of their ends, with
// their start times), or by several threads, starts a little out of
// order. The time column is read as the rows will be (date-times in the
// log's zone and date order, or epoch numbers in its unit); a cell that
// cannot be read is left to the row's own reading.
func (ct *csvTrace) origin(first int64) (int64, string, int, bool) {
	if ct.col[colTime] < 0 {
		return 0, "", 0, false
	}
	stamps := ct.timeUnit == "rfc3339" || ct.timeUnit == "datetime"
	if !stamps && !ct.epoch {
		return 0, "", 0, false
	}
	best, txt, row, found := first, "", 0, false
	prev := ct.prevSec
	for num, c := range ct.timeCells(originRows) {
		var ns int64
		if stamps {
			st, ok := cutStamp(c)
			if !ok || st.outOfRange(ct.order) {
				continue
			}
			if ns, _, _, ok = st.instantIn(ct.order, ct.zone, prev); !ok {
				continue
			}
			prev = ns / 1_000_000_000
		} else {
			v, err := wideNS(decimalComma(c), unitShiftNS[ct.timeUnit])
			if err != nil {
				continue
			}
			ns = v
		}
		if ns < best {
			best, txt, row, found = ns, c, num, true
		}
	}
	return best, txt, row, found
}

// decimalComma reads "1,5" as "1.5": a number with one comma and no point.
func decimalComma(c string) string {
	if strings.IndexByte(c, ',') < 0 {
		return c
	}
	if strings.Count(c, ",") == 1 && !strings.ContainsRune(c, '.') {
		return strings.Replace(c, ",", ".", 1)
	}
	return c
}

// wideNS converts decimal text times 10^shift to an integer (rounded half away
// from zero), with the whole int64 range: for absolute times in nanoseconds.
func wideNS(text string, shift int) (int64, error) {
	neg, digits, exp, ok := usec.SplitSigned(text)
	if !ok {
		return 0, usec.ErrNotNumber
	}
	e := exp + shift
	var v int64
	switch cut := len(digits) + e; {
	case digits == "" || cut < 0:
	case e >= 0:
		if cut > 19 {
			return 0, usec.ErrTooLarge
		}
		var err error
		if v, err = strconv.ParseInt(digits+strings.Repeat("0", e), 10, 64); err != nil {
			return 0, usec.ErrTooLarge
		}
	case cut == 0:
		if digits[0] >= '5' {
			v = 1
		}
	default:
		if cut > 19 {
			return 0, usec.ErrTooLarge
		}
		var err error
		if v, err = strconv.ParseInt(digits[:cut], 10, 64); err != nil {
			return 0, usec.ErrTooLarge
		}
		if digits[cut] >= '5' {
			v++
		}
	}
	if neg {
		v = -v
	}
	return v, nil
}

// zoneOffset reads a zone designator, in seconds east of UTC.
func zoneOffset(z string) (int64, bool) {
	switch z {
	case "", "Z", "z", "UTC", "GMT":
		return 0, true
	}
	if z[0] != '+' && z[0] != '-' {
		return 0, false
	}
	digits := strings.Replace(z[1:], ":", "", 1)
	var h, m int
	switch len(digits) {
	case 2:
		h = atoi2(digits)
	case 4:
		h, m = atoi2(digits[:2]), atoi2(digits[2:])
	default:
		return 0, false
	}
	if h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, false
	}
	off := int64(h*3600 + m*60)
	if z[0] == '-' {
		off = -off
	}
	return off, true
}

func atoi2(s string) int {
	if s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return -1
	}
	return int(s[0]-'0')*10 + int(s[1]-'0')
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d (proleptic
// Gregorian calendar).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
