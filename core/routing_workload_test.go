package core

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
	"github.com/tuxlb/tuxlb/core/workload"
)

// routedUBB has a numeric criterion N (used by S) and a string one W (used
// by T); U is not routed.
const routedUBB = "*RESOURCES\nMODEL SHM\n*MACHINES\nm LMID=site1\n*GROUPS\nG1 LMID=site1 GRPNO=1\nG2 LMID=site1 GRPNO=2\n" +
	"*SERVERS\na SRVGRP=G1 SRVID=1 CLOPT=\"-s S,T,U\"\nb SRVGRP=G2 SRVID=1 CLOPT=\"-s S,T\"\n" +
	"*SERVICES\nS ROUTING=N\nT ROUTING=W\nU\n*ROUTING\nN FIELD=ACCT RANGES=\"1-10:G1,11-20:G2\"\nW FIELD=NAME RANGES=\"'a'-'m':G1,'n'-'z':G2\"\n"

func routedModel(t *testing.T) *Model {
	t.Helper()
	m, err := ubb.Load(ubb.Input{UBBConfig: routedUBB})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func openRouted(t *testing.T, w string) ([]workload.Request, error) {
	t.Helper()
	var sc scenario.Scenario
	if err := json.Unmarshal([]byte(`{"ubbconfig":"x","workload":`+w+`}`), &sc); err != nil {
		t.Fatal(err)
	}
	rs, err := workload.Open(routedModel(t), &sc, 1, 0)
	if err != nil {
		return nil, err
	}
	reqs := drain(rs)
	return reqs, rs.Err()
}

// TestTraceRoute checks the route column (and its mapping, and the JSON
// trace's route field, string or number) against the ranges.
func TestTraceRoute(t *testing.T) {
	for _, c := range []struct {
		name, w string
		want    []int32 // Route per request in issue order
		vals    []string
	}{
		{"csv", `{"trace_csv":"time_ms,service,service_ms,route\n0,S,1,5\n1,S,1,15\n2,S,1,25\n3,S,1,\n4,T,1,bob\n5,T,1,tom\n6,U,1,7\n"}`,
			[]int32{1, 2, workload.RouteNoMatch, workload.RouteNone, 1, 2, workload.RouteNone}, []string{"5", "15", "25", "", "bob", "tom", "7"}},
		{"mapped column", `{"trace_csv":"ts;svc;dur;acct;extra\n0;S;1;12;x\n","columns":{"time":"ts","service":"svc","service_ms":"dur","route":"acct","delimiter":";"}}`,
			[]int32{2}, []string{"12"}},
		{"json", `{"trace":[{"time_ms":0,"service":"S","service_ms":1,"route":3},{"time_ms":1,"service":"S","service_ms":1,"route":"14"},{"time_ms":2,"service":"T","service_ms":1,"route":"c"}]}`,
			[]int32{1, 2, 1}, []string{"3", "14", "c"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			reqs, err := openRouted(t, c.w)
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != len(c.want) {
				t.Fatalf("got %d requests, want %d", len(reqs), len(c.want))
			}
			for i, r := range reqs {
				if r.Route != c.want[i] || r.RouteVal != c.vals[i] {
					t.Errorf("request %d: got route %d value %q, want %d %q", i+1, r.Route, r.RouteVal, c.want[i], c.vals[i])
				}
			}
		})
	}
}

// TestStreamRoute checks that a stream draws values as its route field
// says, and that each request's Route is the range holding its value.
func TestStreamRoute(t *testing.T) {
	for _, c := range []struct {
		name, route, service string
		check                func(t *testing.T, reqs []workload.Request)
	}{
		{"uniform integers", `{"dist":"uniform","min":1,"max":20}`, "S", func(t *testing.T, reqs []workload.Request) {
			seen := map[float64]int{}
			for _, r := range reqs {
				x := r.RouteNum
				if x != float64(int(x)) || x < 1 || x > 20 || r.RouteVal != "" {
					t.Fatalf("value %v (%q): want a whole number in 1..20", x, r.RouteVal)
				}
				want := int32(1)
				if x > 10 {
					want = 2
				}
				if r.Route != want {
					t.Fatalf("value %v: got route %d, want %d", x, r.Route, want)
				}
				seen[x]++
			}
			if len(seen) != 20 {
				t.Errorf("drew %d distinct values of 20", len(seen))
			}
		}},
		{"uniform decimals", `{"dist":"uniform","min":0,"max":30,"integer":false}`, "S", func(t *testing.T, reqs []workload.Request) {
			frac := 0
			for _, r := range reqs {
				x := r.RouteNum
				if x != float64(int(x)) {
					frac++
				}
				want := workload.RouteNoMatch
				switch {
				case x >= 1 && x <= 10:
					want = 1
				case x >= 11 && x <= 20:
					want = 2
				}
				if r.Route != want {
					t.Fatalf("value %v: got route %d, want %d", x, r.Route, want)
				}
			}
			if frac < len(reqs)/2 {
				t.Errorf("only %d of %d values have a fraction", frac, len(reqs))
			}
		}},
		{"weighted list", `{"values":["bob","tom",7],"weights":[3,1,0]}`, "T", func(t *testing.T, reqs []workload.Request) {
			n := map[string]int{}
			for _, r := range reqs {
				n[r.RouteVal]++
				want := map[string]int32{"bob": 1, "tom": 2}[r.RouteVal]
				if r.Route != want {
					t.Fatalf("value %q: got route %d, want %d", r.RouteVal, r.Route, want)
				}
			}
			if n["7"] != 0 || n["bob"] < 2*n["tom"] || n["tom"] == 0 {
				t.Errorf("counts %v: want about 3 bob per tom and no 7 (weight 0)", n)
			}
		}},
		{"normal", `{"dist":"normal","mean":10,"sd":3}`, "S", func(t *testing.T, reqs []workload.Request) {
			sum := 0.0
			for _, r := range reqs {
				sum += r.RouteNum
			}
			if mean := sum / float64(len(reqs)); mean < 9.5 || mean > 10.5 {
				t.Errorf("mean %v, want about 10", mean)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			reqs, err := openRouted(t, `{"generate":{"duration_ms":2000,"streams":[{"service":"`+c.service+`","arrivals":"poisson","rate_per_s":1000,"route":`+c.route+`}]}}`)
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) < 1000 {
				t.Fatalf("only %d requests", len(reqs))
			}
			c.check(t, reqs)
		})
	}
}

func TestStreamRouteErrors(t *testing.T) {
	for _, c := range []struct{ name, stream, want string }{
		{"not routed", `"service":"U","route":{"values":[1]}`, "workload.generate.streams[0].route: service U has no routing criterion"},
		{"no dist nor values", `"service":"S","route":{}`, "workload.generate.streams[0].route: give dist (uniform, normal, exp) or values"},
		{"both", `"service":"S","route":{"dist":"uniform","min":1,"max":2,"values":[1]}`, "streams[0].route: give dist or values, not both"},
		{"unknown dist", `"service":"S","route":{"dist":"zipf"}`, `streams[0].route.dist: unknown routing value distribution "zipf"`},
		{"max below min", `"service":"S","route":{"dist":"uniform","min":5,"max":1}`, "streams[0].route.max: must be >= min (5), got 1"},
		{"fractional bounds", `"service":"S","route":{"dist":"uniform","min":0.5,"max":1}`, "streams[0].route.min: min and max must be whole numbers"},
		{"missing mean", `"service":"S","route":{"dist":"exp"}`, `streams[0].route.mean: missing for dist "exp"`},
		{"unused field", `"service":"S","route":{"dist":"exp","mean":3,"min":1}`, "streams[0].route.min: not used here"},
		{"string for numbers", `"service":"S","route":{"values":[1,"abc"]}`, `streams[0].route.values[1]: criterion N compares numbers, got "abc"`},
		{"dist for strings", `"service":"T","route":{"dist":"uniform","min":1,"max":2}`, "streams[0].route.dist: criterion W compares strings"},
		{"weights count", `"service":"T","route":{"values":["a","b"],"weights":[1]}`, "streams[0].route.weights: want one weight per value (2), got 1"},
		{"zero weights", `"service":"T","route":{"values":["a"],"weights":[0]}`, "streams[0].route.weights: at least one weight must be > 0"},
		{"empty value", `"service":"T","route":{"values":[""]}`, "streams[0].route.values[0]: empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := openRouted(t, `{"generate":{"duration_ms":10,"streams":[{"arrivals":"poisson","rate_per_s":10,`+c.stream+`}]}}`)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	var sc scenario.Scenario
	if err := json.Unmarshal([]byte(`{"workload":{"trace":[{"time_ms":0,"service":"S","route":true}]}}`), &sc); err == nil {
		t.Errorf("route true: got no error, want one (a routing value is a string or a number)")
	}
}

// TestRoutedStreamDoesNotAllocate keeps the generator's promise for routed
// streams too: drawing a numeric routing value allocates nothing.
func TestRoutedStreamDoesNotAllocate(t *testing.T) {
	var sc scenario.Scenario
	if err := json.Unmarshal([]byte(`{"workload":{"generate":{"duration_ms":1e7,"streams":[
		{"service":"S","arrivals":"poisson","rate_per_s":1000,"route":{"dist":"uniform","min":-100000,"max":100000}},
		{"service":"T","arrivals":"poisson","rate_per_s":1000,"route":{"values":["a","q"]}}]}}}`), &sc); err != nil {
		t.Fatal(err)
	}
	rs, err := workload.Open(routedModel(t), &sc, 1, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	var r workload.Request
	if allocs := testing.AllocsPerRun(10_000, func() { rs.Next(&r) }); allocs != 0 {
		t.Errorf("Next allocates %v times per request, want 0", allocs)
	}
}

// TestExplainRouting checks that explanations show the routing step first:
// the value, the range that held it, the group, the candidates left, and
// the fallback to the catch-all's group (the scenario of fidelity case 48).
func TestExplainRouting(t *testing.T) {
	data, err := os.ReadFile("../testdata/spec/48-routing-catch-all-fallback/scenario.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	exs, err := Explain(sc, RunOptions{}, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		step  result.RoutingStep
		text  string
		cands int
	}{
		{result.RoutingStep{Criterion: "ACCT", Field: "ACCOUNT_ID", Value: "5", Range: "1-10:G1", Group: "G1", Candidates: 1},
			"S is routed by ACCT (field ACCOUNT_ID): the value 5 falls in range 1-10:G1, so only the servers of group G1 remain (1 candidate(s)). LDBAL=N", 1},
		{result.RoutingStep{Criterion: "ACCT", Field: "ACCOUNT_ID", Value: "15", Range: "11-20:G3", Group: "G2", Fallback: true, Candidates: 1},
			"S is routed by ACCT (field ACCOUNT_ID): the value 15 falls in range 11-20:G3, but no server of group G3 advertises S, so the catch-all's group is used: only the servers of group G2 remain (1 candidate(s)).", 1},
		{result.RoutingStep{Criterion: "ACCT", Field: "ACCOUNT_ID", Value: "99", Range: "*:G2", Group: "G2", Candidates: 1}, "the value 99 falls in range *:G2", 1},
		{result.RoutingStep{Criterion: "ACCT", Field: "ACCOUNT_ID", Value: "abc", Range: "*:G2", Group: "G2", Candidates: 1}, "the value abc falls in range *:G2", 1},
		{result.RoutingStep{Criterion: "ACCT", Field: "ACCOUNT_ID"}, "S is routed by ACCT (field ACCOUNT_ID): the request carries no routing value, so it fails with TPESYSTEM.", 0},
	}
	for i, ex := range exs {
		if ex.Routing == nil || *ex.Routing != want[i].step {
			t.Errorf("request %d: routing got %+v, want %+v", i+1, ex.Routing, want[i].step)
		}
		if !strings.Contains(ex.Text, want[i].text) || (i < 2 && !strings.HasPrefix(ex.Text, want[i].text)) {
			t.Errorf("request %d: text %q, want it to contain %q", i+1, ex.Text, want[i].text)
		}
		if len(ex.Candidates) != want[i].cands {
			t.Errorf("request %d: %d candidates listed, want %d", i+1, len(ex.Candidates), want[i].cands)
		}
	}
	if exs[4].Rule != "TPESYSTEM" {
		t.Errorf("request 5: rule %s, want TPESYSTEM", exs[4].Rule)
	}
}
