package core

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// indentCases are JSON texts appendIndent must indent as json.Indent does:
// empty and nested containers, escaped quotes and backslashes, deep
// nesting past indentUnit, every kind of value.
var indentCases = []string{
	`{}`, `[]`, `0`, `"x"`, `null`,
	`{"a":[],"b":{},"c":[{}],"d":[[]]}`,
	`{"a":1,"b":[1,2.5,-3e-7,true,false,null],"c":{"d":"e"}}`,
	`["\"","\\","\\\"","a\\\\\"b\\",":{}[],","\u003c\u2028"]`,
	`{"k\"ey":"v\\","":""}`,
	`[[[[[[[[[[[[[[[[[[[[1,{"deep":[[[[[[[[[[2]]]]]]]]]]}]]]]]]]]]]]]]]]]]]]]`,
}

func TestAppendIndent(t *testing.T) {
	for _, c := range indentCases {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(c), "", "  "); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if got := appendIndent(nil, []byte(c)); string(got) != want.String() {
			t.Errorf("appendIndent(%s):\ngot  %s\nwant %s", c, got, want.String())
		}
	}
}

// TestAppendIndentGoldens: every golden result (json.MarshalIndent's
// bytes and a newline), compacted, is indented back to the same bytes.
func TestAppendIndentGoldens(t *testing.T) {
	files, _ := filepath.Glob("testdata/examples/*.result.json")
	if len(files) == 0 {
		t.Fatal("no golden results found")
	}
	for _, f := range files {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, want); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got := append(appendIndent(nil, compact.Bytes()), '\n'); !bytes.Equal(got, want) {
			t.Errorf("%s: appendIndent differs from json.MarshalIndent", f)
		}
	}
}

// FuzzAppendIndent: for any valid JSON, compacted as json.Marshal writes
// it, appendIndent gives json.Indent's bytes.
func FuzzAppendIndent(f *testing.F) {
	for _, c := range indentCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var compact bytes.Buffer
		if json.Compact(&compact, data) != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := appendIndent(nil, compact.Bytes()); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("appendIndent(%q):\ngot  %q\nwant %q", compact.Bytes(), got, want.Bytes())
		}
	})
}
