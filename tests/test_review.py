"""Game review (``hearts.review``): positions with an obvious best and worst choice for 3, 4 and
6 players, what the review may know (R7), reproducibility, parallel workers, the JSON and the
text report.

Rule numbers refer to docs/rules.md: R1.2 (deck and hand sizes), R2 (passing), R3.1–R3.4 (leading,
following, the first trick, breaking hearts), R4.1 (points), R7 (a seat sees only its view).
Budgets are small: these tests check the review, not the search's strength.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
from pathlib import Path

import pytest

from hearts import Card, CardSet, Game, Phase, Round, Rules
from hearts.actions import Pass, Play, from_dict
from hearts.bots import make_bot
from hearts.cards import cards_of
from hearts.errors import HeartsError
from hearts.review import (
    VERDICTS,
    Decision,
    GameReview,
    ReviewError,
    Thresholds,
    cross_fitted_loss,
    format_review,
    review_game,
)
from hearts.view import View

HOLD = ("hold",)  # R2.2: a pass cycle without passes, so a hand-built deal is played as dealt


def play(target: Game | Round, moves: str) -> None:
    """Play cards given as text, in turn order (R3)."""
    for text in moves.split():
        r = target.round if isinstance(target, Game) else target
        assert r.to_move is not None
        target.apply(Play(r.to_move, text))


def decision_at(review: GameReview, index: int) -> Decision:
    """The reviewed decision of the action ``index`` of the history."""
    return next(d for r in review.rounds for d in r.decisions if d.index == index)


# --- obvious positions ------------------------------------------------------------------------

FOUR = [  # seat 2 leads the 2♣ (R3.1); seat 1 wins it with the A♣ and leads the 9♠
    "4C 5C 2S 3S 4S QS 2D 3D 4D 5D 2H 3H 4H",
    "AC KC 9S TS JS 6D 7D 8D 9D 7H 8H 9H TH",
    "2C 6C 7C 5S KS AS TD JD QD JH QH KH AH",
    "3C 8C 9C TC JC QC 6S 7S 8S KD AD 5H 6H",
]
LOW_SPADES = {Play(0, "2S"), Play(0, "3S"), Play(0, "4S")}


@pytest.mark.parametrize(("card", "flagged"), [("QS", True), ("2S", False)])
def test_four_players_dropping_the_queen_on_your_own_trick(card: str, flagged: bool) -> None:
    """4 players: seat 0 is last to a spade trick led with the 9♠ (R3.2). The Q♠ wins it and
    its 13 points (R4.1); a low spade ducks, and two more guard the queen. Playing the Q♠ is
    a blunder and the review names a low spade; playing the 2♠ is not flagged."""
    game = Game(Rules(pass_cycle=HOLD), seed=1, deals=[FOUR])
    play(game, "2C 3C 4C AC 9S 5S 6S")
    play(game, card)
    review = review_game(game, seats=[0], budget=80, seed=3)
    d = decision_at(review, len(game.history) - 1)
    assert d.trick == 1 and [str(p.card) for p in d.table] == ["9S", "5S", "6S"]
    assert {o.action for o in d.options} == {*LOW_SPADES, Play(0, "QS")}
    assert d.best in LOW_SPADES
    if flagged:
        assert d.verdict == "blunder" and d.loss >= 5 and d.loss > 2 * d.loss_stderr
        assert d.value(Play(0, "QS")).mean - d.value(d.best).mean >= 5
        assert review.rounds[0].worst[0] == d
        text = format_review(review, ["You", "East", "South", "West"])
        assert f"BLUNDER: Q♠ cost {d.loss:.2f} ± {d.loss_stderr:.2f} points: {d.best.card.symbol} expected" in text
        assert "estimates" in text
    else:
        assert d.verdict in ("best", "ok") and d.loss <= 0.5


THREE = [  # 3 players (R1.2: no 2♦, 17 cards each); seat 2 leads the 2♣
    "3C 4C 5C 6C 7C 8C 2H TH JH QH KH AH 3D 4D 5D 6D 7D",
    "AC KC 9C TC JC QC 4H 5H 6H 7H 8H 9H 2S 3S 4S 5S 6S",
    "2C 3H QS 8D 9D TD JD QD KD AD 7S 8S 9S TS JS KS AS",
]


def test_three_players_taking_a_heart_trick_when_a_lower_card_was_safe() -> None:
    """3 players, a single round: seat 2 breaks hearts on a club trick (R3.4), then discards
    the Q♠ on seat 1's 5♥ lead. Seat 0, last, takes the trick (15 points) with the K♥ although
    its 2♥ was safe: a blunder, and the review names the 2♥."""
    rules = Rules(players=3)
    r = Round(rules, THREE, round_number=2)  # the hold round of 3 players (R2.2)
    assert r.phase is Phase.PLAYING
    play(r, "2C 3C AC KC 3H 4C 5H QS KH")
    review = review_game(r, seats=[0], budget=60, seed=2)
    d = decision_at(review, 8)
    assert d.chosen == Play(0, "KH") and d.best == Play(0, "2H")
    assert d.verdict == "blunder" and d.loss >= 10
    assert len(d.options) == 6  # every heart it holds (R3.2)
    assert review.rounds[0].points is None  # the round is still being played
    assert "BLUNDER: K♥ cost" in format_review(review)


SIX = [  # 6 players (R1.2: no 2♣ 3♣ 2♦ 2♠, 8 cards each); seat 1 leads the 4♣ (R3.1)
    "9C TC 4H TH 9D 8S 7H QS",
    "4C JC 6H 7D TD AS AD 3S",
    "5C QC 8H KH KD 9S 3D 4S",
    "6C KC 9H JH JD TS 4D 5S",
    "7C AC 3H QH QD JS 5D 6S",
    "8C 2H 5H AH 8D KS 6D 7S",
]


def test_six_players_keeping_the_queen_instead_of_discarding_it() -> None:
    """6 players: seat 0 keeps its Q♠ twice when it could have let it go on another player's
    trick. At the sixth trick it follows with the 8♠ although the K♠ already covers its queen
    (seat 1, to play after it, might lead a spade next, R3.2). At the seventh it is void in
    diamonds and discards the 7♥ on seat 1's A♦ instead of the Q♠, and must then win the last
    trick, all spades below the queen, with it: exactly 13 points lost in every sample, the
    unseen cards being those five spades wherever they lie."""
    game = Game(Rules(players=6, pass_cycle=HOLD), seed=1, deals=[SIX])
    play(game, "4C 5C 6C 7C 8C 9C")  # seat 0 wins, leads
    play(game, "TC JC QC KC AC 2H")  # seat 4 wins, hearts are broken (R3.4)
    play(game, "3H 5H 4H 6H 8H 9H")  # seat 3 wins
    play(game, "JH QH AH TH 7D KH")  # seat 5 wins
    play(game, "8D 9D TD KD JD QD")  # seat 2 wins
    play(game, "9S TS JS KS 8S AS")  # seat 1 wins
    play(game, "AD 3D 4D 5D 6D 7H")  # seat 0 discards the 7♥
    play(game, "3S 4S 5S 6S 7S QS")
    result = game.rounds[0].result
    assert result is not None and result.scores[0] == 13
    review = review_game(game, seats=[0], budget=100, seed=4)  # (with 30 samples the sixth's cross-fitted loss can come out 0)
    sixth, seventh = decision_at(review, 34), decision_at(review, 41)
    assert sixth.trick == 5 and sixth.chosen == Play(0, "8S") and sixth.best == Play(0, "QS")
    assert seventh.trick == 6 and seventh.chosen == Play(0, "7H") and seventh.best == Play(0, "QS")
    assert seventh.loss == pytest.approx(13) and seventh.loss_stderr == 0
    assert sixth.verdict == seventh.verdict == "blunder"
    rr = review.rounds[0]
    assert rr.points == 13 and rr.worst[:2] == (seventh, sixth) and rr.forced == 2  # first, last trick
    assert rr.summary.blunders == 2 and rr.summary.points_lost >= 13


def test_a_pass_is_valued_against_the_search_candidates() -> None:
    """R2: a pass is compared with the search's candidate passes and the pass chosen; keeping
    the Q♠ without a spade to guard it costs points against passing it."""
    hand = "QS 2C 3C 4C 5C 6C 7C 2D 3D 4D 5D 6D 7D"
    deal = [hand, *(_others(hand, 4))]
    game = Game(Rules(), seed=1, deals=[deal])
    game.apply(Pass(0, "2C 3C 4C"))
    review = review_game(game, seats=[0], budget=120, seed=1)
    d = review.rounds[0].decisions[0]
    assert d.trick is None and d.chosen == Pass(0, "2C 3C 4C") and len(d.options) > 10
    assert Card.parse("QS") in d.best.cards  # type: ignore[union-attr]
    assert d.verdict in ("mistake", "blunder") and "Pass" in format_review(review)


def _others(hand: str, players: int) -> list[str]:
    """The rest of the deck dealt round the other seats."""
    rest = cards_of(Rules(players=players).deck_mask & ~CardSet.parse(hand).mask)
    return [str(CardSet(rest[k :: players - 1])) for k in range(players - 1)]


# --- what the review may know (R7) --------------------------------------------------------------


def bot_game(rules: Rules, seed: int, actions: int) -> Game:
    """A game in which ``medium`` bots took the first ``actions`` actions."""
    game = Game(rules, seed=seed)
    bots = [make_bot("medium", seed=s) for s in range(rules.players)]
    for _ in range(actions):
        seat = game.actors()[0]
        game.apply(bots[seat].act(View.of(game, seat)))
    return game


def reshuffled(game: Game, seat: int, rng: random.Random) -> Game:
    """The same actions on another deal that ``seat`` cannot tell from the real one (R7): the
    other seats' unplayed cards, except those anyone passed, are shuffled among them, each
    keeping its number of such cards and getting none of a suit it has shown it lacks."""
    r = game.round
    n = r.players
    passed = sum((r.passed(s) or CardSet()).mask for s in range(n))
    others = [s for s in range(n) if s != seat]
    free = {s: r.hand(s).mask & ~passed for s in others}
    for _attempt in range(200):
        pool = [c for s in others for c in cards_of(free[s])]
        rng.shuffle(pool)
        new = {s: 0 for s in others}
        left = {s: free[s].bit_count() for s in others}
        for c in pool:
            can = [s for s in others if left[s] and c.suit not in r.voids(s)]
            if not can:
                break
            s = rng.choice(can)
            new[s] |= 1 << c
            left[s] -= 1
        else:
            deal = [h.mask for h in r.dealt]
            for s in others:
                deal[s] = deal[s] & ~free[s] | new[s]
            other = Game(game.rules, game.seed, deals=[deal])
            try:
                for action in game.history:
                    other.apply(action)
            except HeartsError:  # a play that the new hand makes illegal (e.g. R3.3): try again
                continue
            if [other.round.hand(s) for s in others] != [r.hand(s) for s in others]:
                return other
    raise AssertionError("no other deal found")


@pytest.mark.parametrize(("players", "actions"), [(4, 4 + 23), (3, 3 + 20), (6, 6 + 25)])
def test_the_review_never_reads_the_hidden_cards(players: int, actions: int) -> None:
    """R7: after the other seats' unplayed cards are shuffled among them consistently with
    the reviewed seat's view (hand sizes, shown voids, its passed cards still with their
    receiver), every view of that seat is the same and so is its review."""
    game = bot_game(Rules(players=players), seed=players, actions=actions)
    seat = game.round.to_move
    assert seat is not None and game.round.phase is Phase.PLAYING
    other = reshuffled(game, seat, random.Random(players))
    assert View.of(other, seat) == View.of(game, seat)
    first = review_game(game, seats=[seat], budget=16, seed=5)
    second = review_game(other, seats=[seat], budget=16, seed=5)
    assert first.rounds[0].decisions and first.to_dict() == second.to_dict()


# --- reproducibility, workers, progress, JSON ------------------------------------------------------


@pytest.fixture(scope="module")
def finished() -> Game:
    """A short finished game (``easy`` bots, two seats reviewed below)."""
    game = Game(Rules(target=1), seed=8)
    bots = [make_bot("easy", seed=s) for s in range(4)]
    while not game.is_over:
        seat = game.actors()[0]
        game.apply(bots[seat].act(View.of(game, seat)))
    return game


def test_same_seed_same_review_and_workers_change_nothing(finished: Game) -> None:
    """The review is a function of the game, the seats, the budget and the seed: the same
    twice, and the same with two worker processes as with one; another seed samples anew."""
    calls: list[tuple[int, int]] = []
    one = review_game(finished, seats=[0, 2], budget=12, seed=7, on_progress=lambda d, t: calls.append((d, t)))
    again = review_game(finished, seats=[0, 2], budget=12, seed=7)
    two = review_game(finished, seats=[0, 2], budget=12, seed=7, jobs=2)
    assert one == again == two
    assert one != review_game(finished, seats=[0, 2], budget=12, seed=8)
    total = sum(len(r.decisions) for r in one.rounds)
    assert calls[0] == (0, total) and calls[-1] == (total, total) and len(calls) == total + 1
    assert [r.seat for r in one.rounds] == [0, 2] * len(finished.rounds)


def test_every_decision_of_the_seat_is_reviewed(finished: Game) -> None:
    """Each pass (R2) and each play with a choice (R3) of the seat is a decision; a single
    legal card is a forced play; every verdict is a known one and agrees with the loss."""
    review = review_game(finished, seats=[1], budget=8, seed=1)
    history = finished.history
    bounds = [*finished.round_starts, len(history)]
    for rr in review.rounds:
        r = finished.rounds[rr.round]
        acts = [a for a in history[bounds[rr.round] : bounds[rr.round + 1]] if a.seat == 1]
        assert len([a for a in acts if isinstance(a, Pass | Play)]) == len(rr.decisions) + rr.forced
        assert rr.points == (r.result.scores[1] if r.result else None)
        for d in rr.decisions:
            assert d.chosen == finished.history[d.index] and d.verdict in VERDICTS
            assert d.chosen in {o.action for o in d.options} and d.best in {o.action for o in d.options}
            assert d.options == tuple(sorted(d.options, key=lambda o: o.mean))
            assert (d.verdict == "best") == (d.best == d.chosen)
        assert rr.summary.decisions == len(rr.decisions)


def test_json_round_trips_the_actions(finished: Game) -> None:
    """The review's JSON holds its actions in the codec of ``hearts.actions``."""
    review = review_game(finished, seats=[3], budget=8, seed=1)
    data = json.loads(json.dumps(review.to_dict()))
    assert data["format"] == "pyhearts.review" and data["seats"] == [3]
    decisions = [d for r in review.rounds for d in r.decisions]
    loaded = [d for r in data["rounds"] for d in r["decisions"]]
    assert len(loaded) == len(decisions) > 0
    for d, j in zip(decisions, loaded, strict=True):
        assert from_dict(j["chosen"]) == d.chosen and from_dict(j["best"]) == d.best
        assert [from_dict(o["action"]) for o in j["options"]] == [o.action for o in d.options]
        assert [from_dict(p) for p in j["table"]] == list(d.table)
        assert j["loss"] == d.loss and j["verdict"] == d.verdict
    summary = data["summaries"][0]
    assert summary["seat"] == 3 and summary["decisions"] == len(decisions)


