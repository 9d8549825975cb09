// Package ubb reads Oracle Tuxedo's UBBCONFIG and DMCONFIG files into a Model:
// the machines, groups, server instances, queues and services that load
// balancing needs. It also edits UBBCONFIG text in place (see Edit).
//
// The name is the one Tuxedo people use for the file: a UBB is the "universal
// bulletin board" configuration. The package imports only the standard
// library, is pure and deterministic, and builds for WebAssembly.
//
// Reading is in three layers: a lexer and parser that turn the text into
// sections, entries and positioned parameters (ubbconfig.go), a builder that
// turns those into the Model and checks the values (build.go, dmconfig.go,
// clopt.go, routing.go), and Load, which runs both and returns the Model or an ErrorList
// of positioned diagnostics (config.go).
package ubb

// Model is a Tuxedo application as its UBBCONFIG (and optional DMCONFIG) describes
// it, reduced to what load balancing needs (docs/config.md). Slices are in the order the
// dispatch rules scan them, so "first" always means lowest index.
type Model struct {
	Model      string `json:"model"`       // "SHM" or "MP"
	LDBAL      bool   `json:"ldbal"`       // LDBAL Y/N (default N)
	Master     string `json:"master"`      // LMID named by MASTER, or "" when absent
	ScanUnitUS int64  `json:"scanunit_us"` // SCANUNIT in microseconds (default 10 s)
	SanityScan int    `json:"sanityscan"`  // in SCANUNITs (default 120 s / SCANUNIT)
	BlockTime  int    `json:"blocktime"`   // in SCANUNITs (default 60 s / SCANUNIT)
	// BBLQuery is how often the DBBL checks that the machines' BBLs answer,
	// in SCANUNITs (default 300 s / SCANUNIT).
	BBLQuery int `json:"-"`

	Machines []Machine `json:"machines"` // order of *MACHINES
	Groups   []Group   `json:"groups"`   // order of *GROUPS
	Servers  []Server  `json:"servers"`  // instances in scan order
	Queues   []Queue   `json:"queues"`   // in scan order (position of first instance)
	Services []Service `json:"services"` // every known service, sorted by name
	Domains  []Domain  `json:"domains,omitempty"`
	// Routing is the *ROUTING section's criteria, in file order, each with
	// the services that name it. Entries of one name that differ by
	// BUFTYPE are listed one by one (RoutingEntries).
	Routing []Criterion `json:"routing,omitempty"`
	// TMS lists the groups with TMSNAME, in *GROUPS order, when some
	// *SERVICES entry has AUTOTRAN=Y: only then can a transaction start, and
	// only then are TMS servers modelled (WithTMS). Nil otherwise, so a
	// configuration without AUTOTRAN reads as it always did.
	TMS []TMSGroup `json:"tms,omitempty"`
	// Workstations are the WSL entries of *SERVERS, in scan order: the
	// listeners through which workstation clients enter (their CLOPT's
	// options after "--").
	Workstations []Workstation `json:"workstations,omitempty"`
	// QSpaces are the /Q queue spaces the TMQUEUE instances advertise
	// (CLOPT "-s QSPACE:TMQUEUE"), in the order first advertised.
	QSpaces []QSpace `json:"qspaces,omitempty"`
	// Forwarders are the TMQFORWARD entries of *SERVERS, in scan order,
	// with their options after "--".
	Forwarders []Forwarder `json:"forwarders,omitempty"`
	// MsgQueues are the scenario's /Q queues (WithQueues), queue spaces by
	// name, then queues by name; nil when it has none.
	MsgQueues []MsgQueue `json:"-"`

	Warnings []Diagnostic `json:"warnings,omitempty"`
}

// Machine is one *MACHINES entry: a node of the application, named by its LMID.
type Machine struct {
	LMID    string `json:"lmid"`
	PMID    string `json:"pmid"`    // the physical name the entry starts with
	NetLoad int    `json:"netload"` // NETLOAD, 0..32767, default 0
	// MaxWSClients is MAXWSCLIENTS (0..32767, default 0): how many
	// workstation clients may be connected through the machine's WSLs.
	MaxWSClients int `json:"maxwsclients,omitempty"`
}

