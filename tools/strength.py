"""The strength table of docs/strength.md: every built-in strategy against every other, paired on
duplicate walls under each preset, with 95% intervals and the command that replays each row.

    python tools/strength.py --write-tournaments        # (re)write tournaments/strength/*.toml
    python tools/strength.py --run [--only expert]      # play them (results/strength/...), -j all cores
    python tools/strength.py --table                    # print the markdown table from the results
    python tools/strength.py --write-steps              # (re)write tournaments/expert-steps/*.toml

A pair ``a``–``b`` is the tournament ``tournaments/strength/<preset>-<a>-vs-<b>.toml``: the
line-up ``b, a, b, a`` on 2,000 walls (8,000 hands, duplicate seating: each wall played in the
four rotations, so each entry sits in each seat of it), the preset's rules, one seed per preset.
A row gives ``a − b``: the mean over walls of the difference between the two strategies' mean
points per hand on that wall, with its t-interval over the walls (the tournament report's
paired comparison). Tournaments of built-in strategies the native engine plays run on it
(``engine = "auto"``); those with ``search`` run on the Python engine and are the slow ones
(give them fewer walls with ``--walls``: the table states the walls each row was played on).
"""

from __future__ import annotations

import argparse
import itertools
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "tournaments" / "strength"
RESULTS = Path("results") / "strength"
STRATEGIES = ("expert", "search", "value", "greedy", "random")
PRESETS = {"leshan": 2026, "chengdu": 2027, "xueliu": 2028}
WALLS = 2000
#: The steps of docs/strength.md's "How expert got there": expert with these options against
#: value, 1,000 walls per preset (seed 7), each a tournament file of tournaments/expert-steps/.
STEPS: dict[str, dict[str, object]] = {
    "refine-only": {"samples": 48, "rollouts": 0},
    "search-only": {"samples": 0, "rollouts": 32, "z": 2.0},
    "refine-and-search": {"samples": 48, "rollouts": 32, "z": 2.0},
    "search-only-128": {"samples": 0, "rollouts": 128, "z": 2.0},
    "search-only-128-z1": {"samples": 0, "rollouts": 128, "z": 1.0},
    "defaults": {},  # the search alone, 64 samples, z 1.5
    "wins": {"search_wins": True},  # wins searched too (by default where a self-draw earns a bonus)
}
STEP_PRESETS = ("leshan", "chengdu")
#: Steps played under leshan only, where the target is not met (void-plans would change nothing
#: under chengdu, where the void is declared).
LESHAN_STEPS: dict[str, dict[str, object]] = {
    "void-plans": {"void_plans": True},
    "width-6": {"search_width": 6},
    "width-3": {"search_width": 3},
    "width-2": {"search_width": 2},
    "pick-24": {"pick": 24},
    "read-voids": {"read_voids": True},
    "turns-only": {"search_claims": False},
    "claims-only": {"search_turns": False},
    "search-256": {"rollouts": 256},
    "pick-6": {"pick": 6},
    # nested search: 21 times the CPU; its budget raised so that no decision depends on the clock
    "nest-8": {"nest": 8, "nest_width": 3, "nest_depth": 1, "budget": 30},
    # the nested search's own player alone: 8 samples of 3 candidates, at three tests
    "search-8": {"rollouts": 8, "search_width": 3},
    "search-8-z2.5": {"rollouts": 8, "search_width": 3, "z": 2.5},
    "search-8-z3.5": {"rollouts": 8, "search_width": 3, "z": 3.5},
    # the nested search with a stricter test of its own
    "nest-8-z2.5": {"nest": 8, "nest_width": 3, "nest_depth": 1, "nest_z": 2.5, "budget": 30},
    # the samples without the ready hands dealt to the other seats (uniform deals, the readiest kept)
    "no-ready": {"ready": False},
}
#: Rules variants expert is measured under as well: leshan with the step's overrides, expert
#: with the step's options (none: its defaults).
RULE_STEPS: dict[str, tuple[dict[str, object], dict[str, object]]] = {
    "zimo-fan": ({"self_draw_bonus": "fan"}, {}),
    "zimo-fan-no-wins": ({"self_draw_bonus": "fan"}, {"search_wins": False}),
}
STEP_WALLS = 1000
STEP_FOLDER = ROOT / "tournaments" / "expert-steps"


