"""The web table with a real server on loopback and real WebSocket clients (issue 4).

A full game among four scripted clients, audited for R7: no message to any seat ever holds
another seat's unplayed card; the server's event log replays to the same finished game.
"""

from __future__ import annotations

import asyncio
import copy
import random
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets")

from test_server_support import (  # noqa: E402
    Client,
    ServerProcess,
    cards_in,
    check_public_parts,
    create_table,
    db_events,
    db_rules,
    four_humans,
    http,
    play_until,
    positions_at,
    replay,
    seat_all,
)

from hearts.cards import CardSet  # noqa: E402
from hearts.round import Phase  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    s = ServerProcess(tmp_path_factory.mktemp("server") / "tables.db").start()
    yield s
    s.stop()


def audit_r7(db: Path, table_id: str, clients: list[Client]) -> int:
    """Check every state message against the true position at its seq (RULES.md R7)."""
    checked = 0
    for c in clients:
        assert any(m["type"] == "state" for m in c.messages)
        for m, game, rules in positions_at(db, table_id, c.messages):
            seq, seat = m["seq"], m["you"]
            r = game.round
            passed = r.passed(seat) or CardSet()
            forbidden = CardSet()
            for o in range(rules.players):
                if o != seat:
                    forbidden = forbidden | r.hand(o)
            forbidden = forbidden - passed
            bad = {str(c) for c in forbidden}
            view = m["view"]
            leaked = cards_in(view) & bad
            assert not leaked, f"seat {seat} at seq {seq} was sent others' cards {leaked}"
            own = r.hand(seat) - passed if r.phase is Phase.PASSING else r.hand(seat)
            assert view["hand"] == [str(x) for x in own.sorted_by_suit()]
            check_public_parts(m, game)  # only cards really played, by the seat named
            checked += 1
    return checked


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
    finals = [c.state for c in clients]
    assert all(f is not None and f["view"]["game_over"] for f in finals)
    totals = finals[0]["table"]["totals"]
    assert max(totals) >= 40
    assert all(f["table"]["totals"] == totals for f in finals)  # type: ignore[index]
    # The log replays to the same finished game.
    game = replay(db_rules(server.db, table["id"]), db_events(server.db, table["id"]))
    assert game.is_over and game.totals == totals and list(game.winners or ()) == finals[0]["table"]["winners"]
    assert audit_r7(server.db, table["id"], clients) > 4 * 100
    # The record is published once the game is over.
    status, record = http("GET", f"{server.url}/api/tables/{table['id']}/record")
    assert status == 200 and record["totals"] == totals


def test_the_audit_catches_a_leak(server: ServerProcess) -> None:
    table = four_humans(server)

    async def main() -> Client:
        c = await Client(server, table["id"], table["seats"][0]["token"]).connect()
        await c.close()
        return c

    c = asyncio.run(main())
    assert audit_r7(server.db, table["id"], [c]) == 1
    game = replay(db_rules(server.db, table["id"]), db_events(server.db, table["id"]))
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
        await refused("[1, 2]", "bad_message")
        await refused({"type": "teleport"}, "unknown_type")
        await refused({"no": "type"}, "unknown_type")
        err = await refused({"type": "play", "seq": seq, "card": "2C", "pad": "x" * 5000}, "too_large")
        assert "too large" in err["message"]
        await refused(b"\x00\x01", "bad_json")
        await refused({"type": "play", "card": "2C"}, "bad_message")  # no seq
        await refused({"type": "pass", "seq": seq, "cards": "QS"}, "bad_message")
        await refused({"type": "moon", "seq": seq, "choice": "both"}, "bad_message")
        # Illegal by the rules: playing during the pass, passing cards not held, wrong count.
        err = await refused({"type": "play", "seq": seq, "card": hand[0]}, "illegal")
        assert "passing" in err["message"]
        others = [c for c in CardSet.parse(" ".join(hand)).__class__.full() if str(c) not in hand]
        err = await refused({"type": "pass", "seq": seq, "cards": [str(x) for x in others[:3]]}, "illegal")
        assert "does not hold" in err["message"]
        err = await refused({"type": "pass", "seq": seq, "cards": hand[:2]}, "illegal")
        assert "3 cards" in err["message"]
        await refused({"type": "pass", "seq": seq, "cards": ["ZZ", "QS", "AH"]}, "illegal")
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

        # All pass; a duplicate pass is answered with a resync, not a second pass.
        for c in clients:
            st = c.state
            assert st is not None
            await c.send({"type": "pass", "seq": st["seq"], "cards": st["view"]["hand"][:3]})
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
        events = db_events(server.db, table["id"])
        assert [k for _, k, _, _ in events] == ["deal"] + ["pass"] * 4 + ["play"]

    asyncio.run(main())


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


def test_kill9_mid_game_then_restart_continues_exactly(tmp_path: Path) -> None:
    db = tmp_path / "tables.db"
    server = ServerProcess(db).start()
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
            return [copy.deepcopy(c.state) for c in [*clients, me]]  # type: ignore[misc]

        seen = asyncio.run(first_half())
        server.kill9()
        events_at_kill = db_events(db, table["id"])
        bot_events_at_kill = db_events(db, botty["id"])
        rules = db_rules(db, table["id"])
        before = replay(rules, events_at_kill)
        assert not before.is_over and len(before.rounds) >= 2

        server = ServerProcess(db, port=server.port).start()

        async def second_half() -> list[Client]:
            clients = await seat_all(server, table)
            me = await Client(server, botty["id"], botty["seats"][0]["token"]).connect()
            # Exactly the position of the log: same seq, same hands, same trick, same scores.
            for c, old in zip(clients, seen[:4], strict=False):
                st = c.state
                assert st is not None and st["seq"] == events_at_kill[-1][0]
                assert st["seq"] >= old["seq"]
                if st["seq"] == old["seq"]:
                    assert st["view"] == old["view"] and st["table"]["totals"] == old["table"]["totals"]
                seat = st["you"]
                assert st["view"]["hand"] == [str(x) for x in before.round.hand(seat).sorted_by_suit()]
                assert st["view"]["trick"]["plays"] == [
                    {"seat": s, "card": str(x)} for s, x in before.round.current_trick.plays
                ]
                assert st["table"]["totals"] == before.totals
            assert me.state is not None and me.state["seq"] >= bot_events_at_kill[-1][0]
            await play_until([*clients, me], rng, lambda: False, timeout=120)
            for c in [*clients, me]:
                await c.wait(lambda m: m["type"] == "state" and m["view"]["game_over"], timeout=60)
                await c.close()
            return [*clients, me]

        clients = asyncio.run(second_half())
        events = db_events(db, table["id"])
        assert events[: len(events_at_kill)] == events_at_kill  # the log was only appended to
        uninterrupted = replay(rules, events)
        assert uninterrupted.is_over
        final = clients[0].state
        assert final is not None
        assert final["table"]["totals"] == uninterrupted.totals
        assert final["table"]["history"] == [list(h) for h in uninterrupted.history]
        assert final["table"]["winners"] == list(uninterrupted.winners or ())
        bot_events = db_events(db, botty["id"])
        assert bot_events[: len(bot_events_at_kill)] == bot_events_at_kill
        bot_game = replay(db_rules(db, botty["id"]), bot_events)
        assert bot_game.is_over and clients[-1].state is not None
        assert clients[-1].state["table"]["totals"] == bot_game.totals
    finally:
        server.stop()
