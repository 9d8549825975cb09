package dlog

import (
	"bytes"
	"slices"
	"strconv"
	"testing"
)

// appendSeq counts the last issue number up when the next one follows it,
// through every carry (9 to 10, 1999 to 2000), and formats any other.
func TestAppendSeqMatchesStrconv(t *testing.T) {
	var seqs []int64
	for s := int64(1); s <= 20_000; s++ {
		seqs = append(seqs, s)
	}
	seqs = append(seqs, 7, 8, 99_999, 100_000, 100_001, 1, 999_999_999_999, 1_000_000_000_000, 0, 1, -5, -4,
		1<<62, 1<<62+1, 9_999_999_999_999_999, 10_000_000_000_000_000)
	l := New(nil, Names{}, false, false)
	b := []byte("x,")
	for _, s := range seqs {
		b = slices.Grow(b[:2], 24)
		if got, want := string(l.appendSeq(b, s)), "x,"+strconv.FormatInt(s, 10); got != want {
			t.Fatalf("appendSeq(%d) after %d: got %q, want %q", s, l.seq, got, want)
		}
	}
}

// TestRows: each kind of row, written by hand from the columns of
// docs/engine.md: the names quoted, a missing time an empty cell, a time
// repeated from the one before it the same digits, the thread counted from
// 1 and the parent quoted.
func TestRows(t *testing.T) {
	names := Names{Services: []string{"S", "=T"}, Machines: []string{"A", "B,1"}, Servers: [][2]string{{"G1/1", "q1"}, {"G1/2", "q 2"}},
		Queues: []string{"q1", "q 2"}, Reasons: []string{"idle", "TPENOENT", "TPESVCERR"}}
	rows := []Row{
		{Seq: 9, Service: 0, Origin: 0, Queue: 0, Server: 0, Thread: 0, Reason: 0, IssueUS: 5, EnqueueUS: 5, StartUS: 5, EndUS: 1005, ReplyUS: 1005,
			Has: All},
		{ID: "x,1", Service: 1, Origin: 1, Queue: -1, Server: -1, Thread: -1, Reason: 1, IssueUS: 7, Parent: "9"},
		{Seq: 10, Service: 0, Origin: 0, Queue: 1, Server: -1, Thread: -1, Reason: 2, IssueUS: 8, EnqueueUS: 12, ReplyUS: 12, Parent: "p,q",
			Has: Enqueue | Reply},
		{Seq: 11, Service: 0, Origin: 1, Queue: 1, Server: 1, Thread: 3, Reason: 0, IssueUS: 100, EnqueueUS: 120, StartUS: 130, EndUS: 131, ReplyUS: 140,
			Has: Enqueue | Start | End},
	}
	for _, c := range []struct {
		parent, thread bool
		want           string
	}{
		{false, false, Header +
			"9,S,A,5,G1/1,q1,5,5,1005,1005,idle\n" +
			"\"x,1\",'=T,\"B,1\",7,,,,,,,TPENOENT\n" +
			"10,S,A,8,,q 2,12,,,12,TPESVCERR\n" +
			"11,S,\"B,1\",100,G1/2,q 2,120,130,131,,idle\n"},
		{true, true, "id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason,thread,parent\n" +
			"9,S,A,5,G1/1,q1,5,5,1005,1005,idle,1,\n" +
			"\"x,1\",'=T,\"B,1\",7,,,,,,,TPENOENT,,9\n" +
			"10,S,A,8,,q 2,12,,,12,TPESVCERR,,\"p,q\"\n" +
			"11,S,\"B,1\",100,G1/2,q 2,120,130,131,,idle,4,\n"},
	} {
		var out bytes.Buffer
		l := New(&out, names, c.parent, c.thread)
		for i := range rows {
			l.Append(&rows[i])
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.want {
			t.Errorf("parent %v, thread %v:\n got %q\nwant %q", c.parent, c.thread, out.String(), c.want)
		}
	}
}
