package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tuxlb/tuxlb/core/internal/capped"
)

// CheckText checks what encoding/json lets pass silently in a document
// that decodes into v (a pointer to a struct): a string that is not valid
// UTF-8 (the decoder replaces the bad bytes with U+FFFD), and a key that
// differs only in case from a field of the struct it falls in (the decoder
// matches keys case-insensitively, so "SEED" beside "seed" would set the
// seed twice, the last one winning). Either is an error naming the field
// and its line and column; what names the document. Keys of maps
// (service names, LMIDs) are the caller's and are not checked for case.
func CheckText(data []byte, v any, what string) error {
	t := reflect.TypeOf(v)
	valid := utf8.Valid(data)
	if valid && !hasStructKeys(t) {
		return nil
	}
	bad := -1
	if !valid {
		bad = invalidUTF8At(data)
	}
	w := &keyWalker{data: data, bad: int64(bad)}
	if msg := w.walk(t); msg.Found() {
		return &Error{Field: msg.Path, Line: w.line, Col: w.col, Why: msg.Why,
			text: fmt.Sprintf("%s: %s (%s line %d col %d)", pathText(msg.Path), capped.Text(msg.Why), what, w.line, w.col)}
	}
	if bad >= 0 { // not inside a string: the decoder has refused the document already
		line, col := lineCol(data, bad)
		return placed("", line, col, "not valid UTF-8", "%s: line %d col %d: not valid UTF-8", what, line, col)
	}
	return nil
}

// hasStructKeys says whether a document of type t has objects whose keys
// are struct fields.
func hasStructKeys(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.Kind() == reflect.Struct
}

// invalidUTF8At returns the offset of the first byte of data that is not
// part of valid UTF-8, or -1.
func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// keyWalker reads a document that encoding/json has accepted, byte by byte
// against the Go type it decodes into. It builds no tree and no path until
// it finds a problem: a path is a chain of pathNodes on the stack.
type keyWalker struct {
	data      []byte
	i         int
	bad       int64 // offset of the first byte that is not UTF-8, -1 for none
	line, col int   // where the problem found is
	fields    map[reflect.Type]map[string]reflect.Type
}

// structFields returns the fields of the struct t by their exact JSON
// names, each with the container type of its value.
func (w *keyWalker) structFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := w.fields[t]; ok {
		return f
	}
	f := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f[name] = keyContainer(sf.Type)
	}
	if w.fields == nil {
		w.fields = map[reflect.Type]map[string]reflect.Type{}
	}
	w.fields[t] = f
	return f
}

// pathNode is one step of the path to a value: a key, or an array index.
type pathNode struct {
	parent *pathNode
	key    string
	index  int // when key is ""
	array  bool
}

// String is the path as messages give it: workload.trace[3].service.
func (p *pathNode) String() string {
	if p == nil {
		return ""
	}
	parent := p.parent.String()
	if p.array {
		return parent + "[" + strconv.Itoa(p.index) + "]"
	}
	return joinPath(parent, p.key)
}

// walk returns the first problem of the document read as type t, or "".
func (w *keyWalker) walk(t reflect.Type) Problem {
	return w.value(keyContainer(t), nil)
}

// value reads one value of type t (nil: a leaf or unknown) at path.
func (w *keyWalker) value(t reflect.Type, path *pathNode) Problem {
	w.space()
	if w.i >= len(w.data) {
		return Problem{}
	}
	switch w.data[w.i] {
	case '{':
		return w.object(t, path)
	case '[':
		return w.array(t, path)
	case '"':
		start := w.i
		w.str()
		return w.checkUTF8(start, path)
	}
	for w.i < len(w.data) && !strings.ContainsRune(",}] \t\r\n", rune(w.data[w.i])) {
		w.i++
	}
	return Problem{}
}

func (w *keyWalker) object(t reflect.Type, path *pathNode) Problem {
	w.i++ // {
	for {
		w.space()
		if w.i >= len(w.data) || w.data[w.i] == '}' {
			w.i++
			return Problem{}
		}
		start := w.i
		raw := w.str()
		key := string(raw)
		if bytes.IndexByte(raw, '\\') >= 0 {
			_ = json.Unmarshal(w.data[start:w.i], &key)
		}
		node := &pathNode{parent: path, key: key}
		if msg := w.checkUTF8(start, node); msg.Found() {
			return msg
		}
		child, msg := w.field(t, key, node)
		if msg.Found() {
			w.at(start)
			return msg
		}
		w.space()
		w.i++ // :
		if msg := w.value(child, node); msg.Found() {
			return msg
		}
		w.space()
		if w.i < len(w.data) && w.data[w.i] == ',' {
			w.i++
		}
	}
}

func (w *keyWalker) array(t reflect.Type, path *pathNode) Problem {
	w.i++ // [
	var elem reflect.Type
	if t != nil && t.Kind() == reflect.Slice {
		elem = keyContainer(t.Elem())
	}
	for n := 0; ; n++ {
		w.space()
		if w.i >= len(w.data) || w.data[w.i] == ']' {
			w.i++
			return Problem{}
		}
		if msg := w.value(elem, &pathNode{parent: path, index: n, array: true}); msg.Found() {
			return msg
		}
		w.space()
		if w.i < len(w.data) && w.data[w.i] == ',' {
			w.i++
		}
	}
}

// str reads a string starting at the quote and returns its bytes between
// the quotes, escapes as written.
func (w *keyWalker) str() []byte {
	w.i++ // "
	start := w.i
	for w.i < len(w.data) {
		switch w.data[w.i] {
		case '\\':
			w.i += 2
			continue
		case '"':
			w.i++
			return w.data[start : w.i-1]
		}
		w.i++
	}
	return w.data[start:]
}

// checkUTF8 reports the string that started at start and ended at w.i when
// it holds the first byte that is not UTF-8.
func (w *keyWalker) checkUTF8(start int, path *pathNode) Problem {
	if w.bad < int64(start) || w.bad >= int64(w.i) {
		return Problem{}
	}
	w.at(start)
	return Problem{strings.ToValidUTF8(path.String(), "\uFFFD"), "not valid UTF-8 (a byte that is not part of a UTF-8 character)"}
}

func (w *keyWalker) space() {
	for w.i < len(w.data) {
		switch w.data[w.i] {
		case ' ', '\t', '\r', '\n':
			w.i++
			continue
		}
		return
	}
}

// at records the line and column of offset off.
func (w *keyWalker) at(off int) { w.line, w.col = lineCol(w.data, off) }

// keyContainer returns t without pointers when it is a struct, map or slice
// that is decoded field by field, else nil (a leaf, or a type that decodes
// itself).
func keyContainer(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice:
		return t
	}
	return nil
}

// field returns the container type of the value of key in an object of
// type t, or a message when key is not a field of the struct t but differs
// from one only in case.
func (w *keyWalker) field(t reflect.Type, key string, path *pathNode) (reflect.Type, Problem) {
	switch {
	case t == nil:
		return nil, Problem{}
	case t.Kind() == reflect.Map:
		return keyContainer(t.Elem()), Problem{}
	case t.Kind() != reflect.Struct:
		return nil, Problem{}
	}
	fields := w.structFields(t)
	if child, ok := fields[key]; ok {
		return child, Problem{}
	}
	for name := range fields {
		if strings.EqualFold(name, key) {
			return nil, Problem{strings.ToValidUTF8(path.String(), "\uFFFD"), "unknown field (keys are case-sensitive: the field is " + name + ")"}
		}
	}
	return nil, Problem{}
}
