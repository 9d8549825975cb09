package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/storage"
)

// apiScenario is the scenario the API tests post.
func apiScenario(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "tests", "testdata", "api-scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// postRun posts a scenario and returns the new run's id, insisting on 201.
func postRun(t testing.TB, p *serverProc, query string, scenario []byte) string {
	t.Helper()
	status, _, body := p.call(t, "POST", "/api/v1/runs"+query, "application/json", scenario)
	if status != http.StatusCreated {
		t.Fatalf("POST /api/v1/runs%s: %d, want 201: %s", query, status, body)
	}
	var out struct{ ID string }
	if err := json.Unmarshal(body, &out); err != nil || len(out.ID) != 22 {
		t.Fatalf("201 body %.200s: want {\"id\": 22 characters, ...} (%v)", body, err)
	}
	return out.ID
}

func TestAPIRestartKeepsEverything(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tuxlb.db")
	srv := startServer(t, db)
	scenario := apiScenario(t)
	ids := []string{postRun(t, srv, "", scenario), postRun(t, srv, "?dispatch=true&seed=5", scenario),
		postRun(t, srv, "?policy=jsq", scenario)}
	// The runs stored this scenario already: the same content gets the same id, and 200.
	status, _, created := srv.call(t, "POST", "/api/v1/scenarios", "application/json", scenario)
	if status != http.StatusOK {
		t.Fatalf("POST /api/v1/scenarios: %d %s", status, created)
	}
	var shared struct{ ID string }
	json.Unmarshal(created, &shared)
	paths := []string{"/api/v1/runs", "/api/v1/runs?limit=1", "/api/v1/scenarios/" + shared.ID,
		"/api/v1/runs/" + ids[1] + "/dispatch.csv", "/api/v1/compare?runs=" + strings.Join(ids, ",")}
	for _, id := range ids {
		paths = append(paths, "/api/v1/runs/"+id)
	}
	before := map[string][]byte{}
	for _, path := range paths {
		status, _, body := srv.call(t, "GET", path, "", nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, status, body)
		}
		before[path] = body
	}
	srv.Stop(t)

	again := startServer(t, db)
	for _, path := range paths {
		status, _, body := again.call(t, "GET", path, "", nil)
		if status != http.StatusOK || !bytes.Equal(body, before[path]) {
			t.Errorf("GET %s after restart: %d, body changed (%d bytes, was %d)", path, status, len(body), len(before[path]))
		}
	}
	var list struct{ Runs []struct{ ID string } }
	json.Unmarshal(before["/api/v1/runs"], &list)
	if len(list.Runs) != 3 || list.Runs[0].ID != ids[2] || list.Runs[2].ID != ids[0] {
		t.Errorf("list got %+v, want the 3 runs newest first", list.Runs)
	}
	if !strings.Contains(again.Stderr.String(), "request_id=") {
		t.Errorf("no request log lines with a request id:\n%.500s", again.Stderr.String())
	}
}

func TestAPICrashDuringWrites(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tuxlb.db")
	srv := startServer(t, db, "--max-runs", "16")
	scenario := apiScenario(t)
	var mu sync.Mutex
	var answered []string
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				id, err := tryPostRun(srv, fmt.Sprintf("?dispatch=%v", i%2 == 0), scenario)
				if err == nil {
					mu.Lock()
					answered = append(answered, id)
					mu.Unlock()
				}
			}
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(answered)
		mu.Unlock()
		if n >= 20 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	srv.Kill(t) // kill -9 in the middle of the burst
	stop.Store(true)
	wg.Wait()
	if len(answered) == 0 {
		t.Fatal("no run was answered 201 before the kill")
	}

	store, err := storage.Open(db)
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	verdict, err := store.IntegrityCheck(context.Background())
	if verdict != "ok" || err != nil {
		t.Errorf("PRAGMA integrity_check got %q (%v), want ok", verdict, err)
	}
	store.Close()
	again := startServer(t, db)
	for _, id := range answered {
		if status, _, body := again.call(t, "GET", "/api/v1/runs/"+id, "", nil); status != http.StatusOK {
			t.Errorf("run %s was answered 201 but after the crash GET gives %d %s", id, status, body)
		}
	}
	t.Logf("%d runs answered 201 before kill -9; all present", len(answered))
}

// tryPostRun posts a run and returns its id, or an error for anything but 201.
func tryPostRun(p *serverProc, query string, scenario []byte) (string, error) {
	res, err := apiClient.Post(p.URL+"/api/v1/runs"+query, "application/json", bytes.NewReader(scenario))
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var out struct{ ID string }
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusCreated {
		return "", errors.New(res.Status)
	}
	return out.ID, nil
}

