package workload

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/fixture"

	"github.com/tuxlb/tuxlb/core/scenario"
)

func openTrace(t *testing.T, w scenario.Workload) ([]Request, error) {
	t.Helper()
	rs, err := Open(fixture.HandModel(), &scenario.Scenario{Workload: w}, 1, 0)
	if err != nil {
		return nil, err
	}
	reqs := drain(rs)
	return reqs, rs.Err()
}

func TestTraceCSV(t *testing.T) {
	csv := "service,time_ms,origin,service_ms,prio,id\n" +
		"TOUPPER,5,site2,1.0005,7,a\n" +
		"TOLOWER,2,,,,\"b,1\"\n" +
		"\"TOUPPER\",5,site1,0.5,,c\n" +
		"TOUPPER,0.0005,site1,,100,d\n" +
		"\n\n"
	got, err := openTrace(t, scenario.Workload{TraceCSV: csv})
	if err != nil {
		t.Fatal(err)
	}
	want := []Request{
		{Seq: 1, ID: "d", TimeUS: 1, Service: fixture.SvcToUpper, Origin: fixture.Site1, ServiceUS: -1, Prio: 100},
		{Seq: 2, ID: "b,1", TimeUS: 2000, Service: fixture.SvcToLower, Origin: fixture.Site1, ServiceUS: -1},
		{Seq: 3, ID: "a", TimeUS: 5000, Service: fixture.SvcToUpper, Origin: fixture.Site2, ServiceUS: 1001, Prio: 7},
		{Seq: 4, ID: "c", TimeUS: 5000, Service: fixture.SvcToUpper, Origin: fixture.Site1, ServiceUS: 500},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d requests, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g := got[i]
		g.Key = 0
		want[i].Trace = true
		if g != want[i] {
			t.Errorf("request %d: got %+v, want %+v", i, g, want[i])
		}
	}
}

func TestTraceJSON(t *testing.T) {
	rows := []scenario.TraceRow{
		{TimeMS: f(3), Service: "TOUPPER", Origin: "site2", ServiceMS: f(2.0005), Prio: ip(5), ID: "x"},
		{TimeMS: f(1), Service: "TOLOWER"},
	}
	got, err := openTrace(t, scenario.Workload{Trace: rows})
	if err != nil {
		t.Fatal(err)
	}
	want := []Request{
		{Seq: 1, TimeUS: 1000, Service: fixture.SvcToLower, Origin: fixture.Site1, ServiceUS: -1},
		{Seq: 2, ID: "x", TimeUS: 3000, Service: fixture.SvcToUpper, Origin: fixture.Site2, ServiceUS: 2001, Prio: 5},
	}
	for i := range want {
		g := got[i]
		g.Key = 0
		want[i].Trace = true
		if g != want[i] {
			t.Errorf("request %d: got %+v, want %+v", i, g, want[i])
		}
	}
}

