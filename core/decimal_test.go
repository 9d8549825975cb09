package core

import (
	"math"
	"strings"
	"testing"
)

func TestMSToUS(t *testing.T) {
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
		{"999999999.9995", MaxTimeUS, ""},
		{"1e9", MaxTimeUS, ""},
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
		got, err := msToUS(tt.in)
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
		if got, err := decimalToUS(tt.in, tt.shift); err != nil || got != tt.want {
			t.Errorf("decimalToUS(%q, %d) = %d, %v; want %d", tt.in, tt.shift, got, err, tt.want)
		}
	}
}

func TestMSValueToUSIsExactForJSONNumbers(t *testing.T) {
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
		{1e9, MaxTimeUS},
	}
	for _, tt := range tests {
		if got, err := msValueToUS(tt.in); err != nil || got != tt.want {
			t.Errorf("msValueToUS(%v) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	if _, err := msValueToUS(math.NaN()); err == nil {
		t.Errorf("msValueToUS(NaN): got no error, want one")
	}
}

func TestMSFloatToUS(t *testing.T) {
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
		{1e20, MaxTimeUS},
		{-1e20, -MaxTimeUS},
	}
	for _, tt := range tests {
		if got := msFloatToUS(tt.in); got != tt.want {
			t.Errorf("MSFloatToUS(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
