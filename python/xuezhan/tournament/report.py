"""Summaries, ratings, plots and the report of a tournament's per-(hand, seat) table.

The table has one row per (hand, seat) (see :mod:`xuezhan.tournament.results` for the
columns). :func:`summarize` aggregates it per strategy and :func:`pairwise` compares every two
strategies on the walls both played. The report states the verdict first: one sentence per
paired comparison (:func:`verdicts`), then the per-strategy tables. :func:`format_report` is the
terminal report, :func:`write_report` the PNG plots and one self-contained HTML page (the
template ``xuezhan/templates/tournament.html.j2``); both open with the run's
:class:`ReportHeader` (seed, date, version, rules, line-up, command).
"""

from __future__ import annotations

import contextlib
import json
import math
import shlex
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from xuezhan.reporting import (
    bullets,
    clear_at,
    decimals_for,
    number,
    percent,
    png_data_uri,
    render_page,
    table,
    terminal_text,
)
from xuezhan.tournament.stats import clustered_mean_ci

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "HEADER_FILE",
    "ReportHeader",
    "Verdict",
    "summarize",
    "pairwise",
    "rule_frequencies",
    "ratings",
    "verdicts",
    "format_summary",
    "format_pairwise",
    "format_report",
    "print_report",
    "run_header",
    "load_header",
    "save_header",
    "write_report",
    "plot_figures",
    "report_plots",
]

SUMMARY_COLUMNS = [
    "hands",
    "mean_delta",
    "ci_low",
    "ci_high",
    "clusters",
    "win_rate",
    "deal_in_rate",
    "self_draw_rate",
    "avg_fan",
    "pig_rate",
    "ready_rate",
    "escapes",
    "timeouts",
    "rating_mu",
    "rating_sigma",
    "rating",
]


def ratings(df: pd.DataFrame) -> pd.DataFrame:
    """OpenSkill (Plackett-Luce) ratings per strategy, hands processed in hand order.

    Every seat of a hand is one team, ranked by the hand's delta (equal deltas tie). When a
    strategy fills several seats of a hand, each seat is rated from the strategy's current
    rating and the strategy then takes the mean of those seats' updated ``mu`` and ``sigma``.
    Tables of more than :data:`~xuezhan.tournament.rating.RATED_HANDS` hands are rated on that
    many hands spread evenly over them (:mod:`xuezhan.tournament.rating`).
    Returns ``mu``, ``sigma`` and the conservative ``rating`` (ordinal, ``mu − 3σ``) per strategy.
    """
    from xuezhan.tournament.rating import plackett_luce

    hand = df["hand"].to_numpy()
    seat = df["seat"].to_numpy()
    if len(hand) > 1 and not _in_order(hand, seat):
        order = np.lexsort((seat, hand))
        df = df.iloc[order]
        hand = hand[order]
    codes, names = pd.factorize(df["strategy"].astype(object), sort=True)
    mu, sigma = plackett_luce(hand, codes, df["delta"].to_numpy(), len(names))
    return pd.DataFrame(
        {
            "rating_mu": mu,
            "rating_sigma": sigma,
            "rating": [m - 3.0 * s for m, s in zip(mu, sigma, strict=True)],
        },
        index=pd.Index(list(names), name="strategy"),
    )


def _in_order(hand: np.ndarray, seat: np.ndarray) -> bool:
    dh = np.diff(hand)
    return bool(np.all((dh > 0) | ((dh == 0) & (np.diff(seat) > 0))))


