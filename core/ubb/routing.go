package ubb

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tuxlb/tuxlb/core/diag"
)

// This file reads data-dependent routing: the *ROUTING section's criteria,
// their RANGES, and ROUTING= on *SERVICES (docs/config.md, "Data-dependent
// routing").

// Criterion is one *ROUTING entry: an ordered list of ranges of a request
// field's values, each naming the server group that serves them.
type Criterion struct {
	Name  string `json:"name"`
	Field string `json:"field"` // FIELD: kept and shown, not simulated
	// BufType is BUFTYPE as written: the buffer types this entry routes.
	// Entries of one name are told apart by it; an entry without it holds
	// every buffer type (see HoldsBufType).
	BufType string `json:"buftype,omitempty"`
	// Kind is "number" when the ranges' values are numbers, "string" when they
	// are quoted strings, "" when they are only MIN, MAX and *.
	Kind     string   `json:"kind"`
	Ranges   []Range  `json:"ranges"`
	Services []string `json:"services"` // the services routed by it, sorted
	Line     int      `json:"line"`     // where the entry starts
	bufs     []bufPair
	// factory is TYPE=FACTORY: a CORBA interface's factory-based routing,
	// named by FACTORYROUTING in *INTERFACES, not by *SERVICES.
	factory bool
}

// bufPair is one type[:subtype] of a BUFTYPE list.
type bufPair struct{ typ, sub string }

func (b bufPair) String() string {
	if b.sub == "" {
		return b.typ
	}
	return b.typ + ":" + b.sub
}

// BufTypes lists the BUFTYPEs of the *ROUTING entries named name, as
// written: "FML (line 12), VIEW:acct;FML32 (line 14)" ("(any)" for an
// entry without BUFTYPE).
func (m *Model) BufTypes(name string) string {
	var parts []string
	for _, c := range m.RoutingEntries(name) {
		bt := c.BufType
		if bt == "" {
			bt = "(any)"
		}
		parts = append(parts, fmt.Sprintf("%s (line %d)", bt, c.Line))
	}
	return strings.Join(parts, ", ")
}

// HoldsBufType reports whether this entry routes requests whose buffer
// type is bt ("TYPE" or "TYPE:SUBTYPE", compared exactly): an entry
// without BUFTYPE holds every buffer type, one with BUFTYPE the pairs it lists.
func (c *Criterion) HoldsBufType(bt string) bool {
	if c.BufType == "" {
		return true
	}
	typ, sub, _ := strings.Cut(bt, ":")
	for _, p := range c.bufs {
		if p.typ == typ && p.sub == sub {
			return true
		}
	}
	return false
}

// BufTypes returns the type/subtype pairs of BUFTYPE as "TYPE" or
// "TYPE:SUBTYPE", in the order written (none without BUFTYPE).
func (c *Criterion) BufTypes() []string {
	out := make([]string, len(c.bufs))
	for i, p := range c.bufs {
		out[i] = p.String()
	}
	return out
}

// PickEntry returns the index of the entry of entries (those of one
// criterion name, in file order) that routes a request of buffer type bt:
// the first entry when bt is "", else the first entry that holds bt; -1
// when none does.
func PickEntry(entries []*Criterion, bt string) int {
	if bt == "" {
		if len(entries) == 0 {
			return -1
		}
		return 0
	}
	for i, c := range entries {
		if c.HoldsBufType(bt) {
			return i
		}
	}
	return -1
}

// CheckBufType checks a request's buffer type as a trace or a stream gives
// it: one TYPE or TYPE:SUBTYPE, without ';', ',', '*' or blanks. It returns
// "" when bt is fine, else what is wrong with it.
func CheckBufType(bt string) string {
	typ, sub, hasSub := strings.Cut(bt, ":")
	switch {
	case bt == "":
		return "empty"
	case strings.ContainsAny(bt, ";,* \t\r\n"):
		return "want one buffer type, TYPE or TYPE:SUBTYPE (such as FML32 or VIEW:acct), got " + strconvQuote(bt)
	case typ == "" || hasSub && (sub == "" || strings.Contains(sub, ":")):
		return "want TYPE or TYPE:SUBTYPE (such as FML32 or VIEW:acct), got " + strconvQuote(bt)
	}
	return ""
}

