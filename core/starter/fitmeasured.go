package starter

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/fit"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/trace"
	"github.com/tuxlb/tuxlb/core/ulog"
)

// This file is what a ULOG measures beyond services' times, calls and
// rates (docs/fit.md): what the servers without -s advertise, the remote
// domains' response times, the network latency, and the report's figures
// list saying what was measured and what was guessed.

// NetworkReport is the one-way latency between machines a ULOG measures
// (ulog.Log.Latency): from Samples calls that crossed machines, the median
// of the Window lowest; Measured false when no call crossed machines (the
// scenario keeps no latency); ClockOffsets the machines whose clocks
// were seen apart.
type NetworkReport struct {
	LatencyMS    float64       `json:"latency_ms"`
	Samples      int           `json:"samples"`
	Window       int           `json:"window,omitempty"`
	Measured     bool          `json:"measured"`
	ClockOffsets []ClockOffset `json:"clock_offsets,omitempty"`
}

// ClockOffset is how far Machine's ULOG stamps run ahead of Of's (negative:
// behind), seen in Calls calls from Of to Machine; Corrected says the
// pairing of calls with executions allowed for it, and Why, when not, why
// not (the warnings say the same in words).
type ClockOffset struct {
	Machine   string  `json:"machine"`
	Of        string  `json:"of"`
	AheadMS   float64 `json:"ahead_ms"`
	Calls     int     `json:"calls"`
	Corrected bool    `json:"corrected"`
	Why       string  `json:"why,omitempty"`
}

// Figure is one figure of the scenario --out writes, and where it comes
// from: "measured" (from Samples samples) or "guessed" (Note says what).
type Figure struct {
	Figure  string `json:"figure"`
	Source  string `json:"source"`
	Samples int    `json:"samples,omitempty"`
	Note    string `json:"note,omitempty"`
}

// maxHostWarnings is how many hosts without a *MACHINES entry hostLMIDs
// warns of one by one.
const maxHostWarnings = 5

// hostLMIDs maps a ULOG's host names to LMIDs the way a trace's origins
// are (trace.Names.Origin: the address name as written, in any case, or
// its short name, or the LMID); a host *MACHINES does not name stays as it
// is, with a warning. Without a UBBCONFIG hosts stay as written.
func hostLMIDs(m *core.Model, rep *FitReport) func(string) string {
	cache := map[string]string{}
	var names *trace.Names
	if m != nil {
		names = trace.NewNames(m)
	}
	unknown, more := 0, -1 // hosts warned of; the index of the warning that counts those past maxHostWarnings
	var firstMore string
	return func(host string) string {
		if v, ok := cache[host]; ok {
			return v
		}
		v := host
		if names != nil {
			if i, why := names.Origin(host); why == "" {
				v = m.Machines[i].LMID
			} else if unknown++; unknown <= maxHostWarnings {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("host %s: no *MACHINES entry of that name (%s): its requests come from the default origin", host, why))
			} else {
				// thousands of hosts mean tags read wrongly, not
				// thousands of machines: one warning counts them
				w := fmt.Sprintf("%d more hosts with no *MACHINES entry of their name (the first %s): their requests come from the default origin",
					unknown-maxHostWarnings, firstMore)
				if more < 0 {
					firstMore = host
					w = fmt.Sprintf("1 more host with no *MACHINES entry of its name (%s): its requests come from the default origin", host)
					more = len(rep.Warnings)
					rep.Warnings = append(rep.Warnings, w)
				} else {
					rep.Warnings[more] = w
				}
			}
		}
		cache[host] = v
		return v
	}
}

