// Package capped words the messages that quote a caller's input: a string
// argument longer than Max bytes (a caller's input, most likely) is cut,
// saying how long it was, so that no message echoes unbounded input.
// diag.Errorf formats its messages with it, and so do the leaf packages
// whose errors core hands on (the strict JSON reader, the trace reader), so
// that a message is worded the same wherever it is made.
package capped

import (
	"fmt"
	"strconv"
	"strings"
)

// Max bounds how much of one input a message quotes.
const Max = 200

// MaxMessage bounds a whole message that is made of the program's words and
// inputs each cut to Max: a bound for a message whose inputs were cut where
// it quotes them, longer than Max so that its own words are not cut.
const MaxMessage = 5 * Max

// Text cuts s to at most Max bytes (on a UTF-8 character boundary), adding
// how long it was: "abc…(12345 bytes)".
func Text(s string) string { return Cut(s, Max) }

// Cut cuts s to at most max bytes (on a UTF-8 character boundary), adding
// how long it was.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// Path cuts each step of a field path (steps joined by ".") by Text: a
// 100 000-byte LMID in machines.LMID.speed is cut, the rest of the path
// kept.
func Path(path string) string {
	if len(path) <= Max {
		return path
	}
	steps := strings.Split(path, ".")
	for i, s := range steps {
		steps[i] = Text(s)
	}
	return strings.Join(steps, ".")
}

// Sprintf is fmt.Sprintf with every string argument cut by Text (in args
// itself).
func Sprintf(format string, args ...any) string {
	for i, a := range args {
		if s, ok := a.(string); ok && len(s) > Max {
			args[i] = Text(s)
		}
	}
	return fmt.Sprintf(format, args...)
}
