"""Events of a hand: typed records, each with one JSON form (R9.3, R12.4).

Every state change is one event, appended to ``Round.events`` in order. Decision events
(:data:`DECISION_TYPES`) record what a seat chose, so a log can be replayed without any
strategy (R12.4); the others are consequences (draws, melds, wins, payments, the end).

Each event class has a ``type`` (its name in the JSON form) and :meth:`Event.to_json`, the dict
written to logs and sent to bots: tiles are strings (``"5m"``), seats ints 0–3, a payment names
its rule id::

    >>> Pay("R6.1", 0, 1, 2).to_json()
    {'type': 'pay', 'rule': 'R6.1', 'from': 0, 'to': 1, 'amount': 2}

Some events hold private information: a drawn tile is known only to the drawer, an exchange
choice and the tiles received only to that seat, a void choice only to that seat until all four
are revealed together. A ``pass`` is seen by the passer alone: a seat is asked about a claim only
when it could claim (it holds two of the tile or waits on it), so who was asked and passed is
private; the others see a claim only when one is made. :func:`public_view` returns what another
seat may see, as JSON; it is the one filter every outward path uses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = [
    "CLAIM_TYPES",
    "DECISION_TYPES",
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
    "dumps",
    "public_view",
]

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
