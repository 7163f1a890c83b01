"""The reinforcement-learning environments (xuezhan.env): the official PettingZoo and Gymnasium
checkers, the action mask against the engine's legal actions, what an observation may hold,
rewards against the hand's deltas (R12.2), per-seat termination (R4.5) and determinism (R1.4)."""

from __future__ import annotations

import doctest
import random
import re
import types
import warnings
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, seed_test

import xuezhan.env as xe
from xuezhan.engine import Round, deal, first_dealer, public_view
from xuezhan.engine.actions import EXCHANGE
from xuezhan.env import encoding as E
from xuezhan.env.actions import EXCHANGE0, N_ACTIONS, id_action, pick_kinds
from xuezhan.strategies import GreedyStrategy
from xuezhan.tiles import parse_tiles

PRESETS = ("leshan", "chengdu", "xueliu")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checkers' advice on Dict observations
        yield


def _play(env, pick):
    """Drive an AEC env with ``pick(obs, agent) -> id`` to the end of the hand; returns the
    per-agent return and the (agent, reward, done) of every step."""
    returns = dict.fromkeys(env.possible_agents, 0.0)
    seen = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _info = env.last()
        returns[agent] += reward
        seen.append((agent, reward, term or trunc))
        env.step(None if term or trunc else pick(obs, agent))
    return returns, seen


def _random_pick(rng):
    def pick(obs, agent):
        ids = np.flatnonzero(obs["action_mask"])
        return int(ids[int(rng.random() * len(ids))])

    return pick


# ---------------------------------------------------------------- official checkers
@pytest.mark.parametrize("rules", PRESETS)
def test_pettingzoo_api_test(rules):
    api_test(xe.aec_env(rules), num_cycles=300)


@pytest.mark.parametrize("rules", PRESETS)
def test_pettingzoo_seed_test(rules):
    seed_test(lambda: xe.aec_env(rules), num_cycles=300)


@pytest.mark.parametrize("rules", PRESETS)
def test_pettingzoo_parallel_api_test(rules):
    parallel_api_test(xe.parallel_env(rules), num_cycles=300)


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_max_cycles_test(preset):
    """PettingZoo's checker: with ``max_cycles`` every agent takes exactly that many steps. A
    seat that has had its cycles is truncated and the engine plays its R10 defaults while the
    others play on (claims make the order of seats irregular, so cycles are counted per seat);
    ``illegal="default"`` plays the R10 default for the checker's unmasked actions."""
    mod = types.SimpleNamespace(
        env=lambda max_cycles: xe.aec_env(preset, max_cycles=max_cycles, illegal="default"),
        parallel_env=lambda max_cycles: xe.parallel_env(preset, max_cycles=max_cycles, illegal="default"),
    )
    for _ in range(20):
        max_cycles_test(mod)


def test_max_cycles_caps_every_seat_in_play():
    """In play (claims make the order irregular) no seat takes more than max_cycles steps and
    every seat still in the hand is truncated, none terminated, when the cap is reached."""
    for seed in range(20):
        env = xe.aec_env("leshan", max_cycles=6)
        env.reset(seed=seed)
        rng = random.Random(seed)
        counts = dict.fromkeys(env.possible_agents, 0)
        truncated = set()
        for agent in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                if trunc:
                    truncated.add(agent)
                env.step(None)
                continue
            counts[agent] += 1
            env.step(_random_pick(rng)(obs, agent))
        assert max(counts.values()) == 6
        assert truncated == set(env.possible_agents)


@pytest.mark.parametrize("opponents", [["value", "value", "value"], ["random", GreedyStrategy(), "greedy"]])
def test_gymnasium_check_env(opponents):
    check_env(xe.single_agent(opponents=opponents, seat=1), skip_render_check=True)
    check_env(
        xe.single_agent(opponents=opponents, seat=0, rules="chengdu"),
        skip_render_check=True,
    )
    check_env(xe.single_agent(opponents=opponents, seat=2, rules="xueliu"), skip_render_check=True)


