package ubb

import (
	"fmt"
	"strings"
)

// ParamKind says what a UBBCONFIG parameter's value looks like.
type ParamKind int

// The kinds of parameter values.
const (
	// KindText is any value; the simulator does not read its form.
	KindText ParamKind = iota
	// KindInteger is a whole number (decimal, 0-octal or 0x-hex) in [Param.Min, Param.Max]
	// (MAX's low end is MIN, MINDISPATCHTHREADS's high end MAXDISPATCHTHREADS).
	KindInteger
	// KindWord is one of [Param.Words].
	KindWord
	// KindName names an entry of another section (an LMID, a group, a criterion).
	KindName
	// KindList is a comma list of names.
	KindList
	// KindScanUnit is SCANUNIT's seconds (1–60) or milliseconds with MS (1MS–30000MS).
	KindScanUnit
)

// String names the kind as docs/config.md's table does.
func (k ParamKind) String() string {
	switch k {
	case KindText:
		return "text"
	case KindInteger:
		return "integer"
	case KindWord:
		return "word"
	case KindName:
		return "name"
	case KindList:
		return "list"
	case KindScanUnit:
		return "seconds or NMS"
	}
	return fmt.Sprintf("ParamKind(%d)", int(k))
}

// Param is one keyword of a UBBCONFIG section: what its value looks like,
// its default, whether the simulator reads it, and whether sweeps may vary
// it. The table [Params] lists every keyword the reader knows; a keyword not
// in it gets a warning, one that is in it but not Simulated is accepted and
// ignored. Compare's variants may set any keyword through [ParseKey]; Sweep
// marks the ones sweeps take as keys (core/sweep).
type Param struct {
	Section   string    // RESOURCES, MACHINES, GROUPS, ...
	Keyword   string    // upper case, as written in the file
	Kind      ParamKind // what the value looks like
	Min, Max  int       // KindInteger: the range read (a MaxOf keyword's upper bound is Max)
	Words     []string  // KindWord: the values allowed
	Default   string    // what applies when absent, as docs/config.md says it ("" for none or required)
	Required  bool      // an entry (or *RESOURCES) without it is an error
	Simulated bool      // the simulator reads it; otherwise it is accepted and ignored
	Sweep     bool      // a sweep key (SERVERS.<name>.MIN, LDBAL, ...)
	Doc       string    // what the simulator does with it, for docs/config.md
}

// Range says the range of an integer parameter as docs and messages write it.
func (p *Param) Range() string {
	switch p.Kind {
	case KindInteger:
		if p.Section == "SERVERS" && p.Keyword == "MAX" {
			return fmt.Sprintf("MIN–%d", p.Max)
		}
		if p.Section == "SERVERS" && p.Keyword == "MINDISPATCHTHREADS" {
			return "0–MAXDISPATCHTHREADS"
		}
		return fmt.Sprintf("%d–%d", p.Min, p.Max)
	case KindWord:
		return strings.Join(p.Words, ", ")
	case KindScanUnit:
		return fmt.Sprintf("1–60, 1MS–%dMS", maxScanUnitMS)
	}
	return ""
}

