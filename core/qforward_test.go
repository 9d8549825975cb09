package core_test

import (
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
)

// Every place an enqueue may stand (a trace row, a stream, a client
// script entry, a call step) issues a request of the queue space's
// service, and each such request that ends stores one message: with no
// forwarder, the queue's enqueued count and its largest depth are the
// queue space's completed requests.
func TestEnqueuesFromEverySourceStoreMessages(t *testing.T) {
	ubbText := `*RESOURCES\nMODEL SHM\n*MACHINES\nn1 LMID=s1\n*GROUPS\nG1 LMID=s1 GRPNO=1\nQG LMID=s1 GRPNO=2\n*SERVERS\n` +
		`app SRVGRP=G1 SRVID=1 CLOPT=\"-s B\"\nTMQUEUE SRVGRP=QG SRVID=1 CLOPT=\"-s QS:TMQUEUE\"\n*SERVICES\nB\n`
	head := `{"ubbconfig": "` + ubbText + `",
	  "qspaces": {"QS": {"queues": {"A": {}}, "enqueue_time": {"dist": "const", "ms": 1}}},
	  "services": {"B": {"service_time": {"dist": "const", "ms": 1}, "calls": [{"enqueue": "QS:A"}]}},`
	for name, workload := range map[string]string{
		"trace":  `"workload": {"trace_csv": "time_ms,service,service_ms,enqueue\n0,,,QS:A\n5,,,QS:A\n"}}`,
		"stream": `"workload": {"generate": {"duration_ms": 100, "streams": [{"enqueue": "QS:A", "arrivals": "constant", "rate_per_s": 50}]}}}`,
		"client": `"workload": {"generate": {"duration_ms": 20, "clients": [{"name": "c", "count": 1, "script": [{"enqueue": "QS:A"}]}]}}}`,
		"call":   `"workload": {"trace": [{"time_ms": 0, "service": "B"}, {"time_ms": 3, "service": "B"}]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			sc, err := core.ParseScenario([]byte(head + workload))
			if err != nil {
				t.Fatalf("ParseScenario: %v", err)
			}
			res, err := core.Run(sc, core.RunOptions{})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var done int64
			for _, s := range res.Services {
				if s.Name == "QS" {
					done = s.Completed
				}
			}
			if len(res.QSpaces) != 1 || len(res.QSpaces[0].Queues) != 1 {
				t.Fatalf("qspaces: %+v", res.QSpaces)
			}
			q := res.QSpaces[0].Queues[0]
			if done < 2 || q.Enqueued != done || q.Depth.Max != done || q.Forwarded != 0 {
				t.Fatalf("QS completed %d; queue A: %+v", done, q)
			}
		})
	}
	// a misspelt queue is named
	_, err := core.ParseScenario([]byte(head + `"workload": {"generate": {"duration_ms": 20, "clients": [{"name": "c", "count": 1, "script": [{"enqueue": "QS:B"}]}]}}}`))
	if err == nil || !strings.Contains(err.Error(), `workload.generate.clients[0].script[0].enqueue: "QS:B": queue space QS has no queue B`) {
		t.Fatalf("got %v", err)
	}
}