def name(preset: str, a: str, b: str) -> str:
    return f"{preset}-{a}-vs-{b}"


def pairs() -> list[tuple[str, str, str]]:
    """(preset, a, b) for every preset and every pair, the stronger-looking first."""
    return [(p, a, b) for p in PRESETS for a, b in itertools.combinations(STRATEGIES, 2)]


def tournament_text(preset: str, a: str, b: str, walls: int) -> str:
    slow = "search" in (a, b)
    cost = (
        "the Python engine plays it (search samples hidden tiles in Python): 13 to 49 minutes on two cores"
        if slow
        else "the native engine plays it: a minute or two on two cores"
    )
    return (
        f"# Strength table (docs/strength.md): {a} against {b}, {preset} rules, {walls:,} walls\n"
        f'# ({4 * walls:,} hands, duplicate seating); the report\'s paired difference "{a} − {b}"\n'
        f"# is the row of the table; {cost}.\n"
        f"#   xuezhan tournament tournaments/strength/{name(preset, a, b)}.toml -j 0\n"
        f'name = "{name(preset, a, b)}"\n'
        f"hands = {4 * walls}\n"
        f"seed = {PRESETS[preset]}\n"
        'seating = "duplicate"\n'
        f'output = "{(RESULTS / name(preset, a, b)).as_posix()}"\n\n'
        "[rules]\n"
        f'preset = "{preset}"\n\n' + "".join(f'[[strategies]]\nstrategy = "{s}"\n' for s in (b, a, b, a))
    )


def step_text(preset: str, step: str) -> str:
    """The tournament of one step: expert with the step's options (or its defaults under the
    step's rules) against value."""
    rules, rule_opts = RULE_STEPS.get(step, ({}, {}))
    opts = STEPS.get(step, LESHAN_STEPS.get(step, rule_opts))
    overrides = "".join(f'{k} = "{v}"\n' for k, v in rules.items())
    inline = ", ".join(f"{k} = {str(v).lower() if isinstance(v, bool) else v}" for k, v in opts.items())
    expert = 'strategy = "expert"\n' + (f"options = {{ {inline} }}\n" if opts else "")
    return (
        f"# docs/strength.md, how expert got there: expert ({step}) against value, {preset} rules,\n"
        f"# {STEP_WALLS:,} walls ({4 * STEP_WALLS:,} hands, duplicate seating); the native engine plays it.\n"
        f"#   xuezhan tournament tournaments/expert-steps/{preset}-{step}.toml -j 0\n"
        f'name = "{preset}-{step}"\n'
        f"hands = {4 * STEP_WALLS}\n"
        "seed = 7\n"
        'seating = "duplicate"\n'
        f'output = "{(Path("results") / "expert-steps" / f"{preset}-{step}").as_posix()}"\n\n'
        "[rules]\n"
        f'preset = "{preset}"\n{overrides}\n'
        + "".join(
            "[[strategies]]\n" + (expert if s == "expert" else 'strategy = "value"\n')
            for s in ("value", "expert", "value", "expert")
        )
    )


def paired(folder: Path, a: str, b: str) -> tuple[float, float, float, int] | None:
    """(mean, low, high, walls) of a − b from a finished or partial run, or None."""
    from xuezhan.tournament import load_results
    from xuezhan.tournament.stats import t_ppf

    try:
        df = load_results(folder, columns=["seed_index", "strategy", "delta", "rotation"])
    except (OSError, ValueError):
        return None
    # whole walls only (all four rotations played)
    full = df.groupby("seed_index")["rotation"].nunique()
    df = df[df["seed_index"].isin(full[full == 4].index)]
    per = df.groupby(["strategy", "seed_index"])["delta"].mean().unstack(0)
    if a not in per or b not in per or len(per) < 2:
        return None
    d = (per[a] - per[b]).to_numpy()
    m = float(d.mean())
    half = t_ppf(0.975, len(d) - 1) * float(d.std(ddof=1)) / math.sqrt(len(d))
    return m, m - half, m + half, len(d)


