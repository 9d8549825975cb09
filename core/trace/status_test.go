package trace

import (
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/ulog"
)

// A replay leaves out the calls a ULOG fit does not count as arrivals:
// the same tperrno names never reached a server.
func TestNotSentAsULOG(t *testing.T) {
	for _, e := range []string{"TPEABORT", "TPEBADDESC", "TPEBLOCK", "TPEINVAL", "TPELIMIT", "TPENOENT", "TPEOS", "TPEPERM",
		"TPEPROTO", "TPESVCERR", "TPESVCFAIL", "TPESYSTEM", "TPETIME", "TPETRAN", "TPGOTSIG", "TPERMERR", "TPEITYPE",
		"TPEOTYPE", "TPERELEASE", "TPEHAZARD", "TPEHEURISTIC", "TPEEVENT", "TPEMATCH", "TPEDIAGNOSTIC", "TPEMIB"} {
		if NotSent(e) != ulog.Undelivered(e) {
			t.Errorf("%s: never reached a server %v here, %v for a ULOG", e, NotSent(e), ulog.Undelivered(e))
		}
	}
}

// The rule of a status cell, value by value: success words and 0 are
// successes, failure words, TPE names and non-zero integers failures, the
// names of a call that never reached a server (and their codes in a
// tperrno column) StatusNotSent; anything else says no outcome.
func TestReadStatus(t *testing.T) {
	const none = Status(255)
	for _, c := range []struct {
		cell  string
		errno bool
		want  Status
	}{
		{"OK", false, StatusOK}, {"ok", false, StatusOK}, {"Success", false, StatusOK}, {"TPSUCCESS", false, StatusOK},
		{"true", false, StatusOK}, {"0", false, StatusOK}, {"0", true, StatusOK}, {"-0", false, StatusOK}, {"YES", false, StatusOK},
		{"FAIL", false, StatusFailed}, {"failed", false, StatusFailed}, {"Error", false, StatusFailed}, {"ERR", false, StatusFailed},
		{"KO", false, StatusFailed}, {"false", false, StatusFailed}, {"TPFAIL", false, StatusFailed},
		{"TPESVCFAIL", false, StatusFailed}, {"tpetime", false, StatusFailed}, {"TPESVCERR", false, StatusFailed},
		{"TPESOMETHINGNEW", false, StatusFailed}, {"-1", false, StatusFailed}, {"11", false, StatusFailed}, {"11", true, StatusFailed},
		{"13", true, StatusFailed},
		// a number is a tperrno code only in a tperrno column: rc 6 is a failure
		{"6", false, StatusFailed}, {"6", true, StatusNotSent}, {"4", true, StatusNotSent}, {"17", true, StatusNotSent},
		{"TPENOENT", false, StatusNotSent}, {"tpenoent", true, StatusNotSent}, {"TPEINVAL", false, StatusNotSent},
		{"TPELIMIT", false, StatusNotSent}, {"TPEBLOCK", false, StatusNotSent}, {"TPEPROTO", false, StatusNotSent},
		{"TPEITYPE", false, StatusNotSent}, {"TPEPERM", false, StatusNotSent}, {"TPETRAN", false, StatusNotSent},
		{"MAYBE", false, none}, {"1.5", false, none}, {"TPE", false, none}, {"TPE_X", false, none}, {"OK!", false, none},
		// an HTTP status, in a status column: 2xx and 3xx a success, 4xx and 5xx a failure
		{"200", false, StatusOK}, {"200 OK", false, StatusOK}, {"302 Found", false, StatusOK}, {"404", false, StatusFailed},
		{"503 Service Unavailable", false, StatusFailed}, {"200", true, StatusFailed}, {"2000", false, StatusFailed},
		{"199", false, StatusFailed}, {"600", false, StatusFailed}, {"200OK", false, none},
	} {
		col := StatusWords
		if c.errno {
			col = StatusErrno
		}
		got, ok := ReadStatus(c.cell, col)
		if !ok {
			got = none
		}
		if got != c.want {
			t.Errorf("ReadStatus(%q, errno %v) = %d, want %d", c.cell, c.errno, got, c.want)
		}
	}
	// an error column: its text is a failure's message
	for cell, want := range map[string]Status{"Service unavailable": StatusFailed, "OK": StatusOK, "0": StatusOK,
		"TPENOENT": StatusNotSent, "-1": StatusFailed, "1.5": StatusFailed} {
		if got, ok := ReadStatus(cell, StatusErrorText); !ok || got != want {
			t.Errorf("ReadStatus(%q, error text) = %d %v, want %d", cell, got, ok, want)
		}
	}
	for name, want := range map[string]StatusColumn{"Status": StatusWords, "RC": StatusWords, "TPERRNO": StatusErrno,
		"tp errno": StatusWords, "errno": StatusErrno, "Error": StatusErrorText, "Error Message": StatusErrorText,
		"ERR": StatusErrorText, "error_code": StatusWords, "Result": StatusWords} {
		if got := StatusColumnOf(name); got != want {
			t.Errorf("StatusColumnOf(%q) = %d, want %d", name, got, want)
		}
	}
}

// statuses reads text and returns each row's status, or the error.
func statuses(t *testing.T, text string, cols *Columns, opt Options) ([]Status, Info, error) {
	t.Helper()
	var out []Status
	info, err := Read(text, cols, opt, NewNames(testModel()), func(r *Request) { out = append(out, r.Status) })
	return out, info, err
}