# ---------------------------------------------------------------- the mask (R2, R3, R11)
def _exchange_choices(hand: bytes) -> set[tuple[int, ...]]:
    """Every three-tile choice reachable by following pick masks (R11.1)."""
    out: set[tuple[int, ...]] = set()

    def rec(picks):
        if len(picks) == 3:
            out.add(tuple(sorted(picks)))
            return
        for k in pick_kinds(hand, picks):
            rec([*picks, k])

    rec([])
    return out


@pytest.mark.parametrize("rules", PRESETS)
def test_mask_is_exactly_the_legal_actions(rules):
    """Over many seeded steps: the ids the mask allows are exactly the engine's legal actions;
    in the exchange (R11.1) the choices reachable pick by pick are exactly the legal ones."""
    rng = random.Random(5)
    steps = 0
    for seed in range(25):
        env = xe.aec_env(rules)
        env.reset(seed=seed)
        rnd = env.round
        for agent in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(agent[-1])
            legal = rnd.legal_actions(seat)
            ids = np.flatnonzero(obs["action_mask"])
            if legal[0].verb == EXCHANGE:
                if not env.exchange_picks:
                    reach = _exchange_choices(rnd.observation(seat).hand)
                    assert reach == {a.arg for a in legal}
                assert all(i >= EXCHANGE0 for i in ids)
            else:
                assert {id_action(seat, int(i)) for i in ids} == set(legal)
                assert len(ids) == len(legal)
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()
            env.step(int(ids[int(rng.random() * len(ids))]))
            steps += 1
    assert steps > 1500


# ---------------------------------------------------------------- what an observation holds
def _reconstruct(rnd, wall, seat):
    """Planes of ``seat`` rebuilt from full knowledge (every seat's own observation and the
    dealt wall), by direct loops, independently of the encoder."""
    views = [rnd.observation(s) for s in range(4)]
    me = views[seat]
    x = np.zeros((E.N_PLANES, 27), np.float32)
    x[E.HAND] = list(me.hand)
    if me.drawn >= 0:
        x[E.DRAWN, me.drawn] = 1
    others = np.zeros(27)
    for s in range(4):
        if s != seat:
            others += np.frombuffer(views[s].hand, np.uint8)
    remaining = wall[len(wall) - me.wall_count :]
    for k in remaining:
        others[k] += 1
    x[E.UNSEEN] = others  # what the seat cannot see: the other hands and the wall
    # R14: each seat's wins from the hand's Win events (a tile set aside when self-drawn and
    # winners stay), its locked state from the round
    win_events = [e for e in rnd.ledger.events if e.type == "win"]
    for r in range(4):
        s = (seat + r) % 4
        mine = [e for e in win_events if e.seat == s]
        for e in mine:
            k = parse_tiles(e.tile)[0]
            x[E.WINS + r, k] += 1
            if rnd.rules.stay and e.how == "self_draw":
                x[E.ASIDE + r, k] += 1
        x[E.WIN_COUNT + r] = len(mine)
        x[E.LOCKED + r] = 1 if rnd.locked(s) else 0
        for k in me.discards[s]:
            x[E.DISCARDS + r, k] += 1
        for typ, k in me.melds[s]:
            x[(E.PUNG, E.KONG, E.CONCEALED_KONG)[typ] + r, k] = 1
        if me.won[s]:
            x[E.WON + r] = 1
        x[E.DELTAS + r] = me.deltas[s]
        if me.dealer == s:
            x[E.DEALER + r] = 1
        v = me.voids[s]
        if v >= 0:
            x[E.VOID + r, 9 * v : 9 * v + 9] = 1
    if me.claim_tile is not None:
        x[E.CLAIM_TILE, me.claim_tile] = 1
        x[E.CLAIM_FROM + (me.claim_from - seat) % 4] = 1
        x[E.ROBBING] = 1 if me.robbing else 0
    x[E.PHASE + ("exchange", "void", "turn", "claim").index(me.phase)] = 1
    x[E.WALL] = me.wall_count / 55
    x[E.LAST_TILES] = 1 if me.last_tiles else 0
    return x


