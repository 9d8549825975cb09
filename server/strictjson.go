package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/plan"
)

// decodeStrict decodes data, one JSON document (Canonical has accepted
// it), into v, a pointer to the struct of a request's envelope (the body of
// POST /sweeps, /optimize, /validate, the options part of /calibrate), as
// strictly as the scenario reader reads a scenario: an unknown field, a
// value of the wrong type and a key given twice in one object (anywhere in
// the document, a scenario inside it too) are EINVALID errors (422) whose
// one diagnostic names the key's path (`vary`, `objectives[1]`,
// `tolerance.p99`) and its line and column, in words without Go's type
// names (`vary: want a list of strings, got a string`); then
// plan.CheckJSONText's checks (UTF-8, keys that differ only in case). what
// names the document in the messages that place a key: "body", or a form
// part's name.
func decodeStrict(data []byte, v any, what string) error {
	data = trimBOM(data)
	t := reflect.TypeOf(v)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonProblem(data, t, err)
	}
	// encoding/json keeps the last of two equal keys: the scenario
	// reader's error instead, in its words
	if k, dup := findKey(data, t, func(k jsonKey) bool { return k.twice }); dup {
		e := placedError(data, k.path, k.start, "given twice in one object; give each key once")
		d := e.Diagnostics[0]
		e.Message = fmt.Sprintf("%s: given twice in one object (%s line %d col %d); give each key once", d.Field, what, d.Line, d.Col)
		return e
	}
	return plan.CheckJSONText(data, v, what)
}

// jsonProblem words an error of encoding/json's decoding of data into t:
// the path of the value (or key) at fault, and what was wanted.
func jsonProblem(data []byte, t reflect.Type, err error) error {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		path, start := ute.Field, int64(-1)
		if s, ok := findValue(data, t, ute.Offset); ok {
			path, start = s.path, s.start
		}
		want := jsonWant(ute.Type)
		if path == "" { // the document itself
			want += " " + fieldList(t, true)
		}
		return placedError(data, path, start, "want "+want+", got "+jsonGot(ute.Value, ute.Type))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, _ = strconv.Unquote(name)
		path, start, fields := name, int64(-1), fieldList(t, false)
		if s, ok := findKey(data, t, func(s jsonKey) bool { return s.unknown }); ok {
			path, start, fields = s.path, s.start, fieldList(s.in, false)
		}
		return placedError(data, path, start, "unknown field (want "+fields+")")
	}
	return placedError(data, "", -1, strings.TrimPrefix(err.Error(), "json: "))
}

// placedError is the EINVALID error of the value at path (the document
// when ""), which starts at byte offset start of data (-1: unknown): its
// message is "PATH: WHY", its one diagnostic the path, the line and column
// and why.
func placedError(data []byte, path string, start int64, why string) *diag.Error {
	path = diag.CapText(path)
	d := diag.Diagnostic{Field: path, Severity: diag.SeverityError, Message: why}
	if start >= 0 {
		d.Line, d.Col = position(data, start)
	}
	msg := why
	if path != "" {
		msg = path + ": " + why
	}
	return &diag.Error{Code: diag.EINVALID, Message: msg, Diagnostics: []diag.Diagnostic{d}}
}

// jsonWant says in JSON's words what a value of Go type t is: "a string",
// "a whole number from 0 to 18446744073709551615", "a list of strings",
// "an object".
func jsonWant(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number" // its own range is checked with the field's meaning (replications 1..100)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a whole number from 0 to " + strconv.FormatUint(math.MaxUint64>>(64-t.Bits()), 10)
	case reflect.Slice, reflect.Array:
		return "a list of " + jsonPlural(t.Elem())
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a JSON value"
}

// jsonPlural is jsonWant for the elements of a list: "strings", "whole
// numbers", "lists of strings".
func jsonPlural(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "strings"
	case reflect.Bool:
		return "true or false values"
	case reflect.Float32, reflect.Float64:
		return "numbers"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "whole numbers"
	case reflect.Slice, reflect.Array:
		return "lists of " + jsonPlural(t.Elem())
	case reflect.Map, reflect.Struct:
		return "objects"
	}
	return "JSON values"
}

// jsonGot words the value encoding/json could not store (its
// UnmarshalTypeError.Value: "string", "number", "number -1", "array"...):
// a number it read is quoted as written ("got -1", "got 1e308").
func jsonGot(value string, t reflect.Type) string {
	if n, ok := strings.CutPrefix(value, "number "); ok {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if k := t.Kind(); k == reflect.Float32 || k == reflect.Float64 {
			return diag.CapText(n) + " (out of range)"
		}
		return diag.CapText(n)
	}
	switch value {
	case "number":
		return "a number"
	case "bool":
		return "a boolean"
	case "array", "object":
		return "an " + value
	case "":
		return "null"
	}
	return "a " + value
}

