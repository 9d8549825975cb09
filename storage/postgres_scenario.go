package storage

import (
	"bytes"
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
)

func (db *Postgres) PutScenario(ctx context.Context, s *records.SavedScenario) (created bool, err error) {
	now := db.Now().UTC().Truncate(time.Millisecond)
	err = db.inTx(ctx, func(tx pgx.Tx) error {
		created, err = pgPutScenario(ctx, tx, s, now)
		return err
	})
	return created, err
}

// pgPutScenario inserts s in tx unless its ID is stored already, and checks
// that a stored one has the same body. ON CONFLICT waits for a concurrent
// insert of the same id to commit, and the SELECT that follows sees it.
func pgPutScenario(ctx context.Context, tx pgx.Tx, s *records.SavedScenario, now time.Time) (bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO scenarios(id, name, body, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (id) DO NOTHING`, s.ID, s.Name, s.Body, now)
	if err != nil {
		return false, err
	}
	if tag.RowsAffected() == 1 {
		s.CreatedAt = now
		return true, nil
	}
	var body []byte
	var created time.Time
	if err := tx.QueryRow(ctx, "SELECT body, created_at FROM scenarios WHERE id = $1", s.ID).Scan(&body, &created); err != nil {
		return false, err
	}
	if !bytes.Equal(body, s.Body) {
		return false, diag.Errorf(diag.ECONFLICT, "scenario %s: another scenario is stored under this id", s.ID)
	}
	s.CreatedAt = created.UTC()
	return false, nil
}

func (db *Postgres) Scenario(ctx context.Context, id string) (*records.SavedScenario, error) {
	s := records.SavedScenario{ID: id}
	err := db.pool.QueryRow(ctx, "SELECT name, body, created_at FROM scenarios WHERE id = $1", id).
		Scan(&s.Name, &s.Body, &s.CreatedAt)
	if err != nil {
		return nil, pgNotFound(err, "scenario %s", id)
	}
	s.CreatedAt = s.CreatedAt.UTC()
	return &s, nil
}
