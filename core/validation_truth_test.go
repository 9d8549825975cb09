package core

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// truthUBB is one machine with one MSSQ set: three simpserv instances on
// queue Q1, offering QA and QB.
const truthUBB = "*RESOURCES\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=site1\n*GROUPS\nG1 LMID=site1 GRPNO=1\n" +
	"*SERVERS\nsimpserv SRVGRP=G1 SRVID=1 MIN=3 MAX=3 RQADDR=Q1 REPLYQ=Y CLOPT=\"-s QA,QB\"\n"

// truthScenario is the scenario a log is made by: QA exponential of mean
// 10 ms × scale, QB 20 ms × scale; at 100 and 40 requests a second the
// three servers are 60% busy (scale 1).
func truthScenario(scale float64, trace string, seed uint64) *scenario.Scenario {
	return &scenario.Scenario{UBBConfig: truthUBB, Seed: &seed,
		Services: map[string]scenario.ServiceSpec{
			"QA": {ServiceTime: &scenario.Dist{Dist: "exp", MeanMS: f(10 * scale)}},
			"QB": {ServiceTime: &scenario.Dist{Dist: "exp", MeanMS: f(20 * scale)}}},
		Workload: scenario.Workload{TraceCSV: trace}}
}

// truthLog is a production log made from the true scenario: Poisson
// arrivals of QA (100/s) and QB (40/s) for 60 s, drawn from a fixed seed,
// played on the true scenario (seed 7), each row's response taken from the
// dispatch log (reply_us - issue_us) as its observed_ms.
func truthLog(t *testing.T) string { return truthLogOf(t, 1, 2024, 7, 60000) }

// truthLogOf is a production log of spanMS made from the true scenario of
// service times × scale: arrivals drawn from arrivalSeed, played with
// runSeed.
func truthLogOf(t *testing.T, scale float64, arrivalSeed, runSeed uint64, spanMS float64) string {
	t.Helper()
	r := rng.New(arrivalSeed, 0)
	var rows []string
	type stream struct {
		svc  string
		rate float64
	}
	next := map[string]float64{}
	streams := []stream{{"QA", 100}, {"QB", 40}}
	for _, s := range streams {
		next[s.svc] = r.ExpFloat64() * 1000 / s.rate
	}
	for id := 1; ; id++ {
		s := streams[0]
		if next["QB"] < next["QA"] {
			s = streams[1]
		}
		at := next[s.svc]
		if at >= spanMS {
			break
		}
		rows = append(rows, fmt.Sprintf("%.3f,%s,r%d", at, s.svc, id))
		next[s.svc] = at + r.ExpFloat64()*1000/s.rate
	}
	plain := "time_ms,service,id\n" + strings.Join(rows, "\n") + "\n"
	var dl bytes.Buffer
	if _, err := Run(truthScenario(scale, plain, runSeed), RunOptions{Dispatch: &dl}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&dl).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	resp := map[string]string{}
	for _, rec := range recs[1:] { // id,service,origin,issue_us,...,reply_us,reason
		issue, _ := strconv.ParseInt(rec[3], 10, 64)
		reply, _ := strconv.ParseInt(rec[9], 10, 64)
		resp[rec[0]] = strconv.FormatFloat(float64(reply-issue)/1000, 'f', 3, 64)
	}
	var b strings.Builder
	b.WriteString("time_ms,service,id,observed_ms\n")
	for _, row := range rows {
		id := row[strings.LastIndexByte(row, ',')+1:]
		if resp[id] == "" {
			t.Fatalf("request %s has no reply in the true run", id)
		}
		b.WriteString(row + "," + resp[id] + "\n")
	}
	return b.String()
}

// validate replays log on the scenario of service times × scale with
// replications and the tolerances.
func validate(t *testing.T, log string, scale float64, reps int, tol *scenario.Tolerance, afterMS *float64) *result.Validation {
	t.Helper()
	return validateSeed(t, log, scale, reps, tol, afterMS, 1) // another seed than the log's: other service times
}

