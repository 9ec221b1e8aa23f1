"""The web table with a real server on loopback and real WebSocket clients (issues 4 and 13).

A full game among four scripted clients, audited for R7: no message to any seat ever holds
another seat's unplayed card; the server's action log (one row per accepted action, in the
actions' codec) replays to the same finished game, and its export loads as a version 2 record.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import random
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets")

from helpers import moon_deal, play_moon_round, random_step  # noqa: E402
from test_server_store_support import with_store  # noqa: E402
from test_server_support import (  # noqa: E402
    BACKENDS,
    Client,
    Database,
    ServerProcess,
    WorkerProcess,
    audit_r7,
    backend_database,
    check_export,
    create_table,
    db_actions,
    db_game,
    db_url,
    four_humans,
    http,
    is_pg,
    module_pg_database,
    play_until,
    seat_all,
)

from hearts import record  # noqa: E402
from hearts.actions import Moon, Pass, Play, to_dict, to_json  # noqa: E402
from hearts.cards import CardSet  # noqa: E402
from hearts.game import Game  # noqa: E402
from hearts.rules import Rules  # noqa: E402
from hearts.server.botpool import BotPool  # noqa: E402
from hearts.server.botworker import BotWorker  # noqa: E402
from hearts.server.limits import DEFAULT_LIMITS, AddressGuard  # noqa: E402
from hearts.server.protocol import TableRequest, parse_client  # noqa: E402
from hearts.server.relay import relays_for  # noqa: E402
from hearts.server.storage import Storage, StoreError, StoreUnavailable, hash_token, open_storage  # noqa: E402
from hearts.server.storage.migrate import SCHEMA_VERSION  # noqa: E402
from hearts.server.tables import Connection, Manager, Table  # noqa: E402
from hearts.view import View  # noqa: E402

pg_database = pytest.fixture(scope="module")(module_pg_database)
database = pytest.fixture(params=BACKENDS)(backend_database)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    s = ServerProcess(tmp_path_factory.mktemp("server") / "tables.db").start()
    yield s
    s.stop()


def test_full_game_four_clients_and_r7_audit(server: ServerProcess) -> None:
    table = four_humans(server, target=40)

    async def main() -> list[Client]:
        clients = await seat_all(server, table)
        await play_until(clients, random.Random(4), lambda: False, timeout=120)
        for c in clients:
            await c.wait(lambda m: m["type"] == "state" and m["view"]["game_over"])
        await asyncio.sleep(0.05)
        for c in clients:
            await c.close()
        return clients

    clients = asyncio.run(main())
    finals = [c.state for c in clients if c.state is not None and c.state["view"]["game_over"]]
    assert len(finals) == 4
    totals = finals[0]["table"]["totals"]
    assert max(totals) >= 40
    assert all(f["table"]["totals"] == totals for f in finals)
    # The log replays to the same finished game; its rows are the codec's text of its history,
    # numbered 1, 2, … (a state's seq is the number of actions applied).
    game = db_game(server.db, table["id"])
    assert game.is_over and game.totals == totals and list(game.winners or ()) == finals[0]["table"]["winners"]
    rows = db_actions(server.db, table["id"])
    assert rows == [(k, to_json(a)) for k, a in enumerate(game.history, 1)]
    assert finals[0]["seq"] == len(rows)
    assert audit_r7(server.db, table["id"], clients) > 4 * 100
    # The record is published once the game is over: a version 2 record, which loads.
    exported = check_export(server, table["id"], names=["Ann", "Bob", "Cy", "Di"], bots=[None] * 4)
    assert exported.game.history == game.history and exported.game.score_history == game.score_history


def test_the_audit_catches_a_leak(server: ServerProcess) -> None:
    table = four_humans(server)

    async def main() -> Client:
        c = await Client(server, table["id"], table["seats"][0]["token"]).connect()
        await c.close()
        return c

    c = asyncio.run(main())
    assert audit_r7(server.db, table["id"], [c]) == 1
    game = db_game(server.db, table["id"])
    forged = copy.deepcopy(c.messages[0])
    forged["view"]["legal"] = [str(next(iter(game.round.hand(2))))]
    c.messages.append(forged)
    with pytest.raises(AssertionError, match="others' cards"):
        audit_r7(server.db, table["id"], [c])


def test_bots_play_with_one_person(server: ServerProcess) -> None:
    table = create_table(
        server, [{"kind": "human", "name": "Me"}] + [{"kind": "bot", "level": "easy"}] * 3, target=20
    )

    async def main() -> Client:
        c = await Client(server, table["id"], table["seats"][0]["token"]).connect()
        await play_until([c], random.Random(1), lambda: False, timeout=60)
        await c.close()
        return c

    c = asyncio.run(main())
    assert c.state is not None and c.state["view"]["game_over"]
    assert audit_r7(server.db, table["id"], [c]) > 10
    names = ["Me"] + [s["name"] for s in table["seats"][1:]]  # the bots' own names (issue 15)
    check_export(server, table["id"], names=names, bots=[None] + ["easy"] * 3)


async def sync(c: Client) -> dict[str, Any]:
    return await c.request({"type": "sync"}, lambda m: m["type"] == "state")


def test_bad_input_gets_an_error_and_changes_nothing(server: ServerProcess) -> None:
    table = four_humans(server)

    async def main() -> None:
        clients = await seat_all(server, table)
        a = clients[0]
        before = await sync(a)

        async def refused(data: Any, code: str, who: Client = a) -> dict[str, Any]:
            counts = [len(c.messages) for c in clients]
            err = await who.request(data, lambda m: m["type"] in ("error", "state"))
            assert err["type"] == "error", err
            assert err["code"] == code, err
            assert err["message"]
            after = await sync(who)
            assert after["seq"] == before["seq"] and after["view"] == before["view"], data
            await asyncio.sleep(0.02)
            for c, n in zip(clients, counts, strict=True):  # nobody else heard anything
                extra = [m for m in c.messages[n:] if c is not who]
                assert not extra, extra
            return err

        seq = before["seq"]
        hand = before["view"]["hand"]
        await refused("{not json", "bad_json")
        await refused(b"\x00\x01", "bad_json")
        await refused("[1, 2]", "bad_message")  # not an object
        await refused("3", "bad_message")
        await refused({"type": "teleport"}, "unknown_type")
        await refused({"no": "type"}, "unknown_type")
        err = await refused({"type": "play", "seq": seq, "card": "2C", "pad": "x" * 5000}, "too_large")
        assert "too large" in err["message"]
        await refused({"type": "play", "card": "2C"}, "bad_message")  # no seq
        await refused({"type": "play", "seq": "0", "card": "2C"}, "bad_message")
        # Malformed actions: the codec's reason, to this client only.
        err = await refused({"type": "play", "seq": seq, "card": "1X"}, "bad_message")  # a bad card
        assert "R1.2" in err["message"] and "1X" in err["message"]
        err = await refused({"type": "pass", "seq": seq, "cards": ["ZZ", "QS", "AH"]}, "bad_message")
        assert "ZZ" in err["message"]
        await refused({"type": "pass", "seq": seq, "cards": "QS"}, "bad_message")
        await refused({"type": "pass", "seq": seq}, "bad_message")
        err = await refused({"type": "moon", "seq": seq, "choice": "both"}, "bad_message")
        assert "R4.4" in err["message"]
        err = await refused({"type": "pass", "seq": seq, "cards": hand[:3], "bonus": 1}, "bad_message")
        assert "'bonus'" in err["message"]  # an unknown key
        # Another seat's action, or a seat that is no seat number: refused.
        for seat in (1, 3, "0", None, 0.0, True):
            err = await refused({"type": "pass", "seq": seq, "seat": seat, "cards": hand[:3]}, "wrong_seat")
            assert "seat 0" in err["message"]
        # Illegal by the rules: playing during the pass, passing cards not held, wrong count.
        err = await refused({"type": "play", "seq": seq, "card": hand[0]}, "illegal")
        assert "passing" in err["message"]
        others = [c for c in CardSet.full() if str(c) not in hand]
        err = await refused({"type": "pass", "seq": seq, "cards": [str(x) for x in others[:3]]}, "illegal")
        assert "does not hold" in err["message"]
        err = await refused({"type": "pass", "seq": seq, "cards": hand[:2]}, "illegal")
        assert "3 cards" in err["message"]
        await refused({"type": "moon", "seq": seq, "choice": "add"}, "illegal")

        # Wrong token: a new connection gets an error and no seat; it cannot act.
        intruder = await Client(server, table["id"], "forged-token").connect(hello=False)
        err = await intruder.request({"type": "hello", "token": "forged-token"}, lambda m: True)
        assert err["type"] == "error" and err["code"] == "bad_token"
        err = await intruder.request({"type": "pass", "seq": seq, "cards": hand[:3]}, lambda m: True)
        assert err["type"] == "error" and err["code"] == "not_seated"
        assert (await sync(a))["view"] == before["view"]
        await intruder.close()
        # No such table.
        ghost = await Client(server, "nope", None).connect(hello=False)
        err = await ghost.wait(lambda m: True)
        assert err["code"] == "no_table"
        await ghost.close()

        # All pass (one names its own seat, which is allowed); a duplicate pass is answered
        # with a resync, not a second pass.
        for c in clients:
            st = c.state
            assert st is not None
            mine = {"seat": st["you"]} if st["you"] == 2 else {}
            await c.send({"type": "pass", "seq": st["seq"], "cards": st["view"]["hand"][:3], **mine})
        for c in clients:
            await c.wait(lambda m: m["type"] == "state" and m["view"]["phase"] == "playing")
        st = await sync(a)
        assert st["seq"] == seq + 4
        dup = await a.request({"type": "pass", "seq": seq, "cards": hand[:3]}, lambda m: m["type"] != "presence")
        assert dup["type"] == "state" and dup["reason"] == "resync" and dup["seq"] == seq + 4
        assert (await sync(a))["view"] == st["view"]

        # Out of turn, and a stale play: resync or error, nothing applied.
        mover = st["view"]["to_move"]
        lead = next(c for c in clients if c.state and c.state["you"] == mover)
        other = next(c for c in clients if c is not lead)
        ost = await sync(other)
        err = await other.request(
            {"type": "play", "seq": ost["seq"], "card": ost["view"]["hand"][0]}, lambda m: m["type"] != "presence"
        )
        assert err["type"] == "error" and err["code"] == "illegal" and "turn" in err["message"]
        lst = await sync(lead)
        wrong = [x for x in lst["view"]["hand"] if x not in lst["view"]["legal"]]
        err = await lead.request(
            {"type": "play", "seq": lst["seq"], "card": wrong[0]}, lambda m: m["type"] != "presence"
        )
        assert err["type"] == "error" and "R3.1" in err["message"]
        stale = await lead.request(
            {"type": "play", "seq": lst["seq"] - 1, "card": lst["view"]["legal"][0]},
            lambda m: m["type"] != "presence",
        )
        assert stale["type"] == "state" and stale["reason"] == "resync" and stale["seq"] == lst["seq"]
        # The right play goes through, once; its duplicate gets a resync.
        play = {"type": "play", "seq": lst["seq"], "card": lst["view"]["legal"][0]}
        ok = await lead.request(play, lambda m: m["type"] == "state" and m["seq"] == lst["seq"] + 1)
        assert ok["event"]["card"] == lst["view"]["legal"][0]
        again = await lead.request(play, lambda m: m["type"] != "presence")
        assert again["reason"] == "resync" and again["seq"] == lst["seq"] + 1
        # And the server still serves everyone.
        for c in clients:
            assert (await sync(c))["seq"] == lst["seq"] + 1
            assert (await c.request({"type": "ping"}, lambda m: m["type"] == "pong"))
        for c in clients:
            await c.close()
        logged = [json.loads(data) for _, data in db_actions(server.db, table["id"])]
        assert [a["type"] for a in logged] == ["pass"] * 4 + ["play"]
        assert sorted(a["seat"] for a in logged[:4]) == [0, 1, 2, 3]
        assert logged[4] == {"type": "play", "seat": mover, "card": play["card"]}

    asyncio.run(main())


def test_config_gives_the_rule_options_specs(server: ServerProcess) -> None:
    status, config = http("GET", server.url + "/api/config")
    assert status == 200
    assert config["options"] == [spec.to_dict() for spec in Rules.options()]
    assert config["presets"]["omnibus"] == Rules.preset("omnibus").to_dict()
    assert "easy" in config["levels"]


def test_lobby_api(server: ServerProcess) -> None:
    table = create_table(
        server,
        [{"kind": "human", "name": "Host"}, {"kind": "open"}, {"kind": "bot", "level": "medium"}, {"kind": "open"}],
        preset="omnibus",
        options={"moon": "shooter_chooses"},
        target=50,
    )
    tid = table["id"]
    assert table["rules"]["jack_of_diamonds"] == -10 and table["rules"]["moon"] == "shooter_chooses"
    assert "token" in table["seats"][0] and "token" not in table["seats"][1]
    assert table["seats"][0]["link"].endswith(f"/t/{tid}#seat=0&token={table['seats'][0]['token']}")
    status, listing = http("GET", server.url + "/api/tables")
    assert status == 200
    mine = next(t for t in listing["tables"] if t["id"] == tid)
    assert mine["free"] == [1, 3] and "-10" in mine["rules"]
    status, joined = http("POST", f"{server.url}/api/tables/{tid}/join", {"seat": 1, "name": "Guest"})
    assert status == 200 and joined["seat"] == 1 and joined["token"]
    status, again = http("POST", f"{server.url}/api/tables/{tid}/join", {"seat": 1, "name": "Late"})
    assert status == 409 and "not free" in again["error"]
    status, _bad = http("POST", f"{server.url}/api/tables/{tid}/join", {"seat": 9})
    assert status == 400
    status, info = http("GET", f"{server.url}/api/tables/{tid}")
    assert info["names"][1] == "Guest" and info["kinds"] == ["human", "human", "bot", "open"]
    status, _ = http("GET", f"{server.url}/api/tables/{tid}/record")
    assert status == 403  # deals are secret until the end (R7)
    for body in (
        {"seats": [{"kind": "human"}] * 2},
        {"seats": [{"kind": "alien"}] * 4},
        {"seats": [{"kind": "bot", "level": "godlike"}] * 4},
        {"seats": [{"kind": "human"}] * 4, "preset": "nope"},
        {"seats": [{"kind": "human"}] * 4, "options": {"moon": "sometimes"}},
        {"seats": [{"kind": "human"}] * 4, "target": -5},
    ):
        status, err = http("POST", server.url + "/api/tables", body)
        assert status == 400 and err["error"], body
    status, err = http("POST", server.url + "/api/tables", b"{oops")
    assert status == 400 and "JSON" in err["error"]
    assert http("GET", f"{server.url}/api/tables/nope")[0] == 404
    status, svg = http("GET", f"{server.url}/cards/QS.svg")
    assert status == 200 and svg.startswith("<svg")
    assert http("GET", f"{server.url}/cards/ZZ.svg")[0] == 404

    async def joined_seat() -> None:
        c = await Client(server, tid, joined["token"]).connect()
        assert c.state is not None and c.state["you"] == 1 and len(c.state["view"]["hand"]) == 13
        await c.close()

    asyncio.run(joined_seat())


def test_a_thinking_bot_does_not_stall_other_tables(server: ServerProcess) -> None:
    slow = create_table(server, [{"kind": "human", "name": "Me"}] + [{"kind": "bot", "level": "hard"}] * 3)
    fast = four_humans(server)

    async def main() -> float:
        me = await Client(server, slow["id"], slow["seats"][0]["token"]).connect()
        st = me.state
        assert st is not None
        await me.send({"type": "pass", "seq": st["seq"], "cards": st["view"]["hand"][:3]})
        other = await Client(server, fast["id"], fast["seats"][0]["token"]).connect()
        loop = asyncio.get_running_loop()
        worst = 0.0
        end = loop.time() + 2.0
        while loop.time() < end:
            t0 = loop.time()
            await other.request({"type": "ping"}, lambda m: m["type"] == "pong")
            worst = max(worst, loop.time() - t0)
            await asyncio.sleep(0.02)
        await me.close()
        await other.close()
        return worst

    worst = asyncio.run(main())
    print(f"worst ping while three hard bots think: {worst * 1000:.1f} ms")
    assert worst < 0.25


def test_kill9_mid_game_then_restart_continues_exactly(database: Database, tmp_path: Path) -> None:
    """SIGKILL mid-game, on each backend (PostgreSQL: a bot worker beside the server, killed
    too): a new server restores the exact position of the log, which was only appended to,
    and the games go on to their ends."""
    db = database
    server = ServerProcess(db, logs=tmp_path).start()
    bots = WorkerProcess(str(db), tmp_path / "bot-worker.log").start() if is_pg(db) else None
    try:
        table = four_humans(server, target=60)
        botty = create_table(server, [{"kind": "human", "name": "Me"}] + [{"kind": "bot", "level": "easy"}] * 3)
        rng = random.Random(9)

        async def first_half() -> list[dict[str, Any]]:
            clients = await seat_all(server, table)
            me = await Client(server, botty["id"], botty["seats"][0]["token"]).connect()
            # Into the second round, mid-trick.
            await play_until(
                [*clients, me],
                rng,
                lambda: clients[0].state is not None
                and clients[0].state["view"]["round_number"] >= 1
                and len(clients[0].state["view"]["trick"]["plays"]) == 2
                and me.state is not None
                and me.state["view"]["phase"] == "playing",
                timeout=60,
            )
            return [copy.deepcopy(c.state or {}) for c in [*clients, me]]

        seen = asyncio.run(first_half())
        server.kill9()
        if bots is not None:
            bots.kill9()
        log_at_kill = db_actions(db, table["id"])
        bot_log_at_kill = db_actions(db, botty["id"])
        before = db_game(db, table["id"])
        assert not before.is_over and len(before.rounds) >= 2

        server = ServerProcess(db, port=server.port, logs=tmp_path).start()
        if bots is not None:
            bots = WorkerProcess(str(db), tmp_path / "bot-worker.log").start()

        async def second_half() -> list[Client]:
            clients = await seat_all(server, table)
            me = await Client(server, botty["id"], botty["seats"][0]["token"]).connect()
            # Exactly the position of the log: same seq, same hands, same trick, same scores.
            for c, old in zip(clients, seen[:4], strict=False):
                st = c.state
                assert st is not None and st["seq"] == len(log_at_kill) == len(before.history)
                assert st["seq"] >= old["seq"]
                if st["seq"] == old["seq"]:
                    assert st["view"] == old["view"] and st["table"]["totals"] == old["table"]["totals"]
                seat = st["you"]
                assert st["view"]["hand"] == [str(x) for x in before.round.hand(seat).sorted_by_suit()]
                assert st["view"]["trick"]["plays"] == [
                    {"seat": s, "card": str(x)} for s, x in before.round.current_trick.plays
                ]
                assert st["table"]["totals"] == before.totals
            assert me.state is not None and me.state["seq"] >= len(bot_log_at_kill)
            await play_until([*clients, me], rng, lambda: False, timeout=120)
            for c in [*clients, me]:
                await c.wait(lambda m: m["type"] == "state" and m["view"]["game_over"], timeout=60)
                await c.close()
            return [*clients, me]

        clients = asyncio.run(second_half())
        rows = db_actions(db, table["id"])
        assert rows[: len(log_at_kill)] == log_at_kill  # the log was only appended to
        uninterrupted = db_game(db, table["id"])
        assert uninterrupted.is_over and uninterrupted.history[: len(before.history)] == before.history
        assert rows == [(k, to_json(a)) for k, a in enumerate(uninterrupted.history, 1)]
        final = clients[0].state
        assert final is not None
        assert final["seq"] == len(rows)
        assert final["table"]["totals"] == uninterrupted.totals
        assert final["table"]["score_history"] == [list(h) for h in uninterrupted.score_history]
        assert final["table"]["winners"] == list(uninterrupted.winners or ())
        assert db_actions(db, botty["id"])[: len(bot_log_at_kill)] == bot_log_at_kill
        bot_game = db_game(db, botty["id"])
        assert bot_game.is_over and clients[-1].state is not None
        assert clients[-1].state["table"]["totals"] == bot_game.totals
    finally:
        server.stop()
        if bots is not None:
            bots.stop()


# ---------------------------------------------------------------- in process: log and restore


class Recorder:
    """A connection to a table in this process; :meth:`drain` takes what it was sent."""

    def __init__(self, seat: int) -> None:
        self.conn = Connection(self._send, self._close)
        self.seat = seat

    async def _send(self, text: str) -> None:  # pragma: no cover - no writer runs
        raise AssertionError(text)

    async def _close(self, code: int, reason: str) -> None:  # pragma: no cover
        pass

    def drain(self) -> list[dict[str, Any]]:
        out = []
        while not self.conn.queue.empty():
            text = self.conn.queue.get_nowait()
            assert isinstance(text, str)
            out.append(json.loads(text))
        return out


def welcome(table: Table, seat: int) -> dict[str, Any]:
    """The state a seat's new connection is sent, but for its event number (counted per process)."""
    conn = Recorder(seat).conn
    conn.seat = seat
    m: dict[str, Any] = json.loads(table.messages.snapshot(conn, "welcome"))
    del m["n"]
    return m