// The status column is found by its common names, in any case and
// spelling, or mapped by status=COLUMN; it is listed in the note and the
// columns read. A number in a column named tperrno is a tperrno code.
func TestStatusColumn(t *testing.T) {
	F, N, K := StatusFailed, StatusNotSent, StatusOK
	for _, c := range []struct {
		text   string
		cols   *Columns
		want   []Status
		column string
	}{
		{"ts,svc,Status\n0,TOUPPER,OK\n1,TOUPPER,TPESVCFAIL\n2,TOUPPER,TPENOENT\n3,TOUPPER,\n", nil, []Status{K, F, N, K}, "Status"},
		{"ts,svc,RC\n0,TOUPPER,0\n1,TOUPPER,-1\n2,TOUPPER,6\n", nil, []Status{K, F, F}, "RC"},
		{"ts,svc,TPERRNO\n0,TOUPPER,0\n1,TOUPPER,11\n2,TOUPPER,6\n", nil, []Status{K, F, N}, "TPERRNO"},
		{"ts,svc,Return Code\n0,TOUPPER,0\n1,TOUPPER,1\n", nil, []Status{K, F}, "Return Code"},
		{"ts,svc,Result\n0,TOUPPER,SUCCESS\n1,TOUPPER,ERROR\n", nil, []Status{K, F}, "Result"},
		{"ts,svc,Error\n0,TOUPPER,\n1,TOUPPER,Service unavailable\n2,TOUPPER,TPENOENT\n", nil, []Status{K, F, N}, "Error"},
		// status before result: the first common name wins
		{"ts,svc,result,status\n0,TOUPPER,ERROR,OK\n", nil, []Status{K}, "status"},
		// mapped: a column of no common name
		{"ts,svc,Outcome Code\n0,TOUPPER,KO\n1,TOUPPER,ok\n", &Columns{Status: "Outcome Code"}, []Status{F, K}, "Outcome Code"},
		{"ts,svc,ret,rc\n0,TOUPPER,FAIL,0\n", &Columns{Status: "ret"}, []Status{F}, "ret"},
		// the trace format has a status column too
		{"time_ms,service,status\n0,TOUPPER,TPETIME\n5,TOUPPER,OK\n", nil, []Status{F, K}, "status"},
	} {
		for _, fast := range []bool{true, false} {
			got := transcriptStatus(t, c.text, c.cols, fast)
			if strings.Join(got, " ") != strings.Join(statusNames(c.want), " ") {
				t.Errorf("%q (fast %v): statuses %v, want %v", c.text, fast, got, statusNames(c.want))
			}
		}
		_, info, err := statuses(t, c.text, c.cols, Options{})
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if info.Columns[c.column] != "status" {
			t.Errorf("%q: columns %v, want %q read as status", c.text, info.Columns, c.column)
		}
		if info.Note != "" && !strings.Contains(info.Note, `status from column "`+c.column+`"`) {
			t.Errorf("%q: note %q does not say the status column", c.text, info.Note)
		}
	}
	// a log without one: every row a success, no status among its columns
	got, info, err := statuses(t, "ts,svc,note\n0,TOUPPER,FAIL\n", nil, Options{})
	if err != nil || len(got) != 1 || got[0] != StatusOK || info.Columns["note"] != "ignored" {
		t.Errorf("a log without a status column: %v %v %v", got, info.Columns, err)
	}
	// a mapped column that is not there
	if _, _, err := statuses(t, "ts,svc\n0,TOUPPER\n", &Columns{Status: "rc"}, Options{}); err == nil || !strings.Contains(err.Error(), `workload.columns.status: no column "rc"`) {
		t.Errorf("a mapped status column missing: %v", err)
	}
}

// transcriptStatus reads text with the fast path on or off and returns
// each row's status by name, or the error.
func transcriptStatus(t *testing.T, text string, cols *Columns, fast bool) []string {
	t.Helper()
	rd, err := NewReader(text, cols, Options{}, NewNames(testModel()))
	if err != nil {
		return []string{"header: " + err.Error()}
	}
	if !fast {
		rd.roles = nil
	}
	var out []string
	var r Request
	for {
		ok, err := rd.Next(&r)
		if err != nil {
			return append(out, err.Error())
		}
		if !ok {
			return out
		}
		out = append(out, statusNames([]Status{r.Status})...)
	}
}

func statusNames(s []Status) []string {
	out := make([]string, len(s))
	for i, st := range s {
		out[i] = [...]string{"ok", "failed", "not-sent"}[st]
	}
	return out
}

// A status that says no outcome is an error naming the row and the
// column, by either reading; trace_skip_bad skips the row and counts it.
func TestStatusBadValue(t *testing.T) {
	text := "ts,svc,Status\n0,TOUPPER,OK\n1,TOUPPER,MAYBE\n2,TOUPPER,FAIL\n"
	want := `trace row 2: Status: "MAYBE" is neither a success`
	for _, fast := range []bool{true, false} {
		got := transcriptStatus(t, text, nil, fast)
		if len(got) != 2 || !strings.HasPrefix(got[1], want) {
			t.Errorf("fast %v: %q, want the first row then %s...", fast, got, want)
		}
	}
	_, _, err := statuses(t, text, nil, Options{})
	var e *Error
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want %s...", err, want)
	}
	if e = err.(*Error); e.Row != 2 || e.Column != "Status" {
		t.Errorf("error at row %d column %q, want row 2 column Status", e.Row, e.Column)
	}
	got, info, err := statuses(t, text, nil, Options{SkipBad: true})
	if err != nil || len(got) != 2 || got[0] != StatusOK || got[1] != StatusFailed || info.Skipped != 1 ||
		len(info.Examples) != 1 || !strings.HasPrefix(info.Examples[0], `row 2: Status: "MAYBE"`) {
		t.Errorf("skip bad: %v %+v %v, want rows 1 and 3 and row 2 skipped", got, info, err)
	}
}
