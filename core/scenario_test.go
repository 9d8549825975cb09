package core

import (
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
)

const goodScenario = `{
  "name": "two sites",
  "ubbconfig": "*RESOURCES\nMODEL MP\n",
  "advertise": {"simpserv": ["TOUPPER"]},
  "services": {"TOUPPER": {"service_time": {"dist": "exp", "mean_ms": 4},
                           "by_group": {"G2": {"dist": "const", "ms": 2}}}},
  "machines": {"site2": {"speed": 0.5}},
  "network": {"latency_ms": 1.5},
  "domains": {"RDOM": {"response_time": {"dist": "const", "ms": 20}}},
  "tuning": {"idle": "queue", "mp_reset_ms": 5000},
  "policy": "p2c",
  "seed": 7,
  "warmup_ms": 100,
  "workload": {
    "trace_csv": "time_ms,service\n0,TOUPPER\n",
    "generate": {"duration_ms": 60000, "streams": [
      {"service": "TOUPPER", "origin": "site1", "arrivals": "poisson", "rate_per_s": 200}]}
  }
}`

func TestParseScenario(t *testing.T) {
	sc, err := ParseScenario([]byte(goodScenario))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "two sites" || *sc.Seed != 7 || sc.Policy != "p2c" || *sc.Machines["site2"].Speed != 0.5 ||
		sc.Services["TOUPPER"].ByGroup["G2"].Dist != "const" || sc.Workload.Generate.Streams[0].RatePerS != 200 {
		t.Errorf("got %+v, want the fields of the document", sc)
	}
}

func TestParseScenarioErrors(t *testing.T) {
	// Each case edits the good scenario: replace old by new.
	tests := []struct {
		name, old, new, want string
	}{
		{"unknown top field", `"seed": 7`, `"sed": 7`, "sed: unknown field"},
		{"unknown nested field", `"rate_per_s": 200`, `"rate_per_s": 200, "burst": 1`, "workload.generate.streams[0].burst: unknown field"},
		{"unknown dist field", `"mean_ms": 4}`, `"mean_ms": 4, "p": 1}`, "services.TOUPPER.service_time.p: unknown field"},
		{"wrong type", `"rate_per_s": 200`, `"rate_per_s": "200"`, "workload.generate.streams[0].rate_per_s: want a number, got a string"},
		{"wrong type in map", `"speed": 0.5`, `"speed": true`, "machines.site2.speed: want a number, got a boolean"},
		{"route not a value", `"rate_per_s": 200}`, `"rate_per_s": 200, "route": {"values": [1, [2]]}}`, "workload.generate.streams[0].route.values[1]: want a string or a number, got an array"},
		{"route value null", `"rate_per_s": 200}`, `"rate_per_s": 200, "route": {"values": [1, null]}}`, "workload.generate.streams[0].route.values[1]: want a string or a number, got null"},
		{"seed negative", `"seed": 7`, `"seed": -7`, "seed: want a whole number from 0 to 18446744073709551615, got -7"},
		{"seed float", `"seed": 7`, `"seed": 7.5`, "seed: want a whole number from 0 to 18446744073709551615, got 7.5"},
		{"array for object", `"network": {"latency_ms": 1.5}`, `"network": [1]`, "network: want an object, got an array"},
		{"syntax", `"seed": 7,`, `"seed": 7,,`, "scenario: line 12 col 13: invalid character ','"},
		{"trailing", "\n}", "\n} {}", "scenario: line 19 col 3: trailing data after the document"},
		{"rate zero", `"rate_per_s": 200`, `"rate_per_s": 0`, "workload.generate.streams[0].rate_per_s: must be > 0"},
		{"unknown dist", `"dist": "exp"`, `"dist": "foo"`, `services.TOUPPER.service_time.dist: unknown distribution "foo" (want const, exp, uniform, lognormal, empirical, gamma, erlang, hyperexp, weibull)`},
		{"by_group dist", `"ms": 2}`, `"ms": -2}`, "services.TOUPPER.by_group.G2.ms: must be >= 0"},
		{"domain dist", `"ms": 20`, `"mean_ms": 20`, `domains.RDOM.response_time.ms: missing`},
		{"policy", `"policy": "p2c"`, `"policy": "fastest"`, `policy: unknown policy "fastest" (want tuxedo, round_robin, random, jsq, p2c)`},
		{"tuning", `"idle": "queue"`, `"idle": "never"`, `tuning.idle: unknown value "never" (want server or queue)`},
		{"reset", `"mp_reset_ms": 5000`, `"mp_reset_ms": 0`, "tuning.mp_reset_ms: must be > 0"},
		{"reset under 1 us", `"mp_reset_ms": 5000`, `"mp_reset_ms": 0.0004`, "tuning.mp_reset_ms: must be > 0 (at least 0.001 ms once rounded to the microsecond), got 0.0004"},
		{"warmup", `"warmup_ms": 100`, `"warmup_ms": -1`, "warmup_ms: must be >= 0"},
		{"replications", `"warmup_ms": 100`, `"warmup_ms": 100, "replications": 101`, "replications: must be between 0 and 100, got 101"},
		{"no ubbconfig", `"ubbconfig": "*RESOURCES\nMODEL MP\n"`, `"ubbconfig": ""`, "ubbconfig: missing"},
	}
	for _, tt := range tests {
		doc := strings.Replace(goodScenario, tt.old, tt.new, 1)
		if doc == goodScenario {
			t.Fatalf("%s: %q is not in the scenario", tt.name, tt.old)
		}
		_, err := ParseScenario([]byte(doc))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || diag.ErrorCode(err) != diag.EINVALID {
			t.Errorf("%s: got %v, want %s error %q", tt.name, err, diag.EINVALID, tt.want)
		}
	}
}

func TestParseScenarioEmpty(t *testing.T) {
	for _, doc := range []string{"", "  ", "[1]", "null"} {
		_, err := ParseScenario([]byte(doc))
		if diag.ErrorCode(err) != diag.EINVALID {
			t.Errorf("ParseScenario(%q): got %v, want an %s error", doc, err, diag.EINVALID)
		}
	}
}
