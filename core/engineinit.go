package core

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/bitset"
	"github.com/tuxlb/tuxlb/core/internal/evq"
	"github.com/tuxlb/tuxlb/core/internal/threads"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/workload"
)

// newEngine resolves setup into the engine's flat, precomputed state.
func newEngine(setup *plan.Setup, reqs workload.Stream, opt simOptions) (*engine, error) {
	if setup == nil || setup.Model == nil {
		return nil, diag.Errorf(diag.EINTERNAL, "simulate: no setup")
	}
	m := setup.Model
	if len(m.Servers) >= 1<<evq.IdxBits {
		// a configuration holds at most 10 000 (docs/config.md); the
		// completion order key has room for 1<<evq.IdxBits (events.go)
		return nil, diag.Errorf(diag.ETOOLARGE, "the model has %d server instances, more than %d", len(m.Servers), 1<<evq.IdxBits-1)
	}
	e := &engine{setup: setup, m: m, opt: opt, reqs: reqs, maxReq: opt.MaxRequests}
	e.arr.Next = noTime
	e.heap.Init()
	if e.maxReq <= 0 {
		e.maxReq = DefaultMaxRequests
	}
	if err := e.pickAlgorithm(); err != nil {
		return nil, err
	}
	r, err := plan.TuningReadings(&setup.Tuning)
	if err != nil {
		return nil, err
	}
	e.idleQueue = r.Idle == plan.IdleQueue
	e.mtNoReq = r.MTIdle == plan.MTIdleNoRequest
	e.netOrigin = r.NetLoad == plan.NetLoadOrigin
	e.loadOnly = r.Counter == plan.CounterLoad
	e.initServers()
	e.slowIdle = e.idleQueue || e.sums
	e.initQueues()
	e.initServices()
	e.initLifecycle()
	e.netload = make([]int64, len(m.Machines))
	for i := range m.Machines {
		e.netload[i] = int64(m.Machines[i].NetLoad)
	}
	e.rr = make([]int64, len(m.Services))
	e.noValue, e.noMatch, e.noBuf = make([]int64, len(m.Services)), make([]int64, len(m.Services)), make([]int64, len(m.Services))
	if e.bufs = setup.Bufs; e.bufs == nil {
		e.bufs = workload.NewBufTable(m)
	}
	e.rng.Seed(setup.Seed, streamPolicy)
	e.nextReset = math.MaxInt64
	if e.alg == algMP {
		e.counters = make([]int64, len(m.Machines)*len(m.Queues))
		e.netFor = make([]int64, len(e.counters))
		for mi := range m.Machines {
			for q := range m.Queues {
				e.netFor[mi*len(m.Queues)+q] = e.netLoadFor(mi, int(e.queues[q].machine))
			}
		}
		if setup.ResetUS > 0 {
			e.nextReset = setup.ResetUS
		}
	}
	e.st.init(e)
	e.ser.init(e)
	e.nextBoundary = min(e.nextReset, e.ser.end)
	if setup.App != nil {
		e.app = newAppState(e, setup.App)
		if e.tr = newTranState(e); e.tr != nil {
			e.app.tdl = &e.tr.dl
		}
		if setup.Q != nil {
			e.q = newQState(e, setup.Q)
			e.app.qs = e.q
		}
		e.app.quick = e.tr == nil && e.q == nil && e.app.wsh == nil && !opt.replyTurns
	}
	if opt.Dispatch != nil {
		e.log = newDispatchLog(opt.Dispatch, e.m, e.app != nil && e.app.plan.Parent)
	}
	// (transactions count their requests as they finish: tranLeave)
	e.logged = e.log != nil || opt.explain != nil || e.tr != nil
	e.ids = e.log != nil || opt.explain != nil
	return e, nil
}

// pickAlgorithm turns the policy, MODEL and LDBAL into one of the alg values.
func (e *engine) pickAlgorithm() error {
	switch e.setup.Policy {
	case plan.PolicyTuxedo:
		switch {
		case !e.m.LDBAL:
			e.alg = algFirst
		case e.m.Model == "MP":
			e.alg = algMP
		default:
			e.alg = algSHM
		}
	default:
		cp, ok := comparisonPolicies[e.setup.Policy]
		if !ok {
			return diag.Errorf(diag.EINTERNAL, "policy: %s has no dispatch rule", e.setup.Policy)
		}
		e.alg = cp.alg
	}
	return nil
}

