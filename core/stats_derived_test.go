package core

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// TestDerivedFigures: the figures the statistics derive at the end rather
// than count per request (the overall wait and response, services'
// completed, servers' requests, LOAD done, chosen and done per service,
// machines' served) equal those of recording every counted request one by
// one, as the engine once did, from the dispatch log: on random scenarios
// (several services, failures, crashes, MSSQ sets), each run with a random
// warm-up on a series bin boundary.
func TestDerivedFigures(t *testing.T) {
	t.Parallel()
	n := 150
	if testing.Short() {
		n = 30
	}
	seen := map[string]int{}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		if msg := derivedCompare(t, seed, seen); msg != "" {
			t.Errorf("seed %d: %s", seed, msg)
		}
	}
	t.Logf("coverage over %d scenarios: %v", n, seen)
	for _, what := range []string{"warm-up", "all counted", "nothing counted", "failures", "several services", "off-block (MSSQ)", "chosen checked"} {
		if seen[what] == 0 {
			t.Errorf("no scenario had %s", what)
		}
	}
}

// refAcc records every value as the engine once did: value by value, in one
// distribution (hist's own tests check a distribution's figures against
// HdrHistogram's).
type refAcc struct{ a hist.Acc }

func (r *refAcc) add(v int64) { r.a.Add(v) }

func (r *refAcc) summary() result.Summary { return r.a.Summary(r.a.Hist()) }

// chart is a service's response-time chart from every value.
func (r *refAcc) chart() result.Histogram { return r.a.Chart(r.a.Hist()) }

