package trace

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core/internal/capped"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// TestTraceLogFormats reads logs as they come, one hand-worked case per time
// format. Each want is derived in the comment beside it.
func TestTraceLogFormats(t *testing.T) {
	tests := []struct {
		name   string
		csv    string
		cm     *Columns
		wantUS []int64 // issue times in µs, in issue order
		wantSv []int64 // service_us, -1 when not given
		note   string  // a part of the note ("" = no note at all)
	}{
		// 10:00:00.250 is the first row: 0; 10:00:01 is 750 ms later.
		{"date-time with a space", "timestamp,svc,user\n2026-11-29 10:00:00.250,TOUPPER,ann\n2026-11-29 10:00:01,TOLOWER,bob\n", nil,
			[]int64{0, 750_000}, []int64{-1, -1},
			`time_ms from column "timestamp" (date-times, counted from the first row), service from column "svc"; ignored: user`},
		// 10:00+01:00 is 09:00Z; 09:00:00.0015Z is 1.5 ms after it.
		{"T and zones", "time,service\n2026-11-29T10:00:00+01:00,TOUPPER\n2026-11-29T09:00:00.0015Z,TOUPPER\n", nil,
			[]int64{0, 1500}, []int64{-1, -1}, "date-times"},
		// Python's logging writes "10:00:00,123": 0.5 - 0.123 s = 377 ms. The header has ';'.
		{"decimal comma in a date-time", "ts;service\n2026-11-29 10:00:00,123;TOUPPER\n2026-11-29 10:00:00,5;TOUPPER\n", nil,
			[]int64{0, 377_000}, []int64{-1, -1}, "date-times"},
		// Zones as +HHMM, +HH and " UTC": all three are 08:00:00Z, then +1 s.
		{"zone forms", "ts,service\n2026-11-29 10:00:00+0200,TOUPPER\n2026-11-29 09:00:01+01,TOUPPER\n2026-11-29 08:00:02 UTC,TOUPPER\n", nil,
			[]int64{0, 1_000_000, 2_000_000}, []int64{-1, -1, -1}, "date-times"},
		// 1764410400.5 s is an epoch (>= 1e8): the second row is 0.5 s later.
		{"epoch seconds", "ts,service\n1764410400.5,TOUPPER\n1764410401,TOUPPER\n", nil,
			[]int64{0, 500_000}, []int64{-1, -1}, "epoch seconds, counted from the first row"},
		// 1.76e12 lies in [1e11, 1e14): milliseconds; 250.5 ms later.
		{"epoch milliseconds", "timestamp,service\n1764410400000,TOUPPER\n1764410400250.5,TOUPPER\n", nil,
			[]int64{0, 250_500}, []int64{-1, -1}, "epoch milliseconds"},
		// 1.76e15 lies in [1e14, 1e17): microseconds; 3 µs later.
		{"epoch microseconds", "ts,service\n1764410400000000,TOUPPER\n1764410400000003,TOUPPER\n", nil,
			[]int64{0, 3}, []int64{-1, -1}, "epoch microseconds"},
		// 1.76e18 is nanoseconds; 1500 ns is 1.5 µs, rounded half away to 2.
		{"epoch nanoseconds", "ts,service\n1764410400000000000,TOUPPER\n1764410400000001500,TOUPPER\n", nil,
			[]int64{0, 2}, []int64{-1, -1}, "epoch nanoseconds"},
		// The name says seconds; 0.5 and 2 are small, so offsets from 0.
		{"unit from the name", "time_s,service\n0.5,TOUPPER\n2,TOUPPER\n", nil,
			[]int64{500_000, 2_000_000}, []int64{-1, -1}, `time_ms from column "time_s" (seconds)`},
		// The name says ms, the value is an epoch in ms: 1 ms later.
		{"epoch with a unit in the name", "ts_ms,service\n1764410400000,TOUPPER\n1764410400001,TOUPPER\n", nil,
			[]int64{0, 1000}, []int64{-1, -1}, "epoch milliseconds"},
		// A small number without a unit is milliseconds from 0.
		{"small number, no unit", "time,service\n1.5,TOUPPER\n", nil, []int64{1500}, []int64{-1}, "(milliseconds)"},
		// The trace format with ';' and decimal commas: 1,5 ms and 0,25 ms.
		{"decimal comma in numbers", "time_ms;service;service_ms\n1,5;TOUPPER;0,25\n", nil, []int64{1500}, []int64{250}, ""},
		// Service time, priority and id by common names; exec_time_us 1500 is 1.5 ms.
		{"other fields by name", "timestamp,operation,exec_time_us,priority,request_id\n2026-11-29 10:00:00,TOUPPER,1500,7,r1\n", nil,
			[]int64{0}, []int64{1500}, `service_ms from column "exec_time_us" (in microseconds), prio from column "priority", id from column "request_id"`},
		// "Time (ms)" normalizes to time_ms, "Service Name" to service_name.
		{"spaces and brackets", "Time (ms),Service Name\n3,TOUPPER\n", nil, []int64{3000}, []int64{-1}, `column "Time (ms)"`},
		// An explicit mapping with an explicit unit: epoch seconds, 1.25 s later.
		{"mapped epoch seconds", "when,what\n1764410400,TOUPPER\n1764410401.25,TOUPPER\n", &Columns{Time: "when", Service: "what", TimeUnit: "s"},
			[]int64{0, 1_250_000}, []int64{-1, -1}, `service from column "what"`},
		// A mapped column without a unit: the first cell is a date-time.
		{"mapped date-time", "at,service\n2026-11-29 10:00:00,TOUPPER\n2026-11-29 10:00:02,TOUPPER\n", &Columns{Time: "at"},
			[]int64{0, 2_000_000}, []int64{-1, -1}, "date-times"},
		// A mapped column without a unit and small numbers: milliseconds, as before.
		{"mapped small numbers", "t_s,service\n2,TOUPPER\n", &Columns{Time: "t_s"}, []int64{2000}, []int64{-1}, "(milliseconds)"},
		// A log's rows need not be sorted after the first: 10:00:05 then 10:00:01 (4 s before it is an error, see below).
		{"unsorted after the first row", "ts,service\n2026-11-29 10:00:00,TOUPPER\n2026-11-29 10:00:05,TOUPPER\n2026-11-29 10:00:01,TOUPPER\n", nil,
			[]int64{0, 1_000_000, 5_000_000}, []int64{-1, -1, -1}, "date-times"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, note, err := readAll(tt.csv, tt.cm)
			if err != nil {
				t.Fatalf("got error %v", err)
			}
			if len(got) != len(tt.wantUS) {
				t.Fatalf("got %d requests, want %d", len(got), len(tt.wantUS))
			}
			for i, r := range got {
				if r.TimeUS != tt.wantUS[i] || r.ServiceUS != tt.wantSv[i] {
					t.Errorf("request %d: got time %d us, service %d us; want %d, %d", i, r.TimeUS, r.ServiceUS, tt.wantUS[i], tt.wantSv[i])
				}
			}
			if tt.note == "" && note != "" || !strings.Contains(note, tt.note) {
				t.Errorf("got note %q, want it to contain %q", note, tt.note)
			}
		})
	}
}

