"""The engine's only door to the hand evaluator (``xuezhan._core``, docs/internals.md).

Hands cross as 27 counts (``bytes``) and melds as meld-code ``bytes``; nothing is converted
per call beyond ``bytes(bytearray)``.
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
    "shanten",
    "likely_void",
]

# Win context flags: one definition, the core's (``_core.CONTEXT_FLAGS``, docs/internals.md).
_FLAG = {name: 1 << bit for bit, name in enumerate(_core.CONTEXT_FLAGS)}
SELF_DRAW = _FLAG["self_draw"]
KONG_DRAW = _FLAG["kong_draw"]
KONG_DISCARD = _FLAG["kong_discard"]
ROBBING_KONG = _FLAG["robbing_kong"]
LAST_TILE = _FLAG["last_tile"]
HEAVEN_EARTH = _FLAG["heaven_earth"]
DISCARDER_PAYS = _FLAG["discarder_pays"]

wait_mask = _core.wait_mask  # (counts13: bytes, melds: bytes, void: int) -> int
fan = _core.fan  # (counts14, melds, win_kind, ctx, core_rules, void) -> (raw, capped, points, items) | None
waits = _core.waits  # (counts13, melds, core_rules, void) -> [(kind, fan, points)]
is_win = _core.is_win  # (counts14, melds, void) -> bool
likely_void = _core.likely_void  # (observation, seat) -> the suit the seat seems to clear, or -1


def shanten(counts: bytes, melds: bytes, void: int) -> int:
    """Sichuan shanten: the least of the standard and seven-pairs distances (``shanten_parts``)."""
    return int(_core.shanten_parts(counts, melds, void)[0])
