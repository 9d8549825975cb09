package workload

import (
	"fmt"
	"math"
	"strconv"

	"github.com/tuxlb/tuxlb/core/dist"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/vocab"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// This file is data-dependent routing on the workload's side: the routing
// value of a trace row or a generated request, and the range of its
// service's criterion that holds it (docs/engine.md, "Data-dependent
// routing"; docs/scenario.md for the fields).

// routeDistKind is the distribution of a stream's numeric routing values.
type routeDistKind uint8

// The distributions of routing values.
const (
	routeUniform routeDistKind = iota
	routeNormal
	routeExp
)

var routeDists = vocab.Table[routeDistKind]{What: "routing value distribution", Names: []string{"uniform", "normal", "exp"}}

// StreamRoute is a checked RouteSpec, and the requests' buffer type: what
// a stream needs to draw values and route them.
type StreamRoute struct {
	crit *ubb.Criterion // the entry of the criterion its requests are routed by
	base int32          // where crit's ranges start among the service's routes
	buf  int32          // the requests' buffer type (a bufTable index; 0: none)
	// noBuf says that the buffer type is one no entry of the criterion
	// holds: every request fails with TPESYSTEM.
	noBuf   bool
	valued  bool // values are drawn (dist or values given)
	isList  bool
	kind    routeDistKind
	a, b    float64 // uniform: min, max; normal: mean, sd; exp: mean
	integer bool
	values  []string
	ranges  []int32   // per value: its Route
	cum     []float64 // cumulative weights, the last is the total
}

// maxRouteValue bounds the numbers a stream may draw, so that whole numbers
// stay exact in a float64.
const maxRouteValue = 1 << 52

// CheckRoute checks a stream's route field against the service's criterion
// (crit nil: the model is not at hand, only the shape is checked).
func (c *StreamCheck) CheckRoute(n *Names, service int) *StreamRoute {
	rs, bt := c.Stream.Route, c.Stream.BufType
	if rs == nil && bt == "" {
		return nil
	}
	if bt != "" {
		if msg := ubb.CheckBufType(bt); msg != "" {
			c.fail("buftype", "%s", msg)
			return nil
		}
	}
	r := &StreamRoute{valued: rs != nil}
	if bufs := c.Bufs; n != nil || bufs != nil {
		if n != nil {
			bufs = n.Bufs
		}
		r.buf = bufs.Index(bt) // carried by the requests, for nested requests to inherit
	}
	if n != nil {
		set := n.Sets[service]
		if set == nil {
			field, what := "route", "its requests carry no routing value"
			if rs == nil {
				field, what = "buftype", "its buffer type picks no routing entry"
			}
			c.fail(field, "service %s has no routing criterion (ROUTING= in *SERVICES), so %s", c.Stream.Service, what)
			return nil
		}
		k := set.Pick(n.Bufs, r.buf)
		if k < 0 {
			r.noBuf = true // every request fails with TPESYSTEM; its values are not checked
			return r
		}
		r.crit, r.base = set.Entries[k], set.base[k]
	}
	if rs == nil {
		return r
	}
	crit := r.crit
	r.integer = rs.Integer == nil || *rs.Integer
	num := func(field string, p *float64) float64 {
		if p == nil {
			c.fail("route."+field, "missing for dist %q", rs.Dist)
			return 0
		}
		if math.IsNaN(*p) || math.Abs(*p) > maxRouteValue {
			c.fail("route."+field, "must be a number between %d and %d, got %g", -maxRouteValue, maxRouteValue, *p)
		}
		return *p
	}
	unused := func(fields ...string) {
		given := map[string]bool{"min": rs.Min != nil, "max": rs.Max != nil, "mean": rs.Mean != nil, "sd": rs.SD != nil,
			"integer": rs.Integer != nil, "weights": rs.Weights != nil}
		for _, f := range fields {
			if given[f] {
				c.fail("route."+f, "not used here")
			}
		}
	}
	switch {
	case rs.Dist != "" && rs.Values != nil:
		c.fail("route", "give dist or values, not both")
	case rs.Values != nil:
		c.routeList(r, rs)
		unused("min", "max", "mean", "sd", "integer")
	case rs.Dist == "":
		c.fail("route", "give dist (%s) or values", routeDists.Want())
	default:
		kind, ok := routeDists.Lookup(rs.Dist)
		if !ok {
			c.fail("route.dist", "unknown %s %q (want %s)", routeDists.What, rs.Dist, routeDists.Want())
			return nil
		}
		r.kind = kind
		switch kind {
		case routeUniform:
			r.a, r.b = num("min", rs.Min), num("max", rs.Max)
			if r.a > r.b {
				c.fail("route.max", "must be >= min (%g), got %g", r.a, r.b)
			}
			if r.integer && (r.a != math.Trunc(r.a) || r.b != math.Trunc(r.b)) {
				c.fail("route.min", "min and max must be whole numbers when integer is true (the default)")
			}
			unused("mean", "sd", "weights")
		case routeNormal:
			r.a, r.b = num("mean", rs.Mean), num("sd", rs.SD)
			if r.b < 0 {
				c.fail("route.sd", "must be >= 0, got %g", r.b)
			}
			unused("min", "max", "weights")
		case routeExp:
			r.a = num("mean", rs.Mean)
			if r.a <= 0 {
				c.fail("route.mean", "must be > 0, got %g", r.a)
			}
			unused("min", "max", "sd", "weights")
		}
		if crit != nil && crit.Kind == ubb.KindString {
			c.fail("route.dist", "criterion %s compares strings, so its values must be given as a list (route.values)", crit.Name)
		}
	}
	return r
}

// routeList checks a weighted list of values.
func (c *StreamCheck) routeList(r *StreamRoute, rs *scenario.RouteSpec) {
	r.isList = true
	if len(rs.Values) == 0 {
		c.fail("route.values", "want at least one value")
		return
	}
	if rs.Weights != nil && len(rs.Weights) != len(rs.Values) {
		c.fail("route.weights", "want one weight per value (%d), got %d", len(rs.Values), len(rs.Weights))
		return
	}
	total := 0.0
	for i, v := range rs.Values {
		field := fmt.Sprintf("route.values[%d]", i)
		if v == "" {
			c.fail(field, "empty: a value must be a non-empty string or a number")
		}
		if r.crit != nil && r.crit.Kind == ubb.KindNumber {
			if _, ok := ubb.NumberValue(string(v)); !ok {
				c.fail(field, "criterion %s compares numbers, got %q", r.crit.Name, string(v))
			}
		}
		w := 1.0
		if rs.Weights != nil {
			w = rs.Weights[i]
			if math.IsNaN(w) || w < 0 || w > 1e12 {
				c.fail(fmt.Sprintf("route.weights[%d]", i), "must be between 0 and 1e12, got %g", w)
			}
		}
		total += w
		r.values = append(r.values, string(v))
		r.cum = append(r.cum, total)
		if r.crit != nil {
			r.ranges = append(r.ranges, routeIn(r.crit, r.base, string(v)))
		}
	}
	if total <= 0 {
		c.fail("route.weights", "at least one weight must be > 0")
	}
}

// routeIn is routeOf for an entry whose ranges start at base among its
// service's routes (the entries of one criterion name, flattened).
func routeIn(c *ubb.Criterion, base int32, text string) int32 { return based(RouteOf(c, text), base) }

// based is Route k of an entry whose ranges start at base among its
// service's routes: k past base when it names a range, else k.
func based(k, base int32) int32 {
	if k > 0 {
		k += base
	}
	return k
}

// RouteOf returns the Route of a value given as text for criterion c.
func RouteOf(c *ubb.Criterion, text string) int32 {
	if text == "" {
		return RouteNone
	}
	k := c.Match(c.ParseValue(text))
	if k < 0 {
		return RouteNoMatch
	}
	return int32(k + 1)
}

// Draw sets r's buffer type and routing value from rd (a generator seeded
// for this request).
func (sr *StreamRoute) Draw(rd *rng.PCG, r *Request) {
	r.Buf = sr.buf
	switch {
	case sr.noBuf:
		r.Route = RouteNoBuf
		return
	case !sr.valued:
		return
	}
	if sr.isList {
		u := float64(rd.Float64() * sr.cum[len(sr.cum)-1])
		i := Pick(sr.cum, u)
		// the first value whose cumulative weight is above u (never one
		// of weight 0): a list of thousands of values is halved, not
		// scanned
		r.RouteVal, r.Route = sr.values[i], RouteNone
		if sr.ranges != nil {
			r.Route = sr.ranges[i]
		}
		return
	}
	var x float64
	if sr.kind == routeUniform && sr.integer {
		// a whole number from min to max, both whole and within
		// maxRouteValue: nothing to round or bound (the common draw, an
		// account number)
		x = sr.a + float64(rd.IntN(int(sr.b-sr.a)+1))
	} else {
		switch sr.kind {
		case routeUniform:
			x = float64((sr.b-sr.a)*rd.Float64()) + sr.a
		case routeNormal:
			x = float64(sr.b*dist.Normal(rd)) + sr.a
		case routeExp:
			x = float64(sr.a * rd.ExpFloat64())
		}
		if sr.integer {
			x = math.Round(x)
		}
		x = min(max(x, -maxRouteValue), maxRouteValue)
	}
	r.RouteVal, r.RouteNum = "", x
	var buf [40]byte
	if sr.crit == nil { // a value carried for the nested requests to inherit
		r.RouteVal, r.Route = string(strconv.AppendFloat(buf[:0], x, 'f', -1, 64)), RouteNone
		return
	}
	if k, ok := sr.crit.MatchFloat(x); ok {
		r.Route = routeOfIndex(k)
	} else {
		r.Route = routeOfNumber(sr.crit, strconv.AppendFloat(buf[:0], x, 'f', -1, 64))
	}
	r.Route = based(r.Route, sr.base)
}

// routeOfNumber is routeOf for a number written in b.
func routeOfNumber(c *ubb.Criterion, b []byte) int32 {
	v, _ := ubb.NumberValue(string(b))
	return routeOfIndex(c.Match(v))
}

// routeOfIndex is the Route of range k of a criterion (-1: none holds the
// value).
func routeOfIndex(k int) int32 {
	if k < 0 {
		return RouteNoMatch
	}
	return int32(k + 1)
}

// RouteOfNumber is RouteOf for the number x, as its text
// (strconv.FormatFloat(x, 'f', -1, 64)) would route, written only when the
// criterion's bounds need it.
func RouteOfNumber(c *ubb.Criterion, x float64) int32 {
	if c.Kind != ubb.KindString { // (a string criterion reads the text as a string)
		if k, ok := c.MatchFloat(x); ok {
			return routeOfIndex(k)
		}
	}
	return RouteOf(c, strconv.FormatFloat(x, 'f', -1, 64))
}

// CritSet is the criterion of a routed service: its *ROUTING entries of
// that name, in file order (several when BUFTYPE tells them apart), and
// where each entry's ranges start when they are numbered one after the
// other (a request's Route k > 0 is range k-1 of that flattened list).
type CritSet struct {
	Entries []*ubb.Criterion
	base    []int32
	Ranges  int32 // the ranges of every entry
}

func NewCritSet(m *ubb.Model, name string) *CritSet {
	cs := &CritSet{Entries: m.RoutingEntries(name)}
	for _, c := range cs.Entries {
		cs.base = append(cs.base, cs.Ranges)
		cs.Ranges += int32(len(c.Ranges))
	}
	return cs
}

// Pick returns the index of the entry that routes a request of buffer type
// buf (a bufTable index): the first entry when the request gives none,
// else the first entry that holds it (one without BUFTYPE holds every
// type); -1 when none does.
func (cs *CritSet) Pick(t *BufTable, buf int32) int {
	if buf == 0 {
		return 0
	}
	for i, c := range cs.Entries {
		if c.BufType == "" || buf > 0 && c.HoldsBufType(t.names[buf-1]) {
			return i
		}
	}
	return -1
}

// Route returns the Route of a request of buffer type buf whose routing
// value is text ("" for none).
func (cs *CritSet) Route(t *BufTable, buf int32, text string) int32 {
	k := cs.Pick(t, buf)
	if k < 0 {
		return RouteNoBuf
	}
	return routeIn(cs.Entries[k], cs.base[k], text)
}

// RouteNumber is Route for the number x, as its text would route.
func (cs *CritSet) RouteNumber(t *BufTable, buf int32, x float64) int32 {
	k := cs.Pick(t, buf)
	if k < 0 {
		return RouteNoBuf
	}
	return based(RouteOfNumber(cs.Entries[k], x), cs.base[k])
}

// EntryOf returns the entry, and the range within it, of Route k > 0.
func (cs *CritSet) EntryOf(k int32) (*ubb.Criterion, int) {
	i := len(cs.Entries) - 1
	for i > 0 && cs.base[i] >= k {
		i--
	}
	return cs.Entries[i], int(k - 1 - cs.base[i])
}

// BufTable numbers buffer types ("TYPE" or "TYPE:SUBTYPE") so that a
// request carries its own as a number: 0 for none, from 1 those that the
// model's BUFTYPE lists name (in file order), then those the workload
// gives that no BUFTYPE lists (interned as it is compiled: only entries
// without BUFTYPE hold them), -1 for one not interned. A run only reads it.
type BufTable struct {
	names []string
	at    map[string]int32
}

func NewBufTable(m *ubb.Model) *BufTable {
	t := &BufTable{at: map[string]int32{}}
	for i := range m.Routing {
		for _, bt := range m.Routing[i].BufTypes() {
			if _, ok := t.at[bt]; !ok {
				t.names = append(t.names, bt)
				t.at[bt] = int32(len(t.names))
			}
		}
	}
	return t
}

// Index returns the number of buffer type bt, numbering it if it has
// none yet.
func (t *BufTable) Index(bt string) int32 {
	if bt == "" {
		return 0
	}
	if k, ok := t.at[bt]; ok {
		return k
	}
	t.names = append(t.names, bt)
	t.at[bt] = int32(len(t.names))
	return int32(len(t.names))
}

// Lookup returns the number of buffer type bt, -1 when it has none: a
// run reads the table, the compiling numbers.
func (t *BufTable) Lookup(bt string) int32 {
	if k, ok := t.at[bt]; ok {
		return k
	}
	return -1
}

// Name is the buffer type numbered k, as explanations show it.
func (t *BufTable) Name(k int32) string {
	switch {
	case k > 0:
		return t.names[k-1]
	case k < 0:
		return "?"
	}
	return ""
}

// RouteText is the routing value of r as explanations show it.
func RouteText(r *Request) string {
	if r.RouteVal != "" || r.Route == RouteNone {
		return r.RouteVal
	}
	return strconv.FormatFloat(r.RouteNum, 'f', -1, 64)
}
