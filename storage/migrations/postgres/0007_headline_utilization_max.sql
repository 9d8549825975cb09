-- A stored run's headline names the busiest server's utilization
-- utilization_max, as the figures table, the result's own headline and
-- compare's diff do; it was max_utilization. The rows stored before are
-- rewritten (the other figures unchanged; the text is jsonb's rendering of
-- the same object, which reads back to the same figures).
UPDATE runs SET headline = ((headline::jsonb - 'max_utilization')
        || jsonb_build_object('utilization_max', headline::jsonb -> 'max_utilization'))::text
    WHERE headline::jsonb ? 'max_utilization';
