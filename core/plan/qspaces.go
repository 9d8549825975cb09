package plan

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/workload"
)

// This file checks and compiles /Q: the scenario's qspaces and its
// enqueues (docs/scenario.md, "/Q: queue spaces and enqueues"), and the
// TMQFORWARD servers that drain the queues (QPlan).

// maxQRetries bounds a queue's retries.
const maxQRetries = math.MaxInt32

// enqueueUse is one place a scenario enqueues: its field and "QSPACE:Q".
type enqueueUse struct {
	field, target string
}

// enqueues lists the scenario's enqueues in document order: the trace's
// rows, the streams, the client scripts, then the services' call steps (by
// service name).
func enqueues(sc *scenario.Scenario) []enqueueUse {
	var out []enqueueUse
	for i, r := range sc.Workload.Trace {
		if r.Enqueue != "" {
			out = append(out, enqueueUse{fmt.Sprintf("workload.trace[%d].enqueue", i), r.Enqueue})
		}
	}
	if g := sc.Workload.Generate; g != nil {
		for i, s := range g.Streams {
			if s.Enqueue != "" {
				out = append(out, enqueueUse{fmt.Sprintf("workload.generate.streams[%d].enqueue", i), s.Enqueue})
			}
		}
		for k, cs := range g.Clients {
			for j, e := range cs.Script {
				if e.Enqueue != "" {
					out = append(out, enqueueUse{fmt.Sprintf("workload.generate.clients[%d].script[%d].enqueue", k, j), e.Enqueue})
				}
			}
		}
	}
	for _, name := range slices.Sorted(mapKeys(sc.Services)) {
		for j, c := range sc.Services[name].Calls {
			if c.Enqueue != "" {
				out = append(out, enqueueUse{fmt.Sprintf("services.%s.calls[%d].enqueue", name, j), c.Enqueue})
			}
		}
	}
	return out
}

// checkQSpaces checks what of /Q needs no model: every queue space's
// queues, retries, retry delay, error queue and enqueue time, and every
// enqueue's "QSPACE:Q" against them (given instead of a service).
func checkQSpaces(sc *scenario.Scenario) error {
	for _, name := range slices.Sorted(mapKeys(sc.QSpaces)) {
		qs := sc.QSpaces[name]
		field := "qspaces." + name
		if name == "" || strings.ContainsAny(name, ": ") {
			return diag.FieldErrorf(field, "%q is not a queue space name (the name a TMQUEUE advertises with -s QSPACE:TMQUEUE)", name)
		}
		if len(qs.Queues) == 0 {
			return diag.FieldErrorf(field+".queues", "want at least one queue")
		}
		for _, q := range slices.Sorted(mapKeys(qs.Queues)) {
			spec := qs.Queues[q]
			qf := field + ".queues." + q
			if q == "" || strings.ContainsAny(q, ": ,") {
				return diag.FieldErrorf(qf, "%q is not a queue name", q)
			}
			if r := spec.Retries; r != nil && (*r < 0 || *r > maxQRetries) {
				return diag.FieldErrorf(qf+".retries", "must be a whole number from 0 to %d, got %d", maxQRetries, *r)
			}
			if d := spec.RetryDelayMS; d != nil {
				if _, err := nonNegativeMS(qf+".retry_delay_ms", *d); err != nil {
					return err
				}
			}
		}
		if e := qs.ErrorQueue; e != "" {
			if _, ok := qs.Queues[e]; !ok {
				return diag.FieldErrorf(field+".error_queue", "%s is not a queue of queue space %s (its queues: %s)", e, name, strings.Join(slices.Sorted(mapKeys(qs.Queues)), ", "))
			}
		}
		if qs.EnqueueTime != nil {
			if _, err := dist.New(qs.EnqueueTime, field+".enqueue_time"); err != nil {
				return err
			}
		}
	}
	if err := checkEnqueueFields(sc); err != nil {
		return err
	}
	for _, u := range enqueues(sc) {
		qspace, queue, ok := strings.Cut(u.target, ":")
		if !ok || qspace == "" || queue == "" {
			return diag.FieldErrorf(u.field, "%q: want QSPACE:QUEUE (a queue space and one of its queues)", u.target)
		}
		qs, ok := sc.QSpaces[qspace]
		if !ok {
			return diag.FieldErrorf(u.field, "%q: qspaces has no queue space %s (give qspaces.%s.queues.%s)", u.target, qspace, qspace, queue)
		}
		if _, ok := qs.Queues[queue]; !ok {
			return diag.FieldErrorf(u.field, "%q: queue space %s has no queue %s (its queues: %s)", u.target, qspace, queue, strings.Join(slices.Sorted(mapKeys(qs.Queues)), ", "))
		}
	}
	return nil
}