// Group is one *GROUPS entry. Its servers run on LMIDs[0]; later LMIDs are
// failover machines and do not take part in load balancing.
type Group struct {
	Name  string   `json:"name"`
	GrpNo int      `json:"grpno"`
	LMIDs []string `json:"lmids"`
	// TMSName is the group's TMSNAME ("" for none: no transaction can run
	// there) and TMSCount its TMSCOUNT (2..256, default 3). They show in
	// the Model's TMS list, not here, so that older configurations keep
	// their bytes.
	TMSName  string `json:"-"`
	TMSCount int    `json:"-"`
}

// TMSGroup is a group whose TMSNAME makes it able to take part in
// transactions: Count TMS servers GROUP/30001 .. GROUP/30000+Count on the
// group's machine, sharing the queue GROUP/TMS.
type TMSGroup struct {
	Group   string `json:"group"`
	Name    string `json:"tmsname"`  // the TMS executable (TMSNAME)
	Count   int    `json:"tmscount"` // TMSCOUNT
	LMID    string `json:"lmid"`
	Machine int    `json:"-"`     // index into Model.Machines (-1 when unknown)
	Queue   string `json:"queue"` // GROUP/TMS
}

// TMSFirstSrvID is the SRVID of a group's first TMS server: they take
// TMSFirstSrvID .. TMSFirstSrvID+TMSCOUNT-1, above every *SERVERS SRVID.
const TMSFirstSrvID = 30001

// Server is one server instance: a *SERVERS entry with MIN=n expands to n of them.
type Server struct {
	ID       string   `json:"id"`    // "GROUP/SRVID"
	Name     string   `json:"name"`  // the executable name, e.g. "simpserv"
	Group    string   `json:"group"` // SRVGRP
	SrvID    int      `json:"srvid"`
	LMID     string   `json:"lmid"`  // first LMID of the group
	Machine  int      `json:"-"`     // index into Model.Machines
	Queue    string   `json:"queue"` // name of its queue (RQADDR, else its ID)
	QueueIdx int      `json:"-"`     // index into Model.Queues
	Services []string `json:"services"`
	System   bool     `json:"system,omitempty"`  // a Tuxedo system server (BBL, TMS, WSL...)
	Gateway  bool     `json:"gateway,omitempty"` // a GWTDOMAIN instance
	// TMS marks one of a group's TMS servers (WithTMS adds them): never a
	// balancing candidate, up from the start, never a target of an event.
	TMS bool `json:"tms,omitempty"`
	// Spare marks an instance past MIN (SRVID+MIN .. SRVID+MAX-1): it exists
	// but starts not running (gone), so it is no candidate and serves
	// nothing until a boot event or -p spawning brings it up.
	Spare bool `json:"spare,omitempty"`
	// AdvertiseSource says where Services came from: "clopt", "scenario",
	// "services" (every *SERVICES entry, with a warning) or "dmconfig".
	AdvertiseSource string `json:"advertise_source"`
	// Life holds RESTART, MAXGEN, GRACE and CLOPT -p of its entry; nil when
	// the entry gives none of them (see Lifecycle for the defaults).
	Life *ServerLifecycle `json:"lifecycle,omitempty"`
	// Threads is its entry's MAXDISPATCHTHREADS, the dispatch threads that
	// each run one request at a time (0 when the entry gives neither it nor
	// MINDISPATCHTHREADS, and for a GWTDOMAIN: one thread; see
	// DispatchThreads). MinThreads is MINDISPATCHTHREADS (0..Threads),
	// reported and not otherwise simulated.
	Threads    int `json:"threads,omitempty"`
	MinThreads int `json:"min_threads,omitempty"`
}

// Queue is a request queue: one per instance, or one per MSSQ set (instances of
// a group sharing an RQADDR).
type Queue struct {
	Name    string `json:"name"`
	Group   string `json:"group"`
	LMID    string `json:"lmid"`
	Machine int    `json:"-"`
	Servers []int  `json:"servers"` // indexes into Model.Servers, scan order
}