// fieldList lists the JSON names of the fields of the struct t (or of what
// t points to): `ubbconfig, dmconfig, advertise`, or quoted in braces,
// `{"ubbconfig", "dmconfig", "advertise"}`, the form of an object.
func fieldList(t reflect.Type, object bool) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	var names []string
	for i := range t.NumField() {
		if name, ok := jsonName(t.Field(i)); ok {
			if object {
				name = strconv.Quote(name)
			}
			names = append(names, name)
		}
	}
	if object {
		return "{" + strings.Join(names, ", ") + "}"
	}
	return strings.Join(names, ", ")
}

// jsonName is the JSON key of a struct field, and whether it has one.
func jsonName(f reflect.StructField) (string, bool) {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" || !f.IsExported() {
		return "", false
	}
	if name == "" {
		name = f.Name
	}
	return name, true
}

// jsonKey is a key of a document as walkJSON reads it.
type jsonKey struct {
	path    string       // the path of the key's value: tolerance.p99
	start   int64        // the offset of the key's opening quote
	in      reflect.Type // the struct (or map...) of the object it is in, nil when not known
	twice   bool         // the object had this key before
	unknown bool         // the object is a struct's and has no field of this name
}

// jsonValue is a value of a document as walkJSON reads it.
type jsonValue struct {
	path       string
	start, end int64 // the offset of its first byte, and after its first token (after '{' or '[')
}

// findKey returns the first key of the document (data decoded into t)
// that match says is the one.
func findKey(data []byte, t reflect.Type, match func(jsonKey) bool) (jsonKey, bool) {
	var found jsonKey
	ok := false
	walkJSON(data, t, func(k jsonKey) bool {
		if match(k) {
			found, ok = k, true
		}
		return ok
	}, nil)
	return found, ok
}

// findValue returns the value of the document whose first token ends at
// offset end: where encoding/json's UnmarshalTypeError.Offset points.
func findValue(data []byte, t reflect.Type, end int64) (jsonValue, bool) {
	var found jsonValue
	ok := false
	walkJSON(data, t, nil, func(v jsonValue) bool {
		if v.end == end {
			found, ok = v, true
		}
		return ok
	})
	return found, ok
}

// walkJSON reads the JSON document data token by token against the Go type
// t it decodes into, and calls key for each object key and value for each
// value, in the document's order, until one returns true. It builds no
// tree: only the path to where it is. It stops at the first syntax error
// (Canonical has refused such documents).
func walkJSON(data []byte, t reflect.Type, key func(jsonKey) bool, value func(jsonValue) bool) {
	type frame struct {
		object  bool
		t       reflect.Type // the container's type (struct, map, slice), or nil
		path    string
		keys    map[string]bool
		key     string       // objects: the key whose value comes next
		child   reflect.Type // objects: that value's type
		index   int          // arrays: the next element's index
		wantKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []frame
	next := container(t)
	for {
		start := skipSeparators(data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return
		}
		end := dec.InputOffset()
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].wantKey = true
			}
			continue
		}
		if top != nil && top.object && top.wantKey {
			name := tok.(string)
			k := jsonKey{path: joinKey(top.path, name), start: start, in: top.t, twice: top.keys[name]}
			top.child, k.unknown = fieldOf(top.t, name)
			top.keys[name], top.key, top.wantKey = true, name, false
			if key != nil && key(k) {
				return
			}
			continue
		}
		path := ""
		if top != nil {
			if top.object {
				path, next = joinKey(top.path, top.key), top.child
				top.wantKey = true
			} else {
				path = top.path + "[" + strconv.Itoa(top.index) + "]"
				top.index++
				next = nil
				if top.t != nil && (top.t.Kind() == reflect.Slice || top.t.Kind() == reflect.Array) {
					next = container(top.t.Elem())
				}
			}
		}
		if value != nil && value(jsonValue{path: path, start: start, end: end}) {
			return
		}
		if d, ok := tok.(json.Delim); ok {
			f := frame{object: d == '{', t: next, path: path, wantKey: d == '{'}
			if f.object {
				f.keys = map[string]bool{}
			}
			stack = append(stack, f)
		}
		if len(stack) == 0 {
			return
		}
	}
}

// fieldOf returns the type of the value of key in an object of type t (a
// struct's field, matched as encoding/json matches it, or a map's
// element), and whether key is a field a struct does not have.
func fieldOf(t reflect.Type, key string) (reflect.Type, bool) {
	switch {
	case t == nil:
		return nil, false
	case t.Kind() == reflect.Map:
		return container(t.Elem()), false
	case t.Kind() != reflect.Struct:
		return nil, false
	}
	var folded reflect.Type
	found := false
	for i := range t.NumField() {
		f := t.Field(i)
		name, ok := jsonName(f)
		switch {
		case !ok:
		case name == key:
			return container(f.Type), false
		case !found && strings.EqualFold(name, key):
			folded, found = container(f.Type), true
		}
	}
	return folded, !found
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// container returns t without pointers when it is a struct, map or slice
// that encoding/json decodes member by member, else nil (a leaf, or a type
// that decodes itself, as json.RawMessage).
func container(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array:
		return t
	}
	return nil
}

// joinKey is the path of key in the object at path.
func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// skipSeparators moves off past the whitespace, comma and colon that a
// json.Decoder's offset stops before, to the next token itself.
func skipSeparators(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}
