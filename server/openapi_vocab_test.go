package server

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/tuxlb/tuxlb/core"
)

// TestOpenAPIPolicyEnumIsCore checks that the API document offers exactly
// the policies the engine knows, so a new policy cannot be left out of it.
func TestOpenAPIPolicyEnumIsCore(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string `json:"name"`
				Schema struct {
					Enum []string `json:"enum"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	want := core.Vocabulary()["policy"]
	found := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			for _, p := range op.Parameters {
				if p.Name != "policy" {
					continue
				}
				found++
				if !slices.Equal(p.Schema.Enum, want) {
					t.Errorf("%s %s: policy enum got %v, want %v", method, path, p.Schema.Enum, want)
				}
			}
		}
	}
	if found == 0 {
		t.Error("no policy parameter found in the API document")
	}
}
