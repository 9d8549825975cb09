-- The headline (core.Headline) is kept as one JSON value instead of a
-- column per figure, so that a figure added to it needs no new column; no
-- list sorts or filters on a figure (lists go by seq). It is text, not
-- jsonb, so that it is read back as it was written. The rows stored before
-- are converted from their columns (a saturated_machines never kept, NULL,
-- is 0 as lists read it), then the columns are dropped.
ALTER TABLE runs ADD COLUMN headline text NOT NULL DEFAULT '{}';
UPDATE runs SET headline = json_build_object(
    'issued', issued, 'completed', completed, 'failed', failed, 'timed_out', timed_out,
    'wait_mean_ms', wait_mean, 'wait_p95_ms', wait_p95, 'wait_p99_ms', wait_p99,
    'response_mean_ms', response_mean, 'response_p95_ms', response_p95, 'response_p99_ms', response_p99,
    'max_utilization', max_utilization, 'jain_utilization', jain, 'network_sent', network_sent,
    'saturated_machines', COALESCE(saturated_machines, 0))::text;
ALTER TABLE runs DROP COLUMN issued, DROP COLUMN completed, DROP COLUMN failed, DROP COLUMN timed_out,
    DROP COLUMN wait_mean, DROP COLUMN wait_p95, DROP COLUMN wait_p99, DROP COLUMN response_mean,
    DROP COLUMN response_p95, DROP COLUMN response_p99, DROP COLUMN max_utilization, DROP COLUMN jain,
    DROP COLUMN network_sent, DROP COLUMN saturated_machines;