// validateSeed is validate with the replay's seed.
func validateSeed(t *testing.T, log string, scale float64, reps int, tol *scenario.Tolerance, afterMS *float64, seed uint64) *result.Validation {
	t.Helper()
	sc := truthScenario(scale, log, seed)
	sc.Replications = reps
	sc.Validation = &scenario.ValidationOptions{Tolerance: tol, AfterMS: afterMS}
	res, err := Run(sc, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Validation == nil {
		t.Fatal("no validation block")
	}
	return res.Validation
}

// TestValidationKnownTruth: a log made by a known scenario passes against
// that scenario and fails against one whose service times are 20% too
// long, with 10 replications and a tolerance of 15% on every figure but
// the p99 (25%). The tolerances are what the intervals of about 6000 and
// 2400 rows allow: of independent rows, the observed p50 of 2400 would lie
// between x(1152) and x(1249), the quantiles 0.480 and 0.520 (about ±5% of
// an exponential-like response), its p99 between x(2366) and x(2386) (the
// quantiles 0.986 and 0.994: -7% and +12% of an exponential); but the
// rows share their arrivals' bursts, and the batches widen the tail's
// interval (how often a batch's rows pass the p99 varies from burst to
// burst): about ±17% for the p99. 20 batch means give the mean ±8%; the
// simulated intervals add a few per cent. Service times 20%
// longer load the servers 72% instead of 60%, and the M/M/3 mean response
// grows by about half (Erlang C from 0.35 to 0.52): far past 15%.
func TestValidationKnownTruth(t *testing.T) {
	log := truthLog(t)
	tol := &scenario.Tolerance{Default: f(0.15), P99: f(0.25)}
	right := validate(t, log, 1, 10, tol, nil)
	if right.Verdict != result.Pass || len(right.Services) != 2 || right.Replications != 10 {
		t.Errorf("the true scenario: got verdict %q over %d services and %d replications, want pass over 2 and 10",
			right.Verdict, len(right.Services), right.Replications)
	}
	for _, s := range right.Services {
		if s.Verdict != result.Pass {
			t.Errorf("the true scenario, %s: got %q (%+v, relative intervals mean %v p50 %v p95 %v p99 %v), want pass",
				s.Service, s.Verdict, s.Verdicts, s.RelativeCI.Mean, s.RelativeCI.P50, s.RelativeCI.P95, s.RelativeCI.P99)
		}
		if s.SimulatedCI == nil || s.KS == nil || s.KS.SimulatedBatches != 10*s.KS.ObservedBatches || s.KS.ObservedBatches != 20 {
			t.Errorf("%s: want simulated intervals and a KS test of 20 observed batches against 10 × 20, got %+v %+v", s.Service, s.SimulatedCI, s.KS)
		} else if s.KS.PValue < 0.05 {
			t.Errorf("%s: the true scenario's batch means differ from the log's (KS p %v)", s.Service, s.KS.PValue)
		}
		if d := s.ThroughputPerS.Simulated/s.ThroughputPerS.Observed - 1; d < -0.01 || d > 0.01 {
			t.Errorf("%s: throughput %+v, want the same within 1%%", s.Service, s.ThroughputPerS)
		}
	}
	wrong := validate(t, log, 1.2, 10, tol, nil)
	if wrong.Verdict != result.Fail {
		t.Errorf("service times 20%% too long: got verdict %q, want fail", wrong.Verdict)
	}
	for _, s := range wrong.Services {
		if s.Verdict != result.Fail || s.Verdicts.Mean != result.Fail {
			t.Errorf("service times 20%% too long, %s: verdict %q, mean's %q (relative interval %v), want fail", s.Service, s.Verdict, s.Verdicts.Mean, s.RelativeCI.Mean)
		}
		if s.KS == nil || s.KS.PValue > 0.001 {
			t.Errorf("service times 20%% too long, %s: KS %+v, want p below 0.001", s.Service, s.KS)
		}
	}
}

// TestValidationHoldOut: validation.after_ms compares only the rows issued
// at or after it, and the throughput window starts there.
func TestValidationHoldOut(t *testing.T) {
	log := truthLog(t)
	full := validate(t, log, 1, 1, nil, nil)
	held := validate(t, log, 1, 1, nil, f(30000))
	var early int64
	for _, line := range strings.Split(strings.TrimSpace(log), "\n")[1:] {
		at, _ := strconv.ParseFloat(line[:strings.IndexByte(line, ',')], 64)
		if at < 30000 {
			early++
		}
	}
	if *held.FromMS != 30000 || *full.FromMS != 0 {
		t.Errorf("from_ms: got %v and %v, want 0 and 30000", *full.FromMS, *held.FromMS)
	}
	if got, want := held.Overall.Observed.Count, full.Overall.Observed.Count-early; got != want {
		t.Errorf("observed rows after 30 s: got %d, want %d (%d in all, %d before)", got, want, full.Overall.Observed.Count, early)
	}
	if held.Overall.Simulated.Count > held.Overall.Observed.Count {
		t.Errorf("simulated rows after 30 s: got %d, more than the %d observed", held.Overall.Simulated.Count, held.Overall.Observed.Count)
	}
	if past := validate(t, log, 1, 1, nil, f(1e9)); past.Verdict != result.Inconclusive || len(past.Services) != 0 {
		t.Errorf("a window past the log's end: verdict %q over %d services, want inconclusive over none", past.Verdict, len(past.Services))
	}
	if *held.Tolerance != (result.Tolerances{Mean: 0.1, P50: 0.1, P95: 0.15, P99: 0.2}) || held.Replications != 1 || held.Overall.SimulatedCI != nil {
		t.Errorf("defaults: got tolerance %+v, replications %d, simulated interval %v; want 0.1, 0.1, 0.15, 0.2, 1, none", held.Tolerance, held.Replications, held.Overall.SimulatedCI)
	}
}
