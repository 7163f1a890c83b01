"""Tile notation (docs/rules.md R0) and the tile/meld encodings of ``docs/internals.md``.

A tile kind is an integer 0–26: ``1m``–``9m`` = 0–8, ``1p``–``9p`` = 9–17, ``1s``–``9s`` = 18–26.
A run of digits shares the suit letter that follows it (R0)::

    >>> parse_tiles("123m55p")
    [0, 1, 2, 13, 13]
    >>> format_tiles(parse_tiles("5P 1m 23M"))
    '123m5p'
    >>> chinese_name(tile_kind("5p"))
    '五筒'
    >>> str(parse_meld("(7777s)")), parse_meld("666p").code
    ('(7777s)', 14)

Bad input raises :class:`TileError` (a ``ValueError``) naming the input::

    >>> parse_tiles("1m2x")
    Traceback (most recent call last):
    ...
    xuezhan.tiles.TileError: "1m2x" is not a tile: 'x' is not a suit (m, p or s)
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Union

__all__ = [
    "TileError",
    "TileTypeError",
    "SUITS",
    "NUM_KINDS",
    "TILE_STR",
    "TILE_NAMES_CN",
    "MeldType",
    "Meld",
    "meld_code",
    "meld_kind",
    "meld_suits",
    "meld_size",
    "meld_type",
    "is_pung_code",
    "HandLike",
    "MeldsLike",
    "tile_kind",
    "tile_str",
    "chinese_name",
    "parse_tiles",
    "format_tiles",
    "to_counts",
    "counts_to_kinds",
    "parse_meld",
    "parse_melds",
    "melds_to_bytes",
    "format_melds",
    "parse_void",
    "check_counts",
]

#: Suit letters in kind order (R0): m = 万 (characters), p = 筒 (dots), s = 条 (bamboo).
SUITS = "mps"
#: Number of tile kinds (R1.1: three suits 1–9, no honours).
NUM_KINDS = 27

_SUIT_CN = ("万", "筒", "条")
_RANK_CN = ("一", "二", "三", "四", "五", "六", "七", "八", "九")

#: The notation of each kind (R0), by kind: ``TILE_STR[13] == "5p"``. The one tile-name table:
#: every module that prints tiles reads it.
TILE_STR: tuple[str, ...] = tuple(f"{r}{s}" for s in SUITS for r in range(1, 10))
_KIND_OF: dict[str, int] = {name: kind for kind, name in enumerate(TILE_STR)}  # "5p" -> 13
#: The Chinese display name of each kind (R0), by kind: ``TILE_NAMES_CN[13] == "五筒"``.
TILE_NAMES_CN: tuple[str, ...] = tuple(r + s for s in _SUIT_CN for r in _RANK_CN)


class TileError(ValueError):
    """A tile, hand or meld string (or count array) that is not valid; the message names it."""


class TileTypeError(TileError, TypeError):
    """A hand, tile, meld or void of the wrong type (a float or bool count, a float array, a
    number where melds are meant...): a :class:`TileError` that is also a ``TypeError``."""


# --------------------------------------------------------------------------- single tiles


def tile_kind(tile: str | int) -> int:
    """Kind index 0–26 of one tile written like ``"5m"`` (R0); an int 0–26 is returned as is.

    >>> tile_kind("1m"), tile_kind("5p"), tile_kind("9S")
    (0, 13, 26)
    """
    if type(tile) is str:  # the engine's own notation, read on every event: one lookup
        kind = _KIND_OF.get(tile)
        if kind is not None:
            return kind
    elif isinstance(tile, bool):
        raise TileTypeError(f"{tile!r} is not a tile: expected a string like '5m' or a kind 0-26")
    if isinstance(tile, int):
        if 0 <= tile < NUM_KINDS:
            return tile
        raise TileError(f"{tile} is not a tile kind: kinds are 0-26")
    if not isinstance(tile, str):
        if _is_int(tile):  # numpy integers and other index-likes
            return _check_kind(tile)
        raise TileTypeError(f"{tile!r} is not a tile: expected a string like '5m' or a kind 0-26")
    kinds = parse_tiles(tile)
    if len(kinds) != 1:
        raise TileError(f'"{tile}" is not a single tile: it has {len(kinds)} tiles')
    return kinds[0]


def tile_str(kind: int) -> str:
    """The notation of one kind (R0).

    >>> tile_str(0), tile_str(13), tile_str(26)
    ('1m', '5p', '9s')
    """
    return TILE_STR[_check_kind(kind)]


def chinese_name(kind: int | str) -> str:
    """The Chinese display name of a tile (R0): 一万…九万, 一筒…九筒, 一条…九条.

    >>> chinese_name(0), chinese_name("9s")
    ('一万', '九条')
    """
    return TILE_NAMES_CN[tile_kind(kind)]


def _check_kind(kind: object) -> int:
    if isinstance(kind, bool) or not isinstance(kind, int) or not 0 <= kind < NUM_KINDS:
        # numpy integers are not ``int``: accept anything index-like.
        try:
            k = int(kind.__index__())  # type: ignore[attr-defined]
        except (AttributeError, TypeError):
            raise TileTypeError(f"{kind!r} is not a tile kind: kinds are integers 0-26") from None
        if isinstance(kind, bool):
            raise TileTypeError(f"{kind!r} is not a tile kind: kinds are integers 0-26")
        if not 0 <= k < NUM_KINDS:
            raise TileError(f"{kind!r} is not a tile kind: kinds are 0-26")
        return k
    return kind


# --------------------------------------------------------------------------- hands

_TOKEN = re.compile(r"\d+[a-z]?|[^\d]")


def parse_tiles(s: str) -> list[int]:
    """Parse a tile string into kinds, in the order written (R0).

    Upper case and spaces are accepted; a run of digits shares the suit letter that follows.
    No kind may appear more than four times (R1.1).

    >>> parse_tiles("11 2M")
    [0, 0, 1]
    >>> parse_tiles("123m45")
    Traceback (most recent call last):
    ...
    xuezhan.tiles.TileError: "123m45" is not a tile: the digits '45' at the end have no suit letter
    """
    if not isinstance(s, str):
        raise TileError(f"{s!r} is not a tile string")
    text = "".join(s.split()).lower()
    kinds: list[int] = []
    digits = ""
    for ch in text:
        if ch.isdigit():
            if not ch.isascii():
                raise TileError(f'"{s}" is not a tile: {ch!r} is not a digit 1-9')
            if ch == "0":
                raise TileError(f'"{s}" is not a tile: 0 is not a rank (ranks are 1-9)')
            digits += ch
        elif ch in SUITS:
            if not digits:
                raise TileError(f'"{s}" is not a tile: the suit letter {ch!r} has no digits before it')
            suit = SUITS.index(ch)
            kinds.extend(suit * 9 + int(d) - 1 for d in digits)
            digits = ""
        else:
            raise TileError(f'"{s}" is not a tile: {ch!r} is not a suit (m, p or s)')
    if digits:
        raise TileError(f'"{s}" is not a tile: the digits {digits!r} at the end have no suit letter')
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
        if counts[k] > 4:
            raise TileError(f'"{s}" has {_nth(counts[k])} {tile_str(k)}: there are only four of each tile')
    return kinds


def _nth(n: int) -> str:
    return {5: "five", 6: "six", 7: "seven", 8: "eight"}.get(n, str(n))


def format_tiles(tiles: HandLike) -> str:
    """Canonical notation (sorted, ``m`` then ``p`` then ``s``) of kinds, counts or a string.

    >>> format_tiles([13, 0, 1, 26])
    '12m5p9s'
    >>> format_tiles(bytes([1] + [0] * 25 + [2]))
    '1m99s'
    >>> format_tiles([])
    ''
    """
    counts = to_counts(tiles)
    out = []
    for suit in range(3):
        ranks = "".join(str(r + 1) * counts[suit * 9 + r] for r in range(9))
        if ranks:
            out.append(ranks + SUITS[suit])
    return "".join(out)


#: Anything that describes a concealed hand: a tile string, a sequence of kinds, or 27 counts
#: (``bytes``, a numpy ``uint8`` row, or any sequence of length 27).
HandLike = Union[str, bytes, bytearray, memoryview, Sequence[int], "Iterable[int]"]


def to_counts(hand: HandLike, *, name: str = "hand") -> bytes:
    """The 27-count form (``bytes``) of a hand given as a string, kinds, or counts.

    A sequence of length 27 is read as counts (no hand holds 27 tiles); ``bytes`` and numpy
    arrays are always counts. Counts and kinds must be integers: a float, complex or bool
    (or an array of them) raises :class:`TileTypeError` naming the argument ``name``.

    >>> to_counts("119m")[:9]
    b'\\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01'
    >>> to_counts([0, 0, 8]) == to_counts("119m")
    True
    """
    if isinstance(hand, str):
        counts = bytearray(NUM_KINDS)
        for k in parse_tiles(hand):
            counts[k] += 1
        return bytes(counts)
    if isinstance(hand, (bytes, bytearray, memoryview)):
        if isinstance(hand, memoryview) and hand.format not in ("B", "b", "c"):
            raise TileTypeError(f"{name}: counts must be bytes of integers, got a memoryview of format {hand.format!r}")
        b = bytes(hand)
        if len(b) != NUM_KINDS:
            raise TileError(f"counts must have 27 entries, got {len(b)}")
        check_counts(b)
        return b
    # numpy arrays (checked by dtype, once) and other sequences / iterables
    shape = getattr(hand, "shape", None)
    if shape is not None:
        dtype = getattr(hand, "dtype", None)
        kind = getattr(dtype, "kind", "O")
        if kind not in "iuO":  # b bool, f float, c complex, U/S strings, M/m times, V void
            raise TileTypeError(f"{name}: counts must be integers, got an array of dtype {dtype}")
        if tuple(shape) != (NUM_KINDS,):
            raise TileError(f"a count array must have shape (27,), got {tuple(shape)}")
        tolist = getattr(hand, "tolist", None)
        values: list[object] = list(tolist() if tolist is not None else hand)
        return _counts_from_list(values, as_counts=True, name=name)
    if isinstance(hand, (int, float, complex)) or not hasattr(hand, "__iter__"):
        raise TileTypeError(f"{name}: {hand!r} is not a hand: give a tile string, kinds or 27 counts")
    try:
        values = list(hand)
    except TypeError:
        raise TileTypeError(f"{name}: {hand!r} is not a hand: give a tile string, kinds or 27 counts") from None
    return _counts_from_list(values, as_counts=len(values) == NUM_KINDS, name=name)


def _counts_from_list(values: Sequence[object], as_counts: bool, name: str = "hand") -> bytes:
    if as_counts:
        for i, v in enumerate(values):
            if isinstance(v, bool) or not _is_int(v):
                raise TileTypeError(f"{name}: count {v!r} of {tile_str(i)} is not an integer")
            if not 0 <= int(v) <= 4:  # type: ignore[call-overload]
                raise TileError(f"count {v!r} of {tile_str(i)} is not 0-4")
        return bytes(int(v) for v in values)  # type: ignore[call-overload]
    counts = bytearray(NUM_KINDS)
    for v in values:
        if isinstance(v, str):
            k = tile_kind(v)
        else:
            try:
                k = _check_kind(v)
            except TileTypeError as exc:
                raise TileTypeError(f"{name}: {exc}") from None
        counts[k] += 1
        if counts[k] > 4:
            raise TileError(f"{values!r} has {_nth(counts[k])} {tile_str(k)}: there are only four of each tile")
    return bytes(counts)


def _is_int(v: object) -> bool:
    try:
        return int(v.__index__()) == v  # type: ignore[attr-defined]
    except (AttributeError, TypeError):
        return False


def check_counts(counts: bytes) -> None:
    """Raise :class:`TileError` if some count is over 4."""
    if not counts or max(counts) <= 4:
        return
    for i, c in enumerate(counts):
        if c > 4:
            raise TileError(f"count {c} of {tile_str(i)} is not 0-4")


def counts_to_kinds(counts: HandLike) -> list[int]:
    """Kinds in canonical order from 27 counts (or any hand form).

    >>> counts_to_kinds("2m11m")
    [0, 0, 1]
    """
    c = to_counts(counts)
    return [k for k in range(NUM_KINDS) for _ in range(c[k])]


# --------------------------------------------------------------------------- melds


class MeldType(enum.IntEnum):
    """Meld types of ``docs/internals.md``; a meld's code is ``type * 27 + kind``."""

    PUNG = 0  #: 碰, written ``666p``
    KONG = 1  #: 明杠 (on a discard) or 加杠 (added kong), written ``7777s``
    CONCEALED_KONG = 2  #: 暗杠, written ``(7777s)`` (shown face up, R2.3)


