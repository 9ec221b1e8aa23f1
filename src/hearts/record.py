"""Records of games and rounds: the rules, the seats, the seed, the deals and every action.

A record is what replaying it gives: loading applies every action through
:meth:`Game.apply <hearts.game.Game.apply>`, so a forged record (an illegal play, a wrong score)
is refused with a :class:`~hearts.errors.RecordError` naming the action. Actions are written in
the one codec of :mod:`hearts.actions`, the same text the web server logs and sends.

>>> import random
>>> from hearts import Game, Rules
>>> from hearts.bots import RandomBot, run_bots
>>> game = Game(Rules(target=20), seed=4)
>>> run_bots(game, {s: RandomBot(seed=s) for s in range(4)})
>>> seats = [Seat("Ann"), Seat("Ben", bot="random"), Seat("Cy", bot="random"), Seat("Di", bot="random")]
>>> text = dumps(GameRecord(game, seats))
>>> loaded = loads(text)
>>> loaded.seats[1], loaded.game.seed, loaded.game.totals == game.totals
(Seat(name='Ben', bot='random'), 4, True)
>>> dumps(loaded) == text  # save, load, save: the same bytes
True
>>> loads(text.replace('"card":"', '"card":"x', 1))
Traceback (most recent call last):
...
hearts.errors.RecordError: action 4 ({'type': 'play', 'seat': 1, 'card': 'x2C'}): R1.2: ... 'x2C' is not a card...

**The format** (version 2; :func:`dumps` writes it, UTF-8 JSON): an object with ``format``
(``"pyhearts.game"``), ``version`` (``2``), ``rules`` (every option, :meth:`Rules.to_dict
<hearts.rules.Rules.to_dict>`), ``seed`` (a whole number, or ``null`` for a game shuffled from
a ``random.Random``), ``scores`` (the starting totals), ``seats`` (one ``{"name", "bot"}`` per
seat), ``deals`` (each round's hands), ``actions`` (the codec of :mod:`hearts.actions`),
``totals`` and ``winners`` (checked against the replay). A round record
(``"pyhearts.round"``) has ``round_number``, ``scores_before``, ``deal``, ``actions`` and
``scores``. What a record may not hold, refused with a :class:`~hearts.errors.RecordError`
before anything is replayed:

- more than :data:`MAX_RECORD_BYTES` bytes of UTF-8, whether given as text, bytes or a file;
- arrays and objects nested deeper than :data:`MAX_DEPTH`;
- a fraction (``2.0``, ``NaN``) anywhere: every number of a record is a whole number, and one
  has at most :data:`~hearts.game.MAX_DIGITS` digits (so is a seed, where the game is made);
- a string with a lone surrogate (``"\\ud800"``), which could not be written again;
- a ``pass_cycle`` that is neither a list of steps nor their text (R2.2; a JSON object, a number).

A seat's ``bot`` is the spec the seat was played with, kept as written: loading checks that
it is a string (or ``null`` for a person) and does not build the bot, so a record of bots
this program does not know (registered in another program, a ``MODULE:CLASS`` not on the
path, an installed package's) loads and replays. Building them is the business of whatever
goes on with the game: resuming it (``hearts tui --resume``) makes every seat's bot and refuses
an unknown spec with :func:`~hearts.bots.make_bot`'s message.

>>> loads('{"format": "pyhearts.game", "version": 2.0}')
Traceback (most recent call last):
...
hearts.errors.RecordError: the record's 'version' holds 2.0: a record's numbers are whole numbers
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from hearts.actions import Action, Moon, Pass, Play, to_dict
from hearts.actions import from_dict as action_from_dict
from hearts.cards import CardSet
from hearts.errors import HeartsError, RecordError, RecordFileError
from hearts.game import MAX_DIGITS, Game
from hearts.round import Phase, Round, check_scores, validate_deal
from hearts.rules import Rules

VERSION: Final = 2
"""The version this module writes; version 1 records (per-round events) still load."""
GAME_FORMAT: Final = "pyhearts.game"
ROUND_FORMAT: Final = "pyhearts.round"
MAX_RECORD_BYTES: Final = 16 << 20
"""Longer records (in bytes of UTF-8, however they are given) are refused before they are parsed."""
MAX_DEPTH: Final = 16
"""Arrays and objects nested deeper are refused (a record nests five deep at most)."""
_TOO_DEEP: Final = f"the record nests deeper than {MAX_DEPTH} arrays and objects"


@dataclass(frozen=True)
class Seat:
    """Who sits at a seat: a name, and the bot's spec (``"hard"``, ``"search:iterations=900"``)
    for a bot, ``None`` for a person.

    >>> Seat("East", bot="hard").is_bot
    True
    """

    name: str
    bot: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not (self.bot is None or isinstance(self.bot, str)):
            raise RecordError(f"a seat is a name and a bot spec or null, not {self.name!r:.40}, {self.bot!r:.40}")
        for text in (self.name, self.bot):
            if text is not None and not _encodable(text):
                raise RecordError(f"a seat's name or bot holds a lone surrogate: {text!r:.40}")

    @property
    def is_bot(self) -> bool:
        """True for a bot's seat."""
        return self.bot is not None

    def to_dict(self) -> dict[str, Any]:
        """``{"name": ..., "bot": ...}``."""
        return {"name": self.name, "bot": self.bot}


