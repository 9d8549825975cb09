package core

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
)

// randomScenario builds a small random model and workload from r.
func randomScenario(t *testing.T, r *rng.PCG) (*plan.Setup, *sliceRequests) {
	t.Helper()
	var b strings.Builder
	model := []string{"SHM", "MP"}[r.IntN(2)]
	fmt.Fprintf(&b, "model %s ldbal %s\n", model, []string{"N", "Y"}[r.IntN(2)])
	nm := 1 + r.IntN(3)
	for i := 1; i <= nm; i++ {
		fmt.Fprintf(&b, "machine site%d netload %d\n", i, r.IntN(3)*50)
	}
	ng := 1 + r.IntN(3)
	for g := 1; g <= ng; g++ {
		fmt.Fprintf(&b, "group G%d site%d\n", g, 1+r.IntN(nm))
	}
	srvid := 1
	for k := 1 + r.IntN(5); k > 0; k-- {
		svcs := []string{"S", "T", "S,T", "S,U"}[r.IntN(4)]
		n := 1 + r.IntN(3)
		extra := ""
		if r.IntN(2) == 0 {
			extra = fmt.Sprintf(" rq=Q%d n=%d", srvid, n)
		}
		fmt.Fprintf(&b, "server G%d %d simpserv %s%s\n", 1+r.IntN(ng), srvid, svcs, extra)
		srvid += n
	}
	b.WriteString("service S load 50 prio 50\nservice T load 20 prio 70\nservice U load 100 prio 30\nservice V load 50 prio 50\n")
	m := engModel(t, b.String())
	setup := engSetup(m)
	setup.Policy = []plan.PolicyKind{plan.PolicyTuxedo, plan.PolicyTuxedo, plan.PolicyTuxedo, plan.PolicyRoundRobin, plan.PolicyRandom, plan.PolicyJSQ, plan.PolicyP2C}[r.IntN(7)]
	setup.Seed = r.Uint64()
	setup.LatencyUS = int64(r.IntN(2)) * 1000
	setup.ResetUS = []int64{5000, 120_000_000}[r.IntN(2)]
	if r.IntN(3) == 0 {
		setup.Tuning.Idle = "queue"
	}
	if r.IntN(3) == 0 {
		setup.Tuning.NetLoad = "origin"
	}
	if r.IntN(3) == 0 {
		setup.Tuning.MPCounter = "load"
	}
	var reqs strings.Builder
	tm := 0
	for k := 1 + r.IntN(40); k > 0; k-- {
		tm += r.IntN(3) * 500
		prio := ""
		if r.IntN(3) == 0 {
			prio = strconv.Itoa(1 + r.IntN(100))
		}
		fmt.Fprintf(&reqs, "%g %s site%d %d %s\n", float64(tm)/1000, []string{"S", "T", "U", "V"}[r.IntN(4)],
			1+r.IntN(nm), r.IntN(4)*3, prio)
	}
	return setup, engRequests(t, m, reqs.String())
}

type logRow struct {
	seq, issue, enq, start, end, reply int64
	service, server, queue, reason     string
}

func parseLog(t *testing.T, text string) []logRow {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")[1:]
	out := make([]logRow, len(lines))
	for i, l := range lines {
		f := strings.Split(l, ",")
		n := func(s string) int64 {
			v, _ := strconv.ParseInt(s, 10, 64)
			return v
		}
		out[i] = logRow{seq: n(f[0]), service: f[1], issue: n(f[3]), server: f[4], queue: f[5],
			enq: n(f[6]), start: n(f[7]), end: n(f[8]), reply: n(f[9]), reason: f[10]}
	}
	return out
}

