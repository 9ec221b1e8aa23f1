"""Self-play training data: bots of the registry play rounds, and every decision is recorded as
the research adapters see it, in sharded numpy ``.npz`` files with a JSON manifest.

A decision is one step of the adapters' decision process (:mod:`hearts.rl.driver`): a card
passed (a pass is ``pass_count`` single-card decisions, in card order), a card played, or the
moon choice. Each shard holds the decisions of a range of rounds, in play order:

=================  =====================  ==================================================
field              shape, type            meaning
=================  =====================  ==================================================
``observation``    (N, size) float32      :class:`~hearts.rl.encoding.ObservationEncoder`
``action_mask``    (N, 52) int8           the legal actions
``action``         (N,) int16             the action taken (a card id, or a moon choice)
``reward``         (N,) float32           what the seat gets after this decision, before its
                                          next one: ``-scores`` at the round's end (R4), or
                                          with ``shaping`` each trick's points at once
``seat``           (N,) int8              the seat deciding
``round``          (N,) int32             the round (0 … rounds-1)
``done``           (N,) bool              the seat's last decision of the round
``scores``         (R, players) int16     each round's scores (R4), by seat
=================  =====================  ==================================================

So a seat's rewards over a round sum to minus its score. Round ``k`` is dealt from
``derive_seed(seed, "deal", k)`` and is round number ``k`` (the pass direction rotates, R2.2);
the bot at seat ``s`` is seeded from ``derive_seed(seed, "bot", k, s)``: the data do not
depend on where the shards were made (this process, ``jobs`` worker processes, or Ray tasks:
:func:`hearts.arena.run_chunks`). Workers return each shard's bytes and this process writes
them, so a Ray cluster needs no shared file system.

>>> import tempfile
>>> from hearts import Rules
>>> folder = tempfile.TemporaryDirectory()
>>> manifest = generate(SelfPlayConfig(("heuristic",) * 4, Rules(), rounds=3, shard_rounds=2), folder.name)
>>> [shard["file"] for shard in manifest["shards"]], manifest["decisions"]
(['shard-00000.npz', 'shard-00001.npz'], 192)
>>> data = load(folder.name)
>>> data["observation"].shape, float(data["reward"].sum()) == -float(data["scores"].sum())
((192, 622), True)
>>> folder.cleanup()
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from hearts.rl import MissingExtra

try:
    import numpy as np
    from numpy.typing import NDArray
except ModuleNotFoundError as e:
    raise MissingExtra.of(e, "rl", __name__) from None

from hearts.actions import Pass
from hearts.arena import (
    Progress,
    ProgressMode,
    check_specs,
    connect_ray,
    derive_seed,
    progress_mode,
    run_chunks,
)
from hearts.bots import make_bot
from hearts.bots.guard import (
    BOT_ERROR_POLICIES,
    DEFAULT_BOT_ERROR,
    BotErrorPolicy,
    BotFailure,
    BotFault,
    decide,
)
from hearts.errors import HeartsError
from hearts.rl.driver import Driver, action_id
from hearts.rl.encoding import ObservationEncoder
from hearts.round import Round, deal_hands
from hearts.rules import Rules
from hearts.text import plural

FORMAT: Final = "pyhearts-selfplay"
VERSION: Final = 1
MANIFEST: Final = "manifest.json"


@dataclass(frozen=True)
class SelfPlayConfig:
    """What to play: one bot spec per seat, the rules, how many rounds, the seed, the rounds in
    a shard, whether rewards are shaped per trick, and what a bot's failure does (a random
    legal move made for it, or the end: :mod:`hearts.bots.guard`)."""

    specs: tuple[str, ...]
    rules: Rules
    rounds: int
    seed: int = 0
    shard_rounds: int = 500
    shaping: bool = False
    on_bot_error: BotErrorPolicy = DEFAULT_BOT_ERROR

    def check(self) -> None:
        """Raise :class:`~hearts.errors.HeartsError` for a bad configuration or bot spec, or a
        bot that cannot play the rules (:func:`hearts.bots.check_table`)."""
        if len(self.specs) != self.rules.players:
            raise HeartsError(f"{self.rules.players} players need {self.rules.players} bot specs, "
                              f"got {len(self.specs)}")
        for name in ("rounds", "shard_rounds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise HeartsError(f"{name} must be a positive whole number, not {value!r}")
        if self.on_bot_error not in BOT_ERROR_POLICIES:
            raise HeartsError(f"on_bot_error must be one of {', '.join(BOT_ERROR_POLICIES)}, not {self.on_bot_error!r}")
        check_specs(self.specs, self.rules)

    def shards(self) -> list[range]:
        """The rounds of each shard."""
        step = self.shard_rounds
        return [range(i, min(i + step, self.rounds)) for i in range(0, self.rounds, step)]


def play_rounds(
    config: SelfPlayConfig, rounds: Sequence[int], faults: list[BotFault] | None = None
) -> dict[str, NDArray[Any]]:
    """Play ``rounds`` (round indices) and return their decisions as arrays (the module
    docstring). A bot's failed move is replaced by a random legal one (appended to ``faults``
    when given), or raises :class:`~hearts.bots.guard.BotFailure`, as ``config.on_bot_error`` says."""
    rules = config.rules
    encoder = ObservationEncoder(rules)
    obs: list[NDArray[np.float32]] = []
    masks: list[int] = []
    actions: list[int] = []
    rewards: list[float] = []
    seats: list[int] = []
    done: list[bool] = []
    per_round: list[int] = []
    scores = np.zeros((len(rounds), rules.players), dtype=np.int16)
    for i, k in enumerate(rounds):
        hands = deal_hands(rules, derive_seed(config.seed, "deal", k))
        driver = Driver(Round(rules, hands, round_number=k), shaping=config.shaping)
        bots = [make_bot(spec, seed=derive_seed(config.seed, "bot", k, s)) for s, spec in enumerate(config.specs)]
        last = [-1] * rules.players  # each seat's latest decision (a row)
        while (seat := driver.current_seat()) is not None:
            view = driver.view(seat)
            decision = decide(driver.round, seat, bots[seat], policy=config.on_bot_error, view=view,
                              seed=derive_seed(config.seed, "substitute", k), label=config.specs[seat],
                              where=f" (round {k})")
            if decision.fault is not None and faults is not None:
                faults.append(decision.fault)
            action = decision.action
            steps = sorted(action.cards) if isinstance(action, Pass) else [action_id(action)]
            for step in steps:
                last[seat] = len(actions)
                obs.append(encoder.encode(view, driver.pending[seat]))
                masks.append(driver.legal_mask(seat))
                actions.append(int(step))
                rewards.append(0.0)
                seats.append(seat)
                done.append(False)
                for s, reward in enumerate(driver.apply(step)):
                    if reward:  # every seat has decided before a trick or the round ends
                        rewards[last[s]] += reward
        for s in range(rules.players):
            done[last[s]] = True
        per_round.append(len(actions) - sum(per_round))
        assert driver.last_result is not None
        scores[i] = driver.last_result.scores
    count = len(actions)
    mask_bits = np.array(masks, dtype=np.uint64).reshape(count, 1) >> np.arange(52, dtype=np.uint64)
    return {
        "observation": np.array(obs, dtype=np.float32).reshape(count, encoder.size),
        "action_mask": (mask_bits & np.uint64(1)).astype(np.int8),
        "action": np.array(actions, dtype=np.int16),
        "reward": np.array(rewards, dtype=np.float32),
        "seat": np.array(seats, dtype=np.int8),
        "round": np.repeat(np.array(rounds, dtype=np.int32), per_round),
        "done": np.array(done, dtype=bool),
        "scores": scores,
    }


def _shard_bytes(job: tuple[SelfPlayConfig, range]) -> tuple[bytes, list[BotFault]]:
    """Worker entry point: one shard as the bytes of a compressed ``.npz`` file, and the bots'
    failed moves (each replaced by a random legal one)."""
    buffer = io.BytesIO()
    faults: list[BotFault] = []
    np.savez_compressed(buffer, **play_rounds(*job, faults))  # type: ignore[arg-type]
    return buffer.getvalue(), faults


SHARD_FILE: Final = re.compile(r"shard-\d{5,}\.npz")
"""The name of a shard's file (:func:`shard_name`)."""


