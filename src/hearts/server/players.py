"""Player profiles without passwords, "my games", and the replay of a finished game.

A profile is a name and a secret key (``secrets.token_urlsafe(24)``) that the browser keeps
(``localStorage["pyhearts.player"]``, exportable to another browser as a link); the server
stores only the key's hash (:func:`~hearts.server.storage.hash_token`, as for seats'
tokens). A request acts as a profile with ``Authorization: Bearer <key>``, or with the cookie
of a session signed in with a passkey (:mod:`hearts.server.passkeys`; :func:`authenticate`); a
missing or unknown key is refused (401, :class:`Unauthorized`).
A profile's person seats record its id (``SeatRow.player_id``): the seat of a table it made,
an open seat it joined, an invited seat it claimed. That gives its games (:func:`my_games`)
and, at rated tables, its rating (:mod:`hearts.server.ratings`).

:func:`replay_steps` rebuilds a finished game action by action through
:meth:`Game.apply <hearts.game.Game.apply>` (:func:`hearts.record.replay`): every hand at every
step (the game is over: R7 keeps nothing secret any more), the trick, the points taken, and
each round's scores — what the replay viewer (``/replay/{id}``) steps through.

>>> from hearts.rules import Rules
>>> from hearts.server.storage import SeatRow, TableRow
>>> from hearts.bots import RandomBot, run_bots
>>> from hearts.game import Game
>>> game = Game(Rules(target=30), seed=3)
>>> run_bots(game, {s: RandomBot(seed=s) for s in range(4)})
>>> row = TableRow({"rules": Rules(target=30).to_dict()}, 3, True, None)
>>> seats = [SeatRow(s, "bot", f"Bot {s}", "easy", None) for s in range(4)]
>>> data = replay_steps("t1", row, seats, [to_dict(a) for a in game.history])
>>> len(data["steps"]) == len(game.history), data["totals"] == game.totals
(True, True)
>>> data["rounds"][-1]["totals"] == game.totals
True
"""

from __future__ import annotations

import dataclasses
import secrets
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from hearts.actions import Play, to_dict
from hearts.game import Game
from hearts.i18n import languages
from hearts.record import replay
from hearts.round import Phase, Round
from hearts.rules import Rules
from hearts.server.company import check_not_banned
from hearts.server.limits import DEFAULT_LIMITS, Limits, Refused
from hearts.server.protocol import ProtocolError, TableRequest, _Fields
from hearts.server.ratings import DEFAULT_MU, DEFAULT_SIGMA, PROVISIONAL_GAMES, conservative, places, shown
from hearts.server.storage import (
    PlayedTable,
    PlayerRow,
    SeatRow,
    Storage,
    TableRow,
    hash_token,
    load_game,
    new_id,
)
from hearts.server.wire import MAX_TOKEN
from hearts.view import cards_text, trick_dict

MAX_KEY: Final = 128
"""Characters of a key in an ``Authorization`` header (the server makes 32)."""
MY_GAMES: Final = 100
"""The newest tables "my games" lists."""


class Unauthorized(Refused):
    """A request that needs a player profile came without a key, or with one the server does
    not know (HTTP 401, with ``WWW-Authenticate: Bearer``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 401, "bad_key")


@dataclass(frozen=True)
class NameRequest:
    """A profile's name (``POST /api/players``, ``PATCH /api/me``): ``{"name": "Ann"}``,
    checked as seats' names are (printable, at most ``limits.max_name`` characters), and
    required.

    >>> NameRequest.parse({"name": "  Ann "}).name
    'Ann'
    >>> NameRequest.parse({"name": ""})
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: please type a name: what should we call you?
    """

    name: str

    @classmethod
    def parse(cls, data: Any, limits: Limits = DEFAULT_LIMITS) -> NameRequest:
        """Check a request; raises :class:`~hearts.server.protocol.ProtocolError` (400)."""
        name = _Fields(data, "the request", ("name",)).name(limits)
        if name is None:
            raise ProtocolError("please type a name: what should we call you?", "bad_request")
        return cls(name)


GUIDE_STATUSES: Final = ("offered", "on", "done", "skipped")
"""What became of a profile's guided first game: offered (in the lobby), on (at its table),
done (every tip shown) or skipped."""
GUIDE_STEPS: Final = ("pass", "first_trick", "follow", "hearts_broken", "queen", "moon")
"""The guided first game's tips, in the order ``static/guide.js`` shows them."""


