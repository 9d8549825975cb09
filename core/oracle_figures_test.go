package core

// The result's figures as the reference simulator computes them from its
// own dispatch (oracle_sim_test.go), compared with the engine's result in
// the differential test (oracle_test.go): the span, per server requests,
// busy_ms and utilization, per queue max_length, per machine issued,
// served, local, sent and received, and wait_ms and response_ms (count,
// mean and max exactly; p50/p95/p99 within the histogram's documented
// precision). Figures as docs/engine.md defines them: "requests" per server
// and "served" per machine count completed requests; waits and responses
// are over completed requests; the span ends at the last request event
// (issue, reply or failure), scenario event or life-cycle change.

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"

	"github.com/tuxlb/tuxlb/core/result"
)

// spanUS is the simulated span: the last issue, reply (a failure's
// included), scenario event or life-cycle change.
func (o *oracle) spanUS() int64 {
	span := max(o.lastEvent, o.clientTimeout)
	for _, r := range o.reqs {
		span = max(span, r.issue, r.reply, r.lastT) // lastT: the end or failure of a request whose reply is never sent
	}
	for _, c := range o.changes {
		span = max(span, c.t)
	}
	return span
}

// ratio is the exact a/b (0 when b is 0).
func ratio(a, b int64) *big.Rat {
	if b == 0 {
		return new(big.Rat)
	}
	return new(big.Rat).SetFrac(big.NewInt(a), big.NewInt(b))
}

// nearRat: got, a figure the engine rounded to 6 decimals, is within half a
// unit of the 6th decimal of the exact x, give or take the float's own last
// bit. The engine divides and rounds in floating point, so an x exactly
// halfway between two 6-decimal values may be reported as either.
func nearRat(got float64, x *big.Rat) bool {
	g, _ := new(big.Rat).SetString(strconv.FormatFloat(got, 'g', -1, 64))
	d := new(big.Rat).Sub(g, x)
	d.Abs(d)
	xf, _ := x.Float64()
	slack := new(big.Rat).SetFloat64(math.Abs(xf) * 0x1p-50)
	return d.Cmp(new(big.Rat).Add(big.NewRat(1, 2_000_000), slack)) <= 0
}

// ratF is x as a float, for messages.
func ratF(x *big.Rat) float64 { f, _ := x.Float64(); return f }

// nearestRank is the exact percentile of sorted values as docs/engine.md
// defines the engine's rank (the HdrHistogram's): the value of rank
// ⌊p·n/100 + ½⌋, at least 1 — nearest rank with halves rounded up. The
// textbook nearest rank ⌈p·n/100⌉ is one rank higher when p·n/100 has a
// fraction below ½; ceil reports that rank too, for the tally.
func nearestRank(sorted []int64, p int64) (v int64, hdrRank, ceilRank int64) {
	n := int64(len(sorted))
	hdrRank = max((2*p*n+100)/200, 1) // ⌊p·n/100 + ½⌋ in integers
	ceilRank = max((p*n+99)/100, 1)
	return sorted[hdrRank-1], hdrRank, ceilRank
}

// histOK: the engine's percentile e (µs) reports exact value v within the
// histogram's documented precision: exact below 2048 µs, else at least v
// and at most 1/1024 above it, and never above the exact maximum.
func histOK(e, v, maxUS int64) bool {
	if e > maxUS {
		return false
	}
	if v < 2048 {
		return e == v
	}
	return e >= v && e <= v+v/1024
}

