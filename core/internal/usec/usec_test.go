package usec

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestParseMS(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{"1.0005", 1001, ""},
		{"1.00049999", 1000, ""},
		{"-1.0005", -1001, ""},
		{"0", 0, ""},
		{"0.0005", 1, ""},
		{"0.00049", 0, ""},
		{"0.0004", 0, ""},
		{".5", 500, ""},
		{"5.", 5000, ""},
		{"+3", 3000, ""},
		{" 2.5 ", 2500, ""},
		{"1e3", 1_000_000, ""},
		{"1.5E-3", 2, ""},
		{"2.5e-4", 0, ""},
		{"1000.0004999999999999999999", 1_000_000, ""},
		{"000012.3456", 12346, ""},
		{"999999999.9995", Max, ""},
		{"1e9", Max, ""},
		{"1000000000.001", 0, "too large"},
		{"1e10", 0, "too large"},
		{"123456789012345678901234567890", 0, "too large"},
		{"", 0, "not a number"},
		{"abc", 0, "not a number"},
		{"1.2.3", 0, "not a number"},
		{".", 0, "not a number"},
		{"-", 0, "not a number"},
		{"1e", 0, "not a number"},
		{"NaN", 0, "not a number"},
		{"0x10", 0, "not a number"},
		{"1,5", 0, "not a number"},
	}
	for _, tt := range tests {
		got, err := ParseMS(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Errorf("MSToUS(%q) = %d, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("MSToUS(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestDecimalUnits(t *testing.T) {
	tests := []struct {
		in    string
		shift int
		want  int64
	}{
		{"1.5", 6, 1_500_000},  // seconds
		{"0.0000005", 6, 1},    // half a microsecond, away from zero
		{"0.0000004999", 6, 0}, // just under half
		{"12.5", 0, 13},        // microseconds
		{"-12.5", 0, -13},
		{"7", 0, 7},
	}
	for _, tt := range tests {
		if got, err := Parse(tt.in, tt.shift); err != nil || got != tt.want {
			t.Errorf("Parse(%q, %d) = %d, %v; want %d", tt.in, tt.shift, got, err, tt.want)
		}
	}
}

func TestFromMSValueIsExactForJSONNumbers(t *testing.T) {
	// float64(1.0005)*1000 is 1000.4999999999999 in binary; the decimal route
	// sees 1000.5 and rounds it away from zero, as the text says.
	tests := []struct {
		in   float64
		want int64
	}{
		{1.0005, 1001},
		{2.0005, 2001},
		{0.0015, 2},
		{1.5, 1500},
		{1e-7, 0},
		{123456.7894, 123456789},
		{1e9, Max},
	}
	for _, tt := range tests {
		if got, err := FromMSValue(tt.in); err != nil || got != tt.want {
			t.Errorf("FromMSValue(%v) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	if _, err := FromMSValue(math.NaN()); err == nil {
		t.Errorf("FromMSValue(NaN): got no error, want one")
	}
}

func TestFromMS(t *testing.T) {
	tests := []struct {
		in   float64
		want int64
	}{
		{0.125, 125},
		{0.0625, 63}, // 62.5 rounds away from zero
		{-0.0625, -63},
		{3.9999, 4000},
		{0, 0},
		{math.NaN(), 0},
		{1e20, Max},
		{-1e20, -Max},
	}
	for _, tt := range tests {
		if got := FromMS(tt.in); got != tt.want {
			t.Errorf("MSFloatToUS(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestFromMSMatchesRound checks the cheap rounding of FromMS against
// its definition, math.Round(ms*1000) clamped to [-Max, Max] (0
// for NaN), on the edges (halves, the doubles next to them, the clamps,
// infinities) and on random values of every magnitude.
func TestFromMSMatchesRound(t *testing.T) {
	ref := func(ms float64) int64 {
		us := math.Round(float64(ms * 1000))
		switch {
		case math.IsNaN(us):
			return 0
		case us > Max:
			return Max
		case us < -Max:
			return -Max
		}
		return int64(us)
	}
	// msFor returns the ms nearest x/1000 whose ms*1000 is x, when there is one.
	msFor := func(x float64) (float64, bool) {
		ms := x / 1000
		for range 8 {
			switch p := float64(ms * 1000); {
			case p == x:
				return ms, true
			case p < x:
				ms = math.Nextafter(ms, math.Inf(1))
			default:
				ms = math.Nextafter(ms, math.Inf(-1))
			}
		}
		return 0, false
	}
	var in []float64
	for _, x := range []float64{0, 0.5, 1.5, 2.5, 1e3 + 0.5, 1<<39 + 0.5, Max - 0.5, Max, Max + 0.5, 1 << 52, 1 << 53} {
		for _, v := range []float64{x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1))} {
			for _, v := range []float64{v, -v} {
				if ms, ok := msFor(v); ok {
					in = append(in, ms)
				}
			}
		}
	}
	if len(in) < 50 {
		t.Fatalf("only %d edge values have an exact ms, want most of 66", len(in))
	}
	in = append(in, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 5e-324)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		v := math.Ldexp(rng.Float64(), rng.IntN(100)-40) // 2^-40 .. 2^59 ms
		if rng.IntN(2) == 0 {
			v = -v
		}
		in = append(in, v)
		if math.Abs(v) < 1<<40 {
			in = append(in, float64(int64(v*2000))/2000) // a multiple of half a microsecond
		}
	}
	for _, ms := range in {
		if got, want := FromMS(ms), ref(ms); got != want {
			t.Errorf("FromMS(%v): got %d, want %d", ms, got, want)
		}
	}
}

// ParseMS works on the decimal digits, so half a microsecond always rounds
// away from zero, however the value would look in binary.
func TestParseMSRoundsDecimalHalfAway(t *testing.T) {
	for _, tt := range []struct {
		ms   string
		want int64
	}{{"1.0005", 1001}, {"2.5e-3", 3}, {"-0.0005", -1}, {"12", 12000}} {
		if got, err := ParseMS(tt.ms); err != nil || got != tt.want {
			t.Errorf("ParseMS(%q) = %d, %v; want %d", tt.ms, got, err, tt.want)
		}
	}
}

// FuzzParseMS checks ParseMS against strconv on plain decimals: the result is
// within half a microsecond of the parsed value.
func FuzzParseMS(f *testing.F) {
	for _, s := range []string{"1.0005", "0", "-2.5e-3", "999999999.9995", "1e-400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		us, err := ParseMS(s)
		if err != nil {
			return
		}
		v, perr := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if perr != nil {
			t.Fatalf("ParseMS(%q) = %d, but strconv cannot read it: %v", s, us, perr)
		}
		if d := float64(us) - v*1000; d > 0.5000001 || d < -0.5000001 {
			if v*1000 < 1e12 && v*1000 > -1e12 {
				t.Fatalf("ParseMS(%q) = %d, want within 0.5 of %v", s, us, v*1000)
			}
		}
	})
}

func TestToMS(t *testing.T) {
	for _, c := range []struct {
		us   int64
		want float64
	}{{0, 0}, {1, 0.001}, {1500, 1.5}, {-2, -0.002}, {Max, 1e9}} {
		if got := ToMS(c.us); got != c.want {
			t.Errorf("ToMS(%d) = %v, want %v", c.us, got, c.want)
		}
	}
	for _, c := range [][2]float64{{1.0000004, 1}, {1.0000006, 1.000001}, {2.5e-7, 0}, {math.NaN(), 0}, {math.Inf(1), 0}, {math.Inf(-1), 0}} {
		if got := Round6(c[0]); got != c[1] {
			t.Errorf("Round6(%v) = %v, want %v", c[0], got, c[1])
		}
	}
}