@pytest.mark.parametrize("rules", PRESETS)
def test_observation_matches_full_knowledge_and_hides_other_hands(rules):
    """Every plane equals its reconstruction from full knowledge; the unseen plane is exactly
    the other seats' concealed tiles plus the wall, so the tensor holds no more than their sum;
    and a seat's tensor is the same whether or not the other seats were observed before (the
    shared encoder carries nothing from one seat's observation into another's)."""
    rng = random.Random(11)
    for seed in range(8):
        dealer = first_dealer(seed)
        _hands, wall, _d = deal(seed, dealer)
        env = xe.aec_env(rules)
        env.reset(seed=seed)
        rnd = env.round
        for agent in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(agent[-1])
            x = obs["observation"]
            want = _reconstruct(rnd, wall, seat)
            if env.exchange_picks:
                for k in env.exchange_picks:
                    want[E.PICKS, k] += 1
            np.testing.assert_array_equal(x, want)
            fresh = E.Encoder(stay=rnd.rules.stay).encode(rnd.observation(seat), list(env.exchange_picks))
            np.testing.assert_array_equal(x, fresh)
            for other in range(4):  # another seat's tensor: its own hand only
                y = env.observe(f"player_{other}")["observation"]
                np.testing.assert_array_equal(y[E.HAND], list(rnd.observation(other).hand))
            ids = np.flatnonzero(obs["action_mask"])
            env.step(int(ids[int(rng.random() * len(ids))]))


def test_other_voids_hidden_until_revealed():
    """R11.2: another seat's void choice is not in the tensor before all four are revealed;
    the seat's own choice is, and after the reveal every seat's is."""
    env = xe.aec_env("chengdu")
    env.reset(seed=3)
    in_void_phase = 0
    for _agent in env.agent_iter():
        obs, _r, term, trunc, _i = env.last()
        if term or trunc:
            env.step(None)
            continue
        x = obs["observation"]
        if x[E.PHASE + 1, 0] == 1:  # void phase: nobody's choice is shown to another seat
            in_void_phase += 1
            assert not x[E.VOID + 1 : E.VOID + 4].any()
        elif x[E.PHASE + 2, 0] == 1:
            assert x[E.VOID : E.VOID + 4].sum() == 4 * 9
        ids = np.flatnonzero(obs["action_mask"])
        env.step(int(ids[0]))
    assert in_void_phase == 4


# ---------------------------------------------------------------- rewards (R6-R8, R12.2)
@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize("reward", ["step", "final"])
def test_rewards_sum_to_the_hand_deltas(rules, reward):
    """Each seat's rewards add up to its hand delta (R12.2), escapes (illegal actions, R10.3)
    included: the escape penalty is in the escapee's delta and its rewards alike."""
    rng = random.Random(2)
    escapes = 0
    for seed in range(30):
        env = xe.aec_env(rules, reward=reward)
        env.reset(seed=seed)
        rnd = env.round
        pick = _random_pick(rng)

        def maybe_illegal(obs, agent, pick=pick, seed=seed):
            if seed % 10 == 9 and rng.random() < 0.02:
                return int(np.flatnonzero(obs["action_mask"] == 0)[0])
            return pick(obs, agent)

        returns, seen = _play(env, maybe_illegal)
        deltas = rnd.result()["deltas"]
        assert [returns[a] for a in xe.AGENTS] == [float(d) for d in deltas]
        escapes += rnd.result()["end"] == "escape"
        if reward == "final":  # nothing is credited before the hand ends
            assert all(r == 0 for _a, r, done in seen if not done)
    assert escapes >= 1


