package ubb

import (
	"slices"
	"strings"
)

// This file reads a DMCONFIG: its local domains (each with a gateway group),
// remote domains, and imported services, which the GWTDOMAIN instances of the
// gateway groups advertise.

// dmSections maps each DMCONFIG section name, old or new spelling, to one name.
var dmSections = map[string]string{
	"DM_LOCAL_DOMAINS": "DM_LOCAL", "DM_LOCAL": "DM_LOCAL",
	"DM_REMOTE_DOMAINS": "DM_REMOTE", "DM_REMOTE": "DM_REMOTE",
	"DM_LOCAL_SERVICES": "DM_EXPORT", "DM_EXPORT": "DM_EXPORT",
	"DM_REMOTE_SERVICES": "DM_IMPORT", "DM_IMPORT": "DM_IMPORT",
}

// dmKeywords are the keywords of the DMCONFIG sections the simulator reads.
var dmKeywords = map[string]map[string]bool{
	"DM_RESOURCES": keywordSet("VERSION"),
	"DM_LOCAL": keywordSet(`GWGRP TYPE DOMAINID ACCESSPOINTID AUDITLOG BLOCKTIME
		CONNECTION_POLICY CONNPRINCIPALNAME DMTLOGDEV DMTLOGNAME DMTLOGSIZE MAXRDOM
		MAXRDTRAN MAXTRAN MAXRETRY RETRY_INTERVAL SECURITY MTYPE CONNECTION_POLICY
		TRANTIME APP_PW SERVICECONNECTIONSTATE`),
	"DM_REMOTE": keywordSet(`TYPE DOMAINID ACCESSPOINTID LACCESSPOINT CODEPAGE MTYPE
		CONNPRINCIPALNAME CONNECTION_POLICY AUTHTYPE ACL_POLICY LOCAL_PRINCIPAL_NAME
		TPUSR_FILE CREDENTIAL_POLICY`),
	"DM_IMPORT": keywordSet(`RNAME RDOM RACCESSPOINT LDOM LACCESSPOINT LOAD PRIO AUTOTRAN
		CONV INBUFTYPE OUTBUFTYPE ROUTING TRANTIME BLOCKTIME ACL FUNCTION RTIMEOUT
		TPSUT_TYPE REM_TPSUT_TYPE INRECTYPE OUTRECTYPE AUTOPREPARE`),
}

// dmLocal is a local domain and the group of its gateway servers.
type dmLocal struct {
	name, gwgrp string
	pos         pos
}

// dmConfig is what the simulator keeps of a DMCONFIG.
type dmConfig struct {
	locals     []dmLocal
	localAt    map[string]int      // local domain name -> index into locals
	gwServices map[string][]string // gateway group -> imported services, in DMCONFIG order
	gwHas      map[string]bool     // gateway group + "\x00" + service -> already in gwServices
	gwParams   map[string]bool     // gateway group + "\x00" + service -> its LOAD/PRIO set by an import
	importAt   map[string]pos      // service -> its first import entry
}

// isGatewayGroup says whether some local domain has GWGRP=group.
func (d *dmConfig) isGatewayGroup(group string) bool {
	if d == nil {
		return false
	}
	for _, l := range d.locals {
		if l.gwgrp == group {
			return true
		}
	}
	return false
}

// gatewayServices returns the services the gateways of group import.
func (d *dmConfig) gatewayServices(group string) []string {
	if d == nil {
		return nil
	}
	return d.gwServices[group]
}

// buildDM reads the DMCONFIG sections after the UBBCONFIG has been read.
func (b *builder) buildDM(secs []*section) {
	b.cur = b.dmFile
	defer func() { b.cur = b.file }()
	b.dm = &dmConfig{localAt: map[string]int{}, gwServices: map[string][]string{}, gwHas: map[string]bool{}, gwParams: map[string]bool{}, importAt: map[string]pos{}}
	byName := map[string][]*section{}
	for _, s := range secs {
		name, ok := dmSections[s.name]
		if !ok {
			name = s.name
			if !strings.HasPrefix(s.name, "DM_") {
				b.warnf(s.pos, "unknown section *%s: its entries are ignored", s.name)
				continue
			}
		}
		byName[name] = append(byName[name], s)
		if known, ok := dmKeywords[name]; ok {
			b.warnUnknownKeywords(s, known)
		}
	}
	b.buildLocalDomains(entriesOf(byName["DM_LOCAL"]))
	b.buildRemoteDomains(entriesOf(byName["DM_REMOTE"]))
	for _, e := range entriesOf(byName["DM_IMPORT"]) {
		b.buildImport(e)
	}
}

