package sweep

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// End-to-end checks of the answers' statistical claims against queueing
// theory: the engine runs an M/M/c queue (one MSSQ set of c servers,
// Poisson arrivals at λ = 400/s, exponential service of mean 10 ms, so
// a = 4 erlangs), whose mean wait and wait percentiles Erlang C gives
// exactly, and optimize and sweep are judged against those truths.
//
// The long measurements run only with TUXLB_THEORY_TRIALS=N (N seeds per
// case); by default a short version runs.

const (
	mmcLambda = 400.0 // arrivals per second
	mmcMu     = 100.0 // services per second per server
)

// mmcWait is the Erlang C mean wait (ms) of the set with c servers.
func mmcWait(c int) float64 {
	return erlangC(c, mmcLambda/mmcMu) / (float64(c)*mmcMu - mmcLambda) * 1000
}

// mmcWaitQuantile is the p-quantile (ms) of the wait: P(W > t) =
// C(c, a)·exp(−(cμ − λ)t), so t = ln(C/(1 − p))/(cμ − λ), 0 when fewer
// than 1 − p wait at all.
func mmcWaitQuantile(c int, p float64) float64 {
	cc := erlangC(c, mmcLambda/mmcMu)
	if cc <= 1-p {
		return 0
	}
	return math.Log(cc/(1-p)) / (float64(c)*mmcMu - mmcLambda) * 1000
}

// mmcScenario is the M/M/c set with MIN=c (MAX=8: instances past MIN are
// spares, never booted), measured for durationMS after a warm-up of
// warmupMS, with the given seed.
func mmcScenario(t testing.TB, c int, seed uint64, warmupMS, durationMS int) *scenario.Scenario {
	t.Helper()
	ubb := fmt.Sprintf("*RESOURCES\nIPCKEY 123456\nMASTER SITE1\nMODEL SHM\nLDBAL Y\n\n*MACHINES\nnode1 LMID=SITE1 APPDIR=\"/a\" TUXCONFIG=\"/a/t\" TUXDIR=\"/t\"\n\n*GROUPS\nAPP LMID=SITE1 GRPNO=1\n\n*SERVERS\nmmcsrv SRVGRP=APP SRVID=1 MIN=%d MAX=8 RQADDR=\"MMCQ\" REPLYQ=Y CLOPT=\"-s SVC --\"\n\n*SERVICES\nSVC LOAD=50\n", c)
	text := fmt.Sprintf(`{"name": "M/M/c", "ubbconfig": %q,
  "services": {"SVC": {"service_time": {"dist": "exp", "mean_ms": %v}}},
  "seed": %d, "warmup_ms": %d,
  "workload": {"generate": {"duration_ms": %d, "streams": [{"service": "SVC", "arrivals": "poisson", "rate_per_s": %v}]}}}`,
		ubb, 1000/mmcMu, seed, warmupMS, warmupMS+durationMS, mmcLambda)
	sc, err := core.ParseScenario([]byte(text))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return sc
}

// theoryTrials is TUXLB_THEORY_TRIALS, 0 when unset.
func theoryTrials(t *testing.T) int {
	s := os.Getenv("TUXLB_THEORY_TRIALS")
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("TUXLB_THEORY_TRIALS=%q: want a number of trials", s)
	}
	return n
}

// parallel is a Runner over two workers (the long measurements only).
func parallel(o *Optimizer) Runner {
	return func(units []Unit) ([][]float64, error) {
		out := make([][]float64, len(units))
		errs := make([]error, len(units))
		twoWorkers(len(units), func(k int) {
			out[k], errs[k] = o.Evaluate(units[k].Point, units[k].Rep, core.RunOptions{})
		})
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// twoWorkers calls work(k) for k in [0, n) on two goroutines.
func twoWorkers(n int, work func(k int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				work(k)
			}
		}()
	}
	for k := range n {
		next <- k
	}
	close(next)
	wg.Wait()
}

