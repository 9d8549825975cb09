package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tuxlb/tuxlb/core"
)

// decodeError reads the {"error": {...}} answer the bridge gives JavaScript.
func decodeError(t *testing.T, answer string) core.Error {
	t.Helper()
	var v struct {
		Error *core.Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(answer), &v); err != nil {
		t.Fatalf("answer %q is not JSON: %v", answer, err)
	}
	if v.Error == nil {
		t.Fatalf("answer %q has no error", answer)
	}
	return *v.Error
}

func TestErrorJSON(t *testing.T) {
	diag := core.Diagnostic{File: "UBBCONFIG", Line: 3, Col: 7, Severity: "error", Message: `unexpected "Y"`}
	tests := []struct {
		name      string
		err       error
		wantCode  string
		wantMsg   string
		wantDiags int
	}{
		{"core error with diagnostics", core.ConfigError(diag), core.EINVALID, "UBBCONFIG:3:7: unexpected \"Y\"", 1},
		{"wrapped core error", fmt.Errorf("run: %w", core.Errorf(core.ECANCELED, "stopped")), core.ECANCELED, "stopped", 0},
		{"plain error", fmt.Errorf("boom"), core.EINTERNAL, "boom", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeError(t, errorJSON(tt.err))
			if got.Code != tt.wantCode || got.Message != tt.wantMsg || len(got.Diagnostics) != tt.wantDiags {
				t.Errorf("got {%s, %q, %d diagnostics}, want {%s, %q, %d}", got.Code, got.Message, len(got.Diagnostics), tt.wantCode, tt.wantMsg, tt.wantDiags)
			}
		})
	}
	got := decodeError(t, errorJSON(core.ConfigError(diag)))
	if got.Diagnostics[0] != diag {
		t.Errorf("diagnostic: got %+v, want %+v", got.Diagnostics[0], diag)
	}
}

func TestRunOptionsSeed(t *testing.T) {
	tests := []struct {
		seed    string
		want    *uint64
		wantErr bool
	}{
		{"", nil, false},
		{"0", ptr(uint64(0)), false},
		{"18446744073709551615", ptr(uint64(18446744073709551615)), false},
		{"-1", nil, true},
		{"1.5", nil, true},
		{"seven", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.seed, func(t *testing.T) {
			ro, err := options{Seed: tt.seed, Policy: "jsq"}.runOptions()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				if core.ErrorCode(err) != core.EINVALID {
					t.Errorf("code %q, want %q", core.ErrorCode(err), core.EINVALID)
				}
				return
			}
			if ro.Policy != "jsq" {
				t.Errorf("policy %q, want jsq", ro.Policy)
			}
			switch {
			case tt.want == nil && ro.Seed != nil:
				t.Errorf("seed %d, want none", *ro.Seed)
			case tt.want != nil && (ro.Seed == nil || *ro.Seed != *tt.want):
				t.Errorf("seed %v, want %d", ro.Seed, *tt.want)
			}
		})
	}
}

func TestValidateBadAdvertise(t *testing.T) {
	got := decodeError(t, validate("*RESOURCES\n", "", "{not json"))
	if got.Code != core.EINVALID {
		t.Errorf("code %q, want %q", got.Code, core.EINVALID)
	}
}

func TestVersion(t *testing.T) {
	var v map[string]string
	if err := json.Unmarshal([]byte(versionString()), &v); err != nil {
		t.Fatal(err)
	}
	if v["engine_version"] != core.EngineVersion {
		t.Errorf("engine_version %q, want %q", v["engine_version"], core.EngineVersion)
	}
}

func ptr[T any](v T) *T { return &v }