// compareSummary checks one Summary against the exact values (µs).
func compareSummary(name string, got result.Summary, vals []int64, seen map[string]int) string {
	sort.Slice(vals, func(a, b int) bool { return vals[a] < vals[b] })
	n := int64(len(vals))
	if got.Count != n {
		return fmt.Sprintf("%s.count: engine %d, oracle %d", name, got.Count, n)
	}
	if n == 0 {
		if got != (result.Summary{}) {
			return fmt.Sprintf("%s: engine %+v for no values", name, got)
		}
		return ""
	}
	var sum int64
	for _, v := range vals {
		sum += v
	}
	maxUS := vals[n-1]
	if want := ratio(sum, n*1000); !nearRat(got.Mean, want) {
		return fmt.Sprintf("%s.mean: engine %v, oracle %v (sum %d µs over %d)", name, got.Mean, ratF(want), sum, n)
	}
	if g := int64(math.Round(got.Max * 1000)); g != maxUS {
		return fmt.Sprintf("%s.max: engine %v ms, oracle %d µs", name, got.Max, maxUS)
	}
	for _, pc := range []struct {
		p   int64
		got float64
	}{{50, got.P50}, {95, got.P95}, {99, got.P99}} {
		v, hr, cr := nearestRank(vals, pc.p)
		if hr != cr && vals[hr-1] != vals[cr-1] {
			seen["percentile rank below ceil"]++
		}
		if e := int64(math.Round(pc.got * 1000)); !histOK(e, v, maxUS) {
			return fmt.Sprintf("%s.p%d: engine %v ms, exact %d µs (rank %d of %d)", name, pc.p, pc.got, v, hr, n)
		}
	}
	return ""
}

