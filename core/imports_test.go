package core

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
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
	t.Parallel()
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

// The layers of the packages under core. Each leaf below core imports the
// standard library and the leaves listed for it (lower down) only; core
// imports the leaves; the packages above core (core/sweep, core/starter,
// core/tmadmin) import core and the leaves, never one another. Nothing
// under core imports a module outside the standard library (core's tests
// may import allowedModules).
const module = "github.com/tuxlb/tuxlb"

// leaves lists, for each package below core, the packages of the module
// (other than core/internal/..., which all but core/ubb may import) it
// may import. core/diag, the positioned diagnostic and the error
// vocabulary, is the lowest: the readers above it fill it; core/ubb, the
// model, imports it alone.
var leaves = map[string][]string{
	"diag":       {},
	"ubb":        {"diag"},
	"scenario":   {},
	"fit":        {},
	"ulog":       {},
	"psc":        {},
	"warmup":     {},
	"timeseries": {"ubb", "result"},
	"explain":    {"result", "plan"},
	"batchmeans": {"workload", "result"}, // a validation row is the result's
	"wsconnect":  {"ubb", "plan"},
	"trace":      {"ubb", "diag"},
	"admission":  {"scenario", "ubb", "dist"},
	"dist":       {"scenario", "diag"},
	"workload":   {"ubb", "scenario", "trace", "diag", "dist"},
	"result":     {"ubb", "scenario", "diag"},
	"plan":       {"ubb", "scenario", "diag", "dist", "workload"},
	"records":    {"result"}, // the API's records: server and storage meet here
	// the leaves under core/internal import the others there, and these
	"internal/vocab":     {"diag"},   // a vocabulary's parse error is a domain error
	"internal/fixture":   {"ubb"},    // the tests' hand-built model
	"internal/hist":      {"result"}, // a distribution's figures are the result's Summary and Histogram
	"internal/donecount": {"ubb"},    // sized by the Model's servers and what they advertise
	"internal/dlog":      {},         // the dispatch log's rows: plain values, the names as strings
	"internal/evq":       {},         // the completions' heap, the arrivals' FIFO, the clients' calendar
	"internal/life":      {},         // the life cycle's causes and work items (and internal/vocab)
	"internal/deque":     {},         // a /Q queue's messages, the dispatch log's requests in flight
	"internal/costtree":  {},         // the least-cost trees
	"internal/msgq":      {"result"}, // the /Q queues' messages and figures
}

// aboveOnly are the leaves core itself does not import: only the packages
// above it use them.
var aboveOnly = map[string]bool{"fit": true, "ulog": true, "psc": true, "admission": true, "records": true}

// mayImport says whether the package pkg under core may import imp, a
// package of the module.
func mayImport(pkg, imp string) bool {
	if strings.HasPrefix(imp, module+"/core/internal/") {
		return pkg != module+"/core/ubb"
	}
	name := strings.TrimPrefix(imp, module+"/core/")
	if l, ok := leaves[strings.TrimPrefix(pkg, module+"/core/")]; ok || strings.HasPrefix(pkg, module+"/core/internal/") {
		return slices.Contains(l, name)
	}
	_, leaf := leaves[name]
	if pkg == module+"/core" {
		return leaf && !aboveOnly[name]
	}
	return leaf || imp == module+"/core" // above core
}

// impure are the standard packages no package under core imports: core is
// pure (no files, no processes, no network, no global randomness), and so
// is what it stands on and what is built on it to be embedded.
var impure = map[string]bool{"os": true, "os/exec": true, "net": true, "net/http": true, "syscall": true,
	"math/rand": true, "math/rand/v2": true, "crypto/rand": true}

// TestLayers checks every import of every package under core (the
// packages, not their tests) against mayImport and impure.
func TestLayers(t *testing.T) {
	t.Parallel()
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("runs the go tool (inside WebAssembly there is none)")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := f[0]
		seen++
		for _, imp := range f[1:] {
			switch {
			case strings.HasPrefix(imp, module+"/"):
				if !mayImport(pkg, imp) {
					t.Errorf("%s imports %s: against the layers (see mayImport)", pkg, imp)
				}
			case strings.Contains(strings.Split(imp, "/")[0], "."):
				t.Errorf("%s imports %s: only the standard library is allowed", pkg, imp)
			case impure[imp]:
				t.Errorf("%s imports %s: the packages under core are pure", pkg, imp)
			}
		}
	}
	if seen < 10 {
		t.Errorf("go list found %d packages under core, want the whole tree", seen)
	}
}

func TestMayImport(t *testing.T) {
	tests := []struct {
		pkg, imp string
		want     bool
	}{
		{"core", "core/internal/rng", true},
		{"core", "core/trace", true},
		{"core", "core/sweep", false},
		{"core/internal/rng", "core/internal/fmath", true},
		{"core/internal/jsonx", "core", false},
		{"core/internal/jsonx", "core/ubb", false},
		{"core/ubb", "core/internal/capped", false},
		{"core/trace", "core/ubb", true},
		{"core/trace", "core", false},
		{"core/sweep", "core", true},
		{"core/sweep", "core/internal/ci", true},
		{"core/sweep", "core/starter", false},
		{"core/starter", "core/trace", true},
		{"core/tmadmin", "core/sweep", false},
		{"core/fit", "core/internal/fmath", true},
		{"core/fit", "core", false},
		{"core/fit", "core/trace", false},
		{"core/ulog", "core/ubb", false},
		{"core/starter", "core/fit", true},
		{"core/starter", "core/ulog", true},
		{"core/ulog", "core/fit", false},
		{"core/diag", "core/ubb", false},
		{"core/ubb", "core/diag", true},
		{"core/diag", "core/result", false},
		{"core/result", "core/diag", true},
		{"core/result", "core", false},
		{"core", "core/result", true},
		{"core", "core/diag", true},
		{"core/internal/vocab", "core/diag", true},
		{"core/internal/rng", "core/diag", false},
		{"core", "core/warmup", true},
		{"core/warmup", "core/result", false},
		{"core", "core/timeseries", true},
		{"core/timeseries", "core/result", true},
		{"core/timeseries", "core", false},
		{"core/explain", "core/plan", true},
		{"core/explain", "core/timeseries", false},
		{"core/batchmeans", "core/workload", true},
		{"core/wsconnect", "core/plan", true},
		{"core/wsconnect", "core/result", false},
		{"core/internal/hist", "core/result", true},
		{"core/internal/hist", "core/plan", false},
		{"core/internal/donecount", "core/ubb", true},
		{"core/internal/donecount", "core/result", false},
		{"core/internal/dlog", "core/internal/csvx", true},
		{"core/internal/dlog", "core/ubb", false},
	}
	for _, tt := range tests {
		if got := mayImport(module+"/"+tt.pkg, module+"/"+tt.imp); got != tt.want {
			t.Errorf("mayImport(%s, %s) = %v, want %v", tt.pkg, tt.imp, got, tt.want)
		}
	}
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
	t.Parallel()
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("runs the go tool (inside WebAssembly there is none: running there is the proof)")
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=js GOARCH=wasm go build ./core: %v\n%s", err, out)
	}
}
