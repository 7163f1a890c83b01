"""Events of a hand: typed records, each with one JSON form (R9.3, R12.4).

Every state change is one event, appended to ``Round.ledger.events`` in order. Decision events
(:data:`DECISION_TYPES`) record what a seat chose, so a log can be replayed without any
strategy (R12.4); the others are consequences (draws, melds, wins, payments, the end).

Each event class has a ``type`` (its name in the JSON form) and :meth:`Event.to_json`, the dict
written to logs and sent to bots: tiles are strings (``"5m"``), seats ints 0–3, a payment names
its rule id::

    >>> Pay("R6.1", 0, 1, 2).to_json()
    {'type': 'pay', 'rule': 'R6.1', 'from': 0, 'to': 1, 'amount': 2}

:func:`from_json` is the way back: it checks a JSON event field by field (exact types: a seat is
an ``int``, not ``true`` nor ``1.0``; tiles are canonical ``"5m"`` strings) and builds the
event, so ``from_json(e.to_json()) == e`` and everything that reads a log reads typed events::

    >>> from_json({"type": "pay", "rule": "R6.1", "from": 0, "to": 1, "amount": 2})
    Pay(rule='R6.1', frm=0, to=1, amount=2)
    >>> from_json({"type": "draw", "seat": True, "tile": "5m", "replacement": False})
    Traceback (most recent call last):
    ...
    xuezhan.engine.events.EventError: draw.seat: expected a seat 0-3, got true

Some events hold private information: a drawn tile is known only to the drawer, an exchange
choice and the tiles received only to that seat, a void choice only to that seat until all four
are revealed together. A ``pass`` is seen by the passer alone: a seat is asked about a claim only
when it could claim (it holds two of the tile or waits on it), so who was asked and passed is
private; the others see a claim only when one is made. :func:`public_view` returns what another
seat may see, as JSON; it is the one filter every outward path uses.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xuezhan.tiles import TILE_STR

__all__ = [
    "CLAIM_TYPES",
    "DECISION_TYPES",
    "LOG_FORMAT",
    "Discard",
    "Draw",
    "End",
    "Escape",
    "Event",
    "Exchange",
    "Exchanged",
    "Hu",
    "LastTiles",
    "Meld",
    "Pay",
    "Pig",
    "Ready",
    "Received",
    "Start",
    "Void",
    "Voids",
    "Win",
    "EventError",
    "dumps",
    "from_json",
    "public_view",
]

#: The format of a hand log written from these events (its header's ``format``, R12.4): the
#: writer (:mod:`xuezhan.engine.log`) and the reader (:mod:`xuezhan.documents`) share it here.
LOG_FORMAT = 1

#: Event types that are decisions (replayed as actions, R12.4). A ``hu`` with ``forced`` is not
#: a decision (R4.4 compulsory win) and is not replayed.
DECISION_TYPES = frozenset({"exchange", "void", "discard", "angang", "jiagang", "hu", "peng", "gang", "pass", "escape"})
#: Claim decisions (R3).
CLAIM_TYPES = frozenset({"hu", "peng", "gang", "pass"})

JSON = dict[str, Any]


class Event:
    """One event. ``type`` is its JSON name; :meth:`to_json` its JSON form."""

    __slots__ = ()
    type: ClassVar[str]

    def to_json(self) -> JSON:
        raise NotImplementedError


def _noted(d: JSON, note: str | None) -> JSON:
    if note is not None:
        d["note"] = note  # why a decision was taken for the seat (R10 timeout, crash)
    return d


@dataclass(slots=True)
class Start(Event):
    type: ClassVar[str] = "start"
    dealer: int
    wall_count: int

    def to_json(self) -> JSON:
        return {"type": "start", "dealer": self.dealer, "wall_count": self.wall_count}


@dataclass(slots=True)
class Exchange(Event):
    """R11.1: the three tiles a seat passes (private to it)."""

    type: ClassVar[str] = "exchange"
    seat: int
    tiles: str
    default: bool
    note: str | None = None

    def to_json(self) -> JSON:
        return _noted({"type": "exchange", "seat": self.seat, "tiles": self.tiles, "default": self.default}, self.note)


@dataclass(slots=True)
class Exchanged(Event):
    type: ClassVar[str] = "exchanged"
    direction: str

    def to_json(self) -> JSON:
        return {"type": "exchanged", "direction": self.direction}


@dataclass(slots=True)
class Received(Event):
    """R11.1: the tiles a seat received (private to it)."""

    type: ClassVar[str] = "received"
    seat: int
    tiles: str

    def to_json(self) -> JSON:
        return {"type": "received", "seat": self.seat, "tiles": self.tiles}


@dataclass(slots=True)
class Void(Event):
    """R11.2: a seat's void suit (private until all four are revealed by :class:`Voids`)."""

    type: ClassVar[str] = "void"
    seat: int
    suit: str
    default: bool
    note: str | None = None

    def to_json(self) -> JSON:
        return _noted({"type": "void", "seat": self.seat, "suit": self.suit, "default": self.default}, self.note)


