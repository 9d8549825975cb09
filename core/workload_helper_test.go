package core

import "github.com/tuxlb/tuxlb/core/ubb"

// handModel builds by hand the model a UBBCONFIG like this would give:
// MASTER site1; machines site1, site2; groups G1 (site1), G2 (site2), GW
// (site1, a GWTDOMAIN forwarding REMOTE to domain RDOM); G1/1 advertises
// TOLOWER and TOUPPER, G2/2 advertises TOUPPER.
func handModel() *Model {
	m := &Model{
		Model: "MP", LDBAL: true, Master: "site1",
		ScanUnitUS: 10_000_000, SanityScan: 12, BlockTime: 6,
		Machines: []ubb.Machine{{LMID: "site1", PMID: "host1"}, {LMID: "site2", PMID: "host2", NetLoad: 100}},
		Groups:   []ubb.Group{{Name: "G1", GrpNo: 1, LMIDs: []string{"site1"}}, {Name: "G2", GrpNo: 2, LMIDs: []string{"site2"}}, {Name: "GW", GrpNo: 3, LMIDs: []string{"site1"}}},
		Services: []ubb.Service{
			{Name: "REMOTE", Load: 50, Prio: 50, Remote: &ubb.RemoteService{Domain: "RDOM", GatewayGroup: "GW"}},
			{Name: "TOLOWER", Load: 50, Prio: 50},
			{Name: "TOUPPER", Load: 50, Prio: 50},
		},
		Domains: []ubb.Domain{{Name: "RDOM"}},
	}
	m.Servers = []ubb.Server{
		{ID: "G1/1", Name: "simpserv", Group: "G1", SrvID: 1, LMID: "site1", Machine: 0, Queue: "G1/1", QueueIdx: 0, Services: []string{"TOLOWER", "TOUPPER"}},
		{ID: "G2/2", Name: "simpserv", Group: "G2", SrvID: 2, LMID: "site2", Machine: 1, Queue: "G2/2", QueueIdx: 1, Services: []string{"TOUPPER"}},
		{ID: "GW/1", Name: "GWTDOMAIN", Group: "GW", SrvID: 1, LMID: "site1", Machine: 0, Queue: "GW/1", QueueIdx: 2, Services: []string{"REMOTE"}, Gateway: true},
	}
	m.Queues = []ubb.Queue{
		{Name: "G1/1", Group: "G1", LMID: "site1", Machine: 0, Servers: []int{0}},
		{Name: "G2/2", Group: "G2", LMID: "site2", Machine: 1, Servers: []int{1}},
		{Name: "GW/1", Group: "GW", LMID: "site1", Machine: 0, Servers: []int{2}},
	}
	return m
}

// Service and machine indexes of handModel.
const (
	svcRemote  = 0
	svcToLower = 1
	svcToUpper = 2
	site1      = 0
	site2      = 1
)

// drain reads every request of a workload.
func drain(rs requestStream) []request {
	var out []request
	var r request
	for rs.Next(&r) {
		out = append(out, r)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
