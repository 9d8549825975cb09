package trace

import (
	"strings"
	"testing"
	"time"
)

// TestZoneAgainstGo compares the offsets of zones whose rules have not
// changed since 2020 with the time package's (which reads the tz database's
// transitions), every 37 minutes over 2020..2030, and the local-to-UTC
// conversion of every such wall-clock time outside the changes' hours.
func TestZoneAgainstGo(t *testing.T) {
	for _, name := range []string{"Europe/Paris", "America/New_York", "Australia/Sydney", "Asia/Tokyo", "Asia/Kolkata", "Pacific/Auckland", "Europe/London", "America/Sao_Paulo"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Skipf("no tz database: %v", err)
		}
		z, err := LoadZone(name)
		if err != nil {
			t.Fatal(err)
		}
		from := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
		to := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
		bad := 0
		for u := from; u < to && bad < 5; u += 37 * 60 {
			_, want := time.Unix(u, 0).In(loc).Zone()
			if got := z.offsetAt(u); got != int64(want) {
				t.Errorf("%s at %s: offset %d, want %d", name, time.Unix(u, 0).UTC(), got, want)
				bad++
				continue
			}
			local := u + int64(want)
			if back, _ := z.toUTC(local, u); back != u {
				t.Errorf("%s: local %s read as %s, want %s", name, time.Unix(local, 0).UTC(), time.Unix(back, 0).UTC(), time.Unix(u, 0).UTC())
				bad++
			}
		}
	}
}

// TestZoneChanges works the two changes of Europe/Paris in 2026 by hand:
// summer time starts Sunday 29 March at 02:00 CET (01:00 UTC) and ends
// Sunday 25 October at 03:00 CEST (01:00 UTC).
func TestZoneChanges(t *testing.T) {
	z, err := LoadZone("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	at := func(mo, d, h, mi int) int64 { return daysFromCivil(2026, mo, d)*86400 + int64(h*3600+mi*60) }
	tests := []struct {
		name             string
		local, notBefore int64
		want             int64
		kind             int
	}{
		{"winter", at(1, 15, 10, 0), 0, at(1, 15, 9, 0), localPlain},
		{"summer", at(7, 1, 10, 0), 0, at(7, 1, 8, 0), localPlain},
		{"just before the spring change", at(3, 29, 1, 59), 0, at(3, 29, 0, 59), localPlain},
		{"in the skipped hour: no instant (read with CET)", at(3, 29, 2, 30), 0, at(3, 29, 1, 30), localSkipped},
		{"just after the spring change", at(3, 29, 3, 0), 0, at(3, 29, 1, 0), localPlain},
		{"repeated hour: the earlier instant (CEST)", at(10, 25, 2, 30), 0, at(10, 25, 0, 30), localRepeat},
		{"repeated hour after a later row: the later instant (CET)", at(10, 25, 2, 10), at(10, 25, 0, 50), at(10, 25, 1, 10), localRepeat},
		{"after the autumn change", at(10, 25, 3, 0), 0, at(10, 25, 2, 0), localPlain},
	}
	for _, tt := range tests {
		if got, kind := z.toUTC(tt.local, tt.notBefore); got != tt.want || kind != tt.kind {
			t.Errorf("%s: %d (kind %d), want %d (kind %d; off by %d s)", tt.name, got, kind, tt.want, tt.kind, got-tt.want)
		}
	}
}

func TestLoadZone(t *testing.T) {
	for _, tt := range []struct {
		name string
		off  int64 // standard offset, seconds east
		err  string
	}{
		{"UTC", 0, ""},
		{"+02:00", 7200, ""},
		{"-0530", -19800, ""},
		{"UTC+1", 3600, ""},
		{"Asia/Tokyo", 9 * 3600, ""},
		{"CET-1CEST,M3.5.0,M10.5.0/3", 3600, ""},
		{"europe/paris", 0, `unknown zone "europe/paris" (zone names are case-sensitive: did you mean Europe/Paris?)`},
		{"Mars/Olympus", 0, `unknown zone "Mars/Olympus"`},
		{"+14:00", 14 * 3600, ""},
		// POSIX's UTC+99 is 99 hours west: no zone is that far
		{"UTC+99", 0, `workload.columns.tz: "UTC+99" is UTC-99, more than the 14 hours from UTC of any zone`},
		{"+15:00", 0, `unknown zone "+15:00"`},
		// past 14 hours by its minutes
		{"+14:01", 0, `workload.columns.tz: "+14:01" is UTC+14:01, more than the 14 hours from UTC of any zone`},
		{"UTC-14:59", 0, `workload.columns.tz: "UTC-14:59" is UTC-14:59, more than the 14 hours`},
		{"-14:00", -14 * 3600, ""},
		{"CET-15CEST", 0, `"CET-15CEST" is UTC+15,`},
	} {
		z, err := LoadZone(tt.name)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case z.std != tt.off:
			t.Errorf("%s: offset %d, want %d", tt.name, z.std, tt.off)
		}
	}
}

// A local time the change to summer time skips names no instant: its row
// is an error naming it (skipped and counted with SkipBad); times of the
// hour the change back repeats are read by the stated rule and the note
// says how many there were and where the first was.
func TestZoneGapAndRepeat(t *testing.T) {
	cm := &Columns{TZ: "Europe/Paris"}
	gap := "ts,service\n2026-03-29 01:59:00,TOUPPER\n2026-03-29 02:30:00,TOUPPER\n2026-03-29 03:01:00,TOUPPER\n"
	_, err := Read(gap, cm, Options{}, NewNames(testModel()), func(*Request) {})
	if err == nil || !strings.Contains(err.Error(), "trace row 2: ts:") || !strings.Contains(err.Error(), `"2026-03-29 02:30:00" is no time in Europe/Paris`) ||
		!strings.HasSuffix(err.Error(), "or read the log in the zone it was written in (tz)") {
		t.Errorf("a time in the skipped hour: got %v, want an error naming row 2, with its advice whole", err)
	}
	var times []int64
	info, err := Read(gap, cm, Options{SkipBad: true}, NewNames(testModel()), func(r *Request) { times = append(times, r.TimeUS) })
	if err != nil || info.Skipped != 1 || len(times) != 2 || times[1] != 120_000_000 {
		t.Errorf("skipping it: err %v, skipped %d, times %v; want 1 skipped and 01:59 CET to 03:01 CEST 2 min apart", err, info.Skipped, times)
	}
	// 02:10 CEST (00:10Z), 02:50 CEST (00:50Z), then 02:20 again: before
	// the row before it read as CEST, so CET (01:20Z), 70 min after 00:10Z
	repeat := "ts,service\n2026-10-25 02:10:00,TOUPPER\n2026-10-25 02:50:00,TOUPPER\n2026-10-25 02:20:00,TOUPPER\n"
	times = nil
	info, err = Read(repeat, cm, Options{}, NewNames(testModel()), func(r *Request) { times = append(times, r.TimeUS) })
	if err != nil || len(times) != 3 || times[1] != 40*60_000_000 || times[2] != 70*60_000_000 {
		t.Fatalf("the repeated hour: err %v, times %v; want 0, 40 min, 70 min", err, times)
	}
	if want := `3 times fell in an hour the change back from summer time repeats (the first: row 1, "2026-10-25 02:10:00")`; !strings.Contains(info.Note, want) {
		t.Errorf("note %q, want %q", info.Note, want)
	}
}
