package storage

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"
	"github.com/tuxlb/tuxlb/core/diag"
)

// sqliteMigrations are the SQLite schema steps, migrations/NNNN_name.sql.
//
//go:embed migrations/*.sql
var sqliteMigrations embed.FS

// readers is the size of the query-only connection pool.
const readers = 4

// DB is the SQLite implementation of Store: an open database file. It is
// safe for concurrent use.
type DB struct {
	write *sql.DB // exactly one connection: SQLite has one writer anyway
	read  *sql.DB
	// Now is the clock used for created_at; tests may replace it.
	Now  func() time.Time
	file *fileState
}

// Open opens (creating it if needed) the database file at path and brings its
// schema up to date.
func Open(path string) (*DB, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, diag.Errorf(diag.EINVALID, "database path %q: must be a file name without '?' or '#'", path)
	}
	if err := checkDir(path); err != nil {
		return nil, err
	}
	if err := checkSideFiles(path); err != nil {
		return nil, err
	}
	params := "_journal_mode=WAL&_busy_timeout=10000&_foreign_keys=on&_synchronous=NORMAL"
	write, err := sql.Open("sqlite3", path+"?"+params+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetConnMaxIdleTime(0)
	db := &DB{write: write, Now: time.Now}
	if err := db.migrate(context.Background()); err != nil {
		write.Close()
		return nil, fmt.Errorf("open %s: %w", path, translate(err))
	}
	read, err := sql.Open("sqlite3", path+"?"+params+"&_query_only=true")
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	read.SetMaxOpenConns(readers)
	db.read = read
	info, err := os.Stat(path)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.file = &fileState{path: path, info: info}
	_ = db.probeWrite(context.Background()) // a read-only file is noted, and Ping says so from the start
	return db, nil
}

// Path is the database file's path, as given to Open.
func (db *DB) Path() string { return db.file.path }

// Close closes the database.
func (db *DB) Close() error {
	return errors.Join(db.read.Close(), db.write.Close())
}

// Ping also checks the file: it is still the file opened, and the last
// write found nothing wrong with it (or a probe write now succeeds).
func (db *DB) Ping(ctx context.Context) error {
	var one int
	if err := translate(db.read.QueryRowContext(ctx, "SELECT 1").Scan(&one)); err != nil {
		return err
	}
	return db.health(ctx)
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict ("ok"
// when the file is sound).
func (db *DB) IntegrityCheck(ctx context.Context) (string, error) {
	var verdict string
	err := db.read.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&verdict)
	return verdict, translate(err)
}

func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.write.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_version").Scan(&v)
	return v, translate(err)
}

// migration is one embedded schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads the migrations in directory dir of fsys, in version
// order.
func loadMigrations(fsys fs.FS, dir string) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var list []migration
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive number and '_'", e.Name())
		}
		body, err := fs.ReadFile(fsys, dir+"/"+e.Name())
		if err != nil {
			return nil, err
		}
		list = append(list, migration{version: v, name: e.Name(), sql: string(body)})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].version < list[j].version })
	return list, nil
}

// migrate applies every migration newer than the database's schema version,
// each in its own transaction together with its schema_version row.
func (db *DB) migrate(ctx context.Context) error {
	const create = `CREATE TABLE IF NOT EXISTS schema_version (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`
	if _, err := db.write.ExecContext(ctx, create); err != nil {
		return fmt.Errorf("schema_version: %w", err)
	}
	current, err := db.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	list, err := loadMigrations(sqliteMigrations, "migrations")
	if err != nil {
		return err
	}
	for _, m := range list {
		if m.version <= current {
			continue
		}
		if err := db.apply(ctx, m); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

// apply runs one migration in a transaction.
func (db *DB) apply(ctx context.Context, m migration) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, "INSERT INTO schema_version(version, name, applied_at) VALUES (?, ?, ?)",
		m.version, m.name, db.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return err
	}
	return tx.Commit()
}

// translate turns driver errors into diag.Error codes: a missing row is
// ENOTFOUND, a constraint violation ECONFLICT, a full disk EFULL, a busy or
// locked database EINTERNAL with a message saying so; other errors pass
// through (and so count as EINTERNAL). Errors that already carry a code are
// left alone.
func translate(err error) error {
	if err == nil {
		return nil
	}
	var ce *diag.Error
	if errors.As(err, &ce) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return diag.Errorf(diag.ENOTFOUND, "not found")
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &diag.Error{Code: diag.ECANCELED, Message: "database: " + err.Error()}
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrConstraint:
			return &diag.Error{Code: diag.ECONFLICT, Message: "database: " + se.Error()}
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return &diag.Error{Code: diag.EINTERNAL, Message: "database busy: " + se.Error()}
		case sqlite3.ErrFull:
			return &diag.Error{Code: diag.EFULL, Message: "database: " + se.Error()} // noteWrite names the file
		case sqlite3.ErrTooBig:
			return &diag.Error{Code: diag.ETOOLARGE, Message: "database: " + se.Error()}
		}
	}
	return err
}
