package result

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Saturation thresholds: a machine at or above saturatedAt while another
// machine serving some of the same services is below underusedBelow.
const (
	saturatedAt    = 0.95
	underusedBelow = 0.7
)

// Saturation is a machine that saturates while another machine that serves
// some of the same services has room: the balancing sends it more than it
// can take.
type Saturation struct {
	LMID        string   // the saturated machine
	Utilization float64  // its utilization
	Other       string   // the least busy machine serving some of the same services
	OtherUtil   float64  // its utilization
	Services    []string // the services both served, by name
}

// String words the saturation as a result warning.
func (s Saturation) String() string {
	return fmt.Sprintf("machine %s saturates (utilization %s) while %s, which serves the same services (%s), is at %s: the balancing sends %s more than it can take",
		s.LMID, fmtUtil(s.Utilization), s.Other, strings.Join(s.Services, ", "), fmtUtil(s.OtherUtil), s.LMID)
}

func fmtUtil(u float64) string { return strconv.FormatFloat(u, 'f', 2, 64) }

// Saturations finds the saturated machines of a result, in machine order. A
// machine serves a service when one of its servers (gateways left out)
// advertises it and the service was requested. For each saturated machine, the other machine named is
// the least busy one below [underusedBelow] that served a service it served
// (the first in machine order at equal utilization).
func Saturations(r *Result) []Saturation {
	requested := map[string]bool{}
	for _, s := range r.Services {
		if s.Issued > 0 {
			requested[s.Name] = true
		}
	}
	served := map[string]map[string]bool{} // LMID -> services
	for _, s := range r.Servers {
		if s.Name == "GWTDOMAIN" {
			continue
		}
		for _, svc := range s.Services {
			if !requested[svc] {
				continue
			}
			if served[s.LMID] == nil {
				served[s.LMID] = map[string]bool{}
			}
			served[s.LMID][svc] = true
		}
	}
	var out []Saturation
	for _, m := range r.Machines {
		if m.Utilization < saturatedAt {
			continue
		}
		var best *Saturation
		for _, o := range r.Machines {
			if o.LMID == m.LMID || o.Utilization >= underusedBelow || (best != nil && o.Utilization >= best.OtherUtil) {
				continue
			}
			var common []string
			for svc := range served[m.LMID] {
				if served[o.LMID][svc] {
					common = append(common, svc)
				}
			}
			if len(common) == 0 {
				continue
			}
			slices.Sort(common)
			best = &Saturation{LMID: m.LMID, Utilization: m.Utilization, Other: o.LMID, OtherUtil: o.Utilization, Services: common}
		}
		if best != nil {
			out = append(out, *best)
		}
	}
	return out
}
