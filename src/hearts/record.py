"""Versioned JSON records of rounds and games: save, load, replay, validate.

A record is the list of events (rules, deals, passes, plays, moon choices) plus the results
they led to. Loading replays every event through the engine, so a forged record (an illegal
play, a wrong score) is refused with a :class:`~hearts.errors.RecordError` naming the event.

>>> import random
>>> from hearts import Game, Rules
>>> game = Game(Rules(target=20), seed=4)
>>> rng = random.Random(4)
>>> while not game.is_over:
...     r = game.round
...     for seat in r.seats_to_pass():
...         game.pass_cards(seat, list(r.hand(seat))[:3])
...     if r.phase.value == "playing":
...         game.play(rng.choice(list(r.legal_plays())))
>>> data = game_to_record(game)
>>> data["format"], data["version"], data["totals"] == game.totals
('pyhearts.game', 1, True)
>>> load_game(data).totals == game.totals
True
>>> data["rounds"][0]["plays"][5] = data["rounds"][0]["plays"][4]
>>> load_game(data)
Traceback (most recent call last):
...
hearts.errors.RecordError: round 0, play 5 (seat ...): ...
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from hearts.cards import Card, CardSet
from hearts.errors import HeartsError, RecordError
from hearts.game import Game
from hearts.round import Phase, Round
from hearts.rules import Rules

VERSION: Final = 1
GAME_FORMAT: Final = "pyhearts.game"
ROUND_FORMAT: Final = "pyhearts.round"


# --- writing -------------------------------------------------------------------------------


def round_events(r: Round) -> dict[str, Any]:
    """The events and result of one round: deal, passes, plays, moon choice, scores."""
    passes = None
    if r.pass_offset:
        passes = [None if (p := r.passed(s)) is None else str(p) for s in range(r.players)]
    result = r.result
    return {
        "deal": [str(h) for h in r.dealt],
        "passes": passes,
        "plays": [str(c) for c in r.plays],
        "moon_choice": result.moon_choice if result and r.rules.moon == "shooter_chooses" else None,
        "scores": list(result.scores) if result else None,
    }


def round_to_record(r: Round) -> dict[str, Any]:
    """A JSON-ready record of a single round."""
    return {
        "format": ROUND_FORMAT,
        "version": VERSION,
        "rules": r.rules.to_dict(),
        "round_number": r.round_number,
        "scores_before": list(r.scores_before),
        **round_events(r),
    }


def game_to_record(game: Game, seats: Sequence[str] | None = None) -> dict[str, Any]:
    """A JSON-ready record of a game, finished or not (the current round included)."""
    n = game.rules.players
    names = list(seats) if seats is not None else [f"Seat {s}" for s in range(n)]
    if len(names) != n or not all(isinstance(x, str) for x in names):
        raise RecordError(f"seats must be {n} names, got {seats!r}")
    return {
        "format": GAME_FORMAT,
        "version": VERSION,
        "rules": game.rules.to_dict(),
        "seats": names,
        "rounds": [round_events(r) for r in game.rounds],
        "totals": list(game.totals),
        "winners": list(game.winners) if game.winners is not None else None,
    }


def dumps(source: Game | Round, seats: Sequence[str] | None = None) -> str:
    """A record as JSON text."""
    data = game_to_record(source, seats) if isinstance(source, Game) else round_to_record(source)
    return json.dumps(data, ensure_ascii=False, indent=1)


def save(source: Game | Round, path: str | Path, seats: Sequence[str] | None = None) -> None:
    """Write a record to a file (UTF-8 JSON)."""
    Path(path).write_text(dumps(source, seats) + "\n", encoding="utf-8")


# --- reading -------------------------------------------------------------------------------


def loads(text: str) -> Game | Round:
    """A game or a round from JSON text, replayed and checked."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"the record is not valid JSON: {e}") from None
    if not isinstance(data, Mapping):
        raise RecordError("the record must be a JSON object")
    fmt = data.get("format")
    if fmt == GAME_FORMAT:
        return load_game(data)
    if fmt == ROUND_FORMAT:
        return load_round(data)
    raise RecordError(f"unknown record format {fmt!r}; expected {GAME_FORMAT!r} or {ROUND_FORMAT!r}")


