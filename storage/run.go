package storage

import (
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tuxlb/tuxlb/core"
)

// CreateRun stores r, its scenario (when not stored yet) and its dispatch log
// in one transaction: after a crash either all of it is there or none. It
// fills in r.CreatedAt.
func (db *DB) CreateRun(ctx context.Context, r *core.StoredRun) (err error) {
	if err := db.checkFile(); err != nil {
		return err
	}
	defer db.noteWrite(&err)
	r.CreatedAt = db.Now().UTC().Truncate(time.Millisecond)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return translate(err)
	}
	defer tx.Rollback()
	sc := core.SavedScenario{ID: r.ScenarioID, Name: r.Name, Body: r.Scenario}
	if _, err := putScenario(ctx, tx, &sc, r.CreatedAt); err != nil {
		return err
	}
	if err := insertRun(ctx, tx, r); err != nil {
		return err
	}
	if r.HasDispatch {
		if err := insertDispatch(ctx, tx, r.ID, r.DispatchGzip); err != nil {
			return err
		}
	}
	return translate(tx.Commit())
}

// insertRun writes the runs row of r.
func insertRun(ctx context.Context, tx *sql.Tx, r *core.StoredRun) error {
	h := r.Headline
	_, err := tx.ExecContext(ctx, `INSERT INTO runs(id, scenario_id, name, created_at, engine_version,
		policy, seed, rerun_of, result, issued, completed, failed, timed_out, wait_mean, wait_p95,
		wait_p99, response_mean, response_p95, response_p99, max_utilization, jain, network_sent, has_dispatch,
		saturated_machines)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.ID, r.ScenarioID, r.Name, r.CreatedAt.Format(core.TimeFormat), r.EngineVersion,
		r.Policy, r.Seed, r.RerunOf, r.Result, h.Issued, h.Completed, h.Failed, h.TimedOut,
		h.WaitMeanMS, h.WaitP95MS, h.WaitP99MS, h.ResponseMeanMS, h.ResponseP95MS, h.ResponseP99MS,
		h.MaxUtilization, h.Jain, h.NetworkSent, r.HasDispatch, h.SaturatedMachines)
	return translate(err)
}

// Run returns the stored run with this id (without its dispatch log), or an
// ENOTFOUND error.
func (db *DB) Run(ctx context.Context, id string) (*core.StoredRun, error) {
	var r core.StoredRun
	var created string
	h := &r.Headline
	err := db.read.QueryRowContext(ctx, `SELECT r.id, r.scenario_id, s.body, r.name, r.created_at,
		r.engine_version, r.policy, r.seed, r.rerun_of, r.result, r.issued, r.completed, r.failed,
		r.timed_out, r.wait_mean, r.wait_p95, r.wait_p99, r.response_mean, r.response_p95,
		r.response_p99, r.max_utilization, r.jain, r.network_sent, r.has_dispatch,
		COALESCE(r.saturated_machines, 0)
		FROM runs r JOIN scenarios s ON s.id = r.scenario_id WHERE r.id = ?`, id).Scan(
		&r.ID, &r.ScenarioID, &r.Scenario, &r.Name, &created, &r.EngineVersion, &r.Policy, &r.Seed,
		&r.RerunOf, &r.Result, &h.Issued, &h.Completed, &h.Failed, &h.TimedOut, &h.WaitMeanMS,
		&h.WaitP95MS, &h.WaitP99MS, &h.ResponseMeanMS, &h.ResponseP95MS, &h.ResponseP99MS, &h.MaxUtilization,
		&h.Jain, &h.NetworkSent, &r.HasDispatch, &h.SaturatedMachines)
	if err != nil {
		return nil, notFound(err, "run %s", id)
	}
	r.CreatedAt, err = time.Parse(core.TimeFormat, created)
	if err != nil {
		return nil, fmt.Errorf("run %s: created_at: %w", id, err)
	}
	return &r, nil
}

// Runs lists up to limit runs, newest first, starting after cursor ("" for
// the newest). next is the cursor of the following page, "" on the last one.
func (db *DB) Runs(ctx context.Context, limit int, cursor string) (list []core.RunSummary, next string, err error) {
	before, err := decodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	rows, err := db.read.QueryContext(ctx, `SELECT seq, id, `+listName+`, scenario_id, created_at, engine_version,
		has_dispatch, issued, completed, failed, timed_out, wait_mean, wait_p95, wait_p99,
		response_mean, response_p95, response_p99, max_utilization, jain, network_sent,
		COALESCE(saturated_machines, 0)
		FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT ?`, before, limit+1)
	if err != nil {
		return nil, "", translate(err)
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var s core.RunSummary
		var seq int64
		h := &s.Headline
		err := rows.Scan(&seq, &s.ID, &s.Name, &s.ScenarioID, &s.CreatedAt, &s.EngineVersion,
			&s.HasDispatch, &h.Issued, &h.Completed, &h.Failed, &h.TimedOut, &h.WaitMeanMS, &h.WaitP95MS,
			&h.WaitP99MS, &h.ResponseMeanMS, &h.ResponseP95MS, &h.ResponseP99MS, &h.MaxUtilization, &h.Jain,
			&h.NetworkSent, &h.SaturatedMachines)
		if err != nil {
			return nil, "", translate(err)
		}
		list = append(list, s)
		seqs = append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, "", translate(err)
	}
	list, next = page(list, seqs, limit)
	return list, next, nil
}

// cursorPrefix marks tuxlb's list cursors, so that a cursor is opaque to
// clients and a stray string is rejected.
const cursorPrefix = "seq:"

// encodeCursor returns the cursor that continues after the run numbered seq.
func encodeCursor(seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(seq, 10)))
}

// decodeCursor returns the sequence number a cursor points before.
func decodeCursor(cursor string) (int64, error) {
	if cursor == "" {
		return 1<<63 - 1, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	num, ok := strings.CutPrefix(string(raw), cursorPrefix)
	seq, perr := strconv.ParseInt(num, 10, 64)
	if err != nil || !ok || perr != nil || seq <= 0 {
		return 0, core.FieldErrorf("cursor", "%q is not a cursor this server gave out", cursor)
	}
	return seq, nil
}

// notFound translates err, naming what was not found.
func notFound(err error, format string, args ...any) error {
	err = translate(err)
	if core.ErrorCode(err) == core.ENOTFOUND {
		return core.Errorf(core.ENOTFOUND, format+": not found", args...)
	}
	return err
}

// insertDispatch stores a dispatch log in pieces of dispatchPiece bytes (at
// least one, so that an empty log is found).
func insertDispatch(ctx context.Context, tx *sql.Tx, id string, gz []byte) error {
	for seq := 0; seq == 0 || len(gz) > 0; seq++ {
		piece := gz[:min(len(gz), dispatchPiece)]
		gz = gz[len(piece):]
		if piece == nil {
			piece = []byte{} // NOT NULL
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO dispatch_chunks(run_id, seq, bytes) VALUES (?, ?, ?)", id, seq, piece)
		if err != nil {
			return translate(err)
		}
	}
	return nil
}
