package result

import (
	"math"
	"slices"
	"strings"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// The figures table: every figure a result is summed up by, named one way
// everywhere (the result's headline, replications, sweeps, compare,
// objectives, the page), with its unit and label and how it is read from a
// result. A figure may also be read for one service (`NAME[SERVICE]`) or
// one machine (`NAME[machine:LMID]`) when its scopes say so.

// scope is what a figure can be read for: the whole run, one service, one
// machine.
type scope uint8

// The scopes of a figure, as a bit set.
const (
	scopeRun scope = 1 << iota
	scopeService
	scopeMachine
)

// FigureDef is one row of the figures table.
type FigureDef struct {
	Name  string `json:"name"`
	Unit  string `json:"unit"` // ms, requests, fraction (a share, shown as a percentage), index (Jain's, 1/n to 1), per_s, machines, messages (/Q), transactions
	Label string `json:"label"`
	// Doc says how the figure is computed from a result.
	Doc string `json:"doc"`
	// Scopes lists what it can be read for: "run", "service", "machine".
	Scopes []string `json:"scopes"`
	// Headline: a key of the result's headline. Replicated: summarised
	// over replications (the result's replications.figures). Swept: sampled
	// at every point of a sweep and every variant of compare. Objective:
	// usable in an objective.
	Headline   bool `json:"headline"`
	Replicated bool `json:"replicated"`
	Swept      bool `json:"swept"`
	Objective  bool `json:"objective"`
	// Table: one of the main figures, shown in sweep tables and charted by
	// the page's sweeps.
	Table bool `json:"table"`
	// Summary: shown in the page's summary of a run and in compare tables,
	// in the table's order (a headline figure).
	Summary bool `json:"summary"`
	// Better says which way a change of the figure is an improvement:
	// "lower" (waits, failures), "higher" (completions, fairness), or ""
	// when neither is (how many were issued, the span).
	Better string `json:"better"`
	// Aliases are the names it had before engine 0.5.0, still accepted in
	// objectives, --figure and compare.
	Aliases []string `json:"aliases,omitempty"`

	scope   scope
	run     func(*Result) float64
	service func(*Result, *ServiceStats) float64
	machine func(*Result, string) float64
}

// figureTable is the table, in display order.
var figureTable = []*FigureDef{
	{Name: "issued", Unit: "requests", Label: "Issued", Doc: "requests issued (requests.issued; a service's issued; a machine's issued, by origin)", Summary: true,
		Headline: true, Swept: true, Objective: true, scope: scopeRun | scopeService | scopeMachine,
		run:     func(r *Result) float64 { return float64(r.Requests.Issued) },
		service: func(_ *Result, s *ServiceStats) float64 { return float64(s.Issued) },
		machine: func(r *Result, lmid string) float64 { return float64(machineOf(r, lmid).Issued) }},
	{Name: "completed", Unit: "requests", Label: "Completed", Doc: "requests completed", Summary: true, Better: "higher",
		Headline: true, Swept: true, Objective: true, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return float64(r.Requests.Completed) },
		service: func(_ *Result, s *ServiceStats) float64 { return float64(s.Completed) }},
	{Name: "failed", Unit: "requests", Label: "Failed", Doc: "requests failed, every reason (failed.REASON: one reason)", Summary: true, Better: "lower",
		Table: true, Headline: true, Swept: true, Objective: true, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return float64(sumCounts(r.Requests.Failed)) },
		service: func(_ *Result, s *ServiceStats) float64 { return float64(sumCounts(s.Failed)) }},
	{Name: "timed_out", Unit: "requests", Label: "Timed out (TPETIME)", Doc: "completed requests whose reply came after BLOCKTIME", Summary: true, Better: "lower",
		Headline: true, Replicated: true, Swept: true, Objective: true, Aliases: []string{"requests.timed_out"}, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return float64(r.Requests.TimedOut) },
		service: func(_ *Result, s *ServiceStats) float64 { return float64(s.TimedOut) }},
	{Name: "wait_mean_ms", Unit: "ms", Label: "Wait mean (ms)", Doc: "queue wait (enqueue to start): mean", Summary: true, Better: "lower",
		Table: true, Headline: true, Replicated: true, Swept: true, Objective: true, Aliases: []string{"wait_ms.mean"}, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return r.WaitMS.Mean },
		service: func(_ *Result, s *ServiceStats) float64 { return s.WaitMS.Mean }},
	{Name: "wait_p95_ms", Unit: "ms", Label: "Wait p95 (ms)", Doc: "queue wait: 95th percentile", Summary: true, Better: "lower",
		Headline: true, Replicated: true, Swept: true, Objective: true, Aliases: []string{"wait_ms.p95"}, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return r.WaitMS.P95 },
		service: func(_ *Result, s *ServiceStats) float64 { return s.WaitMS.P95 }},
	{Name: "wait_p99_ms", Unit: "ms", Label: "Wait p99 (ms)", Doc: "queue wait: 99th percentile", Summary: true, Better: "lower",
		Headline: true, Swept: true, Objective: true, Aliases: []string{"wait_ms.p99"}, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return r.WaitMS.P99 },
		service: func(_ *Result, s *ServiceStats) float64 { return s.WaitMS.P99 }},
	{Name: "response_mean_ms", Unit: "ms", Label: "Response mean (ms)", Doc: "response time (issue to reply): mean", Summary: true, Better: "lower",
		Table: true, Headline: true, Replicated: true, Swept: true, Objective: true, Aliases: []string{"response_ms.mean"}, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return r.ResponseMS.Mean },
		service: func(_ *Result, s *ServiceStats) float64 { return s.ResponseMS.Mean }},
	{Name: "response_p50_ms", Unit: "ms", Label: "Response p50 (ms)", Doc: "response time: median", Better: "lower",
		Headline: true, Swept: true, Objective: true, Aliases: []string{"response_ms.p50"}, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return r.ResponseMS.P50 },
		service: func(_ *Result, s *ServiceStats) float64 { return s.ResponseMS.P50 }},
	{Name: "response_p95_ms", Unit: "ms", Label: "Response p95 (ms)", Doc: "response time: 95th percentile", Summary: true, Better: "lower",
		Headline: true, Replicated: true, Swept: true, Objective: true, Aliases: []string{"response_ms.p95"}, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return r.ResponseMS.P95 },
		service: func(_ *Result, s *ServiceStats) float64 { return s.ResponseMS.P95 }},
	{Name: "response_p99_ms", Unit: "ms", Label: "Response p99 (ms)", Doc: "response time: 99th percentile", Summary: true, Better: "lower",
		Table: true, Headline: true, Replicated: true, Swept: true, Objective: true, Aliases: []string{"response_ms.p99"}, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return r.ResponseMS.P99 },
		service: func(_ *Result, s *ServiceStats) float64 { return s.ResponseMS.P99 }},
	{Name: "response_max_ms", Unit: "ms", Label: "Response max (ms)", Doc: "response time: the longest", Summary: true, Better: "lower",
		Headline: true, Objective: true, Aliases: []string{"response_ms.max"}, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return r.ResponseMS.Max },
		service: func(_ *Result, s *ServiceStats) float64 { return s.ResponseMS.Max }},
	{Name: "throughput_per_s", Unit: "per_s", Label: "Throughput (/s)", Doc: "completed requests / (span − warm-up), per second", Better: "higher",
		Table: true, Headline: true, Swept: true, Objective: true, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return perSecond(r, r.Requests.Completed) },
		service: func(r *Result, s *ServiceStats) float64 { return perSecond(r, s.Completed) }},
	{Name: "utilization_max", Unit: "fraction", Label: "Busiest server", Doc: "the busiest server instance's utilization (of a machine: its busiest)", Summary: true, Better: "lower",
		Table: true, Headline: true, Replicated: true, Swept: true, Objective: true, Aliases: []string{"max_utilization", "utilization.max"}, scope: scopeRun | scopeMachine,
		run:     maxUtilization,
		machine: func(r *Result, lmid string) float64 { return machineUtilization(r, lmid, true) }},
	{Name: "utilization_mean", Unit: "fraction", Label: "Mean utilization", Doc: "a machine's mean utilization over its server instances (utilization.LMID before 0.5.0)",
		Swept: true, Objective: true, scope: scopeMachine,
		machine: func(r *Result, lmid string) float64 { return machineUtilization(r, lmid, false) }},
	{Name: "jain_utilization", Unit: "index", Label: "Jain fairness", Doc: "Jain's fairness index over the servers' utilizations (1 = even)", Summary: true, Better: "higher",
		Headline: true, Replicated: true, Objective: true, Aliases: []string{"balance.jain_utilization"}, scope: scopeRun,
		run: func(r *Result) float64 { return r.Balance.JainUtilization }},
	{Name: "network_sent", Unit: "requests", Label: "Crossed the network", Doc: "requests sent to a queue on another machine (sum of the machines' sent; of a machine: its sent)", Better: "lower",
		Table: true, Headline: true, Swept: true, Objective: true, Aliases: []string{"crossed_network"}, scope: scopeRun | scopeMachine,
		run:     func(r *Result) float64 { return float64(networkSent(r)) },
		machine: func(r *Result, lmid string) float64 { return float64(machineOf(r, lmid).Sent) }},
	{Name: "network_share", Unit: "fraction", Label: "Share across the network", Doc: "network_sent / issued", Summary: true, Better: "lower",
		Headline: true, Objective: true, Aliases: []string{"network.share"}, scope: scopeRun,
		run: func(r *Result) float64 {
			if r.Requests.Issued == 0 {
				return 0
			}
			return round6(float64(networkSent(r)) / float64(r.Requests.Issued))
		}},
	{Name: "max_over_mean", Unit: "index", Label: "Max/mean utilization", Doc: "the busiest server's utilization over the mean of the servers that could take the work (balance.max_over_mean; 1 = even)",
		Summary: true, Better: "lower", Headline: true, scope: scopeRun,
		run: func(r *Result) float64 { return r.Balance.MaxOverMean }},
	{Name: "saturated_machines", Unit: "machines", Label: "Saturated machines", Doc: "machines that saturate while another serving the same services has room", Summary: true, Better: "lower",
		Headline: true, Objective: true, Aliases: []string{"machines.saturated"}, scope: scopeRun,
		run: func(r *Result) float64 { return float64(len(Saturations(r))) }},
	{Name: "commit_mean_ms", Unit: "ms", Label: "Commit mean (ms)", Doc: "transactions: a commit's time, from its start to its owner's end (transactions.commit_ms.mean; 0 without transactions)", Better: "lower",
		Objective: true, scope: scopeRun,
		run: func(r *Result) float64 {
			return tranFigure(r, func(t *TransactionStats) float64 { return t.CommitMS.Mean })
		}},
	{Name: "commit_p99_ms", Unit: "ms", Label: "Commit p99 (ms)", Doc: "transactions: a commit's time, 99th percentile", Better: "lower",
		Objective: true, scope: scopeRun,
		run: func(r *Result) float64 {
			return tranFigure(r, func(t *TransactionStats) float64 { return t.CommitMS.P99 })
		}},
	{Name: "aborted", Unit: "transactions", Label: "Transactions aborted", Doc: "transactions aborted, on their timeout or a failing owner (transactions.aborted)", Better: "lower",
		Objective: true, scope: scopeRun,
		run: func(r *Result) float64 {
			return tranFigure(r, func(t *TransactionStats) float64 { return float64(t.Aborted.Timeout + t.Aborted.Failed) })
		}},
	{Name: "qdepth_max", Unit: "messages", Label: "/Q depth max", Doc: "the largest depth of a /Q queue (qspaces[].queues[].depth.max; of a service: the queue named like it, whose messages its forwards carry)", Better: "lower",
		Objective: true, scope: scopeRun | scopeService,
		run: func(r *Result) float64 {
			return queueFigure(r, "", func(q *MsgQueueStats) float64 { return float64(q.Depth.Max) }, math.Max)
		},
		service: func(r *Result, s *ServiceStats) float64 {
			return queueFigure(r, s.Name, func(q *MsgQueueStats) float64 { return float64(q.Depth.Max) }, math.Max)
		}},
	{Name: "time_in_queue_mean_ms", Unit: "ms", Label: "/Q time in queue mean (ms)", Doc: "a forwarded /Q message's time in its queue, from storing to the forward that succeeded: mean over every queue's (of a service: the queue named like it)", Better: "lower",
		Objective: true, scope: scopeRun | scopeService,
		run:     func(r *Result) float64 { return timeInQueueMean(r, "") },
		service: func(r *Result, s *ServiceStats) float64 { return timeInQueueMean(r, s.Name) }},
	{Name: "time_in_queue_max_ms", Unit: "ms", Label: "/Q time in queue max (ms)", Doc: "a forwarded /Q message's longest time in its queue (of a service: the queue named like it)", Better: "lower",
		Objective: true, scope: scopeRun | scopeService,
		run: func(r *Result) float64 {
			return queueFigure(r, "", func(q *MsgQueueStats) float64 { return q.TimeInQueueMS.Max }, math.Max)
		},
		service: func(r *Result, s *ServiceStats) float64 {
			return queueFigure(r, s.Name, func(q *MsgQueueStats) float64 { return q.TimeInQueueMS.Max }, math.Max)
		}},
	{Name: "span_ms", Unit: "ms", Label: "Simulated span (ms)", Doc: "from time 0 to the last event (span_ms)",
		Summary: true, Headline: true, scope: scopeRun,
		run: func(r *Result) float64 { return r.SpanMS }},
}

