-- Dispatch logs are stored in pieces of at most 256 KiB (dispatchPiece), so
-- that serving one reads a piece at a time instead of the whole blob (SQLite
-- reads a blob whole, and go-sqlite3 has no incremental blob I/O). Logs
-- stored before this migration stay in dispatch_logs and are read whole.
CREATE TABLE dispatch_chunks (
    run_id  TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    bytes   BLOB NOT NULL,
    PRIMARY KEY (run_id, seq)
) STRICT;