// checkEnqueueFields checks that an enqueue stands instead of a service,
// and that an enqueue call step is a tpcall.
func checkEnqueueFields(sc *scenario.Scenario) error {
	both := func(field string) error {
		return diag.FieldErrorf(field, "give service or enqueue, not both")
	}
	for i, r := range sc.Workload.Trace {
		if r.Enqueue != "" && (r.Service != "" || r.ServiceMS != nil) {
			if r.Service == "" {
				return diag.FieldErrorf(fmt.Sprintf("workload.trace[%d].service_ms", i), "an enqueue's time is its queue space's enqueue_time: leave service_ms out")
			}
			return both(fmt.Sprintf("workload.trace[%d]", i))
		}
	}
	if g := sc.Workload.Generate; g != nil {
		for i, s := range g.Streams {
			if s.Enqueue != "" && s.Service != "" {
				return both(fmt.Sprintf("workload.generate.streams[%d]", i))
			}
		}
		for k, cs := range g.Clients {
			for j, e := range cs.Script {
				if e.Enqueue != "" && e.Service != "" {
					return both(fmt.Sprintf("workload.generate.clients[%d].script[%d]", k, j))
				}
			}
		}
	}
	for _, name := range slices.Sorted(mapKeys(sc.Services)) {
		for j, c := range sc.Services[name].Calls {
			field := fmt.Sprintf("services.%s.calls[%d]", name, j)
			switch {
			case c.Enqueue == "":
			case c.Service != "":
				return both(field)
			case c.Mode != "" && c.Mode != "tpcall" || c.NoReply:
				return diag.FieldErrorf(field+".mode", "an enqueue step is a tpcall (leave mode and noreply out)")
			}
		}
	}
	return nil
}

// CheckQSpaces checks the scenario's /Q against its model: every queue
// space of qspaces is advertised by a TMQUEUE, and, when the scenario has
// qspaces, every queue of every TMQFORWARD is a queue of one of them. A
// configuration's TMQUEUE and TMQFORWARD servers alone ask nothing of a
// scenario without qspaces.
func CheckQSpaces(m *ubb.Model, sc *scenario.Scenario) error {
	for _, name := range slices.Sorted(mapKeys(sc.QSpaces)) {
		if m.QSpaceIndex(name) < 0 {
			return diag.FieldErrorf("qspaces."+name, "no TMQUEUE server advertises queue space %s (%s; a TMQUEUE advertises one with CLOPT=\"-s %s:TMQUEUE\")",
				name, qspaceList(m), name)
		}
	}
	if len(sc.QSpaces) == 0 {
		return nil
	}
	for _, f := range m.Forwarders {
		for _, q := range f.Queues {
			if !inSomeQSpace(sc, q) {
				return diag.FieldErrorf("qspaces", "TMQFORWARD %s forwards from queue %s, which is in no queue space (give qspaces.QSPACE.queues.%s)", f.ID, q, q)
			}
		}
	}
	return nil
}

// inSomeQSpace says whether q is a queue of one of the scenario's queue
// spaces.
func inSomeQSpace(sc *scenario.Scenario, q string) bool {
	for _, qs := range sc.QSpaces {
		if _, ok := qs.Queues[q]; ok {
			return true
		}
	}
	return false
}

// qspaceList names the model's queue spaces for a message.
func qspaceList(m *ubb.Model) string {
	if len(m.QSpaces) == 0 {
		return "the UBBCONFIG has no TMQUEUE advertising a queue space"
	}
	names := make([]string, len(m.QSpaces))
	for i := range m.QSpaces {
		names[i] = m.QSpaces[i].Name
	}
	return "the UBBCONFIG's queue spaces: " + strings.Join(names, ", ")
}

// QPlan is /Q compiled: the scenario's queues and the forwarders that
// drain them.
type QPlan struct {
	Queues     []MsgQueue  // per Model.MsgQueues
	Forwarders []Forwarder // every TMQFORWARD instance, in scan order
}

