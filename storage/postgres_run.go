package storage

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
)

func (db *Postgres) CreateRun(ctx context.Context, r *records.StoredRun) error {
	r.CreatedAt = db.Now().UTC().Truncate(time.Millisecond)
	return db.inTx(ctx, func(tx pgx.Tx) error {
		sc := records.SavedScenario{ID: r.ScenarioID, Name: r.Name, Body: r.Scenario}
		if _, err := pgPutScenario(ctx, tx, &sc, r.CreatedAt); err != nil {
			return err
		}
		if err := pgInsertRun(ctx, tx, r); err != nil {
			return err
		}
		if r.HasDispatch {
			_, err := tx.Exec(ctx, "INSERT INTO dispatch_logs(run_id, csv_gzip) VALUES ($1, $2)", r.ID, r.DispatchGzip)
			return err
		}
		return nil
	})
}

// pgInsertRun writes the runs row of r.
func pgInsertRun(ctx context.Context, tx pgx.Tx, r *records.StoredRun) error {
	h, err := headlineJSON(r)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO runs(id, scenario_id, name, created_at, engine_version,
		policy, seed, rerun_of, result, headline, has_dispatch)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
		r.ID, r.ScenarioID, r.Name, r.CreatedAt, r.EngineVersion,
		r.Policy, r.Seed, r.RerunOf, r.Result, h, r.HasDispatch)
	return err
}

func (db *Postgres) Run(ctx context.Context, id string) (*records.StoredRun, error) {
	var r records.StoredRun
	h := headlineCol{&r.Headline}
	err := db.pool.QueryRow(ctx, `SELECT r.id, r.scenario_id, s.body, r.name, r.created_at,
		r.engine_version, r.policy, r.seed, r.rerun_of, r.result, r.headline, r.has_dispatch
		FROM runs r JOIN scenarios s ON s.id = r.scenario_id WHERE r.id = $1`, id).Scan(
		&r.ID, &r.ScenarioID, &r.Scenario, &r.Name, &r.CreatedAt, &r.EngineVersion, &r.Policy, &r.Seed,
		&r.RerunOf, &r.Result, h, &r.HasDispatch)
	if err != nil {
		return nil, pgNotFound(err, "run %s", id)
	}
	r.CreatedAt = r.CreatedAt.UTC()
	return &r, nil
}

func (db *Postgres) Runs(ctx context.Context, limit int, cursor string) (list []records.RunSummary, next string, err error) {
	before, err := decodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	rows, err := db.pool.Query(ctx, `SELECT seq, id, `+listName+`, scenario_id, created_at, engine_version,
		has_dispatch, headline
		FROM runs WHERE seq < $1 ORDER BY seq DESC LIMIT $2`, before, limit+1)
	if err != nil {
		return nil, "", translatePG(err)
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var s records.RunSummary
		var seq int64
		var created time.Time
		h := headlineCol{&s.Headline}
		err := rows.Scan(&seq, &s.ID, &s.Name, &s.ScenarioID, &created, &s.EngineVersion,
			&s.HasDispatch, h)
		if err != nil {
			return nil, "", translatePG(err)
		}
		s.CreatedAt = created.UTC().Format(records.TimeFormat)
		list = append(list, s)
		seqs = append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, "", translatePG(err)
	}
	list, next = page(list, seqs, limit)
	return list, next, nil
}

// pgNotFound translates err, naming what was not found.
func pgNotFound(err error, format string, args ...any) error {
	err = translatePG(err)
	if diag.ErrorCode(err) == diag.ENOTFOUND {
		return diag.Errorf(diag.ENOTFOUND, format+": not found", args...)
	}
	return err
}
