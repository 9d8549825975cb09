package core

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
)

// A model of many services keeps each service's first waits and responses
// in a list (svcFewFrom) rather than in its distributions' arrays: the
// result is the same bytes. Every example run with the list for every
// service (those of a few hundred responses kept there to the end, those of
// more counted into the arrays when the list fills) gives its golden
// result, which was made without it.
func TestServiceFewSameBytes(t *testing.T) {
	defer func(n int) { svcFewFrom = n }(svcFewFrom)
	svcFewFrom = 1
	files, err := filepath.Glob("../examples/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	few, spilled := 0, 0
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := ParseScenario(data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		res, err := Run(sc, RunOptions{})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "examples", name+".result.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := result.Encode(res); !bytes.Equal(got, want) {
			t.Errorf("%s: the result with each service's first values in a list differs from the golden", name)
		}
		for _, s := range res.Services {
			if s.ResponseMS.Count > 0 && s.ResponseMS.Count < 4096 {
				few++
			} else if s.ResponseMS.Count > 4096 {
				spilled++
			}
		}
	}
	// both ways of counting were taken
	if few == 0 || spilled == 0 {
		t.Errorf("%d services kept their list to the end, %d spilled it: want some of each", few, spilled)
	}
}