def summarize(df: pd.DataFrame, *, level: float = 0.95, rating: bool = True) -> pd.DataFrame:
    """Per-strategy summary of a results table, best mean delta first.

    - ``mean_delta``, ``ci_low``, ``ci_high``: mean delta per hand and its ``level`` interval,
      clustered by wall seed (``seed_index``): the deltas of one seed group are summed per
      cluster and the interval is a t-interval over clusters (see
      :func:`xuezhan.tournament.stats.clustered_mean_ci`). Under duplicate seating a cluster holds
      the four rotations of one wall, so the luck of the wall is shared and cancels out.
    - ``win_rate``: hands won; ``deal_in_rate``: hands in which the seat's discard (or robbed
      kong) was won on; ``self_draw_rate``: hands won by self-draw; ``avg_fan``: mean capped fan
      of the wins; ``pig_rate``: hands ending as a pig (R7.1); ``ready_rate``: ready at the ready
      check (R7.3) among the seats that went to it; ``escapes`` and ``timeouts``: totals (R8, R10).
    - ``rating_mu``, ``rating_sigma``, ``rating``: OpenSkill Plackett-Luce (see :func:`ratings`).
    """
    if df.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS, index=pd.Index([], name="strategy"))
    rows = {}
    for name, g in df.groupby("strategy", sort=True):
        mean, lo, hi, nclus = clustered_mean_ci(g["delta"].to_numpy(), g["seed_index"].to_numpy(), level)
        won = g["won"].astype(bool)
        checked = g["checked"].astype(bool) if "checked" in g else pd.Series(False, index=g.index)
        rows[name] = {
            "hands": int(len(g)),
            "mean_delta": mean,
            "ci_low": lo,
            "ci_high": hi,
            "clusters": nclus,
            "win_rate": float(won.mean()),
            "deal_in_rate": float((g["dealt_in"] > 0).mean()),
            "self_draw_rate": float((won & g["self_draw"].astype(bool)).mean()),
            "avg_fan": float(g.loc[won, "fan"].mean()) if won.any() else math.nan,
            "pig_rate": float(g["pig"].astype(bool).mean()),
            "ready_rate": float(g.loc[checked, "ready"].astype(bool).mean()) if checked.any() else math.nan,
            "escapes": int(g["escape"].astype(bool).sum()),
            "timeouts": int(g["timeouts"].sum()),
        }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "strategy"
    if rating:
        out = out.join(ratings(df))
    else:
        for c in ("rating_mu", "rating_sigma", "rating"):
            out[c] = math.nan
    out = out[SUMMARY_COLUMNS]
    return out.sort_values("mean_delta", ascending=False, kind="stable")


