package ulog

import (
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// genLog writes two machines' ULOGs of one day: clients on c call A and B
// on s, from 8 client threads and 4 server threads, n requests 1 to 9 ms
// apart, each served 1 to 30 ms; A calls B in half its executions. The
// lines of each file are in time order, and sorted stably by time.
func genLog(seed uint64, n int) (client, server []string) {
	r := rand.New(rand.NewPCG(seed, 1))
	type line struct {
		us   int64
		text string
	}
	var cl, sv []line
	stamp := func(us int64) string {
		s := us / 1e6
		return fmt.Sprintf("%02d%02d%02d.%03d", 10+s/3600, s/60%60, s%60, us/1000%1000)
	}
	add := func(to *[]line, us int64, tag, what string) {
		*to = append(*to, line{us, stamp(us) + "." + tag + ": TRACE:at: " + what})
	}
	clientFree := make([]int64, 8)
	serverFree := make([]int64, 4)
	t := int64(0)
	for i := 0; i < n; i++ {
		t += 1000 + r.Int64N(8000)
		c := r.IntN(len(clientFree))
		start := max(t, clientFree[c])
		svc := []string{"A", "B"}[r.IntN(2)]
		ctag := fmt.Sprintf("c!CLT.%d.1.0", 100+c)
		add(&cl, start, ctag, fmt.Sprintf(`{ tpcall("%s", 0x0, 0, 0x0, 0x0, 0x0)`, svc))
		k := slices.Index(serverFree, slices.Min(serverFree))
		begin := max(start+1000, serverFree[k])
		stag := fmt.Sprintf("s!SRV.%d.1.0", 200+k)
		add(&sv, begin, stag, fmt.Sprintf(`{ tpservice({"%s", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})`, svc))
		end := begin + 1000 + r.Int64N(29000)
		if svc == "A" && r.IntN(2) == 0 {
			at := begin + (end-begin)/2
			add(&sv, at, stag, `{ tpacall("B", 0x0, 0, TPNOREPLY)`)
			add(&sv, at, stag, `} tpacall = 0`)
		}
		add(&sv, end, stag, `} tpservice`)
		add(&cl, end+1000, ctag, `} tpcall = 1`)
		serverFree[k], clientFree[c] = end, end+1000
	}
	sorted := func(ls []line) []string {
		slices.SortStableFunc(ls, func(a, b line) int { return cmpUS(a.us, b.us) })
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = l.text
		}
		return out
	}
	return sorted(cl), sorted(sv)
}

// stampOf is a generated line's time of day in milliseconds.
func stampOf(l string) int64 {
	var h, m, s, ms int64
	fmt.Sscanf(l[:10], "%2d%2d%2d.%3d", &h, &m, &s, &ms)
	return ((h*60+m)*60+s)*1000 + ms
}

// jumble moves lines of other threads ahead of each other by up to
// spreadMS, as processes appending to one file do (each thread's own lines
// stay in their order): the file as a machine writes it.
func jumble(lines []string, spreadMS int64, r *rand.Rand) []string {
	out := slices.Clone(lines)
	thread := func(l string) string { return strings.SplitN(l, ":", 2)[0][11:] }
	for pass := 0; pass < 3; pass++ {
		for i := len(out) - 1; i > 0; i-- {
			j := i - 1 - r.IntN(3)
			if j < 0 || stampOf(out[i])-stampOf(out[j]) > spreadMS {
				continue
			}
			ok := true
			for k := j; k < i; k++ {
				ok = ok && thread(out[k]) != thread(out[i])
			}
			if ok { // out[i] moves up to j
				l := out[i]
				copy(out[j+1:i+1], out[j:i])
				out[j] = l
			}
		}
	}
	return out
}

// stableByTime is the lines sorted by their stamps, those of one stamp in
// their order: what the reader hands on.
func stableByTime(lines []string) []string {
	out := slices.Clone(lines)
	slices.SortStableFunc(out, func(a, b string) int { return cmpUS(stampOf(a), stampOf(b)) })
	return out
}

func text(lines []string) string { return strings.Join(lines, "\n") + "\n" }

