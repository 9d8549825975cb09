package trace

import (
	"fmt"
	"iter"
	"strconv"
	"strings"
)

// Date orders of dates written with the year last (workload.columns.date_order).
const (
	orderNone byte = 0   // not known (yet)
	orderDMY  byte = 'd' // DD/MM/YYYY
	orderMDY  byte = 'm' // MM/DD/YYYY
)

// stamp is a date-time cell cut into its parts, before the date's order is
// applied: a, b and c are the date's three numbers as written.
type stamp struct {
	a, b, c    int
	na, nb, nc int  // their digit counts
	sep        byte // '-', '/' or '.'
	h, mi, sec int
	frac       int64 // nanoseconds
	zone       string
}

// yearLast says whether the date is written DD?MM?YYYY or MM?DD?YYYY (or
// with a two-digit year), and needsOrder whether the order is open (not a
// dotted date, which is day first).
func (s *stamp) yearLast() bool   { return s.na <= 2 && s.nb <= 2 && (s.nc == 4 || s.nc == 2) }
func (s *stamp) needsOrder() bool { return s.yearLast() && s.sep != '.' }

// cutStamp cuts a date-time: a date (YYYY-MM-DD, YYYY/MM/DD, DD/MM/YYYY,
// MM/DD/YYYY, DD.MM.YYYY, DD-MM-YYYY, the last four with a two-digit year
// too; day, month and hour may have one digit), 'T' or spaces, a time
// H:MM:SS with an optional fraction after '.' or ',' (digits past the ninth
// dropped) and AM or PM, then an optional zone: Z, UTC, GMT, +HH, +HHMM or
// +HH:MM, with or without a space before it.
func cutStamp(s string) (st stamp, ok bool) {
	s = strings.TrimSpace(s)
	i := 0
	digits := func(maxN int) (v, n int) {
		for i < len(s) && n < maxN && s[i] >= '0' && s[i] <= '9' {
			v = v*10 + int(s[i]-'0')
			i++
			n++
		}
		return v, n
	}
	if st.a, st.na = digits(4); st.na == 0 || st.na == 3 || i >= len(s) {
		return st, false
	}
	st.sep = s[i]
	if st.sep != '-' && st.sep != '/' && st.sep != '.' {
		return st, false
	}
	i++
	if st.b, st.nb = digits(2); st.nb == 0 || i >= len(s) || s[i] != st.sep {
		return st, false
	}
	i++
	if st.c, st.nc = digits(4); st.nc == 0 || st.nc == 3 {
		return st, false
	}
	if st.na == 4 {
		if st.nc > 2 {
			return st, false
		}
	} else if !st.yearLast() {
		return st, false
	}
	switch {
	case i < len(s) && (s[i] == 'T' || s[i] == 't'):
		i++
	case i < len(s) && s[i] == ' ':
		for i < len(s) && s[i] == ' ' {
			i++
		}
	default:
		return st, false
	}
	var n int
	if st.h, n = digits(2); n == 0 || i >= len(s) || s[i] != ':' {
		return st, false
	}
	i++
	if st.mi, n = digits(2); n != 2 || i >= len(s) || s[i] != ':' {
		return st, false
	}
	i++
	if st.sec, n = digits(2); n != 2 || st.h > 23 || st.mi > 59 || st.sec > 59 {
		return st, false
	}
	if i < len(s) && (s[i] == '.' || s[i] == ',') {
		i++
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return st, false
		}
		f := s[j:i]
		if len(f) > 9 {
			f = f[:9]
		}
		st.frac, _ = strconv.ParseInt(f+strings.Repeat("0", 9-len(f)), 10, 64)
	}
	rest := strings.TrimLeft(s[i:], " ")
	if len(rest) >= 2 {
		switch strings.ToUpper(rest[:2]) {
		case "AM", "PM":
			if st.h < 1 || st.h > 12 {
				return st, false
			}
			st.h %= 12
			if rest[0] == 'P' || rest[0] == 'p' {
				st.h += 12
			}
			rest = strings.TrimLeft(rest[2:], " ")
		}
	}
	st.zone = rest
	return st, true
}

// civil returns the date's year, month and day in the given order (ignored
// for year-first and dotted dates); ok is false for no such day.
func (st *stamp) civil(order byte) (y, mo, d int, ok bool) {
	switch {
	case st.na == 4:
		y, mo, d = st.a, st.b, st.c
	case st.sep == '.' || order == orderDMY:
		d, mo, y = st.a, st.b, st.c
	case order == orderMDY:
		mo, d, y = st.a, st.b, st.c
	default:
		return 0, 0, 0, false
	}
	if st.nc == 2 && st.na != 4 { // two-digit years: 69..99 are 1969..1999, 00..68 2000..2068 (POSIX %y)
		if y < 69 {
			y += 2000
		} else {
			y += 1900
		}
	}
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) {
		return 0, 0, 0, false
	}
	return y, mo, d, true
}