def pairwise(df: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Paired differences of mean delta per hand between every two strategies.

    For strategies A and B, each wall-seed cluster that both played gives the difference of
    their mean deltas in that cluster; the table gives the mean of those differences over the
    clusters and a t-interval over them. Under duplicate seating both met exactly the same walls
    from every seat, so most of the luck cancels and the interval is far narrower than the two
    separate intervals of :func:`summarize` suggest. Rows: ``a``, ``b``, ``diff`` (A − B),
    ``ci_low``, ``ci_high``, ``clusters``; A is the better of the two.
    """
    from xuezhan.tournament.stats import t_ppf

    per = df.groupby(["strategy", "seed_index"], sort=True)["delta"].mean().unstack(0)
    names = list(per.columns)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            d = (per[a] - per[b]).dropna().to_numpy()
            g = d.size
            if g == 0:
                continue
            m = float(d.mean())
            if g >= 2:
                half = t_ppf(0.5 + level / 2, g - 1) * float(d.std(ddof=1)) / math.sqrt(g)
            else:
                half = math.inf
            if m < 0:
                a2, b2, m = b, a, -m
            else:
                a2, b2 = a, b
            rows.append({"a": a2, "b": b2, "diff": m, "ci_low": m - half, "ci_high": m + half, "clusters": g})
    out = pd.DataFrame(rows, columns=["a", "b", "diff", "ci_low", "ci_high", "clusters"])
    return out.sort_values("diff", ascending=False, kind="stable").reset_index(drop=True)


def _rule_title(name: str) -> str:
    """The heading of the rule a fired-rule name cites, in the rules reference (docs/rules.md)."""
    from xuezhan import rulebook

    try:
        return rulebook.title(name)
    except rulebook.UnknownRuleError:
        return ""


def rule_frequencies(df: pd.DataFrame) -> pd.DataFrame:
    """How often each rule fired (share of hands, per rules id), from the ``fired`` column —
    for rule studies: the same walls under several rule variants. ``title`` is the rule's
    heading in the rules reference docs/rules.md (``xuezhan rules ID`` prints the rule)."""
    columns = ["rules_id", "rule", "title", "hands", "share"]
    if "fired" not in df or df.empty:
        return pd.DataFrame(columns=columns)
    first = np.flatnonzero(np.r_[True, df["hand"].to_numpy()[1:] != df["hand"].to_numpy()[:-1]])
    hands = df.iloc[first][["hand", "rules_id", "fired"]].drop_duplicates("hand")
    rows = []
    # one pass per distinct (rules id, fired) string, not per hand
    counted = hands.groupby(["rules_id", "fired"], sort=False, observed=True).size()
    per_rid = hands.groupby("rules_id", sort=True, observed=True).size()
    counts: dict[str, dict[str, int]] = {}
    # a two-level index: each key is a (rules id, fired) pair
    for (rid, fired), n in zip(counted.index.tolist(), counted.tolist(), strict=True):
        for rule in filter(None, str(fired).split("+")):
            c = counts.setdefault(str(rid), {})
            c[rule] = c.get(rule, 0) + int(n)
    for rid, total in per_rid.items():
        for rule, n in sorted(counts.get(str(rid), {}).items()):
            rows.append({"rules_id": rid, "rule": rule, "title": _rule_title(rule), "hands": n, "share": n / total})
    return pd.DataFrame(rows, columns=columns)


# ---------------------------------------------------------------------------- the verdict


def _ranked_pairs(pairs: pd.DataFrame, ranking: list[str]) -> list[dict[str, Any]]:
    """The paired comparisons, neighbours in the ranking first (the close calls), then wider gaps."""
    rank = {n: i for i, n in enumerate(ranking)}

    def key(r: dict[str, Any]) -> tuple[int, int]:
        i, j = sorted((rank.get(r["a"], 0), rank.get(r["b"], 0)))
        return (j - i, i)

    records: list[dict[str, Any]] = [{str(k): v for k, v in r.items()} for r in pairs.to_dict("records")]
    return sorted(records, key=key)


@dataclass(frozen=True)
class Verdict:
    """One paired comparison in words: ``better`` scores ``diff`` points per hand more than
    ``worse`` on the same walls, with its interval; ``clear`` when the interval excludes zero at
    the decimals shown."""

    better: str
    worse: str
    diff: float
    low: float
    high: float
    walls: int
    decimals: int
    clear: bool

    @property
    def sentence(self) -> str:
        d = self.decimals
        walls = f"{self.walls:,} wall{'s' if self.walls != 1 else ''}"
        if math.isfinite(self.low) and math.isfinite(self.high):
            interval = f"95% interval {number(self.low, d)} to {number(self.high, d)}, {walls}"
        else:
            interval = f"{walls}: too few for an interval"
        conclusion = f"{self.better} is better" if self.clear else "no clear difference"
        if number(self.diff, d) == number(0.0, d):
            return f"{self.better} and {self.worse} score the same on the same walls ({interval}): {conclusion}"
        return (
            f"{self.better} scores {number(self.diff, d)} points per hand more than {self.worse} "
            f"on the same walls ({interval}): {conclusion}"
        )


def verdicts(pairs: pd.DataFrame, ranking: list[str] | None = None) -> list[Verdict]:
    """One :class:`Verdict` per row of :func:`pairwise` (close calls first when ``ranking``, the
    strategies best first, is given). Decimals show each interval's half-width to two
    significant digits (at least two decimals)."""
    rows = _ranked_pairs(pairs, ranking) if ranking else pairs.to_dict("records")
    out = []
    for r in rows:
        half = (r["ci_high"] - r["ci_low"]) / 2
        d = decimals_for(half, least=2)
        out.append(
            Verdict(
                better=str(r["a"]),
                worse=str(r["b"]),
                diff=float(r["diff"]),
                low=float(r["ci_low"]),
                high=float(r["ci_high"]),
                walls=int(r["clusters"]),
                decimals=d,
                clear=clear_at(float(r["ci_low"]), float(r["ci_high"]), d),
            )
        )
    return out


def format_pairwise(pairs: pd.DataFrame, ranking: list[str] | None = None) -> str:
    """The verdict: one sentence per paired comparison (see :class:`Verdict`)."""
    return "\n".join(f"- {v.sentence}" for v in verdicts(pairs, ranking))


# ---------------------------------------------------------------------------- the header


@dataclass(frozen=True)
class ReportHeader:
    """What a report states before any number: the tournament, its seed, rules, line-up, when
    and with which version it was played, and the command that played it. Saved beside the
    results (``report.json``) so that ``xuezhan report`` prints what the run printed."""

    name: str
    hands: int
    walls: int
    seating: str | None = None
    seed: int | None = None
    rules: str = ""
    lineup: tuple[str, ...] = ()
    version: str = ""
    date: str = ""
    command: str | None = None
    #: The engine that played the hands (``native`` or ``python``; "" when not known).
    engine: str = ""

    @property
    def title(self) -> str:
        return f"{self.name}: {self.hands:,} hands"

    def items(self) -> list[tuple[str, str]]:
        """The header as (label, value) lines."""
        walls = f"{self.walls:,} walls" + (f", {self.seating} seating" if self.seating else "")
        out = [("hands", f"{self.hands:,} on {walls}")]
        if self.seed is not None:
            out.append(("seed", str(self.seed)))
        out.append(("rules", self.rules))
        if self.lineup:
            out.append(("line-up", ", ".join(self.lineup)))
        engine = f"the {self.engine} engine of xuezhan {self.version}" if self.engine else f"xuezhan {self.version}"
        out.append(("played", " with ".join(x for x in (self.date, engine) if x)))
        if self.command:
            out.append(("command", self.command))
        return out

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=1)

    @classmethod
    def from_json(cls, text: str) -> ReportHeader:
        d = json.loads(text)
        d["lineup"] = tuple(d.get("lineup") or ())
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


#: The header file beside the results.
HEADER_FILE = "report.json"


def _version() -> str:
    from xuezhan import __version__

    return str(__version__)


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def _manifest_date(started: str) -> str:
    """``2026-12-03T12:38:00Z`` (the manifest's start) as the header writes dates."""
    try:
        return time.strftime("%Y-%m-%d %H:%M UTC", time.strptime(started, "%Y-%m-%dT%H:%M:%SZ"))
    except ValueError:
        return started


def describe_rules(rules: dict[str, Any]) -> str:
    """Rules in words: ``leshan`` or ``leshan with max_fan = 4, fan.terminals = true``.

    >>> describe_rules({"preset": "leshan", "max_fan": 4, "fan": {"terminals": True}})
    'leshan with max_fan = 4, fan.terminals = true'
    """
    spec = dict(rules)
    preset = str(spec.pop("preset", "leshan"))

    def flat(d: dict[str, Any], prefix: str = "") -> list[str]:
        out = []
        for k, v in d.items():
            if isinstance(v, dict):
                out += flat(v, f"{prefix}{k}.")
            else:
                out.append(f"{prefix}{k} = {json.dumps(v)}")
        return out

    changes = flat(spec)
    return preset + (f" with {', '.join(changes)}" if changes else "")


def command_line() -> str | None:
    """The command being run, rebuilt from click's context: ``xuezhan tournament FILE`` and
    every option given on the command line, in the command's order (None outside a command)."""
    import click
    from click.core import ParameterSource

    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return None
    words = ["xuezhan", ctx.info_name or ""]
    for param in ctx.command.params:
        name = param.name or ""
        value = ctx.params.get(name)
        if isinstance(param, click.Argument):
            words.append(str(value))
            continue
        if not isinstance(param, click.Option) or ctx.get_parameter_source(name) != ParameterSource.COMMANDLINE:
            continue
        if param.is_flag:
            words.append(max(param.opts if value else param.secondary_opts or param.opts, key=len))
        else:
            words += [max(param.opts, key=len), str(value)]
    return shlex.join(words)


def run_header(config: Any, df: pd.DataFrame, command: str | None = None) -> ReportHeader:
    """The header of a tournament just played (``config``: its :class:`TournamentConfig`)."""
    from xuezhan.tournament.engines import resolve_engine

    return ReportHeader(
        name=config.name,
        hands=int(df["hand"].nunique()),
        walls=int(df["seed_index"].nunique()),
        seating=config.seating,
        seed=config.seed,
        rules=describe_rules(dict(config.rules)),
        lineup=tuple(config.labels),
        version=_version(),
        date=_now(),
        command=command,
        engine=resolve_engine(config),
    )


def load_header(results: str | Path, df: pd.DataFrame) -> ReportHeader:
    """The header saved by the run beside ``results`` (a folder or a file in it); without one,
    what the folder's manifest says; else what the table says."""
    path = Path(results)
    folder = path if path.is_dir() else path.parent
    saved = folder / HEADER_FILE
    if saved.is_file():
        with contextlib.suppress(ValueError, TypeError, KeyError):
            return ReportHeader.from_json(saved.read_text(encoding="utf-8"))
    from xuezhan.tournament.errors import RunRefused
    from xuezhan.tournament.folder import MANIFEST, read_manifest

    manifest = None
    with contextlib.suppress(OSError, ValueError, RunRefused):
        manifest = read_manifest(folder / MANIFEST)
    cfg: dict = manifest.config if manifest is not None else {}
    rules = ", ".join(sorted(map(str, df["rules_id"].unique()))) if "rules_id" in df else ""
    return ReportHeader(
        name=str(cfg.get("name") or (folder.name if path.is_dir() else path.stem)),
        hands=int(df["hand"].nunique()),
        walls=int(df["seed_index"].nunique()),
        seating=cfg.get("seating"),
        seed=cfg.get("seed"),
        rules=describe_rules(cfg["rules"]) if isinstance(cfg.get("rules"), dict) else rules,
        lineup=tuple(str(s.get("name", "")) for s in cfg.get("strategies", []) if isinstance(s, dict)),
        version=_version(),
        date=_manifest_date(manifest.started if manifest is not None else ""),
        command=None,
    )


# ---------------------------------------------------------------------------- tables

#: (column, header, kind): the main per-strategy table, then the secondary one.
MAIN_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("hands", "hands", "count"),
    ("mean_delta", "points per hand", "points"),
    ("interval", "95% interval", "text"),
    ("win_rate", "won", "share"),
    ("deal_in_rate", "dealt in", "share"),
    ("self_draw_rate", "won by self-draw", "share"),
    ("avg_fan", "fan per win", "fan"),
)
MORE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("pig_rate", "pig (R7.1)", "share"),
    ("ready_rate", "ready at the check (R7.3)", "share"),
    ("escapes", "escapes (R8)", "count"),
    ("timeouts", "timeouts (R10)", "count"),
    ("rating", "rating (μ − 3σ)", "rating"),
    ("rating_mu", "μ", "rating"),
    ("rating_sigma", "σ", "rating"),
)


