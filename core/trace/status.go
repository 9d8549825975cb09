package trace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/internal/capped"
)

// Status is a request's outcome, as a log's status column gives it.
type Status uint8

const (
	// StatusOK is a request that succeeded, or whose log says nothing of
	// its outcome.
	StatusOK Status = iota
	// StatusFailed is a request that failed after it reached a server
	// (TPESVCFAIL, TPETIME, FAIL, rc -1...): it loaded the servers as
	// any request does, but its response is no success's.
	StatusFailed
	// StatusNotSent is a request whose failure says it never reached a
	// server (TPENOENT, TPEINVAL, TPELIMIT, TPEBLOCK, TPEPROTO, TPEITYPE,
	// TPEPERM, TPETRAN: those ULOG fits do not count as arrivals either).
	StatusNotSent
)

// successWords and failureWords are the words of a status column, upper
// case; a word starting with TPE is a tperrno name, a failure.
var (
	successWords = []string{"OK", "SUCCESS", "SUCCEEDED", "SUCCESSFUL", "TPSUCCESS", "PASS", "PASSED", "TRUE", "YES", "Y", "DONE"}
	failureWords = []string{"FAIL", "FAILED", "FAILURE", "ERROR", "ERR", "KO", "NOK", "NOTOK", "NOT_OK", "FALSE", "NO", "N",
		"TPFAIL", "TPEXIT", "TIMEOUT", "TIMEDOUT", "ABORTED", "REJECTED"}
)

// notSent are the tperrno values of a call that never reached a server,
// by name and by atmi.h's code: the ULOG reader's (ulog.Undelivered).
var notSent = map[string]int{"TPEBLOCK": 3, "TPEINVAL": 4, "TPELIMIT": 5, "TPENOENT": 6, "TPEPERM": 8, "TPEPROTO": 9,
	"TPETRAN": 14, "TPEITYPE": 17}

// NotSent says whether tperrno name e is one of a call that never reached
// a server.
func NotSent(e string) bool {
	_, ok := notSent[e]
	return ok
}

// StatusColumn is how a status column's name says its cells are read.
type StatusColumn uint8

const (
	// StatusWords: a status, result, rc... column: words and codes.
	StatusWords StatusColumn = iota
	// StatusErrno: a tperrno column: its numbers are tperrno codes.
	StatusErrno
	// StatusErrorText: an error column (error, err, error_message...):
	// any text but a success word or 0 is an error's message, a failure.
	StatusErrorText
)

// StatusColumnOf is the kind of the status column named name (as written
// in the header): tperrno or errno, error, err, error_message, errmsg or
// error_text (with any unit or spelling: normColumn), else words.
func StatusColumnOf(name string) StatusColumn {
	n, _ := splitUnit(normColumn(name))
	switch n {
	case "tperrno", "errno":
		return StatusErrno
	case "error", "err", "error_message", "errmsg", "error_msg", "error_text":
		return StatusErrorText
	}
	return StatusWords
}

// ReadStatus reads a status cell (trimmed, not empty) of a column of kind
// col: the outcome it says, false when it says none. The rule, case aside:
//   - a success word (OK, SUCCESS, TPSUCCESS, TRUE, YES...) or the number 0
//     is a success;
//   - a failure word (FAIL, FAILED, ERROR, ERR, KO, FALSE, NO, TPFAIL,
//     TIMEOUT...), a tperrno name (any word starting with TPE: TPESVCFAIL,
//     TPETIME...) or a non-zero integer (-1, 11) is a failure;
//   - a failure that never reached a server, TPENOENT, TPEINVAL, TPELIMIT,
//     TPEBLOCK, TPEPROTO, TPEITYPE, TPEPERM or TPETRAN by name, or by its
//     code (6, 4, 5, 3, 9, 17, 8, 14) in a tperrno column (StatusErrno),
//     is StatusNotSent;
//   - in a status or result column, an HTTP status (200 to 599, alone or
//     before its reason: "503 Service Unavailable") is a success below
//     400 and a failure from 400;
//   - anything else (a word of neither list, a fraction) is no outcome,
//     but in an error column (StatusErrorText), where it is the error's
//     message: a failure.
func ReadStatus(cell string, col StatusColumn) (Status, bool) {
	if code, ok := httpStatus(cell); ok && col == StatusWords {
		// an HTTP status (a gateway's or a web front end's export): 2xx
		// and 3xx a success, 4xx and 5xx a failure
		if code < 400 {
			return StatusOK, true
		}
		return StatusFailed, true
	}
	if n, err := strconv.ParseInt(cell, 10, 64); err == nil {
		switch {
		case n == 0:
			return StatusOK, true
		case col == StatusErrno:
			for _, code := range notSent {
				if int64(code) == n {
					return StatusNotSent, true
				}
			}
		}
		return StatusFailed, true
	}
	w := strings.ToUpper(cell)
	for _, s := range successWords {
		if w == s {
			return StatusOK, true
		}
	}
	for _, f := range failureWords {
		if w == f {
			return StatusFailed, true
		}
	}
	if len(w) > 3 && strings.HasPrefix(w, "TPE") && isWord(w[3:]) {
		if _, ok := notSent[w]; ok {
			return StatusNotSent, true
		}
		return StatusFailed, true
	}
	if col == StatusErrorText {
		return StatusFailed, true
	}
	return StatusOK, false
}

// httpStatus reads an HTTP status, a cell of three digits from 200 to 599
// alone or before a blank and its reason ("200", "503 Service
// Unavailable"): no return code or tperrno is that large.
func httpStatus(cell string) (int, bool) {
	digits, _, _ := strings.Cut(cell, " ")
	if len(digits) != 3 || (len(digits) != len(cell) && cell[3] != ' ') {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 200 || n > 599 {
		return 0, false
	}
	return n, true
}

// isWord says whether w is all letters A-Z.
func isWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'A' || w[i] > 'Z' {
			return false
		}
	}
	return true
}

// statusProblem words a status cell that says no outcome.
func statusProblem(c string) string {
	return fmt.Sprintf("%q is neither a success (OK, SUCCESS, TPSUCCESS, TRUE, 0, or empty) nor a failure (FAIL, ERROR, KO, FALSE, TPFAIL, "+
		"a TPE... name, a non-zero number): map the column that holds the outcome with status=COLUMN",
		capped.Text(c))
}
