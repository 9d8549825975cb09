package contractgen

import (
	"bytes"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

var update = flag.Bool("update", false, "rewrite frontend/src/types.ts and the schemas of server/openapi.json from the Go types")

const (
	repoRoot = "../.."
	tsPath   = "../../frontend/src/types.ts"
	apiPath  = "../../server/openapi.json"
)

// TestContractIsCurrent fails when the page's types or the API document's
// schemas are not the ones the Go types make; -update rewrites both.
func TestContractIsCurrent(t *testing.T) {
	c, err := Build(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(apiPath)
	if err != nil {
		t.Fatal(err)
	}
	api, err := c.UpdateOpenAPI(doc)
	if err != nil {
		t.Fatal(err)
	}
	ts := []byte(c.TypeScript())
	for _, f := range []struct {
		path string
		want []byte
	}{{tsPath, ts}, {apiPath, api}} {
		got, err := os.ReadFile(f.path)
		if err != nil && !*update {
			t.Fatal(err)
		}
		if bytes.Equal(got, f.want) {
			continue
		}
		if *update {
			if err := os.WriteFile(f.path, f.want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is not what the Go types make (first difference at line %d): run go test ./internal/contractgen -update",
			f.path, firstDiffLine(got, f.want))
	}
}

func firstDiffLine(a, b []byte) int {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// TestDocumentRoundTrips checks that reading and rewriting the API document
// keeps every byte, so -update changes only the generated schemas.
func TestDocumentRoundTrips(t *testing.T) {
	doc, err := os.ReadFile(apiPath)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Indent(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, doc) {
		t.Errorf("rewritten document differs at line %d", firstDiffLine(doc, out))
	}
}

// sample exercises each rule of the walk.
type sample struct {
	// Plain is always written.
	Plain   string               `json:"plain"`
	Opt     *float64             `json:"opt,omitempty"` // written when set
	Ptr     *int                 `json:"ptr"`
	List    []result.Flow        `json:"list"`
	ByName  map[string]uint64    `json:"by_name,omitempty"`
	Route   *scenario.RouteValue `json:"route,omitempty"`
	Any     any                  `json:"any"`
	Skipped string               `json:"-"`
	hidden  int
	inner
}

type inner struct {
	Deep bool `json:"deep"`
}

// TestWalkRules checks the TypeScript and the schema the walk gives for
// each kind of field, and that a custom JSON type without an override is
// refused.
func TestWalkRules(t *testing.T) {
	c := &Contract{byGo: map[reflect.Type]*Decl{}, docs: docs{types: map[string]string{}, fields: map[string]string{
		"github.com/tuxlb/tuxlb/internal/contractgen.sample.Plain": "Plain is always written.",
	}}}
	if err := c.declare(reflect.TypeFor[sample]()); err != nil {
		t.Fatal(err)
	}
	ts := c.TypeScript()
	for _, want := range []string{
		"export interface sample {\n  /** Plain is always written. */\n  plain: string;\n",
		"  opt?: number;\n", "  ptr: number;\n", "  list: Flow[] | null;\n",
		"  by_name?: Record<string, number>;\n", "  route?: RouteValue;\n", "  any: unknown;\n", "  deep: boolean;\n",
		"export type RouteValue = string | number;\n", "export interface Flow {\n",
	} {
		if !strings.Contains(ts, want) {
			t.Errorf("TypeScript lacks %q:\n%s", want, ts)
		}
	}
	if strings.Contains(ts, "Skipped") || strings.Contains(ts, "hidden") {
		t.Errorf("TypeScript has a skipped field:\n%s", ts)
	}
	schemas := c.Schemas()
	got, err := marshal(schemas[0])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"sample","schema":{"type":"object","x-go-type":"contractgen.sample","properties":{` +
		`"plain":{"type":"string","description":"Plain is always written."},` +
		`"opt":{"type":"number"},"ptr":{"type":"integer"},` +
		`"list":{"type":["array","null"],"items":{"$ref":"#/components/schemas/Flow"}},` +
		`"by_name":{"type":"object","additionalProperties":{"type":"integer","minimum":0}},` +
		`"route":{"$ref":"#/components/schemas/RouteValue"},"any":{},"deep":{"type":"boolean"}},` +
		`"required":["plain","ptr","list","any","deep"],"additionalProperties":false}}`
	if string(got) != want {
		t.Errorf("schema:\n got %s\nwant %s", got, want)
	}
	type custom struct {
		R scenario.CallRoute `json:"r"`
		M ownJSON            `json:"m"`
	}
	if err := c.declare(reflect.TypeFor[custom]()); err == nil || !strings.Contains(err.Error(), "Overrides") {
		t.Errorf("a type with its own MarshalJSON and no override: got %v, want an error naming Overrides", err)
	}
}

// ownJSON is a custom JSON type the override table does not know.
type ownJSON struct{}

func (ownJSON) MarshalJSON() ([]byte, error) { return []byte("1"), nil }
