package ubb

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// flat renders parsed sections as "SECTION|entry@L:C|KEY=value@L:C" lines.
func flat(secs []*section) []string {
	var out []string
	for _, s := range secs {
		for _, e := range s.entries {
			line := s.name + "|" + e.name + "@" + posString(e.pos)
			if e.isDefault {
				line = s.name + "|DEFAULT"
			}
			for _, p := range e.params {
				line += "|" + p.key + "=" + p.value + "@" + posString(p.valPos)
			}
			out = append(out, line)
		}
	}
	return out
}

func posString(p pos) string { return fmt.Sprintf("%d:%d", p.line, p.col) }

func TestSyntax(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"resources keyword value, tabs, comments",
			"*RESOURCES  # the first\nIPCKEY\t\t$IPCKEY # not used\nOPTIONS LAN,MIGRATE\nDOMAINID \"a b\"\n",
			[]string{"RESOURCES|IPCKEY@2:1|IPCKEY=$IPCKEY@2:9", "RESOURCES|OPTIONS@3:1|OPTIONS=LAN,MIGRATE@3:9",
				"RESOURCES|DOMAINID@4:1|DOMAINID=a b@4:10"}},
		{"CRLF, BOM and UTF-8 comment",
			"\uFEFF*RESOURCES\r\nMODEL SHM\r\n# 注释 comment\r\n*GROUPS\r\nG LMID=a\r\n",
			[]string{"RESOURCES|MODEL@2:1|MODEL=SHM@2:7", "GROUPS|G@5:1|LMID=a@5:8"}},
		{"spaces around =",
			"*GROUPS\nG LMID = a GRPNO= 1 X =y\n",
			[]string{"GROUPS|G@2:1|LMID=a@2:10|GRPNO=1@2:19|X=y@2:24"}},
		{"indented and column-1 continuation lines",
			"*MACHINES\nnode\n\tLMID=a\nTUXDIR=\"/t\" # c\n  NETLOAD=3\nnode2 LMID=b\n",
			[]string{"MACHINES|node@2:1|LMID=a@3:7|TUXDIR=/t@4:8|NETLOAD=3@5:11", "MACHINES|node2@6:1|LMID=b@6:12"}},
		{"quoted names and escapes",
			`*SERVERS` + "\n" + `"my srv" CLOPT="-- -c \"HI \\\"W\" \x" RQADDR="a#b"` + "\n",
			[]string{`SERVERS|my srv@2:1|CLOPT=-- -c "HI \"W" \x@2:16|RQADDR=a#b@2:47`}},
		{"DEFAULT: alone, with params and continued",
			"*SERVERS\nDEFAULT:\n\tCLOPT=\"-A\"\nDEFAULT: MIN=2\n  MAX=3\ns SRVID=1\n",
			[]string{"SERVERS|DEFAULT|CLOPT=-A@3:8", "SERVERS|DEFAULT|MIN=2@4:14|MAX=3@5:7", "SERVERS|s@6:1|SRVID=1@6:9"}},
		{"section name comment and no final newline",
			"*SERVICES   ignored words\nA\nB LOAD=0x10",
			[]string{"SERVICES|A@2:1", "SERVICES|B@3:1|LOAD=0x10@3:8"}},
		{"indented entry name is an entry",
			"*SERVICES\n  A LOAD=1\n  B\n",
			[]string{"SERVICES|A@2:3|LOAD=1@2:10", "SERVICES|B@3:3"}},
		// a skeleton's <bracketed item> is one word, blanks included:
		// "<SITE1's uname>" is 15 characters, so LMID's value is at 4:22;
		// after a tab and "ENVFILE=", 5:10
		{"skeleton placeholders",
			"*RESOURCES\nIPCKEY\t\t<Replace with a valid IPC Key> # fill in\n*MACHINES\n<SITE1's uname> LMID=S\n\tENVFILE=<APPDIR1>/ENVFILE\n",
			[]string{"RESOURCES|IPCKEY@2:1|IPCKEY=<Replace with a valid IPC Key>@2:9",
				"MACHINES|<SITE1's uname>@4:1|LMID=S@4:22|ENVFILE=<APPDIR1>/ENVFILE@5:10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secs, diags := parseSyntax("t", tt.text, "", isResourcesSection, noLooseKV)
			if len(diags) > 0 {
				t.Fatalf("got diagnostics %v", diags)
			}
			if got := flat(secs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func TestDefaultsApplyForward(t *testing.T) {
	secs, _ := parseSyntax("t", "*SERVICES\nA\nDEFAULT: LOAD=10 PRIO=20\nB\nDEFAULT: LOAD=30\nC PRIO=5\n", "", noLooseKV, noLooseKV)
	var got []string
	for _, e := range withDefaults(secs[0]) {
		load, _ := e.get("LOAD")
		prio, _ := e.get("PRIO")
		got = append(got, e.name+":"+load.value+":"+prio.value)
	}
	want := []string{"A::", "B:10:20", "C:30:5"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestParseNumber(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"10", 10, true}, {"0660", 432, true}, {"0x1F", 31, true}, {"0XfF", 255, true},
		{"08", 0, false}, {"0x", 0, false}, {"", 0, false}, {"-1", 0, false}, {"1_000", 0, false},
		{"12a", 0, false}, {"99999999999999999999", 0, false}, {"$IPCKEY", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseNumber(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseNumber(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWarnings(t *testing.T) {
	m := mustLoad(t, "*RESOURCES\nMODEL SHM\nFOO 1\n*MACHINES\nm LMID=a COLOR=red\n*GROUPS\nG LMID=a GRPNO=1\n"+
		"*SERVERS\ns SRVGRP=G SRVID=1 CLOPT=\"-s X\"\n*WIDGETS\nw A=1\n*SERVICES\nX\n*SERVICES\nY\n")
	var got []string
	for _, w := range m.Warnings {
		got = append(got, w.String())
	}
	want := []string{
		"t.ubb:3:1: warning: unknown keyword FOO in *RESOURCES (ignored)",
		"t.ubb:5:10: warning: unknown keyword COLOR in *MACHINES (ignored)",
		"t.ubb:10:1: warning: unknown section *WIDGETS: its entries are ignored",
		"t.ubb:14:1: warning: section *SERVICES again (first at line 12): its entries are added",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if len(m.Services) != 2 {
		t.Errorf("got %d services, want X and Y", len(m.Services))
	}
}

// LooksLike tells a UBBCONFIG from a scenario's JSON by its first line
// that is not blank or a comment.
func TestLooksLike(t *testing.T) {
	for text, want := range map[string]bool{
		"*RESOURCES\nIPCKEY 1\n":                               true,
		"\xef\xbb\xbf# a comment\n\n  # another\n*RESOURCES\n": true,
		"  *RESOURCES":                    true,
		"{\"ubbconfig\": \"*RESOURCES\"}": false,
		"# only comments\n":               false,
		"":                                false,
		"IPCKEY 1\n*RESOURCES\n":          false,
	} {
		if got := LooksLike([]byte(text)); got != want {
			t.Errorf("LooksLike(%q) = %v, want %v", text, got, want)
		}
	}
}