func (e *engine) initServers() {
	m := e.m
	groups := make(map[string]int32, len(m.Groups))
	for i := range m.Groups {
		groups[m.Groups[i].Name] = int32(i)
	}
	e.servers, e.chosen = make([]serverState, len(m.Servers)), make([]int64, len(m.Servers))
	e.idleBits = make([]uint64, (len(m.Servers)+63)/64)
	if e.sums = len(e.idleBits) >= bitset.SummaryWords; e.sums {
		e.idleSum = make([]uint64, (len(e.idleBits)+63)/64)
	}
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
			machine: int32(s.Machine), group: g, speed: speed, cur: -1, held: -1, ran: true}
		if k := s.DispatchThreads(); k > 1 && !s.Gateway {
			e.servers[i].mt = threads.New(k)
			e.threaded = true
		}
		if s.Spare { // a spare starts gone: no candidate, never idle
			e.servers[i].state, e.servers[i].ran = stateGone, false
			continue
		}
		e.markIdle(int32(i))
	}
}

func (e *engine) initQueues() {
	m := e.m
	e.queues = make([]queueState, len(m.Queues))
	e.st.qs = e.queues
	e.levels = levels{fifos: make([]fifo, prioLevels*len(m.Queues)), nq: len(m.Queues)}
	for i := range m.Queues {
		q := &e.queues[i]
		q.wait = waitQueue{q: int32(i)} // (zeroed levels are empty)
		q.machine, q.one = int32(m.Queues[i].Machine), -1
		if len(m.Queues[i].Servers) == 1 {
			q.one = int32(m.Queues[i].Servers[0])
		}
		// every instance, spares too: a spare is gone (it neither serves nor
		// counts in n(q)) until it is booted or spawned
		for _, s := range m.Queues[i].Servers {
			q.servers = append(q.servers, int32(s))
			q.threads++
			if mt := e.servers[s].mt; mt != nil {
				q.threads += int32(mt.K) - 1
			}
			if st := e.servers[s].state; st.candidate() {
				q.n++
			} else if st == stateGone {
				q.gone++
			}
		}
	}
}

// initServices precomputes, per service, the instances that advertise it
// (spares included) and from their states its candidates (fillCandidates);
// and for a routed service the same per group its ranges name (routing.go).
// It is linear in the advertisements (servers x the services each lists)
// plus, per service with advertisers, machines + servers/64 words for the bit
// sets: no list is searched, and a service nobody advertises costs nothing.
func (e *engine) initServices() {
	m := e.m
	index := make(map[string]int, len(m.Services))
	for i := range m.Services {
		index[m.Services[i].Name] = i
	}
	all := make([][]int32, len(m.Services))
	for i := range m.Servers {
		for _, name := range m.Servers[i].Services {
			// servers are visited in order, so a service listed twice by
			// server i has i as its last advertiser
			if s, ok := index[name]; ok {
				if c := all[s]; len(c) == 0 || c[len(c)-1] != int32(i) {
					all[s] = append(c, int32(i))
				}
			}
		}
	}
	e.queuePos = make([]int32, len(m.Queues))
	for i := range e.queuePos {
		e.queuePos[i] = -1
	}
	e.svc = make([]svcInfo, len(m.Services))
	for s := range e.svc {
		e.svc[s] = e.newSvcInfo(s, all[s])
	}
	e.crit = make([]*criterion, len(m.Services))
	for s := range e.svc {
		e.initRoutes(s)
	}
	e.costTreesSetup()
}

