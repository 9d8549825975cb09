package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/tuxlb/tuxlb/core"
)

// CreateSweep stores a new job in status queued, with its scenario (when not
// stored yet), in one transaction. It fills in the times.
func (db *DB) CreateSweep(ctx context.Context, j *core.SweepJob) (err error) {
	if err := db.checkFile(); err != nil {
		return err
	}
	defer db.noteWrite(&err)
	now := db.Now().UTC().Truncate(time.Millisecond)
	j.CreatedAt, j.UpdatedAt, j.Status = now, now, core.SweepQueued
	spec, err := json.Marshal(j.Spec)
	if err != nil {
		return err
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	sc := core.SavedScenario{ID: j.ScenarioID, Name: "", Body: j.Scenario}
	if _, err := putScenario(ctx, tx, &sc, now); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO sweep_jobs(id, scenario_id, spec, status, total, runs_total,
		created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)`, j.ID, j.ScenarioID, spec, j.Status, j.Total,
		j.RunsTotal, now.Format(core.TimeFormat), now.Format(core.TimeFormat))
	if err != nil {
		return translate(err)
	}
	return translate(tx.Commit())
}

// sweepColumns are the columns scanSweep reads, from sweep_jobs j joined with scenarios s.
const sweepColumns = `j.id, j.scenario_id, s.body, j.spec, j.status, j.total, j.runs_total, j.runs_done,
	j.owner, j.lease_until, j.result, j.error, j.created_at, j.updated_at`

// scanSweep reads one row of sweepColumns.
func scanSweep(row interface{ Scan(...any) error }) (*core.SweepJob, error) {
	var j core.SweepJob
	var spec []byte
	var lease, created, updated string
	err := row.Scan(&j.ID, &j.ScenarioID, &j.Scenario, &spec, &j.Status, &j.Total, &j.RunsTotal,
		&j.RunsDone, &j.Owner, &lease, &j.Result, &j.Error, &created, &updated)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(spec, &j.Spec); err != nil {
		return nil, err
	}
	j.LeaseUntil, _ = time.Parse(core.TimeFormat, lease)
	j.CreatedAt, _ = time.Parse(core.TimeFormat, created)
	j.UpdatedAt, _ = time.Parse(core.TimeFormat, updated)
	return &j, nil
}

// Sweep returns the job with this id and its points so far, or ENOTFOUND.
func (db *DB) Sweep(ctx context.Context, id string) (*core.SweepJob, error) {
	return readSweep(ctx, db.read, id)
}

// ClaimSweep gives the oldest job that is queued, or running under a lease
// that has run out, to owner for lease: status running, owner and lease
// set. ENOTFOUND when there is none. (PostgreSQL: the same with SELECT ...
// FOR UPDATE SKIP LOCKED.)
func (db *DB) ClaimSweep(ctx context.Context, owner string, lease time.Duration) (_ *core.SweepJob, err error) {
	if err := db.checkFile(); err != nil {
		return nil, err
	}
	defer db.noteWrite(&err)
	now := db.Now().UTC().Truncate(time.Millisecond)
	var id string
	err = db.write.QueryRowContext(ctx, `UPDATE sweep_jobs SET status = 'running', owner = ?, lease_until = ?, updated_at = ?
		WHERE id = (SELECT id FROM sweep_jobs WHERE status = 'queued' OR (status = 'running' AND lease_until < ?)
		ORDER BY seq LIMIT 1) RETURNING id`, owner, now.Add(lease).Format(core.TimeFormat), now.Format(core.TimeFormat),
		now.Format(core.TimeFormat)).Scan(&id)
	if err != nil {
		return nil, notFound(err, "sweep job to claim")
	}
	return db.sweepWrite(ctx, id)
}

// sweepWrite reads a job through the write connection (it sees its own writes).
func (db *DB) sweepWrite(ctx context.Context, id string) (*core.SweepJob, error) {
	return readSweep(ctx, db.write, id)
}

// readSweep reads the job with this id and its points through conn.
func readSweep(ctx context.Context, conn *sql.DB, id string) (*core.SweepJob, error) {
	j, err := scanSweep(conn.QueryRowContext(ctx, `SELECT `+sweepColumns+`
		FROM sweep_jobs j JOIN scenarios s ON s.id = j.scenario_id WHERE j.id = ?`, id))
	if err != nil {
		return nil, notFound(err, "sweep %s", id)
	}
	rows, err := conn.QueryContext(ctx, "SELECT body FROM sweep_points WHERE job_id = ? ORDER BY point", id)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, translate(err)
		}
		j.Points = append(j.Points, b)
	}
	return j, translate(rows.Err())
}

// owned checks, in tx, that owner still holds the running job id under a
// lease that has not run out at now; ECONFLICT when it was canceled or
// claimed by another server meanwhile, or when the lease ran out (a server
// that stalled past its lease has lost the job even before another claims
// it, so that whatever it writes late is refused).
func owned(ctx context.Context, tx *sql.Tx, id, owner string, now time.Time) error {
	var status, who, lease string
	err := tx.QueryRowContext(ctx, "SELECT status, owner, lease_until FROM sweep_jobs WHERE id = ?", id).Scan(&status, &who, &lease)
	if err != nil {
		return notFound(err, "sweep %s", id)
	}
	if status != core.SweepRunning || who != owner {
		return core.Errorf(core.ECONFLICT, "sweep %s is %s (owner %q), no longer this server's", id, status, who)
	}
	if lease < now.Format(core.TimeFormat) { // fixed-width text: text order is time order; '' is released
		return core.Errorf(core.ECONFLICT, "sweep %s: this server's lease ran out, the job is left to the next claim", id)
	}
	return nil
}

// SaveSweepPoint stores a finished point of a job owner holds, with the runs
// done so far, and renews the lease. ECONFLICT when the job is no longer
// owner's running job (canceled, or claimed by another after the lease ran out).
func (db *DB) SaveSweepPoint(ctx context.Context, id, owner string, point int, body []byte, runsDone int, lease time.Duration) error {
	return db.asOwner(ctx, id, owner, func(tx *sql.Tx, now time.Time) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sweep_points(job_id, point, body) VALUES (?,?,?)
		ON CONFLICT(job_id, point) DO NOTHING`, id, point, body); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE sweep_jobs SET runs_done = ?, lease_until = ?, updated_at = ? WHERE id = ?`,
			runsDone, now.Add(lease).Format(core.TimeFormat), now.Format(core.TimeFormat), id)
		return err
	})
}

// asOwner runs write in one write transaction, after checking that owner
// still holds the running job id under a live lease (owned); now is the
// lease clock read once the write lock is held. Driver errors are translated.
func (db *DB) asOwner(ctx context.Context, id, owner string, write func(tx *sql.Tx, now time.Time) error) (err error) {
	if err := db.checkFile(); err != nil {
		return err
	}
	defer db.noteWrite(&err)
	tx, err := db.write.BeginTx(ctx, nil) // immediate: holds the write lock from here
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	now := db.Now().UTC().Truncate(time.Millisecond)
	if err := owned(ctx, tx, id, owner, now); err != nil {
		return err
	}
	if err := write(tx, now); err != nil {
		return translate(err)
	}
	return translate(tx.Commit())
}

// RenewSweep extends owner's lease on a running job; ECONFLICT when the job
// is no longer owner's (a canceled job answers so: the worker then stops).
func (db *DB) RenewSweep(ctx context.Context, id, owner string, lease time.Duration) error {
	return db.asOwner(ctx, id, owner, func(tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `UPDATE sweep_jobs SET lease_until = ? WHERE id = ?`,
			now.Add(lease).Format(core.TimeFormat), id)
		return err
	})
}

// FinishSweep ends owner's running job: done with its result, or failed
// with a message. ECONFLICT when it is no longer owner's.
func (db *DB) FinishSweep(ctx context.Context, id, owner, status string, result []byte, runsDone int, msg string) error {
	if status != core.SweepDone && status != core.SweepFailed {
		return core.Errorf(core.EINVALID, "finish sweep %s: status %q is not done or failed", id, status)
	}
	return db.asOwner(ctx, id, owner, func(tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `UPDATE sweep_jobs SET status = ?, result = ?, runs_done = MAX(runs_done, ?), error = ?,
		owner = '', lease_until = '', updated_at = ? WHERE id = ?`,
			status, result, runsDone, msg, now.Format(core.TimeFormat), id)
		return err
	})
}

// CancelSweep cancels a queued or running job and returns it; a job already
// ended (done, canceled, failed) is returned unchanged. ENOTFOUND for an
// unknown id.
func (db *DB) CancelSweep(ctx context.Context, id string) (_ *core.SweepJob, err error) {
	if err := db.checkFile(); err != nil {
		return nil, err
	}
	defer db.noteWrite(&err)
	now := db.Now().UTC().Truncate(time.Millisecond)
	_, err = db.write.ExecContext(ctx, `UPDATE sweep_jobs SET status = 'canceled', owner = '', lease_until = '',
		updated_at = ? WHERE id = ? AND status IN ('queued', 'running')`, now.Format(core.TimeFormat), id)
	if err != nil {
		return nil, translate(err)
	}
	return db.sweepWrite(ctx, id)
}

// ReleaseSweep gives up owner's lease on a running job (a server shutting
// down mid-job) so that the next claim, by any server, resumes it at once.
func (db *DB) ReleaseSweep(ctx context.Context, id, owner string) (err error) {
	if err := db.checkFile(); err != nil {
		return err
	}
	defer db.noteWrite(&err)
	_, err = db.write.ExecContext(ctx, `UPDATE sweep_jobs SET lease_until = '' WHERE id = ? AND owner = ? AND status = 'running'`, id, owner)
	return translate(err)
}