// buildLocalDomains reads *DM_LOCAL_DOMAINS: each needs GWGRP, a group of the UBBCONFIG.
func (b *builder) buildLocalDomains(entries []*entry) {
	at := map[string]pos{}
	for _, e := range entries {
		if first, dup := at[e.name]; dup {
			b.errorf(e.pos, "duplicate local domain %s (first at %s)", e.name, lineOf(first))
			continue
		}
		at[e.name] = e.pos
		g, ok := e.get("GWGRP")
		if !ok {
			b.missingf(e.pos, "local domain %s: missing GWGRP= (the group of its GWTDOMAIN servers)", e.name)
			continue
		}
		if _, known := b.groupAt[g.value]; !known {
			b.errorf(g.valPos, "local domain %s: unknown GWGRP %s: expected a group of the UBBCONFIG's *GROUPS", e.name, g.value)
			continue
		}
		b.dm.localAt[e.name] = len(b.dm.locals)
		b.dm.locals = append(b.dm.locals, dmLocal{name: e.name, gwgrp: g.value, pos: e.pos})
	}
}

// buildRemoteDomains reads *DM_REMOTE_DOMAINS into Model.Domains.
func (b *builder) buildRemoteDomains(entries []*entry) {
	at := map[string]pos{}
	for _, e := range entries {
		if first, dup := at[e.name]; dup {
			b.errorf(e.pos, "duplicate remote domain %s (first at %s)", e.name, lineOf(first))
			continue
		}
		at[e.name] = e.pos
		d := Domain{Name: e.name}
		if p, ok := e.get("DOMAINID"); ok {
			d.DomainID = p.value
		}
		b.m.Domains = append(b.m.Domains, d)
	}
}

// buildImport reads one *DM_REMOTE_SERVICES entry: the entry name is the local
// service name; RDOM (or RACCESSPOINT) the remote domain, LDOM (or
// LACCESSPOINT) the local domains whose gateways import it (default all).
func (b *builder) buildImport(e *entry) {
	remote, ok := b.importRemote(e)
	locals, ok2 := b.importLocals(e)
	load := b.intParam(e, "LOAD", 0, 1, 32767)
	prio := b.intParam(e, "PRIO", 0, 1, 100)
	if !ok || !ok2 {
		return
	}
	s := b.known(e.name)
	if s.Remote == nil {
		s.Remote = &RemoteService{Domain: remote[0], GatewayGroup: locals[0].gwgrp}
		if len(remote) > 1 {
			s.Remote.Alternates = remote[1:]
		}
		b.dm.importAt[e.name] = e.pos
	} else if first := append([]string{s.Remote.Domain}, s.Remote.Alternates...); !slices.Equal(remote, first) {
		// one remote domain (and its failover list) a service: the
		// first entry's, which an administrator should see
		b.warnf(e.pos, "imported service %s: imported before (%s) from %s, where its requests go: this entry's %s is not used (it only adds its local domains' gateways)",
			e.name, lineOf(b.dm.importAt[e.name]), strings.Join(first, ","), strings.Join(remote, ","))
	}
	// The import's LOAD and PRIO are the gateway queue's only: each gateway
	// group gets them (else its *SERVICES values), and a local server of the
	// same service keeps its own. The first import of a group sets them.
	for _, l := range locals {
		if b.dm.gwParams[l.gwgrp+"\x00"+e.name] {
			continue
		}
		b.dm.gwParams[l.gwgrp+"\x00"+e.name] = true
		p := s.Params(l.gwgrp)
		if load > 0 {
			p.Load = load
		}
		if prio > 0 {
			p.Prio = prio
		}
		if s.ByGroup == nil {
			s.ByGroup = map[string]ServiceParams{}
		}
		s.ByGroup[l.gwgrp] = p
	}
	for _, l := range locals {
		if key := l.gwgrp + "\x00" + e.name; !b.dm.gwHas[key] {
			b.dm.gwHas[key] = true
			b.dm.gwServices[l.gwgrp] = append(b.dm.gwServices[l.gwgrp], e.name)
		}
	}
}

