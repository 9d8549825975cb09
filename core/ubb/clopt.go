package ubb

import (
	"fmt"
	"iter"
	"sort"
	"strings"
)

// cloptServices returns the services named by -s options in a CLOPT, before
// "--" (what follows belongs to the application). It understands "-s A,B:func"
// (A and B; func is the routine), "-sA", several -s options, and options
// grouped getopt-style ("-As A"). found says whether any -s was given but
// for those that only name files of services ("-s @file"): files lists
// those, which cannot be read here.
func cloptServices(clopt string) (services []string, found bool, files []string) {
	seen := map[string]bool{}
	for opt, val := range cloptOptions(clopt) {
		if opt != 's' {
			continue
		}
		named := false
		for _, s := range splitList(val) {
			if k := strings.IndexByte(s, ':'); k >= 0 {
				s = s[:k]
			}
			switch {
			case strings.HasPrefix(s, "@"):
				files = append(files, s)
			case s != "" && !seen[s]:
				seen[s] = true
				services = append(services, s)
				named = true
			}
		}
		found = found || named || !strings.HasPrefix(val, "@")
	}
	return services, found, files
}

// cloptOptions yields the options of a CLOPT that take an argument
// (cloptArgOptions), each with its argument, in order, up to "--": "-sA",
// "-s A" and options grouped getopt-style ("-As A": the first option of a
// group that takes an argument ends the group).
func cloptOptions(clopt string) iter.Seq2[byte, string] {
	return func(yield func(byte, string) bool) {
		args := strings.Fields(clopt)
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a == "--" {
				return
			}
			if len(a) < 2 || a[0] != '-' {
				continue
			}
			for j := 1; j < len(a); j++ {
				if !strings.ContainsRune(cloptArgOptions, rune(a[j])) {
					continue
				}
				val := a[j+1:]
				if val == "" && i+1 < len(args) && args[i+1] != "--" {
					i++
					val = args[i]
				}
				if !yield(a[j], val) {
					return
				}
				break
			}
		}
	}
}

// cloptArgOptions are the server options (servopts) that take an argument.
const cloptArgOptions = "seolnpL"

// serverClass is what the base name of a server's executable says of it.
type serverClass uint8

const (
	appServer        serverClass = iota // the application's own: -s, else the advertise map, else *SERVICES
	systemServer                        // Tuxedo's own: only its -s services
	simulatedGateway                    // GWTDOMAIN: the DMCONFIG's imports
	otherGateway                        // a domain gateway that is not simulated: only its -s services, with a warning
)

// systemServers are Tuxedo's system-supplied servers (docs/config.md,
// "System servers"), by the base name of their executable; every name
// starting with TMS is one too (TMS, TMS_QM, TMS_ORA...). None of them
// advertises the application's *SERVICES: each only what its -s options name.
var systemServers = map[string]serverClass{
	"BBL": systemServer, "DBBL": systemServer, "BRIDGE": systemServer,
	"WSL": systemServer, "WSH": systemServer, "JSL": systemServer, "JSH": systemServer, "JREPSVR": systemServer,
	"ISL": systemServer, "ISH": systemServer, "GWADM": systemServer, "DMADM": systemServer, "GWWS": systemServer,
	"GWTDOMAIN": simulatedGateway,
	"GWTOPEND":  otherGateway, "GWSNAX": otherGateway, "GWIDOMAIN": otherGateway, "GWOSITP": otherGateway,
	"TMQUEUE": systemServer, "TMQFORWARD": systemServer, "TMSYSEVT": systemServer, "TMUSREVT": systemServer,
	"TMFFNAME": systemServer, "TMIFRSVR": systemServer, "TMMETADATA": systemServer, "TMFAN": systemServer,
	"TMNTS": systemServer, "TMNTSFWD_T": systemServer, "TMNTSFWD_P": systemServer,
	"AUTHSVR": systemServer, "LMS": systemServer,
}

// classify says what a server is by the base name of its executable
// (/opt/tux/bin/TMQUEUE is TMQUEUE).
func classify(name string) serverClass {
	base := name[strings.LastIndexByte(name, '/')+1:]
	if c, ok := systemServers[base]; ok {
		return c
	}
	if strings.HasPrefix(base, "TMS") {
		return systemServer
	}
	return appServer
}

// serverKind classifies a server by the base name of its executable: a
// system server (any but the application's own), and the simulated gateway.
func serverKind(name string) (system, gateway bool) {
	c := classify(name)
	return c != appServer, c == simulatedGateway
}

