package core

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// dispatchLogHeader is the first line of the dispatch log (docs/engine.md).
const dispatchLogHeader = "id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason\n"

// dispatchLog streams the dispatch log in issue order. Rows complete out of
// order (a request's row is complete when its reply time is known), so it
// keeps the in-flight requests in a ring in issue order and writes the
// longest complete prefix: memory is O(requests in flight).
type dispatchLog struct {
	w    *bufio.Writer
	ring []int32 // slots in issue order
	head int
	n    int
	buf  []byte
	err  error
}

func newDispatchLog(w io.Writer) *dispatchLog {
	l := &dispatchLog{w: bufio.NewWriterSize(w, 64<<10), ring: make([]int32, 1024), buf: make([]byte, 0, 256)}
	_, l.err = l.w.WriteString(dispatchLogHeader)
	return l
}

// issue appends slot s to the ring (nil-safe: no log, nothing to do).
func (l *dispatchLog) issue(s int32) {
	if l == nil {
		return
	}
	if l.n == len(l.ring) {
		grown := make([]int32, 2*len(l.ring))
		for i := 0; i < l.n; i++ {
			grown[i] = l.ring[(l.head+i)%len(l.ring)]
		}
		l.ring, l.head = grown, 0
	}
	l.ring[(l.head+l.n)%len(l.ring)] = s
	l.n++
}

// flush writes the complete rows at the head of the ring and frees their slots.
func (l *dispatchLog) flush(e *engine) {
	for l.n > 0 {
		s := l.ring[l.head]
		f := e.pool.at(s)
		if !f.done {
			return
		}
		l.write(e, f)
		e.free = append(e.free, s)
		l.head = (l.head + 1) % len(l.ring)
		l.n--
	}
}

// write formats one row into the reused buffer.
func (l *dispatchLog) write(e *engine, f *flight) {
	if l.err != nil {
		return
	}
	b := l.buf[:0]
	if f.req.ID != "" {
		b = appendCSVField(b, f.req.ID)
	} else {
		b = strconv.AppendInt(b, f.req.Seq, 10)
	}
	b = append(b, ',')
	b = appendCSVField(b, e.m.Services[f.req.Service].Name)
	b = append(b, ',')
	b = appendCSVField(b, e.m.Machines[f.req.Origin].LMID)
	b = append(b, ',')
	b = strconv.AppendInt(b, f.req.TimeUS, 10)
	switch {
	case f.queue < 0: // failed before reaching a queue: TPENOENT
		b = append(b, ",,,,,,,"...)
	case f.reason.failed(): // TPESVCERR: reached a queue, maybe started, never ended
		b = append(b, ',')
		if f.server >= 0 {
			b = append(b, e.m.Servers[f.server].ID...)
		}
		b = append(b, ',')
		b = append(b, e.m.Queues[f.queue].Name...)
		b = append(b, ',')
		b = strconv.AppendInt(b, f.enqueueUS, 10)
		b = append(b, ',')
		if f.server >= 0 {
			b = strconv.AppendInt(b, f.startUS, 10)
		}
		b = append(b, ",,"...)
		b = strconv.AppendInt(b, f.replyUS, 10)
		b = append(b, ',')
	default:
		b = append(b, ',')
		b = appendCSVField(b, e.m.Servers[f.server].ID)
		b = append(b, ',')
		b = appendCSVField(b, e.m.Queues[f.queue].Name)
		for _, t := range [...]int64{f.enqueueUS, f.startUS, f.endUS, f.replyUS} {
			b = append(b, ',')
			b = strconv.AppendInt(b, t, 10)
		}
		b = append(b, ',')
	}
	b = append(b, f.reason.String()...)
	b = append(b, '\n')
	_, l.err = l.w.Write(b)
	l.buf = b
}

// close flushes the buffered rows and reports the first write error.
func (l *dispatchLog) close() error {
	if l == nil {
		return nil
	}
	if l.err != nil {
		return l.err
	}
	return l.w.Flush()
}

// appendCSVField appends text cell s, quoted as RFC 4180 wants when it needs
// to be. A cell that starts with =, +, -, @, a tab or a carriage return gets
// a leading apostrophe, so that a spreadsheet opening the log shows it as
// text instead of running it as a formula (CSV injection).
func appendCSVField(b []byte, s string) []byte {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		s = "'" + s
	}
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	return append(b, '"')
}
