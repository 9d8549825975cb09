package ubb

import (
	"fmt"
	"sort"
)

// Limits that keep any input cheap to load (documented in docs/config.md).
const (
	maxMin       = 1000  // largest MIN of one *SERVERS entry
	maxInstances = 10000 // server instances of a whole configuration
	maxSrvID     = 30000
	maxGrpNo     = 29999
)

// ubbSections are the sections of a UBBCONFIG, each with the keywords it
// knows (the table of params.go); anything else is accepted with a warning.
var ubbSections = sectionKeywords()

// build reads every section into b.m.
func (b *builder) build(ubb, dm []*section) {
	b.m = &Model{Machines: []Machine{}, Groups: []Group{}, Servers: []Server{},
		Queues: []Queue{}, Services: []Service{}}
	b.machineAt, b.groupAt, b.svc = map[string]int{}, map[string]int{}, map[string]*Service{}
	b.groupPos = map[string]pos{}
	secs := b.checkSections(ubb)
	b.buildResources(secs["RESOURCES"])
	b.buildMachines(entriesOf(secs["MACHINES"]))
	if len(b.m.Machines) == 0 && len(b.late) == 0 {
		at := pos{1, 1}
		if ms := secs["MACHINES"]; len(ms) > 0 {
			at = ms[0].pos
		}
		b.missingf(at, "no machines: expected *MACHINES with at least one entry (PMID LMID=name)")
	}
	b.checkMaster(secs["RESOURCES"])
	b.buildGroups(entriesOf(secs["GROUPS"]))
	b.buildServers(entriesOf(secs["SERVERS"]))
	b.buildRouting(entriesOf(secs["ROUTING"]))
	b.buildServices(entriesOf(secs["SERVICES"]))
	if dm != nil {
		b.buildDM(dm)
	}
	b.advertiseAll()
	b.threadsAll()
	b.lifecycleAll()
	b.workstationsAll()
	b.queuesAll()
	b.buildQueues()
	b.finishServices()
	b.finishRouting()
	b.finishTransactions()
}

// checkSections warns about unknown sections and keywords, and groups the
// sections by name.
func (b *builder) checkSections(secs []*section) map[string][]*section {
	byName := map[string][]*section{}
	for _, s := range secs {
		known, ok := ubbSections[s.name]
		if !ok {
			b.warnf(s.pos, "unknown section *%s: its entries are ignored", s.name)
			continue
		}
		if prev := byName[s.name]; len(prev) > 0 {
			b.warnf(s.pos, "section *%s again (first at %s): its entries are added", s.name, lineOf(prev[0].pos))
		}
		byName[s.name] = append(byName[s.name], s)
		b.warnUnknownKeywords(s, known)
		b.warnPlaceholders(s)
	}
	return byName
}

// warnPlaceholders warns at each name and unquoted value of s that holds a
// skeleton's <bracketed item> (`IPCKEY <Replace with a valid IPC Key>`,
// `<SITE1's uname> LMID=SITE1`): read as it is written, so that a sample
// left unfilled still starts where the simulator does not use the value;
// where it does, the value's own check reports it.
func (b *builder) warnPlaceholders(s *section) {
	const note = "%s: a skeleton's placeholder, read as it is written (tmloadcf needs a real value there)"
	for _, e := range s.entries {
		if s.name == "RESOURCES" {
			if p := e.params[0]; p.raw == "" && isPlaceholder(p.value) {
				b.warnf(p.valPos, note, p.key+" "+p.value)
			}
			continue
		}
		if !e.isDefault && isPlaceholder(e.name) {
			b.warnf(e.pos, note, "the entry name "+e.name)
		}
		for _, p := range e.params {
			if p.raw == "" && isPlaceholder(p.value) {
				b.warnf(p.valPos, note, p.key+"="+p.value)
			}
		}
	}
}

// warnUnknownKeywords warns once for each parameter that the section does
// not know, and for a parameter the section knows given again in one entry
// (on its continuation lines, say), whose last value is read.
func (b *builder) warnUnknownKeywords(s *section, known map[string]bool) {
	for _, e := range s.entries {
		var at map[string]pos
		for _, p := range e.params {
			if !known[p.key] {
				b.warnf(p.keyPos, "unknown keyword %s in *%s (ignored)", p.key, s.name)
				continue
			}
			if len(e.params) == 1 {
				continue
			}
			if at == nil {
				at = map[string]pos{}
			}
			if old, dup := at[p.key]; dup {
				b.warnf(p.keyPos, "%s given again in this entry: this value replaces the one at %d:%d", p.key, old.line, old.col)
			}
			at[p.key] = p.keyPos
		}
	}
}

