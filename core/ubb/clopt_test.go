package ubb

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestCLOPTServices(t *testing.T) {
	tests := []struct {
		clopt string
		want  []string
		found bool
		notes int
	}{
		{"-A", nil, false, 0},
		{"", nil, false, 0},
		{"-s TOUPPER", []string{"TOUPPER"}, true, 0},
		{"-sTOUPPER", []string{"TOUPPER"}, true, 0},
		{"-s A,B:func", []string{"A", "B"}, true, 0},
		{"-s A:fa,B:fb", []string{"A", "B"}, true, 0},
		{"-s A -s B -sC", []string{"A", "B", "C"}, true, 0},
		{"-A -s A,A -s A", []string{"A"}, true, 0},
		{"-As X -- -s Y", []string{"X"}, true, 0},
		{"-A -- -s TOUPPER", nil, false, 0},
		{"-s TOUPPER,TOLOWER -- app args", []string{"TOUPPER", "TOLOWER"}, true, 0},
		{"-e /log/err -o -s -s A", []string{"A"}, true, 0},
		{"-p 5,6:15,3 -s A", []string{"A"}, true, 0},
		{"-s", nil, true, 0},
		{"-s --", nil, true, 0},
		{"-s @services.txt", nil, false, 1},
		{"-s @a.txt -s X", []string{"X"}, true, 1},
		{"-s @a.txt,X:f", []string{"X"}, true, 1},
		{"-A\t-s\tQSPACE:TMQUEUE --  ", []string{"QSPACE"}, true, 0},
		{"-sQGRP1_2,QGRP2_2,QGRP3_2:EXBENCHSV -A -- -T", []string{"QGRP1_2", "QGRP2_2", "QGRP3_2"}, true, 0},
	}
	for _, tt := range tests {
		got, found, files := cloptServices(tt.clopt)
		if !reflect.DeepEqual(got, tt.want) || found != tt.found || len(files) != tt.notes {
			t.Errorf("cloptServices(%q) = %q, %v, %d files; want %q, %v, %d files",
				tt.clopt, got, found, len(files), tt.want, tt.found, tt.notes)
		}
	}
}

func TestServerKind(t *testing.T) {
	tests := []struct {
		name            string
		system, gateway bool
	}{
		{"BBL", true, false}, {"TMS", true, false}, {"TMS_QM", true, false}, {"TMSYSEVT", true, false},
		{"TMQUEUE", true, false}, {"WSL", true, false}, {"/opt/tux/bin/JSL", true, false},
		{"GWTDOMAIN", true, true}, {"simpserv", false, false}, {"tms", false, false},
		{"/opt/tux/bin/JREPSVR", true, false}, {"JSH", true, false}, {"WSH", true, false}, {"BRIDGE", true, false},
		{"ISH", true, false}, {"GWWS", true, false}, {"TMFAN", true, false}, {"TMNTS", true, false},
		{"TMNTSFWD_T", true, false}, {"TMNTSFWD_P", true, false}, {"AUTHSVR", true, false}, {"LMS", true, false},
		{"TMS_ORA", true, false}, {"GWTOPEND", true, false}, {"GWSNAX", true, false}, {"GWIDOMAIN", true, false},
		{"GWOSITP", true, false}, {"JREPSVR.sh", false, false}, {"jrepsvr", false, false}, {"TMN", false, false},
	}
	for _, tt := range tests {
		if s, g := serverKind(tt.name); s != tt.system || g != tt.gateway {
			t.Errorf("serverKind(%q) = %v, %v; want %v, %v", tt.name, s, g, tt.system, tt.gateway)
		}
	}
}

