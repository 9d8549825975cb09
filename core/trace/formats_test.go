package trace

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestDateForms reads each date form; every want is worked beside it.
func TestDateForms(t *testing.T) {
	tests := []struct {
		name   string
		csv    string
		cm     *Columns
		wantUS []int64
		note   string
	}{
		// Row 2's 13/12 can only be day 13: day first. 12/12 23:59:59.5 to
		// 13/12 00:00:00.25 is 0.75 s.
		{"day first, decided by a later row", "Timestamp;Service\n12/12/2026 23:59:59.5;TOUPPER\n13/12/2026 00:00:00.25;TOUPPER\n", nil,
			[]int64{0, 750_000}, "DD/MM/YYYY (day first: row 2 has 13/12/2026 00:00:00.25)"},
		// 12/13 is month 12, day 13: month first; 12/12 10:00 to 12/13 10:00 is a day.
		{"month first", "Timestamp,Service\n12/12/2026 10:00:00,TOUPPER\n12/13/2026 10:00:00,TOUPPER\n", nil,
			[]int64{0, 86_400_000_000}, "MM/DD/YYYY (month first: row 2 has 12/13/2026 10:00:00)"},
		// date_order=mdy: 01/02 is 2 January, 01/03 is 3 January: a day later
		// (day first they would be a month apart).
		{"order from the map", "Timestamp,Service\n01/02/2026 00:00:00,TOUPPER\n01/03/2026 00:00:00,TOUPPER\n", &Columns{DateOrder: "mdy"},
			[]int64{0, 86_400_000_000}, "MM/DD/YYYY (month first, as date_order says)"},
		// Dotted dates are day first: 01.12.2026 to 02.12.2026 is a day.
		{"dotted", "Timestamp,Service\n01.12.2026 10:00:00,TOUPPER\n02.12.2026 10:00:00,TOUPPER\n", nil,
			[]int64{0, 86_400_000_000}, "date-times"},
		// Two-digit years: 31/12/99 is 1999, 01/01/00 is 2000: 1 s apart at midnight.
		{"two-digit years", "Timestamp,Service\n31/12/99 23:59:59,TOUPPER\n01/01/00 00:00:00,TOUPPER\n", nil,
			[]int64{0, 1_000_000}, "DD/MM/YYYY"},
		// Year first with slashes, one-digit hour and a decimal comma: 0.5 s.
		{"year first with slashes", "Timestamp;Service\n2026/12/01 9:00:00,000;TOUPPER\n2026/12/01 9:00:00,500;TOUPPER\n", nil,
			[]int64{0, 500_000}, "date-times, counted"},
		// 12-hour clock: 12:00:00 AM is midnight, 1:00:00 PM is 13:00.
		{"AM and PM", "Timestamp,Service\n12/13/2026 12:00:00 AM,TOUPPER\n12/13/2026 1:00:00 PM,TOUPPER\n", nil,
			[]int64{0, 13 * 3_600_000_000}, "MM/DD/YYYY"},
		// An explicit zone wins over tz: 10:00+00:00 is 10:00Z, 2 h after 08:00Z;
		// 10:00 in Paris in December is 09:00Z, 1 h after it.
		{"zone in the cell wins", "ts,service\n2026-12-01 08:00:00Z,TOUPPER\n2026-12-01 10:00:00+00:00,TOUPPER\n2026-12-01 10:00:00,TOUPPER\n", &Columns{TZ: "Europe/Paris"},
			[]int64{0, 7_200_000_000, 3_600_000_000}, "local times in Europe/Paris (UTC+1, UTC+2 in summer time)"},
		// Paris changes to summer time at 02:00 on 29 March 2026: 01:59:00 CET to 03:01:00 CEST is 2 minutes.
		{"across the change to summer time", "ts,service\n2026-03-29 01:59:00,TOUPPER\n2026-03-29 03:01:00,TOUPPER\n", &Columns{TZ: "Europe/Paris"},
			[]int64{0, 120_000_000}, "Europe/Paris"},
		// Without tz the same times are UTC: 1 h 2 min apart, and the note says so.
		{"no tz: UTC", "ts,service\n2026-03-29 01:59:00,TOUPPER\n2026-03-29 03:01:00,TOUPPER\n", nil,
			[]int64{0, 3_720_000_000}, "times without a zone read as UTC"},
		// The first cell decides nothing when it is not a time: row 2 decides.
		{"a bad first cell", "ts,service\nn/a,TOUPPER\n2026-12-01 10:00:00,TOUPPER\n", nil, []int64{0}, "date-times"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reqs []Request
			info, err := Read(tt.csv, tt.cm, Options{SkipBad: tt.name == "a bad first cell"}, NewNames(testModel()), func(r *Request) { reqs = append(reqs, *r) })
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != len(tt.wantUS) {
				t.Fatalf("got %d rows, want %d", len(reqs), len(tt.wantUS))
			}
			for i, r := range reqs {
				if r.TimeUS != tt.wantUS[i] {
					t.Errorf("row %d: time %d us, want %d", i+1, r.TimeUS, tt.wantUS[i])
				}
			}
			if !strings.Contains(info.Note, tt.note) {
				t.Errorf("note %q, want it to contain %q", info.Note, tt.note)
			}
		})
	}
}

