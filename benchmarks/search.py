"""Speed of the ``search`` strategy: time per decision (median, 99th percentile, max) and
rollouts per second, with its default options, one process (one core).

    python benchmarks/search.py                     # 8 hands per preset, leshan and chengdu
    python benchmarks/search.py --hands 20 --preset leshan
    python benchmarks/search.py --rollouts 48 --policy greedy
    python benchmarks/search.py --hands 0          # only the parts of one sample
    python benchmarks/search.py --engine python    # rollouts in the Python engine only

Each row is played twice by default, with the rollouts in the native engine and in the Python
engine (``--engine both``): the same decisions (the rollouts' results are the same), the
native engine's rollouts per CPU second against the Python engine's in the same run.

One ``search`` seat plays against three ``value`` seats; every decision of the search seat
is timed the way the seat loop times it (``time.perf_counter`` around ``act``), searched or
not (a forced decision is not searched), and by the process's CPU time (what one core spends,
whatever else the machine runs). A rollout is one candidate action played on one
sample to the end of the hand; rollouts per second count them over the searched decisions' CPU
time (the sampling, the copies and the candidate pruning included). Run it with nothing else
of yours running: the figures are for one core.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from xuezhan.engine import first_dealer, hand_seed
from xuezhan.rules import as_rules
from xuezhan.search import estimate as estimate_module
from xuezhan.strategies import SearchStrategy, ValueStrategy, rollout_policy
from xuezhan.strategies import search as search_module


class Timed:
    """Wraps a search strategy: the time of every decision, and whether it was searched."""

    def __init__(self, inner: SearchStrategy) -> None:
        self.inner = inner
        self.times: list[float] = []
        self.cpu: list[float] = []
        self.searched_times: list[float] = []  # CPU seconds of the searched decisions
        self.uses_sampler = False

    def reset(self, seat: int, rules: Any) -> None:
        self.inner.reset(seat, rules)

    def act(self, obs: Any) -> Any:
        before = self.inner.searched
        c0 = time.process_time()
        t0 = time.perf_counter()
        a = self.inner.act(obs)
        dt = time.perf_counter() - t0
        self.cpu.append(time.process_time() - c0)
        self.times.append(dt)
        if self.inner.searched > before:
            self.searched_times.append(self.cpu[-1])
        return a


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=8, help="hands per preset (0: only the parts of a sample)")
    ap.add_argument("--preset", action="append", help="rules preset (repeatable; default leshan and chengdu)")
    ap.add_argument("--rollouts", type=int, default=None)
    ap.add_argument("--policy", default="value")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", choices=["both", "native", "python"], default="both", help="where rollouts are played")
    args = ap.parse_args()
    presets = args.preset or ["leshan", "chengdu"]
    engines = ["native", "python"] if args.engine == "both" else [args.engine]
    counted = {"n": 0}
    real_sample = search_module.play_sample

    def counting_sample(base: Any, seat: int, actions: Any, play: Any, seed: int) -> Any:
        counted["n"] += len(actions)  # a rollout: one candidate played on one sample to the end
        return real_sample(base, seat, actions, play, seed)

    search_module.play_sample = counting_sample  # type: ignore[assignment]
    table = Table(title="search: time per decision (one core)")
    for col in (
        "rollouts in",
        "preset",
        "hands",
        "decisions",
        "searched",
        "median ms",
        "p99 ms",
        "max ms",
        "CPU median ms",
        "CPU p99 ms",
        "rollouts per CPU s",
    ):
        table.add_column(col, justify="right")
    for engine, preset in [(e, p) for p in presets for e in engines] if args.hands else []:
        rules = as_rules(preset)
        opts: dict[str, Any] = {"policy": args.policy, "native": engine == "native"}
        if args.rollouts is not None:
            opts["rollouts"] = args.rollouts
        search = SearchStrategy(seed=args.seed, **opts)
        timed = Timed(search)
        # the seat loop binds samplers to built-in strategies only: bind the inner one
        counted["n"] = 0
        t_search = 0.0
        for i in range(args.hands):
            hs = hand_seed(args.seed, i)
            seat = i % 4
            seats: list[Any] = [ValueStrategy() for _ in range(4)]
            seats[seat] = search
            for s, st in enumerate(seats):
                st.reset(s, rules)
            # play with the timed wrapper in the search seat; the real strategy gets the sampler
            seats[seat] = timed
            _play(seats, rules, hs, search)
        t_search = sum(timed.searched_times)
        times = sorted(timed.times)
        st = sorted(timed.searched_times)
        cpu = sorted(timed.cpu)
        table.add_row(
            engine,
            preset,
            str(args.hands),
            str(len(times)),
            str(len(st)),
            f"{1000 * statistics.median(times):.1f}",
            f"{1000 * _pct(times, 0.99):.1f}",
            f"{1000 * times[-1]:.1f}",
            f"{1000 * statistics.median(cpu):.1f}",
            f"{1000 * _pct(cpu, 0.99):.1f}",
            f"{counted['n'] / t_search:,.0f}" if t_search else "-",
        )
        print(f"{preset}, {engine}: budget cut {search.cut} of {search.searched} searched decisions")
    search_module.play_sample = real_sample  # type: ignore[assignment]
    console = Console(width=160)
    if args.hands:
        console.print(table)
    for preset in presets:
        pt = Table(title=f"parts of a sample, {preset}, mid-hand (mean CPU µs)", min_width=50)
        pt.add_column("part")
        pt.add_column("µs", justify="right")
        for name, us in parts(preset):
            pt.add_row(name, f"{us:,.0f}")
        console.print(pt)


def parts(preset: str, positions: int = 40) -> list[tuple[str, float]]:
    """Mean microseconds of the parts of one sample, from mid-hand positions (30 decisions into
    hands played by ``value``): a determinization, a copy of it, a rollout to the end of the
    hand with each policy."""
    import random

    from xuezhan.engine.determinize import determinize
    from xuezhan.engine.observation import Observation
    from xuezhan.engine.round import Round
    from xuezhan.search.clone import clone

    rules = as_rules(preset)
    rounds = []
    for i in range(positions):
        hs = hand_seed(7, i)
        rnd = Round.from_seed(rules, hs, first_dealer(hs))
        bots = [ValueStrategy() for _ in range(4)]
        for s, b in enumerate(bots):
            b.reset(s, rules)
        for _ in range(30):
            if rnd.over:
                break
            seat = rnd.turn.cur
            assert seat is not None
            rnd.apply(bots[seat].act(Observation(rnd, seat)))
        if not rnd.over:
            rounds.append(rnd)
    rng = random.Random(0)
    t = time.process_time()
    samples = [determinize(r, r.turn.cur, rng) for r in rounds for _ in range(10)]  # type: ignore[arg-type]
    out = [("determinize", time.process_time() - t)]
    t = time.process_time()
    copies = [clone(d, (d.rules, d.core)) for d in samples]
    out.append(("copy (clone)", time.process_time() - t))
    for policy in ("greedy", "value"):
        play = estimate_module.Rollouts(rollout_policy(policy))
        todo = [clone(d, (d.rules, d.core)) for d in samples]
        t = time.process_time()
        for c in todo:
            play.play(c, 0)
        out.append((f"rollout ({policy}, Python engine)", time.process_time() - t))
        from xuezhan import native

        lineup = native.lineup([policy] * 4)
        t = time.process_time()
        for d in samples:
            native.from_round(d).play_out(lineup)
        out.append((f"rollout ({policy}, native engine, hand-off included)", time.process_time() - t))
    del copies
    return [(name, 1e6 * secs / len(samples)) for name, secs in out]


def _play(seats: list[Any], rules: Any, hs: int, search: SearchStrategy) -> None:
    from xuezhan.engine.decisions import Sampler
    from xuezhan.engine.match import run_round
    from xuezhan.engine.round import Round

    rnd = Round.from_seed(rules, hs, first_dealer(hs))
    seat = next(s for s, x in enumerate(seats) if isinstance(x, Timed))
    search.bind_sampler(Sampler(rnd, seat))
    run_round(rnd, seats)


def _pct(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))]


if __name__ == "__main__":
    main()