@dataclass(frozen=True)
class GuideState:
    """The guided first game of a profile (``static/guide.js``), remembered with the profile so
    that it is offered once wherever the profile signs in: its ``status`` (one of
    :data:`GUIDE_STATUSES`), the ``table`` where it is on (a table's id, or ``None``) and the tips
    ``seen`` (of :data:`GUIDE_STEPS`, each once).

    >>> GuideState.parse({"status": "on", "table": "Ab3_x", "seen": ["pass", "pass", "queen"]})
    GuideState(status='on', table='Ab3_x', seen=('pass', 'queen'))
    >>> GuideState.parse({"status": "later"})
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: the guide: 'status' must be one of offered, on, done, skipped, not 'later'
    >>> GuideState.parse({"status": "on", "seen": ["jokes"]})
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: the guide: 'seen' must be a list of its tips (pass, first_trick, follow, hearts_broken, queen, moon)
    """

    status: str
    table: str | None = None
    seen: tuple[str, ...] = ()

    @classmethod
    def parse(cls, data: Any) -> GuideState:
        """Check a profile's guide (``PATCH /api/me``'s ``guide``, or what the store kept);
        raises :class:`~hearts.server.protocol.ProtocolError` (400)."""
        fields = _Fields(data, "the guide", ("status", "table", "seen"))
        status = fields.get("status", str, "one of " + ", ".join(GUIDE_STATUSES))
        if status not in GUIDE_STATUSES:
            raise ProtocolError(f"the guide: 'status' must be one of {', '.join(GUIDE_STATUSES)}, not {status!r:.40}",
                                "bad_request")
        table = fields.get("table", str, "a table's id")
        if table is not None and not (0 < len(table) <= 64 and all(c.isascii() and (c.isalnum() or c in "_-") for c in table)):
            raise ProtocolError("the guide: 'table' must be a table's id", "bad_request")
        seen = fields.get("seen", list, "a list of its tips", [])
        if not all(isinstance(step, str) and step in GUIDE_STEPS for step in seen):
            raise ProtocolError(f"the guide: 'seen' must be a list of its tips ({', '.join(GUIDE_STEPS)})", "bad_request")
        return cls(status, table, tuple(dict.fromkeys(seen)))

    def to_dict(self) -> dict[str, Any]:
        """The JSON the browser reads and the store keeps: ``{status, table, seen}``."""
        return {"status": self.status, "table": self.table, "seen": list(self.seen)}


@dataclass(frozen=True)
class ProfileChange:
    """``PATCH /api/me``: a new ``name`` (checked as :class:`NameRequest`'s), whether the
    profile's ``chat`` is on (false: it reads no table's chat and writes none), the ``language``
    of its web table (a language offered, :func:`hearts.i18n.languages`; ``""``: the browser's
    own again), what became of its guided first game (``guide``: :class:`GuideState`), or
    several; one of them is required.

    >>> ProfileChange.parse({"chat": False})
    ProfileChange(name=None, chat=False, language=None, guide=None)
    >>> ProfileChange.parse({"guide": {"status": "skipped"}}).guide
    GuideState(status='skipped', table=None, seen=())
    >>> ProfileChange.parse({"language": "de"}).language
    'de'
    >>> ProfileChange.parse({"language": "tlh"})
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: no language 'tlh': one of de, en, es, fr (or "" for the browser's)
    >>> ProfileChange.parse({})
    Traceback (most recent call last):
    ...
    hearts.server.protocol.ProtocolError: please type a name: what should we call you?
    """

    name: str | None
    chat: bool | None
    language: str | None = None
    """A language's code, ``""`` to forget the one chosen, ``None``: unchanged."""
    guide: GuideState | None = None
    """The guided first game's state, ``None``: unchanged."""

    @classmethod
    def parse(cls, data: Any, limits: Limits = DEFAULT_LIMITS) -> ProfileChange:
        """Check a request; raises :class:`~hearts.server.protocol.ProtocolError` (400)."""
        fields = _Fields(data, "the request", ("name", "chat", "language", "guide"))
        chat = fields.get("chat", bool, "true or false")
        language = fields.get("language", str, "a language's code, such as \"de\"")
        if language is not None and language != "" and language not in languages():
            offered = ", ".join(languages())
            raise ProtocolError(f"no language {language[:20]!r}: one of {offered} (or \"\" for the browser's)", "bad_request")
        guide = fields.get("guide", dict, "the guide's {status, table, seen}")
        name = fields.name(limits)
        if name is None and chat is None and language is None and guide is None:
            raise ProtocolError("please type a name: what should we call you?", "bad_request")
        return cls(name, chat, language, None if guide is None else GuideState.parse(guide))


