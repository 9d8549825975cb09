package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/tuxlb/tuxlb/core/diag"
)

// ProblemTypeBase prefixes every problem type: "urn:tuxlb:problem:" plus a
// slug that docs/api.md explains (malformed-json, invalid, not-found ...).
const ProblemTypeBase = "urn:tuxlb:problem:"

// Problem is an RFC 9457 problem document, with tuxlb's extension members.
type Problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
	// RequestID is the X-Request-ID of the request, to find its log line.
	RequestID string `json:"request_id,omitempty"`
	// Errors are the individual problems: a field, or a position in a file.
	Errors []ProblemItem `json:"errors,omitempty"`
	// Limit is the limit that was exceeded, for 413 and run-time problems.
	Limit any `json:"limit,omitempty"`

	retryAfter int // seconds, for 503
}

// ProblemItem is one positioned or named problem inside a Problem: which
// input (Source: ubbconfig, dmconfig, scenario, trace, options, or a form
// part), the file it came as, the line and column (for a trace, Line is the
// row), the field path (or the trace's column).
type ProblemItem struct {
	Source   string `json:"source,omitempty"`
	Field    string `json:"field,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Col      int    `json:"col,omitempty"`
	Severity string `json:"severity,omitempty"`
	Message  string `json:"message"`
}

// Error makes a Problem usable as an error returned by handlers.
func (p *Problem) Error() string { return p.Title + ": " + p.Detail }

// problemf returns a Problem of the given status and type slug.
func problemf(status int, slug, title, format string, args ...any) *Problem {
	return &Problem{Type: ProblemTypeBase + slug, Title: title, Status: status, Detail: fmt.Sprintf(format, args...)}
}

// codeProblems maps each core error code to its status, type slug and title:
// the one table that turns domain errors into HTTP.
// A detail in the table replaces the error's message, which then only goes
// to the log (a driver's message names hosts and users).
var codeProblems = map[string]struct {
	status      int
	slug, title string
	detail      string
	retryAfter  int // seconds
}{
	diag.EINVALID:  {status: http.StatusUnprocessableEntity, slug: "invalid", title: "Invalid input"},
	diag.ENOTFOUND: {status: http.StatusNotFound, slug: "not-found", title: "Not found"},
	diag.ECONFLICT: {status: http.StatusConflict, slug: "conflict", title: "Conflict"},
	diag.ETOOLARGE: {status: http.StatusRequestEntityTooLarge, slug: "too-large", title: "Over a limit"},
	diag.ECANCELED: {status: http.StatusServiceUnavailable, slug: "canceled", title: "Run canceled"},
	diag.EUNAVAILABLE: {status: http.StatusServiceUnavailable, slug: "unavailable", title: "Database unavailable",
		detail: "the database does not answer; retry shortly", retryAfter: 2},
	diag.EFULL: {status: http.StatusServiceUnavailable, slug: "storage-full", title: "Database storage full",
		detail: "the database's disk is full (or the database reached its size limit): nothing more can be stored until space is freed; " +
			"the request was not at fault", retryAfter: 60},
	diag.EINTERNAL: {status: http.StatusInternalServerError, slug: "internal", title: "Internal error"},
}

// fromCoreError turns a core error into a Problem, one item per diagnostic.
func fromCoreError(err *diag.Error) *Problem {
	m, ok := codeProblems[err.Code]
	if !ok {
		m = codeProblems[diag.EINTERNAL]
	}
	p := &Problem{Type: ProblemTypeBase + m.slug, Title: m.title, Status: m.status, Detail: err.Message,
		retryAfter: m.retryAfter}
	if m.detail != "" {
		p.Detail = m.detail
	}
	if m.status >= 500 {
		return p
	}
	for _, d := range err.Diagnostics {
		item := ProblemItem{Source: d.Source, Field: d.Field, File: d.File, Line: d.Line, Col: d.Col, Severity: d.Severity, Message: d.Message}
		if d.File == "" && len(err.Diagnostics) == 1 {
			item.Message = err.Message // the whole sentence, the field or row in it
		}
		p.Errors = append(p.Errors, item)
	}
	if len(p.Errors) == 0 {
		p.Errors = []ProblemItem{{Message: err.Message}}
	}
	return p
}

// fromEchoError turns echo's own errors (no route, wrong method, body too
// large) into Problems.
func fromEchoError(he *echo.HTTPError) *Problem {
	switch he.Code {
	case http.StatusNotFound:
		return problemf(he.Code, "not-found", "Not found", "no such resource")
	case http.StatusMethodNotAllowed:
		return problemf(he.Code, "method-not-allowed", "Method not allowed", "this resource does not accept that method")
	case http.StatusRequestEntityTooLarge:
		return problemf(he.Code, "body-too-large", "Body too large", "the request body is over the limit")
	}
	return problemf(he.Code, "http", http.StatusText(he.Code), "%v", he.Message)
}

// handleError is echo's error handler: every error leaves as a problem
// document. Errors that are not the caller's fault are logged with the
// request id, and their details stay in the log.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	var p *Problem
	var ce *diag.Error
	var he *echo.HTTPError
	switch {
	case errors.As(err, &p):
	case errors.As(err, &ce):
		p = fromCoreError(ce)
	case errors.As(err, &he):
		methods := s.allowed(c.Request().URL.Path)
		switch {
		case methods != nil && (he.Code == http.StatusMethodNotAllowed || he.Code == http.StatusNotFound):
			p = s.notAllowed(c, methods)
		case he.Code == http.StatusMethodNotAllowed && strings.HasPrefix(c.Request().URL.Path, "/api/"):
			p = fromEchoError(echo.ErrNotFound) // no API route has this path: only the playground's catch-all matched
		default:
			p = fromEchoError(he)
		}
	default:
		p = fromCoreError(&diag.Error{Code: diag.EINTERNAL})
	}
	if pd := publicDetail(err); pd != "" && p.Status == http.StatusServiceUnavailable {
		p.Detail = pd
	}
	switch {
	case p.Type == ProblemTypeBase+"busy":
		// every run slot taken: load, answered with Retry-After, not a fault
		s.log.Warn("request refused: busy", "request_id", requestIDOf(c), "status", p.Status)
	case p.Status >= 500:
		s.log.Error("request failed", "request_id", requestIDOf(c), "status", p.Status, "err", err)
		if p.Status == http.StatusInternalServerError {
			p.Detail = "an internal error occurred; quote request id " + requestIDOf(c)
		}
	}
	s.writeProblem(c, p)
}

// publicDetail is the detail of an error that says it may be shown to
// clients (storage's faults of the database file name the file and what to
// do, and nothing of the driver), else "".
func publicDetail(err error) string {
	var pub interface{ PublicDetail() string }
	if errors.As(err, &pub) {
		return pub.PublicDetail()
	}
	return ""
}

// writeProblem sends p as application/problem+json.
func (s *Server) writeProblem(c echo.Context, p *Problem) {
	out := *p
	// Messages built elsewhere (a parser's diagnostics) may quote input too:
	// no text of a problem document passes maxProblemText bytes.
	out.Detail = capLong(out.Detail)
	if len(out.Errors) > 0 {
		out.Errors = append([]ProblemItem(nil), out.Errors...)
		for i := range out.Errors {
			out.Errors[i].Message, out.Errors[i].Field = capLong(out.Errors[i].Message), capLong(out.Errors[i].Field)
		}
	}
	out.Instance = capLong(c.Request().URL.Path)
	out.RequestID = requestIDOf(c)
	h := c.Response().Header()
	if out.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(out.retryAfter))
	}
	body, err := json.Marshal(out)
	if err != nil {
		body = []byte(`{"type":"urn:tuxlb:problem:internal","title":"Internal error","status":500}`)
	}
	h.Set(echo.HeaderContentType, "application/problem+json")
	if err := c.Blob(out.Status, "application/problem+json", body); err != nil {
		s.log.Warn("write problem", "request_id", out.RequestID, "err", err)
	}
}

// maxProblemText bounds every text of a problem document.
const maxProblemText = 2000

// capLong cuts s to maxProblemText bytes, saying how long it was.
func capLong(s string) string {
	if len(s) <= maxProblemText {
		return s
	}
	cut := maxProblemText
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…(" + strconv.Itoa(len(s)) + " bytes)"
}