func TestTraceLogFields(t *testing.T) {
	got, _, err := readAll("timestamp,operation,exec_time_us,priority,request_id,machine\n2026-11-29 10:00:00,TOUPPER,1500,7,r1,site2\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Request{Row: 1, ID: "r1", Service: svcToUpper, Origin: site2, ServiceUS: 1500, Prio: 7, ObservedUS: -1}
	if g := got[0]; g != want {
		t.Errorf("got %+v, want %+v", g, want)
	}
}

func TestTraceLogErrors(t *testing.T) {
	tests := []struct {
		name, csv string
		cm        *Columns
		want      string
	}{
		{"not a date-time", "timestamp,svc\n2026-11-29 10:00:00,TOUPPER\nyesterday,TOUPPER\n", nil,
			`trace row 2: timestamp: not a date-time (want YYYY-MM-DD HH:MM:SS[.fff][zone], as in the first row): "yesterday"`},
		{"no such day", "timestamp,svc\n2026-11-29 10:00:00,TOUPPER\n2026-02-30 10:00:00,TOUPPER\n", nil,
			`trace row 2: timestamp: not a date-time`},
		{"no time column", "when_x,svc\n1,TOUPPER\n", nil,
			`trace_csv: missing column "time_ms" (no column has a name like time, timestamp, ts, datetime; name yours with workload.columns.time)`},
		{"no service column", "ts,what\n1,TOUPPER\n", nil, `trace_csv: missing column "service"`},
		{"mapped column absent", "ts,service\n1,TOUPPER\n", &Columns{Service: "op"},
			`workload.columns.service: no column "op" in the header (it has ts, service)`},
		// the start is the earliest of the first 4096 rows: a row after
		// them that is earlier still is an error
		{"epoch before the start", "ts,service\n1764410401,TOUPPER\n" + strings.Repeat("1764410402,TOUPPER\n", 4096) + "1764410400,TOUPPER\n", nil,
			"trace row 4098: ts: must be >= 0: 1764410400 is before the log's start, 1764410401 (epoch times count from the earliest of the first 4096 rows)"},
		{"date-time before the start", "ts,service\n2026-11-29 10:00:01,TOUPPER\n" + strings.Repeat("2026-11-29 10:00:02,TOUPPER\n", 4096) + "2026-11-29 10:00:00,TOUPPER\n", nil,
			"trace row 4098: ts: must be >= 0: 2026-11-29 10:00:00 is before the log's start, 2026-11-29 10:00:01 (date-times count from the earliest of the first 4096 rows)"},
		{"a number after date-times", "ts,service\n2026-11-29 10:00:01,TOUPPER\n5,TOUPPER\n", nil, "trace row 2: ts: not a date-time"},
		{"an offset past the limit", "time_ms,service\n1000000001,TOUPPER\n", nil, "trace row 1: time_ms: too large"},
		{"service in the log's column", "ts,op\n0,FOO\n", nil, `trace row 1: op: unknown service "FOO"`},
		{"bad zone", "ts,service\n2026-11-29 10:00:00 CET,TOUPPER\n", nil, "trace row 1: ts: not a date-time"},
		{"a year past the range", "timestamp,svc\n2026-11-29 10:00:00,TOUPPER\n9999-12-31 23:59:59,TOUPPER\n", nil,
			`trace row 2: timestamp: date-time out of the supported range (years 1678 to 2261): "9999-12-31 23:59:59"`},
		{"a year before the range", "timestamp,svc\n0001-01-01 00:00:00,TOUPPER\n2026-11-29 10:00:00,TOUPPER\n", nil,
			`trace row 1: timestamp: date-time out of the supported range (years 1678 to 2261): "0001-01-01 00:00:00"`},
		{"a year-last date past the range", "ts,svc\n29/11/2026 10:00:00,TOUPPER\n31/12/2262 10:00:00,TOUPPER\n", nil,
			`trace row 2: ts: date-time out of the supported range (years 1678 to 2261): "31/12/2262 10:00:00"`},
		{"an RFC 3339 time past the range", "ts,svc\n9999-12-31T23:59:59Z,TOUPPER\n", &Columns{TimeUnit: "rfc3339"},
			`trace row 1: ts: date-time out of the supported range (years 1678 to 2261): "9999-12-31T23:59:59Z"`},
		{"unknown unit", "ts,service\n1,TOUPPER\n", &Columns{TimeUnit: "h"}, `workload.columns.time_unit: unknown unit "h" (want ms, s, us, ns, rfc3339 or datetime)`},
		{"twice", "ts,ts,service\n1,2,TOUPPER\n", nil, `trace_csv: column "ts" appears twice`},
	}
	for _, tt := range tests {
		_, _, err := readAll(tt.csv, tt.cm)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: got error %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestParseDateTime checks the date-time reader against the time package on
// the layouts both read.
func TestParseDateTime(t *testing.T) {
	for _, s := range []string{
		"1970-01-01T00:00:00Z", "2026-11-29T10:00:00.5Z", "2024-02-29T23:59:59.999999999+05:30",
		"1999-12-31T23:59:59-08:00", "2000-03-01T00:00:00Z", "1900-01-01T00:00:00Z", "2100-02-28T12:00:00.000001Z",
		"1678-01-01T00:00:00+23:59", "2261-12-31T23:59:59.999999999-23:59", // the ends of the supported years
	} {
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := parseDateTime(s)
		if !ok || got != want.UnixNano() {
			t.Errorf("%s: got %d (%v), want %d", s, got, ok, want.UnixNano())
		}
	}
	for _, s := range []string{"2026-13-01 00:00:00", "2026-11-29", "2026-11-29 10:00", "2026-11-29 24:00:00", "2026-11-29 10:00:00.", "2026-11-29x10:00:00", "2026-11/29 10:00:00",
		"1677-12-31T23:59:59Z", "2262-01-01T00:00:00Z", "0001-01-01 00:00:00", "9999-12-31 23:59:59"} {
		if _, ok := parseDateTime(s); ok {
			t.Errorf("%q: read as a date-time, want not", s)
		}
	}
}

// testModel has three services and two machines, site1 the MASTER.
func testModel() *ubb.Model {
	return &ubb.Model{
		Master:   "site1",
		Machines: []ubb.Machine{{LMID: "site1", PMID: "host1"}, {LMID: "site2", PMID: "host2"}},
		Services: []ubb.Service{{Name: "REMOTE"}, {Name: "TOLOWER"}, {Name: "TOUPPER"}},
	}
}

// Service and machine indexes of testModel.
const (
	svcToUpper = 2
	site2      = 1
)

// readAll reads text against testModel, its rows sorted by time as core sorts them.
func readAll(text string, cols *Columns) ([]Request, string, error) {
	var reqs []Request
	note, err := ReadCSV(text, cols, NewNames(testModel()), func(r *Request) { reqs = append(reqs, *r) })
	slices.SortStableFunc(reqs, func(a, b Request) int { return cmp.Compare(a.TimeUS, b.TimeUS) })
	return reqs, note, err
}

// A row's error quotes a cell cut to capped.Max bytes, however long the
// cell, and keeps the message's own words whole.
func TestRowErrorCutsTheCellOnly(t *testing.T) {
	long := strings.Repeat("9", 100_000) + "x"
	for _, text := range []string{
		"ts,service\n2026-11-29 10:00:00,TOUPPER\n2026-11-29 " + long + ",TOUPPER\n",
		"time_ms,service\n0," + long + "\n",
		"time_ms,service,prio\n0,TOUPPER," + long + "\n",
	} {
		_, _, err := readAll(text, nil)
		if err == nil || len(err.Error()) > 2*capped.Max || !strings.Contains(err.Error(), "…(") {
			t.Errorf("a cell of 100 KB: got %.400v (%d bytes), want it quoted cut", err, len(fmt.Sprint(err)))
		}
	}
}

// A header of more columns than a log may have is refused before its names
// are read, saying how many.
func TestHeaderTooWide(t *testing.T) {
	head := "time_ms,service" + strings.Repeat(",x", MaxColumns-1)
	_, err := ReadCSV(head+"\n0,TOUPPER"+strings.Repeat(",", MaxColumns-1)+"\n", nil, NewNames(testModel()), func(*Request) {})
	if err == nil || !strings.Contains(err.Error(), "10001 columns or more, past the 10000") {
		t.Errorf("error %v, want the header refused", err)
	}
	head = "time_ms,service" + strings.Repeat(",x", MaxColumns-3)
	if _, err := ReadCSV(head+"\n0,TOUPPER"+strings.Repeat(",", MaxColumns-3)+"\n", nil, NewNames(testModel()), func(*Request) {}); err != nil && strings.Contains(err.Error(), "columns or more") {
		t.Errorf("%d columns: %v, want them read", MaxColumns-1, err)
	}
}

// DrawServiceTimes leaves the service time column unread, in the trace
// format (still read strictly: an unknown column is an error) and in a
// log (the column listed as ignored), whether found by name or mapped; the
// other fields are read as without it.
func TestDrawServiceTimes(t *testing.T) {
	for _, c := range []struct {
		text string
		cols Columns
		note string
	}{
		{"time_ms,service,service_ms,observed_ms\n0,TOUPPER,3.5,9\n1,TOUPPER,,8\n", Columns{DrawServiceTimes: true}, ""},
		{"ts,svc,exec_time,Elapsed(ms)\n0,TOUPPER,3.5,9\n1,TOUPPER,,8\n", Columns{DrawServiceTimes: true}, "ignored: exec_time (service times drawn from the scenario)"},
		{"ts,svc,Exec,Elapsed(ms)\n0,TOUPPER,3.5,9\n1,TOUPPER,,8\n", Columns{ServiceMS: "Exec", DrawServiceTimes: true}, "ignored: Exec"},
	} {
		reqs, note, err := readAll(c.text, &c.cols)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if len(reqs) != 2 || reqs[0].ServiceUS != -1 || reqs[1].ServiceUS != -1 || reqs[0].ObservedUS != 9000 || reqs[0].Service != svcToUpper {
			t.Errorf("%q: got %+v, want 2 rows of TOUPPER without service times, the first observed 9 ms", c.text, reqs)
		}
		if !strings.Contains(note, c.note) || c.note == "" && note != "" {
			t.Errorf("%q: note %q, want %q", c.text, note, c.note)
		}
		without := c.cols
		without.DrawServiceTimes = false
		var cols *Columns
		if without != (Columns{}) {
			cols = &without
		}
		if reqs, _, err := readAll(c.text, cols); err != nil || reqs[0].ServiceUS != 3500 {
			t.Errorf("%q without DrawServiceTimes: %v %+v, want the first row's 3.5 ms", c.text, err, reqs)
		}
	}
	// the error lists every column of the format, the enqueue one too
	want := `trace_csv: unknown column "colour" (want time_ms, service, origin, service_ms, prio, id, route, buftype, observed_ms, status, enqueue;`
	if _, _, err := readAll("time_ms,service,colour\n0,TOUPPER,red\n", &Columns{DrawServiceTimes: true}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("the trace format with DrawServiceTimes: %v, want it read strictly: %s", err, want)
	}
}

// A duration's column named with its unit is in that unit when it is
// mapped too: Elapsed(s) 0.0215 is 21.5 ms, Exec(us) 4000 is 4 ms (read as
// milliseconds they were 0.0215 ms and 4 s); service_unit, when given,
// wins over the name (Exec(us) 4 with service_unit ms is 4 ms). The note
// says each unit that is not milliseconds.
func TestMappedColumnUnits(t *testing.T) {
	text := "Start,Svc,Elapsed(s),Exec(us)\n2026-11-29 10:00:00,TOUPPER,0.0215,4000\n"
	got, note, err := readAll(text, &Columns{Time: "Start", Service: "Svc", Observed: "Elapsed(s)", ServiceMS: "Exec(us)"})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].ObservedUS != 21500 || got[0].ServiceUS != 4000 {
		t.Errorf("observed %d µs, service %d µs; want 21500 and 4000", got[0].ObservedUS, got[0].ServiceUS)
	}
	if !strings.Contains(note, `service_ms from column "Exec(us)" (in microseconds)`) || !strings.Contains(note, `observed_ms from column "Elapsed(s)" (in seconds)`) {
		t.Errorf("note %q: want the units said", note)
	}
	text = "Start,Svc,Exec(us)\n2026-11-29 10:00:00,TOUPPER,4\n"
	got, _, err = readAll(text, &Columns{Time: "Start", Service: "Svc", ServiceMS: "Exec(us)", ServiceUnit: "ms"})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].ServiceUS != 4000 {
		t.Errorf("service %d µs with service_unit ms, want 4000", got[0].ServiceUS)
	}
}

// A log of date-times or epoch times starts at the earliest time of its
// first 4096 rows, not at its first row's: an export written as requests
// end (each row with its start time) or by several threads starts a little
// out of order. With trace_skip_bad the same: a row out of order is no bad
// row.
func TestStartEarliestOfFirstRows(t *testing.T) {
	// By hand: rows at 10:00:00.020, 10:00:00.000 (started 20 ms before
	// the first row's, written after it) and 10:00:00.050. The start is
	// row 2's 10:00:00.000: the rows are at 20 000, 0 and 50 000 µs
	// (before, row 2 was an error: before the first row's time).
	const csv = "ts,service\n2026-11-29 10:00:00.020,TOUPPER\n2026-11-29 10:00:00.000,TOUPPER\n2026-11-29 10:00:00.050,TOUPPER\n"
	reqs, note, err := readAll(csv, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, r := range reqs {
		got = append(got, r.TimeUS)
	}
	if !reflect.DeepEqual(got, []int64{0, 20000, 50000}) || reqs[0].Row != 2 {
		t.Errorf("times %v (first row %d), want 0 (row 2), 20000, 50000", got, reqs[0].Row)
	}
	if want := "date-times, counted from row 2's 2026-11-29 10:00:00.000, the earliest of the first 4096 rows"; !strings.Contains(note, want) {
		t.Errorf("note %q, want it to say %q", note, want)
	}
	// the same as epoch milliseconds: 1764410400020, ...000, ...050
	reqs, _, err = readAll("ts_ms,service\n1764410400020,TOUPPER\n1764410400000,TOUPPER\n1764410400050,TOUPPER\n", nil)
	if err != nil || len(reqs) != 3 || reqs[0].TimeUS != 0 || reqs[1].TimeUS != 20000 || reqs[2].TimeUS != 50000 {
		t.Errorf("epoch: %+v %v, want 0, 20000, 50000", reqs, err)
	}
	// skipping bad rows: row 2, out of order, is no bad row; the start is
	// its time, as without trace_skip_bad (the reader hands the rows in the
	// log's order: 20 000, 0, 50 000)
	var kept []int64
	info, err := Read(csv, nil, Options{SkipBad: true}, NewNames(testModel()), func(r *Request) { kept = append(kept, r.TimeUS) })
	if err != nil || !reflect.DeepEqual(kept, []int64{20000, 0, 50000}) || info.Skipped != 0 {
		t.Errorf("skip bad: times %v skipped %d (%v), want 20000, 0 and 50000, none skipped", kept, info.Skipped, err)
	}
}

// Rows that repeat the row before them in every column read (an export
// written twice over a stretch) are each a request, and the note says how
// many there were.
func TestRepeatedRows(t *testing.T) {
	// By hand: row 2 repeats row 1; row 4 differs from row 3 in its
	// service time, row 5 from row 4 in its time; row 6 repeats row 5:
	// two repeated rows, row 2 the first; six requests.
	reqs, note, err := readAll("time_ms,service,service_ms\n0,TOUPPER,5\n0,TOUPPER,5\n1,TOUPPER,5\n1,TOUPPER,6\n2,TOUPPER,6\n2,TOUPPER,6\n", nil)
	want := "trace_csv: 2 rows repeat the row before them in every column read (row 2 the first): each is played as a request; if the export wrote rows twice, remove them"
	if err != nil || len(reqs) != 6 || note != want {
		t.Errorf("%d requests, note %q (%v), want 6 and %q", len(reqs), note, err, want)
	}
	// a log's note says it after how it was read
	_, note, _ = readAll("ts,svc\n2026-11-29 10:00:00,TOUPPER\n2026-11-29 10:00:00,TOUPPER\n", nil)
	if !strings.HasPrefix(note, "trace_csv: read as a log: ") || !strings.HasSuffix(note, "; 1 rows repeat the row before them in every column read (row 2 the first): each is played as a request; if the export wrote rows twice, remove them") {
		t.Errorf("note %q", note)
	}
}
