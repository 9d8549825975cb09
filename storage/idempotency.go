package storage

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tuxlb/tuxlb/core/records"
)

// IdempotencyTTL is how long the answer to a POST with an Idempotency-Key is
// kept: a retry within it gets that answer.
const IdempotencyTTL = 24 * time.Hour

func (db *DB) Idempotent(ctx context.Context, scope, key string) (hash string, status int, location string, body []byte, err error) {
	cutoff := db.Now().UTC().Add(-IdempotencyTTL).Format(records.TimeFormat)
	err = db.read.QueryRowContext(ctx, `SELECT request_hash, status, location, body FROM idempotency_keys
		WHERE scope = ? AND key = ? AND created_at > ?`, scope, key, cutoff).Scan(&hash, &status, &location, &body)
	if err != nil {
		return "", 0, "", nil, notFound(err, "idempotency key %q", key)
	}
	return hash, status, location, body, nil
}

func (db *DB) SaveIdempotent(ctx context.Context, scope, key, hash string, status int, location string, body []byte) (err error) {
	if err := db.checkFile(); err != nil {
		return err
	}
	defer db.noteWrite(&err)
	now := db.Now().UTC().Truncate(time.Millisecond)
	cutoff := now.Add(-IdempotencyTTL).Format(records.TimeFormat)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM idempotency_keys WHERE created_at <= ?", cutoff); err != nil {
		return translate(err)
	}
	if body == nil {
		body = []byte{}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO idempotency_keys(scope, key, request_hash, status, location, body, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(scope, key) DO NOTHING`,
		scope, key, hash, status, location, body, now.Format(records.TimeFormat))
	if err != nil {
		return translate(err)
	}
	return translate(tx.Commit())
}

func (db *Postgres) Idempotent(ctx context.Context, scope, key string) (hash string, status int, location string, body []byte, err error) {
	cutoff := db.Now().UTC().Add(-IdempotencyTTL)
	err = db.pool.QueryRow(ctx, `SELECT request_hash, status, location, body FROM idempotency_keys
		WHERE scope = $1 AND key = $2 AND created_at > $3`, scope, key, cutoff).Scan(&hash, &status, &location, &body)
	if err != nil {
		return "", 0, "", nil, pgNotFound(err, "idempotency key %q", key)
	}
	return hash, status, location, body, nil
}

// SaveIdempotent: of two replicas saving the same key at once, the first to
// commit wins, the other's insert does nothing.
func (db *Postgres) SaveIdempotent(ctx context.Context, scope, key, hash string, status int, location string, body []byte) error {
	now := db.Now().UTC().Truncate(time.Millisecond)
	cutoff := now.Add(-IdempotencyTTL)
	if body == nil {
		body = []byte{}
	}
	return db.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM idempotency_keys WHERE created_at <= $1", cutoff); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO idempotency_keys(scope, key, request_hash, status, location, body, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (scope, key) DO NOTHING`,
			scope, key, hash, status, location, body, now)
		return err
	})
}
