package ubb

import (
	"fmt"
	"strconv"
	"strings"
)

// Defaults of the life-cycle parameters of *SERVERS (docs/config.md).
const (
	DefaultMaxGen = 1     // MAXGEN: generations of a server, the first included
	DefaultGraceS = 86400 // GRACE: the window, in seconds, over which MAXGEN counts
	maxGraceS     = 2147483647
	maxTimeoutS   = 2147483647
	maxMaxGen     = 256
)

// ServerLifecycle is what a *SERVERS entry says about its instances' life:
// whether a crashed instance is restarted (RESTART, MAXGEN, GRACE) and
// whether its MSSQ set spawns and decays spares (CLOPT -p). Instances of one
// entry share one. A nil *ServerLifecycle on a Server means every default.
type ServerLifecycle struct {
	Restart bool   `json:"restart"`
	MaxGen  int    `json:"maxgen"`
	GraceS  int    `json:"grace_s"` // 0: no limit (MAXGEN no longer applies)
	Spawn   *Spawn `json:"spawn,omitempty"`
	// Entry is the *SERVERS entry's number (0-based, file order): -p decides
	// per entry. MinSrvID is the entry's SRVID+MIN, the first spare's SRVID.
	Entry    int `json:"-"`
	MinSrvID int `json:"-"`
}

// Spawn is a CLOPT -p option, `-p [L][low][,[terminate]][:[high][,create]]`
// (servopts(5)): the BBL boots a spare of the MSSQ set when the waiting
// requests per up instance (with L, their summed LOAD) have met or exceeded
// High for CreateS seconds, and a spare that has been idle for TerminateS
// seconds ends itself while the measure is below Low (docs/engine.md, "-p").
type Spawn struct {
	Load       bool `json:"load,omitempty"` // L: LOAD rather than a count of requests
	Low        int  `json:"low"`
	TerminateS int  `json:"terminate_s"`
	High       int  `json:"high"`
	CreateS    int  `json:"create_s"`
	// Conv marks a conversational entry (CONV=Y) without RQADDR: its spares
	// are spawned over the instances' own queues and never decay, as
	// servopts(5) says of non-MSSQ conversational servers.
	Conv bool `json:"conv,omitempty"`
}

// Lifecycle returns the instance's life-cycle parameters, the defaults when
// its entry gives none.
func (s *Server) Lifecycle() ServerLifecycle {
	if s.Life != nil {
		return *s.Life
	}
	return ServerLifecycle{MaxGen: DefaultMaxGen, GraceS: DefaultGraceS, MinSrvID: s.SrvID + 1}
}

// lifecycleAll reads RESTART, MAXGEN, GRACE, CONV and CLOPT -p of every
// *SERVERS entry and gives its instances the result (none when all are
// defaults; CONV alone changes nothing: it only decides what -p does).
func (b *builder) lifecycleAll() {
	for k, se := range b.entries {
		life, set := b.serverLifecycle(se.e)
		conv := b.conversational(se.e)
		if !set || se.count == 0 {
			continue
		}
		first := &b.m.Servers[se.first]
		life.Entry = k
		life.MinSrvID = first.SrvID + b.intIn(se.e, "SERVERS", "MIN", 1)
		if life.Spawn != nil && !b.spawnable(se, life, conv) {
			life.Spawn = nil
		}
		for i := se.first; i < se.first+se.count; i++ {
			b.m.Servers[i].Life = life
		}
	}
}

// serverLifecycle reads one entry's life-cycle parameters; set says whether
// any was given.
func (b *builder) serverLifecycle(e *entry) (*ServerLifecycle, bool) {
	life := &ServerLifecycle{MaxGen: DefaultMaxGen, GraceS: DefaultGraceS}
	set := false
	if p, ok := e.get("RESTART"); ok {
		set = true
		switch p.value {
		case "Y":
			life.Restart = true
		case "N":
		default:
			b.errorf(p.valPos, "server %s: RESTART must be Y or N, got %q", e.name, p.value)
		}
	}
	if p, ok := e.get("MAXGEN"); ok {
		set = true
		lo, hi := rangeOf("SERVERS", "MAXGEN")
		life.MaxGen = b.intValue(p, lo, hi, DefaultMaxGen)
	}
	if p, ok := e.get("GRACE"); ok {
		set = true
		lo, hi := rangeOf("SERVERS", "GRACE")
		life.GraceS = b.intValue(p, lo, hi, DefaultGraceS)
	}
	if p, ok := e.get("CLOPT"); ok {
		if arg, found := cloptOption(p.value, 'p'); found {
			set = true
			sp, err := ParseSpawn(arg)
			if err != nil {
				b.errorf(argPos(p, arg), "server %s: CLOPT -p %q: %v", e.name, arg, err)
			} else {
				life.Spawn = sp
			}
		}
	}
	return life, set
}

