package core_test

import (
	"bytes"
	"math"
	"runtime"
	"strconv"
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

// A /Q forward is explained by its id as the dispatch log writes it: a
// forward issued by its TMQFORWARD instance from the forwarder's machine;
// the retries of one message are told apart by ~k.
func TestExplainForward(t *testing.T) {
	sc := readScenario(t, "../testdata/spec/203-retried-twice-then-error-queue")
	for _, id := range []string{"SVC#0~0", "SVC#0~2"} {
		exs, err := core.ExplainID(sc, core.RunOptions{}, id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		ex := exs[0]
		if ex.ID != id || ex.Mode != "forward" || ex.IssuedBy != "QG/2" || ex.Parent != "" || ex.Winner != "G1/1" ||
			!strings.Contains(ex.Text, "A /Q forward: the TMQFORWARD QG/2 took the message from its queue") {
			t.Errorf("%s: got id %s, mode %q, issued by %q, parent %q, winner %s; %s", id, ex.ID, ex.Mode, ex.IssuedBy, ex.Parent, ex.Winner, ex.Text)
		}
	}
}

// Stored /Q messages count with the requests held against
// RunOptions.MaxInFlight: enqueues that no forwarder drains stop the run
// with the backlog error (its limit named), never an unbounded heap.
func TestQBacklogBounded(t *testing.T) {
	ubbText := `*RESOURCES\nMODEL SHM\n*MACHINES\nn1 LMID=s1\n*GROUPS\nQG LMID=s1 GRPNO=2\n*SERVERS\n` +
		`TMQUEUE SRVGRP=QG SRVID=1 CLOPT=\"-s QS:TMQUEUE\"\n`
	sc, err := core.ParseScenario([]byte(`{"ubbconfig": "` + ubbText + `",
	  "qspaces": {"QS": {"queues": {"A": {}}}},
	  "workload": {"generate": {"duration_ms": 10000, "streams": [{"enqueue": "QS:A", "arrivals": "constant", "rate_per_s": 1000}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := core.Run(sc, core.RunOptions{MaxInFlight: 500}); err == nil || !strings.Contains(err.Error(), "more than 500 /Q messages and requests held at once") {
		t.Fatalf("got %v, want the backlog error", err)
	}
	res, err := core.Run(sc, core.RunOptions{MaxInFlight: 20000})
	if err != nil || res.QSpaces[0].Queues[0].Enqueued != 10000 {
		t.Fatalf("with room for them: %v, %+v", err, res)
	}
}

// Queueing theory: one forwarder draining a backlog of n messages, each
// forward an exponential service of mean m on an idle server, ends the
// last one after the sum of n draws (mean n·m, sd √n·m), and the messages
// wait in the queue (k−1)·m on average for the k-th: a mean time in queue
// of (n−1)·m/2. Over seeds, both fall within 4 standard deviations.
func TestTheoryForwarderDrainsBacklog(t *testing.T) {
	const n, m = 2000, 10.0
	ubbText := `*RESOURCES\nMODEL SHM\n*MACHINES\nn1 LMID=s1\n*GROUPS\nG1 LMID=s1 GRPNO=1\nQG LMID=s1 GRPNO=2\n*SERVERS\n` +
		`app SRVGRP=G1 SRVID=1 CLOPT=\"-s SVC\"\nTMQUEUE SRVGRP=QG SRVID=1 CLOPT=\"-s QS:TMQUEUE\"\n` +
		`TMQFORWARD SRVGRP=QG SRVID=2 CLOPT=\"-- -q SVC -i 0\"\n*SERVICES\nSVC\n`
	trace := "time_ms,enqueue\\n" + strings.Repeat("0,QS:SVC\\n", n)
	sc, err := core.ParseScenario([]byte(`{"ubbconfig": "` + ubbText + `",
	  "services": {"SVC": {"service_time": {"dist": "exp", "mean_ms": 10}}},
	  "qspaces": {"QS": {"queues": {"SVC": {}}}},
	  "workload": {"trace_csv": "` + trace + `"}}`))
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		res, err := core.Run(sc, core.RunOptions{Seed: &seed})
		if err != nil {
			t.Fatal(err)
		}
		q := res.QSpaces[0].Queues[0]
		if q.Forwarded != n || q.Depth.Max != n {
			t.Fatalf("seed %d: forwarded %d of %d, depth max %d", seed, q.Forwarded, n, q.Depth.Max)
		}
		span, sd := float64(n)*m, math.Sqrt(n)*m
		if d := math.Abs(res.SpanMS - span); d > 4*sd {
			t.Errorf("seed %d: the backlog drained in %.0f ms, want %.0f ± %.0f (4 sd)", seed, res.SpanMS, span, 4*sd)
		}
		// the mean of the n partial sums S_0..S_{n-1}: (n−1)·m/2, sd ≈ m·√(n/3)
		wait, wsd := float64(n-1)*m/2, m*math.Sqrt(float64(n)/3)
		if d := math.Abs(q.TimeInQueueMS.Mean - wait); d > 4*wsd {
			t.Errorf("seed %d: time in queue %.0f ms on average, want %.0f ± %.0f", seed, q.TimeInQueueMS.Mean, wait, 4*wsd)
		}
	}
}

// A forwarder lost with its machine while its forward runs is as if
// killed, but no BBL notices it: the forward's reply is lost, and when the
// machine is restored and the forwarder comes up again (boot_ms later),
// the message fails with TPESVCERR (back at the head, one more retry) and
// the forwarder takes it again at once.
func TestForwarderLostWithItsMachine(t *testing.T) {
	ubbText := `*RESOURCES\nMODEL MP\nLDBAL N\nMASTER S1\n*MACHINES\nn1 LMID=S1\nn2 LMID=S2\n*GROUPS\nG1 LMID=S1 GRPNO=1\nQG LMID=S1 GRPNO=2\nQF LMID=S2 GRPNO=3\n*SERVERS\n` +
		`app SRVGRP=G1 SRVID=1 CLOPT=\"-s SVC\"\nTMQUEUE SRVGRP=QG SRVID=1 CLOPT=\"-s QS:TMQUEUE\"\nTMQFORWARD SRVGRP=QF SRVID=1 CLOPT=\"-- -q SVC -i 0\"\n*SERVICES\nSVC\n`
	sc, err := core.ParseScenario([]byte(`{"ubbconfig": "` + ubbText + `",
	  "services": {"SVC": {"service_time": {"dist": "const", "ms": 100}}},
	  "qspaces": {"QS": {"queues": {"SVC": {"retries": 1}}, "enqueue_time": {"dist": "const", "ms": 1}}},
	  "tuning": {"boot_ms": 30},
	  "events": [{"at_ms": 50, "lose": "S2"}, {"at_ms": 200, "restore": "S2"}],
	  "workload": {"trace_csv": "time_ms,enqueue\n0,QS:SVC\n"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	res, err := core.Run(sc, core.RunOptions{Dispatch: &log})
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(log.String()), "\n")
	var got []string
	for _, r := range rows[1:] {
		c := strings.Split(r, ",")
		got = append(got, c[0]+"@"+c[3]+"/"+c[10])
	}
	// the enqueue; the first forward (issued at 1 ms, from S2, replying at
	// 101 ms to a forwarder gone with S2); the retry at the come-up, 230 ms
	want := []string{"1@0/first", "SVC#0~0@1000/first", "SVC#0~1@230000/first"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("dispatch log:\n got %v\nwant %v\n%s", got, want, log.String())
	}
	q := res.QSpaces[0].Queues[0]
	if q.Forwarded != 1 || q.Retried != 1 || q.Dropped != 0 || q.ToErrorQueue != 0 {
		t.Errorf("queue SVC: %+v", q)
	}
}

// A message whose every forward fails at its issue, with retries without
// end and no delay, is taken again and again in one instant: the run stops
// at the request limit with its error, never by a stack overflow (each
// retry a call nested in the one before: two million of them overflowed
// the stack).
func TestForwardFailingAtIssueForever(t *testing.T) {
	ubbText := `*RESOURCES\nMODEL SHM\n*MACHINES\nn1 LMID=s1\n*GROUPS\nG1 LMID=s1 GRPNO=1\nQG LMID=s1 GRPNO=2\n*SERVERS\n` +
		`app SRVGRP=G1 SRVID=1 CLOPT=\"-s B\"\nTMQUEUE SRVGRP=QG SRVID=1 CLOPT=\"-s QS:TMQUEUE\"\nTMQFORWARD SRVGRP=QG SRVID=2 CLOPT=\"-- -q SVC -i 0\"\n*SERVICES\nB\n`
	sc, err := core.ParseScenario([]byte(`{"ubbconfig": "` + ubbText + `",
	  "services": {"B": {"service_time": {"dist": "const", "ms": 1}}},
	  "qspaces": {"QS": {"queues": {"SVC": {"retries": 2000000000}}}},
	  "workload": {"trace_csv": "time_ms,enqueue\n0,QS:SVC\n"}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = core.Run(sc, core.RunOptions{MaxRequests: 2_000_000})
	if err == nil || !strings.Contains(err.Error(), "the workload has more than 2000000 requests") {
		t.Fatalf("got %v, want the request limit's error", err)
	}
}

// A number drawn for an enqueue whose queue space's service is itself
// routed is the message's routing value: each forward is routed by it
// (values 1 to 10 to G1's server, 11 to 20 to G2's), as a value written as
// text is; it once reached the forward as no value at all, which failed
// with TPESYSTEM.
func TestForwardRoutedByDrawnNumber(t *testing.T) {
	ubbText := `*RESOURCES\nMODEL SHM\n*MACHINES\nn1 LMID=s1\n*GROUPS\nG1 LMID=s1 GRPNO=1\nG2 LMID=s1 GRPNO=2\nQG LMID=s1 GRPNO=3\n*SERVERS\n` +
		`a SRVGRP=G1 SRVID=1 CLOPT=\"-s A\"\na SRVGRP=G2 SRVID=1 CLOPT=\"-s A\"\nTMQUEUE SRVGRP=QG SRVID=1 CLOPT=\"-s QS:TMQUEUE\"\n` +
		`TMQFORWARD SRVGRP=QG SRVID=2 CLOPT=\"-- -q A -i 0\"\n*SERVICES\nA ROUTING=ACC\nQS ROUTING=QACC\n` +
		`*ROUTING\nACC FIELD=ACC RANGES=\"1-10:G1, 11-20:G2\"\nQACC FIELD=ACC RANGES=\"MIN-MAX:QG\"\n`
	doc := `{"ubbconfig": "` + ubbText + `",
	  "qspaces": {"QS": {"queues": {"A": {}}, "enqueue_time": {"dist": "const", "ms": 1}}},
	  "services": {"A": {"service_time": {"dist": "const", "ms": 1}}},
	  "workload": {"generate": {"duration_ms": 1000, "streams": [{"enqueue": "QS:A", "arrivals": "constant", "rate_per_s": 100,
	    "route": {"dist": "uniform", "min": 1, "max": 20}}]}}}`
	sc, err := core.ParseScenario([]byte(doc))
	if err != nil {
		t.Fatalf("ParseScenario: %v", err)
	}
	var log bytes.Buffer
	res, err := core.Run(sc, core.RunOptions{Dispatch: &log})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	q := res.QSpaces[0].Queues[0]
	if q.Enqueued < 90 || q.Forwarded != q.Enqueued || q.Retried != 0 || q.Dropped != 0 {
		t.Fatalf("queue A: %+v; want every message forwarded at once", q)
	}
	byGroup := map[string]int64{}
	for _, s := range res.Servers {
		if s.Name == "a" {
			byGroup[s.Group] += s.Requests
		}
	}
	if byGroup["G1"]+byGroup["G2"] != q.Forwarded || byGroup["G1"] < 20 || byGroup["G2"] < 20 {
		t.Fatalf("forwards completed by group %v, %d forwarded; want both groups, every forward", byGroup, q.Forwarded)
	}
}

// A message whose forward fails at its issue, retried without delay, is
// taken again and again in one instant: each failure must not leave a
// forwarder's stale wake-up behind (100 000 retries kept 10 MB of them).
// What a run allocates is the same for 1 000 retries and 100 000.
func TestFailingForwardsKeepNothing(t *testing.T) {
	alloc := func(retries int) uint64 {
		sc, err := core.ParseScenario([]byte(`{"ubbconfig": "*RESOURCES\nMASTER SITE1\nMODEL SHM\n*MACHINES\nsite1 LMID=SITE1\n*GROUPS\nQGRP GRPNO=2 LMID=SITE1\n*SERVERS\nTMQUEUE SRVGRP=QGRP SRVID=1 CLOPT=\"-s QS:TMQUEUE --\"\nTMQFORWARD SRVGRP=QGRP SRVID=2 CLOPT=\"-- -q NOSVC -i 0\"\n",
			"qspaces": {"QS": {"queues": {"NOSVC": {"retries": ` + strconv.Itoa(retries) + `, "retry_delay_ms": 0}}}},
			"workload": {"trace": [{"time_ms": 0, "enqueue": "QS:NOSVC"}]}}`))
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := core.Run(sc, core.RunOptions{})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Requests.Failed["TPENOENT"]; got != int64(retries)+1 {
			t.Fatalf("%d retries: %d forwards failed, want %d", retries, got, retries+1)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	few, many := alloc(1000), alloc(100_000)
	if many > 2*few+1<<20 {
		t.Errorf("a run allocated %d bytes with 1 000 retries, %d with 100 000: want about the same", few, many)
	}
}