def test_step_rewards_arrive_when_paid():
    """A kong or win payment (R6) is credited at the step it happens, to both seats: the
    step's rewards are the step's ``pay`` events, read as every seat may see them."""
    env = xe.aec_env("leshan")
    rng = random.Random(4)
    checked = 0
    for seed in range(40):
        env.reset(seed=seed)
        rnd = env.round
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.step(None)
                continue
            ids = np.flatnonzero(obs["action_mask"])
            prefer = [i for i in ids if i in (27, 28, 29) or 30 <= i < 84]
            n0 = len(rnd.ledger.events)
            env.step(int(prefer[0]) if prefer else int(ids[int(rng.random() * len(ids))]))
            views = [public_view(e, 0) for e in rnd.ledger.events[n0:]]
            pays = [v for v in views if v is not None and v["type"] == "pay"]
            if pays and not rnd.over:
                want = dict.fromkeys(xe.AGENTS, 0.0)
                for p in pays:
                    want[f"player_{p['from']}"] -= p["amount"]
                    if p["to"] is not None:
                        want[f"player_{p['to']}"] += p["amount"]
                assert {a: env.rewards[a] for a in env.agents} == {a: want[a] for a in env.agents}
                checked += 1
    assert checked >= 20


def _strategy_pick(env, strategies):
    """Pick ids as ``strategies`` (one per seat) would act; an exchange is picked tile by tile."""
    chosen: dict[int, list[int]] = {}

    def pick(obs, agent):
        seat = int(agent[-1])
        view = env.round.observation(seat)
        if view.phase == "exchange":
            if not env.exchange_picks:
                chosen[seat] = list(strategies[seat].act(view).arg)
            return EXCHANGE0 + chosen[seat][len(env.exchange_picks)]
        return xe.action_id(strategies[seat].act(view))

    return pick


def _greedy_env(preset: str, seed: int):
    """An environment reset to ``seed`` with four greedy bots choosing for it: (env, its round, pick)."""
    env = xe.aec_env(preset)
    env.reset(seed=seed)
    bots = [GreedyStrategy() for _ in range(4)]
    for s, b in enumerate(bots):
        b.reset(s, env.rules)
    return env, env.round, _strategy_pick(env, bots)


def test_winner_is_terminated_while_the_hand_goes_on():
    """R4.5: a seat that wins is terminated at once and never selected to act again while
    the others play on; it is stepped out with None when the hand ends."""
    found = 0
    for seed in range(12):
        env, rnd, pick = _greedy_env("leshan", seed)
        winners: set[str] = set()
        for agent in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                assert rnd.over  # a winner's last step comes only at the end
                env.step(None)
                continue
            assert agent not in winners
            env.step(pick(obs, agent))
            now = {a for a in env.agents if env.terminations[a]}
            if not rnd.over and now != winners:
                assert {f"player_{w['seat']}" for w in rnd.result()["wins"]} == now
                assert len(env.agents) == 4 and env.agent_selection not in now
                found += 1
                winners = now
    assert found >= 5


def test_r14_winner_stays_and_acts_again():
    """R14.1: with winners staying (xueliu) a seat that wins is not terminated; it is selected
    again (its locked turns) until the hand ends, and observations show its winning tiles."""
    found = 0
    for seed in range(12):
        env, rnd, pick = _greedy_env("xueliu", seed)
        for agent in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                assert rnd.over  # nobody is terminated before the end
                env.step(None)
                continue
            seat = int(agent.rsplit("_", 1)[1])
            if rnd.seats.won[seat] and rnd.turn.phase.label == "turn":
                found += 1  # a winner plays its locked turn
                assert rnd.observation(seat).wins[seat]
            env.step(pick(obs, agent))
    assert found >= 5