// routedBufTypes are the buffer types Tuxedo routes by data (UBBCONFIG(5)
// *ROUTING BUFTYPE); those in withSubtype need one, the others take none.
var routedBufTypes = []string{"FML", "FML32", "VIEW", "VIEW32", "X_C_TYPE", "X_COMMON", "XML"}

func withSubtype(typ string) bool {
	return typ == "VIEW" || typ == "VIEW32" || typ == "X_C_TYPE" || typ == "X_COMMON"
}

// maxBufPairs is how many type/subtype pairs one BUFTYPE may list.
const maxBufPairs = 32

// parseBufType reads BUFTYPE: "type1[:subtype1[,subtype2...]][;type2[:...]]...",
// into c.bufs. False after an error (reported at its line and column).
func (b *builder) parseBufType(c *Criterion, p param) bool {
	v := p.value
	// A BUFTYPE this reader cannot use is a warning, not an error: real
	// configurations carry types and forms it does not know, and BUFTYPE
	// only decides between entries that share a name. The criterion then
	// holds every buffer type, as one without BUFTYPE does.
	fail := func(off int, format string, args ...any) bool {
		b.warnf(valuePos(p, off), "routing criterion %s: BUFTYPE: "+format+"; the criterion is taken to hold every buffer type", append([]any{c.Name}, args...)...)
		c.bufs = nil
		return true
	}
	if strings.TrimSpace(v) == "" {
		return fail(0, "empty: expected type[:subtype[,subtype]] items separated by ';', such as FML or VIEW:acct")
	}
	seen := map[bufPair]bool{}
	off := 0
	for _, item := range strings.Split(v, ";") {
		at := off
		off += len(item) + 1
		typPart, subs, hasSub := strings.Cut(item, ":")
		typ := strings.TrimSpace(typPart)
		typAt := at + lead(typPart)
		switch {
		case typ == "":
			return fail(typAt, "expected a buffer type (%s) in each ';'-separated item", joinTypes())
		case !slicesContains(routedBufTypes, typ):
			return fail(typAt, "buffer type %s cannot be routed: expected %s", typ, joinTypes())
		case withSubtype(typ) && !hasSub:
			return fail(typAt, "%s needs a subtype (%s:name; * is not allowed)", typ, typ)
		case !withSubtype(typ) && hasSub:
			return fail(typAt, "%s takes no subtype, got %s", typ, strings.TrimSpace(item))
		}
		pairs := []bufPair{{typ: typ}}
		if hasSub {
			pairs = pairs[:0]
			subAt := at + len(typPart) + 1
			for _, sub := range strings.Split(subs, ",") {
				name := strings.TrimSpace(sub)
				nameAt := subAt + lead(sub)
				subAt += len(sub) + 1
				switch {
				case name == "":
					return fail(nameAt, "%s: expected a subtype name", typ)
				case name == "*":
					return fail(nameAt, "%s:*: the wildcard * is not allowed here: name each subtype", typ)
				case strings.ContainsAny(name, ":* \t\r\n"):
					return fail(nameAt, "%s: malformed subtype %q", typ, name)
				}
				pairs = append(pairs, bufPair{typ: typ, sub: name})
			}
		}
		for _, pr := range pairs {
			if seen[pr] {
				return fail(typAt, "%s is listed twice", pr)
			}
			seen[pr] = true
			c.bufs = append(c.bufs, pr)
		}
	}
	if len(c.bufs) > maxBufPairs {
		return fail(0, "%d type/subtype pairs: at most %d are allowed", len(c.bufs), maxBufPairs)
	}
	return true
}

func joinTypes() string {
	return strings.Join(routedBufTypes[:len(routedBufTypes)-1], ", ") + " or " + routedBufTypes[len(routedBufTypes)-1]
}

// lead is the number of blank bytes s starts with.
func lead(s string) int { return len(s) - len(strings.TrimLeft(s, " \t\r\n\f\v")) }

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", diag.CapText(s)) }

// Range is one range:group item of RANGES.
type Range struct {
	Text  string `json:"text"`  // the range as written, without the group: "10000-49999", "'A'-'M'", "*"
	Group string `json:"group"` // a *GROUPS name, or "*" for any group
	// CatchAll marks the final "*" range, which holds every value that no
	// listed range holds.
	CatchAll bool `json:"catch_all,omitempty"`
	lo, hi   bound
	// for MatchFloat: loF and hiF are the bounds as float64s (MIN and MAX
	// infinite), when fast; else strs says a bound is a string (the range
	// never holds a number), and neither that only the texts can say
	loF, hiF   float64
	fast, strs bool
}

