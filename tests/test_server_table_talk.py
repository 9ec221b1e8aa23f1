"""The table talk of the web table (issue 15): chat between the players, names chosen from an
invite link, distinct bot names, hints from the search bot, and the rematch — with real server
processes, real WebSocket clients, SQLite and real PostgreSQL (two server processes and a bot
worker: what one process receives reaches the clients of the other through NOTIFY).

Every bad message gets a clear error over the socket and changes nothing (the store and the
table are checked afterwards). Hints are computed from the asking seat's view only (docs/rules.md
R7): the same hint comes from a game whose other hands are shuffled consistently with that view.
"""

from __future__ import annotations

import asyncio
import json
import random
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
    db_new_game,
    db_rows,
    db_seed,
    emptied_pg_url,
    http,
    is_pg,
    logged_soon,
    module_pg_database,
    play_until,
    seat_spread,
    server_pair,
)

from hearts.actions import from_dict  # noqa: E402
from hearts.bots import make_bot  # noqa: E402
from hearts.bots.registry import HINT_BOT  # noqa: E402
from hearts.cards import CardSet  # noqa: E402
from hearts.game import Game  # noqa: E402
from hearts.server.botworker import job_seed  # noqa: E402
from hearts.server.tables import FRIENDLY_NAMES, rematch_id  # noqa: E402
from hearts.view import View  # noqa: E402

pg_database = pytest.fixture(scope="module")(module_pg_database)
database = pytest.fixture(params=BACKENDS)(backend_database)


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path / "tables.db").start()
    yield server
    server.stop()


def errors(client: Client, start: int) -> list[tuple[str, str]]:
    """The (code, message) of the errors a client got from message ``start`` on."""
    return [(m["code"], m["message"]) for m in client.messages[start:] if m["type"] == "error"]


async def refused(client: Client, message: Any, code: str, words: str) -> None:
    """Send ``message``; the client gets an error of ``code`` whose text holds ``words``."""
    error = await client.request(message, lambda m: m["type"] in ("error", "chat", "hint", "rematch"))
    assert error["type"] == "error" and error["code"] == code and words in error["message"], (message, error)


def chat_rows(db: Database, table_id: str) -> list[tuple[Any, ...]]:
    return db_rows(db, "SELECT seat, text FROM table_talk WHERE table_id = ? ORDER BY id", (table_id,))


def seat_names(db: Database, table_id: str) -> list[Any]:
    return [n for (n,) in db_rows(db, "SELECT name FROM seats WHERE table_id = ? ORDER BY seat", (table_id,))]


def table_count(db: Database) -> int:
    ((n,),) = db_rows(db, "SELECT count(*) FROM tables")
    return int(n)


# ---------------------------------------------------------------- bad messages change nothing