@dataclass(frozen=True)
class TextTable:
    """A table as text cells, shared by the terminal and the page: ``columns`` are
    ``(header, "num" | "text")``."""

    caption: str
    columns: tuple[tuple[str, str], ...]
    rows: tuple[tuple[str, ...], ...]


def _points_decimals(summary: pd.DataFrame) -> int:
    halves = ((summary["ci_high"] - summary["ci_low"]) / 2).to_numpy(dtype=float)
    finite = halves[np.isfinite(halves) & (halves > 0)]
    return decimals_for(float(finite.min()), least=2) if finite.size else 2


def _cell(value: Any, kind: str, points: int) -> str:
    if kind == "count":
        return number(float(value), 0)
    if kind == "share":
        return percent(float(value), 1)
    if kind == "points":
        return number(float(value), points, signed=True)
    if kind in ("fan", "rating"):
        return number(float(value), 2)
    return str(value)


def strategy_tables(summary: pd.DataFrame) -> tuple[TextTable, TextTable]:
    """The per-strategy tables: points and how hands go, then pigs, ready checks, faults and
    the rating. Every column has one number of decimals."""
    d = _points_decimals(summary)
    walls = int(summary["clusters"].max()) if len(summary) else 0

    def rows(cols: tuple[tuple[str, str, str], ...]) -> tuple[tuple[str, ...], ...]:
        out = []
        for name, r in summary.iterrows():
            cells = [str(name)]
            for col, _header, kind in cols:
                if col == "interval":
                    ok = math.isfinite(r.ci_low) and math.isfinite(r.ci_high)
                    cells.append(
                        f"{number(r.ci_low, d, signed=True)} to {number(r.ci_high, d, signed=True)}" if ok else "-"
                    )
                else:
                    cells.append(_cell(r[col], kind, d))
            out.append(tuple(cells))
        return tuple(out)

    main = TextTable(
        caption=f"Per strategy: points per hand (95% interval clustered by wall, {walls:,} walls) and how hands go",
        columns=(("strategy", "text"), *((h, "num") for _c, h, _k in MAIN_COLUMNS)),
        rows=rows(MAIN_COLUMNS),
    )
    more = TextTable(
        caption="Per strategy: pigs, ready checks, faults and the OpenSkill rating",
        columns=(("strategy", "text"), *((h, "num") for _c, h, _k in MORE_COLUMNS)),
        rows=rows(MORE_COLUMNS),
    )
    return main, more