// floats sets r's bounds for MatchFloat.
func (r *Range) floats() {
	r.fast, r.strs = true, r.lo.kind == boundStr || r.hi.kind == boundStr
	r.loF, r.hiF = math.Inf(-1), math.Inf(1)
	for _, b := range []struct {
		b *bound
		f *float64
	}{{&r.lo, &r.loF}, {&r.hi, &r.hiF}} {
		switch b.b.kind {
		case boundNum:
			*b.f = b.b.f
			r.fast = r.fast && b.b.exact
		case boundStr:
			r.fast = false
		}
	}
}

// bound is one end of a range: MIN, MAX, a number or a string.
type bound struct {
	kind boundKind
	num  decimal
	str  string
	// f is a number bound as a float64; exact says that f's shortest text
	// (strconv.FormatFloat(f, 'f', -1, 64)) is the bound, so that a float64
	// compares with f as their shortest texts compare (MatchFloat)
	f     float64
	exact bool
}

type boundKind uint8

const (
	boundMin boundKind = iota
	boundNum
	boundStr
	boundMax
)

// decimal is a number as written, normalised for exact comparison: no
// leading zeros in ip, no trailing zeros in fp, zero never negative.
type decimal struct {
	neg    bool
	ip, fp string
}

// parseDecimal reads [+-]digits[.digits][e[+-]digits] (or [+-].digits, or
// digits.), exactly: an exponent shifts the digits (at most 1000 places).
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	if s != "" && (s[0] == '+' || s[0] == '-') {
		d.neg = s[0] == '-'
		s = s[1:]
	}
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e := s[i+1:]
		s = s[:i]
		neg := false
		if e != "" && (e[0] == '+' || e[0] == '-') {
			neg = e[0] == '-'
			e = e[1:]
		}
		if e == "" || len(e) > 4 || !allDigits(e) {
			return decimal{}, false
		}
		for _, c := range e {
			exp = exp*10 + int(c-'0')
		}
		if exp > 1000 {
			return decimal{}, false
		}
		if neg {
			exp = -exp
		}
	}
	ip, fp, _ := strings.Cut(s, ".")
	if ip == "" && fp == "" || !allDigits(ip) || !allDigits(fp) {
		return decimal{}, false
	}
	if exp > 0 {
		fp += strings.Repeat("0", max(0, exp-len(fp)))
		ip, fp = ip+fp[:exp], fp[exp:]
	} else if exp < 0 {
		ip = strings.Repeat("0", max(0, -exp-len(ip))) + ip
		ip, fp = ip[:len(ip)+exp], ip[len(ip)+exp:]+fp
	}
	d.ip = strings.TrimLeft(ip, "0")
	d.fp = strings.TrimRight(fp, "0")
	if d.ip == "" && d.fp == "" {
		d.neg = false
	}
	return d, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// cmpDecimal compares a and b exactly: -1, 0 or 1.
func cmpDecimal(a, b decimal) int {
	if a.neg != b.neg {
		if a.neg {
			return -1
		}
		return 1
	}
	var c int
	switch {
	case len(a.ip) != len(b.ip):
		c = cmp.Compare(len(a.ip), len(b.ip))
	case a.ip != b.ip:
		c = strings.Compare(a.ip, b.ip)
	default:
		c = strings.Compare(a.fp, b.fp)
	}
	if a.neg {
		return -c
	}
	return c
}

// cmpBound compares two bounds of one criterion (MIN first, MAX last).
func cmpBound(a, b bound) int {
	switch {
	case a.kind == boundNum && b.kind == boundNum:
		return cmpDecimal(a.num, b.num)
	case a.kind == boundStr && b.kind == boundStr:
		return strings.Compare(a.str, b.str)
	}
	return cmp.Compare(a.kind, b.kind)
}

// Value is a routing value ready to be matched against a criterion: a
// number (an exact decimal) or a string (compared as bytes).
type Value struct {
	isNum bool
	num   decimal
	str   string
}

// NumberValue parses s as a number ([+-]digits[.digits]); false when it is not one.
func NumberValue(s string) (Value, bool) {
	d, ok := parseDecimal(s)
	return Value{isNum: true, num: d}, ok
}

// StringValue is s as a string routing value.
func StringValue(s string) Value { return Value{str: s} }