// simulated are the parameters the simulator reads, section by section, in
// the order docs/config.md lists them.
var simulated = []Param{
	{Section: "RESOURCES", Keyword: "LDBAL", Kind: KindWord, Words: []string{"Y", "N"}, Default: "N", Sweep: true,
		Doc: "Y: least-load choice among the queues that offer a service; N: the first queue in scan order"},
	{Section: "RESOURCES", Keyword: "MODEL", Kind: KindWord, Words: []string{"SHM", "MP"}, Required: true, Sweep: true,
		Doc: "one machine (SHM) or several (MP): MP adds network latency, NETLOAD and the DBBL"},
	{Section: "RESOURCES", Keyword: "MASTER", Kind: KindList,
		Doc: "the first LMID is the master machine (the DBBL's); it must be an LMID of *MACHINES"},
	{Section: "RESOURCES", Keyword: "SCANUNIT", Kind: KindScanUnit, Default: "10",
		Doc: "the BBL's scan period; SANITYSCAN, BLOCKTIME and BBLQUERY count in it"},
	{Section: "RESOURCES", Keyword: "SANITYSCAN", Kind: KindInteger, Min: 1, Max: 32767, Default: "120 s / SCANUNIT",
		Doc: "scan units between the BBL's sanity scans (restarts, SVCTIMEOUT kills)"},
	{Section: "RESOURCES", Keyword: "BLOCKTIME", Kind: KindInteger, Min: 1, Max: 32767, Default: "60 s / SCANUNIT",
		Doc: "scan units a caller waits for a reply before TPETIME"},
	{Section: "RESOURCES", Keyword: "BBLQUERY", Kind: KindInteger, Min: 1, Max: 32767, Default: "300 s / SCANUNIT",
		Doc: "scan units between the DBBL's status checks of the BBLs (a lost machine is noticed then)"},
	{Section: "MACHINES", Keyword: "LMID", Kind: KindName, Required: true,
		Doc: "the machine's logical name; the entry name is its PMID"},
	{Section: "MACHINES", Keyword: "NETLOAD", Kind: KindInteger, Min: 0, Max: 32767, Default: "0", Sweep: true,
		Doc: "added to the load of a queue on another machine when choosing (MODEL MP)"},
	{Section: "MACHINES", Keyword: "MAXWSCLIENTS", Kind: KindInteger, Min: 0, Max: maxWSClients, Default: "0", Sweep: true,
		Doc: "workstation clients that may connect through the machine's WSLs (0: none, with a warning naming the WSL)"},
	{Section: "GROUPS", Keyword: "LMID", Kind: KindList, Required: true,
		Doc: "where the group's servers run; the rest of the list are failover machines"},
	{Section: "GROUPS", Keyword: "GRPNO", Kind: KindInteger, Min: 1, Max: maxGrpNo, Required: true,
		Doc: "the group number, unique"},
	{Section: "GROUPS", Keyword: "TMSNAME", Kind: KindText,
		Doc: "the group's TMS executable: with it, the group takes part in transactions (its TMSCOUNT TMS servers GROUP/30001.. share the queue GROUP/TMS)"},
	{Section: "GROUPS", Keyword: "TMSCOUNT", Kind: KindInteger, Min: 2, Max: 256, Default: "3", Sweep: true,
		Doc: "how many TMS servers a group with TMSNAME has"},
	{Section: "SERVERS", Keyword: "SRVGRP", Kind: KindName, Required: true,
		Doc: "the server's group"},
	{Section: "SERVERS", Keyword: "SRVID", Kind: KindInteger, Min: 1, Max: maxSrvID, Required: true,
		Doc: "the first instance's id; instances take SRVID..SRVID+MAX-1"},
	{Section: "SERVERS", Keyword: "MIN", Kind: KindInteger, Min: 0, Max: maxMin, Default: "1", Sweep: true,
		Doc: "instances booted at the start (0: none, every instance a spare)"},
	{Section: "SERVERS", Keyword: "MAX", Kind: KindInteger, Min: 0, Max: maxMin, Default: "MIN, or 1 when MIN is 0", Sweep: true,
		Doc: "instances in all: those past MIN are spares, gone until booted or spawned"},
	{Section: "SERVERS", Keyword: "RQADDR", Kind: KindName, Default: "one queue per instance",
		Doc: "a queue name shared by the entry's instances (MSSQ), within one group"},
	{Section: "SERVERS", Keyword: "CLOPT", Kind: KindText,
		Doc: "-s services advertised (else the advertise map or *SERVICES), -p spawning and decay; a WSL's -n, -m, -M, -x after --; a TMQFORWARD's -q, -i, -t, -d, -e after --"},
	{Section: "SERVERS", Keyword: "RESTART", Kind: KindWord, Words: []string{"Y", "N"}, Default: "N",
		Doc: "Y: the BBL restarts an instance that died"},
	{Section: "SERVERS", Keyword: "MAXGEN", Kind: KindInteger, Min: 1, Max: maxMaxGen, Default: "1",
		Doc: "generations of an instance within GRACE, the first included"},
	{Section: "SERVERS", Keyword: "GRACE", Kind: KindInteger, Min: 0, Max: maxGraceS, Default: "86400",
		Doc: "seconds over which MAXGEN counts"},
	{Section: "SERVERS", Keyword: "CONV", Kind: KindWord, Words: []string{"Y", "N"}, Default: "N",
		Doc: "Y without RQADDR: a -p spawned instance is never decayed"},
	{Section: "SERVERS", Keyword: "MAXDISPATCHTHREADS", Kind: KindInteger, Min: 1, Max: maxDispatchThreads, Default: "1", Sweep: true,
		Doc: "dispatch threads of each instance, each running one request at a time (ignored with a warning on GWTDOMAIN)"},
	{Section: "SERVERS", Keyword: "MINDISPATCHTHREADS", Kind: KindInteger, Min: 0, Max: maxDispatchThreads, Default: "0",
		Doc: "at most MAXDISPATCHTHREADS; reported, not simulated (threads start at no cost)"},
	{Section: "SERVICES", Keyword: "SRVGRP", Kind: KindName,
		Doc: "the entry applies to this group's servers only"},
	{Section: "SERVICES", Keyword: "LOAD", Kind: KindInteger, Min: 1, Max: 32767, Default: "50", Sweep: true,
		Doc: "the work one request adds to a queue's load"},
	{Section: "SERVICES", Keyword: "PRIO", Kind: KindInteger, Min: 1, Max: 100, Default: "50", Sweep: true,
		Doc: "dequeue priority: higher first; every 10th hand-off of a queue takes its oldest request"},
	{Section: "SERVICES", Keyword: "SVCTIMEOUT", Kind: KindInteger, Min: 0, Max: maxTimeoutS, Default: "0 (none)",
		Doc: "seconds a request may run before its instance is killed (TPESVCERR)"},
	{Section: "SERVICES", Keyword: "BLOCKTIME", Kind: KindInteger, Min: 0, Max: 32767, Default: "0 (the *RESOURCES one)",
		Doc: "seconds a caller of this service waits for the reply"},
	{Section: "SERVICES", Keyword: "ROUTING", Kind: KindName,
		Doc: "the *ROUTING criterion of the service's data-dependent routing"},
	{Section: "SERVICES", Keyword: "AUTOTRAN", Kind: KindWord, Words: []string{"Y", "N"}, Default: "N",
		Doc: "Y: a request of the service that starts outside a transaction starts one (its group needs TMSNAME)"},
	{Section: "SERVICES", Keyword: "TRANTIME", Kind: KindInteger, Min: 0, Max: maxTimeoutS, Default: "30",
		Doc: "seconds an AUTOTRAN transaction may last before it is aborted (0: no timeout)"},
	{Section: "ROUTING", Keyword: "FIELD", Kind: KindName, Required: true,
		Doc: "the request field whose value is routed"},
	{Section: "ROUTING", Keyword: "RANGES", Kind: KindText, Required: true,
		Doc: "value ranges and the group each goes to"},
	{Section: "ROUTING", Keyword: "BUFTYPE", Kind: KindText,
		Doc: "the buffer types the entry applies to (entries that share a name are told apart by it)"},
}