@dataclass(slots=True)
class Voids(Event):
    type: ClassVar[str] = "voids"
    voids: list[str]

    def to_json(self) -> JSON:
        return {"type": "voids", "voids": list(self.voids)}


@dataclass(slots=True)
class LastTiles(Event):
    """R4.4: the last-tiles phase begins."""

    type: ClassVar[str] = "last_tiles"
    wall_count: int

    def to_json(self) -> JSON:
        return {"type": "last_tiles", "wall_count": self.wall_count}


@dataclass(slots=True, frozen=True)
class Draw(Event):
    """R1.3: a draw (the tile is private to the drawer). Immutable (it has no ``note``): the
    engine hands out one shared instance per seat, tile and kind of draw (the commonest event)."""

    type: ClassVar[str] = "draw"
    seat: int
    tile: str
    replacement: bool

    def to_json(self) -> JSON:
        return {"type": "draw", "seat": self.seat, "tile": self.tile, "replacement": self.replacement}


@dataclass(slots=True, frozen=True)
class TileDecision(Event):
    """A turn decision on one tile: :class:`Discard`, :class:`Angang`, :class:`Jiagang` (R2.1).
    Immutable: the engine hands out one shared discard event per seat, tile and ``default``
    (the commonest decision); a ``note`` is given by building a noted copy."""

    seat: int
    tile: str
    default: bool
    note: str | None = None

    def to_json(self) -> JSON:
        return _noted({"type": self.type, "seat": self.seat, "tile": self.tile, "default": self.default}, self.note)


@dataclass(slots=True, frozen=True)
class Discard(TileDecision):
    type: ClassVar[str] = "discard"


@dataclass(slots=True, frozen=True)
class Angang(TileDecision):
    """R2.1: a concealed kong."""

    type: ClassVar[str] = "angang"


@dataclass(slots=True, frozen=True)
class Jiagang(TileDecision):
    """R2.1: an added kong (it may be robbed first, R3.3)."""

    type: ClassVar[str] = "jiagang"


@dataclass(slots=True)
class Hu(Event):
    """A declared win (R2.1 self-draw, R3.1 claim), or a compulsory one (``forced``, R4.4)."""

    type: ClassVar[str] = "hu"
    seat: int
    default: bool = False
    forced: bool = False
    note: str | None = None

    def to_json(self) -> JSON:
        if self.forced:
            return {"type": "hu", "seat": self.seat, "forced": True}
        return _noted({"type": "hu", "seat": self.seat, "default": self.default}, self.note)


@dataclass(slots=True)
class SeatDecision(Event):
    """A decision without a tile: :class:`Peng`, :class:`Gang`, :class:`Pass` (R3.1), :class:`Escape` (R8)."""

    seat: int
    default: bool
    note: str | None = None

    def to_json(self) -> JSON:
        return _noted({"type": self.type, "seat": self.seat, "default": self.default}, self.note)


@dataclass(slots=True)
class Peng(SeatDecision):
    type: ClassVar[str] = "peng"