@dataclass(frozen=True)
class ClaimRequest:
    """``POST /api/tables/{id}/claim``: the ``token`` of the seat (its invite link's) that the
    profile takes.

    >>> ClaimRequest.parse({"token": "abc"}).token
    'abc'
    """

    token: str

    @classmethod
    def parse(cls, data: Any) -> ClaimRequest:
        """Check a request; raises :class:`~hearts.server.protocol.ProtocolError` (400)."""
        token = _Fields(data, "the request", ("token",)).get("token", str, "your seat's token (from its invite link)")
        if token is None or not token or len(token) > MAX_TOKEN or not token.isascii():
            raise ProtocolError("the request: 'token' must be your seat's token (from its invite link)", "bad_request")
        return cls(token)


def for_player(request: TableRequest, player: PlayerRow | None) -> tuple[TableRequest, int | None]:
    """A new table's request as made by ``player`` (``None``: no profile), and the seat that
    is the player's: the first person seat (the one the lobby's "Sit down" link opens), which
    takes the profile's name if the request gives it none.

    A ``rated`` table is refused (400) unless everyone at it will have a rating: its maker has
    a profile, sits at its one person seat, and the others are bots (whose ratings are fixed,
    :mod:`hearts.server.ratings`) or open seats (joined with a profile only); an invite link
    could be opened by anyone, profile or not.
    """
    people = [i for i, s in enumerate(request.seats) if s.kind == "human"]
    if request.rated:
        if player is None:
            raise ProtocolError("a rated table needs your player profile: make one first (it takes a name)",
                                "bad_request")
        if len(people) != 1:
            raise ProtocolError(
                "a rated table has one invited person, you: the others are bots, or open seats that people "
                "join with their profiles", "bad_request",
            )
    if player is None or not people:
        return request, None
    mine = people[0]
    if request.seats[mine].name is None:
        seats = list(request.seats)
        seats[mine] = dataclasses.replace(seats[mine], name=player.name)
        request = dataclasses.replace(request, seats=tuple(seats))
    return request, mine


def bearer_key(authorization: str | None) -> str | None:
    """The key of an ``Authorization: Bearer <key>`` header (``None`` without a header);
    :class:`Unauthorized` for a header of another form.

    >>> bearer_key("Bearer abc-123"), bearer_key(None)
    ('abc-123', None)
    """
    if authorization is None:
        return None
    scheme, _, key = authorization.strip().partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key or len(key) > MAX_KEY or not key.isascii() or not key.isprintable():
        raise Unauthorized("the Authorization header must be 'Bearer <your player key>'")
    return key


async def authenticate(store: Storage, authorization: str | None, session: str | None = None) -> PlayerRow:
    """The profile whose key the header holds, else the one signed in by the ``session``
    cookie's secret (:mod:`hearts.server.passkeys`); :class:`Unauthorized` without either, or for
    a key the server does not know."""
    player = await optional_player(store, authorization, session)
    if player is None:
        raise Unauthorized("this needs your player profile: send 'Authorization: Bearer <your player key>', "
                           "or sign in with a passkey")
    return player


async def optional_player(store: Storage, authorization: str | None, session: str | None = None) -> PlayerRow | None:
    """The profile of the header, else of the ``session`` cookie's secret (a session signed
    out or unknown: none), ``None`` without either; :class:`Unauthorized` for an unknown key (a
    request that names a profile acts as it, or is refused),
    :class:`~hearts.server.company.Banned` (403) for a banned profile's, on every process (the
    database is read)."""
    key = bearer_key(authorization)
    if key is not None:
        player = await store.players.player_by_key(hash_token(key))
        if player is None:
            raise Unauthorized("this player key is not known here: import your profile again, or make a new one")
    elif session and len(session) <= MAX_KEY:
        player = await store.passkeys.session_player(hash_token(session))
    else:
        return None
    if player is not None:
        await check_not_banned(store, player.id)
    return player