def test_restore_replays_the_log_to_the_exact_position(database: Database) -> None:
    """Actions sent on the wire to a table in this process: each accepted one is one row, the
    codec's text of the game's history; a malformed one is an error to its sender and changes
    nothing; a second manager on the same database restores the exact position (the views of
    every seat, the seq, the last event) and goes on. On both backends."""
    rng = random.Random(13)

    async def play(manager: Manager, steps: int) -> Table:
        table, _ = await manager.create(TableRequest.parse({"seats": [{"kind": "human"}] * 4, "target": 60}))
        seats = [Recorder(s) for s in range(4)]
        for r in seats:
            await table.attach(r.conn, r.seat)
        for r in seats:
            assert r.drain()[0]["reason"] == "welcome"
        for step in range(steps):
            seat = rng.choice(table.game.actors())
            legal = list(table.game.legal_actions(seat))
            fields = {k: v for k, v in to_dict(rng.choice(legal)).items() if k != "seat"}
            before = table.seq
            if step % 10 == 0:  # a malformed one first: an error to its sender, nothing changes
                bad = parse_client(json.dumps({**fields, "seq": before, "seat": (seat + 1) % 4}))
                await table.handle(seats[seat].conn, bad)  # type: ignore[arg-type]
                assert [m["code"] for m in seats[seat].drain()] == ["wrong_seat"]
                assert table.seq == before and all(not r.drain() for r in seats)
            await table.handle(seats[seat].conn, parse_client(json.dumps({**fields, "seq": before})))  # type: ignore[arg-type]
            assert table.seq == before + 1
            for r in seats:
                (m,) = r.drain()
                assert m["seq"] == before + 1 and m["event"]["seat"] == seat
        return table

    async def main() -> None:
        store = await open_storage(db_url(database))
        manager, again = Manager(store, bot_delay=0, bot_workers=0), Manager(store, bot_delay=0, bot_workers=0)
        try:
            table = await play(manager, 130)
            game = table.game
            assert len(game.rounds) >= 2 and not game.is_over
            assert db_actions(database, table.id) == [(k, to_json(a)) for k, a in enumerate(game.history, 1)]
            assert await store.log.actions(table.id) == [to_dict(a) for a in game.history]
            restored = await again.get(table.id)
            assert restored is not None and restored is not table
            assert restored.game.history == game.history and restored.seq == table.seq
            assert restored.last_event == table.last_event
            assert restored.game.totals == game.totals and restored.game.score_history == game.score_history
            for conn in list(table.conns):
                table.detach(conn)  # (who is online is no part of the position)
            for s in range(4):
                assert View.of(restored.game, s) == View.of(game, s)
                assert welcome(restored, s) == welcome(table, s)
            # It goes on from there as the original would, once it owns the table (the first
            # process lets it go: on PostgreSQL only the lease's holder appends).
            await manager.ownership.stop()
            assert await again.ownership.take(restored)
            action = next(iter(game.legal_actions(game.actors()[0])))
            await restored.apply(action, "person", time.perf_counter())
            game.apply(action)
            assert View.of(restored.game, action.seat) == View.of(game, action.seat)
            assert db_actions(database, table.id)[-1] == (len(game.history), to_json(action))
        finally:
            await manager.shutdown()
            await again.shutdown()
            await store.close()

    asyncio.run(main())


