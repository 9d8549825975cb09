package core

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// resultProblems lists every invariant res breaks. A result is either right
// or an error: these hold for every result the engine returns.
//
//   - every issued request is accounted for: issued = completed + failed, per
//     service too, and the services' counts add up to the run's;
//   - 0 <= p50 <= p95 <= p99 <= max, 0 <= mean <= max, for every summary;
//   - 0 <= busy <= measured span, 0 <= utilization <= 1, shares in [0, 1];
//   - series values are not negative, utilizations at most 1;
//   - every float is finite.
func resultProblems(res *result.Result) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	finite := func(name string, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			bad("%s = %v, not finite", name, x)
		}
	}
	summary := func(name string, s result.Summary) {
		for _, f := range []struct {
			n string
			v float64
		}{{"mean", s.Mean}, {"p50", s.P50}, {"p95", s.P95}, {"p99", s.P99}, {"max", s.Max}} {
			finite(name+"."+f.n, f.v)
		}
		if !(0 <= s.P50 && s.P50 <= s.P95 && s.P95 <= s.P99 && s.P99 <= s.Max) {
			bad("%s: want 0 <= p50 <= p95 <= p99 <= max, got %v %v %v %v", name, s.P50, s.P95, s.P99, s.Max)
		}
		if !(0 <= s.Mean && s.Mean <= s.Max) {
			bad("%s: want 0 <= mean <= max, got mean %v max %v", name, s.Mean, s.Max)
		}
		if s.Count < 0 || s.Count == 0 && s != (result.Summary{}) {
			bad("%s: count %d with figures %+v", name, s.Count, s)
		}
	}
	sumFailed := func(m map[string]int64) int64 {
		var n int64
		for _, v := range m {
			n += v
		}
		return n
	}
	rq := res.Requests
	if rq.Issued != rq.Completed+sumFailed(rq.Failed) || rq.Completed < 0 || rq.TimedOut < 0 || rq.TimedOut > rq.Completed {
		bad("requests: issued %d, completed %d, failed %v, timed out %d do not add up", rq.Issued, rq.Completed, rq.Failed, rq.TimedOut)
	}
	finite("span_ms", res.SpanMS)
	if res.SpanMS < 0 {
		bad("span_ms %v < 0", res.SpanMS)
	}
	summary("wait_ms", res.WaitMS)
	summary("response_ms", res.ResponseMS)
	// a TMS request (a transaction's prepare, commit or abort) counts in
	// completed and waits, and in no response: it goes to no caller
	var tmsDone int64
	tmsDoneOf := map[string]int64{} // by service
	for _, s := range res.Servers {
		if s.TMS {
			for _, d := range s.Done {
				tmsDone += d.Requests
				tmsDoneOf[d.Service] += d.Requests
			}
		}
	}
	if res.WaitMS.Count != rq.Completed || res.ResponseMS.Count != rq.Completed-tmsDone {
		bad("wait/response counts %d/%d, want completed %d (%d of them TMS requests, with no response)", res.WaitMS.Count, res.ResponseMS.Count, rq.Completed, tmsDone)
	}
	if res.WaitMS.Max > res.ResponseMS.Max {
		bad("longest wait %v is longer than the longest response %v", res.WaitMS.Max, res.ResponseMS.Max)
	}
	measured := math.Max(res.SpanMS-res.WarmupMS, 0)
	var served int64
	for _, s := range res.Servers {
		finite("servers."+s.ID+".utilization", s.Utilization)
		if !(0 <= s.BusyMS && s.BusyMS <= measured+1e-6) {
			bad("servers.%s: busy %v ms outside [0, measured span %v]", s.ID, s.BusyMS, measured)
		}
		if !(0 <= s.Utilization && s.Utilization <= 1) {
			bad("servers.%s: utilization %v outside [0, 1]", s.ID, s.Utilization)
		}
		if !(0 <= s.Share && s.Share <= 1) || s.Requests < 0 || s.Chosen < 0 || s.LoadDone < 0 {
			bad("servers.%s: share %v, requests %d, chosen %d, load %d", s.ID, s.Share, s.Requests, s.Chosen, s.LoadDone)
		}
		served += s.Requests
	}
	if served != rq.Completed {
		bad("servers processed %d requests, want completed %d", served, rq.Completed)
	}
	var issued int64
	for _, s := range res.Services {
		if s.Issued != s.Completed+sumFailed(s.Failed) || s.TimedOut > s.Completed {
			bad("services.%s: issued %d, completed %d, failed %v, timed out %d", s.Name, s.Issued, s.Completed, s.Failed, s.TimedOut)
		}
		summary("services."+s.Name+".wait_ms", s.WaitMS)
		summary("services."+s.Name+".response_ms", s.ResponseMS)
		issued += s.Issued
		var n int64
		for _, c := range s.Histogram.Counts {
			n += c
		}
		if want := s.Completed - tmsDoneOf[s.Name]; n != want {
			bad("services.%s: histogram counts %d, want completed %d less %d TMS requests", s.Name, n, s.Completed, tmsDoneOf[s.Name])
		}
	}
	if issued != rq.Issued {
		bad("services issued %d in all, want %d", issued, rq.Issued)
	}
	for _, q := range res.Queues {
		summary("queues."+q.Name+".wait_ms", q.WaitMS)
		finite("queues."+q.Name+".avg_length", q.AvgLength)
		if q.AvgLength < 0 || q.MaxLength < 0 || q.Enqueued < 0 || q.AvgLength > float64(q.MaxLength)+1e-6 {
			bad("queues.%s: avg %v, max %d, enqueued %d", q.Name, q.AvgLength, q.MaxLength, q.Enqueued)
		}
	}
	for _, m := range res.Machines {
		if m.Local+m.Sent > m.Issued || m.Local > m.Served || m.Sent < 0 || m.Received < 0 {
			bad("machines.%s: issued %d, served %d, local %d, sent %d, received %d", m.LMID, m.Issued, m.Served, m.Local, m.Sent, m.Received)
		}
	}
	b := res.Balance
	if !(0 <= b.JainUtilization && b.JainUtilization <= 1+1e-9) || b.MaxOverMean < 0 {
		bad("balance %+v", b)
	}
	for _, ns := range res.Series.Util {
		for k, v := range ns.Values {
			if !(0 <= v && v <= 1) {
				bad("series.utilization.%s[%d] = %v outside [0, 1]", ns.Name, k, v)
			}
		}
	}
	for _, group := range [][]result.NamedSeries{res.Series.Queue, res.Series.Dispatch} {
		for _, ns := range group {
			for k, v := range ns.Values {
				if !(v >= 0) || math.IsInf(v, 0) {
					bad("series %s[%d] = %v", ns.Name, k, v)
				}
			}
		}
	}
	return out
}

