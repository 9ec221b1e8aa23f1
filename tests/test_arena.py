"""The arena: duplicate seating, seeding independent of jobs, statistics, games, pairwise, CLI."""

from __future__ import annotations

import io
import json
import random
import statistics
import sys
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

import hearts.arena as arena
from hearts import Card, CardSet, Game, Rules
from hearts.arena import ArenaError, ArenaResult, Progress, paired_difference, ratio_ci, run_arena
from hearts.bots import RandomBot, register, unregister
from hearts.cli.arena import arena_main
from hearts.errors import HeartsError
from hearts.round import deal_hands
from hearts.view import View

RANDOM4 = ["random"] * 4


@pytest.fixture(scope="module")
def dup_rounds() -> ArenaResult:
    return run_arena(RANDOM4, Rules(), rounds=6, seed=11)


@pytest.fixture(scope="module")
def dup_games() -> ArenaResult:
    return run_arena(RANDOM4, Rules(target=40), games=3, seed=5)


def _comparable(result: ArenaResult) -> dict[str, Any]:
    """Everything but wall-clock times (and the jobs setting itself)."""
    data = result.to_dict()
    del data["elapsed"], data["config"]["jobs"]
    for bot in data["bots"]:
        del bot["time_mean"], bot["time_p95"]
    return data


# --- duplicate seating -------------------------------------------------------------------------


def test_duplicate_every_bot_holds_every_hand(dup_rounds: ArenaResult) -> None:
    by_deal: dict[int, list[Any]] = defaultdict(list)
    for rec in dup_rounds.rounds:
        by_deal[rec.unit].append(rec)
    assert sorted(by_deal) == list(range(6))
    for deal, recs in by_deal.items():
        assert sorted(r.rotation for r in recs) == [0, 1, 2, 3]
        assert len({r.dealt for r in recs}) == 1, "the same deal in every rotation"
        assert {r.round_number for r in recs} == {deal}, "deal k is round number k"
        for bot in range(4):
            seats = [r.seats.index(bot) for r in recs]
            assert sorted(seats) == [0, 1, 2, 3], f"bot {bot} sat {seats} in deal {deal}"
        for r in recs:  # bot i sits at seat (i + k) % n in rotation k
            assert all(r.seats[(i + r.rotation) % 4] == i for i in range(4))
    assert len({recs[0].dealt for recs in by_deal.values()}) == 6, "different deals"


def test_no_duplicate_plays_each_deal_once_in_fixed_seats() -> None:
    result = run_arena(RANDOM4, Rules(), rounds=4, duplicate=False, seed=11)
    assert [(r.unit, r.rotation, r.seats) for r in result.rounds] == [(k, 0, (0, 1, 2, 3)) for k in range(4)]
    assert [b.rounds for b in result.bots] == [4] * 4
    dup = run_arena(RANDOM4, Rules(), rounds=4, seed=11)
    assert [r.dealt for r in result.rounds] == [r.dealt for r in dup.rounds if r.rotation == 0]


def test_duplicate_games_share_the_deal_sequence(dup_games: ArenaResult) -> None:
    for game in range(3):
        seqs = [[r.dealt for r in dup_games.rounds if r.unit == game and r.rotation == k] for k in range(4)]
        shortest = min(len(s) for s in seqs)
        assert shortest >= 1
        assert all(s[:shortest] == seqs[0][:shortest] for s in seqs)


def test_games_are_dealt_from_their_seed(dup_games: ArenaResult) -> None:
    """R1.3: game ``k`` of a tournament is ``Game(rules, seed)`` for its derived seed: its
    rounds' deals are that seed's stream of shuffles, in every rotation."""
    rules = Rules(target=40)
    for unit in range(3):
        rng = random.Random(arena.derive_seed(5, "game", unit))
        for rotation in range(4):
            dealt = [r.dealt for r in dup_games.rounds if r.unit == unit and r.rotation == rotation]
            stream = random.Random(arena.derive_seed(5, "game", unit))
            assert dealt == [tuple(deal_hands(rules, stream)) for _ in dealt]
        assert Game(rules, rng).round.dealt == tuple(CardSet.from_mask(m) for m in dealt[0])


# --- seeding ---------------------------------------------------------------------------------


