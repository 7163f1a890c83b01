"""Speed and memory of the hand evaluator, against the pure-Python ``mahjong`` package.

    python benchmarks/evaluator.py            # table
    python benchmarks/evaluator.py --json     # the same figures as JSON
    python benchmarks/evaluator.py --quick    # fewer hands (smoke run)

Every figure is the median over repeats of ns per hand, on the same seeded hands
(``xuezhan.batch.random_hands``; winning hands for ``fan`` from ``xuezhan.batch.random_wins``):

- ``batch``: ``xuezhan.batch.*`` with ``parallel=False``: one call over an (N, 27) array, so
  this is the Rust work per hand plus a negligible share of one boundary crossing. It stands
  for the "Rust-only" figure (no ``cargo bench`` needed).
- ``single``: the public single-hand call (``xuezhan.is_win(counts_bytes)`` …), i.e. Python
  call + argument handling + one crossing, and ``core`` the raw ``xuezhan._core`` call.
- ``mahjong``: ``mahjong==2.1.0`` on the same hands (honour-free 34-arrays): ``Agari.is_agari``,
  ``Shanten.calculate_shanten`` (regular + seven pairs, as ours), waits as its agari check over
  the 27 candidate tiles; its ``HandCalculator`` scores riichi yaku, which is not comparable to
  Sichuan fan, so there is no ``fan`` figure for it.
- ``best_discards`` (no batch form): the raw ``_core.best_discards`` and the public call on the
  14-tile hands, against ``mahjong`` answering the same question the only way it can: per
  distinct discard one ``calculate_shanten`` and one more per candidate draw (27 kinds). The
  Rust-side comparison with a peer that has a necessary-tiles API (the ``xiangting`` crate)
  is ``cargo bench -p xuezhan-bench --bench peers``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import xuezhan
from xuezhan import _core, batch

TARGETS_NS = {"is_win": 25, "shanten": 60, "waits": 150, "fan": 300}  # Rust targets; batch ≤ 2×
SINGLE_TARGET_NS = 1000
IMPORT_TARGET_MS = 100
SHANTEN_SPEEDUP_TARGET = 500


def _median_ns_per_item(fn: Callable[[], Any], items: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - t0) / items)
    med = statistics.median(times)
    _LAST_MIN.append(min(times))
    return med


_LAST_MIN: list[float] = []


def _to34(row: np.ndarray) -> list[int]:
    return [int(x) for x in row] + [0] * 7


def measure(n_batch: int, n_single: int, n_peer: int, repeats: int, seed: int) -> dict[str, Any]:
    h14 = batch.random_hands(n_batch, 14, seed=seed)
    h13 = batch.random_hands(n_batch, 13, seed=seed + 1)
    wins, win_kinds = batch.random_wins(n_batch, seed=seed + 2)
    rules = xuezhan.Rules.preset("leshan")
    core_rules = rules.core

    # warm the tables once (their build time is part of import/first call, not of the loop)
    batch.is_win(h14[:1]), batch.shanten(h13[:1]), batch.wait_mask(h13[:1])
    batch.fan(wins[:1], win_kinds[:1])

    res: dict[str, Any] = {
        "hands": {"batch": n_batch, "single": n_single, "mahjong": n_peer},
        "repeats": repeats,
        "seed": seed,
    }
    _LAST_MIN.clear()
    b = {
        "is_win": _median_ns_per_item(lambda: batch.is_win(h14), n_batch, repeats),
        "shanten": _median_ns_per_item(lambda: batch.shanten(h13), n_batch, repeats),
        "waits": _median_ns_per_item(lambda: batch.wait_mask(h13), n_batch, repeats),
        "fan": _median_ns_per_item(lambda: batch.fan(wins, win_kinds, rules=rules), n_batch, repeats),
    }
    b_min = dict(zip(b, _LAST_MIN, strict=True))
    bp = {
        "is_win": _median_ns_per_item(lambda: batch.is_win(h14, parallel=True), n_batch, repeats),
        "shanten": _median_ns_per_item(lambda: batch.shanten(h13, parallel=True), n_batch, repeats),
        "waits": _median_ns_per_item(lambda: batch.wait_mask(h13, parallel=True), n_batch, repeats),
        "fan": _median_ns_per_item(lambda: batch.fan(wins, win_kinds, rules=rules, parallel=True), n_batch, repeats),
    }

    s14 = [bytes(r) for r in h14[:n_single]]
    s13 = [bytes(r) for r in h13[:n_single]]
    sw = [bytes(r) for r in wins[:n_single]]
    swk = [int(k) for k in win_kinds[:n_single]]

    def loop(fn: Callable[[bytes], Any], hands: list[bytes]) -> Callable[[], None]:
        def run() -> None:
            for h in hands:
                fn(h)

        return run

    def fan_loop(fn: Callable[[bytes, int], Any]) -> Callable[[], None]:
        def run() -> None:
            for h, k in zip(sw, swk, strict=True):
                fn(h, k)

        return run

    single = {
        "is_win": _median_ns_per_item(loop(xuezhan.is_win, s14), n_single, repeats),
        "shanten": _median_ns_per_item(loop(xuezhan.shanten, s13), n_single, repeats),
        "waits": _median_ns_per_item(loop(lambda h: xuezhan.waits(h, rules=rules), s13), n_single, repeats),
        "fan": _median_ns_per_item(fan_loop(lambda h, k: xuezhan.fan(h, win_tile=k, rules=rules)), n_single, repeats),
    }
    core = {
        "is_win": _median_ns_per_item(loop(_core.is_win, s14), n_single, repeats),
        "shanten": _median_ns_per_item(loop(_core.shanten, s13), n_single, repeats),
        "waits": _median_ns_per_item(loop(lambda h: _core.waits(h, b"", core_rules), s13), n_single, repeats),
        "fan": _median_ns_per_item(fan_loop(lambda h, k: _core.fan(h, b"", k, 0, core_rules)), n_single, repeats),
    }

    d14 = s14[: max(1, n_single // 10)]
    vis0 = bytes(27)
    _core.best_discards(d14[0], b"", vis0)  # builds the draw masks (first use), outside the timing
    discards = {
        "core_call_ns": _median_ns_per_item(loop(lambda h: _core.best_discards(h, b"", vis0), d14), len(d14), repeats),
        "single_ns": _median_ns_per_item(loop(xuezhan.best_discards, d14), len(d14), repeats),
        "mahjong_ns": None,
        "mahjong_hands": 0,
    }

    peer: dict[str, Any] = {}
    try:
        from mahjong.agari import Agari
        from mahjong.shanten import Shanten

        agari, sh = Agari(), Shanten()
        p14 = [_to34(r) for r in h14[:n_peer]]
        p13 = [_to34(r) for r in h13[:n_peer]]

        def peer_waits() -> None:
            for t in p13:
                for k in range(27):
                    if t[k] < 4:
                        t[k] += 1
                        agari.is_agari(t)
                        t[k] -= 1

        def peer_discards(hands: list[list[int]]) -> Callable[[], None]:
            def run() -> None:
                for t in hands:
                    for k in range(27):
                        if t[k] == 0:
                            continue
                        t[k] -= 1
                        now = sh.calculate_shanten(t, use_kokushi=False)
                        ukeire = 0
                        for j in range(27):
                            if t[j] < 4:
                                t[j] += 1
                                if sh.calculate_shanten(t, use_kokushi=False) < now:
                                    ukeire += 4 - t[j] + 1
                                t[j] -= 1
                        t[k] += 1

            return run

        pd = p14[: max(1, n_peer // 40)]
        discards["mahjong_ns"] = _median_ns_per_item(peer_discards(pd), len(pd), max(1, repeats // 2))
        discards["mahjong_hands"] = len(pd)
        peer = {
            "is_win": _median_ns_per_item(lambda: [agari.is_agari(t) for t in p14], n_peer, repeats),
            "shanten": _median_ns_per_item(
                lambda: [sh.calculate_shanten(t, use_kokushi=False) for t in p13], n_peer, repeats
            ),
            "waits": _median_ns_per_item(peer_waits, n_peer, max(1, repeats // 2)),
            "fan": None,
        }
    except ImportError:  # pragma: no cover - the test extra is not installed
        peer = {k: None for k in TARGETS_NS}

    res["batch_ns"] = b
    res["batch_min_ns"] = b_min  # fastest repeat: how much of the median is machine noise
    res["batch_parallel_ns"] = bp
    res["single_ns"] = single
    res["core_call_ns"] = core
    res["mahjong_ns"] = peer
    res["speedup_vs_mahjong"] = {k: (peer[k] / b[k] if peer.get(k) else None) for k in b}
    discards["speedup_vs_mahjong"] = (
        discards["mahjong_ns"] / discards["core_call_ns"] if discards["mahjong_ns"] else None
    )
    res["best_discards"] = discards
    res["targets"] = {
        "batch_ns_max": {k: 2 * v for k, v in TARGETS_NS.items()},
        "single_ns_max": SINGLE_TARGET_NS,
        "import_ms_max": IMPORT_TARGET_MS,
        "shanten_speedup_min": SHANTEN_SPEEDUP_TARGET,
    }
    res["machine"] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "xuezhan": xuezhan.__version__,
    }
    return res


def import_time_ms(runs: int = 7) -> float:
    """Median wall time of ``import xuezhan`` in a fresh interpreter."""
    code = "import time; t=time.perf_counter(); import xuezhan; print(time.perf_counter()-t)"
    times = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        times.append(float(out.stdout) * 1000)
    return statistics.median(times)


def memory() -> dict[str, Any]:
    """Peak RSS of a fresh interpreter: bare, after ``import xuezhan``, and after one call of
    every function (lookup tables built); and the Python-heap peak (tracemalloc) of those calls."""
    probe = r"""
