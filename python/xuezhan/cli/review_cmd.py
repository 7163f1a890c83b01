"""``xuezhan review LOG --seat N``: which of one seat's decisions in a hand log cost it points.

Every decision of the seat that had a choice is estimated by determinized rollouts
(:mod:`xuezhan.review`, docs/review.md): the action played and the best alternatives, each as the
seat's mean result for the hand with a 95% interval, and the points the choice lost; then the
decisions sorted by loss. ``--json`` prints the :class:`~xuezhan.review.Review` document.

Exit codes (:mod:`xuezhan.cli._common`): 0 reviewed; 2 bad input (no such file, not a hand log, a
log the engine does not reproduce, a seat or option out of range), one line naming it.
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

import click

from xuezhan.cli._common import emit_json, fail, room_database
from xuezhan.extras import MissingExtra

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import RenderableType

    from xuezhan.documents import HandLog
    from xuezhan.review import ActionValue, Decision, Review

__all__ = ["COMMANDS", "render", "review"]

#: Bounds of the options (a review costs rollouts x actions x decisions hands played).
MAX_ROLLOUTS = 10_000
MAX_TOP = 20


@click.command("review")
@click.argument("log", type=click.Path())
@click.option("--seat", "-s", type=int, required=True, help="The seat to review, 0-3.")
@click.option("--json", "as_json", is_flag=True, help="Print the review as one JSON document (docs/review.md).")
@click.option(
    "--rollouts",
    "-r",
    type=int,
    default=64,
    show_default=True,
    help="Determinized rollouts per decision (each shared by every action).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="The review's seed (same seed, same review).")
@click.option("--top", "-k", type=int, default=3, show_default=True, help="Best alternatives shown per decision.")
@click.option(
    "--policy",
    type=click.Choice(["expert", "greedy", "value", "random"]),
    default="expert",
    show_default=True,
    help="How actions are estimated: expert (its search: native samples, value at every seat, "
    "natively) or the rollout policy of all four seats on the Python determinizer's samples.",
)
@click.option(
    "--db",
    default=None,
    help="The game room's standings database, for a LOG that is a hand played there by its replay "
    "id (h12). Default: the room's own (room.db in your data folder, as for serve).",
)
@click.option("--progress/--no-progress", default=None, help="Progress bar on stderr (default: on a terminal).")
def review(
    log: str,
    seat: int,
    as_json: bool,
    rollouts: int,
    seed: int,
    top: int,
    policy: str,
    db: str | None,
    progress: bool | None,
) -> None:
    """Review seat N's decisions in a hand log LOG (.jsonl or .jsonl.gz: a tournament's --logs,
    `xuezhan replay --log`), or in a hand played in the game room (LOG its replay id, h12, read
    from the room's database: --db, by default the one `xuezhan serve` keeps).

    At each of the seat's decisions with a choice (turn, claim, exchange, void), every legal
    action is estimated by rollouts from rounds consistent with what the seat knew there: the
    seat's mean result for the hand after it, with a 95% interval. A choice's loss is the best
    action's mean less the played one's.

    \b
    Exit status: 0 reviewed; 2 bad input (no such file, not a hand log, a log the engine does
    not reproduce, a seat or option out of range).
    """
    from xuezhan.documents import DocumentError
    from xuezhan.review import ReviewError, count_decisions, review_log

    if not 0 <= seat <= 3:
        fail(f"--seat {seat}: a seat is 0, 1, 2 or 3", as_json=as_json)
    if not 2 <= rollouts <= MAX_ROLLOUTS:
        fail(f"--rollouts {rollouts}: expected 2 to {MAX_ROLLOUTS} (an interval needs two)", as_json=as_json)
    if not 1 <= top <= MAX_TOP:
        fail(f"--top {top}: expected 1 to {MAX_TOP}", as_json=as_json)
    try:
        hand = _room_hand(log, db) if db is not None or _room_id(log) else _load(log)
        total = count_decisions(hand, seat)
    except (DocumentError, ReviewError, MissingExtra) as exc:
        fail(str(exc), as_json=as_json)
    bar = _Progress(total, (sys.stderr.isatty() if progress is None else progress) and not as_json)
    try:
        result = review_log(hand, seat, rollouts=rollouts, seed=seed, top=top, policy=policy, progress=bar)
    except ReviewError as exc:
        fail(str(exc), as_json=as_json)
    finally:
        bar.close()
    if as_json:
        emit_json(result.model_dump(mode="json"))
    else:
        from xuezhan.reporting import terminal_width

        click.echo(render(result, width=terminal_width(default=120, least=80, most=None)))


def _room_id(log: str) -> bool:
    """``log`` names a hand of the room (``h12``) rather than a file."""
    from pathlib import Path

    return re.fullmatch(r"h[0-9]+", log) is not None and not Path(log).exists()


def _room_hand(rid: str, db: str | None) -> HandLog:
    """The hand ``rid`` (``h<n>``) of the game room's standings database ``db`` (default: the
    room's own, :func:`~xuezhan.cli._common.room_database`)."""
    from pathlib import Path

    from xuezhan.documents import DocumentError, parse_log
    from xuezhan.extras import require

    require("serve", "reading the room's hands (xuezhan review h12)")
    from xuezhan.serve.standings import Standings, StandingsError

    if db is None:
        db = str(room_database())
        where, keeper = f"{rid}: the room's database {db}", "xuezhan serve"
    else:
        where, keeper = f"--db {db}", f"xuezhan serve --db {db}"
    if "://" not in db and not Path(db).is_file():
        raise DocumentError(f"{where}: no standings database there ({keeper} keeps one)")
    try:
        ledger = Standings(db)
    except StandingsError as exc:
        raise DocumentError(f"{where}: {exc}") from None
    try:
        rec = ledger.hand(rid)
    finally:
        ledger.close()
    if rec is None:
        raise DocumentError(f"{rid}: no such hand in {db} (a room hand's id is h<number>: the replay page lists them)")
    return parse_log("\n".join(rec.lines), source=rec.name)


def _load(path: str) -> HandLog:
    """The hand log at ``path`` (the one log reader); a scripted hand (R13) is named as such."""
    import json

    from xuezhan.documents import DocumentError, parse_log
    from xuezhan.files import InputFileError, read_text

    try:
        text = read_text(path, what="hand log (JSON lines)")
    except InputFileError as exc:
        raise DocumentError(str(exc)) from None
    if not path.endswith((".jsonl", ".jsonl.gz")):
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError):
            doc = None
        if isinstance(doc, dict) and "script" in doc:
            raise DocumentError(
                f"{path}: a scripted hand (R13), not a hand log; write its log with "
                f"'xuezhan replay {path} --log HAND.jsonl' and review that"
            )
    return parse_log(text, source=path)


