-- The PostgreSQL schema: the same records as the SQLite one, in PostgreSQL's
-- own types (bytea, timestamptz, identity columns).

-- Scenarios are content-addressed: id is derived from the SHA-256 of body,
-- the scenario's canonical JSON, so every replica gives a scenario the same id.
CREATE TABLE scenarios (
    id         text PRIMARY KEY,
    name       text NOT NULL DEFAULT '',
    body       bytea NOT NULL,
    created_at timestamptz NOT NULL
);

-- One row per run. seq orders runs by creation (newest first = seq DESC) and
-- is what list cursors point at. The headline figures (core.Headline) are
-- copied out of the result so that listing and comparing runs need not decode results.
CREATE TABLE runs (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              text NOT NULL UNIQUE,
    scenario_id     text NOT NULL REFERENCES scenarios(id),
    name            text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL,
    engine_version  text NOT NULL,
    policy          text NOT NULL DEFAULT '',
    seed            text NOT NULL DEFAULT '',
    rerun_of        text NOT NULL DEFAULT '',
    result          bytea NOT NULL,
    issued          bigint NOT NULL,
    completed       bigint NOT NULL,
    failed          bigint NOT NULL,
    timed_out       bigint NOT NULL,
    wait_mean       double precision NOT NULL,
    wait_p95        double precision NOT NULL,
    wait_p99        double precision NOT NULL,
    response_mean   double precision NOT NULL,
    response_p95    double precision NOT NULL,
    response_p99    double precision NOT NULL,
    max_utilization double precision NOT NULL,
    jain            double precision NOT NULL,
    network_sent    bigint NOT NULL,
    has_dispatch    boolean NOT NULL DEFAULT false
);

CREATE INDEX runs_scenario ON runs(scenario_id);

-- The dispatch log of a run created with ?dispatch=true, gzip-compressed CSV.
-- Written in the same transaction as its run. It is compressed already, so
-- PostgreSQL stores it out of line without compressing it again.
CREATE TABLE dispatch_logs (
    run_id    text PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    csv_gzip  bytea NOT NULL
);
ALTER TABLE dispatch_logs ALTER COLUMN csv_gzip SET STORAGE EXTERNAL;
