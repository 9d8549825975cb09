package ulog

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// longLog writes two machines' ULOGs of n requests gapMS apart on average
// (from 08:00): a client process on node1 calls X (7 in 10) or Y on NODE2,
// 2 ms away each way; 7 calls in 10 wait nothing in the queue, the others
// up to 10 ms; X works 3 to 8 ms, Y 10 to 20. One call in 50 is of a
// service NONE that is not offered (tpcall fails with TPENOENT: no
// arrival). One request in 10 is an execution of Z on NODE2 that no traced
// process called (an arrival at NODE2, of weight 1), and half of Y's
// executions have a twin nobody traced called (weight 1/3 each of Y's
// executions: Y's client calls are arrivals of weight 1, and so are a
// third of its executions, counted at NODE2).
func longLog(seed uint64, n int, gapMS int64) []File {
	r := rand.New(rand.NewPCG(seed, 7))
	type line struct {
		us   int64
		text string
	}
	var cl, sv []line
	add := func(to *[]line, us int64, tag, what string) {
		*to = append(*to, line{us, stamp(us) + "." + tag + ": TRACE:at: " + what})
	}
	t := int64(8 * 3600e6)
	for i := range n {
		t += 1000*gapMS/2 + r.Int64N(1000*gapMS)
		ctag := fmt.Sprintf("node1!clt.%d.1.0", 1000+i)
		stag := fmt.Sprintf("NODE2!srv.%d.1.1", 200+i%8)
		switch {
		case i%10 == 9:
			add(&sv, t, stag, `{ tpservice({"Z", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})`)
			add(&sv, t+2000+r.Int64N(3000), stag, `} tpservice`)
			continue
		case i%50 == 7:
			add(&cl, t, ctag, `{ tpcall("NONE", 0x0, 0, 0x0, 0x0, 0x0)`)
			add(&cl, t+300, ctag, `} tpcall = -1 [TPENOENT]`)
			continue
		}
		svc, work := "X", 3000+r.Int64N(5000)
		if r.IntN(10) >= 7 {
			svc, work = "Y", 10000+r.Int64N(10000)
		}
		wait := int64(0)
		if r.IntN(10) >= 7 {
			wait = r.Int64N(10000)
		}
		start := t + 2000 + wait
		end := start + work
		add(&cl, t, ctag, fmt.Sprintf(`{ tpcall("%s", 0x0, 0, 0x0, 0x0, 0x0)`, svc))
		add(&sv, start, stag, fmt.Sprintf(`{ tpservice({"%s", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})`, svc))
		add(&sv, end, stag, `} tpservice`)
		add(&cl, end+2000, ctag, `} tpcall = 1`)
		if svc == "Y" && r.IntN(2) == 0 {
			twin := fmt.Sprintf("NODE2!srv.%d.1.1", 300+i%4)
			add(&sv, t+500, twin, `{ tpservice({"Y", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})`)
			add(&sv, t+500+work, twin, `} tpservice`)
		}
	}
	text := func(ls []line) string {
		slices.SortStableFunc(ls, func(a, b line) int { return cmpUS(a.us, b.us) })
		var b strings.Builder
		for _, l := range ls {
			b.WriteString(l.text)
			b.WriteByte('\n')
		}
		return b.String()
	}
	return []File{{Name: "node1/ULOG.010226", Text: text(cl)}, {Name: "node2/ULOG.010226", Text: text(sv)}}
}

// mustRead reads files with o.
func mustRead(t *testing.T, files []File, o Options) *Log {
	t.Helper()
	lg, err := ReadWith(files, o)
	if err != nil {
		t.Fatal(err)
	}
	return lg
}

// weights sums a log's arrivals' weights by service and host.
func weights(lg *Log) map[[2]string]float64 {
	out := map[[2]string]float64{}
	for _, a := range lg.Arrivals {
		out[[2]string{lg.Name(a.Service), lg.Name(a.Host)}] += a.Weight
	}
	return out
}

