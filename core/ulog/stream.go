package ulog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// reorderUS is how far back in time a file's line may be from the latest
// line before it and still be read in its place: a ULOG is appended to by
// every process of its machine, each stamping its line a moment before it
// writes it, so a file's lines are in time order but for a few
// milliseconds. A line further back (a clock set back less than the half
// hour read as summer time) is read where it is, after lines later than
// it, with a warning.
var reorderUS int64 = 60 * 1e6

// source reads one file's TRACE lines as events, in time order: each line
// read is parsed and held until the file's lines have gone reorderUS past
// it (until a line read is that much later), so that what a file holds at
// once is its last minute, not the file.
type source struct {
	lg    *Log
	file  File
	fi    int
	day   int64 // the name's day (or the other files' day), 0 without one
	dated bool  // the name gives the day (days are counted from those)
	lines *lineReader
	close io.Closer
	li    int // lines read
	// a file's lines of one host are written in time order, a few
	// milliseconds apart across its processes: a stamp more than half an
	// hour before the host's latest is its clock set back (summer time
	// ended) or the next day (a file of several days), and its lines from
	// there on are read that much later (per host: a file machines share
	// may hold one whose clock is apart)
	clocks map[string]*clockState
	held   []event // read, not yet handed on: in time order, then line order
	head   int     // held[:head] handed on
	// apart: those read further out of order than a few lines (a
	// machine's lines among another's), held apart, a heap by time then
	// line, so that each costs a step of the heap rather than a move of
	// those held after it
	apart minHeap[event]
	late  []event // read after later ones were handed on: handed on first, as read
	// latest is the earlier of the last two lines' times: not the
	// greatest read, so that a line far ahead of the others (its stamp
	// written wrong) does not hand on those held behind it
	latest, lastRead int64
	reach            int64 // the greatest latest: a line handed on is a minute before it
	lastOut          int64 // the latest time handed on
	lates            int   // lines read after later ones had been handed on
	firstUS          int64 // the first late line's time, and the latest read before it
	afterUS          int64
	lateLine         int
	eof              bool
	err              error
	traces           int            // its TRACE lines
	warnings         []string       // its own, in the order met
	malformed        malformedLines // its lines that cannot be read
	intern           map[string]string
}

// clockState is a host's clock in a file: its latest time read, what is
// added to its lines' times (the clock set back, or days), and the last
// such step and the latest time before it; prev is the latest before the
// last jump ahead of more than half an hour (-1 for none), jumpTo the
// time it jumped to, aheadLine the line that jumped and ahead the lines
// read since, at or after it, and outAt the file's latest time handed on
// when it jumped: for the warning, and to read them back, if their
// stamps turn out to be wrong.
type clockState struct {
	latest, shift, add, before, prev int64
	jumpTo, outAt                    int64
	aheadLine, ahead                 int
}

// maxBack is how far back among those held a line out of order is put in
// its place; one further back is held apart.
const maxBack = 64

// str is s as a string of its own (s is a piece of a line, which is not
// kept): each distinct name is held once.
func (s *source) str(v string) string {
	if v == "" {
		return ""
	}
	if w, ok := s.intern[v]; ok {
		return w
	}
	w := strings.Clone(v)
	s.intern[w] = w
	return w
}

// open starts reading the file.
func (s *source) open() {
	rc, err := s.file.reader()
	if err != nil {
		s.err, s.eof = err, true
		return
	}
	s.close = rc
	s.lines = newLineReader(rc)
	s.clocks = map[string]*clockState{}
	s.latest, s.lastRead, s.lastOut = -1, -1, -1
}

// ready says whether the first event held is one no line still to read
// can come before (or the file is read), reading lines until it is;
// false when nothing is held and the file is read.
func (s *source) ready() bool {
	for len(s.late) == 0 && !s.eof {
		f := s.front()
		if f != nil && f.us+reorderUS <= s.latest {
			break
		}
		s.read()
	}
	return len(s.late) > 0 || s.front() != nil
}

