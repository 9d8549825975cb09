// Package tests holds tuxlb's end-to-end tests: they build the real binary,
// start `tuxlb serve` on 127.0.0.1:0 and talk to it over HTTP (and, for the
// playground, through headless Chromium).
package tests

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// repoRoot is the module root, one level above this file.
func repoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// binaryPath returns $TUXLB_BIN when set, else builds ./cmd/tuxlb once per
// test binary into a temporary directory.
func binaryPath(t testing.TB) string {
	if p := os.Getenv("TUXLB_BIN"); p != "" {
		return p
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tuxlb-bin")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "tuxlb")
		cmd := exec.Command("go", "build", "-o", builtBin, "./cmd/tuxlb")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = &buildError{string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("build tuxlb: %v", buildErr)
	}
	return builtBin
}

// buildError carries the compiler's output.
type buildError struct{ out string }

func (e *buildError) Error() string { return e.out }

// syncBuffer is a bytes.Buffer safe for a writer and readers at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serverProc is a running `tuxlb serve`.
type serverProc struct {
	URL    string
	cmd    *exec.Cmd
	done   chan struct{} // closed when the process has exited
	err    error         // its exit status, once done
	Stderr *syncBuffer   // its logs
}

// startServer starts `tuxlb serve` on a free port with the database at
// dbPath (extra flags in args) and waits until it prints where it listens.
// The process is killed when the test ends, if still running.
func startServer(t testing.TB, dbPath string, args ...string) *serverProc {
	t.Helper()
	return startServerEnv(t, dbPath, nil, args...)
}

// startServerEnv is startServer with extra environment variables; an empty
// dbPath passes no --db flag.
func startServerEnv(t testing.TB, dbPath string, env []string, args ...string) *serverProc {
	t.Helper()
	flags := []string{"serve", "--addr", "127.0.0.1:0"}
	if dbPath != "" {
		flags = append(flags, "--db", dbPath)
	}
	cmd := exec.Command(binaryPath(t), append(flags, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &serverProc{cmd: cmd, done: make(chan struct{}), Stderr: &syncBuffer{}}
	cmd.Stderr = p.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start tuxlb serve: %v", err)
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "http://"); i >= 0 {
				urls <- strings.TrimSpace(sc.Text()[i:])
			}
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	select {
	case p.URL = <-urls:
		return p
	case <-p.done:
		t.Fatalf("tuxlb serve exited (%v) before listening:\n%s", p.err, p.Stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("tuxlb serve did not say where it listens within 30s:\n%s", p.Stderr)
	}
	return nil
}

// Stop sends SIGTERM and waits for a clean exit.
func (p *serverProc) Stop(t testing.TB) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		if p.err != nil {
			t.Errorf("tuxlb serve exited with %v after SIGTERM, want 0:\n%s", p.err, p.Stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("tuxlb serve still running 30s after SIGTERM")
	}
}

// Kill sends SIGKILL (kill -9) and waits until the process is gone.
func (p *serverProc) Kill(t testing.TB) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// apiClient is shared by the tests; no keep-alive surprises across restarts.
var apiClient = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// call sends one request to the server and returns status, headers and body.
func (p *serverProc) call(t testing.TB, method, path, ctype string, body []byte) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, p.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	res, err := apiClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return res.StatusCode, res.Header, data
}
