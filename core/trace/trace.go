// Package trace reads request logs: CSV in the trace format (time_ms,
// service, origin, service_ms, prio, id, route, buftype), or a production log as it
// comes, its columns found by their common names or a mapping, its times
// date-times or epoch numbers counted from the first row. Service names and
// LMIDs are resolved against a configuration's Model, so an error names the
// row, the column and what the UBBCONFIG has instead. core compiles a
// scenario's trace_csv with it; the starter measures a log's rates with it.
package trace

import (
	"fmt"
	"strings"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/capped"
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
	colObserved
	colStatus
	numCols
)

// traceColumns are the standard column names of trace_csv.
var traceColumns = [numCols]string{"time_ms", "service", "origin", "service_ms", "prio", "id", "route", "buftype", "observed_ms", "status"}

// Columns maps the columns of a foreign request log onto trace fields, and
// says the unit of its times (scenario.TraceMap, the scenario's
// workload.columns, converts to it). An empty field is not mapped.
type Columns struct {
	Time        string // column holding the issue time
	TimeUnit    string // ms, s, us, ns, rfc3339 or datetime; "": from the column's name or its first cell
	Service     string // column holding the service name
	Origin      string // column holding the LMID
	ServiceMS   string // column holding the service time
	ServiceUnit string // ms (default), s or us
	Prio        string
	ID          string
	Route       string // column holding the routing value
	BufType     string // column holding the buffer type
	Delimiter   string // one character; "": a comma, or the header's semicolon, tab or bar
	Observed    string // column holding the response time the log observed (ms)
	DateOrder   string // dmy or mdy: dates written with the year last; "": decided by the data
	TZ          string // zone of times written without one (LoadZone); "": UTC
	Status      string // column holding each request's outcome (ReadStatus)
	// DrawServiceTimes leaves the log's service time column unread (its
	// cells are ignored, the column is listed as ignored): every row's
	// service time is drawn from its service's distribution. A replay that
	// judges a model's service times (calibrate) sets it, or the log's own
	// times would be replayed and the model's never used.
	DrawServiceTimes bool
}

// Request is one row of a log, its names resolved.
type Request struct {
	Row       int    // 1-based, the header and blank lines not counted
	TimeUS    int64  // issue time, from 0 or from the first row's time
	Service   int    // index into Model.Services
	Origin    int    // index into Model.Machines
	ServiceUS int64  // -1 when not given
	Prio      int    // 0 when not given
	ID        string // "" when not given
	Route     string // the routing value as written, "" when not given
	BufType   string // the buffer type as written (a valid one), "" when not given
	// ObservedUS is the response time the log observed, -1 when not given.
	ObservedUS int64
	// Status is the outcome the log's status column gives the row:
	// StatusOK (also when the log has none), StatusFailed or
	// StatusNotSent (ReadStatus).
	Status Status
	// Queue is the /Q queue a row's enqueue stores its message in: k > 0
	// is Model.MsgQueues[k-1] (and Service its queue space); 0 for a row
	// that is no enqueue.
	Queue int32
}

// Resolver resolves the names a row gives. Each method returns a problem
// worded to follow the field's name, "" when there is none. *Names is one;
// core's adds the services whose rows must carry a service time.
type Resolver interface {
	// Service resolves a service name to its index.
	Service(name string) (int, string)
	// Origin resolves an LMID to its machine's index, "" meaning the
	// default origin.
	Origin(lmid string) (int, string)
	// Untimed says why a row of service s needs a service time, "" when it
	// does not.
	Untimed(s int) string
	// Enqueue resolves an enqueue's "QSPACE:Q" to its queue space's
	// service and its queue (1 + its index in Model.MsgQueues).
	Enqueue(target string) (service int, queue int32, problem string)
}

// Names resolves the service names and LMIDs of a Model.
type Names struct {
	m        *ubb.Model
	services map[string]int
	machines map[string]int
	// aliases are the other names of a machine: its LMID in lower case, its
	// address name (*MACHINES' PMID) as written, in lower case and without
	// its domain; -1 for a name two machines share.
	aliases map[string]int
	origin  int
}

// NewNames returns the names of m. The default origin is the MASTER
// machine, else the only machine, else none.
func NewNames(m *ubb.Model) *Names {
	n := &Names{m: m, services: make(map[string]int, len(m.Services)), machines: make(map[string]int, len(m.Machines)), origin: -1}
	for i, s := range m.Services {
		n.services[s.Name] = i
	}
	for i, mc := range m.Machines {
		n.machines[mc.LMID] = i
	}
	n.aliases = make(map[string]int, 3*len(m.Machines))
	alias := func(name string, i int) {
		if name == "" {
			return
		}
		if j, ok := n.aliases[name]; ok && j != i {
			i = -1
		}
		n.aliases[name] = i
	}
	for i, mc := range m.Machines {
		alias(strings.ToLower(mc.LMID), i)
		for _, f := range HostForms(mc.PMID) {
			alias(f, i)
		}
	}
	if i, ok := n.machines[m.Master]; ok && m.Master != "" {
		n.origin = i
	} else if len(m.Machines) == 1 {
		n.origin = 0
	}
	return n
}

// HostForms are the names a host is matched by against *MACHINES, the
// same way wherever a host name is read (a trace's origin column, a ULOG's
// tags): as written, in lower case, and its short name (before the first
// dot) in lower case. A machine is known by the forms of its address name
// and by its LMID in lower case (NewNames).
func HostForms(host string) [3]string {
	lower := strings.ToLower(host)
	short, _, _ := strings.Cut(lower, ".")
	return [3]string{host, lower, short}
}

