package plan

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/workload"
)

// Resolve resolves sc against a model already loaded, building the
// samplers [CheckScenario] would have (a scenario core.Prepare checked is
// resolved by [ResolveChecked] instead, which takes them as they are).
func Resolve(m *ubb.Model, sc *scenario.Scenario, opt Options) (*Setup, error) {
	ck := &Checked{sc: sc, domains: map[string]checkedDomain{}}
	if err := ck.samplers(sc); err != nil {
		return nil, err
	}
	return ResolveChecked(m.WithQueues(MsgQueues(sc)), ck, opt)
}

// ResolveChecked resolves a checked scenario against a model already
// loaded: the samplers checking built are taken as they are.
func ResolveChecked(m *ubb.Model, ck *Checked, opt Options) (*Setup, error) {
	sc := ck.sc
	st := &Setup{Model: m, Policy: PolicyTuxedo, Seed: 1, Bufs: workload.NewBufTable(m), ck: ck}
	defer func() { st.ck = nil }()
	steps := []func(*scenario.Scenario, Options) error{
		st.resolveRun, st.resolveTimes, st.resolveMachines, st.resolveServices, st.resolveQ, st.resolveDomains, st.checkHorizon,
		st.checkWorkload, st.resolveApps, st.resolveWorkstation, st.resolveEvents,
	}
	for _, step := range steps {
		if err := step(sc, opt); err != nil {
			return nil, err
		}
	}
	for _, d := range m.Warnings {
		d.Severity = "warning"
		st.Warnings = append(st.Warnings, d.String())
	}
	if st.traceNote != "" {
		st.Warnings = append(st.Warnings, st.traceNote)
	}
	if st.callsNote != "" {
		st.Warnings = append(st.Warnings, st.callsNote)
	}
	if w := st.Work; w != nil && w.Info.Skipped > 0 {
		st.Warnings = append(st.Warnings, fmt.Sprintf("the trace's unreadable rows were skipped (trace_skip_bad): %d of %d, the first: %s",
			w.Info.Skipped, w.Info.Rows+w.Info.Skipped, w.Info.Examples[0]))
	}
	if g := sc.Workload.Generate; g != nil && st.WarmupUS > 0 && sc.Workload.TraceCSV == "" && sc.Workload.Trace == nil &&
		st.WarmupUS >= usec.FromMS(g.DurationMS) {
		st.Warnings = append(st.Warnings, fmt.Sprintf("warmup_ms: %s ms is at or past the workload's duration_ms (%s ms): no request is counted",
			usec.FormatMS(st.WarmupUS), usec.FormatMS(usec.FromMS(g.DurationMS))))
	}
	if w := st.Work; w != nil && len(w.Observed) > 0 && st.ValidateAfterUS > 0 {
		last := slices.MaxFunc(w.Observed, func(a, b workload.ObservedRow) int { return cmp.Compare(a.TimeUS, b.TimeUS) }).TimeUS
		if st.ValidateAfterUS > last {
			st.Warnings = append(st.Warnings, fmt.Sprintf("validation.after_ms: the window starts at %s ms, after the log's last observed row (issued at %s ms): no row is judged",
				usec.FormatMS(st.ValidateAfterUS), usec.FormatMS(last)))
		}
	}
	return st, nil
}

// resolveRun picks the policy and seed (options over the scenario) and tuning.
func (st *Setup) resolveRun(sc *scenario.Scenario, opt Options) error {
	name, field := sc.Policy, "policy"
	if opt.Policy != "" {
		name, field = opt.Policy, "policy (option)"
	}
	p, err := ParsePolicy(field, name)
	if err != nil {
		if opt.Policy != "" { // the option's, not the scenario's field
			var e *diag.Error
			if errors.As(err, &e) && len(e.Diagnostics) == 1 {
				e.Diagnostics[0].Source, e.Diagnostics[0].Field = ubb.SourceOptions, "policy"
			}
		}
		return err
	}
	st.Policy = p
	switch {
	case opt.Seed != nil:
		st.Seed = *opt.Seed
	case sc.Seed != nil:
		st.Seed = *sc.Seed
	}
	m := st.Model
	reset := m.ScanUnitUS * int64(m.SanityScan)
	tun, err := resolveTuning(sc.Tuning, reset)
	if err != nil {
		return err
	}
	if multithreaded(m) {
		// mt_idle is shown only where it can matter, so a run without
		// multithreaded servers keeps its bytes.
		r, _ := TuningReadings(&tun)
		tun.MTIdle = r.MTIdle.String()
	}
	st.Tuning = tun
	st.ResetUS = reset
	if sc.Tuning != nil && sc.Tuning.MPResetMS != nil {
		st.ResetUS, _ = usec.FromMSValue(*tun.MPResetMS)
	} else if reset <= 0 {
		return diag.FieldErrorf("tuning.mp_reset_ms", "SCANUNIT x SANITYSCAN is 0 in the UBBCONFIG; give mp_reset_ms")
	}
	st.GatewayForwardUS, _ = usec.FromMSValue(*tun.GatewayForwardMS)
	return nil
}