// compareFigures describes the first figure of res that differs from the
// oracle's own, or "".
func (o *oracle) compareFigures(res *result.Result, seen map[string]int) string {
	span := o.spanUS()
	if g := int64(math.Round(res.SpanMS * 1000)); g != span {
		return fmt.Sprintf("span: engine %v ms, oracle %d µs", res.SpanMS, span)
	}
	nsrv, nm := len(o.m.Servers), len(o.m.Machines)
	reqs, loadDone := make([]int64, nsrv), make([]int64, nsrv)
	nq := len(o.m.Queues)
	qWaits := make([][]int64, nq)
	type svcFig struct {
		issued, completed, timedOut int64
		failed                      map[string]int64
		waits, resps                []int64
	}
	svcs := map[string]*svcFig{}
	var completed int64
	issued, served, local, sent, recv := make([]int64, nm), make([]int64, nm), make([]int64, nm), make([]int64, nm), make([]int64, nm)
	var waits, resps []int64
	for _, r := range o.reqs {
		issued[r.origin]++
		sf := svcs[r.svc]
		if sf == nil {
			sf = &svcFig{failed: map[string]int64{}}
			svcs[r.svc] = sf
		}
		sf.issued++
		if r.failed {
			sf.failed[r.reason]++
		}
		if r.q >= 0 && r.reason != "TPENOENT" && r.reason != "TPESYSTEM" {
			if qm := o.m.Queues[r.q].Machine; qm != r.origin {
				sent[r.origin]++
				recv[qm]++
			}
		}
		if r.failed || !r.done {
			continue
		}
		completed++
		sf.completed++
		if r.timedOut {
			sf.timedOut++
		}
		sf.waits = append(sf.waits, r.start-r.enq)
		if !r.unanswered && r.tmsFor == nil { // a noreply child's reply is never sent, a TMS request's reaches no caller: no response
			sf.resps = append(sf.resps, o.respUS(r))
		}
		qWaits[r.q] = append(qWaits[r.q], r.start-r.enq)
		reqs[r.srv]++
		loadDone[r.srv] += o.loadOf(r, r.q)
		sm := o.m.Servers[r.srv].Machine
		served[sm]++
		if sm == r.origin {
			local[sm]++
		}
		waits = append(waits, r.start-r.enq)
		if !r.unanswered && r.tmsFor == nil {
			resps = append(resps, o.respUS(r))
		}
	}
	if len(res.Servers) != nsrv {
		return fmt.Sprintf("servers: engine %d, oracle %d", len(res.Servers), nsrv)
	}
	for i, s := range res.Servers {
		id := o.m.Servers[i].ID
		if s.ID != id {
			return fmt.Sprintf("servers[%d]: engine %s, oracle %s", i, s.ID, id)
		}
		if s.Requests != reqs[i] {
			return fmt.Sprintf("server %s requests: engine %d, oracle %d", id, s.Requests, reqs[i])
		}
		if g := int64(math.Round(s.BusyMS * 1000)); g != o.busyUS[i] {
			return fmt.Sprintf("server %s busy: engine %v ms, oracle %d µs", id, s.BusyMS, o.busyUS[i])
		}
		// busy is thread-time: utilization is over k × the span
		k := int64(len(o.insts[i].th))
		if want := ratio(o.busyUS[i], k*span); !nearRat(s.Utilization, want) {
			return fmt.Sprintf("server %s utilization: engine %v, oracle %v (%d µs over %d × %d)", id, s.Utilization, ratF(want), o.busyUS[i], k, span)
		}
		if s.LoadDone != loadDone[i] {
			return fmt.Sprintf("server %s load_done: engine %d, oracle %d", id, s.LoadDone, loadDone[i])
		}
		if want := ratio(reqs[i], completed); !nearRat(s.Share, want) {
			return fmt.Sprintf("server %s share: engine %v, oracle %v", id, s.Share, ratF(want))
		}
		if o.busyUS[i] > 0 {
			seen["busy server"]++
		}
	}
	if msg := o.compareUp(res, span); msg != "" {
		return msg
	}
	if msg := o.compareThreads(res, seen); msg != "" {
		return msg
	}
	if len(res.Queues) != len(o.m.Queues) {
		return fmt.Sprintf("queues: engine %d, oracle %d", len(res.Queues), len(o.m.Queues))
	}
	for q, qs := range res.Queues {
		if qs.MaxLength != o.qMax[q] {
			return fmt.Sprintf("queue %s max_length: engine %d, oracle %d", qs.Name, qs.MaxLength, o.qMax[q])
		}
		if qs.Enqueued != o.qEnq[q] {
			return fmt.Sprintf("queue %s enqueued: engine %d, oracle %d", qs.Name, qs.Enqueued, o.qEnq[q])
		}
		if want := ratio(o.qArea[q], span); !nearRat(qs.AvgLength, want) {
			return fmt.Sprintf("queue %s avg_length: engine %v, oracle %v (%d µs·requests over %d µs)", qs.Name, qs.AvgLength, ratF(want), o.qArea[q], span)
		}
		if msg := compareSummary("queue "+qs.Name+" wait_ms", qs.WaitMS, qWaits[q], seen); msg != "" {
			return msg
		}
		if o.qMax[q] > 1 {
			seen["queue line >1"]++
		}
	}
	if len(res.Machines) != nm {
		return fmt.Sprintf("machines: engine %d, oracle %d", len(res.Machines), nm)
	}
	for m, ms := range res.Machines {
		g := []int64{ms.Issued, ms.Served, ms.Local, ms.Sent, ms.Received}
		w := []int64{issued[m], served[m], local[m], sent[m], recv[m]}
		if fmt.Sprint(g) != fmt.Sprint(w) {
			return fmt.Sprintf("machine %s issued/served/local/sent/received: engine %v, oracle %v", ms.LMID, g, w)
		}
		if sent[m] > 0 {
			seen["network crossing"]++
		}
	}
	if msg := compareSummary("wait_ms", res.WaitMS, waits, seen); msg != "" {
		return msg
	}
	if msg := compareSummary("response_ms", res.ResponseMS, resps, seen); msg != "" {
		return msg
	}
	listed := map[string]bool{}
	for _, ss := range res.Services {
		listed[ss.Name] = true
		sf := svcs[ss.Name]
		if sf == nil {
			sf = &svcFig{failed: map[string]int64{}}
		}
		g := fmt.Sprint(ss.Issued, ss.Completed, ss.Failed, ss.TimedOut)
		if w := fmt.Sprint(sf.issued, sf.completed, sf.failed, sf.timedOut); g != w {
			return fmt.Sprintf("service %s issued/completed/failed/timed out: engine %s, oracle %s", ss.Name, g, w)
		}
		if msg := compareSummary("service "+ss.Name+" wait_ms", ss.WaitMS, sf.waits, seen); msg != "" {
			return msg
		}
		if msg := compareSummary("service "+ss.Name+" response_ms", ss.ResponseMS, sf.resps, seen); msg != "" {
			return msg
		}
	}
	for name := range svcs {
		if !listed[name] {
			return fmt.Sprintf("services: requested service %s not listed", name)
		}
	}
	return ""
}

