"""Self-play data (``hearts selfplay``): shards that load back, decisions that replay in the
engine, rewards that sum to minus each round's score, the same data for any number of jobs."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hearts import Rules
from hearts.arena import derive_seed
from hearts.cli import main
from hearts.errors import HeartsError
from hearts.rl import selfplay
from hearts.rl.driver import Driver
from hearts.rl.encoding import ObservationEncoder
from hearts.rl.selfplay import SelfPlayConfig
from hearts.round import Round, deal_hands

CONFIGS = [
    SelfPlayConfig(("heuristic", "random", "easy", "random"), Rules(), rounds=5, seed=3, shard_rounds=2),
    SelfPlayConfig(("random",) * 3, Rules(players=3, jack_of_diamonds=-10), rounds=4, seed=1, shaping=True),
    SelfPlayConfig(("random",) * 5, Rules(players=5, moon="shooter_chooses"), rounds=3, seed=2, shard_rounds=1),
]


def check_against_the_engine(config: SelfPlayConfig, data: dict[str, Any]) -> None:
    """Replay every round's decisions in the engine: the same seat to act, legal mask and
    observation at each; the engine's scores; each seat's rewards summing to minus its score."""
    rules = config.rules
    encoder = ObservationEncoder(rules)
    rows = 0
    for k in range(config.rounds):
        driver = Driver(Round(rules, deal_hands(rules, derive_seed(config.seed, "deal", k)), round_number=k))
        rewards = np.zeros(rules.players)
        last: dict[int, int] = {}
        start = rows
        while (seat := driver.current_seat()) is not None:
            assert data["round"][rows] == k and data["seat"][rows] == seat
            mask = driver.legal_mask(seat)
            assert data["action_mask"][rows].tolist() == [mask >> c & 1 for c in range(52)]
            assert (data["observation"][rows] == encoder.encode(driver.view(seat), driver.pending[seat])).all()
            driver.apply(int(data["action"][rows]))
            rewards[seat] += data["reward"][rows]
            last[seat] = rows
            rows += 1
        assert driver.last_result is not None
        assert data["scores"][k].tolist() == list(driver.last_result.scores)  # R4
        assert rewards.tolist() == [-s for s in driver.last_result.scores]
        assert set(np.flatnonzero(data["done"][start:rows]) + start) == set(last.values())  # each seat's last
    assert rows == len(data["action"])


@pytest.mark.parametrize("config", CONFIGS, ids=["4 players", "3 shaped", "5 moon choice"])
def test_shards_load_back_and_replay_in_the_engine(config: SelfPlayConfig, tmp_path: Path) -> None:
    manifest = selfplay.generate(config, tmp_path)
    assert manifest == selfplay.read_manifest(tmp_path)
    shards = config.shards()
    assert [s["file"] for s in manifest["shards"]] == [selfplay.shard_name(i) for i in range(len(shards))]
    assert [s["rounds"] for s in manifest["shards"]] == [[r.start, r.stop] for r in shards]
    data = selfplay.load(tmp_path)
    assert manifest["decisions"] == len(data["action"]) == sum(s["decisions"] for s in manifest["shards"])
    assert data["observation"].shape == (len(data["action"]), manifest["observation_size"])
    assert data["scores"].shape == (config.rounds, config.rules.players)
    check_against_the_engine(config, data)


def test_the_data_do_not_depend_on_jobs(tmp_path: Path) -> None:
    config = CONFIGS[0]
    selfplay.generate(config, tmp_path / "one")
    selfplay.generate(config, tmp_path / "two", jobs=2)
    for shard in selfplay.read_manifest(tmp_path / "one")["shards"]:
        assert (tmp_path / "one" / shard["file"]).read_bytes() == (tmp_path / "two" / shard["file"]).read_bytes()


def test_bad_configurations_and_folders(tmp_path: Path) -> None:
    with pytest.raises(HeartsError, match="4 players need 4 bot specs, got 2"):
        selfplay.generate(SelfPlayConfig(("random",) * 2, Rules(), rounds=1), tmp_path)
    with pytest.raises(HeartsError, match="rounds must be a positive whole number, not 0"):
        SelfPlayConfig(("random",) * 4, Rules(), rounds=0).check()
    with pytest.raises(HeartsError, match="nosuchbot"):
        SelfPlayConfig(("nosuchbot",) * 4, Rules(), rounds=1).check()
    with pytest.raises(HeartsError, match="cannot read the self-play manifest"):
        selfplay.read_manifest(tmp_path)
    (tmp_path / selfplay.MANIFEST).write_text(json.dumps({"format": "other"}))
    with pytest.raises(HeartsError, match="is not a self-play manifest"):
        selfplay.load(tmp_path)


def test_cli(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["selfplay", "random", "random", "random", "--rounds", "3", "--shard-rounds", "2", "--out", str(tmp_path), "-q"]
    assert main(argv, stdout=out, stderr=err) == 0
    assert out.getvalue() == f"selfplay: 3 rounds, {selfplay.read_manifest(tmp_path)['decisions']} decisions in 2 shards: {tmp_path}/manifest.json\n"
    manifest = selfplay.read_manifest(tmp_path)
    assert manifest["rules"]["players"] == 3 and manifest["specs"] == ["random"] * 3
    err = io.StringIO()
    assert main(["selfplay", "random", "random", "--players", "4", "--rounds", "1", "--out", str(tmp_path)], stderr=err) == 2
    assert err.getvalue() == "hearts selfplay: error: 4 players need 4 bot specs, got 2\n"


def test_messages_speak_to_who_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 39: a Python caller of generate() is told its keyword (overwrite=True), the
    command its flag (--overwrite); one shard is "1 shard"; a folder given with a trailing
    slash gives no doubled slash in the path printed."""
    config = SelfPlayConfig(("random",) * 4, Rules(), rounds=1)
    selfplay.generate(config, tmp_path)
    with pytest.raises(HeartsError, match=r"is not empty \(manifest.json, shard-00000.npz\): give overwrite=True to "
                       "replace its self-play data, or name a new or empty folder$"):
        selfplay.generate(config, tmp_path)
    out, err = io.StringIO(), io.StringIO()
    argv = ["selfplay", "random", "--rounds", "1", "--out", f"{tmp_path}/", "-q"]
    assert main(argv, stdout=out, stderr=err) == 2
    assert err.getvalue().endswith(": give --overwrite to replace its self-play data, or name a new or empty folder\n")
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    assert main([*argv, "--overwrite"], stdout=out) == 0
    decisions = selfplay.read_manifest(tmp_path)["decisions"]
    assert out.getvalue() == f"selfplay: 1 round, {decisions} decisions in 1 shard: {tmp_path / 'manifest.json'}\n"
    assert pipe.getvalue().splitlines()[0] == "selfplay: 1 round of random, random, random, random in 1 shard, seed 0"


class _Terminal(io.StringIO):
    """A standard error that says it is a terminal (where ``hearts selfplay`` draws its bar)."""

    def isatty(self) -> bool:
        return True


def test_the_command_shows_a_progress_bar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal a bar counts the rounds as the shards come in, redrawn in place; in a pipe
    (or with -q) a start and an end line."""
    argv = ["selfplay", "random", "--rounds", "4", "--shard-rounds", "1", "--out", str(tmp_path)]
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(argv, stdout=io.StringIO()) == 0
    drawn = terminal.getvalue()
    assert drawn.startswith("\r[" + "." * 30 + "] 0/4 rounds   0%") and drawn.endswith("\n")
    assert "\r[" + "#" * 30 + "] 4/4 rounds 100%" in drawn
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    assert main([*argv, "--overwrite"], stdout=io.StringIO()) == 0  # the same folder again
    lines = pipe.getvalue().splitlines()
    assert lines[0] == "selfplay: 4 rounds of random, random, random, random in 4 shards, seed 0"
    assert lines[1].startswith("selfplay: done, 4 rounds in ") and len(lines) == 2
