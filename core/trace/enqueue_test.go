package trace

import (
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/ubb"
)

// A trace of the trace format reads its enqueue column: a row with
// "QSPACE:Q" is a request of the queue space's service storing into
// queue Q (with or without a service column); a row giving a service and
// an enqueue, or an unknown queue, is an error naming its row and column.
// A mapped production log's column of that name is one no field uses.
func TestEnqueueColumn(t *testing.T) {
	m := testModel()
	m.Services = append([]ubb.Service{{Name: "QS"}}, m.Services...)
	m.MsgQueues = []ubb.MsgQueue{{QSpace: "QS", Name: "A"}, {QSpace: "QS", Name: "B"}}
	for _, text := range []string{
		"time_ms,service,service_ms,enqueue\n0,TOUPPER,1,\n1,,,QS:B\n",
		"time_ms,enqueue\n0,QS:A\n1,QS:B\n",
	} {
		var rows []Request
		if _, err := ReadCSV(text, nil, NewNames(m), func(r *Request) { rows = append(rows, *r) }); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if last := rows[len(rows)-1]; last.Service != 0 || last.Queue != 2 || last.ServiceUS != -1 {
			t.Errorf("%q: got %+v, want service QS (0), queue 2 (B), no service time", text, last)
		}
	}
	for text, want := range map[string]string{
		"time_ms,service,service_ms,enqueue\n0,TOUPPER,,QS:A\n": `trace row 1: enqueue: give service or enqueue, not both`,
		"time_ms,service,service_ms,enqueue\n0,,1,QS:A\n":       `trace row 1: enqueue: give service or enqueue, not both`,
		"time_ms,enqueue\n0,QS:Z\n":                             `trace row 1: enqueue: "QS:Z": the scenario's qspaces have no queue Z in queue space QS`,
		"time_ms,enqueue\n0,QS\n":                               `trace row 1: enqueue: "QS": want QSPACE:QUEUE`,
		"time_ms,enqueue,enqueue\n0,QS:A,QS:A\n":                `column "enqueue" appears twice`,
	} {
		_, err := ReadCSV(text, nil, NewNames(m), func(*Request) {})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %s", text, err, want)
		}
	}
	note, err := ReadCSV("when,svc,enqueue\n0,TOUPPER,x\n", &Columns{Time: "when", Service: "svc"}, NewNames(testModel()), func(*Request) {})
	if err != nil || !strings.Contains(note, "ignored: enqueue") {
		t.Errorf("mapped log: got note %q, error %v", note, err)
	}
}