// compareUp checks, in runs with a life cycle, each instance's state at
// the end, its time up (or stopping) over the span, and its busy time over
// that up time.
func (o *oracle) compareUp(res *result.Result, span int64) string {
	life := len(o.events) > 0 || len(o.spawns) > 0
	state := make([]string, len(o.insts))
	since := make([]int64, len(o.insts)) // -1: not running
	up := make([]int64, len(o.insts))
	for i := range o.insts {
		state[i], since[i] = "up", 0
		if o.m.Servers[i].Spare {
			state[i], since[i] = "gone", -1
		}
	}
	running := func(s string) bool { return s == "up" || s == "stopping" }
	for _, c := range o.changes {
		i := c.srv
		if since[i] >= 0 && !running(c.to) {
			up[i] += c.t - since[i]
			since[i] = -1
		} else if since[i] < 0 && running(c.to) {
			since[i] = c.t
		}
		state[i] = c.to
	}
	for i, s := range res.Servers {
		if s.UpMS == nil {
			if life {
				return fmt.Sprintf("server %s: no up_ms in a run with a life cycle", s.ID)
			}
			continue
		}
		u := up[i]
		if since[i] >= 0 {
			u += span - since[i]
		}
		if s.State != state[i] {
			return fmt.Sprintf("server %s state: engine %s, oracle %s", s.ID, s.State, state[i])
		}
		if g := int64(math.Round(*s.UpMS * 1000)); g != u {
			return fmt.Sprintf("server %s up: engine %v ms, oracle %d µs", s.ID, *s.UpMS, u)
		}
		if want := ratio(o.busyUS[i], int64(len(o.insts[i].th))*u); !nearRat(*s.UpUtilization, want) {
			return fmt.Sprintf("server %s up_utilization: engine %v, oracle %v", s.ID, *s.UpUtilization, ratF(want))
		}
	}
	return ""
}

// oThreadResult is what compareThreads reads of the engine's result,
// through its JSON, by the names the contract gives the threads' figures.
type oThreadResult struct {
	Servers []struct {
		ID          string `json:"id"`
		Threads     *int   `json:"threads"`
		MinThreads  *int   `json:"min_threads"`
		ThreadsUsed *int   `json:"threads_used"`
		ByThread    []struct {
			Thread   int     `json:"thread"`
			Requests int64   `json:"requests"`
			BusyMS   float64 `json:"busy_ms"`
			HeldMS   float64 `json:"held_ms"`
		} `json:"by_thread"`
	} `json:"servers"`
}

// compareThreads checks the threads' figures: left out when no instance
// has more than one thread (the bytes of a single-threaded run do not
// change); else threads, min_threads and threads_used for every instance,
// and by_thread for those with k > 1.
func (o *oracle) compareThreads(res *result.Result, seen map[string]int) string {
	js, err := json.Marshal(res)
	if err != nil {
		return err.Error()
	}
	var tr oThreadResult
	if err := json.Unmarshal(js, &tr); err != nil {
		return err.Error()
	}
	if len(tr.Servers) != len(o.insts) {
		return fmt.Sprintf("servers: engine %d, oracle %d", len(tr.Servers), len(o.insts))
	}
	reqs := make([][]int64, len(o.insts))
	for i := range reqs {
		reqs[i] = make([]int64, len(o.insts[i].th))
	}
	for _, r := range o.reqs {
		if r.done && !r.failed {
			reqs[r.srv][r.thr]++
		}
	}
	for i, s := range tr.Servers {
		srv := &o.m.Servers[i]
		k := len(o.insts[i].th)
		if !o.threaded {
			if s.Threads != nil || s.MinThreads != nil || s.ThreadsUsed != nil || s.ByThread != nil {
				return fmt.Sprintf("server %s: threads' figures in a run without a multithreaded instance (want them left out)", s.ID)
			}
			continue
		}
		if s.Threads == nil || s.MinThreads == nil || s.ThreadsUsed == nil {
			return fmt.Sprintf("server %s: threads, min_threads or threads_used missing", s.ID)
		}
		if *s.Threads != k || *s.MinThreads != srv.MinThreads || *s.ThreadsUsed != o.thrUsed[i] {
			return fmt.Sprintf("server %s threads/min_threads/threads_used: engine %d/%d/%d, oracle %d/%d/%d",
				s.ID, *s.Threads, *s.MinThreads, *s.ThreadsUsed, k, srv.MinThreads, o.thrUsed[i])
		}
		if k == 1 {
			if s.ByThread != nil {
				return fmt.Sprintf("server %s: by_thread for a single-threaded instance (want it left out)", s.ID)
			}
			continue
		}
		seen["multithreaded server"]++
		if o.thrUsed[i] > 1 {
			seen["threads busy at once"]++
		}
		if len(s.ByThread) != k {
			return fmt.Sprintf("server %s by_thread: engine %d threads, oracle %d", s.ID, len(s.ByThread), k)
		}
		for j, bt := range s.ByThread {
			g := fmt.Sprint(bt.Thread, bt.Requests, int64(math.Round(bt.BusyMS*1000)), int64(math.Round(bt.HeldMS*1000)))
			w := fmt.Sprint(j+1, reqs[i][j], o.thrBusy[i][j], o.thrHeld[i][j])
			if g != w {
				return fmt.Sprintf("server %s by_thread[%d] thread/requests/busy µs/held µs: engine %s, oracle %s", s.ID, j, g, w)
			}
		}
	}
	return ""
}

