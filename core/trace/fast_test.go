package trace

import (
	"fmt"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/ubb"
	"math/rand/v2"
	"strings"
	"testing"
)

// untimedNames is fastModel's names where REMOTE has no service time of its
// own (as core's resolver says of a service with no distribution): its rows
// must give service_ms.
type untimedNames struct{ *Names }

// fastModel is testModel with names that match differently: one longer
// than a word, two where one is the start of the other, one that only a
// quoted cell can give.
func fastModel() *ubb.Model {
	m := testModel()
	m.Services = append(m.Services, ubb.Service{Name: "VERY_LONG_SERVICE"}, ubb.Service{Name: "A"}, ubb.Service{Name: "AB"},
		ubb.Service{Name: "Q,X"})
	return m
}

func (n untimedNames) Untimed(s int) string {
	if s == 0 {
		return "missing; REMOTE has no service_time"
	}
	return ""
}

// transcript reads text to its end and writes down every row handed on and
// the end (Info, or the error and its diagnostic), with the fast path on or
// off.
func transcript(text string, cols *Columns, opt Options, fast bool) string {
	var b strings.Builder
	rd, err := NewReader(text, cols, opt, untimedNames{NewNames(fastModel())})
	if err != nil {
		return "header: " + err.Error()
	}
	if !fast {
		rd.roles = nil
	}
	var r Request
	for {
		ok, err := rd.Next(&r)
		if err != nil {
			fmt.Fprintf(&b, "error: %v %+v\n", err, err.(*Error).Diagnostic())
			return b.String()
		}
		if !ok {
			fmt.Fprintf(&b, "end: %+v\n", rd.Info())
			return b.String()
		}
		fmt.Fprintf(&b, "%+v\n", r)
	}
}