func TestEngineProperties(t *testing.T) {
	t.Parallel()
	r := rng.New(42, 7)
	for run := 0; run < 300; run++ {
		setup, reqs := randomScenario(t, r)
		var buf bytes.Buffer
		e, err := newEngine(setup, reqs, simOptions{RunOptions: RunOptions{Dispatch: &buf}})
		if err != nil {
			t.Fatal(err)
		}
		prev := make([]int64, len(e.counters))
		resets := int64(0)
		reqs.after = func() { checkInvariants(t, run, e, prev, &resets) }
		if err := e.loop(); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if err := e.log.close(e); err != nil {
			t.Fatal(err)
		}
		res := e.result()
		rows := parseLog(t, buf.String())
		checkLog(t, run, e, res, rows)
	}
}

// checkInvariants runs between requests: MP counters never fall except at a
// reset, and W(q) is the sum of L(s,q) over the requests waiting in q.
func checkInvariants(t *testing.T, run int, e *engine, prev []int64, resets *int64) {
	if e.ser.Resets() != *resets {
		*resets = e.ser.Resets()
		clear(prev)
	}
	for i, c := range e.counters {
		if c < prev[i] {
			t.Errorf("run %d at %d us: counter %d fell from %d to %d without a reset", run, e.now, i, prev[i], c)
		}
		prev[i] = c
	}
	for qi := range e.queues {
		q := &e.queues[qi]
		var w int64
		n := 0
		for l := 0; l < prioLevels; l++ {
			for s := e.levels.at(int32(l), q.wait.q).head - 1; s >= 0; s = e.pool.At(s).next {
				w += int64(e.pool.At(s).load)
				n++
			}
		}
		if w != q.work || n != int(q.wait.n) {
			t.Errorf("run %d: queue %d: W = %d for %d waiting, want %d for %d", run, qi, q.work, q.wait.n, w, n)
		}
		if n > 0 && int(q.inService) < len(q.servers) {
			t.Errorf("run %d: queue %d has %d waiting and an idle server", run, qi, n)
		}
	}
}

func checkLog(t *testing.T, run int, e *engine, res *result.Result, rows []logRow) {
	rq := res.Requests
	var failed int64
	for _, n := range rq.Failed {
		failed += n
	}
	if rq.Issued != rq.Completed+failed || int64(len(rows)) != rq.Issued {
		t.Errorf("run %d: issued %d, completed %d, failed %d, rows %d", run, rq.Issued, rq.Completed, failed, len(rows))
	}
	busy := map[string][][2]int64{}
	var waitSum int64
	for i, row := range rows {
		if row.seq != int64(i+1) {
			t.Errorf("run %d: row %d has id %d", run, i+1, row.seq)
		}
		if row.reason == "TPENOENT" {
			continue
		}
		waitSum += row.start - row.enq
		if !(row.issue <= row.enq && row.enq <= row.start && row.start <= row.end && row.end <= row.reply) {
			t.Errorf("run %d: row %d times out of order: %+v", run, i+1, row)
		}
		busy[row.server] = append(busy[row.server], [2]int64{row.start, row.end})
		if e.alg == algFirst {
			first := e.svc[serviceIndex(e.m, row.service)].cands[0]
			if want := e.m.Servers[first].Queue; row.queue != want {
				t.Errorf("run %d: LDBAL=N row %d went to %s, want first candidate's queue %s", run, i+1, row.queue, want)
			}
		}
	}
	for srv, iv := range busy {
		sort.Slice(iv, func(a, b int) bool { return iv[a][0] < iv[b][0] || iv[a][0] == iv[b][0] && iv[a][1] < iv[b][1] })
		for k := 1; k < len(iv); k++ {
			if iv[k][0] < iv[k-1][1] {
				t.Errorf("run %d: %s runs two requests at once: %v and %v", run, srv, iv[k-1], iv[k])
			}
		}
	}
	if rq.Completed > 0 {
		want := usec.Round6(float64(waitSum) / float64(rq.Completed) / 1000)
		if res.WaitMS.Mean != want {
			t.Errorf("run %d: mean wait %v, want %v from the log", run, res.WaitMS.Mean, want)
		}
	}
}
