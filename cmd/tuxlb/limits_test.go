package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mainBounded runs Main and fails the test if it does not return within
// limit, so that a regression fails instead of hanging the suite.
func mainBounded(t *testing.T, limit time.Duration, args ...string) (int, string, string) {
	t.Helper()
	type out struct {
		code         int
		stdout, errs string
	}
	done := make(chan out, 1)
	go func() {
		var o, e bytes.Buffer
		code := Main(args, nil, &o, &e)
		done <- out{code, o.String(), e.String()}
	}()
	select {
	case o := <-done:
		return o.code, o.stdout, o.errs
	case <-time.After(limit):
		t.Fatalf("tuxlb %v: did not return within %s", args, limit)
		return 0, "", ""
	}
}

const cliUBB = `*RESOURCES\nIPCKEY 123458\nMASTER SITE1\nMODEL MP\nLDBAL Y\n*MACHINES\nnode1 LMID=SITE1 APPDIR=\"/app\" TUXCONFIG=\"/app/tuxconfig\" TUXDIR=\"/opt/tuxedo\"\n*GROUPS\nGRP1 LMID=SITE1 GRPNO=1\n*SERVERS\nsrv SRVGRP=GRP1 SRVID=1 MIN=4 CLOPT=\"-s BALANCE --\"\n*SERVICES\nBALANCE LOAD=50\n`

// The scenario that once looped forever now ends at once with an error that
// names the fields to change.
func TestRunHangScenarioEnds(t *testing.T) {
	path := writeFile(t, "hang.json", `{"ubbconfig": "`+cliUBB+`",
  "services": {"BALANCE": {"service_time": {"dist": "const", "ms": 1e9}}},
  "machines": {"SITE1": {"speed": 1e-6}},
  "workload": {"generate": {"duration_ms": 100, "streams": [{"service": "BALANCE", "origin": "SITE1", "arrivals": "constant", "rate_per_s": 1000}]}}}`)
	code, out, errs := mainBounded(t, 30*time.Second, "run", path)
	if code != 1 || out != "" || !strings.Contains(errs, "services.BALANCE.service_time: ms 1e+09 ms on machine SITE1 (machines.SITE1.speed 1e-06)") {
		t.Errorf("got exit %d, stdout %q, stderr %q; want 1, nothing, and the fields named", code, out, errs)
	}
}

// --max-run-time stops a run that would take many seconds.
func TestRunMaxRunTime(t *testing.T) {
	path := writeFile(t, "long.json", `{"ubbconfig": "`+cliUBB+`",
  "services": {"BALANCE": {"service_time": {"dist": "exp", "mean_ms": 0.001}}},
  "workload": {"generate": {"duration_ms": 19000, "streams": [{"service": "BALANCE", "origin": "SITE1", "arrivals": "poisson", "rate_per_s": 1000000}]}}}`)
	code, out, errs := mainBounded(t, 60*time.Second, "run", "--max-run-time", "100ms", path)
	if code != 1 || out != "" || !strings.Contains(errs, "the run did not finish within --max-run-time 100ms: run canceled after") {
		t.Errorf("got exit %d, stdout %q, stderr %q; want 1, nothing, and the limit named", code, out, errs)
	}
	code, _, errs = mainBounded(t, 10*time.Second, "run", "--max-run-time", "-1s", path)
	if code != 2 || !strings.Contains(errs, "--max-run-time: -1s is negative") {
		t.Errorf("negative limit: got exit %d, stderr %q; want 2 and the flag named", code, errs)
	}
}

// A failed run never removes a file it did not create: an existing
// --dispatch file stays as it was; a successful run replaces it whole.
func TestRunDispatchKeepsUsersFile(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep.csv")
	if err := os.WriteFile(keep, []byte("precious\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	bad := writeFile(t, "bad.json", `{"ubbconfig": "`+cliUBB+`", "workload": {"trace_csv": "time_ms,service\n0,NOPE\n"}}`)
	if code, _, errs := mainBounded(t, 30*time.Second, "run", "--dispatch", keep, bad); code != 1 {
		t.Fatalf("bad scenario: exit %d (%s), want 1", code, errs)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "precious\n" {
		t.Errorf("after a failed run keep.csv holds %q (%v), want it untouched", b, err)
	}
	good := writeFile(t, "good.json", `{"ubbconfig": "`+cliUBB+`", "services": {"BALANCE": {"service_time": {"dist": "const", "ms": 1}}},
  "workload": {"trace_csv": "time_ms,service\n0,BALANCE\n"}}`)
	if code, _, errs := mainBounded(t, 30*time.Second, "run", "--dispatch", keep, good); code != 0 {
		t.Fatalf("good scenario: exit %d (%s), want 0", code, errs)
	}
	b, _ := os.ReadFile(keep)
	if !strings.HasPrefix(string(b), "id,service,origin,") || strings.Contains(string(b), "precious") {
		t.Errorf("after a good run keep.csv holds %q, want the dispatch log alone", b)
	}
	if fi, _ := os.Stat(keep); fi.Mode().Perm() != 0o640 {
		t.Errorf("keep.csv mode %v, want its own 0640 kept", fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".keep.csv.*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// An output file that cannot be written is named as the user gave it, not
// by the temporary file beside it that the command writes first.
func TestRunDispatchErrorNamesTheFile(t *testing.T) {
	good := writeFile(t, "good.json", `{"ubbconfig": "`+cliUBB+`", "services": {"BALANCE": {"service_time": {"dist": "const", "ms": 1}}},
  "workload": {"trace_csv": "time_ms,service\n0,BALANCE\n"}}`)
	missing := filepath.Join(t.TempDir(), "nodir", "x.csv")
	code, out, errs := mainBounded(t, 30*time.Second, "run", "--dispatch", missing, good)
	if want := "tuxlb run: --dispatch: open " + missing + ": no such file or directory\n"; code != 1 || out != "" || errs != want {
		t.Errorf("--dispatch in a missing directory: exit %d, stdout %.80q, stderr %q; want 1 and %q", code, out, errs, want)
	}
	// the rename over the user's path fails: a directory with a file in it is there by then
	dir := t.TempDir()
	path := filepath.Join(dir, "x.csv")
	o, err := createOutput(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = o.commit()
	if err == nil || !strings.HasPrefix(err.Error(), "rename "+path+": ") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("commit over a directory: %v; want the rename of %s named alone", err, path)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".x.csv.*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// tuxlb validate reads a configuration within a bound: /dev/zero is an
// error naming the file, not a process that grows without end.
func TestValidateEndlessFile(t *testing.T) {
	old := maxConfigBytes
	maxConfigBytes = 1 << 20
	defer func() { maxConfigBytes = old }()
	for _, args := range [][]string{{"validate", "--ubbconfig", "/dev/zero"},
		{"validate", "--ubbconfig", writeFile(t, "u.ubb", goodUBB), "--dmconfig", "/dev/zero"}} {
		code, out, errs := mainBounded(t, 30*time.Second, args...)
		if code != 1 || out != "" || !strings.Contains(errs, "/dev/zero: larger than 1 MiB") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and the file named", args, code, out, errs)
		}
	}
}
