package ubb

import (
	"math"
	"slices"
	"strings"
)

// This file reads /Q: the queue spaces that TMQUEUE servers advertise
// (their CLOPT "-s QSPACE:TMQUEUE") and the TMQFORWARD servers' own options
// (their CLOPT after "--"), docs/config.md, "/Q: TMQUEUE and TMQFORWARD".

// Defaults of TMQFORWARD's options, in seconds.
const (
	defaultForwardIdleS = 30 // -i idletime
	defaultForwardTranS = 60 // -t trantime
	maxForwardSeconds   = math.MaxInt32
)

// QSpace is a queue space: a service advertised by TMQUEUE instances
// through their CLOPT "-s QSPACE:TMQUEUE". An enqueue is a request of
// that service, chosen among those instances.
type QSpace struct {
	Name string `json:"name"`
	// Group is the group of the first TMQUEUE instance advertising it (in
	// scan order): the queue space's group, the first participant of a
	// forward's transaction.
	Group string `json:"group"`
	// Servers are the TMQUEUE instances (GROUP/SRVID) advertising it, in
	// scan order.
	Servers []string `json:"servers"`
}

// Forwarder is one TMQFORWARD *SERVERS entry: each of its instances takes
// messages from Queues (in that order) and calls the service named like
// the queue.
type Forwarder struct {
	ID      string   `json:"id"`      // the entry's first instance, GROUP/SRVID
	Server  int      `json:"-"`       // its index into Model.Servers
	Servers []string `json:"servers"` // every instance of the entry, in scan order
	Group   string   `json:"group"`
	LMID    string   `json:"lmid"`
	// Queues are -q's queues (required), in the order given.
	Queues []string `json:"queues"`
	// IdleS is -i idletime (seconds, default 30): how long a forwarder
	// that found no message sleeps; 0 wakes it when a message becomes
	// available.
	IdleS int `json:"idle_s"`
	// TranTimeS is -t trantime (seconds, default 60): the forward's
	// transaction timeout; 0 means none.
	TranTimeS int `json:"trantime_s"`
	// Delete is -d: a TPESVCFAIL deletes the message instead of retrying it.
	Delete bool `json:"delete,omitempty"`
	// ExitEmpty is -e (exit when the queues are empty): kept, not simulated.
	ExitEmpty bool `json:"exit_empty,omitempty"`
}

// MsgQueue is a /Q queue of a queue space, as the scenario names it
// (its qspaces): the run's queues are numbered in Model.MsgQueues' order.
type MsgQueue struct {
	QSpace string
	Name   string
}

// WithQueues returns the Model with a scenario's /Q queues, when it has
// any (else m itself; m is not changed): MsgQueues set, each queue a
// TMQFORWARD reads made a known service (LOAD 50, PRIO 50) if the
// configuration does not know it (a forward calls the service named like
// its queue; one nobody advertises fails TPENOENT), and, when TMQFORWARD
// servers run, the groups with TMSNAME listed as AUTOTRAN lists them:
// each forward runs in a transaction.
func (m *Model) WithQueues(qs []MsgQueue) *Model {
	if len(qs) == 0 {
		return m
	}
	c := *m
	c.MsgQueues = qs
	c.Services = slices.Clone(m.Services)
	for _, f := range m.Forwarders {
		for _, q := range f.Queues {
			if c.Service(q) == nil {
				c.Services = append(c.Services, Service{Name: q, Load: 50, Prio: 50})
				slices.SortFunc(c.Services, func(a, b Service) int { return strings.Compare(a.Name, b.Name) })
			}
		}
	}
	if c.TMS == nil && len(m.Forwarders) > 0 {
		c.TMS = c.tmsGroups()
	}
	return &c
}

// MsgQueueIndex returns the index in m.MsgQueues of queue name of queue
// space qspace, or -1.
func (m *Model) MsgQueueIndex(qspace, name string) int {
	return slices.IndexFunc(m.MsgQueues, func(q MsgQueue) bool { return q.QSpace == qspace && q.Name == name })
}

// QSpaceIndex returns the index of queue space name in m.QSpaces, or -1.
func (m *Model) QSpaceIndex(name string) int {
	for i := range m.QSpaces {
		if m.QSpaces[i].Name == name {
			return i
		}
	}
	return -1
}

// baseName is the base name of a server's executable.
func baseName(name string) string { return name[strings.LastIndexByte(name, '/')+1:] }