// oAppResult is what compareApp reads of the engine's result, through its
// JSON, by the names the contract gives the application figures.
type oAppResult struct {
	Requests struct {
		Nested  int64  `json:"nested"`
		Retried int64  `json:"retried"`
		Noreply *int64 `json:"noreply"`
	} `json:"requests"`
	Servers []struct {
		ID     string   `json:"id"`
		HeldMS *float64 `json:"held_ms"`
	} `json:"servers"`
	Services []struct {
		Name        string `json:"name"`
		CallsIssued int64  `json:"calls_issued"`
	} `json:"services"`
	Clients []struct {
		Name       string           `json:"name"`
		Count      int              `json:"count"`
		Requests   int64            `json:"requests"`
		Completed  int64            `json:"completed"`
		Failed     map[string]int64 `json:"failed"`
		TimedOut   int64            `json:"timed_out"`
		Retried    int64            `json:"retried"`
		ResponseMS result.Summary   `json:"response_ms"`
		// NotConnected is present for a set with via only.
		NotConnected *int `json:"not_connected"`
	} `json:"clients"`
	Workstation []struct {
		ID           string `json:"id"`
		Machine      string `json:"machine"`
		Handlers     int    `json:"handlers"`
		Clients      []int  `json:"clients"`
		NotConnected int    `json:"not_connected"`
	} `json:"workstation"`
}

