package starter

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ulog"
)

// A client machine (site1, written "NODE1.example.com" in *MACHINES, "node1"
// in the ULOG tags) and a server machine (site2, "node2" / "NODE2"), the
// gateway of the remote domain RA on site2. payserv advertises PAY (-s);
// appsrv has no -s (it would take PAY, NOTE and AUDIT).
const measuredUBB = `*RESOURCES
MODEL MP
LDBAL Y
MASTER site1
*MACHINES
"NODE1.example.com" LMID=site1
"node2" LMID=site2
*GROUPS
CLT LMID=site1 GRPNO=1
APP LMID=site2 GRPNO=2
GWGRP LMID=site2 GRPNO=3
*SERVERS
GWTDOMAIN SRVGRP=GWGRP SRVID=1
payserv SRVGRP=APP SRVID=2 CLOPT="-s PAY"
appsrv SRVGRP=APP SRVID=3
*SERVICES
PAY
NOTE
AUDIT
`

const measuredDM = "*DM_LOCAL_DOMAINS\nLD GWGRP=GWGRP\n*DM_REMOTE_DOMAINS\nRA\n*DM_REMOTE_SERVICES\nFXRATE RDOM=RA\n"

// measuredULOG: at 10:00:0i (i = 0..3, T) the client on node1 calls PAY;
// payserv on NODE2 runs it from T+2 to T+10 ms, calling FXRATE (tpcall, T+3
// to T+9) and NOTE by tpacall with TPNOREPLY (0x4) at T+9; appsrv runs NOTE
// from T+11 to T+12; the client's call closes at T+12. At 10:00:05 the
// client calls FXRATE itself for 10 ms.
func measuredULOG() string {
	var b strings.Builder
	for i := 0; i < 4; i++ {
		at := func(ms int) string { return fmt.Sprintf("10000%d.%03d", i, ms) }
		fmt.Fprintf(&b, "%s.node1!clt.10.1.0: TRACE:at: { tpcall(\"PAY\", 0x0, 0, 0x0, 0x0, 0x0)\n", at(0))
		fmt.Fprintf(&b, "%s.NODE2!payserv.20.1.1: TRACE:at: { tpservice({\"PAY\", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})\n", at(2))
		fmt.Fprintf(&b, "%s.NODE2!payserv.20.1.1: TRACE:at:   { tpcall(\"FXRATE\", 0x0, 0, 0x0, 0x0, 0x0)\n", at(3))
		fmt.Fprintf(&b, "%s.NODE2!payserv.20.1.1: TRACE:ia:     { tpacall(\"FXRATE\", 0x0, 0, 0x0)\n", at(3))
		fmt.Fprintf(&b, "%s.NODE2!payserv.20.1.1: TRACE:at:   } tpcall = 1\n", at(9))
		fmt.Fprintf(&b, "%s.NODE2!payserv.20.1.1: TRACE:at:   { tpacall(\"NOTE\", 0x0, 0, 0x00000004)\n", at(9))
		fmt.Fprintf(&b, "%s.NODE2!payserv.20.1.1: TRACE:at:   } tpacall = 0\n", at(9))
		fmt.Fprintf(&b, "%s.NODE2!payserv.20.1.1: TRACE:at: } tpservice\n", at(10))
		fmt.Fprintf(&b, "%s.NODE2!appsrv.30.1.1: TRACE:at: { tpservice({\"NOTE\", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})\n", at(11))
		fmt.Fprintf(&b, "%s.NODE2!appsrv.30.1.1: TRACE:at: } tpservice\n", at(12))
		fmt.Fprintf(&b, "%s.node1!clt.10.1.0: TRACE:at: } tpcall = 1\n", at(12))
	}
	b.WriteString("100005.000.node1!clt.10.1.0: TRACE:at: { tpcall(\"FXRATE\", 0x0, 0, 0x0, 0x0, 0x0)\n")
	b.WriteString("100005.010.node1!clt.10.1.0: TRACE:at: } tpcall = 1\n")
	return b.String()
}

