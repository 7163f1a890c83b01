"""The round state machine (docs/rules.md R1–R4, R10 defaults, R11 exchange and void).

``Round`` is a :class:`~xuezhan.engine.state.HandState` with transitions. Exactly one seat has
a pending decision at a time (``round.cur``); ``legal_actions(seat)`` lists its legal actions
and ``apply(action)`` takes one. Claims on a discard (or an added kong, R3.3) are asked one
seat at a time, in turn order from the discarder (R13), then resolved (R3.2). Compulsory wins
of the last-tiles phase (R4.4) are taken by the engine without asking. ``Escape`` (R8) is
accepted from any active seat at any time.

    >>> r = Round("leshan", ["1235679m1235579p", "123456789m3455p", "123456789s1489m",
    ...           "124468p1356789s"], wall="", dealer=0)
    >>> r.apply(act(0, DISCARD, 13)); [str(a) for a in r.legal_actions(1)]
    ['1 hu', '1 peng', '1 pass']
"""

from __future__ import annotations

import random
from itertools import combinations, compress
from typing import Optional, Sequence, Union

from xuezhan.engine import _core_adapter as core
from xuezhan.engine import settlement as st_
from xuezhan.engine._core_adapter import (
    DISCARDER_PAYS,
    HEAVEN_EARTH,
    KONG_DISCARD,
    KONG_DRAW,
    LAST_TILE,
    ROBBING_KONG,
    SELF_DRAW,
)
from xuezhan.engine.actions import (
    ANGANG,
    DISCARD,
    ESCAPE,
    EXCHANGE,
    GANG,
    HU,
    JIAGANG,
    PASS,
    PENG,
    VOID,
    Action,
    ActionError,
    IllegalAction,
    act,
    parse_action,
)
from xuezhan.engine.state import CLAIM, EXCHANGE as PH_EXCHANGE, OVER, TURN, VOID as PH_VOID, HandState
from xuezhan.rules import Rules, as_rules
from xuezhan.tiles import SUITS, parse_tiles

__all__ = ["Round", "deal", "DIRECTIONS"]

TILE_STR = st_.TILE_STR
SUIT = SUITS
#: R11.1 exchange directions and the seat offset each passes to.
DIRECTIONS = {"next": 1, "prev": 3, "across": 2}

# Pre-built shared actions (no allocation in the hot loop).
_HU = [act(s, HU) for s in range(4)]
_PENG = [act(s, PENG) for s in range(4)]
_GANG = [act(s, GANG) for s in range(4)]
_PASS = [act(s, PASS) for s in range(4)]
_DISC = [[act(s, DISCARD, k) for k in range(27)] for s in range(4)]
_ANG = [[act(s, ANGANG, k) for k in range(27)] for s in range(4)]
_DISC_SUIT = [[tuple(_DISC[s][v * 9 : v * 9 + 9]) for v in range(3)] for s in range(4)]
_JIA = [[act(s, JIAGANG, k) for k in range(27)] for s in range(4)]
_VOIDS = [[act(s, VOID, k) for k in range(3)] for s in range(4)]
_RANGE27 = range(27)
_TILES = tuple(k for k in range(27) for _ in range(4))
_IDX108 = range(108)
_wait_mask = core.wait_mask
_SUIT_SLICES = ((0, 9), (9, 18), (18, 27))
# index triples x <= y <= z below n, for the exchange choices
_TRIPLES = [
    [(x, y, z) for x in range(n) for y in range(x, n) for z in range(y, n)] for n in range(10)
]
# shared exchange actions: _XACT[seat][(k1, k2, k3)], three kinds of one suit, sorted
_XACT = [
    {(a + x, a + y, a + z): Action(s, EXCHANGE, (a + x, a + y, a + z)) for a in (0, 9, 18) for x, y, z in _TRIPLES[9]}
    for s in range(4)
]


def deal(seed: int, dealer: int) -> tuple[list[list[int]], list[int], str]:
    """R1.2/R1.4: shuffle the 108 tiles with ``random.Random(seed)`` (Mersenne Twister, the same
    on every platform): the tiles are ordered by 108 successive ``random()`` draws (a uniformly
    random permutation; ties, of probability ~2^-40, keep the tile order). The dealer gets the
    first 14, the others 13 each in turn order from the dealer; the rest is the wall, in order.
    The exchange direction (R11.1) is the next draw of the same generator, with equal odds."""
    rng = random.Random(seed)
    r = rng.random
    keys = [r() for _ in _TILES]
    tiles = [_TILES[i] for i in sorted(_IDX108, key=keys.__getitem__)]
    direction = ("next", "prev", "across")[rng.randrange(3)]
    hands: list[list[int]] = [[], [], [], []]
    pos = 0
    for i in range(4):
        s = (dealer + i) % 4
        n = 14 if i == 0 else 13
        hands[s] = tiles[pos : pos + n]
        pos += n
    return hands, tiles[pos:], direction


