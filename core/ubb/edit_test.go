package ubb

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// editUBB has comments on edited lines, an entry spanning lines, a quoted
// value, a DEFAULT: line, two servers of one name, and general and
// SRVGRP-specific *SERVICES entries.
const editUBB = `*RESOURCES # the header
IPCKEY 123456 # the key
MODEL MP   # two machines
LDBAL "N"
*MACHINES
host1 LMID=SITE1 # first
host2 LMID=SITE2
	NETLOAD=100
*GROUPS
BANKB1 LMID=SITE1 GRPNO=1
BANKB2 LMID=SITE2 GRPNO=2
*SERVERS
DEFAULT: CLOPT="-A"
ACCT SRVGRP=BANKB1 SRVID=1 # in B1
ACCT SRVGRP=BANKB2
	SRVID=1
	MIN=2 # continued
TLR SRVGRP=BANKB1 SRVID=5 CLOPT="-s DEPOSIT -s WITHDRAW"
*SERVICES
DEPOSIT LOAD=50
DEPOSIT SRVGRP=BANKB2 LOAD=60 # B2 only
`

func TestEditKinds(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		change    Change
		old, want string // the text edited: old is replaced by want, the rest unchanged
	}{
		{"resource: quoted value keeps its quotes", editUBB, Change{Section: "RESOURCES", Key: "LDBAL", Value: "Y"},
			"LDBAL \"N\"\n", "LDBAL \"Y\"\n"},
		{"resource: comment on the line kept", editUBB, Change{Section: "RESOURCES", Key: "IPCKEY", Value: "654321"},
			"IPCKEY 123456 # the key", "IPCKEY 654321 # the key"},
		{"resource: missing keyword goes right after the header", editUBB, Change{Section: "RESOURCES", Key: "SCANUNIT", Value: "5"},
			"# the header\n", "# the header\nSCANUNIT 5\n"},
		{"machine by LMID: parameter added before the comment", editUBB, Change{Section: "MACHINES", Entry: "SITE1", Key: "NETLOAD", Value: "20"},
			"host1 LMID=SITE1 # first", "host1 LMID=SITE1 NETLOAD=20 # first"},
		{"machine by LMID: value on a continuation line", editUBB, Change{Section: "MACHINES", Entry: "SITE2", Key: "NETLOAD", Value: "7"},
			"\tNETLOAD=100\n", "\tNETLOAD=7\n"},
		{"group", editUBB, Change{Section: "GROUPS", Entry: "BANKB2", Key: "GRPNO", Value: "9"},
			"GRPNO=2", "GRPNO=9"},
		{"server by name and group: added on its last continuation line", editUBB, Change{Section: "SERVERS", Entry: "ACCT", Group: "BANKB2", Key: "MAX", Value: "4"},
			"MIN=2 # continued", "MIN=2 MAX=4 # continued"},
		{"server by name and group: replaced on a continuation line", editUBB, Change{Section: "SERVERS", Entry: "ACCT", Group: "BANKB2", Key: "MIN", Value: "3"},
			"MIN=2 # continued", "MIN=3 # continued"},
		{"server by name alone, when unique; DEFAULT: value overridden on the entry", editUBB, Change{Section: "SERVERS", Entry: "TLR", Key: "MIN", Value: "2"},
			`WITHDRAW"` + "\n", `WITHDRAW" MIN=2` + "\n"},
		{"server: value needing quotes", editUBB, Change{Section: "SERVERS", Entry: "ACCT", Group: "BANKB1", Key: "CLOPT", Value: `-s "X" -s Y`},
			"SRVID=1 # in B1", `SRVID=1 CLOPT="-s \"X\" -s Y" # in B1`},
		{"service without SRVGRP", editUBB, Change{Section: "SERVICES", Entry: "DEPOSIT", Key: "LOAD", Value: "80"},
			"DEPOSIT LOAD=50\n", "DEPOSIT LOAD=80\n"},
		{"service with SRVGRP", editUBB, Change{Section: "SERVICES", Entry: "DEPOSIT", Group: "BANKB2", Key: "PRIO", Value: "70"},
			"LOAD=60 # B2", "LOAD=60 PRIO=70 # B2"},
		{"service known but not listed: an entry is added first", editUBB, Change{Section: "SERVICES", Entry: "WITHDRAW", Key: "LOAD", Value: "10"},
			"*SERVICES\n", "*SERVICES\nWITHDRAW LOAD=10\n"},
		{"service known, group entry added", editUBB, Change{Section: "SERVICES", Entry: "WITHDRAW", Group: "BANKB1", Key: "LOAD", Value: "10"},
			"*SERVICES\n", "*SERVICES\nWITHDRAW SRVGRP=BANKB1 LOAD=10\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, crlf := range []bool{false, true} {
				text, old, want := tt.text, tt.old, tt.want
				if crlf {
					text, old, want = toCRLF(text), toCRLF(old), toCRLF(want)
				}
				if strings.Count(text, old) != 1 {
					t.Fatalf("test broken: %q is not once in the text", old)
				}
				got, err := Edit(text, tt.change)
				if err != nil {
					t.Fatalf("crlf=%v: %v", crlf, err)
				}
				if wantText := strings.Replace(text, old, want, 1); got != wantText {
					t.Errorf("crlf=%v: got\n%s\nwant\n%s", crlf, got, wantText)
				}
				checkParam(t, got, tt.change)
			}
		})
	}
}