def shard_name(index: int) -> str:
    """The file of shard ``index``: ``shard-00000.npz``."""
    return f"shard-{index:05d}.npz"


def old_data(folder: Path, overwrite: bool, flag: str = "overwrite=True") -> list[Path]:
    """The files of an earlier run in ``folder`` that :func:`generate` removes when it may
    ``overwrite`` them (its shards and manifest); a :class:`~hearts.errors.HeartsError` when the
    folder has files in it and it may not, or files that are not self-play data, naming ``flag``
    as the way to allow it (a caller's own: ``--overwrite`` on the command line). Nothing is
    removed here.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / shard_name(0)).write_bytes(b"")
    >>> old_data(folder, overwrite=True) == [folder / shard_name(0)]
    True
    >>> old_data(folder, overwrite=False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hearts.errors.HeartsError: the folder '...' is not empty (shard-00000.npz): give overwrite=True to replace ...
    >>> (folder / shard_name(0)).unlink(), folder.rmdir()
    (None, None)
    """
    if not folder.exists():
        return []
    if not folder.is_dir():
        raise HeartsError(f"{str(folder)!r} is a file, not a folder for the shards")
    entries = sorted(folder.iterdir())
    if entries and not overwrite:
        names = ", ".join(p.name for p in entries[:3]) + (", ..." if len(entries) > 3 else "")
        raise HeartsError(f"the folder {str(folder)!r} is not empty ({names}): give {flag} to replace "
                          "its self-play data, or name a new or empty folder")
    old = [p for p in entries if p.name == MANIFEST or SHARD_FILE.fullmatch(p.name)]
    others = [p.name for p in entries if p not in old]
    if others:
        raise HeartsError(f"the folder {str(folder)!r} holds files that are not self-play data "
                          f"({', '.join(others[:3])}): {flag} replaces shards and a manifest only")
    return old


