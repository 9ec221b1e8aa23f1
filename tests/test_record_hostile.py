"""Records fed hostile files (issue 27): each is refused with a RecordError before anything is
replayed, and ``hearts replay`` says so in one line (exit code 1, the code of a bad record)
without a traceback. R1.3 (a game's seed), R2.2 (a pass cycle is a list of steps) and R5 (the
totals) are the rules the refusals cite where there is one."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from hearts import Game, RecordError, Rules
from hearts.bots import RandomBot, run_bots
from hearts.cli import main
from hearts.errors import HeartsError, RulesError
from hearts.game import MAX_DIGITS
from hearts.record import (
    MAX_DEPTH,
    MAX_RECORD_BYTES,
    GameRecord,
    Seat,
    dumps,
    from_dict,
    load,
    loads,
    round_to_dict,
)

SEATS = [Seat("Ann"), Seat("Ben", bot="random"), Seat("Cy", bot="random"), Seat("Di", bot="random")]


def finished_game() -> Game:
    game = Game(Rules(target=30), seed=5)
    run_bots(game, {s: RandomBot(seed=s) for s in range(4)})
    return game


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(dumps(GameRecord(finished_game(), SEATS)))
    return data


def replay_cli(tmp_path: Path, text: str | bytes) -> tuple[int, str, str]:
    path = tmp_path / "hostile.json"
    if isinstance(text, str):
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
    else:
        path.write_bytes(text)
    out, err = io.StringIO(), io.StringIO()
    code = main(["replay", str(path)], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def refused_everywhere(tmp_path: Path, text: str, message: str) -> None:
    """``loads`` (text and bytes), ``load`` and ``hearts replay`` refuse ``text`` with ``message``."""
    for given in (text, text.encode("utf-8", "surrogatepass")):
        with pytest.raises(RecordError) as info:
            loads(given)
        assert message in str(info.value)
    code, out, err = replay_cli(tmp_path, text)
    assert code == 1 and out == ""
    assert err.startswith("hearts replay: error: ") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


# --- size: bytes of UTF-8, however the record is given ------------------------------------------


def test_the_size_limit_counts_utf8_bytes_of_text_and_files(tmp_path: Path) -> None:
    """6 M three-byte characters: fewer characters than the limit, more bytes."""
    text = '{"format": "pyhearts.game", "pad": "' + "€" * (MAX_RECORD_BYTES // 3 + 10) + '"}'
    assert len(text) < MAX_RECORD_BYTES < len(text.encode("utf-8"))
    with pytest.raises(RecordError, match="longer than 16777216 bytes of UTF-8"):
        loads(text)
    with pytest.raises(RecordError, match="bytes long; at most 16777216 are read"):
        loads(text.encode("utf-8"))
    path = tmp_path / "big.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordError, match="is longer than 16777216 bytes"):
        load(path)
    code, _, err = replay_cli(tmp_path, text)
    assert code == 1 and "longer than 16777216 bytes" in err and len(err.splitlines()) == 1


# --- numbers: whole, and not too long ------------------------------------------------------------


def test_a_5000_digit_seed_is_a_record_error(tmp_path: Path, record: dict[str, Any]) -> None:
    text = json.dumps(record).replace('"seed": 5', '"seed": 1' + "0" * 5000)
    refused_everywhere(tmp_path, text, f"the record holds a number of 5001 digits; at most {MAX_DIGITS}")
    text = json.dumps(record).replace('"seed": 5', '"seed": 1' + "0" * MAX_DIGITS)
    refused_everywhere(tmp_path, text, f"the record holds a number of {MAX_DIGITS + 1} digits; at most {MAX_DIGITS}")
    with pytest.raises(RecordError, match=f"the record's 'seed' holds a number of more than {MAX_DIGITS} digits"):
        from_dict({**record, "seed": 10**5000})  # a mapping made in Python: the same refusal


def test_r1_3_a_game_refuses_a_seed_a_record_could_not_write() -> None:
    with pytest.raises(RulesError, match=r"R1\.3: a game's seed has at most 100 digits, not 5001"):
        Game(Rules(), seed=10**5000)
    with pytest.raises(RulesError, match=r"R5: a starting total has at most 100 digits"):
        Game(Rules(), seed=1, scores=[10**5000, 0, 0, 0])
    game = Game(Rules(), seed=10**MAX_DIGITS - 1)  # the longest seed: saved and loaded again
    loaded = loads(dumps(game))
    assert isinstance(loaded, GameRecord) and loaded.game.seed == 10**MAX_DIGITS - 1


@pytest.mark.parametrize(
    ("key", "value"),
    [("version", 2.0), ("scores", [0.0, 0, 0, 0]), ("totals", None), ("winners", None), ("seed", 5.0)],
)
def test_floats_where_whole_numbers_are_meant_are_refused(
    tmp_path: Path, record: dict[str, Any], key: str, value: object
) -> None:
    """The same for every number: ``2.0`` is not ``2`` (version, start scores, R5 totals, winners)."""
    data = dict(record)
    if value is None:  # the replay's own values, as floats equal to them
        value = [float(x) for x in record[key]]
    data[key] = value
    refused_everywhere(tmp_path, json.dumps(data), f"the record's {key!r} holds")
    with pytest.raises(RecordError, match="a record's numbers are whole numbers"):
        loads(json.dumps(data))


def test_round_scores_as_floats_are_refused(tmp_path: Path) -> None:
    r = finished_game().rounds[0]
    data = round_to_dict(r)
    assert loads(json.dumps(data)) is not None
    data["scores"] = [float(x) for x in data["scores"]]
    refused_everywhere(tmp_path, json.dumps(data), "the record's 'scores' holds")


def test_nan_and_infinity_are_refused(tmp_path: Path, record: dict[str, Any]) -> None:
    text = json.dumps(record).replace('"seed": 5', '"seed": NaN')
    refused_everywhere(tmp_path, text, "the record's 'seed' holds nan")


# --- nesting ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 985])
def test_deep_nesting_is_a_record_error(tmp_path: Path, record: dict[str, Any], depth: int) -> None:
    """A rules value nested just below the JSON parser's limit used to crash building the message."""
    text = json.dumps(record).replace('"moon": "add_to_others"', '"moon": ' + "[" * depth + "]" * depth)
    refused_everywhere(tmp_path, text, f"the record nests deeper than {MAX_DEPTH} arrays and objects")


