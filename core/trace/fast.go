package trace

import (
	"math/bits"
	"unicode/utf8"

	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// The fast path: most rows of a log are plain lines (no quote, no blank
// around a cell, the names seen before, times in a unit decided), and
// Reader.fast reads such a line in one pass over its bytes, straight into
// the row, without the scanner's record or row's cells. Any other line, or
// any cell it is not sure of, it leaves unread (nothing changed) for the
// full reading (scanner.next, csvTrace.row), which words the problems: so
// a row reads the same either way, and the errors are the full reading's.

// roleEnqueue is the role of the trace format's enqueue column (a cell
// fast leaves to the full reading unless it is empty); the others are the
// trace fields (colTime...).
const roleEnqueue = numCols

// fastCol is a column fast reads: its role and its index.
type fastCol struct{ role, col uint8 }

// setFast decides whether the log's lines may be read by fast: a delimiter
// of one ASCII byte that is no blank, at most maxFastCols columns, each
// giving one field at most. The times must also be offsets in a unit
// (csvTrace.plain), which the first row decides.
func (rd *Reader) setFast() {
	ct := rd.ct
	c := ct.comma
	if c >= utf8.RuneSelf || c == '\t' || c == ' ' || c == '\r' || c == '\v' || c == '\f' || c == '"' || c == '\n' || rd.width > maxFastCols {
		return
	}
	var cols []fastCol
	seen := make([]bool, rd.width)
	add := func(role, i int) bool {
		if i >= len(seen) || seen[i] {
			return false // a column that gives two fields (a mapping may say so)
		}
		seen[i] = true
		cols = append(cols, fastCol{uint8(role), uint8(i)})
		return true
	}
	for f, i := range ct.col {
		if i >= 0 && !add(f, i) {
			return
		}
	}
	if i := ct.enq; i >= 0 && !add(roleEnqueue, i) {
		return
	}
	rd.fastCols, rd.comma = cols, byte(c)
}

// maxFastCols bounds the columns of a log that fast reads.
const maxFastCols = 32

// Words of 8 bytes, for finding a byte in 8 at once.
const (
	ones  = 0x0101010101010101
	low7s = 0x7f7f7f7f7f7f7f7f
)

// load64 is the 8 bytes of s from i, the first the lowest (one load).
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// zeros has the high bit of each byte of x that is zero, and no other bit.
func zeros(x uint64) uint64 {
	return ^((x&low7s + low7s) | x | low7s)
}

// fast reads the next line into r when it is plain and each cell of a
// field reads without a doubt; false leaves the line unread (r may be
// written). A cell no field uses only has to hold no quote: whatever else
// it holds, the full reading cuts the line in the same cells.
func (rd *Reader) fast(r *Request) bool {
	ct := rd.ct
	text, off := rd.sc.text, rd.sc.off
	if off >= len(text) {
		return false
	}
	// the delimiters up to the line's end, 8 bytes at a time: a quote is
	// the full reading's
	comma := rd.comma
	ends := &rd.ends // where each cell ends: its delimiter, the last at the line's end
	n, i, end := 0, off, len(text)
	cm, nl, qt := ones*uint64(comma), ones*uint64('\n'), ones*uint64('"')
scan:
	for ; i+8 <= len(text); i += 8 {
		w := load64(text, i)
		for m := zeros(w^cm) | zeros(w^nl) | zeros(w^qt); m != 0; m &= m - 1 {
			k := i + bits.TrailingZeros64(m)>>3
			switch text[k] {
			case comma:
				if n == len(ends)-1 {
					return false
				}
				ends[n] = k
				n++
			case '\n':
				end = k
				break scan
			default:
				return false
			}
		}
	}
	if i+8 > len(text) { // the last bytes of the text
		for ; i < len(text); i++ {
			switch text[i] {
			case comma:
				if n == len(ends)-1 {
					return false
				}
				ends[n] = i
				n++
			case '\n':
				end = i
				i = len(text)
			case '"':
				return false
			}
		}
	}
	next := len(text)
	if end < len(text) {
		next = end + 1
	}
	if end > off && text[end-1] == '\r' { // CRLF, or a CR ending the text
		end--
	}
	if end == off || n != rd.width-1 {
		return false // an empty line, or not as many cells as the header
	}
	ends[n] = end
	var cells [numCols]string // the cells of the fields the log has
	var at [numCols]int       // where each starts
	for _, fc := range rd.fastCols {
		start := off
		if fc.col > 0 {
			start = ends[fc.col-1] + 1
		}
		cell := text[start:ends[fc.col]]
		if cell == "" {
			continue
		}
		// a cell led by a blank or another character, or that may end with
		// a blank (trimmed), is the full reading's
		if c := cell[0]; c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c >= utf8.RuneSelf {
			return false
		}
		if c := cell[len(cell)-1]; c <= ' ' || c >= 0x7f {
			return false
		}
		if fc.role == roleEnqueue {
			return false
		}
		cells[fc.role], at[fc.role] = cell, start
	}
	t, ok := usec.ParsePlain(cells[colTime], ct.plainShift)
	if !ok || ct.skipBad && t < ct.lastUS {
		return false
	}
	svc, ok := ct.services.lookupAt(text, at[colService], cells[colService])
	if !ok {
		return false
	}
	origin, ok := ct.origins.lookupAt(text, at[colOrigin], cells[colOrigin])
	if !ok {
		return false
	}
	svcUS := int64(-1)
	if c := cells[colServiceMS]; c != "" {
		if svcUS, ok = usec.ParsePlain(c, ct.svcShift); !ok {
			return false
		}
	} else {
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
	prio := 0
	if c := cells[colPrio]; c != "" {
		if len(c) > 3 {
			return false
		}
		for k := 0; k < len(c); k++ {
			d := c[k] - '0'
			if d > 9 {
				return false
			}
			prio = prio*10 + int(d)
		}
		if prio < 1 || prio > 100 {
			return false
		}
	}
	if c := cells[colBufType]; c != "" && ubb.CheckBufType(c) != "" {
		return false
	}
	obsUS := int64(-1)
	if c := cells[colObserved]; c != "" {
		if obsUS, ok = usec.ParsePlain(c, ct.obsShift); !ok {
			return false
		}
	}
	rd.num++
	*r = Request{Row: rd.num, TimeUS: t, Service: svc, Origin: origin, ServiceUS: svcUS, Prio: prio, ID: cells[colID],
		Route: cells[colRoute], BufType: cells[colBufType], ObservedUS: obsUS}
	rd.sc.off = next
	rd.sc.line++
	ct.rowNum = rd.num
	ct.kept++
	ct.lastUS = t
	if ct.skipBad {
		ct.lastTxt = cells[colTime]
	}
	return true
}

// lookupAt returns the index of a name held: name, which is text from
// start. A name of 8 bytes at most is compared as one word, read from the
// text (when 8 bytes follow its start).
func (ns *names) lookupAt(text string, start int, name string) (int, bool) {
	if n := len(name); n <= 8 && start+8 <= len(text) {
		w := load64(text, start) & (1<<(8*n) - 1)
		for i, p := range ns.word {
			if p == w && len(ns.name[i]) == n {
				return ns.idx[i], true
			}
		}
		return 0, false
	}
	for i, n := range ns.name {
		if n == name {
			return ns.idx[i], true
		}
	}
	return 0, false
}

// word is the bytes of a name of 8 bytes at most, the first the lowest, as
// lookupAt reads them (0 for a longer name).
func word(name string) uint64 {
	var w uint64
	if len(name) <= 8 {
		for i := len(name) - 1; i >= 0; i-- {
			w = w<<8 | uint64(name[i])
		}
	}
	return w
}