def rules_table(rules: pd.DataFrame) -> TextTable:
    """How often each rule fired; the rules id in the caption when there is one."""
    ids = sorted(map(str, rules["rules_id"].unique())) if len(rules) else []
    several = len(ids) > 1
    columns: tuple[tuple[str, str], ...] = (
        *((("rules", "text"),) if several else ()),
        ("rule", "text"),
        ("what it is", "text"),
        ("hands", "num"),
        ("share of hands", "num"),
    )
    rows = []
    for r in rules.to_dict("records"):
        cells = ([str(r["rules_id"])] if several else []) + [
            str(r["rule"]),
            str(r["title"]),
            number(float(r["hands"]), 0),
            percent(float(r["share"]), 1),
        ]
        rows.append(tuple(cells))
    where = f" (rules {ids[0]})" if len(ids) == 1 else ""
    return TextTable(caption=f"How often each rule fired{where}", columns=columns, rows=tuple(rows))


def lost_hands(df: pd.DataFrame, out: Path) -> list[tuple[str, int, int, Path]]:
    """With hand logs beside the results (``xuezhan tournament --logs``): each strategy's
    biggest losses whose log is there, ``(strategy, hand, delta, log path)``."""
    from xuezhan.tournament.hand_logs import LOG_DIR, worst_hands

    folder = out / LOG_DIR
    if not folder.is_dir():
        return []
    return [w for w in worst_hands(df, folder) if w[3].is_file()]


#: Said wherever the report suggests ``xuezhan view``: the viewer is part of the game room.
VIEW_NEEDS = "xuezhan view needs the serve extra: pip install 'xuezhan[serve]', or '.[serve]' in a clone"


