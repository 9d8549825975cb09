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
			if back := z.toUTC(local, u); back != u {
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
	}{
		{"winter", at(1, 15, 10, 0), 0, at(1, 15, 9, 0)},
		{"summer", at(7, 1, 10, 0), 0, at(7, 1, 8, 0)},
		{"just before the spring change", at(3, 29, 1, 59), 0, at(3, 29, 0, 59)},
		{"in the skipped hour: the offset before (CET)", at(3, 29, 2, 30), 0, at(3, 29, 1, 30)},
		{"just after the spring change", at(3, 29, 3, 0), 0, at(3, 29, 1, 0)},
		{"repeated hour: the earlier instant (CEST)", at(10, 25, 2, 30), 0, at(10, 25, 0, 30)},
		{"repeated hour after a later row: the later instant (CET)", at(10, 25, 2, 10), at(10, 25, 0, 50), at(10, 25, 1, 10)},
		{"after the autumn change", at(10, 25, 3, 0), 0, at(10, 25, 2, 0)},
	}
	for _, tt := range tests {
		if got := z.toUTC(tt.local, tt.notBefore); got != tt.want {
			t.Errorf("%s: %d, want %d (off by %d s)", tt.name, got, tt.want, got-tt.want)
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