func toCRLF(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// checkParam parses text and checks that the entry c names has c.Key = c.Value.
func checkParam(t *testing.T, text string, c Change) {
	t.Helper()
	secs, diags := parseSyntax("t", text, "RESOURCES", isResourcesSection, noLooseKV)
	if len(diags) > 0 {
		t.Fatalf("edited text does not parse: %v", ErrorList(diags))
	}
	var mine []*section
	for _, s := range secs {
		if s.name == c.Section {
			mine = append(mine, s)
		}
	}
	e, err := editSections[c.Section](mine, c)
	if err != nil || e == nil {
		t.Fatalf("%s: entry not found after the edit (%v)", c, err)
	}
	if p, ok := e.get(c.Key); !ok || p.value != c.Value {
		t.Errorf("%s: after the edit the parser reads %q (found %v)", c, p.value, ok)
	}
}

func TestEditErrors(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		change Change
		want   string
	}{
		{"no such server", editUBB, Change{Section: "SERVERS", Entry: "NOPE", Key: "MIN", Value: "1"},
			"*SERVERS: no server NOPE"},
		{"no such server in group", editUBB, Change{Section: "SERVERS", Entry: "ACCT", Group: "BANKB9", Key: "MIN", Value: "1"},
			"*SERVERS: no server ACCT in group BANKB9"},
		{"ambiguous server", editUBB, Change{Section: "SERVERS", Entry: "ACCT", Key: "MIN", Value: "1"},
			"*SERVERS: server ACCT is ambiguous: line 14 (SRVGRP=BANKB1), line 15 (SRVGRP=BANKB2); name one as ACCT@GROUP"},
		{"no such machine", editUBB, Change{Section: "MACHINES", Entry: "host1", Key: "NETLOAD", Value: "1"},
			"*MACHINES: no machine with LMID host1"},
		{"no such group", editUBB, Change{Section: "GROUPS", Entry: "BANKB9", Key: "GRPNO", Value: "1"},
			"*GROUPS: no group BANKB9"},
		{"unknown service", editUBB, Change{Section: "SERVICES", Entry: "NOPE", Key: "LOAD", Value: "1"},
			"*SERVICES: no service NOPE: no entry lists it, no server advertises it, no DMCONFIG imports it"},
		{"service for an unknown group", editUBB, Change{Section: "SERVICES", Entry: "DEPOSIT", Group: "BANKB9", Key: "LOAD", Value: "1"},
			"*SERVICES: no group BANKB9 for service DEPOSIT: want a group of *GROUPS"},
		{"bad value, as the loader says it", editUBB, Change{Section: "RESOURCES", Key: "LDBAL", Value: "maybe"},
			`UBBCONFIG:4:7: LDBAL must be Y or N, got "maybe"`},
		{"bad number", editUBB, Change{Section: "SERVERS", Entry: "TLR", Key: "MIN", Value: "-1"},
			`UBBCONFIG:18:62: MIN must be a number from 0 to 1000, got "-1"`},
		{"a value the model rejects", editUBB, Change{Section: "RESOURCES", Key: "MODEL", Value: "SHM"},
			"UBBCONFIG:7:1: MODEL SHM allows one machine: a second machine (SITE2) needs MODEL MP"},
		{"section not editable", editUBB, Change{Section: "NETWORK", Entry: "SITE1", Key: "NADDR", Value: "x"},
			"NETWORK.SITE1.NADDR=x: cannot edit section *NETWORK: want RESOURCES, MACHINES, GROUPS, SERVERS or SERVICES"},
		{"group outside servers and services", editUBB, Change{Section: "MACHINES", Entry: "SITE1", Group: "G", Key: "NETLOAD", Value: "1"},
			"MACHINES.SITE1@G.NETLOAD=1: a group (@G) names entries of *SERVERS and *SERVICES only"},
		{"bad keyword", editUBB, Change{Section: "RESOURCES", Key: "LD BAL", Value: "Y"},
			`key "LD BAL=Y": keyword LD BAL: want letters, digits and '_'`},
		{"value on two lines", editUBB, Change{Section: "RESOURCES", Key: "LDBAL", Value: "Y\nZ"},
			"LDBAL=Y\nZ: the value must be on one line"},
		{"text that does not parse", "*RESOURCES\nMODEL SHM\n*MACHINES\nh LMID=\"A\n", Change{Section: "RESOURCES", Key: "LDBAL", Value: "Y"},
			"UBBCONFIG:4:8: unterminated quoted string: expected a closing '\"' (a quoted value may run over 1000 lines at most)"},
		{"no *RESOURCES", "*MACHINES\n", Change{Section: "RESOURCES", Key: "LDBAL", Value: "Y"},
			"UBBCONFIG:1:1: the first section must be *RESOURCES, found *MACHINES"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Edit(tt.text, tt.change)
			if err == nil {
				t.Fatalf("got no error, text\n%s", got)
			}
			if err.Error() != tt.want {
				t.Errorf("got  %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestEditSeveralAndAddsServicesSection(t *testing.T) {
	text := "\uFEFF*RESOURCES\r\nMODEL SHM\r\n*MACHINES\r\nh LMID=A\r\n*GROUPS\r\nG LMID=A GRPNO=1\r\n*SERVERS\r\nsimpserv SRVGRP=G SRVID=1 CLOPT=\"-s TOUPPER\""
	got, err := Edit(text,
		Change{Section: "SERVICES", Entry: "TOUPPER", Key: "LOAD", Value: "10"},
		Change{Section: "RESOURCES", Key: "LDBAL", Value: "Y"},
		Change{Section: "SERVERS", Entry: "simpserv", Key: "MIN", Value: "2"})
	if err != nil {
		t.Fatal(err)
	}
	want := "\uFEFF*RESOURCES\r\nLDBAL Y\r\nMODEL SHM\r\n*MACHINES\r\nh LMID=A\r\n*GROUPS\r\nG LMID=A GRPNO=1\r\n*SERVERS\r\n" +
		"simpserv SRVGRP=G SRVID=1 CLOPT=\"-s TOUPPER\" MIN=2\r\n*SERVICES\r\nTOUPPER LOAD=10\r\n"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestParseKey(t *testing.T) {
	tests := []struct {
		key  string
		want Change
		err  string
	}{
		{"LDBAL", Change{Section: "RESOURCES", Key: "LDBAL"}, ""},
		{"model", Change{Section: "RESOURCES", Key: "MODEL"}, ""},
		{"RESOURCES.SCANUNIT", Change{Section: "RESOURCES", Key: "SCANUNIT"}, ""},
		{"SERVERS.ACCT@BANKB1.MIN", Change{Section: "SERVERS", Entry: "ACCT", Group: "BANKB1", Key: "MIN"}, ""},
		{"SERVERS.simpserv.MIN", Change{Section: "SERVERS", Entry: "simpserv", Key: "MIN"}, ""},
		{"SERVICES.DEPOSIT.LOAD", Change{Section: "SERVICES", Entry: "DEPOSIT", Key: "LOAD"}, ""},
		{"SERVICES.a.b@G1.prio", Change{Section: "SERVICES", Entry: "a.b", Group: "G1", Key: "PRIO"}, ""},
		{"MACHINES.SITE2.NETLOAD", Change{Section: "MACHINES", Entry: "SITE2", Key: "NETLOAD"}, ""},
		{"GROUPS.BANKB1.GRPNO", Change{Section: "GROUPS", Entry: "BANKB1", Key: "GRPNO"}, ""},
		{"SERVERS.ACCT", Change{}, `key "SERVERS.ACCT": want SECTION.NAME[@GROUP].KEY (e.g. SERVERS.ACCT@BANKB1.MIN) or a *RESOURCES keyword (e.g. LDBAL)`},
		{"SERVERS.ACCT@.MIN", Change{}, `key "SERVERS.ACCT@.MIN": empty group after '@'`},
		{"SERVERS..MIN", Change{}, `key "SERVERS..MIN": empty entry name`},
		{"ROUTING.R.FIELD", Change{}, `key "ROUTING.R.FIELD": unknown section ROUTING: want RESOURCES, MACHINES, GROUPS, SERVERS or SERVICES`},
		{"SERVERS.ACCT.", Change{}, `key "SERVERS.ACCT.": empty keyword`},
		{"", Change{}, `key "": empty keyword`},
		{"SERVERS", Change{}, `key "SERVERS": a section alone: want SERVERS.NAME.KEY (or RESOURCES.KEY)`},
	}
	for _, tt := range tests {
		got, err := ParseKey(tt.key)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tt.err || (err == nil && got != tt.want) {
			t.Errorf("ParseKey(%q) = %+v, %q; want %+v, %q", tt.key, got, gotErr, tt.want, tt.err)
		}
	}
}

// TestEditSamples: on every real UBBCONFIG (as written, and with CRLF line
// ends) an edit of nothing is the identity, and each edit kind changes the
// one thing it names and nothing else of the model.
func TestEditSamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(samplesDir, "*.ubb"))
	if err != nil || len(files) < 27 {
		t.Fatalf("got %d samples (%v), want the 27 of SOURCES.md", len(files), err)
	}
	edited := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{string(data), toCRLF(strings.ReplaceAll(string(data), "\r\n", "\n"))} {
			name := filepath.Base(path)
			if got, err := Edit(text); err != nil || got != text {
				t.Fatalf("%s: an edit of nothing changed the text (err %v)", name, err)
			}
			m0, err := Load(Input{UBBConfig: text})
			if err != nil {
				continue // a NEGATIVE sample: only the identity applies
			}
			for _, ed := range sampleEdits(m0) {
				got, err := Edit(text, ed.change)
				if err != nil {
					t.Errorf("%s: %s: %v", name, ed.change, err)
					continue
				}
				checkParam(t, got, ed.change)
				m1, err := Load(Input{UBBConfig: got})
				if err != nil {
					t.Fatalf("%s: %s: %v", name, ed.change, err)
				}
				want, _ := Load(Input{UBBConfig: text})
				ed.apply(want)
				if a, b := modelJSON(want), modelJSON(m1); a != b {
					t.Errorf("%s: %s changed more than it names:\nwant %s\ngot  %s", name, ed.change, a, b)
				}
				edited++
			}
		}
	}
	if edited < 60 {
		t.Errorf("only %d edits were tried on the samples", edited)
	}
}

// sampleEdit is an edit of a sample and its effect on the model.
type sampleEdit struct {
	change Change
	apply  func(m *Model)
}

// sampleEdits returns, for a loaded sample: LDBAL flipped; NETLOAD of the
// first machine raised; MAXGEN set on a server; LOAD of a
// service raised (its own *SERVICES entry, or a new one when no server
// advertises every *SERVICES service).
func sampleEdits(m *Model) []sampleEdit {
	ldbal := map[bool]string{true: "N", false: "Y"}[m.LDBAL]
	out := []sampleEdit{
		{Change{Section: "RESOURCES", Key: "LDBAL", Value: ldbal}, func(m *Model) { m.LDBAL = !m.LDBAL }},
	}
	if len(m.Machines) > 0 {
		n := m.Machines[0].NetLoad + 7
		out = append(out, sampleEdit{Change{Section: "MACHINES", Entry: m.Machines[0].LMID, Key: "NETLOAD", Value: strconv.Itoa(n)},
			func(m *Model) { m.Machines[0].NetLoad = n }})
	}
	count := map[[2]string]int{}
	everyService := false
	for _, s := range m.Servers {
		count[[2]string{s.Name, s.Group}]++
		everyService = everyService || s.AdvertiseSource == "services"
	}
	for _, s := range m.Servers {
		// Instances of one entry share its name and group; several entries
		// of one name in one group cannot be told apart by a Change.
		if count[[2]string{s.Name, s.Group}] == 1 {
			name, group := s.Name, s.Group
			out = append(out, sampleEdit{Change{Section: "SERVERS", Entry: s.Name, Group: s.Group, Key: "MAXGEN", Value: "7"},
				func(m *Model) { setMaxGen(m, name, group, 7) }})
			break
		}
	}
	for i, s := range m.Services {
		if s.Remote != nil || everyService {
			continue
		}
		load := s.Load%32000 + 1
		out = append(out, sampleEdit{Change{Section: "SERVICES", Entry: s.Name, Key: "LOAD", Value: strconv.Itoa(load)},
			func(m *Model) { m.Services[i].Load = load }})
		break
	}
	return out
}

// setMaxGen sets MAXGEN on the instances of one *SERVERS entry, as the
// model shows it (a lifecycle with the other defaults when there was none).
func setMaxGen(m *Model, name, group string, n int) {
	for i := range m.Servers {
		s := &m.Servers[i]
		if s.Name != name || s.Group != group {
			continue
		}
		life := s.Lifecycle()
		life.MaxGen = n
		s.Life = &life
	}
}

// modelJSON is the model as JSON with the warnings' messages but not their
// positions (an added line moves the ones below it).
func modelJSON(m *Model) string {
	msgs := make([]string, len(m.Warnings))
	for i, w := range m.Warnings {
		msgs[i] = w.Message
	}
	m.Warnings = nil
	data, _ := json.Marshal(struct {
		M *Model
		W []string
	}{m, msgs})
	return string(data)
}
