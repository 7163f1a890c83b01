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

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from xuezhan import _core
from xuezhan.evaluate import WinContext
from xuezhan.rules import RulesLike, as_rules
from xuezhan.tiles import NUM_KINDS, HandLike, TileError, TileTypeError, parse_void, tile_kind, tile_str, to_counts

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


def from_strings(hands: Iterable[HandLike]) -> npt.NDArray[np.uint8]:
    """An ``(N, 27)`` ``uint8`` array from tile strings (or any hand form of :func:`to_counts`).

    >>> from_strings(["19m", "5p"]).sum(axis=1).tolist()
    [2, 1]
    """
    if isinstance(hands, (str, bytes)) or not hasattr(hands, "__iter__"):
        raise TileTypeError(f"hands: {hands!r} is not a list of hands (give a list of tile strings or count rows)")
    rows = [to_counts(h, name=f"hands[{i}]") for i, h in enumerate(hands)]
    if not rows:
        return np.zeros((0, NUM_KINDS), dtype=np.uint8)
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), NUM_KINDS).copy()


def to_array(hands: npt.NDArray[Any] | Iterable[HandLike]) -> npt.NDArray[np.uint8]:
    """A C-contiguous ``(N, 27)`` ``uint8`` array from an array-like or a list of hands.

    Counts must be integers 0–4: an array of another integer dtype is range-checked and
    converted; a bool, float or complex array raises :class:`~xuezhan.tiles.TileTypeError`
    (its dtype is checked once, not per element). A 1-D row of 27 becomes one row.
    """
    if isinstance(hands, np.ndarray):
        arr = hands
        kind = arr.dtype.kind
        if kind == "O":  # Python objects: each row read (and checked) as a hand
            return from_strings(arr.tolist() if arr.ndim != 1 else list(arr))
        if kind not in "iu":
            raise TileTypeError(f"hands: counts must be integers, got an array of dtype {arr.dtype}")
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


def to_strings(hands: npt.NDArray[Any]) -> list[str]:
    """Canonical tile strings of the rows (for display and error messages)."""
    from xuezhan.tiles import format_tiles

    return [format_tiles(bytes(row)) for row in to_array(hands)]


#: Bytes of scratch memory :func:`random_hands` uses per chunk of rows (keys and their order).
_SCRATCH_BYTES = 1 << 23


