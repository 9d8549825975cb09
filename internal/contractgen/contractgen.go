// Package contractgen writes the cross-language contract from the Go types:
// the page's TypeScript declarations (frontend/src/types.ts) and the
// component schemas of the API document (server/openapi.json). Both come
// from the same walk over the types by reflection, with the doc comments
// read from the source by go/parser, so a field added in Go reaches the page
// and the API document the next time `go test ./internal/contractgen
// -update` runs, and the test fails until it does.
package contractgen

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/sweep"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// module is the import path the packages' directories are relative to.
const module = "github.com/tuxlb/tuxlb"

// Roots are the documents of the contract; every named struct type they
// reach is declared too. The names are the ones the page and the API
// document use.
var Roots = []struct {
	Name string
	Type reflect.Type
}{
	{"Scenario", reflect.TypeFor[scenario.Scenario]()},
	{"Result", reflect.TypeFor[result.Result]()},
	{"Model", reflect.TypeFor[ubb.Model]()},
	{"Explanation", reflect.TypeFor[result.Explanation]()},
	{"Headline", reflect.TypeFor[result.Headline]()},
	{"SweepResult", reflect.TypeFor[sweep.Result]()},
	{"Optimization", reflect.TypeFor[sweep.Optimization]()},
	{"OptimizeSpec", reflect.TypeFor[sweep.OptimizeSpec]()},
	{"CoreError", reflect.TypeFor[diag.Error]()},
	{"RouteSpec", reflect.TypeFor[scenario.RouteSpec]()},
}

// Override is the contract of a type whose JSON is written by its own
// MarshalJSON or read by its own UnmarshalJSON, which reflection cannot see:
// its TypeScript type and its JSON Schema, written out. Refs names the
// declared types they mention, so those are declared too.
type Override struct {
	TS     string
	Schema map[string]any
	Refs   []reflect.Type
	Doc    string
}

// Overrides are the custom JSON types of the contract, by Go type.
var Overrides = map[reflect.Type]Override{
	reflect.TypeFor[scenario.RouteValue](): {
		TS:     "string | number",
		Schema: map[string]any{"type": []any{"string", "number"}},
		Doc:    "A routing value: a string, or a number kept as written.",
	},
	reflect.TypeFor[scenario.CallRoute](): {
		TS: `"inherit" | number | string | RouteSpec`,
		Schema: map[string]any{"anyOf": []any{
			map[string]any{"type": "string", "description": `"inherit" (the calling request's value) or a constant string`},
			map[string]any{"type": "number"},
			map[string]any{"$ref": "#/components/schemas/RouteSpec"},
		}},
		Refs: []reflect.Type{reflect.TypeFor[scenario.RouteSpec]()},
		Doc:  `A nested request's routing value: "inherit" (the default), a constant, or drawn as a stream's route.`,
	},
	reflect.TypeFor[scenario.Warmup](): {
		TS:     `number | "auto"`,
		Schema: map[string]any{"anyOf": []any{map[string]any{"type": "number", "minimum": 0}, map[string]any{"const": "auto"}}},
		Doc:    `Milliseconds from the start whose requests the statistics leave out, or "auto": the transient MSER-5 finds.`,
	},
	reflect.TypeFor[scenario.ScriptEntry](): {
		TS: "string | { service: string; route?: number | string; buftype?: string } | { enqueue: string }",
		Schema: map[string]any{"anyOf": []any{
			map[string]any{"type": "string", "description": "a service name"},
			map[string]any{"type": "object", "required": []any{"service"}, "additionalProperties": false,
				"properties": map[string]any{"service": map[string]any{"type": "string"}, "route": map[string]any{"type": []any{"string", "number"}}, "buftype": map[string]any{"type": "string"}}},
			map[string]any{"type": "object", "required": []any{"enqueue"}, "additionalProperties": false,
				"properties": map[string]any{"enqueue": map[string]any{"type": "string", "description": "QSPACE:Q, a /Q enqueue"}}},
		}},
		Doc: "One entry of a client script: a service name, a service with a constant routing value, or a /Q enqueue (QSPACE:Q).",
	},
}

// renames are the contract names that are not the Go ones: scenario.Event is
// LifeEvent, as Event is the browser's own type.
var renames = map[reflect.Type]string{
	reflect.TypeFor[scenario.Event](): "LifeEvent",
}

// contractName is a Go type's name in the contract: a root's name, a rename,
// else its Go name with ubb's types prefixed Model and sweep's Sweep, where
// two packages share a name (sweep.Result and result.Result).
func contractName(t reflect.Type) string {
	for _, r := range Roots {
		if r.Type == t {
			return r.Name
		}
	}
	if name, ok := renames[t]; ok {
		return name
	}
	name := t.Name()
	switch t.PkgPath() {
	case module + "/core/ubb":
		if name != "Diagnostic" && !strings.HasPrefix(name, "Model") {
			return "Model" + name
		}
	case module + "/core/sweep":
		if !strings.HasPrefix(name, "Sweep") {
			return "Sweep" + name
		}
	}
	return name
}

// Contract is the walk's outcome: the declared types in order, with what
// each says of itself.
type Contract struct {
	Types []*Decl
	byGo  map[reflect.Type]*Decl
	docs  docs
}

// Decl is one declared type.
type Decl struct {
	Name     string
	Go       reflect.Type
	Doc      string
	Fields   []Field   // a struct's
	Override *Override // a custom type's
}

