"""Spectators at the web table, with a real server on loopback and real WebSocket clients.

A spectator sends ``{"type": "watch"}`` (no token) and gets, at every step, only what every seat
may know (docs/rules.md R7): ``"you": null`` and the public part of a view (``View.public_dict``),
never a hand, legal plays, a pass or any other seat's unplayed card. It cannot act; a table can
refuse spectators (``"spectators": false``, kept in its config across a restart); a table takes
at most ``DEFAULT_LIMITS.max_spectators`` of them. A refused watch is closed with a code and a reason.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
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
    backend_database,
    cards_in,
    check_public_parts,
    db_actions,
    db_game,
    four_humans,
    http,
    module_pg_database,
    play_until,
    positions_at,
    seat_all,
)

from hearts.cards import CardSet  # noqa: E402
from hearts.game import Game  # noqa: E402
from hearts.rules import Rules  # noqa: E402
from hearts.server.limits import CLOSE_POLICY, CLOSE_TRY_LATER, DEFAULT_LIMITS  # noqa: E402
from hearts.view import View  # noqa: E402

MAX_SPECTATORS = DEFAULT_LIMITS.max_spectators

_SAMPLE = View.of(Game(Rules(), seed=1), 0)
PUBLIC_KEYS = set(_SAMPLE.public_dict())
PRIVATE_KEYS = set(_SAMPLE.private_dict())
assert not PUBLIC_KEYS & PRIVATE_KEYS


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    s = ServerProcess(tmp_path_factory.mktemp("spectators") / "tables.db").start()
    yield s
    s.stop()


async def watch(server: ServerProcess, table_id: str) -> tuple[Client, dict[str, Any]]:
    """A new connection that sends ``watch``; returns it and the server's first answer."""
    c = await Client(server, table_id, None).connect(hello=False)
    first = await c.request({"type": "watch"}, lambda m: m["type"] in ("state", "error"))
    return c, first


async def sync(c: Client) -> dict[str, Any]:
    return await c.request({"type": "sync"}, lambda m: m["type"] == "state")


def jsonable(obj: Any) -> Any:
    return json.loads(json.dumps(obj))


def audit_spectator(db: Path, table_id: str, messages: list[dict[str, Any]]) -> int:
    """Check every message a spectator received against the true position at its seq (R7).

    A state holds ``"you": null`` and exactly the public part of a view — equal to
    ``View.public_dict()`` of the game the log replays to at that seq — and no card that any
    seat still holds; the table facts hold no card but the last trick's, which were played.
    Returns the number of states checked.
    """
    for m in messages:
        if m["type"] != "state":
            assert not cards_in(m), m  # presence, errors, pongs: no card at all
    checked = 0
    for m, game, rules in positions_at(db, table_id, messages):
        seq = m["seq"]
        assert m["you"] is None, m["you"]
        view = m["view"]
        assert set(view) == PUBLIC_KEYS, set(view) ^ PUBLIC_KEYS
        assert not set(view) & PRIVATE_KEYS
        r = game.round
        unplayed = CardSet()
        for s in range(rules.players):
            unplayed = unplayed | r.hand(s)
        leaked = cards_in(view) & {str(c) for c in unplayed}
        assert not leaked, f"a spectator at seq {seq} was sent unplayed cards {leaked}"
        assert view == jsonable(View.of(game, 0).public_dict()), f"public view at seq {seq}"
        check_public_parts(m, game)
        checked += 1
    return checked


def test_r7_a_spectator_over_a_whole_game_sees_only_public_facts(server: ServerProcess) -> None:
    """Two spectators (one from the deal, one from the second round) of a whole game among four
    scripted seats: every message is public (R7), and the last one shows the game over."""
    table = four_humans(server, target=30)

    async def main() -> tuple[list[Client], list[Client]]:
        early, first = await watch(server, table["id"])
        assert first["type"] == "state" and first["reason"] == "welcome" and first["you"] is None
        clients = await seat_all(server, table)
        rng = random.Random(11)
        await play_until(
            clients, rng, lambda: clients[0].state is not None and clients[0].state["view"]["round_number"] >= 1,
            timeout=120,
        )
        late, welcome = await watch(server, table["id"])
        assert welcome["type"] == "state" and welcome["view"]["round_number"] >= 1
        await play_until(clients, rng, lambda: False, timeout=240)
        for c in [*clients, early, late]:
            await c.wait(lambda m: m["type"] == "state" and m["view"]["game_over"], timeout=30)
        await asyncio.sleep(0.05)
        for c in [*clients, early, late]:
            await c.close()
        return clients, [early, late]

    clients, watchers = asyncio.run(main())
    early, late = watchers
    final = early.state
    assert final is not None and final["view"]["game_over"] and final["you"] is None
    seated = clients[0].state
    assert seated is not None
    assert final["seq"] == seated["seq"]
    assert final["view"] == {k: v for k, v in seated["view"].items() if k in PUBLIC_KEYS}
    assert final["table"]["totals"] == seated["table"]["totals"] and max(final["table"]["totals"]) >= 30
    # The early spectator saw every play of the game, as it happened.
    logged = [(seq, json.loads(data)) for seq, data in db_actions(server.db, table["id"])]
    plays = {(seq, a["seat"], a["card"]) for seq, a in logged if a["type"] == "play"}
    seen = {
        (m["event"]["seq"], m["event"]["seat"], m["event"]["card"])
        for m in early.messages
        if m["type"] == "state" and m["reason"] == "event" and m["event"]["type"] == "play"
    }
    assert seen == plays and len(plays) >= 52
    assert audit_spectator(server.db, table["id"], early.messages) > 100
    assert audit_spectator(server.db, table["id"], late.messages) > 50