@pytest.mark.parametrize("preset", ["xueliu", "chengdu"])
def test_wins_and_locked_planes_follow_the_engine_R14(preset):
    """Over seeded hands of greedy players (who win): every seat's tensor equals its
    reconstruction from full knowledge, so its win count is the number of Win events of each
    seat, its won tiles and tiles set aside those of the events, locked is ``Round.locked``, and
    the unseen plane (tiles set aside being seen) is still exactly the other hands plus the wall.
    Several wins and locked seats do occur (xueliu); without R14 nobody is ever locked."""
    most_wins = locked_seen = 0
    for seed in range(10):
        dealer = first_dealer(seed)
        _hands, wall, _d = deal(seed, dealer)
        env, rnd, pick = _greedy_env(preset, seed)
        for agent in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = int(agent[-1])
            x = obs["observation"]
            want = _reconstruct(rnd, wall, seat)
            for k in env.exchange_picks:
                want[E.PICKS, k] += 1
            np.testing.assert_array_equal(x, want)
            most_wins = max(most_wins, int(x[E.WIN_COUNT : E.WIN_COUNT + 4, 0].max()))
            locked_seen += int(x[E.LOCKED : E.LOCKED + 4, 0].sum())
            env.step(pick(obs, agent))
    if preset == "xueliu":
        assert most_wins >= 2 and locked_seen > 0
    else:
        assert most_wins == 1 and locked_seen == 0


# ---------------------------------------------------------------- determinism (R1.4)
@pytest.mark.parametrize("rules", PRESETS)
def test_same_seed_same_hand(rules):
    """reset(seed=s) deals the hand Round.from_seed deals from s, and the same seed and
    actions give byte-identical observations and rewards."""
    for seed in (0, 17):
        runs = []
        for _ in range(2):
            env = xe.aec_env(rules)
            env.reset(seed=seed)
            ref = Round.from_seed(rules, seed, first_dealer(seed))
            seat = ref.turn.cur
            assert env.agent_selection == f"player_{seat}"
            assert env.last()[0]["observation"][E.HAND].tolist() == list(ref.observation(seat).hand)
            rng = random.Random(seed)
            trace = []
            for agent in env.agent_iter():
                obs, r, term, trunc, _i = env.last()
                trace.append(
                    (
                        agent,
                        obs["observation"].tobytes(),
                        obs["action_mask"].tobytes(),
                        r,
                    )
                )
                env.step(None if term or trunc else _random_pick(rng)(obs, agent))
            runs.append(trace)
        assert runs[0] == runs[1]


def test_unseeded_resets_follow_the_constructor_seed():
    a, b = xe.aec_env(seed=9), xe.aec_env(seed=9)
    hands = []
    for env in (a, b):
        seq = []
        for _ in range(3):
            env.reset()
            seq.append(env.hand_seed)
        hands.append(seq)
    assert hands[0] == hands[1] and len(set(hands[0])) == 3
    c = xe.aec_env(seed=9)
    c.reset()
    c.reset(options={"hand_seed": 123})
    assert c.hand_seed == 123
    c.reset()
    assert c.hand_seed == hands[0][1]  # the sequence goes on where it was


# ---------------------------------------------------------------- errors and options
def test_illegal_action_modes():
    env = xe.aec_env("leshan", illegal="raise")
    env.reset(seed=1)
    obs = env.last()[0]
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(xe.IllegalActionError, match=rf"action {bad} \("):
        env.step(bad)
    env = xe.aec_env("leshan")  # default: an escape (R10.3, R8)
    env.reset(seed=1)
    seat = env.agent_selection
    env.step(bad)
    assert env.round.over and env.round.result()["end"] == "escape"
    assert env.rewards[seat] <= -50
    env = xe.aec_env("leshan", illegal="default")  # the R10 default action
    env.reset(seed=1)
    env.step(bad)
    assert not env.round.over and env.infos[seat] == {"illegal_action": bad}


