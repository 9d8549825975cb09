package core

import (
	"errors"

	"github.com/tuxlb/tuxlb/core/internal/capped"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// Error codes: the whole error vocabulary of tuxlb. storage translates driver
// errors into it, server maps each code to one HTTP status, wasm hands
// JavaScript {code, message}.
const (
	EINVALID     = "invalid"   // the caller's input is wrong
	ENOTFOUND    = "not_found" // no such thing
	ECONFLICT    = "conflict"
	ETOOLARGE    = "too_large"   // input over a documented limit
	ECANCELED    = "canceled"    // the run was stopped from outside
	EUNAVAILABLE = "unavailable" // the database server does not answer now; retrying later may succeed
	EINTERNAL    = "internal"
)

// Error is a domain error with a code and a message meant for the user.
// Diagnostics, when present, are the individual positioned problems.
type Error struct {
	Code        string       `json:"code"`
	Message     string       `json:"message"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	// Limit names the RunOptions limit a too_large error passed
	// (LimitRequests, LimitInFlight), so callers can name their own flag.
	Limit string `json:"-"`
}

// The limits a too_large run error can name in Error.Limit.
const (
	LimitRequests = "max_requests"
	LimitInFlight = "max_in_flight"
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

// invalid returns err, a problem with the caller's input worded by a leaf
// package (the JSON reader, the trace reader) whose string arguments are
// already cut, as an EINVALID *Error with its message.
func invalid(err error) *Error {
	return &Error{Code: EINVALID, Message: err.Error()}
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
	return &Error{Code: EINVALID, Message: ubb.ErrorList(diags).Error(), Diagnostics: diags}
}
