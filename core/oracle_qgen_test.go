package core

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// genAppScenarioQ is an application scenario with /Q: genAppBase's, to
// which genQueues always adds a queue space.
func genAppScenarioQ(seed uint64) []byte {
	return genQueues(seed, genAppBase(seed, oracleTransactions), 1)
}

// genQueues adds /Q to an application scenario (a document of genAppBase)
// with probability p: a queue space QS served by one or two TMQUEUE
// instances (in a group of its own, with or without TMSNAME, or in an
// application group), one to three of its queues named like services A..E
// (their retries 0-2, a retry delay of 0 or a few ms), sometimes an error
// queue (ERR, which no service answers, or the last of them), a const enqueue
// time; one or two TMQFORWARD entries (MIN 1-2, RESTART at times) reading
// one or two of the queues with -i 0 or 1, sometimes -t 0 or 1, -d and -e;
// enqueues from trace rows (with routing values at times), a stream of
// constant arrivals, client scripts and call steps (only into queues of
// later services, so that no message leads to another of its own queue
// forever); queue services that sometimes fail (a first step calling Z,
// which nobody advertises) or take about a second; life-cycle events on
// the forwarders and TMQUEUE. Its draws come from a stream of its own, so
// the rest of the scenario is what it was.
func genQueues(seed uint64, doc []byte, p float64) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x7173706163657321)) // "qspaces!"
	pick := func(n int) int { return rng.IntN(n) }
	chance := func(p float64) bool { return rng.Float64() < p }
	if !chance(p) {
		return doc
	}
	var d map[string]any
	if err := json.Unmarshal(doc, &d); err != nil {
		panic(err)
	}
	ubbText := d["ubbconfig"].(string)
	nm := strings.Count(ubbText, "\nnode")
	ng := 0
	for strings.Contains(ubbText, fmt.Sprintf("\nG%d LMID=", ng+1)) {
		ng++
	}
	coarse := chance(0.5)
	// msAt is a random time below maxMS ms, as text: whole ms when coarse.
	usAt := func(maxMS int) int {
		if coarse {
			return pick(maxMS) * 1000
		}
		return pick(maxMS * 1000)
	}

	// The queue space's group and its TMQUEUE.
	grp, newGroup := "QG", chance(0.65)
	var groupLine string
	if newGroup {
		groupLine = fmt.Sprintf("QG LMID=s%d GRPNO=80", 1+pick(nm))
		if chance(0.7) {
			groupLine += " TMSNAME=TMS_QM TMSCOUNT=2"
		}
		ubbText = strings.Replace(ubbText, "*GROUPS\n", "*GROUPS\n"+groupLine+"\n", 1)
	} else {
		grp = fmt.Sprintf("G%d", 1+pick(ng))
	}
	var srv strings.Builder
	restart := func() string {
		if chance(0.4) {
			return fmt.Sprintf(" RESTART=Y MAXGEN=%d", 1+pick(3))
		}
		return ""
	}
	nQueue := 1 + pick(2)
	fmt.Fprintf(&srv, "TMQUEUE SRVGRP=%s SRVID=50 MIN=%d", grp, nQueue)
	if nQueue == 2 && chance(0.5) {
		srv.WriteString(" RQADDR=QSQ")
	}
	if chance(0.2) {
		srv.WriteString(" MAXDISPATCHTHREADS=2")
	}
	fmt.Fprintf(&srv, "%s CLOPT=\"-s QS:TMQUEUE\"\n", restart())
	targets := []string{fmt.Sprintf("%s/50", grp)}

	// Its queues.
	services := []string{"A", "B", "C", "D", "E"}
	order := rng.Perm(len(services))[:1+pick(3)]
	sort.Ints(order)
	var queues []string
	for _, k := range order {
		queues = append(queues, services[k])
	}
	// the gateway's imported service R at times (before the others: R has
	// no calls, and no enqueue step reaches it)
	if strings.Contains(ubbText, "GWTDOMAIN") && chance(0.3) {
		queues = append([]string{"R"}, queues...)
	}
	qspec := map[string]any{}
	for _, q := range queues {
		spec := map[string]any{}
		if r := pick(3); r > 0 || chance(0.5) {
			spec["retries"] = r
		}
		if chance(0.5) {
			spec["retry_delay_ms"] = []float64{0, 1, 2, 5, 0.5}[pick(5)]
		}
		qspec[q] = spec
	}
	readable := append([]string(nil), queues...)
	qs := map[string]any{"queues": qspec}
	switch r := rng.Float64(); {
	case r < 0.3:
		qspec["ERR"] = map[string]any{}
		qs["error_queue"] = "ERR"
		readable = append(readable, "ERR")
	case r < 0.6:
		// the last queue: its service's enqueue steps reach no queue (only
		// later ones), so no message comes back to a queue it failed out of
		qs["error_queue"] = queues[len(queues)-1]
	}
	if chance(0.8) {
		qs["enqueue_time"] = map[string]any{"dist": "const", "ms": []float64{0, 0.5, 1, 2}[pick(4)]}
	}
	d["qspaces"] = map[string]any{"QS": qs}

	// The forwarders.
	for j := 0; j < 1+pick(2); j++ {
		fg := grp
		if chance(0.25) {
			fg = fmt.Sprintf("G%d", 1+pick(ng))
		}
		mn := 1 + pick(2)
		id := 60 + 10*j
		var opts []string
		var fq []string
		for _, k := range rng.Perm(len(readable))[:1+pick(min(2, len(readable)))] {
			fq = append(fq, readable[k])
		}
		opts = append(opts, "-q "+strings.Join(fq, ","))
		opts = append(opts, []string{"-i 0", "-i0", "-i 1", "-i1"}[pick(4)])
		switch r := rng.Float64(); {
		case r < 0.2:
			opts = append(opts, "-t 0")
		case r < 0.6:
			opts = append(opts, "-t 1")
		}
		if chance(0.25) {
			opts = append(opts, "-d")
		}
		if chance(0.1) { // exit when empty: kept, not simulated
			opts = append(opts, "-e")
		}
		rng.Shuffle(len(opts), func(a, b int) { opts[a], opts[b] = opts[b], opts[a] })
		threads := ""
		if chance(0.1) { // one message at a time whatever its threads
			threads = " MAXDISPATCHTHREADS=3"
		}
		fmt.Fprintf(&srv, "TMQFORWARD SRVGRP=%s SRVID=%d MIN=%d%s%s CLOPT=\"-A -- %s\"\n", fg, id, mn, threads, restart(), strings.Join(opts, " "))
		for k := 0; k < mn; k++ {
			targets = append(targets, fmt.Sprintf("%s/%d", fg, id+k))
		}
	}
	if newGroup {
		targets = append(targets, "group:QG")
	}
	ubbText = strings.Replace(ubbText, "\n*SERVICES\n", "\n"+srv.String()+"\n*SERVICES\n", 1)

	// The queues' services: failing at times (a first step calling Z,
	// which nobody advertises), about a second at times.
	svcDoc := d["services"].(map[string]any)
	failing := false
	for _, q := range queues {
		spec, ok := svcDoc[q].(map[string]any)
		if !ok { // R: the remote domain answers
			continue
		}
		if chance(0.3) {
			calls, _ := spec["calls"].([]any)
			spec["calls"] = append([]any{map[string]any{"service": "Z"}}, calls...)
			failing = true
		}
		if chance(0.15) {
			spec["service_time"] = map[string]any{"dist": "const", "ms": float64(900 + pick(200))}
		}
	}
	if failing {
		ubbText = strings.Replace(ubbText, "\n*SERVICES\n", "\n*SERVICES\nZ LOAD=50\n", 1)
	}
	// Enqueue steps, each into a queue of a later service (or ERR).
	for k, s := range services {
		var later []string
		for _, q := range queues {
			if q > s && q != "R" { // (R's failures go to a service's queue)
				later = append(later, q)
			}
		}
		if slices.Contains(readable, "ERR") {
			later = append(later, "ERR")
		}
		if len(later) == 0 || !chance(0.25) {
			continue
		}
		spec := svcDoc[s].(map[string]any)
		calls, _ := spec["calls"].([]any)
		step := map[string]any{"enqueue": "QS:" + later[pick(len(later))]}
		at := pick(len(calls) + 1)
		if at == len(calls) && len(calls) > 0 && calls[len(calls)-1].(map[string]any)["mode"] == "tpforward" {
			at-- // tpforward stays the last step
		}
		spec["calls"] = slices.Insert(calls, at, any(step))
		_ = k
	}
	d["ubbconfig"] = ubbText

	target := func() string { return "QS:" + readable[pick(len(readable))] }
	wl := d["workload"].(map[string]any)
	gen := wl["generate"].(map[string]any)
	durMS := int(gen["duration_ms"].(float64))
	// Enqueue trace rows, merged by time with the rows there are.
	type row struct {
		us   int
		text string
	}
	var rows []row
	if csv, ok := wl["trace_csv"].(string); ok {
		for _, line := range strings.Split(strings.TrimSpace(csv), "\n")[1:] {
			us := oTextUS(strings.Split(line, ",")[0])
			rows = append(rows, row{int(us), line + ","})
		}
	}
	for k := 0; k < pick(6); k++ {
		us := usAt(durMS + 50)
		route, prio := "", ""
		if chance(0.5) {
			route = fmt.Sprint(pick(25))
		}
		if chance(0.1) {
			prio = fmt.Sprint(1 + pick(100))
		}
		rows = append(rows, row{us, fmt.Sprintf("%d.%03d,,s%d,,%s,%s,%s", us/1000, us%1000, 1+pick(nm), prio, route, target())})
	}
	if len(rows) > 0 {
		sort.SliceStable(rows, func(a, b int) bool { return rows[a].us < rows[b].us })
		var b strings.Builder
		b.WriteString("time_ms,service,origin,service_ms,prio,route,enqueue\n")
		for _, r := range rows {
			b.WriteString(r.text + "\n")
		}
		wl["trace_csv"] = b.String()
	}
	// A stream of enqueues at constant arrivals.
	if chance(0.3) {
		gen["streams"] = []any{map[string]any{"enqueue": target(), "origin": fmt.Sprintf("s%d", 1+pick(nm)),
			"arrivals": "constant", "rate_per_s": []int{25, 40, 50, 100}[pick(4)]}}
	}
	// Client scripts with an enqueue.
	for _, c := range gen["clients"].([]any) {
		cs := c.(map[string]any)
		script, ok := cs["script"].([]any)
		if !ok || !chance(0.35) {
			continue
		}
		cs["script"] = slices.Insert(script, pick(len(script)+1), any(map[string]any{"enqueue": target()}))
	}
	// Life-cycle events on the forwarders and the TMQUEUE.
	if chance(0.5) {
		evs, _ := d["events"].([]any)
		for k := 0; k < 1+pick(2); k++ {
			ev := map[string]any{"at_ms": float64(usAt(1500)) / 1000}
			ev[[]string{"kill", "shutdown", "boot", "kill"}[pick(4)]] = targets[pick(len(targets))]
			evs = append(evs, ev)
		}
		sort.SliceStable(evs, func(a, b int) bool {
			return evs[a].(map[string]any)["at_ms"].(float64) < evs[b].(map[string]any)["at_ms"].(float64)
		})
		d["events"] = evs
	}
	out, err := json.Marshal(d)
	if err != nil {
		panic(err)
	}
	return out
}
