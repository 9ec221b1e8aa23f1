-- The table talk: chat messages between the players of a table, and the hints the bot workers
-- compute for a seat from its own view (R7).

-- One row per chat message (the text checked by the server: printable, at most max_chat
-- characters); the last 50 of a table are sent to a client when it connects.
CREATE TABLE table_talk (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    table_id text NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    seat smallint NOT NULL CHECK (seat >= 0),
    text text NOT NULL,
    sent timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX table_talk_by_table ON table_talk (table_id, id);

-- One hint per seat and position: asked for by a server process (queued once, whoever asks),
-- claimed by a bot worker (FOR UPDATE SKIP LOCKED, under a lease), its result kept (a repeated
-- ask is answered from it) and announced by NOTIFY. A hint whose position moved on is dropped.
CREATE TABLE hint_jobs (
    table_id text NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    seat smallint NOT NULL,
    seq integer NOT NULL,
    queued timestamptz NOT NULL DEFAULT now(),
    result json,                    -- the hint's action in the codec of hearts.actions (NULL: not yet)
    worker text,                    -- who holds the lease (NULL: waiting)
    lease_until timestamptz,
    attempt integer NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, seat, seq),
    CHECK ((worker IS NULL) = (lease_until IS NULL))
);
CREATE INDEX hint_jobs_waiting ON hint_jobs (queued) WHERE result IS NULL;
