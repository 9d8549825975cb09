package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestShardsMergeEqualsSweep runs a sweep unsharded and as three shards
// with the real binary, merges the three partials (given out of order) and
// compares the bytes with the unsharded sweep's, in every format.
func TestShardsMergeEqualsSweep(t *testing.T) {
	bin := binaryPath(t)
	dir := t.TempDir()
	args := []string{"sweep", filepath.Join(repoRoot(t), "examples", "mp-netload.json"),
		"--vary", "rate_scale=0.5..1/0.25", "--vary", "policy=tuxedo,jsq",
		"--replications", "3", "--objective", "response_p99_ms<=100", "--jobs", "2"}
	run := func(args ...string) []byte {
		t.Helper()
		var out, errb bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("tuxlb %s: %v\n%s", strings.Join(args, " "), err, errb.String())
		}
		return out.Bytes()
	}
	var parts []string
	for _, s := range []string{"1/3", "2/3", "3/3"} {
		p := filepath.Join(dir, "part-"+s[:1]+".json")
		if err := os.WriteFile(p, run(append(args, "--shard", s)...), 0o644); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	shuffled := []string{parts[2], parts[0], parts[1]}
	for _, format := range []string{"json", "csv", "table"} {
		want := run(append(args, "--format", format)...)
		got := run(append([]string{"sweep", "merge", "--format", format}, shuffled...)...)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the merge of three shards differs from the sweep:\n%s\n---\n%s", format, got, want)
		}
	}

	// Two shards only: the merge names the missing one.
	cmd := exec.Command(bin, "sweep", "merge", parts[0], parts[2])
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "missing shard 2 of 3") {
		t.Errorf("merge of shards 1 and 3: err %v, output %s; want a refusal naming shard 2", err, out)
	}
}