// Service is a known service with the LOAD and PRIO that apply outside any
// SRVGRP-specific *SERVICES entry, and those group-specific overrides.
type Service struct {
	Name    string                   `json:"name"`
	Load    int                      `json:"load"`
	Prio    int                      `json:"prio"`
	ByGroup map[string]ServiceParams `json:"by_group,omitempty"`
	// SvcTimeoutS is SVCTIMEOUT in seconds (0: none).
	SvcTimeoutS int `json:"svctimeout,omitempty"`
	// BlockTimeS is the service's own BLOCKTIME in seconds (0: none, the
	// *RESOURCES BLOCKTIME applies): how long a caller waits for its reply.
	BlockTimeS int `json:"blocktime_s,omitempty"`
	// Remote is set for a service imported through DMCONFIG.
	Remote *RemoteService `json:"remote,omitempty"`
	// Routing names the *ROUTING criterion of the service ("" when it is not
	// routed).
	Routing string `json:"routing,omitempty"`
	// AutoTran and TranTimeS are AUTOTRAN and TRANTIME of the general
	// entry (see ServiceParams).
	AutoTran  bool `json:"autotran,omitempty"`
	TranTimeS int  `json:"trantime,omitempty"`
}

// ServiceParams are the LOAD, PRIO, SVCTIMEOUT, AUTOTRAN and TRANTIME of a
// service for one group.
type ServiceParams struct {
	Load        int `json:"load"`
	Prio        int `json:"prio"`
	SvcTimeoutS int `json:"svctimeout,omitempty"` // SVCTIMEOUT in seconds, 0: none
	// AutoTran is AUTOTRAN=Y: a request of the service that starts while not
	// in a transaction starts one (when the group has a TMSNAME).
	AutoTran bool `json:"autotran,omitempty"`
	// TranTimeS is the entry's TRANTIME in seconds when AutoTran is set
	// (default 30; 0: no timeout); 0 when it is not, where it is not used.
	TranTimeS int `json:"trantime,omitempty"`
}

// RemoteService says where an imported service goes: the remote domain (its
// *DM_REMOTE_DOMAINS entry name, which keys the scenario's "domains"), the
// alternates to fail over to, and the gateway group that forwards it.
type RemoteService struct {
	Domain       string `json:"domain"`
	GatewayGroup string `json:"gateway_group"`
	// Alternates are the remote domains listed after Domain in RDOM= (at
	// most two): the gateway sends a request to the first of Domain and
	// its alternates that is up.
	Alternates []string `json:"alternates,omitempty"`
}

// Domains returns Domain and its alternates, in order.
func (r *RemoteService) Domains() []string {
	return append([]string{r.Domain}, r.Alternates...)
}

// Domain is a remote domain of the DMCONFIG.
type Domain struct {
	Name     string `json:"name"`
	DomainID string `json:"domainid,omitempty"`
}

// Params returns the LOAD and PRIO of service s for servers of group g:
// the SRVGRP-specific entry when there is one, else the general one.
func (s *Service) Params(group string) ServiceParams {
	if p, ok := s.ByGroup[group]; ok {
		return p
	}
	return ServiceParams{Load: s.Load, Prio: s.Prio, SvcTimeoutS: s.SvcTimeoutS,
		AutoTran: s.AutoTran, TranTimeS: s.TranTimeS}
}

// Service returns the known service named name, or nil.
func (m *Model) Service(name string) *Service {
	lo, hi := 0, len(m.Services)
	for lo < hi {
		mid := (lo + hi) / 2
		if m.Services[mid].Name < name {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(m.Services) && m.Services[lo].Name == name {
		return &m.Services[lo]
	}
	return nil
}

// Criterion returns the routing criterion named name, or nil.
func (m *Model) Criterion(name string) *Criterion {
	for i := range m.Routing {
		if m.Routing[i].Name == name {
			return &m.Routing[i]
		}
	}
	return nil
}

// RoutingEntries returns the *ROUTING entries named name, in file order
// (several when they differ by BUFTYPE; see PickEntry), or nil.
func (m *Model) RoutingEntries(name string) []*Criterion {
	var out []*Criterion
	for i := range m.Routing {
		if m.Routing[i].Name == name {
			out = append(out, &m.Routing[i])
		}
	}
	return out
}

// MachineIndex returns the index of the machine with this LMID, or -1.
func (m *Model) MachineIndex(lmid string) int {
	for i := range m.Machines {
		if m.Machines[i].LMID == lmid {
			return i
		}
	}
	return -1
}
