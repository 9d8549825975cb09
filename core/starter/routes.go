package starter

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// routeShare is where a routed service's drawn values go: the route field
// of its streams and the fraction of its requests each server group gets.
type routeShare struct {
	spec  *scenario.RouteSpec
	group map[string]float64 // SRVGRP -> fraction of the requests
}

// routeFor draws a routed service's values from its criterion's RANGES,
// each bounded range (not MIN, MAX nor the catch-all, and served by a
// named group that has a server offering the service) weighted by its
// width: one uniform draw when the ranges are whole numbers that follow one
// another, else one value inside each range (its middle, or a string
// range's low end) weighted by the width (1 for strings). nil when the
// service is not routed or no range can be drawn from.
func routeFor(m *core.Model, svc string, offers map[string]bool) *routeShare {
	s := m.Service(svc)
	if s == nil || s.Routing == "" {
		return nil
	}
	c := m.Criterion(s.Routing)
	if c == nil {
		return nil
	}
	type span struct {
		lo, hi  float64
		integer bool
		str     string
		isStr   bool
		group   string
		width   float64
	}
	var spans []span
	for i, r := range c.Ranges {
		if r.CatchAll || r.Group == "*" || !offers[r.Group] {
			continue
		}
		lo, hi, ok := splitRange(r.Text)
		if !ok {
			continue
		}
		if strings.HasPrefix(lo, "'") {
			v := strings.Trim(lo, "'")
			if c.Match(ubb.StringValue(v)) != i {
				continue
			}
			spans = append(spans, span{str: v, isStr: true, group: r.Group, width: 1})
			continue
		}
		a, errA := strconv.ParseFloat(lo, 64)
		b, errB := strconv.ParseFloat(hi, 64)
		if errA != nil || errB != nil || b < a || math.Abs(a) > 1e15 || math.Abs(b) > 1e15 {
			continue
		}
		va, _ := ubb.NumberValue(lo)
		vb, _ := ubb.NumberValue(hi)
		if c.Match(va) != i || c.Match(vb) != i {
			continue // an earlier range holds part of it: first match wins
		}
		integer := a == math.Trunc(a) && b == math.Trunc(b)
		w := b - a
		if integer {
			w++
		}
		spans = append(spans, span{lo: a, hi: b, integer: integer, group: r.Group, width: max(w, 1)})
	}
	if len(spans) == 0 {
		return nil
	}
	total := 0.0
	rs := &routeShare{group: map[string]float64{}}
	for _, sp := range spans {
		total += sp.width
	}
	for _, sp := range spans {
		rs.group[sp.group] += sp.width / total
	}
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	contiguous := !sorted[0].isStr
	for i, sp := range sorted {
		if sp.isStr || !sp.integer || i > 0 && sp.lo != sorted[i-1].hi+1 {
			contiguous = false
		}
	}
	if contiguous {
		rs.spec = &scenario.RouteSpec{Dist: "uniform", Min: ptr(sorted[0].lo), Max: ptr(sorted[len(sorted)-1].hi)}
		return rs
	}
	rs.spec = &scenario.RouteSpec{}
	for _, sp := range spans {
		v := sp.str
		if !sp.isStr {
			mid := (sp.lo + sp.hi) / 2
			if sp.integer {
				mid = math.Floor(mid)
			}
			v = strconv.FormatFloat(mid, 'f', -1, 64)
		}
		rs.spec.Values = append(rs.spec.Values, scenario.RouteValue(v))
		rs.spec.Weights = append(rs.spec.Weights, sp.width)
	}
	return rs
}

// splitRange splits a range's text into its low and high ends: "lo-hi",
// "lo - hi", a single value (both ends the same), "'A'-'M'". MIN and MAX
// ends are not drawn from (false).
func splitRange(text string) (lo, hi string, ok bool) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "'") {
		end := strings.Index(t[1:], "'")
		if end < 0 {
			return "", "", false
		}
		lo = t[:end+2]
		rest := strings.TrimSpace(t[end+2:])
		if rest == "" {
			return lo, lo, true
		}
		rest = strings.TrimSpace(strings.TrimPrefix(rest, "-"))
		return lo, rest, strings.HasPrefix(rest, "'")
	}
	// A number may carry a sign: the separator is a '-' after a digit.
	for i := 1; i < len(t); i++ {
		if t[i] == '-' && (t[i-1] >= '0' && t[i-1] <= '9' || t[i-1] == ' ') {
			lo, hi = strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+1:])
			if lo == "" {
				continue
			}
			break
		}
	}
	if lo == "" {
		lo, hi = t, t
	}
	if lo == "MIN" || hi == "MAX" || lo == "*" {
		return "", "", false
	}
	return lo, hi, true
}