// searchMIN runs optimize spec on sc, over parallel's two workers or one
// run at a time, and returns its result and the MIN it chose ("none").
func searchMIN(t testing.TB, sc *scenario.Scenario, spec OptimizeSpec, par bool) (*Optimization, string) {
	t.Helper()
	o, err := CompileOptimize(sc, spec)
	if err != nil {
		t.Fatal(err)
	}
	run := Sequential(func(p, r int) ([]float64, error) { return o.Evaluate(p, r, core.RunOptions{}) })
	if par {
		run = parallel(o)
	}
	res, err := o.Run(run)
	if err != nil {
		t.Fatal(err)
	}
	pick := "none"
	if res.Chosen != nil {
		pick = fmt.Sprint(res.Chosen.Values["SERVERS.mmcsrv.MIN"])
	}
	return res, pick
}

// optCase is an optimization over MIN=2..8 whose right answers are known
// from Erlang C.
type optCase struct {
	name       string
	vary       string // default MIN=2..8/1
	objectives []string
	pcs        float64
	right      []int // the choices the guarantee allows
}

// TestOptimizeTheoryMeasure counts, over TUXLB_THEORY_TRIALS seeds per
// case (TUXLB_THEORY_CASE: only the case whose name starts so), how often
// optimize chooses right, the replications it spends and how often the
// intervals it reports hold the Erlang C figure.
func TestOptimizeTheoryMeasure(t *testing.T) {
	trials := theoryTrials(t)
	if trials == 0 {
		t.Skip("set TUXLB_THEORY_TRIALS=N to measure over N seeds")
	}
	for c := 5; c <= 8; c++ {
		t.Logf("c=%d: Erlang C wait mean %.4f ms, p95 %.4f ms, p99 %.4f ms", c, mmcWait(c), mmcWaitQuantile(c, 0.95), mmcWaitQuantile(c, 0.99))
	}
	eps := DefaultEpsilon
	// A: MIN=5's mean wait is 1% past the zone's edge, limit × (1 + ε)
	// (least favourable on the infeasible side); the p95 is met by every
	// c ≥ 5 by far.
	xA := mmcWait(5) / ((1 + eps) * 1.01)
	// B: MIN=6's wait p95 is 1% inside the zone's edge, limit × (1 − ε)
	// (least favourable on the feasible side); MIN=5 misses both by far.
	yB := mmcWaitQuantile(6, 0.95) / ((1 - eps) * 0.99)
	// C: MIN=5 misses the mean wait by 2%, inside ε: 5 and 6 are both right.
	xC := mmcWait(5) / 1.02
	cases := []optCase{
		{"A least favourable, infeasible side", "", []string{fmt.Sprintf("wait_mean_ms<=%.4f", xA), "wait_p95_ms<=30"}, 0, []int{6}},
		{"B least favourable, feasible side", "", []string{"wait_mean_ms<=3", fmt.Sprintf("wait_p95_ms<=%.4f", yB)}, 0, []int{6}},
		{"C truth inside the zone", "", []string{fmt.Sprintf("wait_mean_ms<=%.4f", xC), "wait_p95_ms<=30"}, 0, []int{5, 6}},
		// D, E: two configurations and one objective, so that the whole
		// error 1 − PCS rests on the two decisions at the edge of the zone.
		{"D two configurations, least favourable, infeasible side", "SERVERS.mmcsrv.MIN=5,6", []string{fmt.Sprintf("wait_mean_ms<=%.4f", xA)}, 0, []int{6}},
		{"E two configurations, PCS 0.75, infeasible side", "SERVERS.mmcsrv.MIN=5,6", []string{fmt.Sprintf("wait_mean_ms<=%.4f", xA)}, 0.75, []int{6}},
		{"F two configurations, PCS 0.75, feasible side", "SERVERS.mmcsrv.MIN=6,7", []string{fmt.Sprintf("wait_p95_ms<=%.4f", yB)}, 0.75, []int{6}},
	}
	only := os.Getenv("TUXLB_THEORY_CASE")
	for _, oc := range cases {
		if only != "" && !strings.HasPrefix(oc.name, only) {
			continue
		}
		t.Run(oc.name, func(t *testing.T) {
			picks := map[string]int{}
			var right, spent, fullGrid, capped, maxSpent int
			var spent5 []int
			// the reported 95% intervals against the truth, per
			// configuration, objective and how it ended
			type cover struct{ in, n int }
			covers := map[string]*cover{}
			truth := map[string]func(c int) float64{
				"wait_mean_ms": mmcWait,
				"wait_p95_ms":  func(c int) float64 { return mmcWaitQuantile(c, 0.95) },
			}
			for trial := range trials {
				sc := mmcScenario(t, 2, uint64(1000+trial), 2000, 60000)
				vary := oc.vary
				if vary == "" {
					vary = "SERVERS.mmcsrv.MIN=2..8/1"
				}
				res, pick := searchMIN(t, sc, OptimizeSpec{Vary: []string{vary}, Objectives: oc.objectives, PCS: oc.pcs}, true)
				picks[pick]++
				for _, r := range oc.right {
					if pick == strconv.Itoa(r) {
						right++
					}
				}
				if trial == 0 {
					t.Logf("\n%s", EncodeOptimizationText(res))
				}
				for _, r := range res.Rejected {
					if fmt.Sprint(r.Values["SERVERS.mmcsrv.MIN"]) == "5" {
						spent5 = append(spent5, r.Replications)
					}
				}
				if res.Chosen != nil && fmt.Sprint(res.Chosen.Values["SERVERS.mmcsrv.MIN"]) == "5" {
					spent5 = append(spent5, res.Chosen.Replications)
				}
				var all []OptConfig
				if res.Chosen != nil {
					all = append(all, *res.Chosen)
				}
				all = append(append(all, res.Rejected...), res.RunnersUp...)
				for _, cfg := range all {
					c := int(mustFloat(t, cfg.Values["SERVERS.mmcsrv.MIN"]))
					if c < 5 {
						continue
					}
					for j, e := range cfg.Objectives {
						fig := res.Objectives[j].Figure
						k := fmt.Sprintf("c=%d %s %s", c, fig, cfg.Status)
						if covers[k] == nil {
							covers[k] = &cover{}
						}
						covers[k].n++
						if math.Abs(e.Mean-truth[fig](c)) <= e.CI95 {
							covers[k].in++
						}
					}
				}
				spent += res.Replications.Spent
				maxSpent = max(maxSpent, res.Replications.Spent)
				fullGrid += res.Replications.FullGrid
				if strings.Contains(res.Guarantee, "capped") {
					capped++
				}
			}
			var s5 float64
			for _, n := range spent5 {
				s5 += float64(n)
			}
			t.Logf("%s: objectives %v, right %v: %d of %d right (%.3f); picks %v; replications spent %.1f per trial (max %d), full grid %.1f; MIN=5 ran %.1f on average; %d trials with capped decisions",
				oc.name, oc.objectives, oc.right, right, trials, float64(right)/float64(trials), picks,
				float64(spent)/float64(trials), maxSpent, float64(fullGrid)/float64(trials), s5/float64(max(1, len(spent5))), capped)
			keys := make([]string, 0, len(covers))
			for k := range covers {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				t.Logf("reported interval covers the truth: %s: %d of %d (%.3f)", k, covers[k].in, covers[k].n, float64(covers[k].in)/float64(covers[k].n))
			}
		})
	}
}

