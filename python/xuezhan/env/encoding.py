"""The observation tensor: planes × 27 tile kinds, from one seat's
:class:`~xuezhan.engine.observation.Observation` (docs/env.md, "Observation").

Seats are relative to the observer: ``r = 0`` is the seat itself, ``1`` the next seat in turn
order, ``2`` the one across, ``3`` the previous one, so one policy serves every seat. Per-seat
planes come in groups of four in that order. Constant planes (phase, wall, scores...) repeat one
value over the 27 columns. Everything comes from the seat's own observation, so the tensor holds
nothing the seat may not know (ARCHITECTURE "Bots").

The encoder is built for speed. The planes every seat sees alike (discard piles, melds, wins,
the tiles won and set aside (R14), scores, the claim, phase and wall) are kept once, in
absolute seat order, and updated from each observation by what changed since the previous one
(the engine hands out a new tuple for a meld set, discard pile, the wins or the tiles set aside
only when it changes, so identity says what changed). Each seat has its own rows for what
only it knows (hand, drawn tile, exchange picks, unseen counts, voids as it sees them),
written only from its own observation. A seat's tensor is one gather (``numpy.take``) of its
own rows and the shared rows rotated to its point of view; it never reads another seat's own
rows.

    >>> from xuezhan.engine import Round
    >>> r = Round.from_seed("leshan", 7, dealer=0)
    >>> enc = Encoder()
    >>> x = enc.encode(r.observation(0))
    >>> x.shape, float(x[HAND].sum()), float(x[PHASE + 2, 0]), float(x[DEALER, 0])
    ((64, 27), 14.0, 1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np

from xuezhan.engine.observation import Observation

__all__ = [
    "CLAIM_FROM",
    "CLAIM_TILE",
    "ASIDE",
    "CONCEALED_KONG",
    "DEALER",
    "DELTAS",
    "DISCARDS",
    "DRAWN",
    "HAND",
    "KONG",
    "LAST_TILES",
    "LOCKED",
    "MAX_WINS",
    "N_PLANES",
    "PHASE",
    "PICKS",
    "PLANES",
    "PUNG",
    "ROBBING",
    "UNSEEN",
    "VOID",
    "WALL",
    "WALL_SCALE",
    "WIN_COUNT",
    "WINS",
    "WON",
    "Encoder",
    "plane_bounds",
]

HAND: Final = 0  # own concealed tiles, counts 0-4 (the drawn tile included)
DRAWN: Final = 1  # the tile just drawn on the own turn, one-hot
DISCARDS: Final = 2  # 2-5: each seat's discard pile, counts (claimed tiles left it)
PUNG: Final = 6  # 6-9: each seat's exposed pungs, 1 at the kind
KONG: Final = 10  # 10-13: each seat's exposed or added kongs
CONCEALED_KONG: Final = 14  # 14-17: each seat's concealed kongs (public, R2.3)
VOID: Final = 18  # 18-21: each seat's void suit (R11.2), 1 on its nine kinds, once known
CLAIM_TILE: Final = 22  # the tile offered for a claim (a discard or an added kong), one-hot
CLAIM_FROM: Final = 23  # 23-26: the seat that offered it (constant planes)
ROBBING: Final = 27  # the claim is on an added kong (R3.3), constant plane
PICKS: Final = 28  # the own exchange picks so far (R11.1), counts
UNSEEN: Final = 29  # 4 - own hand - every meld - every discard pile - every tile set aside, 0-4
PHASE: Final = 30  # 30-33: exchange, void, turn, claim (constant planes)
WALL: Final = 34  # tiles left in the wall / 55 (constant plane)
LAST_TILES: Final = 35  # the last-tiles phase has begun (R4.4), constant plane
WON: Final = 36  # 36-39: the seat has won (constant planes)
DEALER: Final = 40  # 40-43: the seat is the dealer (constant planes)
DELTAS: Final = 44  # 44-47: the seat's points won (+) or paid (-) in this hand (constant planes)
WINS: Final = 48  # 48-51: the tiles each seat has won on so far, counts (R14: several)
ASIDE: Final = 52  # 52-55: each seat's self-drawn winning tiles set aside face up (R14.1), counts
WIN_COUNT: Final = 56  # 56-59: how many times each seat has won (constant planes, the count)
LOCKED: Final = 60  # 60-63: the seat has won and stays in the hand, its hand locked (R14.2)
N_PLANES: Final = 64
#: The most wins one seat can have in a hand (every tile of the wall and the deal, at most).
MAX_WINS: Final = 108.0
#: Full wall after the deal (108 - 14 - 3 × 13).
WALL_SCALE: Final = 55.0

#: ``(first plane, count, name)`` for every group of planes, in order.
PLANES: Final = (
    (HAND, 1, "hand"),
    (DRAWN, 1, "drawn"),
    (DISCARDS, 4, "discards"),
    (PUNG, 4, "pung"),
    (KONG, 4, "kong"),
    (CONCEALED_KONG, 4, "concealed_kong"),
    (VOID, 4, "void"),
    (CLAIM_TILE, 1, "claim_tile"),
    (CLAIM_FROM, 4, "claim_from"),
    (ROBBING, 1, "robbing"),
    (PICKS, 1, "exchange_picks"),
    (UNSEEN, 1, "unseen"),
    (PHASE, 4, "phase"),
    (WALL, 1, "wall"),
    (LAST_TILES, 1, "last_tiles"),
    (WON, 4, "won"),
    (DEALER, 4, "dealer"),
    (DELTAS, 4, "deltas"),
    (WINS, 4, "wins"),
    (ASIDE, 4, "aside"),
    (WIN_COUNT, 4, "win_count"),
    (LOCKED, 4, "locked"),
)

_PHASE_INDEX = {"exchange": 0, "void": 1, "turn": 2, "claim": 3, "over": -1}
_MELD_PLANE = (PUNG, KONG, CONCEALED_KONG)
_MELD_TILES = (3.0, 4.0, 4.0)


def plane_bounds() -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of every entry (the ``Box`` of the observation space)."""
    low = np.zeros((N_PLANES, 27), np.float32)
    high = np.ones((N_PLANES, 27), np.float32)
    for p in (HAND, UNSEEN, PICKS, *range(DISCARDS, DISCARDS + 4), *range(WINS, WINS + 4), *range(ASIDE, ASIDE + 4)):
        high[p] = 4.0
    high[WIN_COUNT : WIN_COUNT + 4] = MAX_WINS
    high[PICKS] = 3.0
    low[DELTAS : DELTAS + 4] = -np.inf
    high[DELTAS : DELTAS + 4] = np.inf
    return low, high