// The years a date-time may have: their times, and a day either side for a
// zone, fit in int64 nanoseconds since 1970 (1677-09-21 to 2262-04-11).
const (
	minYear = 1678
	maxYear = 2261
)

// outOfRange says whether the stamp is a date whose year is past the years
// a date-time may have (the date read in order, as civil does).
func (st *stamp) outOfRange(order byte) bool {
	y, _, _, ok := st.civil(order)
	return ok && (y < minYear || y > maxYear)
}

// instant returns the stamp's time in ns since 1970 UTC: the date read in
// order, a time without a zone read as local time in z (notBefore, in
// seconds, picks between the two readings of a repeated hour). zoned says
// whether the cell had a zone.
func (st *stamp) instant(order byte, z *Zone, notBefore int64) (ns int64, zoned, ok bool) {
	ns, zoned, _, ok = st.instantIn(order, z, notBefore)
	return ns, zoned, ok
}

// instantIn is instant, saying too what Zone.toUTC found of a time without
// a zone (localPlain, localRepeat, localSkipped).
func (st *stamp) instantIn(order byte, z *Zone, notBefore int64) (ns int64, zoned bool, local int, ok bool) {
	y, mo, d, ok := st.civil(order)
	if !ok {
		return 0, false, 0, false
	}
	if y < minYear || y > maxYear {
		return 0, false, 0, false
	}
	wall := daysFromCivil(y, mo, d)*86400 + int64(st.h*3600+st.mi*60+st.sec)
	var secs int64
	if st.zone == "" {
		secs, local = z.toUTC(wall, notBefore)
	} else {
		off, ok := zoneOffset(st.zone)
		if !ok {
			return 0, true, 0, false
		}
		secs, zoned = wall-off, true
	}
	return secs*1_000_000_000 + st.frac, zoned, local, true
}

// parseDateTime reads a year-first date-time (cutStamp), no zone meaning
// UTC, in nanoseconds since 1970-01-01T00:00:00Z.
func parseDateTime(s string) (int64, bool) {
	st, ok := cutStamp(s)
	if !ok || st.na != 4 {
		return 0, false
	}
	ns, _, ok := st.instant(orderNone, UTC, 0)
	return ns, ok
}

// orderWant names the year-last form the log's dates take, for errors.
func (ct *csvTrace) orderWant() string {
	switch ct.order {
	case orderDMY:
		return " or DD/MM/YYYY HH:MM:SS"
	case orderMDY:
		return " or MM/DD/YYYY HH:MM:SS"
	}
	return ""
}

// timeCells yields the log's time cells (trimmed) with their rows'
// numbers, up to row most (0: every row), before the rows are read: the
// header, rows the scanner cannot split or too short to have the column
// (the reading proper reports them) and lines of blanks are passed over.
// The time column must be there.
func (ct *csvTrace) timeCells(most int) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		col := ct.col[colTime]
		sc := scanner{text: ct.text, comma: ct.comma}
		for num := 0; most == 0 || num <= most; num++ {
			rec, perr, ok := sc.next()
			if !ok {
				return
			}
			if perr != nil || num == 0 || col >= len(rec) {
				continue
			}
			if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
				num--
				continue
			}
			if !yield(num, strings.TrimSpace(rec[col])) {
				return
			}
		}
	}
}

// decideOrder decides the order of dates written with the year last from
// the time column of the whole log: a first number above 12 is a day (day
// first), a second one above 12 is a day (month first). Rows that say both
// or a column that says neither is an error asking for date_order.
func (ct *csvTrace) decideOrder() error {
	first := ""
	var dayRow, monthRow int
	var dayCell, monthCell string
	for num, c := range ct.timeCells(0) {
		st, ok := cutStamp(c)
		if !ok || !st.needsOrder() {
			continue
		}
		if first == "" {
			first = strings.Clone(c)
		}
		if st.a > 12 && dayRow == 0 {
			dayRow, dayCell = num, strings.Clone(c)
		}
		if st.b > 12 && monthRow == 0 {
			monthRow, monthCell = num, strings.Clone(c)
		}
		if dayRow > 0 && monthRow > 0 {
			return errorf("trace_csv: column %q: row %d's %s puts the day first, row %d's %s the month: set date_order=dmy or date_order=mdy in the trace map (workload.columns.date_order)",
				ct.header[colTime], dayRow, dayCell, monthRow, monthCell)
		}
	}
	switch {
	case dayRow > 0:
		ct.order, ct.orderHow = orderDMY, fmt.Sprintf(" DD/MM/YYYY (day first: row %d has %s)", dayRow, dayCell)
	case monthRow > 0:
		ct.order, ct.orderHow = orderMDY, fmt.Sprintf(" MM/DD/YYYY (month first: row %d has %s)", monthRow, monthCell)
	default:
		return errorf("trace_csv: column %q: dates like %s may be day/month or month/day, and no row has a day above 12 to decide: "+
			"set date_order=dmy or date_order=mdy in the trace map (workload.columns.date_order)", ct.header[colTime], first)
	}
	return nil
}
