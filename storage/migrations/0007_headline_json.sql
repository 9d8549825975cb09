-- The headline (core.Headline) is kept as one JSON value instead of a
-- column per figure, so that a figure added to it needs no new column; no
-- list sorts or filters on a figure (lists go by seq). The rows stored
-- before are converted from their columns (a saturated_machines never kept,
-- NULL, is 0 as lists read it), then the columns are dropped.
ALTER TABLE runs ADD COLUMN headline TEXT NOT NULL DEFAULT '{}';
UPDATE runs SET headline = json_object(
    'issued', issued, 'completed', completed, 'failed', failed, 'timed_out', timed_out,
    'wait_mean_ms', wait_mean, 'wait_p95_ms', wait_p95, 'wait_p99_ms', wait_p99,
    'response_mean_ms', response_mean, 'response_p95_ms', response_p95, 'response_p99_ms', response_p99,
    'max_utilization', max_utilization, 'jain_utilization', jain, 'network_sent', network_sent,
    'saturated_machines', COALESCE(saturated_machines, 0));
ALTER TABLE runs DROP COLUMN issued;
ALTER TABLE runs DROP COLUMN completed;
ALTER TABLE runs DROP COLUMN failed;
ALTER TABLE runs DROP COLUMN timed_out;
ALTER TABLE runs DROP COLUMN wait_mean;
ALTER TABLE runs DROP COLUMN wait_p95;
ALTER TABLE runs DROP COLUMN wait_p99;
ALTER TABLE runs DROP COLUMN response_mean;
ALTER TABLE runs DROP COLUMN response_p95;
ALTER TABLE runs DROP COLUMN response_p99;
ALTER TABLE runs DROP COLUMN max_utilization;
ALTER TABLE runs DROP COLUMN jain;
ALTER TABLE runs DROP COLUMN network_sent;
ALTER TABLE runs DROP COLUMN saturated_machines;