// entriesOf returns the entries of one or more sections of the same name,
// DEFAULT: lines applied (each section's defaults start afresh).
func entriesOf(secs []*section) []*entry {
	var out []*entry
	for _, s := range secs {
		out = append(out, withDefaults(s)...)
	}
	return out
}

// buildResources reads MODEL, LDBAL, MASTER, SCANUNIT, SANITYSCAN and BLOCKTIME.
// Each keyword line is looked at once: where a keyword was last given is
// kept in a map, and only the keywords *RESOURCES knows go into res, so a
// section of many unknown keywords reads in linear time.
func (b *builder) buildResources(secs []*section) {
	m := b.m
	res := &entry{}
	at := pos{1, 1}
	givenAt := map[string]pos{} // keyword -> where it was last given
	known := ubbSections["RESOURCES"]
	for i, s := range secs {
		if i == 0 {
			at = s.pos
		}
		for _, e := range s.entries {
			b.resourceSteps++
			if old, dup := givenAt[e.name]; dup {
				b.warnf(e.pos, "%s given again: this value replaces the one at %s", e.name, lineOf(old))
			}
			givenAt[e.name] = e.params[0].keyPos
			if known[e.name] {
				res.params = append(res.params, e.params...)
			}
		}
	}
	if p, ok := res.get("MODEL"); !ok {
		b.missingf(at, "missing MODEL in *RESOURCES: expected MODEL SHM or MODEL MP")
	} else if p.value != "SHM" && p.value != "MP" {
		b.errorf(p.valPos, "MODEL must be SHM or MP, got %q", p.value)
	} else {
		m.Model = p.value
	}
	if p, ok := res.get("LDBAL"); ok {
		if p.value != "Y" && p.value != "N" {
			b.errorf(p.valPos, "LDBAL must be Y or N, got %q", p.value)
		}
		m.LDBAL = p.value == "Y"
	}
	if p, ok := res.get("MASTER"); ok {
		m.Master = firstOfList(p.value)
	}
	m.ScanUnitUS = 10_000_000
	if p, ok := res.get("SCANUNIT"); ok {
		m.ScanUnitUS = b.scanUnit(p)
	}
	m.SanityScan = max(1, int(120_000_000/m.ScanUnitUS))
	m.SanityScan = b.intIn(res, "RESOURCES", "SANITYSCAN", m.SanityScan)
	m.BlockTime = max(1, int(60_000_000/m.ScanUnitUS))
	m.BlockTime = b.intIn(res, "RESOURCES", "BLOCKTIME", m.BlockTime)
	m.BBLQuery = max(1, int(300_000_000/m.ScanUnitUS))
	m.BBLQuery = b.intIn(res, "RESOURCES", "BBLQUERY", m.BBLQuery)
}

// maxScanUnitMS is the largest SCANUNIT in milliseconds (the MS form of
// Tuxedo 12c): 30 seconds.
const maxScanUnitMS = 30000

// scanUnit reads SCANUNIT: seconds (1..60), or milliseconds with an MS suffix
// (1..30000), returned in microseconds.
func (b *builder) scanUnit(p param) int64 {
	v := p.value
	if len(v) > 2 && (v[len(v)-2:] == "MS" || v[len(v)-2:] == "ms") {
		if n, ok := parseNumber(v[:len(v)-2]); ok && n >= 1 && n <= maxScanUnitMS {
			return n * 1000
		}
	} else if n, ok := parseNumber(v); ok && n >= 1 && n <= 60 {
		return n * 1_000_000
	}
	b.errorf(p.valPos, "SCANUNIT must be seconds from 1 to 60, or milliseconds from 1MS to %dMS, got %q", maxScanUnitMS, v)
	return 10_000_000
}

// checkMaster checks that MASTER names a machine.
func (b *builder) checkMaster(secs []*section) {
	if b.m.Master == "" {
		return
	}
	for _, s := range secs {
		for _, e := range s.entries {
			if e.name == "MASTER" && firstOfList(e.params[0].value) == b.m.Master {
				if _, ok := b.machineAt[b.m.Master]; !ok && len(b.machineAt) > 0 {
					b.errorf(e.params[0].valPos, "MASTER %s is not an LMID of *MACHINES", b.m.Master)
					return
				}
			}
		}
	}
}

