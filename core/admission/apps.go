package admission

import (
	"math/bits"
	"slices"
	"strconv"

	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/evq"
	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// What a scenario's applications (docs/scenario.md, "Applications") make a
// run hold, besides the model and the series: every client of every set,
// allocated when the run starts, and the nested requests a request holds
// at once while its calls are out.

// Measured bytes per item of applications (TestAppCostMatchesRun).
const (
	// costPerClient is a client of a set: its state (128 bytes), its entry
	// among the clients' next requests (in their calendar's buckets, counted
	// apart, or its heap, and that heap's growth),
	// its request's id, its in-flight record and application slot (every
	// client may have a request out at once), measured at about 710 bytes
	costPerClient = 760
	// costPerNested is a nested request held at once: its in-flight record
	// (BytesPerInFlight), its application slot, its entry in its caller's
	// awaited list and in the replies' heap, the slices' growth, besides
	// its id; measured at about 800 bytes in WebAssembly and 850 to 1 100
	// natively (the peak moves with the collector's timing: a third more
	// under a loaded machine's; about 1 200 in WebAssembly before the
	// slots held no pointer for it to scan), taken between
	costPerNested = 1050
	// costPerCallStep is a call step compiled.
	costPerCallStep = 96
	// costPerCalledService is a service a call reaches: its figures in the
	// result (waits, responses, percentiles, its histogram's chart) and
	// their JSON, which a service no request reaches has not; measured at
	// about 3 KB (a chain of 3 000 calls, TestAppCostChain)
	costPerCalledService = 3 << 10
	// costPerTransaction is a transaction a request in flight may own:
	// its entry (owner, coordinator, deadline, phase: about 150 bytes),
	// its participants and members (a few entries each) and its deadline
	// in the transactions' heap
	costPerTransaction = 256
)

// BytesPerInFlight mirrors core.BytesPerInFlight: what one request held by
// a run costs, without applications.
const BytesPerInFlight = 250

// maxFan bounds the counts of the call graph's walk (saturating).
const maxFan = 1 << 40

// fan is what one request of a service holds at once, itself included,
// while its calls are out: n requests, and idBytes bytes of their ids
// beyond the calling request's own (a nested request's id is its caller's
// with ".k" appended, so ids grow with the chain's depth).
type fan struct {
	n, idBytes, depth int64
	us                int64 // how long one of its requests lasts at least: its own work and its calls', in µs
}

// callGraph walks the scenario's call steps: per service, what one of its
// requests holds at once. A cycle (which compiling the scenario refuses)
// counts as no calls.
type callGraph struct {
	sc    *scenario.Scenario
	memo  map[string]fan
	state map[string]uint8
}

func satAdd(a, b int64) int64 { return min(a+b, maxFan) }

func (g *callGraph) of(name string) fan {
	if f, ok := g.memo[name]; ok {
		return f
	}
	if g.state[name] == 1 {
		return fan{n: 1}
	}
	g.state[name] = 1
	steps := g.sc.Services[name].Calls
	var most fan // the largest group of steps out at once
	for j := 0; j < len(steps); {
		var grp fan
		k := j
		grpUS := int64(0)
		if steps[j].Mode == "tpacall" {
			for k < len(steps) && steps[k].Mode == "tpacall" {
				k++
			}
		} else {
			k = j + 1
		}
		for i := j; i < k; i++ {
			c := g.of(steps[i].Service)
			suffix := int64(len(itoa64(int64(i+1)))) + 1 // ".k"
			grp.n = satAdd(grp.n, c.n)
			grp.idBytes = satAdd(grp.idBytes, satAdd(min(satMul(c.n, suffix), maxFan), c.idBytes))
			grp.depth = max(grp.depth, c.depth)
			grpUS = max(grpUS, c.us)
		}
		most.us = satAdd(most.us, grpUS) // the groups run one after another
		most.n, most.idBytes, most.depth = max(most.n, grp.n), max(most.idBytes, grp.idBytes), max(most.depth, grp.depth)
		j = k
	}
	f := fan{n: satAdd(1, most.n), idBytes: most.idBytes, depth: most.depth + min(int64(len(steps)), 1),
		us: satAdd(ownUS(g.sc.Services[name]), most.us)}
	g.state[name] = 2
	g.memo[name] = f
	return f
}

// ownUS is about how long a request of sp takes on its server, in µs:
// the largest of its service time's figures (1 ms when it has none).
func ownUS(sp scenario.ServiceSpec) int64 {
	ms := 0.0
	of := func(d *scenario.Dist) {
		for _, v := range []*float64{d.MS, d.MeanMS, d.MaxMS} {
			if v != nil && *v > ms && *v < 1e12 {
				ms = *v
			}
		}
	}
	if sp.ServiceTime != nil {
		of(sp.ServiceTime)
	}
	for _, d := range sp.ByGroup {
		of(&d)
	}
	if ms <= 0 {
		ms = 1
	}
	return int64(ms * 1000)
}

// histBytes is what the engine's response-time histogram of a service
// holds when its responses reach us µs: 64-bit counts from the bucket of
// 262 ms (where a smaller array's end) up to the bucket of us (3
// significant digits from 1 µs), grown as append grows.
func histBytes(us int64) int64 {
	const frontMaxUS, halfMag, mask = 1 << 18, 10, 1<<11 - 1
	const frontLen = 9 << halfMag // the bucket of frontMaxUS
	if us < frontMaxUS {
		return 0
	}
	b := int64(bits.Len64(uint64(us|mask))) - (halfMag + 1)
	return 8 * (b<<halfMag + us>>b + 1 - frontLen) * 5 / 4
}

// bytes is what a request of f holds at once, its own id idLen bytes long.
func (f fan) bytes(idLen int64) int64 {
	return satAdd(satMul(f.n, costPerNested+idLen), f.idBytes)
}

// appCost adds to c what sc's applications hold: its clients, its call
// steps, and the nested requests its callers hold at once (the requests
// one request of the busiest service holds, times the callers that may
// hold them at once: every client, or one open-loop arrival).
func appCost(c *Cost, sc *scenario.Scenario, s modelSize) {
	steps, hasCalls := int64(0), false
	reached := map[string]bool{}
	for _, sp := range sc.Services {
		steps += int64(len(sp.Calls))
		hasCalls = hasCalls || len(sp.Calls) > 0
		for _, st := range sp.Calls {
			reached[st.Service] = true
		}
	}
	c.add("services", itoa64(steps)+" call steps", steps, costPerCallStep)
	if len(reached) > 0 {
		c.add("services", itoa64(int64(len(reached)))+" services called: their figures and charts in the result", int64(len(reached)), costPerCalledService)
	}
	var clients []scenario.ClientSet
	if g := sc.Workload.Generate; g != nil {
		clients = g.Clients
	}
	var nclients int64
	for k := range clients {
		nclients += int64(max(clients[k].Count, 0))
	}
	c.add("workload.generate.clients", itoa64(nclients)+" clients in "+itoa64(int64(len(clients)))+" sets", nclients, costPerClient)
	if len(clients) > 0 {
		_, n := evq.WheelFor(timerSets(clients))
		c.add("workload.generate.clients", "the calendar of their think times ("+itoa64(int64(n))+" buckets)", 1, evq.WheelBytes(n))
	}
	if !hasCalls {
		return
	}
	g := &callGraph{sc: sc, memo: map[string]fan{}, state: map[string]uint8{}}
	// the open-loop arrivals: one request of the service of the most
	var top string
	var most fan
	for _, name := range sortedKeys(sc.Services) {
		if f := g.of(name); f.n > most.n || f.n == most.n && f.idBytes > most.idBytes {
			top, most = name, f
		}
	}
	if most.n <= 1 {
		return
	}
	// every calling service's histogram of response times, its responses
	// spanning its calls'
	var hists, callers, longest int64
	for _, name := range sortedKeys(sc.Services) {
		if len(sc.Services[name].Calls) > 0 {
			f := g.of(name)
			hists, callers, longest = satAdd(hists, histBytes(f.us)), callers+1, max(longest, f.us)
		}
	}
	_, rows := traceRows(sc)
	if responses := satMul(rows, most.n); s.services >= hist.ServicesKeepingFew && sc.Workload.Generate == nil && rows > 0 &&
		responses <= hist.FewMax {
		// a model of that many services keeps each one's first responses
		// as a list, 2 bytes each (twice, as it grows): a log of rows
		// requests, each making at most most.n in all, never fills one
		c.add("services", itoa64(callers)+" calling services' responses in lists (at most "+itoa64(responses)+" in all)", responses, 4)
	} else {
		c.add("services", itoa64(callers)+" calling services' histograms of response times (their responses span their calls', up to "+
			strconv.FormatFloat(float64(longest)/1e6, 'g', 4, 64)+" s)", 1, hists)
	}
	const openIDLen = 12
	c.add("services."+top+".calls", "one request of "+top+" holds up to "+itoa64(most.n)+" requests at once (its nested calls, "+
		itoa64(most.depth)+" levels deep, their ids "+SizeText(most.idBytes)+")", 1, most.bytes(openIDLen))
	// the clients: each holds one request and what it calls at once
	var held, holders int64
	var busiest string
	for k := range clients {
		cs := &clients[k]
		var f fan
		var name string
		pick := func(s string) {
			if x := g.of(s); x.n > f.n || x.n == f.n && x.idBytes > f.idBytes {
				f, name = x, s
			}
		}
		for _, s := range cs.Services {
			pick(s.Service)
		}
		for _, s := range cs.Script {
			pick(s.Service)
		}
		if f.n <= 1 || cs.Count < 1 {
			continue
		}
		idLen := int64(len(cs.Name)) + 16 // NAME:client:n
		held = satAdd(held, satMul(int64(cs.Count), f.bytes(idLen)-(costPerNested+idLen)))
		holders = satAdd(holders, satMul(int64(cs.Count), f.n-1))
		if busiest == "" {
			busiest = cs.Name + " (" + name + ": " + itoa64(f.n-1) + " each)"
		}
	}
	c.add("workload.generate.clients", "the clients' nested requests at once: up to "+itoa64(holders)+", set "+busiest, 1, held)
}

// timerSets describes the clients' timers as the engine's plan does
// (plan.App.Timers), from the scenario: each set's mean think time, and four
// times the longest mean of its think and backoff times.
func timerSets(clients []scenario.ClientSet) []evq.TimerSet {
	meanUS := func(d *scenario.Dist) float64 {
		if s, err := dist.New(d, ""); err == nil {
			return s.MeanMS() * 1000
		}
		return 0 // none (a think of 0), or one the scenario's check refuses
	}
	sets := make([]evq.TimerSet, len(clients))
	for k := range clients {
		think, backoff := meanUS(clients[k].Think), 0.0
		if r := clients[k].Retry; r != nil {
			backoff = meanUS(r.Backoff)
		}
		sets[k] = evq.TimerSet{Count: clients[k].Count, MeanUS: think, AheadUS: 4 * max(think, backoff)}
	}
	return sets
}

// InFlightBytes is what one request held by a run of sc on m costs: the
// engine's record, and with calls its application slot and its id (deeper
// in the call graph, longer), and with transactions (some AUTOTRAN=Y) the
// transaction it may own. A memory budget left over by RunCost divided by
// it gives core.RunOptions.MaxInFlight.
func InFlightBytes(sc *scenario.Scenario, m *ubb.Model) int64 {
	n := inFlightBytes(sc)
	if m != nil && m.Transactions() {
		n += costPerTransaction
	}
	return n
}

func inFlightBytes(sc *scenario.Scenario) int64 {
	g := &callGraph{sc: sc, memo: map[string]fan{}, state: map[string]uint8{}}
	var depth int64
	for name, sp := range sc.Services {
		if len(sp.Calls) > 0 {
			depth = max(depth, g.of(name).depth)
		}
	}
	if depth == 0 && (sc.Workload.Generate == nil || len(sc.Workload.Generate.Clients) == 0) {
		return BytesPerInFlight
	}
	return costPerNested + 16 + min(3*depth, maxFan)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
