package core

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tuxlb/tuxlb/core/scenario"
)

// oracleThreads turns on multithreaded servers in the generators: some
// *SERVERS entries get MAXDISPATCHTHREADS 2-4 (and MINDISPATCHTHREADS), a
// GWTDOMAIN at times one it ignores, and tuning mt_idle either reading.
// Its draws come from a stream of their own (genThreads), so turning it on
// changes no other draw of a seed's scenario. It also gates the M/M/k test
// of threads (theory_threads_test.go). Off, the generators make the
// scenarios they made before threads were simulated.
const oracleThreads = true

// genThreads draws the dispatch threads of the generators' *SERVERS
// entries and the mt_idle reading, from a stream of its own.
type genThreads struct{ rng *rand.Rand }

func newGenThreads(seed uint64) genThreads {
	return genThreads{rand.New(rand.NewPCG(seed, 0x7468726561647300))} // "threads"
}

// entry returns the MAXDISPATCHTHREADS (and MINDISPATCHTHREADS) text of an
// entry, "" for most; never on an entry with -p (spawning counts instances,
// and a spare's idleness by threads is a reading of its own).
func (g genThreads) entry(spawn bool) string {
	if !oracleThreads || spawn || g.rng.Float64() >= 0.45 {
		return ""
	}
	k := 2 + g.rng.IntN(3)
	text := fmt.Sprintf(" MAXDISPATCHTHREADS=%d", k)
	if g.rng.Float64() < 0.3 {
		text += fmt.Sprintf(" MINDISPATCHTHREADS=%d", g.rng.IntN(k+1))
	}
	return text
}

// gateway returns a MAXDISPATCHTHREADS the GWTDOMAIN entry ignores, at times.
func (g genThreads) gateway() string {
	if !oracleThreads || g.rng.Float64() >= 0.3 {
		return ""
	}
	return " MAXDISPATCHTHREADS=3"
}

// tuning sets mt_idle at times.
func (g genThreads) tuning(tu *scenario.Tuning) {
	if !oracleThreads {
		return
	}
	switch r := g.rng.Float64(); {
	case r < 0.4:
		tu.MTIdle = "no_request"
	case r < 0.6:
		tu.MTIdle = "server"
	}
}

