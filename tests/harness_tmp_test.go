package tests

// A temporary private copy of the server engineer's harness (binaryPath,
// startServer), with the same names, until tests/harness_test.go is merged.

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// serverProc is a running `tuxlb serve`.
type serverProc struct {
	URL string
	cmd *exec.Cmd
}

// repoRoot is the module root, one level above this file.
func repoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// binaryPath returns $TUXLB_BIN, or builds ./cmd/tuxlb once.
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

type buildError struct{ out string }

func (e *buildError) Error() string { return e.out }

// startServer starts `tuxlb serve` on a free port with the database at dbPath
// and waits until it says where it listens.
func startServer(t testing.TB, dbPath string, args ...string) *serverProc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binaryPath(t), append([]string{"serve", "--addr", "127.0.0.1:0", "--db", dbPath}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start tuxlb serve: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("tuxlb serve's log:\n%s", logs.String())
		}
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "http://"); i >= 0 {
				urls <- strings.TrimSpace(sc.Text()[i:])
			}
		}
	}()
	select {
	case u := <-urls:
		return &serverProc{URL: u, cmd: cmd}
	case <-time.After(20 * time.Second):
		t.Fatal("tuxlb serve did not say where it listens within 20s")
		return nil
	}
}
