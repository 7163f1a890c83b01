"""Batch evaluation over numpy arrays of hands (rows of 27 counts, ``uint8``).

Each function makes one call into the Rust core, which releases the GIL and, with
``parallel=True``, spreads the rows over threads (rayon). Hands here have no melds.

    >>> hands = from_strings(["11122233345m99m3m", "123m456p789s11m123m"])
    >>> is_win(hands).tolist()
    [True, False]
    >>> shanten(from_strings(["11122233345m99m"])).tolist()
    [0]
    >>> [mask_to_tiles(m) for m in wait_mask(from_strings(["11122233345m99m"]))]
    [['3m', '6m', '9m']]
    >>> fan(hands[:1], win_tiles=["3m"]).tolist()
    [4]
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence, Union

import numpy as np

from xuezhan import _core
from xuezhan.evaluate import WinContext
from xuezhan.rules import RulesLike, as_rules
from xuezhan.tiles import HandLike, NUM_KINDS, TileError, parse_void, tile_kind, tile_str, to_counts

__all__ = [
    "from_strings",
    "to_array",
    "to_strings",
    "random_hands",
    "random_wins",
    "is_win",
    "shanten",
    "wait_mask",
    "fan",
    "mask_to_kinds",
    "mask_to_tiles",
]


def from_strings(hands: Iterable[HandLike]) -> np.ndarray:
    """An ``(N, 27)`` ``uint8`` array from tile strings (or any hand form of :func:`to_counts`).

    >>> from_strings(["19m", "5p"]).sum(axis=1).tolist()
    [2, 1]
    """
    rows = [to_counts(h) for h in hands]
    if not rows:
        return np.zeros((0, NUM_KINDS), dtype=np.uint8)
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), NUM_KINDS).copy()


def to_array(hands: Union[np.ndarray, Iterable[HandLike]]) -> np.ndarray:
    """A C-contiguous ``(N, 27)`` ``uint8`` array from an array-like or a list of hands.

    Counts must be 0–4; a 1-D row of 27 becomes one row.
    """
    if isinstance(hands, np.ndarray):
        arr = hands
        if arr.ndim == 1 and arr.shape[0] == NUM_KINDS:
            arr = arr.reshape(1, NUM_KINDS)
        if arr.ndim != 2 or arr.shape[1] != NUM_KINDS:
            raise TileError(f"hands must be an (N, 27) array of counts, got shape {arr.shape}")
        if arr.dtype != np.uint8:
            if arr.size and (arr.min() < 0 or arr.max() > 4):
                raise TileError("hand counts must be 0-4")
            arr = arr.astype(np.uint8)
        return np.ascontiguousarray(arr)
    return from_strings(hands)


def to_strings(hands: np.ndarray) -> list[str]:
    """Canonical tile strings of the rows (for display and error messages)."""
    from xuezhan.tiles import format_tiles

    return [format_tiles(bytes(row)) for row in to_array(hands)]


def random_hands(
    n: int, size: int = 13, *, suits: int = 3, seed: int = 0, kinds: Optional[Sequence[int]] = None
) -> np.ndarray:
    """``n`` seeded random hands of ``size`` tiles drawn without replacement from a shuffled
    wall of four copies of each kind: of the first ``suits`` suits, or of ``kinds`` if given.

    The benchmarks and differential tests use this one generator, so they see the same hands.

    >>> h = random_hands(3, 14, suits=2, seed=1)
    >>> h.shape, h.sum(axis=1).tolist(), int(h[:, 18:].sum())
    ((3, 27), [14, 14, 14], 0)
    """
    ks = np.array(list(kinds) if kinds is not None else range(9 * suits), dtype=np.int64)
    if not 1 <= size <= 4 * len(ks):
        raise ValueError(f"size {size} is not possible with {len(ks)} kinds")
    rng = np.random.default_rng(seed)
    wall = np.repeat(ks, 4)
    # one independent shuffle per hand: argsort of random keys, first `size` tiles
    keys = rng.random((n, wall.size))
    idx = np.argpartition(keys, size - 1, axis=1)[:, :size] if size < wall.size else np.argsort(keys, axis=1)
    drawn = wall[idx]
    out = np.zeros((n, NUM_KINDS), dtype=np.uint8)
    rows = np.repeat(np.arange(n), size)
    np.add.at(out, (rows, drawn.ravel()), 1)
    return out


def random_wins(n: int, *, seed: int = 0, seven_pairs: float = 0.125) -> tuple[np.ndarray, np.ndarray]:
    """``n`` seeded random 14-tile winning hands (R4.1–R4.2) of two suits (one suit by chance),
    with a winning tile for each (a random tile of the hand).

    Four random sets (triplets or runs, half each) and a pair, or with probability
    ``seven_pairs`` seven random pairs (a quad = two pairs); hands with a fifth copy are redrawn.

    >>> h, w = random_wins(100, seed=3)
    >>> bool(is_win(h).all()), bool((h[np.arange(100), w] > 0).all())
    (True, True)
    """
    rng = np.random.default_rng(seed)
    out = np.zeros((n, NUM_KINDS), dtype=np.uint8)
    win = np.zeros(n, dtype=np.uint8)
    i = 0
    while i < n:
        suits = rng.choice(3, size=2, replace=False)
        kinds = np.concatenate([np.arange(9) + 9 * s for s in suits])
        c = np.zeros(NUM_KINDS, dtype=np.int64)
        if rng.random() < seven_pairs:
            for k in rng.choice(kinds, size=7, replace=True):
                c[k] += 2
        else:
            for _ in range(4):
                s = suits[rng.integers(2)]
                if rng.random() < 0.5:
                    c[9 * s + rng.integers(9)] += 3
                else:
                    r = rng.integers(7)
                    c[9 * s + r: 9 * s + r + 3] += 1
            c[rng.choice(kinds)] += 2
        if c.max() > 4:
            continue
        out[i] = c
        win[i] = rng.choice(np.flatnonzero(c))
        i += 1
    return out, win


def is_win(hands: np.ndarray, *, void: Union[str, int, None] = None, parallel: bool = False) -> np.ndarray:
    """``bool`` per row of 14 tiles: a win under R4.1–R4.2."""
    return _call(_core.batch_is_win, to_array(hands), parse_void(void), parallel)


def shanten(hands: np.ndarray, *, void: Union[str, int, None] = None, parallel: bool = False) -> np.ndarray:
    """``int8`` Sichuan shanten per row of 13 or 14 tiles (−1 = complete)."""
    return _call(_core.batch_shanten, to_array(hands), parse_void(void), parallel)


def wait_mask(hands: np.ndarray, *, void: Union[str, int, None] = None, parallel: bool = False) -> np.ndarray:
    """``uint32`` per row of 13 tiles: bit k set when kind k completes it (R7.3)."""
    return _call(_core.batch_wait_mask, to_array(hands), parse_void(void), parallel)


def fan(
    hands: np.ndarray,
    win_tiles: Union[np.ndarray, Sequence[Union[int, str]]],
    *,
    context: Union[WinContext, int, None] = None,
    rules: RulesLike = "leshan",
    void: Union[str, int, None] = None,
    parallel: bool = False,
) -> np.ndarray:
    """``uint8`` capped fan per row of 14 tiles won on ``win_tiles[i]`` (0 = not a win)."""
    arr = to_array(hands)
    if isinstance(win_tiles, np.ndarray) and win_tiles.dtype != object:
        if win_tiles.size and (win_tiles.min() < 0 or win_tiles.max() >= NUM_KINDS):
            raise TileError("win_tiles must be tile kinds 0-26")
        kinds = np.ascontiguousarray(win_tiles, dtype=np.uint8)
    else:
        kinds = np.array([tile_kind(t) for t in win_tiles], dtype=np.uint8)
    if kinds.shape != (arr.shape[0],):
        raise TileError(f"win_tiles must have one entry per hand ({arr.shape[0]}), got shape {kinds.shape}")
    ctx = _context_flags(context)
    return _call(_core.batch_fan, arr, kinds, ctx, as_rules(rules).core, parse_void(void), parallel)


def _context_flags(context: Union[WinContext, int, None]) -> int:
    if context is None:
        return 0
    if isinstance(context, WinContext):
        return context.flags
    return WinContext.from_flags(context).flags  # validates an int (ValueError naming it)


def mask_to_kinds(mask: int) -> list[int]:
    """Kinds whose bit is set in a wait mask.

    >>> mask_to_kinds(0b101)
    [0, 2]
    """
    m = int(mask)
    return [k for k in range(NUM_KINDS) if m >> k & 1]


def mask_to_tiles(mask: int) -> list[str]:
    """Tile strings whose bit is set in a wait mask."""
    return [tile_str(k) for k in mask_to_kinds(mask)]


def _call(fn, *args):  # type: ignore[no-untyped-def]
    try:
        return fn(*args)
    except ValueError as exc:
        raise TileError(str(exc)) from None
