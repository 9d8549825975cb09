-- Sweep jobs (POST /api/v1/sweeps). A job is claimed by one server at a time
-- for a lease: status 'running', owner set, lease_until in the future. A
-- server renews its lease while it works; a job whose lease ran out (its
-- server stopped) is claimed again by any server and resumed from its stored
-- points. In PostgreSQL the claim is SELECT ... FOR UPDATE SKIP LOCKED over
-- the same columns; in SQLite the single writer makes the UPDATE atomic.
-- Times are core.TimeFormat text (fixed width, so text order is time order).
CREATE TABLE sweep_jobs (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    scenario_id  TEXT NOT NULL REFERENCES scenarios(id),
    spec         BLOB NOT NULL,  -- core.SweepSpec as JSON
    status       TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'canceled', 'failed')),
    total        INTEGER NOT NULL, -- points of the grid
    runs_total   INTEGER NOT NULL, -- points x replications
    runs_done    INTEGER NOT NULL DEFAULT 0,
    owner        TEXT NOT NULL DEFAULT '',
    lease_until  TEXT NOT NULL DEFAULT '',
    result       BLOB,           -- the final result (tuxlb sweep --format json bytes), when done
    error        TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
) STRICT;

CREATE INDEX sweep_jobs_claim ON sweep_jobs(status, lease_until);

-- The points of a job finished so far, each a core.SweepPoint as JSON.
CREATE TABLE sweep_points (
    job_id  TEXT NOT NULL REFERENCES sweep_jobs(id) ON DELETE CASCADE,
    point   INTEGER NOT NULL,
    body    BLOB NOT NULL,
    PRIMARY KEY (job_id, point)
) STRICT;
