package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
)

const bridgeUBB = `*RESOURCES
MODEL SHM
LDBAL Y
*MACHINES
h LMID=site1
*GROUPS
G1 LMID=site1 GRPNO=1
*SERVERS
bankserv SRVGRP=G1 SRVID=1 CLOPT="-s BALANCE,DEPOSIT"
`

// TestFilesFitsANewConfig: a scenario of another application plus a new
// UBBCONFIG comes back runnable, with notes; its run gives the bytes the
// same scenario gives natively.
func TestFilesFitsANewConfig(t *testing.T) {
	old := `{"ubbconfig": "x", "services": {"TOUPPER": {"service_time": {"dist": "const", "ms": 2}}},
		"workload": {"generate": {"duration_ms": 1000, "streams": [{"service": "TOUPPER", "arrivals": "poisson", "rate_per_s": 10}]}}}`
	ubb := bridgeUBB
	req, _ := json.Marshal(filesRequest{Scenario: old, UBBConfig: &ubb})
	var got struct {
		Scenario json.RawMessage `json:"scenario"`
		Notes    []string        `json:"notes"`
	}
	if err := json.Unmarshal([]byte(files(string(req))), &got); err != nil || got.Scenario == nil {
		t.Fatalf("files: %v %s", err, files(string(req)))
	}
	if len(got.Notes) != 5 || !strings.Contains(got.Notes[0], "services.TOUPPER: dropped") {
		t.Errorf("notes: got %q", got.Notes)
	}
	var ans runAnswer
	json.Unmarshal([]byte(run(string(got.Scenario), options{})), &ans)
	sc, err := core.ParseScenario(got.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	res, err := core.Run(sc, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Result != string(result.Encode(res)) || ans.Result == "" {
		t.Errorf("the bridge's run differs from core.Run")
	}
	// adapt alone says the same.
	var a struct{ Notes []string }
	adapted, _ := json.Marshal(map[string]any{"ubbconfig": bridgeUBB, "services": map[string]any{"TOUPPER": map[string]any{"service_time": map[string]any{"dist": "const", "ms": 2}}},
		"workload": map[string]any{"generate": map[string]any{"duration_ms": 1000, "streams": []any{
			map[string]any{"service": "BALANCE", "arrivals": "poisson", "rate_per_s": 1}}}}})
	json.Unmarshal([]byte(adapt(string(adapted))), &a)
	if len(a.Notes) == 0 || a.Notes[0] != "services.TOUPPER: dropped: the configuration has no such service" {
		t.Errorf("adapt notes: got %q", a.Notes)
	}
}

func TestFilesErrors(t *testing.T) {
	ubb, bad, trace := bridgeUBB, "*RESOURCES\nMODEL XX\n", "ts,service\n2026-11-29 10:00:00,NOPE\n"
	tests := []struct {
		req  filesRequest
		want string
	}{
		{filesRequest{}, "ubbconfig: missing"},
		{filesRequest{UBBConfig: &bad}, "MODEL must be SHM or MP"},
		{filesRequest{UBBConfig: &ubb, Trace: &trace}, `trace row 1: service: unknown service "NOPE"`},
		{filesRequest{UBBConfig: &ubb, TraceMap: "colour=x"}, `unknown key "colour"`},
	}
	for _, tt := range tests {
		req, _ := json.Marshal(tt.req)
		if e := decodeError(t, files(string(req))); !strings.Contains(e.Message, tt.want) {
			t.Errorf("got %q, want %q", e.Message, tt.want)
		}
	}
}

// TestFilesTakesPSC: a configuration whose one server advertises at run time
// starts in the page with a stand-in service named like the server (and a
// note saying so), and with its real services when the psc listing is
// dropped beside it, as `tuxlb init --psc` makes it.
func TestFilesTakesPSC(t *testing.T) {
	ubbText := "*RESOURCES\nMODEL SHM\n*MACHINES\nh LMID=site1\n*GROUPS\nG1 LMID=site1 GRPNO=1\n*SERVERS\nsimpserv SRVGRP=G1 SRVID=1 CLOPT=\"-A\"\n"
	listing := "Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status\n" +
		"------------ ------------ ---------  --------  --    -------  ------ ------\n" +
		"TOUPPER      TOUPPER      simpserv   G1         1     site1        0 AVAIL\n"
	body, _ := json.Marshal(filesRequest{UBBConfig: &ubbText})
	var stand adaptAnswer
	if err := json.Unmarshal([]byte(files(string(body))), &stand); err != nil || stand.Scenario == nil ||
		!strings.Contains(strings.Join(stand.Notes, "\n"), "server simpserv (group G1) runs SIMPSERV") {
		t.Errorf("without the listing: %v %.400s", err, files(string(body)))
	} else if adv := stand.Scenario.Advertise["simpserv"]; len(adv) != 1 || adv[0] != "SIMPSERV" {
		t.Errorf("without the listing, advertise: %v", stand.Scenario.Advertise)
	}
	body, _ = json.Marshal(filesRequest{UBBConfig: &ubbText, PSC: &listing})
	var got adaptAnswer
	if err := json.Unmarshal([]byte(files(string(body))), &got); err != nil || got.Scenario == nil {
		t.Fatalf("with the listing: %v %.300s", err, files(string(body)))
	}
	if adv := got.Scenario.Advertise["simpserv"]; len(adv) != 1 || adv[0] != "TOUPPER" {
		t.Errorf("advertise: %v", got.Scenario.Advertise)
	}
}