func TestOriginsByHost(t *testing.T) {
	var got []int
	_, err := Read("ts,service,machine\n0,TOUPPER,host2\n1,TOUPPER,SITE2\n2,TOUPPER,HOST1.example.com\n3,TOUPPER,site1\n", nil, Options{},
		NewNames(testModel()), func(r *Request) { got = append(got, r.Origin) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 1, 0, 0}; !equalInts(got, want) {
		t.Errorf("origins %v, want %v", got, want)
	}
	// a monitor's Host (or Node) column is the origin's
	for _, col := range []string{"Host", "hostname", "Node"} {
		got = nil
		if _, err := Read("ts,service,"+col+"\n0,TOUPPER,host2\n1,TOUPPER,host1\n", nil, Options{},
			NewNames(testModel()), func(r *Request) { got = append(got, r.Origin) }); err != nil || !equalInts(got, []int{1, 0}) {
			t.Errorf("column %s: origins %v, %v; want [1 0]", col, got, err)
		}
	}
	m := testModel()
	m.Machines[1].PMID = "host1" // two LMIDs on one host: the host name is ambiguous
	_, err = Read("ts,service,machine\n0,TOUPPER,host1\n", nil, Options{}, NewNames(m), func(*Request) {})
	if err == nil || !strings.Contains(err.Error(), `trace row 1: machine: "host1" names more than one machine`) {
		t.Errorf("shared host: got %v", err)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDateOrderErrors(t *testing.T) {
	tests := []struct{ name, csv, want string }{
		{"undecidable", "Timestamp;Service\n01/12/2026 10:00:00;TOUPPER\n02/12/2026 10:00:00;TOUPPER\n",
			`trace_csv: column "Timestamp": dates like 01/12/2026 10:00:00 may be day/month or month/day, and no row has a day above 12 to decide: set date_order=dmy or date_order=mdy`},
		{"contradictory", "Timestamp;Service\n13/12/2026 10:00:00;TOUPPER\n12/13/2026 10:00:00;TOUPPER\n",
			`trace_csv: column "Timestamp": row 1's 13/12/2026 10:00:00 puts the day first, row 2's 12/13/2026 10:00:00 the month`},
		{"no such day once decided", "Timestamp;Service\n13/12/2026 10:00:00;TOUPPER\n31/02/2026 10:00:00;TOUPPER\n",
			`trace row 2: Timestamp: not a date-time (want YYYY-MM-DD HH:MM:SS[.fff][zone] or DD/MM/YYYY HH:MM:SS, as in the first row): "31/02/2026 10:00:00"`},
	}
	for _, tt := range tests {
		for _, skip := range []bool{false, true} {
			_, err := Read(tt.csv, nil, Options{SkipBad: skip && tt.name != "no such day once decided"}, NewNames(testModel()), func(*Request) {})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("%s (skip %v): got %v, want %q", tt.name, skip, err, tt.want)
			}
		}
	}
	for _, c := range []struct {
		cm   Columns
		want string
	}{
		{Columns{DateOrder: "ymd"}, `workload.columns.date_order: want dmy or mdy, got "ymd"`},
		{Columns{TZ: "Europe/Pariss"}, `workload.columns.tz: unknown zone "Europe/Pariss"`},
	} {
		_, err := Read("ts,service\n0,TOUPPER\n", &c.cm, Options{}, NewNames(testModel()), func(*Request) {})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.cm, err, c.want)
		}
	}
}

