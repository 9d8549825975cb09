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
	"fmt"
	"math"
	"math/big"
	"sort"
)

// spanUS is the simulated span: the last issue, reply (a failure's
// included), scenario event or life-cycle change.
func (o *oracle) spanUS() int64 {
	span := o.lastEvent
	for _, r := range o.reqs {
		span = max(span, r.issue, r.reply)
	}
	for _, c := range o.changes {
		span = max(span, c.t)
	}
	return span
}

// ratMS6 is a/b, rounded to 6 decimals (halves away from zero), as the
// float the JSON carries: the exact value of a ratio the engine reports.
func ratMS6(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	r := new(big.Rat).SetFrac(big.NewInt(a), big.NewInt(b))
	r.Mul(r, big.NewRat(1_000_000, 1))
	r.Add(r, big.NewRat(1, 2)) // a, b >= 0 here
	n := new(big.Int).Quo(r.Num(), r.Denom())
	f, _ := new(big.Rat).SetFrac(n, big.NewInt(1_000_000)).Float64()
	return f
}

// near: the engine's rounded float equals the exact value rounded to 6
// decimals, up to the last bit of a float (the engine divides in floating
// point before rounding, so a value just at a half may go either way).
func near(got, want float64) bool { return math.Abs(got-want) <= 1.0000001e-6 }

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
func compareSummary(name string, got Summary, vals []int64, seen map[string]int) string {
	sort.Slice(vals, func(a, b int) bool { return vals[a] < vals[b] })
	n := int64(len(vals))
	if got.Count != n {
		return fmt.Sprintf("%s.count: engine %d, oracle %d", name, got.Count, n)
	}
	if n == 0 {
		if got != (Summary{}) {
			return fmt.Sprintf("%s: engine %+v for no values", name, got)
		}
		return ""
	}
	var sum int64
	for _, v := range vals {
		sum += v
	}
	maxUS := vals[n-1]
	if want := ratMS6(sum, n*1000); !near(got.Mean, want) {
		return fmt.Sprintf("%s.mean: engine %v, oracle %v (sum %d µs over %d)", name, got.Mean, want, sum, n)
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
func (o *oracle) compareFigures(res *Result, seen map[string]int) string {
	span := o.spanUS()
	if g := int64(math.Round(res.SpanMS * 1000)); g != span {
		return fmt.Sprintf("span: engine %v ms, oracle %d µs", res.SpanMS, span)
	}
	nsrv, nm := len(o.m.Servers), len(o.m.Machines)
	reqs := make([]int64, nsrv)
	issued, served, local, sent, recv := make([]int64, nm), make([]int64, nm), make([]int64, nm), make([]int64, nm), make([]int64, nm)
	var waits, resps []int64
	for _, r := range o.reqs {
		issued[r.origin]++
		if r.q >= 0 && r.reason != "TPENOENT" && r.reason != "TPESYSTEM" {
			if qm := o.m.Queues[r.q].Machine; qm != r.origin {
				sent[r.origin]++
				recv[qm]++
			}
		}
		if r.failed || !r.done {
			continue
		}
		reqs[r.srv]++
		sm := o.m.Servers[r.srv].Machine
		served[sm]++
		if sm == r.origin {
			local[sm]++
		}
		waits = append(waits, r.start-r.enq)
		resps = append(resps, r.reply-r.issue)
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
		if want := ratMS6(o.busyUS[i], span); !near(s.Utilization, want) {
			return fmt.Sprintf("server %s utilization: engine %v, oracle %v (%d µs over %d)", id, s.Utilization, want, o.busyUS[i], span)
		}
		if o.busyUS[i] > 0 {
			seen["busy server"]++
		}
	}
	if len(res.Queues) != len(o.m.Queues) {
		return fmt.Sprintf("queues: engine %d, oracle %d", len(res.Queues), len(o.m.Queues))
	}
	for q, qs := range res.Queues {
		if qs.MaxLength != o.qMax[q] {
			return fmt.Sprintf("queue %s max_length: engine %d, oracle %d", qs.Name, qs.MaxLength, o.qMax[q])
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
	return compareSummary("response_ms", res.ResponseMS, resps, seen)
}
