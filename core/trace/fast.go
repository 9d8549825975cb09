package trace

import (
	"unicode/utf8"

	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// The fast path: most rows of a log are plain lines (no quote, no blank
// around a cell, the names seen before, times in a unit decided), and
// Reader.fast reads such a line in one pass over its bytes, cell by cell
// in the header's order, straight into the row: a time's digits summed as
// they are read, a name matched where it stands against the names held
// (as one word when it has 8 bytes at most), with no record of cells and
// no string per cell. Any other line, or any cell it is not sure of, it
// leaves unread (nothing changed) for the full reading (scanner.next,
// csvTrace.row), which words the problems: so a row reads the same either
// way, and the errors are the full reading's.

// The roles of a column (Reader.roles): a trace field (colTime...), or one
// of these.
const (
	roleIgnored = numCols + iota // a log's column no field uses
	roleEnqueue                  // the trace format's enqueue column
)

// setFast decides whether the log's lines may be read by fast: a delimiter
// of one ASCII byte that is no blank, each column giving one field at
// most. The times must also be offsets in a unit (csvTrace.plain), which
// the first row decides.
func (rd *Reader) setFast() {
	ct := rd.ct
	c := ct.comma
	if c >= utf8.RuneSelf || c == '\t' || c == ' ' || c == '\r' || c == '\v' || c == '\f' || c == '"' || c == '\n' {
		return
	}
	roles := make([]uint8, rd.width)
	for i := range roles {
		roles[i] = roleIgnored
	}
	for f, i := range ct.col {
		if i < 0 {
			continue
		}
		if i >= len(roles) || roles[i] != roleIgnored {
			return // a column that gives two fields (a mapping may say so)
		}
		roles[i] = uint8(f)
	}
	if i := ct.enq; i >= 0 {
		if i >= len(roles) || roles[i] != roleIgnored {
			return
		}
		roles[i] = roleEnqueue
	}
	rd.roles, rd.comma = roles, byte(c)
	ct.services.comma, ct.origins.comma = c, c
	rd.tso = len(roles) == 3 && roles[0] == colTime && roles[1] == colService && roles[2] == colOrigin
}

// fastTSO is fast for the trace format's three columns, time_ms, service
// and origin, the most common of logs: the same reading without the
// columns' loop.
func (rd *Reader) fastTSO(r *Request) bool {
	ct := rd.ct
	text, start := rd.sc.text, rd.sc.off
	comma := rd.comma
	t, i, ok := plainAt(text, start, ct.plainShift)
	if !ok || i >= len(text) || text[i] != comma {
		return false
	}
	svc, i, ok := ct.services.match(text, i+1, comma)
	if !ok || i >= len(text) || text[i] != comma {
		return false
	}
	origin, i, ok := ct.origins.match(text, i+1, comma)
	if !ok {
		return false
	}
	switch {
	case i == len(text):
	case text[i] == '\n':
		i++
	case text[i] == '\r' && (i+1 == len(text) || text[i+1] == '\n'): // a CR ending the text, or CRLF
		i = min(i+2, len(text))
	default:
		return false
	}
	if svc >= len(rd.timed) || rd.timed[svc] != 1 { // a service time needed, or not asked yet (fast asks)
		return false
	}
	rd.num++
	if r.ID != "" || r.Route != "" || r.BufType != "" { // (stores of strings cost more than tests)
		r.ID, r.Route, r.BufType = "", "", ""
	}
	r.Row, r.TimeUS, r.Service, r.Origin, r.ServiceUS, r.Prio, r.ObservedUS, r.Queue, r.Status = rd.num, t, svc, origin, -1, 0, -1, 0, StatusOK
	rd.sc.off = i
	rd.sc.line++
	ct.rowNum = rd.num
	ct.kept++
	return true
}

// fast reads the next line into r when it is plain and each of its cells
// reads without a doubt; false leaves the line unread (r may be written).
// A cell no field uses only has to hold no quote: whatever else it holds,
// the full reading cuts the line in the same cells.
func (rd *Reader) fast(r *Request) bool {
	// the row is read into r as it goes (its fields, not values held
	// across the calls), times and indexes -1 until read
	*r = Request{Row: rd.num + 1, TimeUS: -1, Service: -1, Origin: -1, ServiceUS: -1, ObservedUS: -1}
	ct := rd.ct
	text, i := rd.sc.text, rd.sc.off
	last := len(rd.roles) - 1
	for col, role := range rd.roles {
		start, j, ok := i, i, true
		switch role {
		case colTime:
			r.TimeUS, j, ok = plainAt(text, i, ct.plainShift)
		case colServiceMS:
			if r.ServiceUS, j, ok = plainAt(text, i, ct.svcShift); j == i {
				r.ServiceUS, ok = -1, true // none given (or no number: the cell's end says)
			}
		case colObserved:
			if r.ObservedUS, j, ok = plainAt(text, i, ct.obsShift); j == i {
				r.ObservedUS, ok = -1, true
			}
		case colService:
			r.Service, j, ok = ct.services.match(text, i, rd.comma)
		case colOrigin:
			r.Origin, j, ok = ct.origins.match(text, i, rd.comma)
		default: // an ignored column, prio, id, route, buftype, status
			j, ok = cellEnd(text, i, rd.comma)
		}
		if !ok {
			return false
		}
		// the cell ends at j: with a delimiter, or the last with the line
		if col < last {
			if j >= len(text) || text[j] != rd.comma {
				return false
			}
			i = j + 1
		} else {
			cut := j
			switch {
			case j == len(text):
				i = j
			case text[j] == '\n':
				i = j + 1
			case text[j] == '\r' && j+1 == len(text): // a CR ending the text
				i = j + 1
			case text[j] == '\r' && text[j+1] == '\n': // CRLF
				i = j + 2
			default:
				return false
			}
			if j > start && text[j-1] == '\r' {
				cut = j - 1 // the CR before the line's end is the line's
			}
			j = cut
		}
		if role < colPrio || role == colObserved || role == roleIgnored || j == start {
			continue
		}
		cell := text[start:j]
		// a cell led by a blank or another character, or that may end with
		// a blank (trimmed), is the full reading's
		if c := cell[0]; c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c >= utf8.RuneSelf {
			return false
		}
		if c := cell[len(cell)-1]; c <= ' ' || c >= 0x7f {
			return false
		}
		switch role {
		case colPrio:
			if r.Prio, ok = plainPrio(cell); !ok {
				return false
			}
		case colID:
			r.ID = cell
		case colRoute:
			r.Route = cell
		case colBufType:
			if ubb.CheckBufType(cell) != "" {
				return false
			}
			r.BufType = cell
		case colStatus:
			if r.Status, ok = ReadStatus(cell, ct.statusCol); !ok {
				return false
			}
		default: // an enqueue
			return false
		}
	}
	if i == rd.sc.off || r.TimeUS < 0 || r.Service < 0 {
		return false // an empty line, no time, no service
	}
	if r.Origin < 0 { // none given: the default origin, if the names held have it
		var ok bool
		if r.Origin, ok = ct.origins.lookup(""); !ok {
			return false
		}
	}
	if r.ServiceUS < 0 {
		svc := r.Service
		if svc >= len(rd.timed) {
			rd.timed = append(rd.timed, make([]uint8, svc+1-len(rd.timed))...)
		}
		if rd.timed[svc] == 0 { // Untimed, asked once a service
			rd.timed[svc] = 1
			if ct.n.Untimed(svc) != "" {
				rd.timed[svc] = 2
			}
		}
		if rd.timed[svc] != 1 {
			return false
		}
	}
	rd.num++
	rd.sc.off = i
	rd.sc.line++
	ct.rowNum = rd.num
	ct.kept++
	return true
}

// cellEnd finds the end of a cell from i: the next delimiter or line end;
// false at a quote.
func cellEnd(text string, i int, comma byte) (int, bool) {
	for ; i < len(text); i++ {
		switch text[i] {
		case comma, '\n':
			return i, true
		case '"':
			return i, false
		}
	}
	return i, true
}

// plainAt reads the time written from i as digits with at most one point,
// times 10^shift, as usec.ParsePlain reads it, summing the digits as it
// goes; it returns where the digits end. ok is false where ParsePlain
// gives no value (the full reading words why).
func plainAt(text string, i, shift int) (us int64, end int, ok bool) {
	start := i
	var n uint64
	for ; i < len(text); i++ {
		d := uint64(text[i]) - '0'
		if d > 9 {
			break
		}
		n = n*10 + d
	}
	digits, frac := i-start, 0
	if i < len(text) && text[i] == '.' {
		i++
		k := i
		for ; i < len(text); i++ {
			d := uint64(text[i]) - '0'
			if d > 9 {
				break
			}
			n = n*10 + d
		}
		frac = i - k
		digits += frac
	}
	if digits == 0 || digits > 18 || uint(shift) >= uint(len(pow10)) {
		return 0, i, false
	}
	v := int64(n)
	e := shift - frac // value = n × 10^e
	if e >= 0 {
		if v > maxTimes[e] {
			return 0, i, false
		}
		return v * pow10[e], i, true
	}
	q := pow10[-e]
	u := v / q
	if 2*(v-u*q) >= q {
		u++
	}
	if u > usec.Max {
		return 0, i, false
	}
	return u, i, true
}

// Powers of ten, and the largest value each keeps within usec.Max.
var (
	pow10    [19]int64
	maxTimes [19]int64
)

func init() {
	pow10[0] = 1
	for e := 1; e < len(pow10); e++ {
		pow10[e] = pow10[e-1] * 10
	}
	for e, p := range pow10 {
		maxTimes[e] = usec.Max / p
	}
}

// plainPrio reads a priority written as 1 to 3 digits, 1 to 100; ok is
// false for any other text (the full reading words it).
func plainPrio(c string) (int, bool) {
	if len(c) > 3 {
		return 0, false
	}
	p := 0
	for k := 0; k < len(c); k++ {
		d := c[k] - '0'
		if d > 9 {
			return 0, false
		}
		p = p*10 + int(d)
	}
	return p, p >= 1 && p <= 100
}

// load64 is the 8 bytes of s from i, the first the lowest (one load).
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// match finds the name held that text has from i, a whole cell (a
// delimiter, a line end or the text's end after it); it returns its index
// and where the cell ends. A name of 8 bytes at most is compared as one
// word (when 8 bytes follow i); others, and a cell of no name matched so,
// are cut at their end and looked up. ok is false when no name held is the
// cell (its full reading may resolve it, or word why not).
func (ns *names) match(text string, i int, comma byte) (idx, end int, ok bool) {
	if i+8 <= len(text) {
		w := load64(text, i)
		for k := range ns.words {
			nw := &ns.words[k]
			if w&nw.mask != nw.word {
				continue
			}
			j := i + nw.n
			if j == len(text) || text[j] == comma || text[j] == '\n' || text[j] == '\r' {
				return nw.idx, j, true
			}
		}
	}
	j, ok := cellEnd(text, i, comma)
	if !ok {
		return 0, j, false
	}
	if j > i && text[j-1] == '\r' && (j == len(text) || text[j] == '\n') {
		return 0, j, false // a CR that may be the line's end: the full reading's
	}
	idx, ok = ns.lookup(text[i:j])
	return idx, j, ok
}

// lookup returns the index of a name held.
func (ns *names) lookup(name string) (int, bool) {
	for i, n := range ns.name {
		if n == name {
			return ns.idx[i], true
		}
	}
	return 0, false
}

// nameWord is a name held as match compares it: its bytes as one word,
// their mask, its length and its index.
type nameWord struct {
	word, mask uint64
	n, idx     int
}

// wordOf is a name's bytes as one word, the first the lowest, the mask of
// its bytes and its length, for match; a length of -1 (never matched as a
// word) for a name longer than 8 bytes, or one holding a byte that a plain
// cell cannot (a quote, a delimiter, a line end: the name came from a
// quoted cell).
func wordOf(name string, comma rune) (w, mask uint64, n int) {
	if len(name) > 8 {
		return 0, 0, -1
	}
	for i := len(name) - 1; i >= 0; i-- {
		c := name[i]
		if c == '"' || c == '\n' || c == '\r' || rune(c) == comma {
			return 0, 0, -1
		}
		w, mask = w<<8|uint64(c), mask<<8|0xff
	}
	return w, mask, len(name)
}
