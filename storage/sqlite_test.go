package storage

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
)

// openTemp opens a fresh SQLite database in t.TempDir() with the ticking
// clock of openStore, for tests of what only the SQLite store has.
func openTemp(t *testing.T) *DB {
	t.Helper()
	return openStore(t, filepath.Join(t.TempDir(), "tuxlb.db")).(*DB)
}

func TestSQLitePragmas(t *testing.T) {
	db := openTemp(t)
	var mode string
	db.write.QueryRow("PRAGMA journal_mode").Scan(&mode)
	var fk int
	db.read.QueryRow("PRAGMA foreign_keys").Scan(&fk)
	if mode != "wal" || fk != 1 {
		t.Errorf("journal_mode %q foreign_keys %d, want wal 1", mode, fk)
	}
}

func TestOpenRejectsBadPath(t *testing.T) {
	for _, path := range []string{"", "a?b.db", "x#y"} {
		_, err := Open(path)
		if got := diag.ErrorCode(err); got != diag.EINVALID {
			t.Errorf("Open(%q): code got %q, want %q", path, got, diag.EINVALID)
		}
	}
}

func TestConnectChoosesBackend(t *testing.T) {
	tests := []struct {
		target string
		pg     bool
	}{
		{"tuxlb.db", false}, {"/var/lib/tuxlb/runs.db", false}, {"postgres.db", false},
		{"postgres://u@h/db", true}, {"postgresql://u@h:5433/db?sslmode=disable", true},
		{"POSTGRES://u@h/db", true}, {"mysql://u@h/db", false},
	}
	for _, tt := range tests {
		if got := IsPostgresURL(tt.target); got != tt.pg {
			t.Errorf("IsPostgresURL(%q) got %v, want %v", tt.target, got, tt.pg)
		}
	}
	st, err := Connect(context.Background(), filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(*DB); !ok {
		t.Errorf("Connect(path) got a %T, want *DB (SQLite)", st)
	}
}

func BenchmarkCreateRun(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			db := openStore(b, be.target(b))
			result := bytes.Repeat([]byte("x"), 64<<10) // a typical result is tens of KiB
			ctx := context.Background()
			b.ResetTimer()
			for i := range b.N {
				r := sampleRun(i, true)
				r.Result = result
				if err := db.CreateRun(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
