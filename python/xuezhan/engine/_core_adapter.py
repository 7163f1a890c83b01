"""The engine's only door to the hand evaluator (``xuezhan._core``, docs/internals.md).

Hands cross as 27 counts (``bytes``) and melds as meld-code ``bytes``; nothing is converted
per call beyond ``bytes(bytearray)``. Win-context flags are the bits of docs/internals.md.
"""

from __future__ import annotations

from xuezhan import _core

__all__ = [
    "SELF_DRAW",
    "KONG_DRAW",
    "KONG_DISCARD",
    "ROBBING_KONG",
    "LAST_TILE",
    "HEAVEN_EARTH",
    "DISCARDER_PAYS",
    "wait_mask",
    "fan",
    "waits",
    "is_win",
]

# Win context flags (docs/internals.md).
SELF_DRAW = 1 << 0
KONG_DRAW = 1 << 1
KONG_DISCARD = 1 << 2
ROBBING_KONG = 1 << 3
LAST_TILE = 1 << 4
HEAVEN_EARTH = 1 << 5
DISCARDER_PAYS = 1 << 6

wait_mask = _core.wait_mask  # (counts13: bytes, melds: bytes, void: int) -> int
fan = _core.fan  # (counts14, melds, win_kind, ctx, core_rules, void) -> (raw, capped, points, items) | None
waits = _core.waits  # (counts13, melds, core_rules, void) -> [(kind, fan, points)]
is_win = _core.is_win  # (counts14, melds, void) -> bool
