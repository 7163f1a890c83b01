"""A plain-Python statement of the ``value`` strategy's discard, for differential tests.

The strategy's discard is one Rust call (``_core.value_discard``); this module states the
same policy step by step in Python, straight from the strategy's description (the module doc
of :mod:`xuezhan.strategies.value`), so the tests can compare every decision of seeded hands.
It shares no code with the core beyond the evaluator's primitives (``best_discards``,
``waits``, ``shanten_parts``, ``wait_mask``, ``most_isolated``, ``greedy_discard``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xuezhan import _core

_TERMINAL = tuple(k % 9 in (0, 8) for k in range(27))


def shanten(counts: bytes, melds: bytes, void: int) -> int:
    return _core.shanten_parts(counts, melds, void)[0]


def suit_counts(counts: Sequence[int]) -> list[int]:
    return [sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27])]


def triplets_shanten(counts: bytes, mbytes: bytes) -> int:
    t = len(mbytes)
    p = 0
    for n in counts:
        if n >= 3:
            t += 1
        elif n == 2:
            p += 1
    t = min(t, 4)
    if t + p > 5:
        p = 5 - t
    return 8 - 2 * t - p


def off_suit(counts: bytes, mbytes: bytes) -> tuple[int, int]:
    n = suit_counts(counts)
    for code in mbytes:
        n[(code % 27) // 9] += 3
    main = max(range(3), key=lambda s: n[s])
    return main, sum(n) - n[main]


def potential(counts: bytes, mbytes: bytes, sh: int, max_factor: float) -> float:
    f = 1.0
    main, off = off_suit(counts, mbytes)
    if off <= 1 and all((code % 27) // 9 == main for code in mbytes):
        f *= 1.5
    if triplets_shanten(counts, mbytes) <= sh:
        f *= 1.3
    if not mbytes:
        _, standard, seven = _core.shanten_parts(counts, b"", -1)
        if seven is not None and seven <= sh and seven < standard:
            f *= 1.5
    return min(f, max_factor)


def opponent_threat(obs: Any, o: int) -> float:
    return min(0.05 + 0.22 * len(obs.melds[o]) + 0.045 * len(obs.discards[o]), 0.95)


def likely_void(obs: Any, o: int) -> int:
    declared = obs.voids[o]
    if declared >= 0:
        return declared
    msuits = {k // 9 for _, k in obs.melds[o]}
    if len(msuits) >= 2:
        return 3 - sum(msuits) if len(msuits) == 2 else -1
    river = obs.discards[o]
    if len(river) < 3:
        return -1
    n = [0, 0, 0]
    for k in river[:8]:
        n[k // 9] += 1
    s = max(range(3), key=lambda i: n[i])
    if s in msuits or n[s] < 3 or 2 * n[s] < min(len(river), 8):
        return -1
    return s


def danger(obs: Any, kind: int, vis: bytes, threats: dict[int, float]) -> float:
    live = 4 - obs.hand[kind] - vis[kind]
    total = 0.0
    for o, p in threats.items():
        void = likely_void(obs, o)
        certain = void >= 0 and (obs.voids[o] >= 0 or len({k // 9 for _, k in obs.melds[o]}) >= 2)
        if void == kind // 9:
            if certain:
                continue
            w = 0.15
        else:
            w = 1.0
        if kind in obs.discards[o]:
            w *= 0.5
        if live <= 0:
            w *= 0.55
        if _TERMINAL[kind]:
            w *= 0.75
        total += p * w
    return total


def one_suit_target(s: Any, obs: Any, counts: bytes, melds: bytes, now: int) -> int:
    if not s.one_suit or obs.wall_count < s.one_suit_wall:
        return -1
    main, off = off_suit(counts, melds)
    if any((code % 27) // 9 != main for code in melds):
        return -1
    if sum(counts) + 3 * len(melds) - off < s.one_suit_min:
        return -1
    others = [x for x in range(3) if x != main and x != s.void]
    if len(others) != 1 or off == 0:
        return -1
    second = others[0]
    if s.void >= 0 and any(counts[s.void * 9 : s.void * 9 + 9]):
        return -1
    slack = min(s.one_suit_slack, 1 + (obs.wall_count - s.one_suit_wall) // s.one_suit_step)
    if shanten(counts, melds, second) > now + slack:
        return -1
    return second


def wait_value(s: Any, c13: bytes, melds: bytes, vis: bytes, void: int) -> float:
    score = 0.0
    for w, _fan, pts in _core.waits(c13, melds, s.rules.core, void):
        live = 4 - c13[w] - vis[w]
        if live > 0:
            score += live * pts
    return score


def one_away_value(s: Any, c13: bytes, melds: bytes, vis: bytes, void: int) -> float:
    total = 0.0
    c = bytearray(c13)
    for t in range(27):
        if void >= 0 and t // 9 == void:
            continue
        live = 4 - c[t] - vis[t]
        if live <= 0:
            continue
        c[t] += 1
        if _core.shanten_parts(bytes(c), melds, void)[0] == 0:
            best = 0.0
            for e in range(27):
                if c[e] == 0 or e == t:
                    continue
                c[e] -= 1
                h = bytes(c)
                if _core.wait_mask(h, melds, void):
                    best = max(best, wait_value(s, h, melds, vis, void))
                c[e] += 1
            total += live * best
        c[t] -= 1
    return total


def clear_tile(counts: bytes, dz: Any, kinds: Sequence[int]) -> int:
    if dz is not None and len(kinds) > 1:
        low = min(round(dz(k), 2) for k in kinds)
        kinds = [k for k in kinds if round(dz(k), 2) <= low]
    mask = 0
    for k in kinds:
        mask |= 1 << k
    return _core.most_isolated(counts, mask)


def value_discard(s: Any, obs: Any, counts: bytes, melds: bytes, vis: bytes, mask: int) -> tuple[int, int | None]:
    """(kind, lowest shanten or None) as the strategy ``s`` (its options and void) chooses."""
    void = s.void
    rows = [r for r in _core.best_discards(counts, melds, vis, void) if mask >> r[0] & 1]
    if not rows:
        return mask.bit_length() - 1, None
    now = first_now = min(r[1] for r in rows)
    threats = {}
    if s.defence:
        for o in range(4):
            if o != obs.seat and not obs.won[o] and not obs.escaped[o]:
                threats[o] = opponent_threat(obs, o)
    worst = max(threats.values(), default=0.0)

    def dz(k: int) -> float:
        return danger(obs, k, vis, threats)

    defend = s.fold and now >= 2 and obs.wall_count <= s.fold_wall and worst >= 0.6
    void_rows = [r for r in rows if r[0] // 9 == void] if void >= 0 else []
    if void_rows:
        if defend:
            return min(void_rows, key=lambda r: (dz(r[0]), r[1], -r[2], r[0]))[0], first_now
        return clear_tile(counts, dz if threats else None, [r[0] for r in void_rows]), first_now
    second = one_suit_target(s, obs, counts, melds, now) if not defend else -1
    if second >= 0:
        void = second
        rows = [r for r in _core.best_discards(counts, melds, vis, void) if mask >> r[0] & 1]
        now = min(r[1] for r in rows)
        second_rows = [r for r in rows if r[0] // 9 == void]
        if second_rows:
            best_sh = min(r[1] for r in second_rows)
            kinds = [r[0] for r in second_rows if r[1] == best_sh]
            return clear_tile(counts, dz if threats else None, kinds), first_now
    if defend:
        cands = [r for r in rows if r[1] <= now + 1]
        return min(cands, key=lambda r: (round(dz(r[0]), 3), r[1], -r[2], r[0]))[0], first_now
    cands = [r for r in rows if r[1] == now]
    if not s.fan:
        return _core.greedy_discard(counts, melds, vis, void, mask, False)[0], first_now
    if len(cands) == 1:
        return cands[0][0], first_now
    best_kind, best_score = -1, -1.0
    for kind, sh, uk in cands:
        c = bytearray(counts)
        c[kind] -= 1
        c13 = bytes(c)
        if sh == 0:
            score = wait_value(s, c13, melds, vis, void) + 0.01 * uk
        elif sh == 1 and s.lookahead:
            score = one_away_value(s, c13, melds, vis, void) + 0.01 * uk
        else:
            score = uk * potential(c13, melds, sh, float(2 ** (s.rules.max_fan - 1))) if s.steer else float(uk)
        if threats:
            score *= 1.0 - s.alpha * min(1.0, dz(kind))
        score += 0.001 * _TERMINAL[kind]
        if score > best_score:
            best_kind, best_score = kind, score
    return best_kind, first_now
