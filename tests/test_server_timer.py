"""Absent players (issue 14, item 4): a table's turn timer, with a real server and real clients.

A seat that does not act within ``turn_timer`` seconds is away: the table's stand-in bot acts
for it (at bot pace) until its person comes back — a ``hello``, an action or ``back`` — and
then the person plays again (until the seat is handed over for the rest of the game:
test_server_leavers.py). The clocks run again from a restore. Without a timer, a table of
friends waits for its people.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets")

from test_server_support import (  # noqa: E402
    BACKENDS,
    Client,
    Database,
    ServerProcess,
    WorkerProcess,
    backend_database,
    create_table,
    db_actions,
    is_pg,
    module_pg_database,
    my_action,
    play_until,
)

TWO_PEOPLE = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}] + [{"kind": "bot", "level": "easy"}] * 2


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # (no seat is handed over for the rest of its game here: test_server_leavers.py has that)
    s = ServerProcess(tmp_path_factory.mktemp("timer") / "tables.db", bot_delay=0.05, limits={"missed_turns": 1000}).start()
    yield s
    s.stop()


def logged(db: Database, table_id: str) -> list[dict[str, Any]]:
    return [json.loads(data) for _, data in db_actions(db, table_id)]


def events(server: ServerProcess, table_id: str, event: str) -> list[dict[str, Any]]:
    """The server's log lines of ``event`` at a table."""
    return [line for line in server.logs() if line["event"] == event and line.get("table") == table_id]


def test_an_absent_seat_gets_a_stand_in_after_the_timer_and_plays_again_when_back(server: ServerProcess) -> None:
    table = create_table(server, TWO_PEOPLE, turn_timer=1, stand_in="easy")
    assert table["turn_timer"] == 1 and table["stand_in"] == "easy"
    tid = table["id"]
    ann_token, bob_token = table["seats"][0]["token"], table["seats"][1]["token"]

    async def main() -> None:
        t0 = time.monotonic()
        ann = await Client(server, tid, ann_token).connect()
        st = ann.state
        assert st is not None and st["table"]["turn_timer"] == 1 and st["table"]["away"] == []
        left = st["table"]["time_left"]
        assert 0.5 < left[0] <= 1 and 0.5 < left[1] <= 1 and left[2] is None and left[3] is None
        await ann.send({"type": "pass", "seq": st["seq"], "cards": st["view"]["hand"][:3]})
        # Bob never comes: after his second, he is away and the stand-in passes for him.
        away = await ann.wait(lambda m: m["type"] == "presence" and m["away"] == [1], timeout=5)
        assert away["online"] == [0]
        bob_pass = await ann.wait(lambda m: m["type"] == "state" and m["event"] == {"type": "pass", "seat": 1, "seq": m["seq"]}
                                  and m["reason"] == "event", timeout=5)
        assert 0.9 < time.monotonic() - t0 < 4
        assert bob_pass["table"]["away"] == [1]
        # The stand-in plays for him at bot pace while Ann plays hers.
        await play_until([ann], random.Random(2), lambda: sum(a["type"] == "play" and a["seat"] == 1
                                                              for a in logged(server.db, tid)) >= 3, timeout=30)
        assert events(server, tid, "away")[0]["seat"] == 1
        # Bob comes back: he is no longer away, and plays himself, with his own clock.
        bob = await Client(server, tid, bob_token).connect()
        assert bob.state is not None and bob.state["table"]["away"] == []
        await ann.wait(lambda m: m["type"] == "presence" and m["away"] == [] and m["online"] == [0, 1])

        def bob_played() -> bool:
            return any(line["seat"] == 1 and line["by"] == "person" for line in events(server, tid, "action"))

        await play_until([ann, bob], random.Random(3), bob_played, timeout=30)
        turns = [m for m in bob.messages if m["type"] == "state" and my_action(m, random.Random(0)) is not None]
        assert turns and all(m["table"]["time_left"][1] is not None for m in turns)  # his clock ran
        for c in (ann, bob):
            await c.close()

    asyncio.run(main())
    actions = [line for line in events(server, tid, "action") if line["seat"] == 1]
    assert actions[0]["by"] == "stand_in" and actions[-1]["by"] == "person"
    assert all(line["by"] == "person" for line in events(server, tid, "action") if line["seat"] == 0)
    assert [line["seat"] for line in events(server, tid, "back")] == [1]


