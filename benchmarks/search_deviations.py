"""Where ``search`` departs from ``value``, what the departure earns on the true round.

    python benchmarks/search_deviations.py                    # 12 leshan hands, default options
    python benchmarks/search_deviations.py --preset chengdu --hands 20
    python benchmarks/search_deviations.py --option pick=1 --option z=1.5

Four ``value`` seats play seeded hands; at every decision a ``search`` of that seat (with its
sampler of the real round) decides too. When the two differ, both actions are played on copies
of the **true** round (its real hidden tiles) and the hand is finished by ``value`` for all
four seats: the difference of the seat's results is what the departure earned there
(departures are grouped by the decision and the stage of the hand: early, more than 40 tiles
in the wall; mid; late, 20 or fewer). The sum over a hand and its seats, per hand and seat,
estimates how much better than ``value`` the search's decisions are, without the noise of
whole tournaments (the walls are the same for both actions) but as a one-step measure: play
goes on with ``value`` after each departure.

It is the measurement that showed the sampling bias of docs/search.md (riskier and slower
discards, passed wins). CPU-heavy: about two seconds per hand (four searching seats).
"""

from __future__ import annotations

import argparse
import ast
import math
import time
from collections import defaultdict

from xuezhan.engine import first_dealer, hand_seed
from xuezhan.engine.actions import Action
from xuezhan.engine.decisions import Sampler
from xuezhan.engine.observation import Observation
from xuezhan.engine.round import Round
from xuezhan.search.clone import clone
from xuezhan.search.estimate import Rollouts
from xuezhan.strategies import SearchStrategy, ValueStrategy


def _outcome(rnd: Round, seat: int, action: Action, play: Rollouts) -> int:
    c = clone(rnd, (rnd.rules, rnd.core))
    c.apply(action)
    play.play(c, 0)
    return c.ledger.deltas[seat]


def _stage(wall_count: int) -> str:
    """The stage of the hand by the tiles left in the wall (55 after the deal)."""
    return "early" if wall_count > 40 else "mid" if wall_count > 20 else "late"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default="leshan")
    ap.add_argument("--hands", type=int, default=12)
    ap.add_argument("--seed", type=int, default=77)
    ap.add_argument("--option", action="append", default=[], help="a search option, NAME=VALUE (repeatable)")
    args = ap.parse_args()
    opts = {}
    for o in args.option:
        name, _, value = o.partition("=")
        opts[name] = ast.literal_eval(value)
    play = Rollouts(ValueStrategy)
    kinds: dict[tuple[str, str, str, str], list[int]] = defaultdict(list)
    per_hand: list[float] = []
    decisions = 0
    t0 = time.perf_counter()
    for h in range(args.hands):
        hs = hand_seed(args.seed, h)
        rnd = Round.from_seed(args.preset, hs, first_dealer(hs))
        base = [ValueStrategy() for _ in range(4)]
        search = [SearchStrategy(seed=h * 4 + s, **opts) for s in range(4)]
        for s in range(4):
            base[s].reset(s, rnd.rules)
            search[s].reset(s, rnd.rules)
            search[s].bind_sampler(Sampler(rnd, s))
        gain = 0
        while not rnd.over:
            seat = rnd.turn.cur
            assert seat is not None
            obs = Observation(rnd, seat)
            b = search[seat].act(obs)
            a = base[seat].act(Observation(rnd, seat))
            decisions += 1
            if a != b:
                d = _outcome(rnd, seat, b, play) - _outcome(rnd, seat, a, play)
                kinds[(obs.phase, a.verb, b.verb, _stage(rnd.wall.count))].append(d)
                gain += d
            rnd.apply(a)
        per_hand.append(gain / 4)
    n = len(per_hand)
    mean = sum(per_hand) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_hand) / (n - 1)) if n > 1 else math.inf
    half = 1.96 * sd / math.sqrt(n)
    print(
        f"{args.preset}, {n} hands, {decisions} decisions, options {opts or 'default'}, "
        f"{time.perf_counter() - t0:.0f} s"
    )
    print(f"gain over value per hand and seat: {mean:+.3f} (95% interval {mean - half:+.3f} to {mean + half:+.3f})")
    print("departures (phase, value's verb, search's verb, stage): count, total, mean")
    for k, v in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        print(f"  {k}: {len(v)}, {sum(v):+d}, {sum(v) / len(v):+.2f}")


if __name__ == "__main__":
    main()
