package core_test

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// The /Q cases of testdata/spec-pending-q wait for the engine (their
// README): the fidelity suite does not read them. Until then each must
// pass every check of its scenario, its configuration and its /Q (so that
// it is ready to play), and be refused by the one refusal, naming qspaces;
// its dispatch.csv and expect.json must read.
func TestPendingQCasesCheckThenAreRefused(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/spec-pending-q/q*")
	if err != nil || len(dirs) < 4 {
		t.Fatalf("want at least 4 pending /Q cases, got %v (err %v)", dirs, err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			sc := readScenario(t, dir) // parsed and checked
			m, err := core.LoadModel(ubb.Input{UBBConfig: sc.UBBConfig, UBBName: "ubbconfig"})
			if err != nil {
				t.Fatalf("LoadModel: %v", err)
			}
			if err := plan.CheckQSpaces(m, sc); err != nil {
				t.Fatalf("CheckQSpaces: %v", err)
			}
			if len(m.Forwarders) != 1 || len(m.QSpaces) != 1 {
				t.Fatalf("want one forwarder and one queue space, got %+v, %+v", m.Forwarders, m.QSpaces)
			}
			_, err = core.Compile(sc, core.RunOptions{})
			if err == nil || !strings.Contains(err.Error(), "qspaces: "+plan.NotSimulatedQ) {
				t.Fatalf("Compile: got %v, want the refusal naming qspaces", err)
			}
			f, err := os.Open(filepath.Join(dir, "dispatch.csv"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil || len(rows) < 2 || rows[0][len(rows[0])-1] != "parent" {
				t.Fatalf("dispatch.csv: %d rows, err %v; want a header ending in parent (a TMQFORWARD runs) and rows", len(rows), err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "expect.json"))
			if err != nil {
				t.Fatal(err)
			}
			var expect map[string]any
			if err := json.Unmarshal(data, &expect); err != nil || expect["qspaces"] == nil {
				t.Fatalf("expect.json: err %v, want a qspaces block", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "NOTES.md")); err != nil {
				t.Fatal(err)
			}
		})
	}
}