def generate(
    config: SelfPlayConfig,
    folder: str | Path,
    jobs: int = 1,
    ray: str | None = None,
    progress: bool | ProgressMode = False,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Play ``config`` and write its shards and :data:`MANIFEST` into ``folder`` (created if
    needed; a folder with files in it is refused, unless ``overwrite``, when an earlier run's
    shards and manifest are removed first: :func:`old_data`); returns the manifest. ``jobs``
    worker processes share the shards (``0``: one per CPU), or with ``ray`` (an address for
    :func:`~hearts.arena.connect_ray`) Ray tasks do; ``progress`` is
    :class:`~hearts.arena.Progress` on stderr, counting rounds. Raises
    :class:`~hearts.errors.HeartsError` for a bad configuration, ``jobs`` or folder, or when
    Ray is missing or unreachable, before anything is written; and
    :class:`~hearts.bots.guard.BotFailure` when a bot fails under ``on_bot_error="stop"``, once
    the shards of this run are removed again (and the folder, if this run made it)."""
    config.check()
    if jobs < 0:
        raise HeartsError(f"jobs must be 0 (one per CPU) or more, not {jobs}")
    out = Path(folder)
    old = old_data(out, overwrite)
    cluster = connect_ray(ray, jobs or None) if ray is not None else None
    for path in old:
        path.unlink()
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    shards = config.shards()
    bar = Progress(config.rounds, "round", progress_mode(progress), name="selfplay")
    bar.begin(f"{plural(config.rounds, 'round')} of {', '.join(config.specs)} in {plural(len(shards), 'shard')}, "
              f"seed {config.seed}")
    written: dict[int, dict[str, Any]] = {}
    faults: dict[int, list[BotFault]] = {}
    workers = min(jobs or os.cpu_count() or 1, len(shards))
    try:
        for i, (data, faults[i]) in run_chunks(_shard_bytes, [(config, shard) for shard in shards], workers, cluster):
            (out / shard_name(i)).write_bytes(data)
            with np.load(io.BytesIO(data)) as arrays:
                decisions = len(arrays["action"])
            written[i] = {"file": shard_name(i), "rounds": [shards[i].start, shards[i].stop], "decisions": decisions}
            bar.advance(len(shards[i]))
    except BotFailure:  # on_bot_error="stop": no data set, and none of its shards left behind
        for i in written:
            (out / shard_name(i)).unlink(missing_ok=True)
        if created:
            out.rmdir()
        raise
    bar.end()
    encoder = ObservationEncoder(config.rules)
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "specs": list(config.specs),
        "rules": config.rules.to_dict(),
        "rounds": config.rounds,
        "seed": config.seed,
        "shard_rounds": config.shard_rounds,
        "shaping": config.shaping,
        "observation_size": encoder.size,
        "observation_slices": {name: [s.start, s.stop] for name, s in encoder.slices.items()},
        "decisions": sum(shard["decisions"] for shard in written.values()),
        "shards": [written[i] for i in range(len(shards))],
        **bot_failures([fault for i in range(len(shards)) for fault in faults[i]]),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def bot_failures(faults: Sequence[BotFault]) -> dict[str, Any]:
    """The manifest's account of the bots' failed moves, in play order: ``substituted`` (how
    many were replaced by a random legal move) and ``bot_failures``, for each bot spec that
    failed, how many times and its first failure (a line).

    >>> bot_failures([BotFault(1, "x", "ValueError: boom", " (round 0)")] * 2)["bot_failures"]
    [{'bot': 'x', 'count': 2, 'first': "the bot 'x' at seat 1 (round 0) failed: ValueError: boom"}]
    """
    by_bot: dict[str, dict[str, Any]] = {}
    for fault in faults:
        entry = by_bot.setdefault(fault.bot, {"bot": fault.bot, "count": 0, "first": fault.failure})
        entry["count"] += 1
    return {"substituted": len(faults), "bot_failures": list(by_bot.values())}


def failure_lines(manifest: dict[str, Any]) -> list[str]:
    """One line for each bot spec that failed moves in a manifest's data (:func:`bot_failures`)."""
    return [
        f"the bot {entry['bot']!r} failed {plural(entry['count'], 'time')}, a random legal move was made for it "
        f"each time (first: {entry['first']})"
        for entry in manifest.get("bot_failures", [])
    ]


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The manifest of a folder written by :func:`generate`; a :class:`~hearts.errors.HeartsError`
    if it is missing or not one."""
    path = Path(folder) / MANIFEST
    try:
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise HeartsError(f"cannot read the self-play manifest {str(path)!r}: {e}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise HeartsError(f"{str(path)!r} is not a self-play manifest (no \"format\": {FORMAT!r})")
    return manifest


def load(folder: str | Path) -> dict[str, NDArray[Any]]:
    """Every shard of ``folder``, concatenated: the fields of the module docstring."""
    manifest = read_manifest(folder)
    parts: dict[str, list[NDArray[Any]]] = {}
    for shard in manifest["shards"]:
        with np.load(Path(folder) / shard["file"]) as arrays:
            for name in arrays.files:
                parts.setdefault(name, []).append(arrays[name])
    return {name: np.concatenate(arrays) for name, arrays in parts.items()}


__all__ = [
    "MANIFEST",
    "SelfPlayConfig",
    "bot_failures",
    "failure_lines",
    "generate",
    "load",
    "old_data",
    "play_rounds",
    "read_manifest",
    "shard_name",
]
