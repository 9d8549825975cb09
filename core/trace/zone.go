package trace

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

//go:generate go run gen_zones.go

// Zone is a time zone's rule: a standard offset and, for zones with summer
// time, a summer offset and the two yearly changes between them. A log's
// times without a zone are local times of a Zone (workload.columns.tz).
//
// The rule is a zone's current one (the POSIX TZ string the tz database
// ends each zone with), applied to every year: right for logs of recent
// years, not for dates before the zone's last change of rules. Reading it
// needs no files, so core stays pure and the figures are the same natively
// and in WebAssembly.
type Zone struct {
	Name       string
	std, dst   int64 // seconds east of UTC
	hasDST     bool
	start, end zoneChange // to summer time (in standard time), back (in summer time)
}

// zoneChange is one yearly change: a day rule and the local time of day.
type zoneChange struct {
	kind    byte // 'M' month.week.day, 'J' Julian day 1..365 without Feb 29, 'D' day 0..365
	m, w, d int  // M: month 1..12, week 1..5 (5 = last), weekday 0..6 (Sunday 0); J, D: day in d
	secs    int64
}

// UTC is the zone of times without a zone when the mapping names none.
var UTC = &Zone{Name: "UTC"}

// LoadZone returns the zone named name: a name of the tz database
// (Europe/Paris, America/New_York, UTC), a POSIX TZ string
// (CET-1CEST,M3.5.0,M10.5.0/3), or a fixed offset (+02:00, -0500, UTC+1).
func LoadZone(name string) (*Zone, error) {
	name = strings.TrimSpace(name)
	switch strings.ToUpper(name) {
	case "", "UTC", "Z", "GMT":
		return UTC, nil
	}
	if i := sort.Search(len(zoneRules), func(i int) bool { return zoneRules[i].name >= name }); i < len(zoneRules) && zoneRules[i].name == name {
		z, err := parsePOSIXZone(zoneRules[i].rule)
		if err != nil {
			return nil, err
		}
		z.Name = name
		return z, nil
	}
	for _, zr := range zoneRules {
		if strings.EqualFold(zr.name, name) {
			return nil, errorf("workload.columns.tz: unknown zone %q (zone names are case-sensitive: did you mean %s?)", name, zr.name)
		}
	}
	if off, ok := fixedOffset(name); ok {
		if off > maxZoneOffset || off < -maxZoneOffset { // +14:30
			return nil, errorf("workload.columns.tz: %q is UTC%s, more than the 14 hours from UTC of any zone", name, offsetText(off))
		}
		return &Zone{Name: name, std: off}, nil
	}
	if z, err := parsePOSIXZone(name); err == nil && strings.ContainsAny(name, "0123456789") {
		for _, off := range []int64{z.std, z.dst} {
			if off > maxZoneOffset || off < -maxZoneOffset {
				return nil, errorf("workload.columns.tz: %q is UTC%s, more than the 14 hours from UTC of any zone (POSIX rules count hours west of UTC: CET-1 is UTC+1)",
					name, offsetText(off))
			}
		}
		z.Name = name
		return z, nil
	}
	return nil, errorf("workload.columns.tz: unknown zone %q (want a tz database name such as Europe/Paris, an offset such as +02:00, or a POSIX TZ rule such as CET-1CEST,M3.5.0,M10.5.0/3)", name)
}

// maxZoneOffset is the farthest any zone is from UTC (Kiribati's +14:00).
const maxZoneOffset = 14 * 3600