func TestTraceErrors(t *testing.T) {
	head := "time_ms,service,origin,service_ms,prio,id\n"
	tests := []struct {
		name string
		w    scenario.Workload
		want string
	}{
		{"not a number", scenario.Workload{TraceCSV: head + "0,TOUPPER,,,,\nx,TOUPPER,,,,\n"}, "trace row 2: time_ms: not a number"},
		{"negative", scenario.Workload{TraceCSV: head + "-1,TOUPPER,,,,\n"}, "trace row 1: time_ms: must be >= 0"},
		{"missing time", scenario.Workload{TraceCSV: head + ",TOUPPER,,,,\n"}, "trace row 1: time_ms: missing"},
		{"unknown service", scenario.Workload{TraceCSV: head + "0,TOUPPER,,,,\n1,TOUPPER,,,,\n2,FOO,,,,\n"}, `trace row 3: service: unknown service "FOO"`},
		{"unknown lmid", scenario.Workload{TraceCSV: head + "0,TOUPPER,x,,,\n"}, `trace row 1: origin: unknown LMID "x" (the UBBCONFIG has site1 and site2)`},
		{"service in wrong case", scenario.Workload{TraceCSV: head + "0,toupper,,,,\n"}, `trace row 1: service: unknown service "toupper" (service names are case-sensitive: did you mean TOUPPER?)`},
		{"prio range", scenario.Workload{TraceCSV: head + "0,TOUPPER,,,101,\n"}, `trace row 1: prio: want an integer between 1 and 100, got "101"`},
		{"prio text", scenario.Workload{TraceCSV: head + "0,TOUPPER,,,high,\n"}, `trace row 1: prio: want an integer between 1 and 100, got "high"`},
		{"service_ms negative", scenario.Workload{TraceCSV: head + "0,TOUPPER,,-2,,\n"}, "trace row 1: service_ms: must be >= 0"},
		{"unknown column", scenario.Workload{TraceCSV: "time_ms,service,colour\n0,TOUPPER,red\n"}, `trace_csv: unknown column "colour"`},
		{"missing column", scenario.Workload{TraceCSV: "time_ms,origin\n0,site1\n"}, `trace_csv: missing column "service"`},
		{"twice", scenario.Workload{TraceCSV: "time_ms,service,service\n0,A,B\n"}, `trace_csv: column "service" appears twice`},
		{"too many fields", scenario.Workload{TraceCSV: head + "0,TOUPPER,,,,\n1,TOUPPER,,,,,x\n"}, "trace row 2: has 7 fields, the header has 6"},
		{"too few fields", scenario.Workload{TraceCSV: head + "0,TOUPPER\n"}, "trace row 1: has 2 fields, the header has 6"},
		{"bad quote", scenario.Workload{TraceCSV: head + "0,\"TOUP\"PER,,,,\n"}, "trace row 1 (line 2"},
		{"json missing time", scenario.Workload{Trace: []scenario.TraceRow{{Service: "TOUPPER"}}}, "trace row 1: time_ms: missing"},
		{"json prio", scenario.Workload{Trace: []scenario.TraceRow{{TimeMS: f(0), Service: "TOUPPER", Prio: ip(0)}}}, "trace row 1: prio: must be between 1 and 100, got 0"},
		{"json service", scenario.Workload{Trace: []scenario.TraceRow{{TimeMS: f(0), Service: "X"}}}, `trace row 1: service: unknown service "X"`},
		{"both", scenario.Workload{TraceCSV: head, Trace: []scenario.TraceRow{}}, "workload.trace: give trace_csv or trace, not both"},
		{"empty", scenario.Workload{}, "workload: empty"},
		{"columns without csv", scenario.Workload{Columns: &scenario.TraceMap{}, Generate: &scenario.Generator{}}, "workload.columns: applies to trace_csv"},
		{"bad unit", scenario.Workload{TraceCSV: head, Columns: &scenario.TraceMap{TimeUnit: "h"}}, `workload.columns.time_unit: unknown unit "h"`},
		{"bad delimiter", scenario.Workload{TraceCSV: head, Columns: &scenario.TraceMap{Delimiter: ";;"}}, "workload.columns.delimiter: want one character"},
	}
	for _, tt := range tests {
		_, err := openTrace(t, tt.w)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: got error %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestTraceRateScalePast: a trace_rate_scale below 1 that plays a row past
// the longest simulated time is an error naming the scale and the first
// such row in the file (not a request number the run would have given it),
// for a log read as it goes, a log read whole and a JSON trace alike; a
// row it plays at the limit itself is fine.
func TestTraceRateScalePast(t *testing.T) {
	const want = "workload.trace_rate_scale: 0.001 plays trace row 2 (at 999999999 ms in the trace) at 999999999000 ms, " +
		"past the longest simulated time (1e9 ms, about 11.6 days)"
	far := "time_ms,service\n0,TOUPPER\n999999999,TOUPPER\n1000001,TOUPPER\n"
	unsorted := "time_ms,service\n0,TOUPPER\n999999999,TOUPPER\n"
	for i := range MaxReorderRows + 2 { // too far out of order to stream
		unsorted += fmt.Sprintf("%d,TOUPPER\n", 1000000+MaxReorderRows+2-i)
	}
	rows := []scenario.TraceRow{{TimeMS: f(0), Service: "TOUPPER"}, {TimeMS: f(999999999), Service: "TOUPPER"}, {TimeMS: f(1000001), Service: "TOUPPER"}}
	for name, w := range map[string]scenario.Workload{
		"csv in order": {TraceCSV: far}, "csv read whole": {TraceCSV: unsorted}, "json": {Trace: rows},
	} {
		w.TraceRateScale = f(0.001)
		if _, err := openTrace(t, w); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
	}
	at := "time_ms,service\n0,TOUPPER\n1000000,TOUPPER\n"
	reqs, err := openTrace(t, scenario.Workload{TraceCSV: at, TraceRateScale: f(0.001)})
	if err != nil || len(reqs) != 2 || reqs[1].TimeUS != 1_000_000_000_000 {
		t.Errorf("a row played at the limit: got %v (%d requests), want no error and the row at 1e12 us", err, len(reqs))
	}
}

func TestTraceDefaultOrigin(t *testing.T) {
	m := fixture.HandModel()
	m.Master = ""
	_, err := Open(m, &scenario.Scenario{Workload: scenario.Workload{TraceCSV: "time_ms,service\n0,TOUPPER\n"}}, 1, 0)
	want := "trace row 1: origin: missing, and there is no default"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("no MASTER, two machines: got %v, want %q", err, want)
	}
	m.Machines = m.Machines[1:] // only site2 is left
	rs, err := Open(m, &scenario.Scenario{Workload: scenario.Workload{TraceCSV: "time_ms,service\n0,TOUPPER\n"}}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := drain(rs); len(got) != 1 || got[0].Origin != 0 {
		t.Errorf("only machine: got %+v, want origin 0", got)
	}
}

func TestTraceMapping(t *testing.T) {
	tests := []struct {
		name   string
		csv    string
		cm     scenario.TraceMap
		wantUS []int64
		wantMS []int64
	}{
		{"seconds", "when;op;dur;host;extra\n1.5;TOUPPER;0.002;site2;zz\n0.0000005;TOLOWER;;;\n",
			scenario.TraceMap{Time: "when", TimeUnit: "s", Service: "op", ServiceMS: "dur", ServiceUnit: "s", Origin: "host", Delimiter: ";"},
			[]int64{1, 1_500_000}, []int64{-1, 2000}},
		{"microseconds", "t_us,service,svc_us\n2500.5,TOUPPER,10\n",
			scenario.TraceMap{Time: "t_us", TimeUnit: "us", ServiceMS: "svc_us", ServiceUnit: "us"},
			[]int64{2501}, []int64{10}},
		{"rfc3339", "ts,service\n2026-11-29T10:00:00Z,TOUPPER\n2026-11-29T10:00:01.0000005Z,TOUPPER\n2026-11-29T11:00:00+01:00,TOLOWER\n",
			scenario.TraceMap{Time: "ts", TimeUnit: "rfc3339"},
			[]int64{0, 0, 1_000_001}, []int64{-1, -1, -1}},
		{"tab", "time_ms\tservice\n3\tTOUPPER\n", scenario.TraceMap{Delimiter: "\t"}, []int64{3000}, []int64{-1}},
	}
	for _, tt := range tests {
		got, err := openTrace(t, scenario.Workload{TraceCSV: tt.csv, Columns: &tt.cm})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if len(got) != len(tt.wantUS) {
			t.Errorf("%s: got %d requests, want %d", tt.name, len(got), len(tt.wantUS))
			continue
		}
		for i, r := range got {
			if r.TimeUS != tt.wantUS[i] || r.ServiceUS != tt.wantMS[i] {
				t.Errorf("%s: request %d: got time %d us, service %d us; want %d, %d", tt.name, i, r.TimeUS, r.ServiceUS, tt.wantUS[i], tt.wantMS[i])
			}
		}
	}
}

// A log's times start at the earliest of its first 4096 rows: a row after
// them earlier still is an error.
func TestTraceRFC3339BeforeStart(t *testing.T) {
	csv := "ts,service\n2026-11-29T10:00:01Z,TOUPPER\n" + strings.Repeat("2026-11-29T10:00:02Z,TOUPPER\n", 4096) + "2026-11-29T10:00:00Z,TOUPPER\n"
	_, err := openTrace(t, scenario.Workload{TraceCSV: csv, Columns: &scenario.TraceMap{Time: "ts", TimeUnit: "rfc3339"}})
	want := "trace row 4098: ts: must be >= 0: 2026-11-29T10:00:00Z is before the log's start, 2026-11-29T10:00:01Z (RFC 3339 times count from the earliest of the first 4096 rows)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestTraceKeysFollowRows(t *testing.T) {
	// The key of a row depends on the seed and the row, not on where sorting
	// puts it, so reordering a trace's rows keeps each request's key.
	a, _ := openTrace(t, scenario.Workload{TraceCSV: "time_ms,service,id\n1,TOUPPER,x\n2,TOUPPER,y\n"})
	b, _ := openTrace(t, scenario.Workload{TraceCSV: "time_ms,service,id\n2,TOUPPER,y\n1,TOUPPER,x\n"})
	if a[0].Key == a[1].Key {
		t.Errorf("two rows got the same key %x", a[0].Key)
	}
	if a[0].Key != requestKey(1, 0, 0) || b[0].Key != requestKey(1, 0, 1) {
		t.Errorf("got keys %x, %x; want the keys of rows 1 and 2", a[0].Key, b[0].Key)
	}
}

func BenchmarkTraceCSV(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("time_ms,service,origin,service_ms,prio,id\n")
	for i := range 10_000 {
		sb.WriteString(fmt.Sprintf("%d.%03d,TOUPPER,site2,1.5,%d,r%d\n", i, i%1000, 1+i%100, i))
	}
	text := sb.String()
	n := NewNames(fixture.HandModel())
	for b.Loop() {
		if _, _, _, _, err := traceCSV(n, text, nil, false, 1); err != nil {
			b.Fatal(err)
		}
	}
}
