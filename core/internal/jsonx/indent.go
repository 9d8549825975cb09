// Package jsonx is the engine's JSON: a writer that gives
// json.MarshalIndent's bytes in a third of the instructions (the result, the
// one encoding every interface hands out), the decimal writer it and the
// dispatch log use, and the strict reader of documents whose errors name the
// field path, the line and the column.
package jsonx

import (
	"encoding"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// MarshalIndent is json.MarshalIndent(v, "", "  "), byte for byte, in about
// a third of the instructions. A result is mostly numbers (its series), and
// json.MarshalIndent encodes it compact, formats every float with the
// general shortest-decimal algorithm, and then runs its JSON scanner over
// every byte to indent it. indentEncoder writes the indented form directly,
// and a float that is a whole number of millionths (as roundF leaves every
// figure) as that decimal, which is then its shortest form (see float).
// Values of a kind the results do not use (a Marshaler, an
// embedded struct, a float32, a []byte...) go to json.MarshalIndent.
//
// sizeHint is the caller's guess at the size. Guessing high is cheap: the
// memory of a large buffer is only touched as it is written, while each
// doubling of a small one clears and copies it all.
func MarshalIndent(v any, sizeHint int) ([]byte, error) {
	e := indentEncoder{b: make([]byte, 0, max(sizeHint, 512))}
	if e.value(reflect.ValueOf(v)) != nil {
		return json.MarshalIndent(v, "", "  ") // its bytes, or its error
	}
	return e.b, nil
}

// Marshal is json.Marshal(v), byte for byte: MarshalIndent's writer
// without its newlines, indentation and the space after each key's colon
// (the compact form a server stores).
func Marshal(v any, sizeHint int) ([]byte, error) {
	e := indentEncoder{b: make([]byte, 0, max(sizeHint, 512)), compact: true}
	if e.value(reflect.ValueOf(v)) != nil {
		return json.Marshal(v) // its bytes, or its error
	}
	return e.b, nil
}

// errNotPlain says a value holds something indentEncoder leaves to
// encoding/json, such as a NaN (encoding/json's error).
var errNotPlain = errors.New("not a plain value")

// indentEncoder appends JSON indented by two spaces per level, as
// json.MarshalIndent(v, "", "  ") writes it.
type indentEncoder struct {
	b       []byte
	depth   int
	compact bool // no newlines, no indentation, no space after a key's colon (Marshal)
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// encodeFunc appends a value of one type.
type encodeFunc func(e *indentEncoder, v reflect.Value) error

var encoders sync.Map // reflect.Type -> encodeFunc

func (e *indentEncoder) value(v reflect.Value) error {
	if !v.IsValid() {
		e.b = append(e.b, "null"...)
		return nil
	}
	return encoderFor(v.Type())(e, v)
}

// encoderFor returns the encodeFunc of t, made once per type (as
// encoding/json makes its own) so that the checks it needs run once.
func encoderFor(t reflect.Type) encodeFunc {
	if f, ok := encoders.Load(t); ok {
		return f.(encodeFunc)
	}
	// A recursive type meets itself while its encoder is made: it then
	// gets this indirect one, which waits for the real one.
	var f encodeFunc
	var ready sync.WaitGroup
	ready.Add(1)
	fi, loaded := encoders.LoadOrStore(t, encodeFunc(func(e *indentEncoder, v reflect.Value) error {
		ready.Wait()
		return f(e, v)
	}))
	if loaded {
		return fi.(encodeFunc)
	}
	f = newEncoder(t)
	ready.Done()
	encoders.Store(t, f)
	return f
}

func notPlain(*indentEncoder, reflect.Value) error { return errNotPlain }

// marshals says whether encoding/json would call a method of t's (or
// *t's) to encode it.
func marshals(t reflect.Type) bool {
	return t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface &&
		(t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
			reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType))
}

func newEncoder(t reflect.Type) encodeFunc {
	if marshals(t) {
		return notPlain
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(e *indentEncoder, v reflect.Value) error {
			e.b = strconv.AppendBool(e.b, v.Bool())
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(e *indentEncoder, v reflect.Value) error {
			e.b = AppendInt(e.b, v.Int())
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(e *indentEncoder, v reflect.Value) error {
			e.b = AppendUint(e.b, v.Uint())
			return nil
		}
	case reflect.Float64:
		return func(e *indentEncoder, v reflect.Value) error { return e.float(v.Float()) }
	case reflect.String:
		return func(e *indentEncoder, v reflect.Value) error {
			e.b = appendString(e.b, v.String())
			return nil
		}
	case reflect.Pointer:
		elem := encoderFor(t.Elem())
		return func(e *indentEncoder, v reflect.Value) error {
			if v.IsNil() {
				e.b = append(e.b, "null"...)
				return nil
			}
			return elem(e, v.Elem())
		}
	case reflect.Interface:
		return func(e *indentEncoder, v reflect.Value) error {
			if v.IsNil() {
				e.b = append(e.b, "null"...)
				return nil
			}
			return e.value(v.Elem())
		}
	case reflect.Struct:
		return structEncoder(t)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return notPlain
		}
		return mapEncoder(encoderFor(t.Elem()))
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return notPlain // base64
		}
		return sliceEncoder(t.Elem())
	}
	return notPlain
}

// newline starts a line at the current depth.
func (e *indentEncoder) newline() {
	if e.compact {
		return
	}
	const spaces = "\n                                "
	if n := 1 + 2*e.depth; n <= len(spaces) {
		e.b = append(e.b, spaces[:n]...)
		return
	}
	e.b = append(e.b, '\n')
	for range e.depth {
		e.b = append(e.b, "  "...)
	}
}

func sliceEncoder(elemType reflect.Type) encodeFunc {
	if elemType == reflect.TypeFor[float64]() {
		// the series, most of a result: read as a []float64, not number by
		// number through reflect
		return func(e *indentEncoder, v reflect.Value) error {
			if v.IsNil() {
				e.b = append(e.b, "null"...)
				return nil
			}
			xs := v.Interface().([]float64)
			return e.elements(len(xs), func(i int) error { return e.float(xs[i]) })
		}
	}
	elem := encoderFor(elemType)
	return func(e *indentEncoder, v reflect.Value) error {
		if v.IsNil() {
			e.b = append(e.b, "null"...)
			return nil
		}
		return e.elements(v.Len(), func(i int) error { return elem(e, v.Index(i)) })
	}
}

// elements writes an array of n elements, each(i) writing the i-th.
func (e *indentEncoder) elements(n int, each func(i int) error) error {
	if n == 0 {
		e.b = append(e.b, "[]"...)
		return nil
	}
	e.b = append(e.b, '[')
	e.depth++
	for i := range n {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.newline()
		if err := each(i); err != nil {
			return err
		}
	}
	e.depth--
	e.newline()
	e.b = append(e.b, ']')
	return nil
}

func mapEncoder(elem encodeFunc) encodeFunc {
	return func(e *indentEncoder, v reflect.Value) error {
		if v.IsNil() {
			e.b = append(e.b, "null"...)
			return nil
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		return e.members(len(keys), func(i int) (string, reflect.Value, bool) {
			return string(appendString(nil, keys[i].String())) + ": ", v.MapIndex(keys[i]), true
		}, func(int) encodeFunc { return elem })
	}
}

func structEncoder(t reflect.Type) encodeFunc {
	fields, err := plainFields(t)
	if err != nil {
		return notPlain
	}
	return func(e *indentEncoder, v reflect.Value) error {
		return e.members(len(fields), func(i int) (string, reflect.Value, bool) {
			f := &fields[i]
			fv := v.Field(f.index)
			return f.key, fv, !f.omitEmpty || !isEmptyValue(fv)
		}, func(i int) encodeFunc { return fields[i].encode })
	}
}

// members writes an object of n members, member(i) giving the i-th's key
// (quoted, with ": "), its value and whether it is written, and enc(i) its
// encoder.
func (e *indentEncoder) members(n int, member func(i int) (string, reflect.Value, bool), enc func(i int) encodeFunc) error {
	e.b = append(e.b, '{')
	e.depth++
	wrote := false
	for i := range n {
		key, fv, ok := member(i)
		if !ok {
			continue
		}
		if wrote {
			e.b = append(e.b, ',')
		}
		wrote = true
		e.newline()
		if e.compact {
			key = key[:len(key)-1] // the space after the colon
		}
		e.b = append(e.b, key...)
		if err := enc(i)(e, fv); err != nil {
			return err
		}
	}
	e.depth--
	if wrote {
		e.newline()
	}
	e.b = append(e.b, '}')
	return nil
}

// plainField is a struct field as encoding/json writes it.
type plainField struct {
	index     int
	encode    encodeFunc
	name      string
	key       string // the quoted name and ": "
	omitEmpty bool
}

// plainFields lists the fields of struct type t encoding/json writes, in
// order, with their encoders; errNotPlain for an embedded field, a tag option other than
// omitempty, or names that are not plainly letters, digits, '_', '-', '.'
// or that repeat (encoding/json has rules of its own for those).
func plainFields(t reflect.Type) ([]plainField, error) {
	var fields []plainField
	var err error
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			err = errNotPlain
			break
		}
		tag := sf.Tag.Get("json")
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		if opts != "" && opts != "omitempty" || !plainName(name) ||
			slices.ContainsFunc(fields, func(f plainField) bool { return f.name == name }) {
			err = errNotPlain
			break
		}
		fields = append(fields, plainField{index: i, name: name, key: `"` + name + `": `, omitEmpty: opts == "omitempty"})
	}
	if err != nil {
		return nil, err
	}
	for i := range fields {
		fields[i].encode = encoderFor(t.Field(fields[i].index).Type)
	}
	return fields, nil
}

