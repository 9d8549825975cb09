package sweep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// workloadKey finds the keys of a generated workload's client populations
// and streams: clients.<name>.count, clients.<name>.think_ms and
// streams.<service>.rate (or .rate_per_s), or returns nil.
func workloadKey(parts []string) *sweepKey {
	name := parts[1]
	switch {
	case strings.EqualFold(parts[0], "clients") && strings.EqualFold(parts[2], "count"):
		return &sweepKey{name: "clients." + name + ".count", kind: keyInteger, check: positiveCount, rule: RuleLargest,
			apply: func(sc *scenario.Scenario, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil {
					return fmt.Errorf("clients.%s.count: want a whole number, got %q", name, v)
				}
				return editClients(sc, name, "count", func(cs *scenario.ClientSet) error { cs.Count = n; return nil })
			}}
	case strings.EqualFold(parts[0], "clients") && strings.EqualFold(parts[2], "think_ms"):
		return &sweepKey{name: "clients." + name + ".think_ms", kind: keyNumber, check: nonNegative, rule: RuleSmallest,
			apply: func(sc *scenario.Scenario, v string) error {
				return editClients(sc, name, "think_ms", func(cs *scenario.ClientSet) error { return setThinkMean(cs, name, v) })
			}}
	case strings.EqualFold(parts[0], "streams") && (strings.EqualFold(parts[2], "rate") || strings.EqualFold(parts[2], "rate_per_s")):
		return &sweepKey{name: "streams." + name + ".rate", kind: keyNumber, check: positive, rule: RuleLargest,
			apply: func(sc *scenario.Scenario, v string) error { return setStreamRate(sc, name, v) }}
	}
	return nil
}

func positiveCount(x float64) string {
	if x < 1 {
		return "must be at least 1"
	}
	return ""
}

// editClients applies edit to a copy of the client set named name (the
// scenario's other sets and streams are shared, not changed).
func editClients(sc *scenario.Scenario, name, attr string, edit func(*scenario.ClientSet) error) error {
	g := sc.Workload.Generate
	var names []string
	if g != nil {
		for i := range g.Clients {
			if g.Clients[i].Name != name {
				names = append(names, g.Clients[i].Name)
				continue
			}
			ng := *g
			ng.Clients = slices.Clone(g.Clients)
			if err := edit(&ng.Clients[i]); err != nil {
				return err
			}
			sc.Workload.Generate = &ng
			return nil
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("clients.%s.%s: the workload has no client populations (workload.generate.clients)", name, attr)
	}
	return fmt.Errorf("clients.%s.%s: no client population %q (populations: %s)", name, attr, name, strings.Join(names, ", "))
}

// setThinkMean gives a client set's think time the mean v (ms): every time
// of its distribution (ms, mean_ms, min_ms, max_ms, sd_ms, samples_ms) is
// multiplied by v / its mean, so its shape (an exp stays exp, a lognormal
// keeps its coefficient of variation, a uniform its proportions) is kept; a
// set without a think time, or with one whose mean is 0, gets the constant
// v. The products are computed on exact decimals.
func setThinkMean(cs *scenario.ClientSet, name, v string) error {
	target, ok := parseExact(v)
	if !ok || target.sign() < 0 {
		return fmt.Errorf("clients.%s.think_ms: want a number >= 0, got %q", name, v)
	}
	ms := target.float64()
	if cs.Think == nil {
		cs.Think = &scenario.Dist{Dist: "const", MS: &ms}
		return nil
	}
	s, err := dist.New(cs.Think, "workload.generate.clients."+name+".think")
	if err != nil {
		return err
	}
	mean := s.MeanMS()
	if mean <= 0 {
		cs.Think = &scenario.Dist{Dist: "const", MS: &ms}
		return nil
	}
	f := quoExact(target, ratOf(mean))
	d := *cs.Think
	scale := func(p *float64) *float64 {
		if p == nil {
			return nil
		}
		y := mulExact(ratOf(*p), f).float64()
		return &y
	}
	d.MS, d.MeanMS, d.MinMS, d.MaxMS, d.SDMS = scale(d.MS), scale(d.MeanMS), scale(d.MinMS), scale(d.MaxMS), scale(d.SDMS)
	d.SamplesMS = slices.Clone(d.SamplesMS)
	for i := range d.SamplesMS {
		d.SamplesMS[i] = *scale(&d.SamplesMS[i])
	}
	cs.Think = &d
	return nil
}

// ratOf is x as the exact decimal it prints as.
func ratOf(x float64) exact {
	r, _ := parseExact(strconv.FormatFloat(x, 'g', -1, 64))
	return r
}

// setStreamRate sets rate_per_s of every generated stream of the service
// to v. A stream whose rate is an MMPP's or a profile's is refused (vary
// rate_scale, which scales those).
func setStreamRate(sc *scenario.Scenario, service, v string) error {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return fmt.Errorf("streams.%s.rate: want a number > 0, got %q", service, v)
	}
	g := sc.Workload.Generate
	if g == nil || len(g.Streams) == 0 {
		return fmt.Errorf("streams.%s.rate: the workload has no generated streams (workload.generate.streams)", service)
	}
	ng := *g
	ng.Streams = slices.Clone(g.Streams)
	var services []string
	found := false
	for i := range ng.Streams {
		st := &ng.Streams[i]
		if st.Service != service {
			services = append(services, st.Service)
			continue
		}
		if len(st.Rates) > 0 || len(st.Profile) > 0 {
			return fmt.Errorf("streams.%s.rate: workload.generate.streams[%d] has an MMPP's rates or a rate profile, not one rate_per_s (vary rate_scale, which scales them)", service, i)
		}
		st.RatePerS, found = x, true
	}
	if !found {
		return fmt.Errorf("streams.%s.rate: no generated stream of service %q (streams of: %s)", service, service, strings.Join(services, ", "))
	}
	sc.Workload.Generate = &ng
	return nil
}
