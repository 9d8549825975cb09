package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// decodeStrict decodes data into v (a pointer to a struct) the way the
// scenario reader wants: unknown fields, wrong types and trailing data are
// EINVALID errors whose messages name the field path, e.g.
// `workload.generate.streams[1].rate_per_s: want a number, got a string`.
func decodeStrict(data []byte, v any, what string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return translateJSONError(data, err, reflect.TypeOf(v), what)
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		rest := bytes.TrimLeft(data[end:], " \t\r\n")
		line, col := lineCol(data, len(data)-len(rest))
		return Errorf(EINVALID, "%s: line %d col %d: trailing data after the document", what, line, col)
	}
	if path, line, col, dup := duplicateKey(data); dup {
		return Errorf(EINVALID, "%s: given twice in one object (%s line %d col %d); give each key once", path, what, line, col)
	}
	return CheckJSONText(data, v, what)
}

// decodeStrictInto is decodeStrict's decoding for a type's own
// UnmarshalJSON: unknown fields are errors there too. The error is
// encoding/json's, for the outer decodeStrict to name the field.
func decodeStrictInto(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	return CheckJSONText(data, v, "this value") // keys are case-sensitive here too
}

// jsonShaped is a type with its own JSON forms (it decodes itself): it says
// what is wrong with a value that did not decode, for findProblem.
type jsonShaped interface {
	jsonProblem(v any, path string) string
}

// translateJSONError turns an encoding/json error into one naming the field
// (found by walking the document against the Go type) or the line and column.
func translateJSONError(data []byte, err error, t reflect.Type, what string) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := lineCol(data, int(syn.Offset)-1) // the offending byte
		return Errorf(EINVALID, "%s: line %d col %d: %s", what, line, col, strings.TrimPrefix(syn.Error(), "json: "))
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return Errorf(EINVALID, "%s: empty or truncated document", what)
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if dec.Decode(&doc) == nil {
		if msg := findProblem(doc, t, ""); msg != "" {
			return Errorf(EINVALID, "%s", msg)
		}
	}
	return Errorf(EINVALID, "%s: %s", what, strings.TrimPrefix(err.Error(), "json: "))
}

// lineCol returns the 1-based line and column of byte offset off in data.
func lineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - bytes.LastIndexByte(before, '\n')
	return line, col
}

// findProblem walks a generic JSON value against the Go type it should decode
// into and describes the first mismatch, or returns "" when it finds none.
func findProblem(v any, t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		if v == nil {
			return ""
		}
		t = t.Elem()
	}
	if v == nil {
		return ""
	}
	if c, ok := reflect.New(t).Interface().(jsonShaped); ok {
		return c.jsonProblem(v, path)
	}
	switch t.Kind() {
	case reflect.Struct:
		return structProblem(v, t, path)
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return mismatch(path, "an array", v)
		}
		for i, e := range arr {
			if msg := findProblem(e, t.Elem(), path+"["+strconv.Itoa(i)+"]"); msg != "" {
				return msg
			}
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return mismatch(path, "an object", v)
		}
		for _, k := range sortedKeys(obj) {
			if msg := findProblem(obj[k], t.Elem(), joinPath(path, k)); msg != "" {
				return msg
			}
		}
	default:
		return scalarProblem(v, t.Kind(), path)
	}
	return ""
}

func structProblem(v any, t reflect.Type, path string) string {
	obj, ok := v.(map[string]any)
	if !ok {
		return mismatch(path, "an object", v)
	}
	for _, k := range sortedKeys(obj) {
		f, ok := jsonField(t, k)
		if !ok {
			return joinPath(path, k) + ": unknown field"
		}
		if msg := findProblem(obj[k], f.Type, joinPath(path, k)); msg != "" {
			return msg
		}
	}
	return ""
}

func scalarProblem(v any, kind reflect.Kind, path string) string {
	switch kind {
	case reflect.String:
		if _, ok := v.(string); !ok {
			return mismatch(path, "a string", v)
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return mismatch(path, "true or false", v)
		}
	case reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch(path, "a number", v)
		}
		if _, err := n.Float64(); err != nil {
			return path + ": number out of range"
		}
	case reflect.Int, reflect.Int64, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch(path, "an integer", v)
		}
		if _, err := strconv.ParseInt(string(n), 10, 64); err != nil && kind != reflect.Uint64 {
			return path + ": want an integer, got " + string(n)
		}
		if _, err := strconv.ParseUint(string(n), 10, 64); err != nil && kind == reflect.Uint64 {
			return path + ": want an integer >= 0, got " + string(n)
		}
	}
	return ""
}

// jsonField finds the struct field that key decodes into, matching names
// case-insensitively as encoding/json does.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.EqualFold(name, key) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func mismatch(path, want string, got any) string {
	if path == "" {
		path = "document"
	}
	return path + ": want " + want + ", got " + jsonKind(got)
}

func jsonKind(v any) string {
	switch v := v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + string(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}
