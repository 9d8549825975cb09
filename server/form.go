package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// formPart is one part of a multipart/form-data body, read whole.
type formPart struct {
	text string
	file string // the file name a file part was sent with ("" for a field)
}

// formSpec says what parts a form may have: names lists them, want words
// them for messages ("ubbconfig and optionally dmconfig"), and example is
// a curl command that sends a good form.
type formSpec struct {
	names         []string
	want, example string
}

// readForm reads every part of a multipart/form-data body. A part not in
// spec.names, a part given twice and a part that is not UTF-8 are 422
// problems naming the part; a body that is not a form is a 400 in words (the
// reader's own messages say nothing to the caller).
func (s *Server) readForm(c echo.Context, boundary string, spec formSpec) (map[string]formPart, error) {
	if boundary == "" {
		return nil, problemf(http.StatusBadRequest, "malformed-multipart", "Malformed multipart body", "Content-Type has no boundary")
	}
	mr := multipart.NewReader(c.Request().Body, boundary)
	parts := map[string]formPart{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			if len(parts) == 0 {
				return nil, s.formError(errNoPart, boundary, spec)
			}
			return parts, nil
		}
		if err != nil {
			return nil, s.formError(err, boundary, spec)
		}
		name := part.FormName()
		if !slices.Contains(spec.names, name) {
			return nil, partProblem(name, "unknown form part %q: send %s", name, spec.want)
		}
		if _, dup := parts[name]; dup {
			return nil, partProblem(name, "form part %q given twice: send each part once", name)
		}
		data, err := io.ReadAll(part)
		if err != nil {
			return nil, s.formError(err, boundary, spec)
		}
		if !utf8.Valid(data) {
			return nil, notUTF8Part(name, data)
		}
		parts[name] = formPart{text: string(data), file: part.FileName()}
	}
}

// errNoPart is a form body in which the reader found no boundary line.
var errNoPart = errors.New("no part")

// notUTF8Part is the 422 problem of a part that is not UTF-8, positioned
// at its first bad byte.
func notUTF8Part(name string, data []byte) *Problem {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return partProblem(name, "form part %s is gzipped: send its text (gunzip it first; the CLI reads gzipped files itself)", name)
	}
	off := 0
	for off < len(data) {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	line, col := position(data, int64(off))
	p := partProblem(name, "form part %s: line %d col %d: not valid UTF-8 (send the file as UTF-8)", name, line, col)
	p.Errors[0].Line, p.Errors[0].Col = line, col
	return p
}

// formError turns an error of the multipart reader into 413 (the body is
// over the limit) or a 400 that says in words what is wrong.
func (s *Server) formError(err error, boundary string, spec formSpec) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return s.bodyTooLarge()
	}
	if errors.Is(err, errBodyStalled) {
		return s.bodyStalled()
	}
	var what string
	switch {
	case errors.Is(err, errNoPart) || errors.Is(err, io.EOF): // (NextPart wraps the EOF of a body with no boundary line)
		what = fmt.Sprintf("the body has no part: no line --%s starts one", capText(boundary))
	case errors.Is(err, bufio.ErrBufferFull):
		what = "a line of the body outside the parts' contents (a boundary, a header, or text before the first part) is longer than the 4096 bytes a form's lines may have: is the body a form?"
	case errors.Is(err, io.ErrUnexpectedEOF):
		what = fmt.Sprintf("the body ends inside a part, before the closing line --%s--", capText(boundary))
	default:
		what = strings.TrimPrefix(strings.TrimPrefix(err.Error(), "multipart: "), "NextPart: ")
	}
	return problemf(http.StatusBadRequest, "malformed-multipart", "Malformed multipart body",
		"%s (want parts %s, e.g. %s)", what, spec.want, spec.example)
}
