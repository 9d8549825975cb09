package frontend

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
)

var update = flag.Bool("update", false, "rewrite src/vocabulary.json from core")

// TestVocabularyIsCore checks that the lists the playground offers
// (src/vocabulary.json: policies, tuning readings, arrivals, distributions,
// and the figures table with its names, units and labels)
// are the engine's own; `go test ./frontend -update` regenerates the file
// after a value is added in core.
func TestVocabularyIsCore(t *testing.T) {
	doc := map[string]any{"figures": result.Figures()}
	for k, v := range core.Vocabulary() {
		doc[k] = v
	}
	want, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	const path = "src/vocabulary.json"
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from core.Vocabulary(); run go test ./frontend -update\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
