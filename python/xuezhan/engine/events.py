"""Events of a hand: plain JSON-ready dicts with a ``type`` (R9.3, R12.4).

Every state change is one event, appended to ``Round.events`` in order. Decision events
(:data:`DECISION_TYPES`) record what a seat chose, so a log can be replayed without any
strategy (R12.4); the others are consequences (draws, melds, wins, payments, the end).

Tiles are strings (``"5m"``), seats ints 0–3, a payment names its rule id::

    {"type": "pay", "rule": "R6.1", "from": 0, "to": 1, "amount": 2}

Some events hold private information: a drawn tile is known only to the drawer, an exchange
choice and the tiles received only to that seat, a void choice only to that seat until all four
are revealed together. A ``pass`` is seen by the passer alone: a seat is asked about a claim only
when it could claim (it holds two of the tile or waits on it), so who was asked and passed is
private; the others see a claim only when one is made. :func:`public_view` returns what another
seat may see.
"""

from __future__ import annotations

import json
from typing import Any, Optional

__all__ = [
    "DECISION_TYPES",
    "CLAIM_TYPES",
    "public_view",
    "dumps",
]

#: Event types that are decisions (replayed as actions, R12.4). A ``hu`` with ``forced`` is not
#: a decision (R4.4 compulsory win) and is not replayed.
DECISION_TYPES = frozenset(
    {"exchange", "void", "discard", "angang", "jiagang", "hu", "peng", "gang", "pass", "escape"}
)
#: Claim decisions (R3).
CLAIM_TYPES = frozenset({"hu", "peng", "gang", "pass"})

_PRIVATE_TILE = frozenset({"draw"})
_PRIVATE_ALL = frozenset({"exchange", "received", "void", "pass"})


def public_view(event: dict, seat: int) -> Optional[dict]:
    """The event as ``seat`` may see it: hidden fields are ``None``; ``None`` if it sees nothing.

    >>> public_view({"type": "draw", "seat": 1, "tile": "5m", "replacement": False}, 2)
    {'type': 'draw', 'seat': 1, 'tile': None, 'replacement': False}
    >>> public_view({"type": "pass", "seat": 1, "default": False}, 2) is None
    True
    """
    t = event["type"]
    if t in _PRIVATE_TILE:
        if event["seat"] == seat:
            return event
        e = dict(event)
        e["tile"] = None
        return e
    if t in _PRIVATE_ALL:
        if event["seat"] == seat:
            return event
        if t == "void" or t == "pass":
            # a void is revealed by the "voids" event once all four have chosen (R11.2); a pass
            # would tell that the passer was asked, i.e. could have claimed
            return None
        e = dict(event)
        e["tiles"] = None
        return e
    return event


def dumps(event: Any) -> str:
    """One log line: canonical JSON (sorted keys, no spaces), byte-identical for equal events."""
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