// maxRemoteDomains is how many remote domains one import may list: the
// first and two alternates (Oracle's DMCONFIG: a failover list of up to
// three).
const maxRemoteDomains = 3

// importRemote returns the remote domains of an import: those of RDOM (or
// RACCESSPOINT), a failover list of one to three, else the first remote
// domain of the file.
func (b *builder) importRemote(e *entry) ([]string, bool) {
	p, ok := e.get("RDOM")
	if !ok {
		p, ok = e.get("RACCESSPOINT")
	}
	if !ok {
		if len(b.m.Domains) == 0 {
			b.errorf(e.pos, "imported service %s: no remote domain: expected RDOM= naming an entry of *DM_REMOTE_DOMAINS", e.name)
			return nil, false
		}
		return []string{b.m.Domains[0].Name}, true
	}
	var out []string
	off := 0
	for _, item := range strings.Split(p.value, ",") {
		at := off + lead(item)
		off += len(item) + 1
		name := strings.TrimSpace(item)
		switch {
		case name == "":
			b.errorf(valuePos(p, at), "imported service %s: %s=%q: expected a remote domain between the commas", e.name, p.key, p.value)
			return nil, false
		case !b.isRemoteDomain(name):
			b.errorf(valuePos(p, at), "imported service %s: unknown remote domain %s: expected an entry of *DM_REMOTE_DOMAINS", e.name, name)
			return nil, false
		case slicesContains(out, name):
			b.errorf(valuePos(p, at), "imported service %s: remote domain %s is listed twice in %s=", e.name, name, p.key)
			return nil, false
		}
		out = append(out, name)
	}
	if len(out) > maxRemoteDomains {
		b.errorf(p.valPos, "imported service %s: %s= lists %d remote domains: at most %d (the first, then up to two alternates)", e.name, p.key, len(out), maxRemoteDomains)
		return nil, false
	}
	return out, true
}

// isRemoteDomain says whether name is an entry of *DM_REMOTE_DOMAINS.
func (b *builder) isRemoteDomain(name string) bool {
	for _, d := range b.m.Domains {
		if d.Name == name {
			return true
		}
	}
	return false
}

// importLocals returns the local domains that import a service.
func (b *builder) importLocals(e *entry) ([]dmLocal, bool) {
	p, ok := e.get("LDOM")
	if !ok {
		p, ok = e.get("LACCESSPOINT")
	}
	if !ok {
		if len(b.dm.locals) == 0 {
			b.errorf(e.pos, "imported service %s: no local domain: expected an entry with GWGRP= in *DM_LOCAL_DOMAINS", e.name)
			return nil, false
		}
		return b.dm.locals, true
	}
	var out []dmLocal
	for _, name := range splitList(p.value) {
		i, found := b.dm.localAt[name]
		if found {
			out = append(out, b.dm.locals[i])
		} else {
			b.errorf(p.valPos, "imported service %s: unknown local domain %s: expected an entry of *DM_LOCAL_DOMAINS", e.name, name)
			return nil, false
		}
	}
	return out, len(out) > 0
}

// warnGatewaylessDomains warns about local domains whose gateway group has no
// GWTDOMAIN server: requests for their imports find no candidate.
func (b *builder) warnGatewaylessDomains() {
	if b.dm == nil {
		return
	}
	b.cur = b.dmFile
	defer func() { b.cur = b.file }()
	hasGateway := map[string]bool{}
	for _, s := range b.m.Servers {
		hasGateway[s.Group] = hasGateway[s.Group] || s.Gateway
	}
	for _, l := range b.dm.locals {
		if !hasGateway[l.gwgrp] {
			b.warnf(l.pos, "local domain %s: group %s has no GWTDOMAIN server, so its imported services have none to go to", l.name, l.gwgrp)
		}
	}
}
