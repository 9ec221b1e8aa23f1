"""Tournaments and self-play on Ray (a local instance of 2 CPUs, started once for the module):
the same results as worker processes for the same seed."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from hearts import Rules  # noqa: E402
from hearts.arena import LOCAL_RAY, check_ray_address, connect_ray, run_arena, run_chunks  # noqa: E402
from hearts.cli import main  # noqa: E402
from hearts.cli.arena import arena_main  # noqa: E402
from hearts.rl import selfplay  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    """A new local instance of 2 CPUs, even when a cluster runs on this machine (``ray start``)
    or ``RAY_ADDRESS`` names one: ``ray.init()`` without an address would join it."""
    connect_ray(LOCAL_RAY, 2)
    yield
    ray.shutdown()


def _comparable(data: dict[str, Any]) -> dict[str, Any]:
    """A tournament's results without wall-clock times and where they ran."""
    del data["elapsed"], data["config"]["jobs"], data["config"]["ray"]
    for bot in data["bots"]:
        del bot["time_mean"], bot["time_p95"]
    return data


def test_arena_on_ray_equals_worker_processes() -> None:
    specs = ["heuristic", "random", "easy", "random"]
    on_ray = run_arena(specs, Rules(), rounds=6, seed=9, ray=LOCAL_RAY)
    local = run_arena(specs, Rules(), rounds=6, seed=9, jobs=2)
    assert on_ray.config.ray == LOCAL_RAY and on_ray.config.jobs == 2
    assert _comparable(on_ray.to_dict()) == _comparable(local.to_dict())
    games = run_arena(["random"] * 3, Rules(players=3, target=40), games=2, seed=4, ray=LOCAL_RAY)
    assert _comparable(games.to_dict()) == _comparable(run_arena(["random"] * 3, Rules(players=3, target=40), games=2, seed=4).to_dict())


def test_arena_command_on_ray(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["random"] * 4 + ["--rounds", "3", "--seed", "2", "--quiet", "--json"]
    assert arena_main([*argv, str(tmp_path / "ray.json"), "--ray"]) == 0
    assert "on Ray (local, 2 CPUs)" in capsys.readouterr().out
    assert arena_main([*argv, str(tmp_path / "jobs.json"), "--jobs", "2"]) == 0
    same = [_comparable(json.loads((tmp_path / f"{name}.json").read_text())) for name in ("ray", "jobs")]
    assert same[0] == same[1]


def test_selfplay_on_ray_writes_the_same_shards(tmp_path: Path) -> None:
    config = selfplay.SelfPlayConfig(("heuristic",) * 4, Rules(), rounds=5, seed=6, shard_rounds=2)
    selfplay.generate(config, tmp_path / "ray", ray=LOCAL_RAY)
    selfplay.generate(config, tmp_path / "local", jobs=2)
    manifest = selfplay.read_manifest(tmp_path / "ray")
    assert manifest == selfplay.read_manifest(tmp_path / "local")
    for shard in manifest["shards"]:
        assert (tmp_path / "ray" / shard["file"]).read_bytes() == (tmp_path / "local" / shard["file"]).read_bytes()
    data = selfplay.load(tmp_path / "ray")  # R4: each seat's rewards in a round sum to minus its points
    assert len(data["action"]) == manifest["decisions"] and data["scores"].shape == (5, 4)
    rewards = np.zeros(data["scores"].shape)
    np.add.at(rewards, (data["round"], data["seat"]), data["reward"])
    assert rewards.tolist() == (-data["scores"]).tolist()


def test_a_failing_task_raises_its_own_error() -> None:
    """A task's exception comes back as itself, not wrapped in Ray's RayTaskError."""
    with pytest.raises(json.JSONDecodeError, match="Expecting value"):
        list(run_chunks(json.loads, ["12", "x"], ray=connect_ray(LOCAL_RAY)))


def test_the_selfplay_command_on_ray(tmp_path: Path) -> None:
    out = io.StringIO()
    assert main(["selfplay", "random", "--rounds", "2", "--out", str(tmp_path), "--ray", "-q"], stdout=out) == 0
    assert out.getvalue().startswith("selfplay: 2 rounds, ")


def test_a_real_ray_passes_the_address_check() -> None:
    """The probe that refuses what is not Ray (tests/test_arena.py) lets Ray's own GCS through."""
    check_ray_address(ray.get_runtime_context().gcs_address)
