"""The strength benchmark's output: the issue fixes its last line, and the OpenSpiel reference
line must report a paired difference that matches both bots' means (tiny budgets here: this
checks the script, not the bots' strength)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


LAST_LINE = re.compile(
    r"^heuristic_vs_random=-?\d+\.\d\d hard_vs_random=-?\d+\.\d\d hard_vs_heuristic=-?\d+\.\d\d "
    r"hard_p95_s=\d+\.\d\d hard_ms=\d+\.\d expert_minus_hard=(-?\d+\.\d\d) expert_p95_s=\d+\.\d\d "
    r"reader_minus_hard=(-?\d+\.\d\d) reader_p95_s=\d+\.\d\d neural_vs_heuristic=\d+\.\d\d neural_ms=\d+\.\d\d$"
)
"""The last line: today's figures, then issue 43's (the reading bot against hard, neural against heuristic bots)."""


def test_strength_last_line_and_reference(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspiel")
    strength = load("strength")
    args = ["--deals-fast", "2", "--deals", "3", "--deals-heuristic", "3", "--jobs", "1", "--hard",
            "search:iterations=40", "--reference-simulations", "40", "--deals-h2h", "2", "--expert",
            "search:iterations=60", "--deals-reader", "2", "--reader", "search:iterations=40,read=1",
            "--deals-neural", "2"]
    assert strength.main(args) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert LAST_LINE.match(lines[-1]), lines[-1]
    reference = next(line for line in lines if line.startswith("reference "))
    match = re.search(r"ismcts_vs_random=(-?\d+\.\d\d) .* hard_minus_ismcts=(-?\d+\.\d\d) \[", reference)
    assert match, reference
    hard = re.search(r"hard_vs_random=(-?\d+\.\d\d)", lines[-1])
    assert hard
    ismcts, diff = float(match.group(1)), float(match.group(2))
    # Every deal is played in all four rotations by both, so the paired mean is the difference of means.
    assert diff == pytest.approx(float(hard.group(1)) - ismcts, abs=0.011)


def test_strength_head_to_head_item(capsys: pytest.CaptureFixture[str]) -> None:
    """``--quick``: the last line as the issue fixes it, and F (``expert_minus_hard``) the
    paired difference of the head-to-head item: two seats each, alternating, both seatings of
    every deal, so F is the difference of the two entrants' means over the same rounds."""
    strength = load("strength")
    assert strength.main(["--quick", "--jobs", "1"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    match = LAST_LINE.match(lines[-1])
    assert match, lines[-1]
    summary = next(line for line in lines if line.startswith("expert_minus_hard="))
    means = re.search(r"expert vs hard\s+(-?\d+\.\d\d)", "\n".join(lines))
    hard = re.search(r"hard there: (-?\d+\.\d\d)", summary)
    assert means and hard
    assert float(match.group(1)) == pytest.approx(float(means.group(1)) - float(hard.group(1)), abs=0.011)
    assert re.search(r"\[-?\d+\.\d\d,-?\d+\.\d\d\] over 3 deals", summary), summary
    reader = next(line for line in lines if line.startswith("reader_minus_hard="))  # issue 43: the same pairing
    reader_mean = re.search(r"reader vs hard\s+(-?\d+\.\d\d)", "\n".join(lines))
    reader_hard = re.search(r"hard there: (-?\d+\.\d\d)", reader)
    assert reader_mean and reader_hard
    assert float(match.group(2)) == pytest.approx(float(reader_mean.group(1)) - float(reader_hard.group(1)), abs=0.011)
    assert re.search(r"\[-?\d+\.\d\d,-?\d+\.\d\d\] over 3 deals", reader), reader


def test_strength_runs_some_items_only(capsys: pytest.CaptureFixture[str]) -> None:
    """``--items 6``: only neural against heuristic bots, and the last line has only its figures."""
    strength = load("strength")
    assert strength.main(["--quick", "--jobs", "1", "--items", "6"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert re.fullmatch(r"neural_vs_heuristic=\d+\.\d\d neural_ms=\d+\.\d\d", lines[-1]), lines[-1]


def test_head_to_head_difference_pairs_the_deals() -> None:
    """The paired difference of a pairwise tournament: per deal, the first entrant's points
    minus the second's, over the same rounds; ``heuristic`` beats ``random`` clearly."""
    from hearts.arena import run_arena
    from hearts.rules import Rules

    strength = load("strength")
    result = run_arena(["heuristic", "random"], Rules(), rounds=30, seed=4, pairwise=True)
    diff, low, high = strength.head_to_head_difference(result)
    assert diff == pytest.approx(result.bots[0].mean - result.bots[1].mean)
    assert low < diff < high < 0


# --- the cluster load benchmark (issue 14) ---------------------------------------------------

CLUSTER_LAST_LINE = re.compile(
    r"^backend=postgresql proxy=(nginx|none) processes=2 tables=2 moves_per_s=\d+ p99_ms=\d+\.\d lost=(\d+)"
    r"( cpu_ms=(\d+\.\d\d) floor_p99_ms=(\d+\.\d) floor_cpu_ms=(\d+\.\d\d) p99_vs_floor=(\d+\.\d\d)"
    r" cpu_vs_floor=(\d+\.\d\d))?$"
)
"""The last line: issue 14's fields, then (issue 41, with the floor) our CPU per action, the floor's
p99 and CPU per action, and the two ratios."""


@pytest.mark.parametrize(("client", "spread"), [("node", "tables"), ("python", "seats")])
def test_cluster_load_last_line_at_a_tiny_size(client: str, spread: str) -> None:
    """``cluster_load.py`` with two server processes and two tables (quick moves): both client
    kinds, and a table's seats on one process (through nginx, the default) or on both (no
    proxy), play every game to its end, every log replays (exit code 0) and nothing is lost;
    the last line is the issue's, and the CPU of each part is reported per action. Through
    nginx the floor (issue 41: ``floor_server.py`` behind the same nginx, the same clients)
    plays its two tables to their end too, and the last line gives its figures and our ratios
    to them (R = p99 / floor p99, S = CPU per action / the floor's); seats spread have no floor."""
    import os
    import subprocess

    pg = os.environ.get("PYHEARTS_TEST_PG")
    if not pg:
        pytest.skip("PYHEARTS_TEST_PG is not set (export PYHEARTS_TEST_PG=$(scripts/postgres.sh))")
    import shutil

    if spread == "tables" and not (shutil.which("nginx") or os.access("/usr/sbin/nginx", os.X_OK)):
        pytest.skip("nginx is not installed (scripts/test.sh installs it as root)")
    if client == "node" and not (shutil.which("node") and (ROOT / ".venv" / "npm" / "node_modules" / "ws").is_dir()):
        pytest.skip("Node.js or its ws package is missing (npm install --prefix .venv/npm --no-save ws@8)")
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "cluster_load.py"), "--tables", "2", "--processes", "2",
         "--think-ms", "5", "--client", client, "--spread", spread, "--db", pg, "--timeout", "120"],
        capture_output=True, text=True, timeout=300,
    )
    lines = run.stdout.strip().splitlines()
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    match = CLUSTER_LAST_LINE.match(lines[-1])
    assert match and match[1] == ("nginx" if spread == "tables" else "none") and match[2] == "0", lines[-1]
    assert any(line.startswith("CPU ms per action (") for line in lines)
    assert "finished games: 2/2; errors: 0 (0 'unavailable', made again); resyncs: 0; client failures: 0; log problems: 0" in run.stdout
    if spread == "seats":
        assert match[3] is None, lines[-1]
        return
    assert match[3] is not None, lines[-1]
    cpu, floor_p99, floor_cpu, r, s = (float(x) for x in match.group(4, 5, 6, 7, 8))
    p99 = float(lines[-1].split("p99_ms=")[1].split()[0])
    assert floor_p99 > 0 and floor_cpu > 0
    assert r == pytest.approx(p99 / floor_p99, rel=0.06, abs=0.02), lines[-1]  # (from the rounded figures)
    assert s == pytest.approx(cpu / floor_cpu, rel=0.06, abs=0.02), lines[-1]
    assert "finished games: 2/2; errors: 0; lost: 0; log problems: 0" in next(
        line for line in lines if line.startswith("floor (benchmarks/floor_server.py")
    )


def test_pg_floor_last_line_at_a_tiny_size() -> None:
    """``pg_floor.py`` appends every action it asked for, and says what it cost."""
    import os
    import subprocess

    pg = os.environ.get("PYHEARTS_TEST_PG")
    if not pg:
        pytest.skip("PYHEARTS_TEST_PG is not set (export PYHEARTS_TEST_PG=$(scripts/postgres.sh))")
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "pg_floor.py"), "--rate", "200", "--seconds", "1",
         "--tables", "10", "--db", pg],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    last = run.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"pg_floor rate=200 achieved=\d+ postgres_ms=\d+\.\d{3} client_ms=\d+\.\d{3}", last), last


