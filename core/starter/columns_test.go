package starter

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/scenario"
)

// TestResponseColumnIsNotServiceTime: an export whose only time column is
// Elapsed(ms), a response, gives no service time to the started or the
// fitted scenario (A keeps the starter's 10 ms, not the 40 ms mean of the
// column), the fit report's trace block says it was read as "observed",
// and a warning says how to map it if it does hold service times; mapped
// as service_ms, it is one (mean (40+40)/2 = 40 ms).
func TestResponseColumnIsNotServiceTime(t *testing.T) {
	ubbText := starterUBB
	export := "Timestamp;Service;Elapsed(ms);Comment\n2026-11-29 10:00:00;A;40;x\n2026-11-29 10:00:02;A;40;y\n"
	sc, warns, err := NewWithWarnings(Files{UBBConfig: &ubbText, Trace: &export})
	if err != nil {
		t.Fatal(err)
	}
	if got := *sc.Services["A"].ServiceTime.MeanMS; got != 10 {
		t.Errorf("started: A's mean %g ms, want the default 10 (Elapsed(ms) is a response)", got)
	}
	want := `trace: column "Elapsed(ms)" read as the observed response, not the service time`
	if len(warns) != 1 || !strings.HasPrefix(warns[0], want) || !strings.HasSuffix(warns[0], "--trace-map 'service_ms=Elapsed(ms)'") {
		t.Errorf("started: warnings %q, want one starting %q", warns, want)
	}
	// mapped by the user as the observed response, it is theirs: no warning
	_, warns, err = NewWithWarnings(Files{UBBConfig: &ubbText, Trace: &export, Columns: &scenario.TraceMap{Observed: "Elapsed(ms)"}})
	if err != nil || len(warns) != 0 {
		t.Errorf("mapped as observed: warnings %q, error %v; want none", warns, err)
	}
	rep, err := Fit(FitSources{Trace: &export, UBBConfig: &ubbText})
	if err != nil {
		t.Fatal(err)
	}
	if a := rep.Services["A"]; a == nil || a.Samples != 0 || a.Fit != nil {
		t.Errorf("fit: A %+v, want no samples", a)
	}
	data, _ := json.Marshal(rep.Trace)
	if got, want := string(data), `{"rows":2,"skipped":0,"skipped_examples":[],"columns":{"Comment":"ignored","Elapsed(ms)":"observed","Service":"service","Timestamp":"time"}}`; got != want {
		t.Errorf("fit: trace block %s, want %s", got, want)
	}
	fitted, _, err := FromFit(Files{UBBConfig: &ubbText, Trace: &export}, rep)
	if err != nil {
		t.Fatal(err)
	}
	if d := fitted.Services["A"].ServiceTime; d.Dist != "exp" || *d.MeanMS != 10 {
		t.Errorf("fitted: A's service time %+v, want the default exp of 10 ms", d)
	}
	// Mapped by the user as the service time, it is one.
	sc, err = New(Files{UBBConfig: &ubbText, Trace: &export, Columns: &scenario.TraceMap{ServiceMS: "Elapsed(ms)"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := *sc.Services["A"].ServiceTime.MeanMS; got != 40 {
		t.Errorf("mapped: A's mean %g ms, want 40", got)
	}
}
