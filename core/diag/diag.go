// Package diag is tuxlb's domain error: a code from one small vocabulary
// (invalid, not_found, conflict, ...) that storage, the server and the
// WebAssembly bridge map to their own terms, a message meant for the user
// and, for a problem with an input, its diagnostics, each positioned in the
// input it is about (a file's line and column, a field of the scenario, a
// row of the trace). Every package of the domain words its errors with it.
package diag

import (
	"errors"
	"strings"

	"github.com/tuxlb/tuxlb/core/internal/capped"
	"github.com/tuxlb/tuxlb/core/internal/jsonx"
)

// Error codes: the whole error vocabulary of tuxlb. storage translates driver
// errors into it, server maps each code to one HTTP status, wasm hands
// JavaScript {code, message}.
const (
	EINVALID     = "invalid"   // the caller's input is wrong
	ENOTFOUND    = "not_found" // no such thing
	ECONFLICT    = "conflict"
	ETOOLARGE    = "too_large"    // input over a documented limit
	ECANCELED    = "canceled"     // the run was stopped from outside
	EUNAVAILABLE = "unavailable"  // the database server does not answer now; retrying later may succeed
	EFULL        = "storage_full" // the database's disk (or its size limit) is full: the server's condition, not the request's
	EINTERNAL    = "internal"
)

// Error is a domain error with a code and a message meant for the user.
// Diagnostics, when present, are the individual problems, each positioned
// in its input (a file's line and column, a field of the scenario, a row of
// the trace): an invalid error about a configuration file has one per
// problem, one about a field of the scenario ([FieldErrorf]) has one.
type Error struct {
	Code        string       `json:"code"`
	Message     string       `json:"message"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	// Limit names the RunOptions limit a too_large error passed
	// (LimitRequests, LimitInFlight), so callers can name their own flag.
	Limit string `json:"-"`
}

// The limits a too_large run error can name in Error.Limit: the fields of
// core.RunOptions that bound a run.
const (
	LimitRequests = "max_requests"
	LimitInFlight = "max_in_flight"
	LimitRunTime  = "max_run_time" // a run, point or variant that did not finish in its time
)

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
// A string argument longer than 200 bytes (a caller's input, most likely)
// is cut, saying how long it was, so that no message echoes unbounded input
// (see [CapText]).
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: capped.Sprintf(format, args...)}
}

// FieldErrorf returns the EINVALID *Error of one field of an input: its
// message is "FIELD: MESSAGE" (the field path as docs/scenario.md writes
// it: services.A.service_time.mean_ms, events[2].at_ms), and its one
// Diagnostic carries the field apart (Source "scenario"), so no caller has
// to find the field in the text. The field is cut as Errorf cuts a string
// argument.
func FieldErrorf(field, format string, args ...any) *Error {
	field = capped.Path(field)
	msg := capped.Sprintf(format, args...)
	return &Error{Code: EINVALID, Message: field + ": " + msg,
		Diagnostics: []Diagnostic{{Field: field, Severity: SeverityError, Message: msg}}}
}

// Invalid returns err, a problem with the caller's input worded by a leaf
// package (the JSON reader, the trace reader, the UBBCONFIG editor) whose
// string arguments are already cut, as an EINVALID *Error with its message.
// A JSON document's error (jsonx.Error) keeps its field and place as
// the error's one Diagnostic.
func Invalid(err error) *Error {
	e := &Error{Code: EINVALID, Message: err.Error()}
	var je *jsonx.Error
	var pe Positioned
	switch {
	case errors.As(err, &je):
		e.Diagnostics = []Diagnostic{{Field: je.Field, Line: je.Line, Col: je.Col, Severity: SeverityError, Message: je.Why}}
	case errors.As(err, &pe):
		e.Diagnostics = []Diagnostic{pe.Diagnostic()}
	}
	return e
}

// Positioned is an error of a reader above this package (the trace
// reader's, say) that knows where in its input it is: Invalid keeps that
// place as the error's one Diagnostic.
type Positioned interface {
	error
	Diagnostic() Diagnostic
}

// InSource says which input err is about, for the diagnostics that do not
// say it yet (a problem with a field of the scenario is worded where the
// field is checked, which does not know how the scenario came).
func InSource(err error, source string) error {
	var e *Error
	if errors.As(err, &e) {
		for i := range e.Diagnostics {
			if e.Diagnostics[i].Source == "" {
				e.Diagnostics[i].Source = source
			}
		}
	}
	return err
}

// JoinAnd lists names for a message: "none", "a", "a and b", "a, b and c".
func JoinAnd(names []string) string {
	switch len(names) {
	case 0:
		return "none"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// CapText cuts s to at most 200 bytes (on a UTF-8 character boundary),
// adding how long it was: "abc…(12345 bytes)".
func CapText(s string) string { return capped.Text(s) }

// ErrorCode returns the code of err if it is (or wraps) an *Error, else EINTERNAL.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err == nil {
		return ""
	}
	return EINTERNAL
}

// ConfigError returns an EINVALID *Error carrying diagnostics; its message is
// the diagnostics one per line.
func ConfigError(diags ...Diagnostic) *Error {
	return &Error{Code: EINVALID, Message: ErrorList(diags).Error(), Diagnostics: diags}
}