def test_bad_chat_names_hints_and_rematches_are_errors_and_change_nothing(sqlite_server: ServerProcess) -> None:
    """Too long, empty, control characters, wrong types, a spectator writing, a name taken or
    invalid, a hint out of turn, a rematch before the end: each an error naming what is wrong;
    the chat log, the names, the table's position and the number of tables stay as they were."""
    server = sqlite_server
    table = create_table(server, [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"},
                                  {"kind": "human"}, {"kind": "human", "name": "Di"}])
    tid, db = table["id"], server.db

    async def main() -> None:
        ann, bob, cy, di = [await Client(server, tid, s["token"]).connect() for s in table["seats"]]
        spy = Client(server, tid, None)
        await spy.connect(hello=False)
        await spy.request({"type": "watch"}, lambda m: m["type"] == "state")
        await spy.wait(lambda m: m["type"] == "chat" and m.get("history"))  # (what follows the welcome)
        before = ann.state
        assert before is not None and before["table"]["unnamed"] == [2] and before["table"]["names"][2] == "Player 3"
        # Chat (at most 200 printable characters; seats only).
        await refused(ann, {"type": "chat", "text": "x" * 201}, "too_long", "at most 200")
        await refused(ann, {"type": "chat", "text": "   "}, "bad_message", "empty")
        await refused(ann, {"type": "chat", "text": "ring\x07ring"}, "bad_message", "control")
        await refused(ann, {"type": "chat", "text": "two\nlines"}, "bad_message", "line breaks")
        await refused(ann, {"type": "chat", "text": 5}, "bad_message", "a string")
        await refused(ann, {"type": "chat"}, "bad_message", "a string")
        await refused(spy, {"type": "chat", "text": "hello"}, "not_seated", "spectators read")
        # Names (the name rules of the lobby; not another seat's).
        await refused(cy, {"type": "name", "name": ""}, "bad_name", "empty")
        await refused(cy, {"type": "name", "name": "C" * 41}, "bad_name", "at most 40")
        await refused(cy, {"type": "name", "name": "C\x00y"}, "bad_name", "printable")
        await refused(cy, {"type": "name", "name": ["Cy"]}, "bad_name", "a name")
        await refused(cy, {"type": "name", "name": "bOB"}, "name_taken", "another player's name")
        await refused(spy, {"type": "name", "name": "Spy"}, "not_seated", "spectators")
        # A hint: a number for seq, and only at one's turn (Ann has passed: she is not to act).
        await refused(ann, {"type": "hint"}, "bad_message", "'seq'")
        await refused(ann, {"type": "hint", "seq": "0"}, "bad_message", "'seq'")
        mark = len(bob.messages)
        await ann.send({"type": "pass", "seq": 0, "cards": before["view"]["hand"][:3]})
        await bob.wait(lambda m: m["type"] == "state" and m["seq"] == 1, start=mark)
        await refused(ann, {"type": "hint", "seq": 1}, "not_your_turn", "your turn")
        # A rematch before the end (and never from a spectator).
        await refused(bob, {"type": "rematch"}, "not_over", "finished game")
        await refused(spy, {"type": "rematch"}, "not_seated", "spectators")
        # Nothing changed: no chat line, the names, the position, the tables.
        assert chat_rows(db, tid) == [] and seat_names(db, tid) == ["Ann", "Bob", None, "Di"]
        assert table_count(db) == 1
        status, facts = http("GET", f"{server.url}/api/tables/{tid}")
        assert status == 200 and facts["seq"] == 1 and facts["names"] == ["Ann", "Bob", "Player 3", "Di"]
        assert not any(m["type"] == "chat" and m["lines"] for c in (ann, bob, cy, di, spy) for m in c.messages)
        # The connections are open and well: a good chat reaches everyone, the spectator too.
        mark = len(spy.messages)
        await ann.send({"type": "chat", "text": "  good luck, all  "})
        for c in (ann, bob, cy, di, spy):
            got = await c.wait(lambda m: m["type"] == "chat" and not m["history"], start=0)
            assert got["lines"][0]["seat"] == 0 and got["lines"][0]["text"] == "good luck, all"
        assert chat_rows(db, tid) == [(0, "good luck, all")]
        # The chat rate (5 per 10 s a connection): beyond it an error, the connection stays open.
        mark = len(bob.messages)
        for i in range(6):
            await bob.send({"type": "chat", "text": f"spam {i}"})
        error = await bob.wait(lambda m: m["type"] == "error", start=mark)
        assert error["code"] == "rate_limited" and "chat" in error["message"]
        await bob.request({"type": "ping"}, lambda m: m["type"] == "pong")
        assert [text for _, text in chat_rows(db, tid)] == ["good luck, all"] + [f"spam {i}" for i in range(5)]
        for c in (ann, bob, cy, di, spy):
            await c.close()

    asyncio.run(main())


