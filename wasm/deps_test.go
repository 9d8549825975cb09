package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestFirstModuleLeavesOut: tuxlb.wasm, the module every visit downloads,
// built as `go tool task wasm` builds it, has no function of math/big (the
// sweep keys have their own exact arithmetic) nor of what only fit, the
// sweeps and optimize need (the ULOG reader, the fitter, a sweep's
// compiler, reducer and tables, the selection procedure): those are
// wasm/tools', fetched when first asked for. Each would add tens
// of KB of brotli to the first download. Function names stay in a module
// built without its symbol table (tracebacks print them), so the test
// looks for them in the bytes.
func TestFirstModuleLeavesOut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the WebAssembly module")
	}
	out := filepath.Join(t.TempDir(), "tuxlb.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=js GOARCH=wasm go build ./wasm: %v\n%s", err, b)
	}
	bin, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(bin, []byte("github.com/tuxlb/tuxlb/core.(*engine).steps")) {
		t.Fatal("the module names no engine function: the test cannot see names")
	}
	// (core/fit's package initializer comes with core/starter, which the
	// first module uses for files and adapt; its functions do not)
	for _, fn := range []string{"math/big.", "github.com/tuxlb/tuxlb/core/ulog.", "github.com/tuxlb/tuxlb/core/fit.FitWith",
		"github.com/tuxlb/tuxlb/core/starter.Fit", "github.com/tuxlb/tuxlb/core/sweep.Select", "github.com/tuxlb/tuxlb/core/sweep.Compile",
		"github.com/tuxlb/tuxlb/core/sweep.(*Reducer)", "github.com/tuxlb/tuxlb/core/sweep.Encode"} {
		if bytes.Contains(bin, []byte(fn)) {
			t.Errorf("the first module has %s...", fn)
		}
	}
}
