"""No game waits for a leaver (issue 40, item 3), with a real server and real clients.

Public tables (listed in the lobby) and quick tables have the service's turn clocks by
default (``--limit play_clock=…,pass_clock=…``), shown to everyone in ``time_left``; a person
whose clock runs out is away and the table's stand-in bot plays for them; after
``missed_turns`` of their turns played by it in a row the seat is handed to the stand-in for the
rest of the game (a reconnection alone does not take it back); ``back`` or an action takes it
back. Friends' private tables keep the creator's choice (tests/test_server_timer.py). A person
the stand-in plays for when a rated game ends is ranked last for the rating.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("openskill")
websockets = pytest.importorskip("websockets")

from test_server_store_support import empty_database  # noqa: E402
from test_server_support import (  # noqa: E402
    Client,
    ServerProcess,
    WorkerProcess,
    create_table,
    http,
    module_pg_database,
    play_until,
)

CLOCKS = {"play_clock": 1, "pass_clock": 2, "missed_turns": 3}
"""Short clocks for the tests (the defaults: 30 s a card, 45 s a pass, 3 missed turns)."""

ANN_BOB = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}] + [{"kind": "bot", "level": "easy"}] * 2


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = ServerProcess(tmp_path_factory.mktemp("leavers") / "tables.db", bot_delay=0.02, limits=CLOCKS).start()
    yield s
    s.stop()


def seat_turns(client: Client, seat: int) -> list[dict[str, Any]]:
    """The accepted actions of ``seat`` a client was told of (the events of its states)."""
    seen = {}
    for m in client.messages:
        ev = m.get("event") if m["type"] == "state" else None
        if ev is not None and ev["seat"] == seat:
            seen[ev["seq"]] = ev
    return [seen[k] for k in sorted(seen)]


def test_a_person_who_stops_playing_at_a_public_table_is_played_for_and_takes_the_seat_back(server: ServerProcess) -> None:
    """A person who stops playing at a public table is played for by a bot after the clock, and
    the game finishes; the person coming back takes the seat again."""
    leave_and_come_back(server)


pg_database = pytest.fixture(scope="module")(module_pg_database)


def test_the_same_on_postgresql_where_a_bot_worker_plays_for_the_leaver(pg_database: str, tmp_path: Path) -> None:
    """On PostgreSQL the stand-in's moves are bot jobs made by a bot worker and handed to the
    table's owner, which counts them: the seat is handed over and taken back the same way."""
    db = empty_database(pg_database)
    worker = WorkerProcess(db, tmp_path / "bot-worker.log").start()
    s = ServerProcess(db, bot_delay=0.02, logs=tmp_path, limits=CLOCKS).start()
    try:
        leave_and_come_back(s)
    finally:
        s.stop()
        worker.stop()


