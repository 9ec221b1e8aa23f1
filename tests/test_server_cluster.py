"""Many processes, one service (issue 14): server processes on one PostgreSQL database, each
serving any table's WebSocket and hearing the others' actions through ``NOTIFY``; the database
deciding the order of actions; bot workers making the bots' moves as jobs; SIGKILL of any of
them losing no accepted action. Real PostgreSQL (a database made for this module, emptied
before each test: see test_server_store_support), real server processes, real clients.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")
websockets = pytest.importorskip("websockets")

from test_server_store_support import sql, with_store  # noqa: E402
from test_server_support import (  # noqa: E402
    Client,
    ServerProcess,
    WorkerProcess,
    audit_r7,
    check_export,
    create_table,
    db_actions,
    db_game,
    emptied_pg_url,
    four_humans,
    http,
    module_pg_database,
    my_action,
    play_until,
    seat_all,
    seat_spread,
    server_pair,
)

from hearts.actions import to_json  # noqa: E402
from hearts.rules import Rules  # noqa: E402
from hearts.server.outage import BACK, UNREACHABLE  # noqa: E402
from hearts.server.storage import hash_token  # noqa: E402

pg_database = pytest.fixture(scope="module")(module_pg_database)


url = pytest.fixture(emptied_pg_url)


pair = pytest.fixture(server_pair)


def action_lines(server: ServerProcess, table_id: str) -> list[dict[str, Any]]:
    """The actions a server process accepted at a table (its log's ``action`` lines)."""
    return [line for line in server.logs() if line["event"] == "action" and line.get("table") == table_id]


def test_two_processes_serve_one_game_to_the_end_its_log_replays(url: str, pair: list[ServerProcess]) -> None:
    """Four clients spread over two server processes (seats 0 and 2 on one, 1 and 3 on the
    other) play a whole game of random legal actions: every client sees the same end, which
    is what the database's log replays to; both processes took actions, and each client
    saw every action (R7-audited), all of them logged by the table's owner."""
    table = four_humans(pair[0], target=40)

    async def main() -> list[Client]:
        clients = await seat_spread(pair, table)
        await play_until(clients, random.Random(4), lambda: False, timeout=120)
        for c in clients:
            await c.wait(lambda m: m["type"] == "state" and m["view"]["game_over"], timeout=30)
            await c.close()
        return clients

    clients = asyncio.run(main())
    game = db_game(url, table["id"])
    assert game.is_over
    rows = db_actions(url, table["id"])
    assert rows == [(k, to_json(a)) for k, a in enumerate(game.history, 1)]
    for c in clients:
        final = c.state
        assert final is not None and final["view"]["game_over"] and final["seq"] == len(rows)
        assert final["table"]["totals"] == game.totals and final["table"]["winners"] == list(game.winners or ())
        seen = [m["seq"] for m in c.messages if m["type"] == "state" and m["reason"] == "event"]
        assert seen == list(range(1, len(rows) + 1))  # every action, in order, once
    assert audit_r7(url, table["id"], clients) > 4 * 100
    accepted = [len(action_lines(s, table["id"])) for s in pair]
    assert accepted == [len(rows), 0]  # the table's owner (its creator) logged them all, the other's forwarded
    exported = check_export(pair[1], table["id"], names=["Ann", "Bob", "Cy", "Di"], bots=[None] * 4)
    assert exported.game.history == game.history


def what(action: dict[str, Any]) -> tuple[str, Any]:
    """An action's type and what it names (a pass's cards as a set), without seat or seq."""
    if "cards" in action:
        return action["type"], frozenset(action["cards"])
    return action["type"], action.get("card", action.get("choice"))


def test_simultaneous_conflicting_actions_from_both_processes_one_is_accepted(url: str, pair: list[ServerProcess]) -> None:
    """Each seat is open twice, once on each process (two tabs): at every turn both of the
    seat's connections send a different action for the same position at the same moment.
    Exactly one is accepted (one row per position); the other gets a resync."""
    table = four_humans(pair[0])
    rng = random.Random(8)

    async def main() -> tuple[list[tuple[int, list[dict[str, Any]]]], list[Client]]:
        tabs = [[await Client(server, table["id"], s["token"]).connect() for server in pair] for s in table["seats"]]
        everyone = [c for both in tabs for c in both]
        races = []
        while len(races) < 24:
            seq = max(c.state["seq"] for c in everyone if c.state is not None)
            for c in everyone:  # everyone at this position
                await c.wait(lambda m, seq=seq: m["type"] == "state" and m["seq"] >= seq)
            seat = next(s for s, both in enumerate(tabs) if both[0].state and my_action(both[0].state, rng))
            both = tabs[seat]
            actions = [my_action(c.state, rng) for c in both if c.state is not None]
            assert all(a is not None for a in actions) and all(a["seq"] == seq for a in actions)  # type: ignore[index]
            marks = [len(c.messages) for c in both]
            await asyncio.gather(*(c.send(a) for c, a in zip(both, actions, strict=True)))

            def answers(both: list[Client] = both, marks: list[int] = marks) -> list[dict[str, Any]]:
                return [m for c, mark in zip(both, marks, strict=True) for m in c.messages[mark:]
                        if m["type"] == "error" or (m["type"] == "state" and m["reason"] == "resync")]

            for c, mark in zip(both, marks, strict=True):  # both tabs see the one accepted
                await c.wait(lambda m, seq=seq: m["type"] == "state" and m["seq"] == seq + 1, start=mark)
            deadline = time.monotonic() + 10
            while not answers() and time.monotonic() < deadline:  # and the other one is answered
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)  # (a second answer would show here)
            assert [(m["type"], m.get("reason"), m["seq"]) for m in answers()] == [("state", "resync", seq + 1)]
            races.append((seq, [a for a in actions if a is not None]))
        for c in everyone:
            await c.close()
        return races, everyone

    races, everyone = asyncio.run(main())
    rows = [json.loads(data) for _, data in db_actions(url, table["id"])]
    assert len(rows) == len(races)
    for (seq, candidates), row in zip(races, rows, strict=True):  # each row is one of the two sent
        assert what(row) in [what(a) for a in candidates], (seq, row, candidates)
    game = db_game(url, table["id"])
    for c in everyone:  # both processes hold the same position
        assert c.state is not None and c.state["seq"] == len(rows)
        assert c.state["table"]["totals"] == game.totals


