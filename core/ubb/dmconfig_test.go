package ubb

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDMConfigSamples loads the UBBCONFIG/DMCONFIG pairs of testdata/dmconfig
// and compares them with their golden models.
func TestDMConfigSamples(t *testing.T) {
	for _, name := range []string{"lapp", "twodomains"} {
		t.Run(name, func(t *testing.T) {
			ubb, err1 := os.ReadFile(filepath.Join("testdata", "dmconfig", name+".ubb"))
			dm, err2 := os.ReadFile(filepath.Join("testdata", "dmconfig", name+".dm"))
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			m, err := Load(Input{UBBName: name + ".ubb", UBBConfig: string(ubb), DMName: name + ".dm", DMConfig: string(dm)})
			if err != nil {
				t.Fatal(err)
			}
			out, _ := json.MarshalIndent(m, "", "  ")
			checkGolden(t, filepath.Join("testdata", "model", "dmconfig_"+name+".json"), append(out, '\n'))
		})
	}
}

// dmUBB has a gateway group GW with two GWTDOMAIN instances sharing a queue.
const dmUBB = "*RESOURCES\nMODEL SHM\n*MACHINES\nm LMID=a\n*GROUPS\nAPP LMID=a GRPNO=1\nGW LMID=a GRPNO=2\n" +
	"*SERVERS\nGWTDOMAIN SRVGRP=GW SRVID=1 MIN=2 RQADDR=GWQ\napp SRVGRP=APP SRVID=1 CLOPT=\"-s L\"\n" +
	"*SERVICES\nR2 LOAD=30 PRIO=40\n"

func TestDMConfigImports(t *testing.T) {
	dm := "*DM_LOCAL_DOMAINS\nLD GWGRP=GW\n*DM_REMOTE_DOMAINS\nRD1 DOMAINID=\"r1\"\nRD2\n" +
		"*DM_REMOTE_SERVICES\nR1 RDOM=RD2 LOAD=10\nR2 RDOM=RD1 PRIO=90\nR3\nR1 RDOM=RD1\n"
	m, err := Load(Input{UBBName: "t.ubb", UBBConfig: dmUBB, DMName: "t.dm", DMConfig: dm})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1} {
		s := m.Servers[i]
		if !s.Gateway || s.AdvertiseSource != "dmconfig" || !reflect.DeepEqual(s.Services, []string{"R1", "R2", "R3"}) {
			t.Errorf("server %s: got gateway %v source %q services %v; want gateway dmconfig [R1 R2 R3]",
				s.ID, s.Gateway, s.AdvertiseSource, s.Services)
		}
	}
	got := map[string]string{}
	for _, s := range m.Services {
		r := "local"
		if s.Remote != nil {
			r = s.Remote.Domain + "@" + s.Remote.GatewayGroup
		}
		gw := s.Params("GW")
		got[s.Name] = fmt.Sprintf("%s %d/%d gw %d/%d", r, s.Load, s.Prio, gw.Load, gw.Prio)
	}
	want := map[string]string{
		// The import's LOAD and PRIO are the gateway group's only; the
		// service's own (general) values stay those of *SERVICES.
		"L":  "local 50/50 gw 50/50",
		"R1": "RD2@GW 50/50 gw 10/50",
		"R2": "RD1@GW 30/40 gw 30/90",
		"R3": "RD1@GW 50/50 gw 50/50",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if want := []Domain{{"RD1", "r1"}, {"RD2", ""}}; !reflect.DeepEqual(m.Domains, want) {
		t.Errorf("domains: got %v, want %v", m.Domains, want)
	}
}

