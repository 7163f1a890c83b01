"""Scripted hands (docs/rules.md R13): run a JSON document that fixes a hand completely.

Lines are consumed exactly as R13 says:

- a turn decision (and an exchange or void choice) of seat S takes the next line, which must be
  S's verb, else the line is refused;
- on a discard (or an added kong) the seats that could claim are asked in turn order from the
  discarder; an asked seat takes the next line if it is that seat's claim verb (``hu``, ``peng``,
  ``gang``, ``pass``), else it passes without taking a line;
- a line ``S escape`` is taken at the next decision of any seat;
- compulsory wins (R4.4) happen with or without a ``hu`` line; one present is consumed;
- when the script is used up, every remaining decision takes its R10 default.

A line that is not legal where it is taken raises :class:`ScriptError` naming the line (0-based).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, Literal, overload

from xuezhan.engine.actions import CLAIM_VERBS, ESCAPE, HU, ActionError, IllegalAction, parse_action
from xuezhan.engine.events import Hu
from xuezhan.engine.round import Round
from xuezhan.engine.turn import Phase
from xuezhan.rules import Rules, RulesError
from xuezhan.tiles import TileError, parse_tiles

__all__ = ["ScriptError", "replay_script", "load_script", "round_from_script"]


class ScriptError(ValueError):
    """A script line that is not legal where it is taken (``line`` is 0-based), or a bad document
    (``line`` is None)."""

    def __init__(self, line: int | None, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(message)

    def to_dict(self) -> dict:
        return {"line": self.line, "message": self.message}


def load_script(source: str | os.PathLike | Mapping[str, Any]) -> dict:
    """A script document from a dict, a path, or JSON text."""
    if isinstance(source, Mapping):
        return dict(source)
    s = os.fspath(source)
    if s.lstrip().startswith("{"):
        return json.loads(s)
    with open(s, encoding="utf-8") as f:
        return json.load(f)


def round_from_script(doc: Mapping[str, Any]) -> Round:
    """The :class:`Round` dealt as the document says (rules, dealer, hands, wall, exchange)."""
    try:
        rules = Rules.from_dict(doc.get("rules", {}))
    except RulesError as exc:
        raise ScriptError(None, f"rules: {exc}") from None
    try:
        hands = [parse_tiles(h) for h in doc["hands"]]
        wall = parse_tiles(doc.get("wall", ""))
    except KeyError:
        raise ScriptError(None, "the document has no 'hands'") from None
    except TileError as exc:
        raise ScriptError(None, f"hands/wall: {exc}") from None
    try:
        return Round(rules, hands, wall, doc.get("dealer", 0), doc.get("exchange"))
    except (ValueError, TypeError) as exc:  # an impossible deal; a dealer that is not an int
        raise ScriptError(None, str(exc)) from None


@overload
def replay_script(
    doc: str | os.PathLike | Mapping[str, Any], *, return_round: Literal[False] = False
) -> dict[str, Any]: ...
@overload
def replay_script(
    doc: str | os.PathLike | Mapping[str, Any], *, return_round: Literal[True]
) -> tuple[dict[str, Any], Round]: ...
def replay_script(
    doc: str | os.PathLike | Mapping[str, Any], *, return_round: bool = False
) -> dict[str, Any] | tuple[dict[str, Any], Round]:
    """Run an R13 document; return the hand's result dict (``deltas``, ``next_dealer``, ``wins``,
    ``end``, ``fired``, …), or ``(result, round)`` with ``return_round``.

    >>> res = replay_script({"rules": {"preset": "leshan"}, "dealer": 0,
    ...     "hands": ["1235679m1235579p", "123456789m3455p", "123456789s1489m", "124468p1356789s"],
    ...     "wall": "", "script": ["0 discard 5p", "1 hu"]})
    >>> res["deltas"], res["next_dealer"], res["end"]
    ([-1, 1, 0, 0], 1, 'wall')
    """
    doc = load_script(doc)
    r = round_from_script(doc)
    lines = list(doc.get("script", []))
    n = len(lines)
    i = 0
    seen = 0

    def error(idx: int, msg: str) -> ScriptError:
        return ScriptError(idx, f"script line {idx} '{lines[idx]}': {msg}")

    def consume_forced() -> None:
        # R13: a compulsory win (R4.4) consumes a matching `S hu` line if one is next.
        nonlocal i, seen
        evs = r.ledger.events
        while seen < len(evs):
            e = evs[seen]
            seen += 1
            if isinstance(e, Hu) and e.forced and i < n:
                try:
                    a = parse_action(lines[i])
                except ActionError:
                    continue
                if a.seat == e.seat and a.verb == HU:
                    i += 1

    consume_forced()
    while not r.over:
        seat = r.turn.cur
        if i < n:
            try:
                a = parse_action(lines[i])
            except ActionError as exc:
                raise error(i, str(exc)) from None
            if a.verb == ESCAPE:
                try:
                    r.apply(a)
                except IllegalAction as exc:
                    raise error(i, exc.reason) from None
                i += 1
            elif r.turn.phase == Phase.CLAIM and not (a.seat == seat and a.verb in CLAIM_VERBS):
                r.apply(r.default_action())  # the asked seat passes (not an R10 default)
            else:
                try:
                    r.apply(a)
                except IllegalAction as exc:
                    raise error(i, exc.reason) from None
                i += 1
        else:
            r.apply(r.default_action(), default=True)  # R10 defaults finish the hand
        consume_forced()
    if i < n:
        raise error(i, f"the hand ended ({r.ledger.end_reason}) before this line")
    res = r.result()
    if "name" in doc:
        res["name"] = doc["name"]
    return (res, r) if return_round else res