// The fast path reads every log as the full reading does: the same rows,
// the same errors, the same skipped rows, over logs that mix plain lines
// with every kind of line it must leave to the full reading (quotes,
// blanks around cells, CRLF, empty lines, unknown names, cells that are no
// plain numbers, rows too short or too long, out of time order).
func TestFastMatchesFullReading(t *testing.T) {
	heads := []struct {
		head string
		cols *Columns
	}{
		{"time_ms,service,origin", nil},
		{"time_ms,service,origin,service_ms,prio,id,route,buftype,observed_ms", nil},
		{"time_ms,service,origin,enqueue", nil},
		{"ts,svc,host,elapsed_ms,extra", nil},
		{"time_s,service,origin", nil},
		{"t,op,lat", &Columns{Time: "t", Service: "op", Observed: "lat", TimeUnit: "us"}},
		{"t,op,lat", &Columns{Time: "t", Service: "op", Observed: "lat", ServiceMS: "lat"}},
		{"t,op,x", &Columns{Time: "t", Service: "op", ServiceMS: "x", ServiceUnit: "s"}},
		{"ts,service", &Columns{TimeUnit: "ns"}},
		{"ts,service,origin", nil}, // the first row decides: epoch seconds or offsets
	}
	odd := map[int][]string{
		0: {"1e3", " 2", "3 ", "", "-1", "1,5", "99999999999", "1000000000", "1.", ".", "x", "1764410400", "0.0005", "1\u00a0"},
		1: {"toupper", "", "X", `"TOUPPER"`, "TOUPPER ", " TOLOWER", "REMOTE", "TOUP\"PER", "é"},
		2: {"", "host2", "SITE1", "nowhere", "site2\r", `"site1"`},
		3: {"", "1", "0.5", "x", "-1", "1e2", "1,5"},
		4: {"", "1", "100", "101", "0", "05", "abc", "+5", "0100"},
		5: {"", "r1", "a b", "é"},
		6: {"", "7", "x y"},
		7: {"", "FML32", "VIEW:acct", "a b", "VIEW:", ":x"},
		8: {"", "2", "n/a", "0,5"},
	}
	enqueue := []string{"", "", "", "QS:Q1", "x"} // testModel has no queue
	rng := rand.New(rand.NewPCG(3, 4))
	fastRows, rows := 0, 0
	for n := 0; n < 4000; n++ {
		h := heads[rng.IntN(len(heads))]
		comma := []string{",", ",", ";", "\t"}[rng.IntN(4)]
		var b strings.Builder
		b.WriteString(strings.ReplaceAll(h.head, ",", comma) + "\n")
		width := strings.Count(h.head, ",") + 1
		tm := 0
		for row := rng.IntN(40); row > 0; row-- {
			tm += rng.IntN(3)
			if rng.IntN(10) == 0 {
				tm -= 2 // out of time order, at times
			}
			cells := make([]string, width)
			for k := range cells {
				switch k {
				case 0:
					cells[k] = fmt.Sprintf("%d.%03d", max(tm, 0), rng.IntN(1000))
				case 1:
					cells[k] = []string{"TOUPPER", "TOLOWER", "TOUPPER", "REMOTE"}[rng.IntN(4)]
					if rng.IntN(5) == 0 {
						cells[k] = []string{"VERY_LONG_SERVICE", "A", "AB", `"Q,X"`, "Q,X"}[rng.IntN(5)]
					}
				case 2:
					cells[k] = []string{"site1", "site2", ""}[rng.IntN(3)]
				case 3:
					if strings.HasSuffix(h.head, "enqueue") {
						cells[k] = enqueue[rng.IntN(len(enqueue))]
						continue
					}
					fallthrough
				default:
					cells[k] = fmt.Sprint(rng.IntN(50))
				}
				if rng.IntN(40) == 0 {
					if o := odd[k]; len(o) > 0 {
						cells[k] = o[rng.IntN(len(o))]
					} else {
						cells[k] = "z"
					}
				}
			}
			switch rng.IntN(20) {
			case 0:
				cells = cells[:len(cells)-1]
			case 1:
				cells = append(cells, "1")
			case 2:
				b.WriteString("\n")
			case 3:
				b.WriteString(" \n")
			}
			b.WriteString(strings.Join(cells, comma))
			if row > 1 || rng.IntN(2) == 0 {
				b.WriteString([]string{"\n", "\n", "\n", "\r\n", "\n", "\n", "\r\r\n", "\rx\n"}[rng.IntN(8)])
			}
		}
		text := b.String()
		for _, skip := range []bool{false, true} {
			opt := Options{SkipBad: skip}
			got, want := transcript(text, h.cols, opt, true), transcript(text, h.cols, opt, false)
			if got != want {
				t.Fatalf("%q (skip %v):\nfast:\n%s\nfull:\n%s", text, skip, got, want)
			}
		}
		if rd, err := NewReader(text, h.cols, Options{SkipBad: true}, NewNames(fastModel())); err == nil && rd.roles != nil {
			// the rows fast reads of those Next would read
			var r Request
			for {
				if rd.ct.plain == 1 && rd.fast(&r) {
					fastRows++
					rows++
					continue
				}
				if ok, err := rd.Next(&r); !ok || err != nil {
					break
				}
				rows++
			}
		}
	}
	// A third of the rows are odd on purpose (an odd cell, a line before
	// them, out of time order), and a name's first row is read in full: the
	// fast path reads about 28% of them.
	if fastRows < rows/5 {
		t.Errorf("the fast path read %d rows of %d, want a fifth at least", fastRows, rows)
	}
}

