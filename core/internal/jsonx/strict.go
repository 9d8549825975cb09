package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tuxlb/tuxlb/core/internal/capped"
)

// DecodeStrict decodes data into v (a pointer to a struct) the way the
// scenario reader wants: unknown fields, wrong types, a key given twice in
// one object and trailing data are errors whose messages name the field
// path, e.g. `workload.generate.streams[1].rate_per_s: want a number, got a
// string`, or the line and column; what names the document in them. Every
// string a message quotes is cut by capped.Text.
func DecodeStrict(data []byte, v any, what string) error {
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // a UTF-8 byte order mark, as UBBCONFIG and CSV allow
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return translateJSONError(data, err, reflect.TypeOf(v), what)
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		rest := bytes.TrimLeft(data[end:], " \t\r\n")
		line, col := lineCol(data, len(data)-len(rest))
		return placed("", line, col, "trailing data after the document", "%s: line %d col %d: trailing data after the document", what, line, col)
	}
	if path, line, col, dup := duplicateKey(data); dup {
		return placed(path, line, col, "given twice in one object; give each key once", "%s: given twice in one object (%s line %d col %d); give each key once", path, what, line, col)
	}
	return CheckText(data, v, what)
}

// DecodeInto is DecodeStrict's decoding for a type's own UnmarshalJSON:
// unknown fields are errors there too. The error is encoding/json's, for the
// outer DecodeStrict to name the field.
func DecodeInto(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	return CheckText(data, v, "this value") // keys are case-sensitive here too
}

// tooDeep is what a document nested past encoding/json's limit is told.
const tooDeep = "nested more than 10000 arrays and objects deep"

// Shaped is a type with its own JSON forms (it decodes itself): it says
// what is wrong with a value that did not decode, for FindProblem.
type Shaped interface {
	JSONProblem(v any, path string) Problem
}

// translateJSONError turns an encoding/json error into one naming the field
// (found by walking the document against the Go type) or the line and column.
func translateJSONError(data []byte, err error, t reflect.Type, what string) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		off := int(syn.Offset) - 1 // the offending byte
		line, col := lineCol(data, off)
		why := strings.TrimPrefix(syn.Error(), "json: ")
		if strings.HasSuffix(why, "exceeded max depth") { // encoding/json calls the bracket past its limit invalid
			why = tooDeep
		}
		if off >= 0 && off < len(data) && data[off] >= utf8.RuneSelf {
			// encoding/json names the byte as if it were a character (0xff is 'ÿ'):
			// name the character it starts, or the byte when it starts none
			seen := "invalid character '" + string(rune(data[off])) + "'"
			if r, size := utf8.DecodeRune(data[off:]); r != utf8.RuneError || size > 1 {
				why = strings.Replace(why, seen, fmt.Sprintf("invalid character %q", r), 1)
			} else {
				why = strings.Replace(why, seen, fmt.Sprintf("invalid byte 0x%02x (not UTF-8 text)", data[off]), 1)
			}
		}
		return placed("", line, col, why, "%s: line %d col %d: %s", what, line, col, why)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return placed("", 0, 0, "empty or truncated document", "%s: empty or truncated document", what)
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if dec.Decode(&doc) == nil {
		if msg := FindProblem(doc, t, ""); msg.Found() {
			return &Error{Field: msg.Path, Why: msg.Why, text: pathText(msg.Path) + ": " + capped.Text(msg.Why)}
		}
	}
	why := strings.TrimPrefix(err.Error(), "json: ")
	return placed("", 0, 0, why, "%s: %s", what, why)
}

// rawMessage is json.RawMessage's type.
var rawMessage = reflect.TypeFor[json.RawMessage]()

// lineCol returns the 1-based line and column of byte offset off in data.
func lineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - bytes.LastIndexByte(before, '\n')
	return line, col
}

