"""The service's quick match at the terminal table: :class:`QuickApp` (``hearts tui --quick``).

It asks the service for a quick match on ``/ws/lobby/quick`` (``quick`` with the player's key;
:class:`~hearts.tui.screens.queue.QueueScreen` shows the wait, the people waiting and the
countdown to the bots; Escape or q sends ``leave``), and once ``seated`` opens the table's
WebSocket (``/ws/{table}``, ``hello`` with the seat's token) and plays there at the same
:class:`~hearts.tui.screens.table.TableScreen` as the local game, driven by a
:class:`~hearts.tui.remote.RemoteTable` (the server's ``state`` and ``event`` messages, R7)
instead of a :class:`~hearts.tui.session.Session`. The moon's choice, the table's clocks, its
chat lines and hints (the server's) are shown; the end shows who won and the totals
(:attr:`QuickApp.final`). A seat left before the end (``ctrl+q``) is kept
(:func:`~hearts.tui.service.keep_seat`): the next run goes back to it (``resume``: ``hello``,
then ``back``). ``docs/protocol.md`` is the protocol.

A failure (no service, a key or profile refused, the service ``unavailable``, a connection
lost) ends the app with exit code 1 and one line, :attr:`QuickApp.failure`, that ``hearts
tui`` prints.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

from hearts.actions import Moon
from hearts.i18n import N_, _
from hearts.mechanics import MoonChoice
from hearts.tui.remote import RemoteTable
from hearts.tui.screens import (
    GameOverScreen,
    HelpScreen,
    InfoScreen,
    MoonScreen,
    QueueScreen,
    TableScreen,
    Waiting,
)
from hearts.tui.service import Service
from hearts.tui.state import TableState
from hearts.tui.words import translate_bindings

FATAL = frozenset({"bad_key", "banned", "at_table", "in_queue", "unavailable", "internal", "bad_token", "no_table",
                   "seat_freed", "timeout", "rate_limited"})
"""The ``error`` codes that end the quick match (the others — an illegal card, a hint out of
turn — are said on the table's line and the game goes on)."""

LEAVE_WAIT = 3.0
"""Seconds to wait for the service's ``left`` after a ``leave`` before going anyway."""

KEEP_ALIVE = 3.0
"""Seconds between the table connection's pings, and the longest wait for each pong: a server
that does not answer (frozen, a hung machine) is given up and the table reached by another
route (``?via=n``, docs/protocol.md), as a server that closes the connection (a restart) is."""

RECONNECTS = 8
"""Attempts in a row to reach the table again (waiting longer each time, up to 5 s) before the
app says the connection failed."""

NETWORK_ERRORS = (OSError, TimeoutError, WebSocketException, ValueError)
"""What a connection to the service may fail with (``ValueError``: an answer that is not JSON)."""


@dataclass(frozen=True)
class QuickRequest:
    """What is asked of the quick match: the player's ``key``, the rule set (``standard``,
    ``omnibus``, ``three`` or ``any``), rated or not, and the seconds before bots fill the
    empty seats (3 to 300)."""

    key: str
    preset: str = "standard"
    rated: bool = False
    fill_after: int = 20

    def message(self) -> dict[str, Any]:
        """The protocol's ``quick`` message."""
        return {"type": "quick", "key": self.key, "preset": self.preset, "rated": self.rated,
                "fill_after": self.fill_after}


class QuickApp(App[int]):
    """A quick match of the ``service`` as ``request`` asks, played at the terminal table."""

    TITLE = "Hearts · quick match"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", N_("Quit"), tooltip=N_("leave the queue, or the table (its stand-in bot plays on)"),
                priority=True),
    ]

    def __init__(
        self,
        service: Service,
        request: QuickRequest,
        *,
        resume: dict[str, Any] | None = None,
        keep: Callable[[dict[str, Any] | None], None] | None = None,
    ) -> None:
        """``resume``: a seat of an unfinished quick table to go back to (instead of queueing);
        ``keep(seated)``: called with the seat the service gives, and ``None`` when its game is
        over (:func:`~hearts.tui.service.keep_seat`)."""
        super().__init__()
        translate_bindings(self)
        self.service = service
        self.request = request
        self.resume = resume
        self._keep = keep or (lambda seated: None)
        self.failure: str | None = None
        """The line the app ended with when it failed (exit code 1)."""
        self.seated: dict[str, Any] | None = None
        """The service's ``seated`` message (the table, the seat, its link)."""
        self.remote = RemoteTable()
        self.final: list[str] = []
        """The end of the game as shown: who won, the totals after each round (the last: the final ones)."""
        self.left = False
        """The person left the queue (and the service said so)."""
        self._queue = QueueScreen(service.base)
        self._table: TableScreen | None = None
        self._quick_ws: Any = None
        self._table_ws: Any = None
        self._moon_asked: int | None = None

    @property
    def table(self) -> TableScreen | None:
        """The card table, once seated."""
        return self._table

    @property
    def queue(self) -> QueueScreen:
        return self._queue

    def on_mount(self) -> None:
        self.push_screen(self._queue)
        self.set_interval(1.0, self._tick)
        self.connect()

    def fail(self, line: str) -> None:
        """End with exit code 1 and ``line`` (:attr:`failure`)."""
        self.failure = line
        self.exit(1, return_code=1)

    # --- the queue ---------------------------------------------------------------------------

    @work(exclusive=True, group="net", exit_on_error=False)
    async def connect(self) -> None:
        """Queue, then play at the table the service seats the person at."""
        try:
            seated = self.resume or await self._wait_for_a_seat()
            if seated is not None:
                self.seated = seated
                self._keep(seated)
                await self._play(seated)
        except NETWORK_ERRORS as e:
            self.fail(f"the connection to {self.service.base} failed: {type(e).__name__}: {e}")

    async def _wait_for_a_seat(self) -> dict[str, Any] | None:
        async with connect(self.service.websocket("/ws/lobby/quick"), open_timeout=10) as ws:
            self._quick_ws = ws
            await ws.send(json.dumps(self.request.message()))
            try:
                async for raw in ws:
                    m = json.loads(raw)
                    kind = m.get("type")
                    if kind == "queued":
                        self._queue.waiting = Waiting.of(m)
                    elif kind == "seated":
                        return dict(m)
                    elif kind == "left":
                        self.left = True
                        self.exit(0, return_code=0)
                        return None
                    elif kind == "error":
                        self.fail(refusal(m))
                        return None
            finally:
                self._quick_ws = None
        self.fail(f"the service at {self.service.base} closed the queue's connection")
        return None

    async def on_queue_screen_leave(self, _: QueueScreen.Leave) -> None:
        await self.leave()

    async def leave(self) -> None:
        """Leave the queue at once (``leave``); the app ends when the service says ``left`` (or
        after :data:`LEAVE_WAIT` seconds)."""
        ws = self._quick_ws
        if ws is None:
            self.exit(0, return_code=0)
            return
        self._queue.say(_("Leaving the queue…"))
        try:
            await ws.send(json.dumps({"type": "leave"}))
        except NETWORK_ERRORS:
            self.exit(0, return_code=0)
            return
        self.set_timer(LEAVE_WAIT, lambda: self.exit(0, return_code=0))

    # --- the table ---------------------------------------------------------------------------

    async def _play(self, seated: dict[str, Any]) -> None:
        """Play at the table until the game is over: a connection that closes (the server
        restarting) or stops answering its pings (:data:`KEEP_ALIVE`) is opened again, by
        another route each time, and the seat taken again with its token."""
        via, tries = 0, 0
        while True:
            url = self.service.websocket(f"/ws/{seated['table']}" + (f"?via={via}" if via else ""))
            try:
                async with connect(url, open_timeout=KEEP_ALIVE, max_size=2**22, ping_interval=KEEP_ALIVE,
                                   ping_timeout=KEEP_ALIVE) as ws:
                    self._table_ws = ws
                    await ws.send(json.dumps({"type": "hello", "token": seated["token"]}))
                    if seated is self.resume or via:
                        await ws.send(json.dumps({"type": "back"}))  # the seat again, if the stand-in took it over
                    await self._send()  # (an action made while reconnecting: one the server had is answered resync)
                    async for raw in ws:
                        tries = 0
                        if not await self._take(json.loads(raw), seated):
                            return
            except (OSError, TimeoutError, WebSocketException) as e:
                if tries >= RECONNECTS:
                    raise
                self.say(_("The connection was lost ({error}); reconnecting…").format(error=type(e).__name__))
            finally:
                self._table_ws = None
            if self.final or self.failure is not None:
                return
            if tries >= RECONNECTS:
                self.fail(f"the service at {self.service.base} closed the table's connection")
                return
            await asyncio.sleep(min(5.0, 0.3 * 2**tries))
            via, tries = via + 1, tries + 1

    async def _take(self, m: dict[str, Any], seated: dict[str, Any]) -> bool:
        """Take one message of the table; False: the game is over, or failed."""
        kind = m.get("type")
        if kind in ("state", "event"):
            if not self.remote.take(m):
                await self._table_ws.send(json.dumps({"type": "sync"}))
                return True
            self._show(seated)
            return not self.final
        if kind == "error":
            if m.get("code") in FATAL:
                self.fail(refusal(m))
                return False
            why = m.get("why")  # a refused card: the rule in words (the server's English, translated here)
            self.say(Text(_(why) if isinstance(why, str) else str(m.get("message", m.get("code"))), style="bold red"))
        elif kind == "chat" and not m.get("history"):
            names = self.remote.names if self.remote.seated else ()
            for line in m.get("lines", []):
                seat = line.get("seat")
                who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
                self.say(Text(f"{who}: ", style="bold") + Text(str(line.get("text", ""))))
        elif kind == "hint":
            self.say(Text(_("Hint: "), style="bold green") + Text(str(m.get("text", ""))))
        return True

    def _show(self, seated: dict[str, Any]) -> None:
        """The position changed: the table (made on the first state), the moon's choice, the end."""
        state = TableState.of(self.remote)
        if self._table is None:
            self._table = TableScreen(state)
            self.switch_screen(self._table)
            words = _("Back at your table: the game goes on.") if seated is self.resume else seated.get("message")
            self.call_after_refresh(self.say, str(words or _("Seated.")))
        else:
            self._table.state = state
        view = state.view
        if view.moon_choice_pending and self._moon_asked != view.round_number:
            self._moon_asked = view.round_number
            moon = MoonScreen(list(state.totals), list(state.names), view.rules.round_points)  # 43 under R4.5
            self.push_screen(moon, self._moon_chosen)
        if view.game_over and not self.final:
            self.final = self.remote.final_lines()
            self._keep(None)
            head, *rest = self.final
            body = Text(head + "\n\n", style="bold") + Text("\n".join(rest))
            self.push_screen(GameOverScreen(body), self._game_over_chosen)

    def _tick(self) -> None:
        """Once a second: the clocks count down."""
        if self._table is not None and self.remote.seated:
            self._table.state = TableState.of(self.remote)

    def say(self, text: str | Text) -> None:
        """A line under the hand (or under the wait)."""
        if self._table is not None:
            self._table.say(text)
        else:
            self._queue.say(text.plain if isinstance(text, Text) else text)

    async def _send(self) -> None:
        """Send the person's actions waiting in the table's outbox."""
        while self.remote.outbox and self._table_ws is not None:
            message = self.remote.outbox.pop(0)
            try:
                await self._table_ws.send(json.dumps(message))
            except NETWORK_ERRORS as e:
                self.fail(f"the connection to {self.service.base} failed: {type(e).__name__}: {e}")
                return

    async def on_table_screen_acted(self, message: TableScreen.Acted) -> None:
        self.remote.apply(message.action)
        await self._send()

    def _moon_chosen(self, choice: MoonChoice | None) -> None:
        if choice is not None and self.remote.view.moon_choice_pending:
            self.remote.apply(Moon(self.remote.view.seat, choice))
            self.run_worker(self._send(), group="send")

    def _game_over_chosen(self, choice: str | None) -> None:
        if choice == "quit":
            self.exit(0, return_code=0)
        elif choice == "new":
            self.say("A new quick match: run hearts tui --quick again.")

    # --- what the table asks -----------------------------------------------------------------

    async def on_table_screen_asked(self, message: TableScreen.Asked) -> None:
        commands: dict[str, Callable[[], Any]] = {
            "help": self.show_help,
            "last_trick": self.show_last_trick,
            "scores": self.show_scores,
        }
        if message.command == "hint":
            if self._table_ws is not None and self.remote.view.my_turn:
                await self._table_ws.send(json.dumps({"type": "hint", "seq": self.remote.seq}))
            else:
                self.say(_("A hint is for your turn."))
        elif message.command in commands:
            commands[message.command]()
        else:
            self.say(_("Not at the service's table: undo, a new game and saving are the local game's."))

    def show_help(self) -> None:
        rows = [(self.get_key_display(b), b.tooltip or b.description)
                for b in (*TableScreen.BINDINGS, *QuickApp.BINDINGS) if isinstance(b, Binding)]
        self.push_screen(HelpScreen(rows))

    def show_last_trick(self) -> None:
        screen = InfoScreen.last_trick(self.remote.view, self.remote.names)
        if screen is None:
            self.say(_("No trick has been completed yet this round."))
        else:
            self.push_screen(screen)

    def show_scores(self) -> None:
        history = self.remote.message["table"]["score_history"] if self.remote.message else []
        self.push_screen(InfoScreen.scores(history, self.remote.view, self.remote.names))

    def action_review(self) -> None:
        """The review of a game of the service is the web's (its replay page)."""
        link = f"{self.service.base}/replay/{self.seated['table']}" if self.seated else "the web"
        self.say(_("The review of this game is on the web: {link}").format(link=link))

    async def action_quit(self) -> None:
        if self._table is None:
            await self.leave()
        else:
            self.exit(0, return_code=0)


def refusal(m: dict[str, Any]) -> str:
    """The one line of a service's ``error`` message.

    >>> refusal({"type": "error", "code": "bad_key", "message": "no player profile has this key"})
    'the service refused (bad_key): no player profile has this key'
    """
    return f"the service refused ({m.get('code')}): {m.get('message', '')}".rstrip(": ")


__all__ = ["QuickApp", "QuickRequest", "refusal"]
