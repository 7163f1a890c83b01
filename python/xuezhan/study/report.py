"""A study's report: the verdict first, then the tables, in the terminal and on one page.

:func:`format_study` renders :class:`~xuezhan.study.measure.StudyReport` as terminal text:
the header (seed, rules, variants, line-up, date, version, command), the verdict (one block
per variant against the base, :mod:`.verdict`), then one table per section (rich: a column per
variant, ``value ±half-width`` for the base variant and ``value (Δ±half-width)`` for the
others, ``*`` when the paired interval excludes 0 at the decimals shown, ``(same)`` when the
variant gives the base's value on every wall). Rows in which no variant differs from the base
are left out of the tables and named in one line (:mod:`.cells`). The text is laid out in the
given width; a table too wide is split by columns, each part keeping the labels and the base.

:func:`write_study_report` writes ``summary.parquet`` (the tidy table of estimates),
``distribution.parquet`` and ``report.html`` (the template ``xuezhan/templates/study.html.j2``):
the same header, verdict and tables, and the figures of :mod:`.figures` embedded as PNG.

:func:`measure_results` measures a study's results folder or tidy table and
:func:`print_study_report` prints and writes the report: what ``xuezhan study`` does at the end
of a run and ``xuezhan report`` does again from the results, with the same words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xuezhan.reporting import TERMINAL_WIDTH, bullets, fitted_tables, page_figure, render_page, terminal_text
from xuezhan.study.cells import Row, StudyCells, study_cells
from xuezhan.study.figures import study_figures
from xuezhan.study.measure import HEADLINE_KEYS, REPORT_COLUMNS, SECTIONS, StudyReport, study_report, study_report_file
from xuezhan.study.verdict import VariantVerdict, rule_changes, study_verdicts
from xuezhan.tournament.report.header import ReportHeader, folder_header

if TYPE_CHECKING:
    from xuezhan.tournament.folder import Manifest

__all__ = [
    "FOREST_KEYS",
    "format_study",
    "measure_results",
    "print_study_report",
    "study_figures",
    "study_header",
    "write_study_report",
]

#: The headline quantities of the forest plot (the strategies' mean deltas are added).
FOREST_KEYS: tuple[str, ...] = HEADLINE_KEYS

#: What each section's table holds, said above it on the page.
EXPLAIN: dict[str, str] = {
    "ends": "Share of hands ending with three winners, an exhausted wall or an escape.",
    "rules": "Share of hands in which each rule fired at least once (per-hand counts where stated).",
    "scores": "A seat's score change per hand. Quantiles are point estimates (no interval).",
    "fan": "Capped fan of the wins, and the share of wins that scored each fan item.",
    "dealer": "The dealer's result (every variant deals the same walls to the same seats).",
    "strategies": "How each strategy of the line-up fares: does the rule change favour a style of play?",
}


def _names(rows: list[Row]) -> str:
    return "; ".join(r.title for r in rows)


def left_out_notes(cells: StudyCells) -> list[str]:
    """The lines that name the rows left out of the tables (no variant differs from the base)."""
    same, never = cells.left_out()
    out = []
    if same:
        out.append(
            "The same under every variant (wall by wall; a quantile, overall), so left out of the tables: "
            f"{_names(same)}."
        )
    if never:
        out.append(f"Never happened under any variant: {_names(never)}.")
    return out


def format_study(
    report: StudyReport,
    *,
    title: str | None = None,
    header: ReportHeader | None = None,
    rules: dict[str, str] | None = None,
    width: int = TERMINAL_WIDTH,
    label_width: int = 40,
) -> str:
    """The terminal report of a study, ``width`` columns wide: ``header`` (or ``title``), the
    verdict (``rules``: each variant's rule changes in words, :func:`~.verdict.rule_changes`),
    the legend and one table per section (``label_width`` is kept for callers of the earlier
    fixed-width layout: labels wrap instead of being cut)."""
    from rich.text import Text

    del label_width
    cells = study_cells(report)
    lines: list[str] = header.lines() if header is not None else [title] if title else []
    parts: list[Any] = []
    verdicts = study_verdicts(cells, rules)
    if verdicts:
        parts.append(
            Text(
                f"Verdict (paired: each variant against the base {report.base} on the same "
                f"{report.clusters:,} walls, 95% intervals):"
            )
        )
        for v in verdicts:
            parts += [Text(f"{v.heading}:"), bullets(v.sentences), Text("")]
    base = report.variants.index(report.base)
    parts.append(
        f"{report.clusters:,} walls, each played by every variant with the same seats; hands per variant: "
        f"{', '.join(f'{n:,}' for n in dict.fromkeys(report.hands.values()))}"
    )
    parts.append(
        f"value (Δ±h): Δ = paired difference against the base variant {report.base!r} over the same walls; "
        "±h: half-width of the 95% interval (clustered by wall; shares in %, their differences in "
        "percentage points); * = the interval excludes 0 at the decimals shown; (same) = the base's value "
        "on every wall; a value without ±h is the same on every wall"
    )
    parts += [*report.notes, *left_out_notes(cells)]
    headers = [f"{v} (base)" if v == report.base else v for v in report.variants]
    for section, heading in SECTIONS.items():
        body = [(r.title, *(cells.cells[(r.key, v)].text for v in report.variants)) for r in cells.shown(section)]
        if not body:
            parts += ["", f"{heading}: no variant differs from the base (the quantities are named above)"]
            continue
        columns = [(heading, "left"), *((h, "right") for h in headers)]
        for t in fitted_tables(None, columns, body, width, keep=(0, base + 1)):
            parts += ["", t]
    text = terminal_text(parts, width)
    return "\n".join([*lines, "", text]) if lines else text


def study_header(config: Any, report: StudyReport, command: str | None = None) -> ReportHeader:
    """The header of a study just played (``config``: its :class:`~xuezhan.study.StudyConfig`)."""
    from xuezhan.tournament.engines import resolve_engine
    from xuezhan.tournament.report.header import played_header

    engines = {resolve_engine(config.tournament(v)) for v in config.variants}
    return played_header(
        config,
        hands=config.n_games,
        walls=report.clusters,
        command=command,
        engine=engines.pop() if len(engines) == 1 else "",  # one engine played every variant
        kind="study",
        variants=tuple(report.variants),
        base=report.base,
    )


def measure_results(path: str | Path) -> tuple[StudyReport, Manifest | None]:
    """Measure a study's results: its output folder (the variants and base of its manifest; an
    interrupted study gives what its variants stored so far), a file in it, or a tidy table
    elsewhere (Parquet or CSV, with a ``variant`` column). A Parquet table is read batch by
    batch, in bounded memory. Errors: ``FileNotFoundError``, ``ValueError`` naming the path."""
    from xuezhan.study.runner import load_study_results
    from xuezhan.tournament.errors import RunRefused
    from xuezhan.tournament.folder import FINAL, STUDY_MANIFEST, read_manifest

    p = Path(path)
    folder = p if p.is_dir() else p.parent
    manifest = None
    if (folder / STUDY_MANIFEST).is_file():
        try:
            manifest = read_manifest(folder / STUDY_MANIFEST)
        except RunRefused as exc:
            raise ValueError(str(exc)) from None
    base = manifest.base_variant if manifest is not None else None
    table = p / FINAL if p.is_dir() else p
    if table.suffix == ".parquet" and table.is_file():  # the variants in the table's order: the study's
        return study_report_file(table, base=base), manifest
    variants = _study_order(manifest) if manifest is not None else None
    df, _ = load_study_results(p, columns=[c for c in REPORT_COLUMNS if c != "variant"], categories=True)
    if df.empty:
        raise ValueError(f"{p}: no results yet")
    return study_report(df, variants=variants, base=base), manifest


def _study_order(manifest: Manifest) -> list[str]:
    """The variants in the study's order: as its configuration lists them (the manifest's
    table of folders is sorted by name)."""
    listed = manifest.config.get("variants")
    names = [str(v.get("name")) for v in listed if isinstance(v, dict)] if isinstance(listed, list) else []
    return names if sorted(names) == sorted(manifest.variants) else list(manifest.variants)


def load_study_header(path: str | Path, report: StudyReport) -> ReportHeader:
    """The header of the study report of ``path``: the one the run saved, else its manifest's,
    else what the results say (see :func:`~xuezhan.tournament.report.header.folder_header`)."""
    p = Path(path)
    return folder_header(
        p if p.is_dir() else p.parent,
        kind="study",
        name=p.name if p.is_dir() else p.stem,
        hands=max(report.hands.values(), default=0),
        walls=report.clusters,
        variants=tuple(report.variants),
        base=report.base,
    )


def print_study_report(
    report: StudyReport,
    out: Path | None,
    header: ReportHeader,
    *,
    manifest: Manifest | None = None,
    page: bool = True,
    echo: Callable[[str], None] = print,
    width: int | None = None,
) -> None:
    """Print the terminal report and write the page into ``out``: what ``xuezhan study`` does
    at the end of a run and ``xuezhan report`` does again from the results, with the same words.
    ``manifest``: the study's, for the variants' rule changes; ``width``: the terminal's unless
    given."""
    from xuezhan.reporting import terminal_width

    rules = rule_changes(manifest.rules, report.base) if manifest is not None else None
    echo(format_study(report, header=header, rules=rules, width=width or terminal_width()))
    if out is not None and page:
        from xuezhan.tournament.report.header import save_header

        paths = write_study_report(report, out, header=header, rules=rules)
        save_header(out, header)  # says whose report the folder holds
        echo(f"report: {paths['html']}  (summary.parquet and distribution.parquet beside it)")


def _verdict_page(verdicts: list[VariantVerdict]) -> list[dict[str, Any]]:
    return [{"heading": v.heading, "sentences": v.marked} for v in verdicts]


def write_study_report(
    report: StudyReport,
    out_dir: str | Path,
    *,
    title: str | None = None,
    meta: Sequence[tuple[str, str]] = (),
    header: ReportHeader | None = None,
    rules: dict[str, str] | None = None,
) -> dict[str, Path]:
    """Write ``summary.parquet``, ``distribution.parquet`` and ``report.html`` to ``out_dir``;
    ``header`` (:func:`study_header`) or ``title`` and ``meta`` (label, value) lines head the
    page; ``rules``: each variant's rule changes in words, for the verdict."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "summary": out / "summary.parquet",
        "distribution": out / "distribution.parquet",
        "html": out / "report.html",
    }
    report.table.to_parquet(paths["summary"], index=False)
    report.distribution.to_parquet(paths["distribution"], index=False)
    alts = {
        "forest": "forest plot of paired differences",
        "rules": "rule firing per variant",
        "scores": "score distributions",
    }
    captions = {
        "forest": "Each panel is one quantity; each dot the paired difference of a variant against the base "
        f"variant {report.base} on the same walls, the bar its 95% interval. A bar clear of the dashed zero "
        "line is a change the rules make; shares are in percentage points.",
        "rules": "How often each rule fires under each variant (share of hands, with 95% intervals): "
        "bars of different lengths are rules the variants make fire more or less often.",
        "scores": "The share of seat-hands at each score change (both axes logarithmic): a variant whose "
        "line reaches further out makes bigger wins and losses.",
    }
    narrow = study_figures(report, narrow=True)
    figures = {
        name: page_figure(name, fig, narrow[name], alt=alts[name], caption=captions[name])
        for name, fig in study_figures(report).items()
    }
    cells = study_cells(report)
    sections = []
    for key, heading in SECTIONS.items():
        body = [
            {"label": r.label, "rule": r.rule, "cells": [cells.cells.get((r.key, v)) for v in report.variants]}
            for r in cells.shown(key)
        ]
        sections.append({"key": key, "heading": heading, "explain": EXPLAIN[key], "rows": body})
    page = render_page(
        "study.html.j2",
        title=header.title if header is not None else title or "Rule study",
        meta=header.items() if header is not None else list(meta),
        report=report,
        hands=", ".join(f"{v}: {n:,}" for v, n in report.hands.items()),
        verdicts=_verdict_page(study_verdicts(cells, rules)),
        left_out=left_out_notes(cells),
        sections=sections,
        figures=figures,
    )
    paths["html"].write_text(page, encoding="utf-8")
    return paths
