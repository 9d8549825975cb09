-- Sweep jobs are claimed point by point, as in the SQLite schema: every
-- point not stored yet has a row here, claimed by a replica for a lease
-- (owner set, lease_until in the future) with SELECT ... FOR UPDATE SKIP
-- LOCKED, and deleted when its point is stored. Any replica with free
-- workers claims the free points (lease_until NULL or past) of the oldest
-- unfinished job, by rank (largest first). A replica that stops leaves only
-- the points it had claimed. sweep_points.worker is the replica that
-- computed each point.
CREATE TABLE sweep_units (
    job_id       text NOT NULL REFERENCES sweep_jobs(id) ON DELETE CASCADE,
    point        integer NOT NULL,
    rank         integer NOT NULL,
    owner        text NOT NULL DEFAULT '',
    lease_until  timestamptz,
    PRIMARY KEY (job_id, point)
);

CREATE INDEX sweep_units_claim ON sweep_units(job_id, rank);

ALTER TABLE sweep_points ADD COLUMN worker text NOT NULL DEFAULT '';

-- Jobs not finished when this runs go on from their stored points.
INSERT INTO sweep_units(job_id, point, rank)
SELECT j.id, n.i, n.i FROM sweep_jobs j CROSS JOIN LATERAL generate_series(0, j.total - 1) AS n(i)
WHERE j.status IN ('queued', 'running')
  AND NOT EXISTS (SELECT 1 FROM sweep_points p WHERE p.job_id = j.id AND p.point = n.i);

UPDATE sweep_jobs SET owner = '', lease_until = NULL WHERE status = 'running';