// By hand, from measuredULOG:
//   - latency: each client call of PAY (12 ms) holds exactly one execution
//     of PAY on another machine (8 ms): (12 - 8) / 2 = 2 ms, 4 samples;
//   - PAY: own work 8 - 6 (the FXRATE tpcall) = 2 ms four times; its calls
//     FXRATE (tpcall) and NOTE (tpacall, noreply), each in every execution;
//     the ia tpacall is Tuxedo's and ignored (4 lines);
//   - RA's response time: PAY's FXRATE calls, on site2 with the gateway,
//     6 ms each; the client's, from site1, 10 ms less twice 2 ms = 6 ms:
//     five samples of 6 ms, a constant;
//   - appsrv (no -s) ran NOTE only: advertise {"appsrv": ["NOTE"]};
//   - node1 is NODE1.example.com's short name: arrivals from site1.
func TestFitMeasured(t *testing.T) {
	ubbText, dm := measuredUBB, measuredDM
	rep, err := Fit(FitSources{ULOG: []ulog.File{{Name: "ULOG.010226", Text: measuredULOG()}}, UBBConfig: &ubbText, DMConfig: &dm})
	if err != nil {
		t.Fatal(err)
	}
	if nw := rep.Network; nw == nil || !reflect.DeepEqual(*nw, NetworkReport{LatencyMS: 2, Samples: 4, Window: 4, Measured: true}) {
		t.Errorf("network %+v, want 2 ms from 4 samples", nw)
	}
	pay := rep.Services["PAY"]
	wantCalls := []scenario.CallStep{{Service: "FXRATE", Mode: "tpcall"}, {Service: "NOTE", Mode: "tpacall", NoReply: true}}
	if pay == nil || !reflect.DeepEqual(pay.Calls, wantCalls) || pay.Fit == nil || pay.Fit.Dist != "const" || *pay.Fit.MS != 2 {
		t.Errorf("PAY %+v", pay)
	}
	if ra := rep.Domains["RA"]; ra == nil || ra.Samples != 5 || ra.Fit == nil || ra.Fit.Dist != "const" || *ra.Fit.MS != 6 {
		t.Errorf("domains %+v", rep.Domains)
	}
	if !reflect.DeepEqual(rep.Advertise, map[string][]string{"appsrv": {"NOTE"}}) {
		t.Errorf("advertise %v", rep.Advertise)
	}
	if !reflect.DeepEqual(rep.Servers, map[string][]string{"NODE2!payserv": {"PAY"}, "NODE2!appsrv": {"NOTE"}}) {
		t.Errorf("servers %v", rep.Servers)
	}
	if o := rep.Arrivals.Services["PAY"].Origins; len(o) != 1 || o["site1"] == 0 || rep.ULOG.Ignored != 4 {
		t.Errorf("PAY origins %v (want site1), ignored %d (want 4)", o, rep.ULOG.Ignored)
	}
	var figs []string
	for _, f := range rep.Figures {
		figs = append(figs, fmt.Sprintf("%s %s %d", f.Figure, f.Source, f.Samples))
	}
	// AUDIT, which appsrv would take from *SERVICES, is not in the
	// scenario: appsrv advertises what it ran (NOTE), and nothing else
	// offers AUDIT.
	wantFigs := []string{
		"services.NOTE.service_time measured 4",
		"services.PAY.service_time measured 4",
		"services.PAY.calls[0].p measured 4",
		"services.PAY.calls[1].p measured 4",
		"workload.generate.streams[FXRATE from site1].rate_per_s measured 1",
		"workload.generate.streams[PAY from site1].rate_per_s measured 4",
		"domains.RA.response_time measured 5",
		"network.latency_ms measured 4",
		"advertise.appsrv measured 1",
	}
	if !reflect.DeepEqual(figs, wantFigs) {
		t.Errorf("figures\n%s\nwant\n%s", strings.Join(figs, "\n"), strings.Join(wantFigs, "\n"))
	}

	sc, warn, err := FromFit(Files{UBBConfig: &ubbText, DMConfig: &dm}, rep)
	if err != nil {
		t.Fatal(err)
	}
	// FXRATE is imported: its time is RA's, nothing is left out.
	if len(warn) != 0 {
		t.Errorf("warnings %q", warn)
	}
	if got := sc.Services["PAY"].Calls; !reflect.DeepEqual(got, wantCalls) {
		t.Errorf("PAY's calls %+v", got)
	}
	if sc.Network == nil || sc.Network.LatencyMS != 2 || !reflect.DeepEqual(sc.Advertise, map[string][]string{"appsrv": {"NOTE"}}) {
		t.Errorf("network %+v advertise %v", sc.Network, sc.Advertise)
	}
	if d := sc.Domains["RA"].ResponseTime; d.Dist != "const" || *d.MS != 6 {
		t.Errorf("RA %+v", d)
	}
	// The scenario runs as written: PAY's NOTE is issued with TPNOREPLY,
	// counted apart and waited for by nobody.
	data, _ := json.Marshal(sc)
	parsed, err := core.ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := core.Run(parsed, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests.Noreply == nil || *res.Requests.Noreply == 0 {
		t.Errorf("requests.noreply = 0: the fitted NOTE step was not issued with TPNOREPLY")
	}
}

// Nothing crosses machines: the latency is a guess, the scenario has none.
func TestFitLatencyGuessed(t *testing.T) {
	text := `100000.000.h!s.1.1.1: TRACE:at: { tpservice({"A"})
100000.003.h!s.1.1.1: TRACE:at: } tpservice
`
	rep, err := Fit(FitSources{ULOG: []ulog.File{{Name: "ULOG.010226", Text: text}}})
	if err != nil {
		t.Fatal(err)
	}
	if nw := rep.Network; nw == nil || nw.Measured || nw.Samples != 0 {
		t.Errorf("network %+v, want not measured", nw)
	}
	last := rep.Figures[len(rep.Figures)-1]
	if last.Figure != "network.latency_ms" || last.Source != "guessed" {
		t.Errorf("figures %+v", rep.Figures)
	}
}

// A remote domain's response time is measured as the span of its callers'
// tpcalls, a difference of two millisecond stamps: whole milliseconds, as a
// service's samples are, and fitted on the same grid. Here PAY on node2
// (the gateway's machine: no latency is taken off) calls FXRATE 3000
// times, each call taking a lognormal duration of mean 20 ms and sd 8 ms
// (seeded), starting at a phase uniform within its millisecond, both
// stamps truncated. Taken as exact values, those whole milliseconds are a
// staircase that no family comes within the threshold max(0.03,
// 1.63/√3000) = 0.03 of: the best family's distance to them is 0.032 and
// the fit fell back to an empirical of whole-millisecond points. On the
// grid the lognormal is chosen, its mean within 3% of 20 ms.
func TestFitDomainOnGrid(t *testing.T) {
	ubbText, dm := measuredUBB, measuredDM
	rng := rand.New(rand.NewPCG(7, 11))
	s2 := math.Log(1 + 0.4*0.4)
	mu := math.Log(20) - s2/2
	var b strings.Builder
	const n = 3000
	for i := 0; i < n; i++ {
		start := float64(i)*100 + rng.Float64() // ms after 10:00:00
		x := math.Exp(mu + math.Sqrt(s2)*rng.NormFloat64())
		stamp := func(ms float64) string {
			w := int64(ms)
			s := w / 1000
			return fmt.Sprintf("10%02d%02d.%03d", s/60, s%60, w%1000)
		}
		fmt.Fprintf(&b, "%s.node2!payserv.20.1.1: TRACE:at: { tpservice({\"PAY\", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})\n", stamp(start))
		fmt.Fprintf(&b, "%s.node2!payserv.20.1.1: TRACE:at:   { tpcall(\"FXRATE\", 0x0, 0, 0x0, 0x0, 0x0)\n", stamp(start))
		fmt.Fprintf(&b, "%s.node2!payserv.20.1.1: TRACE:at:   } tpcall = 1\n", stamp(start+x))
		fmt.Fprintf(&b, "%s.node2!payserv.20.1.1: TRACE:at: } tpservice\n", stamp(start+x))
	}
	rep, err := Fit(FitSources{ULOG: []ulog.File{{Name: "ULOG.010226", Text: b.String()}}, UBBConfig: &ubbText, DMConfig: &dm})
	if err != nil {
		t.Fatal(err)
	}
	ra := rep.Domains["RA"]
	if ra == nil || ra.Samples != n || ra.Fit == nil {
		t.Fatalf("domains %+v", rep.Domains)
	}
	if ra.Fit.Dist != "lognormal" || math.Abs(*ra.Fit.MeanMS/20-1) > 0.03 {
		t.Errorf("RA's fit %s of mean %v (choice %q), want the lognormal of mean 20 ms", ra.Fit.Dist, ra.MeanMS, ra.Choice)
	}
	if ra.ResolutionMS == nil || *ra.ResolutionMS != 1 || !strings.Contains(ra.Choice, "on the 1 ms grid") || rep.Criterion != Criterion+CriterionGrid {
		t.Errorf("RA's resolution %v, choice %q, criterion %q: want fitted on the 1 ms grid", ra.ResolutionMS, ra.Choice, rep.Criterion)
	}
}

// Hosts that *MACHINES does not name are warned of one by one up to five;
// the others are counted in one warning naming the first of them. Here
// eight client hosts h1..h8 (none in measuredUBB) each call PAY once: five
// warnings for h1..h5, then "3 more hosts ... (the first h6)".
func TestFitUnknownHostsCounted(t *testing.T) {
	ubbText := measuredUBB
	var b strings.Builder
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "10000%d.000.h%d!clt.10.1.0: TRACE:at: { tpcall(\"PAY\", 0x0, 0, 0x0, 0x0, 0x0)\n", i, i)
		fmt.Fprintf(&b, "10000%d.005.h%d!clt.10.1.0: TRACE:at: } tpcall = 1\n", i, i)
	}
	rep, err := Fit(FitSources{ULOG: []ulog.File{{Name: "ULOG.010226", Text: b.String()}}, UBBConfig: &ubbText})
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, w := range rep.Warnings {
		if strings.Contains(w, "*MACHINES entry") {
			hosts = append(hosts, w)
		}
	}
	if len(hosts) != 6 || !strings.HasPrefix(hosts[0], "host h1: ") || !strings.HasPrefix(hosts[4], "host h5: ") ||
		!strings.HasPrefix(hosts[5], "3 more hosts with no *MACHINES entry of their name (the first h6)") {
		t.Errorf("host warnings:\n%s", strings.Join(hosts, "\n"))
	}
}

