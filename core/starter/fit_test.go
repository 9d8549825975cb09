package starter

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
)

// A trace read without a UBBCONFIG: names as they are, rows without an
// origin from "(default)"; with one, LMIDs and a scenario that runs.
func TestFitTrace(t *testing.T) {
	text := "time_ms,service,service_ms\n0,A,2\n500,A,4\n1000,B,1\n2000,A,3\n"
	rep, err := Fit(FitSources{Trace: &text})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Services["A"]
	if rep.Source != "trace" || a == nil || a.Samples != 3 || *a.MeanMS != 3 || a.Fit == nil {
		t.Fatalf("report %+v, A %+v", rep, a)
	}
	// 3 requests of A over the 2 s span: 1.5/s.
	if got := rep.Arrivals.Services["A"]; got.RatePerS != 1.5 || got.Origins["(default)"] != 1.5 || rep.Arrivals.SpanS != 2 {
		t.Errorf("arrivals %+v", rep.Arrivals)
	}
	ubbText := starterUBB
	rep, err = Fit(FitSources{Trace: &text, UBBConfig: &ubbText})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Arrivals.Services["A"].Origins; got["site1"] != 1.5 {
		t.Errorf("origins %v, want the default LMID site1", got)
	}
	sc, warn, err := FromFit(Files{UBBConfig: &ubbText}, rep)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Services["A"].ServiceTime != rep.Services["A"].Fit || sc.Workload.Generate.DurationMS != 2000 || len(sc.Workload.Generate.Streams) != 2 {
		t.Errorf("scenario %+v", sc)
	}
	// A and B are served by local servers and timed: nothing is left out.
	if len(warn) != 0 {
		t.Errorf("warnings %q", warn)
	}
	data, _ := json.Marshal(sc)
	parsed, err := core.ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := core.Run(parsed, core.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	// Unknown names against the UBBCONFIG name the row.
	bad := "time_ms,service,service_ms\n0,NOPE,2\n"
	if _, err := Fit(FitSources{Trace: &bad, UBBConfig: &ubbText}); err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("unknown service: %v", err)
	}
	if _, err := Fit(FitSources{}); err == nil {
		t.Error("no source: want an error")
	}
}