// figureByName finds a figure by its name or an alias.
var figureByName = func() map[string]*FigureDef {
	m := map[string]*FigureDef{}
	for _, f := range figureTable {
		f.Scopes = nil
		for i, s := range []string{"run", "service", "machine"} {
			if f.scope&(1<<i) != 0 {
				f.Scopes = append(f.Scopes, s)
			}
		}
		m[f.Name] = f
		for _, a := range f.Aliases {
			m[a] = f
		}
	}
	return m
}()

// Figures returns the figures table, in display order (a copy).
func Figures() []FigureDef {
	out := make([]FigureDef, len(figureTable))
	for i, f := range figureTable {
		out[i] = *f
		out[i].Scopes = slices.Clone(f.Scopes)
		out[i].Aliases = slices.Clone(f.Aliases)
	}
	return out
}

// FigureRef names one figure of a result: a figure of the table (or a
// failure reason's count, failed.REASON), for the whole run, a service or a
// machine. Its String is the canonical name.
type FigureRef struct {
	Def     *FigureDef
	Reason  string // failed.REASON
	Service string // NAME[SERVICE]
	Machine string // NAME[machine:LMID]
}

// String is the canonical name: `response_p99_ms`, `failed.TPENOENT`,
// `response_p99_ms[INQUIRY]`, `utilization_max[machine:SITE2]`.
func (f FigureRef) String() string {
	s := f.Def.Name
	if f.Reason != "" {
		s += "." + f.Reason
	}
	switch {
	case f.Service != "":
		s += "[" + f.Service + "]"
	case f.Machine != "":
		s += "[machine:" + f.Machine + "]"
	}
	return s
}

