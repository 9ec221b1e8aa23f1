"""The PettingZoo and Gymnasium environments and the observation encoding (R7-safe)."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import hearts.rl
from hearts import Game, IllegalAction, Rules
from hearts.actions import Pass
from hearts.errors import ActionError
from hearts.rl import hearts_v0
from hearts.rl.encoding import ObservationEncoder
from hearts.rl.gym_env import HeartsEnv
from hearts.text import Style
from hearts.view import View


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"players": 3, "round_number": 1},
        {"whole_game": True, "target": 30, "moon": "shooter_chooses", "shaping": True},
        {"players": 6, "jack_of_diamonds": -10, "pass_count": 1},
    ],
)
def test_pettingzoo_api(kwargs: dict[str, object]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(hearts_v0.env(**kwargs), num_cycles=200)


def test_pettingzoo_seed() -> None:
    seed_test(hearts_v0.env, num_cycles=100)


def play_pz(seed: int, **kwargs: object) -> tuple[dict[str, float], int]:
    env = hearts_v0.env(**kwargs)
    env.reset(seed=seed)
    rng = random.Random(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        assert obs["action_mask"].dtype == np.int8
        env.step(rng.choice(list(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return totals, steps


def test_pettingzoo_rewards_are_minus_scores() -> None:
    """R4: one round's rewards sum to -26 (or -78 after a moon); shaping keeps the totals."""
    for seed in range(5):
        plain, steps = play_pz(seed)
        assert sum(plain.values()) in (-26, -78) and steps == 4 * 3 + 52
        shaped, _ = play_pz(seed, shaping=True)
        assert shaped == plain


def test_pettingzoo_whole_game() -> None:
    totals, steps = play_pz(1, whole_game=True, target=40)
    assert min(totals.values()) > -200 and steps > 64


def test_gymnasium_check_env_and_registration() -> None:
    """Gymnasium's checker steps with unmasked random actions: the default environment (a random
    legal action for an illegal one) passes it, as docs/research.md says."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gymnasium.make("hearts.rl:pyhearts/Hearts-v0").unwrapped)
        check_env(HeartsEnv(opponents="heuristic"))
        check_env(gymnasium.make(hearts.rl.ENV_ID, players=5, seat=2, illegal="random").unwrapped)


def test_gymnasium_default_takes_a_random_legal_action_for_an_illegal_one() -> None:
    """R2.1, R3: an action outside the mask (what ``action_space.sample()`` gives) becomes a
    legal one drawn from the episode's seed; ``info`` says so and carries the next mask."""
    env = gymnasium.make("hearts.rl:pyhearts/Hearts-v0")
    obs, info = env.reset(seed=2)
    assert (info["action_mask"] == obs["action_mask"]).all()
    taken = []
    for _ in range(3):  # the pass, one card at a time
        bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        mask = obs["action_mask"]
        obs, reward, _, _, info = env.step(bad)
        assert info["illegal_action"] and mask[info["played_action"]] == 1 and reward == 0.0
        assert (info["action_mask"] == obs["action_mask"]).all()
        assert (env.unwrapped.action_masks() == obs["action_mask"].astype(bool)).all()
        taken.append(info["played_action"])
    again = gymnasium.make("hearts.rl:pyhearts/Hearts-v0")
    obs, _ = again.reset(seed=2)
    for card in taken:  # the same seed, the same substitutes
        _, _, _, _, info = again.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        assert info["played_action"] == card
        obs = again.unwrapped._obs()
    _, _, _, _, info = again.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert "illegal_action" not in info


def run_gym(env: HeartsEnv, seed: int) -> list[tuple[bytes, float]]:
    obs, _ = env.reset(seed=seed)
    trace = []
    done = False
    while not done:
        action = int(np.flatnonzero(obs["action_mask"])[-1])
        obs, reward, done, _, _ = env.step(action)
        trace.append((obs["observation"].tobytes(), reward))
    return trace


def test_gymnasium_seeded_reset_is_reproducible() -> None:
    env = HeartsEnv(opponents=["random", "heuristic", "easy"], whole_game=True, target=30)
    a, b = run_gym(env, 7), run_gym(env, 7)
    assert a == b
    assert run_gym(env, 8) != a


