-- Optimizations (POST /api/v1/optimize), as in the SQLite schema: sweep
-- jobs of one point, kind 'optimize', spec a sweep.OptimizeSpec as JSON.
ALTER TABLE sweep_jobs ADD COLUMN kind text NOT NULL DEFAULT 'sweep';
