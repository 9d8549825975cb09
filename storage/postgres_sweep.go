package storage

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tuxlb/tuxlb/core"
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

// CreateSweep stores a new queued job and its scenario in one transaction.
func (db *Postgres) CreateSweep(ctx context.Context, j *sweep.Job) error {
	now := db.Now().UTC().Truncate(time.Millisecond)
	j.CreatedAt, j.UpdatedAt, j.Status = now, now, sweep.Queued
	spec, err := json.Marshal(j.Spec)
	if err != nil {
		return err
	}
	return db.inTx(ctx, func(tx pgx.Tx) error {
		sc := core.SavedScenario{ID: j.ScenarioID, Body: j.Scenario}
		if _, err := pgPutScenario(ctx, tx, &sc, now); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO sweep_jobs(id, scenario_id, spec, status, total, runs_total,
			created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$7)`, j.ID, j.ScenarioID, spec, j.Status,
			j.Total, j.RunsTotal, now)
		return err
	})
}

// pgSweep reads a job and its points through q.
func pgSweep(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, id string) (*sweep.Job, error) {
	var j sweep.Job
	var spec []byte
	var lease *time.Time
	err := q.QueryRow(ctx, `SELECT j.id, j.scenario_id, s.body, j.spec, j.status, j.total, j.runs_total,
		j.runs_done, j.owner, j.lease_until, j.result, j.error, j.created_at, j.updated_at
		FROM sweep_jobs j JOIN scenarios s ON s.id = j.scenario_id WHERE j.id = $1`, id).Scan(
		&j.ID, &j.ScenarioID, &j.Scenario, &spec, &j.Status, &j.Total, &j.RunsTotal, &j.RunsDone,
		&j.Owner, &lease, &j.Result, &j.Error, &j.CreatedAt, &j.UpdatedAt)
	if err != nil {
		return nil, pgNotFound(err, "sweep %s", id)
	}
	if err := json.Unmarshal(spec, &j.Spec); err != nil {
		return nil, err
	}
	if lease != nil {
		j.LeaseUntil = lease.UTC()
	}
	j.CreatedAt, j.UpdatedAt = j.CreatedAt.UTC(), j.UpdatedAt.UTC()
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
	return &j, translatePG(rows.Err())
}

// Sweep returns the job with this id and its points so far, or ENOTFOUND.
func (db *Postgres) Sweep(ctx context.Context, id string) (*sweep.Job, error) {
	return pgSweep(ctx, db.pool, id)
}

// ClaimSweep gives the oldest queued job, or running job whose lease ran out,
// to owner; ENOTFOUND when there is none. Rows other replicas are claiming
// at the same moment are skipped, not waited for.
func (db *Postgres) ClaimSweep(ctx context.Context, owner string, lease time.Duration) (*sweep.Job, error) {
	var job *sweep.Job
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		now, err := db.leaseNow(ctx, tx)
		if err != nil {
			return err
		}
		var id string
		err = tx.QueryRow(ctx, `SELECT id FROM sweep_jobs
			WHERE status = 'queued' OR (status = 'running' AND (lease_until IS NULL OR lease_until < $1))
			ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED`, now).Scan(&id)
		if err != nil {
			return pgNotFound(err, "sweep job to claim")
		}
		if _, err := tx.Exec(ctx, `UPDATE sweep_jobs SET status = 'running', owner = $1, lease_until = $2,
			updated_at = $3 WHERE id = $4`, owner, now.Add(lease), now, id); err != nil {
			return err
		}
		job, err = pgSweep(ctx, tx, id)
		return err
	})
	return job, err
}

// pgOwnedNow locks job id, then reads the lease clock, and checks that
// owner still holds the job running under a lease that has not run out (the
// clock is read after the lock, so time spent waiting for it counts). It
// returns the time read; ECONFLICT when the job is no longer owner's.
func (db *Postgres) pgOwnedNow(ctx context.Context, tx pgx.Tx, id, owner string) (time.Time, error) {
	var status, who string
	var lease *time.Time
	err := tx.QueryRow(ctx, "SELECT status, owner, lease_until FROM sweep_jobs WHERE id = $1 FOR UPDATE", id).Scan(&status, &who, &lease)
	if err != nil {
		return time.Time{}, pgNotFound(err, "sweep %s", id)
	}
	if status != sweep.Running || who != owner {
		return time.Time{}, core.Errorf(core.ECONFLICT, "sweep %s is %s (owner %q), no longer this server's", id, status, who)
	}
	now, err := db.leaseNow(ctx, tx)
	if err != nil {
		return now, err
	}
	if lease == nil || lease.Before(now) {
		return now, core.Errorf(core.ECONFLICT, "sweep %s: this server's lease ran out, the job is left to the next claim", id)
	}
	return now, nil
}

// SaveSweepPoint stores a finished point of owner's job and renews the lease.
func (db *Postgres) SaveSweepPoint(ctx context.Context, id, owner string, point int, body []byte, runsDone int, lease time.Duration) error {
	return db.inTx(ctx, func(tx pgx.Tx) error {
		now, err := db.pgOwnedNow(ctx, tx, id, owner)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO sweep_points(job_id, point, body) VALUES ($1,$2,$3)
			ON CONFLICT (job_id, point) DO NOTHING`, id, point, body); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE sweep_jobs SET runs_done = $1, lease_until = $2, updated_at = $3 WHERE id = $4`,
			runsDone, now.Add(lease), now, id)
		return err
	})
}

// RenewSweep extends owner's lease; ECONFLICT when the job is no longer owner's.
func (db *Postgres) RenewSweep(ctx context.Context, id, owner string, lease time.Duration) error {
	return db.inTx(ctx, func(tx pgx.Tx) error {
		now, err := db.pgOwnedNow(ctx, tx, id, owner)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE sweep_jobs SET lease_until = $1 WHERE id = $2`, now.Add(lease), id)
		return err
	})
}

// ReleaseSweep gives up owner's lease so the next claim resumes the job at once.
func (db *Postgres) ReleaseSweep(ctx context.Context, id, owner string) error {
	_, err := db.pool.Exec(ctx, `UPDATE sweep_jobs SET lease_until = NULL WHERE id = $1 AND owner = $2 AND status = 'running'`, id, owner)
	return translatePG(err)
}

// FinishSweep ends owner's running job: done with its result, or failed.
func (db *Postgres) FinishSweep(ctx context.Context, id, owner, status string, result []byte, runsDone int, msg string) error {
	if status != sweep.Done && status != sweep.Failed {
		return core.Errorf(core.EINVALID, "finish sweep %s: status %q is not done or failed", id, status)
	}
	return db.inTx(ctx, func(tx pgx.Tx) error {
		now, err := db.pgOwnedNow(ctx, tx, id, owner)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE sweep_jobs SET status = $1, result = $2, runs_done = GREATEST(runs_done, $3),
			error = $4, owner = '', lease_until = NULL, updated_at = $5 WHERE id = $6`,
			status, result, runsDone, msg, now, id)
		return err
	})
}

// CancelSweep cancels a queued or running job and returns it; an ended job
// is returned unchanged.
func (db *Postgres) CancelSweep(ctx context.Context, id string) (*sweep.Job, error) {
	now := db.Now().UTC().Truncate(time.Millisecond)
	var job *sweep.Job
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE sweep_jobs SET status = 'canceled', owner = '', lease_until = NULL,
			updated_at = $1 WHERE id = $2 AND status IN ('queued', 'running')`, now, id); err != nil {
			return err
		}
		var err error
		job, err = pgSweep(ctx, tx, id)
		return err
	})
	return job, err
}
