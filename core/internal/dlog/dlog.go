// Package dlog writes the dispatch log's rows (docs/engine.md, "The
// dispatch log"): one CSV row a request from plain values ([Row]), the
// model's names quoted once when the log starts ([New]), the rows gathered
// into chunks of [Chunk] bytes before they reach the writer. The engine
// decides which cells a request has; the order of the rows (issue order,
// a row written once it is complete) is the engine's too.
package dlog

import (
	"encoding/binary"
	"io"
	"slices"

	"github.com/tuxlb/tuxlb/core/internal/csvx"
	"github.com/tuxlb/tuxlb/core/internal/jsonx"
)

// Header is the first line of the dispatch log.
const Header = "id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason\n"

// ParentHeader is the header of a run with calls or clients: a last column
// names each request's calling request.
const ParentHeader = "id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason,parent\n"

// threadColumn is the column that follows reason in a run with a
// multithreaded instance: the thread that ran the request.
const threadColumn = ",thread"

// Chunk is how many bytes of rows the log gathers before it writes them,
// in one call, to its writer.
const Chunk = 64 << 10

// Names are the model's names a row shows, by index: services, machines
// (a row's origin), instances (Servers, each with its queue's name), queues
// and dispatch reasons.
type Names struct {
	Services, Machines []string
	Servers            [][2]string // the instance's ID and its queue's name
	Queues, Reasons    []string
}

// Row is one request's row. Which cells it has is the engine's to say:
// Queue < 0 leaves the server, the queue and every time after the issue
// empty; else Server < 0 names the queue alone, and Has says which times
// after the issue are written.
type Row struct {
	ID     string // the request's id, or "" for its issue number Seq
	Seq    int64
	Parent string // the calling request's id (a run with the parent column)

	Service, Origin, Queue, Server, Thread int32 // Thread: the instance's thread, from 0, or -1
	Reason, Has                            uint8 // Has: Enqueue | Start | End | Reply, the times written

	IssueUS, EnqueueUS, StartUS, EndUS, ReplyUS int64
}

// The bits of Row.Has.
const (
	Enqueue uint8 = 1 << iota
	Start
	End
	Reply
	All = Enqueue | Start | End | Reply
)

// Log writes rows to its writer. Writing the log is most of a run's cost
// when it is asked for, so a row is formatted by hand into one reused
// buffer: the model's names are quoted once, in New, rather than per row,
// and times go through jsonx.AppendInt.
type Log struct {
	w   io.Writer
	buf []byte // rows not yet written
	err error

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

// New starts a log on w with its header: parent adds the parent column,
// thread the thread column.
func New(w io.Writer, n Names, parent, thread bool) *Log {
	l := &Log{w: w, buf: make([]byte, 0, Chunk+1024), parent: parent, thread: thread}
	end := "\n"
	if parent || thread {
		end = ""
	}
	cells := func(count int, cell func(i int) string) []string {
		c, longest := make([]string, count), 0
		for i := range c {
			c[i] = cell(i)
			longest = max(longest, len(c[i]))
		}
		l.room += longest
		return c
	}
	l.services = cells(len(n.Services), func(i int) string { return "," + quote(n.Services[i]) + "," })
	l.origins = cells(len(n.Machines), func(i int) string { return quote(n.Machines[i]) + "," })
	l.servers = cells(len(n.Servers), func(i int) string { return "," + quote(n.Servers[i][0]) + "," + quote(n.Servers[i][1]) + "," })
	l.queues = cells(len(n.Queues), func(q int) string { return ",," + quote(n.Queues[q]) + "," })
	l.reasons = cells(len(n.Reasons), func(i int) string { return "," + n.Reasons[i] + end })
	l.room += 6*20 + 3 + 32 // 6 numbers, 3 commas, and what jsonx.AppendInt and appendDigits write past the end
	header := Header
	if parent {
		header = ParentHeader
	}
	if thread {
		i := len(Header) - 1 // after reason
		header = header[:i] + threadColumn + header[i:]
	}
	l.buf = append(l.buf, header...)
	return l
}

// quote is s as csvx.AppendField writes it.
func quote(s string) string { return string(csvx.AppendField(nil, s)) }

// Append adds r's row, and writes the rows gathered once they reach Chunk
// bytes. Times repeat (enqueue is often the issue, start the enqueue, reply
// the end): a repeated time's digits are copied, not formatted again (last
// holds the digits of lastUS, the last time written).
func (l *Log) Append(r *Row) {
	b := l.buf
	if r.ID != "" {
		b = csvx.AppendField(b, r.ID)
	}
	b = slices.Grow(b, l.room) // the rest of the row fits: b moves no more
	if r.ID == "" {
		b = l.appendSeq(b, r.Seq)
	}
	b = append(b, l.services[r.Service]...)
	b = append(b, l.origins[r.Origin]...)
	at := len(b)
	b = jsonx.AppendInt(b, r.IssueUS)
	last, lastUS := b[at:], r.IssueUS
	switch {
	case r.Queue < 0:
		b = append(b, ",,,"...)
	case r.Server >= 0:
		b = append(b, l.servers[r.Server]...)
	default:
		b = append(b, l.queues[r.Queue]...)
	}
	has := r.Has
	if has&Enqueue != 0 {
		at = len(b)
		if r.EnqueueUS == lastUS {
			b = appendDigits(b, last)
		} else {
			b = jsonx.AppendInt(b, r.EnqueueUS)
		}
		last, lastUS = b[at:], r.EnqueueUS
	}
	b = append(b, ',')
	if has&Start != 0 {
		if r.StartUS == lastUS {
			b = appendDigits(b, last)
		} else {
			b = jsonx.AppendInt(b, r.StartUS)
		}
	}
	b = append(b, ',')
	if has&End != 0 {
		at = len(b)
		b = jsonx.AppendInt(b, r.EndUS)
		last, lastUS = b[at:], r.EndUS
	}
	b = append(b, ',')
	if has&Reply != 0 {
		if r.ReplyUS == lastUS {
			b = appendDigits(b, last)
		} else {
			b = jsonx.AppendInt(b, r.ReplyUS)
		}
	}
	b = append(b, l.reasons[r.Reason]...)
	if l.thread {
		b = append(b, ',')
		if r.Thread >= 0 {
			b = jsonx.AppendInt(b, int64(r.Thread)+1)
		}
		if !l.parent {
			b = append(b, '\n')
		}
	}
	if l.parent {
		b = append(b, ',')
		if r.Parent != "" {
			b = csvx.AppendField(b, r.Parent)
		}
		b = append(b, '\n')
	}
	if len(b) >= Chunk {
		b = l.write(b)
	}
	l.buf = b
}

// write writes the rows in b, unless an earlier write failed, and returns b
// emptied for the next rows.
func (l *Log) write(b []byte) []byte {
	if l.err == nil {
		_, l.err = l.w.Write(b)
	}
	return b[:0]
}

// appendSeq appends seq, the issue number of a row without an id, to b,
// which has room for 24 bytes more. Rows come in issue order, so seq is
// most often the last one plus 1: the last one's digits (of a positive
// number) are counted up rather than seq formatted again.
func (l *Log) appendSeq(b []byte, seq int64) []byte {
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

// Close writes the rows still gathered and reports the first write error.
func (l *Log) Close() error {
	if len(l.buf) > 0 {
		l.buf = l.write(l.buf)
	}
	return l.err
}