// measureULOG fills what rep says of lg beyond its services: the servers,
// the network latency, what servers without -s advertise, the remote
// domains' response times.
func measureULOG(m *core.Model, lg *ulog.Log, rep *FitReport, lmid func(string) string) {
	if len(lg.Servers) > 0 {
		rep.Servers = map[string][]string{}
		for k, sv := range lg.Servers {
			rep.Servers[k] = slices.Clone(sv.Services)
		}
	}
	// Machines: LMIDs, else a host's short name in lower case.
	machine := func(host string) string {
		if v := lmid(host); m != nil && m.MachineIndex(v) >= 0 {
			return v
		}
		return trace.HostForms(host)[2]
	}
	var lat ulog.Latency
	if lg.Millis || len(lg.CallSpans) > 0 {
		lat = lg.Latency(machine)
		rep.Network = &NetworkReport{LatencyMS: roundToUS(lat.MS), Samples: lat.Samples, Window: lat.Window, Measured: lat.Samples > 0}
		if lat.Samples > 0 && lat.Samples < 20 {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("network.latency_ms from only %d calls that crossed machines: check it", lat.Samples))
		}
		for _, o := range lat.Offsets {
			rep.Network.ClockOffsets = append(rep.Network.ClockOffsets, ClockOffset{Machine: o.Server, Of: o.Caller, AheadMS: o.MS, Calls: o.Calls, Corrected: o.Corrected, Why: o.Why})
			ahead := fmt.Sprintf("%s's ULOG stamps run %s ms %s %s's (seen in %d calls from %s to %s)",
				o.Server, strconv.FormatFloat(math.Abs(o.MS), 'f', -1, 64), map[bool]string{true: "ahead of", false: "behind"}[o.MS > 0], o.Caller, o.Calls, o.Caller, o.Server)
			if o.Corrected {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("clocks: %s; %s, when pairing %s's calls with their executions by time (for network.latency_ms)",
					ahead, map[bool]string{true: "moved back by it", false: "moved forward by it"}[o.MS > 0], o.Caller))
				continue
			}
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("clocks: %s, not corrected (%s): "+
				"calls are paired with their executions by time, so network.latency_ms (and a remote domain's time) may be wrong; "+
				"set the machines' clocks in step (NTP), or set the latency yourself", ahead, o.Why))
		}
	}
	if m == nil {
		return
	}
	domainTimes(m, lg, rep, machine, lat.MS)
}

// advertiseFromLog lists, for each server of the UBBCONFIG without -s in
// its CLOPT, the services its processes ran (tpservice) on the machines its
// groups are on: matched by the ULOG tag's process name, as written. A
// service the UBBCONFIG does not name is listed too: a server that
// advertises at run time is how such a service is known.
//
// It returns them as what FromFit and the model take (Files.Advertised).
func advertiseFromLog(m *core.Model, lg *ulog.Log, rep *FitReport, lmid func(string) string) []Advertised {
	on := map[string]map[string]bool{} // server name -> its LMIDs
	for _, srv := range m.Servers {
		if srv.System || srv.Gateway || srv.AdvertiseSource != "services" {
			continue
		}
		if on[srv.Name] == nil {
			on[srv.Name] = map[string]bool{}
		}
		on[srv.Name][srv.LMID] = true
	}
	for _, sv := range lg.Servers {
		lms, ok := on[sv.Name]
		if !ok || !lms[lmid(sv.Host)] {
			continue
		}
		for _, s := range sv.Services {
			// a service the UBBCONFIG does not name is known by being
			// advertised; one imported from a remote domain is the
			// gateway's, not this server's
			if svc := m.Service(s); svc != nil && svc.Remote != nil {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("server %s on %s ran %s, which the DMCONFIG imports from a remote domain: not advertised", sv.Name, sv.Host, s))
				continue
			}
			if rep.Advertise == nil {
				rep.Advertise = map[string][]string{}
			}
			if i, found := slices.BinarySearch(rep.Advertise[sv.Name], s); !found {
				rep.Advertise[sv.Name] = slices.Insert(rep.Advertise[sv.Name], i, s)
			}
		}
	}
	return advertisedOf(rep.Advertise)
}

// advertisedOf is an advertise map (server -> services) as seen servers,
// in name order.
func advertisedOf(adv map[string][]string) []Advertised {
	var out []Advertised
	for _, name := range slices.Sorted(maps.Keys(adv)) {
		out = append(out, Advertised{Server: name, Services: adv[name], From: "ulog"})
	}
	return out
}

