"""Environment speed: steps per second with random masked actions, beside RLCard's ``mahjong``.

    python benchmarks/env.py                 # table (xuezhan leshan, chengdu, RLCard mahjong)
    python benchmarks/env.py --steps 50000   # more steps per repeat
    python benchmarks/env.py --json          # figures as JSON

RLCard is a benchmark-only dependency: ``pip install 'xuezhan[bench]'`` (or ``pip install
rlcard``); without it the RLCard row is left out. Both environments are driven the way a
training loop drives them, in the same process and run: read the observation of the player to
act (xuezhan: ``env.last()``, the full plane tensor and mask; RLCard: the state ``step``
returns), pick a legal action uniformly at random, step; a finished hand is followed by a reset
(counted in the time, not as a step). Each figure is the median of ``--repeats`` runs; peak
memory is the largest Python allocation traced (``tracemalloc``) during one extra run.
Target: at least 10x RLCard's steps per second.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable

import xuezhan
from xuezhan.env import aec_env

TARGET_RATIO = 10.0


def xuezhan_loop(rules: str) -> Callable[[int, int], int]:
    def run(steps: int, seed: int) -> int:
        env = aec_env(rules, seed=seed)
        rng = random.Random(seed)
        rnd = rng.random
        env.reset(seed=seed)
        n = 0
        while n < steps:
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                if not env.agents:
                    env.reset()
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(rnd() * len(legal))]))
            n += 1
        return n

    return run


def rlcard_loop() -> Callable[[int, int], int] | None:
    try:
        import rlcard
    except ImportError:
        return None

    def run(steps: int, seed: int) -> int:
        env = rlcard.make("mahjong", config={"seed": seed})
        rng = random.Random(seed)
        rnd = rng.random
        state, _ = env.reset()
        n = 0
        while n < steps:
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[int(rnd() * len(legal))])
            n += 1
            if env.is_over():
                state, _ = env.reset()
        return n

    return run


def measure(run: Callable[[int, int], int], steps: int, repeats: int) -> dict:
    rates = []
    for i in range(repeats):
        t0 = time.perf_counter()
        n = run(steps, i)
        rates.append(n / (time.perf_counter() - t0))
    tracemalloc.start()
    run(max(steps // 5, 1000), repeats)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    med = statistics.median(rates)
    return {
        "steps_per_s": round(med),
        "us_per_step": round(1e6 / med, 2),
        "peak_mib": round(peak / 2**20, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--steps", type=int, default=20000, help="steps per repeat (default 20000)"
    )
    ap.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="repeats; the median is reported (default 5)",
    )
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    rows: dict[str, dict] = {}
    for rules in ("leshan", "chengdu"):
        rows[f"xuezhan AEC ({rules})"] = measure(
            xuezhan_loop(rules), args.steps, args.repeats
        )
    rl = rlcard_loop()
    if rl is not None:
        rows["RLCard mahjong"] = measure(rl, args.steps, args.repeats)
    base = rows.get("RLCard mahjong", {}).get("steps_per_s")
    for r in rows.values():
        r["vs_rlcard"] = round(r["steps_per_s"] / base, 1) if base else None
    if args.json:
        print(
            json.dumps(
                {
                    "python": platform.python_version(),
                    "xuezhan": xuezhan.__version__,
                    "rows": rows,
                },
                indent=2,
            )
        )
        return
    print(
        f"random masked actions, {args.steps} steps x {args.repeats} repeats (median); python {platform.python_version()}"
    )
    print(
        f"{'environment':<24} {'steps/s':>10} {'us/step':>9} {'peak MiB':>9} {'vs RLCard':>10}"
    )
    for name, r in rows.items():
        ratio = f"{r['vs_rlcard']:.1f}x" if r["vs_rlcard"] is not None else "-"
        print(
            f"{name:<24} {r['steps_per_s']:>10,} {r['us_per_step']:>9.2f} {r['peak_mib']:>9.2f} {ratio:>10}"
        )
    if base is None:
        print("(RLCard not installed: pip install rlcard for the comparison)")
    else:
        worst = (
            min(r["steps_per_s"] for n, r in rows.items() if n.startswith("xuezhan"))
            / base
        )
        print(
            f"target >= {TARGET_RATIO:.0f}x RLCard: {'met' if worst >= TARGET_RATIO else 'NOT met'} ({worst:.1f}x)"
        )


if __name__ == "__main__":
    main()
