package core

import (
	"encoding/binary"
	"io"
	"slices"

	"github.com/tuxlb/tuxlb/core/internal/csvx"
	"github.com/tuxlb/tuxlb/core/internal/jsonx"
)

// dispatchLogHeader is the first line of the dispatch log (docs/engine.md).
const dispatchLogHeader = "id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason\n"

// dispatchLogParentHeader is the header of a run with calls or clients: a
// last column names each request's calling request.
const dispatchLogParentHeader = "id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason,parent\n"

// threadColumn is the column that follows reason in a run with a
// multithreaded instance: the thread that ran the request.
const threadColumn = ",thread"

// logChunk is how many bytes of rows the dispatch log gathers before it
// writes them, in one call, to its writer.
const logChunk = 64 << 10

// dispatchLog streams the dispatch log in issue order. Rows complete out of
// order (a request's row is complete when its reply time is known), so it
// keeps the in-flight requests in a ring in issue order and writes the
// longest complete prefix: memory is O(requests in flight).
//
// Writing the log is most of a run's cost when it is asked for, so a row is
// formatted by hand into one reused buffer: the model's names are quoted
// once, here, rather than per row, and times go through jsonx.AppendInt.
type dispatchLog struct {
	w    io.Writer
	ring []int32 // slots in issue order; its length is a power of two
	head int
	n    int
	buf  []byte // rows not yet written
	err  error

	// The model's text cells, quoted by csvx.AppendField with the commas
	// around them: services[i] is ",NAME,", origins[i] "LMID,", servers[i]
	// ",ID,QUEUE," (the instance and its queue), queues[q] ",,QUEUE," (no
	// instance), reasons[r] ",REASON\n".
	services, origins, servers, queues, reasons []string
	room                                        int  // the most bytes a row takes after its id, and 32 more
	parent                                      bool // rows end with the parent column (reasons[r] is then ",REASON")
	thread                                      bool // a thread column follows reason (reasons[r] is then ",REASON")

	seq    int64    // the issue number of the last row without an id
	seqLen int      // seqDig[:seqLen] is seq in decimal
	seqDig [48]byte // room for jsonx.AppendInt never to grow it, and for appendDigits
}

func newDispatchLog(w io.Writer, m *Model, parent bool) *dispatchLog {
	l := &dispatchLog{w: w, ring: make([]int32, 1024), buf: make([]byte, 0, logChunk+1024), parent: parent}
	for i := range m.Servers {
		l.thread = l.thread || (m.Servers[i].DispatchThreads() > 1 && !m.Servers[i].Gateway)
	}
	end := "\n"
	if parent || l.thread {
		end = ""
	}
	cells := func(n int, cell func(i int) string) []string {
		c, longest := make([]string, n), 0
		for i := range c {
			c[i] = cell(i)
			longest = max(longest, len(c[i]))
		}
		l.room += longest
		return c
	}
	l.services = cells(len(m.Services), func(i int) string { return "," + quoteCSV(m.Services[i].Name) + "," })
	l.origins = cells(len(m.Machines), func(i int) string { return quoteCSV(m.Machines[i].LMID) + "," })
	l.servers = cells(len(m.Servers), func(i int) string {
		return "," + quoteCSV(m.Servers[i].ID) + "," + quoteCSV(m.Queues[m.Servers[i].QueueIdx].Name) + ","
	})
	l.queues = cells(len(m.Queues), func(q int) string { return ",," + quoteCSV(m.Queues[q].Name) + "," })
	l.reasons = cells(len(reasons.Names), func(i int) string { return "," + reasons.Names[i] + end })
	l.room += 6*20 + 3 + 32 // 6 numbers, 3 commas, and what jsonx.AppendInt and appendDigits write past the end
	header := dispatchLogHeader
	if parent {
		header = dispatchLogParentHeader
	}
	if l.thread {
		i := len(dispatchLogHeader) - 1 // after reason
		header = header[:i] + threadColumn + header[i:]
	}
	l.buf = append(l.buf, header...)
	return l
}

// quoteCSV is s as csvx.AppendField writes it.
func quoteCSV(s string) string { return string(csvx.AppendField(nil, s)) }

// issue appends slot s to the ring (nil-safe: no log, nothing to do).
func (l *dispatchLog) issue(s int32) {
	if l == nil {
		return
	}
	if l.n == len(l.ring) {
		grown := make([]int32, 2*len(l.ring))
		for i := 0; i < l.n; i++ {
			grown[i] = l.ring[(l.head+i)&(len(l.ring)-1)]
		}
		l.ring, l.head = grown, 0
	}
	l.ring[(l.head+l.n)&(len(l.ring)-1)] = s
	l.n++
}

// done marks slot s's row complete and writes the rows that can be. Only
// the oldest row's completion can lengthen the complete prefix (after each
// flush the oldest row is incomplete), so flush runs only then.
func (l *dispatchLog) done(e *engine, s int32) {
	e.pool.at(s).done = true
	if l.ring[l.head] == s {
		l.flush(e)
	}
}