// ParseFigure reads a figure's name: `NAME`, `NAME[SERVICE]`,
// `NAME[machine:LMID]`, `failed.REASON` (with or without a scope), or one of
// the names before engine 0.5.0 (`max_utilization`, `utilization.max`,
// `crossed_network`, `utilization.LMID`, `wait_ms.mean`...). An unknown
// figure, or a scope the figure does not have, is an EINVALID error.
func ParseFigure(text string) (FigureRef, error) {
	var ref FigureRef
	name, scope := strings.TrimSpace(text), ""
	if i := strings.IndexByte(name, '['); i >= 0 {
		if !strings.HasSuffix(name, "]") {
			return ref, diag.Errorf(diag.EINVALID, "figure %q: want NAME[SERVICE] or NAME[machine:LMID], with the ] at the end", text)
		}
		name, scope = name[:i], name[i+1:len(name)-1]
		if scope == "" || strings.ContainsAny(scope, "[]") {
			return ref, diag.Errorf(diag.EINVALID, "figure %q: want NAME[SERVICE] or NAME[machine:LMID]", text)
		}
	}
	def := figureByName[name]
	if def == nil {
		if reason, ok := strings.CutPrefix(name, "failed."); ok && reason != "" {
			def, ref.Reason = figureByName["failed"], reason
		} else if lmid, ok := strings.CutPrefix(name, "utilization."); ok && lmid != "" && scope == "" {
			def, scope = figureByName["utilization_mean"], "machine:"+lmid // the sweeps' name before 0.5.0
		}
	}
	if def == nil {
		return ref, diag.Errorf(diag.EINVALID, "figure %q: unknown figure %q (want one of %s, or failed.REASON)", text, name, strings.Join(figureNames(), ", "))
	}
	ref.Def = def
	if lmid, ok := strings.CutPrefix(scope, "machine:"); ok {
		ref.Machine = lmid
	} else {
		ref.Service = scope
	}
	switch {
	case ref.Machine == "" && ref.Service == "" && def.scope&scopeRun == 0:
		return ref, diag.Errorf(diag.EINVALID, "figure %q: %s is a machine's figure: want %s[machine:LMID]", text, def.Name, def.Name)
	case ref.Machine != "" && def.scope&scopeMachine == 0:
		return ref, diag.Errorf(diag.EINVALID, "figure %q: %s has no per-machine value (per machine: %s)", text, def.Name, strings.Join(scopedNames(scopeMachine), ", "))
	case ref.Service != "" && def.scope&scopeService == 0:
		return ref, diag.Errorf(diag.EINVALID, "figure %q: %s has no per-service value (per service: %s)", text, def.Name, strings.Join(scopedNames(scopeService), ", "))
	case strings.HasPrefix(scope, "machine:") && ref.Machine == "":
		return ref, diag.Errorf(diag.EINVALID, "figure %q: want NAME[machine:LMID]", text)
	}
	return ref, nil
}