// TestSkipBad skips a total line, an n/a and a short row, and counts them;
// a row out of time order is no bad row (threads write an export a little
// out of order: the replay puts it in order) and is kept; without SkipBad
// the first is the error.
func TestSkipBad(t *testing.T) {
	log := "Timestamp;Service;Elapsed(ms)\n" +
		"13/12/2026 10:00:00,000;TOUPPER;12,5\n" + // row 1
		"13/12/2026 10:00:01,000;TOUPPER;n/a\n" + // row 2: n/a
		"13/12/2026 10:00:02,000;TOLOWER;3\n" + // row 3
		"13/12/2026 10:00:01,500;TOUPPER;4\n" + // row 4: before row 3, kept
		"13/12/2026 10:00:03,000;TOUPPER\n" + // row 5: two fields
		"13/12/2026 10:00:04,000;TOUPPER;1,25\n" + // row 6
		"Total;;17,75\n" // row 7: not a time
	var got []Request
	info, err := Read(log, &Columns{Observed: "Elapsed(ms)"}, Options{SkipBad: true}, NewNames(testModel()), func(r *Request) { got = append(got, *r) })
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 4 || info.Skipped != 3 || len(got) != 4 || !info.Observed {
		t.Fatalf("rows %d, skipped %d, handed %d, observed %v; want 4, 3, 4, true", info.Rows, info.Skipped, len(got), info.Observed)
	}
	wantRows, wantObs := []int{1, 3, 4, 6}, []int64{12500, 3000, 4000, 1250}
	for i, r := range got {
		if r.Row != wantRows[i] || r.ObservedUS != wantObs[i] || r.ServiceUS != -1 {
			t.Errorf("kept %d: row %d observed %d service %d; want row %d observed %d service -1", i, r.Row, r.ObservedUS, r.ServiceUS, wantRows[i], wantObs[i])
		}
	}
	wantEx := []string{
		`row 2: Elapsed(ms): not a number: "n/a"`,
		`row 5: has 2 fields, the header has 3`,
		`row 7: Timestamp: not a date-time (want YYYY-MM-DD HH:MM:SS[.fff][zone] or DD/MM/YYYY HH:MM:SS, as in the first row): "Total"`,
	}
	if strings.Join(info.Examples, "\n") != strings.Join(wantEx, "\n") {
		t.Errorf("examples:\n%s\nwant:\n%s", strings.Join(info.Examples, "\n"), strings.Join(wantEx, "\n"))
	}
	_, err = Read(log, &Columns{Observed: "Elapsed(ms)"}, Options{}, NewNames(testModel()), func(*Request) {})
	if err == nil || err.Error() != `trace row 2: Elapsed(ms): not a number: "n/a"` {
		t.Errorf("without SkipBad: %v", err)
	}
}