// runChecked runs sc with few requests under a deadline and checks the
// invariants of whatever comes back: an error with a known code, or a result
// that keeps them.
func runChecked(t *testing.T, sc *scenario.Scenario, label string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Run(sc, RunOptions{MaxRequests: 3000, Context: ctx})
	if err != nil {
		switch diag.ErrorCode(err) {
		case diag.EINVALID, diag.ETOOLARGE:
			return
		}
		t.Fatalf("%s: got %v (code %s), want a result or an invalid/too_large error", label, err, diag.ErrorCode(err))
	}
	if probs := resultProblems(res); len(probs) > 0 {
		t.Fatalf("%s: the result breaks its invariants:\n  %s", label, strings.Join(probs, "\n  "))
	}
}

// randomDoc builds a random whole scenario document: model, machines,
// groups, servers, services with any distribution (extreme values included),
// speeds, latency, warm-up, bins, and a generated or traced workload.
func randomDoc(r *rng.PCG) map[string]any {
	pick := func(xs ...any) any { return xs[r.IntN(len(xs))] }
	// scale is a duration in ms from 1e-3 to 1e9, mostly small
	scale := func() float64 {
		return pick(0.001, 0.5, 1.0, 3.0, 10.0, 250.0, 1e4, 1e6, 1e8, 1e9).(float64)
	}
	var b strings.Builder
	model := pick("SHM", "MP").(string)
	fmt.Fprintf(&b, "*RESOURCES\nIPCKEY 123456\nMASTER site1\nMODEL %s\nLDBAL %s\n", model, pick("Y", "N"))
	if r.IntN(3) == 0 {
		fmt.Fprintf(&b, "SCANUNIT %d\nBLOCKTIME %d\n", 5*(1+r.IntN(4)), 1+r.IntN(20))
	}
	nm := 1
	if model == "MP" {
		nm += r.IntN(3)
	}
	b.WriteString("*MACHINES\n")
	for i := 1; i <= nm; i++ {
		fmt.Fprintf(&b, "node%d LMID=site%d NETLOAD=%d APPDIR=\"/a\" TUXCONFIG=\"/a/t\" TUXDIR=\"/t\"\n", i, i, r.IntN(3)*50)
	}
	ng := 1 + r.IntN(3)
	b.WriteString("*GROUPS\n")
	for g := 1; g <= ng; g++ {
		fmt.Fprintf(&b, "G%d LMID=site%d GRPNO=%d\n", g, 1+r.IntN(nm), g)
	}
	b.WriteString("*SERVERS\n")
	srvid := 1
	for k := 1 + r.IntN(4); k > 0; k-- {
		rq := ""
		if r.IntN(2) == 0 {
			rq = fmt.Sprintf(" RQADDR=Q%d", k)
		}
		n := 1 + r.IntN(3)
		fmt.Fprintf(&b, "srv%d SRVGRP=G%d SRVID=%d MIN=%d%s CLOPT=\"-s %s --\"\n", k, 1+r.IntN(ng), srvid, n, rq,
			pick("S", "T", "S,T", "S,U"))
		srvid += n
	}
	b.WriteString("*SERVICES\nS LOAD=50 PRIO=50\nT LOAD=20 PRIO=70\nU LOAD=100\n")
	dist := func() map[string]any {
		s := scale()
		switch r.IntN(7) {
		case 0:
			return map[string]any{"dist": "const", "ms": s}
		case 1:
			return map[string]any{"dist": "exp", "mean_ms": s}
		case 2:
			return map[string]any{"dist": "uniform", "min_ms": 0, "max_ms": s}
		case 3:
			return map[string]any{"dist": "lognormal", "mean_ms": s, "sd_ms": min(s*2, 1e9)}
		case 4:
			return map[string]any{"dist": "empirical", "samples_ms": []float64{0, s, s / 3}}
		case 5:
			return map[string]any{"dist": "gamma", "mean_ms": s, "shape": pick(0.01, 0.5, 2.0)}
		}
		return map[string]any{"dist": "erlang", "mean_ms": s, "k": 1 + r.IntN(4)}
	}
	services := map[string]any{}
	for _, name := range []string{"S", "T", "U"} {
		services[name] = map[string]any{"service_time": dist()}
	}
	machines := map[string]any{}
	for i := 1; i <= nm; i++ {
		if r.IntN(3) == 0 {
			machines[fmt.Sprintf("site%d", i)] = map[string]any{"speed": pick(1e-6, 0.01, 0.5, 2.0, 1e6)}
		}
	}
	doc := map[string]any{"ubbconfig": b.String(), "services": services, "machines": machines,
		"policy": pick("tuxedo", "tuxedo", "round_robin", "random", "jsq", "p2c"), "seed": r.IntN(1000)}
	if r.IntN(2) == 0 {
		doc["network"] = map[string]any{"latency_ms": pick(0.0, 1.0, 1e5, 1e9)}
	}
	if r.IntN(3) == 0 {
		doc["warmup_ms"] = pick(0.0, 10.0, 1e4, 1e9)
	}
	if r.IntN(3) == 0 {
		doc["bin_ms"] = pick(0.001, 1.0, 1000.0, 1e9)
	}
	if model == "MP" && r.IntN(2) == 0 {
		doc["tuning"] = map[string]any{"mp_reset_ms": pick(0.001, 5.0, 1e9), "idle": pick("server", "queue")}
	}
	if r.IntN(2) == 0 {
		var rows strings.Builder
		rows.WriteString("time_ms,service,origin,service_ms\n")
		tm := 0.0
		for k := r.IntN(50); k > 0; k-- {
			tm += pick(0.0, 0.5, 10.0, 1e6).(float64)
			ms := ""
			if r.IntN(3) == 0 {
				ms = fmt.Sprint(scale())
			}
			fmt.Fprintf(&rows, "%g,%s,site%d,%s\n", tm, pick("S", "S", "T", "U"), 1+r.IntN(nm), ms)
		}
		doc["workload"] = map[string]any{"trace_csv": rows.String()}
	} else {
		// about 500 requests per stream at most, over 1 ms to 1e9 ms
		dur := pick(1.0, 1000.0, 1e6, 1e9).(float64)
		rate := 500 / (dur / 1000) * pick(0.01, 0.3, 1.0).(float64)
		var streams []any
		for k := 1 + r.IntN(3); k > 0; k-- {
			st := map[string]any{"service": pick("S", "T", "U"), "origin": fmt.Sprintf("site%d", 1+r.IntN(nm))}
			switch r.IntN(4) {
			case 0:
				st["arrivals"], st["rate_per_s"] = "poisson", rate
			case 1:
				st["arrivals"], st["rate_per_s"] = "constant", rate
			case 2:
				st["arrivals"], st["rate_per_s"], st["on_ms"], st["off_ms"] = "bursty", rate*3, dur/20, dur/10
			default:
				st["arrivals"], st["profile"] = "poisson", []any{map[string]any{"at_ms": 0, "rate_per_s": rate / 10},
					map[string]any{"at_ms": dur / 2, "rate_per_s": rate}}
			}
			streams = append(streams, st)
		}
		doc["workload"] = map[string]any{"generate": map[string]any{"duration_ms": dur, "streams": streams}}
	}
	return doc
}

