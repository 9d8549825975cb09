-- A stored run's headline names the busiest server's utilization
-- utilization_max, as the figures table, the result's own headline and
-- compare's diff do; it was max_utilization. The rows stored before are
-- rewritten (the other figures unchanged).
UPDATE runs SET headline = json_remove(
        json_set(headline, '$.utilization_max', json_extract(headline, '$.max_utilization')),
        '$.max_utilization')
    WHERE json_type(headline, '$.max_utilization') IS NOT NULL;
