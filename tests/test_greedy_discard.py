"""The Rust ``greedy_discard`` / ``most_isolated`` (greedy's whole discard ranking, R4.2 void suit
first) against the former pure-Python ranking, kept here as the oracle, over thousands of seeded
positions with and without melds, voids and visible tiles."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from xuezhan import _core

_TERMINAL = tuple(1 if k % 9 in (0, 8) else 0 for k in range(27))


def oracle_isolated(counts: bytes, kinds: Sequence[int]) -> int:
    """The former ``greedy.isolated``: fewest tiles within two ranks, fewest copies, a terminal,
    the lowest kind."""

    def key(k: int) -> tuple[int, int, int, int]:
        lo = k - k % 9
        near = sum(counts[max(lo, k - 2) : min(lo + 8, k + 2) + 1]) - counts[k]
        return (near, counts[k], -_TERMINAL[k], k)

    return min(kinds, key=key)


def oracle_pick(rows: list[tuple[int, int, int]], legal: set[int], void: int) -> int:
    """The former ``greedy.pick_discard``."""
    best = None
    best_key = None
    have_void = void >= 0 and any(k // 9 == void for k in legal)
    for kind, sh, uk in rows:
        if kind not in legal or (have_void and kind // 9 != void):
            continue
        key = (sh, -uk, -_TERMINAL[kind], kind)
        if best_key is None or key < best_key:
            best, best_key = kind, key
    if best is None:
        best = max(legal)
    return best


def oracle_turn(
    counts: bytes, melds: bytes, vis: bytes, void: int, legal: set[int], no_kong: bool
) -> tuple[int, int | None]:
    """The former ``GreedyStrategy.turn`` discard: (kind, lowest legal shanten or None)."""
    if void >= 0 and no_kong:
        in_void = [k for k in legal if k // 9 == void]
        if in_void:
            return oracle_isolated(counts, in_void), None
    rows = _core.best_discards(counts, melds, vis, void)
    now = min(sh for k, sh, uk in rows if k in legal)
    return oracle_pick(rows, legal, void), now


def position(rng: random.Random) -> tuple[bytes, bytes, bytes, int, set[int]]:
    """A random legal 14-tile position: 0–3 melds (pungs, kongs, concealed kongs), a void not
    used by a meld (or none), visible tiles consistent with the hand, legal discards as the
    engine gives them (void-suit tiles only while one is held, when ``declare`` says so)."""
    pool = [k for k in range(27) for _ in range(4)]
    rng.shuffle(pool)
    nm = rng.choice((0, 0, 1, 1, 2, 3))
    used = [0] * 27
    codes = []
    for _ in range(nm):
        k = rng.choice([k for k in range(27) if used[k] == 0])
        t = rng.randrange(3)
        used[k] = 3 if t == 0 else 4
        codes.append(t * 27 + k)
    free = [k for k in pool if used[k] == 0] + [k for k in range(27) if used[k] == 3]
    rng.shuffle(free)
    if rng.random() < 0.5:  # a hand concentrated in two suits, as in play
        skip = rng.randrange(3)
        free.sort(key=lambda k: (k // 9 == skip, rng.random()))
    c = bytearray(27)
    for k in free[: 14 - 3 * nm]:
        c[k] += 1
    msuits = {(code % 27) // 9 for code in codes}
    voids = [s for s in range(3) if s not in msuits]
    void = rng.choice(voids + [-1]) if voids else -1
    vis = bytearray(27)
    for k in range(27):
        room = 4 - c[k] - used[k]
        vis[k] = used[k] + (rng.randint(0, room) if room > 0 and rng.random() < 0.3 else 0)
    held = {k for k in range(27) if c[k]}
    declare = rng.random() < 0.5
    in_void = {k for k in held if void >= 0 and k // 9 == void}
    legal = in_void if declare and in_void else held
    return bytes(c), bytes(codes), bytes(vis), void, legal


@pytest.mark.parametrize("no_kong", [True, False])
def test_greedy_discard_matches_the_python_ranking_r4_2(no_kong):
    rng = random.Random(20261202 + no_kong)
    melded = 0
    for _ in range(3000):
        c, m, vis, void, legal = position(rng)
        melded += bool(m)
        mask = sum(1 << k for k in legal)
        got = _core.greedy_discard(c, m, vis, void, mask, no_kong)
        assert got == oracle_turn(c, m, vis, void, legal, no_kong), (c.hex(), m.hex(), vis.hex(), void, legal)
    assert melded > 1000  # the melded positions the engine meets most are covered


def test_most_isolated_matches_the_python_ranking():
    rng = random.Random(7)
    for _ in range(3000):
        c, _m, _v, _void, legal = position(rng)
        kinds = rng.sample(sorted(legal), rng.randint(1, len(legal)))
        assert _core.most_isolated(c, sum(1 << k for k in kinds)) == oracle_isolated(c, kinds)


def test_greedy_discard_names_bad_legal_sets():
    good = bytes([3, 3, 3, 3, 2] + [0] * 22)
    with pytest.raises(ValueError, match="greedy_discard: legal discards name 9m"):
        _core.greedy_discard(good, b"", bytes(27), -1, 1 << 8)
    with pytest.raises(ValueError, match="at least one tile"):
        _core.greedy_discard(good, b"", bytes(27), -1, 0)
    with pytest.raises(ValueError, match="most_isolated"):
        _core.most_isolated(good, 1 << 20)
