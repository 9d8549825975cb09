-- Optimizations (POST /api/v1/optimize) are stored as sweep jobs of one
-- point: kind 'optimize', spec a sweep.OptimizeSpec as JSON, the one unit
-- claimed and run whole by one replica under the sweep lease, runs_done the
-- replications spent so far. Jobs stored before are sweeps.
ALTER TABLE sweep_jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'sweep';