def test_bot_throughput_compares_the_kernels(capsys: pytest.CaptureFixture[str]) -> None:
    """``bot_throughput.py``: a bot worker's decisions (pickled bot and view,
    ``decide_and_return``) per CPU-second with the compiled kernel and without, and their ratio:
    the compiled search makes several times the decisions."""
    pytest.importorskip("numba")
    load("levels")  # bot_throughput imports it by name, as run from benchmarks/
    throughput = load("bot_throughput")
    assert throughput.main(["search:iterations=300", "--decisions", "6", "--no-pool"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    match = re.match(r"^search:iterations=300_fast_per_cpu_s=(\d+\.\d) search:iterations=300_pure_per_cpu_s=(\d+\.\d) "
                     r"search:iterations=300_ratio=(\d+\.\d)$", last)
    assert match, last
    fast, pure, ratio = map(float, match.groups())
    # (each figure is rounded to a tenth: on a slow machine the pure rate is a few decisions a
    # second, and the ratio of the rounded rates is not the rounded ratio, 43.4 against 43.2)
    assert (fast - 0.05) / (pure + 0.05) - 0.05 <= ratio <= (fast + 0.05) / max(pure - 0.05, 0.05) + 0.05
    assert ratio > 2


def test_engine_rows_play_the_same_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    """``engine.py`` at a tiny size: the per-phase API and the one-action API play the same
    random rounds (the same mean points, R4), the kernel and its compiled twin theirs, and the
    last line has the issue's format."""
    pytest.importorskip("pyspiel")
    engine = load("engine")
    assert engine.run_api(30, 5) == engine.run_actions(30, 5)
    assert engine.main(["--rounds", "20", "--trials", "2"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert any(line.startswith("actions ") for line in out), out
    last = re.match(r"^api_vs_openspiel=(\d+\.\d\d) kernel_vs_openspiel=\d+\.\d\d fast_vs_openspiel=(\d+\.\d\d|n/a) "
                    r"actions_vs_openspiel=(\d+\.\d\d)$", out[-1])
    assert last, out[-1]
    table = {line.split()[0]: line.split() for line in out if line.split() and line.split()[0] in ("api", "actions")}
    for name, ratio in (("api", last.group(1)), ("actions", last.group(3))):  # the table's "vs openspiel"
        assert float(table[name][4].rstrip("x")) == pytest.approx(float(ratio), abs=0.011), (name, out)


# --- the matchmaking benchmark (issue 40) ----------------------------------------------------

MATCHMAKING_LINES = (
    re.compile(r"^fill_wait_s=4 min_bot_seats=(\d+)$"),
    re.compile(r"^backend=sqlite processes=1 players=12 tables=(\d+) wait_p50_s=\d+\.\d wait_p95_s=(\d+\.\d) "
               r"bot_seats=(\d+) double_seated=(\d+) lost=(\d+)$"),
)


def test_matchmaking_last_lines_at_a_tiny_size() -> None:
    """``matchmaking.py`` with 12 players arriving over 10 s on SQLite (one process, fill wait
    4 s, games to 10): everyone asks, is seated or told they left, and plays to the end; nobody
    is seated twice or lost, and the two last lines are the issue's."""
    import subprocess

    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "matchmaking.py"), "--backend", "sqlite", "--players", "12",
         "--seconds", "10", "--fill-wait", "4", "--target", "10", "--timeout", "60"],
        capture_output=True, text=True, timeout=180, cwd=ROOT / "benchmarks",
    )
    lines = run.stdout.strip().splitlines()
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    bound, last = MATCHMAKING_LINES[0].match(lines[-2]), MATCHMAKING_LINES[1].match(lines[-1])
    assert bound and last, lines[-2:]
    assert last[4] == "0" and last[5] == "0", lines[-1]
    assert int(last[1]) >= 1 and float(last[2]) <= 4 + 2.0, lines[-1]
    assert any(line.startswith("tables: ") for line in lines), lines


def test_matchmaking_lower_bound_on_small_logs() -> None:
    """The offline bound of ``matchmaking.py`` on logs whose minimum is plain: one alone takes
    three bots; five together leave one over; ``any`` fills a table of three; a block, the
    rated split and a leaver gone before anyone came keep people apart; a late comer takes a
    bot's seat only within the join time; a table starts as soon as it can, so three ``any``
    players sit at a table of three and the standard player after them waits alone."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    for name in ("server_load", "cluster_load", "matchbound", "matchmaking"):
        module = load(name)
    a = module.Arrival

    def least(log: list[object], blocks: tuple[tuple[int, int], ...] = (), join: float = 0.0) -> int:
        return int(module.min_bot_seats(log, blocks, 21.0, join, module.SIZES))

    standard = [a(i, float(i), "standard", False, 25.0, None) for i in range(5)]
    assert least(standard[:1]) == 3
    assert least(standard) == 3
    assert least([a(i, float(i), "any", False, 25.0, None) for i in range(5)]) == 1  # 3 + 2: one bot at four
    assert least(standard[:4], ((0, 1),)) == 4
    assert least([standard[0], a(1, 1.0, "standard", True, 25.0, None)]) == 6
    late = [standard[0], a(1, 25.0, "standard", False, 25.0, None)]
    assert least(late) == 6 and least(late, join=5.0) == 2
    assert least([a(0, 0.0, "standard", False, 25.0, 5.0), a(1, 10.0, "standard", False, 25.0, None)]) == 3
    anys = [a(i, float(i), "any", False, 25.0, None) for i in range(3)]
    assert least([*anys, a(3, 3.0, "standard", False, 25.0, None)]) == 3  # (holding them back: none)
    assert least([*anys, a(3, 1.5, "standard", False, 25.0, None)]) == 0  # four before the third: a full table


def test_no_matchmaker_that_cannot_see_the_future_meets_the_bound() -> None:
    """Why ``bot_seats ≤ min_bot_seats`` cannot be asked of a real matchmaker: two arrival logs
    alike until an ``any`` player completes two tables at once (three standard players and
    two of Black Maria waiting). The rules start one of them now; which one is best depends on
    who comes a second later — a Black Maria player (then the standard table: no bot at all) or
    a standard one (then Black Maria's). The bound, knowing, needs no bot on either log; a
    matchmaker that must choose before it knows needs three or four on one of them."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    for name in ("server_load", "cluster_load", "matchbound", "matchmaking"):
        module = load(name)
    a = module.Arrival

    def log(chosen: str, then: str) -> list[object]:
        first = [a(i, i / 2, "standard", False, 25.0, None) for i in range(3)]
        first += [a(3, 1.5, "black_maria", False, 25.0, None), a(4, 2.0, "black_maria", False, 25.0, None)]
        return [*first, a(5, 3.0, chosen, False, 25.0, None), a(6, 4.0, then, False, 25.0, None)]

    def least(entries: list[object]) -> int:
        return int(module.min_bot_seats(entries, (), 21.0, 10.0, module.SIZES))

    for then in ("black_maria", "standard"):
        assert least(log("any", then)) == 0  # knowing who comes next
    assert least(log("standard", "black_maria")) == 0 and least(log("standard", "standard")) == 4
    assert least(log("black_maria", "standard")) == 0 and least(log("black_maria", "black_maria")) == 3