@dataclass(frozen=True)
class GameRecord:
    """A game and who played it: what a game record holds (the seed is ``game.seed``)."""

    game: Game
    seats: Sequence[Seat]

    def __post_init__(self) -> None:
        n = self.game.rules.players
        seats = tuple(self.seats)
        if len(seats) != n or not all(isinstance(s, Seat) for s in seats):
            raise RecordError(f"a record of {n} players needs {n} seats, got {self.seats!r:.100}")
        object.__setattr__(self, "seats", seats)

    @classmethod
    def unnamed(cls, game: Game) -> GameRecord:
        """A record whose seats are called ``Seat 0`` … (people)."""
        return cls(game, [Seat(f"Seat {s}") for s in range(game.rules.players)])


# --- writing -------------------------------------------------------------------------------


def game_to_dict(source: GameRecord) -> dict[str, Any]:
    """The JSON object of a game record (finished or not; the current round included)."""
    game = source.game
    return {
        "format": GAME_FORMAT,
        "version": VERSION,
        "rules": game.rules.to_dict(),
        "seed": game.seed,
        "scores": list(game.start_scores),
        "seats": [s.to_dict() for s in source.seats],
        "deals": [[str(h) for h in r.dealt] for r in game.rounds],
        "actions": [to_dict(a) for a in game.history],
        "totals": list(game.totals),
        "winners": list(game.winners) if game.winners is not None else None,
    }


def round_to_dict(r: Round, actions: Iterable[Action] | None = None) -> dict[str, Any]:
    """The JSON object of a single round; its actions are rebuilt from the round."""
    return {
        "format": ROUND_FORMAT,
        "version": VERSION,
        "rules": r.rules.to_dict(),
        "round_number": r.round_number,
        "scores_before": list(r.scores_before),
        "deal": [str(h) for h in r.dealt],
        "actions": [to_dict(a) for a in (round_actions(r) if actions is None else actions)],
        "scores": list(r.result.scores) if r.result else None,
    }