# Rows of the source array: shared rows in absolute seat order, then eight rows per seat.
_S_DISC, _S_PUNG, _S_KONG, _S_CKONG, _S_WON, _S_DEALER, _S_DELTAS = (
    0,
    4,
    8,
    12,
    16,
    20,
    24,
)
_S_CLAIM_TILE, _S_CLAIM_FROM, _S_ROB, _S_PHASE, _S_WALL, _S_LAST, _S_FREE = (
    28,
    29,
    33,
    34,
    38,
    39,
    40,
)
_S_WINS, _S_ASIDE, _S_NWINS, _S_LOCKED = 41, 45, 49, 53
_S_OWN = 57  # + 8 × seat: hand, drawn, picks, unseen, void r = 0..3
_N_SOURCE = _S_OWN + 32
_MELD_ROW = (_S_PUNG, _S_KONG, _S_CKONG)


def _gather(seat: int) -> np.ndarray:
    """Source row of every output plane for ``seat`` (its own rows, shared rows rotated)."""
    own = _S_OWN + 8 * seat
    rel = [(seat + r) & 3 for r in range(4)]
    g = [0] * N_PLANES
    g[HAND], g[DRAWN], g[PICKS], g[UNSEEN] = own, own + 1, own + 2, own + 3
    for r in range(4):
        g[DISCARDS + r] = _S_DISC + rel[r]
        g[PUNG + r] = _S_PUNG + rel[r]
        g[KONG + r] = _S_KONG + rel[r]
        g[CONCEALED_KONG + r] = _S_CKONG + rel[r]
        g[VOID + r] = own + 4 + r
        g[CLAIM_FROM + r] = _S_CLAIM_FROM + rel[r]
        g[PHASE + r] = _S_PHASE + r
        g[WON + r] = _S_WON + rel[r]
        g[DEALER + r] = _S_DEALER + rel[r]
        g[DELTAS + r] = _S_DELTAS + rel[r]
        g[WINS + r] = _S_WINS + rel[r]
        g[ASIDE + r] = _S_ASIDE + rel[r]
        g[WIN_COUNT + r] = _S_NWINS + rel[r]
        g[LOCKED + r] = _S_LOCKED + rel[r]
    g[CLAIM_TILE], g[ROBBING], g[WALL], g[LAST_TILES] = (
        _S_CLAIM_TILE,
        _S_ROB,
        _S_WALL,
        _S_LAST,
    )
    return np.array(g, np.intp)