def test_a_bots_game_is_logged_restored_and_exported(database: Database) -> None:
    """An all-bot table plays to its end (SQLite: bots in this process; PostgreSQL: their turns
    are jobs, done by a bot worker, which sends each move over a link to the table's owner), its
    log is its game, it exports as a record and a finished table is restored too."""

    async def main() -> Table:
        store = await open_storage(db_url(database))
        manager = Manager(store, bot_delay=0, bot_workers=0)
        relays = relays_for(manager, AddressGuard(DEFAULT_LIMITS))
        pool = BotPool(workers=0)
        worker = None if store.jobs is None else asyncio.ensure_future(BotWorker(store, pool, jobs=2).run())
        try:
            table, tokens = await manager.create(
                TableRequest.parse({"seats": [{"kind": "bot", "level": "easy"}] * 4, "target": 30})
            )
            assert tokens == {}
            await relays.start()  # (where the worker sends the moves: the alive notices say)
            await manager.start()
            for _ in range(3000):
                if table.game.is_over and not table.mailbox.busy:  # (the last action committed, too)
                    break
                await asyncio.sleep(0.005)
            else:
                raise AssertionError("the bots did not finish")
            assert await store.log.unfinished() == []
            assert await store.log.actions(table.id) == [to_dict(a) for a in table.game.history]
            restored = await Manager(store, bot_delay=0, bot_workers=0).get(table.id)  # a finished table, too
            assert restored is not None and restored.game.is_over and restored.game.totals == table.game.totals
            return table
        finally:
            if worker is not None:
                worker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await worker
            await relays.stop()
            await manager.shutdown()
            pool.shutdown()
            await store.close()

    table = asyncio.run(main())
    loaded = record.loads(json.dumps(record.game_to_dict(table.record())))
    assert isinstance(loaded, record.GameRecord)
    assert loaded.seats == tuple(record.Seat(s.name or "", "easy") for s in table.seats)
    assert len({s.name for s in loaded.seats}) == 4  # each bot a name of its own (issue 15)
    assert loaded.game.seed == table.game.seed and loaded.game.history == table.game.history


