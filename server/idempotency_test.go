package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/storage"
)

// countingRuns counts the runs the server starts.
func countingRuns(n *atomic.Int64) func(*Config) {
	return func(c *Config) {
		c.Run = func(pr *core.Prepared, opt core.RunOptions) (*result.Result, error) {
			n.Add(1)
			return runPrepared(pr, opt)
		}
	}
}

func TestIdempotentRun(t *testing.T) {
	var runs atomic.Int64
	h := newHarness(t, countingRuns(&runs))
	body := scenarioJSON(t)
	first := h.do("POST", "/api/v1/runs", "application/json", body, "Idempotency-Key", "k-1")
	if first.Code != 201 || first.Header().Get("Idempotent-Replayed") != "" {
		t.Fatalf("first POST: %d %s", first.Code, first.Body.String())
	}
	again := h.do("POST", "/api/v1/runs", "application/json", body, "Idempotency-Key", "k-1")
	if again.Code != 201 || again.Body.String() != first.Body.String() || again.Header().Get("Location") != first.Header().Get("Location") ||
		again.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry: %d, same body %v, Location %q (first %q), replayed %q", again.Code, again.Body.String() == first.Body.String(),
			again.Header().Get("Location"), first.Header().Get("Location"), again.Header().Get("Idempotent-Replayed"))
	}
	if runs.Load() != 1 {
		t.Errorf("%d runs, want 1: the retry started a run", runs.Load())
	}
	if list := h.do("GET", "/api/v1/runs", "", ""); strings.Count(list.Body.String(), `"id"`) != 1 {
		t.Errorf("runs stored: %s, want one", list.Body.String())
	}

	// The same key with another body, or another query, is 422; nothing runs.
	other := strings.Replace(body, "{", `{"name":"other",`, 1)
	wantProblem(t, h.do("POST", "/api/v1/runs", "application/json", other, "Idempotency-Key", "k-1"), "/api/v1/runs", 422, "idempotency-key-reused")
	wantProblem(t, h.do("POST", "/api/v1/runs?seed=9", "application/json", body, "Idempotency-Key", "k-1"), "/api/v1/runs", 422, "idempotency-key-reused")
	if runs.Load() != 1 {
		t.Errorf("%d runs after the refused ones, want 1", runs.Load())
	}
	// Another key, or none, runs again.
	h.do("POST", "/api/v1/runs", "application/json", body, "Idempotency-Key", "k-2")
	h.postRun("", body)
	if runs.Load() != 3 {
		t.Errorf("%d runs, want 3", runs.Load())
	}
	// A malformed key.
	for _, k := range []string{"", strings.Repeat("k", 256), "a b", "é"} {
		wantProblem(t, h.do("POST", "/api/v1/runs", "application/json", body, "Idempotency-Key", k), "/api/v1/runs", 400, "malformed-idempotency-key")
	}

	// After 24 h the key is free again: a new run.
	h.db.Now = func() time.Time { return time.Now().Add(storage.IdempotencyTTL + time.Minute) }
	if rec := h.do("POST", "/api/v1/runs", "application/json", body, "Idempotency-Key", "k-1"); rec.Code != 201 || rec.Header().Get("Idempotent-Replayed") != "" {
		t.Errorf("after 24 h: %d replayed %q, want a new 201", rec.Code, rec.Header().Get("Idempotent-Replayed"))
	}
	if runs.Load() != 4 {
		t.Errorf("%d runs, want 4", runs.Load())
	}
}

