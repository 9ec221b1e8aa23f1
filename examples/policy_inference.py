"""Policy-based inference for the reading bot (issue 43): the search sampling from worlds weighed by
how likely the other seats' plays were under the policy network (:mod:`hearts.bots.inference`).

    pip install -e '.[fast]'          # numba and numpy
    nice -n 19 python examples/policy_inference.py --oracle 600 --seed 72 SPEC [SPEC ...]
    nice -n 19 python examples/policy_inference.py --marginals 40 [--seed 9]
    nice -n 19 python examples/policy_inference.py --strength 1000 --seed 6000 \\
        [--reader inferring:iterations=2500,pass_budget=3,read=1,likely=1] [--against SPEC]

docs/notes/2026-12-07-reader-policy-inference.md has the figures. The bot ``inferring`` (registered
here, not a level or an option of ``search``: measured, it did not win) is ``search`` with three more
options: ``likely=ALPHA`` (the power the likelihoods are raised to), ``worlds`` (the pool, default
128) and ``recent`` (the tricks whose plays are read, default 13: all). Each play decision samples
the pool as ``search`` would (with ``read=1``, from the card-location model), weighs it
(:func:`hearts.bots.inference.inferred_odds`), and the search then samples its worlds with the
pool's odds, still only among the deals the hard facts allow.

``--oracle``: ``--oracle`` rounds of four ``hard`` bots (round ``k`` seeded ``1000 * seed + k``);
at every second decision with a choice after the first trick, each legal card is scored by 200
greedy rollouts on the *true* hands (the same rollouts for every card), and each ``SPEC`` decides
(seeded by the position's index); a spec's regret is its card's score less the best card's. The
paired differences from the first spec, with 95% intervals over positions. A screen (the true
hands and a greedy continuation, not a game), much less noisy than a head-to-head.

``--marginals``: ``--marginals`` rounds of four ``hard`` bots (seeds ``9000 + k``); at every
third decision after the first trick, the log-loss of each hidden card's true holder under the
marginals of 256 worlds drawn by the reading sampler (``read=1``), then with the pool's odds for
several powers.

``--strength``: ``benchmarks/strength.py --items 5`` with ``--reader`` (an ``inferring`` spec):
the head to head against ``hard`` (or ``--against``, e.g. the reading bot) on fresh duplicate deals,
one worker.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

from hearts import Rules, fast
from hearts.bots import make_bot
from hearts.bots.inference import inferred_odds
from hearts.bots.reader import card_odds
from hearts.bots.registry import bot_names, register, unregister
from hearts.bots.search import MOONS, Block, SearchBot, play_block, position_record
from hearts.cards import Card
from hearts.round import Round, deal_hands
from hearts.view import View

HARD = "search:iterations=2500,pass_budget=3"


class InferringSearch(SearchBot):
    """``search`` sampling its worlds with the odds of a pool weighed by the policy (the module
    docstring)."""

    name = "inferring"

    def __init__(self, seed: int | None = None, likely: float = 1.0, worlds: int = 128, recent: int = 13,
                 **options: Any) -> None:
        super().__init__(seed, **options)
        self.likely, self.worlds, self.recent = float(likely), int(worlds), int(recent)

    def _play_sampler(self, view: View, moves: list[Card]) -> Block:
        pos = position_record(view, self._codes(view), self.shoot_from, self._odds(view))
        cfg, stream = self._config(view.rules), self._stream()
        odds = inferred_odds(view, pos, stream, cfg, self.compiled, self.likely, self.worlds, self.recent)
        if odds is not None:
            n = view.players
            pos[MOONS + n * n * n :] = odds
        return self._block(play_block, (pos, cfg, stream, [int(c) for c in moves]))


def register_inferring() -> None:
    if "inferring" in bot_names():
        unregister("inferring")
    register("inferring", InferringSearch)


def hard_rounds(rounds: int, seed_of: Any, every: int) -> Any:
    """(round, view, index) at every ``every``-th decision with a choice after the first trick of
    ``rounds`` rounds of four ``hard`` bots (round ``k`` dealt from ``seed_of(k)``)."""
    rules = Rules()
    for k in range(rounds):
        seed = seed_of(k)
        r = Round(rules, deal_hands(rules, seed), round_number=k % 4)
        bots = [make_bot(HARD, seed=seed * 10 + s) for s in range(4)]
        for s in r.seats_to_pass():
            r.apply(bots[s].act(View.of(r, s)))
        step = 0
        while not r.is_over and r.to_move is not None:
            view = View.of(r, r.to_move)
            if len(view.legal) > 1 and view.tricks:
                step += 1
                if step % every == 0:
                    yield r, view, step
            r.apply(bots[r.to_move].act(view))


def oracle(rounds: int, seed: int, specs: list[str]) -> None:
    began = time.perf_counter()
    positions = []
    for r, view, step in hard_rounds(rounds, lambda k: 1000 * seed + k, 2):
        hands = [r.hand(s).mask for s in range(4)]
        bot = SearchBot(seed=1)
        pos = position_record(view, bot._codes(view), bot.shoot_from)
        n = 4
        pos[MOONS + n * n * n :] = [1 + (1 << 40) * (hands[s] >> c & 1) for c in range(52) for s in range(n)]
        moves = [int(c) for c in view.legal]
        out = [[0] * 200 for _ in moves]
        fast.call(True, play_block, pos, bot._config(view.rules), fast.Stream(seed * 100_000 + step), moves,
                  list(range(len(moves))), out)
        positions.append((view, {m: sum(o) / 200 for m, o in zip(moves, out, strict=True)}))
    print(f"{len(positions)} positions of {rounds} rounds ({time.perf_counter() - began:.0f} s)", flush=True)
    regrets: dict[str, list[float]] = {}
    for spec in specs:
        began = time.perf_counter()
        regrets[spec] = []
        for i, (view, value) in enumerate(positions):
            card = int(make_bot(spec, seed=i).choose_play(view))
            regrets[spec].append(value[card] - min(value.values()))
        mean = sum(regrets[spec]) / len(positions)
        ms = 1000 * (time.perf_counter() - began) / len(positions)
        print(f"{spec}: regret {mean:.4f} ({ms:.1f} ms a decision)", flush=True)
    for spec in specs[1:]:
        d = [a - b for a, b in zip(regrets[spec], regrets[specs[0]], strict=True)]
        m = sum(d) / len(d)
        se = math.sqrt(sum((x - m) ** 2 for x in d) / (len(d) - 1) / len(d))
        print(f"{spec} minus {specs[0]}: {m:+.4f} [{m - 1.96 * se:+.4f}, {m + 1.96 * se:+.4f}]; "
              f"{sum(1 for x in d if x)} positions differ")


def marginals(rounds: int, seed: int, alphas: tuple[float, ...] = (0.25, 0.5, 1.0), draws: int = 256) -> None:
    from hearts.bots.inference import sample_worlds

    loss: dict[float | None, list[float]] = {a: [] for a in (None, *alphas)}
    for r, view, step in hard_rounds(rounds, lambda k: seed * 1000 + k, 3):
        bot = SearchBot(seed=1, read=True)
        pos = position_record(view, bot._codes(view), bot.shoot_from, card_odds(view))
        hidden = view.unseen.mask & ~view.known_elsewhere.mask
        others = sum(1 for s in range(4) if s != view.seat and view.hand_sizes[s] > 0)
        for a in loss:
            p2 = list(pos)
            if a is not None:
                odds = inferred_odds(view, p2, fast.Stream(step), bot._config(view.rules), True, a)
                if odds is not None:
                    p2[MOONS + 64 :] = odds
            worlds = [0] * (4 * draws)
            fast.call(True, sample_worlds, p2, fast.Stream(seed * 7 + step), draws, worlds)
            for c in range(52):
                if hidden >> c & 1:
                    holder = r.holder(c)
                    assert holder is not None
                    p = sum(worlds[4 * i + holder] >> c & 1 for i in range(draws)) / draws
                    loss[a].append(-math.log((p * draws + 0.5 / others) / (draws + 0.5)))
    for a, values in loss.items():
        name = "the reading sampler (read=1)" if a is None else f"the pool's odds, likely={a}"
        print(f"{name}: log-loss {sum(values) / len(values):.4f} over {len(values)} hidden cards")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--oracle", type=int, help="rounds of hard's play to screen SPECs on")
    p.add_argument("--marginals", type=int, help="rounds of hard's play to measure the marginals on")
    p.add_argument("--strength", type=int, help="duplicate deals of the head to head against hard")
    p.add_argument("--seed", type=int, default=72)
    p.add_argument("--reader", default="inferring:iterations=2500,pass_budget=3,read=1,likely=1")
    p.add_argument("--against", default=HARD, help="the spec the reader plays against (strength.py's --hard)")
    p.add_argument("specs", nargs="*", default=[f"{HARD},read=1", f"inferring:{HARD.split(':')[1]},read=1,likely=1"])
    args = p.parse_args()
    register_inferring()
    if args.oracle:
        oracle(args.oracle, args.seed, args.specs)
    if args.marginals:
        marginals(args.marginals, args.seed)
    if args.strength:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
        import strength

        strength.main(["--items", "5", "--deals-reader", str(args.strength), "--seed", str(args.seed), "--jobs", "1",
                       "--reader", args.reader, "--hard", args.against])


if __name__ == "__main__":
    main()
