package storage

import (
	"bytes"
	"context"
	"database/sql"
	"time"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
)

func (db *DB) PutScenario(ctx context.Context, s *records.SavedScenario) (created bool, err error) {
	if err := db.checkFile(); err != nil {
		return false, err
	}
	defer db.noteWrite(&err)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return false, translate(err)
	}
	defer tx.Rollback()
	created, err = putScenario(ctx, tx, s, db.Now().UTC().Truncate(time.Millisecond))
	if err != nil {
		return false, err
	}
	return created, translate(tx.Commit())
}

// putScenario inserts s in tx unless its ID is stored already, and checks
// that a stored one has the same body.
func putScenario(ctx context.Context, tx *sql.Tx, s *records.SavedScenario, now time.Time) (bool, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO scenarios(id, name, body, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(id) DO NOTHING`, s.ID, s.Name, s.Body, now.Format(records.TimeFormat))
	if err != nil {
		return false, translate(err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		s.CreatedAt = now
		return n == 1, translate(err)
	}
	var body []byte
	var created string
	err = tx.QueryRowContext(ctx, "SELECT body, created_at FROM scenarios WHERE id = ?", s.ID).Scan(&body, &created)
	if err != nil {
		return false, translate(err)
	}
	if !bytes.Equal(body, s.Body) {
		return false, diag.Errorf(diag.ECONFLICT, "scenario %s: another scenario is stored under this id", s.ID)
	}
	s.CreatedAt, err = time.Parse(records.TimeFormat, created)
	return false, err
}

func (db *DB) Scenario(ctx context.Context, id string) (*records.SavedScenario, error) {
	s := records.SavedScenario{ID: id}
	var created string
	err := db.read.QueryRowContext(ctx, "SELECT name, body, created_at FROM scenarios WHERE id = ?", id).
		Scan(&s.Name, &s.Body, &created)
	if err != nil {
		return nil, notFound(err, "scenario %s", id)
	}
	s.CreatedAt, err = time.Parse(records.TimeFormat, created)
	if err != nil {
		return nil, err
	}
	return &s, nil
}
