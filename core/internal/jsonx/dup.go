package jsonx

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// duplicateKey finds the first object key that appears twice in the same
// object of the JSON document data, and returns its path (e.g.
// `services.TOUPPER.service_time.ms`) and the line and column of the second
// occurrence. encoding/json would silently keep the last value; a scenario
// that says two things about one field is an error instead. It returns
// ok = false when there is none, or when data is not JSON (the decoder then
// reports that).
func duplicateKey(data []byte) (path string, line, col int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object bool
		keys   map[string]bool
		path   string
		index  int    // arrays: the next element's index
		key    string // objects: the key whose value comes next
		want   bool   // objects: the next string token is a key
	}
	var stack []frame
	// child is the path of the value that starts now.
	child := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := &stack[len(stack)-1]
		if f.object {
			return joinPath(f.path, f.key)
		}
		p := f.path + "[" + strconv.Itoa(f.index) + "]"
		f.index++
		return p
	}
	// done marks the end of a value inside the top frame.
	done := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].want = true
		}
	}
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return "", 0, 0, false
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				p := child()
				stack = append(stack, frame{object: t == '{', path: p, want: t == '{'})
				if t == '{' {
					stack[len(stack)-1].keys = map[string]bool{}
				}
			default:
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].want {
				f := &stack[n-1]
				if f.keys[t] {
					line, col := lineCol(data, int(skipSpaceAndComma(data, before)))
					return joinPath(f.path, t), line, col, true
				}
				f.keys[t], f.key, f.want = true, t, false
				continue
			}
			child()
			done()
		default:
			child()
			done()
		}
		if len(stack) == 0 {
			return "", 0, 0, false
		}
	}
}

// skipSpaceAndComma moves off past the whitespace and the separating comma
// that the decoder's offset stops before, to the token itself.
func skipSpaceAndComma(data []byte, off int64) int64 {
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
