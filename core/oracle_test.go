package core

// The differential test: random small scenarios (oracle_gen_test.go) run
// through the engine and through an independent, deliberately simple
// reference simulator written from the rules of docs/engine.md
// (oracle_sim_test.go); their dispatch logs, request counts and life-cycle
// changes must agree line for line, and the result's figures must be the
// ones the reference computes from its own dispatch (oracle_figures_test.go).
// See docs/fidelity.md.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/scenario"
)

var (
	oracleN    = flag.Int("oracle.n", 400, "number of random scenarios the differential test runs")
	oracleSeed = flag.Uint64("oracle.seed", 1, "first seed of the differential test")
	oracleShow = flag.Bool("oracle.show", false, "print the scenario of the first discrepancy")
	oracleAppN = flag.Int("oracle.appn", 300, "number of random application scenarios the differential test runs")
	// oracleWSL lets the application generator add the workstation front
	// end (a WSL, client sets with via, a handling time)
	oracleWSL = flag.Bool("oracle.wsl", true, "let the random application scenarios connect clients through a WSL")
)

func TestOracleDifferential(t *testing.T) {
	t.Parallel()
	n := *oracleN
	if testing.Short() {
		n = min(n, 50)
	}
	bad := 0
	seen := map[string]int{}
	for k := 0; k < n; k++ {
		seed := *oracleSeed + uint64(k)
		sc := genScenario(seed)
		msg, err := oracleCompare(sc, seen)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if msg != "" {
			bad++
			if bad <= 3 {
				t.Errorf("seed %d: %s", seed, msg)
				if *oracleShow && bad == 1 {
					js, _ := json.MarshalIndent(sc, "", "  ")
					t.Logf("scenario:\n%s", js)
				}
			}
		}
	}
	t.Logf("coverage over %d scenarios: %v", n, seen)
	if bad > 0 {
		t.Errorf("%d of %d scenarios differ from the reference simulator", bad, n)
	}
	if n >= *oracleN && *oracleLose {
		requireHits(t, seen, loseHitsTrace)
	}
}

// TestOracleApplications is the differential test on application
// scenarios (genAppScenario): nested calls, client sets, deadlines.
func TestOracleApplications(t *testing.T) {
	n := *oracleAppN
	if testing.Short() {
		n = min(n, 40)
	}
	bad := 0
	seen := map[string]int{}
	for k := 0; k < n; k++ {
		seed := *oracleSeed + uint64(k)
		doc := genAppScenario(seed)
		msg, err := oracleCompareApp(doc, seen)
		if err != nil {
			msg = err.Error()
		}
		if msg != "" {
			bad++
			if bad <= 3 {
				t.Errorf("app seed %d: %s", seed, msg)
				if *oracleShow && bad == 1 {
					t.Logf("scenario:\n%s", doc)
				}
			}
		}
	}
	t.Logf("coverage over %d application scenarios: %v", n, seen)
	if bad > 0 {
		t.Errorf("%d of %d application scenarios differ from the reference simulator", bad, n)
	}
	if n >= *oracleAppN && *oracleLose {
		requireHits(t, seen, loseHitsApp)
	}
}

// oracleCompare runs sc through both and describes the first difference.
// seen tallies what the scenarios exercised (reasons, life-cycle causes).
func oracleCompare(sc *scenario.Scenario, seen map[string]int) (string, error) {
	o, err := newOracle(sc)
	if err != nil {
		return "", err
	}
	return oracleCompareWith(sc, o, seen)
}

// oracleCompareApp runs an application document through both: the engine
// reads it with ParseScenario, the oracle with newAppOracle.
func oracleCompareApp(doc []byte, seen map[string]int) (string, error) {
	sc, err := ParseScenario(doc)
	if err != nil {
		return "", fmt.Errorf("engine: %v", err)
	}
	o, err := newAppOracle(doc)
	if err != nil {
		return "", err
	}
	return oracleCompareWith(sc, o, seen)
}

func oracleCompareWith(sc *scenario.Scenario, o *oracle, seen map[string]int) (string, error) {
	var buf bytes.Buffer
	res, err := Run(sc, RunOptions{Dispatch: &buf})
	if err != nil {
		return "", fmt.Errorf("engine: %v", err)
	}
	want := o.run()
	if o.stuck {
		return "", fmt.Errorf("oracle: the reference run did not end")
	}
	got := buf.String()
	if got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				return fmt.Sprintf("dispatch line %d:\n engine %s\n oracle %s", i+1, g, w), nil
			}
		}
	}
	issued, done, failed, tout := o.counts()
	rc := res.Requests
	if rc.Issued != issued || rc.Completed != done || rc.TimedOut != tout || fmt.Sprint(rc.Failed) != fmt.Sprint(failed) {
		return fmt.Sprintf("counts: engine %d/%d/%v/%d, oracle %d/%d/%v/%d (issued/completed/failed/timed out)",
			rc.Issued, rc.Completed, rc.Failed, rc.TimedOut, issued, done, failed, tout), nil
	}
	for _, r := range o.reqs {
		seen[r.reason]++
		if r.timedOut {
			seen["TPETIME"]++
		}
	}
	var wantCh []string
	for _, c := range o.changes {
		seen[c.cause]++
		wantCh = append(wantCh, fmt.Sprintf("%d %s %s>%s %s", c.t, o.m.Servers[c.srv].ID, c.from, c.to, c.cause))
	}
	var gotCh []string
	for _, c := range res.Lifecycle {
		gotCh = append(gotCh, fmt.Sprintf("%d %s %s>%s %s", c.AtUS, c.Server, c.From, c.To, c.Cause))
	}
	normChanges(gotCh)
	normChanges(wantCh)
	if g, w := strings.Join(gotCh, "\n"), strings.Join(wantCh, "\n"); g != w {
		return fmt.Sprintf("life cycle:\n engine:\n%s\n oracle:\n%s", g, w), nil
	}
	for k, v := range o.hits {
		seen[k] += v
	}
	if msg := o.compareFigures(res, seen); msg != "" || !o.app {
		return msg, nil
	}
	if msg := o.compareApp(res); msg != "" {
		return msg, nil
	}
	return o.compareQ(res, seen), nil
}

