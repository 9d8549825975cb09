package core

import (
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
)

// encoding/json keeps the last of two equal keys; a scenario that gives a
// field twice is refused, naming the field and where the second one is.
func TestDuplicateKeys(t *testing.T) {
	for _, tc := range []struct {
		doc, want string
	}{
		{`{"ubbconfig": "x", "seed": 1, "seed": 2}`, "seed: given twice in one object (scenario line 1 col 31)"},
		{"{\"ubbconfig\": \"x\",\n \"services\": {\"A\": {\"service_time\": {\"dist\": \"const\", \"ms\": 1, \"ms\": 5}}}}",
			"services.A.service_time.ms: given twice in one object (scenario line 2 col 64)"},
		{`{"ubbconfig": "x", "workload": {"trace": [{"time_ms": 1, "service": "A"}, {"time_ms": 2, "service": "A", "service": "B"}]}}`,
			"workload.trace[1].service: given twice"},
		{`{"ubbconfig": "x", "advertise": {"srv": ["A"], "srv": ["B"]}}`, "advertise.srv: given twice"},
	} {
		_, err := ParseScenario([]byte(tc.doc))
		if err == nil || diag.ErrorCode(err) != diag.EINVALID || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant an invalid error containing %q", tc.doc, err, tc.want)
		}
	}
}

// No error message echoes an unbounded input.
func TestErrorfCapsQuotedInput(t *testing.T) {
	long := strings.Repeat("é", 1000) // 2000 bytes
	msg := diag.Errorf(diag.EINVALID, "services.%s: unknown service", long).Message
	if len(msg) > 300 || !strings.HasSuffix(msg, "…(2000 bytes): unknown service") || !strings.HasPrefix(msg, "services.éé") {
		t.Errorf("got %q (%d bytes), want the name cut to 200 bytes with its length", msg, len(msg))
	}
	if got := diag.Errorf(diag.EINVALID, "%s", "short").Message; got != "short" {
		t.Errorf("got %q, want short strings untouched", got)
	}
}

// Text cells that a spreadsheet would run as formulas get an apostrophe.
func TestDispatchLogNeutralisesFormulas(t *testing.T) {
	sc, err := ParseScenario([]byte(`{"ubbconfig": "*RESOURCES\nMODEL SHM\n*MACHINES\nh LMID=s1\n*GROUPS\nG LMID=s1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 CLOPT=\"-s A\"\n",
		"services": {"A": {"service_time": {"dist": "const", "ms": 1}}},
		"workload": {"trace_csv": "time_ms,service,id\n0,A,=1+2\n1,A,+1\n2,A,-2\n3,A,@SUM(A1)\n4,A,plain\n5,A,a=b\n"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if _, err := Run(sc, RunOptions{Dispatch: &log}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n")[1:] {
		ids = append(ids, line[:strings.Index(line, ",A,")])
	}
	want := []string{"'=1+2", "'+1", "'-2", "'@SUM(A1)", "plain", "a=b"}
	if strings.Join(ids, "|") != strings.Join(want, "|") {
		t.Errorf("got ids %q, want %q", ids, want)
	}
}