func figureNames() []string {
	var out []string
	for _, f := range figureTable {
		out = append(out, f.Name)
	}
	return out
}

func scopedNames(s scope) []string {
	var out []string
	for _, f := range figureTable {
		if f.scope&s != 0 {
			out = append(out, f.Name)
		}
	}
	return out
}

// Check checks that the service or machine the figure names is in the
// model: an EINVALID error naming it otherwise.
func (f FigureRef) Check(m *ubb.Model) error {
	if f.Machine != "" {
		for _, mc := range m.Machines {
			if mc.LMID == f.Machine {
				return nil
			}
		}
		var ids []string
		for _, mc := range m.Machines {
			ids = append(ids, mc.LMID)
		}
		return diag.Errorf(diag.EINVALID, "figure %s: no machine %q in the UBBCONFIG (machines: %s)", f, f.Machine, strings.Join(ids, ", "))
	}
	if f.Service != "" {
		for _, s := range m.Services {
			if s.Name == f.Service {
				return nil
			}
		}
		var names []string
		for _, s := range m.Services {
			names = append(names, s.Name)
		}
		return diag.Errorf(diag.EINVALID, "figure %s: no service %q in the UBBCONFIG (services: %s)", f, f.Service, strings.Join(names, ", "))
	}
	return nil
}

