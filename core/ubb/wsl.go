package ubb

import (
	"strconv"
	"strings"
	"unicode"
)

// This file reads the workstation front end: the WSL's own options (its
// CLOPT after "--") and *MACHINES MAXWSCLIENTS (docs/config.md, "The
// workstation listener").

// Limits of the WSL's options and of MAXWSCLIENTS.
const (
	maxMinHandlers = 256   // -m minh: 0..256
	maxHandlers    = 32767 // -M maxh
	maxMPX         = 32767 // -x mpx: 1..32767
	defaultMPX     = 10
	maxWSClients   = 32767
)

// Workstation is one WSL *SERVERS entry: the listener through which
// workstation clients enter the application (a scenario's client set names
// it with "via"). Only the entry's first instance takes clients, through
// handlers (WSH) of which MinHandlers start with the run and at most
// MaxHandlers run, each multiplexing up to MPX clients.
type Workstation struct {
	ID      string `json:"id"`      // the entry's first instance, GROUP/SRVID: the one that takes clients
	Server  int    `json:"-"`       // its index into Model.Servers
	Count   int    `json:"-"`       // the entry's instances, Servers[Server : Server+Count]
	LMID    string `json:"lmid"`    // its machine
	Machine int    `json:"-"`       // index into Model.Machines
	NetAddr string `json:"netaddr"` // -n, kept as written (not simulated)
	// MinHandlers (-m, default 0) handlers start with the run; at most
	// MaxHandlers (-M, default MAXWSCLIENTS of its machine divided by MPX,
	// rounded up, and at least MinHandlers) run; each holds up to MPX (-x,
	// default 10) clients.
	MinHandlers int `json:"min_handlers"`
	MaxHandlers int `json:"max_handlers"`
	MPX         int `json:"mpx"`
}

// WorkstationOf returns the workstation whose WSL entry has the server
// instance id (GROUP/SRVID), or nil when id is not a WSL instance; first
// says whether id is the instance that takes clients.
func (m *Model) WorkstationOf(id string) (w *Workstation, first bool) {
	for k := range m.Workstations {
		ws := &m.Workstations[k]
		for i := ws.Server; i < ws.Server+ws.Count && i < len(m.Servers); i++ {
			if m.Servers[i].ID == id {
				return ws, i == ws.Server
			}
		}
	}
	return nil, false
}

// isWSL says whether a server's executable is the workstation listener.
func isWSL(name string) bool { return name[strings.LastIndexByte(name, '/')+1:] == "WSL" }

// workstationsAll reads every WSL entry's options into Model.Workstations,
// after the machines' MAXWSCLIENTS are known.
func (b *builder) workstationsAll() {
	for _, se := range b.entries {
		if !isWSL(se.e.name) || se.count == 0 {
			continue
		}
		first := &b.m.Servers[se.first]
		ws := Workstation{ID: first.ID, Server: se.first, Count: se.count, LMID: first.LMID, Machine: first.Machine,
			MPX: defaultMPX, MaxHandlers: -1}
		b.wslOptions(se.e, &ws)
		if ws.Machine >= 0 {
			maxWS := b.m.Machines[ws.Machine].MaxWSClients
			if ws.MaxHandlers < 0 {
				ws.MaxHandlers = max((maxWS+ws.MPX-1)/ws.MPX, ws.MinHandlers)
			}
			if maxWS == 0 {
				b.warnf(se.e.pos, "server %s (%s): MAXWSCLIENTS of machine %s is 0, so no workstation client connects through it (set MAXWSCLIENTS in its *MACHINES entry)", se.e.name, ws.ID, ws.LMID)
			}
		}
		ws.MaxHandlers = max(ws.MaxHandlers, 0)
		b.m.Workstations = append(b.m.Workstations, ws)
	}
}

// cloptToken is one blank-separated word of a CLOPT and where it starts.
type cloptToken struct {
	text string
	off  int // byte offset in the CLOPT
}

// cloptTokens splits a CLOPT into words, keeping their offsets.
func cloptTokens(s string) []cloptToken {
	var out []cloptToken
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, cloptToken{s[start:i], start})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, cloptToken{s[start:], start})
	}
	return out
}

// cloptAt is where byte off of p's value is: a quoted value's text starts
// one column after valPos.
func cloptAt(p param, off int) pos {
	at := p.valPos
	if p.raw != "" || strings.ContainsAny(p.value, " \t") {
		at.col++
	}
	at.col += int32(len([]rune(p.value[:off])))
	return at
}

// afterDashes returns the tokens of a CLOPT after its "--": the options the
// server's own code reads (a WSL's, a TMQFORWARD's); none without "--".
func afterDashes(toks []cloptToken) []cloptToken {
	for k, t := range toks {
		if t.text == "--" {
			return toks[k+1:]
		}
	}
	return nil
}

// wslOptions reads the WSL's options after "--" in its CLOPT: -n netaddr
// (required), -m minh, -M maxh, -x mpx, each "-x 2" or "-x2"; other options
// are kept and ignored.
func (b *builder) wslOptions(e *entry, ws *Workstation) {
	p, ok := e.get("CLOPT")
	if !ok {
		b.errorf(e.pos, "server %s: WSL needs CLOPT=\"-A -- -n netaddr\": -n (its network address) is required after --", e.name)
		return
	}
	toks := afterDashes(cloptTokens(p.value))
	var maxAt pos
	maxSet, netSet := false, false
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		if len(t.text) < 2 || t.text[0] != '-' {
			continue // an argument of an option this reader does not read
		}
		opt := t.text[1]
		if !strings.ContainsRune("nmMx", rune(opt)) {
			continue
		}
		val, at := t.text[2:], cloptAt(p, t.off+2)
		if val == "" {
			if k+1 >= len(toks) {
				b.errorf(cloptAt(p, t.off), "server %s: CLOPT -%c needs a value", e.name, opt)
				continue
			}
			k++
			val, at = toks[k].text, cloptAt(p, toks[k].off)
		}
		switch opt {
		case 'n':
			ws.NetAddr, netSet = val, true
		case 'm':
			ws.MinHandlers = b.wslNumber(at, e.name, "-m", "minh", val, 0, maxMinHandlers, 0)
		case 'M':
			ws.MaxHandlers, maxAt, maxSet = b.wslNumber(at, e.name, "-M", "maxh", val, 0, maxHandlers, -1), at, true
		case 'x':
			ws.MPX = b.wslNumber(at, e.name, "-x", "mpx", val, 1, maxMPX, defaultMPX)
		}
	}
	if !netSet {
		b.errorf(p.valPos, "server %s: WSL needs -n netaddr after -- in its CLOPT (its network address, e.g. CLOPT=\"-A -- -n //host:4000\")", e.name)
	}
	if maxSet && ws.MaxHandlers >= 0 && ws.MaxHandlers < ws.MinHandlers {
		b.errorf(maxAt, "server %s: CLOPT -M %d (maxh) is below -m %d (minh)", e.name, ws.MaxHandlers, ws.MinHandlers)
	}
}

// wslNumber reads a decimal whole number of a WSL option in [lo, hi].
func (b *builder) wslNumber(at pos, server, opt, what, val string, lo, hi, def int) int {
	n, err := strconv.Atoi(val)
	if err != nil || n < lo || n > hi || strings.HasPrefix(val, "+") {
		b.errorf(at, "server %s: CLOPT %s %s must be a whole number from %d to %d, got %q", server, opt, what, lo, hi, val)
		return def
	}
	return n
}
