-- Bot decisions for bot workers on any machine. A job is a bot seat to act at a position (the
-- table's seq when it was queued). A worker claims the oldest job of a table that has no job
-- claimed (FOR UPDATE SKIP LOCKED), under a lease; when the lease expires (its worker died),
-- another worker may claim it again. A job is deleted when done.

CREATE TABLE bot_jobs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,   -- queue order: oldest first
    table_id text NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    seat smallint NOT NULL,
    seq integer NOT NULL,
    queued timestamptz NOT NULL DEFAULT now(),
    worker text,                    -- who holds the lease (NULL: waiting)
    lease_until timestamptz,
    attempt integer NOT NULL DEFAULT 0,                   -- claims so far (a claim's token)
    UNIQUE (table_id, seat, seq),
    CHECK ((worker IS NULL) = (lease_until IS NULL))
);

-- At most one claimed job per table: a table's bots think one at a time, so one table's
-- expert bots cannot hold every worker while other tables wait.
CREATE UNIQUE INDEX bot_jobs_one_claimed_per_table ON bot_jobs (table_id) WHERE worker IS NOT NULL;
