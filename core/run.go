package core

import (
	"context"
	"encoding/json"
	"io"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/jsonx"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// EngineVersion names the dispatch rules and statistics a result was made by.
// Bump it whenever the same scenario could give different bytes.
const EngineVersion = "0.5.0"

// BytesPerInFlight is about what one request held by a run costs in memory:
// its 184-byte record (kept in pages that never move), its entries in the
// free list and the dispatch log's reorder ring, rounded up. BenchmarkBacklog
// measures it with a backlog of a million requests: 202 bytes of live heap
// per request held, 211 with a dispatch log. A memory budget divided by it
// gives RunOptions.MaxInFlight.
const BytesPerInFlight = 250

// DefaultMaxRequests bounds the size of one run unless RunOptions says otherwise.
const DefaultMaxRequests = 20_000_000

// RunOptions are the knobs of one run that are not part of the scenario.
type RunOptions struct {
	Policy      string    // overrides Scenario.Policy when not empty
	Seed        *uint64   // overrides Scenario.Seed when not nil
	Dispatch    io.Writer // receives the dispatch log (docs/engine.md) as the run goes; nil: none
	MaxRequests int64     // 0: DefaultMaxRequests
	// MaxInFlight bounds the requests held at once (waiting, in service, or
	// done but not yet written to the dispatch log): the run's memory grows
	// with them, about BytesPerInFlight each. 0: no limit.
	MaxInFlight int64
	// Context stops the run early (the result is then an ECANCELED error).
	// Checked every few thousand requests; nil means never.
	Context context.Context
	// Progress, when set, is called every few thousand requests with the
	// number issued so far and the expected total (0 when unknown).
	Progress func(done, total int64)
	// AllSeries keeps every line of the result's time series; without it,
	// a kind with more than 64 lines keeps the 64 busiest and one of the
	// others (Series.Summarised).
	AllSeries bool
}

// Run compiles the scenario (Compile) and runs it (Plan.Run): the
// workload through the event loop, every statistic.
//
// With Scenario.Replications = k > 1 it runs k times with seeds derived from
// the scenario's (ReplicationSeed) and returns the first run's result with
// the mean and 95% confidence interval of the headline figures.
func Run(sc *scenario.Scenario, opt RunOptions) (*Result, error) {
	if sc != nil && sc.Replications > MaxReplications {
		return nil, diag.FieldErrorf("replications", "%d is more than %d", sc.Replications, MaxReplications)
	}
	p, err := Compile(sc, opt)
	if err != nil {
		return nil, err
	}
	return p.Run(opt)
}

// stopped returns the ECANCELED error once opt's context is done: the steps
// before the event loop (setup, opening the workload) are bounded by their
// input, and the context is checked between them.
func stopped(opt RunOptions, while string) error {
	if ctx := opt.Context; ctx != nil {
		if err := ctx.Err(); err != nil {
			return diag.Errorf(diag.ECANCELED, "run canceled while %s: %v", while, err)
		}
	}
	return nil
}

// EncodeResult is the one encoding of a Result: indented JSON (2 spaces)
// and a newline. The CLI, the REST API and WASM all hand out these bytes.
func EncodeResult(r *Result) []byte {
	b, err := jsonx.MarshalIndent(r, resultSize(r))
	if err != nil {
		// A Result holds only strings, integers, finite floats, slices and
		// string-keyed maps, which always encode; report rather than panic.
		b, _ = json.Marshal(diag.Errorf(diag.EINTERNAL, "encode result: %v", err))
	}
	return append(b, '\n')
}

// resultSize is a generous guess at the size of r's encoding: about 20
// bytes per number of a series, 1 KB per server, queue, service or
// machine.
func resultSize(r *Result) int {
	s := &r.Series
	lines := 1 + len(s.Queue) + len(s.Util) + len(s.Dispatch) + len(s.Counters) + len(s.Failures)
	return 4096 + 20*len(s.StartMS)*lines + 20*len(s.ResetsMS) +
		1024*(len(r.Servers)+len(r.Queues)+len(r.Services)+len(r.Machines)) +
		128*(len(r.Lifecycle)+len(r.Warnings))
}

// Explanation tells why request Seq went where it went: every candidate the
// rule looked at, what it saw, and which rule picked the winner.
type Explanation struct {
	Seq       int64  `json:"seq"` // 1-based issue order
	ID        string `json:"id"`  // the dispatch log's id
	Service   string `json:"service"`
	Origin    string `json:"origin"`
	IssueUS   int64  `json:"issue_us"`
	Policy    string `json:"policy"`    // tuxedo, round_robin, ...
	Algorithm string `json:"algorithm"` // "LDBAL=N", "SHM real-time", "MP round-robin", or the policy
	Rule      string `json:"rule"`      // the dispatch log's reason: first, idle, least-load, TPENOENT, ...
	Winner    string `json:"winner"`    // queue name, "" on failure
	Server    string `json:"server"`    // instance that will process it
	// Routing is the data-dependent routing step, for a service with a
	// routing criterion: it runs before the rule and leaves Candidates.
	Routing    *RoutingStep `json:"routing,omitempty"`
	Candidates []Candidate  `json:"candidates"`
	Text       string       `json:"text"` // the decision in a few sentences, for people
	// Failure says why the request failed after it reached a queue
	// (TPESVCERR): which instance crashed or timed out, or that its queue
	// lost its last instance; for TPESVCFAIL, which of its nested requests
	// failed, with which code, or timed out. Empty when it completed.
	Failure string `json:"failure,omitempty"`
	// Parent is, for a nested request, the id of the calling request, and
	// IssuedBy the instance that issued it (its machine is Origin).
	Parent   string `json:"parent,omitempty"`
	IssuedBy string `json:"issued_by,omitempty"`
	// Mode is how the nested request was issued: tpcall, tpacall, tpforward.
	Mode string `json:"mode,omitempty"`
}

// RoutingStep is how data-dependent routing restricted a request's
// candidates: its value, the range that held it, the group it names.
type RoutingStep struct {
	Criterion string `json:"criterion"`
	Field     string `json:"field"`
	Value     string `json:"value"`           // "" when the request carries none
	Range     string `json:"range,omitempty"` // the range that held the value, as written with its group: "10000-49999:BANKB1"
	Group     string `json:"group,omitempty"` // the group whose servers remain ("*": any group)
	// Fallback says the range's group had no candidate, so the catch-all's
	// group was used.
	Fallback   bool `json:"fallback,omitempty"`
	Candidates int  `json:"candidates"` // instances left
	// BufType is the request's buffer type ("" when it gives none); when
	// the criterion has several entries that differ by BUFTYPE, EntryLine
	// is the line of the one it picked, and NoEntry says none holds it.
	BufType   string `json:"buftype,omitempty"`
	EntryLine int    `json:"entry_line,omitempty"`
	NoEntry   bool   `json:"no_entry,omitempty"`
}

// Candidate is one instance that advertises the requested service, as the
// dispatch rule saw it at the moment of the choice.
type Candidate struct {
	Server  string `json:"server"`
	Queue   string `json:"queue"`
	LMID    string `json:"lmid"`
	Local   bool   `json:"local"` // on the origin machine
	Idle    bool   `json:"idle"`
	Servers int    `json:"n"`                 // n(q)
	Waiting int    `json:"waiting"`           // requests waiting in its queue
	Work    int64  `json:"work,omitempty"`    // SHM: W(q)
	Counter int64  `json:"counter,omitempty"` // MP: C_m(q)
	Load    int    `json:"load"`              // L(s,q)
	NetLoad int    `json:"netload"`           // N(q) as applied
	Cost    string `json:"cost,omitempty"`    // exact cost, e.g. "150/2+50 = 125"
	Chosen  bool   `json:"chosen"`
	Note    string `json:"note,omitempty"` // why it lost or won, in words
	// State is the instance's life-cycle state when the choice was made (up,
	// down, restarting), in runs where instances change state.
	State string `json:"state,omitempty"`
}

// Explain returns the explanations of requests first..first+count-1 (1-based
// issue order) of the scenario's run: Compile, then Plan.Explain.
func Explain(sc *scenario.Scenario, opt RunOptions, first, count int64) ([]Explanation, error) {
	if err := checkExplainRange(first, count); err != nil {
		return nil, err
	}
	p, err := Compile(sc, opt)
	if err != nil {
		return nil, err
	}
	return p.Explain(opt, first, count)
}

// checkExplainRange checks the requests an explanation asks for.
func checkExplainRange(first, count int64) error {
	if first < 1 || count < 1 || count > MaxExplain {
		return diag.FieldErrorf("explain", "want request number >= 1 and 1..%d requests, got %d and %d", MaxExplain, first, count)
	}
	return nil
}

// MaxExplain bounds how many requests one Explain call describes.
const MaxExplain = 1000

// explainRun runs until request first+count-1 has been dispatched,
// capturing the explanations on the way.
func explainRun(setup *runSetup, reqs requestStream, sopt simOptions, first, count int64) ([]Explanation, error) {
	x := &explainer{first: first, last: first + count - 1}
	sopt.explain = x
	sopt.Dispatch = nil
	e, err := newEngine(setup, reqs, sopt)
	if err != nil {
		return nil, err
	}
	if err := e.loop(); err != nil {
		return nil, err
	}
	if len(x.out) == 0 {
		return nil, diag.Errorf(diag.ENOTFOUND, "explain: request %d does not exist (the workload has %d requests)", first, e.issued)
	}
	return x.out, nil
}