// TestSweepTheoryMeasure counts, over TUXLB_THEORY_TRIALS sweeps of
// MIN=5..8 (TUXLB_THEORY_REPS replications, default 10, or with
// TUXLB_THEORY_PRECISION a precision), how often each point's 95% interval
// holds the Erlang C figure, and the verdicts on three objectives: the
// mean wait's limit at MIN=5's, the p95's 3.5% above MIN=6's, the mean
// response's 2% below MIN=6's.
func TestSweepTheoryMeasure(t *testing.T) {
	trials := theoryTrials(t)
	if trials == 0 {
		t.Skip("set TUXLB_THEORY_TRIALS=N to measure over N seeds")
	}
	reps := 10
	if s := os.Getenv("TUXLB_THEORY_REPS"); s != "" {
		reps, _ = strconv.Atoi(s)
	}
	var precision float64
	if s := os.Getenv("TUXLB_THEORY_PRECISION"); s != "" {
		precision, _ = strconv.ParseFloat(s, 64)
	}
	objectives := []string{fmt.Sprintf("wait_mean_ms<=%.4f", mmcWait(5)), "wait_p95_ms<=9", "response_mean_ms<=11.2"}
	truth := map[string]func(c int) float64{
		"wait_mean_ms":     mmcWait,
		"wait_p95_ms":      func(c int) float64 { return mmcWaitQuantile(c, 0.95) },
		"wait_p99_ms":      func(c int) float64 { return mmcWaitQuantile(c, 0.99) },
		"response_mean_ms": func(c int) float64 { return mmcWait(c) + 1000/mmcMu },
	}
	figs := []string{"wait_mean_ms", "wait_p95_ms", "wait_p99_ms", "response_mean_ms"}
	type tally struct {
		covered, low, high int     // truth inside, below, above the interval
		sum                float64 // of the point means
		n, reps            int
	}
	tallies := map[string]*tally{}
	verdicts := map[string]int{}
	var mu sync.Mutex
	twoWorkers(trials, func(trial int) {
		sc := mmcScenario(t, 5, uint64(5000+trial), 2000, 60000)
		s, err := Compile(sc, Spec{Vary: []string{"SERVERS.mmcsrv.MIN=5..8/1"}, Replications: reps, Objectives: objectives,
			Figures: []string{"wait_p99_ms"}, Precision: precision})
		if err != nil {
			t.Error(err)
			return
		}
		res, err := s.Run(core.RunOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		for _, p := range res.Points {
			c := int(mustFloat(t, p.Values["SERVERS.mmcsrv.MIN"]))
			for _, f := range figs {
				k := fmt.Sprintf("c=%d %s", c, f)
				if tallies[k] == nil {
					tallies[k] = &tally{}
				}
				ty, got, want := tallies[k], p.Figures[f], truth[f](c)
				switch {
				case want < got.Mean-got.HalfWidth:
					ty.low++
				case want > got.Mean+got.HalfWidth:
					ty.high++
				default:
					ty.covered++
				}
				ty.sum += got.Mean
				ty.n++
				ty.reps += p.Replications
			}
			for j, v := range p.Verdicts {
				verdicts[fmt.Sprintf("c=%d %s %s", c, objectives[j], v)]++
			}
		}
		mu.Unlock()
	})
	for c := 5; c <= 8; c++ {
		for _, f := range figs {
			ty := tallies[fmt.Sprintf("c=%d %s", c, f)]
			t.Logf("c=%d %-17s truth %9.4f, mean of the means %9.4f (%+.2f%%): covered %d of %d (%.3f), truth below the interval %d, above %d; %.1f replications per point",
				c, f, truth[f](c), ty.sum/float64(ty.n), 100*(ty.sum/float64(ty.n)/truth[f](c)-1), ty.covered, ty.n, float64(ty.covered)/float64(ty.n), ty.low, ty.high, float64(ty.reps)/float64(ty.n))
		}
		for _, o := range objectives {
			k := fmt.Sprintf("c=%d %s", c, o)
			t.Logf("%s: yes %d, no %d, unsure %d", k, verdicts[k+" yes"], verdicts[k+" no"], verdicts[k+" unsure"])
		}
	}
}

// binomialTail is P(X ≥ k) for X binomial with n trials of probability p.
func binomialTail(n, k int, p float64) float64 {
	var sum float64
	for x := k; x <= n; x++ {
		lg := func(m int) float64 { v, _ := math.Lgamma(float64(m + 1)); return v }
		sum += math.Exp(lg(n) - lg(x) - lg(n-x) + float64(x)*math.Log(p) + float64(n-x)*math.Log(1-p))
	}
	return sum
}

// allowedMisses is the most failures out of n that a claim of failing with
// probability at most p leaves plausible: the smallest b with
// P(X > b) ≤ 0.001 for X binomial(n, p). More than b refutes the claim at
// the 0.1% level.
func allowedMisses(n int, p float64) int {
	b := 0
	for binomialTail(n, b+1, p) > 0.001 {
		b++
	}
	return b
}

func TestAllowedMisses(t *testing.T) {
	// Binomial(20, 0.05): P(X ≥ 5) = 0.0159, P(X ≥ 6) = 0.00033.
	if got := allowedMisses(20, 0.05); got != 5 {
		t.Errorf("allowedMisses(20, 0.05) = %d, want 5", got)
	}
	// Binomial(10, 0.05): P(X ≥ 4) = 0.00103, P(X ≥ 5) = 0.0000637.
	if got := allowedMisses(10, 0.05); got != 4 {
		t.Errorf("allowedMisses(10, 0.05) = %d, want 4", got)
	}
}

// TestTheoryEndToEnd is the short version of the measurements above, on
// fixed seeds: it fails only when the counts refute a claim at the 0.1%
// level (allowedMisses), so a right engine and procedure pass it whatever
// the seeds.
//
//   - sweep: 20 sweeps of MIN=5..8 (5 replications of 20 s after a 2 s
//     warm-up): at each c the 95% interval of the mean wait must hold the
//     Erlang C wait in at least 15 of 20 (if it does with probability
//     0.95, fewer than 15 has probability 0.00033); every objective has a
//     verdict at every point.
//   - optimize: 10 searches over MIN=5,6 for the objective
//     wait_mean_ms <= X, X = Wq(5)/(1.05 × 1.01): MIN=5's wait is 1% past
//     the zone's edge X(1 + ε) (the least favourable case: its wrong
//     acceptance is what the guarantee bounds) and MIN=6 meets by far. With PCS 0.95 at
//     most 4 of 10 may choose anything but MIN=6 (5 or more: 0.000064).
func TestTheoryEndToEnd(t *testing.T) {
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("runs the engine about 650 times (natively a few seconds; the measurements above are the long version)")
	}
	objectives := []string{"wait_mean_ms<=3", "wait_p95_ms<=9", "response_mean_ms<=11.2"}
	const sweeps = 20
	misses := map[int]int{}
	for trial := range sweeps {
		sc := mmcScenario(t, 5, uint64(7000+trial), 2000, 20000)
		s, err := Compile(sc, Spec{Vary: []string{"SERVERS.mmcsrv.MIN=5..8/1"}, Replications: 5, Objectives: objectives})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(core.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Points {
			c := int(mustFloat(t, p.Values["SERVERS.mmcsrv.MIN"]))
			if got := p.Figures["wait_mean_ms"]; math.Abs(got.Mean-mmcWait(c)) > got.HalfWidth {
				misses[c]++
			}
			if len(p.Verdicts) != len(objectives) {
				t.Errorf("seed %d, MIN=%d: %d verdicts for %d objectives", 7000+trial, c, len(p.Verdicts), len(objectives))
			}
		}
	}
	b := allowedMisses(sweeps, 0.05)
	for c := 5; c <= 8; c++ {
		if misses[c] > b {
			t.Errorf("MIN=%d: the 95%% interval of the mean wait missed Erlang C's %.4f ms in %d of %d sweeps: more than %d refutes 95%% coverage", c, mmcWait(c), misses[c], sweeps, b)
		}
	}
	t.Logf("the 95%% intervals of the mean wait missed Erlang C in %v of %d sweeps (MIN: misses)", misses, sweeps)

	limit := mmcWait(5) / ((1 + DefaultEpsilon) * 1.01)
	const searches = 10
	wrong := 0
	for trial := range searches {
		sc := mmcScenario(t, 5, uint64(8000+trial), 2000, 20000)
		res, pick := searchMIN(t, sc, OptimizeSpec{Vary: []string{"SERVERS.mmcsrv.MIN=5,6"}, Objectives: []string{fmt.Sprintf("wait_mean_ms<=%.4f", limit)}}, false)
		if pick != "6" {
			wrong++
			t.Logf("seed %d: not MIN=6:\n%s", 8000+trial, EncodeOptimizationText(res))
		}
	}
	if b := allowedMisses(searches, 1-DefaultPCS); wrong > b {
		t.Errorf("%d of %d searches chose other than MIN=6: more than %d refutes a probability of correct selection of %v", wrong, searches, b, DefaultPCS)
	}
}

// TestOptimizeIntervalsLeanTowardTheDecision: a search stops a
// configuration when the running sum of its violations leaves the
// triangular region, so the mean over the replications it stopped on leans
// toward its decision, and the 95% interval around it is no confidence
// interval of the true figure. The case: MIN=5 waits 5.5411 ms (Erlang
// C), 2% over the limit 5.4325 and inside ε = 5% of it, so choosing MIN=5
// or MIN=6 are both right. With seed 1005 the search chooses MIN=5 after 60
// replications whose mean, 5.274 ± 0.137, holds neither the truth nor the
// limit: its verdict is yes, where the true figure misses. (Over 300 seeds
// the search chose MIN=5 17 times and the interval held the truth once.)
// The report must say its intervals lean so, and how to get one that does
// not.
func TestOptimizeIntervalsLeanTowardTheDecision(t *testing.T) {
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("runs the engine about 100 times")
	}
	limit := 5.4325
	if w := mmcWait(5); !(w > limit && w < limit*(1+DefaultEpsilon)) {
		t.Fatalf("fixture: MIN=5 waits %v ms, want it over %v by less than ε", w, limit)
	}
	sc := mmcScenario(t, 2, 1005, 2000, 60000)
	res, pick := searchMIN(t, sc, OptimizeSpec{Vary: []string{"SERVERS.mmcsrv.MIN=2..8/1"},
		Objectives: []string{fmt.Sprintf("wait_mean_ms<=%v", limit), "wait_p95_ms<=30"}}, false)
	text := string(EncodeOptimizationText(res))
	if pick != "5" {
		t.Fatalf("fixture: seed 1005 no longer chooses MIN=5 (the engine's draws changed?): pick a seed that does\n%s", text)
	}
	e := res.Chosen.Objectives[0]
	if math.Abs(e.Mean-mmcWait(5)) <= e.CI95 || e.Verdict != Yes {
		t.Fatalf("fixture: the chosen interval %v ± %v (verdict %s) holds Erlang C's %v: it shows no lean", e.Mean, e.CI95, e.Verdict, mmcWait(5))
	}
	for _, want := range []string{"lean toward", "not confidence intervals of the true figures", "other seeds"} {
		if !strings.Contains(res.Guarantee, want) {
			t.Errorf("the guarantee does not say %q:\n%s", want, res.Guarantee)
		}
		if !strings.Contains(text, want) {
			t.Errorf("the text report does not say %q:\n%s", want, text)
		}
	}
}

