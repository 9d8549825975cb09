package contractgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"reflect"
	"slices"
)

// Obj is a JSON object that keeps its keys in order, so the API document is
// rewritten with its hand-written parts byte for byte as they were.
type Obj struct {
	keys []string
	vals map[string]any
}

// NewObj makes an object of key, value pairs.
func NewObj(kv ...any) *Obj {
	o := &Obj{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Set sets a key, appending it when new.
func (o *Obj) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Get returns a key's value.
func (o *Obj) Get(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }

// Delete removes a key.
func (o *Obj) Delete(k string) {
	if _, ok := o.vals[k]; ok {
		delete(o.vals, k)
		o.keys = slices.DeleteFunc(o.keys, func(x string) bool { return x == k })
	}
}

// goTypeKey marks a generated schema with the Go type it comes from, so a
// later run knows which schemas are its own.
const goTypeKey = "x-go-type"

// goName is a type's package-qualified name: result.Result, ubb.Model.
func goName(t reflect.Type) string {
	return path.Base(t.PkgPath()) + "." + t.Name()
}

// Keys returns the keys in order.
func (o *Obj) Keys() []string { return slices.Clone(o.keys) }

// MarshalJSON writes the keys in order, without HTML escaping.
func (o *Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping and without the newline.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Indent writes v as the API document is written: two spaces, a final newline.
func Indent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Decode reads a JSON document into Obj, []any, json.Number, string, bool
// and nil, keeping the order of every object's keys.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the document")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := NewObj()
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o.Set(kt.(string), v)
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

// ref is the JSON Schema reference to a component.
func ref(name string) *Obj { return NewObj("$ref", "#/components/schemas/"+name) }

// Schemas returns the component schemas of the declared types, in order:
// an object per struct with its properties, the required ones (those Go
// always writes: no omitempty), and no others (additionalProperties false:
// the strict reader refuses unknown fields, and a result's fields are all
// listed); a custom type's schema from its override.
func (c *Contract) Schemas() []*Obj {
	var out []*Obj
	for _, d := range c.Types {
		var s *Obj
		if d.Override != nil {
			s = NewObj()
			if d.Doc != "" {
				s.Set("description", d.Doc)
			}
			s.Set(goTypeKey, goName(d.Go))
			for _, k := range sortedKeys(d.Override.Schema) {
				s.Set(k, d.Override.Schema[k])
			}
		} else {
			s = NewObj("type", "object")
			if d.Doc != "" {
				s.Set("description", d.Doc)
			}
			s.Set(goTypeKey, goName(d.Go))
			props := NewObj()
			var required []any
			for _, f := range d.Fields {
				p := c.schemaOf(f.Go, !f.OmitEmpty && nullable(f.Go))
				if f.Doc != "" {
					p.Set("description", f.Doc)
				}
				props.Set(f.JSON, p)
				if !f.OmitEmpty && !optionalOnInput[d.Name+"."+f.JSON] {
					required = append(required, f.JSON)
				}
			}
			s.Set("properties", props)
			if len(required) > 0 {
				s.Set("required", required)
			}
			s.Set("additionalProperties", false)
		}
		out = append(out, NewObj("name", d.Name, "schema", s))
	}
	return out
}

// optionalOnInput are the properties Go always writes that a document sent
// to the API may leave out (the reader gives them a default): neither
// required in the schema nor in TypeScript.
var optionalOnInput = map[string]bool{
	"Generator.streams": true, // a workload of client sets only
	"RetrySpec.max":     true, // default 0
}

// schemaOf is the JSON Schema of a Go type; orNull admits null as well.
func (c *Contract) schemaOf(t reflect.Type, orNull bool) *Obj {
	if d, ok := c.byGo[t]; ok {
		if orNull {
			return NewObj("anyOf", []any{ref(d.Name), NewObj("type", "null")})
		}
		return ref(d.Name)
	}
	typed := func(typ string, kv ...any) *Obj {
		var ty any = typ
		if orNull {
			ty = []any{typ, "null"}
		}
		return NewObj(append([]any{"type", ty}, kv...)...)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return c.schemaOf(t.Elem(), orNull)
	case reflect.Slice, reflect.Array:
		return typed("array", "items", c.schemaOf(t.Elem(), false))
	case reflect.Map:
		return typed("object", "additionalProperties", c.schemaOf(t.Elem(), false))
	case reflect.String:
		return typed("string")
	case reflect.Bool:
		return typed("boolean")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return typed("integer")
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return typed("integer", "minimum", 0)
	case reflect.Float32, reflect.Float64:
		return typed("number")
	case reflect.Interface:
		return NewObj()
	}
	panic(fmt.Sprintf("contractgen: no schema for %v", t))
}

// UpdateOpenAPI returns the API document with the generated component
// schemas in it: a schema already there is replaced where it stands, a new
// one is added after the others; every other part is kept as it was.
func (c *Contract) UpdateOpenAPI(doc []byte) ([]byte, error) {
	v, err := Decode(doc)
	if err != nil {
		return nil, fmt.Errorf("read the API document: %w", err)
	}
	root, ok := v.(*Obj)
	if !ok {
		return nil, fmt.Errorf("the API document is not an object")
	}
	comp, _ := root.Get("components")
	compObj, ok := comp.(*Obj)
	if !ok {
		return nil, fmt.Errorf("the API document has no components object")
	}
	sv, _ := compObj.Get("schemas")
	schemas, ok := sv.(*Obj)
	if !ok {
		return nil, fmt.Errorf("the API document has no components.schemas object")
	}
	made := c.Schemas()
	current := map[string]bool{}
	for _, s := range made {
		name, _ := s.Get("name")
		current[name.(string)] = true
	}
	for _, name := range schemas.Keys() {
		v, _ := schemas.Get(name)
		if o, ok := v.(*Obj); ok && !current[name] {
			if _, generated := o.Get(goTypeKey); generated {
				schemas.Delete(name) // a type no longer in the contract, or renamed
			}
		}
	}
	for _, s := range made {
		name, _ := s.Get("name")
		schema, _ := s.Get("schema")
		schemas.Set(name.(string), schema)
	}
	return Indent(root)
}