def test_kill9_of_a_server_process_its_clients_carry_on_with_the_other(
    url: str, pair: list[ServerProcess], tmp_path: Path
) -> None:
    """SIGKILL one of two server processes mid-game: its clients reconnect to the other, the
    games (four people; one person and three bots, whose moves a bot worker makes) carry on to
    their ends, and each ends as its log replays; the log was only appended to."""
    bots = WorkerProcess(url, tmp_path / "bot-worker.log").start()
    try:
        people = four_humans(pair[0], target=100)  # (not over before its fourth round: 3 x 26 < 100)
        botty = create_table(pair[1], [{"kind": "human", "name": "Me"}] + [{"kind": "bot", "level": "easy"}] * 3,
                             target=100)  # (longer than the people's game reaches its second round)
        rng = random.Random(11)

        async def main() -> tuple[list[Client], list[tuple[int, str]], int]:
            clients = await seat_spread(pair, people)
            me = Client(pair[0], botty["id"], botty["seats"][0]["token"], [pair[1]])
            await me.connect()
            everyone = [*clients, me]
            # Mid-trick of a later round: the seat about to play third sees it in its own state
            # (another seat's may already show the next play, so each seat's is looked at). A
            # state that lags cannot show a game that has ended since: at a target of 50 it
            # could (the second round's last trick), and the kill then found it over.
            await play_until(
                everyone, rng,
                lambda: any(c.state is not None and c.state["view"]["round_number"] >= 1
                            and len(c.state["view"]["trick"]["plays"]) == 2 for c in clients)
                and me.state is not None and me.state["view"]["phase"] == "playing",
                timeout=90,
            )
            pair[0].kill9()
            at_kill = db_actions(url, people["id"])
            await play_until(everyone, rng, lambda: False, timeout=120)
            for c in everyone:
                await c.wait(lambda m: m["type"] == "state" and m["view"]["game_over"], timeout=60)
                await c.close()
            return everyone, at_kill, me.reconnects

        everyone, at_kill, reconnects = asyncio.run(main())
    finally:
        bots.stop()
    assert reconnects == 1 and [c.reconnects for c in everyone[:4]] == [1, 0, 1, 0]
    rows = db_actions(url, people["id"])
    assert rows[: len(at_kill)] == at_kill and len(rows) > len(at_kill)
    for table, clients in ((people, everyone[:4]), (botty, everyone[4:])):
        game = db_game(url, table["id"])
        assert game.is_over
        for c in clients:
            assert c.state is not None and c.state["seq"] == len(game.history)
            assert c.state["table"]["totals"] == game.totals
    assert audit_r7(url, people["id"], everyone[:4]) > 100