class Round(HandState):
    """One hand of Xuezhan Daodi. See the module docstring."""

    def __init__(
        self,
        rules: Union[Rules, str, dict, None],
        hands: Sequence[Sequence[int]],
        wall: Sequence[int],
        dealer: int = 0,
        exchange: Optional[str] = None,
        seed: Optional[int] = None,
        scores: Optional[Sequence[int]] = None,
    ) -> None:
        rules = as_rules(rules)
        if isinstance(wall, str):
            wall = parse_tiles(wall)
        hands = [parse_tiles(h) if isinstance(h, str) else h for h in hands]
        _check_deal(hands, wall, dealer)
        if rules.exchange_three and exchange not in DIRECTIONS:
            raise ValueError(
                f"exchange_three is on: the exchange direction must be one of next, prev, across (got {exchange!r})"
            )
        super().__init__(rules, hands, wall, dealer, exchange, seed, scores)
        if max(self.dealt) > 4:
            _check_kinds(self.dealt)
        self._forced_opt = rules.last_tiles_forced
        self._lock_opt = rules.pass_win_lock
        self.events.append(
            {"type": "start", "dealer": dealer, "wall_count": len(self.wall)}  # R11.1 direction: revealed later
        )
        if rules.exchange_three:
            self.phase = PH_EXCHANGE
            self.cur = 0
            self.legal = self._exchange_actions(0)
        elif rules.declare_void:
            self._start_void()
        else:
            self._begin_play()

    @classmethod
    def from_seed(cls, rules, seed: int, dealer: int = 0, scores=None) -> "Round":
        """A hand dealt from ``seed`` (R1.4)."""
        rules = as_rules(rules)
        hands, wall, direction = deal(seed, dealer)
        return cls(rules, hands, wall, dealer, direction if rules.exchange_three else None, seed, scores)

    # ================================================================== public API
    def legal_actions(self, seat: int) -> list[Action]:
        """The legal actions of ``seat`` at the pending decision (empty if it is not its decision).

        ``escape`` is always accepted by :meth:`apply` from an active seat but is not listed."""
        if seat == self.cur:
            return list(self.legal)  # a copy: callers cannot change the engine's list
        return []

    def apply(self, action: Union[Action, str], default: bool = False, note: Optional[str] = None) -> None:
        """Take one action. An illegal action raises :class:`IllegalAction` naming it and leaves
        the state unchanged. ``default`` marks an R10 default and ``note`` a reason (timeout,
        crash); both are recorded in the decision event."""
        n = len(self.events)
        self._apply(action, default)
        if note is not None:
            self.events[n]["note"] = note

    def _apply_legal(self, action: Action) -> None:
        """Apply an action known to be in ``self.legal`` (the play loop checked it)."""
        if self.phase == TURN and action.verb == DISCARD:
            self._discard(action.seat, action.arg, False)
        else:
            self._apply(action, False)

    def _apply(self, action: Union[Action, str], default: bool) -> None:
        if type(action) is Action and self.phase == TURN and action in self.legal and action.verb == DISCARD:
            # fast path: the commonest decision
            if default:
                self.defaults_used += 1
            self._discard(action.seat, action.arg, default)
            return
        if isinstance(action, str):
            try:
                action = parse_action(action)
            except ActionError as exc:
                raise IllegalAction(action, str(exc)) from None
        elif not isinstance(action, Action):
            raise IllegalAction(action, "not an Action")
        seat, verb = action.seat, action.verb
        if self.phase == OVER:
            raise IllegalAction(action, "the hand is over")
        if verb == ESCAPE:
            if not (isinstance(seat, int) and 0 <= seat < 4) or not self.active[seat]:
                raise IllegalAction(action, f"seat {seat} is not an active player (it has won or left)")
            if default:
                self.defaults_used += 1
            self._escape(seat, default)
            return
        if seat != self.cur:
            raise IllegalAction(action, f"it is seat {self.cur}'s decision, not seat {seat}'s")
        phase = self.phase
        if phase == PH_EXCHANGE:
            self._apply_exchange(action, default)
            return
        if action not in self.legal:
            raise IllegalAction(action, self._why_illegal(action))
        if default:
            self.defaults_used += 1
        if phase == TURN:
            if verb == DISCARD:
                self._discard(seat, action.arg, default)
            elif verb == HU:
                self.events.append({"type": "hu", "seat": seat, "default": default})
                self._self_draw_win(seat, False)
            elif verb == ANGANG:
                self._angang(seat, action.arg, default)
            else:
                self._jiagang(seat, action.arg, default)
        elif phase == CLAIM:
            self._claim(seat, verb, default)
        else:  # void
            self._apply_void(seat, action.arg, default)

    def default_action(self, seat: Optional[int] = None) -> Action:
        """The R10 default of the pending decision (R10.1, R10.2, R11.1, R11.2)."""
        seat = self.cur if seat is None else seat
        if seat is None or seat != self.cur:
            raise IllegalAction(f"{seat} default", "no pending decision for this seat")
        phase = self.phase
        if phase == CLAIM:
            return _PASS[seat]  # R10.2 (compulsory wins are taken by the engine)
        c = self.counts[seat]
        if phase == TURN:
            # R10.1: the tile just drawn; else (no draw, or R11.2 forbids it) the last allowed tile
            # of the sorted hand. A self-draw win is not declared on timeout (R10.2).
            allowed = [a.arg for a in self.legal if a.verb == DISCARD]
            if self.drawn >= 0 and self.drawn in allowed:
                return _DISC[seat][self.drawn]
            return _DISC[seat][max(allowed)]
        n = [sum(c[a:b]) for a, b in _SUIT_SLICES]
        if phase == PH_VOID:
            # R11.2 default: the suit it holds fewest of (the first in m, p, s order on a tie).
            return _VOIDS[seat][n.index(min(n))]
        # R11.1 default: the three highest tiles of the suit it holds fewest of, among suits
        # with at least three.
        suits = [i for i in range(3) if n[i] >= 3]
        s = min(suits, key=lambda i: (n[i], i))
        tiles: list[int] = []
        for k in range(s * 9 + 8, s * 9 - 1, -1):
            tiles.extend([k] * c[k])
        return act(seat, EXCHANGE, tuple(tiles[:3]))

    def result(self) -> dict:
        """The hand's result (R9.3): deltas, next dealer, wins, end reason, rules fired."""
        return {
            "deltas": list(self.deltas),
            "next_dealer": self.next_dealer,
            "end": self.end_reason,
            "wins": [
                {k: w[k] for k in ("seat", "from", "tile", "fan", "points", "items")} for w in self.wins
            ],
            "kongs": [
                {"seat": k["seat"], "tile": TILE_STR[k["kind"]], "how": k["how"], "from": k["from"]}
                for k in self.kongs
            ],
            "payments": [e for e in self.events if e["type"] == "pay"],
            "fired": sorted(self.fired),
        }

    def observation(self, seat: int):
        """What ``seat`` may know now (see :class:`~xuezhan.engine.observation.Observation`)."""
        from xuezhan.engine.observation import Observation

        return Observation(self, seat)

    # ================================================================== setup phases
    def _exchange_actions(self, seat: int) -> list[Action]:
        """R11.1: every choice of three tiles of one suit (distinct multisets, sorted kinds)."""
        c = self.counts[seat]
        get = _XACT[seat].__getitem__
        out: list[Action] = []
        cache = _XCACHE
        for a, b in _SUIT_SLICES:
            key = (a, bytes(c[a:b]).translate(_CAP3))  # 4 copies choose like 3
            triples = cache.get(key)
            if triples is None:
                if len(cache) >= 100_000:  # bounded memory
                    cache.clear()
                triples = cache[key] = _exchange_triples(a, key[1])
            out.extend(map(get, triples))
        return out

    def _apply_exchange(self, action: Action, default: bool) -> None:
        seat = action.seat
        tiles = action.arg
        if action in self.legal:
            pass  # one of the listed choices
        elif action.verb != EXCHANGE or not isinstance(tiles, tuple) or len(tiles) != 3:
            raise IllegalAction(action, f"seat {seat} must choose three tiles to exchange (R11.1)")
        else:
            if any(not isinstance(k, int) or not 0 <= k < 27 for k in tiles):
                raise IllegalAction(action, "not three tiles")
            if len({k // 9 for k in tiles}) != 1:
                raise IllegalAction(action, "the three tiles must be of one suit (R11.1)")
            c = self.counts[seat]
            for k in set(tiles):
                if tiles.count(k) > c[k]:
                    raise IllegalAction(action, f"seat {seat} does not hold {tiles.count(k)} × {TILE_STR[k]}")
            tiles = tuple(sorted(tiles))
        if default:
            self.defaults_used += 1
        self.x_choice[seat] = tiles
        self.events.append(
            {"type": "exchange", "seat": seat, "tiles": TILE_STR[tiles[0]] + TILE_STR[tiles[1]] + TILE_STR[tiles[2]],
             "default": default}
        )
        if seat < 3:
            self.cur = seat + 1
            self.legal = self._exchange_actions(seat + 1)
            return
        # All four pass at once (R11.1).
        off = DIRECTIONS[self.exchange_dir]  # type: ignore[index]
        for s in range(4):
            for k in self.x_choice[s]:  # type: ignore[union-attr]
                self.counts[s][k] -= 1
        for s in range(4):
            to = (s + off) & 3
            for k in self.x_choice[s]:  # type: ignore[union-attr]
                self.counts[to][k] += 1
        self.events.append({"type": "exchanged", "direction": self.exchange_dir})
        for s in range(4):
            frm = (s - off) & 3
            self.events.append(
                {"type": "received", "seat": s, "tiles": "".join(TILE_STR[k] for k in self.x_choice[frm])}  # type: ignore[union-attr]
            )
        self.fired.add("R11.1-exchange")
        if self.rules.declare_void:
            self._start_void()
        else:
            self._begin_play()

    def _start_void(self) -> None:
        self.phase = PH_VOID
        self.cur = 0
        self.legal = list(_VOIDS[0])

    def _apply_void(self, seat: int, suit: int, default: bool) -> None:
        self.v_choice[seat] = suit
        self.events.append({"type": "void", "seat": seat, "suit": SUIT[suit], "default": default})
        if seat < 3:
            self.cur = seat + 1
            self.legal = list(_VOIDS[seat + 1])
            return
        self.void = list(self.v_choice)
        self.void_view = tuple(self.void)
        self.voids_known = True
        self.events.append({"type": "voids", "voids": [SUIT[v] for v in self.void]})
        self.fired.add("R11.2-void")
        self._begin_play()

    def _begin_play(self) -> None:
        for s in range(4):
            if s != self.dealer:
                self._update_mask(s)
        d = self.dealer
        self.drawn = -1
        self.repl = False
        self.drew_last = False
        self.after_peng = False
        self.turn_kong = None
        self.heaven = True  # R5 heaven_earth: the dealer's first 14 tiles
        self._turn_decision(d)

    # ================================================================== turns (R2)
    def _update_mask(self, s: int) -> None:
        self.mask[s] = _wait_mask(bytes(self.counts[s]), self.mbytes[s], self.void[s])

    def _draw(self, seat: int, replacement: bool = False) -> None:
        """R1.3: draw from the front of the wall (kong replacements too). A player that must
        draw from an empty wall ends the hand (R4.5)."""
        wall = self.wall
        pos = self.wpos
        if pos >= len(wall):
            self._end("wall")
            return
        # R4.4: the last-tiles phase begins with the first draw made while the wall holds no
        # more tiles than there are active players.
        if not self.last_phase and len(wall) - pos <= self.n_active:
            self.last_phase = True
            self.events.append({"type": "last_tiles", "wall_count": len(wall) - pos})
        t = wall[pos]
        self.wpos = pos + 1
        self.counts[seat][t] += 1
        self.lock[seat] = 0  # R4.3: its own draw clears the restriction
        self.drawn = t
        self.repl = replacement
        self.drew_last = self.wpos == len(wall)
        self.after_peng = False
        if not replacement:
            self.turn_kong = None
        # R5 heaven_earth (地胡): a non-dealer's first draw before any claim.
        self.heaven = not replacement and not self.first_drawn[seat] and not self.any_claim and seat != self.dealer
        self.first_drawn[seat] = True
        self.events.append({"type": "draw", "seat": seat, "tile": TILE_STR[t], "replacement": replacement})
        self._turn_decision(seat)

    def _turn_decision(self, seat: int) -> None:
        c = self.counts[seat]
        drawn = self.drawn
        if drawn >= 0:
            can_hu = (self.mask[seat] >> drawn) & 1
        elif self.heaven and not self.after_peng:
            can_hu = core.is_win(bytes(c), self.mbytes[seat], self.void[seat])
        else:
            can_hu = False
        if can_hu and self.last_phase and self._forced_opt:
            # R4.4: a self-drawn completing tile must be declared.
            self.cur = seat
            self._self_draw_win(seat, True)
            return
        self.phase = TURN
        self.cur = seat
        legal = [_HU[seat]] if can_hu else []
        v = self.void[seat]
        if not self.after_peng and self.wpos < len(self.wall):
            # R2.1: concealed and added kongs, not right after a peng, only while the wall is not
            # empty; R11.2: never of the void suit.
            if 4 in c:
                ang = _ANG[seat]
                for k in _RANGE27:
                    if c[k] == 4 and k // 9 != v:
                        legal.append(ang[k])
            for code in self.melds[seat]:
                if code < 27 and c[code]:
                    legal.append(_JIA[seat][code])
        disc = _DISC[seat]
        if v >= 0:
            a = v * 9
            seg = c[a : a + 9]
            if any(seg):  # R11.2: while it holds a tile of its void suit it must discard such a tile
                legal.extend(compress(_DISC_SUIT[seat][v], seg))
                self.legal = legal
                return
        legal.extend(compress(disc, c))
        self.legal = legal

    def _discard(self, seat: int, t: int, default: bool) -> None:
        c = self.counts[seat]
        c[t] -= 1
        self.river[seat].append(t)
        rt = self._river_t
        rt[seat] = rt[seat] + (t,)
        self._river_view = tuple(rt)
        self.events.append({"type": "discard", "seat": seat, "tile": TILE_STR[t], "default": default})
        mask = self.mask
        mask[seat] = _wait_mask(bytes(c), self.mbytes[seat], self.void[seat])
        # Fast path: nobody could claim (no wait on t, fewer than two t in hand): the next draws.
        a = self.active
        counts = self.counts
        s1 = (seat + 1) & 3
        s2 = (seat + 2) & 3
        s3 = (seat + 3) & 3
        if (
            (a[s1] and ((mask[s1] >> t) & 1 or counts[s1][t] >= 2))
            or (a[s2] and ((mask[s2] >> t) & 1 or counts[s2][t] >= 2))
            or (a[s3] and ((mask[s3] >> t) & 1 or counts[s3][t] >= 2))
        ):
            ctx = 0
            kong = None
            if self.repl:
                ctx = KONG_DISCARD  # R5 kong_discard / R6.5: right after its kong replacement draw
                kong = self.turn_kong
            if self.drew_last:
                ctx |= LAST_TILE  # R5 last_tile: the discard right after drawing the last wall tile
            self._open_claims(seat, t, False, ctx, kong)
            return
        self.claim_group += 1
        self._draw(self.next_active(seat))

    def _angang(self, seat: int, k: int, default: bool) -> None:
        self.counts[seat][k] = 0
        self.melds[seat].append(54 + k)
        self._melds_changed(seat)
        self.meld_from[seat].append(None)
        self.events.append({"type": "angang", "seat": seat, "tile": TILE_STR[k], "default": default})
        self.turn_kong = st_.settle_kong(self, seat, k, "angang", None)
        self._update_mask(seat)
        self._draw(seat, True)

    def _jiagang(self, seat: int, k: int, default: bool) -> None:
        self.events.append({"type": "jiagang", "seat": seat, "tile": TILE_STR[k], "default": default})
        if self.rules.rob_kong:
            # R3.3: the others may win on the added tile before the kong stands.
            self._open_claims(seat, k, True, ROBBING_KONG, None)
        else:
            self._complete_jiagang(seat, k)

    def _complete_jiagang(self, seat: int, k: int) -> None:
        self.counts[seat][k] -= 1
        ms = self.melds[seat]
        ms[ms.index(k)] = 27 + k
        self._melds_changed(seat)
        self.events.append({"type": "meld", "seat": seat, "meld": "jiagang", "tile": TILE_STR[k], "from": None})
        self.turn_kong = st_.settle_kong(self, seat, k, "jiagang", None)
        self._update_mask(seat)
        self._draw(seat, True)

    def _self_draw_win(self, seat: int, forced: bool) -> None:
        c = self.counts[seat]
        ctx = SELF_DRAW
        drawn = self.drawn
        payer = None
        if drawn >= 0:
            if self.repl:
                ctx |= KONG_DRAW
                tk = self.turn_kong
                # R6.3: a kong on a discard won on its replacement: the discarder pays alone.
                if tk is not None and tk["how"] == "gang" and self.rules.kong_draw_discarder_pays:
                    ctx |= DISCARDER_PAYS
                    payer = tk["from"]
            if self.drew_last:
                ctx |= LAST_TILE
            if self.heaven:
                ctx |= HEAVEN_EARTH
            res = st_.score_win(self, seat, bytes(c), drawn, ctx)
            kind = drawn
        else:
            # 天胡: the dealer's first 14 tiles; the winning tile is the one giving the most fan.
            ctx |= HEAVEN_EARTH
            best = None
            kind = -1
            for k in _RANGE27:
                if c[k]:
                    r = st_.score_win(self, seat, bytes(c), k, ctx)
                    if r is not None and (best is None or (r[1], r[0]) > (best[1], best[0])):
                        best, kind = r, k
            res = best
        if res is None:  # pragma: no cover - the wait mask and the fan disagree
            raise RuntimeError(f"seat {seat}: the core's wait mask and fan disagree on {TILE_STR[kind]}")
        if forced:
            self.events.append({"type": "hu", "seat": seat, "forced": True})
        self._mark_won(seat)
        st_.record_win(self, seat, None, kind, res, ctx, forced, "self_draw")
        st_.settle_self_draw(self, seat, res[2], payer)
        if len(self.wins) >= 3:
            self._end("three_won")
            return
        # R2.5: after a self-draw win, the first active player after the winner draws.
        self._draw(self.next_active(seat))

    def _mark_won(self, seat: int) -> None:
        self.won[seat] = True
        self.cur = None
        self._status_view = None
        self.active[seat] = False
        self.n_active -= 1

    # ================================================================== claims (R3)
    def _open_claims(self, frm: int, t: int, rob: bool, ctx: int, kong: Optional[dict]) -> None:
        self.claim_group += 1
        self.c_tile = t
        self.c_from = frm
        self.c_rob = rob
        self.c_ctx = ctx
        self.c_kong = kong
        a = self.active
        self.c_queue = [s for s in ((frm + 1) & 3, (frm + 2) & 3, (frm + 3) & 3) if a[s]]
        self.c_qi = 0
        self.c_hu = []
        self.c_meld = None
        self._advance_claims()

    def _advance_claims(self) -> None:
        """Ask the seats that could claim, in turn order from the discarder (R13)."""
        q = self.c_queue
        t = self.c_tile
        rob = self.c_rob
        c_fan = self.c_fan
        while self.c_qi < len(q):
            s = q[self.c_qi]
            c = self.counts[s]
            legal = []
            c_fan[s] = 0
            if (self.mask[s] >> t) & 1:
                h = bytearray(c)
                h[t] += 1
                res = st_.score_win(self, s, bytes(h), t, self.c_ctx)
                if res is not None:
                    f = res[1]
                    if self.last_phase and self._forced_opt:
                        # R4.4: a discard that completes a hand is won at once.
                        self.events.append({"type": "hu", "seat": s, "forced": True})
                        self.c_hu.append(s)
                        self.c_qi += 1
                        continue
                    # R4.3: a seat that passed a win may not win on a discard until its own next
                    # draw, unless this win is worth strictly more fan (after the cap), or the
                    # last-tiles phase has begun.
                    if not (self._lock_opt and self.lock[s] and f <= self.lock[s] and not self.last_phase):
                        c_fan[s] = f
                        legal.append(_HU[s])
            if not rob and c[t] >= 2 and t // 9 != self.void[s] and (ASK_MELD_AFTER_HU or not self.c_hu):
                legal.append(_PENG[s])
                if c[t] == 3 and self.wpos < len(self.wall):
                    legal.append(_GANG[s])
            if legal:
                legal.append(_PASS[s])
                self.phase = CLAIM
                self.cur = s
                self.legal = legal
                return
            self.c_qi += 1
        self._resolve_claims()

    def _claim(self, seat: int, verb: str, default: bool) -> None:
        self.events.append({"type": verb, "seat": seat, "default": default})
        if verb == HU:
            self.c_hu.append(seat)
        else:
            if self.c_fan[seat] and self._lock_opt:
                # R4.3: it passed a win; remember the best fan passed.
                if self.c_fan[seat] > self.lock[seat]:
                    self.lock[seat] = self.c_fan[seat]
                self.fired.add("R4.3-pass")
            if verb != PASS:
                self.c_meld = (seat, verb)
        self.c_qi += 1
        self._advance_claims()

    def _resolve_claims(self) -> None:
        """R3.2: win > kong, peng; several winners all win (then no peng or kong)."""
        frm = self.c_from
        t = self.c_tile
        if self.c_hu:
            if len(self.c_hu) > 1:
                self.fired.add("R3.2-multi-win")
            self.any_claim = True
            rob = self.c_rob
            if rob:
                # R3.3: the kong is cancelled; the robbed tile leaves the kong-maker's hand.
                self.counts[frm][t] -= 1
                self.river[frm].append(t)
                self._river_changed(frm)
                self._update_mask(frm)
            for s in self.c_hu:
                h = bytearray(self.counts[s])
                h[t] += 1
                res = st_.score_win(self, s, bytes(h), t, self.c_ctx)
                self._mark_won(s)
                st_.record_win(self, s, frm, t, res, self.c_ctx, False, "rob" if rob else "discard")
                st_.settle_discard_win(self, s, frm, res[2], self.c_kong, rob)
            if len(self.wins) >= 3:
                self._end("three_won")
                return
            # R2.5: the first active player after the last winner, counting from the discarder.
            self._draw(self.next_active(self.c_hu[-1]))
            return
        if self.c_rob:
            self._complete_jiagang(frm, t)
            return
        if self.c_meld is not None:
            seat, verb = self.c_meld
            self.any_claim = True
            self.river[frm].pop()
            self._river_changed(frm)
            c = self.counts[seat]
            if verb == PENG:
                c[t] -= 2
                self.melds[seat].append(t)
                self._melds_changed(seat)
                self.meld_from[seat].append(frm)
                self.events.append({"type": "meld", "seat": seat, "meld": "peng", "tile": TILE_STR[t], "from": frm})
                # R2.4: after a peng the claimer discards (no draw, no kong).
                self.drawn = -1
                self.repl = False
                self.drew_last = False
                self.after_peng = True
                self.turn_kong = None
                self.heaven = False
                self._turn_decision(seat)
                return
            c[t] -= 3
            self.melds[seat].append(27 + t)
            self._melds_changed(seat)
            self.meld_from[seat].append(frm)
            self.events.append({"type": "meld", "seat": seat, "meld": "gang", "tile": TILE_STR[t], "from": frm})
            self.turn_kong = st_.settle_kong(self, seat, t, "gang", frm)
            self._update_mask(seat)
            self._draw(seat, True)
            return
        # R2.5: no claim taken: the next active player draws.
        self._draw(self.next_active(frm))

    # ================================================================== end (R4.5, R8)
    def _escape(self, seat: int, default: bool) -> None:
        self.events.append({"type": "escape", "seat": seat, "default": default})
        self.escaped[seat] = True
        self.cur = None
        self._status_view = None
        self.active[seat] = False
        self.n_active -= 1
        st_.settle_escape(self, seat)
        self._end("escape")

    def _end(self, reason: str) -> None:
        if reason == "wall":
            st_.end_of_wall(self)
        self.phase = OVER
        self.cur = None
        self.legal = []
        self.end_reason = reason
        # R9.2: the first winner; the discarder (kong-maker) if the first win was a multiple
        # win on one discard or robbed kong; the dealer stays if nobody won.
        if not self.wins:
            nd = self.dealer
        else:
            first = self.wins[0]
            group = [w for w in self.wins if w["group"] == first["group"]]
            nd = first["from"] if len(group) > 1 else first["seat"]
        self.next_dealer = nd
        if self.defaults_used:
            self.fired.add("R10-defaults")
        self.events.append(
            {"type": "end", "reason": reason, "deltas": list(self.deltas), "next_dealer": nd}
        )

    # ================================================================== errors
    def _why_illegal(self, action: Action) -> str:
        seat, verb = action.seat, action.verb
        legal = ", ".join(str(a) for a in self.legal)
        why = ""
        if self.phase == CLAIM:
            t = self.c_tile
            what = f"seat {seat} is asked about {TILE_STR[t]} from seat {self.c_from}"
            if verb == HU:
                if (self.mask[seat] >> t) & 1 and self.lock[seat]:
                    why = (f"; it passed a win of {self.lock[seat]} fan since its last draw and this one is "
                           "not worth more (R4.3)")
                else:
                    why = f"; its hand does not win on {TILE_STR[t]} (R4)"
            elif verb in (PENG, GANG):
                if t // 9 == self.void[seat]:
                    why = "; it may not peng or kong tiles of its void suit (R11.2)"
                elif self.c_rob:
                    why = "; an added kong can only be robbed (R3.3)"
                elif verb == GANG and self.wpos >= len(self.wall):
                    why = "; no kong when the wall is empty (R3.1)"
                else:
                    why = f"; it does not hold enough {TILE_STR[t]}"
            elif verb not in (PASS,):
                why = "; a claim is hu, peng, gang or pass"
        elif self.phase == TURN:
            what = f"it is seat {seat}'s turn"
            if verb == HU:
                why = "; its tiles do not make a winning hand (R4)"
            elif verb in (PENG, GANG, PASS):
                why = f"; {verb} is a claim, not a turn action"
            elif verb in (ANGANG, JIAGANG):
                k = action.arg
                ok_kind = isinstance(k, int) and 0 <= k < 27
                if self.after_peng:
                    why = "; no kong right after a peng (R2.1)"
                elif self.wpos >= len(self.wall):
                    why = "; no kong when the wall is empty (R2.1)"
                elif ok_kind and verb == ANGANG and self.counts[seat][k] < 4:
                    why = f"; it does not hold four {TILE_STR[k]}"
                elif ok_kind and verb == JIAGANG and (k not in self.melds[seat] or not self.counts[seat][k]):
                    why = f"; it has no pung of {TILE_STR[k]} with the fourth {TILE_STR[k]} in hand"
                elif ok_kind and k // 9 == self.void[seat]:
                    why = "; it may not kong tiles of its void suit (R11.2)"
            elif verb == DISCARD and isinstance(action.arg, int) and 0 <= action.arg < 27:
                if not self.counts[seat][action.arg]:
                    why = f"; seat {seat} does not hold {TILE_STR[action.arg]}"
                else:
                    why = "; while it holds a tile of its void suit it must discard one (R11.2)"
        else:
            what = f"seat {seat} must declare its void suit (R11.2)"
        return f"{what}{why}; legal: {legal}"


#: R13 reading: once a win has been declared on a discard, a seat that could only peng or kong
#: it is still asked (its claim cannot be taken, R3.2, but it is a seat that could claim).
ASK_MELD_AFTER_HU = True


_XCACHE: dict = {}


_CAP3 = bytes(min(i, 3) for i in range(256))


def _exchange_triples(a: int, cs: bytes) -> tuple:
    """The sorted kind triples (R11.1) within the suit starting at kind ``a`` (counts ``cs``)."""
    ks = [a + i for i in range(9) if cs[i]]
    out = list(combinations(ks, 3))  # three different kinds
    for d in ks:
        n = cs[d - a]
        if n >= 2:  # a pair and one other kind, or three of a kind
            for k in ks:
                if k < d:
                    out.append((k, d, d))
                elif k > d:
                    out.append((d, d, k))
            if n >= 3:
                out.append((d, d, d))
    return tuple(out)


def _check_deal(hands, wall, dealer) -> None:
    if not isinstance(dealer, int) or not 0 <= dealer < 4:
        raise ValueError(f"dealer {dealer!r} is not a seat (0-3)")
    if len(hands) != 4:
        raise ValueError(f"a hand has four players, got {len(hands)} hands (R1.2)")
    for s, h in enumerate(hands):
        n = 14 if s == dealer else 13
        if len(h) != n:
            who = "the dealer" if s == dealer else f"seat {s}"
            raise ValueError(f"hand of seat {s} has {len(h)} tiles: {who} gets {n} (R1.2)")
    for what, ks in [(f"hand of seat {s}", h) for s, h in enumerate(hands)] + [("wall", wall)]:
        try:
            ok = not ks or (min(ks) >= 0 and max(ks) < 27)
        except TypeError:
            ok = False
        if not ok:
            raise ValueError(f"the {what} holds something that is not a tile kind 0-26: {list(ks)!r}")


def _check_kinds(dealt: bytes) -> None:
    for k in range(27):
        if dealt[k] > 4:
            raise ValueError(f"the hands and wall hold {dealt[k]} × {TILE_STR[k]}: there are only four (R1.1)")