def format_lost_hands(lost: list[tuple[str, int, int, Path]]) -> str:
    """The terminal list of :func:`lost_hands` with the command that replays each."""
    if not lost:
        return ""
    lines = [f"The biggest losses, to replay ({VIEW_NEEDS}):"]
    lines += [
        f"  {name}: hand {hand} ({number(delta, 0, signed=True)})  xuezhan view {path}"
        for name, hand, delta, path in lost
    ]
    return "\n".join(lines)


def format_summary(summary: pd.DataFrame, *, title: str | None = None) -> str:
    """The per-strategy tables of :func:`summarize` as terminal text (rich)."""
    main, more = strategy_tables(summary)
    return terminal_text([*([title] if title else []), _rich(main), _rich(more)])


def _rich(t: TextTable) -> Any:
    return table(t.caption, ((h, "right" if k == "num" else "left") for h, k in t.columns), t.rows)


def format_report(
    df: pd.DataFrame,
    header: ReportHeader,
    *,
    summary: pd.DataFrame | None = None,
    out: Path | None = None,
) -> str:
    """The terminal report: the header, the verdict, the per-strategy tables and (with hand
    logs) the biggest losses. ``xuezhan tournament`` and ``xuezhan report`` print this."""
    from rich.text import Text

    if summary is None:
        summary = summarize(df)
    seating = f" ({header.seating} seating)" if header.seating else ""
    # the header is never wrapped: the command line must paste back into a shell whole
    lines = [f"{header.title} on {header.walls:,} walls{seating}"]
    lines += [f"{label}: {value}" for label, value in header.items() if label != "hands"]
    parts: list[Any] = []
    if len(summary) > 1:
        parts.append(Text("Verdict (paired: each comparison on the same walls, 95% intervals):"))
        parts.append(bullets(v.sentence for v in verdicts(pairwise(df), list(summary.index))))
        parts.append(Text(""))
    main, more = strategy_tables(summary)
    parts += [_rich(main), Text(""), _rich(more)]
    text = "\n".join(lines) + "\n\n" + terminal_text(parts)
    lost = format_lost_hands(lost_hands(df, out)) if out is not None else ""
    return text + ("\n\n" + lost if lost else "")


# ---------------------------------------------------------------------------- plots

#: Score bands of the distribution plot (points of one hand): each twice as wide as the last.
_BANDS: tuple[tuple[float, float, str], ...] = (
    (-math.inf, -32, "≤ −32"),
    (-31, -16, "−31…−16"),
    (-15, -8, "−15…−8"),
    (-7, -4, "−7…−4"),
    (-3, -1, "−3…−1"),
    (0, 0, "0"),
    (1, 3, "1…3"),
    (4, 7, "4…7"),
    (8, 15, "8…15"),
    (16, 31, "16…31"),
    (32, math.inf, "≥ 32"),
)


def _stat(summary: pd.DataFrame, name: str, column: str) -> float:
    value: Any = summary.at[name, column]
    return float(value)


def _groups(summary: pd.DataFrame) -> list[list[str]]:
    """Strategies in groups whose means are close enough to share an axis: a gap of more than
    ten times the wider interval between neighbours starts a new group (so that ``random`` at
    −30 does not squash ``value`` and ``greedy`` 0.7 apart onto one point)."""
    names = list(summary.index)
    groups: list[list[str]] = []
    for i, n in enumerate(names):
        if i == 0:
            groups.append([n])
            continue
        prev = names[i - 1]
        gap = abs(_stat(summary, prev, "mean_delta") - _stat(summary, n, "mean_delta"))
        halves = [(_stat(summary, k, "ci_high") - _stat(summary, k, "ci_low")) / 2 for k in (prev, n)]
        scale = max((h for h in halves if math.isfinite(h)), default=0.0)
        if scale > 0 and gap > 10 * scale:
            groups.append([n])
        else:
            groups[-1].append(n)
    return groups


@dataclass(frozen=True)
class Plot:
    """A figure of the report with what its page says about it."""

    name: str
    figure: Figure
    alt: str
    caption: str