// genScenario builds a random small scenario for the differential test:
// 1-3 machines, SHM or MP, LDBAL Y or N, a few *SERVERS entries (MSSQ sets
// through RQADDR, spares through MAX, RESTART/MAXGEN/GRACE), group-specific
// LOAD and PRIO, NETLOAD, latency, speeds, a routed service with gaps and
// sometimes a catch-all, sometimes a gateway, random events and tuning, and
// a trace whose every row carries service_ms.
func genScenario(seed uint64) *scenario.Scenario {
	rng := rand.New(rand.NewPCG(seed, 0x0dac1e))
	thr := newGenThreads(seed)
	pick := func(n int) int { return rng.IntN(n) }
	chance := func(p float64) bool { return rng.Float64() < p }
	// In coarse scenarios every time is a whole millisecond, so that
	// completions, arrivals, issues, events, scans and come-ups often fall
	// on the same instant.
	coarse := chance(0.5)
	grain := 1
	if coarse {
		grain = 1000
	}

	nm := 1 + pick(3)
	model := "MP"
	if nm == 1 && chance(0.5) {
		model = "SHM"
	}
	ldbal := "Y"
	if chance(0.2) {
		ldbal = "N"
	}
	var u strings.Builder
	fmt.Fprintf(&u, "*RESOURCES\nIPCKEY 123456\nMASTER s1\nMODEL %s\nLDBAL %s\nSCANUNIT %dMS\nSANITYSCAN %d\nBLOCKTIME %d\n\n*MACHINES\n",
		model, ldbal, 5+pick(20), 1+pick(4), 2+pick(10))
	netloads := []int{0, 10, 50, 100}
	for m := 1; m <= nm; m++ {
		fmt.Fprintf(&u, "node%d LMID=s%d", m, m)
		if chance(0.7) {
			fmt.Fprintf(&u, " NETLOAD=%d", netloads[pick(len(netloads))])
		}
		u.WriteString("\n")
	}
	ng := 1 + pick(3)
	u.WriteString("\n*GROUPS\n")
	for g := 1; g <= ng; g++ {
		fmt.Fprintf(&u, "G%d LMID=s%d", g, 1+pick(nm))
		if nm > 1 && chance(0.2) { // a failover machine: not used
			fmt.Fprintf(&u, ",s%d", 1+pick(nm))
		}
		fmt.Fprintf(&u, " GRPNO=%d\n", g)
	}
	gateway := chance(0.25)
	if gateway {
		fmt.Fprintf(&u, "DMGRP LMID=s1 GRPNO=90\nGWGRP LMID=s%d GRPNO=91\n", 1+pick(nm))
	}
	services := []string{"A", "B", "C"}
	u.WriteString("\n*SERVERS\n")
	nextID := map[int]int{} // highest SRVID used per group
	used := map[[2]int]bool{}
	total := 0
	rqaddrs := []string{"QA", "QB"}
	for e := 0; e < 1+pick(4) || total < 2; e++ {
		g := 1 + pick(ng)
		mn := 1 + pick(3)
		mx := mn
		if chance(0.25) {
			mx = mn + 1 + pick(2)
		}
		// SRVIDs out of entry order at times: scan order is entries first.
		id := nextID[g] + 1
		if chance(0.3) {
			for try := 0; try < 20; try++ {
				c := 1 + pick(20)
				free := true
				for k := c; k < c+mx; k++ {
					free = free && !used[[2]int{g, k}]
				}
				if free {
					id = c
					break
				}
			}
		}
		for k := id; k < id+mx; k++ {
			used[[2]int{g, k}] = true
			nextID[g] = max(nextID[g], k)
		}
		fmt.Fprintf(&u, "srv%d SRVGRP=G%d SRVID=%d MIN=%d", e, g, id, mn)
		if mx > mn {
			fmt.Fprintf(&u, " MAX=%d", mx)
		}
		total += mn
		rq := ""
		if chance(0.4) || mx > mn {
			rq = fmt.Sprintf(" RQADDR=Q%d%s", g, rqaddrs[pick(2)])
		}
		spawn := ""
		if mx > mn && chance(0.5) {
			k := pick(4)
			spawn = []string{"-p 1,0:1,0 ", "-p L50,0:60,0 ", "-p 0,0:2,0 ", "-p 1,0:3,0 "}[k]
			if k == 3 && id%2 == 1 { // (no draw of its own: other seeds keep their scenarios)
				rq = " CONV=Y" // conversational without RQADDR: spawned, never decayed
			}
		}
		u.WriteString(rq)
		if chance(0.5) {
			fmt.Fprintf(&u, " RESTART=Y MAXGEN=%d", 1+pick(3))
			if chance(0.5) {
				fmt.Fprintf(&u, " GRACE=%d", pick(2))
			}
		}
		var adv []string
		for _, s := range services {
			if chance(0.6) {
				adv = append(adv, s)
			}
		}
		if len(adv) == 0 {
			adv = []string{"A"}
		}
		u.WriteString(thr.entry(spawn != ""))
		fmt.Fprintf(&u, " CLOPT=\"%s-s %s\"\n", spawn, strings.Join(adv, ","))
	}
	if gateway {
		u.WriteString("DMADM SRVGRP=DMGRP SRVID=1\nGWADM SRVGRP=GWGRP SRVID=1\nGWTDOMAIN SRVGRP=GWGRP SRVID=2" + thr.gateway() + "\n")
	}
	u.WriteString("\n*SERVICES\n")
	routed := chance(0.4)
	timeout := ""
	if chance(0.15) {
		timeout = " SVCTIMEOUT=1"
	}
	for _, s := range services {
		for g := 1; g <= ng; g++ {
			if chance(0.2) {
				fmt.Fprintf(&u, "%s SRVGRP=G%d LOAD=%d PRIO=%d", s, g, 10+pick(90), 1+pick(100))
				if chance(0.5) {
					u.WriteString(timeout)
				}
				if routed && s == "B" {
					u.WriteString(" ROUTING=RB")
				}
				u.WriteString("\n")
			}
		}
		fmt.Fprintf(&u, "%s LOAD=%d PRIO=%d", s, 10+pick(90), 1+pick(100))
		if chance(0.5) {
			u.WriteString(timeout)
		}
		if routed && s == "B" {
			u.WriteString(" ROUTING=RB")
		}
		u.WriteString("\n")
	}
	if gateway {
		fmt.Fprintf(&u, "R LOAD=%d\n", 10+pick(90))
	}
	if routed {
		var rs []string
		lo := 0
		for k := 0; k < 1+pick(3); k++ {
			lo += pick(3)
			hi := lo + pick(10)
			grp := fmt.Sprintf("G%d", 1+pick(ng))
			if chance(0.15) {
				grp = "*"
			}
			rs = append(rs, fmt.Sprintf("%d-%d:%s", lo, hi, grp))
			lo = hi + 1
		}
		if chance(0.5) {
			grp := fmt.Sprintf("G%d", 1+pick(ng))
			if chance(0.2) {
				grp = "*"
			}
			rs = append(rs, "*:"+grp)
		}
		fmt.Fprintf(&u, "\n*ROUTING\nRB FIELD=ACCT BUFTYPE=\"FML\" RANGES=\"%s\"\n", strings.Join(rs, ","))
	}

	sc := &scenario.Scenario{Name: fmt.Sprintf("oracle-%d", seed), UBBConfig: u.String()}
	svcList := append([]string(nil), services...)
	if gateway {
		imp := "R"
		extra := ""
		if chance(0.4) { // a local service of the same name is also imported
			extra = "A RDOM=RDOM LDOM=LDOM\n"
		}
		sc.DMConfig = "*DM_RESOURCES\nVERSION=U22\n\n*DM_LOCAL_DOMAINS\nLDOM GWGRP=GWGRP\n     TYPE=TDOMAIN\n     DOMAINID=\"LDOM\"\n\n" +
			"*DM_REMOTE_DOMAINS\nRDOM TYPE=TDOMAIN\n     DOMAINID=\"RDOM\"\n\n*DM_TDOMAIN\nLDOM NWADDR=\"//localhost:9001\"\nRDOM NWADDR=\"//remotehost:9002\"\n\n" +
			"*DM_REMOTE_SERVICES\n" + imp + " RDOM=RDOM LDOM=LDOM\n" + extra
		ms := float64(1 + pick(30))
		sc.Domains = map[string]scenario.DomainSpec{"RDOM": {ResponseTime: scenario.Dist{Dist: "const", MS: &ms}}}
		svcList = append(svcList, "R")
	}
	f := func(v float64) *float64 { return &v }
	if chance(0.6) {
		sc.Network = &scenario.NetworkSpec{LatencyMS: []float64{0, 0.5, 2, 3.25, 1, 2, 5, 1.0005, 0.0015}[pick(9)]}
	}
	sc.Machines = map[string]scenario.MachineSpec{}
	for m := 1; m <= nm; m++ {
		if chance(0.4) {
			sc.Machines[fmt.Sprintf("s%d", m)] = scenario.MachineSpec{Speed: f([]float64{0.5, 2, 1.5}[pick(3)])}
		}
	}
	tu := &scenario.Tuning{BootMS: f(float64(pick(60)))}
	thr.tuning(tu)
	if chance(0.3) {
		tu.Idle = "queue"
	}
	if chance(0.3) {
		tu.NetLoad = "origin"
	}
	if chance(0.3) {
		tu.MPCounter = "load"
	}
	if chance(0.3) {
		tu.MPResetMS = f(float64(5 + pick(50)))
	}
	if chance(0.3) {
		tu.GatewayForwardMS = f(float64(pick(3)) + 0.25)
		if coarse {
			tu.GatewayForwardMS = f(float64(pick(3)))
		}
	}
	sc.Tuning = tu
	switch r := rng.Float64(); {
	case r < 0.1:
		sc.Policy = "round_robin"
	case r < 0.2:
		sc.Policy = "jsq"
	}

	var tr strings.Builder
	tr.WriteString("time_ms,service,origin,service_ms,prio,route\n")
	nreq := 5 + pick(60)
	tus := 0
	for k := 0; k < nreq; k++ {
		if !chance(0.2) {
			tus += pick(8000) / grain * grain
		}
		svc := svcList[pick(len(svcList))]
		prio := ""
		if chance(0.15) {
			prio = fmt.Sprint(1 + pick(100))
		}
		route := ""
		if routed && svc == "B" && !chance(0.1) {
			route = fmt.Sprint(pick(25))
		}
		sus := 10 + pick(30000)
		if coarse {
			sus = pick(8) * 1000
		}
		if timeout != "" && chance(0.2) {
			sus = 900000 + pick(300)*1000
		}
		// Now and then a time written with a fourth decimal, often a
		// half microsecond: inputs round to whole µs, halves away from zero.
		tfrac, sfrac := "", ""
		if chance(0.1) {
			tfrac = fmt.Sprint([]int{5, 5, 4, 6}[pick(4)])
		}
		if chance(0.1) {
			sfrac = fmt.Sprint([]int{5, 5, 4, 6}[pick(4)])
		}
		fmt.Fprintf(&tr, "%d.%03d%s,%s,s%d,%d.%03d%s,%s,%s\n", tus/1000, tus%1000, tfrac, svc, 1+pick(nm),
			sus/1000, sus%1000, sfrac, prio, route)
	}
	sc.Workload.TraceCSV = tr.String()

	targets := []string{}
	for g := 1; g <= ng; g++ {
		targets = append(targets, fmt.Sprintf("group:G%d", g))
		for id := 1; id <= nextID[g]; id++ {
			if !used[[2]int{g, id}] {
				continue
			}
			targets = append(targets, fmt.Sprintf("G%d/%d", g, id))
		}
	}
	for m := 1; m <= nm; m++ {
		targets = append(targets, fmt.Sprintf("machine:s%d", m))
	}
	if gateway {
		targets = append(targets, "GWGRP/2")
	}
	if chance(0.6) {
		at := 0
		for k := 0; k < 1+pick(5); k++ {
			at += pick(40000) / grain * grain
			ev := scenario.Event{AtMS: f(float64(at) / 1000)}
			if chance(0.1) {
				ev.AtMS = f(float64(at)/1000 + 0.0005)
				at++ // keeps the list in time order
			}
			tg := targets[pick(len(targets))]
			switch pick(3) {
			case 0:
				ev.Kill = tg
			case 1:
				ev.Shutdown = tg
			default:
				ev.Boot = tg
			}
			sc.Events = append(sc.Events, ev)
		}
	}
	genLose(seed, sc, nm, grain, 300)
	return sc
}

