package starter

import (
	"fmt"
	"maps"
	"slices"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// Adapt fits a scenario to its configuration after the UBBCONFIG or
// DMCONFIG changed (the playground calls it when a new configuration is
// pasted or dropped), so that it runs instead of failing on a name the
// configuration no longer has. Every change is said in a note:
//   - advertise entries for servers that no longer exist without -s are
//     dropped (a server without -s and without an entry keeps taking every
//     *SERVICES service, with the model's warning);
//   - services, by_group entries, machines and domains the configuration
//     does not know are dropped;
//   - a service a local server offers without a service time gets [New]'s
//     (exponential, of mean 10 ms), a remote domain in use without a
//     response time New's (exponential, of mean 20 ms);
//   - generated streams of an unknown service or origin are dropped; when no
//     workload is left, the starter's streams are used;
//   - events whose target the configuration does not have (an instance, a
//     group or a machine) are dropped.
//
// A trace is left as it is: its rows are the user's data, and an unknown name
// there is an error naming the row. sc is not modified.
func Adapt(sc *scenario.Scenario) (*scenario.Scenario, []string, error) {
	out := *sc
	notes := []string{}
	m, err := core.LoadModel(ubb.Input{UBBName: "ubbconfig", UBBConfig: sc.UBBConfig, DMName: "dmconfig", DMConfig: sc.DMConfig, Advertise: sc.Advertise})
	if err != nil {
		return nil, nil, err
	}
	out.Advertise = adaptAdvertise(m, sc.Advertise, &notes)
	if !maps.EqualFunc(out.Advertise, sc.Advertise, slices.Equal) {
		if m, err = core.LoadModel(ubb.Input{UBBName: "ubbconfig", UBBConfig: sc.UBBConfig, DMName: "dmconfig", DMConfig: sc.DMConfig, Advertise: out.Advertise}); err != nil {
			return nil, nil, err
		}
	}
	local, remote := offered(m, &scenario.Scenario{})
	out.Services = adaptServices(m, sc.Services, local, &notes)
	out.Machines = nil
	for _, lmid := range keysOf(sc.Machines) {
		if m.MachineIndex(lmid) < 0 {
			notes = append(notes, fmt.Sprintf("machines.%s: dropped: the UBBCONFIG has no such LMID", lmid))
			continue
		}
		if out.Machines == nil {
			out.Machines = map[string]scenario.MachineSpec{}
		}
		out.Machines[lmid] = sc.Machines[lmid]
	}
	out.Domains = adaptDomains(m, sc.Domains, remote, &notes)
	out.Workload = adaptWorkload(m, sc.Workload, local, remote, &notes)
	out.Events = adaptEvents(m, sc.Events, &notes)
	return &out, notes, nil
}

// adaptEvents keeps the events whose target the configuration has.
func adaptEvents(m *core.Model, events []scenario.Event, notes *[]string) []scenario.Event {
	var out []scenario.Event
	for i, ev := range events {
		field := fmt.Sprintf("events[%d]", i)
		if err := plan.CheckEventTarget(&ev, m, field); err != nil {
			*notes = append(*notes, fmt.Sprintf("%s: dropped: %v", field, err))
			continue
		}
		out = append(out, ev)
	}
	return out
}

// hasGroup says whether the configuration has the server group.
func hasGroup(m *core.Model, name string) bool {
	return slices.ContainsFunc(m.Groups, func(g ubb.Group) bool { return g.Name == name })
}

func keysOf[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// adaptAdvertise keeps the entries of servers without -s.
func adaptAdvertise(m *core.Model, adv map[string][]string, notes *[]string) map[string][]string {
	noS := map[string][]string{} // server name -> services it has now
	for _, srv := range m.Servers {
		if !srv.System && !srv.Gateway && (srv.AdvertiseSource == "services" || srv.AdvertiseSource == "scenario") {
			noS[srv.Name] = srv.Services
		}
	}
	var out map[string][]string
	for _, name := range keysOf(adv) {
		if _, ok := noS[name]; !ok {
			*notes = append(*notes, fmt.Sprintf("advertise.%s: dropped: no server of that name without -s in its CLOPT", name))
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[name] = adv[name]
	}
	return out
}

func adaptServices(m *core.Model, specs map[string]scenario.ServiceSpec, local []string, notes *[]string) map[string]scenario.ServiceSpec {
	var out map[string]scenario.ServiceSpec
	put := func(name string, s scenario.ServiceSpec) {
		if out == nil {
			out = map[string]scenario.ServiceSpec{}
		}
		out[name] = s
	}
	for _, name := range keysOf(specs) {
		if m.Service(name) == nil {
			*notes = append(*notes, fmt.Sprintf("services.%s: dropped: the configuration has no such service", name))
			continue
		}
		s := specs[name]
		if len(s.ByGroup) > 0 {
			by := map[string]scenario.Dist{}
			for _, g := range keysOf(s.ByGroup) {
				if !hasGroup(m, g) {
					*notes = append(*notes, fmt.Sprintf("services.%s.by_group.%s: dropped: the UBBCONFIG has no such group", name, g))
					continue
				}
				by[g] = s.ByGroup[g]
			}
			s.ByGroup = by
			if len(by) == 0 {
				s.ByGroup = nil
			}
		}
		if s.ServiceTime == nil && s.ByGroup == nil {
			continue // nothing left: given a default below if a server needs it
		}
		put(name, s)
	}
	for _, name := range local {
		if s, ok := out[name]; ok && (s.ServiceTime != nil || timedEverywhere(m, name, s.ByGroup)) {
			continue
		}
		s := out[name]
		s.ServiceTime = &scenario.Dist{Dist: "exp", MeanMS: ptr(defaultServiceMS)}
		put(name, s)
		*notes = append(*notes, fmt.Sprintf("services.%s: added with an exponential service time of mean %g ms: set the real one", name, defaultServiceMS))
	}
	return out
}

// timedEverywhere says whether by_group times service name in every group of
// a local server that offers it.
func timedEverywhere(m *core.Model, name string, by map[string]scenario.Dist) bool {
	for _, srv := range m.Servers {
		if srv.Gateway || srv.System || !slices.Contains(srv.Services, name) {
			continue
		}
		if _, ok := by[srv.Group]; !ok {
			return false
		}
	}
	return true
}

func adaptDomains(m *core.Model, specs map[string]scenario.DomainSpec, remote []string, notes *[]string) map[string]scenario.DomainSpec {
	var out map[string]scenario.DomainSpec
	known := map[string]bool{}
	for _, d := range m.Domains {
		known[d.Name] = true
	}
	for _, name := range keysOf(specs) {
		if !known[name] {
			*notes = append(*notes, fmt.Sprintf("domains.%s: dropped: the DMCONFIG has no such remote domain", name))
			continue
		}
		if out == nil {
			out = map[string]scenario.DomainSpec{}
		}
		out[name] = specs[name]
	}
	for _, s := range remote {
		// the first domain, and each alternate whose domains before it are
		// all down at times (requests may then go there)
		for k, d := range m.Service(s).Remote.Domains() {
			if k > 0 && !allDown(out, m.Service(s).Remote.Domains()[:k]) {
				break
			}
			if _, ok := out[d]; ok {
				continue
			}
			if out == nil {
				out = map[string]scenario.DomainSpec{}
			}
			out[d] = scenario.DomainSpec{ResponseTime: scenario.Dist{Dist: "exp", MeanMS: ptr(defaultDomainMS)}}
			*notes = append(*notes, fmt.Sprintf("domains.%s: added with an exponential response time of mean %g ms: set the real one", d, defaultDomainMS))
		}
	}
	return out
}

// allDown says whether every domain of names is down at some time in
// specs (else a request never gets past the one that is always up).
func allDown(specs map[string]scenario.DomainSpec, names []string) bool {
	for _, n := range names {
		if len(specs[n].Down) == 0 {
			return false
		}
	}
	return true
}

func adaptWorkload(m *core.Model, w scenario.Workload, local, remote []string, notes *[]string) scenario.Workload {
	if w.Generate != nil {
		g := *w.Generate
		g.Streams = nil
		for i, st := range w.Generate.Streams {
			switch {
			case m.Service(st.Service) == nil:
				*notes = append(*notes, fmt.Sprintf("workload.generate.streams[%d]: dropped: service %s is not in the configuration", i, st.Service))
			case st.Origin != "" && m.MachineIndex(st.Origin) < 0:
				*notes = append(*notes, fmt.Sprintf("workload.generate.streams[%d]: dropped: origin %s is not an LMID of the UBBCONFIG", i, st.Origin))
			default:
				g.Streams = append(g.Streams, st)
			}
		}
		g.Clients = nil
		for i, cs := range w.Generate.Clients {
			if msg := clientSetFits(m, &cs); msg != "" {
				*notes = append(*notes, fmt.Sprintf("workload.generate.clients[%d]: dropped: %s", i, msg))
				continue
			}
			g.Clients = append(g.Clients, cs)
		}
		w.Generate = &g
		if len(g.Streams) == 0 && len(g.Clients) == 0 {
			w.Generate = nil
		}
	}
	if w.Generate == nil && w.TraceCSV == "" && w.Trace == nil && len(local)+len(remote) > 0 {
		means := map[string]float64{}
		for _, s := range local {
			means[s] = defaultServiceMS
		}
		w.Generate = capacityStreams(m, local, remote, means, DefaultLoad)
		*notes = append(*notes, fmt.Sprintf("workload: no stream was left: one Poisson stream per service from %s, keeping each server about %g%% busy",
			defaultOrigin(m), DefaultLoad*100))
	}
	return w
}

// clientSetFits says why a client set does not fit configuration m ("" when
// it does): a service or its origin that m lacks.
func clientSetFits(m *core.Model, cs *scenario.ClientSet) string {
	if cs.Origin != "" && m.MachineIndex(cs.Origin) < 0 {
		return fmt.Sprintf("origin %s is not an LMID of the UBBCONFIG", cs.Origin)
	}
	if cs.Via != "" {
		if ws, _ := m.WorkstationOf(cs.Via); ws == nil {
			return fmt.Sprintf("via %s is not a WSL instance of the UBBCONFIG", cs.Via)
		}
	}
	for _, s := range cs.Services {
		if m.Service(s.Service) == nil {
			return fmt.Sprintf("service %s is not in the configuration", s.Service)
		}
	}
	for _, s := range cs.Script {
		if m.Service(s.Service) == nil {
			return fmt.Sprintf("service %s is not in the configuration", s.Service)
		}
	}
	return ""
}