// front is the first event of held and apart, nil when there is none.
func (s *source) front() *event {
	var f *event
	if s.head < len(s.held) {
		f = &s.held[s.head]
	}
	if s.apart.len() > 0 && (f == nil || before(s.apart.top(), f)) {
		f = s.apart.top()
	}
	return f
}

// before orders events by time, then line.
func before(a, b *event) bool { return a.us < b.us || a.us == b.us && a.line < b.line }

// first is the first event held (ready said there is one).
func (s *source) first() *event {
	if len(s.late) > 0 {
		return &s.late[0]
	}
	return s.front()
}

// pop hands on the first event held.
func (s *source) pop() event {
	s.lg.holding--
	if len(s.late) > 0 {
		ev := s.late[0]
		s.late = s.late[1:]
		if len(s.late) == 0 {
			s.late = nil
		}
		return ev
	}
	if s.apart.len() > 0 && (s.head == len(s.held) || before(s.apart.top(), &s.held[s.head])) {
		ev := s.apart.pop()
		s.lastOut = max(s.lastOut, ev.us)
		return ev
	}
	ev := s.held[s.head]
	s.held[s.head] = event{}
	s.head++
	if s.head == len(s.held) {
		s.held, s.head = s.held[:0], 0
	} else if s.head > 4096 && s.head*2 > len(s.held) {
		n := copy(s.held, s.held[s.head:])
		clear(s.held[n:])
		s.held, s.head = s.held[:n], 0
	}
	s.lastOut = max(s.lastOut, ev.us)
	return ev
}

