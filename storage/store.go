// Package storage keeps tuxlb's runs, shared scenarios, dispatch logs and sweep jobs.
// Store is the contract, made of one interface per concept (RunStore,
// ScenarioStore, SweepStore, IdempotencyStore, HealthStore); it has two
// implementations:
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

	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// The contract is declared once, one small interface per concept, and
// implemented by both databases, filed by concept: run.go and
// postgres_run.go (dispatch.go for the logs of both), scenario.go and
// postgres_scenario.go, sweep.go, sweep_units.go and their postgres_
// twins, idempotency.go for both. What a method promises is said here; an
// implementation's comment says only what is particular to its database.
//
// Every method is one transaction: it happens whole or not at all. Errors
// carry core codes (diag): ENOTFOUND for an unknown id, ECONFLICT for a
// constraint, EUNAVAILABLE when the database server does not answer, EFULL
// when its disk is full, ETOOLARGE past a size limit of the database,
// ECANCELED when ctx ended. Concurrent callers, several replicas on one
// PostgreSQL database among them, see each method as if alone.

// RunStore keeps runs and their dispatch logs.
type RunStore interface {
	// CreateRun stores r, its scenario (unless stored already) and its
	// dispatch log atomically (after a crash either all of it is there or
	// none), and fills in r.CreatedAt.
	CreateRun(ctx context.Context, r *records.StoredRun) error
	// Run returns the stored run with this id, without its dispatch log;
	// ENOTFOUND when there is none.
	Run(ctx context.Context, id string) (*records.StoredRun, error)
	// Runs lists up to limit runs, newest first, starting after cursor (""
	// for the newest); next is the cursor of the following page, "" on the
	// last one. A page ends early once its names pass ListPageBytes, and a
	// name is listed cut to ListNameMax characters.
	Runs(ctx context.Context, limit int, cursor string) (list []records.RunSummary, next string, err error)
	// Dispatch opens the gzip-compressed dispatch log of run id for reading
	// and returns it with its size in bytes; ENOTFOUND when the run does
	// not exist or was not created with its log. The log is read a piece at
	// a time as the reader is read, ctx bounding every read.
	Dispatch(ctx context.Context, id string) (io.Reader, int64, error)
}

// ScenarioStore keeps content-addressed scenarios, shared by their ID.
type ScenarioStore interface {
	// PutScenario stores s unless a scenario with its ID is stored
	// already; created says whether it was new. A different body under a
	// stored ID is ECONFLICT. Two callers storing the same scenario at once
	// both succeed, one of them with created false.
	PutScenario(ctx context.Context, s *records.SavedScenario) (created bool, err error)
	// Scenario returns the stored scenario with this id; ENOTFOUND when
	// there is none.
	Scenario(ctx context.Context, id string) (*records.SavedScenario, error)
}