# ---------------------------------------------------------------- the first version's databases

V1_SCHEMA = """
CREATE TABLE tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL DEFAULT (julianday('now')),
    config TEXT NOT NULL,
    seed INTEGER NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE seats (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,
    name TEXT,
    bot TEXT,
    token_hash TEXT,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE events (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER,
    data TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
);
"""
"""The schema of the first version (``PRAGMA user_version`` 0), as it wrote its databases."""

V1Event = tuple[str, "int | None", dict[str, Any]]


def v1_events(game: Game) -> list[V1Event]:
    """A game's log as the first version wrote it: each round's deal where the round began
    (right after the action that ended the one before), then each pass, play and moon choice
    (kind, seat, data; a pass's cards as one text)."""
    dealt_at = dict(zip(game.round_starts, game.rounds, strict=True))
    out: list[V1Event] = []
    for k in range(len(game.history) + 1):
        r = dealt_at.get(k)
        if r is not None:
            out.append(("deal", None, {"round": r.round_number, "hands": [str(h) for h in r.dealt]}))
        if k == len(game.history):
            break
        a = game.history[k]
        if isinstance(a, Pass):
            out.append(("pass", a.seat, {"cards": str(a.cards)}))
        elif isinstance(a, Play):
            out.append(("play", a.seat, {"card": str(a.card)}))
        else:
            out.append(("moon", a.seat, {"choice": a.choice}))
    return out