def test_results_do_not_depend_on_jobs() -> None:
    one = run_arena(RANDOM4, Rules(), rounds=5, seed=3, jobs=1)
    two = run_arena(RANDOM4, Rules(), rounds=5, seed=3, jobs=2)
    assert two.config.jobs == 2
    assert _comparable(one) == _comparable(two)
    g1 = run_arena(["random"] * 3, Rules(players=3, target=30), games=2, seed=3, jobs=1)
    g2 = run_arena(["random"] * 3, Rules(players=3, target=30), games=2, seed=3, jobs=2)
    assert _comparable(g1) == _comparable(g2)


def test_seed_changes_the_deals() -> None:
    a = run_arena(RANDOM4, Rules(), rounds=2, seed=1, duplicate=False)
    b = run_arena(RANDOM4, Rules(), rounds=2, seed=2, duplicate=False)
    assert [r.dealt for r in a.rounds] != [r.dealt for r in b.rounds]


# --- statistics ------------------------------------------------------------------------------


def test_points_add_up(dup_rounds: ArenaResult) -> None:
    all_scores = sum(sum(r.scores) for r in dup_rounds.rounds)
    assert sum(b.points_total for b in dup_rounds.bots) == all_scores
    for b in dup_rounds.bots:
        assert b.mean == pytest.approx(b.points_total / b.rounds)
        assert b.rounds == 6 * 4
    for r in dup_rounds.rounds:  # default rules: 26 a round, 78 when a moon is added to the others
        assert sum(r.points) == 26
        assert sum(r.scores) == (26 if r.shooter is None else 78)
    per_round = all_scores / len(dup_rounds.rounds)
    assert sum(b.mean for b in dup_rounds.bots) == pytest.approx(per_round)


def test_points_add_up_with_bonuses() -> None:
    rules = Rules(jack_of_diamonds=-10, no_tricks_bonus=-5)
    result = run_arena(RANDOM4, rules, rounds=4, seed=2)
    for r in result.rounds:
        if r.shooter is None:
            assert sum(r.scores) == 26 - 10 - 5 * r.tricks_won.count(0)
        else:
            assert sum(r.scores) == 78 - 10
    assert sum(b.points_total for b in result.bots) == sum(sum(r.scores) for r in result.rounds)


def test_counts_match_records(dup_rounds: ArenaResult) -> None:
    for b in dup_rounds.bots:
        mine = [(r, r.seats.index(b.index)) for r in dup_rounds.rounds]
        assert b.queens_taken == sum(r.queen == s for r, s in mine)
        assert b.moons_shot == sum(r.shooter == s for r, s in mine)
        assert b.moons_suffered == sum(r.shooter not in (None, s) for r, s in mine)
    assert sum(b.queens_taken for b in dup_rounds.bots) == len(dup_rounds.rounds)
    for r in dup_rounds.rounds:
        assert r.points[r.queen] >= 13


def test_confidence_interval(dup_rounds: ArenaResult) -> None:
    for b in dup_rounds.bots:
        assert b.ci_low is not None and b.ci_high is not None
        assert b.ci_low < b.mean < b.ci_high
        # duplicate: the unit is the deal, averaged over its 4 rotations
        per_deal = [
            statistics.mean(r.scores[r.seats.index(b.index)] for r in dup_rounds.rounds if r.unit == d)
            for d in range(6)
        ]
        half = 2.570581836 * statistics.stdev(per_deal) / len(per_deal) ** 0.5  # Student's t, 5 degrees of freedom
        assert b.ci_high - b.mean == pytest.approx(half)


def test_ratio_ci_and_percentile() -> None:
    xs = [3.0, 9.0, 4.0, 12.0, 0.0]
    mean, low, high = ratio_ci([(x, 1) for x in xs])
    assert mean == statistics.mean(xs)
    assert low is not None and high is not None
    assert high - mean == pytest.approx(2.776445105 * statistics.stdev(xs) / 5**0.5)  # t(0.975, 4)
    assert ratio_ci([]) == (0.0, None, None)
    assert arena.percentile([float(i) for i in range(1, 101)], 95) == 95.0


def test_decision_timing(dup_rounds: ArenaResult) -> None:
    # 13 plays per round, plus a pass except in hold rounds (round numbers 3, 7, ...)
    passes = sum(1 for r in dup_rounds.rounds if r.round_number % 4 != 3)
    for b in dup_rounds.bots:
        assert b.decisions == 13 * b.rounds + passes
        assert b.time_mean > 0 and b.time_p95 > 0