// MsgQueue is one /Q queue compiled.
type MsgQueue struct {
	Name   string
	QSpace string
	// Service is the service named like the queue, which a forward of its
	// messages calls; -1 when no forwarder reads the queue and no service
	// has its name.
	Service int
	// Group is the queue space's group (index into Model.Groups): the
	// first participant of a forward's transaction.
	Group      int
	Retries    int
	DelayUS    int64
	ErrorQueue int32 // the error queue, an index into QPlan.Queues; -1 for none
}

// Forwarder is one TMQFORWARD instance compiled.
type Forwarder struct {
	Server int     // index into Model.Servers
	Queues []int32 // -q, indexes into QPlan.Queues, in the order given
	IdleUS int64   // -i
	TranUS int64   // -t; 0 for no timeout
	Delete bool    // -d
}

// MsgQueues lists the scenario's /Q queues in the order the run numbers
// them: queue spaces by name, then their queues by name.
func MsgQueues(sc *scenario.Scenario) []ubb.MsgQueue {
	var out []ubb.MsgQueue
	for _, qs := range slices.Sorted(mapKeys(sc.QSpaces)) {
		for _, q := range slices.Sorted(mapKeys(sc.QSpaces[qs].Queues)) {
			out = append(out, ubb.MsgQueue{QSpace: qs, Name: q})
		}
	}
	return out
}

// resolveQ compiles the scenario's /Q against the model (which has its
// queues, Model.WithQueues): the queues, the forwarders, and each queue
// space's enqueue_time as its service's time in every group.
func (st *Setup) resolveQ(sc *scenario.Scenario, _ Options) error {
	m := st.Model
	if err := CheckQSpaces(m, sc); err != nil {
		return err
	}
	if len(m.MsgQueues) == 0 {
		return nil
	}
	q := &QPlan{Queues: make([]MsgQueue, len(m.MsgQueues))}
	n := workload.NewNames(m)
	for k, mq := range m.MsgQueues {
		spec := sc.QSpaces[mq.QSpace].Queues[mq.Name]
		out := MsgQueue{Name: mq.Name, QSpace: mq.QSpace, Service: -1, ErrorQueue: -1,
			Group: groupIndex(m, m.QSpaces[m.QSpaceIndex(mq.QSpace)].Group)}
		if s, ok := n.ServiceIndex(mq.Name); ok {
			out.Service = s
		}
		if spec.Retries != nil {
			out.Retries = *spec.Retries
		}
		if spec.RetryDelayMS != nil {
			out.DelayUS, _ = usec.FromMSValue(*spec.RetryDelayMS)
		}
		if e := sc.QSpaces[mq.QSpace].ErrorQueue; e != "" {
			out.ErrorQueue = int32(m.MsgQueueIndex(mq.QSpace, e))
		}
		q.Queues[k] = out
	}
	for _, name := range slices.Sorted(mapKeys(sc.QSpaces)) {
		qs := sc.QSpaces[name]
		smp := dist.Sampler(dist.Const(0))
		if qs.EnqueueTime != nil {
			var err error
			if smp, err = dist.New(qs.EnqueueTime, "qspaces."+name+".enqueue_time"); err != nil {
				return err
			}
		}
		s, _ := n.ServiceIndex(name)
		for g := range st.ServiceTime[s] {
			// enqueue_time, else the queue space's own service_time (what a
			// ULOG's TMQUEUE executions fit), else 0
			if qs.EnqueueTime != nil || st.ServiceTime[s][g] == nil {
				st.ServiceTime[s][g] = smp
			}
		}
	}
	for _, f := range m.Forwarders {
		fp := Forwarder{IdleUS: int64(f.IdleS) * 1_000_000, TranUS: int64(f.TranTimeS) * 1_000_000, Delete: f.Delete}
		for _, name := range f.Queues {
			fp.Queues = append(fp.Queues, int32(slices.IndexFunc(q.Queues, func(mq MsgQueue) bool { return mq.Name == name })))
		}
		for _, id := range f.Servers {
			fp.Server = slices.IndexFunc(m.Servers, func(s ubb.Server) bool { return s.ID == id })
			q.Forwarders = append(q.Forwarders, fp)
		}
	}
	st.Q = q
	return nil
}
