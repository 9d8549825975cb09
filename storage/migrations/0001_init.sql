-- Scenarios are content-addressed: id is derived from the SHA-256 of body,
-- the scenario's canonical JSON.
CREATE TABLE scenarios (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL DEFAULT '',
    body       BLOB NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

-- One row per run. seq orders runs by creation (newest first = seq DESC) and
-- is what list cursors point at. The headline figures (core.Headline) are
-- copied out of the result so that listing and comparing runs need not decode results.
CREATE TABLE runs (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    scenario_id     TEXT NOT NULL REFERENCES scenarios(id),
    name            TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    engine_version  TEXT NOT NULL,
    policy          TEXT NOT NULL DEFAULT '',
    seed            TEXT NOT NULL DEFAULT '',
    rerun_of        TEXT NOT NULL DEFAULT '',
    result          BLOB NOT NULL,
    issued          INTEGER NOT NULL,
    completed       INTEGER NOT NULL,
    failed          INTEGER NOT NULL,
    timed_out       INTEGER NOT NULL,
    wait_mean       REAL NOT NULL,
    wait_p95        REAL NOT NULL,
    wait_p99        REAL NOT NULL,
    response_mean   REAL NOT NULL,
    response_p95    REAL NOT NULL,
    response_p99    REAL NOT NULL,
    max_utilization REAL NOT NULL,
    jain            REAL NOT NULL,
    network_sent    INTEGER NOT NULL,
    has_dispatch    INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX runs_scenario ON runs(scenario_id);

-- The dispatch log of a run created with ?dispatch=true, gzip-compressed CSV.
-- Written in the same transaction as its run.
CREATE TABLE dispatch_logs (
    run_id    TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    csv_gzip  BLOB NOT NULL
) STRICT;
