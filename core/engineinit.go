package core

import "math"

// newEngine resolves setup into the engine's flat, precomputed state.
func newEngine(setup *Setup, reqs Requests, opt simOptions) (*engine, error) {
	if setup == nil || setup.Model == nil {
		return nil, Errorf(EINTERNAL, "simulate: no setup")
	}
	m := setup.Model
	e := &engine{setup: setup, m: m, opt: opt, reqs: reqs, maxReq: opt.MaxRequests}
	if e.maxReq <= 0 {
		e.maxReq = DefaultMaxRequests
	}
	if err := e.pickAlgorithm(); err != nil {
		return nil, err
	}
	r, err := setup.Tuning.readings()
	if err != nil {
		return nil, err
	}
	e.idleQueue = r.idle == IdleQueue
	e.netOrigin = r.netLoad == NetLoadOrigin
	e.loadOnly = r.counter == CounterLoad
	e.initServers()
	e.initQueues()
	e.initServices()
	e.netload = make([]int64, len(m.Machines))
	for i := range m.Machines {
		e.netload[i] = int64(m.Machines[i].NetLoad)
	}
	e.rr = make([]int64, len(m.Services))
	e.noValue, e.noMatch = make([]int64, len(m.Services)), make([]int64, len(m.Services))
	e.rng.Seed(setup.Seed, streamPolicy)
	e.nextReset = math.MaxInt64
	if e.alg == algMP {
		e.counters = make([]int64, len(m.Machines)*len(m.Queues))
		e.netFor = make([]int64, len(e.counters))
		for mi := range m.Machines {
			for q := range m.Queues {
				e.netFor[mi*len(m.Queues)+q] = e.netLoadFor(mi, int32(q))
			}
		}
		if setup.ResetUS > 0 {
			e.nextReset = setup.ResetUS
		}
	}
	e.st.init(e)
	e.ser.init(e)
	e.nextBoundary = min(e.nextReset, e.ser.end)
	if opt.Dispatch != nil {
		e.log = newDispatchLog(opt.Dispatch)
	}
	return e, nil
}

// pickAlgorithm turns the policy, MODEL and LDBAL into one of the alg values.
func (e *engine) pickAlgorithm() error {
	switch e.setup.Policy {
	case PolicyTuxedo:
		switch {
		case !e.m.LDBAL:
			e.alg = algFirst
		case e.m.Model == "MP":
			e.alg = algMP
		default:
			e.alg = algSHM
		}
	case PolicyRoundRobin:
		e.alg = algRoundRobin
	case PolicyRandom:
		e.alg = algRandom
	case PolicyJSQ:
		e.alg = algJSQ
	case PolicyP2C:
		e.alg = algP2C
	default:
		return Errorf(EINTERNAL, "policy: %s has no dispatch rule", e.setup.Policy)
	}
	return nil
}

func (e *engine) initServers() {
	m := e.m
	groups := make(map[string]int32, len(m.Groups))
	for i := range m.Groups {
		groups[m.Groups[i].Name] = int32(i)
	}
	e.servers = make([]serverState, len(m.Servers))
	e.idleBits = make([]uint64, (len(m.Servers)+63)/64)
	for i := range m.Servers {
		s := &m.Servers[i]
		speed := 1.0
		if s.Machine < len(e.setup.Speed) && e.setup.Speed[s.Machine] > 0 {
			speed = e.setup.Speed[s.Machine]
		}
		g, ok := groups[s.Group]
		if !ok {
			g = -1
		}
		e.servers[i] = serverState{idx: int32(i), gateway: s.Gateway, queue: int32(s.QueueIdx),
			machine: int32(s.Machine), group: g, speed: speed, cur: -1}
		if !s.Spare {
			e.idleBits[i/64] |= 1 << (i % 64)
		}
	}
}

func (e *engine) initQueues() {
	m := e.m
	e.queues = make([]queueState, len(m.Queues))
	for i := range m.Queues {
		q := &e.queues[i]
		q.wait.init()
		q.idx = int32(i)
		q.machine = int32(m.Queues[i].Machine)
		for _, s := range m.Queues[i].Servers {
			if !m.Servers[s].Spare { // a spare is not running: never serves, not in n(q)
				q.servers = append(q.servers, int32(s))
			}
		}
		q.n = int64(len(q.servers))
	}
}

// initServices precomputes, per service, its candidate instances (every
// instance that advertises it, spares excepted: all are up, there is no
// failure injection yet), its distinct candidate queues with L(s,q) and
// PRIO, and its candidates per machine; and for a routed service the same
// per group its ranges name (routing.go).
func (e *engine) initServices() {
	m := e.m
	index := make(map[string]int, len(m.Services))
	for i := range m.Services {
		index[m.Services[i].Name] = i
	}
	cands := make([][]int32, len(m.Services))
	for i := range m.Servers {
		if m.Servers[i].Spare {
			continue
		}
		for _, name := range m.Servers[i].Services {
			if s, ok := index[name]; ok && !hasIndex(cands[s], int32(i)) {
				cands[s] = append(cands[s], int32(i))
			}
		}
	}
	e.svc = make([]svcInfo, len(m.Services))
	for s := range e.svc {
		e.svc[s] = e.newSvcInfo(s, cands[s])
	}
	for s := range e.svc {
		e.initRoutes(s)
	}
}

// newSvcInfo precomputes what the dispatch rules need about service s
// served by cands (instances in scan order).
func (e *engine) newSvcInfo(s int, cands []int32) svcInfo {
	m := e.m
	sv := svcInfo{cands: cands}
	sv.local = make([][]int32, len(m.Machines))
	sv.localBits = make([][]uint64, len(m.Machines))
	sv.queueOf = make([]int32, len(m.Servers))
	sv.candBits = make([]uint64, len(e.idleBits))
	for i := range sv.queueOf {
		sv.queueOf[i] = -1
	}
	for j, c := range sv.cands {
		q := m.Servers[c].QueueIdx
		k := -1
		for kk := range sv.queues {
			if int(sv.queues[kk].q) == q {
				k = kk
			}
		}
		if k < 0 {
			p := m.Services[s].Params(m.Queues[q].Group)
			sv.queues = append(sv.queues, svcQueue{q: int32(q), first: c, load: int64(p.Load), prio: clampPrio(p.Prio)})
			k = len(sv.queues) - 1
		}
		sv.candQ = append(sv.candQ, int32(k))
		mi := m.Servers[c].Machine
		sv.local[mi] = append(sv.local[mi], int32(j))
		if sv.localBits[mi] == nil {
			sv.localBits[mi] = make([]uint64, len(e.idleBits))
		}
		sv.localBits[mi][c/64] |= 1 << (c % 64)
		sv.candBits[c/64] |= 1 << (c % 64)
		sv.queueOf[c] = int32(k)
	}
	return sv
}

func hasIndex(xs []int32, x int32) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func clampPrio(p int) int32 {
	return int32(min(max(p, 1), prioLevels))
}
