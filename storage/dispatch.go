package storage

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
)

// dispatchPiece is the most bytes of a stored dispatch log read (and, in
// SQLite, stored) at once: serving a log holds one piece, whatever the log's
// size.
const dispatchPiece = 256 << 10

// pieceReader reads a stored log of size bytes piece by piece: fetch(i, buf)
// returns piece i (reusing buf's memory where it can). Pieces are read on
// demand, each in its own query, so no connection is held between two reads
// (a slow client does not keep a database connection); a stored log never
// changes, so the pieces are consistent.
type pieceReader struct {
	ctx   context.Context
	id    string
	size  int64
	done  int64  // bytes returned so far
	next  int    // the piece to fetch next
	buf   []byte // the unread rest of the current piece
	mem   []byte // the current piece's memory, reused for the next
	fetch func(ctx context.Context, i int, buf []byte) ([]byte, error)
}

// Read implements io.Reader.
func (r *pieceReader) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		if r.done >= r.size {
			return 0, io.EOF
		}
		piece, err := r.fetch(r.ctx, r.next, r.mem[:0])
		if err != nil {
			return 0, err
		}
		if len(piece) == 0 {
			return 0, fmt.Errorf("dispatch log of run %s: piece %d missing after %d of %d bytes: %w",
				r.id, r.next, r.done, r.size, io.ErrUnexpectedEOF)
		}
		r.next++
		r.buf, r.mem = piece, piece
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	r.done += int64(n)
	if r.done > r.size {
		return n, fmt.Errorf("dispatch log of run %s: more than its %d bytes", r.id, r.size)
	}
	return n, nil
}

// Dispatch reads logs stored before migration 4 whole.
func (db *DB) Dispatch(ctx context.Context, id string) (io.Reader, int64, error) {
	var pieces, size int64
	err := db.read.QueryRowContext(ctx, `SELECT count(*), COALESCE(sum(length(bytes)), 0)
		FROM dispatch_chunks WHERE run_id = ?`, id).Scan(&pieces, &size)
	if err != nil {
		return nil, 0, translate(err)
	}
	if pieces == 0 { // stored before migration 4, or none
		var gz []byte
		err := db.read.QueryRowContext(ctx, "SELECT csv_gzip FROM dispatch_logs WHERE run_id = ?", id).Scan(&gz)
		if err != nil {
			return nil, 0, notFound(err, "dispatch log of run %s", id)
		}
		return bytes.NewReader(gz), int64(len(gz)), nil
	}
	fetch := func(ctx context.Context, i int, buf []byte) ([]byte, error) {
		rows, err := db.read.QueryContext(ctx, "SELECT bytes FROM dispatch_chunks WHERE run_id = ? AND seq = ?", id, i)
		if err != nil {
			return nil, translate(err)
		}
		defer rows.Close()
		if rows.Next() {
			var raw sql.RawBytes // the driver's copy, not copied again
			if err := rows.Scan(&raw); err != nil {
				return nil, translate(err)
			}
			buf = append(buf, raw...)
		}
		return buf, translate(rows.Err())
	}
	return &pieceReader{ctx: ctx, id: id, size: size, fetch: fetch}, size, nil
}

// Dispatch reads each piece as a substring of the bytea, which the column's
// EXTERNAL storage lets PostgreSQL read without the rest.
func (db *Postgres) Dispatch(ctx context.Context, id string) (io.Reader, int64, error) {
	var size int64
	err := db.pool.QueryRow(ctx, "SELECT octet_length(csv_gzip) FROM dispatch_logs WHERE run_id = $1", id).Scan(&size)
	if err != nil {
		return nil, 0, pgNotFound(err, "dispatch log of run %s", id)
	}
	fetch := func(ctx context.Context, i int, buf []byte) ([]byte, error) {
		err := db.pool.QueryRow(ctx, "SELECT substring(csv_gzip FROM $2 FOR $3) FROM dispatch_logs WHERE run_id = $1",
			id, int64(i)*dispatchPiece+1, dispatchPiece).Scan(&buf)
		return buf, translatePG(err)
	}
	return &pieceReader{ctx: ctx, id: id, size: size, fetch: fetch}, size, nil
}
