"""What one seat may know (docs/rules.md R2.3): the only view of a hand a strategy gets.

An :class:`Observation` is a snapshot built for one decision: the seat's own concealed tiles,
every seat's melds (concealed kongs are public, R2.3), every discard pile, the wall count,
scores, who has won or escaped, the voids once revealed (R11.2), the tile being claimed, and the
seat's legal actions. Nothing hidden (other hands, the wall's order, others' exchange or void
choices before they are revealed) is in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xuezhan.engine.actions import DISCARD, Action
from xuezhan.engine.turn import PHASES, Phase
from xuezhan.tiles import TILE_STR, MeldType

if TYPE_CHECKING:  # pragma: no cover
    from xuezhan.engine.round import Round

_TURN, _CLAIM = Phase.TURN, Phase.CLAIM

__all__ = ["Observation", "discard_mask_of", "seen_counts"]

_NO_VOIDS = (-1, -1, -1, -1)
_TILE = TILE_STR


def seen_counts(
    discards: tuple[tuple[int, ...], ...],
    melds: tuple[tuple[tuple[int, int], ...], ...],
    aside: tuple[tuple[int, ...], ...] = (),
) -> bytes:
    """:attr:`Observation.seen` counted afresh from an observation's ``discards``, ``melds`` and
    ``aside`` (for an observation rebuilt from its :meth:`~Observation.to_dict`, which does not
    carry it).

    >>> seen = seen_counts(((0, 0), (), (26,), ()), (((0, 5),), (), (), ((2, 26),)))
    >>> list(seen[:6]), seen[26]
    ([2, 0, 0, 0, 0, 3], 5)
    """
    seen = bytearray(27)
    for pile in discards:
        for k in pile:
            seen[k] += 1
    for ms in melds:
        for kind, k in ms:
            seen[k] += 3 if kind == MeldType.PUNG else 4  # a pung shows 3; a kong or concealed kong 4 (R2.3)
    for pile in aside:  # self-drawn winning tiles set aside, face up (R14.1)
        for k in pile:
            seen[k] += 1
    return bytes(seen)


def discard_mask_of(legal_actions: Sequence[Action]) -> int:
    """:attr:`Observation.discard_mask` counted afresh from legal actions (for an observation
    rebuilt from its :meth:`~Observation.to_dict`, which does not carry it).

    >>> from xuezhan.engine.actions import act
    >>> bin(discard_mask_of([act(0, "hu"), act(0, "discard", 0), act(0, "discard", 13)]))
    '0b10000000000001'
    """
    mask = 0
    for a in legal_actions:
        if a.verb == DISCARD:
            mask |= 1 << a.arg  # type: ignore[operator]
    return mask


class Observation:
    """A per-seat snapshot; all fields are plain immutable values.

    - ``seat``, ``dealer``, ``phase`` (``"exchange"``, ``"void"``, ``"turn"``, ``"claim"``)
    - ``hand``: 27 counts (``bytes``) of the seat's concealed tiles; ``drawn``: the kind just
      drawn on its turn, else -1
    - ``melds``: per seat, a tuple of ``(type, kind)`` (0 pung, 1 kong, 2 concealed kong)
    - ``discards``: per seat, a tuple of kinds (claimed discards left the pile)
    - ``seen``: 27 counts (``bytes``) of the tiles visible outside the seat's concealed hand:
      every discard pile plus every meld of every seat (a pung shows 3, a kong or a concealed
      kong 4: concealed kongs are public, R2.3); the counts of ``discards`` and ``melds``, kept
      by the engine as they change (not in :meth:`to_dict`: the bot protocol does not carry it)
    - ``wall_count``; ``last_tiles`` (R4.4 phase begun)
    - ``scores`` (match totals before this hand), ``deltas`` (this hand so far)
    - ``won``, ``escaped``: per seat bools; ``wins``: per seat, the tiles it has won so far, in
      order (public; several only when winners stay, R14, and then a seat that has won plays
      a locked hand, R14.2); ``aside``: per seat, its self-drawn winning tiles set aside face
      up when winners stay (R14.1; a tile won on a discard stays in the discard pile);
      ``voids``: per seat suit 0–2 or -1 (others' voids
      only once all four are revealed; the seat's own choice always)
    - ``claim_tile``, ``claim_from``: the tile being claimed and who offered it (claim phase;
      only the asked seat sees a claim phase: to the others the hand is between turns)
    - ``robbing``: the claim is on an added kong (R3.3)
    - ``legal_actions``: a tuple of :class:`~xuezhan.engine.actions.Action` (a win, ``hu``,
      when legal, comes first)
    - ``discard_mask``: on its turn, the kinds it may discard as a bitmask (bit k = kind k: the
      discards of ``legal_actions``); 0 otherwise (not in :meth:`to_dict`)
    """

    __slots__ = (
        "seat",
        "dealer",
        "phase",
        "hand",
        "drawn",
        "melds",
        "discards",
        "seen",
        "wall_count",
        "last_tiles",
        "scores",
        "deltas",
        "won",
        "escaped",
        "wins",
        "aside",
        "voids",
        "claim_tile",
        "claim_from",
        "robbing",
        "legal_actions",
        "discard_mask",
    )

    def __init__(self, rnd: Round, seat: int) -> None:
        turn = rnd.turn
        seats = rnd.seats
        ph = turn.phase
        mine = turn.cur == seat  # its decision
        self.seat = seat
        self.dealer = rnd.dealer
        if ph is _CLAIM and not mine:
            # Who is asked about a claim is nobody else's business (a seat is asked only when it
            # could claim): to the others the hand is between turns, as after any discard.
            ph = _TURN
        self.phase = PHASES[ph]
        self.hand = bytes(seats.counts[seat])
        self.drawn = turn.drawn if mine and ph is _TURN else -1
        self.melds = seats.meld_view
        self.discards = seats.river_view
        wall = rnd.wall
        self.seen = wall.seen_view
        self.wall_count = wall.end - wall.pos
        self.last_tiles = turn.last_phase
        self.scores = rnd.scores_view
        self.deltas = rnd.ledger.deltas_view
        v = seats.status
        self.won, self.escaped = v if v is not None else seats.status_view()
        self.wins = seats.wins_view
        self.aside = seats.aside_view
        if seats.voids_known:
            self.voids = seats.void_view
        else:
            own = turn.v_choice[seat]
            self.voids = _NO_VOIDS if own < 0 else tuple(own if s == seat else -1 for s in range(4))
        if ph is _CLAIM:
            w = turn.claims
            assert w is not None  # a claim phase always has its window
            self.claim_tile: int | None = w.tile
            self.claim_from: int | None = w.frm
            self.robbing = w.robbing
        else:
            self.claim_tile = None
            self.claim_from = None
            self.robbing = False
        self.legal_actions = tuple(turn.legal) if mine else ()
        self.discard_mask = turn.discard_mask if mine and ph is _TURN else 0

    def to_dict(self) -> dict:
        """JSON-ready form (tiles as strings), e.g. for external bots."""
        return {
            "seat": self.seat,
            "dealer": self.dealer,
            "phase": self.phase,
            "hand": "".join(_TILE[k] * n for k, n in enumerate(self.hand) if n),
            "drawn": _TILE[self.drawn] if self.drawn >= 0 else None,
            "melds": [[[t, _TILE[k]] for t, k in ms] for ms in self.melds],
            "discards": ["".join(_TILE[k] for k in r) for r in self.discards],
            "wall_count": self.wall_count,
            "last_tiles": self.last_tiles,
            "scores": list(self.scores),
            "deltas": list(self.deltas),
            "won": list(self.won),
            "escaped": list(self.escaped),
            "wins": ["".join(_TILE[k] for k in w) for w in self.wins],
            "aside": ["".join(_TILE[k] for k in a) for a in self.aside],
            "voids": ["mps"[v] if v >= 0 else None for v in self.voids],
            "claim_tile": _TILE[self.claim_tile] if self.claim_tile is not None else None,
            "claim_from": self.claim_from,
            "robbing": self.robbing,
            "legal_actions": [str(a) for a in self.legal_actions],
        }

    def __repr__(self) -> str:
        return f"Observation(seat={self.seat}, phase={self.phase!r}, legal={len(self.legal_actions)})"