import resource, sys, json, tracemalloc
stage = sys.argv[1]
out = {}
if stage != "bare":
    import xuezhan
if stage == "tables":
    xuezhan._core.warm_up()  # the lookup tables alone
if stage == "used":
    tracemalloc.start()
    xuezhan.is_win("11122233345m99m3m"); xuezhan.shanten("11122233345m99m")
    xuezhan.waits("11122233345m99m"); xuezhan.fan("11122233345m99m3m")
    xuezhan.best_discards("11122233345m99m3m")
    out["tracemalloc_peak_kb"] = tracemalloc.get_traced_memory()[1] / 1024
# VmHWM is this process image's own peak RSS (ru_maxrss would include the parent's peak at fork)
try:
    status = {l.split(":")[0]: int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("Vm")}
    out["maxrss_kb"], out["rss_kb"] = status["VmHWM"], status["VmRSS"]
except (OSError, KeyError):
    out["maxrss_kb"] = out["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(out))
"""
    res: dict[str, Any] = {}
    for stage in ("bare", "import", "tables", "used"):
        out = subprocess.run([sys.executable, "-c", probe, stage], capture_output=True, text=True, check=True)
        res[stage] = json.loads(out.stdout)
    return {
        "maxrss_bare_mb": res["bare"]["maxrss_kb"] / 1024,
        "maxrss_import_mb": res["import"]["maxrss_kb"] / 1024,
        "maxrss_tables_mb": res["tables"]["maxrss_kb"] / 1024,
        "maxrss_used_mb": res["used"]["maxrss_kb"] / 1024,
        "tables_and_calls_mb": (res["used"]["maxrss_kb"] - res["bare"]["maxrss_kb"]) / 1024,
        "tables_resident_mb": (res["tables"]["rss_kb"] - res["import"]["rss_kb"]) / 1024,
        "tables_build_peak_mb": (res["tables"]["maxrss_kb"] - res["import"]["maxrss_kb"]) / 1024,
        "python_heap_peak_kb": res["used"]["tracemalloc_peak_kb"],
    }


def _fmt(v: Any, unit: str = "") -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:,.1f}{unit}" if v < 100 else f"{v:,.0f}{unit}"
    return f"{v}{unit}"


def render(r: dict[str, Any]) -> str:
    lines = [
        f"xuezhan {r['machine']['xuezhan']} evaluator benchmark  (python {r['machine']['python']}, "
        f"{r['machine']['cpus']} cpus; seed {r['seed']}, {r['hands']['batch']:,} hands per batch, "
        f"{r['hands']['single']:,} single calls, {r['hands']['mahjong']:,} mahjong hands, median of {r['repeats']})",
        "",
        f"{'ns/hand':<9}{'batch':>9}{'target':>8}{'ok':>4}{'min':>7}{'batch ∥':>10}{'core call':>11}{'single':>9}"
        f"{'≤1µs':>6}{'mahjong':>11}{'speedup':>10}",
        "(target: 2 × the Rust targets is_win 25, shanten 60, waits 150, fan 300 ns; speedup = mahjong / batch)",
    ]
    for k in TARGETS_NS:
        b = r["batch_ns"][k]
        tgt = r["targets"]["batch_ns_max"][k]
        s = r["single_ns"][k]
        peer = r["mahjong_ns"][k]
        sp = r["speedup_vs_mahjong"][k]
        lines.append(
            f"{k:<9}{_fmt(b):>9}{'≤' + str(tgt):>8}{'yes' if b <= tgt else 'NO':>4}{_fmt(r['batch_min_ns'][k]):>7}"
            f"{_fmt(r['batch_parallel_ns'][k]):>10}"
            f"{_fmt(r['core_call_ns'][k]):>11}{_fmt(s):>9}{'yes' if s <= SINGLE_TARGET_NS else 'NO':>6}"
            f"{_fmt(peer) if peer else 'n/c':>11}{(_fmt(sp) + '×') if sp else '':>10}"
        )
    d = r["best_discards"]
    lines.append(
        f"{'discards':<9}{'n/a':>9}{'':>8}{'':>4}{'':>7}{'':>10}{_fmt(d['core_call_ns']):>11}{_fmt(d['single_ns']):>9}"
        f"{'':>6}{_fmt(d['mahjong_ns']) if d['mahjong_ns'] else 'n/a':>11}"
        f"{(_fmt(d['speedup_vs_mahjong']) + '×') if d['speedup_vs_mahjong'] else '':>10}"
    )
    sp = r["speedup_vs_mahjong"]["shanten"]
    lines += [
        "",
        "batch = xuezhan.batch.* (parallel=False): Rust work per hand, median (min = fastest repeat);",
        "batch ∥ = parallel=True (rayon);",
        "core call = one xuezhan._core call on bytes; single = the public xuezhan.* call on bytes.",
        "waits: batch = batch_wait_mask (the waiting kinds); core call and single = waits with each wait's",
        "R7.3 value (fan, points), single returning Wait tuples. fan: 14-tile wins, leshan, no context.",
        "mahjong = mahjong 2.1.0 on the same hands: Agari.is_agari, Shanten.calculate_shanten (regular + seven",
        "pairs), waits = is_agari over the 27 tiles; n/c: its HandCalculator (riichi yaku) is not comparable to fan.",
        "discards = best_discards of 14-tile hands (no batch form; speedup = mahjong / core call), mahjong =",
        f"calculate_shanten per discard and per candidate draw, on {d['mahjong_hands']} of those hands.",
        "",
        f"shanten speedup vs mahjong: {_fmt(sp)}× (target ≥ {SHANTEN_SPEEDUP_TARGET}×: "
        f"{'yes' if sp and sp >= SHANTEN_SPEEDUP_TARGET else 'NO'})",
        f"import xuezhan (fresh interpreter, median): {r['import_ms']:.1f} ms (target ≤ {IMPORT_TARGET_MS} ms: "
        f"{'yes' if r['import_ms'] <= IMPORT_TARGET_MS else 'NO'})",
        f"peak RSS: bare python {r['memory']['maxrss_bare_mb']:.1f} MB, "
        f"after import {r['memory']['maxrss_import_mb']:.1f} MB, "
        f"after building the tables {r['memory']['maxrss_tables_mb']:.1f} MB, "
        f"after one call of each function {r['memory']['maxrss_used_mb']:.1f} MB "
        f"(+{r['memory']['tables_and_calls_mb']:.1f} MB); Python heap peak of those calls "
        f"{r['memory']['python_heap_peak_kb']:.0f} KB (tracemalloc)",
        f"lookup tables: {r['memory']['tables_resident_mb']:.1f} MB resident after the build "
        f"(target ≤ 2 MB), {r['memory']['tables_build_peak_mb']:.1f} MB peak while building",
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--quick", action="store_true", help="fewer hands and repeats")
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--hands", type=int, default=None, help="hands per batch call")
    args = ap.parse_args()
    if args.quick:
        n_batch, n_single, n_peer, repeats = 20_000, 2_000, 300, 3
    else:
        n_batch, n_single, n_peer, repeats = 200_000, 20_000, 2_000, 7
    if args.hands:
        n_batch = args.hands
    import_ms, mem = import_time_ms(), memory()  # fresh interpreters
    r = measure(n_batch, n_single, n_peer, repeats, args.seed)
    r["import_ms"], r["memory"] = import_ms, mem
    print(json.dumps(r, indent=2) if args.json else render(r))


if __name__ == "__main__":
    main()