// TestOptimizeShortRunsMeasure: the guarantee asks for figures normal
// enough across replications. A wait p99 of a 1 s run (about 400
// requests) is far from normal; this measures the probability of a correct
// selection in the least favourable case there, the true expectation of
// the figure estimated first from 20 000 runs per configuration.
func TestOptimizeShortRunsMeasure(t *testing.T) {
	trials := theoryTrials(t)
	if trials == 0 {
		t.Skip("set TUXLB_THEORY_TRIALS=N to measure over N seeds")
	}
	fig := "wait_p99_ms"
	if s := os.Getenv("TUXLB_THEORY_FIGURE"); s != "" {
		fig = s
	}
	const warm, dur = 200, 1000
	truth := map[int]float64{}
	for _, c := range []int{5, 6} {
		var xs []float64
		for seed := range 200 {
			sc := mmcScenario(t, c, uint64(90000+seed), warm, dur)
			s, err := Compile(sc, Spec{Vary: []string{fmt.Sprintf("SERVERS.mmcsrv.MIN=%d", c)}, Replications: 100, Figures: []string{fig}})
			if err != nil {
				t.Fatal(err)
			}
			for u := range s.Units() {
				smp, err := s.RunUnit(u, core.RunOptions{})
				if err != nil {
					t.Fatal(err)
				}
				xs = append(xs, smp.Figures[fig])
			}
		}
		var m, m2, m3 float64
		for _, x := range xs {
			m += x
		}
		m /= float64(len(xs))
		for _, x := range xs {
			m2 += (x - m) * (x - m)
			m3 += (x - m) * (x - m) * (x - m)
		}
		m2 /= float64(len(xs))
		m3 /= float64(len(xs))
		truth[c] = m
		t.Logf("MIN=%d: %s of a %d ms run: mean %.4f ± %.4f over %d runs, sd %.4f, skewness %.2f", c, fig, dur, m, 1.96*math.Sqrt(m2/float64(len(xs))), len(xs), math.Sqrt(m2), m3/math.Pow(m2, 1.5))
	}
	limit := truth[5] / ((1 + DefaultEpsilon) * 1.01)
	if truth[6] > limit*(1-2*DefaultEpsilon) {
		t.Fatalf("fixture: MIN=6's %v is not clearly within %v", truth[6], limit)
	}
	for _, pcs := range []float64{0.95, 0.75} {
		picks := map[string]int{}
		spent, capped, cappedWrong := 0, 0, 0
		for trial := range trials {
			sc := mmcScenario(t, 5, uint64(60000+trial), warm, dur)
			res, pick := searchMIN(t, sc, OptimizeSpec{Vary: []string{"SERVERS.mmcsrv.MIN=5,6"}, Objectives: []string{fmt.Sprintf("%s<=%.4f", fig, limit)}, PCS: pcs}, true)
			picks[pick]++
			spent += res.Replications.Spent
			if strings.Contains(res.Guarantee, "marked capped") {
				capped++
				if pick != "6" {
					cappedWrong++
				}
			}
		}
		t.Logf("PCS %v, %s<=%.4f (MIN=5 1%% past the zone's edge): MIN=6 (right) in %d of %d (%.3f); picks %v; %.1f replications per search; %d searches with a capped decision (outside the guarantee), %d of them wrong",
			pcs, fig, limit, picks["6"], trials, float64(picks["6"])/float64(trials), picks, float64(spent)/float64(trials), capped, cappedWrong)
	}
}

