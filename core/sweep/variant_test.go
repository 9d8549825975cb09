package sweep

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

const compareUBB = "*RESOURCES\r\nIPCKEY 1\r\nMODEL SHM # one machine\r\nLDBAL \"N\"\r\n\r\n*MACHINES\r\nh LMID=A\r\n"

// TestApplyVariantEditsUBBConfig: ldbal= and model= (any case) and UBBCONFIG
// keys change the UBBCONFIG text through the editor, in place, CRLF kept.
func TestApplyVariantEditsUBBConfig(t *testing.T) {
	ubbText := compareUBB + "*GROUPS\r\nG LMID=A GRPNO=1\r\n*SERVERS\r\nsimpserv SRVGRP=G SRVID=1 CLOPT=\"-s TOUPPER\" # one\r\n"
	tests := []struct {
		variant, old, want string
	}{
		{"ldbal=y", "LDBAL \"N\"\r\n", "LDBAL \"Y\"\r\n"},
		{"model=MP", "MODEL SHM # one machine\r\n", "MODEL MP # one machine\r\n"},
		{"LDBAL=Y", "LDBAL \"N\"\r\n", "LDBAL \"Y\"\r\n"},
		{"SERVERS.simpserv.MIN=3", "TOUPPER\" # one", "TOUPPER\" MIN=3 # one"},
		{"SERVERS.simpserv@G.MAX=5", "TOUPPER\" # one", "TOUPPER\" MAX=5 # one"},
		{"MACHINES.A.NETLOAD=9", "h LMID=A\r\n", "h LMID=A NETLOAD=9\r\n"},
		{"RESOURCES.SCANUNIT=5", "*RESOURCES\r\n", "*RESOURCES\r\nSCANUNIT 5\r\n"},
		{"SERVICES.TOUPPER.LOAD=80", "# one\r\n", "# one\r\n*SERVICES\r\nTOUPPER LOAD=80\r\n"},
	}
	for _, tt := range tests {
		sc := &scenario.Scenario{UBBConfig: ubbText, Policy: "tuxedo"}
		v, err := ParseVariant(tt.variant)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ApplyVariant(sc, v)
		if err != nil {
			t.Errorf("%s: %v", tt.variant, err)
			continue
		}
		if want := strings.Replace(ubbText, tt.old, tt.want, 1); got.UBBConfig != want {
			t.Errorf("%s: got\n%q\nwant\n%q", tt.variant, got.UBBConfig, want)
		}
		if sc.UBBConfig != ubbText {
			t.Errorf("%s: the original scenario changed", tt.variant)
		}
	}
}

func TestParseVariant(t *testing.T) {
	v, err := ParseVariant("ldbal=N, tuning.idle=queue")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Set) != 2 || v.Set[0] != (Assignment{"ldbal", "N"}) || v.Set[1] != (Assignment{"tuning.idle", "queue"}) {
		t.Errorf("got %+v", v.Set)
	}
	for _, bad := range []string{"", "ldbal", "=3"} {
		if _, err := ParseVariant(bad); err == nil {
			t.Errorf("ParseVariant(%q): got no error", bad)
		}
	}
}

func TestApplyVariant(t *testing.T) {
	sc := &scenario.Scenario{UBBConfig: compareUBB, Policy: "tuxedo"}
	v, _ := ParseVariant("policy=p2c,network.latency_ms=2.5,tuning.idle=queue,ldbal=Y,seed=9")
	got, err := ApplyVariant(sc, v)
	if err != nil {
		t.Fatal(err)
	}
	if got.Policy != "p2c" || got.Network == nil || got.Network.LatencyMS != 2.5 ||
		got.Tuning == nil || got.Tuning.Idle != "queue" || got.Seed == nil || *got.Seed != 9 {
		t.Errorf("got %+v", got)
	}
	if !strings.Contains(got.UBBConfig, `LDBAL "Y"`) {
		t.Errorf("ubbconfig not rewritten: %q", got.UBBConfig)
	}
	if sc.Policy != "tuxedo" || sc.Network != nil || !strings.Contains(sc.UBBConfig, `LDBAL "N"`) {
		t.Errorf("the original scenario changed: %+v", sc)
	}
	for _, tt := range []struct{ bad, want string }{
		{"nosuchfield=1", "nosuchfield: unknown field"},
		{"tuning.idel=queue", "tuning.idel: unknown field"},
		{"tuning.idle=3", `tuning.idle: value "3" is not one of server, queue`},
		{"model=XP", `ubbconfig:3:7: MODEL must be SHM or MP, got "XP"`},
		{"ldbal=maybe", `ubbconfig:4:7: LDBAL must be Y or N, got "MAYBE"`},
		{"SERVERS.nosuch.MIN=2", `*SERVERS: no server nosuch`},
		{"SERVERS.x=1", `key "SERVERS.x": want SECTION.NAME[@GROUP].KEY (e.g. SERVERS.ACCT@BANKB1.MIN) or a *RESOURCES keyword (e.g. LDBAL)`},
		{"rate_scale=0", "rate_scale: value 0 must be > 0"},
		{"policy=best", `policy: value "best" is not one of tuxedo, round_robin, random, jsq, p2c`},
	} {
		v, _ := ParseVariant(tt.bad)
		_, err := ApplyVariant(sc, v)
		if err == nil || diag.ErrorCode(err) != diag.EINVALID || !strings.HasSuffix(err.Error(), `variant "`+tt.bad+`": `+tt.want) {
			t.Errorf("ApplyVariant(%q): got %v, want an invalid error ending %q", tt.bad, err, tt.want)
		}
	}
}

