package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1024", 1024, true}, {"2K", 2048, true}, {"10M", 10 << 20, true}, {"10MiB", 10 << 20, true},
		{"1g", 1 << 30, true}, {"3KB", 3072, true},
		{"", 0, false}, {"0", 0, false}, {"-5", 0, false}, {"ten", 0, false}, {"5T", 0, false},
		{"99999999999G", 0, false},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseSize(%q) got %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestSplitList(t *testing.T) {
	got := splitList(" https://a.example, ,https://b.example,")
	if strings.Join(got, "|") != "https://a.example|https://b.example" {
		t.Errorf("got %q, want the two origins", got)
	}
	if got := splitList(""); got != nil {
		t.Errorf("empty list got %q, want nil", got)
	}
}

func TestServeFlagErrors(t *testing.T) {
	tests := []struct {
		env  [2]string
		args []string
		want string
	}{
		{[2]string{"TUXLB_MAX_REQUESTS", "many"}, nil, "TUXLB_MAX_REQUESTS"},
		{[2]string{"TUXLB_MAX_RUN_TIME", "1 minute"}, nil, "TUXLB_MAX_RUN_TIME"},
		{[2]string{"TUXLB_MAX_BODY", "0"}, nil, "TUXLB_MAX_BODY"},
		{[2]string{"TUXLB_SWEEP_LEASE", "5"}, nil, "TUXLB_SWEEP_LEASE"},
		{[2]string{}, []string{"--sweep-lease", "0s"}, "limits must be positive"},
		{[2]string{}, []string{"--max-body", "lots"}, "max-body"},
		{[2]string{}, []string{"--max-requests", "-1"}, "limits must be positive"},
		{[2]string{}, []string{"extra-arg"}, "no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if tt.env[0] != "" {
				t.Setenv(tt.env[0], tt.env[1])
			}
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"serve"}, tt.args...), nil, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("env %v args %v: exit %d, stderr %q; want 2 mentioning %q", tt.env, tt.args, code, stderr.String(), tt.want)
			}
		})
	}
}
