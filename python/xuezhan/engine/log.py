"""Hand logs as JSON lines (docs/rules.md R1.4, R12.4).

Line 1 is a header: engine version, rules (every option), seed, dealer, the dealt hands and the
wall in draw order, the exchange direction. Every following line is one event of the hand, in
order. Lines are canonical JSON (sorted keys, no spaces, no timestamps), so the same seed,
rules and bots give byte-identical logs.

:func:`replay_log` re-runs a log from its header and its decision events alone (no RNG, no
strategies) and fails on the first event that differs (R12.4).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from xuezhan.engine.actions import EXCHANGE, VOID, Action, IllegalAction, act
from xuezhan.engine.events import DECISION_TYPES, LOG_FORMAT, Event, Exchange, TileDecision, Void, dumps
from xuezhan.engine.round import Round, deal
from xuezhan.rules import Rules
from xuezhan.tiles import TILE_STR, parse_tiles

if TYPE_CHECKING:  # pragma: no cover
    from xuezhan.documents import HandLog

__all__ = [
    "LOG_FORMAT",
    "header",
    "header_of",
    "log_lines",
    "write_log",
    "replay_log",
    "ReplayMismatch",
    "event_action",
    "validate_dir",
]

_TILE = TILE_STR
_KIND = {t: k for k, t in enumerate(TILE_STR)}


class ReplayMismatch(AssertionError):
    """A log that the engine does not reproduce; names the first differing line (1-based)."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}")


def _engine_version() -> str:
    try:
        from xuezhan import __version__

        return str(__version__)
    except Exception:  # pragma: no cover
        return "unknown"


def header(rnd: Round) -> dict:
    """The log header of a hand (R1.4: the wall itself is recorded)."""
    return header_of(rnd.rules, rnd.seed, rnd.dealer, rnd.hands0, rnd.wall.tiles, rnd.exchange_dir)


def header_of(
    rules: Rules,
    seed: int | None,
    dealer: int,
    hands: Sequence[Sequence[int]],
    wall: Sequence[int],
    exchange: str | None,
) -> dict:
    """The header of a hand's log from its facts: rules, seed, dealer, the hands as dealt,
    the wall in draw order and the exchange direction (also what the native engine's hands
    are logged with)."""
    return {
        "type": "header",
        "format": LOG_FORMAT,
        "engine": _engine_version(),
        "rules": rules.to_dict(),
        "seed": seed,
        "dealer": dealer,
        "hands": ["".join(_TILE[k] for k in h) for h in hands],
        "wall": "".join(_TILE[k] for k in wall),
        "exchange": exchange,
    }


def log_lines(rnd: Round) -> list[str]:
    """Header plus one canonical JSON line per event."""
    return [dumps(header(rnd))] + [dumps(e) for e in rnd.ledger.events]