// Two Idempotency-Key headers are a 400 naming the header: neither key is
// taken for the other, and nothing runs.
func TestIdempotencyKeyTwice(t *testing.T) {
	var runs atomic.Int64
	h := newHarness(t, countingRuns(&runs))
	for _, keys := range [][]string{{"k-1", "k-2"}, {"k-1", "k-1"}} {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/runs", strings.NewReader(scenarioJSON(t)))
		req.Header.Set("Content-Type", "application/json")
		for _, k := range keys {
			req.Header.Add("Idempotency-Key", k)
		}
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		p := wantProblem(t, rec, "/api/v1/runs", http.StatusBadRequest, "malformed-idempotency-key")
		if !strings.Contains(p.Detail, "Idempotency-Key header is given 2 times") || len(p.Errors) != 1 || p.Errors[0].Field != "Idempotency-Key" {
			t.Errorf("keys %q: detail %q errors %+v, want the header named", keys, p.Detail, p.Errors)
		}
	}
	if runs.Load() != 0 {
		t.Errorf("%d runs, want none", runs.Load())
	}
}

// Retries sent at once with one key run once.
func TestIdempotentConcurrentRetries(t *testing.T) {
	var runs atomic.Int64
	h := newHarness(t, countingRuns(&runs))
	body := scenarioJSON(t)
	var wg sync.WaitGroup
	codes := make([]int, 4)
	bodies := make([]string, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := h.do("POST", "/api/v1/runs", "application/json", body, "Idempotency-Key", "same")
			codes[i], bodies[i] = rec.Code, rec.Body.String()
		}()
	}
	wg.Wait()
	for i := range codes {
		if codes[i] != 201 || bodies[i] != bodies[0] {
			t.Errorf("request %d: %d, same answer %v", i, codes[i], bodies[i] == bodies[0])
		}
	}
	if runs.Load() != 1 {
		t.Errorf("%d runs, want 1", runs.Load())
	}
}

// A failed request is not kept: its retry runs.
func TestIdempotentErrorNotKept(t *testing.T) {
	h := newHarness(t, nil)
	wantProblem(t, h.do("POST", "/api/v1/runs", "application/json", "{", "Idempotency-Key", "k"), "/api/v1/runs", 400, "malformed-json")
	if rec := h.do("POST", "/api/v1/runs", "application/json", scenarioJSON(t), "Idempotency-Key", "k"); rec.Code != 201 {
		t.Errorf("a good request after a failed one with the same key: %d %s", rec.Code, rec.Body.String())
	}
}

func TestIdempotentScenarioAndSweep(t *testing.T) {
	h := newHarness(t, nil)
	sc := scenarioJSON(t)
	a := h.do("POST", "/api/v1/scenarios", "application/json", sc, "Idempotency-Key", "s")
	b := h.do("POST", "/api/v1/scenarios", "application/json", sc, "Idempotency-Key", "s")
	// Without the key the second would be 200 (stored already); with it, the first answer.
	if a.Code != http.StatusCreated || b.Code != http.StatusCreated || b.Body.String() != a.Body.String() || b.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("scenario retry: %d then %d, same body %v", a.Code, b.Code, b.Body.String() == a.Body.String())
	}
	// Keys are per route: the same key on /sweeps is another key.
	body := sweepBody(t, []string{"rate_scale=0.5,1"}, 1, "response_p99_ms<=40")
	first := h.do("POST", "/api/v1/sweeps", "application/json", body, "Idempotency-Key", "s")
	again := h.do("POST", "/api/v1/sweeps", "application/json", body, "Idempotency-Key", "s")
	if first.Code != http.StatusAccepted || again.Code != http.StatusAccepted || again.Body.String() != first.Body.String() {
		t.Fatalf("sweep retry: %d then %d: %s / %s", first.Code, again.Code, first.Body.String(), again.Body.String())
	}
	if m := h.scrape(); m["tuxlb_sweep_points_queued_total"] != 2 {
		t.Errorf("points queued %v, want 2: the retry queued another sweep", m["tuxlb_sweep_points_queued_total"])
	}
	other := sweepBody(t, []string{"rate_scale=0.5,2"}, 1, "response_p99_ms<=40")
	wantProblem(t, h.do("POST", "/api/v1/sweeps", "application/json", other, "Idempotency-Key", "s"), "/api/v1/sweeps", 422, "idempotency-key-reused")
}
