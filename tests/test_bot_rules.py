"""Bots that cannot play the rules are refused when the table is set, with the reason (issue 27).

OpenSpiel's ``hearts`` plays 4 players (R1.1) and the moon added to the others (R4.4) only;
``Bot.supports(rules)`` says so, and ``hearts play``, ``hearts tui``, ``make_bot(..., rules=)``,
``check_table``, self-play and the Gymnasium environment refuse such a table before a card is dealt.
"""

from __future__ import annotations

import io

import pytest

from hearts import Rules
from hearts.bots import Bot, RandomBot, check_table, make_bot, register, unregister
from hearts.cli import main
from hearts.errors import HeartsError

OPENSPIEL_MOON = "bot 'openspiel_ismcts' cannot play these rules: moon='shooter_chooses' (OpenSpiel: 'add_to_others')"
OPENSPIEL_FIVE = "bot 'openspiel_ismcts' cannot play these rules: players=5 (OpenSpiel: 4)"


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(""), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_hearts_play_refuses_a_bot_that_cannot_play_the_moon_variant() -> None:
    """R4.4 ``shooter_chooses``: OpenSpiel has no such moon; refused before the first deal."""
    code, out, err = run(["play", "--plain", "--seed", "1", "--bot", "openspiel_ismcts", "-o", "moon=shooter_chooses"])
    assert code == 2 and out == ""
    assert err.startswith(f"hearts play: error: {OPENSPIEL_MOON}")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_hearts_tui_refuses_a_bot_that_cannot_play_five_players() -> None:
    """R1.1: five players; the terminal table used to wait forever for the bots' passes."""
    code, _, err = run(["tui", "--bots", "easy", "openspiel_ismcts:simulations=10", "easy", "easy", "--players", "5"])
    assert code == 2
    refusal = OPENSPIEL_FIVE.replace("openspiel_ismcts", "openspiel_ismcts:simulations=10")
    assert err.strip() == f"hearts tui: error: {refusal} (every bot and its options: hearts tui --help)"


def test_the_same_tables_are_set_when_every_bot_can_play() -> None:
    code, out, err = run(["play", "--plain", "--seed", "1", "--bot", "random", "--players", "5"])
    assert code != 2 and "Hearts · 5 players" in out and "cannot play" not in err  # then the input ends


def test_make_bot_and_check_table_refuse_with_the_reason() -> None:
    with pytest.raises(HeartsError) as info:
        make_bot("openspiel_ismcts", seed=1, rules=Rules(moon="shooter_chooses"))
    assert str(info.value) == OPENSPIEL_MOON
    with pytest.raises(HeartsError, match="players=5"):
        check_table(["hard", "openspiel_ismcts"], Rules(players=5))
    check_table(["hard", "openspiel_ismcts"], Rules())
    assert make_bot("easy", rules=Rules(players=6, moon="shooter_chooses")).name == "heuristic"


class FourOnly(RandomBot):
    """A bot of one's own that plays four players only."""

    @classmethod
    def supports(cls, rules: Rules) -> str | None:
        return None if rules.players == 4 else f"four players only, not {rules.players}"


def test_a_bot_of_ones_own_says_which_rules_it_plays() -> None:
    register("fouronly", FourOnly)
    try:
        with pytest.raises(HeartsError, match=r"^bot 'fouronly' cannot play these rules: four players only, not 3$"):
            check_table(["fouronly"], Rules(players=3))
        assert isinstance(make_bot("fouronly", rules=Rules()), Bot)
        code, _, err = run(["play", "--plain", "--bot", "fouronly", "--players", "3"])
        assert code == 2 and "bot 'fouronly' cannot play these rules: four players only, not 3" in err
    finally:
        unregister("fouronly")


def test_self_play_and_the_gym_environment_refuse_such_tables() -> None:
    pytest.importorskip("numpy")
    from hearts.rl.selfplay import SelfPlayConfig

    with pytest.raises(HeartsError, match="players=3"):
        SelfPlayConfig(("openspiel_ismcts",) * 3, Rules(players=3), rounds=1).check()
    pytest.importorskip("gymnasium")
    from hearts.rl.gym_env import HeartsEnv

    with pytest.raises(HeartsError, match="moon='shooter_chooses'"):
        HeartsEnv(opponents=["random", "random", "openspiel_ismcts"], moon="shooter_chooses")