// Twice a latency that is not a whole millisecond is rounded before it is
// taken off spans of millisecond stamps, so that they stay on the grid, and
// the fit is moved back by what the rounding took off too much. By hand:
// the client on node1 calls PAY on NODE2 six times for 10 ms, PAY running
// 8, 8, 7, 7, 7 and 6 ms: the latency is 1.41667 ms (as in core/ulog's
// TestLatencyGroupedMedian), twice it 2.8333 ms, rounded 3 ms. The
// client's five calls of FXRATE (imported from RA, whose gateway is on
// site2) take 10 ms each: RA's samples are 10 − 3 = 7 ms, a constant on the
// 1 ms grid, moved by 3 − 2.8333 ms: 7.167 ms (10 less twice the latency,
// to the microsecond).
func TestFitDomainLatencyRounded(t *testing.T) {
	ubbText, dm := measuredUBB, measuredDM
	var b strings.Builder
	for i, ex := range []int{8, 8, 7, 7, 7, 6} {
		fmt.Fprintf(&b, "10000%d.000.node1!clt.10.1.0: TRACE:at: { tpcall(\"PAY\", 0x0, 0, 0x0, 0x0, 0x0)\n", i)
		fmt.Fprintf(&b, "10000%d.001.NODE2!payserv.20.1.1: TRACE:at: { tpservice({\"PAY\", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})\n", i)
		fmt.Fprintf(&b, "10000%d.%03d.NODE2!payserv.20.1.1: TRACE:at: } tpservice\n", i, 1+ex)
		fmt.Fprintf(&b, "10000%d.010.node1!clt.10.1.0: TRACE:at: } tpcall = 1\n", i)
	}
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&b, "10001%d.000.node1!clt.10.1.0: TRACE:at: { tpcall(\"FXRATE\", 0x0, 0, 0x0, 0x0, 0x0)\n", i)
		fmt.Fprintf(&b, "10001%d.010.node1!clt.10.1.0: TRACE:at: } tpcall = 1\n", i)
	}
	rep, err := Fit(FitSources{ULOG: []ulog.File{{Name: "ULOG.010226", Text: b.String()}}, UBBConfig: &ubbText, DMConfig: &dm})
	if err != nil {
		t.Fatal(err)
	}
	if nw := rep.Network; nw == nil || nw.LatencyMS != 1.417 {
		t.Errorf("network %+v, want 1.417 ms (1.41667 to the microsecond)", nw)
	}
	ra := rep.Domains["RA"]
	if ra == nil || ra.Samples != 5 || ra.Fit == nil || ra.Fit.Dist != "const" || *ra.Fit.MS != 7.167 || ra.ResolutionMS == nil || *ra.MeanMS != 7.167 {
		t.Errorf("RA %+v (fit %+v), want the constant 7.167 ms, fitted on the 1 ms grid", ra, ra.Fit)
	}
}