// fast reads a plain line and leaves each other line unread, its row's
// count and place unchanged, for the full reading.
func TestFastLeavesOddLines(t *testing.T) {
	names := untimedNames{NewNames(fastModel())}
	head := "time_ms,service,origin,service_ms,prio\n1,TOUPPER,site1,,\n"
	for _, line := range []string{
		"", "\n", "\r\n", " 2,TOUPPER,site1,,\n", "2 ,TOUPPER,site1,,\n", "2,\"TOUPPER\",site1,,\n", "2,TOUPPER,site1,,,\n",
		"2,TOUPPER,site1,\n", "2,toupper,site1,,\n", "2,TOUPPER,site3,,\n", "2,TOUPPER,site2,,\n", "2,REMOTE,site1,,\n",
		"2,TOUPPER,site1,x,\n", "2,TOUPPER,site1,,101\n", "2,TOUPPER,site1,,+5\n", "1e3,TOUPPER,site1,,\n", "2,TOUPPER,site1,,\u00a0\n",
	} {
		rd, err := NewReader(head+line, nil, Options{}, names)
		if err != nil {
			t.Fatal(err)
		}
		var r Request
		if ok, err := rd.Next(&r); !ok || err != nil {
			t.Fatalf("row 1: %v %v", ok, err)
		}
		off, num := rd.sc.off, rd.num
		if rd.fast(&r) || rd.sc.off != off || rd.num != num {
			t.Errorf("%q: read by the fast path", line)
		}
	}
	// site2 is not among the names seen yet (row 1 saw site1), REMOTE needs
	// a service time: after the full reading has resolved site2, fast reads it.
	rd, err := NewReader(head+"2,TOUPPER,site2,,\n3.5,TOUPPER,site2,0.25,7\n", nil, Options{}, names)
	if err != nil {
		t.Fatal(err)
	}
	var r Request
	for range 2 {
		if ok, err := rd.Next(&r); !ok || err != nil {
			t.Fatalf("%v %v", ok, err)
		}
	}
	// row 3: 3.5 ms is 3500 µs, TOUPPER is service 2, site2 machine 1,
	// 0.25 ms is 250 µs, priority 7
	want := Request{Row: 3, TimeUS: 3500, Service: svcToUpper, Origin: site2, ServiceUS: 250, Prio: 7, ObservedUS: -1}
	if !rd.fast(&r) || r != want {
		t.Errorf("row 3: got %+v, want %+v", r, want)
	}
}

// plainAt reads a cell as usec.ParsePlain does: where it reads the whole
// cell, the same value or none; where it stops short, ParsePlain has none.
func TestPlainAtMatchesParsePlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cells := []string{"0", "1", "1.", ".5", ".", "..", "1.2.3", "12345678", "1234567.8", "99999999", "0.0005", "999999.9995",
		"00000000", "1e3", "-1", "1 ", "1000000000", "999999999.9995", "1234.567", "12345678.12345678", "123456789.1234567",
		"1234567.123456789", "1234567890123456789", "123456789012345678", ".123456789012345678", "234375.123", ""}
	for n := 0; n < 100000; n++ {
		var b strings.Builder
		for k := rng.IntN(21); k > 0; k-- {
			b.WriteByte("0123456789.5/:x"[rng.IntN(15)])
		}
		cells = append(cells, b.String())
	}
	for _, c := range cells {
		text := "x," + c + ",SERVICE"
		for _, shift := range []int{-3, 0, 3, 6, 9, 12, 18, 19} {
			got, end, gok := plainAt(text, 2, shift)
			want, wok := usec.ParsePlain(c, shift)
			switch {
			case end == 2+len(c) && (gok != wok || gok && got != want):
				t.Fatalf("%q shift %d: %d %v, want %d %v", c, shift, got, gok, want, wok)
			case end != 2+len(c) && wok:
				t.Fatalf("%q shift %d: read to %d of %d, but ParsePlain reads it (%d)", c, shift, end-2, len(c), want)
			}
		}
	}
}

// FuzzFastMatchesFull reads any text both ways, as TestFastMatchesFullReading
// does its random logs.
func FuzzFastMatchesFull(f *testing.F) {
	f.Add("time_ms,service,origin\n0,TOUPPER,site1\n1.5,TOUPPER,site1\r\n2,AB,\n")
	f.Add("time_ms,service,origin,service_ms,prio,id,route,buftype,observed_ms\n0,REMOTE,site2,1,5,a,7,FML32,2\n1,REMOTE,site2,1,5,a,7,FML32,2\n")
	f.Add("ts;svc;host;elapsed_ms;extra\n0.100;TOUPPER;site1;3;4\n1.200;TOUPPER;site1;3;\"4\"\n")
	f.Add("time_ms,service,origin,enqueue\n0,TOUPPER,site1,\n1,TOUPPER,site1,QS:Q1\n")
	f.Add("ts,svc,Status,tperrno\n0,TOUPPER,OK,0\n1,TOUPPER,tpesvcfail,6\n2,TOUPPER, KO ,\n3,TOUPPER,MAYBE,x\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, skip := range []bool{false, true} {
			opt := Options{SkipBad: skip}
			if got, want := transcript(text, nil, opt, true), transcript(text, nil, opt, false); got != want {
				t.Fatalf("%q (skip %v):\nfast:\n%s\nfull:\n%s", text, skip, got, want)
			}
		}
	})
}