// derivedCompare runs seed's scenario with a warm-up and describes the first
// figure that differs from recording request by request, or "".
func derivedCompare(t *testing.T, seed uint64, seen map[string]int) string {
	sc := genScenario(seed)
	var firstLog bytes.Buffer
	if _, err := Run(sc, RunOptions{Dispatch: &firstLog}); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	var lastIssue int64
	for _, line := range strings.Split(firstLog.String(), "\n")[1:] {
		if f := strings.Split(line, ","); len(f) > 3 {
			v, _ := strconv.ParseInt(f[3], 10, 64)
			lastIssue = max(lastIssue, v)
		}
	}
	// bins of about a 40th of the issues' span; the warm-up a multiple of 4
	// bins (so still on a boundary if the bins merge twice), up to a little
	// past the last issue
	r := rng.New(seed, 9)
	binUS := max(lastIssue/40, 1)
	binMS, warmMS := float64(binUS)/1000, float64(4*binUS*int64(r.IntN(12)))/1000
	sc.BinMS, sc.WarmupMS = &binMS, &scenario.Warmup{MS: warmMS}
	var log bytes.Buffer
	res, err := Run(sc, RunOptions{Dispatch: &log})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	m, err := LoadModel(ubb.Input{UBBConfig: sc.UBBConfig, DMConfig: sc.DMConfig, Advertise: sc.Advertise})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	rows, err := csv.NewReader(&log).ReadAll()
	if err != nil {
		t.Fatalf("seed %d: dispatch log: %v", seed, err)
	}
	srvIdx, qIdx := map[string]int{}, map[string]int{}
	for i := range m.Servers {
		srvIdx[m.Servers[i].ID] = i
	}
	for i := range m.Queues {
		qIdx[m.Queues[i].Name] = i
	}
	warmUS := int64(math.Round(warmMS * 1000))
	var wait, resp refAcc
	sWait, sResp, qWait := map[string]*refAcc{}, map[string]*refAcc{}, map[string]*refAcc{}
	get := func(m map[string]*refAcc, k string) *refAcc {
		if m[k] == nil {
			m[k] = &refAcc{}
		}
		return m[k]
	}
	reqs, load := make([]int64, len(m.Servers)), make([]int64, len(m.Servers))
	done := make([]map[string]int64, len(m.Servers))
	served, local := make([]int64, len(m.Machines)), make([]int64, len(m.Machines))
	counted, services := 0, map[string]bool{}
	for _, row := range rows[1:] {
		num := func(col int) int64 {
			v, err := strconv.ParseInt(row[col], 10, 64)
			if err != nil {
				t.Fatalf("seed %d: dispatch row %v: column %d: %v", seed, row, col, err)
			}
			return v
		}
		svc, origin, issue, reason := row[1], row[2], num(3), row[10]
		if issue < warmUS {
			continue
		}
		counted++
		if strings.HasPrefix(reason, "TPE") {
			seen["failures"]++
			continue
		}
		services[svc] = true
		srv, q := srvIdx[row[4]], qIdx[row[5]]
		w, rt := num(7)-num(6), num(9)-issue
		wait.add(w)
		resp.add(rt)
		get(sWait, svc).add(w)
		get(sResp, svc).add(rt)
		get(qWait, row[5]).add(w)
		reqs[srv]++
		load[srv] += int64(m.Service(svc).Params(m.Queues[q].Group).Load)
		if done[srv] == nil {
			done[srv] = map[string]int64{}
		}
		done[srv][svc]++
		if !advertises(&m.Servers[srv], svc) {
			seen["off-block (MSSQ)"]++
		}
		sm := m.Servers[srv].Machine
		served[sm]++
		if m.Machines[sm].LMID == origin {
			local[sm]++
		}
	}
	switch {
	case warmUS == 0:
		seen["all counted"]++
	case counted == 0:
		seen["nothing counted"]++
	default:
		seen["warm-up"]++
	}
	if len(services) > 1 {
		seen["several services"]++
	}

	if g, w := res.Requests.Completed, wait.a.N; g != w {
		return fmt.Sprintf("completed: got %d, want %d", g, w)
	}
	if g, w := res.WaitMS, wait.summary(); g != w {
		return fmt.Sprintf("wait_ms: got %+v, want %+v", g, w)
	}
	if g, w := res.ResponseMS, resp.summary(); g != w {
		return fmt.Sprintf("response_ms: got %+v, want %+v", g, w)
	}
	for _, ss := range res.Services {
		sw, sr := get(sWait, ss.Name), get(sResp, ss.Name)
		if g, w := ss.Completed, sw.a.N; g != w {
			return fmt.Sprintf("service %s completed: got %d, want %d", ss.Name, g, w)
		}
		if g, w := ss.WaitMS, sw.summary(); g != w {
			return fmt.Sprintf("service %s wait_ms: got %+v, want %+v", ss.Name, g, w)
		}
		if g, w := ss.ResponseMS, sr.summary(); g != w {
			return fmt.Sprintf("service %s response_ms: got %+v, want %+v", ss.Name, g, w)
		}
		if g, w := ss.Histogram, sr.chart(); !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("service %s histogram: got %+v, want %+v", ss.Name, g, w)
		}
	}
	for _, qs := range res.Queues {
		if g, w := qs.WaitMS, get(qWait, qs.Name).summary(); g != w {
			return fmt.Sprintf("queue %s wait_ms: got %+v, want %+v", qs.Name, g, w)
		}
	}
	// chosen: the series' dispatch counts from the warm-up's bin on
	from := -1
	if bin := int64(math.Round(res.Series.BinMS * 1000)); bin > 0 && warmUS%bin == 0 {
		from = int(warmUS / bin)
		seen["chosen checked"]++
	}
	for i, s := range res.Servers {
		if g, w := s.Requests, reqs[i]; g != w {
			return fmt.Sprintf("server %s requests: got %d, want %d", s.ID, g, w)
		}
		if g, w := s.LoadDone, load[i]; g != w {
			return fmt.Sprintf("server %s load_done: got %d, want %d", s.ID, g, w)
		}
		if g, w := s.Share, frac(float64(reqs[i]), float64(wait.a.N)); g != w {
			return fmt.Sprintf("server %s share: got %v, want %v", s.ID, g, w)
		}
		gd := map[string]int64{}
		for _, d := range s.Done {
			gd[d.Service] = d.Requests
		}
		if len(gd) > 0 || len(done[i]) > 0 {
			if !reflect.DeepEqual(gd, done[i]) {
				return fmt.Sprintf("server %s done: got %v, want %v", s.ID, gd, done[i])
			}
		}
		if from >= 0 {
			var w int64
			for k, v := range res.Series.Dispatch[i].Values {
				if k >= from {
					w += int64(v)
				}
			}
			if s.Chosen != w {
				return fmt.Sprintf("server %s chosen: got %d, want %d (series from bin %d)", s.ID, s.Chosen, w, from)
			}
		}
	}
	for i, ms := range res.Machines {
		if ms.Served != served[i] || ms.Local != local[i] {
			return fmt.Sprintf("machine %s served/local: got %d/%d, want %d/%d", ms.LMID, ms.Served, ms.Local, served[i], local[i])
		}
	}
	return ""
}

// advertises reports whether server s advertises service svc.
func advertises(s *ubb.Server, svc string) bool {
	for _, name := range s.Services {
		if name == svc {
			return true
		}
	}
	return false
}
