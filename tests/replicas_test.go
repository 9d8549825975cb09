package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/internal/pgtest"
)

// TestMain stops the PostgreSQL server the replica tests share.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// startReplicas starts n `tuxlb serve` processes on the PostgreSQL database
// at url, all at once, as replicas behind one address would start.
func startReplicas(t *testing.T, url string, n int) []*serverProc {
	t.Helper()
	procs := make([]*serverProc, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			procs[i] = startServer(t, url)
		}()
	}
	wg.Wait()
	for i, p := range procs {
		if p == nil {
			t.Fatalf("replica %d did not start", i)
		}
	}
	return procs
}

// sameOnBoth GETs path from both replicas and insists on 200 and the same
// bytes; it returns the body.
func sameOnBoth(t *testing.T, a, b *serverProc, path string) []byte {
	t.Helper()
	sa, _, ba := a.call(t, "GET", path, "", nil)
	sb, _, bb := b.call(t, "GET", path, "", nil)
	if sa != http.StatusOK || sb != http.StatusOK {
		t.Errorf("GET %s: replica A %d, replica B %d, want 200 from both (%.200s | %.200s)", path, sa, sb, ba, bb)
	} else if !bytes.Equal(ba, bb) {
		t.Errorf("GET %s: replica B's %d bytes differ from replica A's %d bytes", path, len(bb), len(ba))
	}
	return ba
}

func TestReplicasShareRuns(t *testing.T) {
	procs := startReplicas(t, pgtest.Database(t), 2)
	a, b := procs[0], procs[1]
	scenario := apiScenario(t)
	id := postRun(t, a, "?dispatch=true", scenario)
	other := postRun(t, b, "?policy=jsq", scenario)
	for _, path := range []string{"/api/v1/runs/" + id, "/api/v1/runs/" + id + "/result.json",
		"/api/v1/runs/" + id + "/dispatch.csv", "/api/v1/runs/" + other, "/api/v1/runs",
		"/api/v1/compare?runs=" + id + "," + other} {
		sameOnBoth(t, a, b, path)
	}
	// The scenario, stored with the runs, has one content-addressed id on
	// both replicas: posting it to either answers 200 with that id.
	var ids [2]string
	for i, p := range procs {
		status, _, body := p.call(t, "POST", "/api/v1/scenarios", "application/json", scenario)
		var out struct{ ID string }
		if status != http.StatusOK || json.Unmarshal(body, &out) != nil {
			t.Fatalf("replica %d: POST /api/v1/scenarios got %d %s, want 200 (stored with the runs)", i, status, body)
		}
		ids[i] = out.ID
	}
	if ids[0] != ids[1] || ids[0] == "" {
		t.Errorf("scenario ids got %q and %q, want one id", ids[0], ids[1])
	}
	sameOnBoth(t, a, b, "/api/v1/scenarios/"+ids[0])
}