// A file whose lines are a few milliseconds out of time order (as a
// machine's processes write them) reads as the same lines sorted: the
// reader holds a file's last minute, not the file, and hands its lines on
// in time order.
func TestStreamedInTimeOrder(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		cl, sv := genLog(seed, 400)
		r := rand.New(rand.NewPCG(seed, 2))
		jc, js := jumble(cl, 8, r), jumble(sv, 8, r)
		if slices.Equal(jc, cl) || slices.Equal(js, sv) {
			t.Fatalf("seed %d: the jumble moved nothing", seed)
		}
		got, err := Read([]File{{Name: "c/ULOG.030126", Text: text(jc)}, {Name: "s/ULOG.030126", Text: text(js)}})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Read([]File{{Name: "c/ULOG.030126", Text: text(stableByTime(jc))}, {Name: "s/ULOG.030126", Text: text(stableByTime(js))}})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: the jumbled files read otherwise than sorted:\n%+v\n%+v", seed, got, want)
		}
		if got.Malformed != 0 || len(got.Warnings) != 0 || got.Services["A"].Executions+got.Services["B"].Executions != 400 {
			t.Fatalf("seed %d: %d malformed, warnings %q, executions A %d B %d", seed, got.Malformed, got.Warnings,
				got.Services["A"].Executions, got.Services["B"].Executions)
		}
	}
}

// A line further behind the lines before it than the reader holds (a
// clock set back by less than the half hour read as summer time) is read
// where it is, with a warning naming the file, the line and how many.
func TestLateLine(t *testing.T) {
	defer func(w int64) { reorderUS = w }(reorderUS)
	reorderUS = 100_000 // 100 ms, for a short log
	cl, sv := genLog(7, 200)
	// an execution of B by a thread of its own, 2 ms long, written 0.3 s
	// after its time
	t0 := stampOf(sv[len(sv)/2])
	k := slices.IndexFunc(sv, func(l string) bool { return stampOf(l) > t0+300 })
	at := func(ms int64) string {
		return fmt.Sprintf("%02d%02d%02d.%03d", ms/3600000, ms/60000%60, ms/1000%60, ms%1000)
	}
	late := slices.Concat(sv[:k], []string{
		at(t0) + `.s!SRV.999.1.0: TRACE:at: { tpservice({"B", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})`,
		at(t0+2) + ".s!SRV.999.1.0: TRACE:at: } tpservice",
	}, sv[k:])
	lg, err := Read([]File{{Name: "c/ULOG.030126", Text: text(cl)}, {Name: "s/ULOG.030126", Text: text(late)}})
	if err != nil {
		t.Fatal(err)
	}
	// By hand: both lines are more than 100 ms behind the line before
	// them (0.3 s): 2 late, the first at line k+1 of the file, after the
	// latest line read before it, line k's (the file's lines before them
	// are in time order), which is more than 100 ms after it.
	colon := func(s string) string { return s[:2] + ":" + s[2:4] + ":" + s[4:] }
	if stampOf(sv[k-1])-t0 <= 100 {
		t.Fatalf("line %d at %s, not 100 ms past %s", k, at(stampOf(sv[k-1])), at(t0))
	}
	want := fmt.Sprintf("s/ULOG.030126:%d: 2 TRACE lines are more than 100ms behind a line before them in the file (the first at %s, after %s): read where they are",
		k+1, colon(at(t0)), colon(at(stampOf(sv[k-1]))))
	if len(lg.Warnings) != 1 || !strings.HasPrefix(lg.Warnings[0], want) {
		t.Errorf("warnings %q, want one beginning %q", lg.Warnings, want)
	}
	// read where they are: the execution still counts, once
	if e := lg.Services["A"].Executions + lg.Services["B"].Executions; e != 201 || lg.Malformed != 0 || !slices.Contains(lg.Services["B"].OwnUS, 2000) {
		t.Errorf("%d executions, %d malformed, B %v; want 201, 0, one of 2 ms", e, lg.Malformed, lg.Services["B"].OwnUS)
	}
}

