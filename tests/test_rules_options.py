"""Rule options: defaults, presets (R6), validation, serialisation, pass cycles (R2.2), decks (R1.2)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hearts.cards import CARDS, HEARTS, CardSet
from hearts.errors import RulesError
from hearts.rules import OPTION_NAMES, PRESETS, Rules

# R1–R5 defaults as written in the rule book (the option marked **(default)**).
RULES_MD_DEFAULTS: dict[str, Any] = {
    "players": 4,  # R1.1
    "removed_for_three": "two_of_diamonds",  # R1.2
    "pass_count": 3,  # R2.1
    "pass_cycle": None,  # R2.2: the default rotation for the number of players
    "first_lead": "lowest_club",  # R3.1
    "points_on_first_trick": False,  # R3.3
    "must_break_hearts": True,  # R3.4
    "queen_breaks_hearts": True,  # R3.5
    "queen_lead": "anytime",  # R3.6
    "lead_hearts_instead_of_queen": False,  # R3.7
    "jack_of_diamonds": 0,  # R4.2
    "no_tricks_bonus": 0,  # R4.3
    "spade_penalties": False,  # R4.5
    "moon": "add_to_others",  # R4.4
    "target": 100,  # R5.1
    "ties": "play_on",  # R5.2
}


def test_r1_r5_defaults_equal_rules_md() -> None:
    """R1.1–R1.2, R2.1–R2.2, R3.1–R3.7, R4.2–R4.5, R5.1–R5.2: every default as marked in the rule book."""
    rules = Rules()
    assert set(OPTION_NAMES) == set(RULES_MD_DEFAULTS)
    for name, value in RULES_MD_DEFAULTS.items():
        assert getattr(rules, name) == value, name
    assert rules.to_dict() == RULES_MD_DEFAULTS


# --- R6 presets --------------------------------------------------------------------------------

R6_PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "openspiel": {},
    "omnibus": {"jack_of_diamonds": -10},
    "no_queen_break": {"queen_breaks_hearts": False},
    "strict_queen": {"queen_lead": "after_break", "moon": "add_unless_losing"},
    "black_maria": {"players": 3, "removed_for_three": "two_of_clubs", "pass_cycle": ["right"], "spade_penalties": True},
}


@pytest.mark.parametrize("name", sorted(R6_PRESETS))
def test_r6_preset_values(name: str) -> None:
    """R6: each named preset is the defaults plus exactly its listed changes."""
    rules = Rules.preset(name)
    expected = {**RULES_MD_DEFAULTS, **R6_PRESETS[name]}
    assert rules.to_dict() == expected
    assert rules == Rules(**R6_PRESETS[name])


def test_r6_all_listed_presets_exist() -> None:
    """R6: every preset named in the rule book is available by name."""
    assert set(R6_PRESETS) <= set(PRESETS)


def test_r6_openspiel_equals_standard() -> None:
    """R6: `openspiel` equals the defaults (OpenSpiel's hearts defaults)."""
    assert Rules.preset("openspiel") == Rules.preset("standard") == Rules()


def test_r6_preset_with_overrides() -> None:
    """R6: a preset takes option overrides, validated."""
    rules = Rules.preset("omnibus", players=3, moon="shooter_chooses")
    assert (rules.jack_of_diamonds, rules.players, rules.moon) == (-10, 3, "shooter_chooses")
    with pytest.raises(RulesError, match="'moon'"):
        Rules.preset("omnibus", moon="never")
    with pytest.raises(RulesError, match="'bogus'"):
        Rules.preset("omnibus", bogus=1)


def test_r6_unknown_preset_lists_presets() -> None:
    """R6: an unknown preset name is refused, listing the presets."""
    with pytest.raises(RulesError) as ei:
        Rules.preset("black_jack")
    msg = str(ei.value)
    assert "'black_jack'" in msg
    for name in R6_PRESETS:
        assert name in msg


# --- validation --------------------------------------------------------------------------------

BAD_VALUES: list[tuple[str, object, list[str]]] = [
    # (option, impossible value, text the message must show as allowed)
    ("players", 2, ["3..6"]),  # R1.1
    ("players", 7, ["3..6"]),
    ("players", "4", ["3..6"]),
    ("players", 4.0, ["3..6"]),
    ("players", True, ["3..6"]),
    ("pass_count", -1, ["0..12"]),  # R2.1: fewer than a hand
    ("pass_count", 13, ["0..12"]),
    ("pass_count", "3", ["0..12"]),
    ("pass_count", 2.5, ["0..12"]),
    ("first_lead", "highest_club", ["'lowest_club'", "'any_club'"]),  # R3.1
    ("first_lead", None, ["'lowest_club'", "'any_club'"]),
    ("points_on_first_trick", "yes", ["true", "false"]),  # R3.3
    ("points_on_first_trick", 1, ["true", "false"]),
    ("must_break_hearts", None, ["true", "false"]),  # R3.4
    ("must_break_hearts", "false", ["true", "false"]),
    ("queen_breaks_hearts", 0, ["true", "false"]),  # R3.5
    ("queen_lead", "never", ["'anytime'", "'after_break'"]),  # R3.6
    ("lead_hearts_instead_of_queen", "true", ["true", "false"]),  # R3.7
    ("jack_of_diamonds", 27, ["-26..26"]),  # R4.2
    ("jack_of_diamonds", -27, ["-26..26"]),
    ("jack_of_diamonds", "-10", ["-26..26"]),
    ("jack_of_diamonds", -10.0, ["-26..26"]),
    ("no_tricks_bonus", 100, ["-26..26"]),  # R4.3
    ("no_tricks_bonus", False, ["-26..26"]),
    (
        "moon",
        "sometimes",
        ["'add_to_others'", "'subtract_from_self'", "'shooter_chooses'", "'add_unless_losing'"],
    ),  # R4.4
    ("target", 0, ["1..10000"]),  # R5.1
    ("target", -100, ["1..10000"]),
    ("target", 10_001, ["1..10000"]),
    ("target", "100", ["1..10000"]),
    ("ties", "coin_flip", ["'play_on'", "'share'"]),  # R5.2
    ("pass_cycle", [], ["hold"]),  # R2.2
    ("pass_cycle", ["up"], ["left", "right", "across", "hold"]),
    ("pass_cycle", ["left", "sideways"], ["left", "right", "across", "hold"]),
    ("pass_cycle", [4], ["0..3"]),
    ("pass_cycle", [-1], ["0..3"]),
    ("pass_cycle", [1.5], ["left", "right", "across", "hold"]),
    ("pass_cycle", [True], ["left", "right", "across", "hold"]),
    ("pass_cycle", [None], ["left", "right", "across", "hold"]),
    ("pass_cycle", "sideways", ["pass_cycle", "left, right, across, hold"]),  # text, read as --option reads it
    ("pass_cycle", 5, ["pass_cycle"]),
]


@pytest.mark.parametrize(("name", "value", "allowed"), BAD_VALUES)
def test_r1_r5_impossible_value_names_option_and_allowed(
    name: str, value: object, allowed: list[str]
) -> None:
    """R1–R5: an impossible option value raises RulesError naming the option and what is allowed,
    from the constructor and from from_dict alike."""
    for build in (lambda: Rules(**{name: value}), lambda: Rules.from_dict({name: value})):
        with pytest.raises(RulesError) as ei:
            build()
        msg = str(ei.value)
        assert isinstance(ei.value, ValueError)
        assert "pass_cycle" in msg if name == "pass_cycle" else f"'{name}'" in msg
        for text in allowed:
            assert text in msg, (name, value, msg)


@pytest.mark.parametrize(("players", "top"), [(3, 16), (4, 12), (5, 9), (6, 7)])
def test_r2_1_pass_count_range_depends_on_hand_size(players: int, top: int) -> None:
    """R2.1 / R1.2: pass_count is 0 up to one less than a hand."""
    assert Rules(players=players, pass_count=top).pass_count == top
    assert Rules(players=players, pass_count=0).pass_count == 0
    with pytest.raises(RulesError, match=f"'pass_count'.*0..{top}"):
        Rules(players=players, pass_count=top + 1)


@pytest.mark.parametrize("bad", [None, [1, 2], "players=4", 4])
def test_r1_from_dict_needs_a_mapping(bad: object) -> None:
    """R1–R5: rules come from a mapping of option names."""
    with pytest.raises(RulesError):
        Rules.from_dict(bad)  # type: ignore[arg-type]


def test_r1_unknown_option_rejected_from_dict() -> None:
    """R1–R5: an unknown option name is refused, naming it and listing the real ones."""
    with pytest.raises(RulesError) as ei:
        Rules.from_dict({"players": 4, "jokers": 2})
    msg = str(ei.value)
    assert "'jokers'" in msg
    for name in OPTION_NAMES:
        assert name in msg


@pytest.mark.parametrize(
    "assignment", ["jokers=2", "queen=anytime", "pass_direction=left", "deck_mask=5", "lowest_club=0"]
)
def test_r1_unknown_option_rejected_with_options(assignment: str) -> None:
    """R1–R5: with_options refuses unknown names (derived fields are not options either)."""
    with pytest.raises(RulesError) as ei:
        Rules().with_options([assignment])
    assert repr(assignment.split("=")[0]) in str(ei.value)
    assert "pass_count" in str(ei.value)


def test_r1_derived_fields_are_not_options() -> None:
    """R1.2 / R2.2: derived values (deck, offsets, lowest club) cannot be set as options."""
    for name in ("deck_mask", "pass_offsets", "lowest_club"):
        with pytest.raises(RulesError, match=repr(name)):
            Rules.from_dict({name: 0})


def test_r1_with_options_needs_name_equals_value() -> None:
    """R1–R5: text settings are name=value."""
    with pytest.raises(RulesError, match="'players'"):
        Rules().with_options(["players"])


@pytest.mark.parametrize(
    ("assignment", "name", "value"),
    [
        ("players=3", "players", 3),
        ("pass_count=0", "pass_count", 0),
        ("pass-count=2", "pass_count", 2),
        (" moon = shooter_chooses ", "moon", "shooter_chooses"),
        ("jack_of_diamonds=-10", "jack_of_diamonds", -10),
        ("no_tricks_bonus=-5", "no_tricks_bonus", -5),
        ("must_break_hearts=false", "must_break_hearts", False),
        ("must_break_hearts=no", "must_break_hearts", False),
        ("points_on_first_trick=TRUE", "points_on_first_trick", True),
        ("queen_breaks_hearts=off", "queen_breaks_hearts", False),
        ("lead_hearts_instead_of_queen=1", "lead_hearts_instead_of_queen", True),
        ("queen_lead=after_break", "queen_lead", "after_break"),
        ("first_lead=any_club", "first_lead", "any_club"),
        ("target=50", "target", 50),
        ("ties=share", "ties", "share"),
        ("pass_cycle=left,2,hold", "pass_cycle", ("left", 2, "hold")),
        ("pass_cycle=Right, Across", "pass_cycle", ("right", "across")),
        ("pass_cycle=default", "pass_cycle", None),
    ],
)
def test_r1_r5_with_options_parses_text(assignment: str, name: str, value: object) -> None:
    """R1–R5: every option is settable from text (command lines, forms)."""
    rules = Rules().with_options([assignment])
    assert getattr(rules, name) == value


@pytest.mark.parametrize(
    ("assignment", "name"),
    [
        ("players=four", "players"),
        ("players=9", "players"),
        ("must_break_hearts=maybe", "must_break_hearts"),
        ("target=1e3", "target"),
        ("moon=never", "moon"),
        ("pass_cycle=left,up", "pass_cycle"),
        ("jack_of_diamonds=", "jack_of_diamonds"),
    ],
)
def test_r1_r5_with_options_bad_text(assignment: str, name: str) -> None:
    """R1–R5: a bad text value is a RulesError naming the option."""
    with pytest.raises(RulesError) as ei:
        Rules().with_options([assignment])
    assert name in str(ei.value)


def test_r1_rules_are_frozen_and_hashable() -> None:
    """R1–R5: Rules is an immutable value (usable as a key)."""
    rules = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.players = 3  # type: ignore[misc]
    assert hash(Rules(pass_cycle=["left"])) == hash(Rules(pass_cycle=("left",)))
    assert Rules(pass_cycle=["left", 2]).pass_cycle == ("left", 2)
    assert len({Rules(), Rules.preset("standard"), Rules(players=3)}) == 2


def test_r1_replace_validates() -> None:
    """R1–R5: replace builds a validated copy."""
    assert Rules().replace(players=5).players == 5
    with pytest.raises(RulesError, match="'players'"):
        Rules().replace(players=8)
    with pytest.raises(RulesError, match="'nope'"):
        Rules().replace(nope=1)


# --- dict / JSON round trip --------------------------------------------------------------------

option_values = st.fixed_dictionaries(
    {
        "players": st.sampled_from([3, 4, 5, 6]),
        "first_lead": st.sampled_from(["lowest_club", "any_club"]),
        "points_on_first_trick": st.booleans(),
        "must_break_hearts": st.booleans(),
        "queen_breaks_hearts": st.booleans(),
        "queen_lead": st.sampled_from(["anytime", "after_break"]),
        "lead_hearts_instead_of_queen": st.booleans(),
        "jack_of_diamonds": st.integers(-26, 26),
        "no_tricks_bonus": st.integers(-26, 26),
        "moon": st.sampled_from(
            ["add_to_others", "subtract_from_self", "shooter_chooses", "add_unless_losing"]
        ),
        "target": st.integers(1, 10_000),
        "ties": st.sampled_from(["play_on", "share"]),
    }
)


@st.composite
def rules_strategy(draw: st.DrawFn) -> Rules:
    """Any valid Rules."""
    values = draw(option_values)
    n = values["players"]
    values["pass_count"] = draw(st.integers(0, Rules(players=n).hand_size - 1))
    steps = ["left", "right", "hold"] + (["across"] if n % 2 == 0 else [])
    cycle = draw(st.none() | st.lists(st.sampled_from(steps) | st.integers(0, n - 1), min_size=1, max_size=6))
    values["pass_cycle"] = cycle
    return Rules(**values)


@given(rules_strategy())
def test_r1_r5_dict_and_json_round_trip(rules: Rules) -> None:
    """R1–R5: to_dict/from_dict and to_json/from_json give back the same rules."""
    data = rules.to_dict()
    assert list(data) == list(OPTION_NAMES)
    assert Rules.from_dict(data) == rules
    text = rules.to_json()
    assert json.loads(text) == data
    back = Rules.from_json(text)
    assert back == rules
    assert back.pass_offsets == rules.pass_offsets
    assert back.deck_mask == rules.deck_mask


@given(rules_strategy())
def test_r1_r5_text_options_round_trip(rules: Rules) -> None:
    """R1–R5: every option set as name=value text gives the same rules."""
    texts = []
    for name, value in rules.to_dict().items():
        if value is None:
            shown = "default"
        elif isinstance(value, list):
            shown = ",".join(map(str, value))
        elif isinstance(value, bool):
            shown = "true" if value else "false"
        else:
            shown = str(value)
        texts.append(f"{name}={shown}")
    assert Rules().with_options(texts) == rules


@pytest.mark.parametrize("bad", ["not json", "{", "[1, 2]", '"players"', '{"players": 9}', '{"jokers": 1}'])
def test_r1_from_json_bad(bad: str) -> None:
    """R1–R5: bad JSON or bad options are a RulesError."""
    with pytest.raises(RulesError):
        Rules.from_json(bad)


# --- R2.2 pass cycles --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "offsets"),
    [
        (3, [1, 2, 0]),  # left, right, hold
        (4, [1, 3, 2, 0]),  # left, right, across, hold
        (5, [1, 4, 0]),  # left, right, hold
        (6, [1, 5, 3, 0]),  # left, right, across (3 seats on), hold
    ],
)
def test_r2_2_default_cycles(players: int, offsets: list[int]) -> None:
    """R2.2: the default rotation per number of players, repeating (R5.3)."""
    rules = Rules(players=players)
    assert rules.pass_cycle is None
    assert list(rules.pass_offsets) == offsets
    k = len(offsets)
    assert [rules.pass_offset(i) for i in range(3 * k)] == offsets * 3