// read reads the next line, holding its event, if any, in its place.
func (s *source) read() {
	line, err := s.lines.next()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			s.err = fmt.Errorf("%s: line %d: %w", s.file.Name, s.li+1, err)
		}
		s.eof = true
		if s.close != nil {
			s.close.Close()
		}
		s.lines = nil
		return
	}
	li := s.li
	s.li++
	lg := s.lg
	lg.Lines++
	if n := s.lines.over; n > 0 {
		// no ULOG line is that long: a TRACE line among its bytes is
		// malformed, the rest is no TRACE line
		if bytes.Contains(line, []byte("TRACE:")) {
			lg.TraceLines++
			s.traces++
			s.malformed.add(s.file.Name, li+1, fmt.Sprintf("a line of %d bytes, longer than a ULOG's (%d at most are read)", n, maxLine))
		}
		return
	}
	if li == 0 {
		// a byte-order mark (a file saved by an editor on Windows) is no
		// part of the first line's stamp
		line = bytes.TrimPrefix(line, []byte("\ufeff"))
	}
	line = bytes.TrimRight(line, "\r")
	at := bytes.Index(line, []byte("TRACE:"))
	if at < 0 {
		return
	}
	lg.TraceLines++
	s.traces++
	ev, why := parseLine(string(line), at)
	if why != "" {
		s.malformed.add(s.file.Name, li+1, why)
		return
	}
	if ev.ignored {
		lg.Ignored++
		return
	}
	if ev.fn == "" {
		return // a TRACE line of another kind
	}
	ev.host, ev.proc = s.str(ev.host), s.str(ev.proc) // the thread's is the walk's to keep
	ev.fn, ev.svc, ev.fail = s.str(ev.fn), s.str(ev.svc), s.str(ev.fail)
	cs := s.clocks[ev.host]
	if cs == nil {
		cs = &clockState{latest: -1, prev: -1}
		s.clocks[ev.host] = cs
	}
	ev.us += s.day + cs.shift
	if pre := ev.us - cs.add; cs.add > 0 && ev.us-cs.latest > halfHourUS && pre >= cs.before-reorderUS && pre <= cs.before+reorderUS {
		// stamped before the clock was set back, written after a line
		// stamped after (processes stamp their lines a moment before
		// writing them): read in its place before the step, not a step
		// ahead (whence the next line would look set back once more)
		ev.us = pre
	}
	if back := cs.latest - ev.us; cs.latest >= 0 && back > halfHourUS && cs.prev >= 0 {
		// the latest lines jumped far ahead of those before them, and
		// this one is back with those, as far on as the lines ahead ran:
		// their stamps were written wrong (or their clock was ahead, and
		// put right), not the clock set back (read as such, every later
		// line of the host would have been read a day or hours later)
		if on := cs.prev + (cs.latest - cs.jumpTo); ev.us >= on-reorderUS && ev.us <= on+reorderUS {
			// read back by the jump, in their place among the others: an
			// execution they open or close is timed as it ran (read at
			// their stamps, it took hours); those handed on already (a
			// run of lines ahead longer than a minute) stay as read
			jump := cs.jumpTo - cs.prev
			kept := cs.ahead - s.retime(ev.host, int32(cs.aheadLine), cs.jumpTo-reorderUS, jump)
			var w string
			if cs.ahead == 1 {
				w = fmt.Sprintf("%s:%d: a line of %s stamped %s, far ahead of those around it (%s): read at %s, with them (its stamp written wrong?), the clock not taken as set back",
					s.file.Name, cs.aheadLine, ev.host, clock(cs.latest), clock(cs.prev), clock(cs.latest-jump))
			} else {
				w = fmt.Sprintf("%s:%d: %d lines of %s from there stamped %s to %s, far ahead of those before and after them (%s, %s): read %s earlier, with them (their stamps written wrong, or the clock ahead and put right?), the clock not taken as set back",
					s.file.Name, cs.aheadLine, cs.ahead, ev.host, clock(cs.jumpTo), clock(cs.latest), clock(cs.prev), clock(ev.us), time.Duration(jump)*time.Microsecond)
			}
			if kept > 0 {
				w += fmt.Sprintf(" (%d of them, handed on already, at their stamps)", kept)
				// the lines after them are not behind those: they are
				// read in time order, not as late
				s.lastOut = cs.outAt
			}
			s.warnings = append(s.warnings, w)
			cs.latest, cs.prev = cs.prev, -1
		}
	}
	if back := cs.latest - ev.us; cs.latest >= 0 && back > halfHourUS {
		add := (back + halfHourUS/2) / halfHourUS * halfHourUS // summer time: an hour (half an hour in a few zones)
		why := "the clock set back (summer time ended?)"
		if back > 12*2*halfHourUS {
			add, why = dayUS, "the next day (a file of several days?)"
		}
		cs.shift += add
		cs.add, cs.before = add, cs.latest
		ev.us += add
		s.warnings = append(s.warnings, fmt.Sprintf("%s:%d: the time goes back from %s to %s: read as %s, this line and those of %s after it %s later",
			s.file.Name, li+1, clock(cs.latest), clock(ev.us-add), why, ev.host, time.Duration(add)*time.Microsecond))
	}
	switch {
	case cs.latest >= 0 && ev.us-cs.latest > halfHourUS:
		// far ahead of the latest: its stamp, and those of the lines
		// after it, may be wrong
		cs.aheadLine, cs.prev, cs.jumpTo, cs.ahead, cs.outAt = li+1, cs.latest, ev.us, 1, s.lastOut
	case cs.prev >= 0 && ev.us >= cs.jumpTo-reorderUS:
		cs.ahead++
	}
	cs.latest = max(cs.latest, ev.us)
	ev.file, ev.line = int32(s.fi), int32(li+1)
	if s.dated && (!lg.days[s.day] || !lg.hostDays[ev.host][s.day]) {
		lg.days[s.day] = true
		if lg.hostDays[ev.host] == nil {
			lg.hostDays[ev.host] = map[int64]bool{}
		}
		lg.hostDays[ev.host][s.day] = true
	}
	if !ev.millis {
		lg.Millis = false
		lg.WholeSecondLines++
		if p := ev.host + "!" + ev.proc; !slices.Contains(lg.wholeProcs, p) {
			lg.wholeProcs = append(lg.wholeProcs, p)
		}
	}
	before := max(s.reach, s.lastRead) // the latest line read before this one, at least a minute past what was handed on
	s.latest, s.lastRead = min(ev.us, s.lastRead), ev.us
	s.reach = max(s.reach, s.latest)
	lg.holding++
	lg.held = max(lg.held, lg.holding)
	if ev.us < s.lastOut {
		// behind a line handed on already: read where it is, before
		// those held (all at or after the line handed on). A line is
		// handed on once one read is reorderUS past it, so this one is
		// more than that behind the latest read, the time its warning
		// gives (the line handed on may be only a moment after it)
		if s.lates == 0 {
			s.firstUS, s.afterUS, s.lateLine = ev.us, before, li+1
		}
		s.lates++
		s.late = append(s.late, ev)
		return
	}
	// in its place among those held: after the last one not later
	// (almost always the last, else a few before it); further back, apart
	i := len(s.held)
	for i > s.head && i > len(s.held)-maxBack && s.held[i-1].us > ev.us {
		i--
	}
	if i > s.head && s.held[i-1].us > ev.us {
		s.apart.push(ev)
		return
	}
	s.held = slices.Insert(s.held, i, ev)
}