@dataclass(slots=True)
class Gang(SeatDecision):
    """R3.1: a kong claimed on a discard."""

    type: ClassVar[str] = "gang"


@dataclass(slots=True)
class Pass(SeatDecision):
    """R3.1: an asked seat passes (seen by that seat only, :func:`public_view`)."""

    type: ClassVar[str] = "pass"


@dataclass(slots=True)
class Escape(SeatDecision):
    """R8: a seat leaves the hand."""

    type: ClassVar[str] = "escape"


#: The event of each claim verb other than a win.
CLAIM_EVENT: dict[str, type[SeatDecision]] = {"peng": Peng, "gang": Gang, "pass": Pass}
#: The event of each turn kong verb.
KONG_EVENT: dict[str, type[TileDecision]] = {"angang": Angang, "jiagang": Jiagang}


@dataclass(slots=True)
class Meld(Event):
    """A meld that stands: ``peng``, ``gang`` (on a discard of ``frm``) or ``jiagang``."""

    type: ClassVar[str] = "meld"
    seat: int
    meld: str
    tile: str
    frm: int | None

    def to_json(self) -> JSON:
        return {"type": "meld", "seat": self.seat, "meld": self.meld, "tile": self.tile, "from": self.frm}


@dataclass(slots=True)
class Win(Event):
    """A win (R4) and its fan (R5): ``how`` is ``self_draw``, ``discard`` or ``rob`` (R3.3); ``frm``
    the discarder (None for a self-draw); ``group`` tells the wins on one discard apart (R9.2)."""

    type: ClassVar[str] = "win"
    seat: int
    frm: int | None
    tile: str
    fan: int
    raw_fan: int
    points: int
    items: dict[str, int] = field(default_factory=dict)
    how: str = "discard"
    forced: bool = False
    group: int = 0

    def to_json(self) -> JSON:
        return {
            "type": "win",
            "seat": self.seat,
            "from": self.frm,
            "tile": self.tile,
            "fan": self.fan,
            "raw_fan": self.raw_fan,
            "points": self.points,
            "items": dict(self.items),
            "how": self.how,
            "forced": self.forced,
            "group": self.group,
        }


@dataclass(slots=True)
class Pay(Event):
    """One payment naming its rule id; ``to`` is None for the R8 penalty (paid to nobody)."""

    type: ClassVar[str] = "pay"
    rule: str
    frm: int
    to: int | None
    amount: int

    def to_json(self) -> JSON:
        return {"type": "pay", "rule": self.rule, "from": self.frm, "to": self.to, "amount": self.amount}


@dataclass(slots=True)
class Pig(Event):
    """R7.1: a pig found by the ready check."""

    type: ClassVar[str] = "pig"
    seat: int

    def to_json(self) -> JSON:
        return {"type": "pig", "seat": self.seat}


@dataclass(slots=True)
class Ready(Event):
    """R7.3: a ready seat and its value."""

    type: ClassVar[str] = "ready"
    seat: int
    value: int

    def to_json(self) -> JSON:
        return {"type": "ready", "seat": self.seat, "value": self.value}


@dataclass(slots=True)
class End(Event):
    type: ClassVar[str] = "end"
    reason: str
    deltas: list[int]
    next_dealer: int

    def to_json(self) -> JSON:
        return {"type": "end", "reason": self.reason, "deltas": list(self.deltas), "next_dealer": self.next_dealer}


_PRIVATE_TILE = frozenset({"draw"})
_PRIVATE_ALL = frozenset({"exchange", "received", "void", "pass"})