// TestDMConfigAlternates: RDOM=A,B[,C] keeps the first as the domain and
// the rest, in order, as alternates; the first import of a service sets them.
func TestDMConfigAlternates(t *testing.T) {
	dm := "*DM_LOCAL_DOMAINS\nLD GWGRP=GW\n*DM_REMOTE_DOMAINS\nRD1\nRD2\nRD3\n" +
		"*DM_REMOTE_SERVICES\nR1 RDOM=\"RD2, RD3,RD1\"\nR2 RACCESSPOINT=RD3,RD1\nR3\nR1 RDOM=RD1\n"
	m, err := Load(Input{UBBName: "t.ubb", UBBConfig: dmUBB, DMName: "t.dm", DMConfig: dm})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{"R1": {"RD2", "RD3", "RD1"}, "R2": {"RD3", "RD1"}, "R3": {"RD1"}} {
		if got := m.Service(name).Remote.Domains(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got domains %v, want %v", name, got, want)
		}
	}
	if m.Service("R3").Remote.Alternates != nil {
		t.Errorf("R3: alternates %v, want none", m.Service("R3").Remote.Alternates)
	}
}

func TestDMConfigRejections(t *testing.T) {
	tests := []struct{ name, dm, want string }{
		{"unknown RDOM", "*DM_LOCAL_DOMAINS\nLD GWGRP=GW\n*DM_REMOTE_DOMAINS\nRD\n*DM_REMOTE_SERVICES\nS RDOM=XX\n",
			"t.dm:6:8: imported service S: unknown remote domain XX: expected an entry of *DM_REMOTE_DOMAINS"},
		{"unknown RACCESSPOINT", "*DM_LOCAL\nLD GWGRP=GW\n*DM_REMOTE\nRD\n*DM_IMPORT\nS RACCESSPOINT=\"XX,RD\"\n",
			"t.dm:6:17: imported service S: unknown remote domain XX: expected an entry of *DM_REMOTE_DOMAINS"},
		{"unknown alternate", "*DM_LOCAL\nLD GWGRP=GW\n*DM_REMOTE\nRD\nRE\n*DM_IMPORT\nS RDOM=\"RD, RE,XX\"\n",
			"t.dm:7:16: imported service S: unknown remote domain XX: expected an entry of *DM_REMOTE_DOMAINS"},
		{"alternate twice", "*DM_LOCAL\nLD GWGRP=GW\n*DM_REMOTE\nRD\nRE\n*DM_IMPORT\nS RDOM=RD,RE,RD\n",
			"t.dm:7:14: imported service S: remote domain RD is listed twice in RDOM="},
		{"empty alternate", "*DM_LOCAL\nLD GWGRP=GW\n*DM_REMOTE\nRD\n*DM_IMPORT\nS RDOM=RD,\n",
			`t.dm:6:11: imported service S: RDOM="RD,": expected a remote domain between the commas`},
		{"four remote domains", "*DM_LOCAL\nLD GWGRP=GW\n*DM_REMOTE\nA\nB\nC\nD\n*DM_IMPORT\nS RDOM=A,B,C,D\n",
			"t.dm:9:8: imported service S: RDOM= lists 4 remote domains: at most 3 (the first, then up to two alternates)"},
		{"no remote domain", "*DM_LOCAL\nLD GWGRP=GW\n*DM_IMPORT\nS\n",
			"t.dm:4:1: imported service S: no remote domain: expected RDOM= naming an entry of *DM_REMOTE_DOMAINS"},
		{"unknown LDOM", "*DM_LOCAL\nLD GWGRP=GW\n*DM_REMOTE\nRD\n*DM_IMPORT\nS LDOM=LX\n",
			"t.dm:6:8: imported service S: unknown local domain LX: expected an entry of *DM_LOCAL_DOMAINS"},
		{"no local domain", "*DM_REMOTE\nRD\n*DM_IMPORT\nS\n",
			"t.dm:4:1: imported service S: no local domain: expected an entry with GWGRP= in *DM_LOCAL_DOMAINS"},
		{"unknown GWGRP", "*DM_LOCAL_DOMAINS\nLD GWGRP=NOPE TYPE=TDOMAIN\n",
			"t.dm:2:10: local domain LD: unknown GWGRP NOPE: expected a group of the UBBCONFIG's *GROUPS"},
		{"missing GWGRP", "*DM_LOCAL_DOMAINS\nLD TYPE=TDOMAIN\n",
			"t.dm:2:1: local domain LD: missing GWGRP= (the group of its GWTDOMAIN servers)"},
		{"duplicate remote domain", "*DM_REMOTE_DOMAINS\nRD\nRD\n",
			"t.dm:3:1: duplicate remote domain RD (first at line 2)"},
		{"duplicate local domain", "*DM_LOCAL_DOMAINS\nLD GWGRP=GW\nLD GWGRP=GW\n",
			"t.dm:3:1: duplicate local domain LD (first at line 2)"},
		{"import LOAD", "*DM_LOCAL\nLD GWGRP=GW\n*DM_REMOTE\nRD\n*DM_IMPORT\nS LOAD=0\n",
			`t.dm:6:8: LOAD must be a number from 1 to 32767, got "0"`},
		{"syntax", "*DM_LOCAL\nLD GWGRP=\"GW\n", `t.dm:2:10: unterminated quoted string: expected a closing '"' (a quoted value may run over 1000 lines at most)`},
		{"text before a section", "LD GWGRP=GW\n", `t.dm:1:1: expected a section such as *DM_LOCAL_DOMAINS before "LD"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(Input{UBBName: "t.ubb", UBBConfig: dmUBB, DMName: "t.dm", DMConfig: tt.dm})
			if err == nil {
				t.Fatalf("got a model, want %s", tt.want)
			}
			if got := diagnosticsOf(t, err)[0].String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestDMConfigWarnings(t *testing.T) {
	ubb := strings.Replace(dmUBB, "GWTDOMAIN SRVGRP=GW SRVID=1 MIN=2 RQADDR=GWQ\n", "", 1)
	m, err := Load(Input{UBBName: "t.ubb", UBBConfig: ubb, DMName: "t.dm", DMConfig: "*DM_RESOURCES\nVERSION=1 COLOR=2\n*DM_LOCAL\nLD GWGRP=GW\n*FOO\n"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range m.Warnings {
		got = append(got, w.String())
	}
	want := []string{
		"t.dm:2:11: warning: unknown keyword COLOR in *DM_RESOURCES (ignored)",
		"t.dm:5:1: warning: unknown section *FOO: its entries are ignored",
		"t.dm:4:1: warning: local domain LD: group GW has no GWTDOMAIN server, so its imported services have none to go to",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestDMImportKeywords: AUTOPREPARE (DM_MIB's TA_DMAUTOPREPARE of
// T_DM_IMPORT) is a keyword of *DM_IMPORT, accepted without a warning, as
// a real DMCONFIG's DEFAULT: line writes it; a word DMCONFIG(5) has not
// (API) is still warned, at its line and column (line 9: the DEFAULT:
// line is 8); the second import of Mail, from another remote domain, too.
func TestDMImportKeywords(t *testing.T) {
	dm := "*DM_LOCAL\nLD GWGRP=GW\n*DM_REMOTE\nR1 TYPE=TDOMAIN\nR2 TYPE=TDOMAIN\n*DM_EXPORT\n*DM_IMPORT\n" +
		"DEFAULT: AUTOTRAN=N AUTOPREPARE=N CONV=N LOAD=50\n    PRIO=50 API=ATMI FUNCTION=APPC\n" +
		"Mail RACCESSPOINT=R1 LACCESSPOINT=LD\nMail RACCESSPOINT=R2 LACCESSPOINT=LD\n"
	m, err := Load(Input{UBBName: "t.ubb", UBBConfig: dmUBB, DMName: "t.dm", DMConfig: dm})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range m.Warnings {
		got = append(got, w.String())
	}
	want := []string{"t.dm:9:13: warning: unknown keyword API in *DM_IMPORT (ignored)",
		// Mail imported twice, from R1 then R2: one remote domain a
		// service, the first entry's, said where the second is
		"t.dm:11:1: warning: imported service Mail: imported before (line 10) from R1, where its requests go: this entry's R2 is not used (it only adds its local domains' gateways)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
