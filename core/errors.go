package core

import (
	"errors"
	"fmt"
	"strconv"

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
// A string argument longer than maxQuoted bytes (a caller's input, most
// likely) is cut, saying how long it was, so that no message echoes
// unbounded input.
func Errorf(code, format string, args ...any) *Error {
	for i, a := range args {
		if s, ok := a.(string); ok && len(s) > maxQuoted {
			args[i] = CapText(s)
		}
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// maxQuoted bounds how much of one input a message quotes.
const maxQuoted = 200

// CapText cuts s to at most 200 bytes (on a UTF-8 character boundary),
// adding how long it was: "abc…(12345 bytes)".
func CapText(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	cut := maxQuoted
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…(" + strconv.Itoa(len(s)) + " bytes)"
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
