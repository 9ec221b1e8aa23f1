"""One service over many processes (issue 14, what remained): who is online and how many
spectators is the same through every server process; the bot workers' moves show in every
process's ``/metrics``; and the state messages built for the load target (rules and completed
tricks encoded once) say exactly what each seat's view says (R7). Real PostgreSQL, real server
processes and bot workers, real WebSocket clients.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("prometheus_client")
pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")
websockets = pytest.importorskip("websockets")

from test_server_support import (  # noqa: E402
    Client,
    ServerProcess,
    WorkerProcess,
    create_table,
    db_actions,
    emptied_pg_url,
    four_humans,
    http,
    metrics,
    module_pg_database,
    play_until,
    server_pair,
)

from hearts.game import Game  # noqa: E402
from hearts.round import Phase  # noqa: E402
from hearts.rules import Rules  # noqa: E402
from hearts.server.notices import PresenceNotice  # noqa: E402
from hearts.server.storage import SeatRow, open_storage  # noqa: E402
from hearts.server.tables import ALIVE_EVERY, Connection, Manager, Roster, Table, public_event  # noqa: E402
from hearts.server.tables.commands import Act, Facts, NameSeat  # noqa: E402
from hearts.server.wire import apply_event  # noqa: E402
from hearts.view import View  # noqa: E402


class Viewer:
    """A connection to a table in this process that applies its events (as a client does)."""

    PRIVATE = frozenset(View.of(Game(Rules(), 0), 0).private_dict())

    def __init__(self, seat: int | None) -> None:
        self.conn = Connection(self._send, self._close)
        self.conn.seat, self.conn.spectator = seat, seat is None
        self.seat = seat
        self.state: dict[str, Any] | None = None
        self.told: list[dict[str, Any]] = []
        """The messages of other kinds than ``state`` and ``event`` (who is there, chat, …)."""

    async def _send(self, text: str) -> None:  # pragma: no cover - no writer runs
        raise AssertionError(text)

    async def _close(self, code: int, reason: str) -> None:  # pragma: no cover
        pass

    def take(self) -> dict[str, Any]:
        """The state after the messages sent since the last call."""
        while not self.conn.queue.empty():
            m = json.loads(self.conn.queue.get_nowait())  # type: ignore[arg-type]
            if m["type"] == "state":
                self.state = m
            elif m["type"] != "event":
                self.told.append(m)
            else:
                assert self.state is not None and (self.seat is not None or not self.PRIVATE & set(m["view"]))
                self.state = apply_event(self.state, m)
                assert self.state is not None, "an event that does not follow"
        assert self.state is not None
        return self.state

pg_database = pytest.fixture(scope="module")(module_pg_database)


url = pytest.fixture(emptied_pg_url)


pair = pytest.fixture(server_pair)


def shows(online: list[int], spectators: int) -> Callable[[dict[str, Any]], bool]:
    """A predicate: a presence message, or a state, showing these ``online`` seats and
    ``spectators``."""

    def pred(m: dict[str, Any]) -> bool:
        facts = m if m["type"] == "presence" else m.get("table", {}) if m["type"] == "state" else {}
        return facts.get("online") == online and facts.get("spectators") == spectators

    return pred


def test_presence_and_spectators_are_the_services_through_every_process(pair: list[ServerProcess]) -> None:
    """Ann is seated through process A, Bob through process B, a spectator watches through B:
    each of them, and the table's facts on either process, show seats 0 and 1 online and one
    spectator; when Bob and then the spectator leave, Ann (on the other process) is told."""
    table = four_humans(pair[0], target=20)
    tid = table["id"]

    def facts_of(server: ServerProcess) -> tuple[list[int], int]:
        """Who is online and how many watch, as ``GET /api/tables/{id}`` on ``server`` says."""
        facts = http("GET", f"{server.url}/api/tables/{tid}")[1]
        return facts["online"], facts["spectators"]

    async def facts_soon(server: ServerProcess, expected: tuple[list[int], int]) -> tuple[list[int], int]:
        """:func:`facts_of` once they are ``expected``, or as they are after 5 s: a process that
        does not own the table hears of its presence by the owner's notice, which may come after
        the owner told its clients."""
        deadline = time.monotonic() + 5
        while (seen := facts_of(server)) != expected and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return seen

    async def main() -> None:
        ann = await Client(pair[0], tid, table["seats"][0]["token"]).connect()
        bob = await Client(pair[1], tid, table["seats"][1]["token"]).connect()
        await ann.wait(shows([0, 1], 0))
        await bob.wait(shows([0, 1], 0))
        fan = Client(pair[1], tid, None)
        await fan.connect(hello=False)
        await fan.send({"type": "watch"})
        await fan.wait(lambda m: m["type"] == "state" and m["you"] is None)
        await ann.wait(shows([0, 1], 1))
        await fan.wait(shows([0, 1], 1))
        for server in pair:  # the facts (and lobby) of either process count everyone
            assert await facts_soon(server, ([0, 1], 1)) == ([0, 1], 1)
        # A play through process A: its state messages on process B carry the service's presence.
        n = len(bob.messages)
        await play_until([ann, bob], random.Random(1), lambda: bob.state is not None and bob.state["seq"] >= 1)
        await bob.wait(lambda m: m["type"] == "state" and m["reason"] == "event", start=n)
        assert bob.state is not None and bob.state["table"]["online"] == [0, 1]
        n = len(ann.messages)
        await bob.close()
        await ann.wait(shows([0], 1), start=n)
        await fan.close()
        await ann.wait(shows([0], 0), start=n)
        assert await facts_soon(pair[1], ([0], 0)) == ([0], 0)
        await ann.close()

    asyncio.run(main())


def test_a_process_that_begins_serving_a_table_learns_who_is_there() -> None:
    """The roster: another process's presence counts until that process has not been heard of
    for three heartbeats; its own notices change nothing; an empty presence forgets it."""
    roster = Roster("me")
    assert not roster.heard(PresenceNotice("t", "me", [1], 2), now=0.0)  # its own
    assert roster.at("t", now=0.0) == ([], 0)
    assert roster.heard(PresenceNotice("t", "a", [2, 0], 1), now=0.0)
    assert roster.heard(PresenceNotice("t", "b", [2], 2), now=0.0)
    assert not roster.heard(PresenceNotice("t", "b", [2], 2), now=1.0)  # nothing new
    assert roster.at("t", now=1.0) == ([0, 2], 3)
    roster.alive("b", now=2 * ALIVE_EVERY)  # b beats, a is silent
    later = 3.5 * ALIVE_EVERY
    assert roster.at("t", now=later) == ([2], 2)
    assert roster.forget_gone(now=later) == ["t"]
    assert roster.forget_gone(now=later) == []
    assert roster.heard(PresenceNotice("t", "b", [], 0), now=later)  # b's clients left
    assert roster.at("t", now=later) == ([], 0)


def test_a_bot_worker_that_does_not_start_in_time_is_not_left_running(url: str, tmp_path: Path) -> None:
    """The tests' own helper: a bot worker that has not said it started within the wait (a
    slow machine) is stopped before the error is raised, so a failed test leaves no process
    polling a database the test drops (one ran on for half an hour after such a failure)."""
    worker = WorkerProcess(url, tmp_path / "worker.log")
    with pytest.raises(RuntimeError, match="did not start"):
        worker.start(wait=0.0)
    assert worker.proc is not None and worker.proc.poll() is not None


def test_the_services_moves_are_the_sum_of_its_processes_counters(url: str, pair: list[ServerProcess], tmp_path: Path) -> None:
    """A person (through process A) plays with three bots whose moves a bot worker makes: the
    process counters (``hearts_moves_total``) summed over the processes count every logged
    action by whom it was made — the table's owner counts them all, the bots' included, which
    the worker handed it; the other process none."""
    worker = WorkerProcess(url, tmp_path / "worker.log").start()
    try:
        table = create_table(pair[0], [{"kind": "human", "name": "Pat"}] + [{"kind": "bot", "level": "easy"}] * 3,
                             target=20, options={"pass_count": 0})

        async def main() -> None:
            pat = await Client(pair[0], table["id"], table["seats"][0]["token"]).connect()
            await play_until([pat], random.Random(2), lambda: pat.state is not None and pat.state["seq"] >= 16)
            await pat.close()

        asyncio.run(main())

        def logged() -> dict[str, int]:
            """The actions in the log, by whom they were made."""
            seats = [json.loads(data)["seat"] for _, data in db_actions(url, table["id"])]
            return {"person": seats.count(0), "bot": len(seats) - seats.count(0)}

        def counted() -> dict[str, float]:
            readings = [metrics(s) for s in pair]
            return {by: sum(m.get(("hearts_moves_total", (("by", by),)), 0.0) for m in readings) for by in ("person", "bot")}

        def settled() -> bool:
            """The processes count what the log holds, and the log did not grow meanwhile."""
            before = logged()
            return counted() == before and logged() == before

        # The bots go on until it is Pat's turn: settled for a whole second means they are done
        # (a check that holds once may fall between two of their moves).
        deadline, calm_since = time.monotonic() + 30, None
        while time.monotonic() < deadline and (calm_since is None or time.monotonic() - calm_since < 1):
            calm_since = (calm_since or time.monotonic()) if settled() else None
            time.sleep(0.1)
        want = logged()
        assert want["bot"] >= 12 and settled(), (counted(), want)
        # The process moves counter counts what each process logged: the table's owner (A, its
        # creator, where Pat is) logged Pat's and the bots' (handed to it by the worker); B none.
        owner, other = metrics(pair[0]), metrics(pair[1])
        assert owner[("hearts_moves_total", (("by", "person"),))] == want["person"]
        assert owner[("hearts_moves_total", (("by", "bot"),))] == want["bot"]
        assert not [k for k in other if k[0] == "hearts_moves_total" and other[k]]
    finally:
        worker.stop()


@pytest.mark.parametrize("rules", [
    Rules(target=30), Rules(players=3, target=30), Rules(players=6, target=30),
    Rules(moon="shooter_chooses", target=30), Rules.preset("black_maria", target=30), Rules.preset("omnibus", target=30),
], ids=["standard", "three", "six", "moon_choice", "black_maria", "omnibus"])
def test_the_events_make_each_seats_view_through_undos_and_seat_changes(tmp_path: Path, rules: Rules) -> None:
    """R7: at every position of a random game — and after actions taken back at the end of a
    trick and replaced by others — each seat's last state with the events applied
    (:func:`wire.apply_event`) holds exactly its view (:meth:`View.to_dict`), a spectator's
    exactly the public part, and the table's facts are :meth:`StateMessages.public`, through
    seat changes too; a seat's events never hold a private field for a spectator. With 3 to 6
    players (R1.1), a moon's choice (R4.4), Black Maria's and the omnibus's rules: a seat's
    private view, made again only when it may have changed, is never stale."""
    rng = random.Random(7)

    async def main() -> int:
        store = await open_storage(f"sqlite:///{tmp_path / 't.db'}")
        game = Game(rules, 11)
        seats = [SeatRow(i, "human", f"P{i}", None, None) for i in range(rules.players)]
        manager = Manager(store)
        table = Table("t1", game, seats, store, ownership=manager.ownership, thinking=manager.thinking)
        viewers = [Viewer(s) for s in (*range(rules.players), None)]
        for v in viewers:
            table.conns.add(v.conn)
            v.conn.push(table.messages.snapshot(v.conn, "welcome"))
        checked = undone = 0
        while not game.is_over:
            seat = game.actors()[0]
            options = list(game.legal_actions(seat))
            game.apply(rng.choice(options))
            ended_trick = game.phase is Phase.PLAYING and not game.round.current_trick.cards
            if ended_trick and rng.random() < 0.5 and len(options) > 1:
                table.messages.broadcast()  # sent, then taken back and replaced
                game.undo()
                game.apply(rng.choice(options))
                undone += 1
            table.last_event = public_event(game.history[-1], table.seq)
            if rng.random() < 0.05:  # a seat changes (a name, away): the next event says so
                s = rng.randrange(rules.players)
                seats[s] = dataclasses.replace(seats[s], name=f"N{checked}", away=not seats[s].away)
            table.messages.broadcast()
            for v in viewers:
                m = v.take()
                if v.seat is None:
                    assert m["view"] == View.of(game, 0).public_dict() and m["you"] is None
                else:
                    assert m["view"] == View.of(game, v.seat).to_dict()
                assert (m["seq"], m["you"], m["event"]) == (table.seq, v.seat, table.last_event)
                assert m["table"] == table.messages.public()
            checked += 1
        await store.close()
        assert undone >= 5
        return checked

    assert asyncio.run(main()) > 100


def test_a_tables_commands_are_values_handled_by_its_process_and_anything_else_is_refused(tmp_path: Path) -> None:
    """Issue 41 item 2: what reads or changes a table is a command of one union, handled in the
    table's turn by ``Table.process``: an action (``Act``), a name (``NameSeat``), a read
    (``Facts``); a value that is no command is refused with a ``TypeError`` and changes nothing
    (the position, the seats, the next command all as before)."""

    async def main() -> None:
        store = await open_storage(f"sqlite:///{tmp_path / 't.db'}")
        await store.log.create_table("t1", {"rules": Rules().to_dict()}, 11, [("human", f"P{i}", None, None) for i in range(4)])
        seats = [SeatRow(i, "human", f"P{i}", None, None) for i in range(4)]
        manager = Manager(store)
        table = Table("t1", Game(Rules(), 11), seats, store, ownership=manager.ownership, thinking=manager.thinking)
        assert await table.ownership.take(table)  # (a cluster of one: its lease at epoch 1)
        viewer = Viewer(0)
        table.conns.add(viewer.conn)
        viewer.conn.push(table.messages.snapshot(viewer.conn, "welcome"))
        viewer.take()
        passing = next(iter(table.game.legal_actions(0)))
        outcome, seq, _ = await table.mailbox.run(Act(0, 0, passing, "person", time.perf_counter()))
        assert (outcome.value, seq, table.seq) == ("done", 1, 1)
        assert viewer.take()["event"] == public_event(passing, 1)
        await table.mailbox.run(NameSeat(2, "Zoe"))  # (its effects: an event, and who is there told)
        assert table.seats[2].name == "Zoe" and viewer.take()["table"]["names"][2] == "Zoe"
        assert [m["names"][2] for m in viewer.told if m["type"] == "presence"] == ["Zoe"]
        before = (list(table.game.history), list(table.seats), table.messages.number)
        with pytest.raises(TypeError, match="not a command of a table"):
            await table.mailbox.run(("play", "QS"))  # type: ignore[arg-type]
        assert (list(table.game.history), list(table.seats), table.messages.number) == before
        assert (await table.mailbox.run(Facts()))["seq"] == 1 and not table.mailbox.busy
        await store.close()

    asyncio.run(main())


def test_the_action_that_ends_a_game_lets_its_lease_go_and_any_process_serves_it(tmp_path: Path) -> None:
    """A finished game needs no owner (no action to log, no clock to run): the action that ends
    it lets the table's lease go — no longer held or renewed: it runs out — and a client
    of the finished table is served without claiming it again (issue 41: no lease renewed for
    nothing, a finished table's readers and watchers served by any process)."""

    async def main() -> None:
        store = await open_storage(f"sqlite:///{tmp_path / 't.db'}")
        rules = Rules(target=1)  # (one round: someone has a point when it ends)
        await store.log.create_table("t1", {"rules": rules.to_dict()}, 5, [("human", f"P{i}", None, None) for i in range(4)])
        seats = [SeatRow(i, "human", f"P{i}", None, None) for i in range(4)]
        manager = Manager(store)
        table = Table("t1", Game(rules, 5), seats, store, ownership=manager.ownership, thinking=manager.thinking)
        assert await table.ownership.take(table)
        rng = random.Random(5)
        while not table.game.is_over:
            assert table.owned and await store.leases.holder("t1") is not None
            actor = table.game.actors()[0]
            action = rng.choice(list(table.game.legal_actions(actor)))
            outcome, _, _ = await table.mailbox.run(Act(actor, table.seq, action, "person", time.perf_counter()))
            assert outcome.value == "done"
        assert not table.owned and "t1" not in manager.ownership.held
        viewer = Viewer(0)
        assert await table.own(viewer.conn) and not table.owned  # (served, not claimed)
        table.stop()
        await store.close()

    asyncio.run(main())


def test_a_copy_another_process_owns_reads_what_it_logged_each_time_it_is_read(tmp_path: Path) -> None:
    """No action is announced: a copy of a table this process does not own (an HTTP read's)
    reads what the owner logged when the manager hands it out — one read from its position,
    the actions applied in ``seq`` order — and the same read finds nothing more the next time.
    A table this process owns reads nothing."""

    async def main() -> None:
        store = await open_storage(f"sqlite:///{tmp_path / 't.db'}")
        seats = [SeatRow(i, "human", f"P{i}", None, None) for i in range(4)]
        await store.log.create_table("t1", {"rules": Rules().to_dict()}, 11, [("human", f"P{i}", None, None) for i in range(4)])
        elsewhere = Game(Rules(), 11)  # the owner's game
        for seq in range(1, 5):
            action = next(iter(elsewhere.legal_actions(elsewhere.actors()[0])))
            elsewhere.apply(action)
            await store.log.append("t1", seq, action)
        manager = Manager(store)
        table = Table("t1", Game(Rules(), 11), seats, store, ownership=manager.ownership, thinking=manager.thinking)
        manager.tables["t1"] = table
        reads = []
        actions = store.log.actions

        async def counted(table_id: str, after: int = 0) -> list[Any]:
            reads.append(after)
            return await actions(table_id, after)

        store.log.actions = counted  # type: ignore[method-assign]
        assert await manager.get("t1") is table
        assert table.game.history == elsewhere.history and reads == [0]
        assert await manager.get("t1") is table and table.seq == 4 and reads == [0, 4]
        assert await manager.ownership.take(table)
        assert await manager.get("t1") is table and reads == [0, 4]  # (owned: its own position)
        table.stop()
        await store.close()

    asyncio.run(main())
