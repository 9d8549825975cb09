package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
)

// TestExamples runs every scenario of examples/ and holds its result and the
// hash of its dispatch log against golden files. The same test runs under
// GOOS=js GOARCH=wasm (see Taskfile's test-wasm), which proves the engine gives
// the same bytes natively and in WebAssembly.
func TestExamples(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../examples/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := ParseScenario(data)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			var log bytes.Buffer
			res, err := Run(sc, RunOptions{Dispatch: &log})
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			sum := sha256.Sum256(log.Bytes())
			checkGolden(t, filepath.Join("testdata", "examples", name+".result.json"), result.Encode(res))
			checkGolden(t, filepath.Join("testdata", "examples", name+".dispatch.sha256"),
				[]byte(hex.EncodeToString(sum[:])+"\n"))
		})
	}
}
