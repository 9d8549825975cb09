-- Sweep jobs are claimed point by point: every point not stored yet has a
-- row here, claimed by a replica for a lease (owner set, lease_until in the
-- future) and deleted when its point is stored. Any replica with free
-- workers claims the free points (owner '' or lease run out) of the oldest
-- unfinished job, by rank (the order to hand them out: largest first). A
-- replica that stops leaves only the points it had claimed, to the next
-- claim once their lease runs out. sweep_points.worker is the replica that
-- computed each point (GET /api/v1/sweeps/{id} reports "workers").
CREATE TABLE sweep_units (
    job_id       TEXT NOT NULL REFERENCES sweep_jobs(id) ON DELETE CASCADE,
    point        INTEGER NOT NULL,
    rank         INTEGER NOT NULL,
    owner        TEXT NOT NULL DEFAULT '',
    lease_until  TEXT NOT NULL DEFAULT '', -- core.TimeFormat text; '' is free
    PRIMARY KEY (job_id, point)
) STRICT;

CREATE INDEX sweep_units_claim ON sweep_units(job_id, lease_until, rank);

ALTER TABLE sweep_points ADD COLUMN worker TEXT NOT NULL DEFAULT '';

-- Jobs not finished when this runs go on from their stored points, in grid
-- order; a job that was running under the whole-job lease is free again.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9999)
INSERT INTO sweep_units(job_id, point, rank)
SELECT j.id, n.i, n.i FROM sweep_jobs j JOIN n ON n.i < j.total
WHERE j.status IN ('queued', 'running')
  AND NOT EXISTS (SELECT 1 FROM sweep_points p WHERE p.job_id = j.id AND p.point = n.i);

UPDATE sweep_jobs SET owner = '', lease_until = '' WHERE status = 'running';
