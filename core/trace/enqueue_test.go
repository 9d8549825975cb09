package trace

import (
	"strings"
	"testing"
)

// A trace of the trace format with an enqueue column is refused, naming
// the column: /Q is read and checked, not played, and an enqueue must not
// be dropped silently. A mapped production log's column of that name is
// one of the columns no field uses.
func TestEnqueueColumnRefused(t *testing.T) {
	for _, text := range []string{
		"time_ms,service,service_ms,enqueue\n0,,,QS:A\n",
		"time_ms,enqueue\n0,QS:A\n", // without a service column, still the trace format's column
	} {
		_, err := ReadCSV(text, nil, NewNames(testModel()), func(*Request) {})
		if err == nil || !strings.Contains(err.Error(), `trace_csv: column "enqueue": /Q forwarding is not simulated by this version of the engine`) {
			t.Errorf("%q: got %v", text, err)
		}
	}
	note, err := ReadCSV("when,svc,enqueue\n0,TOUPPER,x\n", &Columns{Time: "when", Service: "svc"}, NewNames(testModel()), func(*Request) {})
	if err != nil || !strings.Contains(note, "ignored: enqueue") {
		t.Errorf("mapped log: got note %q, error %v", note, err)
	}
}