// held counts the records a read log holds of its requests: spans, arrivals
// (or minutes' counts), service times; and, of the walk, the executions'
// starts it kept for the arrivals no traced process called.
func held(lg *Log) (spans, arrivals, samples int) {
	for _, s := range lg.Services {
		samples += len(s.OwnUS)
	}
	return len(lg.CallSpans) + len(lg.Executions), len(lg.Arrivals), samples
}

// A long log read with a bound on what it keeps one by one (Options.Keep):
// what it holds stops growing with its length, and what it says is the
// same, or measured on fewer calls.
//
// By hand, for 8 000 requests 0.5 s apart on average (about 67 minutes):
// read whole, 7 040 calls of X and Y (one in 10 is an execution of Z, one
// in 50 a call of NONE) are 7 040 call spans and as many executions, plus
// the 800 of Z and Y's twins (about 7 040 · 0.3 · 0.5 ≈ 1 056): some 16 000
// spans, and 7 040 + 800 + 1 056 arrivals. With Keep 3 000 the records
// pass the bound early: the arrivals are counted by minute from there on (at
// most one record a minute for each service and host: X, Y from node1, Y
// and Z at NODE2, about 4 · 68), and the spans are those of one second in
// 2^k, k the least with under 1 500 of them (the executions: of such a
// second or the next) as far as the length read allows (2^k seconds at
// most a 64th of it): 16 000 / 2^k · (about 1.5 for the executions' next
// seconds) < 1 500 gives k = 4, some 1 000 to 1 500 spans, and up to twice
// that before the next thinning. Four times as
// long a log (32 000 requests, 4.4 hours) holds the same spans' bound and
// four times the minutes' counts; read whole it would hold four times
// everything.
//
// What it says: the arrivals' weights by service and host are the same
// sums (a minute's count is its requests' weights added up), the first and
// last arrival's times are the same, every service's executions and times
// the same (the times are not thinned below SamplesKept), and the latency,
// 2 ms each way, is measured within half a millisecond on fewer calls.
func TestKeepBoundsALongLog(t *testing.T) {
	machine := func(h string) string { return strings.ToLower(h) }
	var bound [2]int
	for i, n := range []int{8000, 32000} {
		files := longLog(uint64(n), n, 500)
		whole, lg := mustRead(t, files, Options{}), mustRead(t, files, Options{Keep: 3000})
		if whole.KeptOneIn != 1 || whole.ArrivalsBinned {
			t.Fatalf("n=%d read whole: kept one in %d, binned %v", n, whole.KeptOneIn, whole.ArrivalsBinned)
		}
		spans, arrivals, samples := held(lg)
		wSpans, wArrivals, wSamples := held(whole)
		t.Logf("n=%d: spans %d (whole %d), arrivals %d (%d), samples %d (%d); one second in %d", n, spans, wSpans, arrivals, wArrivals, samples, wSamples, lg.KeptOneIn)
		minutes := int((lg.LastUS-lg.FirstUS)/minuteUS) + 2
		if !lg.ArrivalsBinned || lg.KeptOneIn < 2 || spans > 3000 || arrivals > 4*minutes {
			t.Errorf("n=%d: binned %v, one second in %d, %d spans (want at most 3000), %d arrivals' records (want at most %d)",
				n, lg.ArrivalsBinned, lg.KeptOneIn, spans, arrivals, 4*minutes)
		}
		bound[i] = spans
		if !reflect.DeepEqual(lg.Services, whole.Services) {
			t.Errorf("n=%d: services differ from the log read whole", n)
		}
		ws, w := weights(whole), weights(lg)
		for k, v := range ws {
			if math.Abs(w[k]-v) > 1e-6*v {
				t.Errorf("n=%d: %v: arrivals weigh %g, read whole %g", n, k, w[k], v)
			}
		}
		if len(w) != len(ws) || len(ws) != 4 {
			t.Errorf("n=%d: arrivals of %v, read whole %v (want X and Y from node1, Y and Z at NODE2)", n, w, ws)
		}
		if lg.ArrivalsFirstUS != whole.Arrivals[0].TimeUS || lg.ArrivalsLastUS != whole.Arrivals[len(whole.Arrivals)-1].TimeUS {
			t.Errorf("n=%d: arrivals from %d to %d, read whole %d to %d", n, lg.ArrivalsFirstUS, lg.ArrivalsLastUS,
				whole.Arrivals[0].TimeUS, whole.Arrivals[len(whole.Arrivals)-1].TimeUS)
		}
		if !reflect.DeepEqual(lg.Inferred, whole.Inferred) || len(lg.Inferred) != 1 {
			t.Errorf("n=%d: inferred %v, read whole %v (want Y at NODE2)", n, lg.Inferred, whole.Inferred)
		}
		lat, wLat := lg.Latency(machine), whole.Latency(machine)
		if math.Abs(lat.MS-2) > 0.5 || math.Abs(wLat.MS-2) > 0.5 || lat.Samples >= wLat.Samples/4 || lat.Samples < 100 {
			t.Errorf("n=%d: latency %+v, read whole %+v: want 2 ± 0.5 ms, on at least 100 calls and a quarter of the whole's", n, lat, wLat)
		}
	}
	if bound[1] > 3000 || bound[0] > 3000 {
		t.Errorf("spans held %v, want at most 3000 at either length", bound)
	}
}

