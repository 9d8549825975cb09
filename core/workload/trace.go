package workload

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/capped"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/trace"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// Names resolves service Names and LMIDs of a model to indexes (trace.Names),
// knows which services' requests must carry service_ms, and resolves routing
// values.
type Names struct {
	*trace.Names
	m *ubb.Model
	// NeedMS[s] is set when service s has no distribution for some group that
	// may serve it (group needGroup[s]): its requests must carry service_ms.
	NeedMS    []bool
	NeedGroup []string
	// Crit[s] is the routing criterion of service s, nil when it has none
	// (its first entry, when several differ by BUFTYPE); sets[s] all of
	// its entries.
	Crit []*ubb.Criterion
	Sets []*CritSet
	Bufs *BufTable // the model's buffer types
}

// Untimed words the problem of a request of service s without service_ms, or
// returns "" when s has a distribution wherever it may be served.
func (n *Names) Untimed(s int) string {
	if n.NeedMS == nil || !n.NeedMS[s] {
		return ""
	}
	return fmt.Sprintf("missing; service %s has no service_time for group %s (give services.%s.service_time)",
		n.m.Services[s].Name, n.NeedGroup[s], n.m.Services[s].Name)
}

func NewNames(m *ubb.Model) *Names {
	n := &Names{Names: trace.NewNames(m), m: m}
	n.Crit, n.Sets, n.Bufs = make([]*ubb.Criterion, len(m.Services)), make([]*CritSet, len(m.Services)), NewBufTable(m)
	for i, s := range m.Services {
		if s.Routing != "" {
			n.Crit[i] = m.Criterion(s.Routing)
			n.Sets[i] = NewCritSet(m, s.Routing)
		}
	}
	return n
}

// scaleTrace divides the issue times of a trace by factor, rounded to the
// microsecond: the same requests, played factor times faster. Dividing
// keeps the order, ties included.
func scaleTrace(reqs []Request, factor float64) {
	for i := range reqs {
		reqs[i].TimeUS = int64(math.Round(float64(reqs[i].TimeUS) / factor))
	}
}

// scaledTime is a trace time (us) as trace_rate_scale plays it: divided by
// scale and rounded to the microsecond, as scaleTrace and the feed do.
func scaledTime(us int64, scale float64) int64 { return int64(math.Round(float64(us) / scale)) }

// scaledPast is the error of trace row row, at us in the trace, that a
// trace_rate_scale below 1 plays past the longest simulated time.
func scaledPast(row int, us int64, scale float64) error {
	return diag.FieldErrorf("workload.trace_rate_scale", "%v plays trace row %d (at %s ms in the trace) at %s ms, past the longest simulated time (%s)",
		scale, row, usec.FormatMS(us), usec.FormatMS(scaledTime(us, scale)), usec.MaxText)
}

// firstScaledPast is scaledPast of the first row of reqs (compiled rows,
// Key the 0-based row number) that scale plays past the longest simulated
// time, nil when none is.
func firstScaledPast(reqs []Request, scale float64) error {
	first := -1
	for i := range reqs {
		if scaledTime(reqs[i].TimeUS, scale) > usec.Max && (first < 0 || reqs[i].Key < reqs[first].Key) {
			first = i
		}
	}
	if first < 0 {
		return nil
	}
	return scaledPast(int(reqs[first].Key)+1, reqs[first].TimeUS, scale)
}

// rowError is the error of trace row row (1-based, header excluded).
func rowError(row int, field, msg string) error {
	field, msg = capped.Text(field), capped.Text(msg)
	return &diag.Error{Code: diag.EINVALID, Message: fmt.Sprintf("trace row %d: %s: %s", row, field, msg),
		Diagnostics: []ubb.Diagnostic{{Source: ubb.SourceTrace, Line: row, Field: field, Severity: ubb.SeverityError, Message: msg}}}
}

// sortTrace orders trace requests by time, keeping row order for ties.
func sortTrace(reqs []Request) {
	slices.SortStableFunc(reqs, func(a, b Request) int { return cmp.Compare(a.TimeUS, b.TimeUS) })
}

// traceJSON compiles the JSON rows of workload.trace, sorted by time, each
// request's Key holding its row number (0-based), as traceCSV does.
func traceJSON(n *Names, rows []scenario.TraceRow) ([]Request, error) {
	reqs := make([]Request, 0, len(rows))
	for i, row := range rows {
		r, err := traceJSONRow(n, &row, i+1)
		if err != nil {
			return nil, err
		}
		r.Key = uint64(i) // the row number, keyed by the merger
		reqs = append(reqs, r)
	}
	sortTrace(reqs)
	return reqs, nil
}

func traceJSONRow(n *Names, row *scenario.TraceRow, num int) (Request, error) {
	r := Request{ID: row.ID, ServiceUS: -1}
	if row.TimeMS == nil {
		return r, rowError(num, "time_ms", "missing")
	}
	t, err := usec.FromMSValue(*row.TimeMS)
	if msg := usec.Problem(t, err); msg != "" {
		return r, rowError(num, "time_ms", msg)
	}
	r.TimeUS = t
	var msg string
	if row.Enqueue != "" {
		if r.Service, r.Queue, msg = n.Enqueue(row.Enqueue); msg != "" {
			return r, rowError(num, "enqueue", msg)
		}
	} else if r.Service, msg = n.Service(row.Service); msg != "" {
		return r, rowError(num, "service", msg)
	}
	if r.Origin, msg = n.Origin(row.Origin); msg != "" {
		return r, rowError(num, "origin", msg)
	}
	if row.ServiceMS != nil {
		us, err := usec.FromMSValue(*row.ServiceMS)
		if msg := usec.Problem(us, err); msg != "" {
			return r, rowError(num, "service_ms", msg)
		}
		r.ServiceUS = us
	} else if msg := n.Untimed(r.Service); msg != "" && r.Queue == 0 {
		return r, rowError(num, "service_ms", msg)
	}
	if row.Prio != nil {
		if *row.Prio < 1 || *row.Prio > 100 {
			return r, rowError(num, "prio", fmt.Sprintf("must be between 1 and 100, got %d", *row.Prio))
		}
		r.Prio = *row.Prio
	}
	if row.BufType != "" {
		if msg := ubb.CheckBufType(row.BufType); msg != "" {
			return r, rowError(num, "buftype", msg)
		}
		r.Buf = n.Bufs.Index(row.BufType)
	}
	if row.Route != nil {
		r.RouteVal = string(*row.Route)
	}
	n.route(&r)
	return r, nil
}

// route resolves r's buffer type and routing value against its service's
// criterion.
func (n *Names) route(r *Request) {
	if cs := n.Sets[r.Service]; cs != nil && (r.RouteVal != "" || r.Buf != 0) {
		r.Route = cs.Route(n.Bufs, r.Buf, r.RouteVal)
	}
}

// requestKey is the random key of the n-th request (0-based) of a source:
// source 0 is the trace (n is its row), source i+1 is generated stream i.
// It depends on nothing else, so every variant of a scenario sees the same key.
func requestKey(seed, source, n uint64) uint64 {
	return Mix64(KeyBase(seed, source) ^ n)
}

// KeyBase is the part of requestKey that does not change along a source.
func KeyBase(seed, source uint64) uint64 {
	return Mix64(seed^0x6a09e667f3bcc909) ^ Mix64(source+0xbb67ae8584caa73b)
}

// Mix64 is the splitmix64 finaliser: a bijection that scatters every input bit.
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
