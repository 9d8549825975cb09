package starter

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// maxEmpirical is the most values an empirical route distribution lists:
// a log with more distinct values (accounts, say) is summed up by that
// many of its quantiles, equally likely, which keeps each range's share
// of them to within 1/maxEmpirical.
const maxEmpirical = 1000

// routeSource gives routed services their routing values in a made
// scenario: the values the trace's routing column gave (traced: service
// → value → rows; nil without a trace), else the criterion's RANGES
// weighted by width (routeFor).
type routeSource struct {
	m      *core.Model
	traced map[string]map[string]int64
}

// stream is the route of a stream of svc: nil when svc is not routed or
// nothing can be drawn.
func (rs routeSource) stream(svc string) *scenario.RouteSpec {
	if spec := rs.empirical(svc); spec != nil {
		return spec
	}
	if r := routeFor(rs.m, svc, servingGroups(rs.m, svc)); r != nil {
		return r.spec
	}
	return nil
}

// criterion is the routing criterion of svc, nil when it has none.
func (rs routeSource) criterion(svc string) *ubb.Criterion {
	if s := rs.m.Service(svc); s != nil && s.Routing != "" {
		return rs.m.Criterion(s.Routing)
	}
	return nil
}

// sameField reports whether a request of caller carries a value of the
// FIELD child is routed on: caller is routed on that same FIELD (so the
// child's default, "inherit", passes the caller's own value on).
func (rs routeSource) sameField(caller, child string) bool {
	a, b := rs.criterion(caller), rs.criterion(child)
	return a != nil && b != nil && a.Field != "" && a.Field == b.Field
}

// routeCalls gives every call step of sc's services to a routed service a
// route drawn as a stream's would be (stream), unless the step has one or
// its caller is routed on the same FIELD: a child inherits its caller's
// value by default, and a caller without one would leave it none, so
// every such child failed with TPESYSTEM.
func routeCalls(sc *scenario.Scenario, rs routeSource) {
	for caller, spec := range sc.Services {
		changed := false
		for i, c := range spec.Calls {
			if c.Route != nil || rs.criterion(c.Service) == nil || rs.sameField(caller, c.Service) {
				continue
			}
			if r := rs.stream(c.Service); r != nil {
				if !changed {
					spec.Calls = slices.Clone(spec.Calls)
					changed = true
				}
				spec.Calls[i].Route = &scenario.CallRoute{Spec: r}
			}
		}
		if changed {
			sc.Services[caller] = spec
		}
	}
}

// empirical is the distribution of the routing values the trace gave svc,
// or, when it gave svc none, the services routed on the same FIELD (the
// log's column holds that field's values whatever the service): each
// distinct value weighted by its rows. Values a criterion of numbers
// cannot read are left out. nil without any.
func (rs routeSource) empirical(svc string) *scenario.RouteSpec {
	c := rs.criterion(svc)
	if c == nil || len(rs.traced) == 0 {
		return nil
	}
	counts := rs.traced[svc]
	if len(usable(c, counts)) == 0 {
		counts = map[string]int64{}
		for other, vals := range rs.traced {
			if oc := rs.criterion(other); oc != nil && oc.Field == c.Field && c.Field != "" {
				for v, n := range vals {
					counts[v] += n
				}
			}
		}
	}
	vals := usable(c, counts)
	if len(vals) == 0 {
		return nil
	}
	key := func(v string) float64 { f, _ := strconv.ParseFloat(v, 64); return f }
	slices.SortFunc(vals, func(a, b string) int {
		if c.Kind != ubb.KindString {
			if d := cmp.Compare(key(a), key(b)); d != 0 {
				return d
			}
		}
		return cmp.Compare(a, b)
	})
	spec := &scenario.RouteSpec{}
	if len(vals) <= maxEmpirical {
		for _, v := range vals {
			spec.Values = append(spec.Values, scenario.RouteValue(v))
			spec.Weights = append(spec.Weights, float64(counts[v]))
		}
		return spec
	}
	// The quantiles (k+0.5)/maxEmpirical of the rows' values, in order.
	var total int64
	for _, v := range vals {
		total += counts[v]
	}
	var seen int64
	j := 0
	for k := range maxEmpirical {
		at := (int64(k)*2 + 1) * total / (2 * maxEmpirical) // the row at that quantile, from 0
		for seen+counts[vals[j]] <= at {
			seen += counts[vals[j]]
			j++
		}
		if n := len(spec.Values); n > 0 && spec.Values[n-1] == scenario.RouteValue(vals[j]) {
			spec.Weights[n-1]++ // a value holding several quantiles
			continue
		}
		spec.Values = append(spec.Values, scenario.RouteValue(vals[j]))
		spec.Weights = append(spec.Weights, 1)
	}
	return spec
}

// usable are the values of counts that criterion c reads: every one for a
// criterion of strings, the numbers for one of numbers.
func usable(c *ubb.Criterion, counts map[string]int64) []string {
	var out []string
	for v, n := range counts {
		if n <= 0 || v == "" {
			continue
		}
		if c.Kind != ubb.KindString {
			if _, ok := ubb.NumberValue(v); !ok {
				continue
			}
		}
		out = append(out, v)
	}
	return out
}