func TestAPIFiftyRunsAtOnce(t *testing.T) {
	srv := startServer(t, filepath.Join(t.TempDir(), "tuxlb.db"))
	scenario := apiScenario(t)
	const n = 50
	ids := make([]string, n)
	var busy atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i] = postRunRetrying(t, srv, fmt.Sprintf("?seed=%d", i+1), scenario, &busy)
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	cursor := ""
	for {
		status, _, body := srv.call(t, "GET", "/api/v1/runs?limit=100&cursor="+cursor, "", nil)
		var page struct {
			Runs       []struct{ ID string }
			NextCursor *string `json:"next_cursor"`
		}
		if status != 200 || json.Unmarshal(body, &page) != nil {
			t.Fatalf("list: %d %s", status, body)
		}
		for _, r := range page.Runs {
			seen[r.ID] = true
		}
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	for i, id := range ids {
		if id == "" || !seen[id] {
			t.Errorf("run %d (id %q) is not stored", i, id)
		}
	}
	if len(seen) != n {
		t.Errorf("stored runs got %d, want %d", len(seen), n)
	}
	t.Logf("%d answers were 503 busy and retried", busy.Load())
}

// postRunRetrying posts a run, waiting as Retry-After says while the server
// is busy, and returns its id ("" after reporting a failure).
func postRunRetrying(t *testing.T, p *serverProc, query string, scenario []byte, busy *atomic.Int64) string {
	for attempt := 0; attempt < 30; attempt++ {
		res, err := apiClient.Post(p.URL+"/api/v1/runs"+query, "application/json", bytes.NewReader(scenario))
		if err != nil {
			t.Errorf("POST: %v", err)
			return ""
		}
		var out struct{ ID string }
		json.NewDecoder(res.Body).Decode(&out)
		res.Body.Close()
		switch res.StatusCode {
		case http.StatusCreated:
			return out.ID
		case http.StatusServiceUnavailable:
			busy.Add(1)
			wait, err := strconv.Atoi(res.Header.Get("Retry-After"))
			if err != nil || wait <= 0 {
				t.Errorf("503 without a usable Retry-After: %q", res.Header.Get("Retry-After"))
				return ""
			}
			time.Sleep(time.Duration(wait) * time.Second / 10) // a tenth: keep the test short
		default:
			t.Errorf("POST: %s", res.Status)
			return ""
		}
	}
	t.Errorf("still busy after 30 attempts")
	return ""
}

func TestAPIErrorsThroughTheBinary(t *testing.T) {
	srv := startServerEnv(t, filepath.Join(t.TempDir(), "tuxlb.db"), []string{"TUXLB_MAX_BODY=2K"})
	scenario := apiScenario(t)
	big := append([]byte(`{"name":"`), bytes.Repeat([]byte("x"), 3000)...)
	tests := []struct {
		method, path, ctype string
		body                []byte
		status              int
		slug                string
	}{
		{"POST", "/api/v1/runs", "application/json", []byte(`{"name":`), 400, "malformed-json"},
		{"POST", "/api/v1/runs", "application/json", big, 413, "body-too-large"},
		{"POST", "/api/v1/runs?seed=x", "application/json", scenario, 400, "malformed-query"},
		{"GET", "/api/v1/runs/AAAAAAAAAAAAAAAAAAAAAA", "", nil, 404, "not-found"},
		{"GET", "/api/v1/runs/nope", "", nil, 400, "malformed-id"},
		{"DELETE", "/api/v1/runs", "", nil, 405, "method-not-allowed"},
	}
	for _, tt := range tests {
		status, h, body := srv.call(t, tt.method, tt.path, tt.ctype, tt.body)
		var p struct {
			Type, Title, Detail, Instance string
			Status                        int
			RequestID                     string `json:"request_id"`
		}
		json.Unmarshal(body, &p)
		if status != tt.status || h.Get("Content-Type") != "application/problem+json" ||
			p.Type != "urn:tuxlb:problem:"+tt.slug || p.Status != status || p.RequestID != h.Get("X-Request-ID") {
			t.Errorf("%s %s: got %d %q %s, want %d problem %s", tt.method, tt.path, status, h.Get("Content-Type"), body, tt.status, tt.slug)
		}
	}
}

func TestServeRejectsBadSettings(t *testing.T) {
	tests := []struct {
		env  []string
		args []string
	}{
		{[]string{"TUXLB_MAX_BODY=lots"}, nil},
		{[]string{"TUXLB_MAX_RUN_TIME=forever"}, nil},
		{nil, []string{"--max-runs", "0"}},
		{nil, []string{"--log-format", "xml"}},
	}
	for _, tt := range tests {
		cmd := execServe(t, tt.env, tt.args...)
		out, err := cmd.CombinedOutput()
		var exit interface{ ExitCode() int }
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "tuxlb serve") {
			t.Errorf("env %v args %v: got %v %q, want exit 2 with a message", tt.env, tt.args, err, out)
		}
	}
}

