package core_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// TestLifecycleProperties runs random small applications with random kills,
// shutdowns and boots (and random RESTART, MAXGEN, GRACE, SVCTIMEOUT,
// latency and policy) and checks what must hold whatever happens: nothing
// is lost (issued = completed + failed, one log row per request), every
// row is consistent with the life-cycle list, and that list is a valid
// sequence of transitions per instance.
func TestLifecycleProperties(t *testing.T) {
	t.Parallel()
	n := 300
	if testing.Short() {
		n = 60
	}
	seen := map[string]int{} // causes and failure codes met: the test must exercise every rule
	for k := 0; k < n; k++ {
		r := rand.New(rand.NewPCG(uint64(k), 77))
		sc := randomLifeScenario(r)
		var log bytes.Buffer
		res, err := core.Run(sc, core.RunOptions{Dispatch: &log})
		if err != nil {
			t.Fatalf("scenario %d: %v\n%s", k, err, sc.UBBConfig)
		}
		for _, msg := range lifeProblems(res, log.String()) {
			t.Errorf("scenario %d: %s", k, msg)
		}
		if n := flowsSum(res); n != res.Requests.Issued {
			t.Errorf("scenario %d: flows sum to %d, issued %d", k, n, res.Requests.Issued)
		}
		for _, c := range res.Lifecycle {
			seen[c.Cause]++
		}
		for code, n := range res.Requests.Failed {
			seen[code] += int(n)
		}
		if t.Failed() {
			t.Logf("scenario %d:\n%s\nevents %+v\nlog:\n%s", k, sc.UBBConfig, sc.Events, log.String())
			return
		}
	}
	for _, want := range core.Vocabulary()["lifecycle_cause"] {
		if seen[want] == 0 {
			t.Errorf("no random scenario had a life-cycle change with cause %s: the generator misses a rule", want)
		}
	}
	for _, want := range []string{"TPESVCERR", "TPENOENT"} {
		if seen[want] == 0 {
			t.Errorf("no random scenario had a %s failure", want)
		}
	}
	t.Logf("causes and failures met: %v", seen)
}

// randomLifeScenario makes a small random application, workload and events.
func randomLifeScenario(r *rand.Rand) *scenario.Scenario {
	var b strings.Builder
	model := []string{"SHM", "MP"}[r.IntN(2)]
	nm := 1
	if model == "MP" {
		nm = 1 + r.IntN(2)
	}
	fmt.Fprintf(&b, "*RESOURCES\nMASTER site1\nMODEL %s\nLDBAL %s\nSCANUNIT 1\nSANITYSCAN %d\n*MACHINES\n",
		model, []string{"N", "Y"}[r.IntN(2)], 1+r.IntN(3))
	for m := 1; m <= nm; m++ {
		fmt.Fprintf(&b, "node%d LMID=site%d NETLOAD=%d\n", m, m, r.IntN(3)*50)
	}
	b.WriteString("*GROUPS\n")
	ng := 1 + r.IntN(3)
	for g := 1; g <= ng; g++ {
		fmt.Fprintf(&b, "G%d LMID=site%d GRPNO=%d\n", g, 1+r.IntN(nm), g)
	}
	b.WriteString("*SERVERS\n")
	var ids []string
	srvid := 1
	for k := 1 + r.IntN(4); k > 0; k-- {
		g := 1 + r.IntN(ng)
		n := 1 + r.IntN(3)
		spares := r.IntN(3) // MAX = MIN + spares
		extra, clopt := "", ""
		if (n > 1 || spares > 0) && r.IntN(2) == 0 {
			extra += fmt.Sprintf(" RQADDR=Q%d", srvid)
			if spares > 0 && r.IntN(2) == 0 {
				clopt = fmt.Sprintf(" -p %s%d,%d:%d,%d", []string{"", "L"}[r.IntN(2)], r.IntN(2), r.IntN(3), 1+r.IntN(3), r.IntN(3))
			}
		}
		if r.IntN(2) == 0 {
			extra += fmt.Sprintf(" RESTART=Y MAXGEN=%d GRACE=%d", 1+r.IntN(4), r.IntN(6))
		}
		fmt.Fprintf(&b, "srv SRVGRP=G%d SRVID=%d MIN=%d MAX=%d%s CLOPT=\"-s %s%s\"\n", g, srvid, n, n+spares, extra,
			[]string{"S", "T", "S,T"}[r.IntN(3)], clopt)
		for i := 0; i < n+spares; i++ {
			ids = append(ids, fmt.Sprintf("G%d/%d", g, srvid+i))
		}
		srvid += n + spares
	}
	b.WriteString("*SERVICES\nS LOAD=50\n")
	if r.IntN(2) == 0 {
		fmt.Fprintf(&b, "T LOAD=20 SVCTIMEOUT=%d\n", 1+r.IntN(2))
	} else {
		b.WriteString("T LOAD=20\n")
	}
	var trace strings.Builder
	trace.WriteString("time_ms,service,origin,service_ms\n")
	tm := 0
	for k := 1 + r.IntN(40); k > 0; k-- {
		tm += r.IntN(4) * 150
		fmt.Fprintf(&trace, "%d,%s,site%d,%d\n", tm, []string{"S", "T"}[r.IntN(2)], 1+r.IntN(nm),
			[]int{0, 10, 200, 900, 2500}[r.IntN(5)])
	}
	var events []scenario.Event
	at := 0.0
	for k := r.IntN(8); k > 0; k-- {
		at += float64(r.IntN(4) * 500)
		target := ids[r.IntN(len(ids))]
		switch r.IntN(5) {
		case 0:
			target = fmt.Sprintf("group:G%d", 1+r.IntN(ng))
		case 1:
			target = fmt.Sprintf("machine:site%d", 1+r.IntN(nm))
		}
		when := at
		ev := scenario.Event{AtMS: &when}
		switch r.IntN(7) {
		case 0, 1:
			ev.Kill = target
		case 2, 3:
			ev.Shutdown = target
		case 4:
			ev.Lose = fmt.Sprintf("site%d", 1+r.IntN(nm))
		case 5:
			ev.Restore = fmt.Sprintf("site%d", 1+r.IntN(nm))
		default:
			ev.Boot = target
		}
		events = append(events, ev)
	}
	seed := r.Uint64()
	boot := float64(r.IntN(3) * 500)
	return &scenario.Scenario{
		UBBConfig: b.String(),
		Policy:    []string{"tuxedo", "tuxedo", "round_robin", "random", "jsq", "p2c"}[r.IntN(6)],
		Seed:      &seed,
		Network:   &scenario.NetworkSpec{LatencyMS: float64(r.IntN(3) * 100)},
		Tuning:    &scenario.Tuning{BootMS: &boot, Idle: []string{"server", "queue"}[r.IntN(2)]},
		Workload:  scenario.Workload{TraceCSV: trace.String()},
		Events:    events,
	}
}

