-- Player profiles, without passwords: a name, the sha256 of a secret key the browser keeps, and
-- an OpenSkill rating (mu, sigma; hearts.server.ratings) with the rated games played. Each person
-- seat records the profile that took it; a rated game is settled once (one row per table, made
-- in the transaction that updates the ratings), with each player's rating before and after.

CREATE TABLE players (
    id text PRIMARY KEY,
    name text NOT NULL,
    key_hash text NOT NULL UNIQUE,
    mu double precision NOT NULL,
    sigma double precision NOT NULL,
    games integer NOT NULL DEFAULT 0,
    created timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX players_rating ON players ((mu - 3 * sigma) DESC, id) WHERE games > 0;

ALTER TABLE seats ADD COLUMN player_id text REFERENCES players (id);
CREATE INDEX seats_player ON seats (player_id) WHERE player_id IS NOT NULL;

CREATE TABLE rated_games (
    table_id text PRIMARY KEY REFERENCES tables (id) ON DELETE CASCADE,
    rated timestamptz NOT NULL DEFAULT now(),
    changes jsonb NOT NULL DEFAULT '{}'
);
