package ubb

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// besides are the packages of the module ubb may depend on: core/diag, the
// positioned diagnostic its reader fills, and the two leaves diag stands on.
var besides = map[string]bool{
	"github.com/tuxlb/tuxlb/core/ubb":             true,
	"github.com/tuxlb/tuxlb/core/diag":            true,
	"github.com/tuxlb/tuxlb/core/internal/capped": true,
	"github.com/tuxlb/tuxlb/core/internal/jsonx":  true,
}

// TestImportsOnlyStdlib runs go list -deps on the package: every dependency
// must be in the standard library or besides, so that the reader can be used
// (and reviewed) on its own, and nothing of core leaks back into it.
func TestImportsOnlyStdlib(t *testing.T) {
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("runs the go tool (inside WebAssembly there is none)")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if !besides[pkg] {
			t.Errorf("ubb depends on %s: only the standard library and core/diag are allowed", pkg)
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
