package core

import "github.com/tuxlb/tuxlb/core/workload"

// routeTarget is where one range of a routed service's criterion leads:
// the candidates of its group, and those of the catch-all's group to fall
// back on when the group has none.
type routeTarget struct {
	group    string   // the range's group, "*" for any group
	sv       *svcInfo // the candidates in that group
	alt      *svcInfo // the catch-all's candidates (nil: no catch-all, or this is it)
	altGroup string
}

// routeStep is what the routing step decided for one request, for
// explanations.
type routeStep struct {
	routed   bool
	rng      int32  // index of the range that held the value, -1 for none
	group    string // the group whose candidates remain ("*": any)
	fallback bool   // the range's group had no candidate: the catch-all's group was used
}

// initRoutes precomputes the routing targets of service s: per range of its
// criterion (of every entry of its name, one after the other), the candidates
// of the range's group (group "*": all of them), built once per group.
func (e *engine) initRoutes(s int) {
	svc := &e.m.Services[s]
	if svc.Routing == "" {
		return
	}
	cs := workload.NewCritSet(e.m, svc.Routing)
	e.crit[s] = e.m.Criterion(svc.Routing)
	all := &e.svc[s]
	byGroup := map[string]*svcInfo{"*": all}
	set := func(g string) *svcInfo {
		if x, ok := byGroup[g]; ok {
			return x
		}
		var insts []int32
		for _, i := range all.all {
			if e.m.Servers[i].Group == g {
				insts = append(insts, i)
			}
		}
		x := e.newSvcInfo(s, insts)
		byGroup[g] = &x
		e.routeSets = append(e.routeSets, &x) // rebuilt with the others when instances come and go
		return &x
	}
	routes := make([]routeTarget, 0, cs.Ranges)
	for _, c := range cs.Entries {
		last := len(c.Ranges) - 1
		for k, r := range c.Ranges {
			t := routeTarget{group: r.Group, sv: set(r.Group)}
			if k != last && c.Ranges[last].CatchAll {
				t.alt, t.altGroup = set(c.Ranges[last].Group), c.Ranges[last].Group
			}
			routes = append(routes, t)
		}
	}
	all.routes = routes
	if len(cs.Entries) > 1 || cs.Entries[0].BufType != "" {
		if e.routing == nil {
			e.routing = make([]*workload.CritSet, len(e.m.Services))
		}
		e.routing[s] = cs
	}
}

// route is the routing step of request r of routed service sv: the candidates
// that remain (nil when the request fails with TPESYSTEM: a buffer type no
// entry holds, no value, or no range holds it) and what was decided.
func (e *engine) route(r *workload.Request, sv *svcInfo) (*svcInfo, routeStep) {
	rs := routeStep{routed: true, rng: -1}
	switch {
	case r.Route == workload.RouteNone:
		e.noValue[r.Service]++
		return nil, rs
	case r.Route == workload.RouteNoBuf:
		e.noBuf[r.Service]++
		return nil, rs
	case r.Route < 0 || int(r.Route) > len(sv.routes):
		e.noMatch[r.Service]++
		return nil, rs
	}
	t := &sv.routes[r.Route-1]
	rs.rng, rs.group = r.Route-1, t.group
	if !e.hasCandidate(t.sv) && t.alt != nil {
		rs.group, rs.fallback = t.altGroup, true
		return t.alt, rs
	}
	return t.sv, rs
}

// hasCandidate reports whether sv has a candidate now. Every non-spare
// instance is up, so this is whether it has any; with instances that come
// and go it is the one test the catch-all fallback needs.
func (e *engine) hasCandidate(sv *svcInfo) bool { return len(sv.cands) > 0 }

// routingWarnings says how many requests of routed services failed for
// want of a routing value, or with a value no range holds.
func (e *engine) routingWarnings() []string {
	var out []string
	for s := range e.svc {
		name := e.m.Services[s].Name
		if n := e.noValue[s]; n > 0 {
			out = append(out, sprintf("%d request(s) of %s carry no routing value (%s is routed by %s): they failed with TPESYSTEM",
				n, name, name, e.m.Services[s].Routing))
		}
		if n := e.noMatch[s]; n > 0 {
			out = append(out, sprintf("%d request(s) of %s have a routing value that no range of %s holds: they failed with TPESYSTEM",
				n, name, e.m.Services[s].Routing))
		}
		if n := e.noBuf[s]; n > 0 {
			out = append(out, sprintf("%d request(s) of %s have a buffer type that no entry of %s holds (BUFTYPE %s): they failed with TPESYSTEM",
				n, name, e.m.Services[s].Routing, e.m.BufTypes(e.m.Services[s].Routing)))
		}
	}
	return out
}