// NODE2's clock 3 ms ahead of node1's, the latency 2 ms. By hand: the
// client on node1 calls PAY once a second 24 times, from +0 to +10 ms on
// its clock; payserv runs it from +2 to +8 ms on node1's clock, which
// NODE2 writes +5 to +11. Then it calls FXRATE (RA's, whose gateway is on
// site2) five times for 14 ms: RA's 10 ms and twice the latency. The
// midpoints of a PAY call and its execution are 3 ms apart (+5, +8): the
// bin [3, 3.5), 3.25 ms, in all 24 calls (core/ulog's
// TestLatencyClockOffsetCorrected works the same log): corrected, each call
// holds its execution on NODE2's clock ([+3.25, +13.25] holds [+5, +11]),
// 24 pairs of 10 − 6 = 4 ms, a latency of 2 ms; RA's samples are 14 − 4 =
// 10 ms, a constant. Uncorrected, no call would hold its execution: no
// latency measured, and RA's samples 14 ms.
func TestFitClocksApartCorrected(t *testing.T) {
	ubbText, dm := measuredUBB, measuredDM
	var b strings.Builder
	for k := 0; k < 24; k++ {
		fmt.Fprintf(&b, "1000%02d.000.node1!clt.10.1.0: TRACE:at: { tpcall(\"PAY\", 0x0, 0, 0x0, 0x0, 0x0)\n", k)
		fmt.Fprintf(&b, "1000%02d.005.NODE2!payserv.20.1.1: TRACE:at: { tpservice({\"PAY\", 0x0, 0x0, 0, 0, 0, {0, -2, -1}})\n", k)
		fmt.Fprintf(&b, "1000%02d.011.NODE2!payserv.20.1.1: TRACE:at: } tpservice\n", k)
		fmt.Fprintf(&b, "1000%02d.010.node1!clt.10.1.0: TRACE:at: } tpcall = 1\n", k)
	}
	for k := 30; k < 35; k++ {
		fmt.Fprintf(&b, "1000%02d.000.node1!clt.10.1.0: TRACE:at: { tpcall(\"FXRATE\", 0x0, 0, 0x0, 0x0, 0x0)\n", k)
		fmt.Fprintf(&b, "1000%02d.014.node1!clt.10.1.0: TRACE:at: } tpcall = 1\n", k)
	}
	rep, err := Fit(FitSources{ULOG: []ulog.File{{Name: "ULOG.010226", Text: b.String()}}, UBBConfig: &ubbText, DMConfig: &dm})
	if err != nil {
		t.Fatal(err)
	}
	if nw := rep.Network; nw == nil || nw.LatencyMS != 2 || nw.Samples != 24 {
		t.Errorf("network %+v, want 2 ms from 24 calls", nw)
	}
	ra := rep.Domains["RA"]
	if ra == nil || ra.Samples != 5 || ra.Fit == nil || ra.Fit.Dist != "const" || *ra.Fit.MS != 10 {
		t.Errorf("RA %+v, want the constant 10 ms", ra)
	}
	want := "clocks: site2's ULOG stamps run 3.25 ms ahead of site1's (seen in 24 calls from site1 to site2); moved back by it"
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
		t.Errorf("warnings %q, want one starting %q", rep.Warnings, want)
	}
	// the same for a program: the offset in the report's network
	if nw := rep.Network; nw == nil || !slices.Equal(nw.ClockOffsets, []ClockOffset{{Machine: "site2", Of: "site1", AheadMS: 3.25, Calls: 24, Corrected: true}}) {
		t.Errorf("network %+v, want site2 3.25 ms ahead of site1 in 24 calls, corrected", rep.Network)
	}
}