// ParseValue reads a routing value given as text for criterion c: a number
// when c's values are not strings and s is a number, else the string s.
func (c *Criterion) ParseValue(s string) Value {
	if c.Kind != KindString {
		if v, ok := NumberValue(s); ok {
			return v
		}
	}
	return StringValue(s)
}

// The kinds of a criterion's values.
const (
	KindNumber = "number"
	KindString = "string"
)

// Match returns the index of the first range of c that holds v (the final
// catch-all holds every value that no listed range holds), or -1 when none
// does. A number never falls in a range of strings, nor a string in a range
// of numbers; MIN-MAX holds both.
func (c *Criterion) Match(v Value) int {
	for i := range c.Ranges {
		r := &c.Ranges[i]
		if r.CatchAll || r.holds(v) {
			return i
		}
	}
	return -1
}

// MatchFloat is Match for the number x as its shortest text writes it
// (strconv.FormatFloat(x, 'f', -1, 64)), without writing it: when both are
// float64s, rounding to the nearest keeps the order of a float64's shortest
// text and a bound that is another's shortest text. It reports false, and
// the caller matches the text, when a number bound it meets is not a
// float64's shortest text, or x is not finite.
func (c *Criterion) MatchFloat(x float64) (int, bool) {
	if !(math.Abs(x) <= math.MaxFloat64) { // NaN or infinite
		return -1, false
	}
	for i := range c.Ranges {
		r := &c.Ranges[i]
		switch {
		case r.CatchAll:
			return i, true
		case r.fast:
			if r.loF <= x && x <= r.hiF {
				return i, true
			}
		case !r.strs:
			return -1, false
		}
	}
	return -1, true
}

// holds reports whether lo <= v <= hi.
func (r *Range) holds(v Value) bool {
	lo, ok1 := cmpValue(r.lo, v)
	hi, ok2 := cmpValue(r.hi, v)
	return ok1 && ok2 && lo <= 0 && hi >= 0
}

// cmpValue compares bound b with v; false when they are of different kinds.
func cmpValue(b bound, v Value) (int, bool) {
	switch b.kind {
	case boundMin:
		return -1, true
	case boundMax:
		return 1, true
	case boundNum:
		return cmpDecimal(b.num, v.num), v.isNum
	}
	return strings.Compare(b.str, v.str), !v.isNum
}

// rangesParser reads a RANGES value. Positions are computed from the
// parameter's raw text, so errors point into multi-line values exactly.
type rangesParser struct {
	b    *builder
	crit string
	p    param
	s    string // the value
	i    int
	bad  bool
}

// errorAt reports a problem at byte offset off of the value.
func (rp *rangesParser) errorAt(off int, format string, args ...any) {
	if rp.bad {
		return
	}
	rp.bad = true
	rp.b.errorf(valuePos(rp.p, off), "routing criterion %s: RANGES: "+format, append([]any{rp.crit}, args...)...)
}

// valuePos returns the position of byte off of p's value, walking its raw
// (quoted) text: escapes take two characters, newlines start a line.
func valuePos(p param, off int) pos {
	at := p.valPos
	if p.raw == "" {
		return pos{at.line, at.col + int32(utf8.RuneCountInString(p.value[:min(off, len(p.value))]))}
	}
	at.col++ // the opening quote
	raw := p.raw[1:]
	for v := 0; v < off && raw != ""; {
		if raw[0] == '\\' && len(raw) > 1 && (raw[1] == '"' || raw[1] == '\\') {
			raw, at.col, v = raw[2:], at.col+2, v+1
			continue
		}
		r, size := utf8.DecodeRuneInString(raw)
		raw, v = raw[size:], v+size
		if r == '\n' {
			at.line, at.col = at.line+1, 1
		} else {
			at.col++
		}
	}
	return at
}

func (rp *rangesParser) skipSpace() {
	for rp.i < len(rp.s) && strings.IndexByte(" \t\r\n\f\v", rp.s[rp.i]) >= 0 {
		rp.i++
	}
}

