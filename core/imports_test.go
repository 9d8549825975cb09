package core

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// allowedModules are the only modules outside the standard library that core
// may import: pure Go, and fine in WebAssembly.
var allowedModules = []string{
	"github.com/tuxlb/tuxlb/core",
	"github.com/HdrHistogram/hdrhistogram-go",
}

// TestImportsAreStdlibOrAllowed runs go list -deps on core: every dependency
// must be in the standard library or under an allowed module.
func TestImportsAreStdlibOrAllowed(t *testing.T) {
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("runs the go tool (inside WebAssembly there is none: running there is the proof)")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if !allowed(pkg) {
			t.Errorf("core depends on %s: only the standard library and %v are allowed", pkg, allowedModules[1:])
		}
	}
}

func allowed(pkg string) bool {
	for _, m := range allowedModules {
		if pkg == m || strings.HasPrefix(pkg, m+"/") {
			return true
		}
	}
	return false
}

func TestAllowedPrefixIsExact(t *testing.T) {
	tests := []struct {
		pkg  string
		want bool
	}{
		{"github.com/HdrHistogram/hdrhistogram-go", true},
		{"github.com/HdrHistogram/hdrhistogram-go/x", true},
		{"github.com/HdrHistogram/hdrhistogram-gox", false},
		{"github.com/mattn/go-sqlite3", false},
		{"github.com/tuxlb/tuxlb/storage", false},
	}
	for _, tt := range tests {
		if got := allowed(tt.pkg); got != tt.want {
			t.Errorf("allowed(%q) = %v, want %v", tt.pkg, got, tt.want)
		}
	}
}

// TestBuildsForWasm builds core for GOOS=js GOARCH=wasm, as the playground does.
func TestBuildsForWasm(t *testing.T) {
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("runs the go tool (inside WebAssembly there is none: running there is the proof)")
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=js GOARCH=wasm go build ./core: %v\n%s", err, out)
	}
}