func plainName(name string) bool {
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// isEmptyValue is encoding/json's test for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// appendString appends s quoted. A string of printable ASCII with nothing
// to escape (every name a result holds) is copied; any other goes through
// encoding/json, which escapes HTML characters and invalid UTF-8 its way.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// float appends f as encoding/json does: the shortest decimal that reads
// back as f, in exponent form below 1e-6 and from 1e21.
func (e *indentEncoder) float(f float64) error {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return errNotPlain
	}
	if i := int64(f); float64(i) == f && math.Abs(f) < 1e15 && (i != 0 || !math.Signbit(f)) {
		e.b = AppendInt(e.b, i) // a whole number (most series values): its digits
		return nil
	}
	// Fast path: f is the float nearest the decimal k/10^6 of at most 15
	// significant digits. Distinct decimals of at most 15 significant
	// digits never share a float, so no other decimal as short lies in f's
	// rounding interval: that decimal is f's shortest form (and |f| is
	// 0 or at least 1e-6, so no exponent form).
	if k := math.Round(f * 1e6); math.Abs(k) < 1e15 && k/1e6 == f && (k != 0 || !math.Signbit(f)) {
		n := int64(k)
		if n < 0 {
			e.b = append(e.b, '-')
			n = -n
		}
		e.b = AppendUint(e.b, uint64(n/1e6))
		if frac := n % 1e6; frac != 0 {
			var d [7]byte
			d[0] = '.'
			for i := 6; i >= 1; i-- {
				d[i] = byte('0' + frac%10)
				frac /= 10
			}
			end := 7
			for d[end-1] == '0' {
				end--
			}
			e.b = append(e.b, d[:end]...)
		}
		return nil
	}
	abs := math.Abs(f)
	fmt := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		fmt = 'e'
	}
	e.b = strconv.AppendFloat(e.b, f, fmt, -1, 64)
	if fmt == 'e' { // e-09 to e-9, as encoding/json writes it
		n := len(e.b)
		if n >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
			e.b[n-2] = e.b[n-1]
			e.b = e.b[:n-1]
		}
	}
	return nil
}