def write_v1(db: Path, table_id: str, game: Game, seed: int, seats: Sequence[tuple[str, str, str | None, str | None]],
             events: list[V1Event] | None = None) -> None:
    """Write a table into a first-version database (created if new), as that version did."""
    con = sqlite3.connect(db)
    try:
        if not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'events'").fetchone():
            con.executescript(V1_SCHEMA)
        config = {"rules": game.rules.to_dict(), "bot_delay": 0.0, "spectators": True}
        con.execute("INSERT INTO tables (id, config, seed, finished) VALUES (?, ?, ?, ?)",
                    (table_id, json.dumps(config), seed, int(game.is_over)))
        con.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?)",
                        [(table_id, s, *row) for s, row in enumerate(seats)])
        rows = v1_events(game) if events is None else events
        con.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?)",
                        [(table_id, seq, kind, seat, json.dumps(data)) for seq, (kind, seat, data) in enumerate(rows, 1)])
        con.commit()
    finally:
        con.close()


def user_version(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("PRAGMA user_version").fetchone()[0])
    finally:
        con.close()


def test_a_first_version_database_is_migrated_and_its_tables_go_on(tmp_path: Path) -> None:
    """A database of the first version (deal, pass, play and moon events): opened, its logs
    become the codec's actions and its logged deals the tables' explicit deals; an unfinished
    table is restored at the exact position (every seat's view) and plays on to its end, a
    finished one (with a moon choice) exports as a record."""
    db = tmp_path / "old.db"
    rng = random.Random(21)
    # Unfinished: into the second round, past its passes. Dealt from another seed than the one
    # stored, as the first version dealt its later rounds from random.Random(f"{seed}:{k}").
    going = Game(Rules(target=50), seed=99)
    while not (len(going.rounds) == 2 and len(going.round.plays) >= 6):
        random_step(going, rng)
    tokens = [f"token-{s}" for s in range(4)]
    names = ["Ann", "Bob", "Cy", "Di"]
    write_v1(db, "old-going", going, 1234, [("human", n, None, hash_token(t)) for n, t in zip(names, tokens, strict=True)])
    # Finished: a moon shot (shooter_chooses, the shooter adds) in round 0, then to the end.
    done = Game(Rules(pass_count=0, moon="shooter_chooses", target=40), seed=5, deals=[moon_deal(4, 1)])
    play_moon_round(done, 1)
    done.apply(Moon(1, "add"))
    while not done.is_over:
        random_step(done, rng)
    bots = [("human", "Pat", None, hash_token("pat"))] + [("bot", "Bot (hard)", "hard", None)] * 3
    write_v1(db, "old-done", done, 77, bots)
    assert ("moon", 1, {"choice": "add"}) in v1_events(done)
    assert user_version(db) == 0

    async def migrated(store: Storage) -> None:
        for table_id, game in (("old-going", going), ("old-done", done)):
            assert db_actions(db, table_id) == [(k, to_json(a)) for k, a in enumerate(game.history, 1)]
            row = await store.log.table(table_id)
            assert row is not None and row.deals == [[str(h) for h in r.dealt] for r in game.rounds]
        assert await store.log.unfinished() == ["old-going"]

    with_store(f"sqlite:///{db}", migrated)
    assert user_version(db) == 7 and SCHEMA_VERSION == 13  # (0008 on leave the retired marker at 7)
    con = sqlite3.connect(db)
    try:
        assert not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'events'").fetchone()
    finally:
        con.close()
    with_store(f"sqlite:///{db}", lambda store: store.log.unfinished())  # opening it again changes nothing
    assert db_actions(db, "old-done") == [(k, to_json(a)) for k, a in enumerate(done.history, 1)]

    server = ServerProcess(db).start()
    try:
        check_export(server, "old-done", names=["Pat"] + ["Bot (hard)"] * 3, bots=[None] + ["hard"] * 3)
        table = {"id": "old-going", "seats": [{"token": t} for t in tokens]}

        async def main() -> list[Client]:
            clients = await seat_all(server, table)
            for s, c in enumerate(clients):
                st = c.state
                assert st is not None and st["you"] == s and st["seq"] == len(going.history)
                assert st["view"] == json.loads(json.dumps(View.of(going, s).to_dict()))
                assert st["table"]["totals"] == going.totals and st["table"]["names"] == names
            await play_until(clients, random.Random(3), lambda: False, timeout=120)
            for c in clients:
                await c.wait(lambda m: m["type"] == "state" and m["view"]["game_over"], timeout=30)
                await c.close()
            return clients

        clients = asyncio.run(main())
        final = db_game(db, "old-going")
        assert final.is_over and final.history[: len(going.history)] == going.history
        assert [r.dealt for r in final.rounds[:2]] == [r.dealt for r in going.rounds]
        assert clients[0].state is not None and clients[0].state["table"]["totals"] == final.totals
        check_export(server, "old-going", names=names, bots=[None] * 4)
    finally:
        server.stop()


