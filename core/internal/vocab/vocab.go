// Package vocab is the one shape of the engine's vocabularies: a table of
// names indexed by a small typed constant, read from and written to the
// scenario's text.
package vocab

import (
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/diag"
)

// Table is the table of one vocabulary's names, indexed by its typed
// constants; the first name is the default where the vocabulary has one.
// Every vocabulary of the engine (policies, dispatch reasons, tuning
// readings, arrival processes, distributions) is one such table, so a new
// value is one constant and one name in its table, plus the rule that gives
// it sense.
type Table[T ~uint8] struct {
	What  string // what a value is, for error messages: "policy", "value"
	Names []string
}

// Name returns x's name; a value outside the table is a programming error.
func (v Table[T]) Name(x T) string {
	if int(x) >= len(v.Names) {
		panic("vocab: " + v.What + " " + strconv.Itoa(int(x)) + " has no name")
	}
	return v.Names[x]
}

// Lookup returns the value named s.
func (v Table[T]) Lookup(s string) (T, bool) {
	for i, n := range v.Names {
		if n == s {
			return T(i), true
		}
	}
	return 0, false
}

// Parse reads the value named s for field; "" is the default (the first).
func (v Table[T]) Parse(field, s string) (T, error) {
	if s == "" {
		return 0, nil
	}
	if x, ok := v.Lookup(s); ok {
		return x, nil
	}
	return 0, diag.FieldErrorf(field, "unknown %s %q (want %s)", v.What, s, v.Want())
}

// Want lists the names for an error message: "a or b", "a, b, c".
func (v Table[T]) Want() string {
	if len(v.Names) == 2 {
		return v.Names[0] + " or " + v.Names[1]
	}
	return strings.Join(v.Names, ", ")
}

// List returns a copy of the names, for the page and the API document.
func (v Table[T]) List() []string { return append([]string(nil), v.Names...) }