// TestAdvertise checks where each instance's services come from.
func TestAdvertise(t *testing.T) {
	ubb := head + "a SRVGRP=G1 SRVID=1 CLOPT=\"-A -s A1,A2:f -- -s NO\"\n" +
		"b SRVGRP=G1 SRVID=2\n" +
		"c SRVGRP=G1 SRVID=3 CLOPT=\"-A\"\n" +
		"TMQUEUE SRVGRP=G1 SRVID=4 CLOPT=\"-A\"\n" +
		"TMQUEUE SRVGRP=G1 SRVID=5 CLOPT=\"-s QS:TMQUEUE\"\n" +
		"*SERVICES\nS1\nS2 SRVGRP=G1\n"
	m, err := Load(Input{UBBName: "t.ubb", UBBConfig: ubb, Advertise: map[string][]string{"b": {"B1"}, "a": {"X"}, "ghost": {"G"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range m.Servers {
		got = append(got, s.ID+" "+s.AdvertiseSource+" "+strings.Join(s.Services, ","))
	}
	want := []string{"G1/1 clopt A1,A2", "G1/2 scenario B1", "G1/3 services S1,S2", "G1/4 clopt ", "G1/5 clopt QS"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	var names []string
	for _, s := range m.Services {
		names = append(names, s.Name)
	}
	// G and X are named only by unused advertise entries: known all the same.
	if want := []string{"A1", "A2", "B1", "G", "QS", "S1", "S2", "X"}; !reflect.DeepEqual(names, want) {
		t.Errorf("known services: got %v, want %v", names, want)
	}
	var warns []string
	for _, w := range m.Warnings {
		warns = append(warns, w.String())
	}
	wantWarns := []string{
		"t.ubb:10:1: warning: server c has no -s in its CLOPT and no advertise entry in the scenario: it advertises every *SERVICES service: S1 S2",
		"scenario: warning: advertise: a is not used: no server of that name without -s in its CLOPT",
		"scenario: warning: advertise: ghost is not used: no server of that name without -s in its CLOPT",
	}
	if !reflect.DeepEqual(warns, wantWarns) {
		t.Errorf("warnings:\n  %s\nwant\n  %s", strings.Join(warns, "\n  "), strings.Join(wantWarns, "\n  "))
	}
	if !m.Servers[3].System || m.Servers[0].System {
		t.Errorf("System: got %v/%v, want TMQUEUE true, a false", m.Servers[3].System, m.Servers[0].System)
	}
}

// A server whose -s names only a file of services (-s @file, which tuxlb
// cannot read) advertises as one without -s: its advertise entry when the
// scenario has one, else every *SERVICES service, with one warning at its
// CLOPT saying why; one that names services besides keeps them, the file
// warned about. (Before, it advertised nothing, and a configuration of
// such servers had nothing to run.)
func TestAdvertiseFromAFile(t *testing.T) {
	ubb := head + "f SRVGRP=G1 SRVID=1 CLOPT=\"-s @svcs.txt --\"\n" +
		"g SRVGRP=G1 SRVID=2 CLOPT=\"-s @svcs.txt\"\n" +
		"h SRVGRP=G1 SRVID=3 CLOPT=\"-s @more.txt -s H1\"\n" +
		"*SERVICES\nS1\nS2\n"
	m, err := Load(Input{UBBName: "t.ubb", UBBConfig: ubb, Advertise: map[string][]string{"g": {"G1"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got, warns []string
	for _, s := range m.Servers {
		got = append(got, s.ID+" "+s.AdvertiseSource+" "+strings.Join(s.Services, ","))
	}
	for _, w := range m.Warnings {
		warns = append(warns, w.String())
	}
	if want := []string{"G1/1 services S1,S2", "G1/2 scenario G1", "G1/3 clopt H1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	wantWarns := []string{
		"t.ubb:8:27: warning: server f names its services in a file (-s @svcs.txt), which is not read, and has no advertise entry in the scenario: it advertises every *SERVICES service: S1 S2",
		"t.ubb:10:27: warning: server h: -s @more.txt names a file of services, which is not read",
	}
	if !reflect.DeepEqual(warns, wantWarns) {
		t.Errorf("warnings:\n  %s\nwant\n  %s", strings.Join(warns, "\n  "), strings.Join(wantWarns, "\n  "))
	}
}

// TestAdvertiseSystemServers: Tuxedo's system servers never take the
// *SERVICES fallback nor an advertise entry, whatever the path of their
// executable; the gateways other than GWTDOMAIN are warned about. The case
// is Oracle's Jolt sample read with LDBAL N: JREPSVR, read as an
// application server, advertised TOUPPER and came first in scan order, so
// it took every TOUPPER request; here only simpserv offers it.
func TestAdvertiseSystemServers(t *testing.T) {
	ubb := head + "/opt/tux/bin/JREPSVR SRVGRP=G1 SRVID=1 CLOPT=\"-A -- -W -P /app/repository\"\n" +
		"JSL SRVGRP=G1 SRVID=2 CLOPT=\"-A -- -n //host:4000\"\n" +
		"GWTOPEND SRVGRP=G1 SRVID=3\n" +
		"AUTHSVR SRVGRP=G1 SRVID=4 CLOPT=\"-A -s AUTHSVC\"\n" +
		"simpserv SRVGRP=G1 SRVID=5\n" +
		"*SERVICES\nTOUPPER\n"
	m, err := Load(Input{UBBName: "t.ubb", UBBConfig: ubb, Advertise: map[string][]string{"/opt/tux/bin/JREPSVR": {"TOUPPER"}, "simpserv": {"TOUPPER"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range m.Servers {
		got = append(got, fmt.Sprintf("%s %s %v %s", s.ID, s.AdvertiseSource, s.System, strings.Join(s.Services, ",")))
	}
	want := []string{"G1/1 clopt true ", "G1/2 clopt true ", "G1/3 clopt true ", "G1/4 clopt true AUTHSVC", "G1/5 scenario false TOUPPER"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	var warns []string
	for _, w := range m.Warnings {
		warns = append(warns, w.String())
	}
	wantWarns := []string{
		"t.ubb:8:1: warning: server /opt/tux/bin/JREPSVR is a Tuxedo system server: it advertises only what its CLOPT -s options name, so the scenario's advertise entry for it is not used",
		"t.ubb:10:1: warning: server GWTOPEND is a domain gateway that is not simulated (only GWTDOMAIN is): it advertises only its -s services",
	}
	if !reflect.DeepEqual(warns, wantWarns) {
		t.Errorf("warnings:\n  %s\nwant\n  %s", strings.Join(warns, "\n  "), strings.Join(wantWarns, "\n  "))
	}
}