@pytest.mark.parametrize(
    "kwargs, what",
    [
        ({"reward": "sum"}, "reward"),
        ({"illegal": "ignore"}, "illegal"),
        ({"dealer": 4}, "dealer"),
        ({"max_cycles": 0}, "max_cycles"),
        ({"rules": "nowhere"}, "nowhere"),
    ],
)
def test_bad_options_are_named(kwargs, what):
    with pytest.raises(ValueError, match=what):
        xe.aec_env(**kwargs)


def test_action_ids_round_trip():
    assert len(xe.ACTION_NAMES) == N_ACTIONS == 115
    for seat in range(4):
        for i in range(EXCHANGE0):
            assert xe.action_id(id_action(seat, i)) == i


# ---------------------------------------------------------------- single agent
def test_single_agent_return_is_the_hand_delta():
    rng = random.Random(0)
    for rules in PRESETS:
        env = xe.single_agent(opponents=["random", "greedy", "value"], seat=2, rules=rules)
        for seed in range(15):
            obs, _info = env.reset(seed=seed)
            total, done = 0.0, False
            while not done:
                ids = np.flatnonzero(obs["action_mask"])
                obs, r, done, trunc, _info = env.step(int(ids[int(rng.random() * len(ids))]))
                assert not trunc
                total += r
            assert total == env.round.result()["deltas"][2]


# ---------------------------------------------------------------- docs and docstrings
def test_docstring_examples():
    import xuezhan.env.actions
    import xuezhan.env.aec
    import xuezhan.env.encoding
    import xuezhan.env.single

    for mod in (
        xe,
        xuezhan.env.actions,
        xuezhan.env.encoding,
        xuezhan.env.aec,
        xuezhan.env.single,
    ):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.failed == 0


def test_env_guide_examples_run():
    """docs/env.md: its examples, the ten-line training loop included, run as shown."""
    path = Path(__file__).parents[1] / "docs" / "env.md"
    res = doctest.testfile(str(path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert res.attempted >= 5 and res.failed == 0


# ---------------------------------------------------------------- the training example
def test_training_example_trains_and_writes_its_result(tmp_path):
    """examples/train_imitation.py on a tiny budget: it learns (held-out imitation accuracy
    rises above the untrained policy's) and writes the duplicate-match result."""
    import json
    import subprocess
    import sys

    out = tmp_path / "result.json"
    script = Path(__file__).parents[1] / "examples" / "train_imitation.py"
    # A tiny budget: six batches of ten hands (or 60 s, whichever comes first).
    args = [
        "--budget",
        "60",
        "--max-batches",
        "6",
        "--batch-hands",
        "10",
        "--eval-seeds",
        "4",
    ]
    args += ["--out", str(out)]
    proc = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    assert res["examples"] > 0 and res["batches"] == 6
    assert res["accuracy_after"] > res["accuracy_before"]
    for key in ("vs_random_before", "vs_random_after", "vs_untrained"):
        r = res[key]
        assert r["walls"] == 4 and r["low"] <= r["mean"] <= r["high"]
    assert "duplicate match vs random" in proc.stdout


def test_the_readme_and_docs_give_the_observations_planes_the_encoder_has():
    """The README said 48 × 27 planes when the encoder had 64."""
    from xuezhan.env import N_PLANES

    root = Path(__file__).parents[1]
    stated = [
        (p.name, int(m.group(1)))
        for p in [root / "README.md", *sorted((root / "docs").glob("*.md"))]
        for m in re.finditer(r"(\d+) × 27 plane", p.read_text(encoding="utf-8"))
    ]
    assert stated and all(n == N_PLANES for _name, n in stated), stated


def test_training_example_help_says_what_it_does_whole():
    """``--help`` gave the docstring's first line, cut mid-sentence ("then prove it in a")."""
    import subprocess
    import sys

    script = Path(__file__).parents[1] / "examples" / "train_imitation.py"
    out = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=60, check=True
    )
    words = " ".join(out.stdout.split())
    assert "then prove it in a duplicate match against ``random``." in words
