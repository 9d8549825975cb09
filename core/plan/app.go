package plan

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/evq"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/internal/vocab"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/workload"
)

// This file checks and compiles a scenario's applications: the call steps
// of its services and its client populations (docs/scenario.md,
// "Applications"), into the [App] the engine plays.

// CallMode is how a call step issues its nested request.
type CallMode uint8

// The call modes.
const (
	ModeCall    CallMode = iota // tpcall: wait for the reply before the next step
	ModeACall                   // tpacall: issued with the consecutive tpacalls, replies awaited together
	ModeForward                 // tpforward: the child answers the caller; the server is free
)

var callModes = vocab.Table[CallMode]{What: "call mode", Names: []string{"tpcall", "tpacall", "tpforward"}}

// String returns the mode as scenarios spell it.
func (m CallMode) String() string { return callModes.Name(m) }

// maxClients bounds one client set's count, and MaxClientsTotal the
// clients of every set together (the engine numbers its clients' timers
// within 24 bits).
const (
	maxClients      = 100_000
	MaxClientsTotal = 10_000_000
)

// App is a scenario's applications, compiled: nil when it has neither
// calls nor clients.
type App struct {
	Calls   [][]Call // per service: its steps; nil for none
	Clients []Client
	NClient int // clients of every set
	EndUS   int64
	// BlockUS[s] is how long a caller waits for a reply of service s: its
	// BLOCKTIME, else SCANUNIT x BLOCKTIME; 0 for no limit
	BlockUS []int64
	// Parent: the scenario has calls or clients (the dispatch log's Parent
	// column, the results of applications)
	Parent bool
	// NoReply: some call step is a tpacall with TPNOREPLY (the result
	// counts them apart)
	NoReply bool
	// QueueCap bounds every queue's waiting requests (0: unbounded); a sender
	// retries a full queue every retryUS
	QueueCap int
	RetryUS  int64
}

// Timers describes the clients' timers for the engine's calendar of them
// (evq.WheelFor): a set's clients each think once in its mean think time,
// and a timer comes due at most about four times its longest mean think or
// backoff time after it is set.
func (ap *App) Timers() []evq.TimerSet {
	sets := make([]evq.TimerSet, len(ap.Clients))
	for k := range ap.Clients {
		cp := &ap.Clients[k]
		sets[k] = evq.TimerSet{Count: cp.Count, MeanUS: cp.Think.MeanMS() * 1000, AheadUS: 4 * cp.Think.MeanMS() * 1000}
		if cp.Backoff != nil {
			sets[k].AheadUS = max(sets[k].AheadUS, 4*cp.Backoff.MeanMS()*1000)
		}
	}
	return sets
}

// Call is one compiled call step.
type Call struct {
	Service int
	Mode    CallMode
	P       float64 // 1: always
	NoReply bool    // a tpacall with TPNOREPLY: nobody waits for its child
	Inherit bool
	Value   string                // a constant routing value ("" for none)
	Route   *workload.StreamRoute // drawn values (the called service's criterion)
	Queue   int32                 // an enqueue step's queue (workload.Request.Queue), 0 for none
}

// Client is one compiled client set.
type Client struct {
	Name   string
	Count  int
	Origin int // the WSL's machine for workstation clients
	// Via is the workstation (in Model.Workstations) the set's clients
	// connect through, nil for none; ViaFirst says whether via named its
	// first instance, the only one that takes clients.
	Via      *ubb.Workstation
	ViaFirst bool
	Think    dist.Sampler
	Services []ClientService
	Cum      []float64 // cumulative weights of svcs
	Script   []ScriptStep
	RetryMax int
	RetryOn  uint32 // bit k: retry on FailureCodes[k]; bit 31 (RetryTPETIME): on TPETIME
	Backoff  dist.Sampler
	First    int    // index of its client 0 among every set's clients
	KeyBase  uint64 // per-set base of its clients' streams
}

type ClientService struct {
	Service int
	Route   *workload.StreamRoute
}

type ScriptStep struct {
	Service int
	Value   string
	Buf     int32 // its buffer type (a bufTable index)
	Queue   int32 // an enqueue's queue (workload.Request.Queue), 0 for none
}

// RetryTPETIME is the bit of TPETIME in clientPlan.retryOn.
const RetryTPETIME = 1 << 31

// retryCodes are the failure codes a retry may name.
var retryCodes = []string{"TPETIME", "TPESVCERR", "TPESVCFAIL", "TPENOENT", "TPESYSTEM", "TPETRAN"}

