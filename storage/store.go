// Package storage keeps tuxlb's runs, shared scenarios, dispatch logs and sweep jobs.
// Store is the contract; it has two implementations:
//
//   - DB, an embedded SQLite file (github.com/mattn/go-sqlite3), the default:
//     WAL mode with a busy timeout and foreign keys on, all writes through one
//     connection, reads through a small pool of query-only connections.
//   - Postgres, a PostgreSQL database (github.com/jackc/pgx/v5 with its
//     connection pool), which several `tuxlb serve` replicas share.
//
// Each builds its schema from numbered migrations embedded in the binary
// (migrations/NNNN_name.sql for SQLite, migrations/postgres/NNNN_name.sql
// for PostgreSQL), each applied in its own transaction and recorded in
// schema_version. Both translate driver errors into core's error codes, and
// a test suite runs every storage test against both.
package storage

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// Store is what both implementations keep and how: the server's Store
// interface is a subset of it. Every method is one transaction. Errors carry
// core codes: ENOTFOUND for an unknown id, ECONFLICT for a constraint,
// EUNAVAILABLE when the database server does not answer, ECANCELED when ctx
// ended.
type Store interface {
	// CreateRun stores r, its scenario (unless stored already) and its
	// dispatch log atomically, and fills in r.CreatedAt.
	CreateRun(ctx context.Context, r *core.StoredRun) error
	// Run returns a stored run without its dispatch log.
	Run(ctx context.Context, id string) (*core.StoredRun, error)
	// Dispatch opens the gzip-compressed dispatch log of a run for reading
	// (a piece at a time, ctx bounding each read) and returns its size.
	Dispatch(ctx context.Context, id string) (io.Reader, int64, error)
	// Runs lists up to limit runs, newest first, after cursor; next is ""
	// on the last page.
	Runs(ctx context.Context, limit int, cursor string) (list []core.RunSummary, next string, err error)
	// PutScenario stores s unless its ID is stored; a different body under
	// a stored ID is ECONFLICT.
	PutScenario(ctx context.Context, s *core.SavedScenario) (created bool, err error)
	// Scenario returns a stored scenario.
	Scenario(ctx context.Context, id string) (*core.SavedScenario, error)
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// SchemaVersion is the number of the last migration applied.
	SchemaVersion(ctx context.Context) (int, error)
	// Close releases the database.
	Close() error

	// CreateSweep stores a new sweep job (status queued) and its scenario.
	CreateSweep(ctx context.Context, j *sweep.Job) error
	// Sweep returns a job with its points so far.
	Sweep(ctx context.Context, id string) (*sweep.Job, error)
	// ClaimSweepPoints gives owner, for lease, free points of the oldest
	// unfinished job (enough for maxRuns runs, at least one); ENOTFOUND when
	// no job has a free point. Two replicas never hold the same point.
	ClaimSweepPoints(ctx context.Context, owner string, maxRuns int, lease time.Duration) (*sweep.Job, []int, error)
	// SaveSweepUnit stores a point (a sweep.Point as JSON) owner computed
	// under its lease and renews owner's other points of the job; the last
	// point of a job also stores its result (made by final) and ends it.
	// ECONFLICT when the point is no longer owner's (lease ran out, stored
	// by another) or the job is not running; so does RenewSweepUnits.
	SaveSweepUnit(ctx context.Context, id, owner string, point int, body []byte, lease time.Duration, final FinalFunc) (done bool, err error)
	// RenewSweepUnits extends owner's leases on the points it holds of a job.
	RenewSweepUnits(ctx context.Context, id, owner string, lease time.Duration) error
	// ReleaseSweepUnits frees owner's points of a job (a replica shutting
	// down), so the next claim by any replica takes them at once.
	ReleaseSweepUnits(ctx context.Context, id, owner string) error
	// FailSweep ends a queued or running job as failed, with a message.
	FailSweep(ctx context.Context, id, msg string) error
	// CancelSweep cancels a queued or running job and returns it; an ended
	// job is returned unchanged.
	CancelSweep(ctx context.Context, id string) (*sweep.Job, error)

	// Idempotent returns the answer stored for an Idempotency-Key in scope
	// (a route) within IdempotencyTTL, with the hash of the request that
	// made it; ENOTFOUND when there is none.
	Idempotent(ctx context.Context, scope, key string) (hash string, status int, location string, body []byte, err error)
	// SaveIdempotent stores an answer under a key; one stored already
	// within the TTL stands (no error).
	SaveIdempotent(ctx context.Context, scope, key, hash string, status int, location string, body []byte) error
}

// Bounds of a list page (Runs), whatever was stored: a name is listed cut
// to ListNameMax characters and an ellipsis (GET of the run has it whole),
// and a page ends early, with a cursor to the rest, once its names pass
// ListPageBytes.
const (
	ListNameMax   = 1000
	ListPageBytes = 32 << 10
)

// listName is the SQL expression of a run's name as lists give it.
const listName = "CASE WHEN length(name) > 1000 THEN substr(name, 1, 1000) || '…' ELSE name END"

// page cuts a list read with one row more than limit to its page: limit
// runs, or fewer when their names pass ListPageBytes; next is the cursor
// of the following page ("" on the last). seqs are the rows' numbers.
func page(list []core.RunSummary, seqs []int64, limit int) ([]core.RunSummary, string) {
	n, size := 0, 0
	for n < len(list) && n < limit {
		size += len(list[n].Name)
		n++
		if size > ListPageBytes {
			break
		}
	}
	if n == len(list) {
		return list, ""
	}
	return list[:n], encodeCursor(seqs[n-1])
}

var (
	_ Store = (*DB)(nil)
	_ Store = (*Postgres)(nil)
)

// IsPostgresURL reports whether target names a PostgreSQL database: a URL
// with the scheme postgres:// or postgresql://.
func IsPostgresURL(target string) bool {
	t := strings.ToLower(target)
	return strings.HasPrefix(t, "postgres://") || strings.HasPrefix(t, "postgresql://")
}

// Connect opens the store target names: a postgres:// or postgresql:// URL
// opens PostgreSQL, anything else is the path of a SQLite file.
func Connect(ctx context.Context, target string) (Store, error) {
	if IsPostgresURL(target) {
		return OpenPostgres(ctx, target)
	}
	return Open(target)
}
