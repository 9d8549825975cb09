package server

// A run's result is stored compact (no whitespace between tokens: about a
// third of the bytes result.Encode writes) and shown as `tuxlb run` prints
// it, indented by two spaces with a final newline, wherever the API
// promises those bytes. Both functions below read JSON the server itself
// encoded (result.Encode's output, or a stored result), so they only track
// strings and nesting; they do not check the JSON.

// compactJSON returns src without the whitespace between its tokens: what
// json.Compact gives for valid JSON, in one pass that copies the runs
// between whitespace.
func compactJSON(src []byte) []byte {
	dst := make([]byte, 0, len(src)/2+16)
	start := 0
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == '"':
			i = stringEnd(src, i) + 1
		case space(c):
			dst = append(dst, src[start:i]...)
			for i++; i < len(src) && space(src[i]); i++ {
			}
			start = i
		default:
			i++
		}
	}
	return append(dst, src[start:]...)
}

// space says whether c is JSON whitespace.
func space(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// stringEnd returns the index of the quote that closes the string opening
// at src[i] (len(src)-1 when it is not closed).
func stringEnd(src []byte, i int) int {
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(src) - 1
}

// indentJSON returns src (compact, or indented already: whitespace between
// tokens is dropped first) as json.MarshalIndent(v, "", "  ") writes it,
// with a final newline: the bytes result.Encode gives for the same result.
// Empty objects and arrays stay "{}" and "[]", as encoding/json writes them.
func indentJSON(src []byte) []byte {
	dst := make([]byte, 0, len(src)*3+1)
	depth := 0
	open := false // just after '{' or '[': the next token decides whether it is empty
	const spaces = "\n                                                                "
	newline := func() {
		if n := 1 + 2*depth; n <= len(spaces) {
			dst = append(dst, spaces[:n]...)
			return
		}
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '}', ']':
			depth--
			if !open {
				newline()
			}
			open = false
			dst = append(dst, c)
			continue
		}
		if open {
			newline()
			open = false
		}
		switch c {
		case '{', '[':
			dst = append(dst, c)
			depth++
			open = true
		case ',':
			dst = append(dst, ',')
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		case '"':
			end := stringEnd(src, i)
			dst = append(dst, src[i:end+1]...)
			i = end
		default: // a number or a literal: copy up to the next delimiter
			j := i + 1
			for j < len(src) && !delimiter(src[j]) {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j - 1
		}
	}
	return append(dst, '\n')
}

// delimiter says whether c ends a number or a literal.
func delimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
