"""Player profiles, "my games", the replay and the ratings, against real server processes on
SQLite and on PostgreSQL (two server processes and a bot worker).

A profile is made, read and renamed with its key; a missing, malformed or unknown key is a 401
and a bad name a 400, and neither changes the profile; only the key's hash is stored. A rated
table is refused unless everyone at it will have a rating. "My games" lists a profile's tables
with its points and place. The replay is refused before the game is over (R7) and after it
replays, step by step, to the record's totals, with every hand as the engine has it. A rated
game is rated exactly once — by the bot worker that made its last move on PostgreSQL — with
OpenSkill's Plackett–Luce update against the bots' fixed anchors, which never move.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
openskill_models = pytest.importorskip("openskill.models")

from test_server_support import (  # noqa: E402
    BACKENDS,
    Client,
    Database,
    ServerProcess,
    WorkerProcess,
    auth,
    backend_database,
    db_game,
    db_rows,
    http,
    is_pg,
    module_pg_database,
    new_profile,
    play_until,
    request,
)

from hearts.actions import from_dict  # noqa: E402
from hearts.game import Game  # noqa: E402
from hearts.record import GameRecord  # noqa: E402
from hearts.record import from_dict as record_from_dict  # noqa: E402
from hearts.server.ratings import ANCHOR_SIGMA, BOT_ANCHORS, DEFAULT_MU, DEFAULT_SIGMA, places  # noqa: E402

pg_database = pytest.fixture(scope="module")(module_pg_database)
database = pytest.fixture(params=BACKENDS)(backend_database)

QUICK = {"pass_count": 0, "target": 12}
"""A short game: no passing, the first to 12 points ends it."""
BOTS = [{"kind": "bot", "level": "easy"}] * 3


@pytest.fixture
def server(database: Database, tmp_path: Path) -> Iterator[ServerProcess]:
    extra = {"bot_jobs": 4} if is_pg(database) else {}  # on PostgreSQL, the service's own bot worker
    s = ServerProcess(database, bot_delay=0.0, logs=tmp_path, **extra).start()
    yield s
    s.stop()


def me(server: ServerProcess, key: str) -> dict[str, Any]:
    status, data = http("GET", server.url + "/api/me", headers=auth(key))
    assert status == 200, data
    return data  # type: ignore[no-any-return]


def count(db: Database, table: str) -> int:
    ((n,),) = db_rows(db, f"SELECT count(*) FROM {table}")
    return int(n)


def finished_record(server: ServerProcess, table_id: str, timeout: float = 120) -> GameRecord:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, data = http("GET", f"{server.url}/api/tables/{table_id}/record")
        if status == 200:
            loaded = record_from_dict(data)
            assert isinstance(loaded, GameRecord)
            return loaded
        time.sleep(0.2)
    pytest.fail("the game did not end")


def wait_for(check: Any, timeout: float = 30, what: str = "the condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


# --- profiles ----------------------------------------------------------------------------------


def test_a_profile_is_made_read_and_renamed_with_its_key_and_bad_requests_change_nothing(
    server: ServerProcess,
) -> None:
    made = new_profile(server, "  Ann  ")
    assert made["name"] == "Ann" and len(made["key"]) >= 32 and made["id"]
    shown = me(server, made["key"])
    assert shown["id"] == made["id"] and shown["name"] == "Ann"
    assert shown["rating"]["games"] == 0 and shown["rating"]["mu"] == pytest.approx(DEFAULT_MU)
    assert shown["rating"]["rating"] == pytest.approx(DEFAULT_MU - 3 * DEFAULT_SIGMA)
    assert "key" not in shown
    # Only the key's hash is stored.
    rows = db_rows(server.db, "SELECT key_hash FROM players WHERE id = ?", (made["id"],))
    assert rows == [(hashlib.sha256(made["key"].encode()).hexdigest(),)]
    assert made["key"] not in json.dumps(db_rows(server.db, "SELECT * FROM players"), default=str)

    status, renamed = http("PATCH", server.url + "/api/me", {"name": "Annie"}, headers=auth(made["key"]))
    assert status == 200 and renamed["name"] == "Annie" and me(server, made["key"])["name"] == "Annie"

    # Missing, malformed and unknown keys: 401 with a clear message (and the Bearer challenge).
    for headers in ({}, {"Authorization": "Basic abc"}, {"Authorization": "Bearer"},
                    auth("x" * 32), auth(made["key"] + "x"), auth("k" * 500)):
        for method, body in (("GET", None), ("PATCH", {"name": "Mallory"})):
            status, got, data = request(method, server.url + "/api/me", body, headers=headers)
            assert status == 401, (headers, data)
            assert "key" in data["error"] or "profile" in data["error"] or "Bearer" in data["error"]
            assert got.get("WWW-Authenticate", "").startswith("Bearer")
    status, data = http("GET", server.url + "/api/me/games", headers=auth("nope" * 8))
    assert status == 401
    # Bad names: 400, the profile as it was.
    for body in ({"name": ""}, {"name": "   "}, {"name": "x" * 200}, {"name": "a\nb"}, {"name": 7},
                 {"name": "Bo", "colour": "red"}, [], {}):
        status, data = http("PATCH", server.url + "/api/me", body, headers=auth(made["key"]))
        assert status == 400, (body, data)
        assert data["error"]
    for body in ({"name": ""}, {"name": "x" * 200}, {"nom": "Bo"}):
        status, data = http("POST", server.url + "/api/players", body)
        assert status == 400, (body, data)
    status, data = request("POST", server.url + "/api/players", b"name=Bo", headers={"Content-Type": "text/plain"})[::2]
    assert status == 415
    assert me(server, made["key"])["name"] == "Annie"
    assert count(server.db, "players") == 1


def test_a_rated_table_needs_everyone_to_have_a_rating(server: ServerProcess) -> None:
    ann = new_profile(server, "Ann")
    you = [{"kind": "human"}]
    cases = [
        ({}, you + BOTS, 400, "profile"),  # no profile
        (auth("z" * 32), you + BOTS, 401, "not known"),  # an unknown key
        (auth(ann["key"]), [{"kind": "human"}, {"kind": "human", "name": "Bob"}, *BOTS[:2]], 400, "one invited"),
        (auth(ann["key"]), [{"kind": "bot"}, *BOTS], 400, "one invited"),  # nobody
    ]
    for headers, seats, code, words in cases:
        status, data = http("POST", server.url + "/api/tables", {"seats": seats, "rated": True}, headers=headers)
        assert status == code and words in data["error"], data
    status, data = http("POST", server.url + "/api/tables", {"seats": you + BOTS, "rated": "yes"}, headers=auth(ann["key"]))
    assert status == 400 and "'rated'" in data["error"]
    assert count(server.db, "tables") == 0  # nothing was made

    # A rated table with an open seat: joined with a profile only, once per profile (R-none: the
    # table's own rule).
    status, table = http("POST", server.url + "/api/tables",
                         {"seats": [*you, {"kind": "open"}, *BOTS[:2]], "rated": True}, headers=auth(ann["key"]))
    assert status == 201 and table["rated"] is True and table["seats"][0]["name"] == "Ann"
    join = f"{server.url}/api/tables/{table['id']}/join"
    for headers, code in (({}, 401), (auth("q" * 32), 401), (auth(ann["key"]), 409)):
        status, data = http("POST", join, {"name": "Eve"}, headers=headers)
        assert status == code, data
    seats = db_rows(server.db, "SELECT seat, kind, player_id FROM seats WHERE table_id = ? ORDER BY seat", (table["id"],))
    assert seats[:2] == [(0, "human", ann["id"]), (1, "open", None)]
    bob = new_profile(server, "Bob")
    status, joined = http("POST", join, {}, headers=auth(bob["key"]))
    assert status == 200 and joined["seat"] == 1
    assert db_rows(server.db, "SELECT kind, name, player_id FROM seats WHERE table_id = ? AND seat = 1",
                   (table["id"],)) == [("human", "Bob", bob["id"])]


def test_an_invited_seat_is_claimed_by_the_profile_that_holds_its_token(server: ServerProcess) -> None:
    ann, bob = new_profile(server, "Ann"), new_profile(server, "Bob")
    status, table = http("POST", server.url + "/api/tables",
                         {"seats": [{"kind": "human"}, {"kind": "human", "name": "B"}, *BOTS[:2]]},
                         headers=auth(ann["key"]))
    assert status == 201
    claim = f"{server.url}/api/tables/{table['id']}/claim"
    token = table["seats"][1]["token"]
    for body, headers, code in (
        ({"token": token}, {}, 401),
        ({"token": "not-a-token"}, auth(bob["key"]), 403),
        ({"token": 5}, auth(bob["key"]), 400),
        ({"token": table["seats"][0]["token"]}, auth(bob["key"]), 409),  # Ann's seat
    ):
        status, data = http("POST", claim, body, headers=headers)
        assert status == code, (body, data)
    assert db_rows(server.db, "SELECT seat, player_id FROM seats WHERE table_id = ? AND player_id IS NOT NULL",
                   (table["id"],)) == [(0, ann["id"])]
    status, data = http("POST", claim, {"token": token}, headers=auth(bob["key"]))
    assert status == 200 and data["seat"] == 1
    status, data = http("POST", claim, {"token": token}, headers=auth(bob["key"]))  # again: the same
    assert status == 200
    status, games = http("GET", server.url + "/api/me/games", headers=auth(bob["key"]))
    assert [g["id"] for g in games["games"]] == [table["id"]] and games["games"][0]["seat"] == 1


# --- my games and the replay ---------------------------------------------------------------------


def test_my_games_list_the_results_and_the_replay_steps_through_the_finished_game(server: ServerProcess) -> None:
    ann = new_profile(server, "Ann")
    status, table = http("POST", server.url + "/api/tables", {"seats": [{"kind": "human"}, *BOTS], "options": QUICK},
                         headers=auth(ann["key"]))
    assert status == 201
    table_id = table["id"]
    status, _ = http("POST", server.url + "/api/tables", {"seats": [{"kind": "human"}, *BOTS]})
    assert status == 201  # not Ann's: not in her games

    status, data = http("GET", f"{server.url}/api/tables/{table_id}/replay")
    assert status == 403 and "R7" in data["error"]  # the deals are secret until the game is over
    status, games = http("GET", server.url + "/api/me/games", headers=auth(ann["key"]))
    assert [(g["id"], g["state"], g["seat"], g["points"]) for g in games["games"]] == [(table_id, "in progress", 0, 0)]
    for bad in ("nosuchtable", "../x", "a" * 80):
        status, data = http("GET", f"{server.url}/api/tables/{bad}/replay")
        assert status == 404, data

    async def play() -> None:
        client = await Client(server, table_id, table["seats"][0]["token"]).connect()
        try:
            await play_until([client], random.Random(5), lambda: False, timeout=120)
        finally:
            await client.close()

    asyncio.run(play())
    rec = finished_record(server, table_id)
    game = rec.game
    status, games = http("GET", server.url + "/api/me/games", headers=auth(ann["key"]))
    (entry,) = games["games"]
    assert entry["id"] == table_id and entry["state"] == "finished" and entry["finished"]
    assert entry["points"] == game.totals[0] and entry["place"] == places(game.totals)[0]
    assert entry["totals"] == game.totals and entry["rounds"] == len(game.results)
    assert entry["winners"] == [rec.seats[w].name for w in game.winners or ()]
    assert [p["name"] for p in entry["players"]] == [seat.name for seat in rec.seats] and rec.seats[0].name == "Ann"
    assert [p["bot"] for p in entry["players"]] == [None, "easy", "easy", "easy"]
    assert entry["players"][0]["you"] and not entry["rated"] and entry["rules"] == "4 players, to 12 · pass_count=0"

    status, data = http("GET", f"{server.url}/api/tables/{table_id}/replay")
    assert status == 200, data
    steps = data["steps"]
    assert len(steps) == len(game.history) and data["totals"] == game.totals == db_game(server.db, table_id).totals
    assert data["winners"] == list(game.winners or ()) and data["names"][0] == "Ann"
    # The steps' actions replay to the record's scores, and every hand, trick and total at
    # every step is the engine's (checked against a game replayed here).
    check = Game(game.rules, game.seed)
    for i, step in enumerate(steps):
        r = check.round
        check.apply(from_dict(step["action"]))
        assert step["seat"] == step["action"]["seat"] and step["round"] == r.round_number
        assert step["hands"] == [[str(c) for c in r.hand(s).sorted_by_suit()] for s in range(4)], i
        assert step["points_taken"] == list(r.points_taken) and step["totals"] == check.totals
        if step["action"]["type"] == "play":
            assert step["action"]["card"] in [p["card"] for p in step["trick"]["plays"]]
            if len(step["trick"]["plays"]) == 4:
                assert step["trick"]["winner"] == r.tricks[-1].winner
    assert check.totals == game.totals and check.winners == game.winners
    assert [r["totals"] for r in data["rounds"]] == [list(t) for t in game.score_history]
    assert [r["start"] for r in data["rounds"]] == list(game.round_starts)
    assert data["rounds"][-1]["end"] == len(steps) - 1
    assert sum(r["points"] is not None for r in data["rounds"]) == len(game.results)

    async def rematch() -> str:
        client = await Client(server, table_id, table["seats"][0]["token"]).connect()
        try:
            await client.send({"type": "rematch"})
            told = await client.wait(lambda m: m["type"] == "rematch")
        finally:
            await client.close()
        return str(told["table"])

    again = asyncio.run(rematch())
    status, games = http("GET", server.url + "/api/me/games", headers=auth(ann["key"]))
    assert [g["id"] for g in games["games"]] == [again, table_id]  # Ann plays the rematch as herself


# --- ratings ------------------------------------------------------------------------------------


def expected_rating(totals: list[int], person: int, levels: list[str | None], left: bool = False) -> tuple[float, float]:
    """OpenSkill's Plackett–Luce update of a new player against the bots' fixed anchors, by
    places (ties share a rank; R5: the lowest total first), computed here on its own; a person
    who ``left`` (the stand-in played for them at the end) is last, whatever its total."""
    model = openskill_models.PlackettLuce()
    teams = [[model.rating(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)] if level is None
             else [model.rating(mu=BOT_ANCHORS[level], sigma=ANCHOR_SIGMA)] for level in levels]
    stayed = [t for s, t in enumerate(totals) if not (left and s == person)]
    ranks = [len(stayed) + 1 if left and s == person else 1 + sum(o < t for o in stayed) for s, t in enumerate(totals)]
    new = model.rate(teams, ranks=ranks)
    return new[person][0].mu, new[person][0].sigma


def anchors_of(server: ServerProcess) -> dict[str, tuple[float, float]]:
    status, board = http("GET", server.url + "/api/leaderboard")
    assert status == 200
    return {p["bot"]: (p["mu"], p["sigma"]) for p in board["players"] if p["bot"]}


def check_rated_once(db: Database, server: ServerProcess, table_id: str, key: str, levels: list[str | None]) -> None:
    game = db_game(db, table_id)
    assert game.is_over
    wait_for(lambda: count(db, "rated_games") == 1, what="the game to be rated")
    time.sleep(0.5)  # every process that heard the end has had time to try
    assert db_rows(db, "SELECT table_id FROM rated_games") == [(table_id,)]
    profile = me(server, key)
    assert profile["rating"]["games"] == 1
    mu, sigma = expected_rating(list(game.totals), 0, levels, left=True)  # Ann never played: she left
    assert profile["rating"]["mu"] == pytest.approx(mu) and profile["rating"]["sigma"] == pytest.approx(sigma)
    ((changes,),) = db_rows(db, "SELECT CAST(changes AS TEXT) FROM rated_games")
    assert json.loads(changes)[profile["id"]]["mu"] == [pytest.approx(DEFAULT_MU), pytest.approx(mu)]
    status, board = http("GET", server.url + "/api/leaderboard", headers=auth(key))
    assert status == 200
    mine = [p for p in board["players"] if p["you"]]
    assert [p["name"] for p in mine] == ["Ann"] and mine[0]["games"] == 1
    ratings = [p["rating"] for p in board["players"]]
    assert ratings == sorted(ratings, reverse=True)


def test_a_rated_game_is_rated_once_and_the_bots_anchors_never_move_on_sqlite(tmp_path: Path) -> None:
    s = ServerProcess(tmp_path / "tables.db", bot_delay=0.0).start()
    try:
        before = anchors_of(s)
        assert before == {level: (mu, ANCHOR_SIGMA) for level, mu in BOT_ANCHORS.items()}
        ann = new_profile(s, "Ann")
        levels: list[str | None] = [None, "easy", "medium", "easy"]
        seats = [{"kind": "human"}] + [{"kind": "bot", "level": lv} for lv in levels[1:]]
        # Ann never acts: after a second the table's stand-in plays for her, so bots make
        # every move, the last one included (and the server process rates the game).
        status, table = http("POST", s.url + "/api/tables", {"seats": seats, "options": QUICK, "rated": True,
                                                             "turn_timer": 1, "stand_in": "easy"}, headers=auth(ann["key"]))
        assert status == 201, table
        finished_record(s, table["id"])
        check_rated_once(s.db, s, table["id"], ann["key"], levels)
        s.stop()  # a restart looks for unrated games: this one is rated already
        s.start()
        check_rated_once(s.db, s, table["id"], ann["key"], levels)
        assert anchors_of(s) == before
    finally:
        s.stop()


def test_a_rated_game_ended_by_a_bot_worker_is_rated_once_on_postgresql(pg_database: str, tmp_path: Path) -> None:
    from test_server_store_support import empty_database

    db = empty_database(pg_database)
    a = ServerProcess(db, bot_delay=0.0, logs=tmp_path).start()
    b = ServerProcess(db, bot_delay=0.0, logs=tmp_path).start()
    worker = WorkerProcess(db, tmp_path / "worker.log").start()
    try:
        assert is_pg(db)
        before = anchors_of(a)
        ann = new_profile(a, "Ann")
        levels: list[str | None] = [None, "easy", "easy", "medium"]
        seats = [{"kind": "human"}] + [{"kind": "bot", "level": lv} for lv in levels[1:]]
        status, table = http("POST", a.url + "/api/tables", {"seats": seats, "options": QUICK, "rated": True,
                                                             "turn_timer": 1, "stand_in": "easy"}, headers=auth(ann["key"]))
        assert status == 201, table
        assert http("GET", f"{b.url}/api/tables/{table['id']}")[0] == 200  # both processes serve the table

        finished_record(b, table["id"])
        check_rated_once(db, b, table["id"], ann["key"], levels)
        rated = [line for s in (a, b) for line in s.logs() if line.get("event") == "game rated"]
        assert [line.get("table") for line in rated] == [table["id"]]  # by the table's owner, which logged the last move
        assert not any(line.get("event") == "game rated" for line in worker.logs())
        a.stop()  # a restarted process finds nothing left to rate
        a.start()
        check_rated_once(db, a, table["id"], ann["key"], levels)
        assert anchors_of(a) == anchors_of(b) == before
    finally:
        worker.stop()
        a.stop()
        b.stop()