def write_log(rnd: Round, dest: str | os.PathLike | IO[str]) -> None:
    text = "\n".join(log_lines(rnd)) + "\n"
    if isinstance(dest, (str, os.PathLike)):
        with open(dest, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    else:
        dest.write(text)


def event_action(e: Event) -> Action:
    """The action a logged decision event records (typed by :func:`~xuezhan.engine.events.from_json`:
    its tiles and suits are canonical): what replaying a log, or handing it to another engine,
    applies to the round.

    >>> from xuezhan.engine.events import from_json
    >>> event_action(from_json({"type": "discard", "seat": 2, "tile": "5p"}))
    Action(seat=2, type='discard', tile=13)
    """
    seat = e.seat  # type: ignore[attr-defined]  # every decision event has a seat
    if isinstance(e, TileDecision):
        return act(seat, e.type, _KIND[e.tile])
    if isinstance(e, Exchange):
        return act(seat, EXCHANGE, tuple(_KIND[e.tiles[i : i + 2]] for i in (0, 2, 4)))
    if isinstance(e, Void):
        return act(seat, VOID, "mps".index(e.suit))
    return act(seat, e.type)


def _read(source: HandLog | str | os.PathLike | Iterable[str]) -> HandLog:
    from xuezhan.documents import HandLog, load_log, parse_log

    if isinstance(source, HandLog):
        return source
    if isinstance(source, os.PathLike) or (isinstance(source, str) and not source.lstrip().startswith("{")):
        return load_log(source)
    if isinstance(source, str):
        return parse_log(source)
    return parse_log("\n".join(source))  # an iterable of log lines


class _Watched(list[Event]):
    """The engine's event list of a replayed hand, calling ``watch(rnd)`` after each event is
    recorded: the engine's own state at every event (the replay viewer's frames)."""

    def __init__(self, events: list[Event], rnd: Round, watch: Callable[[Round], None]) -> None:
        super().__init__(events)
        self._rnd = rnd
        self._watch = watch

    def append(self, event: Event) -> None:
        super().append(event)
        self._watch(self._rnd)


def replay_log(
    source: HandLog | str | os.PathLike | Iterable[str],
    watch: Callable[[Round], None] | None = None,
    before: Callable[[Round, Action, int], None] | None = None,
) -> Round:
    """Re-run a log through the engine from its header and its decision events alone (no RNG,
    no strategies); raise :class:`ReplayMismatch` naming the first line that differs (R12.4).

    ``source`` is a :class:`~xuezhan.documents.HandLog`, a file path, the log's text or its
    lines; a document that is not a well-formed log raises
    :class:`~xuezhan.documents.DocumentError` naming the line. ``watch(rnd)``, if given, is
    called once after the hand is dealt and after every event the engine records, with the
    engine's state at that moment (how the replay viewer builds its frames). ``before(rnd, action,
    index)``, if given, is called before each logged decision is applied, with the engine's
    state at that decision, the action the log records and the index of its event in
    ``log.events`` (how the reviewer, :mod:`xuezhan.review`, finds each decision); it must not
    change ``rnd``."""
    log = _read(source)
    hdr = log.header
    logged = log.events
    try:
        rnd = Round(
            Rules.from_dict(hdr.rules),
            [parse_tiles(h) for h in hdr.hands],
            parse_tiles(hdr.wall),
            hdr.dealer,
            hdr.exchange,
            hdr.seed,
        )
    except (ValueError, TypeError) as exc:  # impossible tiles or rules: bad input, not a difference
        from xuezhan.documents import DocumentError

        raise DocumentError(f"{log.source}, line {log.header_line}: header: {exc}") from None
    if hdr.seed is not None:
        # R1.4: a log that names its seed holds the deal of that seed (the wall is recorded so
        # that a replay needs no random numbers; the seed must not contradict it)
        hands, wall, direction = deal(hdr.seed, hdr.dealer)
        if hands != rnd.hands0 or wall != rnd.wall.tiles or (rnd.rules.exchange_three and direction != hdr.exchange):
            raise ReplayMismatch(
                log.header_line, f"the header's seed {hdr.seed} does not deal its hands, wall and exchange (R1.4)"
            )
    if watch is not None:
        for _ in rnd.ledger.events:  # the events of the deal itself (the start)
            watch(rnd)
        rnd.ledger.events = _Watched(rnd.ledger.events, rnd, watch)
    n = 0

    def compare() -> None:
        nonlocal n
        evs = rnd.ledger.events
        while n < len(evs):
            line = log.line_of(n)
            if n >= len(logged):
                raise ReplayMismatch(line, f"the log ends but the engine produced {dumps(evs[n])}")
            if evs[n] != logged[n]:
                raise ReplayMismatch(line, f"expected {dumps(logged[n])}, the engine produced {dumps(evs[n])}")
            n += 1

    compare()
    while not rnd.over:
        if n >= len(logged):
            raise ReplayMismatch(log.line_of(n), "the log ends before the hand ends")
        e = logged[n]
        if e.type not in DECISION_TYPES or getattr(e, "forced", False):
            raise ReplayMismatch(log.line_of(n), f"expected a decision of seat {rnd.turn.cur}, the log has {dumps(e)}")
        action = event_action(e)
        if before is not None:
            before(rnd, action, n)
        try:
            rnd.apply(action, default=e.default, note=e.note)  # type: ignore[attr-defined]
        except IllegalAction as exc:
            raise ReplayMismatch(log.line_of(n), f"the logged decision {dumps(e)} is refused: {exc}") from None
        compare()
    if n != len(logged):
        raise ReplayMismatch(log.line_of(n), f"the hand is over but the log goes on: {dumps(logged[n])}")
    if watch is not None:
        rnd.ledger.events = list(rnd.ledger.events)
    return rnd


def validate_dir(path: str | os.PathLike) -> list[tuple[str, str | None]]:
    """Replay every log (``*.jsonl``, ``*.jsonl.gz``) under ``path``: ``[(file, None or the
    first fault)]``."""
    out: list[tuple[str, str | None]] = []
    for p in sorted([*Path(path).rglob("*.jsonl"), *Path(path).rglob("*.jsonl.gz")]):
        try:
            replay_log(p)
            out.append((str(p), None))
        except (ReplayMismatch, OSError, ValueError) as exc:
            out.append((str(p), str(exc)))
    return out