// parseRanges reads RANGES into c's ranges and kind; false after an error.
func (b *builder) parseRanges(c *Criterion, p param) bool {
	rp := &rangesParser{b: b, crit: c.Name, p: p, s: p.value}
	kindAt := -1
	// catchAll is the index of the first catch-all range (-1: none yet);
	// the ranges after it are read and checked, then dropped with a warning.
	catchAll, ignoredAt := -1, 0
	rp.skipSpace()
	if rp.i == len(rp.s) {
		rp.errorAt(0, "empty: expected range:group items such as 1-100:GROUP1, separated by commas")
		return false
	}
	for !rp.bad {
		rp.skipSpace()
		start := rp.i
		r := Range{}
		if rp.i < len(rp.s) && rp.s[rp.i] == '*' && (rp.i+1 == len(rp.s) || strings.IndexByte(" \t\r\n:", rp.s[rp.i+1]) >= 0) {
			r.CatchAll = true
			r.lo, r.hi = bound{kind: boundMin}, bound{kind: boundMax}
			rp.i++
		} else {
			loAt := rp.i
			r.lo = rp.value()
			r.hi = r.lo
			rp.skipSpace()
			if !rp.bad && rp.i < len(rp.s) && rp.s[rp.i] == '-' {
				rp.i++
				rp.skipSpace()
				r.hi = rp.value()
			}
			if !rp.bad && catchAll < 0 { // ranges after the catch-all are dropped: their kind does not count
				for _, x := range []bound{r.lo, r.hi} {
					if x.kind != boundNum && x.kind != boundStr {
						continue
					}
					k := KindNumber
					if x.kind == boundStr {
						k = KindString
					}
					switch {
					case c.Kind == "":
						c.Kind, kindAt = k, loAt
					case c.Kind != k:
						rp.errorAt(loAt, "%s mixes numbers and strings: the values before (from %s) are %ss, this range has a %s",
							strings.TrimSpace(rp.s[start:rp.i]), lineColOf(valuePos(p, kindAt)), c.Kind, k)
					}
				}
			}
			if !rp.bad && cmpBound(r.lo, r.hi) > 0 {
				rp.errorAt(loAt, "%s: the low end is above the high end", strings.TrimSpace(rp.s[start:rp.i]))
			}
		}
		if rp.bad {
			return false
		}
		r.Text = strings.Join(strings.Fields(rp.s[start:rp.i]), " ")
		rp.skipSpace()
		if rp.i >= len(rp.s) || rp.s[rp.i] != ':' {
			rp.errorAt(rp.i, "expected ':' and a group after %s", r.Text)
			return false
		}
		rp.i++
		rp.skipSpace()
		gAt := rp.i
		for rp.i < len(rp.s) && strings.IndexByte(" \t\r\n,:", rp.s[rp.i]) < 0 {
			rp.i++
		}
		r.Group = rp.s[gAt:rp.i]
		switch _, known := b.groupAt[r.Group]; {
		case r.Group == "":
			rp.errorAt(gAt, "expected a group after %s:", r.Text)
		case r.Group != "*" && !known:
			rp.errorAt(gAt, "unknown group %s: expected a group of *GROUPS or *", r.Group)
		}
		if rp.bad {
			return false
		}
		r.floats()
		c.Ranges = append(c.Ranges, r)
		if catchAll >= 0 && len(c.Ranges) == catchAll+2 {
			ignoredAt = start
		}
		rp.skipSpace()
		if rp.i == len(rp.s) {
			b.dropAfterCatchAll(c, p, catchAll, ignoredAt)
			return true
		}
		if rp.s[rp.i] != ',' {
			rp.errorAt(rp.i, "unexpected %q after %s:%s: expected ',' and the next range", rp.s[rp.i:rp.i+1], r.Text, r.Group)
			return false
		}
		if r.CatchAll && catchAll < 0 {
			catchAll = len(c.Ranges) - 1
		}
		rp.i++
		rp.skipSpace()
		if rp.i == len(rp.s) {
			rp.errorAt(rp.i, "expected a range after ','")
			return false
		}
	}
	return false
}

// dropAfterCatchAll drops the ranges written after the catch-all (the
// first at byte ignoredAt of the value) with a warning naming them: the
// catch-all already holds every value they could hold.
func (b *builder) dropAfterCatchAll(c *Criterion, p param, catchAll, ignoredAt int) {
	if catchAll < 0 || catchAll == len(c.Ranges)-1 {
		return
	}
	names := make([]string, 0, len(c.Ranges)-catchAll-1)
	for _, r := range c.Ranges[catchAll+1:] {
		names = append(names, r.Text+":"+r.Group)
	}
	b.warnf(valuePos(p, ignoredAt), "routing criterion %s: RANGES: %s after the catch-all * %s ignored: the catch-all already holds every value that no range before it holds",
		c.Name, strings.Join(names, ", "), map[bool]string{true: "is", false: "are"}[len(names) == 1])
	c.Ranges = c.Ranges[:catchAll+1]
}