// buildMachines reads *MACHINES: the entry name is the PMID, LMID is required.
func (b *builder) buildMachines(entries []*entry) {
	firstAt := map[string]pos{}
	for _, e := range entries {
		lm, ok := e.get("LMID")
		if !ok {
			b.missingf(e.pos, "machine %s: missing LMID=", e.name)
			continue
		}
		if first, dup := firstAt[lm.value]; dup {
			b.errorf(lm.valPos, "duplicate LMID %s (first at %s)", lm.value, lineOf(first))
			continue
		}
		firstAt[lm.value] = lm.valPos
		netload := b.intIn(e, "MACHINES", "NETLOAD", 0)
		maxWS := b.intIn(e, "MACHINES", "MAXWSCLIENTS", 0)
		b.machineAt[lm.value] = len(b.m.Machines)
		b.m.Machines = append(b.m.Machines, Machine{LMID: lm.value, PMID: e.name, NetLoad: netload, MaxWSClients: maxWS})
		if len(b.m.Machines) == 2 && b.m.Model == "SHM" {
			b.errorf(e.pos, "MODEL SHM allows one machine: a second machine (%s) needs MODEL MP", lm.value)
		}
	}
}

// buildGroups reads *GROUPS: LMID (a list: the first is where the servers
// run) and GRPNO are required; names and GRPNOs are unique.
func (b *builder) buildGroups(entries []*entry) {
	nameAt, noAt := map[string]pos{}, map[int]pos{}
	for _, e := range entries {
		if first, dup := nameAt[e.name]; dup {
			b.errorf(e.pos, "duplicate group name %s (first at %s)", e.name, lineOf(first))
			continue
		}
		nameAt[e.name] = e.pos
		b.groupPos[e.name] = e.pos
		g := Group{Name: e.name, LMIDs: []string{}}
		if p, ok := e.get("GRPNO"); !ok {
			b.missingf(e.pos, "group %s: missing GRPNO=", e.name)
		} else if g.GrpNo = b.intIn(e, "GROUPS", "GRPNO", 0); g.GrpNo > 0 {
			if first, dup := noAt[g.GrpNo]; dup {
				b.errorf(p.valPos, "duplicate GRPNO %d (first at %s)", g.GrpNo, lineOf(first))
			}
			noAt[g.GrpNo] = p.valPos
		}
		if p, ok := e.get("LMID"); !ok {
			b.missingf(e.pos, "group %s: missing LMID=", e.name)
		} else {
			g.LMIDs = b.groupLMIDs(e.name, p)
		}
		b.groupTMS(e, &g)
		b.groupAt[e.name] = len(b.m.Groups)
		b.m.Groups = append(b.m.Groups, g)
	}
}

func (b *builder) groupLMIDs(group string, p param) []string {
	lmids := splitList(p.value)
	if len(lmids) == 0 {
		b.errorf(p.valPos, "group %s: LMID is empty: expected an LMID of *MACHINES", group)
	}
	for _, l := range lmids {
		if _, ok := b.machineAt[l]; !ok {
			b.errorf(p.valPos, "group %s: unknown LMID %s: expected an LMID of *MACHINES", group, l)
		}
	}
	if lmids == nil {
		return []string{}
	}
	return lmids
}

