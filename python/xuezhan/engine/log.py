"""Hand logs as JSON lines (docs/rules.md R1.4, R12.4).

Line 1 is a header: engine version, rules (every option), seed, dealer, the dealt hands and the
wall in draw order, the exchange direction. Every following line is one event of the hand, in
order. Lines are canonical JSON (sorted keys, no spaces, no timestamps), so the same seed,
rules and bots give byte-identical logs.

:func:`replay_log` re-runs a log from its header and its decision events alone (no RNG, no
strategies) and fails on the first event that differs (R12.4).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from xuezhan.engine.actions import Action, IllegalAction, act, parse_action
from xuezhan.engine.events import DECISION_TYPES, dumps
from xuezhan.engine.round import Round
from xuezhan.rules import Rules
from xuezhan.tiles import TILE_STR, parse_tiles

__all__ = ["LOG_FORMAT", "header", "log_lines", "write_log", "replay_log", "ReplayMismatch", "validate_dir"]

LOG_FORMAT = 1
_TILE = TILE_STR


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
    return {
        "type": "header",
        "format": LOG_FORMAT,
        "engine": _engine_version(),
        "rules": rnd.rules.to_dict(),
        "seed": rnd.seed,
        "dealer": rnd.dealer,
        "hands": ["".join(_TILE[k] for k in h) for h in rnd.hands0],
        "wall": "".join(_TILE[k] for k in rnd.wall),
        "exchange": rnd.exchange_dir,
    }


def log_lines(rnd: Round) -> list[str]:
    """Header plus one canonical JSON line per event."""
    return [dumps(header(rnd))] + [dumps(e) for e in rnd.events]


def write_log(rnd: Round, dest: str | os.PathLike | IO[str]) -> None:
    text = "\n".join(log_lines(rnd)) + "\n"
    if isinstance(dest, (str, os.PathLike)):
        with open(dest, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    else:
        dest.write(text)


def _event_action(e: dict[str, Any]) -> Action:
    t = e["type"]
    seat = e["seat"]
    if t in ("discard", "angang", "jiagang"):
        return parse_action(f"{seat} {t} {e['tile']}")
    if t == "exchange":
        return parse_action(f"{seat} exchange {e['tiles']}")
    if t == "void":
        return parse_action(f"{seat} void {e['suit']}")
    return act(seat, t)


def replay_log(source: str | os.PathLike | Iterable[str]) -> Round:
    """Re-run a log; raise :class:`ReplayMismatch` at the first event that differs (R12.4)."""
    if isinstance(source, (str, os.PathLike)) and not str(source).lstrip().startswith("{"):
        with open(source, encoding="utf-8") as f:
            lines = f.read().splitlines()
    elif isinstance(source, str):
        lines = source.splitlines()
    else:
        lines = list(source)  # type: ignore[arg-type]  # an iterable of log lines
    lines = [ln for ln in lines if ln.strip()]
    if not lines:
        raise ReplayMismatch(1, "empty log")
    try:
        records = [json.loads(ln) for ln in lines]
    except json.JSONDecodeError as exc:
        raise ReplayMismatch(exc.lineno, f"not JSON: {exc}") from None
    hdr = records[0]
    if hdr.get("type") != "header":
        raise ReplayMismatch(1, "the first line is not a log header")
    logged = records[1:]
    rnd = Round(
        Rules.from_dict(hdr["rules"]),
        [parse_tiles(h) for h in hdr["hands"]],
        parse_tiles(hdr["wall"]),
        hdr["dealer"],
        hdr.get("exchange"),
        hdr.get("seed"),
    )
    n = 0

    def compare() -> None:
        nonlocal n
        evs = rnd.events
        while n < len(evs):
            if n >= len(logged):
                raise ReplayMismatch(n + 2, f"the log ends but the engine produced {dumps(evs[n])}")
            got = dumps(evs[n])
            want = dumps(logged[n])
            if got != want:
                raise ReplayMismatch(n + 2, f"expected {want}, the engine produced {got}")
            n += 1

    compare()
    while not rnd.over:
        if n >= len(logged):
            raise ReplayMismatch(n + 2, "the log ends before the hand ends")
        e = logged[n]
        if e.get("type") not in DECISION_TYPES or e.get("forced"):
            raise ReplayMismatch(n + 2, f"expected a decision of seat {rnd.cur}, the log has {dumps(e)}")
        try:
            rnd.apply(_event_action(e), default=bool(e.get("default", False)), note=e.get("note"))
        except (IllegalAction, KeyError, ValueError) as exc:
            raise ReplayMismatch(n + 2, f"the logged decision {dumps(e)} is refused: {exc}") from None
        compare()
    if n != len(logged):
        raise ReplayMismatch(n + 2, f"the hand is over but the log goes on: {dumps(logged[n])}")
    return rnd


def validate_dir(path: str | os.PathLike) -> list[tuple[str, str | None]]:
    """Replay every ``*.jsonl`` log under ``path``: ``[(file, None or the first mismatch)]``."""
    out: list[tuple[str, str | None]] = []
    for p in sorted(Path(path).rglob("*.jsonl")):
        try:
            replay_log(p)
            out.append((str(p), None))
        except (ReplayMismatch, OSError, ValueError) as exc:
            out.append((str(p), str(exc)))
    return out