// value reads one value of a range: MIN, MAX, a signed number or a
// single-quoted string (\' is a quote, \\ a backslash).
func (rp *rangesParser) value() bound {
	s, at := rp.s, rp.i
	if at >= len(s) {
		rp.errorAt(at, "expected a value (a number, a 'string', MIN or MAX)")
		return bound{}
	}
	if s[at] == '\'' {
		var sb strings.Builder
		for i := at + 1; i < len(s); i++ {
			switch {
			case s[i] == '\\' && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '\\'):
				sb.WriteByte(s[i+1])
				i++
			case s[i] == '\'':
				rp.i = i + 1
				return bound{kind: boundStr, str: sb.String()}
			default:
				sb.WriteByte(s[i])
			}
		}
		rp.errorAt(at, "a string opened here needs a closing single quote")
		return bound{}
	}
	end := at
	if end < len(s) && (s[end] == '+' || s[end] == '-') {
		end++
	}
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || s[end] >= 'A' && s[end] <= 'Z' || s[end] >= 'a' && s[end] <= 'z' || s[end] == '_') {
		end++
	}
	word := s[at:end]
	switch word {
	case "MIN":
		rp.i = end
		return bound{kind: boundMin}
	case "MAX":
		rp.i = end
		return bound{kind: boundMax}
	}
	d, ok := parseDecimal(word)
	if !ok {
		if word == "" {
			word = s[at : at+1]
		}
		rp.errorAt(at, "malformed value %q: expected a number, a 'string' (in single quotes), MIN or MAX", word)
		return bound{}
	}
	rp.i = end
	return numBound(word, d)
}

// numBound is the number bound written word, read as d.
func numBound(word string, d decimal) bound {
	b := bound{kind: boundNum, num: d}
	if f, err := strconv.ParseFloat(word, 64); err == nil {
		back, ok := parseDecimal(strconv.FormatFloat(f, 'f', -1, 64))
		b.f, b.exact = f, ok && cmpDecimal(back, d) == 0
	}
	return b
}

// lineColOf formats "line L col C".
func lineColOf(p pos) string { return "line " + itoa(int(p.line)) + " col " + itoa(int(p.col)) }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// buildRouting reads *ROUTING into b.criteria (in file order). Entries may
// share a name when each gives BUFTYPE and no type/subtype pair is in two
// of them: the request's buffer type then picks the entry (PickEntry).
func (b *builder) buildRouting(entries []*entry) {
	b.critAt = map[string]int{}
	for _, e := range entries {
		c := Criterion{Name: e.name, Line: int(e.pos.line), Ranges: []Range{}, Services: []string{}}
		if p, ok := e.get("TYPE"); ok && p.value == "FACTORY" {
			c.factory = true
		}
		if p, ok := e.get("FIELD"); ok {
			c.Field = p.value
		} else {
			b.missingf(e.pos, "routing criterion %s: missing FIELD= (the request field whose value is routed)", e.name)
		}
		bt, hasBuf := e.get("BUFTYPE")
		if hasBuf {
			c.BufType = bt.value
			if !b.parseBufType(&c, bt) {
				hasBuf = false // reported; nothing more to say about its pairs
			}
		}
		if first, shared := b.critAt[e.name]; shared && !b.shareName(e, &c, bt, hasBuf, first) {
			continue
		}
		p, ok := e.get("RANGES")
		if !ok {
			b.missingf(e.pos, "routing criterion %s: missing RANGES= (range:group items)", e.name)
		} else {
			b.parseRanges(&c, p) // reported; the criterion stays known to *SERVICES
		}
		if _, shared := b.critAt[e.name]; !shared {
			b.critAt[e.name] = len(b.m.Routing)
		}
		b.m.Routing = append(b.m.Routing, c)
	}
}

