package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// recorder is a testing.TB that records Skipf and Fatalf instead of
// stopping the test.
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Skipf(string, ...any)  { r.skipped = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestCheckSkipsOnlyOutsideCI(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		ci         string
		skip, fail bool
	}{
		{"started", nil, "", false, false},
		{"no binaries, no CI", ErrNoBinaries, "", true, false},
		{"no binaries, in CI", ErrNoBinaries, "true", false, true},
		{"no binaries wrapped, in CI", fmt.Errorf("x: %w", ErrNoBinaries), "1", false, true},
		{"initdb failed, no CI", errors.New("pgtest: initdb: exit status 1"), "", false, true},
	}
	for _, tt := range tests {
		t.Setenv("CI", tt.ci)
		if tt.ci == "" {
			os.Unsetenv("CI")
		}
		r := &recorder{TB: t}
		check(r, tt.err)
		if r.skipped != tt.skip || r.failed != tt.fail {
			t.Errorf("%s: skipped %v failed %v, want %v %v", tt.name, r.skipped, r.failed, tt.skip, tt.fail)
		}
	}
}

func TestSanitize(t *testing.T) {
	tests := map[string]string{
		"TestRunRoundTrip/postgres": "testrunroundtrip_postgres",
		"9lives":                    "db_9lives",
		"":                          "db_",
	}
	for in, want := range tests {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) got %q, want %q", in, got, want)
		}
	}
}

// A cluster starts, serves a database, stops (refusing connections), comes
// back on the same port with its data, and Close removes its directory.
func TestClusterLifecycle(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := Start(ctx)
	check(t, err)
	defer c.Close()
	url, err := c.CreateDatabase(ctx, "life")
	if err != nil {
		t.Fatal(err)
	}
	exec := func(sql string) error {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec("CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	port := c.Port
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := exec("SELECT 1"); err == nil {
		t.Errorf("stopped cluster still answers")
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Port != port {
		t.Errorf("port after restart got %d, want %d", c.Port, port)
	}
	if err := exec("DO $$ BEGIN IF (SELECT x FROM kept) <> 7 THEN RAISE 'lost'; END IF; END $$"); err != nil {
		t.Errorf("data after restart: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Errorf("directory %s still there after Close (%v)", c.Dir, err)
	}
}
