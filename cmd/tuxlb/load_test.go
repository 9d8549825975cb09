package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestServeLoad holds 400 requests at once against `tuxlb serve` at its
// default limits, on 127.0.0.1, three times: a mix of health checks, run
// lists and reads, validations and runs. Every request is answered, and
// none with a 500: what the server cannot take now is 503 busy. The 99th
// percentile of the answers' times is logged (on a shared machine it is a
// measure, not a verdict; docs/api.md states what it was).
func TestServeLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("holds 400 connections")
	}
	fs, o, err := serveFlags(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "load.db")}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- listenAndServe(ctx, o, w, io.Discard) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	base := strings.TrimSpace(strings.TrimPrefix(line, "tuxlb: listening on "))
	scenario, err := os.ReadFile("../../server/testdata/scenario.json")
	if err != nil {
		t.Fatal(err)
	}
	ubb, err := os.ReadFile("../../server/testdata/ubbconfig.ubb")
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 400}}
	res, err := client.Post(base+"/api/v1/runs", "application/json", strings.NewReader(string(scenario)))
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("the first run: %v %v", res, err)
	}
	loc := res.Header.Get("Location")
	res.Body.Close()

	type answer struct {
		status int
		took   time.Duration
	}
	const rounds, held = 3, 400
	var answers []answer
	var mu sync.Mutex
	for round := 0; round < rounds; round++ {
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := 0; i < held; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var req *http.Request
				switch i % 10 {
				case 0, 1, 2, 3:
					req, _ = http.NewRequest("GET", base+"/healthz", nil)
				case 4, 5:
					req, _ = http.NewRequest("GET", base+"/api/v1/runs?limit=20", nil)
				case 6:
					req, _ = http.NewRequest("GET", base+loc, nil)
				case 7:
					req, _ = http.NewRequest("POST", base+"/api/v1/validate", strings.NewReader(string(ubb)))
					req.Header.Set("Content-Type", "text/plain")
				default:
					req, _ = http.NewRequest("POST", base+"/api/v1/runs?seed="+fmt.Sprint(round*held+i), strings.NewReader(string(scenario)))
					req.Header.Set("Content-Type", "application/json")
				}
				<-start
				t0 := time.Now()
				res, err := client.Do(req)
				a := answer{took: time.Since(t0)}
				if err != nil {
					t.Errorf("%s %s: %v", req.Method, req.URL.Path, err)
				} else {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					a.status = res.StatusCode
				}
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
			}()
		}
		close(start)
		wg.Wait()
	}
	counts := map[int]int{}
	var took []time.Duration
	for _, a := range answers {
		counts[a.status]++
		took = append(took, a.took)
	}
	slices.Sort(took)
	p99 := took[len(took)*99/100]
	t.Logf("%d requests, %d at once: statuses %v; p50 %s, p99 %s, max %s", len(answers), held, counts,
		took[len(took)/2], p99, took[len(took)-1])
	if len(answers) != rounds*held || counts[0] != 0 {
		t.Errorf("got %d answers (%d without one), want %d", len(answers), counts[0], rounds*held)
	}
	for status, n := range counts {
		switch status {
		case 200, 201, 503:
		default:
			t.Errorf("%d answers were %d, want 200, 201 or 503 busy only", n, status)
		}
	}
	if counts[200] < rounds*held*7/10 {
		t.Errorf("%d answers were 200, want at least the %d reads", counts[200], rounds*held*7/10)
	}
}