// buildServices reads *SERVICES: LOAD and PRIO, general or per SRVGRP, and
// BLOCKTIME (seconds), the service's own blocking timeout.
func (b *builder) buildServices(entries []*entry) {
	generalAt, groupAt, listed := map[string]pos{}, map[string]pos{}, map[string]bool{}
	b.routedAt, b.unrouted = map[string]pos{}, map[string][]pos{}
	for _, e := range entries {
		load := b.intIn(e, "SERVICES", "LOAD", 50)
		prio := b.intIn(e, "SERVICES", "PRIO", 50)
		timeout := b.intIn(e, "SERVICES", "SVCTIMEOUT", 0)
		block := b.intIn(e, "SERVICES", "BLOCKTIME", 0)
		auto, tranTime := b.serviceTran(e)
		s := b.known(e.name)
		if block > 0 { // the caller's timeout for this service, whichever entry sets it (the later wins)
			s.BlockTimeS = block
		}
		b.routeService(e, s)
		if !listed[e.name] {
			listed[e.name] = true
			b.svcOrder = append(b.svcOrder, e.name)
		}
		g, byGroup := e.get("SRVGRP")
		if !byGroup {
			if first, dup := generalAt[e.name]; dup {
				b.warnf(e.pos, "service %s listed again (first at %s): this entry's LOAD and PRIO are used", e.name, lineOf(first))
			}
			generalAt[e.name] = e.pos
			s.Load, s.Prio, s.SvcTimeoutS = load, prio, timeout
			s.AutoTran, s.TranTimeS = auto, tranTime
			continue
		}
		if _, ok := b.groupAt[g.value]; !ok {
			b.errorf(g.valPos, "service %s: unknown SRVGRP %s: expected a group of *GROUPS", e.name, g.value)
			continue
		}
		key := e.name + "\x00" + g.value
		if first, dup := groupAt[key]; dup {
			b.warnf(e.pos, "service %s listed again for SRVGRP=%s (first at %s): this entry is used", e.name, g.value, lineOf(first))
		}
		groupAt[key] = e.pos
		if s.ByGroup == nil {
			s.ByGroup = map[string]ServiceParams{}
		}
		s.ByGroup[g.value] = ServiceParams{Load: load, Prio: prio, SvcTimeoutS: timeout, AutoTran: auto, TranTimeS: tranTime}
	}
}

// known returns the service named name, creating it with LOAD 50 and PRIO 50.
func (b *builder) known(name string) *Service {
	s, ok := b.svc[name]
	if !ok {
		s = &Service{Name: name, Load: 50, Prio: 50}
		b.svc[name] = s
	}
	return s
}

// finishServices sorts the known services by name into the model.
func (b *builder) finishServices() {
	names := make([]string, 0, len(b.svc))
	for n := range b.svc {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.m.Services = append(b.m.Services, *b.svc[n])
	}
}

// buildQueues gives each instance its queue: its own, or its group's MSSQ set.
func (b *builder) buildQueues() {
	at := map[string]int{}
	for i := range b.m.Servers {
		s := &b.m.Servers[i]
		key := "id\x00" + s.ID
		if s.Queue != s.ID {
			key = "rq\x00" + s.Group + "\x00" + s.Queue
		}
		q, ok := at[key]
		if !ok {
			q = len(b.m.Queues)
			at[key] = q
			b.m.Queues = append(b.m.Queues, Queue{Name: s.Queue, Group: s.Group, LMID: s.LMID, Machine: s.Machine})
		}
		s.QueueIdx = q
		b.m.Queues[q].Servers = append(b.m.Queues[q].Servers, i)
	}
}

// instanceID names an instance GROUP/SRVID.
func instanceID(group string, srvID int) string { return fmt.Sprintf("%s/%d", group, srvID) }

// serverEntry is one *SERVERS entry and the instances it became.
type serverEntry struct {
	e            *entry
	first, count int // its instances: m.Servers[first : first+count]
}

