package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/workload"
)

// Tests of [newSetup] on real configuration text, through [LoadModel].

const setupUBB = `*RESOURCES
IPCKEY      123458
MASTER      SITE1
MODEL       MP
LDBAL       Y
SCANUNIT    5
SANITYSCAN  2
BLOCKTIME   3

*MACHINES
node1       LMID=SITE1 APPDIR="/app" TUXCONFIG="/app/tuxconfig" TUXDIR="/opt/tuxedo"
node2       LMID=SITE2 NETLOAD=20 APPDIR="/app" TUXCONFIG="/app/tuxconfig" TUXDIR="/opt/tuxedo"

*GROUPS
GRP1        LMID=SITE1 GRPNO=1
GRP2        LMID=SITE2 GRPNO=2
GWGRP       LMID=SITE1 GRPNO=3

*NETWORK
SITE1       NADDR="//node1:3050" NLSADDR="//node1:3051"
SITE2       NADDR="//node2:3050" NLSADDR="//node2:3051"

*SERVERS
acctsrv     SRVGRP=GRP1 SRVID=1 CLOPT="-s BALANCE --"
acctsrv     SRVGRP=GRP2 SRVID=1 CLOPT="-s BALANCE --"
DMADM       SRVGRP=GWGRP SRVID=1
GWADM       SRVGRP=GWGRP SRVID=2
GWTDOMAIN   SRVGRP=GWGRP SRVID=3

*SERVICES
BALANCE     LOAD=50
`

const setupDM = `*DM_RESOURCES
VERSION=U22

*DM_LOCAL_DOMAINS
LDOM        GWGRP=GWGRP TYPE=TDOMAIN DOMAINID="LDOM"

*DM_REMOTE_DOMAINS
RDOM        TYPE=TDOMAIN DOMAINID="RDOM"

*DM_TDOMAIN
LDOM        NWADDR="//gwhost:9001"
RDOM        NWADDR="//remote:9001"

*DM_REMOTE_SERVICES
RATE        RDOM=RDOM LDOM=LDOM LOAD=50
`

func setupScenario() *scenario.Scenario {
	return &scenario.Scenario{
		UBBConfig: setupUBB,
		DMConfig:  setupDM,
		Services:  map[string]scenario.ServiceSpec{"BALANCE": {ServiceTime: &scenario.Dist{Dist: "exp", MeanMS: f(12)}}},
		Domains:   map[string]scenario.DomainSpec{"RDOM": {ResponseTime: scenario.Dist{Dist: "const", MS: f(40)}}},
		Workload: scenario.Workload{Generate: &scenario.Generator{DurationMS: 1000, Streams: []scenario.Stream{
			{Service: "BALANCE", Origin: "SITE2", Arrivals: "poisson", RatePerS: 90},
			{Service: "RATE", Arrivals: "poisson", RatePerS: 10}}}},
	}
}

func TestNewSetup(t *testing.T) {
	st, err := newSetup(setupScenario(), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := st.Model
	rate, balance := m.Service("RATE"), m.Service("BALANCE")
	if rate == nil || balance == nil || rate.Remote == nil {
		t.Fatalf("model: got services %+v, want BALANCE and an imported RATE", m.Services)
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"ResetUS (SCANUNIT 5 s x SANITYSCAN 2)", st.ResetUS, int64(10_000_000)},
		{"mp_reset_ms", *st.Tuning.MPResetMS, 10_000.0},
		{"BlockUS (SCANUNIT 5 s x BLOCKTIME 3)", st.BlockUS, int64(15_000_000)},
		{"policy", st.Policy.String(), "tuxedo"},
		{"machines", len(st.Speed), 2},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	for s, svc := range m.Services {
		switch {
		case svc.Name == "RATE" && (st.RemoteTime[s] == nil || st.RemoteTime[s].MeanMS() != 40):
			t.Errorf("RemoteTime of RATE: got %v, want RDOM's const 40 ms", st.RemoteTime[s])
		case svc.Name == "BALANCE" && (st.ServiceTime[s][0] == nil || st.ServiceTime[s][0].MeanMS() != 12):
			t.Errorf("ServiceTime of BALANCE on GRP1: got %v, want exp 12 ms", st.ServiceTime[s][0])
		}
	}
}

func TestNewSetupErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(sc *scenario.Scenario)
		want string
	}{
		{"ubbconfig", func(sc *scenario.Scenario) {
			sc.UBBConfig = strings.Replace(sc.UBBConfig, "MODEL       MP", "MODEL       XX", 1)
		}, "ubbconfig:4:"},
		{"machine", func(sc *scenario.Scenario) { sc.Machines = map[string]scenario.MachineSpec{"site9": {}} }, "machines.site9: unknown LMID (the UBBCONFIG has SITE1 and SITE2)"},
		{"domain missing", func(sc *scenario.Scenario) { sc.Domains = nil }, "domains.RDOM: missing; service RATE is imported from it"},
		{"domain unknown", func(sc *scenario.Scenario) { sc.Domains["XDOM"] = sc.Domains["RDOM"] }, "domains.XDOM: unknown remote domain (the DMCONFIG has RDOM)"},
		{"stream origin", func(sc *scenario.Scenario) { sc.Workload.Generate.Streams[0].Origin = "SITE3" }, `workload.generate.streams[0].origin: unknown LMID "SITE3"`},
		{"untimed", func(sc *scenario.Scenario) { sc.Services = nil }, "workload.generate.streams[0].service: service BALANCE has no service_time for group GRP1"},
	}
	for _, tt := range tests {
		sc := setupScenario()
		tt.edit(sc)
		_, err := newSetup(sc, RunOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || diag.ErrorCode(err) != diag.EINVALID {
			t.Errorf("%s: got %v, want %s error %q", tt.name, err, diag.EINVALID, tt.want)
		}
	}
}

// TestShippedScenariosSetUp reads every example and benchmark scenario of the
// repository and opens its workload: the documents people copy must be valid.
func TestShippedScenariosSetUp(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.json")
	bench, _ := filepath.Glob("../bench/scenarios/*.json")
	files = append(files, bench...)
	if len(files) == 0 {
		t.Fatal("found no scenarios under ../examples and ../bench/scenarios")
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := ParseScenario(data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		st, err := newSetup(sc, RunOptions{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		rs, err := workload.Open(st.Model, sc, st.Seed, 0)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if rs.Total() <= 0 {
			t.Errorf("%s: Total() = %d, want > 0", name, rs.Total())
		}
	}
}
