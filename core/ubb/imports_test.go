package ubb

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestImportsOnlyStdlib runs go list -deps on the package: every dependency
// must be in the standard library, so that the reader can be used (and
// reviewed) on its own, and nothing of core leaks back into it.
func TestImportsOnlyStdlib(t *testing.T) {
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("runs the go tool (inside WebAssembly there is none)")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg != "github.com/tuxlb/tuxlb/core/ubb" {
			t.Errorf("ubb depends on %s: only the standard library is allowed", pkg)
		}
	}
}

// TestBuildsForWasm builds the package for GOOS=js GOARCH=wasm, as the playground does.
func TestBuildsForWasm(t *testing.T) {
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("runs the go tool (inside WebAssembly there is none: running there is the proof)")
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=js GOARCH=wasm go build ./core/ubb: %v\n%s", err, out)
	}
}
