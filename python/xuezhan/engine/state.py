"""The state of one hand: tiles, melds, wall, who has won, scores (docs/rules.md R1, R2, R12).

Per-seat concealed tiles are ``bytearray(27)`` counts that go straight to the Rust core
(``bytes(counts)``); melds are the one-byte codes of docs/internals.md (``type * 27 + kind``),
kept as a list and as ``bytes``. The transitions live in :mod:`xuezhan.engine.round`.
"""

from __future__ import annotations

from typing import Optional, Sequence

from xuezhan.rules import Rules

__all__ = ["HandState", "InvariantError", "PHASES", "EXCHANGE", "VOID", "TURN", "CLAIM", "OVER"]

EXCHANGE, VOID, TURN, CLAIM, OVER = range(5)
PHASES = ("exchange", "void", "turn", "claim", "over")

PUNG, KONG, CONCEALED_KONG = 0, 1, 2
_K27 = range(27)


class InvariantError(AssertionError):
    """An R12 invariant does not hold (a bug in the engine, never a user error)."""


class HandState:
    """Everything about one hand. Seats 0–3; ``active[s]`` = seated, not won, not escaped (R0)."""

    def __init__(
        self,
        rules: Rules,
        hands: Sequence[Sequence[int]],
        wall: Sequence[int],
        dealer: int,
        exchange: Optional[str] = None,
        seed: Optional[int] = None,
        scores: Optional[Sequence[int]] = None,
    ) -> None:
        self.rules = rules
        self.core = rules.core
        self.dealer = dealer
        self.seed = seed
        self.exchange_dir = exchange
        self.scores = list(scores) if scores is not None else [0, 0, 0, 0]
        self.hands0 = [list(h) for h in hands]
        self.wall = list(wall)
        self.wpos = 0
        self.counts = counts = [bytearray(27) for _ in range(4)]
        dealt = bytearray(27)
        for s, h in enumerate(hands):
            c = counts[s]
            for k in h:
                c[k] += 1
                dealt[k] += 1
        for k in self.wall:
            dealt[k] += 1
        self.dealt = bytes(dealt)
        self.melds: list[list[int]] = [[], [], [], []]
        self.mbytes = [b"", b"", b"", b""]
        self.meld_from: list[list[Optional[int]]] = [[], [], [], []]
        self.river: list[list[int]] = [[], [], [], []]
        self.won = [False] * 4
        self.escaped = [False] * 4
        self.active = [True] * 4
        self.n_active = 4
        self.void = [-1, -1, -1, -1]
        self.mask = [0, 0, 0, 0]
        self.lock = [0, 0, 0, 0]  # R4.3: best capped fan passed since the seat's last draw (0 = none)
        self.last_phase = False  # R4.4
        self.deltas = [0, 0, 0, 0]
        self.kongs: list[dict] = []
        self.wins: list[dict] = []
        self.events: list[dict] = []
        self.fired: set[str] = set()
        self.phase = TURN
        self.cur: Optional[int] = None  # the seat whose decision is pending
        self.legal: list = []
        # turn state
        self.drawn = -1
        self.repl = False
        self.drew_last = False
        self.after_peng = False
        self.turn_kong: Optional[dict] = None
        self.heaven = False
        self.can_hu = False
        self.any_claim = False
        self.first_drawn = [False] * 4
        # claim state
        self.claim_group = 0
        self.c_tile = -1
        self.c_from = -1
        self.c_rob = False
        self.c_ctx = 0
        self.c_kong: Optional[dict] = None
        self.c_queue: list[int] = []
        self.c_qi = 0
        self.c_hu: list[int] = []
        self.c_meld: Optional[tuple[int, str]] = None
        self.c_fan = [0, 0, 0, 0]  # capped fan of a legal win on the claimed tile (0 = none)
        # setup choices
        self.x_choice: list[Optional[tuple]] = [None] * 4
        self.v_choice: list[int] = [-1] * 4
        # cached immutable views for observations
        self.meld_view: tuple = ((), (), (), ())
        self._river_view: Optional[tuple] = ((), (), (), ())
        self._river_t: list[tuple] = [(), (), (), ()]
        self.scores_view = tuple(self.scores)
        self._status_view: Optional[tuple] = None
        self.voids_known = False
        self.void_view: tuple = (-1, -1, -1, -1)
        self.end_reason: Optional[str] = None
        self.next_dealer: Optional[int] = None
        self.defaults_used = 0

    # ------------------------------------------------------------------ queries
    @property
    def wall_count(self) -> int:
        return len(self.wall) - self.wpos

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def next_active(self, seat: int) -> int:
        """The first active seat after ``seat`` in turn order (R2.5)."""
        a = self.active
        for i in (1, 2, 3, 4):
            s = (seat + i) & 3
            if a[s]:
                return s
        return -1

    def river_view(self) -> tuple:
        """The discard piles as a tuple of tuples (kept up to date on every change)."""
        return self._river_view

    def _river_changed(self, seat: int) -> None:
        self._river_t[seat] = tuple(self.river[seat])
        self._river_view = tuple(self._river_t)

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
        mv[seat] = tuple(divmod(c, 27) for c in ms)
        self.meld_view = tuple(mv)

    # ------------------------------------------------------------------ R12 invariants
    def check_invariants(self) -> None:
        """Raise :class:`InvariantError` unless R12.1–R12.3 hold now."""
        # R12.1 tile conservation: hands + melds + discards + wall = the dealt multiset.
        total = bytearray(27)
        for s in range(4):
            c = self.counts[s]
            for k in range(27):
                total[k] += c[k]
            for code in self.melds[s]:
                total[code % 27] += 3 if code < 27 else 4
            for k in self.river[s]:
                total[k] += 1
        for k in self.wall[self.wpos:]:
            total[k] += 1
        if bytes(total) != self.dealt:
            raise InvariantError(f"R12.1 tile conservation broken: {list(total)} != {list(self.dealt)}")
        if any(x > 4 for x in total):
            raise InvariantError("R12.1 a kind has more than four tiles")
        # R12.2 the deltas sum to minus the escape penalty (zero without an escape).
        penalty = self.rules.escape_penalty * self.rules.base if any(self.escaped) and self.over else 0
        if any(self.escaped) and not self.over:
            raise InvariantError("R8 the hand must end at once on an escape")
        if sum(self.deltas) != -penalty:
            raise InvariantError(f"R12.2 deltas {self.deltas} do not sum to {-penalty}")
        for s in range(4):
            if self.active[s] != (not self.won[s] and not self.escaped[s]):
                raise InvariantError(f"active flag of seat {s} is inconsistent")
        if self.n_active != sum(self.active):
            raise InvariantError("n_active is inconsistent")
        if self.cur is not None and not self.active[self.cur]:
            raise InvariantError(f"R12.3 seat {self.cur} has won or escaped but must act")