// A file read through Open (the CLI's, from disk) reads as its text does,
// and is opened again only for its first line and to compare it with a
// file of its day whose first line is its own.
func TestOpenReadsAsText(t *testing.T) {
	cl, sv := genLog(3, 300)
	opens := map[string]int{}
	open := func(name, text string) File {
		return File{Name: name, Size: int64(len(text)), Open: func() (io.ReadCloser, error) {
			opens[name]++
			return io.NopCloser(strings.NewReader(text)), nil
		}}
	}
	copyOf := text(sv[:len(sv)/2]) // a copy taken earlier in the day
	texts := []File{{Name: "c/ULOG.030126", Text: text(cl)}, {Name: "s/ULOG.030126", Text: text(sv)}, {Name: "s/old/ULOG.030126", Text: copyOf}}
	streams := []File{open("c/ULOG.030126", text(cl)), open("s/ULOG.030126", text(sv)), open("s/old/ULOG.030126", copyOf)}
	want, err := Read(texts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(streams)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read through Open:\n%+v\nfrom the text:\n%+v", got, want)
	}
	if len(got.Warnings) != 1 || got.Warnings[0] != "s/old/ULOG.030126: the start of s/ULOG.030126: read once (a file given twice would count its lines twice)" {
		t.Errorf("warnings %q, want the copy's", got.Warnings)
	}
	// c: its first line, then read; s: first line, compared, read; the
	// copy: first line, compared
	if want := map[string]int{"c/ULOG.030126": 2, "s/ULOG.030126": 3, "s/old/ULOG.030126": 2}; !reflect.DeepEqual(opens, want) {
		t.Errorf("opened %v, want %v", opens, want)
	}
	// an error opening a file names it
	bad := File{Name: "s/ULOG.040126", Size: 10, Open: func() (io.ReadCloser, error) { return nil, fmt.Errorf("permission denied") }}
	if _, err := Read([]File{texts[0], bad}); err == nil || err.Error() != "s/ULOG.040126: permission denied" {
		t.Errorf("error %v, want the file's", err)
	}
}

// The reader holds a file's last minute of lines, not the file: over two
// hours of a log, what it holds at once stays within the minute's lines.
func TestStreamHoldsAMinute(t *testing.T) {
	cl, sv := genLog(11, 2000) // about 10 s of requests
	// stretched to 2 hours: each line's time of day times 720
	stretch := func(lines []string) string {
		var b strings.Builder
		for _, l := range lines {
			ms := (stampOf(l) - 10*3600*1000) * 720
			s := ms / 1000
			fmt.Fprintf(&b, "%02d%02d%02d.%03d%s\n", s/3600, s/60%60, s%60, ms%1000, l[10:])
		}
		return b.String()
	}
	lg, err := Read([]File{{Name: "c/ULOG.030126", Text: stretch(cl)}, {Name: "s/ULOG.030126", Text: stretch(sv)}})
	if err != nil {
		t.Fatal(err)
	}
	// By hand: 2000 requests over about 7 200 s are 4 to 6 lines each,
	// about 1.4 lines a second in all; a minute of them is about 90, and
	// each file holds its own minute and the line past it.
	lines := lg.TraceLines
	if lg.held == 0 || lg.held > 2*lines*60/7200+4 {
		t.Errorf("held %d lines at once of %d over two hours, want a minute's (about %d)", lg.held, lines, lines*60/7200)
	}
}

// A thread is held while something is open on it: a log of clients
// started for each request (a pid each) holds a few threads at a time,
// not one for every client ever seen.
func TestThreadsLetGo(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 10000; i++ {
		ms := int64(i) * 10
		at := func(ms int64) string {
			return fmt.Sprintf("10%02d%02d.%03d", ms/60000%60, ms/1000%60, ms%1000)
		}
		fmt.Fprintf(&b, "%s.c!CLT.%d.1.0: TRACE:at: { tpcall(\"A\", 0x0, 0, 0x0, 0x0, 0x0)\n", at(ms), 1000+i)
		fmt.Fprintf(&b, "%s.s!SRV.7.1.0: TRACE:at: { tpservice({\"A\", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})\n", at(ms+1))
		fmt.Fprintf(&b, "%s.s!SRV.7.1.0: TRACE:at: } tpservice\n", at(ms+4))
		fmt.Fprintf(&b, "%s.c!CLT.%d.1.0: TRACE:at: } tpcall = 1\n", at(ms+5), 1000+i)
	}
	lg := read1(t, b.String())
	// By hand: each request's client opens its call at ms, the server its
	// execution at ms+1; both closed by ms+5, before the next: 2 threads
	// open at once at most, of 10 001.
	if lg.threads != 2 || lg.Services["A"].Executions != 10000 || len(lg.Arrivals) != 10000 {
		t.Errorf("%d threads open at once, %d executions, %d arrivals; want 2, 10000, 10000", lg.threads, lg.Services["A"].Executions, len(lg.Arrivals))
	}
}

