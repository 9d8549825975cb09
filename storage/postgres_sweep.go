package storage

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/sweep"
)

// The PostgreSQL side of sweep jobs; see storage/sweep.go for what each
// method means. Claims use FOR UPDATE SKIP LOCKED, and every change to a
// running job first locks its row (FOR UPDATE) and checks its owner and
// lease. Lease times come from the database server's clock (leaseNow).

// leaseNow is the time by which leases are set and judged in tx: the
// database server's clock (clock_timestamp()), or LeaseClock when set.
func (db *Postgres) leaseNow(ctx context.Context, tx pgx.Tx) (time.Time, error) {
	if db.LeaseClock != nil {
		return db.LeaseClock().UTC().Truncate(time.Millisecond), nil
	}
	var now time.Time
	if err := tx.QueryRow(ctx, "SELECT clock_timestamp()").Scan(&now); err != nil {
		return time.Time{}, err
	}
	return now.UTC().Truncate(time.Microsecond), nil
}

func (db *Postgres) CreateSweep(ctx context.Context, j *sweep.Job) error {
	now := db.Now().UTC().Truncate(time.Millisecond)
	j.CreatedAt, j.UpdatedAt, j.Status = now, now, sweep.Queued
	kind, spec, err := jobSpec(j)
	if err != nil {
		return err
	}
	return db.inTx(ctx, func(tx pgx.Tx) error {
		sc := records.SavedScenario{ID: j.ScenarioID, Body: j.Scenario}
		if _, err := pgPutScenario(ctx, tx, &sc, now); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO sweep_jobs(id, kind, scenario_id, spec, status, total, runs_total,
			created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$8)`, j.ID, kind, j.ScenarioID, spec, j.Status,
			j.Total, j.RunsTotal, now)
		if err != nil {
			return err
		}
		if err := pgInsertUnits(ctx, tx, j); err != nil {
			return err
		}
		return notifySweepWork(ctx, tx)
	})
}

// pgQuerier is a pool or a transaction.
type pgQuerier interface {
	QueryRow(context.Context, string, ...any) pgx.Row
	Query(context.Context, string, ...any) (pgx.Rows, error)
}

// pgSweep reads a job, its points and its workers through q.
func pgSweep(ctx context.Context, q pgQuerier, id string) (*sweep.Job, error) {
	j, err := pgSweepRow(ctx, q, id)
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, "SELECT body FROM sweep_points WHERE job_id = $1 ORDER BY point", id)
	if err != nil {
		return nil, translatePG(err)
	}
	defer rows.Close()
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, translatePG(err)
		}
		j.Points = append(j.Points, b)
	}
	if err := rows.Err(); err != nil {
		return nil, translatePG(err)
	}
	j.Workers, err = pgSweepWorkers(ctx, q, id)
	return j, translatePG(err)
}

// pgSweepRow reads a job without its points through q.
func pgSweepRow(ctx context.Context, q pgQuerier, id string) (*sweep.Job, error) {
	var j sweep.Job
	var spec []byte
	var lease *time.Time
	err := q.QueryRow(ctx, `SELECT j.id, j.kind, j.scenario_id, s.body, j.spec, j.status, j.total, j.runs_total,
		j.runs_done, j.owner, j.lease_until, j.result, j.error, j.created_at, j.updated_at
		FROM sweep_jobs j JOIN scenarios s ON s.id = j.scenario_id WHERE j.id = $1`, id).Scan(
		&j.ID, &j.Kind, &j.ScenarioID, &j.Scenario, &spec, &j.Status, &j.Total, &j.RunsTotal, &j.RunsDone,
		&j.Owner, &lease, &j.Result, &j.Error, &j.CreatedAt, &j.UpdatedAt)
	if err != nil {
		return nil, pgNotFound(err, "sweep %s", id)
	}
	if err := readJobSpec(&j, spec); err != nil {
		return nil, err
	}
	if lease != nil {
		j.LeaseUntil = lease.UTC()
	}
	j.CreatedAt, j.UpdatedAt = j.CreatedAt.UTC(), j.UpdatedAt.UTC()
	return &j, nil
}

func (db *Postgres) Sweep(ctx context.Context, id string) (*sweep.Job, error) {
	return pgSweep(ctx, db.pool, id)
}

func (db *Postgres) CancelSweep(ctx context.Context, id string) (*sweep.Job, error) {
	now := db.Now().UTC().Truncate(time.Millisecond)
	var job *sweep.Job
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE sweep_jobs SET status = 'canceled', owner = '', lease_until = NULL,
			updated_at = $1 WHERE id = $2 AND status IN ('queued', 'running')`, now, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM sweep_units WHERE job_id = $1`, id); err != nil {
			return err // (its points left will not be claimed: their rows go, as a failed job's do)
		}
		var err error
		job, err = pgSweep(ctx, tx, id)
		return err
	})
	return job, err
}
