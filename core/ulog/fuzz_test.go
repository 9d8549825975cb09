package ulog

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead feeds any text to the ULOG reader, as one file and split over
// two: it must never panic, and what it reads must add up (no more
// malformed or TRACE lines than lines, at most five quoted examples, the
// first TRACE time not after the last), and the latency measured from it
// must be a latency. Seeds: the bank sample's two logs.
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
	f.Fuzz(func(t *testing.T, text string, cut int) {
		files := []File{{Name: "ULOG.120126", Text: text}}
		if cut > 0 && cut < len(text) {
			files = []File{{Name: "a/ULOG.120126", Text: text[:cut]}, {Name: "b/ULOG", Text: text[cut:]}}
		}
		lg, err := ReadBefore(files, int64(cut))
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
	})
}
