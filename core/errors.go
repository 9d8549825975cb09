package core

import (
	"errors"
	"fmt"

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
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

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