def round_actions(r: Round) -> list[Action]:
    """A round's actions in an order that replays it: the passes by seat, then the plays and
    the moon choice."""
    out: list[Action] = []
    for seat in range(r.players):
        passed = r.passed(seat)
        if passed is not None:
            out.append(Pass(seat, passed))
    seat = r.tricks[0].leader if r.tricks else r.current_trick.leader
    for k, card in enumerate(r.plays):
        if k and k % r.players == 0:
            seat = r.tricks[k // r.players - 1].winner  # type: ignore[assignment]
        out.append(Play(seat, card))
        seat = (seat + 1) % r.players
    if r.result is not None and r.result.moon_choice is not None and r.rules.moon == "shooter_chooses":
        out.append(Moon(r.result.shooter, r.result.moon_choice))  # type: ignore[arg-type]
    return out


def dumps(source: GameRecord | Game | Round) -> str:
    """A record as JSON text: one key a line, one action a line (in the actions' codec).

    The text is a function of the game alone, so save → load → save gives the same bytes. A
    bare :class:`Game` is recorded with seats called ``Seat 0`` … (:meth:`GameRecord.unnamed`).

    >>> dumps("a game")
    Traceback (most recent call last):
    ...
    hearts.errors.RecordError: a record is made of a GameRecord, a Game or a Round, not 'a game'
    """
    if isinstance(source, Game):
        source = GameRecord.unnamed(source)
    if isinstance(source, GameRecord):
        data = game_to_dict(source)
    elif isinstance(source, Round):
        data = round_to_dict(source)
    else:
        raise RecordError(f"a record is made of a GameRecord, a Game or a Round, not {source!r:.60}")
    lines = []
    for key, value in data.items():
        if key == "actions":
            body = ",\n  ".join(json.dumps(a, separators=(",", ":")) for a in value)  # the codec's text
            text = f"[\n  {body}\n ]" if body else "[]"
        else:
            text = json.dumps(value, ensure_ascii=False)
        lines.append(f" {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}"


def save(source: GameRecord | Game | Round, path: str | Path) -> None:
    """Write a record to a file (UTF-8 JSON)."""
    Path(path).write_text(dumps(source) + "\n", encoding="utf-8")


# --- reading -------------------------------------------------------------------------------


def loads(text: str | bytes) -> GameRecord | Round:
    """A game record or a round from JSON text, replayed and checked (what a record may not
    hold: the module's docstring).

    >>> loads("[" * 500 + "]" * 500)
    Traceback (most recent call last):
    ...
    hearts.errors.RecordError: the record nests deeper than 16 arrays and objects
    """
    if isinstance(text, str) and (len(text) > MAX_RECORD_BYTES or _utf8_size(text) > MAX_RECORD_BYTES):
        raise RecordError(f"the record is longer than {MAX_RECORD_BYTES} bytes of UTF-8; longer ones are not read")
    if isinstance(text, bytes) and len(text) > MAX_RECORD_BYTES:
        raise RecordError(f"the record is {len(text)} bytes long; at most {MAX_RECORD_BYTES} are read")
    try:
        data = json.loads(text, parse_int=_whole_number)
    except RecursionError:
        raise RecordError(_TOO_DEEP) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RecordError(f"the record is not valid JSON: {e}") from None
    return from_dict(data)


def load(path: str | Path) -> GameRecord | Round:
    """Read a record file (see :func:`loads`): at most :data:`MAX_RECORD_BYTES` of UTF-8. A
    file that cannot be read at all is a :class:`~hearts.errors.RecordFileError`.

    >>> load("/no/such/record.json")
    Traceback (most recent call last):
    ...
    hearts.errors.RecordFileError: cannot read record '/no/such/record.json': No such file or directory
    """
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_RECORD_BYTES + 1)
    except OSError as e:
        raise RecordFileError(f"cannot read record {str(path)!r}: {e.strerror or e}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"record {str(path)!r} is longer than {MAX_RECORD_BYTES} bytes; longer ones are not read")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RecordError(f"cannot read record {str(path)!r}: {e}") from None
    return loads(text)


def from_dict(data: object) -> GameRecord | Round:
    """A game record or a round from its JSON object (version 2, or version 1)."""
    check_values(data)
    if not isinstance(data, Mapping):
        raise RecordError("the record must be a JSON object")
    fmt = data.get("format")
    if fmt not in (GAME_FORMAT, ROUND_FORMAT):
        raise RecordError(f"unknown record format {fmt!r:.40}; expected {GAME_FORMAT!r} or {ROUND_FORMAT!r}")
    version = data.get("version")
    if type(version) is not int or version not in (1, VERSION):
        raise RecordError(f"record version {version!r:.20} is not supported (1 or {VERSION})")
    if fmt == ROUND_FORMAT:
        return _load_round(data, version)
    return _load_game_v1(data) if version == 1 else _load_game(data)


def check_values(data: object) -> None:
    """Refuse what no record holds, wherever it is (before anything else is read): nesting
    deeper than :data:`MAX_DEPTH`, a fraction, a whole number of more than
    :data:`~hearts.game.MAX_DIGITS` digits, a string with a lone surrogate.

    >>> check_values({"totals": [1, 2.0]})
    Traceback (most recent call last):
    ...
    hearts.errors.RecordError: the record's 'totals' holds 2.0: a record's numbers are whole numbers
    >>> check_values({"seats": [{"name": "\\ud800", "bot": None}]})
    Traceback (most recent call last):
    ...
    hearts.errors.RecordError: the record's 'seats' holds a string with a lone surrogate: '\\ud800'
    """
    stack: list[tuple[object, int, str]] = [(data, 1, "")]
    while stack:
        value, depth, top = stack.pop()
        where = f"the record's {top!r}" if top else "the record"
        if isinstance(value, (Mapping, list, tuple)):
            if depth > MAX_DEPTH:
                raise RecordError(_TOO_DEEP)
            items = list(value.items()) if isinstance(value, Mapping) else list(enumerate(value))
            for key, item in items:
                if isinstance(key, str) and not _encodable(key):
                    raise RecordError(f"{where} holds a key with a lone surrogate: {key!r:.40}")
                stack.append((item, depth + 1, top or (str(key) if isinstance(value, Mapping) else "")))
        elif isinstance(value, float):
            raise RecordError(f"{where} holds {value!r:.40}: a record's numbers are whole numbers")
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**MAX_DIGITS:
            raise RecordError(f"{where} holds a number of more than {MAX_DIGITS} digits")
        elif isinstance(value, str) and not _encodable(value):
            raise RecordError(f"{where} holds a string with a lone surrogate: {value!r:.40}")


def _whole_number(text: str) -> int:
    """A JSON integer, refused past :data:`~hearts.game.MAX_DIGITS` digits before Python
    converts it (which it refuses past 4,300 digits with a plain ``ValueError``)."""
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise RecordError(f"the record holds a number of {len(text.lstrip('-'))} digits; at most {MAX_DIGITS}")
    return int(text)


def _encodable(text: str) -> bool:
    """False for a string with a lone surrogate (``"\\ud800"``), which UTF-8 cannot write."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def replay(game: Game, actions: Iterable[object], *, start: int = 0) -> Game:
    """Apply actions (objects of the codec, or :data:`~hearts.actions.Action` values) to
    ``game``; the first refused one is a :class:`~hearts.errors.RecordError` naming it."""
    for k, item in enumerate(actions, start):
        try:
            game.apply(item if isinstance(item, (Pass, Play, Moon)) else action_from_dict(item))
        except HeartsError as e:
            raise RecordError(f"action {k} ({_shown(item)}): {e}") from None
    return game


def _load_game(data: Mapping[str, Any]) -> GameRecord:
    rules = _rules(data)
    seed = data.get("seed")
    if seed is not None and type(seed) is not int:
        raise RecordError(f"the record's 'seed' is a whole number or null, not {seed!r:.40}")
    seats = _seats(data, rules)
    deals = [_deal(hands, rules, f"deal {i}") for i, hands in enumerate(_field(data, "deals", list))]
    game = _new_game(rules, seed, deals, data.get("scores"))
    actions = _field(data, "actions", list)
    try:
        replay(game, actions)
    except RecordError:
        scores = data.get("scores")
        if not (game.is_over and isinstance(scores, list) and any(scores)):
            raise
        raise RecordError(_over_early(scores, game, len(actions))) from None
    if len(game.rounds) != len(deals):
        raise RecordError(f"the record has {len(deals)} deals; its actions play {len(game.rounds)} rounds")
    _check_outcome(data, game)
    return GameRecord(game, seats)


def _load_game_v1(data: Mapping[str, Any]) -> GameRecord:
    """Version 1: per-round events (passes by seat, plays, moon choice) and names only."""
    rules = _rules(data)
    rounds = _field(data, "rounds", list)
    if not rounds or not all(isinstance(entry, Mapping) for entry in rounds):
        raise RecordError("the record's 'rounds' must be a non-empty list of objects")
    deals = [_deal(entry.get("deal"), rules, f"round {i}, deal") for i, entry in enumerate(rounds)]
    names = data.get("seats")
    if names is None:
        names = [f"Seat {s}" for s in range(rules.players)]
    if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
        raise RecordError(f"the record's 'seats' must be a list of names, not {names!r:.80}")
    game = _new_game(rules, None, deals, None)
    for i, entry in enumerate(rounds):
        if len(game.rounds) != i + 1:
            raise RecordError(f"round {i}: the game has ended or not reached this round")
        r = game.round
        try:
            _replay_v1_round(game, entry)
        except RecordError as e:
            raise RecordError(f"round {i}, {e}") from None
        _check_round_scores(entry, r, f"round {i}")
        if i + 1 < len(rounds) and not r.is_over:
            raise RecordError(f"round {i} is not finished but later rounds follow")
    _check_outcome(data, game)
    try:
        seats = [Seat(name) for name in names]
        return GameRecord(game, seats)
    except RecordError as e:
        raise RecordError(f"the record's seats: {e}") from None


def _replay_v1_round(game: Game, entry: Mapping[str, Any]) -> None:
    passes = entry.get("passes")
    if passes is not None and not isinstance(passes, list):
        raise RecordError("'passes' must be a list or null")
    actions: list[Action] = []
    for seat, cards in enumerate(passes or []):
        if cards is not None:
            actions.append(_pass_v1(seat, cards))
    replay(game, actions)
    plays = entry.get("plays", [])
    if not isinstance(plays, list):
        raise RecordError("'plays' must be a list of cards")
    for k, card in enumerate(plays):
        mover = game.round.to_move
        if mover is None:
            raise RecordError(f"play {k} ({card!r:.20}): nobody is to play")
        try:
            game.apply(Play(mover, card))
        except HeartsError as e:
            raise RecordError(f"play {k} (seat {mover}, {card!r:.20}): {e}") from None
    choice = entry.get("moon_choice")
    r = game.round
    if choice is not None:
        if r.phase is not Phase.MOON_CHOICE:
            raise RecordError(f"moon choice {choice!r:.20}: R4.4: no moon decision is asked in this round")
        try:
            game.apply(Moon(r.to_move, choice))  # type: ignore[arg-type]
        except HeartsError as e:
            raise RecordError(f"moon choice {choice!r:.20}: {e}") from None


def _pass_v1(seat: int, cards: object) -> Pass:
    try:
        return Pass(seat, _cards(cards))
    except HeartsError as e:
        raise RecordError(f"pass of seat {seat}: {e}") from None


def _load_round(data: Mapping[str, Any], version: int) -> Round:
    rules = _rules(data)
    number = _field(data, "round_number", int)
    try:
        before = check_scores(rules, data.get("scores_before"))
        r = Round(rules, _deal(data.get("deal"), rules, "the deal"), round_number=number, scores_before=before)
    except HeartsError as e:
        raise RecordError(f"the record's round: {e}") from None
    if version == 1:
        game = _RoundAsGame(r)
        _replay_v1_round(game, data)  # type: ignore[arg-type]
    else:
        for k, item in enumerate(_field(data, "actions", list)):
            try:
                r.apply(action_from_dict(item))
            except HeartsError as e:
                raise RecordError(f"action {k} ({_shown(item)}): {e}") from None
    _check_round_scores(data, r, "the record")
    return r


class _RoundAsGame:
    """A round driven like a game (``round``, ``apply``), for replaying version 1 round records."""

    def __init__(self, r: Round) -> None:
        self.round = r
        self.apply = r.apply


def _new_game(rules: Rules, seed: int | None, deals: list[list[int]], scores: object) -> Game:
    """The game a record replays into. A record without a seed (version 1, or a game shuffled
    from a ``random.Random``) stays without one: the rounds after its last are shuffled afresh,
    and saving it again writes ``"seed": null``, as it was read."""
    try:
        return Game(rules, random.Random() if seed is None else seed, deals=deals, scores=check_scores(rules, scores))
    except HeartsError as e:
        raise RecordError(f"the record's game: {e}") from None


def _rules(data: Mapping[str, Any]) -> Rules:
    try:
        return Rules.from_dict(_field(data, "rules", Mapping))
    except HeartsError as e:
        if isinstance(e, RecordError):
            raise
        raise RecordError(f"the record's rules: {e}") from None


def _seats(data: Mapping[str, Any], rules: Rules) -> list[Seat]:
    seats = _field(data, "seats", list)
    if len(seats) != rules.players:
        raise RecordError(f"the record has {len(seats)} seats for {rules.players} players")
    out = []
    for s, entry in enumerate(seats):
        if not isinstance(entry, Mapping) or set(entry) != {"name", "bot"}:
            raise RecordError(f"seat {s} must be an object with 'name' and 'bot', not {entry!r:.80}")
        try:
            out.append(Seat(entry["name"], entry["bot"]))
        except RecordError as e:
            raise RecordError(f"seat {s}: {e}") from None
    return out


_KINDS: Final[dict[type, str]] = {Mapping: "an object", list: "a list", int: "a whole number"}
"""How a field's kind is named to a person (JSON's words)."""
_FIELD_WORDS: Final = {"rules": "an object of rule options"}
"""What some fields hold, in words."""


def _field(data: Mapping[str, Any], key: str, kind: type) -> Any:
    """The field ``key`` of ``data``, of ``kind``: a missing one, or one of another kind, is
    refused in words that say which.

    >>> _field({}, "rules", Mapping)
    Traceback (most recent call last):
    ...
    hearts.errors.RecordError: the record has no 'rules' (an object of rule options)
    >>> _field({"deals": "x"}, "deals", list)
    Traceback (most recent call last):
    ...
    hearts.errors.RecordError: the record's 'deals' is not a list: 'x'
    """
    words = _FIELD_WORDS.get(key, _KINDS.get(kind, kind.__name__))
    if data.get(key) is None:
        raise RecordError(f"the record has no {key!r} ({words})")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise RecordError(f"the record's {key!r} is not {words}: {value!r:.80}")
    return value


def _over_early(scores: list[Any], game: Game, actions: int) -> str:
    """Why a record's actions go on after its game ended (R5.1), when it starts from scores
    that are not zero: those scores, which ended it early."""
    done, more = game.ply, actions - game.ply
    follow = "1 more action follows" if more == 1 else f"{more} more actions follow"
    return (f"the record's 'scores' {scores!r:.80} end the game after round {len(game.rounds)} "
            f"(target {game.rules.target}; totals {list(game.totals)!r:.80}), yet {follow} (from action {done})")


def _deal(hands: object, rules: Rules, where: str) -> list[int]:
    if not isinstance(hands, list):
        raise RecordError(f"{where}: a deal is a list of hands, not {hands!r:.80}")
    try:
        return validate_deal(rules, [_cards(h).mask for h in hands])
    except HeartsError as e:
        raise RecordError(f"{where}: {e}") from None


def _cards(value: object) -> CardSet:
    if isinstance(value, str):
        return CardSet.parse(value)
    if isinstance(value, list) and all(isinstance(c, str) for c in value):
        return CardSet(value)
    raise RecordError(f"{value!r:.60} is not a list of cards")


def _check_round_scores(entry: Mapping[str, Any], r: Round, where: str) -> None:
    recorded = entry.get("scores")
    actual = list(r.result.scores) if r.result else None
    if recorded is not None and recorded != actual:
        raise RecordError(f"{where}: the recorded scores are {recorded!r:.80}; replaying gives {actual!r}")


def _check_outcome(data: Mapping[str, Any], game: Game) -> None:
    for key, value in (("totals", game.totals), ("winners", game.winners)):
        recorded = data.get(key)
        if recorded is not None and (not isinstance(recorded, list) or recorded != list(value or [])):
            raise RecordError(f"the record's {key} are {recorded!r:.80}; replaying gives {value!r}")


def _shown(item: object) -> str:
    return str(item) if isinstance(item, (Pass, Play, Moon)) else f"{item!r:.80}"