def report_plots(df: pd.DataFrame, summary: pd.DataFrame, pairs: pd.DataFrame | None = None) -> list[Plot]:
    """The report's figures (Agg backend), each with a caption that says what to read from it."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    names = list(summary.index)
    colors = {n: plt.get_cmap("tab10")(i % 10) for i, n in enumerate(names)}
    plots: list[Plot] = []
    if pairs is None:
        pairs = pairwise(df)

    # 1. forest plot of the paired differences, each comparison on its own scale
    vs = verdicts(pairs, names)
    if vs:
        fig, axes = plt.subplots(len(vs), 1, figsize=(8.5, 0.85 * len(vs) + 0.9), squeeze=False)
        for ax, v in zip(axes[:, 0], vs, strict=True):
            finite = math.isfinite(v.low) and math.isfinite(v.high)
            err = [[v.diff - v.low], [v.high - v.diff]] if finite else None
            ax.errorbar([v.diff], [0], xerr=err, fmt="o", capsize=5, color="black" if v.clear else "grey", ms=7)
            ax.axvline(0, color="#b00", lw=0.9, ls="--")
            lo = min(0.0, v.low if finite else v.diff)
            hi = max(0.0, v.high if finite else v.diff)
            pad = 0.08 * (hi - lo or 1.0)
            ax.set_xlim(lo - pad, hi + pad)
            ax.set_yticks([0], [f"{v.better} − {v.worse}"])
            ax.set_ylim(-0.6, 0.6)
            ax.tick_params(axis="x", labelsize=8)
            ax.grid(axis="x", color="#ddd", lw=0.6)
        axes[-1, 0].set_xlabel("points per hand, first minus second, on the same walls (95% interval)")
        fig.tight_layout()
        plots.append(
            Plot(
                "paired_differences",
                fig,
                "forest plot of the paired differences",
                "Paired differences: each row compares two strategies on the same walls, on its own scale. "
                "The dot is how many points per hand the first scores more than the second, the bar its 95% "
                "interval; a bar clear of the dashed zero line (black) is a clear difference, a grey one is not.",
            )
        )

    # 2. mean points per hand with the clustered intervals; far-apart strategies in their own panel
    groups = _groups(summary)
    fig, axes = plt.subplots(
        1, len(groups), figsize=(8.5 if len(groups) == 1 else 10, 0.55 * max(map(len, groups)) + 1.5), squeeze=False
    )
    for ax, group in zip(axes[0], groups, strict=True):
        y = np.arange(len(group))[::-1]
        for yi, n in zip(y, group, strict=True):
            m, lo, hi = (_stat(summary, n, c) for c in ("mean_delta", "ci_low", "ci_high"))
            err = [[m - lo], [hi - m]] if math.isfinite(lo) and math.isfinite(hi) else None
            ax.errorbar([m], [yi], xerr=err, fmt="o", capsize=5, color=colors[n], ms=8)
        ax.set_yticks(y, group)
        ax.set_ylim(-0.6, len(group) - 0.4)
        ax.grid(axis="x", color="#ddd", lw=0.6)
        ax.tick_params(axis="x", labelsize=8)
        ax.set_xlabel("points per hand")
    fig.tight_layout()
    split = " Strategies far apart are in separate panels, each on its own scale." if len(groups) > 1 else ""
    plots.append(
        Plot(
            "mean_delta",
            fig,
            "mean points per hand per strategy",
            "Mean points per hand of each strategy with its 95% interval (clustered by wall). Overlapping "
            "intervals here do not mean no difference: the paired comparisons above are the sharper test." + split,
        )
    )

    # 3. how hands end: share of each strategy's hands per band of points
    fig, ax = plt.subplots(figsize=(10, 4.2))
    deltas = df["delta"].to_numpy()
    strat = df["strategy"].to_numpy()
    width = 0.8 / max(1, len(names))
    x = np.arange(len(_BANDS))
    for i, n in enumerate(names):
        d = deltas[strat == n]
        share = [float(((d >= lo) & (d <= hi)).mean()) if d.size else 0.0 for lo, hi, _l in _BANDS]
        ax.bar(x + (i - (len(names) - 1) / 2) * width, np.array(share) * 100, width, label=n, color=colors[n])
    ax.set_xticks(x, [label for _lo, _hi, label in _BANDS], fontsize=9)
    ax.set_xlabel("points won or lost in a hand (bands twice as wide as the last)")
    ax.set_ylabel("% of the strategy's hands")
    ax.grid(axis="y", color="#ddd", lw=0.6)
    ax.legend(fontsize=9)
    fig.tight_layout()
    plots.append(
        Plot(
            "score_distribution",
            fig,
            "share of hands per band of points",
            "How each strategy's hands end: the share of its hands by the points it won or lost. Bars to the "
            "right are hands won; a strategy whose bars lean right wins more often or for more.",
        )
    )

    # 4. fan of the wins
    fig, ax = plt.subplots(figsize=(8.5, 3.8))
    wins = df[df["won"].astype(bool)]
    fans = sorted(int(f) for f in wins["fan"].unique()) if not wins.empty else [1]
    for i, n in enumerate(names):
        w = wins.loc[wins["strategy"] == n, "fan"]
        share = [100 * float((w == f).mean()) if len(w) else 0.0 for f in fans]
        ax.bar(
            np.arange(len(fans)) + (i - (len(names) - 1) / 2) * width,
            share,
            width,
            label=f"{n} ({len(w):,} wins)",
            color=colors[n],
        )
    ax.set_xticks(np.arange(len(fans)), [str(f) for f in fans])
    ax.set_xlabel("fan of the win (after the cap)")
    ax.set_ylabel("% of the strategy's wins")
    ax.grid(axis="y", color="#ddd", lw=0.6)
    ax.legend(fontsize=9)
    fig.tight_layout()
    plots.append(
        Plot(
            "fan_histogram",
            fig,
            "fan of the wins per strategy",
            "The fan of each strategy's wins: a strategy with more of its wins to the right plays for bigger hands.",
        )
    )
    return plots


def plot_figures(df: pd.DataFrame, summary: pd.DataFrame) -> dict[str, Figure]:
    """The report's matplotlib figures (Agg backend): name → Figure."""
    return {p.name: p.figure for p in report_plots(df, summary)}


