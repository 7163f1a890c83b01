"""The hand evaluator: win check, shanten, waits, fan and discard advice (docs/rules.md R4, R5, R7.3).

Thin typed wrappers over the Rust core ``xuezhan._core``. A hand is a tile string (R0), a
sequence of kinds 0–26, or 27 counts (``bytes``, a numpy ``uint8`` row, or any sequence of
length 27). ``melds`` are strings like ``"666p"``, ``"7777s"`` (exposed kong), ``"(7777s)"``
(concealed kong), :class:`~xuezhan.tiles.Meld` values, or one comma-separated string.
``void`` is ``"m"``/``"p"``/``"s"`` or 0–2 (R11.2). ``rules`` is a
:class:`~xuezhan.rules.Rules`, a preset name, or a dict for :meth:`Rules.from_dict`.

    >>> is_win("11122233345m99m" + "3m")
    True
    >>> is_win("123m456p789s11m123m")  # three suits never win (R4.2)
    False
    >>> shanten("11122233345m99m")
    0
    >>> [(w.tile, w.fan, w.points) for w in waits("11122233345m99m")]
    [('3m', 4, 8), ('6m', 3, 4), ('9m', 3, 4)]
    >>> r = fan("11223344556677m", win_tile="7m")
    >>> r.fan, r.points, r.items
    (5, 16, {'one_suit': 2, 'seven_pairs': 2})
    >>> fan("11m", melds=["222p", "(3333p)", "444p", "555p"], win_tile="1m").items
    {'all_triplets': 1, 'gen': 1, 'single_wait_melded': 1}

Errors are ``ValueError`` subclasses naming the input: :class:`~xuezhan.tiles.TileError`
for bad tiles or hand sizes, :class:`~xuezhan.rules.RulesError` for bad rules, and
:class:`NotAWinError` when :func:`fan` is asked about a hand that does not win.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import ClassVar, NamedTuple

from xuezhan import _core
from xuezhan.rules import FAN_ITEMS, RulesLike, as_rules
from xuezhan.tiles import (
    NUM_KINDS,
    TILE_STR,
    HandLike,
    Meld,
    MeldsLike,
    TileError,
    check_size,
    format_melds,
    format_tiles,
    parse_melds,
    parse_tiles,
    parse_void,
    tile_kind,
    tile_str,
    to_counts,
    total_counts,
)

__all__ = [
    "UNREACHABLE",
    "WinContext",
    "ShantenParts",
    "Wait",
    "FanResult",
    "Discard",
    "NotAWinError",
    "is_win",
    "shanten",
    "shanten_parts",
    "wait_mask",
    "waits",
    "fan",
    "best_discards",
]

VoidLike = str | int | None

#: The shanten (127) of a hand that can never win: melds in all three suits, or a meld in the
#: declared void suit (R4.2).
UNREACHABLE: int = _core.UNREACHABLE


class NotAWinError(ValueError):
    """:func:`fan` was given a hand that is not a win (R4.1–R4.2)."""


@dataclass(frozen=True)
class WinContext:
    """How a hand was won: the context flags of ``docs/internals.md`` (R5 situational items).

    >>> WinContext(self_draw=True, kong_draw=True).flags
    3
    >>> WinContext.from_flags(8)
    WinContext(robbing_kong=True)
    """

    self_draw: bool = False  #: bit 0: the winner drew the tile (自摸)
    kong_draw: bool = False  #: bit 1: the tile is a kong replacement (杠上开花)
    kong_discard: bool = False  #: bit 2: discard right after the discarder's kong replacement (杠上炮)
    robbing_kong: bool = False  #: bit 3: won on a tile added to a pung (抢杠胡, R3.3)
    last_tile: bool = False  #: bit 4: the last wall tile, or the discard right after it (海底)
    heaven_earth: bool = False  #: bit 5: 天胡 / 地胡
    discarder_pays: bool = False  #: bit 6: R6.3, the self_draw fan bonus does not apply

    #: Field names in bit order: the core's flag table (``xuezhan._core.CONTEXT_FLAGS``).
    _NAMES: ClassVar[tuple[str, ...]] = _core.CONTEXT_FLAGS

    def __post_init__(self) -> None:
        for n in self._NAMES:
            v = getattr(self, n)
            if type(v) is not bool:
                try:
                    ok = v in (0, 1)  # 0/1 and numpy booleans are accepted as they are
                except Exception:
                    ok = False
                if not ok:
                    raise ValueError(f"WinContext.{n} = {v!r} is not true or false")
                object.__setattr__(self, n, bool(v))
        # computed once: the flags cross into the core on every call
        object.__setattr__(self, "_flags", sum(1 << i for i, n in enumerate(self._NAMES) if getattr(self, n)))

    @property
    def flags(self) -> int:
        """The context as the integer of bit flags the core reads."""
        return self._flags  # type: ignore[attr-defined]  # set in __post_init__, not a field

    @classmethod
    def from_flags(cls, flags: int) -> WinContext:
        if isinstance(flags, bool) or not isinstance(flags, int) or not 0 <= flags < 1 << len(cls._NAMES):
            raise ValueError(f"{flags!r} is not a win context (bit flags 0-127)")
        return cls(**{n: bool(flags >> i & 1) for i, n in enumerate(cls._NAMES)})

    def __repr__(self) -> str:
        on = ", ".join(f"{n}=True" for n in self._NAMES if getattr(self, n))
        return f"WinContext({on})"


# The fields above are the core's flags, by name and in bit order (one definition: the core).
if tuple(f.name for f in fields(WinContext)) != WinContext._NAMES:  # pragma: no cover - a build mismatch
    raise ImportError(f"WinContext fields disagree with the core's context flags {WinContext._NAMES}")


class ShantenParts(NamedTuple):
    """Shanten (−1 = complete) overall and per form; ``seven_pairs`` is None with melds (R4.1)."""

    total: int
    standard: int
    seven_pairs: int | None


class Wait(NamedTuple):
    """A tile that completes the hand, with its ready-check value (R7.3: shape items, capped)."""

    tile: str
    kind: int
    fan: int
    points: int


class Discard(NamedTuple):
    """Discarding ``tile`` leaves ``shanten``; ``ukeire`` tiles (unseen copies) would improve it."""

    tile: str
    shanten: int
    ukeire: int


class FanResult(NamedTuple):
    """The fan of a win (R5): ``fan`` capped at ``max_fan``, ``raw_fan`` uncapped, ``points`` =
    ``base × 2^(fan − 1)``, ``items`` = fan per item id that applies (in bit order)."""

    fan: int
    raw_fan: int
    points: int
    items: dict[str, int]


# --------------------------------------------------------------------------- argument handling

_new = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot paths)
# The default ``melds``: the fast paths test identity with it (``not melds`` would ask a numpy
# array for its truth value); any other empty melds value takes the checked path.
_NO_MELDS: tuple[()] = ()


def _melds(melds: MeldsLike) -> tuple[tuple[Meld, ...], bytes]:
    ms = parse_melds(melds)  # TileTypeError for melds of the wrong type
    if not ms:
        return (), b""
    return ms, bytes(m.code for m in ms)


def _prepare(hand: HandLike, melds: MeldsLike, sizes: Sequence[int], what: str) -> tuple[bytes, bytes]:
    """Counts and meld codes, with the size and fifth-copy checks done here so that the error
    names the hand as the user wrote it (R0, R1.1)."""
    counts = to_counts(hand, name="hand")
    ms, codes = _melds(melds)
    check_size(counts, ms, sizes, what)
    total_counts(counts, ms)
    return counts, codes


def _call(fn, *args):  # type: ignore[no-untyped-def]
    try:
        return fn(*args)
    except ValueError as exc:  # the core names the input; keep one exception family
        raise TileError(str(exc)) from None


# --------------------------------------------------------------------------- public API


def is_win(hand: HandLike, melds: MeldsLike = (), *, void: VoidLike = None) -> bool:
    """Whether 14 tiles (concealed + 3 per meld) form a win: four sets and a pair, or seven
    pairs (concealed, a quad = two pairs), with at most two suits (R4.1, R4.2), none of ``void``.

    >>> is_win("11223344556677p"), is_win("11112233445566p"), is_win("11112233445566p", void="p")
    (True, True, False)
    >>> is_win("11m", melds="222p,333p,444p,(5555p)")
    True
    """
    if type(hand) is bytes and melds is _NO_MELDS and void is None:  # fast path: 27 counts, no melds
        try:
            return _core.is_win(hand)
        except ValueError:
            pass  # redo with the checks below, whose message names the hand as given
    counts, codes = _prepare(hand, melds, (14,), "a win check")
    return _call(_core.is_win, counts, codes, parse_void(void))


def shanten(hand: HandLike, melds: MeldsLike = (), *, void: VoidLike = None) -> int:
    """Sichuan shanten of 13 or 14 tiles: −1 = complete, 0 = ready (R4, R7.3).

    The minimum over the suits the hand may be void in (only ``void`` if given) of the
    standard and seven-pairs forms; every tile of that suit counts against the hand.
    :data:`UNREACHABLE` (127) when melds make a win impossible (three suits, or the void suit).

    >>> shanten("123m456p789s1122m")  # three suits: one of them must go entirely
    3
    >>> shanten("55m23p", melds="111m,222p,333s") == UNREACHABLE
    True
    """
    if type(hand) is bytes and melds is _NO_MELDS and void is None:  # fast path: 27 counts, no melds
        try:
            return _core.shanten(hand)
        except ValueError:
            pass  # redo with the checks below, whose message names the hand as given
    counts, codes = _prepare(hand, melds, (13, 14), "shanten")
    return _call(_core.shanten, counts, codes, parse_void(void))


def shanten_parts(hand: HandLike, melds: MeldsLike = (), *, void: VoidLike = None) -> ShantenParts:
    """:func:`shanten` with the standard and seven-pairs forms apart.

    >>> shanten_parts("113355779m1144p")
    ShantenParts(total=0, standard=3, seven_pairs=0)
    >>> shanten_parts("11m", melds="222p,333p,444p,(5555p)").seven_pairs is None
    True
    """
    counts, codes = _prepare(hand, melds, (13, 14), "shanten")
    total, standard, pairs = _call(_core.shanten_parts, counts, codes, parse_void(void))
    return ShantenParts(total, standard, pairs)


def wait_mask(hand: HandLike, melds: MeldsLike = (), *, void: VoidLike = None) -> int:
    """Waits of a 13-tile hand as a bit mask (bit k = kind k completes it, R7.3).

    >>> bin(wait_mask("1112345678999m"))
    '0b111111111'
    """
    if type(hand) is bytes and melds is _NO_MELDS and void is None:  # fast path: 27 counts, no melds
        try:
            return _core.wait_mask(hand)
        except ValueError:
            pass  # redo with the checks below, whose message names the hand as given
    counts, codes = _prepare(hand, melds, (13,), "a wait check")
    return _call(_core.wait_mask, counts, codes, parse_void(void))


def waits(hand: HandLike, melds: MeldsLike = (), *, rules: RulesLike = "leshan", void: VoidLike = None) -> list[Wait]:
    """Tiles completing a 13-tile hand, in tile order, each with its ready-check value (R7.3):
    shape items only, as a win on a discard, capped. A kind of which the player holds all four
    (hand + melds) is not a wait.

    >>> waits("1111m23m456p789p9p", void="s")  # each wait + 根 (all four 1m)
    [Wait(tile='3p', kind=11, fan=2, points=2), Wait(tile='6p', kind=14, fan=2, points=2), Wait(tile='9p', ...)]
    >>> waits("1111m456p789p999p")  # a fifth 1m is no wait
    []
    """
    r = as_rules(rules)
    rows = None
    if type(hand) is bytes and melds is _NO_MELDS and void is None:  # fast path: 27 counts, no melds
        try:  # noqa: SIM105 - contextlib.suppress costs a context manager on the fast path
            rows = _core.waits(hand, b"", r.core)
        except ValueError:
            pass  # redo with the checks below, whose message names the hand as given
    if rows is None:
        counts, codes = _prepare(hand, melds, (13,), "waits")
        rows = _call(_core.waits, counts, codes, r.core, parse_void(void))
    return [_new(Wait, (TILE_STR[k], k, f, p)) for k, f, p in rows]  # the core orders them by kind


def fan(
    hand: HandLike,
    melds: MeldsLike = (),
    *,
    win_tile: str | int | None = None,
    context: WinContext | int | None = None,
    rules: RulesLike = "leshan",
    void: VoidLike = None,
) -> FanResult:
    """The fan and points of a win (R5). ``hand`` holds the 14 tiles (with melds ×3) including
    the winning tile.

    ``win_tile`` defaults to the last tile written when ``hand`` is a string or a sequence of
    kinds (``"123m456p...5p"``: 5p); it is required when ``hand`` is given as 27 counts, and
    must be one of the concealed tiles. Raises :class:`NotAWinError` if the hand is not a win.

    >>> r = fan("111m222m333m444m55m", win_tile="5m", context=WinContext(self_draw=True))
    >>> r.fan, r.raw_fan, r.points, r.items
    (4, 4, 8, {'all_triplets': 1, 'one_suit': 2})
    >>> fan("222m555m888m222p55p", rules="chengdu").items  # 将对 is on in chengdu only
    {'all_triplets': 1, 'pairs_258': 2}
    >>> fan("11223344556677m", rules={"max_fan": 4}).fan  # 清七对 5 fan, capped
    4
    """
    r = as_rules(rules)
    if context is None:
        ctx = 0
    elif type(context) is int and 0 <= context < 128:
        ctx = context
    elif isinstance(context, WinContext):
        ctx = context.flags
    else:
        ctx = WinContext.from_flags(context).flags  # raises ValueError naming a bad value
    if type(hand) is bytes and melds is _NO_MELDS and void is None and type(win_tile) is int:
        try:  # fast path: 27 counts, no melds, a kind
            res = _core.fan(hand, b"", win_tile, ctx, r.core)
        except ValueError:
            pass  # redo with the checks below, whose message names the hand as given
        else:
            if res is not None:
                raw, capped, points, bits = res
                items = {}
                for b, f in bits:  # a loop, not a comprehension: no frame per call (hot path)
                    items[FAN_ITEMS[b]] = f
                return _new(FanResult, (capped, raw, points, items))
    counts, codes = _prepare(hand, melds, (14,), "a fan count")
    win_kind = _win_kind(hand, counts, win_tile)
    res = _call(_core.fan, counts, codes, win_kind, ctx, r.core, parse_void(void))
    if res is None:
        ms = parse_melds(melds)
        extra = f" with melds {format_melds(ms)}" if ms else ""
        raise NotAWinError(f'"{format_tiles(counts)}"{extra} is not a win (R4.1-R4.2)')
    raw, capped, points, items = res
    return FanResult(capped, raw, points, {FAN_ITEMS[b]: f for b, f in sorted(items) if f})


def _win_kind(hand: HandLike, counts: bytes, win_tile: str | int | None) -> int:
    if win_tile is None:
        if isinstance(hand, str):
            kinds = parse_tiles(hand)
            if not kinds:
                raise TileError("win_tile is required: the hand has no concealed tile")
            k = kinds[-1]
        elif (
            isinstance(hand, (bytes, bytearray, memoryview))
            or getattr(hand, "shape", None) is not None
            or len(hand) == NUM_KINDS  # type: ignore[arg-type]
        ):
            raise TileError("win_tile is required when the hand is given as 27 counts")
        else:
            seq = list(hand)
            k = tile_kind(seq[-1])
    else:
        try:
            k = tile_kind(win_tile)
        except TileError as exc:  # name the argument; keep the class (TileTypeError for a float)
            raise type(exc)(f"win_tile: {exc}") from None
    if counts[k] == 0:
        raise TileError(f'win_tile {tile_str(k)} is not among the concealed tiles "{format_tiles(counts)}"')
    return k


def best_discards(
    hand: HandLike,
    melds: MeldsLike = (),
    *,
    visible: HandLike | None = None,
    void: VoidLike = None,
) -> list[Discard]:
    """For each distinct concealed kind of a 14-tile hand: the shanten after discarding it and
    its ukeire (the unseen copies of tiles that would lower that shanten). ``visible`` = tiles
    seen outside the concealed hand (discards, every meld), as a string or counts.

    Sorted best first: lowest shanten, then most ukeire, then tile order.

    >>> best_discards("1112345678999m5p")[0]
    Discard(tile='5p', shanten=0, ukeire=23)
    """
    counts, codes = _prepare(hand, melds, (14,), "discard advice")
    vis = bytes(NUM_KINDS) if visible is None else to_counts(visible, name="visible")
    rows = _call(_core.best_discards, counts, codes, vis, parse_void(void))
    rows = sorted(rows, key=lambda row: (row[1], -row[2], row[0]))
    return [Discard(tile_str(k), s, u) for k, s, u in rows]