async def create_player(store: Storage, name: str) -> tuple[PlayerRow, str]:
    """A new profile called ``name``, with the default rating; returns it and its secret key
    (shown once: only its hash is stored)."""
    key = secrets.token_urlsafe(24)
    player = PlayerRow(new_id(9), name, DEFAULT_MU, DEFAULT_SIGMA, 0)
    await store.players.create_player(player.id, player.name, hash_token(key), player.mu, player.sigma)
    return player, key


def rating_dict(mu: float, sigma: float, games: int | None) -> dict[str, Any]:
    """A rating as the API shows it: ``mu``, ``sigma``, the conservative ``rating``
    (``mu - 3 sigma``), the rating as the pages show it (``shown``: a whole number, never
    negative, :func:`~hearts.server.ratings.shown`), whether it is still ``provisional`` (fewer
    than :data:`~hearts.server.ratings.PROVISIONAL_GAMES` rated games) and the rated ``games``
    played (``None``: a bot's fixed rating).

    >>> rating_dict(23.0, 25 / 3, 1)["shown"], rating_dict(23.0, 25 / 3, 1)["provisional"]
    (0, True)
    """
    return {"mu": mu, "sigma": sigma, "rating": conservative(mu, sigma), "shown": shown(mu, sigma),
            "provisional": games is not None and games < PROVISIONAL_GAMES, "games": games}


def profile_dict(player: PlayerRow) -> dict[str, Any]:
    """A profile as others may see it: its ``id``, ``name`` and ``rating`` (never its key)."""
    return {"id": player.id, "name": player.name, "rating": rating_dict(player.mu, player.sigma, player.games)}


async def my_profile(store: Storage, player: PlayerRow) -> dict[str, Any]:
    """``GET /api/me`` (and a passkey's sign-in): the profile (:func:`profile_dict`) and the
    settings remembered with it, which every browser it signs in on follows: whether its
    ``chat`` is on, its web table's ``language`` (``None``: the browser's) and its ``guide``
    (:class:`GuideState`'s dict; ``None``: never offered)."""
    guide = await store.players.guide(player.id)
    return {**profile_dict(player), "chat": await store.players.chat_on(player.id),
            "language": await store.players.language(player.id),
            "guide": None if guide is None else GuideState.parse(guide).to_dict()}


# --- my games --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """Where a table's game stands: each seat's total, the winners (``None`` while it goes
    on), the rounds finished."""

    totals: tuple[int, ...]
    winners: tuple[int, ...] | None
    rounds: int


class Outcomes:
    """The outcome of each table, read from the store (its log replayed); a finished game's is
    kept (it cannot change), at most ``size`` of them."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._finished: OrderedDict[str, Outcome] = OrderedDict()

    async def of(self, store: Storage, table_id: str) -> Outcome | None:
        """The outcome of a table, or ``None`` if it is gone."""
        kept = self._finished.get(table_id)
        if kept is not None:
            self._finished.move_to_end(table_id)
            return kept
        stored = await load_game(store, table_id)
        if stored is None:
            return None
        game = stored.game
        outcome = Outcome(tuple(game.totals), game.winners, len(game.results))
        if game.is_over:
            self._finished[table_id] = outcome
            if len(self._finished) > self.size:
                self._finished.popitem(last=False)
        return outcome


def describe_rules(rules: Rules) -> str:
    """A table's rules in a few words: ``4 players, to 100`` and the options that differ
    from the standard ones.

    >>> describe_rules(Rules(target=50)), describe_rules(Rules(players=3, moon="shooter_chooses"))
    ('4 players, to 50', '3 players, to 100 · moon=shooter_chooses')
    """
    extra = " ".join(p for p in rules.describe().split() if not p.startswith(("players=", "target=")))
    return f"{rules.players} players, to {rules.target}" + (f" · {extra}" if extra else "")