// domainTimes fits each remote domain's response time from its callers'
// tpcall spans of the services imported from it (when the log has no
// execution of them): a span less twice the latency when the caller is on
// another machine than the gateway's (the gateway's own forwarding time is
// not in the log, and stays in the response time).
func domainTimes(m *core.Model, lg *ulog.Log, rep *FitReport, machine func(string) string, latMS float64) {
	gateway := map[string]string{} // gateway group -> LMID
	for _, srv := range m.Servers {
		if srv.Gateway {
			gateway[srv.Group] = srv.LMID
		}
	}
	samples := map[string][]float64{}
	crossed := map[string][]bool{}
	for _, c := range lg.CallSpans {
		name := lg.Name(c.Service)
		svc := m.Service(name)
		if svc == nil || svc.Remote == nil {
			continue
		}
		if s := lg.Services[name]; s != nil && s.Executions > 0 {
			continue
		}
		d := svc.Remote.Domain
		g, ok := gateway[svc.Remote.GatewayGroup]
		samples[d] = append(samples[d], float64(c.EndUS-c.StartUS)/1000)
		crossed[d] = append(crossed[d], ok && machine(lg.Name(c.Host)) != g)
	}
	shift := map[string]float64{}
	for d, v := range samples {
		// spans of millisecond stamps stay whole milliseconds, to be
		// fitted on that grid: twice the latency taken off them is
		// rounded to the millisecond, and the fit is moved by what that
		// took off too much or too little, times the share of the
		// samples it was taken off
		twice, n := 2*latMS, 0
		if fit.OnGrid(v, resolutionUS) {
			twice = math.Round(twice)
		}
		for i := range v {
			if crossed[d][i] {
				v[i] = max(v[i]-twice, 0)
				n++
			}
		}
		shift[d] = (twice - 2*latMS) * float64(n) / float64(len(v))
	}
	for _, d := range fitKeys((samples)) {
		// on the millisecond grid when the samples lie on it, as a
		// service's are
		r := fit.FitWith(samples[d], fit.Options{ResolutionUS: resolutionUS})
		if r == nil {
			continue
		}
		r.Shift(shift[d])
		if rep.Domains == nil {
			rep.Domains = map[string]*ServiceReport{}
		}
		dr := &ServiceReport{Samples: r.Samples, MeanMS: ptr(r.MeanMS), SDMS: ptr(r.SDMS), MeanCIMS: r.MeanCIMS, KS: ptr(r.KS),
			Fit: toCore(r.Fit), Choice: r.Choice, Candidates: r.Candidates}
		if r.ResolutionMS > 0 {
			dr.ResolutionMS = ptr(r.ResolutionMS)
		}
		if r.Warning != "" {
			rep.Warnings = append(rep.Warnings, "domain "+d+": "+r.Warning)
		}
		rep.Domains[d] = dr
	}
}

// fitKeys are m's keys, sorted.
func fitKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// applyMeasured puts into sc what the report measured beyond services and
// streams: the servers' advertise lists, the domains' response times, the
// network latency.
func applyMeasured(sc *scenario.Scenario, r *FitReport) {
	for name, list := range r.Advertise {
		if _, ok := sc.Advertise[name]; ok {
			sc.Advertise[name] = slices.Clone(list)
		}
	}
	for d, dr := range r.Domains {
		if spec, ok := sc.Domains[d]; ok && dr.Fit != nil {
			spec.ResponseTime = *dr.Fit
			sc.Domains[d] = spec
		}
	}
	if r.Network != nil && r.Network.Measured {
		sc.Network = &scenario.NetworkSpec{LatencyMS: r.Network.LatencyMS}
	}
}

