-- Game reviews (hearts.server.reviews): one job per table and seat, asked for once the game is
-- over. A runner (a bot worker's review slot) claims the oldest waiting job, or one whose lease
-- ran out (its worker died), with FOR UPDATE SKIP LOCKED; it writes the progress (decisions
-- valued of all) as it goes, renewing its lease, then the review's JSON. Every write of a
-- claim names its attempt: a claim taken over cannot write any more.

CREATE TABLE review_jobs (
    table_id text NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    seat smallint NOT NULL CHECK (seat >= 0),
    budget integer NOT NULL CHECK (budget > 0),   -- sampled deals per decision
    seed bigint NOT NULL,                         -- the review's seed (the table's)
    status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
    done integer NOT NULL DEFAULT 0,              -- decisions valued so far
    total integer NOT NULL DEFAULT 0,             -- decisions to value (0 until known)
    review json,                                  -- GameReview.to_dict(), once done
    error text,                                   -- why it failed
    requested timestamptz NOT NULL DEFAULT now(), -- queue order: oldest first
    worker text,                                  -- who holds the lease (NULL: nobody)
    lease_until timestamptz,
    attempt integer NOT NULL DEFAULT 0,           -- claims so far (a claim's token)
    tries integer NOT NULL DEFAULT 0,             -- claims since it was last queued
    PRIMARY KEY (table_id, seat),
    CHECK ((worker IS NULL) = (lease_until IS NULL))
);
CREATE INDEX review_jobs_waiting ON review_jobs (requested) WHERE status IN ('queued', 'running');
