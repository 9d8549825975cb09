package ubb

import (
	"slices"
	"sort"
	"strings"
)

// Transactions: *GROUPS TMSNAME and TMSCOUNT, *SERVICES AUTOTRAN and
// TRANTIME (docs/config.md, "Transactions").

// defaultTMSCount is TMSCOUNT when a group with TMSNAME does not give it.
const defaultTMSCount = 3

// tmsQueueSuffix names a group's TMS queue: GROUP/TMS.
const tmsQueueSuffix = "/TMS"

// groupTMS reads TMSNAME and TMSCOUNT of a *GROUPS entry into g. TMSCOUNT is
// checked whether or not TMSNAME is given (a value outside 2..256 is an
// error naming its line and column).
func (b *builder) groupTMS(e *entry, g *Group) {
	count := b.intIn(e, "GROUPS", "TMSCOUNT", defaultTMSCount)
	p, ok := e.get("TMSNAME")
	if !ok {
		return
	}
	if p.value == "" {
		b.errorf(p.valPos, "group %s: TMSNAME is empty: expected the name of a TMS executable", e.name)
		return
	}
	g.TMSName, g.TMSCount = p.value, count
}

// serviceTran reads AUTOTRAN (Y or N) and TRANTIME of a *SERVICES entry:
// TRANTIME is kept only for an AUTOTRAN entry (default 30 seconds).
func (b *builder) serviceTran(e *entry) (auto bool, tranTimeS int) {
	tranTimeS = b.intIn(e, "SERVICES", "TRANTIME", 30)
	if p, ok := e.get("AUTOTRAN"); ok {
		switch p.value {
		case "Y":
			auto = true
		case "N":
		default:
			b.errorf(p.valPos, "AUTOTRAN must be Y or N, got %q", p.value)
		}
	}
	if !auto {
		return false, 0
	}
	return true, tranTimeS
}

// anyAutoTran says whether some *SERVICES entry has AUTOTRAN=Y.
func (m *Model) anyAutoTran() bool {
	for i := range m.Services {
		s := &m.Services[i]
		if s.AutoTran {
			return true
		}
		for _, p := range s.ByGroup {
			if p.AutoTran {
				return true
			}
		}
	}
	return false
}

// finishTransactions lists the groups with TMSNAME when some *SERVICES entry
// has AUTOTRAN=Y, and warns about every AUTOTRAN service offered in a group
// without TMSNAME (a request of it there starts no transaction). It runs
// after the services are known and the queues built.
func (b *builder) finishTransactions() {
	m := b.m
	if !m.anyAutoTran() {
		return
	}
	m.TMS = m.tmsGroups()
	b.warnAutoTranWithoutTMS()
}

// tmsGroups lists the groups with TMSNAME, in *GROUPS order (never nil).
func (m *Model) tmsGroups() []TMSGroup {
	out := []TMSGroup{}
	for i := range m.Groups {
		g := &m.Groups[i]
		if g.TMSName == "" {
			continue
		}
		t := TMSGroup{Group: g.Name, Name: g.TMSName, Count: g.TMSCount, Machine: -1,
			Queue: g.Name + tmsQueueSuffix}
		if len(g.LMIDs) > 0 {
			t.LMID = g.LMIDs[0]
			t.Machine = slices.IndexFunc(m.Machines, func(mc Machine) bool { return mc.LMID == t.LMID })
		}
		out = append(out, t)
	}
	return out
}

// warnAutoTranWithoutTMS warns once per group without TMSNAME that offers
// AUTOTRAN services (advertised by an instance there; a gateway starts no
// transaction), naming them in order.
func (b *builder) warnAutoTranWithoutTMS() {
	m := b.m
	offered := map[string]map[string]bool{} // group -> AUTOTRAN services offered there
	for i := range m.Servers {
		s := &m.Servers[i]
		if s.Gateway {
			continue
		}
		g := &m.Groups[b.groupAt[s.Group]]
		if g.TMSName != "" {
			continue
		}
		for _, name := range s.Services {
			svc := m.Service(name)
			if svc == nil || !svc.Params(s.Group).AutoTran {
				continue
			}
			if offered[s.Group] == nil {
				offered[s.Group] = map[string]bool{}
			}
			offered[s.Group][name] = true
		}
	}
	for _, g := range m.Groups {
		names := offered[g.Name]
		if len(names) == 0 {
			continue
		}
		list := make([]string, 0, len(names))
		for n := range names {
			list = append(list, n)
		}
		sort.Strings(list)
		b.warnf(b.groupPos[g.Name], "group %s has no TMSNAME, so no transaction starts there: AUTOTRAN services offered there run as if AUTOTRAN=N: %s",
			g.Name, strings.Join(list, ", "))
	}
}

// Transactions says whether a transaction can start in this configuration:
// some *SERVICES entry has AUTOTRAN=Y. Only then are TMS servers modelled.
func (m *Model) Transactions() bool { return m.TMS != nil }

// WithTMS returns the Model with its TMS servers and queues: for each group
// of m.TMS in order, its TMSCOUNT instances GROUP/30001 .. GROUP/30000+n (the
// TMS executable's name, System and TMS set, advertising nothing) after
// every *SERVERS instance, sharing one queue GROUP/TMS after every other
// queue, and each TMS executable's name as a known service (LOAD 50, PRIO
// 50, advertised by nobody), under which the TMS requests run. When no
// transaction can start it returns m itself; otherwise a copy whose
// Servers, Queues and Services are new slices (m is not changed).
func (m *Model) WithTMS() *Model {
	if len(m.TMS) == 0 {
		return m
	}
	c := *m
	n := 0
	for _, t := range m.TMS {
		n += t.Count
	}
	// the TMS executables' names are services of their own (LOAD 50,
	// PRIO 50, advertised by nobody): the TMS requests are theirs
	c.Services = append([]Service(nil), m.Services...)
	for _, t := range m.TMS {
		if c.Service(t.Name) == nil {
			c.Services = append(c.Services, Service{Name: t.Name, Load: 50, Prio: 50})
			sort.Slice(c.Services, func(a, b int) bool { return c.Services[a].Name < c.Services[b].Name })
		}
	}
	c.Servers = append(make([]Server, 0, len(m.Servers)+n), m.Servers...)
	c.Queues = append(make([]Queue, 0, len(m.Queues)+len(m.TMS)), m.Queues...)
	for _, t := range m.TMS {
		q := Queue{Name: t.Queue, Group: t.Group, LMID: t.LMID, Machine: t.Machine}
		for k := 0; k < t.Count; k++ {
			q.Servers = append(q.Servers, len(c.Servers))
			c.Servers = append(c.Servers, Server{ID: instanceID(t.Group, TMSFirstSrvID+k), Name: t.Name,
				Group: t.Group, SrvID: TMSFirstSrvID + k, LMID: t.LMID, Machine: t.Machine,
				Queue: t.Queue, QueueIdx: len(c.Queues), Services: []string{}, System: true, TMS: true,
				AdvertiseSource: "clopt"})
		}
		c.Queues = append(c.Queues, q)
	}
	return &c
}