def test_kill9_of_a_bot_worker_mid_think_another_takes_its_job(url: str, pair: list[ServerProcess], tmp_path: Path) -> None:
    """A bot worker is killed while its bot thinks (a search bot given 3 s a move): once its
    lease (1.5 s, no longer renewed) runs out, another worker claims the job (its second
    attempt), makes the move, which is logged once, and the server processes push it to their
    clients."""
    rules = Rules(pass_count=0, target=30)
    token = "the-person"
    seats = [("human", "Pat", None, hash_token(token)), ("bot", "Slow", "search:time=3", None),
             ("bot", "Bot", "easy", None), ("bot", "Bot", "easy", None)]
    with_store(url, lambda store: store.log.create_table("slow", {"rules": rules.to_dict(), "bot_delay": 0}, 5, seats))
    first = WorkerProcess(url, tmp_path / "first.log", lease=1.5).start()
    second = WorkerProcess(url, tmp_path / "second.log", lease=1.5)

    held_since: dict[int, float] = {}

    def thinking() -> bool:
        """Whether the slow seat's job has been held for 0.7 s (its bot thinks for 3: the
        worker renews the lease meanwhile, so the lease's end says nothing of how long)."""
        now, held = time.monotonic(), sql(url, "SELECT id FROM bot_jobs WHERE seat = 1 AND worker IS NOT NULL")
        return any(now - held_since.setdefault(job, now) >= 0.7 for (job,) in held)

    try:

        async def main() -> int:
            pat = await Client(pair[0], "slow", token, [pair[1]]).connect()
            deadline, acted_on, rng = time.monotonic() + 60, -1, random.Random(1)
            while not thinking():  # Pat plays when it is her turn
                assert time.monotonic() < deadline, "the slow bot never thought for long"
                st = pat.state
                action = my_action(st, rng) if st is not None and st["seq"] != acted_on else None
                if action is not None:
                    acted_on = action["seq"]
                    await pat.send(action)
                await asyncio.sleep(0.05)
            logged = len(db_actions(url, "slow"))
            first.kill9()
            second.start()
            event = await pat.wait(lambda m: m["type"] == "state" and m["seq"] == logged + 1, timeout=30)
            assert event["event"]["seat"] == 1  # pushed by the server process, as any other action
            await pat.close()
            return logged

        logged = asyncio.run(main())

        def moves() -> list[dict[str, Any]]:
            """The second worker's logged moves for the slow seat (it logs after the commit, so a
            client may hear of the move before the line is written)."""
            return [line for line in second.logs() if line["event"] == "action" and line["seat"] == 1]

        deadline = time.monotonic() + 10
        while not moves() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert moves() and moves()[0]["attempt"] == 2  # the job the first worker held, taken over
        assert not [line for line in first.logs() if line["event"] == "action" and line["seat"] == 1]
    finally:
        first.stop()
        second.stop()
    game = db_game(url, "slow")  # the log replays, with the slow seat's move taken once
    assert game.history[logged].seat == 1