// fixedOffset reads +HH[:MM], -HHMM, UTC+H or GMT-HH:MM (ISO sign: east positive).
func fixedOffset(s string) (int64, bool) {
	for _, p := range []string{"UTC", "GMT", "utc", "gmt"} {
		s = strings.TrimPrefix(s, p)
	}
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	h, m, ok := s[1:], "0", true
	if a, b, found := strings.Cut(h, ":"); found {
		h, m = a, b
	} else if len(h) == 4 {
		h, m = h[:2], h[2:]
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh > 14 || mm > 59 || hh < 0 || mm < 0 || len(h) > 2 {
		ok = false
	}
	off := int64(hh*3600 + mm*60)
	if s[0] == '-' {
		off = -off
	}
	return off, ok
}

// parsePOSIXZone reads a POSIX TZ string: std offset [dst [offset] [,start[/time],end[/time]]].
// POSIX offsets count west of UTC (CET-1 is one hour east).
func parsePOSIXZone(s string) (*Zone, error) {
	p := &tzParser{s: s}
	z := &Zone{}
	if !p.name() {
		return nil, p.fail()
	}
	off, ok := p.offset()
	if !ok {
		return nil, p.fail()
	}
	z.std = -off
	if p.done() {
		return z, nil
	}
	if !p.name() {
		return nil, p.fail()
	}
	z.hasDST, z.dst = true, z.std+3600
	if !p.done() && p.s[p.i] != ',' {
		if off, ok = p.offset(); !ok {
			return nil, p.fail()
		}
		z.dst = -off
	}
	if p.done() { // no rule: the POSIX default, the United States' since 2007
		z.start = zoneChange{kind: 'M', m: 3, w: 2, d: 0, secs: 7200}
		z.end = zoneChange{kind: 'M', m: 11, w: 1, d: 0, secs: 7200}
		return z, nil
	}
	for _, c := range []*zoneChange{&z.start, &z.end} {
		if !p.eat(',') || !p.change(c) {
			return nil, p.fail()
		}
	}
	if !p.done() {
		return nil, p.fail()
	}
	return z, nil
}

type tzParser struct {
	s string
	i int
}

func (p *tzParser) done() bool { return p.i >= len(p.s) }

func (p *tzParser) fail() error {
	return errorf("workload.columns.tz: cannot read the POSIX TZ rule %q at character %d", p.s, p.i+1)
}

func (p *tzParser) eat(c byte) bool {
	if !p.done() && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// name reads a zone abbreviation: three or more letters, or <...>.
func (p *tzParser) name() bool {
	if p.eat('<') {
		j := strings.IndexByte(p.s[p.i:], '>')
		if j < 1 {
			return false
		}
		p.i += j + 1
		return true
	}
	j := p.i
	for j < len(p.s) && (p.s[j] >= 'A' && p.s[j] <= 'Z' || p.s[j] >= 'a' && p.s[j] <= 'z') {
		j++
	}
	if j-p.i < 3 {
		return false
	}
	p.i = j
	return true
}

// num reads up to max digits.
func (p *tzParser) num(max int) (int, bool) {
	j, v := p.i, 0
	for j < len(p.s) && j-p.i < max && p.s[j] >= '0' && p.s[j] <= '9' {
		v = v*10 + int(p.s[j]-'0')
		j++
	}
	if j == p.i {
		return 0, false
	}
	p.i = j
	return v, true
}

// offset reads [+-]hh[:mm[:ss]] in seconds (hours up to 167, as a change's time may be).
func (p *tzParser) offset() (int64, bool) {
	neg := p.eat('-')
	if !neg {
		p.eat('+')
	}
	h, ok := p.num(3)
	if !ok || h > 167 {
		return 0, false
	}
	secs := int64(h) * 3600
	for _, mul := range []int64{60, 1} {
		if !p.eat(':') {
			break
		}
		v, ok := p.num(2)
		if !ok || v > 59 {
			return 0, false
		}
		secs += int64(v) * mul
	}
	if neg {
		secs = -secs
	}
	return secs, true
}

// change reads Mm.w.d, Jn or n, then an optional /time (default 02:00).
func (p *tzParser) change(c *zoneChange) bool {
	var ok bool
	switch {
	case p.eat('M'):
		c.kind = 'M'
		if c.m, ok = p.num(2); !ok || c.m < 1 || c.m > 12 || !p.eat('.') {
			return false
		}
		if c.w, ok = p.num(1); !ok || c.w < 1 || c.w > 5 || !p.eat('.') {
			return false
		}
		if c.d, ok = p.num(1); !ok || c.d > 6 {
			return false
		}
	case p.eat('J'):
		c.kind = 'J'
		if c.d, ok = p.num(3); !ok || c.d < 1 || c.d > 365 {
			return false
		}
	default:
		c.kind = 'D'
		if c.d, ok = p.num(3); !ok || c.d > 365 {
			return false
		}
	}
	c.secs = 7200
	if p.eat('/') {
		if c.secs, ok = p.offset(); !ok {
			return false
		}
	}
	return true
}

// day returns the day (days since 1970-01-01) of the change in year y.
func (c *zoneChange) day(y int) int64 {
	switch c.kind {
	case 'J':
		d := int64(c.d - 1)
		if c.d >= 60 && daysIn(y, 2) == 29 {
			d++
		}
		return daysFromCivil(y, 1, 1) + d
	case 'D':
		return daysFromCivil(y, 1, 1) + int64(c.d)
	}
	first := daysFromCivil(y, c.m, 1)
	wd := int((first%7 + 7 + 4) % 7) // 1970-01-01 was a Thursday (4)
	d := first + int64((c.d-wd+7)%7) + int64(c.w-1)*7
	if last := daysFromCivil(y, c.m, daysIn(y, c.m)); d > last {
		d -= 7
	}
	return d
}

// offsetAt returns the zone's offset (seconds east of UTC) at utc (seconds since 1970).
func (z *Zone) offsetAt(utc int64) int64 {
	if !z.hasDST {
		return z.std
	}
	y := yearOf(utc + z.std)
	start := z.start.day(y)*86400 + z.start.secs - z.std // to summer time, given in standard time
	end := z.end.day(y)*86400 + z.end.secs - z.dst       // back, given in summer time
	summer := utc >= start && utc < end
	if start > end { // southern hemisphere: summer spans the new year
		summer = utc >= start || utc < end
	}
	if summer {
		return z.dst
	}
	return z.std
}

// yearOf is the year of the civil day holding secs (since 1970, UTC).
func yearOf(secs int64) int {
	days := secs / 86400
	if secs%86400 < 0 {
		days--
	}
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	if mp := (5*doy + 2) / 153; mp >= 10 { // January or February belong to the next year
		y++
	}
	return int(y)
}

// What toUTC found of a local time.
const (
	localPlain   = iota // one instant
	localRepeat         // in the hour the change back from summer time repeats: two instants
	localSkipped        // in the hour the change to summer time skips: no instant
)

// toUTC converts local seconds (the wall clock read as if UTC) to UTC
// seconds, and says whether the time was plain, repeated or skipped. One
// the change back repeats is the earlier instant (the first pass through
// the hour), unless that is before notBefore (the previous row's time),
// when it is the later one: a log in time order reads right through the
// repeated hour. A local time the change to summer time skips names no
// instant: it is read with the offset before the change, and the caller
// refuses it.
func (z *Zone) toUTC(local, notBefore int64) (int64, int) {
	if !z.hasDST {
		return local - z.std, localPlain
	}
	hi, lo := max(z.std, z.dst), min(z.std, z.dst)
	early, late := local-hi, local-lo // the two candidates: early with the larger offset
	earlyOK, lateOK := z.offsetAt(early) == hi, z.offsetAt(late) == lo
	switch {
	case earlyOK && lateOK:
		if early < notBefore {
			return late, localRepeat
		}
		return early, localRepeat
	case earlyOK:
		return early, localPlain
	case lateOK:
		return late, localPlain
	}
	return local - z.offsetAt(early-1), localSkipped
}

// String names the zone and its rule, for the result's warnings.
func (z *Zone) String() string {
	if z == UTC || z.Name == "UTC" {
		return "UTC"
	}
	if !z.hasDST {
		return fmt.Sprintf("%s (UTC%s)", z.Name, offsetText(z.std))
	}
	return fmt.Sprintf("%s (UTC%s, UTC%s in summer time)", z.Name, offsetText(z.std), offsetText(z.dst))
}

func offsetText(off int64) string {
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	if off%3600 == 0 {
		return fmt.Sprintf("%c%d", sign, off/3600)
	}
	return fmt.Sprintf("%c%d:%02d", sign, off/3600, off%3600/60)
}