def public_view(event: Event | JSON, seat: int) -> JSON | None:
    """The event as ``seat`` may see it, as JSON: hidden fields are ``None``; ``None`` if it sees
    nothing. Accepts an event or its JSON form (e.g. read back from a log).

    >>> public_view(Draw(1, "5m", False), 2)
    {'type': 'draw', 'seat': 1, 'tile': None, 'replacement': False}
    >>> public_view(Pass(1, False), 2) is None, public_view(Pass(1, False), 1)
    (True, {'type': 'pass', 'seat': 1, 'default': False})
    """
    e = event.to_json() if isinstance(event, Event) else event
    t = e["type"]
    if t in _PRIVATE_TILE:
        if e["seat"] == seat:
            return e
        e = dict(e)
        e["tile"] = None
        return e
    if t in _PRIVATE_ALL:
        if e["seat"] == seat:
            return e
        if t == "void" or t == "pass":
            # a void is revealed by the "voids" event once all four have chosen (R11.2); a pass
            # would tell that the passer was asked, i.e. could have claimed
            return None
        e = dict(e)
        e["tiles"] = None
        return e
    return e


def dumps(event: Event | JSON) -> str:
    """One log line: canonical JSON (sorted keys, no spaces), byte-identical for equal events."""
    if isinstance(event, Event):
        event = event.to_json()
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# ------------------------------------------------------------------------ from JSON


class EventError(ValueError):
    """A JSON event that is not one the engine writes: names the event type and the field."""


_TILES = frozenset(TILE_STR)
_SUIT_NAMES = frozenset("mps")
_DIRECTIONS = frozenset({"next", "prev", "across"})
_HOWS = frozenset({"self_draw", "discard", "rob"})
_MELDS = frozenset({"peng", "gang", "jiagang"})


def _show(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 60 else text[:59] + "…"


def _int(v: Any) -> bool:
    return type(v) is int


def _seat(v: Any) -> bool:
    return type(v) is int and 0 <= v < 4


def _three_tiles(v: Any) -> bool:
    return type(v) is str and len(v) == 6 and all(v[i : i + 2] in _TILES for i in (0, 2, 4))


# (check, what it expects) per kind of field
_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "seat": (_seat, "a seat 0-3"),
    "seat?": (lambda v: v is None or _seat(v), "a seat 0-3 or null"),
    "int": (_int, "an integer"),
    "bool": (lambda v: type(v) is bool, "true or false"),
    "str": (lambda v: type(v) is str, "a string"),
    "tile": (lambda v: type(v) is str and v in _TILES, 'a tile such as "5m"'),
    "tiles3": (_three_tiles, 'three tiles such as "3s5s7s"'),
    "suit": (lambda v: type(v) is str and v in _SUIT_NAMES, '"m", "p" or "s"'),
    "direction": (lambda v: type(v) is str and v in _DIRECTIONS, '"next", "prev" or "across"'),
    "how": (lambda v: type(v) is str and v in _HOWS, '"self_draw", "discard" or "rob"'),
    "meld": (lambda v: type(v) is str and v in _MELDS, '"peng", "gang" or "jiagang"'),
    "voids": (
        lambda v: type(v) is list and len(v) == 4 and all(type(x) is str and x in _SUIT_NAMES for x in v),
        "four suits",
    ),
    "deltas": (lambda v: type(v) is list and len(v) == 4 and all(_int(x) for x in v), "four integers"),
    "items": (
        lambda v: type(v) is dict and all(type(k) is str and _int(x) for k, x in v.items()),
        "an object of fan items (integers)",
    ),
}

_TILE_DECISION = {"seat": "seat", "tile": "tile", "default": "bool"}
_SEAT_DECISION = {"seat": "seat", "default": "bool"}