// checkApps checks the parts of the scenario's applications that need no
// model: call modes, probabilities, where tpforward stands, the shape of
// client sets.
func checkApps(sc *scenario.Scenario) error {
	for _, name := range slices.Sorted(mapKeys(sc.Services)) {
		steps := sc.Services[name].Calls
		for j, c := range steps {
			field := fmt.Sprintf("services.%s.calls[%d]", name, j)
			if c.Service == "" && c.Enqueue == "" {
				return diag.FieldErrorf(field+".service", "missing")
			}
			mode, ok := callModes.Lookup(c.Mode)
			if c.Mode == "" {
				mode, ok = ModeCall, true
			}
			if !ok {
				return diag.FieldErrorf(field+".mode", "unknown %s %q (want %s)", callModes.What, c.Mode, callModes.Want())
			}
			if mode == ModeForward && j != len(steps)-1 {
				return diag.FieldErrorf(field+".mode", "tpforward must be the last step (a forwarding server is done with the request)")
			}
			if c.NoReply && mode != ModeACall {
				return diag.FieldErrorf(field+".noreply", "allowed on a tpacall step only, this step is a %s (give \"mode\": \"tpacall\" or leave noreply out)", mode)
			}
			if c.P != nil && (math.IsNaN(*c.P) || *c.P <= 0 || *c.P > 1) {
				return diag.FieldErrorf(field+".p", "must be > 0 and at most 1, got %g", *c.P)
			}
		}
	}
	g := sc.Workload.Generate
	if g == nil {
		return nil
	}
	seen := map[string]int{}
	for k := range g.Clients {
		cs := &g.Clients[k]
		field := fmt.Sprintf("workload.generate.clients[%d]", k)
		switch {
		case cs.Name == "":
			return diag.FieldErrorf(field+".name", "missing (it names the set's requests, as NAME:client:n)")
		case strings.ContainsAny(cs.Name, ":~.,\"\n\r"):
			return diag.FieldErrorf(field+".name", "%q: a name may not hold ':', '~', '.', ',', quotes or line breaks (request ids are built from it)", cs.Name)
		case cs.Count < 1 || cs.Count > maxClients:
			return diag.FieldErrorf(field+".count", "must be between 1 and %d, got %d", maxClients, cs.Count)
		case (cs.Services == nil) == (cs.Script == nil):
			return diag.FieldErrorf(field, "give services or script, exactly one")
		case cs.Services != nil && len(cs.Services) == 0:
			return diag.FieldErrorf(field+".services", "want at least one service")
		case cs.Script != nil && len(cs.Script) == 0:
			return diag.FieldErrorf(field+".script", "want at least one entry")
		}
		if cs.Via != "" && cs.Origin != "" {
			return diag.FieldErrorf(field+".via", "give via or origin, not both: a workstation client's requests enter on its WSL's machine")
		}
		if first, dup := seen[cs.Name]; dup {
			return diag.FieldErrorf(field+".name", "%q is also the name of clients[%d]", cs.Name, first)
		}
		seen[cs.Name] = k
		if cs.Think != nil {
			if _, err := dist.New(cs.Think, field+".think"); err != nil {
				return err
			}
		}
		total := 0.0
		for j, s := range cs.Services {
			if s.Service == "" {
				return diag.FieldErrorf(fmt.Sprintf("%s.services[%d].service", field, j), "missing")
			}
			w := 1.0
			if s.Weight != nil {
				w = *s.Weight
			}
			if math.IsNaN(w) || w < 0 || w > 1e12 {
				return diag.FieldErrorf(fmt.Sprintf("%s.services[%d].weight", field, j), "must be between 0 and 1e12, got %g", w)
			}
			total += w
		}
		if cs.Services != nil && total <= 0 {
			return diag.FieldErrorf(field+".services", "at least one weight must be > 0")
		}
		for j, s := range cs.Script {
			if s.Service == "" && s.Enqueue == "" {
				return diag.FieldErrorf(fmt.Sprintf("%s.script[%d].service", field, j), "missing")
			}
		}
		if r := cs.Retry; r != nil {
			if r.Max < 0 || r.Max > 1000 {
				return diag.FieldErrorf(field+".retry.max", "must be between 0 and 1000, got %d", r.Max)
			}
			for j, code := range r.On {
				if !slices.Contains(retryCodes, code) {
					return diag.FieldErrorf(fmt.Sprintf("%s.retry.on[%d]", field, j), "unknown code %q (want one of %s)", code, strings.Join(retryCodes, ", "))
				}
			}
			if r.Backoff != nil {
				if _, err := dist.New(r.Backoff, field+".retry.backoff"); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resolveApps compiles the scenario's applications against the model: the
// called and requested services exist and can be timed, routes fit their
// criteria, origins exist, and the call graph has no cycle.
func (st *Setup) resolveApps(sc *scenario.Scenario, _ Options) error {
	g := sc.Workload.Generate
	hasCalls := false
	for _, sp := range sc.Services {
		hasCalls = hasCalls || len(sp.Calls) > 0
	}
	apps := hasCalls || g != nil && len(g.Clients) > 0
	m := st.Model
	// with AUTOTRAN, commits hold their owner and the log has the parent column
	apps = apps || m.Transactions()
	parent := apps
	// an enqueue stores its message at its end (endServed)
	apps = apps || st.Q != nil
	if !apps && st.Tuning.QueueCapacity == nil && st.Remote == nil {
		return nil // a domain that is ever down needs the failure of a gateway's request: appCompletion
	}
	n := workload.NewNames(m)
	n.NeedMS, n.NeedGroup = st.untimed()
	n.Bufs = st.Bufs
	ap := &App{Calls: make([][]Call, len(m.Services)), BlockUS: make([]int64, len(m.Services)), Parent: parent}
	if c := st.Tuning.QueueCapacity; c != nil {
		ap.QueueCap = *c
		ap.RetryUS, _ = usec.FromMSValue(*st.Tuning.EnqueueRetryMS)
	}
	for s := range m.Services {
		ap.BlockUS[s] = st.BlockUS
		if b := m.Services[s].BlockTimeS; b > 0 {
			ap.BlockUS[s] = int64(b) * 1_000_000
		}
	}
	timed := func(field string, s int) error {
		if n.NeedMS[s] {
			name := m.Services[s].Name
			return diag.FieldErrorf(field, "service %s has no service_time for group %s, and nested and client requests carry no service_ms (give services.%s.service_time)", name, n.NeedGroup[s], name)
		}
		return nil
	}
	var untimed error
	for _, name := range slices.Sorted(mapKeys(sc.Services)) {
		steps := sc.Services[name].Calls
		if len(steps) == 0 {
			continue
		}
		s, msg := n.Service(name)
		if msg != "" {
			return diag.FieldErrorf("services."+name, "%s", msg)
		}
		for j := range steps {
			c := &steps[j]
			field := fmt.Sprintf("services.%s.calls[%d]", name, j)
			cs := Call{P: 1, Inherit: c.Route == nil || c.Route.Inherit}
			if c.Enqueue != "" {
				if cs.Service, cs.Queue, msg = n.Enqueue(c.Enqueue); msg != "" {
					return diag.FieldErrorf(field+".enqueue", "%s", msg)
				}
			} else if cs.Service, msg = n.Service(c.Service); msg != "" {
				return diag.FieldErrorf(field+".service", "%s", msg)
			}
			if err := timed(field+".service", cs.Service); err != nil && untimed == nil {
				untimed = err // after the cycles: a cycle is the first thing to fix
			}
			cs.Mode, _ = callModes.Lookup(c.Mode)
			cs.NoReply = c.NoReply
			ap.NoReply = ap.NoReply || c.NoReply
			if c.P != nil {
				cs.P = *c.P
			}
			if err := st.callRoute(n, &cs, c.Route, field); err != nil {
				return err
			}
			ap.Calls[s] = append(ap.Calls[s], cs)
		}
	}
	if err := ap.checkCycles(m); err != nil {
		return err
	}
	if untimed != nil {
		return untimed
	}
	if g != nil {
		ap.EndUS, _ = usec.FromMSValue(g.DurationMS)
		for k := range g.Clients {
			cp, err := st.clientSet(n, &g.Clients[k], fmt.Sprintf("workload.generate.clients[%d]", k), timed)
			if err != nil {
				return err
			}
			if ap.NClient+cp.Count > MaxClientsTotal {
				return diag.FieldErrorf(fmt.Sprintf("workload.generate.clients[%d].count", k), "the client sets hold more than %d clients in all", MaxClientsTotal)
			}
			cp.First = ap.NClient
			cp.KeyBase = clientKeyBase(st.Seed, cp.Name)
			ap.NClient += cp.Count
			ap.Clients = append(ap.Clients, cp)
		}
	}
	st.App = ap
	return nil
}

// clientKeyBase is the base of a client set's streams under a seed.
func clientKeyBase(seed uint64, name string) uint64 {
	return workload.KeyBase(seed^clientSeedSalt, fnv64(name))
}

// Reseeded returns the app plan with its client sets' streams drawn from
// seed (a copy; ap is not changed): what a replication with its own seed
// runs. Without client sets it is ap itself.
func (ap *App) Reseeded(seed uint64) *App {
	if ap == nil || len(ap.Clients) == 0 {
		return ap
	}
	out := *ap
	out.Clients = slices.Clone(ap.Clients)
	for k := range out.Clients {
		out.Clients[k].KeyBase = clientKeyBase(seed, out.Clients[k].Name)
	}
	return &out
}

// clientSeedSalt keeps the clients' streams apart from the other streams
// derived from the seed.
const clientSeedSalt = 0x636c69656e7473 // "clients"

// callRoute compiles a call step's route against the called service's criterion.
func (st *Setup) callRoute(n *workload.Names, cs *Call, r *scenario.CallRoute, field string) error {
	crit := n.Crit[cs.Service]
	switch {
	case r == nil || r.Inherit:
		return nil
	case r.Spec != nil:
		sc := workload.StreamCheck{Stream: &scenario.Stream{Service: st.Model.Services[cs.Service].Name, Route: r.Spec}, Path: field}
		cs.Route = sc.CheckRoute(routedNames(n, cs.Service), cs.Service)
		return sc.Err
	case crit == nil: // carried for the nested requests to inherit
		return constRoute("", "", string(r.Const), field+".route", &cs.Value)
	}
	return constRoute(crit.Name, crit.Kind, string(r.Const), field+".route", &cs.Value)
}

// clientSet compiles one client set.
func (st *Setup) clientSet(n *workload.Names, cs *scenario.ClientSet, field string, timed func(string, int) error) (Client, error) {
	cp := Client{Name: cs.Name, Count: cs.Count, Think: dist.Const(0), Backoff: dist.Const(0), RetryOn: RetryTPETIME}
	var msg string
	if cs.Via != "" {
		if err := st.via(cs.Via, field+".via", &cp); err != nil {
			return cp, err
		}
	} else if cp.Origin, msg = n.Origin(cs.Origin); msg != "" {
		return cp, diag.FieldErrorf(field+".origin", "%s", msg)
	}
	if cs.Think != nil {
		cp.Think, _ = dist.New(cs.Think, field+".think")
	}
	total := 0.0
	for j := range cs.Services {
		e := &cs.Services[j]
		f := fmt.Sprintf("%s.services[%d]", field, j)
		sc := workload.StreamCheck{Stream: &scenario.Stream{Service: e.Service, Route: e.Route, BufType: e.BufType}, Path: f, Bufs: n.Bufs}
		var csv ClientService
		if csv.Service, msg = n.Service(e.Service); msg != "" {
			return cp, diag.FieldErrorf(f+".service", "%s", msg)
		}
		if err := timed(f+".service", csv.Service); err != nil {
			return cp, err
		}
		if csv.Route = sc.CheckRoute(routedNames(n, csv.Service), csv.Service); sc.Err != nil {
			return cp, sc.Err
		}
		w := 1.0
		if e.Weight != nil {
			w = *e.Weight
		}
		total += w
		cp.Services, cp.Cum = append(cp.Services, csv), append(cp.Cum, total)
	}
	for j, e := range cs.Script {
		f := fmt.Sprintf("%s.script[%d]", field, j)
		var step ScriptStep
		if e.Enqueue != "" {
			if step.Service, step.Queue, msg = n.Enqueue(e.Enqueue); msg != "" {
				return cp, diag.FieldErrorf(f+".enqueue", "%s", msg)
			}
		} else if step.Service, msg = n.Service(e.Service); msg != "" {
			return cp, diag.FieldErrorf(f+".service", "%s", msg)
		}
		if err := timed(f+".service", step.Service); err != nil {
			return cp, err
		}
		if e.BufType != "" {
			if msg := ubb.CheckBufType(e.BufType); msg != "" {
				return cp, diag.FieldErrorf(f+".buftype", "%s", msg)
			}
			step.Buf = n.Bufs.Index(e.BufType) // carried, for an unrouted service's nested requests
		}
		if e.Route != nil {
			crit, kind, name := n.Crit[step.Service], "", ""
			if cs := n.Sets[step.Service]; cs != nil {
				if k := cs.Pick(n.Bufs, step.Buf); k >= 0 {
					crit = cs.Entries[k] // the value is checked against the entry its buffer type picks
				}
			}
			if crit != nil {
				kind, name = crit.Kind, crit.Name
			}
			if err := constRoute(name, kind, string(*e.Route), f+".route", &step.Value); err != nil {
				return cp, err
			}
		}
		cp.Script = append(cp.Script, step)
	}
	if r := cs.Retry; r != nil {
		cp.RetryMax = r.Max
		if r.On != nil {
			cp.RetryOn = 0
		}
		for _, code := range r.On {
			if code == "TPETIME" {
				cp.RetryOn |= RetryTPETIME
			} else if k := slices.Index(FailureCodes[:], code); k >= 0 {
				cp.RetryOn |= 1 << k
			}
		}
		if r.Backoff != nil {
			cp.Backoff, _ = dist.New(r.Backoff, field+".retry.backoff")
		}
	}
	return cp, nil
}

// checkCycles reports a cycle of the call graph, naming it (S -> T -> S).
func (ap *App) checkCycles(m *ubb.Model) error {
	const (
		unseen = iota
		open
		closed
	)
	state := make([]uint8, len(ap.Calls))
	var path []int
	var visit func(s int) []int
	visit = func(s int) []int {
		state[s] = open
		path = append(path, s)
		for _, c := range ap.Calls[s] {
			switch state[c.Service] {
			case open:
				i := slices.Index(path, c.Service)
				return append(slices.Clone(path[i:]), c.Service)
			case unseen:
				if cyc := visit(c.Service); cyc != nil {
					return cyc
				}
			}
		}
		path = path[:len(path)-1]
		state[s] = closed
		return nil
	}
	for s := range ap.Calls {
		if state[s] != unseen || ap.Calls[s] == nil {
			continue
		}
		if cyc := visit(s); cyc != nil {
			names := make([]string, len(cyc))
			for i, x := range cyc {
				names[i] = m.Services[x].Name
			}
			return diag.FieldErrorf("services."+names[0]+".calls", "the call graph has a cycle: %s (a service may not call itself, directly or through others)", strings.Join(names, " -> "))
		}
	}
	return nil
}

// fnv64 is the FNV-1a hash of s.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// constRoute checks a constant routing value against a criterion of kind
// kind, and keeps it in out.
func constRoute(crit, kind, text, field string, out *string) error {
	if text == "" {
		return diag.FieldErrorf(field, "empty: a value must be a non-empty string or a number")
	}
	if kind == ubb.KindNumber {
		if _, ok := ubb.NumberValue(text); !ok {
			return diag.FieldErrorf(field, "criterion %s compares numbers, got %q", crit, text)
		}
	}
	*out = text
	return nil
}

// routedNames is n for checking the route of service s against its
// criterion, or nil (the route's shape only) when s has none: a client's
// or a call's routing value for an unrouted service is carried, for the
// nested requests to inherit.
func routedNames(n *workload.Names, s int) *workload.Names {
	if n.Crit[s] == nil {
		return nil
	}
	return n
}

// via resolves a client set's via: a WSL instance, whose machine is the
// set's origin.
func (st *Setup) via(id, field string, cp *Client) error {
	m := st.Model
	ws, first := m.WorkstationOf(id)
	if ws == nil {
		if len(m.Workstations) == 0 {
			return diag.FieldErrorf(field, "%q: the UBBCONFIG has no WSL (via names a WSL instance, GROUP/SRVID)", id)
		}
		ids := make([]string, len(m.Workstations))
		for k := range m.Workstations {
			ids[k] = m.Workstations[k].ID
		}
		return diag.FieldErrorf(field, "%q is not a WSL instance (via names one as GROUP/SRVID; the UBBCONFIG's WSLs: %s)", id, strings.Join(ids, ", "))
	}
	cp.Via, cp.ViaFirst = ws, first
	cp.Origin = ws.Machine
	return nil
}

// resolveWorkstation compiles workstation.handling_time, which only client
// sets with via use (a warning says so when none has).
func (st *Setup) resolveWorkstation(sc *scenario.Scenario, _ Options) error {
	w := sc.Workstation
	if w == nil || w.HandlingTime == nil {
		return nil
	}
	h := st.ck.handling // built when the scenario was checked
	if st.App != nil && slices.ContainsFunc(st.App.Clients, func(c Client) bool { return c.Via != nil }) {
		st.HandlingTime = h
		return nil
	}
	st.Warnings = append(st.Warnings, "workstation.handling_time: no client set connects through a WSL (via), so it is not used")
	return nil
}