// TestOptimizeCappedAdvice: a decision left open at the cap is outside the
// guarantee, and the report says what to do. The mean wait of a 1 s run of
// the M/M/c set varies by 3.6 ms between replications (sd), against an
// indifference zone of 0.25 ms: the triangular region would close after
// h²S²/ε² ≈ 13.4 × 13.2/0.0645 ≈ 2700 replications, so MIN=5, whose mean
// wait (5.39 ms for such runs) is 1% past the zone's edge, is left open
// at the cap. With
// the cap below the most (50 of 100) raising it is advice one can follow;
// at the most (100), it is not, and the report must say what else helps.
func TestOptimizeCappedAdvice(t *testing.T) {
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("runs the engine about 200 times")
	}
	for _, c := range []struct {
		cap          int
		want, refuse string
	}{
		{50, "raise --max-replications", "already the most"},
		{core.MaxReplications, "already the most", "raise --max-replications"},
	} {
		// about 4 searches in 5 are capped: the first seed from 60003 that is
		var res *Optimization
		for seed := uint64(60003); seed < 60013 && (res == nil || !strings.Contains(res.Guarantee, "marked capped")); seed++ {
			sc := mmcScenario(t, 5, seed, 200, 1000)
			res, _ = searchMIN(t, sc, OptimizeSpec{Vary: []string{"SERVERS.mmcsrv.MIN=5,6"}, Objectives: []string{"wait_mean_ms<=5.0809"},
				MaxReplications: c.cap}, false)
		}
		if !strings.Contains(res.Guarantee, "marked capped") {
			t.Fatalf("fixture: cap %d: no decision was capped in 10 seeds:\n%s", c.cap, EncodeOptimizationText(res))
		}
		if !strings.Contains(res.Guarantee, c.want) || strings.Contains(res.Guarantee, c.refuse) {
			t.Errorf("cap %d: the guarantee should say %q and not %q:\n%s", c.cap, c.want, c.refuse, res.Guarantee)
		}
	}
}