// ignored are the keywords each section knows (Oracle's UBBCONFIG(5)) that
// the simulator accepts and does not read.
var ignored = map[string]string{
	"RESOURCES": `IPCKEY DOMAINID UID GID PERM MAXACCESSERS MAXSERVERS
		MAXSERVICES MAXCONV MAXGTT MAXBUFTYPE MAXBUFSTYPE MAXDRT MAXRFT MAXRTDATA
		MAXINTERFACES MAXOBJECTS MAXQUEUES MAXACLGROUPS MAXNETGROUPS MAXSPDATA
		MAXTRANTIME MAXAPPCONTEXTS CMTRET NOTIFY USIGNAL SECURITY AUTHSVC
		DBBLWAIT OPTIONS SYSTEM_ACCESS
		SIGNATURE_AHEAD SIGNATURE_BEHIND SIGNATURE_REQUIRED ENCRYPTION_REQUIRED
		SEC_PRINCIPAL_NAME SEC_PRINCIPAL_LOCATION SEC_PRINCIPAL_PASSVAR MIBMASK
		SSL_RENEGOTIATION TAG CURINTERFACE MAXSVCINSTANCE RESTARTBBL SCANSTATUS`,
	"MACHINES": `TUXCONFIG TUXDIR APPDIR ENVFILE ULOGPFX TLOGDEVICE TLOGNAME
		TLOGOFFSET TLOGSIZE TYPE UID GID PERM MAXACCESSERS MAXCONV MAXGTT MAXOBJECTS
		MAXPENDINGBYTES MAXACLCACHE SPINCOUNT CMPLIMIT TUXOFFSET
		SEC_PRINCIPAL_NAME SEC_PRINCIPAL_LOCATION SEC_PRINCIPAL_PASSVAR
		SICACHEENTRIESMAX TXRPCSTATE ROOTDIR BRIDGE MAXTRANTIME SSL_RENEGOTIATION`,
	"GROUPS": `OPENINFO CLOSEINFO ENVFILE
		SEC_PRINCIPAL_NAME SEC_PRINCIPAL_LOCATION SEC_PRINCIPAL_PASSVAR
		SIGNATURE_REQUIRED ENCRYPTION_REQUIRED MRM TMSTHREADS`,
	"NETGROUPS": `NETGRPNO NETPRIO`,
	"NETWORK": `NADDR NLSADDR BRIDGE MINENCRYPTBITS MAXENCRYPTBITS NETGROUP
		TCPKEEPALIVE NODELAY MAXPENDINGBYTES FAILOVER NETPRIO`,
	"SERVERS": `ENVFILE RQPERM REPLYQ RPPERM
		RCMD SEQUENCE SYSTEM_ACCESS
		THREADSTACKSIZE SRVTYPE SICACHEENTRIESMAX SECONDARYRQ
		MAXQUEUELEN SHUTDOWN_PRIORITY UID GID PERM`,
	"SERVICES":   `BUFTYPE BUFTYPECONV SIGNATURE_REQUIRED ENCRYPTION_REQUIRED`,
	"INTERFACES": `AUTOTRAN LOAD PRIO SRVGRP TIMEOUT TRANTIME FACTORYROUTING`,
	"ROUTING":    `FIELDTYPE TYPE`,
}