// FindProblem walks a generic JSON value against the Go type it should decode
// into and describes the first mismatch, or returns "" when it finds none.
func FindProblem(v any, t reflect.Type, path string) Problem {
	for t.Kind() == reflect.Pointer {
		if v == nil {
			return Problem{}
		}
		t = t.Elem()
	}
	if t == rawMessage { // a json.RawMessage holds any value
		return Problem{}
	}
	if c, ok := reflect.New(t).Interface().(Shaped); ok {
		if v == nil && json.Unmarshal([]byte("null"), c) == nil {
			return Problem{} // a type that decodes itself may take null (a no-op) or refuse it
		}
		return c.JSONProblem(v, path)
	}
	if v == nil {
		return Problem{}
	}
	switch t.Kind() {
	case reflect.Struct:
		return StructProblem(v, t, path)
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return Mismatch(path, "an array", v)
		}
		for i, e := range arr {
			if msg := FindProblem(e, t.Elem(), path+"["+strconv.Itoa(i)+"]"); msg.Found() {
				return msg
			}
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return Mismatch(path, "an object", v)
		}
		for _, k := range sortedKeys(obj) {
			if msg := FindProblem(obj[k], t.Elem(), joinPath(path, k)); msg.Found() {
				return msg
			}
		}
	default:
		return scalarProblem(v, t.Kind(), path)
	}
	return Problem{}
}

// StructProblem is FindProblem for a struct type t: v must be an object whose
// keys are fields of t, each of its type.
func StructProblem(v any, t reflect.Type, path string) Problem {
	obj, ok := v.(map[string]any)
	if !ok {
		return Mismatch(path, "an object", v)
	}
	for _, k := range sortedKeys(obj) {
		f, ok := jsonField(t, k)
		if !ok {
			return Problem{joinPath(path, k), "unknown field"}
		}
		if msg := FindProblem(obj[k], f.Type, joinPath(path, k)); msg.Found() {
			return msg
		}
	}
	return Problem{}
}

func scalarProblem(v any, kind reflect.Kind, path string) Problem {
	switch kind {
	case reflect.String:
		if _, ok := v.(string); !ok {
			return Mismatch(path, "a string", v)
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return Mismatch(path, "true or false", v)
		}
	case reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			return Mismatch(path, "a number", v)
		}
		if _, err := n.Float64(); err != nil {
			return Problem{path, "number out of range"}
		}
	case reflect.Int, reflect.Int64, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok {
			return Mismatch(path, "an integer", v)
		}
		if _, err := strconv.ParseInt(string(n), 10, 64); err != nil && kind != reflect.Uint64 {
			return Problem{path, "want an integer, got " + string(n)}
		}
		if _, err := strconv.ParseUint(string(n), 10, 64); err != nil && kind == reflect.Uint64 {
			return Problem{path, "want a whole number from 0 to 18446744073709551615, got " + string(n)}
		}
	}
	return Problem{}
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

// Mismatch words a value of the wrong kind at path: "path: want WANT, got
// a string".
func Mismatch(path, want string, got any) Problem {
	return Problem{path, "want " + want + ", got " + jsonKind(got)}
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

// Problem is what is wrong with one value of a document: Path is its field
// path (workload.trace[3].service; "" for the document itself), Why what is
// wrong with it. The zero Problem is none.
type Problem struct {
	Path, Why string
}

// Found says whether p is a problem.
func (p Problem) Found() bool { return p.Why != "" }

// String words p as the readers' messages do: "PATH: WHY".
func (p Problem) String() string {
	path := p.Path
	if path == "" {
		path = "document"
	}
	return path + ": " + p.Why
}

// pathText is a field path as a message shows it: "document" for the
// document itself, each step cut by capped.Text, so that a 100 000-byte
// key is cut and the rest of the path kept; a message puts it beside what
// is wrong, which is not cut with it.
func pathText(path string) string {
	if path == "" {
		return "document"
	}
	return capped.Path(path)
}

// Error is the error of DecodeStrict and CheckText: its text, and apart
// from it the field (Field, a Problem's path) and the place in the
// document (Line and Col, 0 when the problem is a value's, not a place's),
// so a caller never has to find them in the text. Why is the text without
// the field.
type Error struct {
	Field     string
	Line, Col int
	Why       string
	text      string
}

// Error returns the message.
func (e *Error) Error() string { return e.text }

// placed is the *Error of a problem at a line and column of the document.
func placed(field string, line, col int, why, format string, args ...any) *Error {
	return &Error{Field: field, Line: line, Col: col, Why: why, text: capped.Sprintf(format, args...)}
}
