package core

import (
	"fmt"
	"strings"

	"github.com/tuxlb/tuxlb/core/internal/hist"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/timeseries"
)

// result assembles the Result of a finished run from the engine's statistics.
func (e *engine) result() *result.Result {
	st := &e.st
	st.finish(e)
	sWait, sResp := hist.Read(st.sWait), hist.Read(st.sResp)
	r := &result.Result{
		EngineVersion: EngineVersion,
		Model:         e.m.Model,
		LDBAL:         e.m.LDBAL,
		Policy:        e.setup.Policy.String(),
		Seed:          e.setup.Seed,
		Tuning:        e.setup.Tuning,
		SpanMS:        usec.ToMS(e.spanUS),
		WarmupMS:      usec.ToMS(e.setup.WarmupUS),
		Requests: result.RequestCounts{Issued: st.issued, Completed: st.completed,
			Failed: failedMap(st.failed[:]), TimedOut: st.timedOut},
		WaitMS:     st.wait.Summary(hist.Merge(sWait)),
		ResponseMS: st.resp.Summary(hist.Merge(sResp)),
	}
	eligible := e.eligibleServers()
	r.Servers = e.serverStats()
	r.Queues = e.queueStats()
	r.Services = e.serviceStats(sWait, sResp)
	r.Machines = e.machineStats(r.Servers, eligible)
	r.Flows = e.flowStats()
	r.Balance = result.BalanceOf(r.Servers, eligible)
	r.Series = e.ser.build(e)
	r.Warnings = e.warnings(eligible, r)
	e.lifeResult(r)
	e.traceResult(r)
	if e.app != nil && e.app.plan.Parent {
		e.appResult(r)
		if e.tr != nil {
			e.tranResult(r)
		}
	}
	if e.q != nil {
		e.qResult(r)
	}
	r.Headline = result.HeadlineFigures(r)
	st.releaseFronts()
	return r
}

// measuredUS is the time the time-based statistics cover: warm-up to span.
func (e *engine) measuredUS() int64 { return max(e.spanUS-e.setup.WarmupUS, 0) }

// failedMap turns counts per failure code into {"TPENOENT": n, ...},
// leaving out the codes that never happened.
func failedMap(counts []int64) map[string]int64 {
	m := map[string]int64{}
	for code, n := range counts {
		if n > 0 {
			m[(reasonNoEnt + reason(code)).String()] = n
		}
	}
	return m
}

// frac returns a/b rounded for the JSON, 0 when b is 0.
func frac(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return usec.Round6(a / b)
}

func (e *engine) serverStats() []result.ServerStats {
	st := &e.st
	span := float64(e.measuredUS())
	out := make([]result.ServerStats, len(e.m.Servers))
	done := st.done.PerServer()
	for i := range e.m.Servers {
		s := &e.m.Servers[i]
		out[i] = result.ServerStats{ID: s.ID, Name: s.Name, Group: s.Group, LMID: s.LMID, Queue: s.Queue, Spare: s.Spare, TMS: s.TMS,
			Requests: st.srvRequests[i], LoadDone: st.srvLoad[i], BusyMS: usec.ToMS(e.servers[i].busyUS),
			Utilization: frac(float64(e.servers[i].busyUS), span*float64(s.DispatchThreads())),
			Share:       frac(float64(st.srvRequests[i]), float64(st.completed)),
			Chosen:      st.srvChosen[i], Services: append([]string{}, s.Services...)}
		for _, d := range done[i] {
			out[i].Done = append(out[i].Done, result.ServiceCount{Service: e.m.Services[d.Svc].Name, Requests: d.N})
		}
		if e.threaded {
			e.threadStats(&out[i], i)
		}
	}
	return out
}

// threadStats adds the threads' figures of instance i (runs with a
// multithreaded instance only, so that other runs keep their bytes).
func (e *engine) threadStats(out *result.ServerStats, i int) {
	sv := &e.servers[i]
	k, used := 1, 0
	if sv.started {
		used = 1
	}
	if m := sv.mt; m != nil {
		k, used = int(m.K), int(m.Used)
		for j := range m.Cur {
			out.ByThread = append(out.ByThread, result.ThreadStats{Thread: j + 1, Requests: m.Requests[j],
				BusyMS: usec.ToMS(m.BusyUS[j]), HeldMS: usec.ToMS(m.HeldUS[j])})
		}
	}
	minT := e.m.Servers[i].MinThreads
	if e.m.Servers[i].Gateway {
		minT = 0
	}
	out.Threads, out.MinThreads, out.ThreadsUsed = &k, &minT, &used
}

func (e *engine) queueStats() []result.QueueStats {
	st := &e.st
	span := float64(e.measuredUS())
	out := make([]result.QueueStats, len(e.m.Queues))
	for i := range e.m.Queues {
		q := &e.m.Queues[i]
		ids := make([]string, len(q.Servers))
		for j, s := range q.Servers {
			ids[j] = e.m.Servers[s].ID
		}
		out[i] = result.QueueStats{Name: q.Name, Group: q.Group, LMID: q.LMID, Servers: ids,
			Enqueued: st.qEnqueued[i], MaxLength: int64(st.qs[i].maxLen),
			AvgLength: frac(float64(st.qs[i].area), span), WaitMS: st.qWait[i].Summary(st.qWait[i].Hist())}
	}
	return out
}