def random_hands(
    n: int, size: int = 13, *, suits: int = 3, seed: int = 0, kinds: Sequence[int] | None = None
) -> npt.NDArray[np.uint8]:
    """``n`` seeded random hands of ``size`` tiles drawn without replacement from a shuffled
    wall of four copies of each kind: of the first ``suits`` suits, or of ``kinds`` if given.

    The benchmarks and differential tests use this one generator, so they see the same hands.
    Memory: the ``(n, 27)`` output plus a fixed scratch of about 8 MB (rows are drawn in
    chunks; the hands do not depend on the chunk size).

    >>> h = random_hands(3, 14, suits=2, seed=1)
    >>> h.shape, h.sum(axis=1).tolist(), int(h[:, 18:].sum())
    ((3, 27), [14, 14, 14], 0)
    """
    n = _count_arg("n", n)
    size = _count_arg("size", size)
    if kinds is not None:
        ks = np.array([tile_kind(k) for k in kinds], dtype=np.int64)
    else:
        suits = _count_arg("suits", suits)
        if not 1 <= suits <= 3:
            raise ValueError(f"suits = {suits} is not 1, 2 or 3")
        ks = np.arange(9 * suits, dtype=np.int64)
    if not 1 <= size <= 4 * len(ks):
        raise ValueError(f"size {size} is not possible with {len(ks)} kinds")
    rng = np.random.default_rng(seed)
    wall = np.repeat(ks, 4)
    out = np.zeros((n, NUM_KINDS), dtype=np.uint8)
    # One independent shuffle per hand: random keys, the `size` smallest. Chunks draw the keys
    # in the same order as one (n, wall) draw would, so the hands are the same for any chunk.
    chunk = max(1, _SCRATCH_BYTES // (16 * wall.size))
    for lo in range(0, n, chunk):
        m = min(chunk, n - lo)
        keys = rng.random((m, wall.size))
        if size < wall.size:
            idx = np.argpartition(keys, size - 1, axis=1)[:, :size]
        else:
            idx = np.argsort(keys, axis=1)
        flat = wall[idx] + NUM_KINDS * np.arange(m)[:, None]
        out[lo : lo + m] = np.bincount(flat.ravel(), minlength=m * NUM_KINDS).reshape(m, NUM_KINDS)
    return out


def _count_arg(name: str, v: object) -> int:
    """A non-negative integer argument (``n``, ``size``...), or TypeError/ValueError naming it."""
    if isinstance(v, bool) or not hasattr(v, "__index__"):
        raise TypeError(f"{name} must be an integer, got {v!r}")
    i = int(v.__index__())
    if i < 0:
        raise ValueError(f"{name} = {i} is negative")
    return i


def random_wins(n: int, *, seed: int = 0, seven_pairs: float = 0.125) -> tuple[np.ndarray, np.ndarray]:
    """``n`` seeded random 14-tile winning hands (R4.1–R4.2) of two suits (one suit by chance),
    with a winning tile for each (a random tile of the hand).

    Four random sets (triplets or runs, half each) and a pair, or with probability
    ``seven_pairs`` seven random pairs (a quad = two pairs); hands with a fifth copy are redrawn.

    >>> h, w = random_wins(100, seed=3)
    >>> bool(is_win(h).all()), bool((h[np.arange(100), w] > 0).all())
    (True, True)
    """
    n = _count_arg("n", n)
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
                    c[9 * s + r : 9 * s + r + 3] += 1
            c[rng.choice(kinds)] += 2
        if c.max() > 4:
            continue
        out[i] = c
        win[i] = rng.choice(np.flatnonzero(c))
        i += 1
    return out, win


VoidLike = str | int | None


def is_win(
    hands: npt.NDArray[Any] | Iterable[HandLike], *, void: VoidLike = None, parallel: bool = False
) -> npt.NDArray[np.bool_]:
    """``bool`` per row of 14 tiles: a win under R4.1–R4.2."""
    return _call(_core.batch_is_win, to_array(hands), parse_void(void), _flag("parallel", parallel))


def shanten(
    hands: npt.NDArray[Any] | Iterable[HandLike], *, void: VoidLike = None, parallel: bool = False
) -> npt.NDArray[np.int8]:
    """``int8`` Sichuan shanten per row of 13 or 14 tiles (−1 = complete)."""
    return _call(_core.batch_shanten, to_array(hands), parse_void(void), _flag("parallel", parallel))


def wait_mask(
    hands: npt.NDArray[Any] | Iterable[HandLike], *, void: VoidLike = None, parallel: bool = False
) -> npt.NDArray[np.uint32]:
    """``uint32`` per row of 13 tiles: bit k set when kind k completes it (R7.3)."""
    return _call(_core.batch_wait_mask, to_array(hands), parse_void(void), _flag("parallel", parallel))


def fan(
    hands: npt.NDArray[Any] | Iterable[HandLike],
    win_tiles: npt.NDArray[Any] | Sequence[int | str],
    *,
    context: WinContext | int | None = None,
    rules: RulesLike = "leshan",
    void: VoidLike = None,
    parallel: bool = False,
) -> npt.NDArray[np.uint8]:
    """``uint8`` capped fan per row of 14 tiles won on ``win_tiles[i]`` (0 = not a win).

    ``win_tiles`` is an integer array of kinds 0–26 (its dtype checked once: a float or bool
    array raises :class:`~xuezhan.tiles.TileTypeError`) or a sequence of tiles (``"5p"`` or kinds).
    """
    arr = to_array(hands)
    kinds = _win_kinds(win_tiles)
    if kinds.shape != (arr.shape[0],):
        raise TileError(f"win_tiles must have one entry per hand ({arr.shape[0]}), got shape {kinds.shape}")
    ctx = _context_flags(context)
    core_rules = as_rules(rules).core
    return _call(_core.batch_fan, arr, kinds, ctx, core_rules, parse_void(void), _flag("parallel", parallel))


def _win_kinds(win_tiles: npt.NDArray[Any] | Sequence[int | str]) -> npt.NDArray[np.uint8]:
    if isinstance(win_tiles, np.ndarray) and win_tiles.dtype.kind != "O":
        if win_tiles.dtype.kind not in "iu":
            raise TileTypeError(f"win_tiles must be integer tile kinds 0-26, got an array of dtype {win_tiles.dtype}")
        if win_tiles.size and (win_tiles.min() < 0 or win_tiles.max() >= NUM_KINDS):
            raise TileError("win_tiles must be tile kinds 0-26")
        return np.ascontiguousarray(win_tiles, dtype=np.uint8)
    if isinstance(win_tiles, (str, bytes)) or not hasattr(win_tiles, "__iter__"):
        raise TileTypeError(f"win_tiles: {win_tiles!r} is not a sequence of tiles (one per hand)")
    out = []
    for i, t in enumerate(win_tiles):
        try:
            out.append(tile_kind(t))
        except TileError as exc:
            raise type(exc)(f"win_tiles[{i}]: {exc}") from None
    return np.array(out, dtype=np.uint8)


def _flag(name: str, v: object) -> bool:
    """A True/False argument (numpy booleans too), or a TypeError naming it."""
    if v is True or v is False:
        return v
    if isinstance(v, np.bool_):
        return bool(v)
    raise TypeError(f"{name} must be True or False, got {v!r}")


def _context_flags(context: WinContext | int | None) -> int:
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


def _call(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return fn(*args)
    except TypeError as exc:  # the core names the argument; keep the TileError family
        raise TileTypeError(str(exc)) from None
    except ValueError as exc:
        raise TileError(str(exc)) from None