// buildServers reads *SERVERS and expands each entry into MAX instances:
// MIN running ones, then the spares up to MAX. The SRVIDs an entry reserves
// (SRVID .. SRVID+MAX-1) must not overlap another entry's in its group.
func (b *builder) buildServers(entries []*entry) {
	type reserved struct {
		lo, hi int
		name   string
		line   int
	}
	byGroup := map[string][]reserved{}
	rqGroup := map[string]param{} // RQADDR -> the SRVGRP param of its first group
	total := 0
	for _, e := range entries {
		g, srvID, ok := b.serverGroupAndID(e)
		n := b.intIn(e, "SERVERS", "MIN", 1)
		maxN := max(n, 1) // MIN=0 without MAX: one spare, as Tuxedo's MAX defaults to MIN or 1
		maxP, hasMax := e.get("MAX")
		if hasMax {
			maxN = b.intValue(maxP, n, maxMin, maxN)
		}
		if !ok {
			continue
		}
		if maxN == 0 { // MIN=0 MAX=0: an entry kept in the file but never booted
			b.warnf(maxP.valPos, "server %s: MIN=0 MAX=0: the entry has no instance; it is ignored", e.name)
			continue
		}
		idParam, _ := e.get("SRVID")
		if srvID+maxN-1 > maxSrvID {
			what := "MIN"
			if maxN > n {
				what = "MAX"
			}
			b.errorf(idParam.valPos, "SRVID %d with %s=%d goes past SRVID %d", srvID, what, maxN, maxSrvID)
			continue
		}
		overlap := false
		for _, r := range byGroup[g.Name] {
			if srvID <= r.hi && r.lo <= srvID+maxN-1 {
				b.errorf(idParam.valPos, "duplicate server %s: SRVID %s of this entry (line %d) overlaps SRVID %s of %s (line %d) in group %s",
					instanceID(g.Name, max(srvID, r.lo)), idRange(srvID, srvID+maxN-1), e.pos.line, idRange(r.lo, r.hi), r.name, r.line, g.Name)
				overlap = true
				break
			}
		}
		if overlap {
			continue
		}
		byGroup[g.Name] = append(byGroup[g.Name], reserved{srvID, srvID + maxN - 1, e.name, int(e.pos.line)})
		if total += maxN; total > maxInstances {
			b.errorf(e.pos, "too many server instances: more than %d", maxInstances)
			return
		}
		if n == 0 {
			minP, _ := e.get("MIN")
			what := fmt.Sprintf("none of its %d instances runs", maxN)
			if maxN == 1 {
				what = "its one instance does not run"
			}
			b.warnf(minP.valPos, "server %s: MIN=0: %s at the start (spares until a boot event brings one up)", e.name, what)
		}
		queue := b.rqaddr(e, g.Name, rqGroup)
		se := serverEntry{e: e, first: len(b.m.Servers)}
		for id := srvID; id < srvID+maxN; id++ {
			s := b.instance(e.name, g, id, queue)
			s.Spare = id >= srvID+n
			b.m.Servers = append(b.m.Servers, s)
		}
		se.count = len(b.m.Servers) - se.first
		b.entries = append(b.entries, se)
	}
}

// idRange formats SRVIDs lo..hi ("3" when lo == hi).
func idRange(lo, hi int) string {
	if lo == hi {
		return itoa(lo)
	}
	return itoa(lo) + ".." + itoa(hi)
}

// rqaddr returns the RQADDR of a *SERVERS entry of group ("" for none) and
// checks that no other group uses it; rqGroup remembers the first group of each.
func (b *builder) rqaddr(e *entry, group string, rqGroup map[string]param) string {
	rq, ok := e.get("RQADDR")
	if !ok {
		return ""
	}
	if first, seen := rqGroup[rq.value]; !seen {
		rqGroup[rq.value] = param{value: group, valPos: rq.valPos}
	} else if first.value != group {
		b.errorf(rq.valPos, "RQADDR %s is already the queue of group %s (%s): an MSSQ set cannot span groups",
			rq.value, first.value, lineOf(first.valPos))
	}
	return rq.value
}

// serverGroupAndID checks SRVGRP and SRVID of a *SERVERS entry.
func (b *builder) serverGroupAndID(e *entry) (*Group, int, bool) {
	var g *Group
	if p, ok := e.get("SRVGRP"); !ok {
		b.missingf(e.pos, "server %s: missing SRVGRP=", e.name)
	} else if i, known := b.groupAt[p.value]; !known {
		b.errorf(p.valPos, "server %s: unknown SRVGRP %s: expected a group of *GROUPS", e.name, p.value)
	} else {
		g = &b.m.Groups[i]
	}
	srvID := 0
	if p, ok := e.get("SRVID"); !ok {
		b.missingf(e.pos, "server %s: missing SRVID=", e.name)
	} else {
		srvID = b.intValue(p, 1, maxSrvID, 0)
	}
	return g, srvID, g != nil && srvID > 0
}

// instance makes one server instance of group g; queue is its RQADDR or "".
func (b *builder) instance(name string, g *Group, srvID int, queue string) Server {
	s := Server{ID: instanceID(g.Name, srvID), Name: name, Group: g.Name, SrvID: srvID,
		Machine: -1, Services: []string{}}
	if len(g.LMIDs) > 0 {
		s.LMID = g.LMIDs[0]
		if i, ok := b.machineAt[s.LMID]; ok {
			s.Machine = i
		}
	}
	s.Queue = s.ID
	if queue != "" {
		s.Queue = queue
	}
	return s
}
