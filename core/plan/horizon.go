package plan

import (
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/workload"
)

// checkHorizon rejects a scenario in which one service time, divided by the
// speed of a machine that may process it, is already past usec.Max.
func (st *Setup) checkHorizon(sc *scenario.Scenario, _ Options) error {
	m := st.Model
	n := workload.NewNames(m)
	groups := make(map[string]int, len(m.Groups))
	for i := range m.Groups {
		groups[m.Groups[i].Name] = i
	}
	for i := range m.Servers {
		srv := &m.Servers[i]
		g, ok := groups[srv.Group]
		if srv.Gateway || !ok {
			continue
		}
		speed := 1.0
		if srv.Machine < len(st.Speed) {
			speed = st.Speed[srv.Machine]
		}
		for _, name := range srv.Services {
			s, ok := n.ServiceIndex(name)
			if !ok || st.ServiceTime[s][g] == nil {
				continue
			}
			ms, what := dist.BoundMS(st.ServiceTime[s][g])
			if us := ms * 1000 / speed; us > usec.Max {
				field := "services." + name + ".service_time"
				if _, ok := sc.Services[name].ByGroup[srv.Group]; ok {
					field = "services." + name + ".by_group." + srv.Group
				}
				return diag.FieldErrorf(field, "%s %g ms on machine %s (machines.%s.speed %g) takes %.4g ms, "+
					"past the longest simulated time (%s); shorten the service time or raise the machine's speed",
					what, ms, srv.LMID, srv.LMID, speed, us/1000, usec.MaxText)
			}
		}
	}
	return nil
}
