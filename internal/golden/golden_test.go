package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that keeps the failure instead of stopping.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = format
	panic(r)
}

func check(t *testing.T, path string, got []byte, update bool) (failed string) {
	r := &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil && v != r {
			panic(v)
		}
		failed = r.failed
	}()
	Check(r, path, got, update)
	return ""
}

// TestCheck: -update writes the file, the same bytes pass, a changed line
// fails naming it, a missing file fails asking for -update.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	if f := check(t, path, []byte("a\nb\n"), false); f == "" {
		t.Errorf("a missing file passed")
	}
	if f := check(t, path, []byte("a\nb\n"), true); f != "" {
		t.Fatalf("update failed: %s", f)
	}
	if b, _ := os.ReadFile(path); string(b) != "a\nb\n" {
		t.Errorf("written %q", b)
	}
	if f := check(t, path, []byte("a\nb\n"), false); f != "" {
		t.Errorf("the same bytes failed: %s", f)
	}
	if f := check(t, path, []byte("a\nc\n"), false); f == "" || f[:len("%s differs at line")] != "%s differs at line" {
		t.Errorf("a changed line: %q", f)
	}
	if f := check(t, path, []byte("a\nb\n\n"), false); f != "%s differs in length: got %d lines, want %d" {
		t.Errorf("a longer output: %q", f)
	}
}