// lifeRow is a dispatch-log row; times are -1 when empty.
type lifeRow struct {
	line                              int
	server, queue, reason             string
	issue, enqueue, start, end, reply int64
}

// lifeProblems checks a run's result and dispatch log against each other.
func lifeProblems(res *result.Result, log string) []string {
	var msgs []string
	recs, err := csv.NewReader(strings.NewReader(log)).ReadAll()
	if err != nil {
		return []string{"dispatch log: " + err.Error()}
	}
	rows := make([]lifeRow, 0, len(recs))
	for i, rec := range recs[1:] {
		num := func(s string) int64 {
			if s == "" {
				return -1
			}
			v, _ := strconv.ParseInt(s, 10, 64)
			return v
		}
		rows = append(rows, lifeRow{line: i + 2, server: rec[4], queue: rec[5], reason: rec[10],
			issue: num(rec[3]), enqueue: num(rec[6]), start: num(rec[7]), end: num(rec[8]), reply: num(rec[9])})
	}
	failed := int64(0)
	for _, n := range res.Requests.Failed {
		failed += n
	}
	if got := res.Requests.Completed + failed; got != res.Requests.Issued || int64(len(rows)) != res.Requests.Issued {
		msgs = append(msgs, fmt.Sprintf("issued %d, completed %d + failed %d = %d, log rows %d: something was lost",
			res.Requests.Issued, res.Requests.Completed, failed, got, len(rows)))
	}
	initial := map[string]string{}
	for _, s := range res.Servers {
		if s.Spare {
			initial[s.ID] = "gone"
		}
	}
	msgs = append(msgs, transitionProblems(res.Lifecycle, initial)...)
	byServer := map[string][]result.LifeChange{}
	for _, c := range res.Lifecycle {
		byServer[c.Server] = append(byServer[c.Server], c)
	}
	work := map[string][][2]int64{}
	for _, row := range rows {
		msgs = append(msgs, lifeRowProblems(row, byServer[row.server], initial[row.server], work)...)
	}
	for srv, iv := range work {
		sort.Slice(iv, func(a, b int) bool { return iv[a][0] < iv[b][0] || iv[a][0] == iv[b][0] && iv[a][1] < iv[b][1] })
		for k := 1; k < len(iv); k++ {
			if iv[k][0] < iv[k-1][1] {
				msgs = append(msgs, fmt.Sprintf("%s starts a request at %d while working until %d", srv, iv[k][0], iv[k-1][1]))
			}
		}
	}
	return msgs
}

