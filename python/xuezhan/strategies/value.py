"""``value``: ``greedy`` plus fan awareness and defence.

What it adds to :mod:`~xuezhan.strategies.greedy` (each part can be switched off by a
constructor option, for ablations in tournament files: ``options = { defence = false }``):

- **Void suit** (``smart_void``). Chosen by the shanten the hand would have without that suit
  (R4.2), then by the fewest tiles, instead of by the count alone.
- **Fan (R5) awareness** (``fan``). Among the discards of lowest shanten it does not simply
  take the most ukeire:

  - when a discard leaves the hand ready (tenpai), it is scored exactly: the sum over its waits
    of unseen copies × the wait's points (``_core.waits``: shape items such as 清一色
    ``one_suit``, 对对胡 ``all_triplets``, 七对 ``seven_pairs``, 根 ``gen``, capped);
  - otherwise (``steer``) ukeire is weighted up when the hand is already close to a big item:
    at most one tile outside its main suit (清一色), the all-triplets shanten as low as the
    hand's (对对胡; every Sichuan meld is a pung or kong), or seven pairs as its fastest route
    (七对). The pull is deliberately mild: tournaments showed that chasing big hands harder
    costs more speed than it earns in Xuezhan, where the hand goes on after each win;
  - ``lookahead`` (off by default: slower, and no gain measurable over 16,000-hand
    tournaments) scores a 1-shanten discard by looking one draw ahead: the sum over the draws
    that make the hand ready of unseen copies × the wait value of the best ready hand.
- **清一色 route** (``one_suit``). With the void suit gone, every meld in the main suit, at
  least ``one_suit_min`` tiles of it (melds count three) and ``one_suit_wall`` tiles or more
  left, it plays as if the second suit were void too (its tiles go first, waits are scored as
  清一色) when that costs at most ``one_suit_slack`` shanten (one less per ``one_suit_step``
  tiles the wall shrinks, never less than one), and claims nothing in that suit. A suit being
  cleared (this one or the void) loses its least dangerous tile first (``danger``), then its
  most isolated.
  清一色 is +2 fan, four times the points of every win, ready check (R7.3) included; measured
  +0.29 → +0.58 per hand over greedy (quick line-up, 8,000 hands); the shrinking slack
  +0.03 more.
- **Kongs** (``kong_slack``). Makes a kong even when it raises shanten by one: a kong pays at
  once (R6.4) and adds a 根.
- **Claims.** Pengs like greedy (when shanten does not rise), never in its void suit; the kong
  and claim decisions are greedy's, with ``kong_slack`` and the hooks ``_keep_suit`` (清一色
  route) and ``_take_peng`` (``strict_peng``).
- **Defence** (``defence``). Each active opponent gets a threat level from its melds and the
  number of its discards (a player with two pengs, or late in the hand, is probably ready),
  and each tile a danger: none in a suit the opponent cannot win with (its melds already use
  the two other suits, or its declared void, R4.2, R11.2), less in the suit it has been
  throwing away, for a tile it discarded itself, one with no unseen copies, or a terminal.
  Among equally fast discards the danger lowers the score (``alpha``); and when its own hand is
  far (shanten ≥ 2), late (``fold_wall`` tiles left) and an opponent looks ready, it folds: it
  throws the safest tile that keeps shanten within one. Tiles of its own void suit still go
  first: a pig pays everyone (R7.2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xuezhan import _core
from xuezhan.engine.actions import DISCARD, Action, act
from xuezhan.strategies.greedy import (
    GreedyStrategy,
    discard_mask,
    meld_suits,
    shanten,
    suit_counts,
)

__all__ = ["ValueStrategy", "triplets_shanten", "danger"]

_PUNG = 0  # meld type of a pung (docs/internals.md meld codes)
_TERMINAL = tuple(k % 9 in (0, 8) for k in range(27))


def triplets_shanten(counts: bytes, mbytes: bytes) -> int:
    """Shanten toward 对对胡 (four triplets/kongs + a pair) of a 13-tile hand (melds count as
    triplets: Sichuan has no chow, R2.2)."""
    t = len(mbytes)
    p = 0
    for n in counts:
        if n >= 3:
            t += 1
        elif n == 2:
            p += 1
    if t > 4:
        t = 4
    if t + p > 5:
        p = 5 - t
    return 8 - 2 * t - p


def off_suit(counts: bytes, mbytes: bytes) -> tuple[int, int]:
    """(main suit, tiles outside it) counting melds as three tiles each."""
    n = suit_counts(counts)
    for code in mbytes:
        n[(code % 27) // 9] += 3
    main = max(range(3), key=lambda s: n[s])
    return main, sum(n) - n[main]


def potential(counts: bytes, mbytes: bytes, shanten: int, max_factor: float) -> float:
    """Expected points factor of a 13-tile hand at ``shanten`` (see the module doc): only the
    big items, and only when the hand is already close to them (measured: a stronger pull
    toward big hands costs more speed than it earns)."""
    f = 1.0
    main, off = off_suit(counts, mbytes)
    if off <= 1 and all((code % 27) // 9 == main for code in mbytes):
        f *= 1.5  # 清一色 within reach
    if triplets_shanten(counts, mbytes) <= shanten:
        f *= 1.3  # 对对胡 is (one of) the fastest routes
    if not mbytes:
        _, standard, seven = _core.shanten_parts(counts, b"", -1)
        if seven is not None and seven <= shanten and seven < standard:
            f *= 1.5  # 七对 is the fastest route
    return min(f, max_factor)


def opponent_threat(obs: Any, o: int) -> float:
    """Rough probability that active opponent ``o`` is ready (tenpai)."""
    p = 0.05 + 0.22 * len(obs.melds[o]) + 0.045 * len(obs.discards[o])
    return min(p, 0.95)


def likely_void(obs: Any, o: int) -> int:
    """The suit opponent ``o`` seems to be clearing (R4.2): its declared void (R11.2), the
    suit its melds leave out when they use two suits, else the suit it has discarded most if
    that is at least three tiles and half its discards and no meld uses it; -1 if unclear."""
    declared = obs.voids[o]
    if declared >= 0:
        return declared
    msuits = {k // 9 for _, k in obs.melds[o]}
    if len(msuits) >= 2:
        return 3 - sum(msuits) if len(msuits) == 2 else -1
    river = obs.discards[o]
    if len(river) < 3:
        return -1
    n = [0, 0, 0]
    for k in river[:8]:
        n[k // 9] += 1
    s = max(range(3), key=lambda i: n[i])
    if s in msuits or n[s] < 3 or 2 * n[s] < min(len(river), 8):
        return -1
    return s


#: Per threatening opponent, what :func:`danger` needs of it, computed once per decision:
#: (threat, likely void suit, void certain, its discard pile).
ThreatFacts = list[tuple[float, int, bool, tuple[int, ...]]]


def threat_facts(obs: Any, threats: dict[int, float], cache: list[Any] | None = None) -> ThreatFacts:
    """What :func:`danger` reads of each threatening opponent, once per decision (the likely
    void, whether it is certain, its discards) instead of once per tile.

    ``cache`` (four slots, kept by a strategy across a hand's decisions) keeps each opponent's
    likely void until what :func:`likely_void` reads of it changes: its declared void, its
    melds (the engine builds a new tuple only when they change, so identity tells) and the
    first eight tiles of its pile (all it reads of the pile, its length included)."""
    out: ThreatFacts = []
    for o, p in threats.items():
        river, melds, declared = obs.discards[o], obs.melds[o], obs.voids[o]
        head = river[:8]
        hit = cache[o] if cache is not None else None
        if hit is not None and hit[1] is melds and hit[2] == declared and hit[0] == head:
            void, certain = hit[3]
        else:
            void = likely_void(obs, o)
            certain = void >= 0 and (declared >= 0 or len({k // 9 for _, k in melds}) >= 2)
            if cache is not None:
                cache[o] = (head, melds, declared, (void, certain))
        out.append((p, void, certain, river))
    return out


def danger_of(kind: int, live: int, facts: ThreatFacts) -> float:
    """:func:`danger` of ``kind`` with ``live`` unseen copies, from :func:`threat_facts`."""
    suit = kind // 9
    total = 0.0
    for p, void, certain, river in facts:
        if void == suit:
            if certain:
                continue  # R4.2 / R11.2: it cannot win with this suit
            w = 0.15
        else:
            w = 1.0
        if kind in river:
            w *= 0.5
        if live <= 0:
            w *= 0.55
        if _TERMINAL[kind]:
            w *= 0.75
        total += p * w
    return total


def danger(obs: Any, kind: int, vis: bytes, threats: dict[int, float]) -> float:
    """How likely a discard of ``kind`` is to be won on, summed over the threatening opponents."""
    return danger_of(kind, 4 - obs.hand[kind] - vis[kind], threat_facts(obs, threats))


class _Danger:
    """:func:`danger` for one decision: the opponents' facts read once, at the first tile asked
    about (none when no choice depends on danger), and each tile's danger computed at most
    once."""

    __slots__ = ("obs", "vis", "threats", "cache", "facts", "memo")

    def __init__(self, obs: Any, vis: bytes, threats: dict[int, float], cache: list[Any] | None = None) -> None:
        self.obs = obs
        self.vis = vis
        self.threats = threats
        self.cache = cache
        self.facts: ThreatFacts | None = None
        self.memo: dict[int, float] = {}

    def __call__(self, kind: int) -> float:
        d = self.memo.get(kind)
        if d is None:
            facts = self.facts
            if facts is None:
                facts = self.facts = threat_facts(self.obs, self.threats, self.cache)
            d = self.memo[kind] = danger_of(kind, 4 - self.obs.hand[kind] - self.vis[kind], facts)
        return d


class ValueStrategy(GreedyStrategy):
    """Greedy plus fan steering and defence; see the module doc."""

    name = "value"

    def __init__(
        self,
        seed: int | None = None,
        *,
        defence: bool = True,
        fan: bool = True,
        smart_void: bool = True,
        strict_peng: bool = False,
        steer: bool = True,
        fold: bool = True,
        alpha: float = 0.25,
        lookahead: bool = False,
        kong_slack: int = 1,
        fold_wall: int = 16,
        one_suit: bool = True,
        one_suit_min: int = 9,
        one_suit_slack: int = 3,
        one_suit_wall: int = 10,
        one_suit_step: int = 15,
    ) -> None:
        super().__init__(seed)
        self.defence = defence
        self.fan = fan
        self.smart_void = smart_void
        self.strict_peng = strict_peng
        self.steer = steer
        self.fold = fold
        self.alpha = alpha
        self.lookahead = lookahead
        self.kong_slack = kong_slack
        self.fold_wall = fold_wall
        self.one_suit = one_suit
        self.one_suit_min = one_suit_min
        self.one_suit_slack = one_suit_slack
        self.one_suit_wall = one_suit_wall
        self.one_suit_step = one_suit_step
        self._max_factor = 16.0
        self._core_rules: Any = None
        self._facts: list[Any] = [None, None, None, None]

    def reset(self, seat: int, rules: Any) -> None:
        super().reset(seat, rules)
        self._facts = [None, None, None, None]  # threat_facts per opponent, kept across decisions
        self._max_factor = float(2 ** (rules.max_fan - 1))
        self._core_rules = rules.core

    # ------------------------------------------------------------------ void suit
    def _choose_void(self, counts: bytes, melds: bytes) -> int:
        n = suit_counts(counts)
        used = meld_suits(melds)
        cands = [s for s in range(3) if s not in used] or [0, 1, 2]
        if not self.smart_void:
            return min(cands, key=lambda s: (n[s], s))
        return min(cands, key=lambda s: (shanten(counts, melds, s), n[s], s))

    # ------------------------------------------------------------------ turn
    def turn(
        self, obs: Any, legal: Sequence[Action], counts: bytes, melds: bytes, discards: tuple[int, bool] | None = None
    ) -> Action:
        void = self.void
        mask = (discard_mask(legal) if discards is None else discards)[0]  # bit k = kind k
        vis = self._seen.counts(obs)
        # the ukeire only of the fastest legal discards: all but a fold reads (see below)
        rows = [r for r in _core.best_discards(counts, melds, vis, void, mask) if mask >> r[0] & 1]
        if not rows:
            return act(self.seat, DISCARD, mask.bit_length() - 1)
        now = min(r[1] for r in rows)
        kong = self._kong(legal, counts, melds, void, now)
        if kong is not None:
            return kong
        threats = self._threats(obs) if self.defence else {}
        worst = max(threats.values(), default=0.0)
        dz = _Danger(obs, vis, threats, self._facts)  # each tile's danger computed once in this decision
        # Fold only when winning is unlikely anyway: far from ready, late, and facing a
        # ready-looking opponent (being unready at the end costs the same either way, R7.4).
        defend = self.fold and now >= 2 and obs.wall_count <= self.fold_wall and worst >= 0.6
        if defend:  # a fold ranks slower discards by ukeire too
            rows = [r for r in _core.best_discards(counts, melds, vis, void) if mask >> r[0] & 1]
        void_rows = [r for r in rows if r[0] // 9 == void] if void >= 0 else []
        if void_rows:
            if defend:
                return act(self.seat, DISCARD, min(void_rows, key=lambda r: (dz(r[0]), r[1], -r[2], r[0]))[0])
            return act(self.seat, DISCARD, self._clear_tile(counts, dz if threats else None, [r[0] for r in void_rows]))
        second = self._one_suit_target(obs, counts, melds, now) if not defend else -1
        if second >= 0:
            # play as if the second suit were void too: its tiles go first, waits are 清一色
            void = second
            rows = [r for r in _core.best_discards(counts, melds, vis, void, mask) if mask >> r[0] & 1]
            now = min(r[1] for r in rows)
            second_rows = [r for r in rows if r[0] // 9 == void]
            if second_rows:
                best_sh = min(r[1] for r in second_rows)
                kinds = [r[0] for r in second_rows if r[1] == best_sh]
                return act(self.seat, DISCARD, self._clear_tile(counts, dz if threats else None, kinds))
        if defend:
            cands = [r for r in rows if r[1] <= now + 1]
            best = min(cands, key=lambda r: (round(dz(r[0]), 3), r[1], -r[2], r[0]))
            return act(self.seat, DISCARD, best[0])
        cands = [r for r in rows if r[1] == now]
        if not self.fan:
            # no void-suit tile is legal here: greedy's ranking over the legal discards
            return act(self.seat, DISCARD, _core.greedy_discard(counts, melds, vis, void, mask, False)[0])
        if len(cands) == 1:  # every score below is at least 0: the one candidate wins
            return act(self.seat, DISCARD, cands[0][0])
        best_kind, best_score = -1, -1.0
        weigh = bool(threats)  # a danger term against discards into a ready-looking opponent
        for kind, sh, uk in cands:
            c = bytearray(counts)
            c[kind] -= 1
            c13 = bytes(c)
            if sh == 0:
                score = self._wait_value(c13, melds, vis, void) + 0.01 * uk
            elif sh == 1 and self.lookahead:
                score = self._one_away_value(c13, melds, vis, void) + 0.01 * uk
            else:
                score = uk * potential(c13, melds, sh, self._max_factor) if self.steer else float(uk)
            if weigh:
                score *= 1.0 - self.alpha * min(1.0, dz(kind))
            score += 0.001 * _TERMINAL[kind]
            if score > best_score:
                best_kind, best_score = kind, score
        return act(self.seat, DISCARD, best_kind)

    def _clear_tile(self, counts: bytes, dz: _Danger | None, kinds: Sequence[int]) -> int:
        """Which tile of a suit being cleared to throw: all are useless to the hand, so the
        least dangerous one (``dz``, None without threats), then the most isolated."""
        if dz is not None and len(kinds) > 1:  # one tile: nothing to weigh
            low = min(round(dz(k), 2) for k in kinds)
            kinds = [k for k in kinds if round(dz(k), 2) <= low]
        mask = 0
        for k in kinds:
            mask |= 1 << k
        return _core.most_isolated(counts, mask)

    def _one_suit_target(self, obs: Any, counts: bytes, melds: bytes, now: int) -> int:
        """The suit to clear for 清一色 (+2 fan: four times the points), or -1. Only early, with
        the void suit already gone, every meld in the main suit, at least ``one_suit_min`` tiles
        of it, and at most ``one_suit_slack`` more shanten than the plain route (less as the wall
        shrinks)."""
        if not self.one_suit or obs.wall_count < self.one_suit_wall:
            return -1
        main, off = off_suit(counts, melds)
        if any((code % 27) // 9 != main for code in melds):
            return -1
        if sum(counts) + 3 * len(melds) - off < self.one_suit_min:
            return -1
        others = [s for s in range(3) if s != main and s != self.void]
        if len(others) != 1 or off == 0:
            return -1
        second = others[0]
        if self.void >= 0 and any(counts[self.void * 9 : self.void * 9 + 9]):
            return -1
        # the later, the less shanten 清一色 may cost: 1 from one_suit_wall, +1 per step of wall
        slack = min(self.one_suit_slack, 1 + (obs.wall_count - self.one_suit_wall) // self.one_suit_step)
        if shanten(counts, melds, second) > now + slack:
            return -1
        return second

    def _wait_value(self, c13: bytes, melds: bytes, vis: bytes, void: int) -> float:
        """Σ over the waits of a ready 13-tile hand of unseen copies × the wait's points."""
        score = 0.0
        for w, _fan, pts in _core.waits(c13, melds, self._core_rules, void):
            live = 4 - c13[w] - vis[w]
            if live > 0:
                score += live * pts
        return score

    def _one_away_value(self, c13: bytes, melds: bytes, vis: bytes, void: int) -> float:
        """Σ over the draws that make a 1-shanten hand ready of unseen copies × the best
        ready hand's wait value (one draw of lookahead: good shapes over raw ukeire)."""
        total = 0.0
        c = bytearray(c13)
        parts = _core.shanten_parts
        wait_mask = _core.wait_mask
        for t in range(27):
            if void >= 0 and t // 9 == void:
                continue
            live = 4 - c[t] - vis[t]
            if live <= 0:
                continue
            c[t] += 1
            if parts(bytes(c), melds, void)[0] == 0:
                best = 0.0
                for e in range(27):
                    if c[e] == 0 or e == t:
                        continue
                    c[e] -= 1
                    h = bytes(c)
                    if wait_mask(h, melds, void):
                        v = self._wait_value(h, melds, vis, void)
                        if v > best:
                            best = v
                    c[e] += 1
                total += live * best
            c[t] -= 1
        return total

    def _threats(self, obs: Any) -> dict[int, float]:
        out = {}
        for o in range(4):
            if o == obs.seat or obs.won[o] or obs.escaped[o]:
                continue
            out[o] = opponent_threat(obs, o)
        return out

    # ------------------------------------------------------------------ claims
    def _keep_suit(self, obs: Any, counts: bytes, melds: bytes, suit: int) -> bool:
        # a meld in the suit being cleared for 清一色 would kill it
        return self._one_suit_target(obs, counts, melds, shanten(counts, melds, self.void)) == suit

    def _take_peng(self, counts: bytes, melds: bytes, tile: int, now: int) -> bool:
        if not self.strict_peng:
            return super()._take_peng(counts, melds, tile, now)
        void = self.void
        seven = None if melds else _core.shanten_parts(counts, melds, void)[2]
        c = bytearray(counts)
        c[tile] -= 2
        m = melds + bytes([_PUNG * 27 + tile])
        after = shanten(bytes(c), m, void)
        if seven is not None and seven <= now and after >= seven:
            return False  # keep the better seven-pairs route
        if after < now:
            return True
        if after == now:
            # on an all-triplets route a peng costs nothing
            best_tt = min(
                triplets_shanten(bytes(c[:k]) + bytes([c[k] - 1]) + bytes(c[k + 1 :]), m) for k in range(27) if c[k]
            )
            return best_tt <= after
        return False