// SweepStore keeps sweep jobs, which replicas work point by point: any
// replica with free workers claims a few free points of the oldest
// unfinished job for a lease, runs them and stores each point; the replica
// that stores a job's last point writes its result in the same
// transaction. A point whose lease ran out (its replica died) is free to
// the next claim; a point is stored once: a save by a replica that no
// longer holds the point's lease is refused.
type SweepStore interface {
	// CreateSweep stores a new job in status queued, with its scenario
	// (unless stored already) and its points, free to claim, atomically,
	// and fills in its times.
	CreateSweep(ctx context.Context, j *sweep.Job) error
	// Sweep returns the job with this id and its points so far; ENOTFOUND
	// when there is none.
	Sweep(ctx context.Context, id string) (*sweep.Job, error)
	// ClaimSweepPoints gives owner, for lease, free points (never claimed,
	// or whose lease ran out) of the oldest job that is queued or running:
	// enough for maxRuns runs (maxRuns / replications points, at least
	// one), highest rank first. The job becomes running. It returns the job
	// (without its points) and the points claimed, in ascending order;
	// ENOTFOUND when no job has a free point. Two owners never hold the
	// same point.
	ClaimSweepPoints(ctx context.Context, owner string, maxRuns int, lease time.Duration) (*sweep.Job, []int, error)
	// SaveSweepUnit stores point (a sweep.Point as JSON) of job id,
	// computed by owner, which must hold the point's lease, and renews
	// owner's other points of the job. When it is the job's last point,
	// final makes the result from every point and the job is done (or
	// failed with final's error) in the same transaction; done reports it.
	// ECONFLICT when the job is not running (canceled, failed, done) or the
	// point is no longer owner's (stored by another, or its lease ran out:
	// whatever owner sends late is refused, even before another replica
	// claims the point).
	SaveSweepUnit(ctx context.Context, id, owner string, point int, body []byte, lease time.Duration, final FinalFunc) (done bool, err error)
	// RenewSweepUnits extends the lease of the points of job id that owner
	// holds (those whose lease has not run out); ECONFLICT when the job is
	// not running any more (the replica then stops).
	RenewSweepUnits(ctx context.Context, id, owner string, lease time.Duration) error
	// SweepProgress records the runs done of job id, a job run whole by
	// owner (an optimization: one point, whose progress is not its stored
	// points), which must hold the lease of its point 0; ECONFLICT
	// otherwise, as SaveSweepUnit. A job's stored points do not count
	// towards its runs done when it is an optimization.
	SweepProgress(ctx context.Context, id, owner string, runsDone int) error
	// ReleaseSweepUnits frees the points of job id that owner holds (a
	// replica shutting down), so the next claim, by any replica, takes
	// them at once.
	ReleaseSweepUnits(ctx context.Context, id, owner string) error
	// FailSweep ends a queued or running job as failed, with msg; its free
	// and claimed points are dropped. A job already ended is left as it is.
	FailSweep(ctx context.Context, id, msg string) error
	// CancelSweep cancels a queued or running job and returns it; a job
	// already ended (done, canceled, failed) is returned unchanged.
	// ENOTFOUND for an unknown id.
	CancelSweep(ctx context.Context, id string) (*sweep.Job, error)
}

// SweepNotifier is a store that tells its replicas when sweep points
// become free to claim. Only Postgres has it (SQLite serves one replica,
// whose POST wakes its own loop); a caller asserts it and polls as well.
type SweepNotifier interface {
	// SweepWork returns a channel that receives a value whenever any
	// replica on this database posts a sweep job or releases points (and
	// once after each (re)connection, since notifications sent while it
	// was not listening are lost), until ctx ends. A point whose lease
	// runs out sends nothing.
	SweepWork(ctx context.Context) <-chan struct{}
}

// IdempotencyStore keeps the answers to POSTs with an Idempotency-Key.
type IdempotencyStore interface {
	// Idempotent returns the answer stored for key in scope (a route) less
	// than IdempotencyTTL ago, with the hash of the request that made it;
	// ENOTFOUND when there is none.
	Idempotent(ctx context.Context, scope, key string) (hash string, status int, location string, body []byte, err error)
	// SaveIdempotent stores the answer to a request under key in scope. A
	// key whose answer is older than IdempotencyTTL is taken over; one
	// stored since (by a concurrent request) is kept, and SaveIdempotent
	// returns no error: the first answer stands. Answers past the TTL are
	// deleted on the way.
	SaveIdempotent(ctx context.Context, scope, key, hash string, status int, location string, body []byte) error
}

// HealthStore says whether the database can serve (GET /healthz).
type HealthStore interface {
	// Ping checks that the database answers and can take a write: after a
	// write found the disk full, Ping is EFULL until a probe write of about
	// 64 KiB (rolled back) fits again.
	Ping(ctx context.Context) error
}

// Store is the whole contract: every concept, and what the program that
// opened the database does with it.
type Store interface {
	RunStore
	ScenarioStore
	SweepStore
	IdempotencyStore
	HealthStore
	// SchemaVersion is the number of the last migration applied.
	SchemaVersion(ctx context.Context) (int, error)
	// Close releases the database.
	Close() error
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
func page(list []records.RunSummary, seqs []int64, limit int) ([]records.RunSummary, string) {
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
	_ Store         = (*DB)(nil)
	_ Store         = (*Postgres)(nil)
	_ SweepNotifier = (*Postgres)(nil)
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
