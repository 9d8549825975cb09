package core

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/dlog"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// The model's names are quoted once, when the log starts: a row of a
// completed request shows each of them quoted as a trace id would be.
func TestDispatchLogQuotesModelNames(t *testing.T) {
	m := engModel(t, oneServer)
	reqs := engRequests(t, m, "0 S site1 1")
	m.Services[serviceIndex(m, "S")].Name = "-S"
	m.Servers[0].Services[0] = "-S" // still advertised
	m.Machines[0].LMID = "@site,1"
	m.Servers[0].ID = `=G1/1`
	m.Queues[0].Name = `q"1`
	_, rows := runLog(t, engSetup(m), reqs)
	diffRows(t, rows, []string{`1,'-S,"'@site,1",0,'=G1/1,"q""1",0,0,1000,1000,first`})
}

// chunkWriter records the size of every write, and fails from the write
// numbered failAt (1-based; 0: never).
type chunkWriter struct {
	bytes.Buffer
	writes []int
	failAt int
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, len(p))
	if len(w.writes) == w.failAt {
		return 0, errors.New("disk full")
	}
	return w.Buffer.Write(p)
}

// heldRows is a run whose first request (10 s of service) holds the rows
// of the 3000 after it (TPENOENT, issued 1 ms apart, complete at once):
// the ring grows past its first 1024 slots, and one completion writes
// about 100 KB of rows.
func heldRows(t *testing.T) (*plan.Setup, *sliceRequests, []string) {
	m := engModel(t, oneServer+"\nservice U load 50 prio 50")
	var text strings.Builder
	want := []string{"1,S,site1,0,G1/1,G1/1,0,0,10000000,10000000,first"}
	text.WriteString("0 S site1 10000\n")
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&text, "%d U site1 1\n", i)
		want = append(want, fmt.Sprintf("%d,U,site1,%d,,,,,,,TPENOENT", i+1, i*1000))
	}
	return engSetup(m), engRequests(t, m, text.String()), want
}

func TestDispatchLogHeldRows(t *testing.T) {
	setup, reqs, want := heldRows(t)
	var w chunkWriter
	if _, err := simulate(setup, reqs, simOptions{RunOptions: RunOptions{Dispatch: &w}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(w.String(), "\n"), "\n")
	if lines[0]+"\n" != dlog.Header {
		t.Fatalf("header: got %q, want %q", lines[0], dlog.Header)
	}
	diffRows(t, lines[1:], want)
	// the rows reach the writer in pieces of at least 64 KiB, but the last
	if n := len(w.writes); n < 2 {
		t.Fatalf("got %d writes of %d bytes, want 2 or more", n, w.Len())
	}
	for i, n := range w.writes[:len(w.writes)-1] {
		if n < dlog.Chunk {
			t.Errorf("write %d of %d: got %d bytes, want at least %d", i+1, len(w.writes), n, dlog.Chunk)
		}
	}
}

func TestDispatchLogWriteError(t *testing.T) {
	setup, reqs, _ := heldRows(t)
	w := chunkWriter{failAt: 1}
	_, err := simulate(setup, reqs, simOptions{RunOptions: RunOptions{Dispatch: &w}})
	if err == nil || !strings.Contains(err.Error(), "dispatch log: disk full") {
		t.Fatalf("got error %v, want one saying dispatch log: disk full", err)
	}
	if len(w.writes) != 1 {
		t.Errorf("got %d writes, want none after the first failed", len(w.writes))
	}
}

// TestDispatchLogQuotesFailedRows: a request that fails with TPESVCERR
// (its instance crashed while it ran, or while it waited in the queue) has
// its queue's name quoted like every other row's, so a name with a comma
// or a leading "=" cannot break the row or read as a formula.
func TestDispatchLogQuotesFailedRows(t *testing.T) {
	ubb := "*RESOURCES\nIPCKEY 123456\nMASTER site1\nMODEL SHM\nLDBAL Y\nSCANUNIT 1\nSANITYSCAN 2\n\n" +
		"*MACHINES\nnode1 LMID=site1\n\n*GROUPS\nG1 LMID=site1 GRPNO=1\n\n*SERVERS\n" +
		"srvA SRVGRP=G1 SRVID=1 RQADDR=\"=q,1\" CLOPT=\"-s SVC\"\nsrvB SRVGRP=G1 SRVID=2 CLOPT=\"-s SVC\"\n\n*SERVICES\nSVC LOAD=50\n"
	at := 100.0
	sc := &scenario.Scenario{UBBConfig: ubb, Events: []scenario.Event{{AtMS: &at, Kill: "G1/1"}},
		Workload: scenario.Workload{TraceCSV: "time_ms,service,service_ms\n50,SVC,100\n55,SVC,100\n60,SVC,10\n"}}
	var log bytes.Buffer
	if _, err := Run(sc, RunOptions{Dispatch: &log}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&log).ReadAll()
	if err != nil {
		t.Fatalf("the log is not CSV: %v\n%s", err, log.String())
	}
	// request 1 runs on G1/1 when it crashes at 100 ms; request 3 waits in
	// its queue behind it (G1/2 is busy with request 2); both fail when
	// the BBL notices the crash at its scan at 2 s
	want := [][]string{
		{"1", "SVC", "site1", "50000", "G1/1", "'=q,1", "50000", "50000", "", "2000000", "TPESVCERR"},
		{"2", "SVC", "site1", "55000", "G1/2", "G1/2", "55000", "55000", "155000", "155000", "idle"},
		{"3", "SVC", "site1", "60000", "", "'=q,1", "60000", "", "", "2000000", "TPESVCERR"},
	}
	if !slices.EqualFunc(rows[1:], want, slices.Equal[[]string]) {
		t.Errorf("rows:\n got %q\nwant %q", rows[1:], want)
	}
}