// A service's times past Options.Samples are a uniform sample of that many
// (a reservoir): the same on each reading, as many as asked, of every part
// of the log. By hand: X's times are 3 to 8 ms, uniform, about 5 000 of
// them in 8 000 requests; 1 000 kept are a fifth, drawn uniformly, so their
// mean is X's within 5 standard errors (1.44 ms / √1000 = 0.046 ms each:
// 0.23 ms); and of 10 000 times offered in turn, about a third of the 1 000
// kept are of the first third (within 5 binomial standard errors,
// √(1000·2/9) = 15: 75).
func TestKeepSamplesAReservoir(t *testing.T) {
	files := longLog(5, 8000, 500)
	whole, a, b := mustRead(t, files, Options{}), mustRead(t, files, Options{Samples: 1000}), mustRead(t, files, Options{Samples: 1000})
	x, wx := a.Services["X"], whole.Services["X"]
	if !reflect.DeepEqual(x, b.Services["X"]) {
		t.Fatal("two readings kept different samples")
	}
	if len(x.OwnUS) != 1000 || len(x.OwnSpans) != 1000 || x.Timed != wx.Timed || wx.Timed != len(wx.OwnUS) || x.Executions != wx.Executions {
		t.Fatalf("X: %d times of %d timed (whole: %d of %d), want 1000 of the whole's", len(x.OwnUS), x.Timed, len(wx.OwnUS), wx.Timed)
	}
	mean := func(v []int64) float64 {
		s := 0.0
		for _, u := range v {
			s += float64(u)
		}
		return s / float64(len(v))
	}
	if d := math.Abs(mean(x.OwnUS) - mean(wx.OwnUS)); d > 230 {
		t.Errorf("X's sample mean %.0f µs, the whole's %.0f: %.0f apart, want within 230", mean(x.OwnUS), mean(wx.OwnUS), d)
	}
	// where the kept ones are in the order of the times offered (the log's
	// are whole milliseconds, not told apart): 10 000 numbered times
	w := newWalker(&Log{}, nil, Options{Samples: 1000})
	s := &Service{}
	for i := range 10000 {
		w.timed(s, int64(i), 1)
	}
	early := 0
	for _, u := range s.OwnUS {
		if u < 10000/3 {
			early++
		}
	}
	if len(s.OwnUS) != 1000 || s.Timed != 10000 || math.Abs(float64(early)-1000.0/3) > 75 {
		t.Errorf("%d kept of %d, %d of them of the first third, want 1000 of 10000, about 333 (within 75)", len(s.OwnUS), s.Timed, early)
	}
}