// transitionProblems checks that each instance's changes chain (each from
// is the previous to, starting up) and are transitions the rules allow.
func transitionProblems(changes []result.LifeChange, initial map[string]string) []string {
	allowed := map[string]bool{
		"up>down": true, "up>stopping": true, "up>gone": true, "down>restarting": true, "down>gone": true,
		"restarting>up": true, "restarting>gone": true, "stopping>gone": true, "gone>booting": true, "booting>up": true,
		"booting>gone": true, // lost with its machine
	}
	var msgs []string
	state := map[string]string{}
	last := int64(0)
	for _, c := range changes {
		if c.AtUS < last {
			msgs = append(msgs, fmt.Sprintf("life-cycle change at %d us listed after one at %d us", c.AtUS, last))
		}
		last = c.AtUS
		from := state[c.Server]
		if from == "" {
			from = initial[c.Server]
		}
		if from == "" {
			from = "up"
		}
		if c.From != from {
			msgs = append(msgs, fmt.Sprintf("%s at %d: from %s, but it was %s", c.Server, c.AtUS, c.From, from))
		}
		if !allowed[c.From+">"+c.To] {
			msgs = append(msgs, fmt.Sprintf("%s at %d: %s -> %s is not a transition of the life cycle", c.Server, c.AtUS, c.From, c.To))
		}
		state[c.Server] = c.To
	}
	return msgs
}

// stateAt returns the instance's state after every change at or before t;
// initial is its state at 0 ("" for up).
func stateAt(changes []result.LifeChange, initial string, t int64) string {
	s := initial
	if s == "" {
		s = "up"
	}
	for _, c := range changes {
		if c.AtUS > t {
			break
		}
		s = c.To
	}
	return s
}

// lifeRowProblems checks one log row against its server's changes; work
// collects each server's working intervals (to the crash, for a request
// that failed in service).
func lifeRowProblems(r lifeRow, changes []result.LifeChange, initial string, work map[string][][2]int64) []string {
	var msgs []string
	bad := func(format string, args ...any) {
		msgs = append(msgs, fmt.Sprintf("line %d: ", r.line)+fmt.Sprintf(format, args...))
	}
	switch r.reason {
	case "TPENOENT", "TPESYSTEM": // TPESYSTEM: issued from a lost machine
		if r.queue != "" || r.server != "" || r.reply != -1 {
			bad("%s row has a queue, server or reply", r.reason)
		}
		return msgs
	case "TPESVCERR":
		if r.reply == -1 { // lost with its machine: no end, no reply
			if r.end != -1 || r.queue == "" {
				bad("lost TPESVCERR row has an end or no queue")
			}
			if r.server == "" {
				return msgs
			}
			lost := int64(-1)
			for _, c := range changes {
				if lost < 0 && c.Cause == "lose" && c.AtUS >= r.start {
					lost = c.AtUS
				}
			}
			if lost < 0 {
				bad("TPESVCERR without a reply on %s, which was not lost after %d", r.server, r.start)
			}
			work[r.server] = append(work[r.server], [2]int64{r.start, lost})
			break
		}
		if r.queue == "" || r.enqueue < r.issue || r.end != -1 || r.reply < r.enqueue {
			bad("TPESVCERR row: queue %q enqueue %d end %d reply %d", r.queue, r.enqueue, r.end, r.reply)
		}
		if r.server == "" {
			if r.start != -1 {
				bad("TPESVCERR row without a server has a start")
			}
			return msgs
		}
		if r.start < r.enqueue || r.start > r.reply {
			bad("TPESVCERR row: start %d outside enqueue %d .. reply %d", r.start, r.enqueue, r.reply)
		}
		crashed := int64(-1)
		for _, c := range changes {
			if crashed < 0 && c.AtUS >= r.start && c.AtUS <= r.reply && (c.To == "down" || c.From == "stopping" && c.Cause == "SVCTIMEOUT") {
				crashed = c.AtUS
			}
		}
		if crashed < 0 {
			bad("TPESVCERR while processing on %s, which did not crash between %d and %d", r.server, r.start, r.reply)
		}
		work[r.server] = append(work[r.server], [2]int64{r.start, crashed})
	default:
		if r.server == "" || r.start < r.enqueue || r.end < r.start || r.reply < r.end || r.enqueue < r.issue {
			bad("completed row with inconsistent times or no server")
			return msgs
		}
		for _, c := range changes {
			if c.To == "down" && c.AtUS > r.start && c.AtUS <= r.end {
				bad("%s completed a request %d..%d across its crash at %d", r.server, r.start, r.end, c.AtUS)
			}
		}
		work[r.server] = append(work[r.server], [2]int64{r.start, r.end})
	}
	if s := stateAt(changes, initial, r.start); s != "up" {
		bad("%s started a request at %d in state %s", r.server, r.start, s)
	}
	return msgs
}
