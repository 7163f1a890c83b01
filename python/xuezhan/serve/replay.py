"""Replay frames: a logged hand (JSON lines, plain or gzip) stepped event by event, all four
hands open, for the replay viewer (``xuezhan view LOG``).

The frames come from the engine itself: the log is read by the one log reader
(:func:`xuezhan.documents.parse_log`) and replayed through the engine
(:func:`xuezhan.engine.log.replay_log`), and each frame is the engine's state as it recorded that
event: the four concealed hands, melds, discard piles, wall count, the hand's running deltas and
the event in words. A log that does not replay (a raised payment, a changed seat, a decision the
engine refuses) is refused with :class:`LogError` naming the first line that differs; it is
never shown.

    >>> from xuezhan.engine import Round, log_lines
    >>> from xuezhan.engine.match import run_round
    >>> from xuezhan.strategies import GreedyStrategy
    >>> bots = [GreedyStrategy() for _ in range(4)]
    >>> for i, b in enumerate(bots): b.reset(i, Round.from_seed("leshan", 1).rules)
    >>> rnd = run_round(Round.from_seed("leshan", 1), bots)
    >>> doc = frames(log_lines(rnd))
    >>> len(doc["frames"]) == len(rnd.ledger.events) + 1, doc["frames"][-1]["deltas"] == rnd.ledger.deltas
    (True, True)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from xuezhan.engine.events import Win
from xuezhan.engine.round import Round
from xuezhan.serve.words import payment_text, settlement_lines
from xuezhan.tiles import SUITS, meld_kind, meld_type
from xuezhan.tiles import TILE_STR as _TILE

__all__ = ["LogError", "LogMismatch", "frames", "named_log", "read_log_lines"]

# by meld type (docs/internals.md): pung, exposed kong (on a discard or added), concealed kong
_MELD_NAMES = ("peng", "gang", "angang")


class LogError(ValueError):
    """A file that is not a hand log, or a log the engine does not reproduce; the message names
    the file and line."""


class LogMismatch(LogError):
    """A well-formed hand log the engine does not reproduce (a finding, like ``xuezhan replay``'s
    and ``validate``'s: ``xuezhan view`` exits 1 for it, 2 for a file that is not a hand log)."""


def read_log_lines(path: str | Path) -> list[str]:
    """The lines of a hand log, ``.jsonl`` or gzip-compressed ``.jsonl.gz``."""
    from xuezhan.files import InputFileError, read_text

    try:
        return [ln for ln in read_text(path, what="hand log").splitlines() if ln.strip()]
    except (InputFileError, ValueError) as exc:  # the file reader's errors name the file and the fault
        raise LogError(str(exc)) from None


def named_log(lines: list[str], names: list[str]) -> list[str]:
    """A hand log whose header also names the seats (``names``, :class:`~xuezhan.documents.LogHeader`),
    for the replay page; the engine's replay does not read them."""
    hdr = json.loads(lines[0])
    hdr["names"] = list(names)
    return [json.dumps(hdr, sort_keys=True, separators=(",", ":"), ensure_ascii=False), *lines[1:]]


def _state(rnd: Round) -> dict[str, Any]:
    """The engine's state, all four hands open."""
    if rnd.rules.declare_void:
        chosen = rnd.seats.void if rnd.seats.voids_known else rnd.turn.v_choice
        voids: list[str | None] = [SUITS[v] if v >= 0 else None for v in chosen]
    else:
        voids = [None] * 4
    return {
        "hands": ["".join(_TILE[k] * n for k, n in enumerate(c) if n) for c in rnd.seats.counts],
        "melds": [[[_MELD_NAMES[meld_type(code)], _TILE[meld_kind(code)]] for code in ms] for ms in rnd.seats.melds],
        "discards": ["".join(_TILE[k] for k in r) for r in rnd.seats.river],
        "wall_count": rnd.wall.count,
        "deltas": list(rnd.ledger.deltas),
        "won": list(rnd.seats.won),
        "escaped": list(rnd.seats.escaped),
        "voids": voids,
        **_wins(rnd),
    }


def _wins(rnd: Round) -> dict[str, list]:
    """Each seat's winning tiles so far, its self-drawn ones set aside (R14.1) and whether its
    hand is locked (R14.2), from the hand's public win events (the frame may be taken in the
    middle of a claim, where no observation can be built)."""
    wins, aside = ["", "", "", ""], ["", "", "", ""]
    for e in rnd.ledger.events:
        if isinstance(e, Win):
            wins[e.seat] += e.tile
            if rnd.rules.stay and e.how == "self_draw":
                aside[e.seat] += e.tile
    return {"wins": wins, "aside": aside, "locked": [rnd.locked(s) for s in range(4)]}


def describe(e: dict, names: list[str] | None = None) -> str:
    """One event in words, the seats by ``names`` if given."""
    t = e.get("type")
    who = (lambda i: f"seat {i}") if names is None else (lambda i: names[i])
    s = who(e["seat"]) if e.get("seat") is not None else None
    # the R10 default, or (in the room) the player's selected tile played at its timeout
    extra = " (timeout default)" if e.get("default") else " (timeout)" if e.get("note") == "timeout" else ""
    if e.get("note") == "locked":
        extra = " (its locked hand's only move, played by the table, R14.2)"
    if t == "start":
        return f"the hand starts: {who(e['dealer'])} deals, {e['wall_count']} tiles in the wall"
    if t == "draw":
        return f"{s} draws {e['tile']}" + (" (kong replacement)" if e.get("replacement") else "")
    if t in ("discard", "angang", "jiagang"):
        verb = {
            "discard": "discards",
            "angang": "makes a concealed kong of",
            "jiagang": "adds to its pung",
        }[t]
        return f"{s} {verb} {e['tile']}{extra}"
    if t in ("peng", "gang", "pass"):
        return f"{s} says {t}{extra}"
    if t == "hu":
        return f"{s} declares a win" + (" (compulsory, R4.4)" if e.get("forced") else "")
    if t == "meld":
        frm = f" from {who(e['from'])}" if e.get("from") is not None else ""
        return f"{s}: {e['meld']} of {e['tile']}{frm}"
    if t == "pay":
        return payment_text(e, names)
    if t == "exchange":
        return f"{s} puts {e['tiles']} aside to exchange (R11.1){extra}"
    if t == "exchanged":
        return f"the tiles pass {e['direction']} (R11.1)"
    if t == "received":
        return f"{s} receives {e['tiles']}"
    if t == "void":
        return f"{s} chooses void suit {e['suit']} (R11.2){extra}"
    if t == "voids":
        return f"void suits revealed: {', '.join(map(str, e['voids']))}"
    if t == "last_tiles":
        return f"last tiles: {e['wall_count']} left, every win is compulsory (R4.4)"
    lines = settlement_lines([e], names)
    return lines[0] if lines else json.dumps(e, ensure_ascii=False)


def frames(lines: Iterable[str], name: str = "log") -> dict:
    """The replay document of a log: header facts, one frame per event (the engine's state as it
    recorded the event), the settlement. :class:`LogError` naming the line for a document that is
    not a hand log or a log the engine does not reproduce."""
    from xuezhan.documents import DocumentError, parse_log
    from xuezhan.engine.log import ReplayMismatch, replay_log

    states: list[dict[str, Any]] = []
    try:
        log = parse_log("\n".join(lines), source=name)
        replay_log(log, watch=lambda rnd: states.append(_state(rnd)))
    except DocumentError as exc:
        raise LogError(str(exc)) from None
    except ReplayMismatch as exc:
        raise LogMismatch(f"{name}: not the log of a hand the engine plays: {exc}") from None
    hdr = log.header
    names = hdr.names or [f"seat {s}" for s in range(4)]
    logged = [e.to_json() for e in log.events]
    out = [{"text": f"dealt: {names[hdr.dealer]} is the dealer", **states[0]}]
    out += [{"text": describe(e, names), **st} for e, st in zip(logged, states, strict=True)]
    return {
        "name": name,
        "seed": hdr.seed,
        "dealer": hdr.dealer,
        "preset": hdr.rules.get("preset"),
        "names": names,
        "frames": out,
        "settlement": settlement_lines(logged, names),
    }