def test_a_first_version_log_that_cannot_be_migrated_is_left_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    game = Game(Rules(), seed=3)
    events = [*v1_events(game), ("play", 0, {"card": "1X"})]
    write_v1(db, "broken", game, 3, [("human", "Ann", None, None)] * 4, events=events)
    with pytest.raises(StoreError, match=r"table broken: event 2 \(play\) cannot be migrated: R1.2"):
        with_store(f"sqlite:///{db}", lambda store: store.log.unfinished())
    assert user_version(db) == 0
    con = sqlite3.connect(db)
    try:
        assert con.execute("SELECT count(*) FROM events").fetchone() == (2,)
        assert not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'actions'").fetchone()
    finally:
        con.close()


def test_an_action_that_cannot_be_committed_is_taken_back(database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """The log is the truth: an action whose row cannot be written is undone and never sent."""

    async def main() -> None:
        store = await open_storage(db_url(database))
        manager = Manager(store, bot_delay=0, bot_workers=0)
        try:
            table, _ = await manager.create(TableRequest.parse({"seats": [{"kind": "human"}] * 4}))
            watcher = Recorder(1)
            await table.attach(watcher.conn, 1)
            watcher.drain()
            action = next(iter(table.game.legal_actions(0)))

            async def unreachable(*args: object, **kwargs: object) -> None:
                raise StoreUnavailable("the database does not answer")

            monkeypatch.setattr(store.log, "append", unreachable)
            with pytest.raises(StoreUnavailable):
                await table.apply(action, "person", time.perf_counter())
            assert table.seq == 0 and table.game.history == () and table.last_event is None
            assert watcher.drain() == [] and View.of(table.game, 0).must_pass
            monkeypatch.undo()
            await table.apply(action, "person", time.perf_counter())
            assert db_actions(database, table.id) == [(1, to_json(action))]
        finally:
            await manager.shutdown()
            await store.close()

    asyncio.run(main())


def test_a_message_goes_out_at_once_and_a_client_that_does_not_read_is_let_go() -> None:
    """A connection whose writer waits sends a message in passing, nothing queued; messages
    pushed before the writer runs go out first, in order. A send that would wait for the
    socket (the client reads nothing: its buffer is full) is dropped before it sent anything
    and that client alone is disconnected (1013, reconnect for the full state); a dead socket
    is let go too."""

    async def main() -> None:
        sent: list[str] = []
        closed: list[tuple[int, str]] = []
        room = asyncio.Event()
        room.set()

        async def send(text: str) -> None:
            await room.wait()
            if text == "dead":
                raise ConnectionResetError
            sent.append(text)

        async def close(code: int, reason: str) -> None:
            closed.append((code, reason))

        conn = Connection(send, close)
        conn.push("x")
        conn.push("y")  # (no writer yet: queued)
        writer = asyncio.get_running_loop().create_task(conn.run_writer())
        await asyncio.sleep(0)
        conn.push("z")
        assert sent == ["x", "y", "z"] and conn.queue.empty()
        room.clear()  # the client's buffer is full
        conn.push("a")
        conn.push("b")
        assert sent == ["x", "y", "z"] and conn.closed
        await asyncio.wait_for(writer, 1)
        assert closed == [(1013, "too many messages waiting for you: reconnect for the full state")]

        room.set()
        dead = Connection(send, close)
        writer = asyncio.get_running_loop().create_task(dead.run_writer())
        await asyncio.sleep(0)
        dead.push("dead")
        await asyncio.wait_for(writer, 1)
        assert dead.closed and closed[-1] == (1013, "the connection failed")

    asyncio.run(main())


def test_a_tables_bot_pace_is_its_creators_within_the_limits_and_survives_a_restart(database: Database) -> None:
    """A table whose creator asks for a bot pace (issue 42, item 4: the web settings' bot speed)
    has it, held within the server's ``min_bot_pace``…``max_bot_pace``: its bots (SQLite) and
    the bot workers (``bot_delay`` of its stored settings, PostgreSQL) wait that long, and a
    server started again with another ``--bot-delay`` restores it with the same pace. A table
    that asks for none has the server's; a pace that is no number is refused."""
    from hearts.server.limits import Limits
    from hearts.server.protocol import ProtocolError

    limits = Limits(min_bot_pace=0.5, max_bot_pace=2.0)
    bots = {"seats": [{"kind": "human", "name": "Al"}] + [{"kind": "bot", "level": "easy"}] * 3}

    async def main() -> None:
        store = await open_storage(db_url(database))
        manager = Manager(store, bot_delay=0.7, bot_workers=0, limits=limits)
        try:
            asked = {pace: (await manager.create(TableRequest.parse({**bots, "bot_pace": pace}, limits)))[0]
                     for pace in (0, 1.5, 60)}
            plain, _ = await manager.create(TableRequest.parse(bots, limits))
            assert {pace: t.bot_delay for pace, t in asked.items()} == {0: 0.5, 1.5: 1.5, 60: 2.0}
            assert plain.bot_delay == 0.7
            for t in [*asked.values(), plain]:
                row = await store.log.table(t.id)
                assert row is not None and row.config["bot_delay"] == t.bot_delay  # what a bot worker waits
            for bad in ("fast", -1, 61, True):
                with pytest.raises(ProtocolError, match="'bot_pace' must be a number of seconds, 0 to 60"):
                    TableRequest.parse({**bots, "bot_pace": bad}, limits)
            again = Manager(store, bot_delay=0.1, bot_workers=0, limits=limits)  # restarted, another --bot-delay
            restored = await again.get(asked[1.5].id)
            plain_again = await again.get(plain.id)
            assert restored is not None and restored.bot_delay == 1.5
            assert plain_again is not None and plain_again.bot_delay == 0.1  # the server's, as before
            await again.shutdown()
        finally:
            await manager.shutdown()
            await store.close()

    asyncio.run(main())


def test_passkeys_sessions_and_seat_tickets_are_stored_alike_on_both_databases(database: Database) -> None:
    """``store.passkeys`` (issue 42, item 3) on SQLite and PostgreSQL: a WebAuthn challenge is
    taken once, for its purpose only, and not once expired; a profile has several passkeys (a
    credential known already is refused, nothing added); a session names its profile until it
    is signed out; signing out everywhere ends every session of the profile but the one kept,
    and its seat tickets, and no other profile's."""

    async def main() -> None:
        store = await open_storage(db_url(database))
        pk = store.passkeys
        try:
            for player in ("ann", "bob"):
                await store.players.create_player(player, player.title(), hash_token(player), 25.0, 8.3)
            now = time.time()
            await pk.add_challenge("c1", "register", "ann", now + 60)
            await pk.add_challenge("c2", "sign_in", None, now - 1)  # expired
            assert await pk.take_challenge("c1", "sign_in", now) == (False, None)  # another purpose: used up all the same
            assert await pk.take_challenge("c1", "register", now) == (False, None)
            await pk.add_challenge("c3", "register", "ann", now + 60)
            assert await pk.take_challenge("c3", "register", now) == (True, "ann")
            assert await pk.take_challenge("c3", "register", now) == (False, None)  # once
            assert await pk.take_challenge("c2", "sign_in", now) == (False, None)
            await pk.add("k1", "ann", "pub1", 0, "laptop")
            await pk.add("k2", "ann", "pub2", 3, "phone")
            with pytest.raises(ValueError, match="registered already"):
                await pk.add("k1", "bob", "other", 0, "stolen")
            assert [(k.credential_id, k.name, k.sign_count, k.used) for k in await pk.of_player("ann")] == [
                ("k1", "laptop", 0, None), ("k2", "phone", 3, None)]
            owner = await pk.owner("k1")
            assert owner is not None and owner.id == "ann"
            await pk.used("k2", 4)
            used = await pk.get("k2")
            assert used is not None and used.sign_count == 4 and used.used is not None
            for session, player in (("s1", "ann"), ("s2", "ann"), ("s3", "bob")):
                await pk.add_session(session, player)
            await pk.add_challenge("t1", "seat", "ann", now + 600)
            await pk.add_challenge("t2", "seat", "bob", now + 600)
            assert await pk.peek_challenge("t1", "seat", now) == "ann"
            assert await pk.peek_challenge("t1", "seat", now) == "ann"  # a ticket is kept
            assert await pk.end_sessions("ann", keep="s1") == 1
            session = await pk.session_player("s1")
            assert session is not None and session.id == "ann"
            assert await pk.session_player("s2") is None
            assert await pk.peek_challenge("t1", "seat", now) is None  # revoked with the sessions
            bob = await pk.session_player("s3")
            assert bob is not None and bob.id == "bob" and await pk.peek_challenge("t2", "seat", now) == "bob"
            await pk.end_session("s1")
            assert await pk.session_player("s1") is None
            assert await pk.remove("ann", "k1") and not await pk.remove("bob", "k2")
            assert [k.credential_id for k in await pk.of_player("ann")] == ["k2"]
        finally:
            await store.close()

    asyncio.run(main())


def test_sqlite_is_a_cluster_of_one_that_owns_each_table_through_its_lease(tmp_path: Path) -> None:
    """Issue 41 item 1: SQLite runs the same ownership code as PostgreSQL's many processes, as
    a cluster of one. A table with bots is claimed when it is made, at epoch 1, and its lease
    renewed as any; a table of people only is claimed by the first client that sits at it (as
    on PostgreSQL); the process's one lease per table is what its appends carry; and the
    restart of the process claims every unfinished table again."""

    async def main() -> None:
        store = await open_storage(f"sqlite:///{tmp_path / 't.db'}")
        manager = Manager(store, bot_delay=0, bot_workers=0)
        try:
            await manager.start()
            bots, _ = await manager.create(TableRequest.parse(
                {"seats": [{"kind": "human", "name": "Pat"}] + [{"kind": "bot", "level": "easy"}] * 3}))
            people, tokens = await manager.create(TableRequest.parse({"seats": [{"kind": "human"}] * 4}))
            own = manager.ownership
            me = manager.roster.process
            assert own.held[bots.id] == await store.leases.holder(bots.id) and own.held[bots.id].epoch == 1
            assert own.owns(bots.id) and bots.owned and own.epoch(bots.id) == 1
            assert not own.owns(people.id) and await store.leases.holder(people.id) is None
            assert await store.leases.renew(me, list(own.held.values())) == {bots.id}
            conn = Connection(lambda _: asyncio.sleep(0), lambda *_: asyncio.sleep(0))
            seat = await people.find_seat(tokens[0])
            assert seat == 0
            await people.attach(conn, seat)
            assert own.owns(people.id) and own.epoch(people.id) == 1
            await people.moves.person(conn, 0, 0, next(iter(people.game.legal_actions(0))), time.perf_counter())
            assert people.seq == 1 and await store.log.actions(people.id) == [to_dict(people.game.history[0])]
        finally:
            await manager.shutdown()
        again = Manager(store, bot_delay=0, bot_workers=0)
        try:
            assert await again.start() == 2  # (restored, each claimed: the same ownership code)
            assert set(again.ownership.held) == {bots.id, people.id}
        finally:
            await again.shutdown()
            await store.close()

    asyncio.run(main())