// compareApp checks the application figures: requests.nested and retried,
// servers[].held_ms, services[].calls_issued and clients[].
func (o *oracle) compareApp(res *result.Result) string {
	js, err := json.Marshal(res)
	if err != nil {
		return err.Error()
	}
	var ar oAppResult
	if err := json.Unmarshal(js, &ar); err != nil {
		return err.Error()
	}
	var nested, retried int64
	for _, r := range o.reqs {
		if r.nested {
			nested++
		}
		if r.retry {
			retried++
		}
	}
	if ar.Requests.Nested != nested || ar.Requests.Retried != retried {
		return fmt.Sprintf("requests nested/retried: engine %d/%d, oracle %d/%d", ar.Requests.Nested, ar.Requests.Retried, nested, retried)
	}
	var noreply int64
	for _, r := range o.reqs {
		if r.noreply {
			noreply++
		}
	}
	switch g := ar.Requests.Noreply; {
	case !o.noreplySteps && g != nil:
		return fmt.Sprintf("requests.noreply: engine %d in a scenario with no noreply step (want it left out)", *g)
	case o.noreplySteps && g == nil:
		return fmt.Sprintf("requests.noreply: missing, oracle %d", noreply)
	case g != nil && *g != noreply:
		return fmt.Sprintf("requests.noreply: engine %d, oracle %d", *g, noreply)
	}
	for i, s := range ar.Servers {
		if s.HeldMS == nil {
			return fmt.Sprintf("server %s: no held_ms", s.ID)
		}
		if g := int64(math.Round(*s.HeldMS * 1000)); i < len(o.heldUS) && g != o.heldUS[i] {
			return fmt.Sprintf("server %s held: engine %v ms, oracle %d µs", s.ID, *s.HeldMS, o.heldUS[i])
		}
	}
	for _, s := range ar.Services {
		if s.CallsIssued != o.callsBy[s.Name] {
			return fmt.Sprintf("service %s calls_issued: engine %d, oracle %d", s.Name, s.CallsIssued, o.callsBy[s.Name])
		}
	}
	if len(ar.Clients) != len(o.sets) {
		return fmt.Sprintf("clients: engine %d sets, oracle %d", len(ar.Clients), len(o.sets))
	}
	for k, c := range ar.Clients {
		cs := o.sets[k]
		g := fmt.Sprint(c.Name, c.Count, c.Requests, c.Completed, c.Failed, c.TimedOut, c.Retried)
		w := fmt.Sprint(cs.name, cs.count, cs.requests, cs.completed, cs.failed, cs.timedOut, cs.retried)
		if c.Failed == nil {
			g = fmt.Sprint(c.Name, c.Count, c.Requests, c.Completed, map[string]int64{}, c.TimedOut, c.Retried)
		}
		if g != w {
			return fmt.Sprintf("client set %s name/count/requests/completed/failed/timed out/retried: engine %s, oracle %s", cs.name, g, w)
		}
		if msg := compareSummary("client set "+cs.name+" response_ms", c.ResponseMS, append([]int64(nil), cs.resps...), map[string]int{}); msg != "" {
			return msg
		}
		switch {
		case cs.via == "" && c.NotConnected != nil:
			return fmt.Sprintf("client set %s: not_connected %d for a set without via (want it left out)", cs.name, *c.NotConnected)
		case cs.via != "" && (c.NotConnected == nil || *c.NotConnected != cs.refused):
			return fmt.Sprintf("client set %s not_connected: engine %v, oracle %d", cs.name, c.NotConnected, cs.refused)
		}
	}
	if o.wsl == nil || !slices.ContainsFunc(o.sets, func(cs *oClientSet) bool { return cs.via != "" }) {
		if ar.Workstation != nil {
			return fmt.Sprintf("workstation: engine %d entries in a run without via (want it left out)", len(ar.Workstation))
		}
		return o.compareTransactions(res)
	}
	if len(ar.Workstation) != len(o.wsl) {
		return fmt.Sprintf("workstation: engine %d entries, oracle %d", len(ar.Workstation), len(o.wsl))
	}
	for k, w := range ar.Workstation {
		ws, ow := o.m.Workstations[k], o.wsl[k]
		g := fmt.Sprint(w.ID, w.Machine, w.Handlers, w.Clients, w.NotConnected)
		want := fmt.Sprint(ws.ID, o.m.Machines[ws.Machine].LMID, len(ow.handlers), ow.handlers, ow.refused)
		if g != want {
			return fmt.Sprintf("workstation %d id/machine/handlers/clients/not_connected: engine %s, oracle %s", k, g, want)
		}
	}
	return o.compareTransactions(res)
}

// compareTransactions checks the result's transactions block against the
// reference's own count (tranFigures): present exactly when some service
// has AUTOTRAN=Y.
func (o *oracle) compareTransactions(res *result.Result) string {
	ts := res.Transactions
	if !o.tranOn {
		if ts != nil {
			return "transactions: present in a run without AUTOTRAN"
		}
		return ""
	}
	if ts == nil {
		return "transactions: missing"
	}
	f := o.tranFigures()
	g := fmt.Sprint(ts.Started, ts.Committed, ts.OnePhase, ts.TwoPhase, ts.Aborted.Timeout, ts.Aborted.Failed)
	if w := fmt.Sprint(f.Started, f.Committed, f.OnePhase, f.TwoPhase, f.Timeout, f.Failed); g != w {
		return fmt.Sprintf("transactions started/committed/one-phase/two-phase/timeout/failed: engine %s, oracle %s", g, w)
	}
	var parts int64
	for _, p := range f.Participants {
		parts += p
	}
	if want := ratio(parts, f.Started); !nearRat(ts.ParticipantsMean, want) {
		return fmt.Sprintf("transactions participants_mean: engine %v, oracle %v", ts.ParticipantsMean, ratF(want))
	}
	return compareSummary("transactions commit_ms", ts.CommitMS, append([]int64(nil), f.CommitUS...), map[string]int{})
}

// respUS is a completed request's response: issue to reply; for a forwarder
// whose child failed at its issue (no reply_us), to its end, when its caller
// learnt of the failure (docs/engine.md: "its response measured to its end").
func (o *oracle) respUS(r *oReq) int64 {
	if r.reply < 0 {
		return r.end - r.issue
	}
	return r.reply - r.issue
}