def test_bots_get_names_of_their_own_drawn_from_the_seed(sqlite_server: ServerProcess) -> None:
    """Each bot has a friendly name of its own, none a person's (any case), a name typed for a
    bot seat is kept, and the seats' names are distinct; two seats named alike are refused."""
    table = create_table(sqlite_server, [{"kind": "human", "name": "ada"}, {"kind": "bot", "level": "hard"},
                                         {"kind": "bot", "level": "easy", "name": "Robo"}, {"kind": "bot"},
                                         {"kind": "open"}])
    names = [s["name"] for s in table["seats"]]
    assert names[0] == "ada" and names[2] == "Robo" and names[4] == ""
    assert names[1] in FRIENDLY_NAMES and names[3] in FRIENDLY_NAMES and names[1] != names[3]
    assert "Ada" not in names
    status, data = http("POST", sqlite_server.url + "/api/tables",
                        {"seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "name": "ANN"}, {"kind": "bot"}]})
    assert status == 400 and "Seats 1 and 2 are both named “Ann”" in data["error"]


# ---------------------------------------------------------------- hints, on each backend


def shuffled_others(game: Game, seat: int, rng: random.Random) -> Game:
    """The same game but for the hidden cards: the other seats' hands dealt anew among them
    (each keeps its number of cards), so ``seat``'s view is the same."""
    hands = [game.round.hand(s) for s in range(game.rules.players)]
    others = [c for s, h in enumerate(hands) if s != seat for c in h]
    rng.shuffle(others)
    deal = []
    for s, h in enumerate(hands):
        if s == seat:
            deal.append(str(h))
        else:
            deal.append(str(CardSet(others[: len(h)])))
            others = others[len(h):]
    return Game(game.rules, game.seed, deals=[deal])


def test_a_hint_comes_from_the_seats_view_only(database: Database, tmp_path: Path) -> None:
    """A hint at the pass, computed in the server's bot pool (SQLite) or by a bot worker
    (PostgreSQL): the search bot's choice from the seat's view (R7) with the table's hint seed
    — the same as from a game whose other hands are shuffled consistently with that view; asked
    again, the same hint without computing it again; a position the seat has not reached gets a
    resync."""
    server = ServerProcess(database, logs=tmp_path).start()
    worker = WorkerProcess(str(database), tmp_path / "worker.log").start() if is_pg(database) else None
    try:
        table = create_table(server, [{"kind": "human", "name": "Hu"}] + [{"kind": "bot", "level": "easy"}] * 3)
        tid = table["id"]

        async def main() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
            me = await Client(server, tid, table["seats"][0]["token"]).connect()
            await me.wait(lambda m: m["type"] == "state" and m["seq"] == 3)  # the bots have passed; I pass
            ask = {"type": "hint", "seq": 3}
            first = await me.request(ask, lambda m: m["type"] in ("hint", "error"), timeout=30)
            again = await me.request(ask, lambda m: m["type"] in ("hint", "error"), timeout=30)
            stale = await me.request({"type": "hint", "seq": 9}, lambda m: m["type"] in ("state", "error"))
            await me.close()
            return first, again, stale

        first, again, stale = asyncio.run(main())
    finally:
        if worker is not None:
            worker.stop()
        server.stop()
    assert first["type"] == "hint" and first["seq"] == 3, first
    assert again == first
    assert stale["type"] == "state" and stale["reason"] == "resync"
    game = db_new_game(database, tid)
    action = from_dict(first["action"])
    assert action.seat == 0 and set(first["action"]["cards"]) <= {str(c) for c in game.round.hand(0)}
    assert first["text"].startswith("Hint: pass ") and len(first["text"].split()) == 5
    seed = job_seed(db_seed(database, tid), 0, 0)  # (seeded by the decision: the pass phase, begun at 0)
    other = shuffled_others(game, 0, random.Random(3))
    assert other.round.hand(1) != game.round.hand(1)
    assert View.of(other, 0) == View.of(game, 0)
    assert make_bot(HINT_BOT, seed=seed).act(View.of(other, 0)) == action
    if worker is not None:  # computed once, by the bot worker
        assert len(logged_soon(worker, "hint")) == 1
        assert db_rows(database, "SELECT count(*) FROM hint_jobs WHERE table_id = ?", (tid,)) == [(1,)]
    else:  # computed once, in the server's pool
        lines = [json.loads(x) for x in server.log.read_text().splitlines() if x.startswith("{")]
        assert sum(line.get("event") == "hint" for line in lines) == 1


def test_a_hint_at_the_pass_is_given_through_the_others_passes(database: Database, tmp_path: Path) -> None:
    """R2.1: everyone chooses a pass before seeing what they receive, so the others' passes do not
    change a seat's pass, nor its hint. A hint asked at a position another seat's pass has
    since moved on, or that another seat's pass overtakes while it is computed, is still given
    (for the table's position as sent), once per seat and pass phase; a position the seat has not
    reached gets a resync. (They were dropped: the browser said "Thinking about a hint…" for good.)"""
    server = ServerProcess(database, logs=tmp_path).start()
    worker = WorkerProcess(str(database), tmp_path / "worker.log").start() if is_pg(database) else None
    try:
        table = create_table(server, [{"kind": "human", "name": n} for n in ("Ann", "Bob", "Cy", "Di")])
        tid = table["id"]

        def is_answer(m: dict[str, Any]) -> bool:
            return m["type"] in ("hint", "error") or (m["type"] == "state" and m["reason"] == "resync")

        async def main() -> list[dict[str, Any]]:
            ann, bob, cy, di = [await Client(server, tid, s["token"]).connect() for s in table["seats"]]
            for c in (ann, bob, cy, di):
                await c.wait(lambda m: m["type"] == "state" and m["seq"] == 0)

            async def pass_now(c: Client, seq: int) -> None:
                assert c.state is not None
                await c.send({"type": "pass", "seq": seq, "cards": c.state["view"]["hand"][:3]})

            await pass_now(bob, 0)  # Bob passes: Ann asks at the position she saw, now one behind
            await ann.wait(lambda m: m["type"] == "state" and m["seq"] == 1)
            behind = await ann.request({"type": "hint", "seq": 0}, is_answer, timeout=30)
            n = len(cy.messages)
            await cy.send({"type": "hint", "seq": 1})  # Cy asks, and Di's pass comes while it is computed
            await pass_now(di, 1)
            overtaken = await cy.wait(is_answer, start=n, timeout=30)
            again = await ann.request({"type": "hint", "seq": 2}, is_answer, timeout=30)
            ahead = await ann.request({"type": "hint", "seq": 7}, is_answer, timeout=30)
            for c in (ann, bob, cy, di):
                await c.close()
            return [behind, overtaken, again, ahead]

        behind, overtaken, again, ahead = asyncio.run(main())
    finally:
        if worker is not None:
            worker.stop()
        server.stop()
    game = db_new_game(database, tid)
    assert behind["type"] == "hint" and behind["seq"] == 1, behind
    assert behind["action"]["seat"] == 0 and set(behind["action"]["cards"]) <= {str(c) for c in game.round.hand(0)}
    assert overtaken["type"] == "hint" and overtaken["action"]["seat"] == 2, overtaken
    assert again["type"] == "hint" and again["seq"] == 2 and again["action"] == behind["action"], again
    assert ahead["type"] == "state" and ahead["reason"] == "resync", ahead


# ---------------------------------------------------------------- the rematch


async def play_to_the_end(clients: list[Client], rng: random.Random) -> None:
    await play_until(clients, rng, lambda: False, timeout=120)
    for c in clients:
        await c.wait(lambda m: m["type"] == "state" and m["view"]["game_over"], timeout=30)


def test_a_rematch_once_on_sqlite_everyone_told_each_token_opens_its_seat(sqlite_server: ServerProcess) -> None:
    """At the end, two players press "rematch" at once: one new table (the same seats, names,
    bots, rules and options; a new seed), every client — the spectator too — told of it once
    by name; each person's own token opens the same seat there; no token is sent."""
    server = sqlite_server
    table = create_table(server, [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"},
                                  {"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "medium"}],
                         options={"target": 1, "pass_count": 0}, turn_timer=0, spectators=True)
    tid = table["id"]

    async def main() -> list[Client]:
        ann, bob = [await Client(server, tid, s["token"]).connect() for s in table["seats"][:2]]
        spy = Client(server, tid, None)
        await spy.connect(hello=False)
        await spy.request({"type": "watch"}, lambda m: m["type"] == "state")
        await play_to_the_end([ann, bob], random.Random(1))
        await asyncio.gather(ann.send({"type": "rematch"}), bob.send({"type": "rematch"}))
        for c in (ann, bob, spy):
            await c.wait(lambda m: m["type"] == "rematch")
        await asyncio.sleep(0.3)
        again = [await Client(server, rematch_id(tid), s["token"]).connect() for s in table["seats"][:2]]
        for c in again:
            await c.close()
        for c in (ann, bob, spy):
            await c.close()
        return [ann, bob, spy, *again]

    ann, bob, spy, ann2, bob2 = asyncio.run(main())
    new = rematch_id(tid)
    for c in (ann, bob, spy):
        told = [m for m in c.messages if m["type"] == "rematch"]
        assert told and {m["table"] for m in told} == {new}
        assert told[0]["name"] in ("Ann", "Bob") and told[0]["by"] in (0, 1)
        assert "token" not in json.dumps(told)
    assert sum(m["type"] == "rematch" for m in spy.messages) == 1
    rows = db_rows(server.db, "SELECT kind, name, bot, token_hash FROM seats WHERE table_id = ? ORDER BY seat", (tid,))
    assert db_rows(server.db, "SELECT kind, name, bot, token_hash FROM seats WHERE table_id = ? ORDER BY seat",
                   (new,)) == rows
    assert table_count(server.db) == 2 and db_seed(server.db, new) != db_seed(server.db, tid)
    assert ann2.state is not None and ann2.state["you"] == 0 and bob2.state is not None and bob2.state["you"] == 1
    facts = ann2.state["table"]
    assert facts["names"] == [r[1] for r in rows] and facts["target"] == 1 and not ann2.state["view"]["game_over"]


# ---------------------------------------------------------------- across processes (PostgreSQL)


url = pytest.fixture(emptied_pg_url)
pair = pytest.fixture(server_pair)


def test_chat_a_name_and_a_rematch_reach_the_other_process(url: str, pair: list[ServerProcess]) -> None:
    """Two server processes on one PostgreSQL database: a chat line, a name chosen and a rematch
    asked through one process reach the clients of the other (NOTIFY), the spectator too; both
    processes pressing "rematch" at once make one new table."""
    table = create_table(pair[0], [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"},
                                   {"kind": "human"}, {"kind": "human", "name": "Di"}],
                         options={"target": 1, "pass_count": 0})
    tid = table["id"]

    async def main() -> list[Client]:
        clients = await seat_spread(pair, table)  # seats 0 and 2 on process 0, 1 and 3 on process 1
        spy = Client(pair[1], tid, None)
        await spy.connect(hello=False)
        await spy.request({"type": "watch"}, lambda m: m["type"] == "state")
        ann, bob, cy, _ = clients
        await ann.send({"type": "chat", "text": "hi from process 0 ♥"})
        for c in (bob, spy):
            got = await c.wait(lambda m: m["type"] == "chat" and not m["history"])
            assert got["lines"][0]["text"] == "hi from process 0 ♥" and got["lines"][0]["seat"] == 0
        await cy.send({"type": "name", "name": "Cy"})
        for c in (bob, spy):
            st = await c.wait(lambda m: m["type"] == "state" and m["table"]["names"][2] == "Cy")
            assert st["table"]["unnamed"] == []
        await play_to_the_end(clients, random.Random(2))
        await asyncio.gather(ann.send({"type": "rematch"}), bob.send({"type": "rematch"}))
        for c in (*clients, spy):
            await c.wait(lambda m: m["type"] == "rematch", timeout=15)
        # A client connecting later to the finished table hears of the rematch too, and history.
        late = await Client(pair[1], tid, table["seats"][3]["token"]).connect()
        await late.wait(lambda m: m["type"] == "rematch")
        history = await late.wait(lambda m: m["type"] == "chat" and m["history"])
        assert [line["text"] for line in history["lines"]] == ["hi from process 0 ♥"]
        for c in (*clients, spy, late):
            await c.close()
        return [*clients, spy]

    everyone = asyncio.run(main())
    new = rematch_id(tid)
    assert {m["table"] for c in everyone for m in c.messages if m["type"] == "rematch"} == {new}
    assert db_rows(url, "SELECT count(*) FROM tables WHERE config ->> 'rematch_of' = ?", (tid,)) == [(1,)]
    assert seat_names(url, new) == ["Ann", "Bob", "Cy", "Di"]