func TestReplicasFiftyConcurrentPosts(t *testing.T) {
	procs := startReplicas(t, pgtest.Database(t), 2)
	a, b := procs[0], procs[1]
	scenario := apiScenario(t)
	const n = 50
	ids := make([]string, n)
	var busy atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i] = postRunRetrying(t, procs[i%2], fmt.Sprintf("?seed=%d", i+1), scenario, &busy)
		}()
	}
	wg.Wait()
	unique := map[string]bool{}
	for i, id := range ids {
		if id == "" {
			t.Fatalf("post %d failed", i)
		}
		unique[id] = true
		sameOnBoth(t, a, b, "/api/v1/runs/"+id)
	}
	if len(unique) != n {
		t.Errorf("distinct run ids got %d, want %d", len(unique), n)
	}
	listed := map[string]bool{}
	cursor := ""
	for pages := 0; pages < 10; pages++ {
		body := sameOnBoth(t, a, b, "/api/v1/runs?limit=20&cursor="+cursor)
		var page struct {
			Runs       []struct{ ID string }
			NextCursor *string `json:"next_cursor"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatalf("list page: %v: %.200s", err, body)
		}
		for _, r := range page.Runs {
			listed[r.ID] = true
		}
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	for id := range unique {
		if !listed[id] {
			t.Errorf("run %s is not in the list", id)
		}
	}
	if len(listed) != n {
		t.Errorf("listed runs got %d, want %d", len(listed), n)
	}
	t.Logf("%d answers were 503 busy and retried", busy.Load())
}

// wantUnavailable checks that an answer is the database-down problem.
func wantUnavailable(t *testing.T, what string, status int, h http.Header, body []byte) {
	t.Helper()
	var p struct {
		Type   string
		Status int
	}
	if status != http.StatusServiceUnavailable || h.Get("Content-Type") != "application/problem+json" ||
		json.Unmarshal(body, &p) != nil || p.Type != "urn:tuxlb:problem:unavailable" || h.Get("Retry-After") == "" {
		t.Errorf("%s with the database down: got %d %s %q (Retry-After %q), want 503 application/problem+json unavailable with Retry-After",
			what, status, h.Get("Content-Type"), body, h.Get("Retry-After"))
	}
}

func TestReplicasDatabaseOutage(t *testing.T) {
	cluster := pgtest.Own(t)
	url, err := cluster.CreateDatabase(context.Background(), "outage")
	if err != nil {
		t.Fatal(err)
	}
	procs := startReplicas(t, url, 2)
	scenario := apiScenario(t)
	id := postRun(t, procs[0], "", scenario)
	before := sameOnBoth(t, procs[0], procs[1], "/api/v1/runs/"+id)

	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	for i, p := range procs {
		status, h, body := p.call(t, "GET", "/api/v1/runs/"+id, "", nil)
		wantUnavailable(t, fmt.Sprintf("replica %d: GET run", i), status, h, body)
		status, h, body = p.call(t, "POST", "/api/v1/runs", "application/json", scenario)
		wantUnavailable(t, fmt.Sprintf("replica %d: POST run", i), status, h, body)
		status, h, body = p.call(t, "GET", "/healthz", "", nil)
		wantUnavailable(t, fmt.Sprintf("replica %d: healthz", i), status, h, body)
		select {
		case <-p.done:
			t.Fatalf("replica %d exited while the database was down: %v\n%s", i, p.err, p.Stderr)
		default:
		}
	}

	if err := cluster.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, p := range procs {
		deadline := time.Now().Add(20 * time.Second)
		for {
			status, _, body := p.call(t, "GET", "/api/v1/runs/"+id, "", nil)
			if status == http.StatusOK {
				if !bytes.Equal(body, before) {
					t.Errorf("replica %d: the run after the outage differs from before it", i)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %d: still %d 20 s after the database came back: %s", i, status, body)
			}
			time.Sleep(200 * time.Millisecond)
		}
		again := postRun(t, p, "?seed=99", scenario)
		sameOnBoth(t, procs[0], procs[1], "/api/v1/runs/"+again)
	}
}

// TUXLB_DB selects the database as --db does: a replica started with the URL
// in its environment and one started with the flag share runs.
func TestServeDatabaseURLFromEnvironment(t *testing.T) {
	url := pgtest.Database(t)
	byEnv := startServerEnv(t, "", []string{"TUXLB_DB=" + url})
	byFlag := startServer(t, url)
	id := postRun(t, byEnv, "", apiScenario(t))
	sameOnBoth(t, byEnv, byFlag, "/api/v1/runs/"+id)
}

// A replica that cannot reach its database when it starts exits 1 saying
// so, without printing the password.
func TestServeDatabaseUnreachableAtStart(t *testing.T) {
	cmd := exec.Command(binaryPath(t), "serve", "--addr", "127.0.0.1:0",
		"--db", "postgres://tuxlb:s3cret@127.0.0.1:1/tuxlb?connect_timeout=2") // nothing listens on port 1
	out, err := cmd.CombinedOutput()
	var exit interface{ ExitCode() int }
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "database unavailable") {
		t.Errorf("got %v %q, want exit 1 saying the database is unavailable", err, out)
	}
	if strings.Contains(string(out), "s3cret") {
		t.Errorf("output shows the password: %q", out)
	}
}