def test_a_lost_listener_listens_again_and_catches_up(url: str, pair: list[ServerProcess]) -> None:
    """The database drops the processes' LISTEN connections: each listens again and catches
    up every table it holds (the notices sent meanwhile are lost), so a client of the other
    process still sees every action."""
    table = four_humans(pair[0])

    async def main() -> tuple[list[Client], Client]:
        clients = [await Client(pair[0], table["id"], s["token"]).connect() for s in table["seats"]]
        far = await Client(pair[1], table["id"], table["seats"][0]["token"]).connect()  # a second tab
        killed = sql(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                          " WHERE datname = current_database() AND query LIKE 'LISTEN %%'")
        assert killed == [(True,), (True,)]
        await play_until(clients, random.Random(3), lambda: clients[0].state is not None and clients[0].state["seq"] >= 12)
        await far.wait(lambda m: m["type"] == "state" and m["seq"] >= 12, timeout=15)
        for c in [*clients, far]:
            await c.close()
        return clients, far

    clients, far = asyncio.run(main())
    assert far.state is not None and far.state["view"] == clients[0].state["view"]  # type: ignore[index]
    for server in pair:  # (said once each way, as the process's other tasks say an outage)
        said = [line["event"] for line in server.logs() if line.get("task") == "notices"]
        assert said == [UNREACHABLE, BACK], said


def test_workers_share_one_port_with_their_own_bot_worker(url: str, tmp_path: Path) -> None:
    """``--workers 2`` on PostgreSQL: two server processes behind one port (both start) and the
    service's own bot worker (``--bot-jobs``): a game of four people and one of a person and
    three bots play to their ends through that port."""
    server = ServerProcess(url, logs=tmp_path, workers=2, bot_jobs=2).start()
    try:
        deadline = time.monotonic() + 30
        while len({line["process"] for line in server.logs() if line["event"] == "started"}) < 2:
            assert time.monotonic() < deadline, "the second worker did not start"
            time.sleep(0.1)
        people = four_humans(server, target=20)
        botty = create_table(server, [{"kind": "human", "name": "Me"}] + [{"kind": "bot", "level": "easy"}] * 3,
                             target=20)

        async def main() -> list[Client]:
            clients = [*await seat_spread([server], people),
                       await Client(server, botty["id"], botty["seats"][0]["token"]).connect()]
            await play_until(clients, random.Random(2), lambda: False, timeout=120)
            for c in clients:
                await c.close()
            return clients

        clients = asyncio.run(main())
        for table, mine in ((people, clients[:4]), (botty, clients[4:])):
            game = db_game(url, table["id"])
            assert game.is_over and all(c.state is not None and c.state["seq"] == len(game.history) for c in mine)
        assert http("GET", server.url + "/healthz")[1]["database"] is True
    finally:
        server.stop()