// retime moves back by jump the lines of host from line from on, stamped
// at or after atLeast, that are still held: a run of lines found stamped
// far ahead. They are the latest held, so the last ones of held (those of
// other hosts read meanwhile are earlier, before them); each goes apart,
// in its place by its new time. It returns how many it moved.
func (s *source) retime(host string, from int32, atLeast, jump int64) int {
	i := len(s.held)
	for i > s.head {
		e := &s.held[i-1]
		if e.host != host || e.line < from || e.us < atLeast {
			break
		}
		i--
	}
	n := len(s.held) - i
	for j := i; j < len(s.held); j++ {
		ev := s.held[j]
		ev.us -= jump
		s.apart.push(ev)
		s.held[j] = event{}
	}
	s.held = s.held[:i]
	return n
}

// lateWarning says how many of the file's lines came too late for their
// place.
func (s *source) lateWarning() string {
	if s.lates == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: %d TRACE lines are more than %s behind a line before them in the file (the first at %s, after %s): read where they are, not in time order "+
		"(machines' or days' files joined into one? give each its own --ulog; or a clock set back a few minutes)",
		s.file.Name, s.lateLine, s.lates, time.Duration(reorderUS)*time.Microsecond, clock(s.firstUS), clock(s.afterUS))
}

// merge hands on the files' events in time order (a time's events in the
// files' order, then in their lines'), opening a file whose name gives its
// day only when the events reach that day.
type merge struct {
	srcs  []*source
	queue minHeap[mergeItem] // the sources' first events, or a day not yet opened
}

type mergeItem struct {
	us     int64
	opened bool
	src    *source
}

func (a *mergeItem) less(b *mergeItem) bool {
	if a.us != b.us {
		return a.us < b.us
	}
	if a.opened != b.opened {
		return !a.opened // a file to open first: its lines may be at that time
	}
	return a.src.fi < b.src.fi
}

func newMerge(srcs []*source) *merge {
	m := &merge{srcs: srcs, queue: minHeap[mergeItem]{less: (*mergeItem).less}}
	for _, s := range srcs {
		m.queue.push(mergeItem{us: s.day, src: s}) // no line of it is before its day
	}
	return m
}

// next is the next event; false when every file is read.
func (m *merge) next() (event, bool) {
	for m.queue.len() > 0 {
		it := m.queue.pop()
		s := it.src
		if !it.opened {
			s.open()
			if s.ready() {
				m.queue.push(mergeItem{us: s.first().us, opened: true, src: s})
			}
			continue
		}
		ev := s.pop()
		if s.ready() {
			m.queue.push(mergeItem{us: s.first().us, opened: true, src: s})
		}
		return ev, true
	}
	return event{}, false
}

// minHeap is a binary heap, the least of its items by less on top.
type minHeap[T any] struct {
	items []T
	less  func(a, b *T) bool
}

func (h *minHeap[T]) len() int { return len(h.items) }
func (h *minHeap[T]) top() *T  { return &h.items[0] }

