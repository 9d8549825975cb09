package ulog

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead feeds any text to the ULOG reader, as one file and split over
// two: it must never panic, and what it reads must add up (no more
// malformed or TRACE lines than lines, at most five quoted examples, the
// first TRACE time not after the last), and the latency measured from it
// must be a latency (a cut below 0 splits the text at its opposite and
// reads it whole). Read again keeping next to nothing one by one (four
// records, two times a service), it must say the same executions, times
// counted and arrivals' weights by service and host. Seeds: the bank
// sample's two logs.
func FuzzRead(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "bank", "*", "ULOG.*"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data), 0)
	}
	f.Add("120126 10:00:00.123.node1!srv.1.1.0: TRACE:at: { tpservice({\"X\", 0x0, 0x0, 0, 0, -1, {0, -2, -1}})\n", 7)
	// two machines over two and a half hours, read whole (a cut below 0):
	// long enough for the reading with a bound to thin its spans
	long := longLog(3, 150, 60_000)
	f.Add(long[0].Text+long[1].Text, -len(long[0].Text))
	f.Fuzz(func(t *testing.T, text string, cut int) {
		before := int64(cut) // the hold-out window, µs: the cut's, or none when the cut is below 0
		if cut < 0 {
			cut, before = -cut, 0
		}
		files := []File{{Name: "ULOG.120126", Text: text}}
		if cut > 0 && cut < len(text) {
			files = []File{{Name: "a/ULOG.120126", Text: text[:cut]}, {Name: "b/ULOG", Text: text[cut:]}}
		}
		lg, err := ReadBefore(files, before)
		if err != nil {
			return
		}
		if lg.TraceLines > lg.Lines || lg.Malformed > lg.TraceLines || len(lg.MalformedExamples) > maxExamples || lg.Unfinished < 0 {
			t.Fatalf("lines %d, TRACE lines %d, malformed %d (%d quoted), unfinished %d", lg.Lines, lg.TraceLines, lg.Malformed, len(lg.MalformedExamples), lg.Unfinished)
		}
		if lg.TraceLines > lg.Malformed && lg.FirstUS > lg.LastUS {
			t.Fatalf("first TRACE time %d after the last %d", lg.FirstUS, lg.LastUS)
		}
		// the latency, with the clocks' offsets it corrects for, from hosts
		// taken as machines: never negative, from no more than the samples
		if l := lg.Latency(func(h string) string { return h }); l.MS < 0 || l.Window > l.Samples {
			t.Fatalf("latency %+v", l)
		}
		small, err := ReadWith(files, Options{BeforeUS: before, Keep: 4, Samples: 2})
		if err != nil {
			t.Fatalf("read whole: fine; keeping 4: %v", err)
		}
		for n, s := range lg.Services {
			k := small.Services[n]
			if k == nil || k.Executions != s.Executions || k.Timed != s.Timed || len(k.OwnUS) != min(len(s.OwnUS), 2) || k.Commits != s.Commits {
				t.Fatalf("%s: read whole %+v, keeping 4 %+v", n, s, k)
			}
		}
		ws, w := weights(lg), weights(small)
		for k, v := range ws {
			if math.Abs(w[k]-v) > 1e-9*max(1, v) {
				t.Fatalf("%v: arrivals weigh %g, read whole %g", k, w[k], v)
			}
		}
		if l := small.Latency(func(h string) string { return h }); l.MS < 0 || l.Window > l.Samples {
			t.Fatalf("keeping 4: latency %+v", l)
		}
	})
}