# --- games -----------------------------------------------------------------------------------


def test_games_mode_finishes_and_counts_wins(dup_games: ArenaResult) -> None:
    games = dup_games.games
    assert len(games) == 3 * 4
    assert sum(b.wins for b in dup_games.bots) == pytest.approx(len(games))
    assert all(b.games == len(games) for b in dup_games.bots)
    for g in games:
        assert max(g.totals) >= 40
        assert g.winners and all(g.totals[w] == min(g.totals) for w in g.winners)
        rounds = [r for r in dup_games.rounds if (r.unit, r.rotation) == (g.unit, g.rotation)]
        assert len(rounds) == g.rounds
        assert [r.round_number for r in rounds] == list(range(g.rounds))
        totals = [sum(r.scores[s] for r in rounds) for s in range(4)]
        assert tuple(totals) == g.totals
    for b in dup_games.bots:
        assert b.win_rate is not None and b.win_rate == pytest.approx(b.wins / b.games)
        assert b.win_ci_low is not None and b.win_ci_high is not None
        assert 0 <= b.win_ci_low <= b.win_rate <= b.win_ci_high <= 1
    assert "win %" in dup_games.table()


def test_shared_wins_count_a_fraction() -> None:
    result = run_arena(["random"] * 3, Rules(players=3, target=20, ties="share"), games=6, seed=1)
    assert sum(b.wins for b in result.bots) == pytest.approx(len(result.games))
    for b in result.bots:
        expected = sum(1 / len(g.winners) for g in result.games for s in g.winners if g.seats[s] == b.index)
        assert b.wins == pytest.approx(expected)


# --- pairwise --------------------------------------------------------------------------------


def test_pairwise_seating() -> None:
    result = run_arena(["random", "random"], Rules(), rounds=3, pairwise=True, seed=4)
    assert [b.label for b in result.bots] == ["1:random", "2:random"]
    for r in result.rounds:
        assert r.seats == ((0, 1, 0, 1) if r.rotation == 0 else (1, 0, 1, 0))
    assert sorted({r.rotation for r in result.rounds}) == [0, 1]
    assert [b.rounds for b in result.bots] == [3 * 2 * 2] * 2  # deals x rotations x seats
    total = sum(sum(r.scores) for r in result.rounds)
    assert sum(b.points_total for b in result.bots) == total
    assert 2 * sum(b.mean for b in result.bots) == pytest.approx(total / len(result.rounds))
    single = run_arena(["random", "random"], Rules(), rounds=2, pairwise=True, duplicate=False)
    assert {r.seats for r in single.rounds} == {(0, 1, 0, 1)}


def test_pairwise_games_count_each_game_once() -> None:
    result = run_arena(["random", "random"], Rules(target=30), games=2, pairwise=True, seed=8)
    assert [b.games for b in result.bots] == [4, 4]
    assert sum(b.wins for b in result.bots) == pytest.approx(4)


def test_pairwise_needs_two_specs_and_four_players() -> None:
    with pytest.raises(HeartsError, match="exactly two"):
        run_arena(RANDOM4, Rules(), rounds=1, pairwise=True)
    with pytest.raises(HeartsError, match="4 players"):
        run_arena(["random", "random"], Rules(players=3), rounds=1, pairwise=True)


# --- other player counts and errors ----------------------------------------------------------


@pytest.mark.parametrize("players", [3, 5, 6])
def test_other_player_counts(players: int) -> None:
    result = run_arena(["random"] * players, Rules(players=players), rounds=1, seed=9)
    assert len(result.rounds) == players
    for bot in range(players):
        assert sorted(r.seats.index(bot) for r in result.rounds) == list(range(players))


def test_api_errors() -> None:
    with pytest.raises(HeartsError, match="unknown bot"):
        run_arena(["random", "random", "random", "nobody"], Rules(), rounds=1)
    with pytest.raises(HeartsError, match="4 bot specs"):
        run_arena(["random"] * 3, Rules(), rounds=1)
    with pytest.raises(HeartsError, match="not both"):
        run_arena(RANDOM4, Rules(), rounds=1, games=1)
    with pytest.raises(HeartsError, match="positive"):
        run_arena(RANDOM4, Rules(), rounds=0)