# --- strings --------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["name", "bot"])
def test_a_lone_surrogate_in_a_seat_is_refused_at_load(tmp_path: Path, record: dict[str, Any], field: str) -> None:
    data = json.loads(json.dumps(record))
    data["seats"][1][field] = "Ben\ud800"
    text = json.dumps(data)  # ensure_ascii: the JSON escape \ud800
    assert "\\ud800" in text
    refused_everywhere(tmp_path, text, "the record's 'seats' holds a string with a lone surrogate")
    with pytest.raises(RecordError, match="lone surrogate"):
        Seat("Ben\ud800") if field == "name" else Seat("Ben", bot="\ud800")


def test_a_lone_surrogate_as_text_is_refused(record: dict[str, Any]) -> None:
    text = json.dumps(record, ensure_ascii=False).replace('"Ann"', '"An\ud800n"')
    with pytest.raises(RecordError, match="lone surrogate"):
        loads(text)


# --- the rules -------------------------------------------------------------------------------------


def test_r2_2_a_json_object_as_pass_cycle_is_refused(tmp_path: Path, record: dict[str, Any]) -> None:
    data = json.loads(json.dumps(record))
    data["rules"]["pass_cycle"] = {"left": 1, "right": 2, "across": 3, "hold": 4}
    refused_everywhere(tmp_path, json.dumps(data), "R2.2: option 'pass_cycle' is {'left': 1")
    with pytest.raises(RulesError, match="expected a list of steps"):
        Rules(pass_cycle={"left": 1})  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="expected a list of steps"):
        Rules(pass_cycle={"left", "hold"})  # type: ignore[arg-type]  # a set has no order


# --- bot specs: labels at load, built when the game goes on ----------------------------------------


def test_unknown_bot_specs_load_and_are_refused_when_the_game_is_resumed(tmp_path: Path, record: dict[str, Any]) -> None:
    """The documented behaviour: loading keeps a seat's spec as written (a record may name bots
    of another program); resuming builds the bots and refuses an unknown one with its reason."""
    import hearts.record

    assert "does not build the bot" in (hearts.record.__doc__ or "")
    data = json.loads(json.dumps(record))
    data["seats"][2]["bot"] = "nobody:depth=3"
    data["seats"][3]["bot"] = "theirbots:TheirBot"
    text = json.dumps(data)
    loaded = loads(text)
    assert isinstance(loaded, GameRecord) and loaded.seats[2].bot == "nobody:depth=3"
    assert json.loads(dumps(loaded))["seats"] == data["seats"]  # saved again as written
    code, out, _ = replay_cli(tmp_path, text)
    assert code == 0 and "nobody:depth=3" in out
    pytest.importorskip("textual")
    from hearts.tui.session import Session

    unfinished = Game(Rules(), seed=5)
    seats = [Seat("Ann"), Seat("Ben", bot="random"), Seat("Cy", bot="nobody:depth=3"), Seat("Di", bot="random")]
    path = tmp_path / "unfinished.json"
    path.write_text(dumps(GameRecord(unfinished, seats)), encoding="utf-8")
    with pytest.raises(HeartsError, match="unknown bot 'nobody'"):
        Session.resume(path)
