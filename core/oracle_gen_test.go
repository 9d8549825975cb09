package core

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// genScenario builds a random small scenario for the differential test:
// 1-3 machines, SHM or MP, LDBAL Y or N, a few *SERVERS entries (MSSQ sets
// through RQADDR, spares through MAX, RESTART/MAXGEN/GRACE), group-specific
// LOAD and PRIO, NETLOAD, latency, speeds, a routed service with gaps and
// sometimes a catch-all, sometimes a gateway, random events and tuning, and
// a trace whose every row carries service_ms.
func genScenario(seed uint64) *Scenario {
	rng := rand.New(rand.NewPCG(seed, 0x0dac1e))
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
		fmt.Fprintf(&u, " CLOPT=\"%s-s %s\"\n", spawn, strings.Join(adv, ","))
	}
	if gateway {
		u.WriteString("DMADM SRVGRP=DMGRP SRVID=1\nGWADM SRVGRP=GWGRP SRVID=1\nGWTDOMAIN SRVGRP=GWGRP SRVID=2\n")
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

	sc := &Scenario{Name: fmt.Sprintf("oracle-%d", seed), UBBConfig: u.String()}
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
		sc.Domains = map[string]DomainSpec{"RDOM": {ResponseTime: Dist{Dist: "const", MS: &ms}}}
		svcList = append(svcList, "R")
	}
	f := func(v float64) *float64 { return &v }
	if chance(0.6) {
		sc.Network = &NetworkSpec{LatencyMS: []float64{0, 0.5, 2, 3.25, 1, 2, 5, 1.0005, 0.0015}[pick(9)]}
	}
	sc.Machines = map[string]MachineSpec{}
	for m := 1; m <= nm; m++ {
		if chance(0.4) {
			sc.Machines[fmt.Sprintf("s%d", m)] = MachineSpec{Speed: f([]float64{0.5, 2, 1.5}[pick(3)])}
		}
	}
	tu := &Tuning{BootMS: f(float64(pick(60)))}
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
			ev := Event{AtMS: f(float64(at) / 1000)}
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
	return sc
}
