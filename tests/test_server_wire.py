"""The WebSocket messages declared once (issue 25 item 3, :mod:`hearts.server.wire`): the
protocol's page is made from the declarations; every message a table sends in a whole game —
each seat's states (R7: its own view), a spectator's, presence, chat, hints, errors — reads
back as its declared type with no field left over; a client message with a field its type does
not declare is refused with ``bad_message``, naming the field, and changes nothing."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

msgspec = pytest.importorskip("msgspec")
pytest.importorskip("starlette")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hearts.actions import to_dict  # noqa: E402
from hearts.server import wire  # noqa: E402
from hearts.server.protocol import ProtocolError, TableRequest, parse_client  # noqa: E402
from hearts.server.storage import open_storage  # noqa: E402
from hearts.server.tables import Connection, Manager  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def test_the_protocol_page_is_made_from_the_declarations() -> None:
    """docs/protocol.md is what ``python -m hearts.server.wire`` writes: regenerate it after
    changing a message."""
    page = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert page == wire.document()
    for message in (*wire.CLIENT_TYPES, "state", "presence", "error", "pong"):
        assert f'{{"type": "{message}"}}' in page


class Wire:
    """A connection to a table in this process whose sent messages are kept as text."""

    def __init__(self) -> None:
        self.conn = Connection(self._send, self._close)

    async def _send(self, text: str) -> None:  # pragma: no cover - no writer runs
        raise AssertionError(text)

    async def _close(self, code: int, reason: str) -> None:  # pragma: no cover
        pass

    def drain(self) -> list[str]:
        out = []
        while not self.conn.queue.empty():
            item = self.conn.queue.get_nowait()
            assert isinstance(item, str)
            out.append(item)
        return out


PRIVATE = frozenset({"seat", "hand", "legal", "must_pass", "pass_to", "pass_from", "passed", "received",
                     "moon_choice_pending"})
"""The fields of a seat's view that only it may see (R7: :meth:`View.private_dict`)."""


class Composed:
    """A client's position as it applies the events to the last state (what the browser does)."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.state: dict[str, Any] | None = None
        self.sizes = {"state": 0, "event": 0}

    def take(self, text: str) -> None:
        m = json.loads(text)
        if m["type"] in self.sizes:
            self.sizes[m["type"]] += len(text)
        if m["type"] == "state":
            self.state = m
        elif m["type"] == "event":
            assert self.state is not None, "an event before any state"
            private = PRIVATE & set(m["view"])
            assert not private if self.seat is None else private <= PRIVATE, m  # R7
            after = wire.apply_event(self.state, m)
            assert after is not None, f"event {m['n']} does not follow {self.state['n']}"
            self.state = after


def test_every_message_of_a_whole_game_is_its_declared_type(tmp_path: Path) -> None:
    """Four seats and a spectator through a game to its end, with a chat line, a name, a
    hint, syncs and an illegal action: each message sent decodes as a declared server message
    (unknown fields refused), a seat's state and events show its own hand only, a spectator's
    none (R7); after every step each client's last state with the events applied is the whole
    state as a sync would give it, and the events are a fraction of the states' size."""

    async def main() -> dict[str, int]:
        store = await open_storage(f"sqlite:///{tmp_path / 'wire.db'}")
        manager = Manager(store, bot_delay=0, bot_workers=1)
        await manager.start()
        kinds: dict[str, int] = {}
        try:
            table, _ = await manager.create(TableRequest.parse({"seats": [{"kind": "human"}] * 4, "target": 40}))
            seats = [Wire() for _ in range(4)]
            for s, w in enumerate(seats):
                await table.attach(w.conn, s)
            spectator = Wire()
            await table.watch(spectator.conn)
            await table.talk.take(seats[0].conn, parse_client('{"type": "chat", "text": "good luck"}'))
            await table.talk.take(seats[1].conn, parse_client('{"type": "name", "name": "Bo"}'))
            wires = [*seats, spectator]
            received: list[list[str]] = [[] for _ in wires]
            clients = [Composed(s) for s in (0, 1, 2, 3, None)]

            def collect() -> None:
                for got, w, client in zip(received, wires, clients, strict=True):
                    texts = w.drain()
                    got.extend(texts)
                    for text in texts:
                        client.take(text)
                    # What the events made of the last state is the whole state as it is now.
                    fresh = Wire()
                    fresh.conn.seat, fresh.conn.spectator = client.seat, client.seat is None
                    now = json.loads(table.messages.snapshot(fresh.conn, "resync"))
                    assert client.state is not None
                    assert {**client.state, "reason": "resync"} == now

            hand = table.game.round.hand(0)
            await table.handle(seats[0].conn, parse_client(json.dumps({"type": "play", "seq": 0, "card": str(min(hand))})))  # type: ignore[arg-type]
            seat = table.game.actors()[0]
            await table.talk.take(seats[seat].conn, parse_client(json.dumps({"type": "hint", "seq": table.seq})))
            thought = time.monotonic() + 120  # the hint, thought in the bot pool (whose processes
            while time.monotonic() < thought:  # may first compile the kernel, on a slow machine)
                collect()
                if any('"type":"hint"' in text for text in received[seat]):
                    break
                await asyncio.sleep(0.05)
            rng = random.Random(4)
            while not table.game.is_over:
                seat = rng.choice(table.game.actors())
                if rng.random() < 0.02:
                    await table.handle(seats[seat].conn, parse_client('{"type": "sync"}'))  # type: ignore[arg-type]
                action = rng.choice(sorted(table.game.legal_actions(seat), key=str))
                message = parse_client(json.dumps({**to_dict(action), "seq": table.seq}))
                await table.handle(seats[seat].conn, message)  # type: ignore[arg-type]
                collect()
            await asyncio.sleep(0.2)
            collect()
            for s, texts in zip([0, 1, 2, 3, None], received, strict=True):
                for text in texts:
                    m = msgspec.json.decode(text, type=wire.ServerMessage)
                    kinds[type(m).__name__] = kinds.get(type(m).__name__, 0) + 1
                    if isinstance(m, wire.State):
                        assert m.you == s
                        assert ("hand" in m.view) is (s is not None)  # R7: a spectator sees no hand
            for client in clients:  # the events carry what changed, a fraction of whole states
                events = sum(1 for text in received[clients.index(client)] if '"type":"event"' in text)
                whole = len(json.dumps(client.state, separators=(",", ":")))
                assert client.sizes["event"] < events * whole / 4, (client.sizes, events, whole)
        finally:
            await manager.shutdown()
            await store.close()
        return kinds

    kinds = asyncio.run(main())
    assert kinds["Event"] > 5 * 52 and kinds["Presence"] >= 5 and kinds["ChatLines"] >= 5
    assert 5 <= kinds["State"] < 20  # a welcome each, and the syncs
    assert kinds["Error"] == 1 and kinds["Hint"] == 1


