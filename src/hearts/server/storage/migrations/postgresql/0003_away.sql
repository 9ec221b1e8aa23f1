-- Whether a seat's person is away: its turn timer ran out, and the table's stand-in bot plays
-- for it (a bot job) until the person is back. Shared by every server process.

ALTER TABLE seats ADD COLUMN away boolean NOT NULL DEFAULT false;