// DefaultOrigin returns the index of the machine requests come from when
// they name none, -1 when there is no default.
func (n *Names) DefaultOrigin() int { return n.origin }

// ServiceIndex returns the index of the service named name, if there is one.
func (n *Names) ServiceIndex(name string) (int, bool) {
	i, ok := n.services[name]
	return i, ok
}

// Service resolves a service name; the message follows the field name
// (the name cut to capped.Max where it is quoted).
func (n *Names) Service(name string) (int, string) {
	if name == "" {
		return 0, "missing"
	}
	if i, ok := n.services[name]; ok {
		return i, ""
	}
	for _, s := range n.m.Services {
		if strings.EqualFold(s.Name, name) {
			return 0, fmt.Sprintf("unknown service %q (service names are case-sensitive: did you mean %s?)", capped.Text(name), s.Name)
		}
	}
	return 0, fmt.Sprintf("unknown service %q", capped.Text(name))
}

// Origin resolves an origin machine, "" meaning the default one.
func (n *Names) Origin(name string) (int, string) {
	if name == "" {
		if n.origin < 0 {
			return 0, "missing, and there is no default (no MASTER machine, and more than one machine)"
		}
		return n.origin, ""
	}
	if i, ok := n.machines[name]; ok {
		return i, ""
	}
	for _, a := range HostForms(name) {
		switch i, ok := n.aliases[a]; {
		case ok && i >= 0:
			return i, ""
		case ok:
			return 0, fmt.Sprintf("%q names more than one machine (as a host or in another case): give the LMID (the UBBCONFIG has %s)", capped.Text(name), machineList(n.m))
		}
	}
	return 0, fmt.Sprintf("unknown LMID %q (the UBBCONFIG has %s)", capped.Text(name), machineList(n.m))
}

// Enqueue resolves an enqueue's "QSPACE:Q": the queue space's service (the
// service its TMQUEUE servers advertise) and the queue, 1 + its index in
// Model.MsgQueues.
func (n *Names) Enqueue(target string) (int, int32, string) {
	qspace, queue, ok := strings.Cut(target, ":")
	if !ok || qspace == "" || queue == "" {
		return 0, 0, fmt.Sprintf("%q: want QSPACE:QUEUE (a queue space and one of its queues)", capped.Text(target))
	}
	k := n.m.MsgQueueIndex(qspace, queue)
	if k < 0 {
		return 0, 0, fmt.Sprintf("%q: the scenario's qspaces have no queue %s in queue space %s", capped.Text(target), capped.Text(queue), capped.Text(qspace))
	}
	s, msg := n.Service(qspace)
	if msg != "" {
		return 0, 0, fmt.Sprintf("%q: no TMQUEUE advertises queue space %s", capped.Text(target), capped.Text(qspace))
	}
	return s, int32(k + 1), ""
}

// Untimed returns "": Names alone asks no row for a service time.
func (n *Names) Untimed(int) string { return "" }

// machineList words the LMIDs of m: "a, b and c".
func machineList(m *ubb.Model) string {
	switch len(m.Machines) {
	case 0:
		return "none"
	case 1:
		return m.Machines[0].LMID
	}
	out := m.Machines[0].LMID
	for _, mc := range m.Machines[1 : len(m.Machines)-1] {
		out += ", " + mc.LMID
	}
	return out + " and " + m.Machines[len(m.Machines)-1].LMID
}

// Error is a problem with a log: its header, its mapping or a row. Row
// (1-based, the header excluded) and Column (the trace field: time,
// service...) say where, when the problem is a row's; Why is the message
// without them.
type Error struct {
	msg         string
	Row         int
	Column, Why string
}

// Error returns the problem's words.
func (e *Error) Error() string { return e.msg }

// Diagnostic places the problem in the trace: its row and column when it is
// a row's ([diag.Positioned]).
func (e *Error) Diagnostic() diag.Diagnostic {
	d := diag.Diagnostic{Source: diag.SourceTrace, Severity: diag.SeverityError, Message: e.msg}
	if e.Row > 0 {
		d.Line, d.Field, d.Message = e.Row, e.Column, e.Why
	} else {
		d.Field = e.Column // a header's problem: the mapping that would fix it
	}
	return d
}

// columnError is the error of the header: the column of field f (time,
// service...) is missing; it names the mapping that would fix it,
// workload.columns.FIELD.
func columnError(f int, format string, args ...any) error {
	return &Error{msg: capped.Sprintf(format, args...), Column: "workload.columns." + mapField[f]}
}

// errorf is an *Error formatted by capped.Sprintf.
func errorf(format string, args ...any) error {
	return &Error{msg: capped.Sprintf(format, args...)}
}

// rowError is the error of row row (1-based, header excluded). msg quotes
// the row's cells cut to capped.Max where it quotes them; it is bounded as
// a whole by capped.MaxMessage, so that its own words (a suggestion at its
// end) are not cut as an input is.
func rowError(row int, field, msg string) error {
	field, msg = capped.Text(field), capped.Cut(msg, capped.MaxMessage)
	return &Error{msg: fmt.Sprintf("trace row %d: %s: %s", row, field, msg), Row: row, Column: field, Why: msg}
}
