-- The headline's saturated_machines (core.Headline.SaturatedMachines) gets a
-- column, so that run lists show it as GET /runs/{id} does. Runs stored
-- before this migration keep NULL: the count was not kept, and lists read
-- NULL as 0 (absent from the headline).
ALTER TABLE runs ADD COLUMN saturated_machines INTEGER;