// newSvcInfo precomputes what the dispatch rules need about service s
// advertised by the instances all (ascending scan order): its candidates now.
func (e *engine) newSvcInfo(s int, all []int32) svcInfo {
	sv := svcInfo{service: int32(s), all: all}
	if len(all) == 0 {
		return sv // never dispatched (TPENOENT): nothing to precompute
	}
	// bit sets reach only the word of the last advertiser
	words := int(all[len(all)-1])/64 + 1
	sv.local = make([][]int32, len(e.m.Machines))
	sv.localBits = make([][]uint64, len(e.m.Machines))
	sv.candBits = make([]uint64, words)
	sv.candRank = make([]int32, words)
	if e.idleSum != nil {
		sv.candSum = make([]uint64, (words+63)/64)
	}
	sv.localSum = make([][]uint64, len(e.m.Machines))
	e.fillCandidates(&sv)
	return sv
}

// rebuildCandidates recomputes every service's candidates (those of its
// routing groups too) and every queue's n(q) after instances stopped or
// started being candidates.
func (e *engine) rebuildCandidates() {
	// n(q) first: fillCandidates copies it into each svcQueue
	for qi := range e.queues {
		q := &e.queues[qi]
		q.n = 0
		for _, i := range q.servers {
			if e.candidateAt(i) {
				q.n++
			}
		}
	}
	for s := range e.svc {
		e.fillCandidates(&e.svc[s])
	}
	for _, sv := range e.routeSets {
		e.fillCandidates(sv)
	}
	e.costTreesSetup()
	if e.life != nil {
		e.life.dirty = false
	}
}

// fillCandidates computes sv's candidates (the instances of sv.all that are
// up, down or restarting), its distinct candidate queues in scan order (a
// queue is where its first instance is), each with L(s,q), PRIO and its
// first candidate, and its candidates per machine. It uses e.queuePos as
// scratch (every entry -1 before and after).
func (e *engine) fillCandidates(sv *svcInfo) {
	m := e.m
	s := int(sv.service)
	sv.cands, sv.candQ, sv.queues = sv.cands[:0], sv.candQ[:0], sv.queues[:0]
	if len(sv.all) == 0 {
		return
	}
	clear(sv.candBits)
	for mi := range sv.local {
		sv.local[mi] = sv.local[mi][:0]
		clear(sv.localBits[mi])
	}
	pos := e.queuePos
	for _, c := range sv.all {
		if !e.candidateAt(c) {
			continue
		}
		q := m.Servers[c].QueueIdx
		if pos[q] < 0 {
			p := m.Services[s].Params(m.Queues[q].Group)
			pos[q] = int32(len(sv.queues))
			sv.queues = append(sv.queues, svcQueue{q: int32(q), first: c, load: int64(p.Load), n: int64(e.queues[q].n), prio: clampPrio(p.Prio),
				machine: e.queues[q].machine})
		}
		sv.cands = append(sv.cands, c)
	}
	// queues in scan order of their first instance (their index), each
	// queue's candidates keeping their own order
	slices.SortStableFunc(sv.queues, func(a, b svcQueue) int { return cmp.Compare(a.q, b.q) })
	for k := range sv.queues {
		pos[sv.queues[k].q] = int32(k)
	}
	words := len(sv.candBits)
	for _, c := range sv.cands {
		sv.candQ = append(sv.candQ, pos[m.Servers[c].QueueIdx])
		mi := m.Servers[c].Machine
		sv.local[mi] = append(sv.local[mi], c)
		if sv.localBits[mi] == nil {
			sv.localBits[mi] = make([]uint64, words)
		}
		sv.localBits[mi][c/64] |= 1 << (c % 64)
		sv.candBits[c/64] |= 1 << (c % 64)
	}
	rank := int32(0)
	for w, x := range sv.candBits {
		sv.candRank[w] = rank
		rank += int32(bits.OnesCount64(x))
	}
	if sv.candSum != nil { // nil in a small model: no summaries (bitset.FirstCommon)
		bitset.Summarise(sv.candSum, sv.candBits)
		for mi, lb := range sv.localBits {
			if lb != nil {
				if sv.localSum[mi] == nil {
					sv.localSum[mi] = make([]uint64, len(sv.candSum))
				}
				bitset.Summarise(sv.localSum[mi], lb)
			}
		}
	}
	for _, sq := range sv.queues {
		pos[sq.q] = -1
	}
}

func clampPrio(p int) int32 {
	return int32(min(max(p, 1), prioLevels))
}
