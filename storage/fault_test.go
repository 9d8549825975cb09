package storage

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
)

// readOnly makes path unwritable even for root (chattr +i), or skips the
// test where that is not possible.
func readOnly(t *testing.T, path string) {
	t.Helper()
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("chattr +i %s: %v %s (needs root and a file system with attributes)", path, err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
}

// A database file deleted (or replaced) while the server runs is noticed:
// writes are refused as unavailable, naming the file, instead of going to
// an unlinked file and being lost; Ping fails, so readiness does.
func TestDeletedDatabaseFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.PutScenario(ctx, &records.SavedScenario{ID: "a", Body: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	_, err = db.PutScenario(ctx, &records.SavedScenario{ID: "b", Body: []byte("{}")})
	if diag.ErrorCode(err) != diag.EUNAVAILABLE || !strings.Contains(PublicDetail(err), path) || !strings.Contains(PublicDetail(err), "deleted") {
		t.Errorf("a write after the file was deleted: got %v (detail %q), want unavailable naming %s", err, PublicDetail(err), path)
	}
	if err := db.CreateRun(ctx, sampleRun(1, false)); diag.ErrorCode(err) != diag.EUNAVAILABLE {
		t.Errorf("CreateRun: got %v, want unavailable", err)
	}
	if err := db.Ping(ctx); diag.ErrorCode(err) != diag.EUNAVAILABLE {
		t.Errorf("Ping: got %v, want unavailable", err)
	}
}

// A database that cannot be written (a read-only file or file system) is
// unavailable, naming the file, rather than an internal error; Ping says
// so from the start.
func TestReadOnlyDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	readOnly(t, path)
	db, err = Open(path)
	if err != nil {
		t.Fatalf("open a read-only database: %v (reading it still works)", err)
	}
	defer db.Close()
	ctx := context.Background()
	if err := db.Ping(ctx); diag.ErrorCode(err) != diag.EUNAVAILABLE || !strings.Contains(PublicDetail(err), "read-only") {
		t.Errorf("Ping: got %v (detail %q), want unavailable saying read-only", err, PublicDetail(err))
	}
	_, err = db.PutScenario(ctx, &records.SavedScenario{ID: "b", Body: []byte("{}")})
	if diag.ErrorCode(err) != diag.EUNAVAILABLE || !strings.Contains(PublicDetail(err), path) {
		t.Errorf("a write: got %v (detail %q), want unavailable naming %s", err, PublicDetail(err), path)
	}
	if _, _, err := db.Runs(ctx, 10, ""); err != nil {
		t.Errorf("reading: %v", err)
	}
}

// A database in a directory that does not exist or cannot be written is an
// error saying so, not SQLite's "unable to open database file: no such
// file or directory".
func TestDatabaseDirectoryProblems(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain")
	os.WriteFile(file, nil, 0o644)
	cases := []struct{ path, want string }{
		{filepath.Join(dir, "missing", "x.db"), "directory " + filepath.Join(dir, "missing") + " does not exist"},
		{filepath.Join(file, "x.db"), file + " is not a directory"},
	}
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o755)
	if exec.Command("chattr", "+i", ro).Run() == nil {
		t.Cleanup(func() { exec.Command("chattr", "-i", ro).Run() })
		cases = append(cases, struct{ path, want string }{filepath.Join(ro, "x.db"), "directory " + ro + " is not writable"})
	} else {
		t.Log("chattr +i not available: the unwritable directory is not tried")
	}
	for _, tc := range cases {
		_, err := Open(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "unable to open database file") {
			t.Errorf("Open(%s): got %v, want %q", tc.path, err, tc.want)
		}
	}
}

// A database whose disk is full (here its size limit, PRAGMA
// max_page_count, set just above what it holds) answers EFULL naming the
// file, not too_large: the server's condition, not the request's; Ping
// fails until a write fits again.
func TestFullDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var pages int
	if err := db.write.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages+2)); err != nil {
		t.Fatal(err)
	}
	big := sampleRun(1, true)
	big.Result = make([]byte, 256<<10)
	err = db.CreateRun(ctx, big)
	if diag.ErrorCode(err) != diag.EFULL || !strings.Contains(PublicDetail(err), path) || !strings.Contains(PublicDetail(err), "disk is full") {
		t.Fatalf("a run past the size limit: got %v (detail %q), want storage_full naming %s", err, PublicDetail(err), path)
	}
	if err := db.Ping(ctx); diag.ErrorCode(err) != diag.EFULL {
		t.Errorf("Ping while full: got %v, want storage_full", err)
	}
	if _, err := db.write.ExecContext(ctx, "PRAGMA max_page_count = 1000000"); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(ctx); err != nil {
		t.Errorf("Ping once there is room: %v", err)
	}
	if err := db.CreateRun(ctx, big); err != nil {
		t.Errorf("the run once there is room: %v", err)
	}
}

// A -shm (or -wal) file that cannot be written, an immutable one even root
// cannot write, is refused when the database is opened, naming it: SQLite
// would map it into memory and the process would die of SIGBUS at the
// first write.
func TestImmutableSideFile(t *testing.T) {
	for _, side := range []string{"-shm", "-wal"} {
		t.Run(side, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "runs.db")
			db, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			if err := os.WriteFile(path+side, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			readOnly(t, path+side)
			db, err = Open(path)
			if err == nil {
				db.Close()
				t.Fatalf("opened a database whose %s file cannot be written", side)
			}
			if !strings.Contains(err.Error(), path+side) || !strings.Contains(err.Error(), "chattr +i") {
				t.Errorf("error %v, want the %s file named and the immutable attribute said", err, side)
			}
		})
	}
}