def test_the_spectator_audit_catches_a_leak(server: ServerProcess) -> None:
    table = four_humans(server)

    async def main() -> Client:
        c, _ = await watch(server, table["id"])
        await c.close()
        return c

    c = asyncio.run(main())
    assert audit_spectator(server.db, table["id"], c.messages) == 1
    game = db_game(server.db, table["id"])
    forged = copy.deepcopy(c.messages[0])
    forged["view"]["tricks"] = [{"leader": 2, "plays": [{"seat": 2, "card": str(next(iter(game.round.hand(2))))}]}]
    with pytest.raises(AssertionError, match="unplayed cards"):
        audit_spectator(server.db, table["id"], [forged])
    forged = copy.deepcopy(c.messages[0])
    forged["view"]["hand"] = []
    with pytest.raises(AssertionError):
        audit_spectator(server.db, table["id"], [forged])


def test_a_spectator_cannot_act_and_nothing_changes(server: ServerProcess) -> None:
    """R7 and the issue: a connection acts only for its own seat; a spectator has none."""
    table = four_humans(server)

    async def main() -> None:
        clients = await seat_all(server, table)
        a = clients[0]
        spy, _ = await watch(server, table["id"])
        # Presence: spectators are counted, never listed as online seats.
        for c in clients:
            pres = await c.wait(lambda m: m["type"] == "presence" and m["spectators"] == 1)
            assert pres["online"] == [0, 1, 2, 3]
        before = await sync(a)
        assert before["table"]["online"] == [0, 1, 2, 3] and before["table"]["spectators"] == 1
        seq, hand = before["seq"], before["view"]["hand"]
        watched = await sync(spy)
        assert watched["you"] is None and watched["seq"] == seq and watched["reason"] == "resync"
        assert watched["view"] == {k: v for k, v in before["view"].items() if k in PUBLIC_KEYS}

        async def refused(data: Any, code: str) -> dict[str, Any]:
            counts = [len(c.messages) for c in clients]
            err = await spy.request(data, lambda m: m["type"] in ("error", "state"))
            assert err["type"] == "error" and err["code"] == code, err
            await asyncio.sleep(0.02)
            for c, n in zip(clients, counts, strict=True):  # the seats heard nothing
                assert not c.messages[n:], c.messages[n:]
            after = await sync(a)
            assert after["seq"] == seq and after["view"] == before["view"]
            again = await sync(spy)
            assert again["seq"] == seq and again["view"] == watched["view"]
            return err

        err = await refused({"type": "pass", "seq": seq, "cards": hand[:3]}, "not_seated")
        assert "spectators cannot act" in err["message"] and err["seq"] == seq
        await refused({"type": "play", "seq": seq, "card": hand[0]}, "not_seated")
        await refused({"type": "moon", "seq": seq, "choice": "add"}, "not_seated")
        await refused({"type": "hello", "token": "forged-token"}, "bad_token")  # still a spectator
        await refused({"type": "pass", "seq": seq, "cards": hand[:3]}, "not_seated")
        # A seated connection cannot turn spectator (it would keep its seat's messages).
        err = await a.request({"type": "watch"}, lambda m: m["type"] in ("error", "state"))
        assert err["type"] == "error" and err["code"] == "seated"
        # Watching twice is harmless: the public state again, one spectator.
        again = await spy.request({"type": "watch"}, lambda m: m["type"] == "state")
        assert again["you"] is None and again["table"]["spectators"] == 1
        assert db_actions(server.db, table["id"]) == []

        # A spectator may take its seat with the seat's token: then it is that seat.
        token = table["seats"][2]["token"]
        seated = await spy.request({"type": "hello", "token": token}, lambda m: m["type"] == "state")
        assert seated["you"] == 2 and seated["view"]["hand"] and seated["table"]["spectators"] == 0
        ok = await spy.request(
            {"type": "pass", "seq": seated["seq"], "cards": seated["view"]["hand"][:3]},
            lambda m: m["type"] in ("error", "state") and m["seq"] > seq,
        )
        assert ok["type"] == "state" and ok["event"] == {"type": "pass", "seat": 2, "seq": seq + 1}
        for c in [*clients, spy]:
            await c.close()

    asyncio.run(main())


