"""``hearts analyze RECORD``: the review of a saved game (text and JSON), from the seats' views
(rule book R7), and its errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from hearts import Game, Rules
from hearts.actions import from_dict
from hearts.bots import make_bot, run_bots
from hearts.cli import main
from hearts.record import GameRecord, Seat, save


@pytest.fixture(scope="module")
def saved_game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Game]:
    """A short finished game: an easy bot at seat 0 against three medium ones."""
    game = Game(Rules(target=30), seed=5)
    specs = ["easy", "medium", "medium", "medium"]
    run_bots(game, {s: make_bot(spec, seed=s) for s, spec in enumerate(specs)})
    path = tmp_path_factory.mktemp("analyze") / "game.json"
    save(
        GameRecord(
            game, [Seat(name, spec) for name, spec in zip(("Ann", "Ben", "Cy", "Di"), specs, strict=True)]
        ),
        path,
    )
    return path, game


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_analyze_prints_a_review_and_writes_json(saved_game: tuple[Path, Game], tmp_path: Path) -> None:
    """The text report names the seat, every trick it played and its verdicts, says that the
    numbers are estimates; the JSON holds every decision of the seat with actions in the codec
    that are the game's own actions (R2, R3)."""
    path, game = saved_game
    target = tmp_path / "review.json"
    code, out, err = run(
        "analyze",
        str(path),
        "--seat",
        "0",
        "--round",
        "1",
        "--budget",
        "60",
        "--json",
        str(target),
        "--no-progress",
        "--ascii",
    )
    assert code == 0, err
    assert "Review of Ann (seat 0), round 1" in out and "Trick 1" in out
    assert "estimates" in out and "standard error" in out
    data = json.loads(target.read_text(encoding="utf-8"))
    decisions = [d for r in data["rounds"] for d in r["decisions"]]
    assert decisions and {r["seat"] for r in data["rounds"]} == {0}
    history = game.history
    for d in decisions:
        chosen = from_dict(d["chosen"])
        assert history[d["index"]] == chosen and chosen.seat == 0
        assert any(from_dict(o["action"]) == chosen for o in d["options"])


def test_analyze_is_reproducible_for_a_seed(saved_game: tuple[Path, Game], tmp_path: Path) -> None:
    """The same seed gives the same review, with one job or two."""
    path, _ = saved_game
    outputs = []
    for jobs in ("1", "2"):
        code, out, err = run(
            "analyze",
            str(path),
            "--seat",
            "1",
            "--round",
            "1",
            "--budget",
            "40",
            "--jobs",
            jobs,
            "--no-progress",
        )
        assert code == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["--seat", "9"], 2, "seat"),
        (["--jobs", "0"], 2, "--jobs"),
        (["--budget", "1"], 2, "budget"),
    ],
)
def test_analyze_refuses_bad_options(
    saved_game: tuple[Path, Game], argv: list[str], code: int, message: str
) -> None:
    """Bad options are one-line usage errors (exit 2) that name the option."""
    path, _ = saved_game
    got, _, err = run("analyze", str(path), "--no-progress", *argv)
    assert got == code and message in err and err.count("\n") == 1, err


def test_analyze_refuses_a_bad_record(tmp_path: Path) -> None:
    """A missing record is a usage error, exit 2 (as everywhere); a forged one is exit 1 with
    the record's error."""
    code, _, err = run("analyze", str(tmp_path / "missing.json"), "--no-progress")
    assert code == 2 and "cannot read record" in err
    forged = tmp_path / "forged.json"
    forged.write_text('{"format": "pyhearts.game", "version": 2}', encoding="utf-8")
    code, _, err = run("analyze", str(forged), "--no-progress")
    assert code == 1 and err == "hearts analyze: error: the record has no 'rules' (an object of rule options)\n"