def game_entry(table: PlayedTable, outcome: Outcome, player_id: str) -> dict[str, Any]:
    """One line of "my games": when, the rules, who played, where it stands, and the
    profile's seat, points and place."""
    seat = next(s.seat for s in table.seats if s.player_id == player_id)
    place = places(outcome.totals)
    names = [s.name or f"Seat {s.seat + 1}" for s in table.seats]
    return {
        "id": table.id,
        "created": table.created.isoformat(),
        "rated": bool(table.config.get("rated")),
        "rules": describe_rules(Rules.from_dict(table.config["rules"])),
        "players": [
            {"seat": s.seat, "name": names[s.seat], "kind": s.kind, "bot": s.bot if s.kind == "bot" else None,
             "you": s.seat == seat}
            for s in table.seats
        ],
        "finished": outcome.winners is not None,
        "state": "finished" if outcome.winners is not None else "in progress",
        "rounds": outcome.rounds,
        "totals": list(outcome.totals),
        "seat": seat,
        "points": outcome.totals[seat],
        "place": place[seat],
        "winners": None if outcome.winners is None else [names[w] for w in outcome.winners],
    }


async def my_games(store: Storage, player_id: str, outcomes: Outcomes, limit: int = MY_GAMES) -> list[dict[str, Any]]:
    """``GET /api/me/games``: every table the profile sat at (the newest ``limit``), newest
    first (:func:`game_entry`)."""
    out = []
    for table in await store.players.played_tables(player_id, limit):
        outcome = await outcomes.of(store, table.id)
        if outcome is not None:
            out.append(game_entry(table, outcome, player_id))
    return out


# --- the replay ------------------------------------------------------------------------------


def _hands(r: Round) -> list[list[str]]:
    """Every seat's hand now (while passing, without the cards it has passed)."""
    out = []
    for s in range(r.players):
        hand = r.hand(s)
        passed = r.passed(s) if r.phase is Phase.PASSING else None
        out.append(cards_text(hand - passed if passed is not None else hand) or [])
    return out


def replay_steps(table_id: str, row: TableRow, seats: Sequence[SeatRow], actions: Sequence[Any]) -> dict[str, Any]:
    """``GET /api/tables/{id}/replay``: a finished game, step by step, rebuilt by the engine
    from the table's row (rules, seed, deals) and its logged ``actions`` (codec objects).

    ``steps[i]`` is the position after action ``i`` of the game's history (the index a
    review's decisions name): who acted (``seat``) and what (``action``, in the codec), the
    round and trick it belongs to, the trick as it stands (a play that ends a trick shows it
    whole, with its winner), every seat's hand, the points each took this round, and the
    game's totals. ``rounds[k]`` holds round ``k``'s first and last step, its deal, who passed
    what, and its points, scores and totals once scored. A log that does not replay raises
    :class:`~hearts.errors.RecordError`.
    """
    rules = Rules.from_dict(row.config["rules"])
    game = Game(rules, row.seed, deals=row.deals)
    steps: list[dict[str, Any]] = []
    for i, item in enumerate(actions):
        r = game.round
        before = r.tricks_played
        replay(game, [item], start=i)
        action = game.history[-1]
        trick = None
        if isinstance(action, Play):
            trick = trick_dict(r.tricks[-1] if r.tricks_played > before else r.current_trick)
        steps.append({
            "seat": action.seat,
            "action": to_dict(action),
            "round": r.round_number,
            "trick_number": before if isinstance(action, Play) else None,
            "trick": trick,
            "hands": _hands(r),
            "points_taken": list(r.points_taken),
            "totals": list(game.totals),
        })
    starts = game.round_starts
    rounds = []
    for k, r in enumerate(game.rounds):
        result = r.result
        rounds.append({
            "number": k,
            "start": starts[k],
            "end": (starts[k + 1] if k + 1 < len(starts) else len(steps)) - 1,
            "pass_offset": r.pass_offset,
            "dealt": [cards_text(h) for h in r.dealt],
            "passed": [cards_text(r.passed(s)) for s in range(r.players)],
            "points": None if result is None else list(result.points),
            "scores": None if result is None else list(result.scores),
            "totals": list(game.score_history[k]) if k < len(game.score_history) else None,
            "shooter": None if result is None else result.shooter,
        })
    return {
        "id": table_id,
        "players": rules.players,
        "names": [s.name or f"Seat {s.seat + 1}" for s in seats],
        "bots": [s.bot if s.kind == "bot" else None for s in seats],
        "rules": rules.to_dict(),
        "describe": describe_rules(rules),
        "target": rules.target,
        "rated": bool(row.config.get("rated")),
        "totals": list(game.totals),
        "winners": None if game.winners is None else list(game.winners),
        "rounds": rounds,
        "steps": steps,
    }
