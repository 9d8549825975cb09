package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// budgetUBB is a UBBCONFIG of 10 entries × 1000 instances advertising
// services services each.
func budgetUBB(services int) string {
	var svc []string
	for i := 0; i < services; i++ {
		svc = append(svc, fmt.Sprintf("S%d", i))
	}
	var b strings.Builder
	b.WriteString(`*RESOURCES\nIPCKEY 1\nMASTER s1\nMODEL SHM\n*MACHINES\nh LMID=s1\n*GROUPS\nG LMID=s1 GRPNO=1\n*SERVERS\nDEFAULT: CLOPT=\"-s ` + strings.Join(svc, ",") + ` --\"\n`)
	for e := 0; e < 10; e++ {
		fmt.Fprintf(&b, `srv%d SRVGRP=G SRVID=%d MIN=1000\n`, e, 1+e*1000)
	}
	return b.String()
}

// The CLI is bounded by the same estimate as the server: a run, a sweep,
// a compare or a model over --memory-budget is refused before it is built,
// naming the part that is too large; a log is weighed before it is read.
func TestCLIMemoryBudget(t *testing.T) {
	pairs := writeFile(t, "pairs.json", `{"ubbconfig": "`+budgetUBB(500)+`", "services": {"S0": {"service_time": {"dist": "const", "ms": 1}}},
  "workload": {"trace_csv": "time_ms,service\n0,S0\n"}}`)
	points := writeFile(t, "points.json", `{"ubbconfig": "`+budgetUBB(1)+`", "services": {"S0": {"service_time": {"dist": "const", "ms": 1}}},
  "workload": {"trace_csv": "time_ms,service\n0,S0\n"}}`)
	ubbFile := writeFile(t, "u.ubb", strings.ReplaceAll(strings.ReplaceAll(budgetUBB(1), `\n`, "\n"), `\"`, `"`))
	// a log's rows cost only their observed responses (48 bytes each), its text 7 bytes a row
	trace := writeFile(t, "trace.csv", "time_ms,service,observed_ms\n"+strings.Repeat("1,S0,2\n", 100_000))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--memory-budget", "100M", pairs}, "(ubbconfig): 10000 instances × 500 services each = 5000000 (instance, service) pairs"},
		{[]string{"compare", "--memory-budget", "100M", "--variant", "ldbal=N", pairs}, "2 variants at once × 10000 instances × 500 services each"},
		{[]string{"sweep", "--memory-budget", "1G", "--vary", "rate_scale=1..1000/1", points}, "(vary): 1000 points × a model of 10000 instances"},
		{[]string{"validate", "--memory-budget", "10M", "--ubbconfig", ubbFile}, "than --memory-budget 10.0 MiB"},
		{[]string{"run", "--memory-budget", "1M", "--ubbconfig", ubbFile, "--trace", trace}, "(--trace): " + trace + ": 100001 rows' observed responses"},
	} {
		code, out, errs := mainBounded(t, 60*time.Second, tc.args...)
		if code != 1 || out != "" || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "--memory-budget") {
			t.Errorf("%v: exit %d, stdout %.100q, stderr %q; want 1 and %q", tc.args[:3], code, out, errs, tc.want)
		}
	}
}

// tuxlb validate reads an endless device to a bound of some megabytes, not
// hundreds.
func TestValidateDevZeroBounded(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, _, errs := mainBounded(t, 30*time.Second, "validate", "--ubbconfig", "/dev/zero")
	runtime.ReadMemStats(&after)
	if code != 1 || !strings.Contains(errs, "/dev/zero: larger than 16 MiB") {
		t.Errorf("exit %d, stderr %q; want 1 and the bound named", code, errs)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("reading /dev/zero allocated %d MiB, want at most 64", n>>20)
	}
}

// A TUXLB_MEMORY_BUDGET that is not a size is refused by every command
// that reads it, as serve refuses it: exit 2, naming the variable and the
// form it takes, before anything is read; help is still printed.
func TestCLIMemoryBudgetEnvRefused(t *testing.T) {
	missing := "/nonexistent/x.json"
	for _, v := range []string{"abc", "0", "-5"} {
		t.Setenv("TUXLB_MEMORY_BUDGET", v)
		for _, args := range [][]string{
			{"run", missing},
			{"compare", "--variant", "policy=jsq", missing},
			{"sweep", "--vary", "rate_scale=1", missing},
			{"optimize", "--vary", "rate_scale=1", "--objective", "response_mean_ms<=1", missing},
			{"validate", "--ubbconfig", missing},
			{"calibrate", "--ubbconfig", missing, "--ulog", missing, "--out", filepath.Join(t.TempDir(), "out.json")},
			{"serve", "--addr", "127.0.0.1:0"},
		} {
			code, out, errs := cli(t, args...)
			want := `TUXLB_MEMORY_BUDGET: size "` + v + `": want a positive number of bytes, optionally with K, M or G`
			if code != 2 || out != "" || !strings.Contains(errs, "tuxlb "+args[0]+": "+want) {
				t.Errorf("TUXLB_MEMORY_BUDGET=%s %v: exit %d, stdout %q, stderr %q; want 2 and %q", v, args, code, out, errs, want)
			}
		}
		if code, out, _ := cli(t, "run", "--help"); code != 0 || !strings.Contains(out, "-memory-budget") {
			t.Errorf("TUXLB_MEMORY_BUDGET=%s run --help: exit %d, stdout %.80q; want the usage", v, code, out)
		}
	}
	t.Setenv("TUXLB_MEMORY_BUDGET", "1M") // a size is taken
	if code, _, errs := cli(t, "validate", "--ubbconfig", writeFile(t, "u.ubb", ownUBB)); code != 0 {
		t.Errorf("TUXLB_MEMORY_BUDGET=1M validate: exit %d, stderr %q; want 0", code, errs)
	}
}
