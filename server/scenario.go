package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// validID is the form of every id the API hands out: 22 base64url characters
// (132 bits of a SHA-256 for scenarios, 128 random bits for runs). Ids are
// checked against it before they reach the database.
var validID = lazyRegexp(`^[A-Za-z0-9_-]{22}$`)

// idParam returns the :id path parameter, or a 400 problem when malformed.
func idParam(c echo.Context) (string, error) {
	id := c.Param("id")
	if !validID().MatchString(id) {
		return "", malformedID("id", id)
	}
	return id, nil
}

// malformedID is the 400 problem for an id that cannot be one of ours.
func malformedID(field, id string) *Problem {
	p := problemf(http.StatusBadRequest, "malformed-id", "Malformed id",
		"%s %q is not an id: ids are 22 characters of A-Z a-z 0-9 - _", field, id)
	p.Errors = []ProblemItem{{Field: field, Message: "malformed id"}}
	return p
}

// ScenarioID derives the content address of a scenario from its canonical
// JSON: the SHA-256, base64url without padding, cut to 22 characters.
func ScenarioID(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return base64.RawURLEncoding.EncodeToString(sum[:])[:22]
}

// Canonical re-encodes a JSON document with object keys sorted, no
// insignificant whitespace and no HTML escaping. Numbers keep their literal
// text. Malformed JSON is a 400 problem that names line and column.
func Canonical(data []byte) ([]byte, error) {
	data = trimBOM(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, malformedJSON(data, err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return nil, trailingData(data, end)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, malformedJSON(data, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// trimBOM drops a UTF-8 byte order mark before a JSON document, as the
// scenario reader (tuxlb run) does: an editor's "UTF-8 with BOM" is the same
// document. Places in it are then counted after the mark, as an editor shows
// them.
func trimBOM(data []byte) []byte { return bytes.TrimPrefix(data, []byte("\uFEFF")) }

// malformedJSON is the 400 problem for a body that is not JSON, positioned
// at the byte where decoding failed when the decoder says where.
func malformedJSON(data []byte, err error) *Problem {
	eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	switch {
	case eof && len(bytes.TrimSpace(data)) == 0:
		err = errors.New("empty (want a JSON document)")
	case eof:
		err = errors.New("truncated: the document ends before it is complete")
	}
	why := err.Error()
	var syn *json.SyntaxError
	if errors.As(err, &syn) && strings.HasSuffix(why, "exceeded max depth") {
		why = "nested more than 10000 arrays and objects deep" // encoding/json calls the bracket past its limit invalid
	}
	if syn != nil {
		why = nonASCII(data, syn.Offset-1, why)
	}
	p := problemf(http.StatusBadRequest, "malformed-json", "Malformed JSON", "the body is not a JSON document: %s", why)
	if ubb.LooksLike(data) {
		// a UBBCONFIG sent as the body, as `tuxlb run ubb.cfg` takes one
		p.Detail += `; it reads as a UBBCONFIG: send it as the ubbconfig part of a multipart/form-data request (curl -F ubbconfig=@FILE), or as the "ubbconfig" string of a JSON document`
	}
	item := ProblemItem{Message: why}
	if syn != nil {
		item.Line, item.Col = position(data, syn.Offset-1) // Offset counts the bad byte too
	} else if eof {
		item.Line, item.Col = position(data, int64(len(data))) // empty or truncated: at its end
	}
	p.Errors = []ProblemItem{item}
	return p
}

// nonASCII words the byte at off, where encoding/json stopped, as the
// character it starts, or as a byte when it starts none: encoding/json names
// a byte as if it were a character (0xff is 'ÿ', a Latin-1 file's é is 'é',
// not the byte 0xe9 that is no UTF-8).
func nonASCII(data []byte, off int64, why string) string {
	if off < 0 || off >= int64(len(data)) || data[off] < utf8.RuneSelf {
		return why
	}
	seen := "invalid character '" + string(rune(data[off])) + "'"
	if r, size := utf8.DecodeRune(data[off:]); r != utf8.RuneError || size > 1 {
		return strings.Replace(why, seen, fmt.Sprintf("invalid character %q", r), 1)
	}
	return strings.Replace(why, seen, fmt.Sprintf("invalid byte 0x%02x (not UTF-8 text)", data[off]), 1)
}

// trailingData is the 400 problem for a body with more after its JSON
// document, which ends at offset end: placed where the rest starts, in the
// words the CLI's scenario reader uses.
func trailingData(data []byte, end int64) *Problem {
	rest := bytes.TrimLeft(data[min(max(end, 0), int64(len(data))):], " \t\r\n")
	line, col := position(data, int64(len(data)-len(rest)))
	const why = "trailing data after the document"
	p := problemf(http.StatusBadRequest, "malformed-json", "Malformed JSON", "the body is not a JSON document: line %d col %d: %s", line, col, why)
	p.Errors = []ProblemItem{{Line: line, Col: col, Message: why}}
	return p
}

// position turns the 0-based byte offset of a character into a 1-based line
// and column.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// readScenario reads a scenario body: malformed JSON is 400, a document that
// the strict scenario reader rejects (unknown field, wrong type) is 422.
func (s *Server) readScenario(c echo.Context) (*scenario.Scenario, *records.SavedScenario, error) {
	body, err := s.readBody(c)
	if err != nil {
		return nil, nil, err
	}
	canonical, err := Canonical(body)
	if err != nil {
		return nil, nil, err
	}
	sc, err := core.DecodeScenario(body)
	if err != nil {
		return nil, nil, err
	}
	return sc, &records.SavedScenario{ID: ScenarioID(canonical), Name: sc.Name, Body: canonical}, nil
}

// createScenario stores a scenario for sharing: 201 when new, 200 when the
// same scenario was stored before; the id is the same either way.
func (s *Server) createScenario(c echo.Context) error {
	sc, stored, err := s.readScenario(c)
	if err != nil {
		return err
	}
	if err := core.Check(sc); err != nil { // a shared scenario reads and checks as a run's would
		return err
	}
	created, err := s.cfg.Store.PutScenario(c.Request().Context(), stored)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/scenarios/"+stored.ID)
	return c.JSON(status, map[string]string{"id": stored.ID, "url": "/s/" + stored.ID})
}

// getScenario returns a stored scenario's canonical JSON.
func (s *Server) getScenario(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	sc, err := s.cfg.Store.Scenario(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return blobTagged(c, http.StatusOK, echo.MIMEApplicationJSON, sc.Body) // content-addressed: never changes
}

// sharedScenario serves the playground for a short link /s/{id}; the page
// reads the id from its path and fetches the scenario. Unknown and malformed
// ids get the 404 page.
func (s *Server) sharedScenario(c echo.Context) error {
	id := c.Param("id")
	if !validID().MatchString(id) {
		return s.notFoundPage(c)
	}
	if _, err := s.cfg.Store.Scenario(c.Request().Context(), id); err != nil {
		if diag.ErrorCode(err) == diag.ENOTFOUND {
			return s.notFoundPage(c)
		}
		return err
	}
	return s.indexPage(c)
}