def table() -> str:
    """The markdown table of every pair played so far, then the pairs not played yet."""
    from xuezhan.reporting import number

    lines = [
        "| rules | pair | a − b, points per hand [95% interval] | walls | replay |",
        "|---|---|---|---|---|",
    ]
    missing = []
    for preset, a, b in pairs():
        r = paired(ROOT / RESULTS / name(preset, a, b), a, b)
        if r is None:
            missing.append(f"{preset} {a} − {b}")
            continue
        m, lo, hi, w = r
        d = 2 if hi - lo < 10 else 1
        cmd = f"`xuezhan tournament tournaments/strength/{name(preset, a, b)}.toml -n {4 * w} -j 0`"
        cells = f"**{number(m, d, signed=True)}** [{number(lo, d, signed=True)}, {number(hi, d, signed=True)}]"
        lines.append(f"| {preset} | {a} − {b} | {cells} | {w:,} | {cmd} |")
    if missing:
        lines += ["", "Not played: " + "; ".join(missing) + "."]
    return "\n".join(lines)


def tournament_files() -> dict[Path, str]:
    """Every tournament of the strength table (``--write-tournaments``), with its text."""
    return {FOLDER / f"{name(p, a, b)}.toml": tournament_text(p, a, b, WALLS) for p, a, b in pairs()}


def step_files() -> dict[Path, str]:
    """Every tournament of expert's steps (``--write-steps``), with its text."""
    out = {STEP_FOLDER / f"{p}-{step}.toml": step_text(p, step) for p in STEP_PRESETS for step in STEPS}
    for step in (*LESHAN_STEPS, *RULE_STEPS):
        out[STEP_FOLDER / f"leshan-{step}.toml"] = step_text("leshan", step)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write-tournaments", action="store_true")
    ap.add_argument("--run", action="store_true")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--write-steps", action="store_true")
    ap.add_argument("--only", action="append", help="pairs involving this strategy (repeatable)")
    ap.add_argument("--preset", action="append", help="only this preset (repeatable)")
    ap.add_argument("--walls", type=int, default=None, help="walls to play (--run; default the file's)")
    ap.add_argument("-j", "--workers", type=int, default=0)
    args = ap.parse_args()
    chosen = [
        (p, a, b)
        for p, a, b in pairs()
        if (not args.only or a in args.only or b in args.only) and (not args.preset or p in args.preset)
    ]
    for wanted, folder, files in (
        (args.write_tournaments, FOLDER, tournament_files),
        (args.write_steps, STEP_FOLDER, step_files),
    ):
        if wanted:
            folder.mkdir(parents=True, exist_ok=True)
            written = files()
            for path, text in written.items():
                path.write_text(text, encoding="utf-8")
            print(f"{len(written)} tournaments in {folder.relative_to(ROOT)}")
    if args.run:
        for preset, a, b in chosen:
            cmd = [sys.executable, "-m", "xuezhan", "tournament", str(FOLDER / f"{name(preset, a, b)}.toml")]
            cmd += ["-j", str(args.workers), "--no-report", "--no-progress"]
            if args.walls:
                cmd += ["--hands", str(4 * args.walls)]
            out = ROOT / RESULTS / name(preset, a, b)
            cmd += ["--resume"] if (out / "manifest.json").exists() else []
            print("$", " ".join(cmd[2:]), flush=True)
            subprocess.run(cmd, cwd=ROOT, check=False)
    if args.table:
        print(table())


if __name__ == "__main__":
    main()