class _Cheat(RandomBot):
    def choose_play(self, view: View) -> Card:
        return next(iter(CardSet.from_mask(view.rules.deck_mask & ~view.legal.mask)), Card(0))


def test_a_failing_bot_is_reported() -> None:
    """A bot of one's own that plays an illegal card: with "stop" the arena ends with the bot,
    its seat, the deal and the rotation named (in this process: ``jobs=1``); by default a random
    legal move is made for it, counted."""
    register("cheat", _Cheat)
    try:
        with pytest.raises(ArenaError, match=r"^the bot '4:cheat' at seat 3 \(deal 0, rotation 0\) failed: an illegal "):
            run_arena(["random", "random", "random", "cheat"], Rules(), rounds=1, on_bot_error="stop")
        result = run_arena(["random", "random", "random", "cheat"], Rules(), rounds=1)
        assert [b.substituted for b in result.bots] == [0, 0, 0, 52]  # 13 plays in each of 4 rotations
        assert all(sum(r.points) == 26 for r in result.rounds)
    finally:
        unregister("cheat")


# --- output ----------------------------------------------------------------------------------


def test_table_and_dict(dup_rounds: ArenaResult) -> None:
    table = dup_rounds.table()
    for b in dup_rounds.bots:
        assert b.label in table
    assert "pts/round" in table and "95% CI" in table and "p95 ms" in table
    data = json.loads(json.dumps(dup_rounds.to_dict()))
    assert set(data) == {"version", "config", "elapsed", "bots", "rounds", "games"}
    assert data["bots"][0] == json.loads(json.dumps(asdict(dup_rounds.bots[0])))
    assert dup_rounds.bot("2:random") is dup_rounds.bot(1)


def test_progress_bar_and_lines() -> None:
    out = io.StringIO()
    bar = Progress(4, "deal", "bar", out)
    bar.begin("x")
    for _ in range(4):
        bar.advance(1)
    bar.end()
    assert "4/4 deals" in out.getvalue() and out.getvalue().endswith("\n")
    out = io.StringIO()
    lines = Progress(4, "deal", "lines", out)
    lines.begin("hello")
    lines.advance(4)
    lines.end()
    assert out.getvalue().startswith("arena: hello\n") and "done, 4 deals" in out.getvalue()
    out = io.StringIO()
    off = Progress(4, "deal", "off", out)
    off.begin("x")
    off.advance(4)
    off.end()
    assert out.getvalue() == ""


# --- command line ----------------------------------------------------------------------------


def test_cli_runs_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "out.json"
    code = arena_main([*RANDOM4, "--rounds", "2", "--seed", "7", "--json", str(path), "--quiet"])
    assert code == 0
    captured = capsys.readouterr()
    assert "1:random" in captured.out and "4:random" in captured.out
    assert "arena: done" in captured.err
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data) >= {"config", "bots", "rounds", "games"}
    assert data["config"]["seed"] == 7 and data["config"]["mode"] == "rounds"
    assert data["config"]["specs"] == RANDOM4
    assert len(data["rounds"]) == 8 and len(data["bots"]) == 4
    assert {"label", "mean", "ci_low", "ci_high", "moons_shot", "queens_taken", "time_p95"} <= set(
        data["bots"][0]
    )