// shareName checks entry e (criterion c), written after another entry of
// the same name (the first at index first): both must give BUFTYPE, and no
// pair may be in two entries. False when e is refused.
func (b *builder) shareName(e *entry, c *Criterion, bt param, hasBuf bool, first int) bool {
	firstLine := b.m.Routing[first].Line
	if _, given := e.get("BUFTYPE"); !given {
		b.errorf(e.pos, "duplicate routing criterion %s (first at line %d): entries that share a name need BUFTYPE= to tell them apart", e.name, firstLine)
		return false
	}
	if b.m.Routing[first].BufType == "" {
		b.errorf(e.pos, "duplicate routing criterion %s: the entry at line %d has no BUFTYPE=, and entries that share a name need one each to tell them apart", e.name, firstLine)
		return false
	}
	if !hasBuf {
		return false
	}
	for i := first; i < len(b.m.Routing); i++ {
		o := &b.m.Routing[i]
		if o.Name != c.Name {
			continue
		}
		for _, pr := range c.bufs {
			if o.HoldsBufType(pr.String()) {
				b.errorf(bt.valPos, "routing criterion %s: BUFTYPE %s is also in the entry at line %d: a buffer type picks one entry only", c.Name, pr, o.Line)
				return false
			}
		}
	}
	return true
}

// routeService records ROUTING=name of a *SERVICES entry of service s.
func (b *builder) routeService(e *entry, s *Service) {
	p, ok := e.get("ROUTING")
	if !ok {
		if at, named := b.routedAt[s.Name]; named {
			b.warnf(e.pos, "service %s: this entry names no ROUTING; the service is routed by %s (line %d) everywhere", s.Name, s.Routing, at.line)
		} else {
			b.unrouted[s.Name] = append(b.unrouted[s.Name], e.pos)
		}
		return
	}
	if _, known := b.critAt[p.value]; !known {
		b.errorf(p.valPos, "service %s: unknown routing criterion %s: expected an entry of *ROUTING", s.Name, p.value)
		return
	}
	if first, named := b.routedAt[s.Name]; named {
		if s.Routing != p.value {
			b.errorf(p.valPos, "service %s: ROUTING=%s here, but ROUTING=%s at line %d: every entry of a service must name the same criterion",
				s.Name, p.value, s.Routing, first.line)
		}
		return
	}
	b.routedAt[s.Name] = p.valPos
	s.Routing = p.value
	for _, at := range b.unrouted[s.Name] {
		b.warnf(at, "service %s: this entry names no ROUTING; the service is routed by %s (line %d) everywhere", s.Name, s.Routing, p.valPos.line)
	}
}

// finishRouting lists each criterion's services (every entry of a name
// lists them) and warns about criteria no service uses and ranges whose
// group has no server of a service.
func (b *builder) finishRouting() {
	for i := range b.m.Services {
		s := &b.m.Services[i]
		if s.Routing == "" {
			continue
		}
		for j := b.critAt[s.Routing]; j < len(b.m.Routing); j++ {
			if c := &b.m.Routing[j]; c.Name == s.Routing {
				c.Services = append(c.Services, s.Name)
			}
		}
	}
	if len(b.m.Routing) == 0 {
		return
	}
	// group + "\x00" + service: a non-spare instance advertises it. The
	// instances of one entry share their group and services (but gateways,
	// which serve no routed service of their own), so the entries are read,
	// not every instance: MIN=1000 of a server of many services costs one
	// list.
	has := map[string]bool{}
	for _, se := range b.entries {
		for i := se.first; i < se.first+se.count; i++ {
			srv := &b.m.Servers[i]
			if srv.Spare {
				continue
			}
			for _, name := range srv.Services {
				has[srv.Group+"\x00"+name] = true
			}
			if !srv.Gateway {
				break
			}
		}
	}
	for i := range b.m.Routing {
		c := &b.m.Routing[i]
		sort.Strings(c.Services)
		at := pos{int32(c.Line), 1}
		// A FACTORY criterion is *INTERFACES' (FACTORYROUTING), which
		// *SERVICES cannot name: no service using it is no mistake.
		if len(c.Services) == 0 && b.critAt[c.Name] == i && !c.factory {
			b.warnf(at, "routing criterion %s: no service uses it (name it with ROUTING=%s in *SERVICES)", c.Name, c.Name)
		}
		for _, name := range c.Services {
			for _, r := range c.Ranges {
				if r.Group != "*" && !has[r.Group+"\x00"+name] {
					b.warnf(at, "routing criterion %s: range %s:%s sends %s to group %s, where no running server advertises it", c.Name, r.Text, r.Group, name, r.Group)
				}
			}
		}
	}
}