def test_sqlite_for_many_processes_and_an_unreachable_database_are_one_line(tmp_path: Path) -> None:
    """``--workers 2`` and ``hearts bot-worker`` on SQLite, and a PostgreSQL server that does not
    answer: a clear one-line error (exit code 2)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    db = f"sqlite:///{tmp_path / 't.db'}"
    nowhere = "postgresql://nobody:secret@127.0.0.1:1/none?connect_timeout=2"
    for args, error in [
        (["serve", "--port", "0", "--workers", "2", "--db", db],
         "hearts serve: error: --workers 2 needs PostgreSQL (--db postgresql://…): a SQLite database is served by "
         "one process"),
        (["bot-worker", "--db", db],
         f"hearts bot-worker: error: --db must be a PostgreSQL URL (postgresql://…), not '{db}': with SQLite, the "
         "server runs its bots itself"),
        (["serve", "--port", "0", "--db", nowhere], "hearts serve: error: cannot open the database "
         "postgresql://nobody@127.0.0.1:1/none: cannot connect to postgresql://nobody@127.0.0.1:1/none"),
        (["bot-worker", "--db", nowhere], "hearts bot-worker: error: cannot connect to postgresql://nobody@127.0.0.1:1/none"),
    ]:
        done = subprocess.run([sys.executable, "-m", "hearts", *args], capture_output=True, text=True, timeout=30, env=env)
        assert done.returncode == 2 and done.stdout == ""
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(error), done.stderr
        assert "secret" not in done.stderr


def test_a_lost_notice_leaves_no_table_stale_for_more_than_2_s(url: str, pair: list[ServerProcess]) -> None:
    """Issue 25: a table's four seats on process B, a second tab of every seat on A; the
    backend A sends its notices on is terminated, and the game's last card is played on A
    (its notice, sent after the commit, is lost with that connection). B's clients must still
    see the game's end within 2 s (B checks the log's head of the tables it serves), and B
    answers ``sync`` and ``/api/tables/ID`` from the log, not from a stale copy."""
    async def main(table: dict[str, Any]) -> tuple[list[Client], int] | None:
        """The scenario on ``table``; ``None`` if a client of B played the last card itself
        (it may have sent it just as the others stopped): the scenario is then tried anew."""
        clients = await seat_all(pair[1], table)
        far = [await Client(pair[0], table["id"], s["token"]).connect() for s in table["seats"]]
        seen: list[tuple[int, int]] = []  # the position with one card left, and its holder

        def last_card() -> bool:  # every seat sees the same position, one card left in all
            states = [c.state for c in clients]
            if not all(st is not None for st in states) or len({st["seq"] for st in states}) != 1:  # type: ignore[index]
                return False
            holders = [i for i, st in enumerate(states) if st["view"]["hand"]]  # type: ignore[index]
            if sum(len(st["view"]["hand"]) for st in states) != 1:  # type: ignore[index]
                return False
            seen.append((states[0]["seq"], holders[0]))  # type: ignore[index]
            return True

        await play_until(clients, random.Random(5), last_card, timeout=90)
        seq, seat = seen[0]
        await asyncio.sleep(0.3)  # a play sent as the others stopped has arrived by now
        if any(c.state is not None and c.state["seq"] > seq for c in clients):
            for c in [*clients, *far]:
                await c.close()
            return None
        killed = sql(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                          " WHERE datname = current_database() AND query LIKE 'SELECT pg_notify(%% FROM json_array_elements_text(%%'")
        assert killed, "the processes' notice connections were found"
        tab = far[seat]
        await tab.wait(lambda m: m["type"] == "state" and m["seq"] == seq, timeout=10)
        assert tab.state is not None
        action = my_action(tab.state, random.Random(1))
        assert action is not None and action["type"] == "play"
        await tab.send(action)
        await tab.wait(lambda m: m["type"] == "state" and m["view"]["game_over"], timeout=10)
        for c in clients:
            await c.wait(lambda m: m["type"] == "state" and m["view"]["game_over"], timeout=2.5)
        for c in [*clients, *far]:
            await c.close()
        return clients, seq + 1

    for _ in range(3):
        # The first round ends the game: 26 points among four, a tie for the fewest shared (R5).
        table = four_humans(pair[1], target=7, options={"ties": "share"})
        done = asyncio.run(main(table))
        if done is not None:
            break
    assert done is not None, "a client of B played the last card itself three times"
    clients, last = done
    assert all(c.state is not None and c.state["seq"] == last for c in clients)
    status, facts = http("GET", f"{pair[1].url}/api/tables/{table['id']}")
    assert status == 200 and facts["seq"] == last, facts
