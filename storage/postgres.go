package storage

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/tuxlb/tuxlb/core/diag"
)

// postgresMigrations are the PostgreSQL schema steps,
// migrations/postgres/NNNN_name.sql.
//
//go:embed migrations/postgres/*.sql
var postgresMigrations embed.FS

// migrateLockKey is the pg_advisory_lock key held while migrating ("tuxlb"
// in ASCII). Advisory locks are per database, so two tuxlb databases on one
// server do not wait for each other.
const migrateLockKey int64 = 0x7475786c62

// defaultConnectTimeout bounds a connection attempt when the URL sets no
// connect_timeout, so a database that does not answer gives 503, not a hang.
const defaultConnectTimeout = 5 * time.Second

// Postgres is the PostgreSQL implementation of Store, on a pgx connection
// pool. Any number of tuxlb processes may share one database. It is safe for
// concurrent use; the pool replaces connections the server dropped, so
// after the database comes back the next requests succeed.
type Postgres struct {
	pool *pgxpool.Pool
	// Now is the clock used for created_at; tests may replace it.
	Now func() time.Time
	// LeaseClock, when set, replaces the database server's clock for sweep
	// job leases (tests set it). Nil, the default: leases are taken, renewed
	// and judged by the database server's clock, so that every replica
	// measures them by one clock whatever its own says.
	LeaseClock func() time.Time
	// full is set when a write met a full disk (SQLSTATE 53100), and
	// cleared when Ping's test write fits again.
	full atomic.Bool
}

// OpenPostgres connects to the database at the URL
// (postgres://USER[:PASSWORD]@HOST:PORT/DB?PARAMS; pgx's parameters apply,
// pool_max_conns among them) and brings its schema up to date. Replicas that
// start together migrate one at a time under an advisory lock, so the schema
// is migrated once.
func OpenPostgres(ctx context.Context, dbURL string) (*Postgres, error) {
	name := RedactURL(dbURL)
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, diag.Errorf(diag.EINVALID, "database URL %s: %v", name, err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "tuxlb"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, translatePG(err))
	}
	db := &Postgres{pool: pool, Now: time.Now}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open %s: %w", name, translatePG(err))
	}
	return db, nil
}

// RedactURL returns a database URL fit for logs: the password replaced by
// "xxxxx". Other strings (SQLite paths) are returned as they are.
func RedactURL(target string) string {
	if !IsPostgresURL(target) {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	return u.Redacted()
}

// Close closes every connection of the pool.
func (db *Postgres) Close() error {
	db.pool.Close()
	return nil
}

// Ping probes for room only while a write has found the disk full.
func (db *Postgres) Ping(ctx context.Context) error {
	if err := translatePG(db.pool.Ping(ctx)); err != nil {
		return err
	}
	if db.full.Load() {
		return db.probeRoom(ctx)
	}
	return nil
}

// errProbe rolls probeRoom's transaction back.
var errProbe = errors.New("probe")

// probeRoom writes about 64 KiB in a transaction it rolls back: it fails
// while the database's disk has no room for one more run, and changes
// nothing. Once it fits, the server is ready again.
func (db *Postgres) probeRoom(ctx context.Context) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		// hex of random digests, which the compression of large values
		// cannot shrink to nothing
		_, err := tx.Exec(ctx, `INSERT INTO schema_version (version, name, applied_at)
			VALUES (-1, (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 2048)), now())`)
		if err != nil {
			return err
		}
		return errProbe
	})
	if errors.Is(err, errProbe) {
		db.full.Store(false)
		return nil
	}
	return db.noteFull(translatePG(err))
}

// noteFull remembers a full disk for Ping, and returns err.
func (db *Postgres) noteFull(err error) error {
	if diag.ErrorCode(err) == diag.EFULL {
		db.full.Store(true)
	}
	return err
}

func (db *Postgres) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.pool.QueryRow(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_version").Scan(&v)
	return v, translatePG(err)
}

// migrate applies every migration newer than the database's schema version,
// each in its own transaction together with its schema_version row, while
// holding the migration advisory lock on one connection.
func (db *Postgres) migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrateLockKey); err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	defer func() {
		if _, err := conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", migrateLockKey); err != nil {
			// Never hand back to the pool a connection that may hold the lock.
			conn.Conn().Close(context.Background())
		}
	}()
	const create = `CREATE TABLE IF NOT EXISTS schema_version (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)`
	if _, err := conn.Exec(ctx, create); err != nil {
		return fmt.Errorf("schema_version: %w", err)
	}
	var current int
	if err := conn.QueryRow(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_version").Scan(&current); err != nil {
		return fmt.Errorf("schema_version: %w", err)
	}
	list, err := loadMigrations(postgresMigrations, "migrations/postgres")
	if err != nil {
		return err
	}
	for _, m := range list {
		if m.version <= current {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_version(version, name, applied_at) VALUES ($1, $2, $3)",
				m.version, m.name, db.Now().UTC())
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

// inTx runs fn in one transaction, committed when fn returns nil, and
// translates the error.
func (db *Postgres) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return db.noteFull(translatePG(pgx.BeginFunc(ctx, db.pool, fn)))
}

// translatePG turns pgx errors into diag.Error codes: a missing row is
// ENOTFOUND; an integrity constraint ECONFLICT; a server that cannot be
// reached, is shutting down or has dropped the connection EUNAVAILABLE; a
// full disk EFULL; an over-size value ETOOLARGE; a serialization failure or
// deadlock EINTERNAL with "database busy". Other errors pass through (and so
// count as EINTERNAL); errors that already carry a code are left alone.
func translatePG(err error) error {
	if err == nil {
		return nil
	}
	var ce *diag.Error
	if errors.As(err, &ce) {
		return err
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return diag.Errorf(diag.ENOTFOUND, "not found")
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &diag.Error{Code: diag.ECANCELED, Message: "database: " + err.Error()}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if code := pgErrorCode(pe.Code); code != "" {
			msg := "database: "
			switch code {
			case diag.EUNAVAILABLE:
				msg = "database unavailable: "
			case diag.EINTERNAL:
				msg = "database busy: "
			}
			return &diag.Error{Code: code, Message: msg + pe.Error()}
		}
		return err
	}
	if isConnectionLost(err) {
		return &diag.Error{Code: diag.EUNAVAILABLE, Message: "database unavailable: " + err.Error()}
	}
	return err
}

// pgErrorCode maps a PostgreSQL SQLSTATE to a core code, "" for none.
func pgErrorCode(state string) string {
	switch {
	case len(state) != 5:
		return ""
	case state[:2] == "23": // integrity constraint violation
		return diag.ECONFLICT
	case state[:2] == "08", // connection exception
		state[:3] == "57P", // admin/crash shutdown, cannot connect now
		state == "53300",   // too many connections
		state == "25006":   // read-only transaction: a standby, or default_transaction_read_only
		return diag.EUNAVAILABLE
	case state == "53100": // disk full: the server's condition
		return diag.EFULL
	case state[:2] == "54": // program limit exceeded
		return diag.ETOOLARGE
	case state == "40001", state == "40P01": // serialization failure, deadlock
		return diag.EINTERNAL
	}
	return ""
}

// isConnectionLost reports whether err says the database server could not
// be reached or the connection broke.
func isConnectionLost(err error) bool {
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}
