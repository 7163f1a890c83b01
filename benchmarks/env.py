"""Environment speed: steps per second with random masked actions, beside RLCard's ``mahjong``.

    python benchmarks/env.py                 # table (xuezhan leshan, chengdu, xueliu, RLCard mahjong)
    python benchmarks/env.py --steps 50000   # more steps per repeat
    python benchmarks/env.py --json          # figures as JSON

RLCard is a benchmark-only dependency: ``pip install 'xuezhan[bench]'`` (or ``pip install
rlcard``); without it the RLCard row is left out. Both environments are driven the way a
training loop drives them, in the same process and run: read the observation of the player to
act (xuezhan: ``env.last()``, the full plane tensor and mask; RLCard: the state ``step``
returns), pick a legal action uniformly at random, step; a finished hand is followed by a reset
(counted in the time, not as a step). The repeats of the three loops are interleaved and each
figure is a median over them, by wall clock and by CPU time of the process (on a shared
machine the CPU-time ratio is the steadier one); peak memory is the largest Python allocation
traced (``tracemalloc``) during one extra run.
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


def measure(runs: dict[str, Callable[[int, int], int]], steps: int, repeats: int) -> dict[str, dict]:
    """Steps per second of each loop. The repeats are interleaved (one run of each loop per
    round) so that a change of load on a shared machine hits every row alike; each figure is
    the median over the repeats, by wall clock and by CPU time of this process."""
    wall: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for i in range(repeats):
        for name, run in runs.items():
            c0, t0 = time.process_time(), time.perf_counter()
            n = run(steps, i)
            wall[name].append(n / (time.perf_counter() - t0))
            cpu[name].append(n / max(time.process_time() - c0, 1e-9))
    out = {}
    for name, run in runs.items():
        tracemalloc.start()
        run(max(steps // 5, 1000), repeats)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        med = statistics.median(wall[name])
        out[name] = {
            "steps_per_s": round(med),
            "steps_per_cpu_s": round(statistics.median(cpu[name])),
            "us_per_step": round(1e6 / med, 2),
            "peak_mib": round(peak / 2**20, 2),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20000, help="steps per repeat (default 20000)")
    ap.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="repeats; medians are reported (default 5)",
    )
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    runs = {f"xuezhan AEC ({rules})": xuezhan_loop(rules) for rules in ("leshan", "chengdu", "xueliu")}
    rl = rlcard_loop()
    if rl is not None:
        runs["RLCard mahjong"] = rl
    rows = measure(runs, args.steps, args.repeats)
    ref = rows.get("RLCard mahjong")
    for r in rows.values():
        r["vs_rlcard"] = round(r["steps_per_s"] / ref["steps_per_s"], 1) if ref else None
        r["vs_rlcard_cpu"] = round(r["steps_per_cpu_s"] / ref["steps_per_cpu_s"], 1) if ref else None
    if args.json:
        info = {"python": platform.python_version(), "xuezhan": xuezhan.__version__}
        print(json.dumps({**info, "rows": rows}, indent=2))
        return
    print(
        f"random masked actions, {args.steps} steps x {args.repeats} interleaved repeats (medians); "
        f"python {platform.python_version()}"
    )
    head = f"{'environment':<24} {'steps/s':>9} {'us/step':>8} {'steps/CPU-s':>12} {'peak MiB':>9}"
    print(head + f" {'vs RLCard':>10} {'(CPU)':>7}")
    for name, r in rows.items():
        ratio = f"{r['vs_rlcard']:.1f}x" if r["vs_rlcard"] is not None else "-"
        rcpu = f"{r['vs_rlcard_cpu']:.1f}x" if r["vs_rlcard_cpu"] is not None else "-"
        print(
            f"{name:<24} {r['steps_per_s']:>9,} {r['us_per_step']:>8.2f} {r['steps_per_cpu_s']:>12,} "
            f"{r['peak_mib']:>9.2f} {ratio:>10} {rcpu:>7}"
        )
    if ref is None:
        print("(RLCard not installed: pip install rlcard for the comparison)")
        return
    worst = min(r["vs_rlcard_cpu"] for n, r in rows.items() if n.startswith("xuezhan"))
    verdict = "met" if worst >= TARGET_RATIO else "NOT met"
    print(f"target >= {TARGET_RATIO:.0f}x RLCard (CPU time): {verdict} ({worst:.1f}x)")


if __name__ == "__main__":
    main()