func TestCompareResults(t *testing.T) {
	a := &result.Result{Requests: result.RequestCounts{Issued: 100, Completed: 90, Failed: map[string]int64{"TPENOENT": 10}},
		WaitMS: result.Summary{Mean: 2}, Servers: []result.ServerStats{{ID: "G/1", Requests: 90, Utilization: 0.5}}}
	b := &result.Result{Requests: result.RequestCounts{Issued: 100, Completed: 100}, WaitMS: result.Summary{Mean: 3},
		Servers: []result.ServerStats{{ID: "G/2", Requests: 100, Utilization: 0.25}}}
	c := CompareResults([]string{"a", "b"}, []*result.Result{a, b})
	if c.Variants[0].Diff != nil {
		t.Errorf("baseline has a diff: %+v", c.Variants[0].Diff)
	}
	d := c.Variants[1].Diff
	if d["wait_mean_ms"].Abs != 1 || *d["wait_mean_ms"].Relative != 0.5 {
		t.Errorf("wait diff: got %+v, want abs 1 rel 0.5", d["wait_mean_ms"])
	}
	if d["failed"].Abs != -10 || d["timed_out"].Relative != nil {
		t.Errorf("failed diff %+v, timed_out %+v", d["failed"], d["timed_out"])
	}
	if c.Variants[1].Headline.UtilizationMax != 0.25 {
		t.Errorf("max utilization: got %v", c.Variants[1].Headline.UtilizationMax)
	}
	if len(c.Servers) != 2 || c.Servers[0].Requests[1] != 0 || c.Servers[1].Requests[1] != 100 {
		t.Errorf("servers: got %+v", c.Servers)
	}
}

// TestVariantsOfCompareSeeSameWork: every variant tuxlb compare makes of a
// scenario (LDBAL, model readings, policy, latency) issues the same requests at
// the same times with the same service times (both machines have speed 1).
func TestVariantsOfCompareSeeSameWork(t *testing.T) {
	data, err := os.ReadFile("../../examples/mp-netload.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := core.ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	sc.Workload.Generate.DurationMS = 5000
	work := func(text string) (issue, service []int64, servers map[string]bool) {
		v := Variant{Name: "baseline"}
		if text != "" {
			if v, err = ParseVariant(text); err != nil {
				t.Fatal(err)
			}
		}
		vsc, err := ApplyVariant(sc, v)
		if err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		if _, err := core.Run(vsc, core.RunOptions{Dispatch: &log}); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		servers = map[string]bool{}
		for _, row := range parseLog(t, log.String()) {
			issue = append(issue, row.issue)
			service = append(service, row.end-row.start)
			servers[row.server] = true
		}
		return issue, service, servers
	}
	baseIssue, baseService, _ := work("")
	if len(baseIssue) < 200 {
		t.Fatalf("baseline issued %d requests, want about 250", len(baseIssue))
	}
	for _, text := range []string{"ldbal=N", "policy=p2c", "tuning.mp_counter=load", "tuning.idle=queue", "network.latency_ms=3"} {
		issue, service, servers := work(text)
		if !slices.Equal(issue, baseIssue) || !slices.Equal(service, baseService) {
			t.Errorf("%s: issue or service times differ from the baseline's", text)
		}
		if text == "ldbal=N" && (len(servers) != 1 || !servers["GRP1/1"]) {
			t.Errorf("ldbal=N: served by %v, want GRP1/1 only", servers)
		}
	}
}

// logRow is what TestVariantsOfCompareSeeSameWork reads of a dispatch log's
// row (docs/engine.md): issue, start and end times, and the server.
type logRow struct {
	issue, start, end int64
	server            string
}

func parseLog(t *testing.T, text string) []logRow {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")[1:]
	out := make([]logRow, len(lines))
	for i, l := range lines {
		f := strings.Split(l, ",")
		n := func(s string) int64 {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("row %d: %q: %v", i+1, s, err)
			}
			return v
		}
		out[i] = logRow{issue: n(f[3]), server: f[4], start: n(f[7]), end: n(f[8])}
	}
	return out
}