def test_watch_refused_when_disabled_or_unknown_table(server: ServerProcess) -> None:
    private = four_humans(server, spectators=False, listed=True)
    public = four_humans(server, listed=True)
    assert "watch" not in private and private["spectators"] is False
    assert public["watch"].endswith(f"/t/{public['id']}#watch") and public["spectators"] is True
    status, listing = http("GET", server.url + "/api/tables")
    flags = {t["id"]: t["spectators_allowed"] for t in listing["tables"]}
    assert flags[private["id"]] is False and flags[public["id"]] is True
    assert http("GET", f"{server.url}/api/tables/{private['id']}")[1]["spectators_allowed"] is False
    status, err = http("POST", server.url + "/api/tables", {"seats": [{"kind": "human"}] * 4, "spectators": "yes"})
    assert status == 400 and "spectators" in err["error"]

    async def main() -> None:
        c, err = await watch(server, private["id"])
        assert err["type"] == "error" and err["code"] == "no_spectators" and "spectators" in err["message"]
        # Refused: it is no spectator, and the connection is closed with a code and a reason.
        code, reason = await c.closed()
        assert code == CLOSE_POLICY and "does not allow spectators" in reason
        assert [m["type"] for m in c.messages] == ["error"]
        seat = await Client(server, private["id"], private["seats"][0]["token"]).connect()
        assert seat.state is not None and seat.state["table"]["spectators"] == 0
        await seat.close()
        ghost = await Client(server, "nope", None).connect(hello=False)
        err = await ghost.wait(lambda m: True)
        assert err["type"] == "error" and err["code"] == "no_table"
        await ghost.close()

    asyncio.run(main())


def test_a_table_takes_a_bounded_number_of_spectators(server: ServerProcess) -> None:
    table = four_humans(server)

    async def main() -> None:
        crowd = []
        for _ in range(MAX_SPECTATORS):
            c, first = await watch(server, table["id"])
            assert first["type"] == "state", first
            crowd.append(c)
        extra, err = await watch(server, table["id"])
        assert err["type"] == "error" and err["code"] == "spectators_full"
        assert str(MAX_SPECTATORS) in err["message"]
        assert await extra.closed() == (CLOSE_TRY_LATER, err["message"])
        # A seat is no spectator: it still sits down.
        seat = await Client(server, table["id"], table["seats"][0]["token"]).connect()
        assert seat.state is not None and seat.state["table"]["spectators"] == MAX_SPECTATORS
        # One leaves; another may watch.
        await crowd.pop().close()
        await seat.wait(lambda m: m["type"] == "presence" and m["spectators"] == MAX_SPECTATORS - 1)
        extra, st = await watch(server, table["id"])
        assert st["type"] == "state" and st["you"] is None
        for c in [*crowd, extra, seat]:
            await c.close()

    asyncio.run(main())


pg_database = pytest.fixture(scope="module")(module_pg_database)
database = pytest.fixture(params=BACKENDS)(backend_database)


def test_spectators_after_a_kill9_and_restart(database: Database, tmp_path: Path) -> None:
    """A spectator coming back after a restart gets the restored position, and a table without
    spectators still refuses them (the setting is in its stored config); on each backend."""
    db = database
    server = ServerProcess(db, logs=tmp_path).start()
    try:
        table = four_humans(server, target=50)
        closed = four_humans(server, spectators=False)
        rng = random.Random(5)

        async def first_half() -> dict[str, Any]:
            clients = await seat_all(server, table)
            spy, _ = await watch(server, table["id"])
            await play_until(
                clients, rng,
                lambda: clients[0].state is not None and clients[0].state["view"]["phase"] == "playing"
                and len(clients[0].state["view"]["tricks"]) >= 2
                and len(clients[0].state["view"]["trick"]["plays"]) == 2,
                timeout=60,
            )
            await spy.wait(lambda m: m["type"] == "state" and m["seq"] == clients[0].state["seq"])  # type: ignore[index]
            assert spy.state is not None
            return copy.deepcopy(spy.state)

        seen = asyncio.run(first_half())
        server.kill9()
        logged = len(db_actions(db, table["id"]))
        before = db_game(db, table["id"])
        server = ServerProcess(db, port=server.port, logs=tmp_path).start()

        async def second_half() -> None:
            spy, st = await watch(server, table["id"])
            assert st["type"] == "state" and st["you"] is None
            assert st["seq"] == logged >= seen["seq"]
            assert st["view"] == jsonable(View.of(before, 0).public_dict())
            if st["seq"] == seen["seq"]:  # (a play may have been in flight at the kill)
                assert st["view"] == seen["view"]
            assert st["view"]["trick"]["plays"] == [
                {"seat": s, "card": str(x)} for s, x in before.round.current_trick.plays
            ]
            assert st["table"]["totals"] == before.totals and st["table"]["online"] == []
            # The game goes on, and the spectator follows it.
            clients = await seat_all(server, table)
            await play_until(clients, rng, lambda: spy.state is not None and spy.state["seq"] >= seen["seq"] + 6)
            for c in [*clients, spy]:
                await c.close()
            assert audit_spectator(db, table["id"], spy.messages) >= 5
            refused, err = await watch(server, closed["id"])
            assert err["type"] == "error" and err["code"] == "no_spectators"
            await refused.close()

        asyncio.run(second_half())
    finally:
        server.stop()