def load(path: str | Path) -> Game | Round:
    """Read a record file (see :func:`loads`)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"cannot read record {str(path)!r}: {e}") from None
    return loads(text)


def load_round(data: Mapping[str, Any]) -> Round:
    """Replay a round record; every event and the result are checked."""
    _check_header(data, ROUND_FORMAT)
    rules = _rules(data)
    number = _field(data, "round_number", int, "the record")
    before = _field(data, "scores_before", list, "the record")
    deal = _deal(data, rules, "the record")
    try:
        r = Round(rules, deal, round_number=number, scores_before=before)
    except (HeartsError, TypeError) as e:
        raise RecordError(f"the record's deal: {e}") from None
    _replay(data, "the record", r.pass_cards, r.play, r.choose_moon, lambda: r)
    _check_scores(data, r, "the record")
    return r


def load_game(data: Mapping[str, Any]) -> Game:
    """Replay a game record; every event, every round's scores and the totals are checked.

    A record of an unfinished game gives a game ready to go on from where it stopped.
    """
    _check_header(data, GAME_FORMAT)
    rules = _rules(data)
    rounds = _field(data, "rounds", list, "the record")
    if not rounds:
        raise RecordError("the record has no round")
    deals = [_deal(entry, rules, f"round {i}") for i, entry in enumerate(rounds)]
    for i, hands in enumerate(deals):  # a bad later deal is named as such, not as the play before it
        try:
            Round(rules, hands, round_number=i)
        except (HeartsError, TypeError) as e:
            raise RecordError(f"round {i}, deal: {e}") from None
    try:
        game = Game(rules, deals=deals)
    except (HeartsError, TypeError) as e:
        raise RecordError(f"round 0: {e}") from None
    for i, entry in enumerate(rounds):
        where = f"round {i}"
        if len(game.rounds) != i + 1:
            raise RecordError(f"{where}: the game has ended or not reached this round")
        if not isinstance(entry, Mapping):
            raise RecordError(f"{where} must be an object")
        r = game.round
        try:
            _replay(entry, where, game.pass_cards, game.play, game.choose_moon, lambda: game.round)
        except HeartsError as e:  # a deal of a later round that the game refused
            if isinstance(e, RecordError):
                raise
            raise RecordError(f"round {i + 1}: {e}") from None
        _check_scores(entry, r, where)
        if i + 1 < len(rounds) and not r.is_over:
            raise RecordError(f"{where} is not finished but later rounds follow")
    for key, value in (("totals", game.totals), ("winners", game.winners)):
        recorded = data.get(key)
        if recorded is not None and (not isinstance(recorded, list) or recorded != list(value or [])):
            raise RecordError(f"the record's {key} are {recorded!r}; replaying gives {value!r}")
    return game


def _check_header(data: Mapping[str, Any], fmt: str) -> None:
    if not isinstance(data, Mapping):
        raise RecordError("the record must be a JSON object")
    if data.get("format") != fmt:
        raise RecordError(f"the record's format is {data.get('format')!r}, expected {fmt!r}")
    if data.get("version") != VERSION:
        raise RecordError(f"record version {data.get('version')!r} is not supported (only {VERSION})")


def _rules(data: Mapping[str, Any]) -> Rules:
    try:
        return Rules.from_dict(_field(data, "rules", Mapping, "the record"))
    except HeartsError as e:
        raise RecordError(f"the record's rules: {e}") from None


def _field(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise RecordError(f"{where}: {key!r} is missing or not a {kind.__name__}: {value!r}")
    return value


def _deal(entry: Any, rules: Rules, where: str) -> list[int]:
    if not isinstance(entry, Mapping):
        raise RecordError(f"{where} must be an object")
    hands = _field(entry, "deal", list, where)
    try:
        return [_cards(h).mask for h in hands]
    except HeartsError as e:
        raise RecordError(f"{where}, deal: {e}") from None


def _cards(value: Any) -> CardSet:
    if isinstance(value, str):
        return CardSet.parse(value)
    if isinstance(value, list):
        return CardSet(value)
    raise RecordError(f"{value!r} is not a list of cards")


def _replay(
    entry: Mapping[str, Any], where: str, pass_cards: Any, play: Any, choose: Any, current: Any
) -> None:
    passes = entry.get("passes")
    if passes is not None:
        if not isinstance(passes, list):
            raise RecordError(f"{where}: 'passes' must be a list or null")
        for seat, cards in enumerate(passes):
            if cards is None:
                continue
            try:
                pass_cards(seat, _cards(cards))
            except HeartsError as e:
                raise RecordError(f"{where}, pass of seat {seat}: {e}") from None
    plays = entry.get("plays", [])
    if not isinstance(plays, list):
        raise RecordError(f"{where}: 'plays' must be a list of cards")
    for k, text in enumerate(plays):
        seat = current().to_move
        try:
            play(Card.parse(text) if isinstance(text, str) else text)
        except HeartsError as e:
            raise RecordError(f"{where}, play {k} (seat {seat}, {text!r}): {e}") from None
    choice = entry.get("moon_choice")
    r = current()
    if choice is not None and r.phase is Phase.MOON_CHOICE:
        try:
            choose(r.to_move, choice)
        except HeartsError as e:
            raise RecordError(f"{where}, moon choice {choice!r}: {e}") from None


def _check_scores(entry: Mapping[str, Any], r: Round, where: str) -> None:
    recorded = entry.get("scores")
    actual = list(r.result.scores) if r.result else None
    if recorded is not None and recorded != actual:
        raise RecordError(f"{where}: the recorded scores are {recorded!r}; replaying gives {actual!r}")
