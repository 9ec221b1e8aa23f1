-- The tables, their seats and their action logs (what SQLite's schema version 2 holds).

CREATE TABLE tables (
    id text PRIMARY KEY,
    created timestamptz NOT NULL DEFAULT now(),
    config jsonb NOT NULL,          -- rules, spectators, ...
    seed bigint NOT NULL,           -- the deals are shuffled from it
    finished boolean NOT NULL DEFAULT false,
    deals jsonb                     -- explicit deals of the first rounds (a migrated table's); NULL: the seed's
);
CREATE INDEX tables_unfinished ON tables (created, id) WHERE NOT finished;

CREATE TABLE seats (
    table_id text NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    seat smallint NOT NULL CHECK (seat >= 0),
    kind text NOT NULL,             -- human, open or bot
    name text,
    bot text,                       -- a bot's spec, such as 'hard'
    token_hash text,                -- sha256 of a human seat's secret token
    PRIMARY KEY (table_id, seat)
);

-- One row per accepted action, in the codec of hearts.actions. The primary key decides the
-- order: of two processes appending the same seq, exactly one commits.
CREATE TABLE actions (
    table_id text NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    seq integer NOT NULL CHECK (seq >= 1),
    data json NOT NULL,             -- json, not jsonb: the codec's text is kept as written
    PRIMARY KEY (table_id, seq)
);
