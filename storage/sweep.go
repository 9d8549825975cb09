package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tuxlb/tuxlb/core/records"
	"github.com/tuxlb/tuxlb/core/sweep"
)

func (db *DB) CreateSweep(ctx context.Context, j *sweep.Job) (err error) {
	if err := db.checkFile(); err != nil {
		return err
	}
	defer db.noteWrite(&err)
	now := db.Now().UTC().Truncate(time.Millisecond)
	j.CreatedAt, j.UpdatedAt, j.Status = now, now, sweep.Queued
	kind, spec, err := jobSpec(j)
	if err != nil {
		return err
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	sc := records.SavedScenario{ID: j.ScenarioID, Name: "", Body: j.Scenario}
	if _, err := putScenario(ctx, tx, &sc, now); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO sweep_jobs(id, kind, scenario_id, spec, status, total, runs_total,
		created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)`, j.ID, kind, j.ScenarioID, spec, j.Status, j.Total,
		j.RunsTotal, now.Format(records.TimeFormat), now.Format(records.TimeFormat))
	if err != nil {
		return translate(err)
	}
	if err := insertUnits(ctx, tx, j); err != nil {
		return translate(err)
	}
	return translate(tx.Commit())
}

// sweepColumns are the columns scanSweep reads, from sweep_jobs j joined with scenarios s.
const sweepColumns = `j.id, j.kind, j.scenario_id, s.body, j.spec, j.status, j.total, j.runs_total, j.runs_done,
	j.owner, j.lease_until, j.result, j.error, j.created_at, j.updated_at`

// scanSweep reads one row of sweepColumns.
func scanSweep(row interface{ Scan(...any) error }) (*sweep.Job, error) {
	var j sweep.Job
	var spec []byte
	var lease, created, updated string
	err := row.Scan(&j.ID, &j.Kind, &j.ScenarioID, &j.Scenario, &spec, &j.Status, &j.Total, &j.RunsTotal,
		&j.RunsDone, &j.Owner, &lease, &j.Result, &j.Error, &created, &updated)
	if err != nil {
		return nil, err
	}
	if err := readJobSpec(&j, spec); err != nil {
		return nil, err
	}
	j.LeaseUntil, _ = time.Parse(records.TimeFormat, lease)
	j.CreatedAt, _ = time.Parse(records.TimeFormat, created)
	j.UpdatedAt, _ = time.Parse(records.TimeFormat, updated)
	return &j, nil
}

// jobSpec is the kind column and the spec column of job j: a sweep's
// sweep.Spec, or an optimization's sweep.OptimizeSpec, as JSON.
func jobSpec(j *sweep.Job) (kind string, spec []byte, err error) {
	if j.Kind == sweep.KindOptimize {
		if j.Optimize == nil {
			return "", nil, fmt.Errorf("optimization %s without its spec", j.ID)
		}
		spec, err = json.Marshal(j.Optimize)
		return sweep.KindOptimize, spec, err
	}
	spec, err = json.Marshal(j.Spec)
	return sweep.KindSweep, spec, err
}

// readJobSpec decodes the spec column of a job of j.Kind into j.
func readJobSpec(j *sweep.Job, spec []byte) error {
	if j.Kind == sweep.KindOptimize {
		j.Optimize = new(sweep.OptimizeSpec)
		return json.Unmarshal(spec, j.Optimize)
	}
	return json.Unmarshal(spec, &j.Spec)
}

func (db *DB) Sweep(ctx context.Context, id string) (*sweep.Job, error) {
	return readSweep(ctx, db.read, id)
}

// sweepWrite reads a job through the write connection (it sees its own writes).
func (db *DB) sweepWrite(ctx context.Context, id string) (*sweep.Job, error) {
	return readSweep(ctx, db.write, id)
}

// readSweep reads the job with this id and its points through conn.
func readSweep(ctx context.Context, conn *sql.DB, id string) (*sweep.Job, error) {
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
	if err := rows.Err(); err != nil {
		return nil, translate(err)
	}
	j.Workers, err = sweepWorkers(ctx, conn, id)
	return j, translate(err)
}

func (db *DB) CancelSweep(ctx context.Context, id string) (_ *sweep.Job, err error) {
	if err := db.checkFile(); err != nil {
		return nil, err
	}
	defer db.noteWrite(&err)
	now := db.Now().UTC().Truncate(time.Millisecond)
	_, err = db.write.ExecContext(ctx, `UPDATE sweep_jobs SET status = 'canceled', owner = '', lease_until = '',
		updated_at = ? WHERE id = ? AND status IN ('queued', 'running')`, now.Format(records.TimeFormat), id)
	if err == nil { // its points left will not be claimed: their rows go, as a failed job's do
		_, err = db.write.ExecContext(ctx, `DELETE FROM sweep_units WHERE job_id = ?`, id)
	}
	if err != nil {
		return nil, translate(err)
	}
	return db.sweepWrite(ctx, id)
}
