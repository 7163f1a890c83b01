"""Differential test against the independent PyPI ``mahjong`` package (2.1.0) (R4.1, R4.2).

On honour-free hands of at most two suits the Sichuan standard form is the riichi standard
form, so ``mahjong``'s regular-hand shanten must equal our ``shanten_parts(...).standard``
exactly, and its ``Agari.is_agari`` must equal our win check, with exactly this named
difference, checked explicitly rather than skipped:

- Seven pairs with a quad (龙七对): R4.1 counts four identical tiles as two pairs; riichi
  chiitoitsu needs seven *distinct* pairs, so ``is_agari`` says no where we say yes (unless
  the hand is also a standard win). Checked: every such disagreement is exactly this shape.

Shanten has no allowed difference. ``mahjong`` 2.1.0 already handles the fifth-copy cases that
older versions got wrong (``1111m`` waiting on a single ``1m``, a run needing a kind the hand
holds four times); ``test_r7_3_fifth_copy_cases_agree`` pins a few of them.

≥ 100,000 seeded hands: random 13- and 14-tile hands of two suits, and near-complete ones
(a random win with a tile removed or swapped), so that low shanten values are well covered.
"""

from __future__ import annotations

import numpy as np
from _reference import ref_shanten_parts
from mahjong.agari import Agari
from mahjong.shanten import Shanten

from xuezhan import _core, batch, format_tiles
from xuezhan.tiles import to_counts

SEED = 20261202
N_RANDOM = 30_000  # per size
N_NEAR = 20_000  # per size


def _two_suit(n: int, size: int, seed: int) -> np.ndarray:
    """Random hands over two suits, the pair of suits chosen at random per hand."""
    h = batch.random_hands(n, size, suits=2, seed=seed)
    rng = np.random.default_rng(seed + 1)
    perm = np.array([rng.permutation(3) for _ in range(n)])  # where suits m, p go
    out = np.zeros_like(h)
    for src in range(2):
        for dst in range(3):
            rows = perm[:, src] == dst
            out[rows, 9 * dst : 9 * dst + 9] = h[rows, 9 * src : 9 * src + 9]
    return out


def _near_wins(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    wins, _ = batch.random_wins(n, seed=seed)
    rng = np.random.default_rng(seed + 7)
    h13 = wins.copy()
    h14 = wins.copy()
    for i in range(n):
        nz = np.flatnonzero(h13[i])
        h13[i, rng.choice(nz)] -= 1
        out = rng.choice(np.flatnonzero(h14[i]))
        # swap within the hand's own suits (keeps at most two suits)
        suits = np.unique(np.flatnonzero(h14[i]) // 9)
        inn = 9 * rng.choice(suits) + rng.integers(9)
        if inn != out and h14[i, inn] < 4:
            h14[i, out] -= 1
            h14[i, inn] += 1
    return h13, h14


def _standard_shanten(hands: np.ndarray) -> np.ndarray:
    return np.array([_core.shanten_parts(bytes(r))[1] for r in hands], dtype=np.int8)


def test_r4_differential_against_mahjong_package():
    h13 = np.concatenate([_two_suit(N_RANDOM, 13, SEED), _near_wins(N_NEAR, SEED + 2)[0]])
    h14_rand = _two_suit(N_RANDOM, 14, SEED + 4)
    h14 = np.concatenate([h14_rand, _near_wins(N_NEAR, SEED + 2)[1], batch.random_wins(N_NEAR // 4, seed=SEED + 9)[0]])
    total = len(h13) + len(h14)
    assert total >= 100_000
    assert (((h13 > 0).reshape(-1, 3, 9).any(2)).sum(1) <= 2).all()

    sh = Shanten()
    agari = Agari()
    pad = [0] * 7
    quad_pairs = 0
    for hands in (h13, h14):
        ours = _standard_shanten(hands)
        ours_win = batch.is_win(hands) if hands is h14 else None
        for i, row in enumerate(hands):
            t34 = row.tolist() + pad
            peer = sh.calculate_shanten_for_regular_hand(t34)
            assert peer == ours[i], (format_tiles(bytes(row)), int(ours[i]), peer)
            if ours_win is not None:
                peer_win = agari.is_agari(t34)
                if peer_win != bool(ours_win[i]):
                    # the only allowed difference: seven pairs with a quad (R4.1)
                    assert ours_win[i] and not peer_win, format_tiles(bytes(row))
                    assert row.max() == 4 and (row % 2 == 0).all(), format_tiles(bytes(row))
                    quad_pairs += 1
                # the standard-form win checks agree exactly
                assert (ours[i] == -1) == (peer == -1)
    # the comparison exercised what it claims to: many complete and ready hands
    assert (_standard_shanten(h14) == -1).sum() > 5_000
    assert (_standard_shanten(h13) == 0).sum() > 5_000
    # the named difference really occurs in this sample (so its explanation is tested)
    assert quad_pairs > 0


def test_r7_3_fifth_copy_cases_agree():
    """Hands whose only wait would be a fifth copy: both sides (and the reference) say not ready."""
    sh = Shanten()
    for hand, expected in [
        ("1111m456p789p999p", 1),  # single 1m wait: all four held
        ("1111m24m456p789p9p", 1),
        ("1111m23m456p789p9p", 0),  # 1m is no wait, but 3p/6p/9p are
        ("1111m2222m333m44m", 0),
        ("11112222333344m", -1),
    ]:
        c = to_counts(hand)
        assert _core.shanten_parts(c)[1] == expected
        assert sh.calculate_shanten_for_regular_hand(list(c) + [0] * 7) == expected
        assert ref_shanten_parts(list(c))[1] == expected
