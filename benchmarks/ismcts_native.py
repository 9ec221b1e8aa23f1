"""The issue's reference figure, measured inside OpenSpiel alone: its C++ ISMCTS against three
uniformly random players in OpenSpiel's own ``hearts`` (no adapter, none of our code in the game).

    .venv/bin/python benchmarks/ismcts_native.py [--simulations 1000] [--rounds 400] [--seed 11]

OpenSpiel's ``hearts`` is one round with its default options (passing on, no points on the first
trick, hearts must be broken, the Q♠ breaks hearts: the same rules as our ``Rules()``); its
chance nodes (the pass direction, the deal) are drawn with ``--seed``. ISMCTS is player 0, built
as ``strength.py``'s reference is (``pyspiel.ISMCTSBot`` with a one-rollout
``RandomRolloutEvaluator``, uct_c 2, every simulation on a new world sample, the most visited
action); players 1–3 pick uniformly among their legal actions. A player's points are
``26 - return``. Points per round, lower is better, with a 95% interval (normal approximation).
This needs the ``openspiel`` extra. The last line is
``native_ismcts_vs_random=A ci=[L,H] rounds=N moons_suffered=M``.
"""

from __future__ import annotations

import argparse
import math
import random
import sys

from hearts.arena import Progress, interval_text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    import pyspiel  # the openspiel extra

    game = pyspiel.load_game("hearts")
    chance = random.Random(args.seed)
    players = random.Random(args.seed + 1)
    evaluator = pyspiel.RandomRolloutEvaluator(1, args.seed)
    bot = pyspiel.ISMCTSBot(args.seed, evaluator, 2.0, args.simulations, -1,
                            pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
    points: list[float] = []
    progress = Progress(args.rounds, "round", "bar")
    progress.begin("")
    for _ in range(args.rounds):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(chance.choice(state.chance_outcomes())[0])
            elif state.current_player() == 0:
                state.apply_action(bot.step(state))
            else:
                state.apply_action(players.choice(state.legal_actions()))
        points.append(26 - state.returns()[0])
        progress.advance(1)
    progress.end()
    n = len(points)
    mean = sum(points) / n
    half = 1.96 * math.sqrt(sum((p - mean) ** 2 for p in points) / (n - 1) / n)
    moons = sum(1 for p in points if p == 26)
    print(f"ISMCTS ({args.simulations} simulations) vs 3 random, OpenSpiel's own hearts: "
          f"{mean:.2f} {interval_text(mean - half, mean + half)} points per round over {n} rounds")
    print(f"native_ismcts_vs_random={mean:.2f} ci={interval_text(mean - half, mean + half, compact=True)} "
          f"rounds={n} moons_suffered={moons}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
