package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runMain runs tuxlb with args and returns its exit code, stdout and stderr.
func runMain(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Main(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const goodUBB = `*RESOURCES
MODEL MP
LDBAL Y
*MACHINES
n1 LMID=site1
n2 LMID=site2 NETLOAD=100
*GROUPS
G1 LMID=site1 GRPNO=1
G2 LMID=site2 GRPNO=2
*SERVERS
simpserv SRVGRP=G1 SRVID=1 MIN=2 RQADDR=Q1 CLOPT="-s TOUPPER"
simpserv SRVGRP=G2 SRVID=1
*SERVICES
TOUPPER LOAD=60
TOUPPER SRVGRP=G2 LOAD=70 PRIO=80
`

func TestValidatePrintsModel(t *testing.T) {
	path := writeFile(t, "good.ubb", goodUBB)
	code, stdout, stderr := runMain("validate", "--ubbconfig", path)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var got struct {
		Model    string `json:"model"`
		LDBAL    any    `json:"ldbal"`
		Machines []struct {
			LMID    string `json:"lmid"`
			NetLoad int    `json:"netload"`
		} `json:"machines"`
		Servers []struct {
			ID, Name, Group, LMID, Queue string
			Services                     []string
		} `json:"servers"`
		Services []struct {
			Name    string                    `json:"name"`
			Load    int                       `json:"load"`
			Prio    int                       `json:"prio"`
			ByGroup map[string]map[string]int `json:"by_group"`
		} `json:"services"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if got.Model != "MP" || got.LDBAL != true {
		t.Errorf("model/ldbal: got %q/%#v, want MP/true", got.Model, got.LDBAL)
	}
	if len(got.Machines) != 2 || got.Machines[1].LMID != "site2" || got.Machines[1].NetLoad != 100 {
		t.Errorf("machines: got %+v, want site1, site2 with NETLOAD 100", got.Machines)
	}
	var servers []string
	for _, s := range got.Servers {
		servers = append(servers, strings.Join([]string{s.ID, s.Name, s.Group, s.LMID, s.Queue, strings.Join(s.Services, ",")}, " "))
	}
	want := []string{"G1/1 simpserv G1 site1 Q1 TOUPPER", "G1/2 simpserv G1 site1 Q1 TOUPPER", "G2/1 simpserv G2 site2 G2/1 TOUPPER"}
	if strings.Join(servers, "|") != strings.Join(want, "|") {
		t.Errorf("servers: got %q, want %q", servers, want)
	}
	if len(got.Services) != 1 || got.Services[0].Load != 60 || got.Services[0].Prio != 50 ||
		got.Services[0].ByGroup["G2"]["load"] != 70 || got.Services[0].ByGroup["G2"]["prio"] != 80 {
		t.Errorf("services: got %+v, want TOUPPER 60/50 with G2 70/80", got.Services)
	}
	wantWarn := path + ":12:1: warning: server simpserv has no -s in its CLOPT and no advertise entry in the scenario: " +
		"it advertises every *SERVICES service: TOUPPER\n"
	if stderr != wantWarn {
		t.Errorf("stderr: got %q, want %q", stderr, wantWarn)
	}
}

func TestValidateWithDMConfig(t *testing.T) {
	ubb := writeFile(t, "a.ubb", "*RESOURCES\nMODEL SHM\n*MACHINES\nm LMID=a\n*GROUPS\nGW LMID=a GRPNO=1\n"+
		"*SERVERS\nGWTDOMAIN SRVGRP=GW SRVID=1\n")
	dm := writeFile(t, "a.dm", "*DM_LOCAL\nL GWGRP=GW\n*DM_REMOTE\nR\n*DM_IMPORT\nRSVC RACCESSPOINT=R LOAD=20\n")
	code, stdout, stderr := runMain("validate", "--ubbconfig", ubb, "--dmconfig", dm)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{`"gateway": true`, `"RSVC"`, `"domain": "R"`, `"load": 20`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %s:\n%s", want, stdout)
		}
	}
}

func TestValidateErrors(t *testing.T) {
	bad := writeFile(t, "bad.ubb", "*RESOURCES\nMODEL SHM\nLDBAL maybe\n*MACHINES\nm LMID=a\nm2 LMID=b\n")
	missing := filepath.Join(t.TempDir(), "nope.ubb")
	tests := []struct {
		name      string
		args      []string
		code      int
		stderrHas []string
	}{
		{"bad file", []string{"--ubbconfig", bad}, 1,
			[]string{bad + `:3:7: LDBAL must be Y or N, got "maybe"` + "\n" +
				bad + ":6:1: MODEL SHM allows one machine: a second machine (b) needs MODEL MP\n"}},
		{"bad dmconfig", []string{"--ubbconfig", writeFile(t, "ok.ubb", goodUBB), "--dmconfig", writeFile(t, "x.dm", "*DM_LOCAL\nL GWGRP=NOPE\n")}, 1,
			[]string{"x.dm:2:9: local domain L: unknown GWGRP NOPE"}},
		{"unreadable UBBCONFIG", []string{"--ubbconfig", missing}, 1, []string{"tuxlb validate: cannot read UBBCONFIG: ", "nope.ubb"}},
		{"unreadable DMCONFIG", []string{"--ubbconfig", bad, "--dmconfig", missing}, 1, []string{"cannot read DMCONFIG"}},
		{"no --ubbconfig", nil, 2, []string{"want the UBBCONFIG (tuxlb validate FILE, or --ubbconfig FILE)", "usage: tuxlb validate"}},
		{"the file as the one argument", []string{bad}, 1, []string{bad + `:3:7: LDBAL must be Y or N, got "maybe"`}},
		{"two files", []string{bad, bad}, 2, []string{`unexpected argument`}},
		{"unknown flag", []string{"--ubb", bad}, 2, []string{"flag provided but not defined: -ubb"}},
		{"extra argument", []string{"--ubbconfig", bad, "more"}, 2, []string{`unexpected argument "more"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMain(append([]string{"validate"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit: got %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout: got %q, want nothing", stdout)
			}
			for _, want := range tt.stderrHas {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr: got %q, want it to contain %q", stderr, want)
				}
			}
		})
	}
}

// TestValidateShowsRouting checks that validate lists the routing criteria
// with the services that use them, each routed service's criterion, and
// the spares, on Oracle's bankapp layout (RANGES over several lines).
func TestValidateShowsRouting(t *testing.T) {
	code, stdout, stderr := runMain("validate", "--ubbconfig", "../../core/ubb/testdata/routing/bankapp.ubb")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var got struct {
		Routing []struct {
			Name     string
			Kind     string
			Ranges   []struct{ Text, Group string }
			Services []string
		}
		Services []struct{ Name, Routing string }
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Routing) != 2 || got.Routing[0].Name != "ACCOUNT_ID" || got.Routing[0].Kind != "number" ||
		strings.Join(got.Routing[0].Services, ",") != "DEPOSIT,INQUIRY,WITHDRAW" || len(got.Routing[0].Ranges) != 5 ||
		got.Routing[0].Ranges[1].Text != "10000-49999" || got.Routing[0].Ranges[1].Group != "BANKB1" {
		t.Errorf("routing: got %+v", got.Routing)
	}
	routed := map[string]string{}
	for _, s := range got.Services {
		routed[s.Name] = s.Routing
	}
	if routed["OPEN_ACCT"] != "BRANCH_ID" || routed["WITHDRAW"] != "ACCOUNT_ID" {
		t.Errorf("services' routing: got %v", routed)
	}
	ubb := strings.Replace(goodUBB, "simpserv SRVGRP=G2 SRVID=1", "simpserv SRVGRP=G2 SRVID=1 MAX=2", 1)
	code, stdout, stderr = runMain("validate", "--ubbconfig", writeFile(t, "spare.ubb", ubb))
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, `"id": "G2/2"`) || !strings.Contains(stdout, `"spare": true`) {
		t.Errorf("spare G2/2 not listed as a spare:\n%s", stdout)
	}
}
