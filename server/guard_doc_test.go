package server

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestQueryParamsAreTheAPIDocuments holds the guard's list of query
// parameters (queryParams) to the API document: every route's `in: query`
// parameters there are the ones the guard lets through, and the guard
// lets through none the document does not give.
func TestQueryParamsAreTheAPIDocuments(t *testing.T) {
	type param struct {
		Name string `json:"name"`
		In   string `json:"in"`
		Ref  string `json:"$ref"`
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]param `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	fromDoc := map[string][]string{}
	for path, ops := range doc.Paths {
		for method, raw := range ops {
			var op struct {
				Parameters []param `json:"parameters"`
			}
			if json.Unmarshal(raw, &op) != nil {
				continue // a path's own fields, not an operation
			}
			var query []string
			for _, p := range op.Parameters {
				if p.Ref != "" {
					p = doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
				}
				if p.In == "query" {
					query = append(query, p.Name)
				}
			}
			if len(query) > 0 {
				route := strings.ToUpper(method) + " " + strings.NewReplacer("{", ":", "}", "").Replace(path)
				fromDoc[route] = query
			}
		}
	}
	for _, route := range slices.Sorted(maps.Keys(fromDoc)) {
		if got := queryParams[route]; !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(fromDoc[route]))) {
			t.Errorf("%s: the guard lets through %v, the API document gives %v", route, got, fromDoc[route])
		}
	}
	for _, route := range slices.Sorted(maps.Keys(queryParams)) {
		if _, ok := fromDoc[route]; !ok {
			t.Errorf("%s: the guard lets through %v, the API document gives no query parameter", route, queryParams[route])
		}
	}
	if len(fromDoc) < 5 {
		t.Errorf("read %d routes with query parameters from the document, want the API's", len(fromDoc))
	}
}
