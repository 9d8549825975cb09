package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// The cluster a test binary shares between its tests, started on first use.
var (
	sharedOnce sync.Once
	shared     *Cluster
	sharedErr  error
)

// Main runs the tests of a package that uses Shared and then stops and
// removes the shared cluster, if one was started. Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		if err := shared.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: close: %v\n", err)
		}
	}
	return code
}

// Shared returns the package's shared cluster, starting it the first time.
// Without PostgreSQL binaries the test is skipped, unless the environment
// variable CI is set: there the PostgreSQL tests must run, and the test
// fails instead. Any other failure to start fails the test.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	sharedOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		shared, sharedErr = Start(ctx)
	})
	check(t, sharedErr)
	return shared
}

// Own starts a cluster for this test alone (for tests that stop the server)
// and removes it when the test ends. Skipping follows the rules of Shared.
func Own(t testing.TB) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := Start(ctx)
	check(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// check skips or fails t for an error from Start.
func check(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if errors.Is(err, ErrNoBinaries) && os.Getenv("CI") == "" {
		t.Skipf("%v (skipped outside CI; with CI set this fails)", err)
		return
	}
	t.Fatalf("%v", err)
}

// Database creates a fresh database on the shared cluster for test t and
// returns its URL.
func Database(t testing.TB) string {
	t.Helper()
	url, err := Shared(t).CreateDatabase(context.Background(), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return url
}
