package jsonx

import (
	"strings"
	"testing"
)

// encoding/json keeps the last of two equal keys; DecodeStrict refuses a
// document that gives a field twice, naming the field and where the second
// one is.
func TestDuplicateKeys(t *testing.T) {
	type doc struct {
		Seed     int                       `json:"seed"`
		Services map[string]map[string]any `json:"services"`
		Trace    []map[string]any          `json:"trace"`
	}
	for _, tc := range []struct {
		doc, want string
	}{
		{`{"seed": 1, "seed": 2}`, "seed: given twice in one object (scenario line 1 col 13); give each key once"},
		{"{\"seed\": 1,\n \"services\": {\"A\": {\"ms\": 1, \"ms\": 5}}}",
			"services.A.ms: given twice in one object (scenario line 2 col 30)"},
		{`{"trace": [{"time_ms": 1, "service": "A"}, {"time_ms": 2, "service": "A", "service": "B"}]}`,
			"trace[1].service: given twice"},
	} {
		var v doc
		err := DecodeStrict([]byte(tc.doc), &v, "scenario")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant an error containing %q", tc.doc, err, tc.want)
		}
	}
	// the same key in different objects, and equal values in arrays, are fine
	ok := `{"services": {"A": {"service_time": {"dist": "const", "ms": 1}},
	  "B": {"service_time": {"dist": "const", "ms": 1}}}, "trace": [{"time_ms": 1, "service": "A"}, {"time_ms": 1, "service": "A"}]}`
	if path, _, _, dup := duplicateKey([]byte(ok)); dup {
		t.Errorf("got a duplicate %s in a document without one", path)
	}
}
