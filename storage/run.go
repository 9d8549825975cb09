package storage

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tuxlb/tuxlb/core/result"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/records"
)

func (db *DB) CreateRun(ctx context.Context, r *records.StoredRun) (err error) {
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
	sc := records.SavedScenario{ID: r.ScenarioID, Name: r.Name, Body: r.Scenario}
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
func insertRun(ctx context.Context, tx *sql.Tx, r *records.StoredRun) error {
	h, err := headlineJSON(r)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO runs(id, scenario_id, name, created_at, engine_version,
		policy, seed, rerun_of, result, headline, has_dispatch)
		VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		r.ID, r.ScenarioID, r.Name, r.CreatedAt.Format(records.TimeFormat), r.EngineVersion,
		r.Policy, r.Seed, r.RerunOf, r.Result, h, r.HasDispatch)
	return translate(err)
}

func (db *DB) Run(ctx context.Context, id string) (*records.StoredRun, error) {
	var r records.StoredRun
	var created string
	h := headlineCol{&r.Headline}
	err := db.read.QueryRowContext(ctx, `SELECT r.id, r.scenario_id, s.body, r.name, r.created_at,
		r.engine_version, r.policy, r.seed, r.rerun_of, r.result, r.headline, r.has_dispatch
		FROM runs r JOIN scenarios s ON s.id = r.scenario_id WHERE r.id = ?`, id).Scan(
		&r.ID, &r.ScenarioID, &r.Scenario, &r.Name, &created, &r.EngineVersion, &r.Policy, &r.Seed,
		&r.RerunOf, &r.Result, h, &r.HasDispatch)
	if err != nil {
		return nil, notFound(err, "run %s", id)
	}
	r.CreatedAt, err = time.Parse(records.TimeFormat, created)
	if err != nil {
		return nil, fmt.Errorf("run %s: created_at: %w", id, err)
	}
	return &r, nil
}

func (db *DB) Runs(ctx context.Context, limit int, cursor string) (list []records.RunSummary, next string, err error) {
	before, err := decodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	rows, err := db.read.QueryContext(ctx, `SELECT seq, id, `+listName+`, scenario_id, created_at, engine_version,
		has_dispatch, headline
		FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT ?`, before, limit+1)
	if err != nil {
		return nil, "", translate(err)
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var s records.RunSummary
		var seq int64
		h := headlineCol{&s.Headline}
		err := rows.Scan(&seq, &s.ID, &s.Name, &s.ScenarioID, &s.CreatedAt, &s.EngineVersion,
			&s.HasDispatch, h)
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
		return 0, diag.FieldErrorf("cursor", "%q is not a cursor this server gave out", cursor)
	}
	return seq, nil
}

// notFound translates err, naming what was not found.
func notFound(err error, format string, args ...any) error {
	err = translate(err)
	if diag.ErrorCode(err) == diag.ENOTFOUND {
		return diag.Errorf(diag.ENOTFOUND, format+": not found", args...)
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

// headlineJSON is the runs row's headline column of r: its result.Headline as
// JSON.
func headlineJSON(r *records.StoredRun) (string, error) {
	b, err := json.Marshal(r.Headline)
	return string(b), err
}

// headlineCol scans a runs row's headline column into a result.Headline, as
// it was written (a row converted from the columns of before has no
// network_share: Headline.Derive fills it in).
type headlineCol struct{ h *result.Headline }

// Scan reads the column's JSON text.
func (c headlineCol) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("runs.headline: want text, got %T", src)
	}
	if err := json.Unmarshal(b, c.h); err != nil {
		return fmt.Errorf("runs.headline: %w", err)
	}
	return nil
}