# type -> (class, {JSON key: kind of field}, the keys that may be absent)
_SPECS: dict[str, tuple[type[Event], dict[str, str], frozenset[str]]] = {
    "start": (Start, {"dealer": "seat", "wall_count": "int"}, frozenset()),
    "exchange": (Exchange, {"seat": "seat", "tiles": "tiles3", "default": "bool"}, frozenset()),
    "exchanged": (Exchanged, {"direction": "direction"}, frozenset()),
    "received": (Received, {"seat": "seat", "tiles": "tiles3"}, frozenset()),
    "void": (Void, {"seat": "seat", "suit": "suit", "default": "bool"}, frozenset()),
    "voids": (Voids, {"voids": "voids"}, frozenset()),
    "last_tiles": (LastTiles, {"wall_count": "int"}, frozenset()),
    "draw": (Draw, {"seat": "seat", "tile": "tile", "replacement": "bool"}, frozenset()),
    "discard": (Discard, _TILE_DECISION, frozenset()),
    "angang": (Angang, _TILE_DECISION, frozenset()),
    "jiagang": (Jiagang, _TILE_DECISION, frozenset()),
    "hu": (Hu, {"seat": "seat", "default": "bool", "forced": "bool"}, frozenset({"default", "forced"})),
    "peng": (Peng, _SEAT_DECISION, frozenset()),
    "gang": (Gang, _SEAT_DECISION, frozenset()),
    "pass": (Pass, _SEAT_DECISION, frozenset()),
    "escape": (Escape, _SEAT_DECISION, frozenset()),
    "meld": (Meld, {"seat": "seat", "meld": "meld", "tile": "tile", "from": "seat?"}, frozenset()),
    "win": (
        Win,
        {
            "seat": "seat",
            "from": "seat?",
            "tile": "tile",
            "fan": "int",
            "raw_fan": "int",
            "points": "int",
            "items": "items",
            "how": "how",
            "forced": "bool",
            "group": "int",
        },
        frozenset(),
    ),
    "pay": (Pay, {"rule": "str", "from": "seat", "to": "seat?", "amount": "int"}, frozenset()),
    "pig": (Pig, {"seat": "seat"}, frozenset()),
    "ready": (Ready, {"seat": "seat", "value": "int"}, frozenset()),
    "end": (End, {"reason": "str", "deltas": "deltas", "next_dealer": "seat"}, frozenset()),
}
#: The attribute of a JSON key where the names differ (``from`` is a Python keyword).
_ATTR = {"from": "frm"}


def from_json(data: Any) -> Event:
    """The event of a JSON event (the inverse of :meth:`Event.to_json`); :class:`EventError`
    naming the type and the field unless ``data`` is exactly what the engine writes: no missing
    or unknown key, exact types (``int`` not ``bool`` or ``float``), canonical tiles. A decision
    may carry a ``note`` (a string)."""
    if type(data) is not dict:
        raise EventError(f"an event is a JSON object, got {_show(data)}")
    if "type" not in data:
        raise EventError("event type: missing")
    t = data["type"]
    spec = _SPECS.get(t) if type(t) is str else None
    if spec is None:
        raise EventError(f"event type: not an event type, got {_show(t)}")
    cls, fields, optional = spec
    decision = t in DECISION_TYPES
    for key in data:
        if key != "type" and key not in fields and not (decision and key == "note"):
            raise EventError(f"{t}.{key}: unknown field")
    kwargs: dict[str, Any] = {}
    for key, kind in fields.items():
        if key not in data:
            if key in optional:
                continue
            raise EventError(f"{t}.{key}: missing")
        value = data[key]
        check, what = _CHECKS[kind]
        if not check(value):
            raise EventError(f"{t}.{key}: expected {what}, got {_show(value)}")
        kwargs[_ATTR.get(key, key)] = value
    if decision and "note" in data:
        note = data["note"]
        if note is not None and type(note) is not str:
            raise EventError(f"{t}.note: expected a string, got {_show(note)}")
        if note is not None:
            kwargs["note"] = note
    if t == "hu":  # a declared win has "default" (and maybe a note), a compulsory one "forced": true
        forced = kwargs.get("forced")
        if forced is None and "default" not in kwargs:
            raise EventError("hu.default: missing")
        if forced is not None and (forced is not True or "default" in kwargs or "note" in kwargs):
            raise EventError('hu: a compulsory win is {"type": "hu", "seat": N, "forced": true} alone')
    if t == "voids":
        kwargs["voids"] = list(kwargs["voids"])
    elif t == "end":
        kwargs["deltas"] = list(kwargs["deltas"])
    elif t == "win":
        kwargs["items"] = dict(kwargs["items"])
    return cls(**kwargs)
