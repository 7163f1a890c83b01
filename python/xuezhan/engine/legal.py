"""Legality: the legal actions of each kind of decision, and why an action is not among them.

Each function here is pure: it reads the facts of one decision (counts, melds, void, …) and
returns the legal actions. Given a ``why`` dict, the same function also records, for each
action it left out, the reason (naming the rule id), so refusing an action (:func:`refusal`)
is a lookup in the legal set and in those reasons, never a second derivation of the rules.

The lists hand out the shared actions of :func:`~xuezhan.engine.actions.act`, so building them
costs no allocation per action.

    >>> from xuezhan.tiles import parse_tiles
    >>> c = bytearray(27)
    >>> for k in parse_tiles("123m456m789m46p99p"): c[k] += 1
    >>> [str(a) for a in claim_actions(1, c, 13, void=-1, win_fan=1, locked_fan=0)]
    ['1 hu', '1 pass']
    >>> why = {}
    >>> claim_actions(1, c, 13, void=-1, win_fan=1, locked_fan=2, why=why)
    []
    >>> for part in refusal(act(1, HU), [], why, "seat 1 is asked about 5p").rstrip().split("; "):
    ...     print(part)
    seat 1 is asked about 5p
    it passed a win of 2 fan since its last draw and this one is not worth more (R4.3)
    legal:
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, compress

from xuezhan._core import kinds_mask as _kinds_mask
from xuezhan.engine._core_adapter import wait_mask as _wait_mask
from xuezhan.engine.actions import (
    ANGANG,
    CLAIM_VERBS,
    DISCARD,
    EXCHANGE,
    GANG,
    HU,
    JIAGANG,
    PASS,
    PENG,
    TILE_STR,
    TILE_VERBS,
    VOID,
    Action,
    act,
)
from xuezhan.tiles import MeldType, is_pung_code, meld_code

__all__ = [
    "claim_actions",
    "default_discard",
    "exchange_actions",
    "exchange_reason",
    "locked_turn_legal",
    "refusal",
    "turn_actions",
    "turn_legal",
    "void_actions",
]

_TILE = TILE_STR
_HU = [act(s, HU) for s in range(4)]
_PENG = [act(s, PENG) for s in range(4)]
_GANG = [act(s, GANG) for s in range(4)]
_PASS = [act(s, PASS) for s in range(4)]
_DISC = [[act(s, DISCARD, k) for k in range(27)] for s in range(4)]
_ANG = [[act(s, ANGANG, k) for k in range(27)] for s in range(4)]
_JIA = [[act(s, JIAGANG, k) for k in range(27)] for s in range(4)]
_DISC_SUIT = [[tuple(_DISC[s][v * 9 : v * 9 + 9]) for v in range(3)] for s in range(4)]
_VOIDS = [tuple(act(s, VOID, v) for v in range(3)) for s in range(4)]
_RANGE27 = range(27)

#: Where a legality function records the reason for each action it leaves out (None: not asked).
Why = dict[Action, str] | None


def turn_actions(
    seat: int,
    c: bytearray,
    melds: Sequence[int],
    void: int,
    can_hu: int,
    after_peng: bool,
    wall_empty: bool,
    why: Why = None,
) -> list[Action]:
    """R2.1: the legal actions of ``seat``'s turn, holding counts ``c`` and meld codes ``melds``
    (the list of :func:`turn_legal`)."""
    return turn_legal(seat, c, melds, void, can_hu, after_peng, wall_empty, why)[0]


def turn_legal(
    seat: int,
    c: bytearray,
    melds: Sequence[int],
    void: int,
    can_hu: int,
    after_peng: bool,
    wall_empty: bool,
    why: Why = None,
) -> tuple[list[Action], int]:
    """R2.1: the legal actions of ``seat``'s turn, holding counts ``c`` and meld codes ``melds``,
    and the legal discards as a kind bitmask (bit k = kind k; what observations show as
    ``discard_mask``). A win (``hu``), when legal, comes first; the discards come last, by kind.

    ``can_hu``: its tiles make a winning hand (R4); kongs are not legal ``after_peng`` nor when
    the wall is empty (R2.1) nor of the ``void`` suit (R11.2); while it holds a tile of its void
    suit it must discard one (R11.2).

    >>> c = bytearray(27); c[0] = c[13] = 1
    >>> legal, mask = turn_legal(0, c, [], 0, False, False, False)  # void m: 1m must go
    >>> [str(a) for a in legal], bin(mask)
    (['0 discard 1m'], '0b1')
    """
    legal = [_HU[seat]] if can_hu else []
    if why is not None:
        if not can_hu:
            why[_HU[seat]] = "its tiles do not make a winning hand (R4)"
        for verb in CLAIM_VERBS - {HU}:
            why[act(seat, verb)] = f"{verb} is a claim, not a turn action"
    if not after_peng and not wall_empty:
        # R2.1: concealed and added kongs, not right after a peng, only while the wall is not
        # empty; R11.2: never of the void suit.
        if 4 in c:
            ang = _ANG[seat]
            for k in _RANGE27:
                if c[k] == 4:
                    if k // 9 != void:
                        legal.append(ang[k])
                    elif why is not None:
                        why[ang[k]] = "it may not kong tiles of its void suit (R11.2)"
        for code in melds:
            if is_pung_code(code) and c[code]:
                legal.append(_JIA[seat][code])
    if why is not None:
        kong_why = (
            "no kong right after a peng (R2.1)"
            if after_peng
            else "no kong when the wall is empty (R2.1)"
            if wall_empty
            else None
        )
        for k in _RANGE27:
            a = _ANG[seat][k]
            if a not in legal and a not in why:
                why[a] = kong_why or f"it does not hold four {_TILE[k]}"
            a = _JIA[seat][k]
            if a not in legal:
                why[a] = kong_why or f"it has no pung of {_TILE[k]} with the fourth {_TILE[k]} in hand"
    disc = _DISC[seat]
    held = _kinds_mask(bytes(c))
    if void >= 0:
        first = void * 9
        in_void = held & (0x1FF << first)
        if in_void:  # R11.2: while it holds a tile of its void suit it must discard such a tile
            legal.extend(compress(_DISC_SUIT[seat][void], c[first : first + 9]))
            if why is not None:
                for k in _RANGE27:
                    if c[k] and k // 9 != void:
                        why[disc[k]] = "while it holds a tile of its void suit it must discard one (R11.2)"
                _not_held(seat, c, why)
            return legal, in_void
    legal.extend(compress(disc, c))
    if why is not None:
        _not_held(seat, c, why)
    return legal, held


def _not_held(seat: int, c: bytearray, why: dict[Action, str]) -> None:
    for k in _RANGE27:
        if not c[k]:
            why[_DISC[seat][k]] = f"seat {seat} does not hold {_TILE[k]}"


def locked_turn_legal(
    seat: int,
    c: bytearray,
    melds: Sequence[int],
    void: int,
    t: int,
    can_hu: int,
    wall_empty: bool,
    waits: int,
    why: Why = None,
) -> tuple[list[Action], int]:
    """R14.2: the turn of a winner that stays in the hand (its hand is locked), having drawn
    ``t``: a self-drawn win when ``t`` completes its hand; a concealed or added kong of ``t``
    only if its waits (``waits``, the wait mask of its locked hand) stay the same, apart from
    ``t`` itself, which the drawn tile used up, and not when the wall is empty (R2.1); and the
    discard of ``t`` (摸什么打什么). Returns the actions and the discard mask, as
    :func:`turn_legal` does.

    >>> c = bytearray(27)
    >>> for k in (0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 5): c[k] += 1  # 1112345678 9m 11p, drew 6m
    >>> legal, mask = locked_turn_legal(0, c, [], 2, 5, 0, False, 0)
    >>> [str(a) for a in legal], mask == 1 << 5
    (['0 discard 6m'], True)
    """
    legal = [_HU[seat]] if can_hu else []
    if why is not None:
        if not can_hu:
            why[_HU[seat]] = f"{_TILE[t]} does not complete its hand (R4)"
        for verb in CLAIM_VERBS - {HU}:
            why[act(seat, verb)] = f"{verb} is a claim, not a turn action"
        for k in _RANGE27:
            why[_ANG[seat][k]] = why[_JIA[seat][k]] = "after a win, a kong only with the tile it drew (R14.2)"
            if k != t:
                why[_DISC[seat][k]] = f"after a win it discards the tile it drew, {_TILE[t]} (R14.2)"
    kong: list[tuple[Action, list[int]]] = []
    if c[t] == 4 and t // 9 != void:
        kong.append((_ANG[seat][t], [*melds, meld_code(MeldType.CONCEALED_KONG, t)]))
    pung = meld_code(MeldType.PUNG, t)
    if pung in melds:
        kong.append((_JIA[seat][t], [m if m != pung else meld_code(MeldType.KONG, t) for m in melds]))
    for a, after in kong:
        if wall_empty:
            reason = "no kong when the wall is empty (R2.1)"
        else:
            rest = bytearray(c)
            rest[t] = 0 if a.verb == ANGANG else rest[t] - 1
            # The kong's own kind no longer counts: with the drawn tile all four copies are its own.
            if _wait_mask(bytes(rest), bytes(after), void) == waits & ~(1 << t):
                legal.append(a)
                continue
            reason = "after a win, a kong must keep its waits (R14.2)"
        if why is not None:
            why[a] = reason
    legal.append(_DISC[seat][t])
    return legal, 1 << t


def claim_actions(
    seat: int,
    c: bytearray,
    tile: int,
    void: int,
    win_fan: int,
    locked_fan: int,
    robbing: bool = False,
    wall_empty: bool = False,
    why: Why = None,
    locked: bool = False,
) -> list[Action]:
    """R3.1: the claims ``seat`` (counts ``c``) may make on ``tile``; empty if none (it is not asked).

    ``win_fan``: the capped fan of its win on the tile (0 = no win, R4). ``locked_fan``: the best
    win it passed since its last draw when the R4.3 lock applies, else 0; a win is legal only if
    worth strictly more. No peng or kong of the ``void`` suit (R11.2), on an added kong
    (``robbing``, R3.3), or kong with an empty wall (R3.1); none by a winner whose hand is
    ``locked`` (R14.2)."""
    legal: list[Action] = []
    if win_fan:
        # R4.3: a seat that passed a win may not win on a discard until its own next draw,
        # unless this win is worth strictly more fan (after the cap).
        if not locked_fan or win_fan > locked_fan:
            legal.append(_HU[seat])
        elif why is not None:
            why[_HU[seat]] = (
                f"it passed a win of {locked_fan} fan since its last draw and this one is not worth more (R4.3)"
            )
    elif why is not None:
        why[_HU[seat]] = f"its hand does not win on {_TILE[tile]} (R4)"
    n = c[tile]
    if locked:
        reason: str | None = "after a win it may not peng or kong a discard (R14.2)"
    elif tile // 9 == void:
        reason = "it may not peng or kong tiles of its void suit (R11.2)"
    elif robbing:
        reason = "an added kong can only be robbed (R3.3)"
    else:
        reason = None
        if n >= 2:
            legal.append(_PENG[seat])
            if n == 3:
                if not wall_empty:
                    legal.append(_GANG[seat])
                else:
                    reason = "no kong when the wall is empty (R3.1)"
    if why is not None:
        for a in (_PENG[seat], _GANG[seat]):
            if a not in legal:
                why[a] = reason or f"it does not hold enough {_TILE[tile]}"
    if legal:
        legal.append(_PASS[seat])
    return legal


# --------------------------------------------------------------------------- setup (R11)
_CAP3 = bytes(min(i, 3) for i in range(256))
_SUIT_SLICES = ((0, 9), (9, 18), (18, 27))
_XCACHE: dict[tuple[int, bytes], tuple[tuple[int, int, int], ...]] = {}
# every exchange triple of one suit, sorted: (x, y, z) with x <= y <= z
_TRIPLES = [(a + x, a + y, a + z) for a in (0, 9, 18) for x in range(9) for y in range(x, 9) for z in range(y, 9)]
_XACT = [{t: Action(s, EXCHANGE, t) for t in _TRIPLES} for s in range(4)]


def _exchange_triples(a: int, cs: bytes) -> tuple[tuple[int, int, int], ...]:
    """The sorted kind triples (R11.1) within the suit starting at kind ``a`` (counts ``cs``)."""
    ks = [a + i for i in range(9) if cs[i]]
    out: list[tuple[int, int, int]] = list(combinations(ks, 3))  # three different kinds
    for d in ks:
        n = cs[d - a]
        if n >= 2:  # a pair and one other kind, or three of a kind
            for k in ks:
                if k < d:
                    out.append((k, d, d))
                elif k > d:
                    out.append((d, d, k))
            if n >= 3:
                out.append((d, d, d))
    return tuple(out)


def exchange_actions(seat: int, c: bytearray) -> list[Action]:
    """R11.1: every choice of three tiles of one suit held in ``c`` (distinct multisets, kinds
    sorted).

    >>> from xuezhan.tiles import parse_tiles
    >>> c = bytearray(27)
    >>> for k in parse_tiles("1112m5p"): c[k] += 1
    >>> [str(a) for a in exchange_actions(0, c)]
    ['0 exchange 112m', '0 exchange 111m']
    """
    get = _XACT[seat].__getitem__
    out: list[Action] = []
    cache = _XCACHE
    for a, b in _SUIT_SLICES:
        key = (a, bytes(c[a:b]).translate(_CAP3))  # 4 copies choose like 3
        triples = cache.get(key)
        if triples is None:
            if len(cache) >= 100_000:  # bounded memory
                cache.clear()
            triples = cache[key] = _exchange_triples(a, key[1])
        out.extend(map(get, triples))
    return out


def exchange_reason(action: Action, c: bytearray) -> str:
    """Why ``action`` is not one of :func:`exchange_actions` ``(seat, c)`` (R11.1)."""
    tiles = action.arg
    if action.verb != EXCHANGE or not isinstance(tiles, tuple) or len(tiles) != 3:
        return f"seat {action.seat} must choose three tiles to exchange (R11.1)"
    if any(not isinstance(k, int) or not 0 <= k < 27 for k in tiles):
        return "not three tiles"
    if len({k // 9 for k in tiles}) != 1:
        return "the three tiles must be of one suit (R11.1)"
    for k in sorted(set(tiles)):
        if tiles.count(k) > c[k]:
            return f"seat {action.seat} does not hold {tiles.count(k)} × {_TILE[k]}"
    return "not a choice of three tiles of one suit it holds (R11.1)"


def void_actions(seat: int) -> list[Action]:
    """R11.2: the three suits ``seat`` may name.

    >>> [str(a) for a in void_actions(2)]
    ['2 void m', '2 void p', '2 void s']
    """
    return list(_VOIDS[seat])


def default_discard(legal: Sequence[Action], drawn: int) -> Action:
    """R10.1: the turn's default: discard the tile just drawn (``drawn``, -1 if none); else (no
    draw, or R11.2 forbids it) the last allowed tile of the sorted hand. A self-draw win is not
    declared on timeout (R10.2).

    >>> c = bytearray(27); c[0] = c[13] = 1
    >>> str(default_discard(turn_actions(0, c, [], -1, False, False, False), 0))
    '0 discard 1m'
    >>> str(default_discard(turn_actions(0, c, [], 0, False, False, False), 13))  # void m: 1m first
    '0 discard 1m'
    """
    allowed = [a for a in legal if a.verb == DISCARD]
    for a in allowed:
        if a.arg == drawn:
            return a
    return max(allowed, key=lambda a: a.arg)  # type: ignore[arg-type, return-value]


# --------------------------------------------------------------------------- refusal
def refusal(
    action: Action, legal: Sequence[Action], why: dict[Action, str], what: str, otherwise: str | None = None
) -> str:
    """The message refusing ``action``: ``what`` (the decision), the reason recorded for it by the
    function that built ``legal`` (else ``otherwise``), and the legal actions."""
    try:
        reason = why.get(action)
    except TypeError:  # an unhashable argument
        reason = None
    if reason is None:
        reason = otherwise
    if reason is None and action.verb in TILE_VERBS and not isinstance(action.arg, int):
        reason = "not a tile"
    listed = ", ".join(str(a) for a in legal)
    return f"{what}; {reason}; legal: {listed}" if reason else f"{what}; legal: {listed}"
