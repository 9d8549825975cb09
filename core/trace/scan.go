package trace

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// scanner reads the records of a CSV text in place: a field is a piece of
// the text, not a copy, unless it is quoted with a doubled quote or over
// several lines. It reads as encoding/csv does with TrimLeadingSpace and
// any number of fields a record (the same fields, the same errors at the
// same line and column), so that a log reads the same as it always has:
// blanks before a field are dropped (a tab too, even when it is the
// delimiter), a quote may only open a field, CRLF ends a line as LF does,
// and empty lines are skipped.
type scanner struct {
	text  string
	off   int  // the start of the next line
	line  int  // lines read
	comma rune // the delimiter
	rec   []string
	buf   []byte // a quoted field being unescaped
	// class marks the bytes that end a plain field: the delimiter and LF
	// (1), the quote (2); classed says it is set, 2 when quick can be used
	class   [256]byte
	classed byte
}

// parseErr is a record's problem, as encoding/csv's ParseError words it.
type parseErr struct {
	start     int // the line the record starts on
	line, col int
	msg       string
}

const (
	errBareQuote = `bare " in non-quoted-field`
	errQuote     = `extraneous or missing " in quoted-field`
)

// readLine returns the next line without its end (LF or CRLF; a CR at the
// end of the text is dropped too), whether a LF ended it, and false at the
// end of the text.
func (s *scanner) readLine() (line string, nl, ok bool) {
	if s.off >= len(s.text) {
		return "", false, false
	}
	rest := s.text[s.off:]
	i := strings.IndexByte(rest, '\n')
	if i < 0 {
		line = rest
		s.off = len(s.text)
	} else {
		line, nl = rest[:i], true
		s.off += i + 1
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	s.line++
	return line, nl, true
}

// skipSpace returns how many leading bytes of line are white space, -1
// when all are.
func skipSpace(line string) int {
	for i := 0; i < len(line); {
		c := line[i]
		if c < utf8.RuneSelf {
			if c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' {
				i++
				continue
			}
			return i
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		if !unicode.IsSpace(r) {
			return i
		}
		i += size
	}
	return -1
}

// next reads the next record; ok is false at the end of the text. A record
// with a problem is returned with it (its fields are not to be used); the
// next call reads the line after the last one it read.
func (s *scanner) next() (rec []string, perr *parseErr, ok bool) {
	if s.classed == 0 {
		s.classed = 1
		if s.comma < utf8.RuneSelf && s.comma != '\t' && s.comma != ' ' && s.comma != '\r' && s.comma != '\v' && s.comma != '\f' {
			s.classed = 2
			s.class[byte(s.comma)], s.class['\n'], s.class['"'] = 1, 1, 2
		}
	}
	if s.classed == 2 {
		if rec, ok := s.quick(); ok {
			return rec, nil, true
		}
	}
	var line string
	var nl bool
	for {
		l, n, more := s.readLine()
		if !more {
			return nil, nil, false
		}
		if l != "" {
			line, nl = l, n
			break
		}
	}
	if s.comma < utf8.RuneSelf && s.comma != '\t' {
		if rec, ok := s.plain(line); ok {
			return rec, nil, true
		}
	}
	s.rec = s.rec[:0]
	commaLen := utf8.RuneLen(s.comma)
	col, posLine, start := 1, s.line, s.line
	for {
		if i := skipSpace(line); i < 0 {
			col += len(line)
			line, nl = "", false
		} else {
			line = line[i:]
			col += i
		}
		if len(line) == 0 || line[0] != '"' {
			var i int
			if s.comma < utf8.RuneSelf {
				i = strings.IndexByte(line, byte(s.comma))
			} else {
				i = strings.IndexRune(line, s.comma)
			}
			field := line
			if i >= 0 {
				field = field[:i]
			}
			if j := strings.IndexByte(field, '"'); j >= 0 {
				return s.rec, &parseErr{start, s.line, col + j, errBareQuote}, true
			}
			s.rec = append(s.rec, field)
			if i < 0 {
				return s.rec, nil, true
			}
			line = line[i+commaLen:]
			col += i + commaLen
			continue
		}
		// a quoted field: a piece of the line when it holds no doubled
		// quote and ends on its line, else unescaped into buf
		line = line[1:]
		col++
		begin, copied := line, false
		s.buf = s.buf[:0]
	quoted:
		for {
			i := strings.IndexByte(line, '"')
			switch {
			case i >= 0:
				piece := line[:i]
				line = line[i+1:]
				col += i + 1
				r, _ := utf8.DecodeRuneInString(line)
				switch {
				case r == '"':
					s.buf = append(s.buf, piece...)
					s.buf = append(s.buf, '"')
					copied = true
					line = line[1:]
					col++
				case r == s.comma || line == "":
					field := begin[:len(begin)-len(line)-1]
					if copied {
						s.buf = append(s.buf, piece...)
						field = string(s.buf)
					}
					s.rec = append(s.rec, field)
					if line == "" {
						return s.rec, nil, true
					}
					line = line[commaLen:]
					col += commaLen
					break quoted
				default:
					return s.rec, &parseErr{start, s.line, col - 1, errQuote}, true
				}
			case line != "" || nl:
				// the field goes on over the next line
				s.buf = append(s.buf, line...)
				if nl {
					s.buf = append(s.buf, '\n')
					col++
				}
				copied = true
				col += len(line)
				l, n, more := s.readLine()
				if l != "" || n {
					posLine++
					col = 1
				}
				if !more {
					l, n = "", false
				}
				line, nl, begin = l, n, l
			default:
				return s.rec, &parseErr{start, posLine, col, errQuote}, true
			}
		}
	}
}

// plain reads a line of ASCII-led fields with no quote, the most of a log,
// in one pass; ok is false for any other line, which next reads in full.
// (A tab delimiter goes to next: the blanks it drops before a field are
// delimiters too.)
func (s *scanner) plain(line string) (rec []string, ok bool) {
	if strings.IndexByte(line, '"') >= 0 {
		return nil, false
	}
	comma := byte(s.comma)
	s.rec = s.rec[:0]
	for {
		i := 0
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\v' || line[i] == '\f') {
			i++
		}
		if i < len(line) && line[i] >= utf8.RuneSelf {
			return nil, false // a field led by another character, which may be a blank
		}
		line = line[i:]
		j := strings.IndexByte(line, comma)
		if j < 0 {
			s.rec = append(s.rec, line)
			return s.rec, true
		}
		s.rec = append(s.rec, line[:j])
		line = line[j+1:]
	}
}

// quick reads the next line in one pass over its bytes when it is plain: not
// empty, no quote, no field led by a blank or a non-ASCII byte. ok is false
// for any other line, with nothing read: next reads it in full.
func (s *scanner) quick() (rec []string, ok bool) {
	text, i := s.text, s.off
	if i >= len(text) || text[i] == '\n' || text[i] == '\r' && (i+1 == len(text) || text[i+1] == '\n') {
		return nil, false // the end, or an empty line
	}
	s.rec = s.rec[:0]
	for {
		if i < len(text) {
			if c := text[i]; c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c >= utf8.RuneSelf {
				return nil, false
			}
		}
		start := i
		for i < len(text) && s.class[text[i]] == 0 {
			i++
		}
		if i < len(text) && text[i] != '\n' {
			if text[i] == '"' {
				return nil, false
			}
			s.rec = append(s.rec, text[start:i]) // the delimiter
			i++
			continue
		}
		end := i
		if end > start && text[end-1] == '\r' { // CRLF, or a CR ending the text
			end--
		}
		s.rec = append(s.rec, text[start:end])
		if i < len(text) {
			i++ // the LF
		}
		s.off = i
		s.line++
		return s.rec, true
	}
}