// genAppScenario builds a random small application for the differential
// test, as a scenario document: machines, groups and *SERVERS entries as
// genScenario makes them (MSSQ sets, RESTART/MAXGEN/GRACE, LOAD/PRIO per
// group, NETLOAD, latency, speeds, a routed service, sometimes a gateway),
// five services A..E with const service times whose calls only reach later
// services (so the call graph has no cycle) in tpcall, tpacall (some of
// them noreply) and tpforward steps (p = 1, route inherit or a constant), client sets with a script or
// one service, const think and backoff and sometimes retries, a service's
// own BLOCKTIME at times, a few trace rows and random life-cycle events.
// Everything is what the reference simulator reproduces exactly.
func genAppScenario(seed uint64) []byte { return genAppScenarioWith(seed, oracleTransactions) }

// oracleTransactions lets the generator emit transactions (TMSNAME,
// AUTOTRAN, TRANTIME, transactions.tms_time, TPETRAN in retry codes), which
// the engine and the reference (oracle_tran_test.go) both play.
const oracleTransactions = true

// genAppScenarioWith is genAppScenario with transactions or without. Their
// draws come from a stream of their own, so that the rest of a seed's
// scenario is the same either way. About one scenario in four gets /Q
// (genQueues, under -oracle.q).
func genAppScenarioWith(seed uint64, transactions bool) []byte {
	doc := genAppBase(seed, transactions)
	if *oracleQ {
		doc = genQueues(seed, doc, 0.25)
	}
	return doc
}

