package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write puts text in a file of a fresh temporary folder.
func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSplice(t *testing.T) {
	for _, c := range []struct {
		doc, want, err string
	}{
		{"a\n" + beginMark + "\nold\n" + endMark + "\nz\n", "a\n" + beginMark + "\nNEW\n" + endMark + "\nz\n", ""},
		{"a\n" + beginMark + "\n" + endMark + "\n", "a\n" + beginMark + "\nNEW\n" + endMark + "\n", ""},
		{"no marks\n", "", "want the lines"},
		{endMark + "\n" + beginMark + "\n", "", "want the lines"},
	} {
		got, err := splice([]byte(c.doc), []byte("NEW\n"))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("splice(%q): got error %v, want %q", c.doc, err, c.err)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("splice(%q) = %q, %v; want %q", c.doc, got, err, c.want)
		}
	}
}

func TestParseBench(t *testing.T) {
	p := write(t, "native.txt", `goos: linux
BenchmarkScenario/mp-2   	 1000000	       364.4 ns/op	   2738922 requests/s	      16 B/op	       0 allocs/op
BenchmarkScenario/mp-2   	 1000000	       300.0 ns/op	   3300000 requests/s	      12 B/op	       1 allocs/op
BenchmarkScenario/mp-2   	 1000000	       500.0 ns/op	   2000000 requests/s	      10 B/op	       0 allocs/op
BenchmarkScenario/shm    	 1000000	       577.9 ns/op	   1728919 requests/s	      13 B/op	       0 allocs/op
PASS
`)
	set, err := parseBench(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(set.names, ","); got != "BenchmarkScenario/mp,BenchmarkScenario/shm" {
		t.Errorf("names %q, want the two benchmarks without the -2 suffix", got)
	}
	med, best, ok := set.stat("BenchmarkScenario/mp")
	if !ok || med != 2738922 || best != 3300000 {
		t.Errorf("stat = %v, %v, %v; want median 2738922, best 3300000", med, best, ok)
	}
	if r := set.runs["BenchmarkScenario/mp"][1]; r.nsPerOp != 300 || r.bytesPerOp != 12 || r.allocsPerOp != 1 {
		t.Errorf("second run %+v, want 300 ns, 12 B, 1 alloc", r)
	}
	if _, _, ok := set.stat("BenchmarkScenario/nope"); ok {
		t.Error("stat of a missing benchmark: got ok, want not ok")
	}
	if _, err := parseBench(write(t, "bad.txt", "BenchmarkX-2 10 fast ns/op\n")); err == nil || !strings.Contains(err.Error(), "bad.txt:1") {
		t.Errorf("bad value: got %v, want an error naming bad.txt:1", err)
	}
}

func TestParseTimes(t *testing.T) {
	got, err := parseTimes(write(t, "t", "Command exited with non-zero status 1\n0.41 51234\n0.39 50000\n"))
	if err != nil || len(got) != 2 || got[1] != (timing{0.39, 50000}) {
		t.Fatalf("got %v, %v; want two timings, the second 0.39 s 50000 kB", got, err)
	}
	if best, rss := fastest(got); best.wallS != 0.39 || rss != 51234 {
		t.Errorf("fastest = %v, %d; want 0.39 s and the larger RSS 51234", best, rss)
	}
	if _, err := parseTimes(write(t, "t", "killed\n")); err == nil {
		t.Error("no timing line: got no error")
	}
}

func TestParseOutputs(t *testing.T) {
	s, err := parseSimPy(write(t, "s", "1001803 requests in 4.62 s wall (4.10 s simulating): 216840 requests/s end to end, 244342 requests/s simulating (SimPy 3.0.11, Python 3.11.2)\n"))
	if err != nil || s != (simpyRun{1001803, 216840, 244342}) {
		t.Errorf("parseSimPy = %+v, %v", s, err)
	}
	w, agent, err := parseWasmbench(write(t, "c", "wasmbench: userAgent Headless/1\nwasmbench: mp-standard.json requests=998156 requests/s=1343775\nwasmbench: done\n"))
	if err != nil || w["mp-standard.json"] != 1343775 || agent != "Headless/1" {
		t.Errorf("parseWasmbench = %v, %q, %v", w, agent, err)
	}
	rows, sum, err := parsePprofTop(write(t, "p", "Type: cpu\nShowing nodes accounting for 2.24s, 92.18% of 2.43s total\n      flat  flat%   sum%        cum   cum%\n     0.43s 17.70% 17.70%      0.53s 21.81%  github.com/tuxlb/tuxlb/core.flog\n"))
	if err != nil || sum != "2.24s, 92.18% of 2.43s total" || len(rows) != 1 || rows[0] != (pprofRow{"17.70%", "21.81%", "github.com/tuxlb/tuxlb/core.flog"}) {
		t.Errorf("parsePprofTop = %+v, %q, %v", rows, sum, err)
	}
}

func TestParseRestAndEngine(t *testing.T) {
	got, err := parseRest(write(t, "r", "rest: 0.035\nrest: 0.031\nnoise\nrest: 0.033\n"))
	if err != nil || len(got) != 3 || got[0] != 0.031 || got[1] != 0.033 {
		t.Errorf("parseRest = %v, %v; want [0.031 0.033 0.035]", got, err)
	}
	if _, err := parseRest(write(t, "r", "rest: soon\n")); err == nil || !strings.Contains(err.Error(), "soon") {
		t.Errorf("bad seconds: got %v, want an error quoting them", err)
	}
	runs, err := parseWasmbenchRuns(write(t, "e", "wasmbench: mp-100k.json requests=99446 requests/s=3693539\nwasmbench: done\n"))
	if err != nil || runs["mp-100k.json"] != (wasmbenchRun{99446, 3693539}) {
		t.Errorf("parseWasmbenchRuns = %v, %v", runs, err)
	}
	r := &report{rest: []float64{0.0310, 0.0320}, engine: wasmbenchRun{100000, 4e6}}
	if over, ok := r.restOverhead(); !ok || over < 0.2399 || over > 0.2401 {
		t.Errorf("restOverhead = %v, %v; want 31 ms / 25 ms - 1 = 0.24", over, ok)
	}
}