// execServe prepares `tuxlb serve` on a free port with extra environment and flags.
func execServe(t *testing.T, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(binaryPath(t), append([]string{"serve", "--addr", "127.0.0.1:0", "--db",
		filepath.Join(t.TempDir(), "tuxlb.db")}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

func TestServeFinishesInFlightOnSIGTERM(t *testing.T) {
	srv := startServer(t, filepath.Join(t.TempDir(), "tuxlb.db"))
	scenario := apiScenario(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	half := len(scenario) / 2
	// Expect: 100-continue makes the server say when the handler starts
	// reading the body: from then on the request is in flight.
	fmt.Fprintf(conn, "POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n", len(scenario))
	conn.Write(scenario[:half])
	rd := bufio.NewReader(conn)
	if res, err := http.ReadResponse(rd, nil); err != nil || res.StatusCode != http.StatusContinue {
		t.Fatalf("before the body: got %v, %v; want 100 Continue", res, err)
	}
	srv.cmd.Process.Signal(syscall.SIGTERM)
	// The server has begun shutting down once it refuses new connections.
	pollUntil(t, 30*time.Second, "the listener closed after SIGTERM", func() bool {
		select {
		case <-srv.done:
			t.Fatalf("tuxlb serve exited with a request in flight:\n%s", srv.Stderr)
		default:
		}
		c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	select {
	case <-srv.done:
		t.Fatalf("tuxlb serve exited with a request in flight:\n%s", srv.Stderr)
	default:
	}
	conn.Write(scenario[half:])
	res, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatalf("reading the in-flight answer: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Errorf("in-flight run got %s, want 201 Created", res.Status)
	}
	srv.Stop(t)
}

func TestAPIMatchesTheCLI(t *testing.T) {
	srv := startServer(t, filepath.Join(t.TempDir(), "tuxlb.db"))
	scenarioPath := filepath.Join(repoRoot(t), "tests", "testdata", "api-scenario.json")
	scenario := apiScenario(t)
	tests := []struct {
		query string
		flags []string
	}{
		{"?dispatch=true", nil},
		{"?dispatch=true&policy=p2c&seed=11", []string{"--policy", "p2c", "--seed", "11"}},
	}
	for _, tt := range tests {
		dispatchFile := filepath.Join(t.TempDir(), "dispatch.csv")
		args := append(append([]string{"run", "--dispatch", dispatchFile}, tt.flags...), scenarioPath)
		cli := exec.Command(binaryPath(t), args...)
		var stderr bytes.Buffer
		cli.Stderr = &stderr
		want, err := cli.Output()
		if err != nil {
			t.Fatalf("tuxlb %v: %v\n%s", args, err, stderr.String())
		}
		status, _, body := srv.call(t, "POST", "/api/v1/runs"+tt.query, "application/json", scenario)
		var created struct {
			ID     string
			Result json.RawMessage
		}
		if status != http.StatusCreated || json.Unmarshal(body, &created) != nil {
			t.Fatalf("POST %s: %d %.200s", tt.query, status, body)
		}
		if !bytes.Equal(created.Result, bytes.TrimRight(want, "\n")) {
			t.Errorf("%s: the API's result differs from `tuxlb run`'s output (%d vs %d bytes)", tt.query, len(created.Result), len(want))
		}
		if _, _, file := srv.call(t, "GET", "/api/v1/runs/"+created.ID+"/result.json", "", nil); !bytes.Equal(file, want) {
			t.Errorf("%s: result.json differs from `tuxlb run`'s output (%d vs %d bytes)", tt.query, len(file), len(want))
		}
		wantCSV, _ := os.ReadFile(dispatchFile)
		_, _, gotCSV := srv.call(t, "GET", "/api/v1/runs/"+created.ID+"/dispatch.csv", "", nil)
		if len(wantCSV) == 0 || !bytes.Equal(gotCSV, wantCSV) {
			t.Errorf("%s: dispatch.csv differs from `tuxlb run --dispatch` (%d vs %d bytes)", tt.query, len(gotCSV), len(wantCSV))
		}
	}
}

func TestAPIValidateMatchesTheCLI(t *testing.T) {
	srv := startServer(t, filepath.Join(t.TempDir(), "tuxlb.db"))
	path := filepath.Join(repoRoot(t), "tests", "testdata", "api-ubbconfig.ubb")
	want, err := exec.Command(binaryPath(t), "validate", "--ubbconfig", path).Output()
	if err != nil {
		t.Fatalf("tuxlb validate: %v", err)
	}
	ubb, _ := os.ReadFile(path)
	status, _, got := srv.call(t, "POST", "/api/v1/validate", "text/plain", ubb)
	if status != http.StatusOK || !bytes.Equal(got, want) {
		t.Errorf("POST /validate: %d, %d bytes; want 200 and `tuxlb validate`'s %d bytes", status, len(got), len(want))
	}
}

func TestAPIExamplesMatchTheCLI(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "examples", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found (%v)", err)
	}
	srv := startServer(t, filepath.Join(t.TempDir(), "tuxlb.db"))
	for _, file := range files {
		want, err := exec.Command(binaryPath(t), "run", file).Output()
		if err != nil {
			t.Errorf("tuxlb run %s: %v", filepath.Base(file), err)
			continue
		}
		scenario, _ := os.ReadFile(file)
		id := postRun(t, srv, "", scenario)
		if _, _, got := srv.call(t, "GET", "/api/v1/runs/"+id+"/result.json", "", nil); !bytes.Equal(got, want) {
			t.Errorf("%s: the API's result differs from `tuxlb run` (%d vs %d bytes)", filepath.Base(file), len(got), len(want))
		}
	}
}