def leave_and_come_back(server: ServerProcess) -> None:
    """Bob stops playing at a public table: the stand-in plays for him after his clock, his seat
    is handed over after three of its turns, Bob comes back and takes it, and the game ends."""
    table = create_table(server, ANN_BOB, listed=True, target=26, stand_in="easy")
    assert (table["turn_timer"], table["pass_timer"]) == (1, 2)  # the service's clocks: no choice made
    tid = table["id"]
    ann_token, bob_token = table["seats"][0]["token"], table["seats"][1]["token"]

    async def main() -> None:
        ann = await Client(server, tid, ann_token).connect()
        bob = await Client(server, tid, bob_token).connect()
        st = ann.state
        assert st is not None and st["table"]["turn_timer"] == 1 and st["table"]["pass_timer"] == 2
        left = st["table"]["time_left"]
        assert 1 < left[1] <= 2 and left[2] is None  # everyone sees Bob's pass clock
        assert st["table"]["handed_over"] == []
        await bob.close()  # Bob stops playing: he never passes
        rng = random.Random(4)

        def handed_over() -> bool:
            return ann.state is not None and ann.state["table"]["handed_over"] == [1]

        await play_until([ann], rng, handed_over, timeout=30)
        assert ann.state is not None and ann.state["table"]["away"] == [1]
        assert len(seat_turns(ann, 1)) >= 3  # the stand-in made his pass and two plays at least
        # Bob comes back: a reconnection shows him the seat handed over; he takes it back.
        bob = await Client(server, tid, bob_token).connect()
        assert bob.state is not None and bob.state["table"]["handed_over"] == [1]
        await bob.request({"type": "back"}, lambda m: m["type"] == "presence" and m["away"] == [])
        await bob.wait(lambda m: m["type"] == "state" and m["table"]["handed_over"] == [])
        before = len(seat_turns(ann, 1))

        def bob_played_and_over() -> bool:
            st = ann.state
            return st is not None and st["view"]["game_over"]

        await play_until([ann, bob], rng, bob_played_and_over, timeout=90)
        end = await ann.wait(lambda m: m["type"] == "state" and m["view"]["game_over"], timeout=10)
        assert end["table"]["finished"] and end["table"]["away"] == []
        assert len(seat_turns(ann, 1)) > before  # Bob played again himself
        for c in (ann, bob):
            await c.close()

    asyncio.run(main())
    status, facts = http("GET", f"{server.url}/api/tables/{tid}")
    assert status == 200 and facts["finished"]
    by_bob = [line for line in server.logs() if line["event"] == "action" and line.get("table") == tid and line["seat"] == 1]
    assert by_bob[0]["by"] == "stand_in" and by_bob[-1]["by"] == "person"
    assert [line["seat"] for line in server.logs() if line["event"] == "handed over" and line.get("table") == tid] == [1]


def test_a_person_who_stops_playing_at_a_quick_table_is_played_for_and_takes_the_seat_back(server: ServerProcess) -> None:
    """The same at a quick table (a lone person, three bots after the wait): the service's
    clocks, the stand-in after the clock, the seat handed over, taken back, the game finished."""
    status, person = http("POST", server.url + "/api/players", {"name": "Solo"})
    assert status == 201, person

    async def main() -> None:
        lobby = await Client(server, "lobby/quick", None).connect(hello=False)
        await lobby.send({"type": "quick", "key": person["key"], "preset": "black_maria", "fill_after": 3})
        seated = await lobby.wait(lambda m: m["type"] == "seated", timeout=15)
        await lobby.close()
        tid, seat = seated["table"], seated["seat"]
        solo = await Client(server, tid, seated["token"]).connect()
        st = solo.state
        assert st is not None and (st["table"]["turn_timer"], st["table"]["pass_timer"]) == (1, 2)
        assert st["table"]["time_left"][seat] is not None
        await solo.close()  # Solo stops playing
        watcher = await Client(server, tid, None).connect(hello=False)
        await watcher.request({"type": "watch"}, lambda m: m["type"] == "state")
        await watcher.wait(lambda m: m["type"] == "state" and m["table"]["handed_over"] == [seat], timeout=30)
        assert len(seat_turns(watcher, seat)) >= 3
        solo = await Client(server, tid, seated["token"]).connect()  # back: the seat is taken again
        assert solo.state is not None and solo.state["table"]["handed_over"] == [seat]
        await solo.request({"type": "back"}, lambda m: m["type"] == "presence" and m["away"] == [])
        before = len(seat_turns(watcher, seat))
        await play_until([solo], random.Random(5), lambda: False, timeout=240)  # to the end
        end = await watcher.wait(lambda m: m["type"] == "state" and m["table"]["finished"], timeout=10)
        assert end["table"]["away"] == [] and len(seat_turns(watcher, seat)) > before
        for c in (solo, watcher):
            await c.close()

    asyncio.run(main())