def test_gymnasium_illegal_actions() -> None:
    """An action outside the mask raises the engine's error with ``illegal="raise"`` (R2.1 while
    passing, R3 while playing, R1.2 for an int that is no card) and changes nothing;
    ``illegal="random"`` replaces it with a random legal action and says so."""
    strict = HeartsEnv(opponents="heuristic", whole_game=True, illegal="raise")
    obs, _ = strict.reset(seed=1)
    for _ in range(40):  # passes, then plays
        mask = obs["action_mask"].copy()
        before = obs["observation"].copy()
        for bad in (int(np.flatnonzero(mask == 0)[0]), 52, -1):
            with pytest.raises((IllegalAction, ActionError)) as info:
                strict.step(bad)
            assert isinstance(info.value, ValueError) and str(info.value)[:2] in ("R1", "R2", "R3")
            again = strict._obs()
            assert (again["observation"] == before).all() and (again["action_mask"] == mask).all()
        obs, *_ = strict.step(int(np.flatnonzero(mask)[0]))
    lenient = HeartsEnv(illegal="random", illegal_penalty=-1.0)
    obs, _ = lenient.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, _, _, info = lenient.step(bad)
    assert info["illegal_action"] and reward == -1.0
    with pytest.raises(ValueError, match="illegal must be 'raise' or 'random', not 'ignore'"):
        HeartsEnv(illegal="ignore")


def test_encoding_slices() -> None:
    enc = ObservationEncoder(Rules())
    assert enc.size == 622 and enc.slices["hand"] == slice(0, 52)
    lengths = {k: v.stop - v.start for k, v in enc.slices.items()}
    assert sum(lengths.values()) == enc.size
    game = Game(Rules(), seed=4)
    rng = random.Random(4)
    for seat in range(4):
        game.apply(Pass(seat, rng.sample(list(game.round.hand(seat)), 3)))
    for _ in range(6):
        (seat,) = game.actors()
        game.apply(rng.choice(list(game.legal_actions(seat))))
    me = 1
    v = View.of(game, me)
    obs = enc.encode(v)
    s = enc.slices
    assert obs[s["hand"]].sum() == len(v.hand)
    assert obs[s["played"]].sum() == 6 and obs[s["trick"]].sum() == 2
    assert obs[s["passed"]].sum() == 3 and obs[s["received"]].sum() == 3
    trick = obs[s["trick"]].reshape(4, 52)
    assert [int(np.flatnonzero(row)[0]) for row in trick[:2]] == list(v.trick.cards)
    played = obs[s["played"]].reshape(4, 52)
    for seat, card in v.trick.plays:
        assert played[(seat - me) % 4, card] == 1
    assert obs[s["pass_to"]].tolist() == [0, 1, 0, 0]
    assert (obs >= enc.low).all() and (obs <= enc.high).all()


def test_encoding_is_r7_safe() -> None:
    """R7: swapping the unplayed cards of the other seats (keeping what this seat knows) leaves
    its observation unchanged."""
    enc = ObservationEncoder(Rules(pass_count=0))
    rng = random.Random(11)
    compared = 0
    for trial in range(30):
        game = Game(Rules(pass_count=0), seed=trial)
        for _ in range(rng.randrange(0, 40)):
            (seat,) = game.actors()
            game.apply(rng.choice(list(game.legal_actions(seat))))
        r = game.round
        me = 0
        obs = enc.encode(View.of(game, me))
        # Redeal the other seats' unplayed cards at random (same counts), replay the same plays.
        others = [s for s in range(4) if s != me]
        unplayed = [c for s in others for c in r.hand(s)]
        rng.shuffle(unplayed)
        hands = [r.dealt[s].mask for s in range(4)]
        i = 0
        for s in others:
            played_by_s = r.dealt[s].mask & ~r.hand(s).mask
            k = len(r.hand(s))
            hands[s] = played_by_s | sum(1 << c for c in unplayed[i : i + k])
            i += k
        twin = Game(Rules(pass_count=0), deals=[hands])
        try:
            for action in game.history:
                twin.apply(action)
        except IllegalAction:
            continue  # the redeal made a past play illegal (a void it broke): not comparable
        assert (enc.encode(View.of(twin, me)) == obs).all()
        assert (enc.encode(View.of(twin, 1)) != enc.encode(View.of(game, 1))).any() or not r.hand(1)
        compared += 1
    assert compared >= 10


# --- imports, registration, extras ----------------------------------------------------------