# ---------------------------------------------------------------------------- the page


def write_report(
    df: pd.DataFrame,
    out_dir: str | Path,
    *,
    title: str | None = None,
    summary: pd.DataFrame | None = None,
    notes: Iterable[str] = (),
    header: ReportHeader | None = None,
) -> dict[str, Path]:
    """Write ``summary.csv``, ``rules.csv``, the PNG plots and ``report.html`` (one
    self-contained page, images embedded) to ``out_dir``. Returns the paths written, by name.

    The page opens with the header (seed, date, version, rules, line-up, command), then one
    sentence per paired comparison and their forest plot, then the per-strategy tables.
    """
    import matplotlib.pyplot as plt

    from xuezhan.tournament.rating import RATED_HANDS

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if summary is None:
        summary = summarize(df)
    if header is None:
        header = load_header(out, df)
    paths: dict[str, Path] = {}
    paths["summary_csv"] = out / "summary.csv"
    summary.to_csv(paths["summary_csv"])
    pairs = pairwise(df)
    figures = []
    for plot in report_plots(df, summary, pairs):
        data, uri = png_data_uri(plot.figure, dpi=100)
        width = int(plot.figure.get_figwidth() * 100)
        plt.close(plot.figure)
        p = out / f"{plot.name}.png"
        p.write_bytes(data)
        paths[plot.name] = p
        figures.append({"name": plot.name, "alt": plot.alt, "caption": plot.caption, "uri": uri, "width": width})
    rules = rule_frequencies(df)
    paths["rules_csv"] = out / "rules.csv"
    rules.to_csv(paths["rules_csv"], index=False)
    main, more = strategy_tables(summary)
    notes = list(notes)
    n_hands = int(df["hand"].nunique())
    if n_hands > RATED_HANDS:
        notes.append(f"Ratings are computed over {RATED_HANDS:,} of the {n_hands:,} hands, spread evenly.")
    lost = [
        {
            "strategy": n,
            "hand": h,
            "delta": number(d, 0, signed=True),
            "href": f"{w.parent.name}/{w.name}",
            "path": str(w),
        }
        for n, h, d, w in lost_hands(df, out)
    ]
    page = render_page(
        "tournament.html.j2",
        title=title or header.title,
        meta=header.items(),
        verdicts=verdicts(pairs, list(summary.index)),
        figures={f["name"]: f for f in figures},
        main=main,
        more=more,
        rules=rules_table(rules),
        notes=notes,
        lost=lost,
        view_needs=VIEW_NEEDS,
    )
    paths["html"] = out / "report.html"
    paths["html"].write_text(page, encoding="utf-8")
    return paths


def save_header(out: str | Path, header: ReportHeader) -> Path:
    """Save the run's header beside its results (``report.json``) for ``xuezhan report``."""
    path = Path(out) / HEADER_FILE
    path.write_text(header.to_json() + "\n", encoding="utf-8")
    return path


def print_report(
    df: pd.DataFrame,
    out: Path | None,
    header: ReportHeader,
    *,
    page: bool = True,
    echo: Callable[[str], None] = print,
) -> None:
    """Print the terminal report and write the page: what ``xuezhan tournament`` does at the end
    of a run and ``xuezhan report`` does again from the results, with the same words."""
    summary = summarize(df)
    echo(format_report(df, header, summary=summary, out=out))
    if out is not None and page:
        paths = write_report(df, out, summary=summary, header=header)
        echo(f"report: {paths['html']}  (plots, summary.csv and rules.csv beside it)")
