-- Answers to POSTs sent with an Idempotency-Key header, as in the SQLite
-- schema: kept IdempotencyTTL (24 h), keyed by route and key, with the hash
-- of the request that made them.
CREATE TABLE idempotency_keys (
    scope         text NOT NULL,
    key           text NOT NULL,
    request_hash  text NOT NULL,
    status        integer NOT NULL,
    location      text NOT NULL DEFAULT '',
    body          bytea NOT NULL,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
);

CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