# --- the numbers -------------------------------------------------------------------------------


def test_cross_fitting_does_not_reward_luck() -> None:
    """Among options that are truly equal, the best-looking one is the luckiest; the
    cross-fitted loss stays unbiased (about 0), where the plain gap to the best mean would
    be clearly positive."""
    rng = random.Random(1)
    losses, plain = [], []
    for _ in range(200):
        scores = [[rng.choice((0, 13)) for _ in range(40)] for _ in range(10)]
        losses.append(cross_fitted_loss(scores, 0)[0])
        means = [sum(s) / 40 for s in scores]
        plain.append(means[0] - min(means))
    assert abs(sum(losses) / 200) < 0.4 < sum(plain) / 200


def test_thresholds_and_bad_requests(finished: Game) -> None:
    """Precise errors for what cannot be reviewed."""
    with pytest.raises(ReviewError, match="no seat 4"):
        review_game(finished, seats=[4])
    with pytest.raises(ReviewError, match="budget"):
        review_game(finished, budget=3)
    with pytest.raises(ReviewError, match="round 9 has not been played"):
        review_game(finished, rounds=[9])
    with pytest.raises(ReviewError, match="jobs"):
        review_game(finished, jobs=-1)
    with pytest.raises(ReviewError, match="inaccuracy <= mistake <= blunder"):
        Thresholds(mistake=3.0, blunder=2.0)
    strict = Thresholds(inaccuracy=0.1, mistake=0.1, blunder=0.1, z=0)
    assert strict.verdict(0.1, 5.0) == "blunder"
    with pytest.raises(ReviewError, match="names"):
        format_review(review_game(finished, seats=[0], budget=4, rounds=[0]), ["Ann"])


def test_the_benchmark_ends_with_its_line(capsys: pytest.CaptureFixture[str]) -> None:
    """``benchmarks/review.py`` ends with ``easy_loss=X hard_loss=Y review_s=Z`` (tiny budgets:
    this checks the script, not the review's power)."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "review.py"
    spec = importlib.util.spec_from_file_location("review_benchmark", path)
    assert spec is not None and spec.loader is not None
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    assert benchmark.main(["--rounds", "2", "--budget", "8", "--hard", "search:iterations=30", "--jobs", "1"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.fullmatch(r"easy_loss=-?\d+\.\d\d hard_loss=-?\d+\.\d\d review_s=\d+\.\d\d", last), last
