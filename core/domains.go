package core

import (
	"strings"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/plan"
)

// This file is the remote domains' side of a domain gateway: the failover
// list of an import (RDOM=A,B,C) and the scenario's domains.X.down
// intervals (docs/engine.md, "Gateways").

// remoteDomain sends f, taken by a gateway at f.startUS, to the first
// remote domain of its import's failover list that is up then, drawing that
// domain's response time; f.remoteUS is -1 when none is up (the request
// fails with TPESVCERR when the gateway is done with it: appCompletion).
func (e *engine) remoteDomain(f *flight, doms []plan.RemoteDomain) {
	for k := range doms {
		if d := &doms[k]; d.UpAt(f.startUS) {
			e.draw.Seed(f.req.Key, streamRemote)
			f.remoteUS = usec.Round(d.Response.SampleMS(&e.draw) * 1000)
			if k > 0 && f.counted {
				e.app.failover[f.req.Service]++
			}
			return
		}
	}
	f.remoteUS = -1
	if f.counted {
		e.app.noDomain[f.req.Service]++
	}
}

// domainWarnings says how many requests of each imported service went to
// an alternate remote domain, and how many found none of its domains up.
func (e *engine) domainWarnings() []string {
	if e.setup.Remote == nil || e.app == nil {
		return nil
	}
	var out []string
	for s, doms := range e.setup.Remote {
		if doms == nil {
			continue
		}
		name := e.m.Services[s].Name
		names := make([]string, len(doms))
		for k := range doms {
			names[k] = doms[k].Name
		}
		if n := e.app.failover[s]; n > 0 {
			out = append(out, sprintf("%d request(s) of %s went to an alternate remote domain (RDOM=%s): %s was down",
				n, name, strings.Join(e.m.Services[s].Remote.Domains(), ","), doms[0].Name))
		}
		if n := e.app.noDomain[s]; n > 0 {
			out = append(out, sprintf("%d request(s) of %s failed with TPESVCERR: no remote domain of %s was up when a gateway took them",
				n, name, diag.JoinAnd(names)))
		}
	}
	return out
}