// resolveTimes converts latency, warm-up and the blocking timeout.
func (st *Setup) resolveTimes(sc *scenario.Scenario, _ Options) error {
	st.BlockUS = st.Model.ScanUnitUS * int64(st.Model.BlockTime)
	if sc.Network != nil {
		us, err := nonNegativeMS("network.latency_ms", sc.Network.LatencyMS)
		if err != nil {
			return err
		}
		st.LatencyUS = us
	}
	if sc.WarmupMS != nil {
		st.WarmupUS, _ = usec.FromMSValue(sc.WarmupMS.MS)
		st.WarmupAuto = sc.WarmupMS.Auto
	}
	st.Tolerance = DefaultTolerances
	if v := sc.Validation; v != nil {
		if v.AfterMS != nil {
			st.ValidateAfterUS, _ = usec.FromMSValue(*v.AfterMS)
		}
		if t := v.Tolerance; t != nil {
			for i, x := range []*float64{t.Mean, t.P50, t.P95, t.P99} {
				switch {
				case x != nil:
					st.Tolerance[i] = *x
				case t.Default != nil:
					st.Tolerance[i] = *t.Default
				}
			}
		}
	}
	return nil
}

// resolveMachines applies machines.LMID.speed, and TMNETLOAD of
// machines.LMID.env (on a copy of the model's machines).
func (st *Setup) resolveMachines(sc *scenario.Scenario, _ Options) error {
	if err := st.resolveEnv(sc); err != nil {
		return err
	}
	m := st.Model
	st.Speed = make([]float64, len(m.Machines))
	for i := range st.Speed {
		st.Speed[i] = 1
	}
	for _, lmid := range slices.Sorted(mapKeys(sc.Machines)) {
		i := m.MachineIndex(lmid)
		if i < 0 {
			return diag.FieldErrorf("machines."+lmid, "unknown LMID (the UBBCONFIG has %s)", machineList(m))
		}
		if sp := sc.Machines[lmid].Speed; sp != nil {
			// The lower bound keeps a divided service time (at most 1e12 us)
			// far from the int64 range: 1e12 / 1e-6 = 1e18 us.
			if !(*sp >= 1e-6) || *sp > 1e6 {
				return diag.FieldErrorf("machines."+lmid+".speed", "must be between 1e-6 and 1e6, got %g", *sp)
			}
			st.Speed[i] = *sp
		}
	}
	return nil
}

// maxNetLoad is the largest NETLOAD (and TMNETLOAD).
const maxNetLoad = 32767