@pytest.mark.parametrize(
    ("players", "cycle", "offsets"),
    [
        (4, ["hold"], [0]),
        (4, ["across", "left"], [2, 1]),
        (4, [0, 1, 2, 3], [0, 1, 2, 3]),
        (4, ["right", 1, "hold", 2], [3, 1, 0, 2]),
        (3, ["right", "right", 1], [2, 2, 1]),
        (5, [2, 3, "left", "hold"], [2, 3, 1, 0]),
        (5, ["right"], [4]),
        (6, ["across", 2, 4, "right", "hold"], [3, 2, 4, 5, 0]),
    ],
)
def test_r2_2_custom_cycles(players: int, cycle: list[object], offsets: list[int]) -> None:
    """R2.2: a custom pass_cycle of names and integer offsets."""
    rules = Rules(players=players, pass_cycle=cycle)
    assert rules.pass_cycle == tuple(cycle)
    assert list(rules.pass_offsets) == offsets
    assert [rules.pass_offset(i) for i in range(2 * len(offsets))] == offsets * 2


@pytest.mark.parametrize("players", [3, 5])
def test_r2_2_across_refused_for_odd_players(players: int) -> None:
    """R2.2: 'across' needs an even number of players."""
    with pytest.raises(RulesError) as ei:
        Rules(players=players, pass_cycle=["left", "across"])
    assert "across" in str(ei.value) and str(players) in str(ei.value)
    with pytest.raises(RulesError):
        Rules(players=4, pass_cycle=["across"]).replace(players=players)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_r2_2_pass_count_zero_disables_passing(players: int) -> None:
    """R2.2: pass_count = 0 means every round is a hold."""
    rules = Rules(players=players, pass_count=0)
    assert [rules.pass_offset(i) for i in range(8)] == [0] * 8


# --- R1.2 decks --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "removed", "size", "hand", "lowest"),
    [
        (3, "2D", 51, 17, "2C"),
        (4, "", 52, 13, "2C"),
        (5, "2D 2C", 50, 10, "3C"),
        (6, "2D 2C 3C 2S", 48, 8, "4C"),
    ],
)
def test_r1_2_decks_and_r3_1_lowest_club(
    players: int, removed: str, size: int, hand: int, lowest: str
) -> None:
    """R1.2: cards removed per player count, deck and hand sizes; R3.1: the lowest club."""
    rules = Rules(players=players)
    deck = CardSet.from_mask(rules.deck_mask)
    assert CardSet.full() - deck == CardSet.parse(removed)
    assert len(deck) == rules.deck_size == size
    assert rules.hand_size == hand and hand * players == size
    assert str(rules.lowest_club) == lowest
    assert rules.lowest_club in deck
    # All hearts and the Q♠ are always in play: 26 points (R1.2, R4.1).
    assert deck.points == 26
    assert all(c in deck for c in CARDS if c.suit == HEARTS)
    assert "QS" in deck