// Field is one JSON property of a struct.
type Field struct {
	JSON      string
	Go        reflect.Type
	Doc       string
	OmitEmpty bool
}

// Build walks the roots. root is the repository's directory, where the Go
// sources are read for their comments.
func Build(root string) (*Contract, error) {
	d, err := readDocs(root, "core", "core/result", "core/diag", "core/scenario", "core/ubb", "core/sweep")
	if err != nil {
		return nil, err
	}
	c := &Contract{byGo: map[reflect.Type]*Decl{}, docs: d}
	for _, r := range Roots {
		if err := c.declare(r.Type); err != nil {
			return nil, err
		}
	}
	seen := map[string]reflect.Type{}
	for _, t := range c.Types {
		if other, dup := seen[t.Name]; dup {
			return nil, fmt.Errorf("contract name %s is both %v and %v: add a rename", t.Name, other, t.Go)
		}
		seen[t.Name] = t.Go
	}
	return c, nil
}

var (
	marshaler   = reflect.TypeFor[json.Marshaler]()
	unmarshaler = reflect.TypeFor[json.Unmarshaler]()
)

// declare adds a named type and, first, the types its fields reach.
func (c *Contract) declare(t reflect.Type) error {
	if _, done := c.byGo[t]; done {
		return nil
	}
	d := &Decl{Name: contractName(t), Go: t, Doc: c.docs.types[t.PkgPath()+"."+t.Name()]}
	c.byGo[t] = d
	if o, ok := Overrides[t]; ok {
		d.Override = &o
		if o.Doc != "" {
			d.Doc = o.Doc
		}
		c.Types = append(c.Types, d)
		for _, r := range o.Refs {
			if err := c.declare(r); err != nil {
				return err
			}
		}
		return nil
	}
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(unmarshaler) {
		return fmt.Errorf("%v has its own JSON methods: give it an entry in Overrides", t)
	}
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("%v: a named %v is not a struct: give it an entry in Overrides", t, t.Kind())
	}
	c.Types = append(c.Types, d)
	fields, err := c.fields(t)
	if err != nil {
		return err
	}
	d.Fields = fields
	for _, f := range fields {
		if err := c.reach(f.Go); err != nil {
			return fmt.Errorf("%s.%s: %w", d.Name, f.JSON, err)
		}
	}
	return nil
}

// reach declares the named types inside a field's type.
func (c *Contract) reach(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return c.reach(t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("map key %v: want string", t.Key())
		}
		return c.reach(t.Elem())
	case reflect.Struct:
		return c.declare(t)
	}
	if _, ok := Overrides[t]; ok {
		return c.declare(t)
	}
	if t.Name() != "" && t.PkgPath() != "" && (t.Implements(marshaler) || reflect.PointerTo(t).Implements(unmarshaler)) {
		return fmt.Errorf("%v has its own JSON methods: give it an entry in Overrides", t)
	}
	return nil
}

// fields lists a struct's JSON properties as encoding/json sees them:
// exported fields, json tag names, "-" skipped, embedded structs flattened.
func (c *Contract) fields(t reflect.Type) ([]Field, error) {
	var out []Field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" || !sf.IsExported() && !sf.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				inner, err := c.fields(et)
				if err != nil {
					return nil, err
				}
				out = append(out, inner...)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if strings.Contains(","+opts+",", ",string,") {
			return nil, fmt.Errorf("%v.%s: the ,string option is not supported", t, sf.Name)
		}
		out = append(out, Field{
			JSON:      name,
			Go:        sf.Type,
			Doc:       c.docs.fields[t.PkgPath()+"."+t.Name()+"."+sf.Name],
			OmitEmpty: strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,"),
		})
	}
	return out, nil
}

// nullable says whether a property of this type can be JSON null when it is
// written: a nil slice or map, or a nil pointer to a struct (encoding/json
// writes null for them). A pointer to a number without omitempty is how the
// scenario's types tell a required value (at_ms, time_ms, from_ms) from 0:
// it is never null in a document that reads.
func nullable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Slice, reflect.Map, reflect.Interface:
		return true
	case reflect.Pointer:
		return t.Elem().Kind() == reflect.Struct
	}
	return false
}

// docs holds the doc comments of types ("pkg.Type") and fields
// ("pkg.Type.Field"), read from the source.
type docs struct {
	types, fields map[string]string
}

// readDocs parses the non-test Go files of the packages' directories.
func readDocs(root string, dirs ...string) (docs, error) {
	d := docs{types: map[string]string{}, fields: map[string]string{}}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		pkg := module + "/" + dir
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			return d, err
		}
		if len(files) == 0 {
			return d, fmt.Errorf("%s: no Go files", filepath.Join(root, dir))
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				return d, err
			}
			f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
			if err != nil {
				return d, err
			}
			d.add(pkg, f)
		}
	}
	return d, nil
}

func (d docs) add(pkg string, f *ast.File) {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			doc := ts.Doc
			if doc == nil && len(gd.Specs) == 1 {
				doc = gd.Doc
			}
			key := pkg + "." + ts.Name.Name
			d.types[key] = clean(doc)
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, fl := range st.Fields.List {
				text := clean(fl.Doc)
				if text == "" {
					text = clean(fl.Comment)
				}
				for _, n := range fl.Names {
					d.fields[key+"."+n.Name] = text
				}
			}
		}
	}
}

// clean is a comment's text on one line.
func clean(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
