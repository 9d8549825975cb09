package starter

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// paymentUBB: PAYMENT (unrouted, served in G0) and TRANSFER (routed by
// ACCOUNT_ID) call DEBIT and CREDIT, routed by ACCOUNT_ID to G1 (1-49999)
// or G2 (50000-99999); TRANSFER also calls AUDIT, routed by BRANCH.
const paymentUBB = `*RESOURCES
MODEL SHM
LDBAL Y
*MACHINES
h LMID=SITE1
*GROUPS
G0 LMID=SITE1 GRPNO=1
G1 LMID=SITE1 GRPNO=2
G2 LMID=SITE1 GRPNO=3
*SERVERS
pay SRVGRP=G0 SRVID=1 MIN=4 CLOPT="-s PAYMENT"
acct SRVGRP=G1 SRVID=1 MIN=4 CLOPT="-s TRANSFER,DEBIT,CREDIT,AUDIT"
acct SRVGRP=G2 SRVID=1 MIN=4 CLOPT="-s TRANSFER,DEBIT,CREDIT,AUDIT"
*SERVICES
PAYMENT
TRANSFER ROUTING=ACCT
DEBIT ROUTING=ACCT
CREDIT ROUTING=ACCT
AUDIT ROUTING=BRANCH
*ROUTING
ACCT FIELD=ACCOUNT_ID BUFTYPE="FML" RANGES="1-49999:G1,50000-99999:G2"
BRANCH FIELD=BRANCH BUFTYPE="FML" RANGES="'N':G1,'S':G2"
`

// TestFromFitRoutesCalls: a fitted PAYMENT (no routing value of its own:
// a ULOG has none) calls routed DEBIT and CREDIT; each of those steps gets
// a route drawn from the RANGES (1-49999 and 50000-99999 follow one
// another: uniform 1..99999), so none fails with TPESYSTEM and both groups
// serve them. TRANSFER is routed on the same FIELD, so its DEBIT inherits
// its value (no route written); its AUDIT is routed on BRANCH, another
// field: 'N' or 'S', one each.
func TestFromFitRoutesCalls(t *testing.T) {
	ubbText := paymentUBB
	exp := func(ms float64) *scenario.Dist { return &scenario.Dist{Dist: "exp", MeanMS: ptr(ms)} }
	rep := &FitReport{Source: "ulog", Services: map[string]*ServiceReport{
		"PAYMENT":  {Fit: exp(1), Calls: []scenario.CallStep{{Service: "DEBIT"}, {Service: "CREDIT"}}},
		"TRANSFER": {Fit: exp(1), Calls: []scenario.CallStep{{Service: "DEBIT"}, {Service: "AUDIT"}}},
		"DEBIT":    {Fit: exp(2)}, "CREDIT": {Fit: exp(2)}, "AUDIT": {Fit: exp(1)},
	}, Arrivals: Arrivals{SpanS: 10, Services: map[string]*ServiceArrivals{
		"PAYMENT":  {RatePerS: 40, Origins: map[string]float64{"SITE1": 40}},
		"TRANSFER": {RatePerS: 10, Origins: map[string]float64{"SITE1": 10}},
	}}}
	sc, _, err := FromFit(Files{UBBConfig: &ubbText}, rep)
	if err != nil {
		t.Fatal(err)
	}
	uniform := &scenario.CallRoute{Spec: &scenario.RouteSpec{Dist: "uniform", Min: ptr(1.0), Max: ptr(99999.0)}}
	branch := &scenario.CallRoute{Spec: &scenario.RouteSpec{Values: []scenario.RouteValue{"N", "S"}, Weights: []float64{1, 1}}}
	want := map[string][]scenario.CallStep{
		"PAYMENT":  {{Service: "DEBIT", Route: uniform}, {Service: "CREDIT", Route: uniform}},
		"TRANSFER": {{Service: "DEBIT"}, {Service: "AUDIT", Route: branch}},
	}
	for caller, steps := range want {
		if got := sc.Services[caller].Calls; !reflect.DeepEqual(got, steps) {
			t.Errorf("%s calls: got %s, want %s", caller, calls(got), calls(steps))
		}
	}
	r, err := core.Run(sc, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Requests.Failed["TPESYSTEM"]; n != 0 || r.Requests.Completed < 300 {
		t.Errorf("run: %d TPESYSTEM of %d completed; want none of about 500 (50/s for 10 s)", n, r.Requests.Completed)
	}
	done := map[string]int64{} // group/service -> requests
	for _, s := range r.Servers {
		for _, d := range s.Done {
			done[s.Group+"/"+d.Service] += d.Requests
		}
	}
	for _, k := range []string{"G1/DEBIT", "G2/DEBIT", "G1/CREDIT", "G2/CREDIT", "G1/AUDIT", "G2/AUDIT"} {
		if done[k] == 0 {
			t.Errorf("%s: no request served (done %v)", k, done)
		}
	}
}

func calls(steps []scenario.CallStep) string {
	var b strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&b, "{%s", s.Service)
		if s.Route != nil && s.Route.Spec != nil {
			fmt.Fprintf(&b, " route %+v", *s.Route.Spec)
		}
		b.WriteString("} ")
	}
	return b.String()
}