// sectionOrder is the order of the sections in a UBBCONFIG and in the table.
var sectionOrder = []string{"RESOURCES", "MACHINES", "GROUPS", "NETGROUPS", "NETWORK",
	"SERVERS", "SERVICES", "INTERFACES", "ROUTING"}

// params is the whole table, simulated keywords first in each section;
// paramAt finds an entry by "SECTION.KEYWORD".
var params, paramAt = buildParams()

func buildParams() ([]Param, map[string]*Param) {
	var all []Param
	for _, sec := range sectionOrder {
		for _, p := range simulated {
			if p.Section == sec {
				p.Simulated = true
				all = append(all, p)
			}
		}
		for _, k := range strings.Fields(ignored[sec]) {
			all = append(all, Param{Section: sec, Keyword: k})
		}
	}
	at := make(map[string]*Param, len(all))
	for i := range all {
		at[all[i].Section+"."+all[i].Keyword] = &all[i]
	}
	return all, at
}

// Params returns the table of the UBBCONFIG keywords the reader knows, section
// by section in file order, the simulated keywords of a section first. The
// slice is a copy; its Words are shared and must not be changed.
func Params() []Param { return append([]Param(nil), params...) }

// LookupParam returns the table's entry for a keyword of a section (both in
// upper case), or nil when the reader does not know it.
func LookupParam(section, keyword string) *Param {
	p := paramAt[section+"."+keyword]
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// SweepParams returns the parameters sweeps take as keys, in table order.
func SweepParams() []Param {
	var out []Param
	for _, p := range params {
		if p.Sweep {
			out = append(out, p)
		}
	}
	return out
}

// sectionKeywords returns, for each section, the set of keywords it knows.
func sectionKeywords() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, p := range params {
		if out[p.Section] == nil {
			out[p.Section] = map[string]bool{}
		}
		out[p.Section][p.Keyword] = true
	}
	return out
}

// intIn reads an integer parameter of section through the table's range,
// returning def when e lacks it (a bad value is reported and def returned).
func (b *builder) intIn(e *entry, section, key string, def int) int {
	lo, hi := rangeOf(section, key)
	return b.intParam(e, key, def, lo, hi)
}

// rangeOf returns the range of an integer parameter of the table; a name
// that is not one is a mistake in this package.
func rangeOf(section, key string) (lo, hi int) {
	p := paramAt[section+"."+key]
	if p == nil || p.Kind != KindInteger {
		panic("ubb: no integer parameter " + section + "." + key + " in the table")
	}
	return p.Min, p.Max
}