// resolveEnv applies TMNETLOAD of each machines.LMID.env: it replaces the
// machine's NETLOAD wherever NETLOAD is read (Oracle's administration
// guide: "Use the NETLOAD parameter ... (or the TMNETLOAD environment
// variable)"). The model is copied first, so the loaded one is not changed.
func (st *Setup) resolveEnv(sc *scenario.Scenario) error {
	copied := false
	for _, lmid := range slices.Sorted(mapKeys(sc.Machines)) {
		v, ok := sc.Machines[lmid].Env["TMNETLOAD"]
		if !ok {
			continue
		}
		i := st.Model.MachineIndex(lmid)
		if i < 0 {
			return diag.FieldErrorf("machines."+lmid, "unknown LMID (the UBBCONFIG has %s)", machineList(st.Model))
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxNetLoad || strings.TrimLeft(v, "0123456789") != "" {
			return diag.FieldErrorf("machines."+lmid+".env.TMNETLOAD", "want a whole number from 0 to %d, got %q", maxNetLoad, v)
		}
		if !copied {
			mm := *st.Model
			mm.Machines = slices.Clone(mm.Machines)
			st.Model, copied = &mm, true
		}
		mc := &st.Model.Machines[i]
		if mc.NetLoad != n {
			st.Warnings = append(st.Warnings, fmt.Sprintf("machines.%s.env: TMNETLOAD %d replaces the NETLOAD %d of *MACHINES", lmid, n, mc.NetLoad))
		}
		mc.NetLoad = n
	}
	return nil
}

func machineList(m *ubb.Model) string {
	l := make([]string, len(m.Machines))
	for i, mc := range m.Machines {
		l[i] = mc.LMID
	}
	return diag.JoinAnd(l)
}

// resolveServices builds ServiceTime[s][g] from services.*.
func (st *Setup) resolveServices(sc *scenario.Scenario, _ Options) error {
	m := st.Model
	samplers := st.ck.services
	for _, name := range slices.Sorted(mapKeys(sc.Services)) {
		if m.Service(name) == nil {
			return diag.FieldErrorf("services."+name, "unknown service")
		}
		for _, g := range slices.Sorted(mapKeys(sc.Services[name].ByGroup)) {
			if groupIndex(m, g) < 0 {
				return diag.FieldErrorf("services."+name+".by_group."+g, "unknown group")
			}
		}
	}
	st.ServiceTime = make([][]dist.Sampler, len(m.Services))
	for s, svc := range m.Services {
		row := make([]dist.Sampler, len(m.Groups))
		for g, grp := range m.Groups {
			if smp, ok := samplers[svc.Name+"/"+grp.Name]; ok {
				row[g] = smp
			} else {
				row[g] = samplers[svc.Name]
			}
		}
		st.ServiceTime[s] = row
	}
	return nil
}

func groupIndex(m *ubb.Model, name string) int {
	for i := range m.Groups {
		if m.Groups[i].Name == name {
			return i
		}
	}
	return -1
}

// resolveDomains builds RemoteTime[s] for imported services, and their
// failover lists (Remote) when a domain is ever down.
func (st *Setup) resolveDomains(sc *scenario.Scenario, _ Options) error {
	m := st.Model
	if m.Transactions() {
		st.TMSTime = st.ck.tms
	}
	down := map[string][]downSpan{}
	for _, name := range slices.Sorted(mapKeys(sc.Domains)) {
		if !slices.ContainsFunc(m.Domains, func(d ubb.Domain) bool { return d.Name == name }) {
			return diag.FieldErrorf("domains."+name, "unknown remote domain (the DMCONFIG has %s)", domainList(m))
		}
		down[name] = st.ck.domains[name].down
	}
	st.RemoteTime = make([]dist.Sampler, len(m.Services))
	for s, svc := range m.Services {
		if svc.Remote == nil {
			continue
		}
		list := svc.Remote.Domains()
		var doms []RemoteDomain
		for k, name := range list {
			if k > 0 && slices.ContainsFunc(doms, func(d RemoteDomain) bool { return len(d.down) == 0 }) {
				break // a domain before it is never down: no request goes there
			}
			_, ok := sc.Domains[name]
			if !ok && k == 0 {
				return diag.FieldErrorf("domains."+name, "missing; service %s is imported from it and needs its response_time", svc.Name)
			}
			if !ok {
				return diag.FieldErrorf("domains."+name, "missing; service %s fails over to it (RDOM=%s) when %s down, and needs its response_time", svc.Name, strings.Join(list, ","), diag.JoinAnd(list[:k])+map[bool]string{true: " is", false: " are"}[k == 1])
			}
			doms = append(doms, RemoteDomain{Name: name, Response: st.ck.domains[name].response, down: down[name]})
		}
		st.RemoteTime[s] = doms[0].Response
		if slices.ContainsFunc(doms, func(d RemoteDomain) bool { return len(d.down) > 0 }) {
			if st.Remote == nil {
				st.Remote = make([][]RemoteDomain, len(m.Services))
			}
			st.Remote[s] = doms
		}
	}
	return nil
}

// downSpans checks and converts a domain's down intervals: each from_ms
// >= 0, to_ms (when given) after it, in time order without overlapping
// (an interval without to_ms lasts to the end, so it must be the last).
func downSpans(list []scenario.DownInterval, field string) ([]downSpan, error) {
	var out []downSpan
	for i, iv := range list {
		f := fmt.Sprintf("%s[%d]", field, i)
		if iv.FromMS == nil {
			return nil, diag.FieldErrorf(f+".from_ms", "missing")
		}
		from, err := nonNegativeMS(f+".from_ms", *iv.FromMS)
		if err != nil {
			return nil, err
		}
		sp := downSpan{from: from, to: never}
		if iv.ToMS != nil {
			if sp.to, err = nonNegativeMS(f+".to_ms", *iv.ToMS); err != nil {
				return nil, err
			}
			if sp.to <= sp.from {
				return nil, diag.FieldErrorf(f+".to_ms", "must be after from_ms (%g), got %g", *iv.FromMS, *iv.ToMS)
			}
		}
		if n := len(out); n > 0 && sp.from < out[n-1].to {
			prev := "the end of the run (it has no to_ms)"
			if out[n-1].to != never {
				prev = fmt.Sprintf("%g ms", *list[i-1].ToMS)
			}
			return nil, diag.FieldErrorf(f+".from_ms", "%g is before the end of %s[%d], %s: give the intervals in time order, without overlaps", *iv.FromMS, field, i-1, prev)
		}
		out = append(out, sp)
	}
	return out, nil
}

func domainList(m *ubb.Model) string {
	if len(m.Domains) == 0 {
		return "no remote domains"
	}
	l := make([]string, len(m.Domains))
	for i, d := range m.Domains {
		l[i] = d.Name
	}
	return diag.JoinAnd(l)
}

// checkWorkload compiles the workload, so that its errors (and requests that
// could get no service time) are found before the run starts; the run plays
// this compiled workload (Plan), it does not read the workload again.
func (st *Setup) checkWorkload(sc *scenario.Scenario, _ Options) error {
	n := workload.NewNames(st.Model)
	n.NeedMS, n.NeedGroup = st.untimed()
	n.Bufs = st.Bufs
	cw, err := workload.Compile(n, &sc.Workload)
	if err != nil {
		return err
	}
	st.traceNote, st.Work = cw.Note, cw
	st.callsNote = serviceMSWithCalls(sc, cw)
	return nil
}

// serviceMSWithCalls warns when a trace gives its rows' service times and
// services of the scenario make calls: a row's service_ms is the
// execution's own work, the calls are made after it, while a monitoring
// export's elapsed or execution time of a service holds the calls it
// waited for, which the replay would then count twice.
func serviceMSWithCalls(sc *scenario.Scenario, cw *workload.Compiled) string {
	col := ""
	for name, f := range cw.Info.Columns {
		if f == "service_ms" {
			col = fmt.Sprintf("the column %q", name)
		}
	}
	if col == "" && slices.ContainsFunc(sc.Workload.Trace, func(r scenario.TraceRow) bool { return r.ServiceMS != nil }) {
		col = "its service_ms"
	}
	if col == "" {
		return ""
	}
	var callers []string
	for name, s := range sc.Services {
		if len(s.Calls) > 0 {
			callers = append(callers, name)
		}
	}
	if len(callers) == 0 {
		return ""
	}
	slices.Sort(callers)
	verb := "make their calls"
	if len(callers) == 1 {
		verb = "makes its calls"
	}
	return fmt.Sprintf("trace: %s is each row's own work, and %s %s (services.S.calls) after it: "+
		"if it is a caller's whole time, as a monitoring export's elapsed or execution time is, the calls are counted twice; "+
		"replay without it (leave service_ms unmapped: every row's time is drawn from the scenario, as tuxlb calibrate does)",
		col, diag.JoinAnd(callers), verb)
}

// untimed finds the services that some local (non-gateway) server may
// process but that have no distribution for its group: their requests must
// carry service_ms. group[s] names the first such group.
func (st *Setup) untimed() (need []bool, group []string) {
	m := st.Model
	need = make([]bool, len(m.Services))
	group = make([]string, len(m.Services))
	n := workload.NewNames(m)
	groups := make(map[string]int, len(m.Groups))
	for i := range m.Groups {
		groups[m.Groups[i].Name] = i
	}
	for _, srv := range m.Servers {
		g, ok := groups[srv.Group]
		if srv.Gateway || !ok {
			continue
		}
		for _, name := range srv.Services {
			s, ok := n.ServiceIndex(name)
			if ok && !need[s] && st.ServiceTime[s][g] == nil {
				need[s], group[s] = true, srv.Group
			}
		}
	}
	return need, group
}

// multithreaded reports whether some instance of m has more than one
// dispatch thread (MAXDISPATCHTHREADS > 1).
func multithreaded(m *ubb.Model) bool {
	for i := range m.Servers {
		if m.Servers[i].DispatchThreads() > 1 {
			return true
		}
	}
	return false
}