// queuesAll reads the queue spaces of the TMQUEUE instances and the
// options of every TMQFORWARD entry, after advertising is decided.
func (b *builder) queuesAll() {
	for _, se := range b.entries {
		if se.count == 0 {
			continue
		}
		switch baseName(se.e.name) {
		case "TMQUEUE":
			for i := se.first; i < se.first+se.count; i++ {
				b.addQSpaces(se.e, &b.m.Servers[i])
			}
		case "TMQFORWARD":
			first := &b.m.Servers[se.first]
			f := Forwarder{ID: first.ID, Server: se.first, Group: first.Group, LMID: first.LMID,
				IdleS: defaultForwardIdleS, TranTimeS: defaultForwardTranS}
			for i := se.first; i < se.first+se.count; i++ {
				f.Servers = append(f.Servers, b.m.Servers[i].ID)
			}
			b.forwarderOptions(se.e, &f)
			b.m.Forwarders = append(b.m.Forwarders, f)
		}
	}
}

// addQSpaces records the queue spaces a TMQUEUE instance advertises.
func (b *builder) addQSpaces(e *entry, s *Server) {
	for _, name := range s.Services {
		k := b.m.QSpaceIndex(name)
		if k < 0 {
			b.m.QSpaces = append(b.m.QSpaces, QSpace{Name: name, Group: s.Group})
			k = len(b.m.QSpaces) - 1
		} else if g := b.m.QSpaces[k].Group; g != s.Group && !servesFromGroup(b.m.QSpaces[k].Servers, s.Group) {
			b.warnf(e.pos, "queue space %s is advertised by TMQUEUE instances of groups %s and %s: its group is %s (the first in scan order)", name, g, s.Group, g)
		}
		b.m.QSpaces[k].Servers = append(b.m.QSpaces[k].Servers, s.ID)
	}
}

// forwarderOptions reads TMQFORWARD's options after "--" in its CLOPT:
// -q Q1[,Q2...] (required), -i idletime, -t trantime, -d, -e, each value
// "-i 2" or "-i2", flags grouped getopt-style ("-de"); -f delay and -n are
// skipped, other words ignored.
func (b *builder) forwarderOptions(e *entry, f *Forwarder) {
	p, ok := e.get("CLOPT")
	if !ok {
		b.errorf(e.pos, "server %s: TMQFORWARD needs CLOPT=\"-A -- -q QUEUE\": -q (the queues it forwards from) is required after --", e.name)
		return
	}
	toks := afterDashes(cloptTokens(p.value))
	qSet := false
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		if len(t.text) < 2 || t.text[0] != '-' {
			continue // an argument of an option this reader does not read
		}
		for j := 1; j < len(t.text); j++ {
			opt := t.text[j]
			switch opt {
			case 'd':
				f.Delete = true
				continue
			case 'e':
				f.ExitEmpty = true
				continue
			case 'q', 'i', 't', 'f':
			default:
				continue
			}
			qSet = qSet || opt == 'q'
			val, at := t.text[j+1:], cloptAt(p, t.off+j+1)
			if val == "" {
				if k+1 >= len(toks) {
					b.errorf(cloptAt(p, t.off), "server %s: CLOPT -%c needs a value", e.name, opt)
					break
				}
				k++
				val, at = toks[k].text, cloptAt(p, toks[k].off)
			}
			switch opt {
			case 'q':
				b.forwarderQueues(e.name, val, at, f)
			case 'i':
				f.IdleS = b.wslNumber(at, e.name, "-i", "idletime", val, 0, maxForwardSeconds, defaultForwardIdleS)
			case 't':
				f.TranTimeS = b.wslNumber(at, e.name, "-t", "trantime", val, 0, maxForwardSeconds, defaultForwardTranS)
			}
			break // the option's value ends the group
		}
	}
	if !qSet {
		b.errorf(p.valPos, "server %s: TMQFORWARD needs -q QUEUE[,QUEUE...] after -- in its CLOPT (the queues it forwards from, e.g. CLOPT=\"-A -- -q REQ -i 5\")", e.name)
	}
}

// forwarderQueues reads -q's comma-separated queue names.
func (b *builder) forwarderQueues(server, val string, at pos, f *Forwarder) {
	for _, q := range strings.Split(val, ",") {
		switch {
		case q == "":
			b.errorf(at, "server %s: CLOPT -q %q has an empty queue name", server, val)
			return
		case slices.Contains(f.Queues, q):
			b.errorf(at, "server %s: CLOPT -q names queue %s twice", server, q)
			return
		}
		f.Queues = append(f.Queues, q)
	}
}

// servesFromGroup says whether one of ids (GROUP/SRVID) is in group g.
func servesFromGroup(ids []string, g string) bool {
	for _, id := range ids {
		if strings.HasPrefix(id, g+"/") {
			return true
		}
	}
	return false
}