// TestResultInvariantsRandom runs random whole scenarios, extreme times
// included, and checks that each gives an error or a result that keeps
// every invariant.
func TestResultInvariantsRandom(t *testing.T) {
	t.Parallel()
	r := rng.New(2027, 17)
	n := 150
	if testing.Short() {
		n = 40
	}
	results := 0
	for i := 0; i < n; i++ {
		data, err := json.Marshal(randomDoc(r))
		if err != nil {
			t.Fatal(err)
		}
		sc, err := ParseScenario(data)
		if err != nil {
			continue
		}
		runChecked(t, sc, fmt.Sprintf("scenario %d: %s", i, data))
		results++
	}
	if results < n/4 {
		t.Errorf("only %d of %d random scenarios were accepted; the generator tests too little", results, n)
	}
}

// FuzzRunScenario runs any scenario document the reader accepts (with a
// small request limit and a deadline) and checks the result's invariants.
// Its seeds, run by plain `go test`, are the examples, a document of every
// shape the property test makes, and documents that once broke the engine.
func FuzzRunScenario(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "examples", "*.json"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	r := rng.New(7, 17)
	for i := 0; i < 12; i++ {
		data, _ := json.Marshal(randomDoc(r))
		f.Add(data)
	}
	f.Add([]byte(goodScenario))
	f.Add([]byte(`{"ubbconfig": "*RESOURCES\nMODEL MP\nLDBAL Y\n*MACHINES\nn LMID=s1\n*GROUPS\nG LMID=s1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 CLOPT=\"-s A\"\n",
		"services": {"A": {"service_time": {"dist": "const", "ms": 1e9}}}, "machines": {"s1": {"speed": 1e-6}},
		"workload": {"generate": {"duration_ms": 100, "streams": [{"service": "A", "origin": "s1", "arrivals": "constant", "rate_per_s": 1000}]}}}`))
	f.Add([]byte(`{"ubbconfig": "*RESOURCES\nMODEL SHM\nLDBAL Y\n*MACHINES\nn LMID=s1\n*GROUPS\nG LMID=s1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 CLOPT=\"-s A\"\n",
		"services": {"A": {"service_time": {"dist": "exp", "mean_ms": 1e9}}}, "warmup_ms": 5e8,
		"workload": {"trace_csv": "time_ms,service\n0,A\n0,A\n1e9,A\n"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScenario(data)
		if err != nil {
			return
		}
		runChecked(t, sc, "")
	})
}
