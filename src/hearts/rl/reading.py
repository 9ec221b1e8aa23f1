"""Data for the models that read the table (:mod:`hearts.bots.reader`): self-play rounds, the
positions they hold, and how well a card-location model predicts them.

**The data** (``pyhearts-reading``, version 1) is a gzip-compressed JSON-lines file: a header
line ``{"format": "pyhearts-reading", "version": 1, "specs": [...], "rules": {...}, "seed": S,
"rounds": R}``, then one line per round in order: the round's record in the record format of
:mod:`hearts.record` (``pyhearts-round``: the deal, every pass and play, the scores) with its
index ``"index": k``. Round ``k`` is dealt from ``derive_seed(S, "deal", k)`` and is round number
``k`` (the pass direction rotates), the bot at seat ``s`` seeded from ``derive_seed(S, "bot", k,
s)``: the seed reproduces the file, however many worker processes played it. Everything the
models learn from is replayed from it (:func:`positions`): each play decision's view of the
deciding seat (its hand, its pass, the public history: R7), the true hidden hands, the card it
played and the round's scores.

>>> import tempfile, os
>>> folder = tempfile.TemporaryDirectory()
>>> path = os.path.join(folder.name, "rounds.jsonl.gz")
>>> header = generate(path, ("heuristic",) * 4, rounds=2, seed=5)
>>> header["format"], len(list(read(path)[1]))
('pyhearts-reading', 2)
>>> data = arrays(read(path)[1])
>>> data["x"].shape, int((data["holder"] >= 0).sum(axis=1).max())  # 52 plays a round; 36 hidden cards at most (3 passed)
((104, 1507), 36)
>>> folder.cleanup()
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from hearts.rl import MissingExtra

try:
    import numpy as np
    from numpy.typing import NDArray
except ModuleNotFoundError as e:
    raise MissingExtra.of(e, "rl", __name__) from None

from hearts import fast
from hearts.actions import Play
from hearts.arena import Progress, check_specs, derive_seed, progress_mode, report_progress, run_chunks
from hearts.bots import make_bot
from hearts.bots.reader import AT, FEATURES, N, applies, features, need_of
from hearts.bots.search import HiddenDeal
from hearts.errors import HeartsError
from hearts.record import from_dict, round_actions, round_to_dict
from hearts.round import Round, deal_hands
from hearts.rules import Rules
from hearts.view import View

FORMAT: Final = "pyhearts-reading"
VERSION: Final = 1


def _play(job: tuple[tuple[str, ...], dict[str, Any], int, Sequence[int], str | None, tuple[int, ...]]) -> list[str]:
    """Worker entry point: the rounds ``job`` names, played, as lines of the data file (with the
    expert's labels where ``job`` names an expert: :func:`generate`)."""
    specs, rules_dict, seed, rounds, expert, labelled = job
    rules = Rules.from_dict(rules_dict)
    lines = []
    for k in rounds:
        r = Round(rules, deal_hands(rules, derive_seed(seed, "deal", k)), round_number=k)
        bots = [make_bot(spec, seed=derive_seed(seed, "bot", k, s)) for s, spec in enumerate(specs)]
        experts = {s: make_bot(expert, seed=derive_seed(seed, "expert", k, s)) for s in labelled if expert}
        labels: list[int] = []
        while actors := r.actors():
            for seat in actors:
                view = View.of(r, seat)
                action = bots[seat].act(view)
                if isinstance(action, Play):
                    choice = seat in experts and len(view.legal) > 1
                    labels.append(int(experts[seat].choose_play(view)) if choice else -1)
                r.apply(action)
        extra = {"expert": labels} if expert else {}
        lines.append(json.dumps({"index": k, **round_to_dict(r), **extra}, separators=(",", ":")))
        report_progress(1)
    return lines


def generate(path: str | Path, specs: Sequence[str], rounds: int, seed: int = 0, jobs: int = 1,
             progress: bool = False, rules: Rules | None = None, chunk: int = 25, expert: str | None = None,
             labelled: Sequence[int] = ()) -> dict[str, Any]:
    """Play ``rounds`` rounds of the bots ``specs`` (one per seat) and write them to ``path``
    (the module's format), in ``jobs`` worker processes; ``progress``: a bar on stderr. Returns
    the header.

    With ``expert`` (a bot spec), the play decisions of the seats ``labelled`` are labelled
    with the card the expert would play there (DAgger: the states a learner visits, the
    teacher's choices): each round's line holds ``"expert"``, a card per play in order (-1
    where the seat is not labelled or had one legal card), the expert at seat ``s`` seeded
    from ``derive_seed(S, "expert", k, s)``; :func:`expert_labels` reads them back and
    :func:`arrays` takes them."""
    rules = rules or Rules()
    check_specs([*specs, *([expert] if expert else [])], rules)
    if len(specs) != rules.players or rounds < 1 or jobs < 1 or not set(labelled) <= set(range(rules.players)):
        raise HeartsError(f"{rules.players} bot specs, rounds >= 1, jobs >= 1 and labelled seats among them "
                          "are needed")
    labels = tuple(sorted(set(labelled))) if expert else ()
    header = {"format": FORMAT, "version": VERSION, "specs": list(specs), "rules": rules.to_dict(), "seed": seed,
              "rounds": rounds, **({"expert": expert, "labelled": list(labels)} if expert else {})}
    chunks = [(tuple(specs), rules.to_dict(), seed, range(i, min(i + chunk, rounds)), expert, labels)
              for i in range(0, rounds, chunk)]
    bar = Progress(rounds, "round", progress_mode(progress), name="reading")
    bar.begin(f"{rounds} rounds of {', '.join(specs)}, seed {seed}" + (f", labelled by {expert}" if expert else ""))
    done: dict[int, list[str]] = {}
    for i, lines in run_chunks(_play, chunks, min(jobs, len(chunks)), on_progress=bar.advance):
        done[i] = lines
    bar.end()
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for i in range(len(chunks)):
            f.writelines(line + "\n" for line in done[i])
    return header


def read(path: str | Path) -> tuple[dict[str, Any], list[Round]]:
    """The header and the rounds (replayed and checked) of a data file."""
    header, lines = _lines(path)
    out = []
    for line in lines:
        r = from_dict(line)
        assert isinstance(r, Round)
        out.append(r)
    return header, out


def expert_labels(path: str | Path) -> list[list[int]]:
    """The expert's labels of a data file made with ``expert`` (:func:`generate`): for each
    round, a card per play in order (-1: not labelled)."""
    header, lines = _lines(path)
    if "expert" not in header:
        raise HeartsError(f"{path}: no expert's labels (made without an expert)")
    return [[int(c) for c in line["expert"]] for line in lines]


def _lines(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the round lines of a data file, as JSON objects."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        header = json.loads(f.readline())
        if header.get("format") != FORMAT or header.get("version") != VERSION:
            raise HeartsError(f"{path}: not version {VERSION} of {FORMAT}")
        return header, [json.loads(line) for line in f]


def positions(r: Round, every_seat: bool = False) -> Iterator[tuple[View, list[int], int]]:
    """Each play decision of the (finished) round ``r``, replayed: the deciding seat's view, every
    seat's hand then (card masks: the truth the view hides) and the card it played. With
    ``every_seat``, every seat's view at each decision (the card played is the decider's)."""
    again = Round(r.rules, list(r.dealt), round_number=r.round_number, scores_before=r.scores_before)
    for action in round_actions(r):
        if isinstance(action, Play):
            hands = [again.hand(s).mask for s in range(r.players)]
            for seat in range(r.players) if every_seat else (action.seat,):
                yield View.of(again, seat), hands, int(action.card)
        again.apply(action)


def arrays(rounds: Sequence[Round], every: int = 1, every_seat: bool = False,
           labels: Sequence[Sequence[int]] | None = None) -> dict[str, NDArray[Any]]:
    """The positions of ``rounds`` (every ``every``-th one; with ``every_seat`` each seat's view
    at each play decision, :func:`positions`) as arrays; with ``labels`` (:func:`expert_labels`,
    a list per round) only the labelled decisions, the deciding seat's view, ``action`` the
    expert's card rather than the one played:

    ``x`` (P, FEATURES) uint8: the features (:func:`hearts.bots.reader.features`; the points
    and need blocks hold whole numbers, :data:`SCALE` makes them the features' values); ``holder`` (P, 52) int8:
    the relative seat (0, 1, 2 for seats 1, 2, 3) holding each hidden card, -1 for the others;
    ``allowed`` (P, 52, 3) bool: the seats that may hold it (not void, with cards to get); ``action``
    (P,) int8 the card played; ``legal`` (P, 52) bool; ``score`` (P,) int8 the seat's score of the
    round; ``round`` (P,) int32 the round's index in ``rounds``; ``mover`` (P,) bool: the view is the
    deciding seat's (``action`` and ``legal`` are its)."""
    keys = ("x", "holder", "allowed", "action", "legal", "score", "round", "mover")
    rows: dict[str, list[Any]] = {key: [] for key in keys}
    count = 0
    for k, r in enumerate(rounds):
        assert r.result is not None
        expert = iter(labels[k]) if labels is not None else None
        for view, hands, card in positions(r, every_seat and expert is None):
            if expert is not None and (card := next(expert)) < 0:
                continue
            count += 1
            if not applies(view) or count % every:
                continue
            x = np.zeros(FEATURES, dtype=np.uint8)
            active, values = features(view)
            x[active] = np.rint(np.asarray(values) / SCALE[active]).astype(np.uint8)
            holder, allowed = truth(view, hands)
            rows["x"].append(x)
            rows["holder"].append(holder)
            rows["allowed"].append(allowed)
            rows["action"].append(card)
            rows["legal"].append([bool(view.legal.mask >> c & 1) for c in range(52)])
            rows["score"].append(r.result.scores[view.seat])
            rows["round"].append(k)
            rows["mover"].append(view.seat == view.to_move)
    return {
        "x": np.array(rows["x"], dtype=np.uint8).reshape(-1, FEATURES),
        "holder": np.array(rows["holder"], dtype=np.int8).reshape(-1, 52),
        "allowed": np.array(rows["allowed"], dtype=bool).reshape(-1, 52, N - 1),
        "action": np.array(rows["action"], dtype=np.int8),
        "legal": np.array(rows["legal"], dtype=bool).reshape(-1, 52),
        "score": np.array(rows["score"], dtype=np.int8),
        "round": np.array(rows["round"], dtype=np.int32),
        "mover": np.array(rows["mover"], dtype=bool),
    }


SCALE: Final = np.ones(FEATURES, dtype=np.float32)
"""What the stored features are multiplied by to be the features (points / 26)."""
SCALE[AT["points"] : AT["points"] + N] = 1 / 26
SCALE[AT["need"] : AT["need"] + N] = 1 / 13


def truth(view: View, hands: Sequence[int]) -> tuple[list[int], list[list[bool]]]:
    """For each card, the relative seat (0, 1, 2 for seats 1, 2, 3 after this one) holding it
    if it is hidden from ``view`` (-1 otherwise), and the seats that may hold it."""
    me = view.seat
    hidden = view.unseen.mask & ~view.known_elsewhere.mask
    need = need_of(view)
    holder = [-1] * 52
    allowed = [[False] * (N - 1) for _ in range(52)]
    for c in range(52):
        if hidden >> c & 1:
            holder[c] = next((s - me) % N - 1 for s in range(N) if hands[s] >> c & 1)
            for r in range(1, N):
                s = (me + r) % N
                allowed[c][r - 1] = need[s] > 0 and c & 3 not in view.voids[s]
    return holder, allowed


def model_probabilities(network: Any, x: NDArray[Any], allowed: NDArray[Any]) -> NDArray[Any]:
    """The card-location model's probabilities (P, 52, 3) on the stored features ``x``: the
    softmax of each card's logits over its ``allowed`` seats (numpy's forward pass)."""
    dense = fast.networks()
    if dense is None:
        raise HeartsError("the measurements need numpy's forward pass (hearts.fast.mlp)")
    logits = dense.forward_batch(network, x.astype(np.float32) * SCALE).reshape(-1, 52, N - 1)
    return masked_softmax(logits + prior(x), allowed)


def prior(x: NDArray[Any]) -> NDArray[Any]:
    """What the card-location model's logits are added to (P, 1, 3): the log of the hidden cards
    each other seat holds (the stored features' need block; -30 for none)."""
    need = x[:, AT["need"] + 1 : AT["need"] + N].astype(np.float32)
    return np.log(np.maximum(need, 1e-13))[:, None, :]


def masked_softmax(logits: NDArray[Any], allowed: NDArray[Any]) -> NDArray[Any]:
    """The softmax over the last axis, only where ``allowed`` (0 elsewhere; all 0 where none is)."""
    z = np.where(allowed, logits, -np.inf)
    top = np.max(z, axis=-1, keepdims=True)
    e = np.where(allowed, np.exp(z - np.where(np.isfinite(top), top, 0.0)), 0.0)
    total = e.sum(axis=-1, keepdims=True)
    return np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0)


def sampler_probabilities(rounds: Sequence[Round], samples: int, seed: int, every: int = 1,
                          odds: bool = False, network: Any = None) -> NDArray[Any]:
    """The marginals (P, 52, 3) of the search's sampler on the positions of ``arrays(rounds,
    every)``: for each hidden card, the share of ``samples`` deals (:class:`HiddenDeal`) giving
    it to each relative seat, with half a deal's add-one smoothing over the allowed seats. With
    ``odds``, the sampler draws from a card-location model (``search:read=1``): ``network``, the
    shipped one by default."""
    from hearts.bots.reader import card_odds

    stream = fast.Stream(seed)
    out = []
    count = 0
    for r in rounds:
        for view, hands, _ in positions(r):
            count += 1
            if not applies(view) or count % every:
                continue
            deal = HiddenDeal.of(view)
            if odds:
                deal = deal.reading(card_odds(view, network))
            counts = np.zeros((52, N), dtype=np.float64)
            for _ in range(samples):
                for s, mask in enumerate(deal.sample(stream)):
                    while mask:
                        low = mask & -mask
                        counts[low.bit_length() - 1, s] += 1
                        mask ^= low
            _, allowed = truth(view, hands)
            me = view.seat
            rel = counts[:, [(me + r) % N for r in range(1, N)]]
            allowed_a = np.array(allowed, dtype=bool)
            smoothed = np.where(allowed_a, rel + 0.5, 0.0)
            total = smoothed.sum(axis=1, keepdims=True)
            out.append(np.where(total > 0, smoothed / np.where(total > 0, total, 1.0), 0.0))
    return np.array(out).reshape(-1, 52, N - 1)


def scores(probabilities: NDArray[Any], holder: NDArray[Any]) -> dict[str, float]:
    """How well ``probabilities`` (P, 52, 3) predict the hidden cards' holders (``holder``):
    ``log_loss`` (mean -ln p of the true seat, over hidden cards), ``brier`` (mean squared
    error over the three seats, summed), ``accuracy`` (the most probable seat is right),
    ``ece`` (expected calibration error over ten bins of the probabilities), ``cards``."""
    hidden = holder >= 0
    p = probabilities[hidden]
    truth_index = holder[hidden].astype(np.intp)
    onehot = np.eye(N - 1)[truth_index]
    p_true = np.clip(p[np.arange(len(p)), truth_index], 1e-6, 1.0)
    bins = np.minimum((p.ravel() * 10).astype(np.intp), 9)
    ece = 0.0
    for b in range(10):
        in_bin = bins == b
        if in_bin.any():
            ece += float(in_bin.mean()) * abs(float(p.ravel()[in_bin].mean()) - float(onehot.ravel()[in_bin].mean()))
    return {
        "log_loss": float(-np.log(p_true).mean()),
        "brier": float(((p - onehot) ** 2).sum(axis=1).mean()),
        "accuracy": float((p.argmax(axis=1) == truth_index).mean()),
        "ece": ece,
        "cards": float(len(p)),
    }


def score_line(name: str, s: dict[str, float]) -> str:
    """One line of :func:`scores`."""
    return (f"{name:<22} log_loss={s['log_loss']:.4f} brier={s['brier']:.4f} accuracy={s['accuracy']:.3f} "
            f"ece={s['ece']:.4f} cards={int(s['cards'])}")


def entropy_bits(p: NDArray[Any]) -> float:
    """Mean entropy in bits of the hidden cards' distributions (for the notes)."""
    q = p[p.sum(axis=-1) > 0]
    return float(-(q * np.log2(np.where(q > 0, q, 1.0))).sum(axis=-1).mean()) if len(q) else math.nan
