-- Sweep jobs (POST /api/v1/sweeps), as in the SQLite schema. A job is
-- claimed by one replica at a time for a lease: status 'running', owner set,
-- lease_until in the future. ClaimSweep picks the oldest claimable job with
-- SELECT ... FOR UPDATE SKIP LOCKED, so replicas claiming at once never take
-- the same job and never wait on each other; a replica renews its lease while
-- it works, and a job whose lease ran out (its replica died) is claimed again
-- by any replica and resumed from its stored points.
CREATE TABLE sweep_jobs (
    seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           text NOT NULL UNIQUE,
    scenario_id  text NOT NULL REFERENCES scenarios(id),
    spec         bytea NOT NULL,
    status       text NOT NULL CHECK (status IN ('queued', 'running', 'done', 'canceled', 'failed')),
    total        integer NOT NULL,
    runs_total   integer NOT NULL,
    runs_done    integer NOT NULL DEFAULT 0,
    owner        text NOT NULL DEFAULT '',
    lease_until  timestamptz,
    result       bytea,
    error        text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL
);

CREATE INDEX sweep_jobs_claim ON sweep_jobs(status, lease_until);

CREATE TABLE sweep_points (
    job_id  text NOT NULL REFERENCES sweep_jobs(id) ON DELETE CASCADE,
    point   integer NOT NULL,
    body    bytea NOT NULL,
    PRIMARY KEY (job_id, point)
);
