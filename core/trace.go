package core

import (
	"cmp"
	"slices"
	"strings"

	"github.com/tuxlb/tuxlb/core/ubb"
)

// Trace fields, in the order of traceColumns.
const (
	colTime = iota
	colService
	colOrigin
	colServiceMS
	colPrio
	colID
	colRoute
	colBufType
	numCols
)

// traceColumns are the standard column names of trace_csv.
var traceColumns = [numCols]string{"time_ms", "service", "origin", "service_ms", "prio", "id", "route", "buftype"}

// names resolves service names and LMIDs of a model to indexes.
type names struct {
	m        *Model
	services map[string]int
	machines map[string]int
	origin   int // the default origin: MASTER, else the only machine, else -1
	// needMS[s] is set when service s has no distribution for some group that
	// may serve it (group needGroup[s]): its requests must carry service_ms.
	needMS    []bool
	needGroup []string
	// crit[s] is the routing criterion of service s, nil when it has none
	// (its first entry, when several differ by BUFTYPE); sets[s] all of
	// its entries.
	crit []*ubb.Criterion
	sets []*critSet
	bufs *bufTable // the model's buffer types
}

// untimed words the problem of a request of service s without service_ms, or
// returns "" when s has a distribution wherever it may be served.
func (n *names) untimed(s int) string {
	if n.needMS == nil || !n.needMS[s] {
		return ""
	}
	return sprintf("missing; service %s has no service_time for group %s (give services.%s.service_time)",
		n.m.Services[s].Name, n.needGroup[s], n.m.Services[s].Name)
}

func newNames(m *Model) *names {
	n := &names{m: m, services: map[string]int{}, machines: map[string]int{}, origin: -1}
	n.crit, n.sets, n.bufs = make([]*ubb.Criterion, len(m.Services)), make([]*critSet, len(m.Services)), newBufTable(m)
	for i, s := range m.Services {
		n.services[s.Name] = i
		if s.Routing != "" {
			n.crit[i] = m.Criterion(s.Routing)
			n.sets[i] = newCritSet(m, s.Routing)
		}
	}
	for i, mc := range m.Machines {
		n.machines[mc.LMID] = i
	}
	if i, ok := n.machines[m.Master]; ok && m.Master != "" {
		n.origin = i
	} else if len(m.Machines) == 1 {
		n.origin = 0
	}
	return n
}

// service resolves a service name; the message follows the field name.
func (n *names) service(name string) (int, string) {
	if name == "" {
		return 0, "missing"
	}
	if i, ok := n.services[name]; ok {
		return i, ""
	}
	for _, s := range n.m.Services {
		if strings.EqualFold(s.Name, name) {
			return 0, sprintf("unknown service %q (service names are case-sensitive: did you mean %s?)", name, s.Name)
		}
	}
	return 0, sprintf("unknown service %q", name)
}

// lmid resolves an origin machine, "" meaning the default one.
func (n *names) lmid(name string) (int, string) {
	if name == "" {
		if n.origin < 0 {
			return 0, "missing, and there is no default (no MASTER machine, and more than one machine)"
		}
		return n.origin, ""
	}
	if i, ok := n.machines[name]; ok {
		return i, ""
	}
	return 0, sprintf("unknown LMID %q (the UBBCONFIG has %s)", name, machineList(n.m))
}

// rowError is the error of trace row row (1-based, header excluded).
func rowError(row int, field, msg string) error {
	return Errorf(EINVALID, "trace row %d: %s: %s", row, field, msg)
}

// sortTrace orders trace requests by time, keeping row order for ties.
func sortTrace(reqs []request) {
	slices.SortStableFunc(reqs, func(a, b request) int { return cmp.Compare(a.TimeUS, b.TimeUS) })
}

// traceJSON compiles the JSON rows of workload.trace, sorted by time, each
// request's Key holding its row number (0-based), as traceCSV does.
func traceJSON(n *names, rows []TraceRow) ([]request, error) {
	reqs := make([]request, 0, len(rows))
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

func traceJSONRow(n *names, row *TraceRow, num int) (request, error) {
	r := request{ID: row.ID, ServiceUS: -1}
	if row.TimeMS == nil {
		return r, rowError(num, "time_ms", "missing")
	}
	t, err := msValueToUS(*row.TimeMS)
	if msg := timeProblem(t, err); msg != "" {
		return r, rowError(num, "time_ms", msg)
	}
	r.TimeUS = t
	var msg string
	if r.Service, msg = n.service(row.Service); msg != "" {
		return r, rowError(num, "service", msg)
	}
	if r.Origin, msg = n.lmid(row.Origin); msg != "" {
		return r, rowError(num, "origin", msg)
	}
	if row.ServiceMS != nil {
		us, err := msValueToUS(*row.ServiceMS)
		if msg := timeProblem(us, err); msg != "" {
			return r, rowError(num, "service_ms", msg)
		}
		r.ServiceUS = us
	} else if msg := n.untimed(r.Service); msg != "" {
		return r, rowError(num, "service_ms", msg)
	}
	if row.Prio != nil {
		if *row.Prio < 1 || *row.Prio > 100 {
			return r, rowError(num, "prio", sprintf("must be between 1 and 100, got %d", *row.Prio))
		}
		r.Prio = *row.Prio
	}
	if row.BufType != "" {
		if msg := ubb.CheckBufType(row.BufType); msg != "" {
			return r, rowError(num, "buftype", msg)
		}
		r.Buf = n.bufs.index(row.BufType)
	}
	if row.Route != nil {
		r.RouteVal = string(*row.Route)
	}
	n.route(&r)
	return r, nil
}

// route resolves r's buffer type and routing value against its service's
// criterion.
func (n *names) route(r *request) {
	if cs := n.sets[r.Service]; cs != nil && (r.RouteVal != "" || r.Buf != 0) {
		r.Route = cs.route(n.bufs, r.Buf, r.RouteVal)
	}
}

// timeProblem words a converted time's problem: not a number, too large or
// negative; "" when it is fine.
func timeProblem(us int64, err error) string {
	if err != nil {
		return err.Error()
	}
	if us < 0 {
		return "must be >= 0"
	}
	return ""
}

// requestKey is the random key of the n-th request (0-based) of a source:
// source 0 is the trace (n is its row), source i+1 is generated stream i.
// It depends on nothing else, so every variant of a scenario sees the same key.
func requestKey(seed, source, n uint64) uint64 {
	return mix64(keyBase(seed, source) ^ n)
}

// keyBase is the part of requestKey that does not change along a source.
func keyBase(seed, source uint64) uint64 {
	return mix64(seed^0x6a09e667f3bcc909) ^ mix64(source+0xbb67ae8584caa73b)
}

// mix64 is the splitmix64 finaliser: a bijection that scatters every input bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