// TestObservedColumn: observed_ms is part of the trace format; a column
// named for a response (elapsed, response, duration, latency, rt, in any
// case, with or without a unit) is the observed response and never the
// service time, unless mapped as service_ms; a column mapped as observed
// is not also the service time.
func TestObservedColumn(t *testing.T) {
	tests := []struct {
		csv      string
		cm       *Columns
		svc, obs int64
	}{
		{"time_ms;service;service_ms;observed_ms\n0;TOUPPER;1;2,5\n", nil, 1000, 2500},
		{"ts,service,response_s\n0,TOUPPER,0.5\n", nil, -1, 500_000},
		{"ts,service,elapsed_ms\n0,TOUPPER,7\n", nil, -1, 7000},
		{"ts,service,Elapsed(ms)\n0,TOUPPER,7\n", nil, -1, 7000},
		{"ts,service,Elapsed\n0,TOUPPER,7\n", nil, -1, 7000},
		{"ts,service,response_time_ms\n0,TOUPPER,7\n", nil, -1, 7000},
		{"ts,service,RT (s)\n0,TOUPPER,0.25\n", nil, -1, 250_000},
		{"ts,service,rt\n0,TOUPPER,3\n", nil, -1, 3000},
		{"ts,service,LATENCY_MS\n0,TOUPPER,3\n", nil, -1, 3000},
		{"ts,service,Duration\n0,TOUPPER,3\n", nil, -1, 3000},
		{"ts,service,duration_us\n0,TOUPPER,3\n", nil, -1, 3},
		// A service time column beside it is read as one.
		{"ts,service,exec_time_ms,Elapsed(ms)\n0,TOUPPER,2,7\n", nil, 2000, 7000},
		{"ts,service,elapsed_ms\n0,TOUPPER,7\n", &Columns{Observed: "elapsed_ms"}, -1, 7000},
		// Mapped as the service time by the user, it is one.
		{"ts,service,Elapsed(ms)\n0,TOUPPER,7\n", &Columns{ServiceMS: "Elapsed(ms)"}, 7000, -1},
	}
	for _, tt := range tests {
		var got Request
		_, err := Read(tt.csv, tt.cm, Options{}, NewNames(testModel()), func(r *Request) { got = *r })
		if err != nil {
			t.Errorf("%q: %v", tt.csv, err)
			continue
		}
		if got.ServiceUS != tt.svc || got.ObservedUS != tt.obs {
			t.Errorf("%q: service %d observed %d, want %d %d", tt.csv, got.ServiceUS, got.ObservedUS, tt.svc, tt.obs)
		}
	}
}