def _python(code: str) -> str:
    """Run ``code`` in a fresh interpreter; its standard output (it must succeed)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_gymnasium_make_in_a_fresh_interpreter() -> None:
    """Gymnasium's ``module:id`` form imports hearts.rl, which registers the id; after
    ``import hearts.rl`` the plain id works, whichever was imported first."""
    make = 'env = gymnasium.make("{}", opponents="heuristic"); print(env.reset(seed=1)[0]["observation"].shape)'
    assert _python("import gymnasium; " + make.format("hearts.rl:" + hearts.rl.ENV_ID)) == "(622,)"
    assert _python("import hearts.rl, gymnasium; " + make.format(hearts.rl.ENV_ID)) == "(622,)"


def test_numpy_is_enough_for_the_encoding_vector_and_selfplay() -> None:
    code = (
        "import sys\n"
        "for name in ('gymnasium', 'pettingzoo', 'pyspiel'): sys.modules[name] = None\n"
        "import hearts.rl.encoding, hearts.rl.vector, hearts.rl.selfplay\n"
        "print(hearts.rl.vector.simulate(hearts.Rules(), 8, seed=1).shape)"
    )
    assert _python(code) == "(8, 4)"


@pytest.mark.parametrize(
    ("blocked", "module", "extra"),
    [
        (["gymnasium"], "hearts.rl.gym_env", "rl"),
        (["pettingzoo"], "hearts.rl.hearts_v0", "rl"),
        (["numpy", "gymnasium"], "hearts.rl.vector", "rl"),
        (["pyspiel"], "hearts.rl.openspiel_game", "openspiel"),
    ],
)
def test_a_missing_package_names_its_extra(blocked: list[str], module: str, extra: str) -> None:
    code = (
        "import importlib, sys\n"
        f"for name in {blocked!r}: sys.modules[name] = None\n"
        f"try: importlib.import_module({module!r})\n"
        "except ModuleNotFoundError as e: print(type(e).__name__, e)"
    )
    assert _python(code) == (
        f"MissingExtra {module} needs {blocked[0]}: install pyhearts[{extra}] (pip install 'pyhearts[{extra}]')"
    )


# --- rendering, actions outside the space -------------------------------------------------------


def test_render_shows_the_table() -> None:
    """Every hand, the trick, the points; ANSI colours (red diamonds and hearts) only for "ansi"."""
    plain = HeartsEnv(opponents="heuristic", seat=1)
    obs, _ = plain.reset(seed=2)
    assert plain.text() is not None
    for _ in range(5):
        obs, *_ = plain.step(int(np.flatnonzero(obs["action_mask"])[0]))
    text = plain.text()
    assert text is not None and text.startswith("Round 1: trick ") and "seat 1 (you)" in text
    r = plain._driver.round  # type: ignore[union-attr]
    for seat in range(4):
        assert Style().sorted_cards(r.hand(seat)) in text
    assert ("  trick: " in text) == bool(r.current_trick.cards) and "\x1b[" not in text
    coloured = HeartsEnv(opponents="heuristic", render_mode="ansi")
    coloured.reset(seed=2)
    assert "\x1b[31m" in (coloured.render() or "")
    pz = hearts_v0.env(render_mode="ansi")
    pz.reset(seed=2)
    assert "player_3" in pz.render() and "\x1b[31m" in pz.render()
    with pytest.raises(ValueError, match="render_mode must be"):
        HeartsEnv(render_mode="rgb_array")


def test_human_render_prints(capsys: pytest.CaptureFixture[str]) -> None:
    env = HeartsEnv(opponents="random", render_mode="human")
    obs, _ = env.reset(seed=3)
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.render() is None and "Round 1: passing" in capsys.readouterr().out


@pytest.mark.parametrize("bad", [52, -1, 2.5, "3", None, np.float32(4)])
def test_an_action_outside_the_space_is_an_error(bad: object) -> None:
    """R1.2: anything but an int 0..51 is refused in both modes of the Gymnasium environment and
    by the PettingZoo one, and changes nothing."""
    for illegal in ("raise", "random"):
        env = HeartsEnv(opponents="random", illegal=illegal)
        obs, _ = env.reset(seed=4)
        with pytest.raises(ActionError, match=r"is not an action: expected an int 0\.\.51"):
            env.step(bad)  # type: ignore[arg-type]
        assert (env._obs()["observation"] == obs["observation"]).all()
    pz = hearts_v0.raw_env()
    pz.reset(seed=4)
    if bad is not None:
        with pytest.raises(ActionError):
            pz.step(bad)
    card = int(np.flatnonzero(env._obs()["action_mask"])[0])
    env.step(np.int64(card))  # numpy ints are in the space
