"""An independent, deliberately simple reference for the evaluator (no code shared with the core).

- ``ref_is_win``: recursive decomposition into sets and a pair (R4.1), seven pairs with a quad
  as two pairs (R4.1), at most two suits counting melds, and the void suit (R4.2).
- ``ref_shanten``: exhaustive over every complete hand. The shanten of ``n`` concealed tiles is
  ``n − max overlap`` (13 tiles, i.e. ``n + 1``-tile targets) or ``n − max overlap − 1``
  (14 tiles) where the maximum runs over *all* complete hands W (same melds, any tiles, W
  respecting four copies per kind with the melds, two suits, void). The maximum over W is taken
  by an exhaustive dynamic programme over ranks within each suit (every way to place triplets,
  runs and the pair is visited), so it is the definition, not a heuristic formula.
- ``ref_shanten_bfs``: the literal definition for small cases: the fewest tile swaps
  (remove one concealed tile, take any other) that reach a complete hand, by breadth-first search.
- ``ref_waits``: every tile tried (R7.3: not a fifth copy).

Counts are lists of 27 ints; melds are ``(type, kind)`` pairs (type 0 pung, 1 kong, 2 concealed kong).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations

Melds = Sequence[tuple[int, int]]


def meld_counts(melds: Melds) -> list[int]:
    c = [0] * 27
    for t, k in melds:
        c[k] += 3 if t == 0 else 4
    return c


def suits_of(counts: Sequence[int]) -> set[int]:
    return {k // 9 for k in range(27) if counts[k]}


# ------------------------------------------------------------------ win check


@cache
def _decomposes(c: tuple[int, ...], sets: int, pair: bool) -> bool:
    """Can the counts ``c`` be split into exactly ``sets`` sets plus (if ``pair``) one pair?"""
    i = next((k for k in range(27) if c[k]), None)
    if i is None:
        return sets == 0 and not pair
    lst = list(c)
    # the first remaining tile must be in a pair, a triplet or a run starting at it
    if pair and lst[i] >= 2:
        lst[i] -= 2
        if _decomposes(tuple(lst), sets, False):
            return True
        lst[i] += 2
    if sets and lst[i] >= 3:
        lst[i] -= 3
        if _decomposes(tuple(lst), sets - 1, pair):
            return True
        lst[i] += 3
    if sets and i % 9 <= 6 and lst[i + 1] and lst[i + 2]:
        lst[i] -= 1
        lst[i + 1] -= 1
        lst[i + 2] -= 1
        if _decomposes(tuple(lst), sets - 1, pair):
            return True
    return False


def ref_is_win(counts: Sequence[int], melds: Melds = (), void: int = -1) -> bool:
    total = [a + b for a, b in zip(counts, meld_counts(melds), strict=True)]
    assert max(total) <= 4 and sum(counts) + 3 * len(melds) == 14
    s = suits_of(total)
    if len(s) > 2 or void in s:  # R4.2
        return False
    if not melds and all(x % 2 == 0 for x in counts):  # R4.1 seven pairs, a quad is two pairs
        return True
    return _decomposes(tuple(counts), 4 - len(melds), True)


def ref_waits(counts: Sequence[int], melds: Melds = (), void: int = -1) -> list[int]:
    mc = meld_counts(melds)
    out = []
    for t in range(27):
        if counts[t] + mc[t] >= 4:  # R7.3: no fifth copy
            continue
        c = list(counts)
        c[t] += 1
        if ref_is_win(c, melds, void):
            out.append(t)
    return out


# ------------------------------------------------------------------ shanten (exhaustive)


def _suit_best(h: tuple[int, ...], cap: tuple[int, ...]) -> dict[tuple[int, bool], int]:
    """For one suit: the best overlap sum(min(W_r, h_r)) over every W made of j sets (+ pair),
    with W_r <= cap[r], for each (j, pair). Exhaustive over placements, rank by rank."""
    return _suit_best_cached(h, cap)


@cache
def _suit_best_cached(h: tuple[int, ...], cap: tuple[int, ...]) -> dict[tuple[int, bool], int]:
    # f(r, a, b, pair_used): runs started at r-1 (a) and r-2 (b) still need rank r. Returns, for
    # each (sets started from rank r on, pair placed from r on), the best overlap of ranks r..8.
    # Every placement of triplets, runs (u runs starting at r) and the pair is tried.
    @cache
    def f(r: int, a: int, b: int, pair_used: bool) -> dict[tuple[int, bool], int]:
        if r == 9:
            return {(0, False): 0} if a == 0 and b == 0 else {}
        out: dict[tuple[int, bool], int] = {}
        need = a + b
        for trip in (0, 1):
            for pr in (0, 1) if not pair_used else (0,):
                for u in range(0, 5 if r <= 6 else 1):
                    w = need + 3 * trip + 2 * pr + u
                    if w > cap[r] or trip + u > 4:
                        break
                    gain = min(w, h[r])
                    for (j, p), v in f(r + 1, u, a, pair_used or bool(pr)).items():
                        key = (j + trip + u, p or bool(pr))
                        if key[0] <= 4 and out.get(key, -1) < v + gain:
                            out[key] = v + gain
        return out

    return f(0, 0, 0, False)


def _standard_overlap(counts: Sequence[int], mc: Sequence[int], sets: int, suits: Iterable[int]) -> int:
    per = []
    for s in suits:
        per.append(_suit_best(tuple(counts[9 * s : 9 * s + 9]), tuple(4 - x for x in mc[9 * s : 9 * s + 9])))
    best = -1
    a, b = per
    for (ja, pa), va in a.items():
        for (jb, pb), vb in b.items():
            if ja + jb == sets and (pa + pb) == 1:
                best = max(best, va + vb)
    return best


def _pairs_overlap(counts: Sequence[int], suits: Iterable[int]) -> int:
    gains = []
    for s in suits:
        for k in range(9 * s, 9 * s + 9):
            gains.append(min(counts[k], 2))
            gains.append(min(counts[k], 4) - min(counts[k], 2))
    return sum(sorted(gains, reverse=True)[:7])


def ref_shanten_parts(counts: Sequence[int], melds: Melds = (), void: int = -1) -> tuple[int, int, int | None]:
    """(total, standard, seven_pairs) Sichuan shanten by exhaustive overlap with complete hands."""
    n = sum(counts)
    size = n + 3 * len(melds)
    assert size in (13, 14)
    mc = meld_counts(melds)
    extra = 1 if size == 14 else 0  # a 14-tile hand is one tile further along
    msuits = suits_of(mc)
    std = pairs = 99
    for pair_of_suits in combinations(range(3), 2):
        if not msuits <= set(pair_of_suits) or void in pair_of_suits:
            continue
        ov = _standard_overlap(counts, mc, 4 - len(melds), pair_of_suits)
        if ov >= 0:
            std = min(std, n - ov - extra)
        if not melds:
            pairs = min(pairs, n - _pairs_overlap(counts, pair_of_suits) - extra)
    seven = None if melds else pairs
    return (min(std, pairs), std, seven)


def ref_shanten(counts: Sequence[int], melds: Melds = (), void: int = -1) -> int:
    return ref_shanten_parts(counts, melds, void)[0]


# ------------------------------------------------------------------ shanten by BFS (literal)


def ref_shanten_bfs(counts: Sequence[int], melds: Melds = (), void: int = -1, max_depth: int = 3) -> int | None:
    """The literal definition. 14 tiles: the fewest swaps (discard one concealed tile, take any
    other) that make the hand complete, minus one (−1 = complete). 13 tiles: the fewest swaps
    that make it ready, i.e. the minimum over every drawable tile of the swaps that complete
    the hand with that tile added. None if more than ``max_depth`` swaps are needed."""
    mc = meld_counts(melds)
    size = sum(counts) + 3 * len(melds)
    if size == 13:
        # ready = one draw from complete: shanten13 = min over draws t of swaps14(h + t)
        best = None
        for t in range(27):
            if counts[t] + mc[t] >= 4:
                continue
            c = list(counts)
            c[t] += 1
            d = _swaps_to_win(tuple(c), tuple(melds), void, mc, max_depth)
            if d is not None and (best is None or d < best):
                best = d
        return best
    d = _swaps_to_win(tuple(counts), tuple(melds), void, mc, max_depth)
    return None if d is None else d - 1


def _swaps_to_win(start: tuple[int, ...], melds: Melds, void: int, mc: Sequence[int], max_depth: int) -> int | None:
    frontier = {start}
    seen = {start}
    for depth in range(max_depth + 1):
        for c in frontier:
            if ref_is_win(c, melds, void):
                return depth
        if depth == max_depth:
            return None
        nxt = set()
        for c in frontier:
            for out in range(27):
                if not c[out]:
                    continue
                for inn in range(27):
                    if inn == out or c[inn] + mc[inn] >= 4:
                        continue
                    lst = list(c)
                    lst[out] -= 1
                    lst[inn] += 1
                    t = tuple(lst)
                    if t not in seen:
                        seen.add(t)
                        nxt.add(t)
        frontier = nxt
    return None


# ------------------------------------------------------------------ fan (R5), every reading


def _readings_rec(c: list[int], sets: int, pair: bool) -> Iterable[list[tuple[str, int]]]:
    """Every split of the counts into ``sets`` sets and (if ``pair``) one pair, as blocks
    ("pair" | "trip" | "run", kind); the first remaining kind always goes into the next block."""
    i = next((k for k in range(27) if c[k]), None)
    if i is None:
        if sets == 0 and not pair:
            yield []
        return
    if pair and c[i] >= 2:
        c[i] -= 2
        for rest in _readings_rec(c, sets, False):
            yield [("pair", i)] + rest
        c[i] += 2
    if sets and c[i] >= 3:
        c[i] -= 3
        for rest in _readings_rec(c, sets - 1, pair):
            yield [("trip", i)] + rest
        c[i] += 3
    if sets and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        for k in (i, i + 1, i + 2):
            c[k] -= 1
        for rest in _readings_rec(c, sets - 1, pair):
            yield [("run", i)] + rest
        for k in (i, i + 1, i + 2):
            c[k] += 1


def _has_19(kind: int) -> bool:
    return kind % 9 in (0, 8)


def ref_fan(
    counts: Sequence[int],
    melds: Melds,
    ctx: int,
    items_on: set[str],
    max_fan: int,
    self_draw_fan: bool,
    base: int = 1,
    void: int = -1,
    win: int | None = None,
) -> tuple[int, int, dict[str, int]] | None:
    """(capped fan, points, items of the best reading, or None if best readings differ in items)
    or None if not a win. ``ctx`` bits as in
    docs/internals.md. Every reading (standard splits and seven pairs) is scored; the best counts.
    ``win``: the winning kind, for 夹心五 (``middle_five``: a winning 5 in a 4-5-6 run of the
    reading; never on the dealer's first 14 tiles, which have no winning tile)."""
    if not ref_is_win(counts, melds, void):
        return None
    total = [a + b for a, b in zip(counts, meld_counts(melds), strict=True)]
    common: dict[str, int] = {}
    if len(suits_of(total)) == 1:
        common["one_suit"] = 2
    gens = sum(1 for x in total if x == 4)
    if gens:
        common["gen"] = gens
    if len(melds) == 4:
        common["single_wait_melded"] = 1
    if all(t == 2 for t, _ in melds):
        common["concealed"] = 1
    if not any(total[k] and _has_19(k) for k in range(27)):
        common["no_terminals"] = 1
    for bit, name in ((1, "kong_draw"), (2, "kong_discard"), (3, "robbing_kong"), (4, "last_tile")):
        if ctx >> bit & 1:
            common[name] = 1
    if self_draw_fan and ctx & 1 and not ctx >> 6 & 1:
        common["self_draw"] = 1

    readings: list[dict[str, int]] = []
    for r in _readings_rec(list(counts), 4 - len(melds), True):
        it = dict(common)
        blocks = r + [("trip", k) for _, k in melds]
        if all(b != "run" for b, _ in blocks):
            it["all_triplets"] = 1
            if all(k % 9 + 1 in (2, 5, 8) for _, k in blocks):
                it["pairs_258"] = 2
        if all(_has_19(k) or (b == "run" and _has_19(k + 2)) for b, k in blocks):
            it["terminals"] = 2
        if win is not None and win % 9 == 4 and not ctx >> 5 & 1 and ("run", win - 1) in blocks:
            it["middle_five"] = 1
        readings.append(it)
    if not melds and all(x % 2 == 0 for x in counts):
        it = dict(common)
        it["seven_pairs"] = 2
        # no terminals here: R5 reads 带幺九 over "every set and the pair", i.e. the
        # four-sets-and-a-pair form; seven pairs of 1s and 9s is only seven pairs
        readings.append(it)

    def score(it: dict[str, int]) -> int:
        return 1 + sum(v for k, v in it.items() if k in items_on)

    raw = max(score(it) for it in readings)
    capped = min(raw, max_fan)
    if "heaven_earth" in items_on and ctx >> 5 & 1:
        capped = max_fan
    bests = {tuple(sorted((k, v) for k, v in it.items() if k in items_on)) for it in readings if score(it) == raw}
    items = dict(next(iter(bests))) if len(bests) == 1 else None  # None: several best readings differ
    return capped, base << (capped - 1), items
