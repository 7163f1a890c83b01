"""Whose decision is pending and how the turn came about (docs/rules.md R2, R3, R4.4, R5, R11).

:class:`Turn` is the part of a hand that says what happens next: the phase, the seat to decide
and its legal actions, the tile just drawn, how the turn began (:class:`TurnFlags`, for the win
context of R5 and the kong rules R6.3, R6.5), the open claim window (:class:`ClaimWindow`), the
last-tiles phase (R4.4) and the exchange and void choices made so far (R11). It holds no tiles
and no money: those are the seats, the wall and the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from xuezhan.engine._core_adapter import (
    DISCARDER_PAYS,
    HEAVEN_EARTH,
    KONG_DISCARD,
    KONG_DRAW,
    LAST_TILE,
    SELF_DRAW,
)
from xuezhan.engine.actions import Action
from xuezhan.engine.ledger import KongRecord

__all__ = [
    "AFTER_PENG",
    "DEALER_FIRST",
    "DRAW_FLAGS",
    "PHASES",
    "PLAIN_DRAW",
    "ClaimWindow",
    "Phase",
    "Turn",
    "TurnFlags",
]


class Phase(IntEnum):
    """Whose decision is pending and of which kind (an ``int``, so it compares with 0–4)."""

    EXCHANGE = 0  # R11.1, seats 0 to 3 in order
    VOID = 1  # R11.2, seats 0 to 3 in order
    TURN = 2  # R2.1
    CLAIM = 3  # R3, one asked seat at a time
    OVER = 4

    @property
    def label(self) -> str:
        """The name observations show: ``"exchange"``, ``"void"``, ``"turn"``, ``"claim"``, ``"over"``."""
        return PHASES[self]


#: :attr:`Phase.label` of every phase, by value.
PHASES = ("exchange", "void", "turn", "claim", "over")


@dataclass(frozen=True, slots=True)
class TurnFlags:
    """How the current turn began; replaced as a whole at every draw and peng, never edited.

    The commonest values are the shared constants :data:`PLAIN_DRAW`, :data:`AFTER_PENG` and
    :data:`DEALER_FIRST` (no allocation on an ordinary draw)."""

    replacement: bool = False  # drew a kong replacement (R5 kong_draw / kong_discard, R6.3, R6.5)
    last_tile: bool = False  # drew the last wall tile (R5 last_tile)
    after_peng: bool = False  # a peng began the turn: no draw, no kong (R2.1, R2.4)
    heaven: bool = False  # R5 heaven_earth: the dealer's first 14 tiles / a first draw
    kong: KongRecord | None = None  # the last kong of this turn (R6.3, R6.5)

    def self_draw_context(self, discarder_pays_option: bool) -> tuple[int, int | None]:
        """The win context flags (R5) of a self-draw on this turn, and who pays alone (R6.3: a
        kong on a discard won on its replacement, when the option is on), else None."""
        ctx = SELF_DRAW | (HEAVEN_EARTH if self.heaven else 0) | (LAST_TILE if self.last_tile else 0)
        payer = None
        if self.replacement:
            ctx |= KONG_DRAW
            kong = self.kong
            if kong is not None and kong.how == "gang" and discarder_pays_option:
                ctx |= DISCARDER_PAYS
                payer = kong.frm
        return ctx, payer

    def discard_context(self) -> tuple[int, KongRecord | None]:
        """The win context flags (R5) of a win on this turn's discard, and the kong whose income
        the discarder hands on if it is won (R6.5): kong_discard right after a kong replacement
        draw, last_tile right after drawing the last wall tile."""
        ctx = (KONG_DISCARD if self.replacement else 0) | (LAST_TILE if self.last_tile else 0)
        return ctx, self.kong if self.replacement else None


PLAIN_DRAW = TurnFlags()
AFTER_PENG = TurnFlags(after_peng=True)
DEALER_FIRST = TurnFlags(heaven=True)
#: The flags of an ordinary (not replacement) draw: ``DRAW_FLAGS[last_tile][heaven]``.
DRAW_FLAGS = (
    (PLAIN_DRAW, TurnFlags(heaven=True)),
    (TurnFlags(last_tile=True), TurnFlags(last_tile=True, heaven=True)),
)


@dataclass(slots=True)
class ClaimWindow:
    """The claims on one discard or added kong (R3): the seats that could claim are asked one at
    a time in turn order from ``frm`` (R13), then the claims are resolved (R3.2)."""

    tile: int
    frm: int
    robbing: bool  # an added kong (R3.3)
    ctx: int  # win context flags of a win on it (R5)
    kong: KongRecord | None  # the discarder's kong this turn, for R6.5
    queue: list[int]  # the other active seats, in turn order from frm
    asked: int = 0  # index in queue of the seat being asked
    hu: list[int] = field(default_factory=list)  # seats that declared a win, in order
    meld: tuple[int, str] | None = None  # (seat, peng/gang) declared
    fan: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # capped fan of a legal win (0 none)


@dataclass(slots=True)
class Turn:
    """The pending decision and the state of play around it."""

    phase: Phase = Phase.TURN
    cur: int | None = None  # the seat whose decision is pending
    legal: list[Action] = field(default_factory=list)  # its legal actions
    discard_mask: int = 0  # the legal discards of the pending turn (bit k = kind k)
    drawn: int = -1  # the kind just drawn by the seat on turn, -1 if none (R10.1)
    flags: TurnFlags = PLAIN_DRAW  # how the turn began
    any_claim: bool = False  # R5 heaven_earth: a peng, a kong on a discard or a win happened
    first_drawn: list[bool] = field(default_factory=lambda: [False] * 4)  # each seat has drawn
    claim_group: int = 0  # numbers the discards, to tell a multiple win on one discard (R9.2)
    claims: ClaimWindow | None = None  # the open claim window (phase CLAIM, or being resolved)
    last_phase: bool = False  # R4.4: the last-tiles phase has begun
    # setup choices made so far (R11.1, R11.2)
    x_choice: list[tuple | None] = field(default_factory=lambda: [None] * 4)
    v_choice: list[int] = field(default_factory=lambda: [-1] * 4)

    def ask(self, phase: Phase, seat: int, legal: list[Action]) -> None:
        """``seat`` is to decide, with ``legal`` actions."""
        self.phase = phase
        self.cur = seat
        self.legal = legal