// genAppBase is the application scenario without /Q.
func genAppBase(seed uint64, transactions bool) []byte {
	rng := rand.New(rand.NewPCG(seed, 0xa9911ca7))
	trn := rand.New(rand.NewPCG(seed, 0x7472616e73)) // "trans"
	tchance := func(p float64) bool { return transactions && trn.Float64() < p }
	thr := newGenThreads(seed)
	noreply := rand.New(rand.NewPCG(seed, 0x6e6f7265706c79)) // "noreply"
	pick := func(n int) int { return rng.IntN(n) }
	chance := func(p float64) bool { return rng.Float64() < p }
	coarse := chance(0.6)
	// msText writes µs as milliseconds.
	msText := func(us int) float64 { return float64(us) / 1000 }
	// dur is a random time in µs below maxMS ms: whole ms when coarse.
	dur := func(maxMS int) int {
		if coarse {
			return pick(maxMS) * 1000
		}
		return pick(maxMS * 1000)
	}

	nm := 1 + pick(3)
	model := "MP"
	if nm == 1 && chance(0.5) {
		model = "SHM"
	}
	ldbal := "Y"
	if chance(0.15) {
		ldbal = "N"
	}
	var u strings.Builder
	fmt.Fprintf(&u, "*RESOURCES\nIPCKEY 123456\nMASTER s1\nMODEL %s\nLDBAL %s\nSCANUNIT %dMS\nSANITYSCAN %d\nBLOCKTIME %d\n\n*MACHINES\n",
		model, ldbal, 5+pick(20), 1+pick(4), 2+pick(10))
	netloads := []int{0, 10, 50, 100}
	for m := 1; m <= nm; m++ {
		fmt.Fprintf(&u, "node%d LMID=s%d", m, m)
		if chance(0.7) {
			fmt.Fprintf(&u, " NETLOAD=%d", netloads[pick(len(netloads))])
		}
		u.WriteString("\n")
	}
	ng := 1 + pick(3)
	u.WriteString("\n*GROUPS\n")
	// tms is a group's TMSNAME and TMSCOUNT, when transactions are on and
	// the group has them.
	tms := func() string {
		if !tchance(0.75) {
			return ""
		}
		return fmt.Sprintf(" TMSNAME=TMS%s TMSCOUNT=%d", []string{"", "_ORA"}[trn.IntN(2)], 2+trn.IntN(2))
	}
	for g := 1; g <= ng; g++ {
		fmt.Fprintf(&u, "G%d LMID=s%d GRPNO=%d%s\n", g, 1+pick(nm), g, tms())
	}
	gateway := chance(0.2)
	if gateway {
		fmt.Fprintf(&u, "DMGRP LMID=s1 GRPNO=90\nGWGRP LMID=s%d GRPNO=91%s\n", 1+pick(nm), tms())
	}
	services := []string{"A", "B", "C", "D", "E"}
	u.WriteString("\n*SERVERS\n")
	nextID := map[int]int{}
	total := 0
	var lines []string // each entry's text before its CLOPT
	var advs [][]string
	for e := 0; e < 1+pick(4) || total < 2; e++ {
		var u strings.Builder
		g := 1 + pick(ng)
		mn := 1 + pick(3)
		mx := mn
		if chance(0.2) {
			mx = mn + 1 + pick(2)
		}
		id := nextID[g] + 1
		nextID[g] = id + mx - 1
		fmt.Fprintf(&u, "srv%d SRVGRP=G%d SRVID=%d MIN=%d", e, g, id, mn)
		if mx > mn {
			fmt.Fprintf(&u, " MAX=%d", mx)
		}
		total += mn
		if chance(0.4) || mx > mn {
			fmt.Fprintf(&u, " RQADDR=Q%d%s", g, []string{"QA", "QB"}[pick(2)])
		}
		if chance(0.5) {
			fmt.Fprintf(&u, " RESTART=Y MAXGEN=%d", 1+pick(3))
			if chance(0.5) {
				fmt.Fprintf(&u, " GRACE=%d", pick(2))
			}
		}
		u.WriteString(thr.entry(false))
		var adv []string
		for _, s := range services {
			if chance(0.55) {
				adv = append(adv, s)
			}
		}
		lines = append(lines, u.String())
		advs = append(advs, adv)
	}
	// Most services are advertised somewhere: an unadvertised one makes
	// every call to it fail with TPENOENT.
	for _, s := range services {
		found := false
		for _, adv := range advs {
			found = found || slices.Contains(adv, s)
		}
		if !found && chance(0.85) {
			e := pick(len(advs))
			advs[e] = append(advs[e], s)
		}
	}
	for e, line := range lines {
		adv := advs[e]
		if len(adv) == 0 {
			adv = []string{"A"}
		}
		fmt.Fprintf(&u, "%s CLOPT=\"-s %s\"\n", line, strings.Join(adv, ","))
	}
	if gateway {
		u.WriteString("DMADM SRVGRP=DMGRP SRVID=1\nGWADM SRVGRP=GWGRP SRVID=1\nGWTDOMAIN SRVGRP=GWGRP SRVID=2" + thr.gateway() + "\n")
	}
	u.WriteString("\n*SERVICES\n")
	routed := chance(0.4) // service C is routed
	// SVCTIMEOUT=1 at times: with a service's own BLOCKTIME of seconds, a
	// server holding a request that long is aborted (held time counts).
	timeout := chance(0.15)
	for _, s := range services {
		block := ""
		if chance(0.2) { // its own BLOCKTIME, on every entry of the service
			block = fmt.Sprintf(" BLOCKTIME=%d", 1+pick(2))
		}
		if timeout && chance(0.5) {
			block += " SVCTIMEOUT=1"
		}
		rt := ""
		if routed && s == "C" {
			rt = " ROUTING=RC"
		}
		// AUTOTRAN (and TRANTIME: 1 s, 0 = none, or the default 30 s) per entry
		auto := func() string {
			if !tchance(0.5) {
				return ""
			}
			return " AUTOTRAN=Y" + []string{" TRANTIME=1", " TRANTIME=0", ""}[trn.IntN(3)]
		}
		for g := 1; g <= ng; g++ {
			if chance(0.2) {
				fmt.Fprintf(&u, "%s SRVGRP=G%d LOAD=%d PRIO=%d%s%s%s\n", s, g, 10+pick(90), 1+pick(100), block, rt, auto())
			}
		}
		fmt.Fprintf(&u, "%s LOAD=%d PRIO=%d%s%s%s\n", s, 10+pick(90), 1+pick(100), block, rt, auto())
	}
	if gateway {
		// R is AUTOTRAN at times (a gateway starts no transaction; called
		// in X it joins with its group's TMS), from a stream of its own so
		// the rest of the scenario is what it was
		gwt := rand.New(rand.NewPCG(seed, 0x67777472616e)) // "gwtran"
		auto := ""
		if transactions && gwt.Float64() < 0.5 {
			auto = " AUTOTRAN=Y"
		}
		fmt.Fprintf(&u, "R LOAD=%d%s\n", 10+pick(90), auto)
	}
	if routed {
		var rs []string
		lo := 0
		for k := 0; k < 1+pick(3); k++ {
			lo += pick(3)
			hi := lo + pick(10)
			grp := fmt.Sprintf("G%d", 1+pick(ng))
			if chance(0.15) {
				grp = "*"
			}
			rs = append(rs, fmt.Sprintf("%d-%d:%s", lo, hi, grp))
			lo = hi + 1
		}
		if chance(0.5) {
			rs = append(rs, fmt.Sprintf("*:G%d", 1+pick(ng)))
		}
		fmt.Fprintf(&u, "\n*ROUTING\nRC FIELD=ACCT BUFTYPE=\"FML\" RANGES=\"%s\"\n", strings.Join(rs, ","))
	}

	sc := &scenario.Scenario{Name: fmt.Sprintf("oracle-app-%d", seed), UBBConfig: u.String()}
	callees := append([]string(nil), services...)
	if gateway {
		extra := ""
		if chance(0.4) { // a local service of the same name is also imported
			extra = "A RDOM=RDOM LDOM=LDOM\n"
		}
		sc.DMConfig = "*DM_RESOURCES\nVERSION=U22\n\n*DM_LOCAL_DOMAINS\nLDOM GWGRP=GWGRP\n     TYPE=TDOMAIN\n     DOMAINID=\"LDOM\"\n\n" +
			"*DM_REMOTE_DOMAINS\nRDOM TYPE=TDOMAIN\n     DOMAINID=\"RDOM\"\n\n*DM_TDOMAIN\nLDOM NWADDR=\"//localhost:9001\"\nRDOM NWADDR=\"//remotehost:9002\"\n\n" +
			"*DM_REMOTE_SERVICES\nR RDOM=RDOM LDOM=LDOM\n" + extra
		ms := float64(1 + pick(20))
		sc.Domains = map[string]scenario.DomainSpec{"RDOM": {ResponseTime: scenario.Dist{Dist: "const", MS: &ms}}}
		callees = append(callees, "R")
	}
	f := func(v float64) *float64 { return &v }
	if chance(0.7) {
		lat := []float64{0, 0.5, 2, 1, 3, 1.0005, 0.0015}[pick(7)]
		if coarse {
			lat = float64(pick(4))
		}
		sc.Network = &scenario.NetworkSpec{LatencyMS: lat}
	}
	sc.Machines = map[string]scenario.MachineSpec{}
	for m := 1; m <= nm; m++ {
		if chance(0.3) {
			sc.Machines[fmt.Sprintf("s%d", m)] = scenario.MachineSpec{Speed: f([]float64{0.5, 2}[pick(2)])}
		}
	}
	tu := &scenario.Tuning{BootMS: f(float64(pick(30)))}
	thr.tuning(tu)
	if chance(0.2) {
		tu.Idle = "queue"
	}
	if chance(0.2) {
		tu.NetLoad = "origin"
	}
	if chance(0.2) {
		tu.MPCounter = "load"
	}
	if chance(0.3) {
		tu.MPResetMS = f(float64(5 + pick(50)))
	}
	sc.Tuning = tu
	switch r := rng.Float64(); {
	case r < 0.08:
		sc.Policy = "round_robin"
	case r < 0.16:
		sc.Policy = "jsq"
	}

	// Services: const service times; calls to later services only.
	type step map[string]any
	svcDoc := map[string]any{}
	for k, s := range services {
		st := 1000 + dur(6)
		if chance(0.15) {
			st = dur(2) // now and then a very short or 0 µs service
		}
		if tchance(0.08) { // about a second: TRANTIME=1 can pass
			st = 900_000 + trn.IntN(200_000)
		}
		spec := map[string]any{"service_time": map[string]any{"dist": "const", "ms": msText(st)}}
		if k < len(services)-1 && chance(0.6) {
			var steps []step
			ns := 1 + pick(3)
			for j := 0; j < ns; j++ {
				later := callees[k+1:]
				c := later[pick(len(later))]
				st := step{"service": c}
				switch r := rng.Float64(); {
				case r < 0.45:
					if chance(0.5) {
						st["mode"] = "tpcall"
					}
				case r < 0.85:
					st["mode"] = "tpacall"
				default:
					if j == ns-1 {
						st["mode"] = "tpforward"
					} else {
						st["mode"] = "tpacall"
					}
				}
				switch r := rng.Float64(); {
				case r < 0.15:
					st["route"] = "inherit"
				case r < 0.45 && routed && c == "C":
					// (the engine refuses a routing value for an unrouted
					// service, as for streams)
					st["route"] = pick(25)
				}
				if chance(0.1) {
					st["p"] = 1
				}
				// tpacall with TPNOREPLY at times, drawn from a stream of
				// its own so the rest of the scenario is what it was
				if st["mode"] == "tpacall" && noreply.Float64() < 0.3 {
					st["noreply"] = true
				}
				steps = append(steps, st)
			}
			spec["calls"] = steps
		}
		svcDoc[s] = spec
	}

	// Client sets.
	var sets []map[string]any
	durationMS := 20 + pick(150)
	for k := 0; k < 1+pick(3); k++ {
		// At least 1 ms: a request that fails at its issue answers at once.
		// (A backoff of 0 is read as 1 µs; retries are few.)
		think := 1000 + dur(20)
		cs := map[string]any{"name": []string{"tellers", "web", "batch"}[k], "count": 1 + pick(4),
			"origin": fmt.Sprintf("s%d", 1+pick(nm)), "think": map[string]any{"dist": "const", "ms": msText(think)}}
		if chance(0.2) {
			e := map[string]any{"service": services[pick(len(services))]}
			if routed && e["service"] == "C" && chance(0.8) {
				e["route"] = map[string]any{"values": []int{pick(25)}}
			}
			cs["services"] = []any{e}
		} else {
			var script []any
			for j := 0; j < 1+pick(3); j++ {
				s := services[pick(3)]
				if routed && s == "C" && chance(0.8) {
					script = append(script, map[string]any{"service": s, "route": pick(25)})
				} else {
					script = append(script, s)
				}
			}
			cs["script"] = script
		}
		if chance(0.5) {
			codes := []string{"TPETIME", "TPESVCERR", "TPESVCFAIL", "TPENOENT", "TPESYSTEM"}
			var on []string
			for _, c := range codes {
				if chance(0.5) {
					on = append(on, c)
				}
			}
			r := map[string]any{"max": 1 + pick(2), "backoff": map[string]any{"dist": "const", "ms": msText(dur(5))}}
			if tchance(0.5) {
				on = append(on, "TPETRAN")
			}
			if on != nil {
				r["on"] = on
			}
			cs["retry"] = r
		}
		sets = append(sets, cs)
	}

	// A few trace rows.
	var tr strings.Builder
	tr.WriteString("time_ms,service,origin,service_ms,prio,route\n")
	tus := 0
	nrows := pick(8)
	for k := 0; k < nrows; k++ {
		tus += dur(20)
		prio := ""
		if chance(0.15) {
			prio = fmt.Sprint(1 + pick(100))
		}
		route := ""
		if chance(0.6) {
			route = fmt.Sprint(pick(25))
		}
		sus := dur(8)
		fmt.Fprintf(&tr, "%d.%03d,%s,s%d,%d.%03d,%s,%s\n", tus/1000, tus%1000, services[pick(len(services))], 1+pick(nm),
			sus/1000, sus%1000, prio, route)
	}
	if nrows > 0 {
		sc.Workload.TraceCSV = tr.String()
	}

	// Events, within the clients' time.
	var targets []string
	for g := 1; g <= ng; g++ {
		targets = append(targets, fmt.Sprintf("group:G%d", g))
		for id := 1; id <= nextID[g]; id++ {
			targets = append(targets, fmt.Sprintf("G%d/%d", g, id))
		}
	}
	for m := 1; m <= nm; m++ {
		targets = append(targets, fmt.Sprintf("machine:s%d", m))
	}
	if chance(0.6) {
		at := 0
		for k := 0; k < 1+pick(5); k++ {
			at += dur(durationMS / 2)
			ev := scenario.Event{AtMS: f(msText(at))}
			tg := targets[pick(len(targets))]
			switch pick(3) {
			case 0:
				ev.Kill = tg
			case 1:
				ev.Shutdown = tg
			default:
				ev.Boot = tg
			}
			sc.Events = append(sc.Events, ev)
		}
	}

	grain := 1
	if coarse {
		grain = 1000
	}
	genLose(seed, sc, nm, grain, durationMS)

	if transactions {
		ms := []float64{0, 0.5, 1, 2.5}[trn.IntN(4)]
		sc.Transactions = &scenario.TransactionsSpec{TMSTime: &scenario.Dist{Dist: "const", MS: &ms}}
	}
	var wsDoc map[string]any
	if *oracleWSL {
		sc.UBBConfig, wsDoc = genWorkstation(seed, sc.UBBConfig, nm, sets)
	}

	base, err := json.Marshal(sc)
	if err != nil {
		panic(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(base, &doc); err != nil {
		panic(err)
	}
	if wsDoc != nil {
		doc["workstation"] = wsDoc
	}
	doc["services"] = svcDoc
	wl := doc["workload"].(map[string]any)
	wl["generate"] = map[string]any{"duration_ms": durationMS, "clients": sets}
	out, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return out
}

// genWorkstation adds, at times, the workstation front end to an
// application scenario: a WSL (its -m, -M and -x, sometimes two instances)
// in a group of its own, the MAXWSCLIENTS of its machine, client sets
// connecting through it (via instead of origin; now and then through its
// second instance, which takes no clients) and a handling time. It draws
// from a stream of its own, so the rest of the scenario is what it was; it
// returns the UBBCONFIG and the workstation section (nil for none).
func genWorkstation(seed uint64, ubbText string, nm int, sets []map[string]any) (string, map[string]any) {
	rng := rand.New(rand.NewPCG(seed, 0x77736c)) // "wsl"
	pick := func(n int) int { return rng.IntN(n) }
	chance := func(p float64) bool { return rng.Float64() < p }
	if !chance(0.4) {
		return ubbText, nil
	}
	m := 1 + pick(nm)
	node := fmt.Sprintf("node%d LMID=s%d", m, m)
	ubbText = strings.Replace(ubbText, node, fmt.Sprintf("%s MAXWSCLIENTS=%d", node, []int{0, 1, 2, 3, 5, 8, 20}[pick(7)]), 1)
	ubbText = strings.Replace(ubbText, "*GROUPS\n", fmt.Sprintf("*GROUPS\nWSG LMID=s%d GRPNO=95\n", m), 1)
	opts := fmt.Sprintf("-n //ws:%d", 4000+pick(100))
	mn := pick(3)
	if chance(0.8) {
		opts += fmt.Sprintf(" -m %d", mn)
	} else {
		mn = 0
	}
	if chance(0.5) {
		opts += fmt.Sprintf(" -M%d", mn+pick(3))
	}
	if chance(0.7) {
		opts += fmt.Sprintf(" -x %d", 1+pick(3))
	}
	min := 1
	if chance(0.15) {
		min = 2
	}
	ubbText = strings.Replace(ubbText, "\n*SERVICES\n", fmt.Sprintf("WSL SRVGRP=WSG SRVID=1 MIN=%d CLOPT=\"-A -- %s\"\n\n*SERVICES\n", min, opts), 1)
	for _, cs := range sets {
		if !chance(0.6) {
			continue
		}
		delete(cs, "origin")
		cs["via"] = "WSG/1"
		if min == 2 && chance(0.3) {
			cs["via"] = "WSG/2"
		}
	}
	if !chance(0.7) {
		return ubbText, nil
	}
	ms := []float64{0, 0.5, 1, 2, 0.0015, 3}[pick(6)]
	return ubbText, map[string]any{"handling_time": map[string]any{"dist": "const", "ms": ms}}
}