// advertiseAll decides what every instance advertises (docs/config.md) and makes
// those services known.
func (b *builder) advertiseAll() {
	used := map[string]bool{}
	for _, se := range b.entries {
		services, source, system, gateway := b.advertised(se.e, used)
		for _, name := range services {
			b.known(name)
		}
		for i := se.first; i < se.first+se.count; i++ {
			s := &b.m.Servers[i]
			// Instances of one entry share one read-only slice: MIN=1000
			// instances of a server advertising many services cost one list.
			s.Services = services
			if gateway {
				s.Services = b.dm.gatewayServices(s.Group)
			}
			if s.Services == nil {
				s.Services = []string{}
			}
			s.AdvertiseSource, s.System, s.Gateway = source, system, gateway
		}
		if gateway && se.count > 0 && !b.dm.isGatewayGroup(b.m.Servers[se.first].Group) {
			g := b.m.Servers[se.first].Group
			b.warnf(se.e.pos, "GWTDOMAIN in group %s: no DMCONFIG local domain has GWGRP=%s, so it advertises nothing", g, g)
		}
	}
	b.warnUnusedAdvertise(used)
	b.warnGatewaylessDomains()
}

// advertised returns the services one *SERVERS entry advertises and where
// they come from. used collects the advertise map keys that were used.
func (b *builder) advertised(e *entry, used map[string]bool) ([]string, string, bool, bool) {
	clopt := "-A"
	if p, ok := e.get("CLOPT"); ok {
		clopt = p.value
	}
	services, found, files := cloptServices(clopt)
	if len(files) > 0 && found {
		p, _ := e.get("CLOPT")
		b.warnf(p.valPos, "server %s: -s %s names a file of services, which is not read", e.name, strings.Join(files, ","))
	}
	class := classify(e.name)
	if class != appServer {
		if _, ok := b.advertise[e.name]; ok {
			used[e.name] = true
			b.warnf(e.pos, "server %s is a Tuxedo system server: it advertises only what its CLOPT -s options name, so the scenario's advertise entry for it is not used", e.name)
		}
	}
	switch class {
	case simulatedGateway:
		return nil, "dmconfig", true, true
	case otherGateway:
		b.warnf(e.pos, "server %s is a domain gateway that is not simulated (only GWTDOMAIN is): it advertises only its -s services", e.name)
		return services, "clopt", true, false
	case systemServer:
		return services, "clopt", true, false
	}
	if found {
		return services, "clopt", false, false
	}
	if adv, ok := b.advertise[e.name]; ok {
		used[e.name] = true
		return adv, "scenario", false, false
	}
	what := "*SERVICES is empty, so it advertises nothing"
	if len(b.svcOrder) > 0 {
		what = "it advertises every *SERVICES service: " + strings.Join(b.svcOrder[:min(len(b.svcOrder), 5)], " ")
		if len(b.svcOrder) > 5 {
			what += fmt.Sprintf(" and %d more", len(b.svcOrder)-5)
		}
	}
	if len(files) > 0 {
		// its services are in a file (-s @file): as if it advertised at
		// run time, what the starter and psc handle
		p, _ := e.get("CLOPT")
		b.warnf(p.valPos, "server %s names its services in a file (-s %s), which is not read, and has no advertise entry in the scenario: %s",
			e.name, strings.Join(files, ","), what)
		return b.svcOrder, "services", false, false
	}
	b.warnf(e.pos, "server %s "+NoAdvertiseWarning+": %s", e.name, what)
	return b.svcOrder, "services", false, false
}

// NoAdvertiseWarning is in the warning about each server that advertises
// at run time (no -s, no advertise entry): a starter, which says it in
// its own words, leaves those out.
const NoAdvertiseWarning = "has no -s in its CLOPT and no advertise entry in the scenario"

// warnUnusedAdvertise warns about advertise map entries that no server used.
// Their services are known all the same (docs/config.md names the advertise
// map as a source of known services), so a request for one fails TPENOENT rather than
// being rejected as an unknown service.
func (b *builder) warnUnusedAdvertise(used map[string]bool) {
	names := make([]string, 0, len(b.advertise))
	for n, services := range b.advertise {
		for _, s := range services {
			b.known(s)
		}
		if !used[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		b.warns = append(b.warns, Diagnostic{File: "scenario", Severity: "warning",
			Message: "advertise: " + n + " is not used: no server of that name without -s in its CLOPT"})
	}
}