def test_back_brings_an_away_seat_back(server: ServerProcess) -> None:
    table = create_table(server, TWO_PEOPLE, turn_timer=1)
    tid = table["id"]

    async def main() -> None:
        ann = await Client(server, tid, table["seats"][0]["token"]).connect()
        # Ann does not pass: she is away too, and the stand-in passes for her.
        await ann.wait(lambda m: m["type"] == "presence" and 0 in m["away"], timeout=5)
        await ann.wait(lambda m: m["type"] == "state" and m["event"] is not None and m["event"]["seat"] == 0, timeout=5)
        back = await ann.request({"type": "back"}, lambda m: m["type"] == "presence" and 0 not in m["away"])
        assert back["away"] == [1]
        await ann.close()

    asyncio.run(main())


def test_without_a_timer_a_table_waits_for_its_people(server: ServerProcess) -> None:
    table = create_table(server, TWO_PEOPLE)

    async def main() -> None:
        ann = await Client(server, table["id"], table["seats"][0]["token"]).connect()
        assert ann.state is not None and ann.state["table"]["time_left"] == [None] * 4
        await asyncio.sleep(1.5)
        await ann.close()

    asyncio.run(main())
    assert sorted(a["seat"] for a in logged(server.db, table["id"])) == [2, 3]  # the bots' passes only


pg_database = pytest.fixture(scope="module")(module_pg_database)
database = pytest.fixture(params=BACKENDS)(backend_database)


def test_the_clocks_run_again_after_a_restart(database: Database, tmp_path: Path) -> None:
    """A table with a timer, killed before anyone acted: restored, its clocks start from the
    restore, and the stand-in acts for the absent people once they run out (on PostgreSQL:
    the seat is marked away in the database, and a bot worker makes the stand-in's move; the
    process comes back once the dead one's lease has run out, so that it owns the table as it
    loads it, whatever the time it takes to start)."""
    db = database
    first = ServerProcess(db, bot_delay=0.05, logs=tmp_path).start()
    table = create_table(first, TWO_PEOPLE, turn_timer=2)
    first.kill9()
    assert sorted(a["seat"] for a in logged(db, table["id"])) in ([], [2], [3], [2, 3])
    if is_pg(db):
        from hearts.server.storage.postgres import LEASE

        time.sleep(LEASE)
    bots = WorkerProcess(str(db), tmp_path / "bot-worker.log").start() if is_pg(db) else None
    second = ServerProcess(db, bot_delay=0.05, port=first.port, logs=tmp_path).start()
    started = time.monotonic()
    try:

        async def main() -> float:
            spy = await Client(second, table["id"], None).connect(hello=False)
            first_state = await spy.request({"type": "watch"}, lambda m: m["type"] == "state")
            assert first_state["table"]["turn_timer"] == 2
            assert all(left is not None and left > 1 for left in first_state["table"]["time_left"][:2])
            await spy.wait(lambda m: m["type"] == "state" and m["event"] is not None
                           and m["event"]["seat"] in (0, 1), timeout=8)
            elapsed = time.monotonic() - started
            await spy.close()
            return elapsed

        elapsed = asyncio.run(main())
        assert 1.5 < elapsed < 6
        seats = [a["seat"] for a in logged(db, table["id"]) if a["type"] == "pass"]
        assert 0 in seats or 1 in seats
    finally:
        second.stop()
        if bots is not None:
            bots.stop()


def test_everyone_sees_the_clock_of_a_person_who_comes_back(tmp_path: Path) -> None:
    """Bob's clock runs out while he is to pass; he comes back (a new connection) before the
    stand-in's slow pass: Ann is told at once that he is back and sees his clock run again."""
    slow = ServerProcess(tmp_path / "tables.db", bot_delay=2.0).start()
    try:
        table = create_table(slow, TWO_PEOPLE, turn_timer=1)

        async def main() -> None:
            ann = await Client(slow, table["id"], table["seats"][0]["token"]).connect()
            await ann.wait(lambda m: m["type"] == "presence" and m["away"] == [0, 1], timeout=5)
            n = len(ann.messages)
            bob = await Client(slow, table["id"], table["seats"][1]["token"]).connect()
            assert bob.state is not None and bob.state["table"]["away"] == [0]
            back = await ann.wait(lambda m: m["type"] == "state" and 1 not in m["table"]["away"], start=n, timeout=0.8)
            assert back["seq"] == 0 and back["table"]["time_left"][1] is not None  # nobody passed yet
            for c in (ann, bob):
                await c.close()

        asyncio.run(main())
    finally:
        slow.stop()