def test_a_tricks_end_sends_the_trick_that_ended_not_the_rounds_tricks_again(tmp_path: Path) -> None:
    """The event of a play that ends a trick carries that trick alone, in ``more`` (the view's
    list of the round's tricks grew by it), not the round's tricks so far again: the events
    stay small through the round (R3.4: a trick's winner takes it; issue 41's message sizes)."""

    async def main() -> list[dict[str, Any]]:
        store = await open_storage(f"sqlite:///{tmp_path / 'more.db'}")
        manager = Manager(store, bot_delay=0, bot_workers=1)
        await manager.start()
        try:
            table, _ = await manager.create(TableRequest.parse({"seats": [{"kind": "human"}] * 4}))
            seats = [Wire() for _ in range(4)]
            for s, w in enumerate(seats):
                await table.attach(w.conn, s)
            rng = random.Random(7)
            while table.game.round.tricks_played < 3:
                for w in seats:
                    w.drain()
                seat = table.game.actors()[0]
                action = rng.choice(sorted(table.game.legal_actions(seat), key=str))
                await table.handle(seats[seat].conn, parse_client(json.dumps({**to_dict(action), "seq": table.seq})))  # type: ignore[arg-type]
            return [json.loads(w.drain()[-1]) for w in seats]
        finally:
            await manager.shutdown()
            await store.close()

    ended = asyncio.run(main())
    for m in ended:
        assert m["type"] == "event" and "tricks" not in m["view"], m
        (trick,) = m["more"]["tricks"]
        assert len(trick["plays"]) == 4 and trick["winner"] is not None


def _valid(kind: str) -> dict[str, Any]:
    """A well-formed client message of this type."""
    extra: dict[str, Any] = {
        "hello": {"token": "abc"}, "pass": {"seq": 0, "cards": ["2C", "3C", "4C"]}, "play": {"seq": 1, "card": "QS"},
        "moon": {"seq": 2, "choice": "add"}, "chat": {"text": "hi"}, "name": {"name": "Ann"}, "hint": {"seq": 0},
        "mark": {"seat": 1, "kind": "mute"}, "report": {"seat": 1, "reason": "rude"},
    }.get(kind, {})
    return {"type": kind, **extra}


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(wire.CLIENT_TYPES),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12),
    st.one_of(st.integers(-(10**6), 10**6), st.text(max_size=5), st.none(), st.booleans()),
)
def test_a_client_message_with_an_undeclared_field_is_refused_naming_it(kind: str, field: str, value: Any) -> None:
    message = _valid(kind)
    parse_client(json.dumps(message))  # well formed as it is
    if field in message or (field == "seat" and kind in ("pass", "play", "moon")):
        return
    with pytest.raises(ProtocolError) as refused:
        parse_client(json.dumps({**message, field: value}))
    assert refused.value.code == ("bad_name" if kind == "name" else "bad_message")
    assert repr(field) in str(refused.value)


def _careful(raw: str) -> Any:
    """What the careful way makes of a client's text: the message, or the error's code."""
    from hearts.server.protocol import _typed, decode_json

    try:
        data = decode_json(raw)
        return _typed(data["type"], data)
    except ProtocolError as e:
        return e.code


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(["play", "pass", "moon", "sync", "back", "ping"]),
    seq=st.one_of(st.integers(min_value=-10**20, max_value=10**20), st.floats(allow_nan=False), st.text(max_size=3)),
    seat=st.one_of(st.just("absent"), st.none(), st.booleans(), st.text(max_size=2), st.floats(),
                   st.integers(min_value=-10**18, max_value=10**18), st.lists(st.integers(), max_size=2)),
    value=st.one_of(st.text(max_size=4), st.lists(st.text(max_size=3), max_size=4), st.integers()),
    extra=st.booleans(),
)
def test_a_message_of_play_parses_as_the_careful_way_parses_it(
    kind: str, seq: Any, seat: Any, value: Any, extra: bool
) -> None:
    """The messages of play take a quicker way (one typed decoding); whatever a client sends
    as one, the outcome is the careful way's: the same message, or an error of the same code
    (a number longer than the limit, a wrong type, an unknown field)."""
    fields: dict[str, Any] = {"type": kind, "seq": seq}
    if seat != "absent":
        fields["seat"] = seat
    fields[{"play": "card", "pass": "cards", "moon": "choice"}.get(kind, "x")] = value
    if extra:
        fields["unknown"] = 1
    raw = json.dumps(fields)
    try:
        got: Any = parse_client(raw)
    except ProtocolError as e:
        got = e.code
    assert got == _careful(raw)