// TestStreamRouteFromTrace: a trace with a routing column gives the
// streams of routed services its values, each weighted by its rows (in
// numeric order; "abc", not a number, left out); CREDIT, whose rows have
// none, draws the values of the services routed on the same FIELD (DEBIT
// and TRANSFER: 10 ×2, 70 ×1, 60000 ×2).
func TestStreamRouteFromTrace(t *testing.T) {
	ubbText := paymentUBB
	trace := "time_ms,service,route\n0,DEBIT,60000\n100,DEBIT,10\n200,DEBIT,10\n300,DEBIT,abc\n" +
		"400,TRANSFER,60000\n500,TRANSFER,70\n600,CREDIT,\n700,PAYMENT,\n1000,AUDIT,N\n"
	sc, err := New(Files{UBBConfig: &ubbText, Trace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*scenario.RouteSpec{}
	for _, st := range sc.Workload.Generate.Streams {
		got[st.Service] = st.Route
	}
	vals := func(w []float64, v ...scenario.RouteValue) *scenario.RouteSpec {
		return &scenario.RouteSpec{Values: v, Weights: w}
	}
	want := map[string]*scenario.RouteSpec{
		"DEBIT":    vals([]float64{2, 1}, "10", "60000"),
		"TRANSFER": vals([]float64{1, 1}, "70", "60000"),
		"CREDIT":   vals([]float64{2, 1, 2}, "10", "70", "60000"),
		"AUDIT":    vals([]float64{1}, "N"),
		"PAYMENT":  nil,
	}
	if !reflect.DeepEqual(got, want) {
		for k := range want {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Errorf("%s: got %+v, want %+v", k, got[k], want[k])
			}
		}
	}
}

// TestEmpiricalQuantiles: more distinct values than an empirical
// distribution lists are summed up by its quantiles: 2000 values 1..2000,
// one row each, give the rows at (2k+1)/2000 of the way, k = 0..999:
// rows 1, 3, 5... counted from 0, the values 2, 4, ..., 2000.
func TestEmpiricalQuantiles(t *testing.T) {
	m, err := core.LoadModel(ubb.Input{UBBName: "u", UBBConfig: paymentUBB})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for v := 1; v <= 2000; v++ {
		counts[fmt.Sprint(v)] = 1
	}
	spec := routeSource{m, map[string]map[string]int64{"DEBIT": counts}}.empirical("DEBIT")
	if len(spec.Values) != 1000 {
		t.Fatalf("%d values, want 1000", len(spec.Values))
	}
	for k, v := range spec.Values {
		if v != scenario.RouteValue(fmt.Sprint(2*k+2)) || spec.Weights[k] != 1 {
			t.Fatalf("value %d: got %s (weight %g), want %d (weight 1)", k, v, spec.Weights[k], 2*k+2)
		}
	}
	// A value with most rows holds several quantiles: one entry, weighted.
	// "5" has 3000 of 4001 rows, 100..1100 one each: the quantile k is the
	// row (2k+1)·4001/2000 (whole part), in "5" while that is below 3000,
	// so for k ≤ 749 (weight 750); k = 750 is row 3002 (value 102), k = 999
	// row 3998 (value 1098).
	counts = map[string]int64{"5": 3000}
	for v := 100; v <= 1100; v++ {
		counts[fmt.Sprint(v)] = 1
	}
	spec = routeSource{m, map[string]map[string]int64{"DEBIT": counts}}.empirical("DEBIT")
	if n := len(spec.Values); n != 251 || spec.Values[0] != "5" || spec.Weights[0] != 750 ||
		spec.Values[1] != "102" || spec.Values[n-1] != "1098" || spec.Weights[n-1] != 1 {
		t.Errorf("got %d values: %v... %v, weights %v...", n, spec.Values[:3], spec.Values[n-1], spec.Weights[:3])
	}
}