class _Progress:
    """The review's progress callback: a tqdm bar on stderr when ``show``, else nothing."""

    def __init__(self, total: int, show: bool) -> None:
        self.bar = None
        if show:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="decision", desc="review", dynamic_ncols=True, leave=False)

    def __call__(self, done: int, _total: int) -> None:
        if self.bar is not None:
            self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _signed(x: float) -> str:
    return f"{x:+.2f}"


def _interval(v: ActionValue) -> str:
    return f"[{_signed(v.low)}, {_signed(v.high)}]"


def _where(d: Decision) -> str:
    p = d.position
    hand = p.hand + (f" + {p.melds}" if p.melds else "") + (f" (void {p.void})" if p.void else "")
    if p.phase == "claim":
        return f"{hand}, {p.claim_tile} from seat {p.claim_from}"
    if p.drawn is not None:
        return f"{hand}, drew {p.drawn}"
    return hand


def render(rv: Review, width: int = 120) -> str:
    """The review as terminal text: a header, every decision in play order (the played action,
    then the best alternatives, one row each), then the decisions sorted by loss (rich tables,
    :func:`xuezhan.reporting.table`)."""
    from xuezhan.reporting import table, terminal_text

    who = f"seat {rv.seat}" + (f" ({rv.name})" if rv.name else "")
    head = (
        f"Review of {who} in {rv.source} ({rv.preset or 'custom rules'}); the hand's result: {_signed(rv.delta)}.\n"
        f"{rv.rollouts} rollouts per decision ({rv.policy} bots at all four seats), seed {rv.seed}. An estimate "
        "is the seat's mean result for the whole hand after the action, in points, with its 95% interval; "
        "loss = the best action's mean less the played action's."
    )
    if not rv.decisions:
        return terminal_text([head, "", f"No decision of {who} had a choice: nothing to review."], width)
    cols = [
        ("#", "right"),
        ("line", "right"),
        ("turn", "right"),
        ("phase", "left"),
        ("position", "left"),
        ("action", "left"),
        ("mean", "right"),
        ("95% interval", "right"),
        ("loss", "right"),
        ("rollouts", "right"),
    ]
    rows: list[list[str]] = []
    ends: list[int] = []
    for i, d in enumerate(rv.decisions):
        phase = d.position.phase + (" (timeout)" if d.default else "")
        screened = f" (best {d.estimated} of {d.legal})" if d.estimated < d.legal else ""
        v = d.played
        rows.append(
            [str(i + 1), str(d.line), str(d.position.turn), phase, _where(d), f"played: {v.action}", _signed(v.mean),
             _interval(v), f"{d.loss:.2f}", f"{v.rollouts}{screened}"]
        )  # fmt: skip
        for b in d.best:
            rows.append(["", "", "", "", "", f"  {b.action}", _signed(b.mean), _interval(b), "", str(b.rollouts)])
        ends.append(len(rows) - 1)
    in_order = table(f"Decisions of {who}, in play order (the played action, then the best others)", cols, rows, width)
    for r in ends[:-1]:
        in_order.rows[r].end_section = True
    by_cols = [
        ("rank", "right"),
        ("#", "right"),
        ("line", "right"),
        ("turn", "right"),
        ("phase", "left"),
        ("played", "left"),
        ("best", "left"),
        ("loss", "right"),
    ]
    by_rows = []
    for rank, i in enumerate(rv.by_loss, start=1):
        d = rv.decisions[i]
        best = d.best[0] if d.best and d.best[0].mean > d.played.mean else d.played
        by_rows.append(
            [str(rank), str(i + 1), str(d.line), str(d.position.turn), d.position.phase,
             f"{d.played.action} {_signed(d.played.mean)}", f"{best.action} {_signed(best.mean)}", f"{d.loss:.2f}"]
        )  # fmt: skip
    parts: list[RenderableType] = [
        head,
        "",
        in_order,
        "",
        table(f"Sorted by loss ({rv.total_loss:.2f} points in all)", by_cols, by_rows, width),
    ]
    if rv.unreviewed:
        lines = ", ".join(map(str, rv.unreviewed))
        parts += ["", f"Not reviewed (no round consistent with the seat's view was found): log lines {lines}."]
    return terminal_text(parts, width)


COMMANDS = [review]