// conversational reads an entry's CONV (Y or N, default N).
func (b *builder) conversational(e *entry) bool {
	p, ok := e.get("CONV")
	if !ok {
		return false
	}
	switch p.value {
	case "Y":
		return true
	case "N":
	default:
		b.errorf(p.valPos, "server %s: CONV must be Y or N, got %q", e.name, p.value)
	}
	return false
}

// spawnable reports whether -p can do anything for this entry (an MSSQ set,
// or a conversational entry, with MAX > MIN), warning when it cannot. A
// conversational entry without RQADDR has its spawn marked Conv: no decay.
func (b *builder) spawnable(se serverEntry, life *ServerLifecycle, conv bool) bool {
	s := &b.m.Servers[se.first]
	p, _ := se.e.get("CLOPT")
	perInstance := s.Queue == s.ID
	if perInstance && !conv {
		b.warnf(p.valPos, "server %s: CLOPT -p applies to an MSSQ set (RQADDR) or a conversational server (CONV=Y), and this entry is neither: it is ignored", se.e.name)
		return false
	}
	min := b.intIn(se.e, "SERVERS", "MIN", 1)
	max := min
	if mp, ok := se.e.get("MAX"); ok {
		if n, ok := parseNumber(mp.value); ok {
			max = int(n)
		}
	}
	if max <= min {
		b.warnf(p.valPos, "server %s: CLOPT -p needs MAX greater than MIN (spares to spawn): it is ignored", se.e.name)
		return false
	}
	life.Spawn.Conv = perInstance
	return true
}

// argPos is where the text arg starts inside p's value: a value holding
// blanks was quoted, so its text starts one column after valPos.
func argPos(p param, arg string) pos {
	at := p.valPos
	k := strings.Index(p.value, "-p")
	if k < 0 {
		return at
	}
	if j := strings.Index(p.value[k:], arg); j >= 0 && arg != "" {
		k += j
	}
	if strings.ContainsAny(p.value, " \t") {
		at.col++
	}
	at.col += int32(len([]rune(p.value[:k])))
	return at
}

// cloptOption returns the argument of the first -c option of a CLOPT, before
// "--", reading it as cloptServices reads -s ("-p1,2", "-p 1,2", grouped
// flags "-Ap 1,2").
func cloptOption(clopt string, c byte) (string, bool) {
	for opt, val := range cloptOptions(clopt) {
		if opt == c {
			return val, true
		}
	}
	return "", false
}

// ParseSpawn reads the argument of a CLOPT -p option,
// `[L][low][,[terminate]][:[high][,create]]`. Omitted values take the
// defaults low 1 and high 2 requests per server (50 and 100 with L),
// terminate 60 s, create 50 s (no copy of servopts(5)'s paragraph giving
// them could be read: docs/engine.md, "-p"). low must not exceed high.
func ParseSpawn(arg string) (*Spawn, error) {
	sp := &Spawn{Low: -1, TerminateS: 60, High: -1, CreateS: 50}
	rest := arg
	if strings.HasPrefix(rest, "L") {
		sp.Load = true
		rest = rest[1:]
	}
	lowPart, highPart, hasHigh := strings.Cut(rest, ":")
	if strings.Contains(highPart, ":") {
		return nil, fmt.Errorf("more than one ':' (want [L][low][,[terminate]][:[high][,create]])")
	}
	var err error
	if sp.Low, sp.TerminateS, err = spawnPair(lowPart, "low", "terminate", -1, 60); err != nil {
		return nil, err
	}
	if hasHigh {
		if sp.High, sp.CreateS, err = spawnPair(highPart, "high", "create", -1, 50); err != nil {
			return nil, err
		}
	}
	lowDef, highDef := 1, 2
	if sp.Load {
		lowDef, highDef = 50, 100
	}
	if sp.Low < 0 {
		sp.Low = lowDef
	}
	if sp.High < 0 {
		sp.High = max(highDef, sp.Low)
	}
	if sp.Low > sp.High {
		return nil, fmt.Errorf("low %d is above high %d", sp.Low, sp.High)
	}
	return sp, nil
}

// spawnPair reads "[a][,[b]]" of non-negative numbers; an omitted one is def.
func spawnPair(s, aName, bName string, aDef, bDef int) (int, int, error) {
	as, bs, _ := strings.Cut(s, ",")
	if strings.Contains(bs, ",") {
		return 0, 0, fmt.Errorf("more than one ',' after %s (want [L][low][,[terminate]][:[high][,create]])", aName)
	}
	a, err := spawnNumber(as, aName, aDef)
	if err != nil {
		return 0, 0, err
	}
	b, err := spawnNumber(bs, bName, bDef)
	return a, b, err
}

func spawnNumber(s, name string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 32767 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("%s must be a whole number from 0 to 32767, got %q", name, s)
	}
	return n, nil
}