// Two machines' ULOGs concatenated into one file (cat node1/ULOG node2/ULOG)
// put the second's lines far behind the first's: each is read where it is,
// handed on before the lines held (not moved into them one by one), and
// every execution, call and sample is the two files' own.
func TestConcatenatedMachines(t *testing.T) {
	defer func(w int64) { reorderUS = w }(reorderUS)
	reorderUS = 100_000
	cl, sv := genLog(5, 2000)
	apart, err := Read([]File{{Name: "c/ULOG.030126", Text: text(cl)}, {Name: "s/ULOG.030126", Text: text(sv)}})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := Read([]File{{Name: "all/ULOG.030126", Text: text(cl) + text(sv)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"A", "B"} {
		a, c := apart.Services[name], cat.Services[name]
		sa, sc := slices.Sorted(slices.Values(a.OwnUS)), slices.Sorted(slices.Values(c.OwnUS))
		if a.Executions != c.Executions || !slices.Equal(sa, sc) || !reflect.DeepEqual(a.Calls, c.Calls) || a.Nested != c.Nested {
			t.Errorf("%s: concatenated %d executions, calls %+v; apart %d, %+v", name, c.Executions, c.Calls, a.Executions, a.Calls)
		}
	}
	if len(cat.Arrivals) != len(apart.Arrivals) || cat.Malformed != 0 || cat.Unfinished != 0 {
		t.Errorf("concatenated: %d arrivals (want %d), %d malformed, %d unfinished", len(cat.Arrivals), len(apart.Arrivals), cat.Malformed, cat.Unfinished)
	}
	// By hand: the server's lines start where the log starts, about 10 s
	// behind the client's last: every one of them more than 100 ms behind
	// the latest handed on but those of its last 100 ms.
	var late int
	if len(cat.Warnings) != 1 || !strings.HasPrefix(cat.Warnings[0], fmt.Sprintf("all/ULOG.030126:%d: ", len(cl)+1)) {
		t.Fatalf("warnings %q, want one of the late lines from line %d", cat.Warnings, len(cl)+1)
	}
	fmt.Sscanf(cat.Warnings[0][strings.Index(cat.Warnings[0], ": ")+2:], "%d", &late)
	last := stampOf(cl[len(cl)-1])
	near := 0
	for _, l := range sv {
		if stampOf(l) >= last-100 {
			near++
		}
	}
	if late < len(sv)-near-5 || late > len(sv) {
		t.Errorf("%d late lines, want about %d (the server's %d but the %d of its last 100 ms)", late, len(sv)-near, len(sv), near)
	}
	// the other way round (cat server client): the log starts at the
	// client's first line, 1 ms before the server's first, though it is
	// handed on after the server's lines; it ends at the later of the two
	// files' last lines
	rev, err := Read([]File{{Name: "all/ULOG.030126", Text: text(sv) + text(cl)}})
	if err != nil {
		t.Fatal(err)
	}
	day, _ := fileDay("ULOG.030126")
	first, end := day+stampOf(cl[0])*1000, day+max(stampOf(cl[len(cl)-1]), stampOf(sv[len(sv)-1]))*1000
	if stampOf(sv[0]) != stampOf(cl[0])+1 || rev.FirstUS != first || rev.LastUS != end || apart.FirstUS != first || apart.LastUS != end {
		t.Errorf("server then client: from %d to %d, apart from %d to %d; want from %d (the client's first line) to %d", rev.FirstUS, rev.LastUS, apart.FirstUS, apart.LastUS, first, end)
	}
}

// Within the minute held, the concatenated file's second machine's lines
// are far out of order among the first's (each behind hundreds of lines):
// held apart, in a heap, they are handed on in their places, and the file
// reads exactly as the two files do (a time's lines in the order of the
// files then, here, of the lines: the same).
func TestConcatenatedWithinTheMinute(t *testing.T) {
	cl, sv := genLog(9, 2000) // about 10 s
	apart, err := Read([]File{{Name: "c/ULOG.030126", Text: text(cl)}, {Name: "s/ULOG.030126", Text: text(sv)}})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := Read([]File{{Name: "all/ULOG.030126", Text: text(cl) + text(sv)}})
	if err != nil {
		t.Fatal(err)
	}
	cat.Files = apart.Files
	if !reflect.DeepEqual(cat, apart) {
		t.Errorf("concatenated:\n%+v\napart:\n%+v", cat, apart)
	}
}

// A line stamped far ahead of the others (its stamp written wrong) does not
// hand on the lines behind it: the file reads as its lines sorted, the
// jumbled ones included, with no line read out of its place.
func TestLineFarAhead(t *testing.T) {
	cl, sv := genLog(13, 400)
	r := rand.New(rand.NewPCG(13, 2))
	js := jumble(sv, 8, r)
	ahead := "102000.000.s!OTHER.77.1.0: TRACE:at: { tpgetrply(0x0)" // 20 minutes after the rest (under the half hour read as a clock set back)
	js = slices.Insert(js, len(js)/3, ahead)
	got, err := Read([]File{{Name: "c/ULOG.030126", Text: text(cl)}, {Name: "s/ULOG.030126", Text: text(js)}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read([]File{{Name: "c/ULOG.030126", Text: text(cl)}, {Name: "s/ULOG.030126", Text: text(stableByTime(js))}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(got.Warnings) != 0 {
		t.Errorf("with a line far ahead: warnings %q; equal to the sorted lines: %v", got.Warnings, reflect.DeepEqual(got, want))
	}
}

// A line longer than any ULOG's (maxLine, 1 MiB) is read up to that, the
// rest passed over: a TRACE line of megabytes is malformed (not a service
// of that name), a line of binary data no TRACE line, and a file of one
// such line holds a megabyte, not the line.
func TestLineTooLong(t *testing.T) {
	long := `100000.002.h!X.5.1.0: TRACE:at: { tpcall("` + strings.Repeat("B", 2<<20) + `", 0x0, 0, 0x0, 0x0, 0x0)`
	binary := strings.Repeat("\xff", 3<<20)
	text := `100000.000.c!CLT.9.1.0: TRACE:at: { tpcall("A", 0x0, 0, 0x0, 0x0, 0x0)
100000.001.h!S.1.1.1: TRACE:at: { tpservice({"A"})
` + long + "\n" + binary + `
100000.004.h!S.1.1.1: TRACE:at: } tpservice
100000.005.c!CLT.9.1.0: TRACE:at: } tpcall = 1
`
	for _, f := range []File{{Name: "u/ULOG.010226", Text: text},
		{Name: "u/ULOG.010226", Size: int64(len(text)), Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(text)), nil }}} {
		lg, err := Read([]File{f})
		if err != nil {
			t.Fatal(err)
		}
		// By hand: 6 lines, 5 of them TRACE lines (the binary one is
		// none); the third, 42 + 2 097 152 + 25 = 2 097 219 bytes, is
		// malformed; A runs from .001 to .004, 3 ms, called once.
		wantEx := []string{"u/ULOG.010226:3: a line of 2097219 bytes, longer than a ULOG's (1048576 at most are read)"}
		if lg.Lines != 6 || lg.TraceLines != 5 || lg.Malformed != 1 || !reflect.DeepEqual(lg.MalformedExamples, wantEx) {
			t.Errorf("%d lines, %d TRACE, %d malformed %q; want 6, 5, 1 %q", lg.Lines, lg.TraceLines, lg.Malformed, lg.MalformedExamples, wantEx)
		}
		if a := lg.Services["A"]; a == nil || !reflect.DeepEqual(a.OwnUS, []int64{3000}) || len(lg.Services) != 1 || len(lg.Arrivals) != 1 {
			t.Errorf("services %v, arrivals %d; want A alone, one of 3 ms, one arrival", lg.Services, len(lg.Arrivals))
		}
	}
	// a file of that line alone, without its "\n": every TRACE line malformed
	_, err := Read([]File{{Name: "u/ULOG.010226", Text: long}})
	if want := "u/ULOG.010226: every TRACE line is malformed (1; the first: u/ULOG.010226:1: a line of 2097219 bytes"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want one beginning %q", err, want)
	}
}

// genReader writes, as it is read, a machine's ULOG of n requests 2 ms
// apart, each a client process's tpcall of S served 5 ms by one of four
// server processes (4 lines a request, 267 bytes): a log of any length
// that is never held whole, for BenchmarkReadStreamed.
type genReader struct {
	i, n int
	buf  []byte
}

func (g *genReader) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.i < g.n {
		t := int64(8*3600*1000 + 2*g.i)
		st := func(ms int64) string {
			return fmt.Sprintf("%02d%02d%02d.%03d", ms/3600000, ms/60000%60, ms/1000%60, ms%1000)
		}
		pid, sp := 100000+g.i, 5000+g.i%4
		g.buf = fmt.Appendf(g.buf, "%s.h1!clt.%d.1.0: TRACE:at: { tpcall(\"S\", 0x0, 0, 0x0, 0x0, 0x0)\n", st(t), pid)
		g.buf = fmt.Appendf(g.buf, "%s.h1!srv.%d.1.0: TRACE:at: { tpservice({\"S\", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})\n", st(t+1), sp)
		g.buf = fmt.Appendf(g.buf, "%s.h1!srv.%d.1.0: TRACE:at: } tpservice\n", st(t+6), sp)
		g.buf = fmt.Appendf(g.buf, "%s.h1!clt.%d.1.0: TRACE:at: } tpcall = 1\n", st(t+7), pid)
		g.i++
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[n:])]
	return n, nil
}

// BenchmarkReadStreamed reads generated ULOGs of 100 000 and 400 000
// requests (27 and 107 MB, never held whole) through Open: ns a request
// (the generator's formatting included), the lines held at once (a
// minute's: flat in the log's length), and the heap the read log keeps a
// request and in all: read whole it grows with the log; with a bound on
// what is kept one by one (Options.Keep, 200 000 records: passed at about
// 50 000 requests), it does not. `go test ./core/ulog -run '^$' -bench ReadStreamed -benchtime 1x`.
func BenchmarkReadStreamed(b *testing.B) {
	for _, keep := range []int{0, 200_000} {
		for _, n := range []int{100_000, 400_000} {
			name := fmt.Sprint("requests=", n)
			if keep > 0 {
				name = fmt.Sprint("keep=", keep, "/", name)
			}
			b.Run(name, func(b *testing.B) {
				var lg *Log
				for range b.N {
					f := File{Name: "h1/ULOG.120726", Size: int64(n) * 267, Open: func() (io.ReadCloser, error) { return io.NopCloser(&genReader{n: n}), nil }}
					var err error
					if lg, err = ReadWith([]File{f}, Options{Keep: keep}); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/request")
				b.ReportMetric(float64(lg.held), "lines-held")
				b.ReportMetric(float64(ms.HeapAlloc)/float64(n), "live-B/request")
				b.ReportMetric(float64(ms.HeapAlloc)/1e6, "live-MB")
				runtime.KeepAlive(lg)
			})
		}
	}
}

// One line stamped hours ahead of those around it (its stamp written
// wrong), the next back with them: the next is not the clock set back, nor
// the next day (read so, every later line of the host would be a day
// late); the line is read at its time, with a warning naming it.
func TestOneLineStampedFarAhead(t *testing.T) {
	cl, sv := genLog(17, 400)
	k := len(sv) / 2
	withAhead := slices.Insert(slices.Clone(sv), k, "230000.000.s!OTHER.77.1.0: TRACE:at: { tpgetrply(0x0)") // 13 hours ahead
	files := func(server []string) []File {
		return []File{{Name: "c/ULOG.030126", Text: text(cl)}, {Name: "s/ULOG.030126", Text: text(server)}}
	}
	want, err := Read(files(sv))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(files(withAhead))
	if err != nil {
		t.Fatal(err)
	}
	// By hand: the line is line k+1 of the server's file, 23:00:00.000
	// after lines of about 10:00:0x (the line before it, k's); the line
	// after it is within a minute of those, so not set back: A and B are
	// the log's without the line, and its tpgetrply, open on a thread of
	// its own to the end, counts nothing.
	if !reflect.DeepEqual(got.Services, want.Services) || !reflect.DeepEqual(got.Arrivals, want.Arrivals) || !slices.Equal(got.names, want.names) || len(got.Gaps) != 0 {
		t.Errorf("with the line far ahead: services or arrivals differ from the log without it (gaps %v)", got.Gaps)
	}
	before := sv[k-1][:10]
	wantW := fmt.Sprintf("s/ULOG.030126:%d: a line of s stamped 23:00:00.000, far ahead of those around it (%s:%s:%s): read at %[2]s:%[3]s:%[4]s, with them",
		k+1, before[:2], before[2:4], before[4:])
	if len(got.Warnings) != 1 || !strings.HasPrefix(got.Warnings[0], wantW) {
		t.Errorf("warnings %q, want one beginning %q", got.Warnings, wantW)
	}
}

// Lines of a host stamped far ahead, then its lines back where they were
// before them, as far on as the lines ahead ran: the lines ahead were
// stamped wrong (or their clock ran ahead and was put right), not the clock
// set back; read as a step, every later line of the host would be hours
// late. Two cases by hand: three lines of one process stamped 23:00 among
// lines of about 10:00 (the one-line case above, three times over), and
// 50 lines in a row two hours ahead.
func TestLinesStampedFarAhead(t *testing.T) {
	cl, sv := genLog(17, 400)
	files := func(server []string) []File {
		return []File{{Name: "c/ULOG.030126", Text: text(cl)}, {Name: "s/ULOG.030126", Text: text(server)}}
	}
	want, err := Read(files(sv))
	if err != nil {
		t.Fatal(err)
	}
	k := len(sv) / 2
	// three lines at 23:00:00.000, .010 and .020 after line k (k+1..k+3
	// of the file): each opens a tpgetrply on a thread of its own, open to
	// the end, which counts nothing; the line after them (k+4) is back
	// with line k
	three := slices.Clone(sv)
	for i := range 3 {
		three = slices.Insert(three, k+i, fmt.Sprintf("230000.%03d.s!OTHER.%d.1.0: TRACE:at: { tpgetrply(0x0)", 10*i, 77+i))
	}
	got, err := Read(files(three))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Services, want.Services) || !reflect.DeepEqual(got.Arrivals, want.Arrivals) || !slices.Equal(got.names, want.names) || len(got.Gaps) != 0 {
		t.Errorf("with three lines far ahead: services or arrivals differ from the log without them (gaps %v)", got.Gaps)
	}
	before, after := sv[k-1][:10], sv[k][:10]
	clk := func(s string) string { return s[:2] + ":" + s[2:4] + ":" + s[4:] }
	wantW := fmt.Sprintf("s/ULOG.030126:%d: 3 lines of s from there stamped 23:00:00.000 to 23:00:00.020, far ahead of those before and after them (%s, %s): read %s earlier, with them",
		k+1, clk(before), clk(after), time.Duration(usOf(t, "230000.000")-usOf(t, before))*time.Microsecond)
	if len(got.Warnings) != 1 || !strings.HasPrefix(got.Warnings[0], wantW) {
		t.Errorf("warnings %q, want one beginning %q", got.Warnings, wantW)
	}

	// 50 lines in a row (k+1..k+50) two hours ahead: the server's clock
	// ahead, then put right. Those lines are read two hours earlier, in
	// their place, and the lines after them at their stamps, with no step
	// of the clock: the log is the log without the jump (read two hours
	// later, every execution of the lines after them would start after
	// its end)
	if sv[k-1][:10] != sv[k][:10] {
		// the jump is read from the line before the run to its first:
		// exactly two hours when the two have one stamp
		t.Fatalf("lines %d and %d have stamps %s and %s: want one, for a jump of exactly two hours", k, k+1, sv[k-1][:10], sv[k][:10])
	}
	ahead := slices.Clone(sv)
	for i := k; i < k+50; i++ {
		h := 10*(ahead[i][0]-'0') + (ahead[i][1] - '0') + 2
		ahead[i] = fmt.Sprintf("%02d", h) + ahead[i][2:]
	}
	got, err = Read(files(ahead))
	if err != nil {
		t.Fatal(err)
	}
	late := 0
	for _, e := range got.Executions {
		if e.StartUS > want.LastUS {
			late++
		}
	}
	if late > 0 {
		t.Errorf("%d executions start after the log's end (%s): the clock read as set back?", late, clock(want.LastUS))
	}
	if !reflect.DeepEqual(got.Services, want.Services) || !reflect.DeepEqual(got.Executions, want.Executions) ||
		!reflect.DeepEqual(got.CallSpans, want.CallSpans) || !reflect.DeepEqual(got.Arrivals, want.Arrivals) || got.LastUS != want.LastUS {
		t.Errorf("with 50 lines two hours ahead: services, spans, arrivals or the last time differ from the log without the jump")
	}
	wantW = fmt.Sprintf("s/ULOG.030126:%d: 50 lines of s from there stamped %s to %s, far ahead of those before and after them (%s, %s): read 2h0m0s earlier, with them",
		k+1, clk(ahead[k][:10]), clk(ahead[k+49][:10]), clk(sv[k-1][:10]), clk(sv[k+50][:10]))
	if w := strings.Join(got.Warnings, "\n"); !strings.HasPrefix(w, wantW) || strings.Contains(w, "the time goes back") {
		t.Errorf("warnings %q, want one beginning %q and no step of the clock", got.Warnings, wantW)
	}
}

// usOf is a ULOG stamp's (HHMMSS.mmm) time of day in microseconds.
func usOf(t *testing.T, stamp string) int64 {
	t.Helper()
	var h, m, sec, ms int64
	if _, err := fmt.Sscanf(stamp, "%2d%2d%2d.%3d", &h, &m, &sec, &ms); err != nil {
		t.Fatalf("stamp %q: %v", stamp, err)
	}
	return ((h*60+m)*60+sec)*1e6 + ms*1000
}

// A run of lines two hours ahead longer than the minute lines are held
// for: the first of them are handed on before the line back shows them
// wrong, and stay as read (the warning counts them); the last minute's
// are read two hours earlier, and the lines after the run at their
// stamps, not two hours later.
func TestLongRunStampedFarAhead(t *testing.T) {
	cl, sv := genLog(5, 30000) // about 150 s of lines
	files := func(server []string) []File {
		return []File{{Name: "c/ULOG.030126", Text: text(cl)}, {Name: "s/ULOG.030126", Text: text(server)}}
	}
	want, err := Read(files(sv))
	if err != nil {
		t.Fatal(err)
	}
	// from the line at 10:00:30 to the one before 10:02:00, two hours ahead
	first := slices.IndexFunc(sv, func(l string) bool { return l[:6] >= "100030" })
	end := slices.IndexFunc(sv, func(l string) bool { return l[:6] >= "100200" })
	ahead := slices.Clone(sv)
	for i := first; i < end; i++ {
		ahead[i] = "12" + ahead[i][2:]
	}
	got, err := Read(files(ahead))
	if err != nil {
		t.Fatal(err)
	}
	// one warning: no step of the clock, and the lines after the run are
	// not taken as behind those of it handed on (as late)
	if w := got.Warnings; len(w) != 1 || !strings.HasPrefix(w[0], fmt.Sprintf("s/ULOG.030126:%d: %d lines of s from there stamped 12:00:30", first+1, end-first)) ||
		!strings.HasSuffix(w[0], "handed on already, at their stamps)") {
		t.Errorf("warnings %q: want one, naming the run and counting those handed on", w)
	}
	// what starts after the run is read at its stamps: no execution
	// starts after the log's end but those the run's first lines opened
	// (read at their stamps, two hours on)
	late := 0
	for _, e := range got.Executions {
		if e.StartUS > want.LastUS {
			late++
		}
	}
	if late == 0 || late > end-first {
		t.Errorf("%d executions start after the log's end, want some (the run's first minute) and at most the run's %d lines", late, end-first)
	}
	clients := 0
	for _, a := range got.Arrivals {
		if got.Name(a.Host) == "c" {
			clients++
		}
	}
	if clients != 30000 {
		t.Errorf("%d arrivals from c, want 30 000 (the client's lines are not the server's)", clients)
	}
}