// TestQuotedHeaderAfterBOM: a spreadsheet's export, a byte-order mark then
// every cell quoted, semicolons and CRLF, is read like the same file without.
func TestQuotedHeaderAfterBOM(t *testing.T) {
	text := "\ufeff\"Timestamp\";\"Service\";\"Host\";\"Response Time (s)\"\r\n" +
		"\"01.12.26 10:00:00,100\";\"TOUPPER\";\"host1\";\"0,012\"\r\n\"01.12.26 10:00:00,300\";\"TOUPPER\";\"host2\";\"0,020\"\r\n"
	var got []Request
	info, err := Read(text, nil, Options{}, NewNames(testModel()), func(r *Request) { got = append(got, *r) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].TimeUS != 200_000 || got[0].Origin != 0 || got[1].Origin != 1 || got[0].ObservedUS != 12_000 || !info.Observed {
		t.Errorf("rows %+v, info %+v; want 2 rows 200 ms apart from host1 and host2, the first observed 12 ms", got, info)
	}
}

// TestTimesOfDay: a log that writes only the time of day counts from its
// first row, across midnight when a time is more than 12 hours before the
// previous row's: 23:59:59.5, 00:00:00.25 (0.75 s later, the next day),
// 10:00:00 PM (22 h after that midnight: 79 200.5 s from the first row).
func TestTimesOfDay(t *testing.T) {
	var got []int64
	info, err := Read("when,service\n23:59:59.500,TOUPPER\n00:00:00.250,TOUPPER\n10:00:00 PM,TOUPPER\n", nil, Options{},
		NewNames(testModel()), func(r *Request) { got = append(got, r.TimeUS) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 750_000, 79_200_500_000}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("times %v, want %v", got, want)
	}
	if !strings.Contains(info.Note, "times of day") {
		t.Errorf("note %q does not say the times were times of day", info.Note)
	}
	_, err = Read("when,service\n10:00:00,TOUPPER\n10:00,TOUPPER\n", nil, Options{}, NewNames(testModel()), func(*Request) {})
	if err == nil || !strings.Contains(err.Error(), `trace row 2: when: not a time of day (want HH:MM:SS[.fff], as in the first row): "10:00"`) {
		t.Errorf("a time without seconds: got %v", err)
	}
}

// TestInfoColumns: the reading says how each column of the header was
// read, ignored ones included, by its name as written.
func TestInfoColumns(t *testing.T) {
	info, err := Read("Timestamp;Service;Elapsed(ms);Account;Comment\n0;TOUPPER;7;12;x\n", &Columns{Route: "Account"}, Options{}, NewNames(testModel()), func(*Request) {})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Timestamp": "time", "Service": "service", "Elapsed(ms)": "observed", "Account": "route", "Comment": "ignored"}
	if !reflect.DeepEqual(info.Columns, want) {
		t.Errorf("got %v, want %v", info.Columns, want)
	}
	info, err = Read("time_ms,service,service_ms\n0,TOUPPER,1\n", nil, Options{}, NewNames(testModel()), func(*Request) {})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"time_ms": "time", "service": "service", "service_ms": "service_ms"}; !reflect.DeepEqual(info.Columns, want) {
		t.Errorf("the trace format: got %v, want %v", info.Columns, want)
	}
}

// TestStart: the first row's time on the wall clock of the zone the log
// is read in, for a log whose times are dated; none for offsets or times
// of day. Each want is 1 December 2026 at the time beside it.
func TestStart(t *testing.T) {
	dec1 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	hour := int64(3_600_000_000)
	tests := []struct {
		name  string
		csv   string
		cm    *Columns
		want  int64
		dated bool
	}{
		{"a date-time without a zone, read as UTC", "ts,service\n2026-12-01 10:00:00.5,TOUPPER\n", nil, dec1 + 10*hour + 500_000, true},
		// read in Paris, it is still 10:00 on Paris's clock
		{"a date-time without a zone, read in a zone", "ts,service\n2026-12-01 10:00:00,TOUPPER\n", &Columns{TZ: "Europe/Paris"}, dec1 + 10*hour, true},
		// 10:00+01:00 is 09:00 UTC, the clock of a log read as UTC
		{"a zone in the cell", "ts,service\n2026-12-01T10:00:00+01:00,TOUPPER\n", nil, dec1 + 9*hour, true},
		// 1796119200 s is 1 December 2026 10:00 UTC: 11:00 in Paris (winter)
		{"epoch seconds in a zone", "ts,service\n1796119200,TOUPPER\n", &Columns{TZ: "Europe/Paris"}, dec1 + 11*hour, true},
		{"offsets from the start", "time_ms,service\n5,TOUPPER\n", nil, 0, false},
		{"times of day", "ts,service\n10:00:00,TOUPPER\n", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rd, err := NewReader(tt.csv, tt.cm, Options{}, NewNames(testModel()))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := rd.Start(); ok {
				t.Errorf("before a row: dated, want nothing yet")
			}
			var r Request
			if ok, err := rd.Next(&r); !ok || err != nil {
				t.Fatalf("first row: %v, %v", ok, err)
			}
			if got, ok := rd.Start(); got != tt.want || ok != tt.dated {
				t.Errorf("Start = %d, %v; want %d, %v", got, ok, tt.want, tt.dated)
			}
		})
	}
}