// Of reads the figure from a result (0 for a service that had no requests).
func (f FigureRef) Of(r *Result) float64 {
	switch {
	case f.Service != "":
		for i := range r.Services {
			if s := &r.Services[i]; s.Name == f.Service {
				if f.Reason != "" {
					return float64(s.Failed[f.Reason])
				}
				return f.Def.service(r, s)
			}
		}
		return 0
	case f.Machine != "":
		return f.Def.machine(r, f.Machine)
	case f.Reason != "":
		return float64(r.Requests.Failed[f.Reason])
	}
	return f.Def.run(r)
}

// HeadlineFigures computes the result's headline: every figure of the table that
// is in it, for the whole run.
func HeadlineFigures(r *Result) map[string]float64 {
	h := make(map[string]float64, len(figureTable))
	for _, f := range figureTable {
		if f.Headline {
			h[f.Name] = round6(f.run(r))
		}
	}
	return h
}

func sumCounts(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func perSecond(r *Result, n int64) float64 {
	if span := r.SpanMS - r.WarmupMS; span > 0 {
		return float64(n) / span * 1000
	}
	return 0
}

func networkSent(r *Result) int64 {
	var n int64
	for _, m := range r.Machines {
		n += m.Sent
	}
	return n
}

func machineOf(r *Result, lmid string) MachineStats {
	for _, m := range r.Machines {
		if m.LMID == lmid {
			return m
		}
	}
	return MachineStats{}
}

// machineUtilization is the busiest (or the mean) utilization of the server
// instances on a machine; 0 when it has none.
func machineUtilization(r *Result, lmid string, busiest bool) float64 {
	var sum, top float64
	n := 0
	for i := range r.Servers {
		if s := &r.Servers[i]; s.LMID == lmid {
			sum += s.Utilization
			top = max(top, s.Utilization)
			n++
		}
	}
	switch {
	case n == 0:
		return 0
	case busiest:
		return top
	}
	return sum / float64(n)
}

// figuresMarkdown is the figures table as the Markdown table of
// docs/engine.md (a test keeps the two the same).
func figuresMarkdown() string {
	var b strings.Builder
	b.WriteString("| figure | unit | label | per | headline | summary | better | replications | sweeps | objective | how it is read | before 0.5.0 |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return ""
	}
	for _, f := range figureTable {
		var aliases []string
		for _, a := range f.Aliases {
			aliases = append(aliases, "`"+a+"`")
		}
		b.WriteString("| `" + f.Name + "` | " + f.Unit + " | " + f.Label + " | " + strings.Join(f.Scopes, ", ") + " | " +
			yes(f.Headline) + " | " + yes(f.Summary) + " | " + f.Better + " | " + yes(f.Replicated) + " | " + yes(f.Swept) + " | " + yes(f.Objective) + " | " +
			f.Doc + " | " + strings.Join(aliases, ", ") + " |\n")
	}
	return b.String()
}

// tranFigure is f of r's transactions, 0 when r has none.
func tranFigure(r *Result, f func(*TransactionStats) float64) float64 {
	if r.Transactions == nil {
		return 0
	}
	return f(r.Transactions)
}

// queueFigure combines f over r's /Q queues (those named name, or all when
// name is ""); 0 when there is none.
func queueFigure(r *Result, name string, f func(*MsgQueueStats) float64, combine func(a, b float64) float64) float64 {
	out, any := 0.0, false
	for i := range r.QSpaces {
		for j := range r.QSpaces[i].Queues {
			q := &r.QSpaces[i].Queues[j]
			if name != "" && q.Name != name {
				continue
			}
			if v := f(q); any {
				out = combine(out, v)
			} else {
				out, any = v, true
			}
		}
	}
	return out
}

// timeInQueueMean is the mean time in queue over the forwarded messages of
// r's /Q queues (those named name, or all when name is "").
func timeInQueueMean(r *Result, name string) float64 {
	n := queueFigure(r, name, func(q *MsgQueueStats) float64 { return float64(q.TimeInQueueMS.Count) }, func(a, b float64) float64 { return a + b })
	if n == 0 {
		return 0
	}
	sum := queueFigure(r, name, func(q *MsgQueueStats) float64 { return q.TimeInQueueMS.Mean * float64(q.TimeInQueueMS.Count) }, func(a, b float64) float64 { return a + b })
	return round6(sum / n)
}