def test_a_table_waiting_for_players_times_nobody_out(server: ServerProcess) -> None:
    """A public table with a free seat is waiting for players, not for a leaver: no clock runs
    until every seat is taken; then everyone's does."""
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "open"}] + [{"kind": "bot", "level": "easy"}] * 2
    table = create_table(server, seats)  # listed: it has a free seat
    assert table["listed"] and (table["turn_timer"], table["pass_timer"]) == (1, 2)
    tid = table["id"]

    async def main() -> None:
        ann = await Client(server, tid, table["seats"][0]["token"]).connect()
        assert ann.state is not None and ann.state["table"]["time_left"] == [None] * 4
        await asyncio.sleep(3)  # more than the pass clock
        status, facts = http("GET", f"{server.url}/api/tables/{tid}")
        assert facts["away"] == [] and facts["seq"] == 2  # the bots' passes only
        status, joined = http("POST", f"{server.url}/api/tables/{tid}/join", {"name": "Cy"})
        assert status == 200, joined
        full = await ann.wait(lambda m: m["type"] == "state" and m["table"]["kinds"][1] == "human")
        assert full["table"]["time_left"][0] is not None and full["table"]["time_left"][1] is not None
        await ann.close()

    asyncio.run(main())


def test_a_private_table_keeps_its_creators_clock(server: ServerProcess) -> None:
    """A friends' table (not listed) has no clock unless its creator chose one, and then the
    same for cards and passes; a public table's creator may choose another clock, not none."""
    private = create_table(server, ANN_BOB)
    assert (private["listed"], private["turn_timer"], private["pass_timer"]) == (False, 0, 0)
    chosen = create_table(server, ANN_BOB, turn_timer=20)
    assert (chosen["turn_timer"], chosen["pass_timer"]) == (20, 20)
    public = create_table(server, ANN_BOB, listed=True, turn_timer=20)
    assert (public["turn_timer"], public["pass_timer"]) == (20, 20)


def test_a_person_who_leaves_a_rated_game_is_ranked_last_whatever_the_bot_scored(server: ServerProcess) -> None:
    """Ann makes a rated table and never plays: the stand-in (a strong bot) plays her seat to the
    end; her rating counts the game as a loss — last place — whatever the stand-in's total."""
    import time

    models = pytest.importorskip("openskill.models")
    from hearts.server.ratings import ANCHOR_SIGMA, BOT_ANCHORS, DEFAULT_MU, DEFAULT_SIGMA

    status, ann = http("POST", server.url + "/api/players", {"name": "Ann"})
    assert status == 201, ann
    headers = {"Authorization": f"Bearer {ann['key']}"}
    seats = [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * 3
    status, table = http("POST", server.url + "/api/tables", {
        "seats": seats, "options": {"pass_count": 0, "target": 12}, "rated": True, "turn_timer": 1, "stand_in": "hard",
    }, headers=headers)
    assert status == 201, table
    deadline = time.monotonic() + 120
    while (rating := http("GET", server.url + "/api/me", headers=headers)[1]["rating"])["games"] == 0:
        assert time.monotonic() < deadline, "the game was not rated"
        time.sleep(0.2)
    status, facts = http("GET", f"{server.url}/api/tables/{table['id']}")
    assert facts["finished"] and facts["away"] == [0]
    model = models.PlackettLuce()
    teams = [[model.rating(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)]]
    teams += [[model.rating(mu=BOT_ANCHORS["easy"], sigma=ANCHOR_SIGMA)] for _ in range(3)]
    others = facts["totals"][1:]
    ranks = [4] + [1 + sum(o < t for o in others) for t in others]  # Ann last; the bots by their totals
    mu = model.rate(teams, ranks=ranks)[0][0].mu
    assert rating["mu"] == pytest.approx(mu) and rating["mu"] < DEFAULT_MU


@pytest.mark.parametrize(("item", "words"), [
    ("play_clock=0", "limit play_clock must be a positive number, not 0"),
    ("pass_clock=-5", "limit pass_clock must be a positive number, not -5"),
    ("missed_turns=three", "limit missed_turns: 'three' is not an integer"),
])
def test_bad_clocks_stop_the_server_before_it_listens(item: str, words: str) -> None:
    """A clock the operator mistypes is refused in one line, exit 2, before anything starts."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "hearts", "serve", "--port", "0", "--limit", item],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.strip().endswith(words), done.stderr