// flush writes the complete rows at the head of the ring and frees their slots.
func (l *dispatchLog) flush(e *engine) {
	b, head, n, mask := l.buf, l.head, l.n, len(l.ring)-1
	for n > 0 {
		s := l.ring[head]
		f := e.pool.at(s)
		if !f.done {
			break
		}
		b = l.appendRow(b, e, f)
		if l.thread {
			b = append(b, ',')
			if f.server >= 0 {
				b = jsonx.AppendInt(b, int64(f.thread)+1)
			}
			if !l.parent {
				b = append(b, '\n')
			}
		}
		if l.parent {
			b = append(b, ',')
			if p := e.app.slots[s].parentID; p != "" {
				b = csvx.AppendField(b, p)
			}
			b = append(b, '\n')
		}
		if len(b) >= logChunk {
			b = l.write(b)
		}
		e.free = append(e.free, s)
		head = (head + 1) & mask
		n--
	}
	l.buf, l.head, l.n = b, head, n
}

// write writes the rows in b, unless an earlier write failed, and returns b
// emptied for the next rows.
func (l *dispatchLog) write(b []byte) []byte {
	if l.err == nil {
		_, l.err = l.w.Write(b)
	}
	return b[:0]
}

// appendRow appends f's row to b.
func (l *dispatchLog) appendRow(b []byte, e *engine, f *flight) []byte {
	if f.req.ID != "" {
		b = csvx.AppendField(b, f.req.ID)
	}
	b = slices.Grow(b, l.room) // the rest of the row fits: b moves no more
	if f.req.ID == "" {
		b = l.appendSeq(b, f.req.Seq)
	}
	b = append(b, l.services[f.req.Service]...)
	b = append(b, l.origins[f.req.Origin]...)
	at := len(b)
	b = jsonx.AppendInt(b, f.req.TimeUS)
	issue := b[at:]
	switch {
	case f.queue < 0: // failed before reaching a queue: TPENOENT
		b = append(b, ",,,,,,"...)
	case f.reason.failed() && f.reason != reasonSvcFail && f.reason != reasonTime: // TPESVCERR: reached a queue, maybe started, never ended
		if f.server >= 0 { // it started on an instance of its queue
			b = append(b, l.servers[f.server]...)
		} else {
			b = append(b, l.queues[f.queue]...)
		}
		if f.reason != reasonBlock { // TPEBLOCK: its queue never had room for it
			b = jsonx.AppendInt(b, f.enqueueUS)
		}
		b = append(b, ',')
		if f.server >= 0 {
			b = jsonx.AppendInt(b, f.startUS)
		}
		b = append(b, ",,"...)
		if !f.noReply && !f.unanswered { // lost with its machine, or TPNOREPLY: no reply ever came
			b = jsonx.AppendInt(b, f.replyUS)
		}
	default:
		// the instance is one of its queue's (enter and takeNext start
		// only those): the queue is the instance's
		b = append(b, l.servers[f.server]...)
		// Times repeat (enqueue is often the issue, start the enqueue, reply
		// the end): a repeated time's digits are copied, not formatted again.
		// Written out three times: as a helper it is over the inliner's
		// budget, and a call per time costs more than the copy saves.
		at = len(b)
		if f.enqueueUS == f.req.TimeUS {
			b = appendDigits(b, issue)
		} else {
			b = jsonx.AppendInt(b, f.enqueueUS)
		}
		enqueue := b[at:]
		b = append(b, ',')
		if f.startUS == f.enqueueUS {
			b = appendDigits(b, enqueue)
		} else {
			b = jsonx.AppendInt(b, f.startUS)
		}
		b = append(b, ',')
		at = len(b)
		b = jsonx.AppendInt(b, f.endUS)
		end := b[at:]
		b = append(b, ',')
		if f.unanswered {
			// TPNOREPLY: no reply is sent
		} else if f.replyUS == f.endUS {
			if !f.noReply {
				b = appendDigits(b, end)
			}
		} else {
			b = jsonx.AppendInt(b, f.replyUS)
		}
	}
	return append(b, l.reasons[f.reason]...)
}

// appendSeq appends seq, the issue number of a row without an id, to b,
// which has room for 24 bytes more. Rows come in issue order, so seq is
// most often the last one plus 1: the last one's digits (of a positive
// number) are counted up rather than seq formatted again.
func (l *dispatchLog) appendSeq(b []byte, seq int64) []byte {
	d, next := l.seqDig[:l.seqLen], seq == l.seq+1 && seq > 0 // digits to count up
	i := len(d) - 1
	for ; next && i >= 0 && d[i] == '9'; i-- {
		d[i] = '0'
	}
	if next && i >= 0 {
		d[i]++
	} else { // not the next one, or one digit more (99 to 100)
		l.seqLen = len(jsonx.AppendInt(l.seqDig[:0], seq))
	}
	l.seq = seq
	return appendDigits(b, l.seqDig[:l.seqLen])
}

// appendDigits appends d, a number's digits earlier in b's array, to b,
// which has room for 24 bytes more: as three 8-byte words, read from
// d[:24] before any is written, inline where append would call memmove.
func appendDigits(b, d []byte) []byte {
	i, n := len(b), len(d)
	d, to := d[:24], b[i:i+24]
	w0, w1, w2 := binary.LittleEndian.Uint64(d[0:8]), binary.LittleEndian.Uint64(d[8:16]), binary.LittleEndian.Uint64(d[16:24])
	binary.LittleEndian.PutUint64(to[0:8], w0)
	binary.LittleEndian.PutUint64(to[8:16], w1)
	binary.LittleEndian.PutUint64(to[16:24], w2)
	return b[:i+n]
}

// close writes the rows still buffered and reports the first write error.
func (l *dispatchLog) close() error {
	if l == nil {
		return nil
	}
	if len(l.buf) > 0 {
		l.buf = l.write(l.buf)
	}
	return l.err
}
