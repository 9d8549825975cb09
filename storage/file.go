package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/mattn/go-sqlite3"
	"github.com/tuxlb/tuxlb/core/diag"
)

// FileFault is what is wrong with the SQLite file itself: deleted or
// replaced while the server runs, read-only, or failing to be written. It
// is an EUNAVAILABLE core error (errors.As finds it) whose detail names
// the file and says what to do, and holds nothing of the driver, so it may
// be shown to clients (PublicDetail).
type FileFault struct {
	Detail string
	err    *diag.Error
	full   bool // the disk is full: health probes with a write that needs room
}

func (f *FileFault) Error() string { return f.Detail }

// Unwrap gives the core error, of code EUNAVAILABLE.
func (f *FileFault) Unwrap() error { return f.err }

// PublicDetail is the message a client may be shown.
func (f *FileFault) PublicDetail() string { return f.Detail }

// PublicDetail returns the client-safe detail of err when it carries one
// (a FileFault), else "".
func PublicDetail(err error) string {
	var f *FileFault
	if errors.As(err, &f) {
		return f.Detail
	}
	return ""
}

func fileFault(format string, args ...any) *FileFault {
	msg := fmt.Sprintf(format, args...)
	return &FileFault{Detail: msg, err: &diag.Error{Code: diag.EUNAVAILABLE, Message: msg}}
}

// fullFault is the FileFault of a database whose disk is full: an EFULL
// error, the server's condition rather than the request's.
func fullFault(path string) *FileFault {
	msg := fmt.Sprintf("database %s: its disk is full (or the database reached its size limit), so nothing more can be stored; "+
		"free space on its file system: the server answers again by itself once a write fits", path)
	return &FileFault{Detail: msg, err: &diag.Error{Code: diag.EFULL, Message: msg}, full: true}
}

// fileState is the identity of the open database file and the fault its
// writes last met.
type fileState struct {
	path  string
	info  os.FileInfo // the file as opened: a file at path that is not this one is another file
	mu    sync.Mutex
	fault *FileFault // the last write's fault, nil once a write succeeds
}

// checkDir says, in words, why a database file at path cannot be created:
// its directory is missing, not a directory, or not writable.
func checkDir(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("database directory %s does not exist: create it, or give --db a path in a directory that does", dir)
	case err != nil:
		return fmt.Errorf("database directory %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("database path %s: %s is not a directory", path, dir)
	}
	probe, err := os.CreateTemp(dir, ".tuxlb-probe-*")
	if err != nil {
		return fmt.Errorf("database directory %s is not writable (%v): SQLite keeps the database and its -wal and -shm files there; give --db a path in a writable directory", dir, errors.Unwrap(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// checkSideFiles refuses, before SQLite opens the database, a -wal or -shm
// file beside it that cannot be opened for writing (an immutable file,
// chattr +i, which even root cannot write): SQLite maps the -shm file into
// memory, and one it cannot extend kills the process with SIGBUS at the
// first write instead of returning an error.
func checkSideFiles(path string) error {
	for _, side := range []string{"-wal", "-shm"} {
		f, err := os.OpenFile(path+side, os.O_RDWR, 0)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			return fmt.Errorf("database %s: its %s file %s cannot be written (%v): SQLite needs the database, its -wal and its -shm files writable "+
				"(an immutable file, chattr +i, is not; lsattr shows it): make it writable, or remove it while no server uses the database",
				path, side, path+side, errors.Unwrap(err))
		}
		f.Close()
	}
	return nil
}

// checkFile refuses to write when the file at the path is no longer the
// one opened: its writes would go to an unlinked file, and be lost.
func (db *DB) checkFile() error {
	fi, err := os.Stat(db.file.path)
	if err == nil && os.SameFile(fi, db.file.info) {
		return nil
	}
	f := fileFault("database %s: the file was deleted or replaced while the server ran, and what is written now would be lost; "+
		"put it back and restart the server", db.file.path)
	db.setFault(f)
	return f
}

// noteWrite turns the error of a write into a FileFault when the file is at
// fault (read-only, an I/O error), remembers it for Ping, and forgets it
// once a write succeeds.
func (db *DB) noteWrite(err *error) {
	if *err == nil {
		db.setFault(nil)
		return
	}
	if diag.ErrorCode(*err) == diag.EFULL {
		f := fullFault(db.file.path)
		db.setFault(f)
		*err = f
		return
	}
	var se sqlite3.Error
	if !errors.As(*err, &se) {
		return
	}
	var f *FileFault
	switch se.Code {
	case sqlite3.ErrReadonly:
		f = fileFault("database %s is read-only: make the file, its -wal and -shm files and its directory writable (a read-only file system cannot hold it)", db.file.path)
	case sqlite3.ErrIoErr, sqlite3.ErrCantOpen:
		f = fileFault("database %s cannot be written (%s): check the file and its disk", db.file.path, se.Code.Error())
	default:
		return
	}
	db.setFault(f)
	*err = f
}

func (db *DB) setFault(f *FileFault) {
	db.file.mu.Lock()
	db.file.fault = f
	db.file.mu.Unlock()
}

// probeWrite starts a write and rolls it back: it fails when the file
// cannot be written, without changing it.
func (db *DB) probeWrite(ctx context.Context) (err error) {
	defer db.noteWrite(&err)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, "UPDATE schema_version SET name = name WHERE version = (SELECT MAX(version) FROM schema_version)")
	return err
}

// health is Ping's verdict on the file: a file deleted or replaced, or the
// fault of the last write, checked again (a read-only file made writable
// is well again).
func (db *DB) health(ctx context.Context) error {
	if err := db.checkFile(); err != nil {
		return err
	}
	db.file.mu.Lock()
	faulty, full := db.file.fault != nil, db.file.fault != nil && db.file.fault.full
	db.file.mu.Unlock()
	switch {
	case full:
		return db.probeRoom(ctx)
	case faulty:
		return db.probeWrite(ctx)
	}
	return nil
}

// probeRoom writes a row of 64 KiB and rolls it back: it fails while the
// disk (or the database's size limit) has no room for one more run, and
// changes nothing.
func (db *DB) probeRoom(ctx context.Context) (err error) {
	defer db.noteWrite(&err)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, "INSERT INTO schema_version (version, name, applied_at) VALUES (-1, CAST(zeroblob(65536) AS TEXT), '')")
	return translate(err)
}