func (h *minHeap[T]) push(x T) {
	q := append(h.items, x)
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(&q[i], &q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
	h.items = q
}

func (h *minHeap[T]) pop() T {
	q := h.items
	x := q[0]
	n := len(q) - 1
	q[0] = q[n]
	var zero T
	q[n] = zero // (what it points to let go)
	q = q[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && h.less(&q[l], &q[m]) {
			m = l
		}
		if r := l + 1; r < n && h.less(&q[r], &q[m]) {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	h.items = q
	return x
}

// maxLine is the most of a line that is read: a ULOG's lines are a few
// hundred bytes; a longer one (binary data, a file that is no ULOG, a
// message of another application) is read up to it, the rest of it passed
// over, so that a file of one line of gigabytes holds a megabyte.
const maxLine = 1 << 20

// lineReader reads lines, without their "\n", up to maxLine bytes of
// each; a line is valid until the next.
type lineReader struct {
	r    *bufio.Reader
	long []byte
	// over: the last line's length when it was longer than maxLine
	// (only its first maxLine bytes read), else 0
	over int64
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

func (lr *lineReader) next() ([]byte, error) {
	lr.over = 0
	line, err := lr.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], line...)
		n := int64(len(line))
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = lr.r.ReadSlice('\n')
			n += int64(len(line))
			if room := maxLine - len(lr.long); room > 0 {
				lr.long = append(lr.long, line[:min(room, len(line))]...)
			}
		}
		if bytes.HasSuffix(line, []byte("\n")) {
			n--
		}
		if n > maxLine {
			lr.over = n
		}
		line = lr.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(line) == 0 && err != nil {
		return nil, io.EOF
	}
	return bytes.TrimSuffix(line, []byte("\n")), nil
}

// size is the file's length in bytes.
func (f File) size() int64 {
	if f.Open != nil {
		return f.Size
	}
	return int64(len(f.Text))
}

// reader opens the file.
func (f File) reader() (io.ReadCloser, error) {
	if f.Open == nil {
		return io.NopCloser(strings.NewReader(f.Text)), nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	return rc, nil
}

// firstLine is the file's first line, up to 4 KB of it.
func (f File) firstLine() (string, error) {
	if f.Open == nil {
		l, _, _ := strings.Cut(f.Text[:min(len(f.Text), 4096)], "\n")
		return l, nil
	}
	rc, err := f.reader()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	buf := make([]byte, 4096)
	n, err := io.ReadFull(rc, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", fmt.Errorf("%s: %w", f.Name, err)
	}
	l, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	return string(l), nil
}

// startOf compares the texts of a and b: 0 when they are the same, 1 when
// b's is the start of a's, 2 when a's is the start of b's, -1 when neither
// is the other's or its start. The
// sizes are not trusted to tell which is longer (a gzipped file's is its
// last member's): the texts are read side by side.
func startOf(a, b File) (int, error) {
	if a.Open == nil && b.Open == nil {
		switch {
		case a.Text == b.Text:
			return 0, nil
		case strings.HasPrefix(a.Text, b.Text):
			return 1, nil
		case strings.HasPrefix(b.Text, a.Text):
			return 2, nil
		}
		return -1, nil
	}
	ra, err := a.reader()
	if err != nil {
		return -1, err
	}
	defer ra.Close()
	rb, err := b.reader()
	if err != nil {
		return -1, err
	}
	defer rb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, erra := io.ReadFull(ra, ba)
		nb, errb := io.ReadFull(rb, bb)
		for _, e := range []struct {
			name string
			err  error
		}{{a.Name, erra}, {b.Name, errb}} {
			if e.err != nil && !errors.Is(e.err, io.EOF) && !errors.Is(e.err, io.ErrUnexpectedEOF) {
				return -1, fmt.Errorf("%s: %w", e.name, e.err)
			}
		}
		n := min(na, nb)
		switch {
		case !bytes.Equal(ba[:n], bb[:n]):
			return -1, nil
		case na == nb && na < len(ba):
			return 0, nil // both ended
		case nb < na:
			return 1, nil // b ended within a
		case na < nb:
			return 2, nil // a ended within b
		}
	}
}
