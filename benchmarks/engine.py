"""Round-engine speed: hands per second on one core with random legal bots, and a profile.

    python benchmarks/engine.py               # table + cProfile top entries
    python benchmarks/engine.py --hands 5000  # more hands
    python benchmarks/engine.py --json        # figures as JSON
    python benchmarks/engine.py --quick       # smoke run
    python benchmarks/engine.py --bots greedy --no-profile   # the same with greedy bots

Each preset (leshan, chengdu, and xueliu: chengdu with winners staying in the hand, R14) plays
the same seeded hands (``xuezhan.engine.hand_seed(seed, i)``, dealer from ``first_dealer``)
with four ``RandomStrategy`` bots (``--bots greedy``: four greedy ones) through ``play_hand`` — the full path a
tournament takes: dealing, observations, timing of every decision (R10), settlement. Figures are
the best of ``--repeats`` runs (least disturbed by other processes), as wall-clock hands/s and as
hands per CPU-second of this process. Target: 2,000 hands/s per core.

Measured on the 2-core development machine (shared, so noisy; best of 2 runs of 1,500 hands,
hands per CPU-second, alternating in one session): leshan about 2,870, chengdu about 2,370.
The typed-events restructuring of the engine costs about 7% against the engine before it
(3,090 / 2,550 then); a profile diff puts a third of that on the separate legality call per
turn (``legal.turn_actions``) and most of the rest on the claim flow's split into smaller calls
(``claims.py``) and the event objects.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import platform
import pstats
import sys
import time

import xuezhan
from xuezhan.engine import play_hand
from xuezhan.engine.match import first_dealer, hand_seed
from xuezhan.strategies import GreedyStrategy, RandomStrategy

TARGET_HANDS_PER_S = 2000
PRESETS = ("leshan", "chengdu", "xueliu")


def make_bots(kind: str, seed: int) -> list:
    if kind == "greedy":
        return [GreedyStrategy() for _ in range(4)]
    return [RandomStrategy(seed * 4 + i) for i in range(4)]


def run(preset: str, hands: int, seed: int, kind: str = "random") -> tuple[float, int, dict]:
    bots = make_bots(kind, seed)
    ends: dict[str, int] = {}
    c0 = time.process_time()
    t0 = time.perf_counter()
    for i in range(hands):
        res = play_hand(bots, preset, hand_seed(seed, i), first_dealer(i))
        ends[res["end"]] = ends.get(res["end"], 0) + 1
    dt = time.perf_counter() - t0
    return dt, time.process_time() - c0, ends


def measure(hands: int, repeats: int, seed: int, kind: str = "random") -> dict:
    out = {}
    for preset in PRESETS:
        best = best_cpu = None
        for _ in range(repeats):
            dt, cpu, ends = run(preset, hands, seed, kind)
            best = dt if best is None else min(best, dt)
            best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
        out[preset] = {
            "hands": hands,
            "seconds": round(best, 4),
            "hands_per_s": round(hands / best, 1),
            "cpu_seconds": round(best_cpu, 4),
            "hands_per_cpu_s": round(hands / best_cpu, 1),
            "us_per_hand": round(best / hands * 1e6, 1),
            "ends": ends,
        }
    return out


def profile(hands: int, seed: int, top: int) -> str:
    pr = cProfile.Profile()
    pr.enable()
    run("leshan", hands, seed)
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(top)
    return s.getvalue()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--top", type=int, default=15, help="profile entries to show")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--bots", choices=("random", "greedy"), default="random")
    a = ap.parse_args(argv)
    if a.quick:
        a.hands, a.repeats = 300, 1
    res = measure(a.hands, a.repeats, a.seed, a.bots)
    info = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "xuezhan": str(xuezhan.__version__),
        "target_hands_per_s": TARGET_HANDS_PER_S,
    }
    if a.json:
        print(json.dumps({"info": info, "results": res}, indent=2, sort_keys=True))
        return 0
    print(f"engine benchmark: {a.bots} bots, one core, best of {a.repeats} ({info['python']}, {info['machine']})")
    print(
        f"{'preset':<10}{'hands':>8}{'hands/s':>10}{'hands/cpu-s':>13}{'µs/hand':>10}{'vs target':>11}"
        f"{'÷ chengdu':>11}  ends"
    )
    cpu_per_hand = {p: r["cpu_seconds"] / r["hands"] for p, r in res.items()}
    for preset, r in res.items():
        ratio = r["hands_per_cpu_s"] / TARGET_HANDS_PER_S
        cost = cpu_per_hand[preset] / cpu_per_hand["chengdu"]
        print(
            f"{preset:<10}{r['hands']:>8}{r['hands_per_s']:>10.0f}{r['hands_per_cpu_s']:>13.0f}"
            f"{r['us_per_hand']:>10.0f}{ratio:>10.2f}x{cost:>10.2f}x  {r['ends']}"
        )
    print("hands/s is wall-clock; hands/cpu-s is per second of this process's CPU time (the per-core")
    print("figure when other processes share the machine). 'vs target' uses hands/cpu-s; '÷ chengdu'")
    print("is the CPU cost of a hand against a chengdu hand with the same bots (xueliu: R14's target 1.6x).")
    if not a.no_profile:
        print("\ncProfile (leshan, tottime):")
        print(profile(min(a.hands, 1000), a.seed, a.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