// serviceStats lists the services that were requested or that some
// application (non-system) server advertises, in name order; sWait and
// sResp are the services' histograms.
func (e *engine) serviceStats(sWait, sResp []hist.Hist) []result.ServiceStats {
	st := &e.st
	out := []result.ServiceStats{}
	for i := range e.m.Services {
		if st.svcIssued[i] == 0 && !e.advertisedByApp(i) {
			continue
		}
		s := &e.m.Services[i]
		out = append(out, result.ServiceStats{Name: s.Name, Load: s.Load, Prio: s.Prio,
			Issued: st.svcIssued[i], Completed: st.svcCompleted[i], Failed: failedMap(st.svcFailed[i*numFailures : (i+1)*numFailures]),
			TimedOut: st.svcTimedOut[i], WaitMS: st.sWait[i].Summary(sWait[i]), ResponseMS: st.sResp[i].Summary(sResp[i]),
			Histogram: st.sResp[i].Chart(sResp[i])})
	}
	return out
}

func (e *engine) advertisedByApp(s int) bool {
	for _, c := range e.svc[s].all {
		if !e.m.Servers[c].System {
			return true
		}
	}
	return false
}

func (e *engine) machineStats(servers []result.ServerStats, eligible []bool) []result.MachineStats {
	st := &e.st
	out := make([]result.MachineStats, len(e.m.Machines))
	sum := make([]float64, len(e.m.Machines))
	n := make([]int, len(e.m.Machines))
	for i := range e.m.Servers {
		s := &e.m.Servers[i]
		if eligible[i] && !s.Gateway && !s.System {
			sum[s.Machine] += servers[i].Utilization
			n[s.Machine]++
		}
	}
	for i := range e.m.Machines {
		out[i] = result.MachineStats{LMID: e.m.Machines[i].LMID, NetLoad: e.m.Machines[i].NetLoad,
			Issued: st.mIssued[i], Served: st.mServed[i], Local: st.mLocal[i],
			Sent: st.mSent[i], Received: st.mRecv[i]}
		if n[i] > 0 {
			out[i].Utilization = usec.Round6(sum[i] / float64(n[i]))
		}
	}
	return out
}

// eligibleServers marks the servers that advertise at least one service
// that was requested and that ran at some time (not spares never booted):
// the ones balance is measured over.
func (e *engine) eligibleServers() []bool {
	out := make([]bool, len(e.m.Servers))
	for s := range e.svc {
		if e.st.svcIssued[s] == 0 {
			continue
		}
		for _, c := range e.svc[s].all {
			out[c] = e.servers[c].ran
		}
	}
	return out
}

// warnings says what the reader of the result should not miss.
func (e *engine) warnings(eligible []bool, r *result.Result) []string {
	st := &e.st
	out := append([]string{}, e.setup.Warnings...)
	var idle []string
	nElig := 0 // dispatch threads of the eligible servers: what can run at once
	for i, ok := range eligible {
		if !ok {
			continue
		}
		nElig += e.m.Servers[i].DispatchThreads()
		if st.srvRequests[i] == 0 && st.completed > 0 {
			idle = append(idle, e.m.Servers[i].ID)
		}
	}
	if len(idle) > 0 {
		w := fmt.Sprintf("server(s) %s never got a request while others did", strings.Join(idle, ", "))
		if e.alg == algFirst {
			w += " (LDBAL=N sends every request of a service to its first candidate)"
		}
		out = append(out, w)
	}
	if w := st.offeredLoadWarning(nElig); w != "" {
		out = append(out, w)
	}
	for _, sat := range result.Saturations(r) {
		out = append(out, sat.String())
	}
	out = append(out, e.routingWarnings()...)
	out = append(out, e.domainWarnings()...)
	if st.completed < 1000 {
		out = append(out, fmt.Sprintf("only %d requests completed: p99 needs at least 1000 to be meaningful", st.completed))
	}
	if n := e.ser.Resets(); n > timeseries.MaxResets {
		out = append(out, fmt.Sprintf("%d MP counter resets; only the first %d are listed in series.mp_resets_ms", n, timeseries.MaxResets))
	}
	return out
}

// minOfferedSample is the fewest requests the offered-load warning judges.
const minOfferedSample = 100

// offeredLoadWarning compares the offered load (sum over services of the
// arrival rate times the mean service time, in servers) with the number of
// servers that can take it (a multithreaded server counting its threads). A handful of requests says nothing about a steady
// state (three requests in one millisecond are not an offered load of
// thousands), so it needs at least minOfferedSample of them.
func (st *stats) offeredLoadWarning(capacity int) string {
	window := st.lastIssue - st.firstIssue
	if window <= 0 || capacity == 0 || st.issued < minOfferedSample {
		return ""
	}
	var offered float64
	for s := range st.svcIssued {
		if st.svcCompleted[s] > 0 {
			mean := float64(st.svcBusy[s]) / float64(st.svcCompleted[s])
			offered += float64(st.svcIssued[s]) * mean / float64(window)
		}
	}
	if offered <= float64(capacity) {
		return ""
	}
	return fmt.Sprintf("offered load %.2f (arrival rate x mean service time) exceeds the %d servers that can take it: queues grow without bound and waits depend on the run's length", offered, capacity)
}

// flowStats lists the nonzero flows by origin, then machine (none first,
// then model order), then reason.
func (e *engine) flowStats() []result.Flow {
	st := &e.st
	out := []result.Flow{}
	for k, n := range st.flows {
		if n == 0 {
			continue
		}
		rsn := k % numReasons
		cell := k / numReasons
		origin, m := cell/st.nm1, cell%st.nm1-1
		f := result.Flow{Origin: e.m.Machines[origin].LMID, Reason: reason(rsn).String(), Requests: n}
		if m >= 0 {
			f.Machine = e.m.Machines[m].LMID
		}
		out = append(out, f)
	}
	return out
}