// figures lists each figure the scenario made from rep writes, measured or
// guessed, in the order: service times, calls' p, streams' rates, domains'
// response times, the network latency, advertise lists.
func figures(m *core.Model, rep *FitReport, arr arrivals) []Figure {
	var out []Figure
	measured := func(f string, n int, note string) {
		out = append(out, Figure{Figure: f, Source: "measured", Samples: n, Note: note})
	}
	guessed := func(f, note string) { out = append(out, Figure{Figure: f, Source: "guessed", Note: note}) }
	var local, remote []string
	starterAdvertise := map[string][]string{}
	if m != nil {
		st := &scenario.Scenario{}
		local, remote = offered(m, st)
		maps.Copy(starterAdvertise, st.Advertise)
	} else {
		local = fitKeys(rep.Services)
	}
	slices.Sort(local)
	for _, n := range local {
		sr := rep.Services[n]
		switch {
		case sr != nil && sr.Fit != nil:
			measured("services."+n+".service_time", sr.Samples, "")
		case sr != nil:
			guessed("services."+n+".service_time", fmt.Sprintf("no service times in the log: exponential of mean %g ms", defaultServiceMS))
		default:
			guessed("services."+n+".service_time", fmt.Sprintf("not in the log: exponential of mean %g ms", defaultServiceMS))
		}
		if sr == nil {
			continue
		}
		j := 0
		for _, c := range sr.Calls {
			if m != nil && m.Service(c.Service) == nil {
				continue
			}
			note := ""
			if c.NoReply {
				note = "noreply (TPNOREPLY)"
			}
			measured(fmt.Sprintf("services.%s.calls[%d].p", n, j), sr.Executions, note)
			j++
		}
	}
	counts := map[[2]string]*float64{} // the requests behind each stream: an execution no traced process called counts its weight
	inferred := map[[2]string]bool{}   // streams with such executions
	origin := ""
	if m != nil {
		origin = defaultOrigin(m)
	}
	// each arrivals' stream's key (its origin a machine of the model, else
	// the default), found once: the arrivals add to its sum in their order
	keyOf, sum := make([][2]string, len(arr.streams)), make([]*float64, len(arr.streams))
	for i, st := range arr.streams {
		o := st.origin
		if m != nil && m.MachineIndex(o) < 0 {
			o = origin
		}
		k := [2]string{st.svc, o}
		if counts[k] == nil {
			counts[k] = new(float64)
		}
		keyOf[i], sum[i] = k, counts[k]
	}
	for _, a := range arr.at {
		*sum[a.stream] += a.w
		if a.w < 1 || arr.inferred[a.stream] {
			inferred[keyOf[a.stream]] = true
		}
	}
	keys := make([][2]string, 0, len(counts))
	for k := range counts {
		space, _, enqueue := strings.Cut(k[0], ":")
		if m == nil || m.Service(k[0]) != nil || enqueue && m.QSpaceIndex(space) >= 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	for _, k := range keys {
		note := ""
		if sa := rep.Arrivals.Services[k[0]]; sa != nil && len(sa.Hourly) > 1 {
			note = "an hourly profile"
		}
		if inferred[k] {
			if note != "" {
				note += "; "
			}
			note += "with executions no traced process called, at the machine that served them"
		}
		measured(fmt.Sprintf("workload.generate.streams[%s from %s].rate_per_s", k[0], k[1]), int(math.Round(*counts[k])), note)
	}
	domains := map[string]bool{}
	for _, s := range remote {
		domains[m.Service(s).Remote.Domain] = true
	}
	for _, d := range fitKeys((domains)) {
		if dr := rep.Domains[d]; dr != nil && dr.Fit != nil {
			measured("domains."+d+".response_time", dr.Samples, "its callers' tpcall spans")
		} else {
			guessed("domains."+d+".response_time", fmt.Sprintf("no call to it in the log: exponential of mean %g ms", defaultDomainMS))
		}
	}
	for _, space := range enqueuedSpaces(m, rep) {
		if sr := rep.Services[space]; sr != nil && sr.Fit != nil {
			measured("qspaces."+space+".enqueue_time", sr.Samples, "its TMQUEUE's executions")
		} else {
			guessed("qspaces."+space+".enqueue_time", "no execution of its TMQUEUE timed in the log: none (0)")
		}
	}
	if tmsRuns(m, rep) {
		if est, n, how := tmsEstimate(m, rep); n > 0 {
			measured("transactions.tms_time", n, fmt.Sprintf("const %g ms, estimated from the commits' spans: %s", est, how))
		} else {
			guessed("transactions.tms_time", "a ULOG does not time the TMS servers' work: const 1 ms (the default)"+commitsSeen(rep))
		}
	}
	if nw := rep.Network; nw != nil && nw.Measured {
		measured("network.latency_ms", nw.Samples, "")
	} else {
		why := "no call crossed machines"
		switch {
		case rep.Source == "trace":
			why = "a request log does not measure it"
		case rep.ULOG != nil && !rep.ULOG.Milliseconds:
			why = "whole-second stamps do not measure it"
		}
		guessed("network.latency_ms", why+": none (0)")
	}
	// the servers without -s: those the log showed at work (the model
	// already takes their lists), and those it did not (still on the
	// *SERVICES fallback)
	for name, list := range rep.Advertise {
		starterAdvertise[name] = list
	}
	for _, name := range fitKeys(starterAdvertise) {
		if list := rep.Advertise[name]; len(list) > 0 {
			measured("advertise."+name, len(list), "the services its processes ran")
		} else {
			guessed("advertise."+name, "not in the log: every *SERVICES service, to trim")
		}
	}
	return out
}

// enqueuedSpaces are the queue spaces of m the log enqueued to (a step or an
// arrival naming QSPACE:QNAME), sorted: those the scenario --out writes has.
func enqueuedSpaces(m *core.Model, rep *FitReport) []string {
	if m == nil {
		return nil
	}
	seen := map[string]bool{}
	note := func(target string) {
		if space, _, ok := strings.Cut(target, ":"); ok && m.QSpaceIndex(space) >= 0 {
			seen[space] = true
		}
	}
	for _, sr := range rep.Services {
		for _, c := range sr.Calls {
			note(c.Enqueue)
		}
	}
	for n := range rep.Arrivals.Services {
		note(n)
	}
	return fitKeys(seen)
}

// tmsRuns says whether the scenario --out writes runs TMS servers: some
// *SERVICES entry has AUTOTRAN=Y, or it has queue spaces that TMQFORWARD
// servers drain (each forward in a transaction when the queue space's group
// has a TMSNAME).
func tmsRuns(m *core.Model, rep *FitReport) bool {
	return m != nil && (m.Transactions() || len(m.Forwarders) > 0 && len(enqueuedSpaces(m, rep)) > 0)
}

// commitsSeen says what the log showed of the commits: the tpcommits inside
// executions, their count and mean span ("" when none).
func commitsSeen(rep *FitReport) string {
	n, sum := 0, 0.0
	var who []string
	for _, name := range fitKeys(rep.Services) {
		if sr := rep.Services[name]; sr.Commits > 0 && sr.CommitMeanMS != nil {
			n += sr.Commits
			sum += float64(sr.Commits) * *sr.CommitMeanMS
			who = append(who, name)
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; the log's %d commits (%s) took %.4g ms on average, the TMS servers' work, their queues and the network together", n, strings.Join(who, ", "), sum/float64(n))
}

// tmsGuessed sets transactions.tms_time from the commits the log shows
// (tmsEstimate) and says how, or, when the scenario runs TMS servers and
// none can be estimated, warns that it is the default.
func tmsGuessed(m *core.Model, sc *scenario.Scenario, rep *FitReport) string {
	if !tmsRuns(m, rep) || sc.Transactions != nil && sc.Transactions.TMSTime != nil {
		return ""
	}
	if est, n, how := tmsEstimate(m, rep); n > 0 {
		sc.Transactions = &scenario.TransactionsSpec{TMSTime: &scenario.Dist{Dist: "const", MS: ptr(est)}}
		return fmt.Sprintf("transactions.tms_time: const %g ms, estimated from %d commits' spans (%s): a ULOG does not time the TMS servers' work itself; "+
			"its spread and the TMS queues' waits are not measured", est, n, how)
	}
	return "transactions.tms_time: a ULOG does not time the TMS servers' work (prepare, commit): the scenario keeps the default, const 1 ms" +
		commitsSeen(rep) + "; set transactions.tms_time from your TMS's own figures"
}

// tmsEstimate estimates one TMS request's time (a prepare or a commit) from
// the tpcommit spans inside the executions of each service that commits:
// a commit with one participant is one round (commit), with several two
// (prepare, then commit), each round as long as its slowest participant's
// request, the latency twice when one is on another machine than the
// service's. The participants are the service's group and those of what it
// calls in its transaction (tpcall, tpacall without TPNOREPLY, enqueue: the
// queue space's group), when they have a TMSNAME. So a service's estimate is
// its mean commit span / rounds, less twice the latency when a participant
// is remote; the estimate is the mean of those, weighted by their commits,
// rounded to the microsecond. It counts the TMS queues' waits in, a little
// high. n is 0 when no service commits, the network is not measured while
// a participant is remote, or the estimate is not above 0.
func tmsEstimate(m *core.Model, rep *FitReport) (ms float64, n int, how string) {
	if m == nil {
		return 0, 0, ""
	}
	lat := -1.0
	if nw := rep.Network; nw != nil && nw.Measured {
		lat = nw.LatencyMS
	}
	groupOf := func(svc string) (group, lmid string) {
		for i := range m.Servers {
			sv := &m.Servers[i]
			if !sv.System && !sv.TMS && !sv.Gateway && slices.Contains(sv.Services, svc) {
				return sv.Group, sv.LMID
			}
		}
		return "", ""
	}
	tms := func(group string) bool {
		for _, g := range m.Groups {
			if g.Name == group {
				return g.TMSName != ""
			}
		}
		return false
	}
	sum := 0.0
	var parts []string
	for _, name := range fitKeys(rep.Services) {
		sr := rep.Services[name]
		if sr.Commits == 0 || sr.CommitMeanMS == nil {
			continue
		}
		group, lmid := groupOf(name)
		if group == "" || !tms(group) {
			continue
		}
		participants, remote := map[string]bool{group: true}, false
		for _, c := range sr.Calls {
			g, l := "", ""
			switch {
			case c.Enqueue != "":
				space, _, _ := strings.Cut(c.Enqueue, ":")
				if i := m.QSpaceIndex(space); i >= 0 {
					g = m.QSpaces[i].Group
					for _, sv := range m.Servers {
						if sv.Group == g {
							l = sv.LMID
							break
						}
					}
				}
			case c.Mode == "tpforward" || c.NoReply:
				continue // handed on, or never in the transaction
			default:
				g, l = groupOf(c.Service)
			}
			if g != "" && tms(g) {
				participants[g] = true
				remote = remote || l != lmid
			}
		}
		rounds := 1.0
		if len(participants) > 1 {
			rounds = 2
		}
		each := *sr.CommitMeanMS / rounds
		if remote {
			if lat < 0 {
				continue
			}
			each -= 2 * lat
		}
		if each <= 0 {
			continue
		}
		sum += each * float64(sr.Commits)
		n += sr.Commits
		parts = append(parts, fmt.Sprintf("%s: %d commits of %g ms, %d participants, %s", name, sr.Commits, *sr.CommitMeanMS, len(participants),
			map[bool]string{true: fmt.Sprintf("one on another machine (%g ms less per round)", 2*lat), false: "all on its machine"}[remote]))
	}
	if n == 0 {
		return 0, 0, ""
	}
	return math.Round(sum/float64(n)*1000) / 1000, n, strings.Join(parts, "; ")
}

// uncommitted warns of each service the UBBCONFIG runs with AUTOTRAN=Y in
// a group with a TMSNAME whose timed executions show no tpcommit: its
// commit, made inside tpreturn, is traced only in the iatmi category, so a
// ULOG traced with atmi alone has it inside the execution's own work, and
// the simulation, which plays the commit itself, would count it twice.
func uncommitted(m *core.Model, rep *FitReport) []string {
	if m == nil {
		return nil
	}
	tms := map[string]bool{}
	for _, g := range m.Groups {
		tms[g.Name] = g.TMSName != ""
	}
	var out []string
	for _, name := range fitKeys(rep.Services) {
		sr, svc := rep.Services[name], m.Service(name)
		if svc == nil || sr.Commits > 0 || sr.Samples == 0 {
			continue
		}
		auto := false
		for i := range m.Servers {
			sv := &m.Servers[i]
			if !sv.System && !sv.TMS && slices.Contains(sv.Services, name) && tms[sv.Group] && svc.Params(sv.Group).AutoTran {
				auto = true
			}
		}
		if auto {
			out = append(out, fmt.Sprintf("%s: AUTOTRAN=Y, but no commit in its executions (Tuxedo traces the commit it makes in tpreturn as iatmi: "+
				"TMTRACE=atmi+iatmi:ulog): if it commits, its fitted time holds its commits, which the simulation plays again", name))
		}
	}
	return out
}
