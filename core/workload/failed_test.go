package workload

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/fixture"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// A log's failed rows, by hand: of six rows, row 2 (TPESVCFAIL) is played
// but not observed, rows 3 and 5 (TPENOENT, tperrno 6) are not played;
// rows 1, 4 and 6 are played and observed. The note counts them by
// service. The same log out of order (read whole and sorted) plays the
// same requests.
func TestFailedRows(t *testing.T) {
	inOrder := "ts,svc,elapsed_ms,tperrno\n" +
		"0,TOUPPER,4,0\n" +
		"10,TOUPPER,9,TPESVCFAIL\n" +
		"20,TOLOWER,0.2,TPENOENT\n" +
		"30,TOLOWER,5,\n" +
		"40,TOUPPER,0.1,6\n" +
		"50,TOUPPER,6,0\n"
	wantNote := `trace_csv: read as a log: time_ms from column "ts" (milliseconds), service from column "svc", ` +
		`observed_ms from column "elapsed_ms", status from column "tperrno"; ` +
		"1 row failed (TOUPPER 1): replayed as requests, their load on the servers was real, but their observed responses (1) " +
		"are left out of the validation; 2 rows failed before reaching a server (TPENOENT and the like; TOLOWER 1, TOUPPER 1): " +
		"not replayed, their observed responses (2) left out of the validation"
	cw, err := Compile(NewNames(fixture.HandModel()), &scenario.Workload{TraceCSV: inOrder})
	if err != nil {
		t.Fatal(err)
	}
	if cw.Note != wantNote {
		t.Errorf("note\n%s\nwant\n%s", cw.Note, wantNote)
	}
	wantObs := []ObservedRow{{2, 0, 4000}, {1, 30_000, 5000}, {2, 50_000, 6000}}
	if len(cw.Observed) != len(wantObs) {
		t.Fatalf("observed %v, want %v", cw.Observed, wantObs)
	}
	for i := range wantObs {
		if cw.Observed[i] != wantObs[i] {
			t.Errorf("observed row %d: %v, want %v", i, cw.Observed[i], wantObs[i])
		}
	}
	type played struct {
		us       int64
		observed bool
	}
	want := []played{{0, true}, {10_000, false}, {30_000, true}, {50_000, true}}
	check := func(name string, cw *Compiled, want []played) {
		mg, err := cw.Open(1, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := drain(mg)
		if len(got) != len(want) || mg.Err() != nil {
			t.Fatalf("%s: %d requests (%v), want %d", name, len(got), mg.Err(), len(want))
		}
		for i, r := range got {
			if (played{r.TimeUS, r.Observed}) != want[i] {
				t.Errorf("%s: request %d at %d µs observed %v, want %v", name, i, r.TimeUS, r.Observed, want[i])
			}
		}
	}
	check("in order", cw, want)
	// out of order by a row (a reorder window), and by more than the
	// window (read whole and sorted): the same requests
	swapped := "ts,svc,elapsed_ms,tperrno\n" +
		"10,TOUPPER,9,TPESVCFAIL\n" +
		"0,TOUPPER,4,0\n" +
		"30,TOLOWER,5,\n" +
		"20,TOLOWER,0.2,TPENOENT\n" +
		"40,TOUPPER,0.1,6\n" +
		"50,TOUPPER,6,0\n"
	var far strings.Builder
	far.WriteString(swapped)
	farWant := slices.Clone(want)
	for i := range MaxReorderRows + 1 {
		fmt.Fprintf(&far, "%d,TOUPPER,1,TPESVCFAIL\n%d,TOLOWER,1,TPENOENT\n", 60+i, 60+i) // played, not observed; not played
		farWant = append(farWant, played{int64(60+i) * 1000, false})
	}
	far.WriteString("5,TOLOWER,1,\n") // played and observed, further back than the window
	farWant = slices.Insert(farWant, 1, played{5000, true})
	for _, c := range []struct {
		name, csv string
		want      []played
	}{{"swapped", swapped, want}, {"far out of order", far.String(), farWant}} {
		cw, err := Compile(NewNames(fixture.HandModel()), &scenario.Workload{TraceCSV: c.csv})
		if err != nil {
			t.Fatal(err)
		}
		if sorted := cw.csv == nil; sorted != (c.name == "far out of order") {
			t.Fatalf("%s: read whole and sorted %v", c.name, sorted)
		}
		check(c.name, cw, c.want)
	}
	// a rate scale: nothing judged, the note says nothing of the validation
	two := 2.0
	cw2, err := Compile(NewNames(fixture.HandModel()), &scenario.Workload{TraceCSV: inOrder, TraceRateScale: &two})
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 row failed (TOUPPER 1): replayed as requests, their load on the servers was real; 2 rows failed before reaching a server (TPENOENT and the like; TOLOWER 1, TOUPPER 1): not replayed"; len(cw2.Note) < len(want) || cw2.Note[len(cw2.Note)-len(want):] != want {
		t.Errorf("scaled note %q, want it to end %q", cw2.Note, want)
	}
}
