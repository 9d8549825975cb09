-- Answers to POSTs sent with an Idempotency-Key header, kept IdempotencyTTL
-- (24 h): a retry with the same key and body gets the stored answer and
-- starts nothing new. scope is the route (/api/v1/runs...), request_hash the
-- SHA-256 of the request (query and body), so that the same key with
-- another request is told apart. Rows past the TTL are ignored, replaced by
-- a new answer under the same key, and deleted as new keys are written.
CREATE TABLE idempotency_keys (
    scope         TEXT NOT NULL,
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,
    status        INTEGER NOT NULL,
    location      TEXT NOT NULL DEFAULT '',
    body          BLOB NOT NULL,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (scope, key)
) STRICT;

CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