def test_cli_games_pairwise_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["random", "random", "--pairwise", "--games", "1", "--target", "30", "--no-duplicate", "-q"]
    assert arena_main(argv) == 0
    out = capsys.readouterr().out
    assert "wins" in out and "target=30" in out
    assert arena_main(["random"] * 3 + ["--rounds", "1", "-q"]) == 0  # 3 SPECs: 3 players
    assert "players=3" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([*RANDOM4[:3], "nobody"], "unknown bot 'nobody'"),
        ([*RANDOM4, "--option", "bogus=1"], "unknown option 'bogus'"),
        ([*RANDOM4, "--option", "moon=sometimes"], "option 'moon'"),
        ([*RANDOM4, "--preset", "nope"], "invalid choice: 'nope'"),
        ([*RANDOM4, "--players", "3"], "3 players need 3 bot specs"),
        ([*RANDOM4, "--target", "0"], "option 'target'"),
        (["random", "random", "random", "random:depth=2"], "does not take options"),
        ([*RANDOM4, "--rounds", "0"], "positive"),
        ([*RANDOM4, "--rounds", "x"], "invalid int"),
        ([*RANDOM4, "--rounds", "1", "--games", "1"], "not allowed with"),
        ([*RANDOM4, "--json", "/no/such/dir/x.json"], "no directory"),
        (["random"] * 7, "give one bot spec a seat, 3 to 6 of them (or two with --pairwise), not 7"),
        (["random"] * 2, "give one bot spec a seat, 3 to 6 of them (or two with --pairwise), not 2"),
    ],
)
def test_cli_usage_errors_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert arena_main([*argv, "-q"]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""


def test_cli_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert arena_main(["--help"]) == 0
    assert "--pairwise" in capsys.readouterr().out


def test_paired_difference_needs_the_same_deals() -> None:
    """A paired difference compares one entrant on identical deals; anything else is refused."""
    base = run_arena(["random"] * 4, Rules(), rounds=4, seed=8)
    same = run_arena(["random"] * 4, Rules(), rounds=4, seed=8)
    assert paired_difference(base, same) == (0.0, 0.0, 0.0)
    other = run_arena(["heuristic", "random", "random", "random"], Rules(), rounds=4, seed=8)
    diff, low, high = paired_difference(other, base)
    assert diff == pytest.approx(other.bots[0].mean - base.bots[0].mean)
    assert low is not None and high is not None and low <= diff <= high
    for mismatched in (run_arena(["random"] * 4, Rules(), rounds=4, seed=9),
                       run_arena(["random"] * 4, Rules(), rounds=3, seed=8),
                       run_arena(["random"] * 4, Rules(), games=1, seed=8)):
        with pytest.raises(HeartsError, match="same deals"):
            paired_difference(mismatched, base)


def test_ray_needs_the_cluster_extra(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Without Ray, ``--ray`` is a one-line error naming the extra (tests/test_ray.py runs on Ray)."""
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    assert arena_main([*RANDOM4, "--rounds", "1", "--ray", "-q"]) == 2
    assert capsys.readouterr().err == (
        "hearts arena: error: --ray needs Ray: install pyhearts[cluster] (pip install 'pyhearts[cluster]')\n"
    )
    with pytest.raises(HeartsError, match=r"pyhearts\[cluster\]"):
        run_arena(RANDOM4, rounds=1, ray="auto")


def test_results_are_the_same_in_any_chunks() -> None:
    """Chunks are a matter of load balance: the per-unit seeds make each deal the same anywhere."""
    cfg = arena.ArenaConfig(tuple(RANDOM4), Rules(), "rounds", 6, seed=3)
    whole = arena._play_chunk((cfg, range(6))).rounds
    parts = [r for chunk in arena.chunked(6, 3) for r in arena._play_chunk((cfg, chunk)).rounds]
    assert parts == whole


# --- the command line's rough edges (issue 27) --------------------------------------------------


def test_cli_json_dash_is_standard_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--json -``: the JSON alone on stdout (to pipe it), the table and progress on stderr,
    and no file named ``-``."""
    monkeypatch.chdir(tmp_path)
    assert arena_main([*RANDOM4, "--rounds", "2", "--seed", "7", "--json", "-", "--quiet"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["config"]["seed"] == 7 and len(data["rounds"]) == 8
    assert "1:random" in captured.err and "arena: done" in captured.err
    assert not (tmp_path / "-").exists() and list(tmp_path.iterdir()) == []


def test_ray_address_where_nothing_answers_fails_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    """``--ray HOST:PORT`` with no cluster there: a clear error within seconds (``ray.init``
    alone waits minutes), exit 2, before any deal is played."""
    pytest.importorskip("ray")
    import socket
    import time

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    assert arena_main([*RANDOM4, "--rounds", "1", "--ray", f"127.0.0.1:{port}", "-q"]) == 2
    assert time.monotonic() - started < 10
    err = capsys.readouterr().err
    assert err.startswith(f"hearts arena: error: cannot reach Ray at '127.0.0.1:{port}': nothing answers there (")
    assert err.endswith("; give the address of a running Ray cluster's head (HOST:6379, ray://HOST:10001), or --ray "
                        "alone for a Ray instance here\n")
    with pytest.raises(HeartsError, match="nothing answers there"):
        run_arena(RANDOM4, rounds=1, ray=f"ray://127.0.0.1:{port}")


def _hearts() -> list[str]:
    """The installed ``hearts`` command (or ``python -m hearts``)."""
    script = Path(sys.executable).parent / "hearts"
    return [str(script)] if script.exists() else [sys.executable, "-m", "hearts"]


def test_ray_address_where_something_else_answers_fails_at_once(tmp_path: Path) -> None:
    """Issue 39: ``hearts arena --ray HOST:PORT`` where something accepts TCP but is not Ray
    (a real listener that accepts and never answers) fails within seconds with one line, exit
    2, where Ray alone waits for minutes; the same for ``ray://``. (A real Ray answers the
    probe: tests/test_ray.py.)"""
    pytest.importorskip("ray")
    import socket
    import subprocess
    import threading
    import time

    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        held: list[socket.socket] = []
        server.settimeout(0.2)

        def accept() -> None:
            while True:
                try:
                    held.append(server.accept()[0])  # accepted, and never a byte in answer
                except TimeoutError:
                    continue
                except OSError:  # the server closed: the test is over
                    return

        threading.Thread(target=accept, daemon=True).start()
        started = time.monotonic()
        proc = subprocess.run(
            [*_hearts(), "arena", *RANDOM4, "--rounds", "1", "-q", "--ray", f"127.0.0.1:{port}",
             "--json", str(tmp_path / "out.json")],
            capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path,
        )
        took = time.monotonic() - started
        assert (proc.returncode, proc.stdout) == (2, "")
        assert proc.stderr == (
            f"hearts arena: error: cannot reach Ray at '127.0.0.1:{port}': something answers there, but not "
            "as Ray does (no answer to its protocol within 3 s); give the address of a running Ray cluster's head "
            "(HOST:6379, ray://HOST:10001), or --ray alone for a Ray instance here\n"
        )
        assert took < 20 and held, took
        assert list(tmp_path.iterdir()) == []  # nothing written
        with pytest.raises(HeartsError, match="something answers there, but not as Ray does"):
            run_arena(RANDOM4, rounds=1, ray=f"ray://127.0.0.1:{port}")
    for conn in held:
        conn.close()


def test_ray_errors_name_only_hearts_flags() -> None:
    """Issue 39: ``--ray auto`` with no cluster running: Ray's own advice names its flags
    (``--address``); hearts's error names its own (``--ray``) and nothing else."""
    pytest.importorskip("ray")
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    proc = subprocess.run([*_hearts(), "arena", *RANDOM4, "--rounds", "1", "--ray", "auto", "-q"],
                          capture_output=True, text=True, timeout=120, check=False, env=env)
    if proc.returncode == 0:
        pytest.skip("a Ray cluster runs on this machine: --ray auto found it")
    assert proc.returncode == 2
    err = proc.stderr
    assert err.startswith("hearts arena: error: cannot reach Ray at 'auto': Could not find any running Ray instance")
    assert err.count("\n") == 1 and "--address" not in err and "RAY_ADDRESS" not in err
    flags = {word.strip("(),;`'") for word in err.split() if word.startswith(("--", "(--", "`--"))}
    assert flags <= {"--ray"}, flags


def test_the_compiled_kernel_is_loaded_before_any_decision_is_timed(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ms/move`` without the warm-up: each chunk (in whatever process) loads the compiled
    kernel (``fast.prepare``) before its bots' first decision, so that two identical seats show
    the same time per decision rather than the first paying for numba."""
    import hearts.fast

    events: list[str] = []
    monkeypatch.setattr(hearts.fast, "prepare", lambda say: events.append("prepare") or True)
    act = RandomBot.act
    monkeypatch.setattr(RandomBot, "act", lambda self, view: events.append("act") or act(self, view))
    run_arena(RANDOM4, rounds=2, seed=1)
    assert events[0] == "prepare" and events.count("prepare") == len(arena.chunked(2, 1))


def test_win_rates_have_wilson_intervals() -> None:
    """Win-rate intervals are Wilson score intervals: never a point at 0 of N or N of N (the
    normal approximation gave [0, 0] and [100, 100]), always within [0, 1]."""
    assert arena.wilson_interval(0, 8) == (0.0, pytest.approx(0.3244, abs=1e-4))
    assert arena.wilson_interval(4, 4) == (pytest.approx(0.5101, abs=1e-4), 1.0)
    with pytest.raises(ValueError, match="0 <= successes <= trials"):
        arena.wilson_interval(5, 4)
    cfg = arena.ArenaConfig(("a", "b"), Rules(), "games", 2, pairwise=True)
    games = [  # entrant 0 wins all 4 games, entrant 1 none
        arena.GameRecord(unit, rotation, cfg.seating(rotation), (0, 0, 0, 0), (cfg.seating(rotation).index(0),), 1)
        for unit in range(2)
        for rotation in range(2)
    ]
    best, worst = arena._aggregate(cfg, [], games, [[], []])
    assert (best.games, best.wins, worst.wins) == (4, 4.0, 0.0)
    assert (best.win_ci_low, best.win_ci_high) == arena.wilson_interval(4, 4)
    assert (worst.win_ci_low, worst.win_ci_high) == arena.wilson_interval(0, 4)
    assert worst.win_ci_low == 0.0 < worst.win_ci_high and best.win_ci_low < best.win_ci_high == 1.0
    result = run_arena(["random", "random"], Rules(target=30), games=2, pairwise=True, seed=3)
    for b in result.bots:
        assert (b.win_ci_low, b.win_ci_high) == arena.wilson_interval(b.wins, b.games)
    assert "Wilson score interval" in result.table()


@pytest.mark.parametrize("count", [3, 5, 6])
def test_the_player_count_follows_the_specs(count: int, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --players, as many players as specs (the table of 5 or 6 included)."""
    assert arena_main(["random"] * count + ["--rounds", "1", "-q"]) == 0
    out = capsys.readouterr().out
    assert f"{count}:random" in out and f"{count + 1}:random" not in out


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_advances_every_round(jobs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The progress moves on after every round, in this process and from worker processes:
    ``--games 2`` no longer sits at 0 % until a whole chunk of games is over. A round of a deal
    is its share of the deal's rotations; a game's rounds move it by the leader's total over the
    target; the amounts add up to the deals or games."""
    said: list[float] = []
    advance = Progress.advance
    monkeypatch.setattr(Progress, "advance", lambda self, n, label=None: said.append(n) or advance(self, n, label))
    games = run_arena(RANDOM4, Rules(target=40), games=2, seed=5, jobs=jobs)
    moves = [n for n in said if n > 0]
    assert len(moves) >= len(games.rounds) // 2  # about one a round (a round may give no one points)
    assert sum(said) == pytest.approx(2)
    said.clear()
    run_arena(RANDOM4, rounds=2, seed=5, jobs=jobs)
    steps = [n for n in said if n]
    assert sum(steps) == pytest.approx(2) and all((4 * n).is_integer() for n in steps)  # rounds of a deal
    if jobs == 1:
        assert steps == [0.25] * 8
    else:  # (a worker's rounds read together, on a busy machine, come as one step)
        assert len(steps) >= 3


def test_progress_bar_shows_a_fraction_of_a_unit() -> None:
    out = io.StringIO()
    bar = Progress(2, "game", "bar", out)
    bar.advance(0.3)
    bar.advance(0.45)
    bar.end()
    assert "0/2 games  38%" in out.getvalue()


def test_an_arena_refuses_a_bot_that_cannot_play_its_rules_before_it_starts() -> None:
    """The arena checks each bot against the rules when it is set (as the tables do), not
    in the middle of the first game: OpenSpiel's ISMCTS plays 4 players only."""
    pytest.importorskip("pyspiel")
    with pytest.raises(HeartsError, match="cannot play these rules: players=5"):
        run_arena(["openspiel_ismcts", "easy", "easy", "easy", "easy"], Rules(players=5), rounds=1)


def test_one_deal_is_said_in_the_singular() -> None:
    """Issue 39: "over 1 deal", not "over 1 deals"."""
    table = run_arena(RANDOM4, Rules(), rounds=1, seed=1).table()
    assert "95% CI over 1 deal, each deal averaged over its rotations" in table
    assert "arena: 1 deal x 4 seat rotations" in table



# --- issue 39: intervals of few deals, the paired difference, the time limit, the rules -----------


@pytest.mark.parametrize(
    ("df", "table"),
    [(1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (9, 2.262), (29, 2.045), (120, 1.980), (10**7, 1.960)],
)
def test_student_t_quantile_matches_the_tables(df: int, table: float) -> None:
    """t(0.975, df) as printed in every table (pure Python: the core needs no scipy)."""
    assert round(arena.t_quantile(0.975, df), 3) == table
    assert arena.t_quantile(0.025, df) == pytest.approx(-arena.t_quantile(0.975, df))


def test_t_quantile_other_levels_and_errors() -> None:
    assert round(arena.t_quantile(0.95, 10), 3) == 1.812 and round(arena.t_quantile(0.995, 4), 3) == 4.604
    assert arena.t_quantile(0.5, 7) == 0.0
    for p, df in ((0.0, 3), (1.0, 3), (0.9, 0)):
        with pytest.raises(ValueError):
            arena.t_quantile(p, df)


def test_three_deals_get_a_t_interval_within_what_points_allow() -> None:
    """Issue 39: with 3 deals z = 1.96 gave intervals 2.2 times too narrow, and below zero for
    points; now Student's t on the per-deal means, cut at what a round's points allow."""
    mean, low, high = ratio_ci([(0, 1), (1, 1), (14, 1)], bounds=(0, 26))
    half = 4.302652730 * statistics.stdev([0, 1, 14]) / 3**0.5
    assert mean == 5.0 and low == 0.0 and high == pytest.approx(5 + half)
    result = run_arena(RANDOM4, Rules(), rounds=3, seed=2)
    for b in result.bots:
        assert b.ci_low is not None and b.ci_high is not None and 0 <= b.ci_low <= b.mean <= b.ci_high <= 26
    assert arena.round_score_bounds(Rules()) == (0, 26)
    assert arena.round_score_bounds(Rules.preset("omnibus")) == (-10, 26)
    assert arena.round_score_bounds(Rules(moon="shooter_chooses", no_tricks_bonus=-5)) == (-26, 26)


def test_the_command_prints_the_paired_difference(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 39: the paired difference between two specs on the command line: A − B with
    --pairwise, any two entrants with --diff I J; the same figures as Python's."""
    assert arena_main(["heuristic", "random", "--pairwise", "--rounds", "3", "--seed", "4", "-q"]) == 0
    out = capsys.readouterr().out
    result = run_arena(["heuristic", "random"], Rules(), rounds=3, seed=4, pairwise=True)
    diff, low, high = result.difference(0, 1)
    assert diff == pytest.approx(result.bots[0].mean - result.bots[1].mean)
    assert low is not None and high is not None and -26 <= low < diff < high <= 26
    line = (f"difference 1:heuristic - 2:random: {diff:.3f} {arena.interval_text(low, high, 3)} points per "
            "round, paired by deal (95% CI over 3 deals; negative: 1:heuristic did better)")
    assert line in out.splitlines()
    assert arena_main([*RANDOM4[:3], "heuristic", "--rounds", "2", "--diff", "4", "1", "-q"]) == 0
    assert "difference 4:heuristic - 1:random: " in capsys.readouterr().out
    assert arena_main([*RANDOM4, "--rounds", "1", "--diff", "1", "5", "-q"]) == 2
    assert "--diff: no entrant 5 (give two of 1 to 4)" in capsys.readouterr().err


def test_the_arena_takes_the_rules_flags_of_the_other_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 39: --rules JSON_OR_FILE as hearts play and selfplay take it."""
    assert arena_main([*RANDOM4, "--rounds", "1", "-q", "--rules", '{"moon": "shooter_chooses"}']) == 0
    assert "rules: players=4 moon=shooter_chooses" in capsys.readouterr().out
    path = tmp_path / "rules.json"
    path.write_text('{"jack_of_diamonds": -10, "players": 3}')
    assert arena_main(["random"] * 3 + ["--rounds", "1", "-q", "--rules", str(path)]) == 0
    assert "rules: players=3 jack_of_diamonds=-10" in capsys.readouterr().out
    assert arena_main([*RANDOM4, "--rounds", "1", "-q", "--rules", "{moon"]) == 2
    assert capsys.readouterr().err.startswith("hearts arena: error: --rules is not valid JSON: ")


def test_a_bad_move_time_is_refused() -> None:
    for bad in (-1.0, float("nan")):
        with pytest.raises(HeartsError, match="move_time"):
            run_arena(RANDOM4, rounds=1, move_time=bad)