_GATHER = tuple(_gather(s) for s in range(4))


class Encoder:
    """Encodes the observations of the four seats of one hand (see the module doc); use a new
    encoder for each hand. ``stay``: winners stay in the hand (``after_win = "stay"``, R14), so a
    seat that has won plays a locked hand (the ``locked`` planes; an observation does not carry
    the rules)."""

    def __init__(self, stay: bool = False) -> None:
        self.stay = stay
        self.src = src = np.zeros((_N_SOURCE, 27), np.float32)
        self.rows = list(src)  # row views: scalar writes without tuple indexing
        src[_S_FREE] = 4.0  # 4 - every tile in a meld or discard pile
        self._disc: list[tuple] = [(), (), (), ()]
        self._melds: list[tuple] = [(), (), (), ()]
        self._won: tuple | None = None
        self._wins: tuple = ((), (), (), ())
        self._aside: tuple = ((), (), (), ())
        self._dealer = -1
        self._deltas: tuple | None = None
        self._claim_tile: int | None = None
        self._claim_from: int | None = None
        self._all_disc: tuple | None = None
        self._all_melds: tuple | None = None
        self._phase = ""
        self._wall = -1
        self._last = False
        self._drawn = [-1, -1, -1, -1]
        self._voids: list[tuple | None] = [None] * 4
        self._picks: list[tuple[int, ...]] = [(), (), (), ()]

    def encode(self, obs: Observation, picks: Sequence[int] = ()) -> np.ndarray:
        """The tensor of ``obs`` (a new array). ``picks`` are the seat's exchange picks so far
        (R11.1)."""
        rows = self.rows
        free = rows[_S_FREE]
        # ---- shared rows (identical in every seat's observation). The engine replaces the
        # tuple of all piles (of all meld sets) whenever one changes, so one identity test
        # tells whether anything is to be done.
        discards = obs.discards
        if discards is not self._all_disc:
            cache = self._disc
            for s in range(4):
                t = discards[s]
                old = cache[s]
                if t is not old:
                    row = rows[_S_DISC + s]
                    n, m = len(t), len(old)
                    if n == m + 1 and t[:m] == old:
                        k = t[m]
                        row[k] += 1.0
                        free[k] -= 1.0
                    elif n + 1 == m and old[:n] == t:
                        k = old[n]
                        row[k] -= 1.0
                        free[k] += 1.0
                    else:
                        free += row
                        row[:] = np.bincount(t, minlength=27) if t else 0.0
                        free -= row
                    cache[s] = t
            self._all_disc = discards
        melds = obs.melds
        if melds is not self._all_melds:
            for s in range(4):
                ms = melds[s]
                if ms is not self._melds[s]:
                    for typ, kind in self._melds[s]:
                        rows[_MELD_ROW[typ] + s][kind] = 0.0
                        free[kind] += _MELD_TILES[typ]
                    for typ, kind in ms:
                        rows[_MELD_ROW[typ] + s][kind] = 1.0
                        free[kind] -= _MELD_TILES[typ]
                    self._melds[s] = ms
            self._all_melds = melds
        won = obs.won
        if won is not self._won:
            for s in range(4):
                rows[_S_WON + s].fill(1.0 if won[s] else 0.0)
                rows[_S_LOCKED + s].fill(1.0 if won[s] and self.stay else 0.0)
            self._won = won
        wins = obs.wins
        if wins is not self._wins:  # a new tuple only when someone won
            for s in range(4):
                if wins[s] != self._wins[s]:
                    row = rows[_S_WINS + s]
                    row[:] = np.bincount(wins[s], minlength=27) if wins[s] else 0.0
                    rows[_S_NWINS + s].fill(len(wins[s]))
            self._wins = wins
        aside = obs.aside
        if aside is not self._aside:  # tiles set aside are seen by everyone (R14.1)
            for s in range(4):
                if aside[s] != self._aside[s]:
                    row = rows[_S_ASIDE + s]
                    free += row
                    row[:] = np.bincount(aside[s], minlength=27) if aside[s] else 0.0
                    free -= row
            self._aside = aside
        if obs.dealer != self._dealer:
            for s in range(4):
                rows[_S_DEALER + s].fill(1.0 if s == obs.dealer else 0.0)
            self._dealer = obs.dealer
        deltas = obs.deltas
        if deltas != self._deltas:
            for s in range(4):
                rows[_S_DELTAS + s].fill(deltas[s])
            self._deltas = deltas
        tile = obs.claim_tile
        if tile != self._claim_tile or obs.claim_from != self._claim_from:
            self.src[_S_CLAIM_TILE : _S_ROB + 1] = 0.0
            if tile is not None and obs.claim_from is not None:
                rows[_S_CLAIM_TILE][tile] = 1.0
                rows[_S_CLAIM_FROM + obs.claim_from].fill(1.0)
                if obs.robbing:
                    rows[_S_ROB].fill(1.0)
            self._claim_tile = tile
            self._claim_from = obs.claim_from
        phase = obs.phase
        if phase != self._phase:
            ph = _PHASE_INDEX[phase]
            for i in range(4):
                rows[_S_PHASE + i].fill(1.0 if i == ph else 0.0)
            self._phase = phase
        wc = obs.wall_count
        if wc != self._wall:
            rows[_S_WALL].fill(wc / WALL_SCALE)
            self._wall = wc
            if obs.last_tiles != self._last:
                rows[_S_LAST].fill(1.0 if obs.last_tiles else 0.0)
                self._last = obs.last_tiles
        # ---- the seat's own rows (only from its own observation)
        seat = obs.seat
        own = _S_OWN + 8 * seat
        hand = rows[own]
        hand[:] = np.frombuffer(obs.hand, np.uint8)
        d = obs.drawn
        od = self._drawn[seat]
        if d != od:
            drawn = rows[own + 1]
            if od >= 0:
                drawn[od] = 0.0
            if d >= 0:
                drawn[d] = 1.0
            self._drawn[seat] = d
        if picks or self._picks[seat]:
            pk = tuple(picks)
            if pk != self._picks[seat]:
                prow = rows[own + 2]
                prow.fill(0.0)
                for k in pk:
                    prow[k] += 1.0
                self._picks[seat] = pk
        np.subtract(free, hand, out=rows[own + 3])
        voids = obs.voids
        if voids != self._voids[seat]:
            for r in range(4):
                vrow = rows[own + 4 + r]
                vrow.fill(0.0)
                v = voids[(seat + r) & 3]
                if v >= 0:
                    vrow[v * 9 : v * 9 + 9] = 1.0
            self._voids[seat] = voids
        return self.src.take(_GATHER[seat], axis=0)