// normChanges orders changes by time, then instance, keeping the order of
// one instance's changes: the contract fixes no order within an instant.
func normChanges(ch []string) {
	sort.SliceStable(ch, func(a, b int) bool {
		fa, fb := strings.Fields(ch[a]), strings.Fields(ch[b])
		if len(fa[0]) != len(fb[0]) {
			return len(fa[0]) < len(fb[0])
		}
		if fa[0] != fb[0] {
			return fa[0] < fb[0]
		}
		return fa[1] < fb[1]
	})
}

var oracleMin = flag.Uint64("oracle.min", 0, "minimise the scenario of this seed and print it (0: skip)")

// TestOracleMinimise shrinks a failing seed's scenario: it drops trace rows
// and events one at a time while the engine and the oracle still differ.
func TestOracleMinimise(t *testing.T) {
	if *oracleMin == 0 {
		t.Skip("no -oracle.min seed")
	}
	sc := genScenario(*oracleMin)
	fails := func(c *scenario.Scenario) bool {
		msg, err := oracleCompare(c, map[string]int{})
		return err == nil && msg != ""
	}
	if !fails(sc) {
		t.Fatalf("seed %d does not fail", *oracleMin)
	}
	for changed := true; changed; {
		changed = false
		lines := strings.Split(strings.TrimSpace(sc.Workload.TraceCSV), "\n")
		for i := len(lines) - 1; i >= 1; i-- {
			c := *sc
			c.Workload.TraceCSV = strings.Join(append(append([]string{}, lines[:i]...), lines[i+1:]...), "\n") + "\n"
			if len(lines) > 2 && fails(&c) {
				sc, changed = &c, true
				lines = strings.Split(strings.TrimSpace(sc.Workload.TraceCSV), "\n")
			}
		}
		for i := len(sc.Events) - 1; i >= 0; i-- {
			c := *sc
			c.Events = append(append([]scenario.Event{}, sc.Events[:i]...), sc.Events[i+1:]...)
			if fails(&c) {
				sc, changed = &c, true
			}
		}
	}
	msg, _ := oracleCompare(sc, map[string]int{})
	js, _ := json.MarshalIndent(sc, "", "  ")
	var buf bytes.Buffer
	res, _ := Run(sc, RunOptions{Dispatch: &buf})
	o, _ := newOracle(sc)
	t.Logf("%s\n%s\nengine:\n%s\noracle:\n%s", msg, js, buf.String(), o.run())
	for _, c := range res.Lifecycle {
		t.Logf("engine change %+v", c)
	}
	for _, c := range o.changes {
		t.Logf("oracle change %d %s %s>%s %s", c.t, o.m.Servers[c.srv].ID, c.from, c.to, c.cause)
	}
}

// TestOracleWorkstationSpecCases runs the reference simulator on the
// hand-worked cases of the workstation front end (testdata/spec, those
// whose clients connect through a WSL): its dispatch log must be the
// hand-derived one, and the engine's figures the ones it computes, so the
// reference's reading of the rules is checked against the derivations
// before it judges random scenarios.
func TestOracleWorkstationSpecCases(t *testing.T) {
	playSpecCases(t, "workstation", func(doc []byte) bool { return bytes.Contains(doc, []byte(`"via"`)) }, 4)
}

// playSpecCases runs the reference on the cases of testdata/spec that pick
// chooses and that have a dispatch.csv: its dispatch log must be the
// hand-derived one, and the engine's figures the ones it computes; at
// least least cases must be found.
func playSpecCases(t *testing.T, what string, pick func(doc []byte) bool, least int) {
	t.Helper()
	const specCases = "../testdata/spec"
	dirs, _ := filepath.Glob(filepath.Join(specCases, "[0-9]*"))
	n := 0
	for _, dir := range dirs {
		doc, err := os.ReadFile(filepath.Join(dir, "scenario.json"))
		if err != nil || !pick(doc) {
			continue
		}
		want, err := os.ReadFile(filepath.Join(dir, "dispatch.csv"))
		if err != nil {
			continue
		}
		n++
		o, err := newAppOracle(doc)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if got, w := strings.TrimSpace(o.run()), strings.TrimSpace(string(want)); got != w {
			t.Errorf("%s: the reference's dispatch.csv:\n%s\nwant\n%s", filepath.Base(dir), got, w)
		}
		if msg, err := oracleCompareApp(doc, map[string]int{}); err != nil || msg != "" {
			t.Errorf("%s: engine and reference differ: %s %v", filepath.Base(dir), msg, err)
		}
	}
	if n < least {
		t.Errorf("%d %s cases with a dispatch.csv the reference reads under %s, want at least %d", n, what, specCases, least)
	}
}
