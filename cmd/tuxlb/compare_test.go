package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core/sweep"
)

func TestCompareCommand(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main([]string{"compare", "../../examples/admin-guide.json", "--json", "--variant", "tuning.mp_counter=load"}, nil, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var cmp sweep.Comparison
	if err := json.Unmarshal(out.Bytes(), &cmp); err != nil {
		t.Fatal(err)
	}
	if len(cmp.Variants) != 2 || cmp.Variants[0].Name != "baseline" || cmp.Variants[1].Name != "tuning.mp_counter=load" {
		t.Fatalf("variants: got %+v", cmp.Variants)
	}
	// The administration guide's example: 3:1 local under load+netload, about
	// 1:1 when counters grow by LOAD only (see examples/README.md).
	local, remote := cmp.Servers[0].Requests, cmp.Servers[1].Requests
	if r := float64(local[0]) / float64(remote[0]); r < 2.9 || r > 3.1 {
		t.Errorf("baseline local:remote = %d:%d, want about 3:1", local[0], remote[0])
	}
	if r := float64(local[1]) / float64(remote[1]); r < 0.95 || r > 1.05 {
		t.Errorf("load-only local:remote = %d:%d, want about 1:1", local[1], remote[1])
	}

	out.Reset()
	if code := Main([]string{"compare", "--variant", "ldbal=N", "../../examples/admin-guide.json"}, nil, &out, &errb); code != 0 {
		t.Fatalf("table: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"figure", "baseline", "ldbal=N", "wait_mean_ms", "requests per server:", "GRP2/1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestCompareCommandErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compare"}, 2, "usage"},
		{[]string{"compare", "--variant", "ldbal", "../../examples/admin-guide.json"}, 2, "want key=value"},
		{[]string{"compare", "--variant", "policy=jsq,policy=p2c", "../../examples/admin-guide.json"}, 2, `variant "policy=jsq,policy=p2c": policy is set twice`},
		{[]string{"compare", "--variant", "ldbal=N", "--variant", "rate_scale=2,LDBAL=Y,ldbal=N", "../../examples/admin-guide.json"}, 2, "ldbal is set twice"},
		{[]string{"compare", "--variant", "SERVERS.srv.MIN=1,SERVERS.srv.min=2", "../../examples/admin-guide.json"}, 2, "SERVERS.srv.min is set twice"},
		{[]string{"compare", "--variant", "model=XP", "../../examples/admin-guide.json"}, 1, `variant "model=XP": ubbconfig:4:13: MODEL must be SHM or MP, got "XP"`},
		{[]string{"compare", "--variant", "ldbal=Y", "no-such-file.json"}, 1, "no-such-file.json"},
		// --json is --format json: beside another format it contradicts it (the JSON was printed)
		{[]string{"compare", "--variant", "ldbal=N", "--json", "--format", "csv", "../../examples/admin-guide.json"}, 2, "--json and --format csv contradict each other"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := Main(tt.args, nil, &out, &errb); code != tt.code || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, errb.String(), tt.code, tt.want)
		}
	}
}

// --max-run-time bounds each variant's run of compare, and each run of
// sweep: a run that passes it stops the command, naming it.
func TestCompareSweepMaxRunTime(t *testing.T) {
	path := writeFile(t, "long.json", `{"ubbconfig": "`+cliUBB+`",
  "services": {"BALANCE": {"service_time": {"dist": "exp", "mean_ms": 0.001}}},
  "workload": {"generate": {"duration_ms": 19000, "streams": [{"service": "BALANCE", "origin": "SITE1", "arrivals": "poisson", "rate_per_s": 1000000}]}}}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "--max-run-time", "100ms", "--variant", "ldbal=N", path}, "the run did not finish within 100ms (--max-run-time)"},
		{[]string{"sweep", "--max-run-time", "100ms", "--vary", "rate_scale=0.5,1", path}, "replication 1: the run did not finish within 100ms"},
	} {
		code, _, errs := mainBounded(t, 60*time.Second, tc.args...)
		if code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tc.args[:3], code, errs, tc.want)
		}
	}
}