def meld_code(t: MeldType, kind: int) -> int:
    """The one-byte code of a meld of type ``t`` and ``kind`` (docs/internals.md), without the
    checks of :class:`Meld` (the engine's melds are built from its own state).

    >>> meld_code(MeldType.CONCEALED_KONG, 5), meld_kind(59), meld_size(59), is_pung_code(5)
    (59, 5, 4, True)
    """
    return t * NUM_KINDS + kind


def meld_kind(code: int) -> int:
    """The kind of a meld code."""
    return code % NUM_KINDS


def meld_suits(codes: Iterable[int]) -> set[int]:
    """The suits (0 = m, 1 = p, 2 = s) of meld codes: a seat's winning hand and its void are
    tied to them (R4.2: a winning hand holds at most two suits, melds included; R11.2: no
    meld is of the declared void).

    >>> sorted(meld_suits([meld_code(MeldType.PUNG, 4), meld_code(MeldType.KONG, 22)]))
    [0, 2]
    """
    return {meld_kind(code) // 9 for code in codes}


def meld_type(code: int) -> MeldType:
    """The type of a meld code."""
    return _MELD_TYPES[code // NUM_KINDS]


_MELD_TYPES = tuple(MeldType)


def meld_size(code: int) -> int:
    """Tiles in the meld of a code: 3 for a pung, 4 for a kong (R2.3: a concealed kong shows 4)."""
    return 3 if code < NUM_KINDS else 4


def is_pung_code(code: int) -> bool:
    """The code is a pung's (whose code is its kind): one an added kong can extend (R2.1)."""
    return code < NUM_KINDS


@dataclass(frozen=True, order=True)
class Meld:
    """An exposed pung, an exposed kong or a concealed kong of one kind.

    >>> Meld(MeldType.KONG, tile_kind("7s"))
    Meld('7777s')
    >>> Meld.from_code(14).code
    14
    """

    type: MeldType
    kind: int

    def __post_init__(self) -> None:
        try:
            t = MeldType(self.type)
        except ValueError:
            raise TileError(f"{self.type!r} is not a meld type (0 pung, 1 kong, 2 concealed kong)") from None
        object.__setattr__(self, "type", t)
        object.__setattr__(self, "kind", _check_kind(self.kind))

    @property
    def code(self) -> int:
        """The one-byte code ``type * 27 + kind`` that crosses into the Rust core."""
        return int(self.type) * NUM_KINDS + self.kind

    @classmethod
    def from_code(cls, code: int) -> Meld:
        if not 0 <= code < 3 * NUM_KINDS:
            raise TileError(f"{code!r} is not a meld code (0-80)")
        return cls(MeldType(code // NUM_KINDS), code % NUM_KINDS)

    @property
    def size(self) -> int:
        """Tiles in the meld: 3 for a pung, 4 for a kong."""
        return 3 if self.type == MeldType.PUNG else 4

    @property
    def is_kong(self) -> bool:
        return self.type != MeldType.PUNG

    def __str__(self) -> str:
        t = tile_str(self.kind)
        body = t[0] * self.size + t[1]
        return f"({body})" if self.type == MeldType.CONCEALED_KONG else body

    def __repr__(self) -> str:
        return f"Meld({str(self)!r})"


def parse_meld(s: str | Meld) -> Meld:
    """Parse one meld: ``"666p"`` pung, ``"7777s"`` exposed kong, ``"(7777s)"`` concealed kong.

    >>> parse_meld("666p"), parse_meld("7777S"), parse_meld(" (7777s) ")
    (Meld('666p'), Meld('7777s'), Meld('(7777s)'))
    >>> parse_meld("667p")
    Traceback (most recent call last):
    ...
    xuezhan.tiles.TileError: "667p" is not a meld: a meld is three or four of the same tile, like 666p, 7777s or (7777s)
    """
    if isinstance(s, Meld):
        return s
    if not isinstance(s, str):
        raise TileTypeError(f"{s!r} is not a meld: write it like 666p, 7777s or (7777s)")
    text = "".join(s.split())
    concealed = text.startswith("(") and text.endswith(")")
    inner = text[1:-1] if concealed else text
    hint = "a meld is three or four of the same tile, like 666p, 7777s or (7777s)"
    if "(" in inner or ")" in inner:
        raise TileError(f'"{s}" is not a meld: {hint}')
    try:
        kinds = parse_tiles(inner)
    except TileError as exc:
        raise TileError(f'"{s}" is not a meld: {exc}') from None
    if len(kinds) not in (3, 4) or len(set(kinds)) != 1:
        raise TileError(f'"{s}" is not a meld: {hint}')
    if concealed and len(kinds) != 4:
        raise TileError(f'"{s}" is not a meld: only a kong (four tiles) can be concealed, like (7777s)')
    if concealed:
        t = MeldType.CONCEALED_KONG
    elif len(kinds) == 4:
        t = MeldType.KONG
    else:
        t = MeldType.PUNG
    return Meld(t, kinds[0])


#: Melds given as a comma/space separated string, a sequence of strings or :class:`Meld`, or
#: ``bytes`` of meld codes.
MeldsLike = str | bytes | Sequence[str | Meld | int] | None


def parse_melds(melds: MeldsLike) -> tuple[Meld, ...]:
    """Parse melds from ``"666p,(7777s)"`` (commas or spaces), a sequence, or meld codes.

    >>> parse_melds("666p, (7777s)")
    (Meld('666p'), Meld('(7777s)'))
    >>> parse_melds(["666p", Meld(MeldType.PUNG, 0)])
    (Meld('666p'), Meld('111m'))

    Anything else (a number, a mapping, a float meld code) raises :class:`TileTypeError`.
    """
    if melds is None:
        return ()
    if isinstance(melds, Meld):
        return (melds,)
    if isinstance(melds, (Mapping, int, float, complex)) or not hasattr(melds, "__iter__"):
        raise TileTypeError(f'melds: {melds!r} is not melds: give a string like "666p,(7777s)" or a list of melds')
    if isinstance(melds, str):
        parts = [p for p in re.split(r"[,\s]+", melds.strip()) if p]
        # "(7777s)" never contains separators, so splitting is safe.
        out = tuple(parse_meld(p) for p in parts)
    elif isinstance(melds, (bytes, bytearray, memoryview)):
        out = tuple(Meld.from_code(c) for c in bytes(melds))
    else:
        items = []
        for m in melds:
            if isinstance(m, Meld):
                items.append(m)
            elif isinstance(m, str):
                items.append(parse_meld(m))
            elif _is_int(m) and not isinstance(m, bool):
                items.append(Meld.from_code(int(m)))
            else:
                raise TileTypeError(f"melds: {m!r} is not a meld: write it like 666p, 7777s or (7777s)")
        out = tuple(items)
    if len(out) > 4:
        raise TileError(f"{format_melds(out)!r} has {len(out)} melds: a hand has at most 4")
    return out


def melds_to_bytes(melds: MeldsLike) -> bytes:
    """The meld codes (``bytes``) handed to the Rust core."""
    return bytes(m.code for m in parse_melds(melds))


def format_melds(melds: Iterable[Meld]) -> str:
    """``"666p,(7777s)"`` for a sequence of melds (the ``--melds`` notation of the CLI)."""
    return ",".join(str(m) for m in melds)


def parse_void(void: str | int | None) -> int:
    """A void suit (R11.2) as 0–2, or -1 for none; accepts ``"m"``/``"p"``/``"s"``, 0–2, None or -1.

    >>> parse_void("p"), parse_void(None), parse_void(2)
    (1, -1, 2)
    """
    if void is None:
        return -1
    if isinstance(void, str):
        v = void.strip().lower()
        if v in ("", "none", "-"):
            return -1
        if len(v) == 1 and v in SUITS:
            return SUITS.index(v)
        raise TileError(f"{void!r} is not a suit: the void suit is m, p or s")
    if isinstance(void, bool) or not _is_int(void):
        raise TileTypeError(f"void: {void!r} is not a suit: the void suit is m, p, s or 0-2")
    if not -1 <= int(void) <= 2:
        raise TileError(f"{void!r} is not a suit: the void suit is m, p, s or 0-2")
    return int(void)


def total_counts(counts: bytes, melds: Sequence[Meld]) -> bytes:
    """Counts of concealed tiles plus meld tiles; raises if some kind has a fifth copy (R1.1)."""
    total = bytearray(counts)
    for m in melds:
        total[m.kind] += m.size
    for k, c in enumerate(total):
        if c > 4:
            hand = format_tiles(counts)
            extra = f" with melds {format_melds(melds)}" if melds else ""
            raise TileError(f'"{hand}"{extra} has {_nth(c)} {tile_str(k)}: there are only four of each tile')
    return bytes(total)


def hand_size(counts: bytes, melds: Sequence[Meld]) -> int:
    """Concealed tiles + 3 per meld (a kong counts as a set of three for hand size)."""
    return sum(counts) + 3 * len(melds)


def check_size(counts: bytes, melds: Sequence[Meld], expected: Sequence[int], what: str) -> int:
    """Raise :class:`TileError` unless ``concealed + 3 × melds`` is one of ``expected``.

    The message gives the count expected and got.
    """
    n = hand_size(counts, melds)
    if n not in expected:
        exp = " or ".join(str(e) for e in expected)
        hand = format_tiles(counts) or "(no tiles)"
        extra = f" + melds {format_melds(melds)}" if melds else ""
        raise TileError(f'"{hand}"{extra} has {n} tiles (concealed + 3 per meld), expected {exp} for {what}')
    return n
