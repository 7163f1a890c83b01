"""The state of one hand: tiles, melds, wall, who has won, scores (docs/rules.md R1, R2, R12).

Per-seat concealed tiles are ``bytearray(27)`` counts that go straight to the Rust core
(``bytes(counts)``); melds are the one-byte codes of docs/internals.md (``type * 27 + kind``),
kept as a list and as ``bytes``. The transitions live in :mod:`xuezhan.engine.round`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import chain
from typing import NamedTuple

from xuezhan.engine._core_adapter import (
    DISCARDER_PAYS,
    HEAVEN_EARTH,
    KONG_DISCARD,
    KONG_DRAW,
    LAST_TILE,
    SELF_DRAW,
    fan,
    wait_mask,
)
from xuezhan.engine.events import Event, Pay, Win
from xuezhan.rules import Rules
from xuezhan.tiles import NUM_KINDS, meld_kind, meld_size

__all__ = ["PHASES", "ClaimWindow", "HandState", "InvariantError", "KongRecord", "Phase", "TurnFlags"]


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


@dataclass(slots=True)
class KongRecord:
    """One kong and the income it earned at once (R6.4), for the transfer (R6.5) and the refund
    (R7.5, R8). ``how`` is ``"gang"`` (on a discard of ``frm``), ``"angang"`` or ``"jiagang"``."""

    seat: int
    kind: int
    how: str
    frm: int | None
    pay: list[tuple[int, int]] = field(default_factory=list)  # (payer, amount)
    transferred: bool = False  # handed on by R6.5
    refunded: bool = False  # returned by R7.5 / R8

    @property
    def income(self) -> int:
        return sum(a for _, a in self.pay)


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


class Holding(NamedTuple):
    """The tiles of one seat at the end of the hand: concealed counts, meld codes, void suit."""

    counts: bytes
    melds: bytes
    void: int


class InvariantError(AssertionError):
    """An R12 invariant does not hold (a bug in the engine, never a user error)."""


class HandState:
    """Everything about one hand. Seats 0–3; ``active[s]`` = still in the hand (R0): not
    escaped, and not won unless winners stay (``after_win = "stay"``, R14.4)."""

    def __init__(
        self,
        rules: Rules,
        hands: Sequence[Sequence[int]],
        wall: Sequence[int],
        dealer: int,
        exchange: str | None = None,
        seed: int | None = None,
        scores: Sequence[int] | None = None,
        dealt: bytes | None = None,
    ) -> None:
        """``dealt``: the 27 counts of the hands and wall together, when the caller knows them
        (a deal from a seed is the whole set, R1.1); else they are counted here."""
        self.rules = rules
        self.core = rules.core
        self._forced_opt = rules.last_tiles_forced  # R4.4
        self._lock_opt = rules.pass_win_lock  # R4.3
        self.dealer = dealer
        self.seed = seed
        self.exchange_dir = exchange
        self.scores = list(scores) if scores is not None else [0, 0, 0, 0]
        self.hands0 = [list(h) for h in hands]
        self.wall = list(wall)
        self.wall_end = len(self.wall)  # the wall never changes length: draws advance wpos
        self.wpos = 0
        self.counts = counts = [bytearray(27) for _ in range(4)]
        for s, h in enumerate(hands):
            c = counts[s]
            for k in h:
                c[k] += 1
        if dealt is None:
            total = bytearray(27)
            for k in chain(*hands, self.wall):
                total[k] += 1
            dealt = bytes(total)
        self.dealt = dealt
        self.melds: list[list[int]] = [[], [], [], []]
        self.mbytes = [b"", b"", b"", b""]
        self.meld_from: list[list[int | None]] = [[], [], [], []]
        # each seat's discard pile, as a tuple replaced at every change: it is also what the
        # observations show (a new tuple only when that pile changes, so identity tells)
        self.river: list[tuple[int, ...]] = [(), (), (), ()]
        self.stay = rules.after_win == "stay"  # R14: winners stay in the hand
        self.won = [False] * 4  # has won (at least once, R14)
        # R14.1: each seat's self-drawn winning tiles, set aside in front of it (public); a tile
        # won on a discard stays in the discarder's pile, as several may win on it (R14.3).
        self.aside: list[tuple[int, ...]] = [(), (), (), ()]
        self.aside_view: tuple[tuple[int, ...], ...] = ((), (), (), ())
        self.wins_view: tuple[tuple[int, ...], ...] = ((), (), (), ())  # each seat's winning tiles
        self.escaped = [False] * 4
        self.active = [True] * 4
        self.n_active = 4
        self.void = [-1, -1, -1, -1]
        self.mask = [0, 0, 0, 0]
        self.lock = [0, 0, 0, 0]  # R4.3: best capped fan passed since the seat's last draw (0 = none)
        self.last_phase = False  # R4.4
        self.deltas = [0, 0, 0, 0]
        self.kongs: list[KongRecord] = []
        self.payments: list[Pay] = []  # the pay events, in order
        self.wins: list[Win] = []
        self.events: list[Event] = []
        self.fired: set[str] = set()
        self.phase = Phase.TURN
        self.cur: int | None = None  # the seat whose decision is pending
        self.legal: list = []
        self.discard_mask = 0  # the legal discards of the pending turn (bit k = kind k)
        # turn state
        self.drawn = -1  # the kind just drawn by the seat on turn, -1 if none (R10.1)
        self.turn = PLAIN_DRAW
        self.any_claim = False  # R5 heaven_earth: a peng, a kong on a discard or a win happened
        self.first_drawn = [False] * 4
        # claim state
        self.claim_group = 0  # numbers the discards, to tell a multiple win on one discard (R9.2)
        self.claims: ClaimWindow | None = None
        # setup choices (R11.1, R11.2)
        self.x_choice: list[tuple | None] = [None] * 4
        self.v_choice: list[int] = [-1] * 4
        # cached immutable views for observations
        self.meld_view: tuple = ((), (), (), ())
        self._river_view: tuple[tuple[int, ...], ...] = ((), (), (), ())
        self.scores_view = tuple(self.scores)
        self.deltas_view: tuple[int, ...] = (0, 0, 0, 0)
        self._status_view: tuple | None = None
        # R2.3: the tiles every seat sees (all discard piles and melds) as 27 counts, kept up to
        # date where piles and melds change; one shared bytes object until it changes again.
        self._seen = bytearray(27)
        self.seen_view = bytes(27)
        # R11.2: without a void declaration every void is -1, known to all from the start
        self.voids_known = not rules.declare_void
        self.void_view: tuple = (-1, -1, -1, -1)
        # what the end of the hand found (R7, R8)
        self.checked: tuple[int, ...] = ()  # the seats the ready check was made for
        self.pigs: set[int] = set()
        self.ready: dict[int, int] = {}  # ready seat -> its value (R7.3)
        self.end_reason: str | None = None
        self.next_dealer: int | None = None
        self.defaults_used = 0

    # ------------------------------------------------------------------ ledger (settlement)
    def pay(self, rule: str, payer: int, payee: int | None, amount: int) -> None:
        """One payment (R12.2: every point paid is received, except the R8 penalty)."""
        if amount <= 0:
            return
        d = self.deltas
        d[payer] -= amount
        if payee is not None:
            d[payee] += amount
        self.deltas_view = tuple(d)
        e = Pay(rule, payer, payee, amount)
        self.events.append(e)
        self.payments.append(e)

    def record(self, event: Event) -> None:
        self.events.append(event)

    def fire(self, rule_id: str) -> None:
        self.fired.add(rule_id)

    def _leave(self, seat: int, flags: list[bool]) -> None:
        """The seat has won (``flags`` = ``self.won``) or escaped: it takes no further part (R2.4,
        R8), except a winner when winners stay (R14.1): it is locked, and still in the hand."""
        flags[seat] = True
        self.cur = None
        self._status_view = None
        if self.stay and flags is self.won:
            return
        self.active[seat] = False
        self.n_active -= 1

    def locked(self, seat: int) -> bool:
        """R14.2: the seat has won and stays in the hand: it may only win, make a kong that keeps
        its waits, or discard the tile it drew."""
        return self.stay and self.won[seat]

    def _others(self, seat: int) -> list[int]:
        """The other active seats (R6.2, R6.4 payers)."""
        a = self.active
        return [p for p in range(4) if p != seat and a[p]]

    def _update_mask(self, s: int) -> None:
        """Refresh the seat's wait mask (the kinds that would complete its hand, via the core)."""
        self.mask[s] = wait_mask(bytes(self.counts[s]), self.mbytes[s], self.void[s])

    def _score(self, seat: int, counts14: bytes, kind: int, ctx: int) -> tuple | None:
        """Fan of a win (R5) via the core: ``(raw, capped, points, items)`` or None if no win."""
        return fan(counts14, self.mbytes[seat], kind, ctx, self.core, self.void[seat])

    def _holdings(self, on_turn: int | None = None) -> dict[int, Holding]:
        """The tiles of each active seat, for the ready check (R7, R8). A winner caught holding
        the tile it drew (``on_turn``, when another seat escapes during its turn) is valued on
        its locked hand (R14.5)."""
        held = {}
        for s in range(4):
            if self.active[s]:
                c = self.counts[s]
                if s == on_turn and self.drawn >= 0 and self.locked(s) and self.phase == Phase.TURN:
                    c = bytearray(c)
                    c[self.drawn] -= 1
                held[s] = Holding(bytes(c), self.mbytes[s], self.void[s])
        return held

    def winners_in(self) -> set[int]:
        """The seats that won and are still in the hand (R14.5: ready in the ready check)."""
        return {s for s in range(4) if self.stay and self.won[s] and not self.escaped[s]}

    # ------------------------------------------------------------------ queries
    @property
    def wall_count(self) -> int:
        return self.wall_end - self.wpos

    @property
    def over(self) -> bool:
        return self.phase == Phase.OVER

    def next_active(self, seat: int) -> int:
        """The first active seat after ``seat`` in turn order (R2.5)."""
        a = self.active
        for i in (1, 2, 3, 4):
            s = (seat + i) & 3
            if a[s]:
                return s
        return -1

    def _set_river(self, seat: int, pile: tuple[int, ...]) -> None:
        """The seat's discard pile is now ``pile``."""
        river = self.river
        river[seat] = pile
        self._river_view = tuple(river)

    def _see(self, k: int, n: int) -> None:
        """``n`` more (or, negative, fewer) tiles of kind ``k`` are visible to every seat."""
        seen = self._seen
        seen[k] += n
        self.seen_view = bytes(seen)

    def status_view(self) -> tuple:
        """``(won, escaped)`` as tuples (rebuilt only after a change)."""
        v = self._status_view
        if v is None:
            v = self._status_view = (tuple(self.won), tuple(self.escaped))
        return v

    def _melds_changed(self, seat: int) -> None:
        ms = self.melds[seat]
        self.mbytes[seat] = bytes(ms)
        mv = list(self.meld_view)
        mv[seat] = tuple((c // NUM_KINDS, meld_kind(c)) for c in ms)
        self.meld_view = tuple(mv)

    # ------------------------------------------------------------------ R12 invariants
    def check_invariants(self) -> None:
        """Raise :class:`InvariantError` unless R12.1–R12.3 hold now."""
        # R12.1 tile conservation: hands + melds + discards + set aside (R14.1) + wall = the dealt multiset.
        total = bytearray(27)
        for s in range(4):
            c = self.counts[s]
            for k in range(27):
                total[k] += c[k]
            for code in self.melds[s]:
                total[meld_kind(code)] += meld_size(code)
            for k in self.river[s]:
                total[k] += 1
            for k in self.aside[s]:
                total[k] += 1
        for k in self.wall[self.wpos :]:
            total[k] += 1
        if bytes(total) != self.dealt:
            raise InvariantError(f"R12.1 tile conservation broken: {list(total)} != {list(self.dealt)}")
        if any(x > 4 for x in total):
            raise InvariantError("R12.1 a kind has more than four tiles")
        # R2.3: the public count of visible tiles matches the discard piles, melds and tiles set aside.
        seen = bytearray(27)
        for s in range(4):
            for k in self.river[s]:
                seen[k] += 1
            for code in self.melds[s]:
                seen[meld_kind(code)] += meld_size(code)
            for k in self.aside[s]:
                seen[k] += 1
        if bytes(seen) != self.seen_view or self._seen != seen:
            raise InvariantError(f"R2.3 visible tiles {list(self.seen_view)} != piles and melds {list(seen)}")
        # R12.2 the deltas sum to minus the escape penalty (zero without an escape).
        penalty = self.rules.escape_penalty * self.rules.base if any(self.escaped) and self.over else 0
        if any(self.escaped) and not self.over:
            raise InvariantError("R8 the hand must end at once on an escape")
        if sum(self.deltas) != -penalty:
            raise InvariantError(f"R12.2 deltas {self.deltas} do not sum to {-penalty}")
        for s in range(4):
            if self.active[s] != (not (self.won[s] and not self.stay) and not self.escaped[s]):
                raise InvariantError(f"active flag of seat {s} is inconsistent")
        if self.n_active != sum(self.active):
            raise InvariantError("n_active is inconsistent")
        if self.cur is not None and not self.active[self.cur]:
            raise InvariantError(f"R12.3 seat {self.cur} has won or escaped but must act")
