"""The round state machine: turns (docs/rules.md R2) and claims (R3), wins (R4), R10 defaults.

``Round`` is a :class:`~xuezhan.engine.state.HandState` with transitions. Exactly one seat has
a pending decision at a time (``round.cur``); ``legal_actions(seat)`` lists its legal actions
(built by :mod:`.legal`) and ``apply(action)`` takes one. The exchange and void declaration
before the first turn live in :mod:`.setup`, payments in :mod:`.settlement`. Claims on a
discard (or an added kong, R3.3) are asked one seat at a time, in turn order from the
discarder (R13), then resolved (R3.2). Compulsory wins of the last-tiles phase (R4.4) are taken
by the engine without asking. ``Escape`` (R8) is accepted from any active seat at any time.

    >>> r = Round("leshan", ["1235679m1235579p", "123456789m3455p", "123456789s1489m",
    ...           "124468p1356789s"], wall="", dealer=0)
    >>> r.apply("0 discard 5p"); [str(a) for a in r.legal_actions(1)]
    ['1 hu', '1 peng', '1 pass']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xuezhan.engine import _core_adapter as core
from xuezhan.engine import events as ev
from xuezhan.engine import fired as F
from xuezhan.engine import settlement as pay
from xuezhan.engine import setup
from xuezhan.engine.actions import (
    ANGANG,
    CLAIM_VERBS,
    DISCARD,
    ESCAPE,
    HU,
    TILE_STR,
    Action,
    ActionError,
    IllegalAction,
    check_fields,
    parse_action,
)
from xuezhan.engine.claims import ClaimFlow
from xuezhan.engine.legal import _PASS, default_discard, locked_turn_legal, refusal, turn_legal
from xuezhan.engine.result import HandResult, next_dealer
from xuezhan.engine.setup import deal
from xuezhan.engine.state import DEALER_FIRST, DRAW_FLAGS, HandState, KongRecord, Phase, TurnFlags
from xuezhan.rules import Rules, as_rules
from xuezhan.tiles import MeldType, meld_code, parse_tiles

if TYPE_CHECKING:  # pragma: no cover
    from xuezhan.engine.observation import Observation

__all__ = ["Round", "deal"]


_TURN, _CLAIM, _OVER = Phase.TURN, Phase.CLAIM, Phase.OVER
_wait_mask = core.wait_mask
# _DISCARD[default][seat][kind]: the shared discard events (immutable), built once
_DISCARD = tuple(
    tuple(tuple(ev.Discard(s, TILE_STR[k], d) for k in range(27)) for s in range(4)) for d in (False, True)
)
# _DRAW[replacement][seat][kind]: the shared draw events (immutable), built once
_DRAW = tuple(tuple(tuple(ev.Draw(s, TILE_STR[k], r) for k in range(27)) for s in range(4)) for r in (False, True))


def _need_int(name: str, value: object, optional: bool = False) -> None:
    """``TypeError`` naming ``name`` unless ``value`` is an ``int`` (not a ``bool``, ``float``,
    numpy scalar or ``str``), or None when ``optional``."""
    if type(value) is int or (optional and value is None):
        return
    raise TypeError(f"Round: {name} must be an int, got {type(value).__name__} {value!r}")


def _need_scores(scores: object) -> None:
    if scores is None:
        return
    if not isinstance(scores, Sequence) or isinstance(scores, str) or len(scores) != 4:
        raise TypeError(f"Round: scores must be four ints, got {scores!r}")
    for i, v in enumerate(scores):
        _need_int(f"scores[{i}]", v)


def _need_kinds(name: str, kinds: object) -> list[int]:
    """A list of tile kinds, each an ``int`` (ranges are checked with the deal, R1.2)."""
    if not isinstance(kinds, Sequence):
        raise TypeError(f"Round: {name} must be a tile string or a list of int kinds, got {type(kinds).__name__}")
    for k in kinds:
        if type(k) is not int:
            raise TypeError(f"Round: {name} must hold int tile kinds 0-26, got {type(k).__name__} {k!r}")
    return list(kinds)


class Round(ClaimFlow):
    """One hand of Xuezhan Daodi. See the module docstring."""

    def __init__(
        self,
        rules: Rules | str | dict | None,
        hands: Sequence[Sequence[int] | str],
        wall: Sequence[int] | str,
        dealer: int = 0,
        exchange: str | None = None,
        seed: int | None = None,
        scores: Sequence[int] | None = None,
    ) -> None:
        rules = as_rules(rules)
        _need_int("dealer", dealer)
        _need_int("seed", seed, optional=True)
        _need_scores(scores)
        wall = parse_tiles(wall) if isinstance(wall, str) else _need_kinds("wall", wall)
        if isinstance(hands, str):
            raise TypeError("Round: hands must be four hands (tile strings or lists of kinds), got one str")
        hands = [parse_tiles(h) if isinstance(h, str) else _need_kinds(f"hands[{i}]", h) for i, h in enumerate(hands)]
        setup.check_deal(hands, wall, dealer)  # type: ignore[arg-type]
        if rules.exchange_three and exchange not in setup.DIRECTIONS:
            raise ValueError(
                f"exchange_three is on: the exchange direction must be one of next, prev, across (got {exchange!r})"
            )
        super().__init__(rules, hands, wall, dealer, exchange, seed, scores)  # type: ignore[arg-type]
        setup.check_kinds(self.dealt)
        self._start()

    @classmethod
    def from_seed(
        cls, rules: Rules | str | dict | None, seed: int, dealer: int = 0, scores: Sequence[int] | None = None
    ) -> Round:
        """A hand dealt from ``seed`` (R1.4)."""
        rules = as_rules(rules)
        _need_int("seed", seed)
        _need_int("dealer", dealer)
        _need_scores(scores)
        setup.check_dealer(dealer)
        hands, wall, direction = deal(seed, dealer)
        # A deal is the whole set of tiles, shuffled (R1.1, R1.2): nothing to check or count.
        rnd = cls.__new__(cls)
        exchange = direction if rules.exchange_three else None
        HandState.__init__(rnd, rules, hands, wall, dealer, exchange, seed, scores, setup.FULL_SET)
        rnd._start()
        return rnd

    def _start(self) -> None:
        self.events.append(ev.Start(self.dealer, self.wall_end))  # R11.1: the direction is shown later
        rules = self.rules
        if rules.exchange_three:
            setup.begin_exchange(self)
        elif rules.declare_void:
            setup.begin_void(self)
        else:
            self._begin_play()

    # ================================================================== public API
    def legal_actions(self, seat: int) -> list[Action]:
        """The legal actions of ``seat`` at the pending decision (empty if it is not its decision).

        ``escape`` is always accepted by :meth:`apply` from an active seat but is not listed."""
        _need_int("seat", seat, optional=True)  # None (``cur`` once the hand is over): no actions
        return list(self.legal) if seat == self.cur else []  # a copy: the engine's list stays intact

    def apply(self, action: Action | str, default: bool = False, note: str | None = None) -> None:
        """Take one action. An illegal action raises :class:`IllegalAction` naming it and leaves
        the state unchanged. ``default`` marks an R10 default and ``note`` a reason (timeout,
        crash); both are recorded in the decision event. An action marked ``default`` must be the
        R10 default of the decision (:meth:`default_action`) or an escape (R10.3).

        ``action`` is an :class:`Action` or a script line (``"0 discard 5p"``); ``default`` a
        ``bool``; ``note`` a ``str`` or None. Other types (a tuple, a ``bool`` or ``float`` in a
        field of the action, ...) raise ``TypeError`` naming the argument, before anything
        changes."""
        if type(default) is not bool:
            raise TypeError(f"apply: default must be a bool, got {type(default).__name__} {default!r}")
        if note is not None and type(note) is not str:
            raise TypeError(f"apply: note must be a str or None, got {type(note).__name__} {note!r}")
        n = len(self.events)
        self._apply(action, default)
        if note is not None:  # the decision event, with the note (events are not edited in place)
            self.events[n] = dataclasses.replace(self.events[n], note=note)  # type: ignore[type-var]

    def _apply_legal(self, action: Action, default: bool = False) -> None:
        """Apply an action known to be in ``self.legal`` (checked by :meth:`_apply`, or by the
        play loop, which calls this directly: a legal action needs no further checks)."""
        seat, verb, arg = action
        phase = self.phase
        if phase is _TURN:
            if verb == DISCARD:  # the commonest decision first
                self._discard(seat, arg, default)  # type: ignore[arg-type]
            elif verb == HU:
                self.events.append(ev.Hu(seat, default))
                self._self_draw_win(seat, False)
            else:
                self._kong(seat, verb, arg, default)  # type: ignore[arg-type]
        elif phase is _CLAIM:
            self._claim(seat, verb, default)
        elif phase is Phase.VOID:
            if setup.apply_void(self, seat, arg, default):  # type: ignore[arg-type]
                self._begin_play()
        else:  # the exchange takes its tiles in any order: its own checks (R11.1)
            self._apply(action, default)

    def _apply(self, action: Action | str, default: bool) -> None:
        if isinstance(action, str):
            try:
                action = parse_action(action)
            except ActionError as exc:
                raise IllegalAction(action, str(exc)) from None
        elif type(action) is not Action:
            raise TypeError(
                f"apply: action must be an Action or a script line (str), got {type(action).__name__} {action!r}"
            )
        else:
            # Action() checks its field types, but _replace and tuple.__new__ do not: an action
            # whose fields merely compare equal to a legal one (True for 1, 13.0 for 13) must
            # not pass, nor be logged with the wrong types.
            check_fields(action.seat, action.verb, action.arg)
        seat, verb, phase = action.seat, action.verb, self.phase
        if phase == _OVER:
            raise IllegalAction(action, "the hand is over")
        if verb == ESCAPE:
            if not (isinstance(seat, int) and 0 <= seat < 4) or not self.active[seat]:
                raise IllegalAction(action, f"seat {seat} is not an active player (it has won or left)")
            self.defaults_used += default
            self._escape(seat, default)
            return
        if seat != self.cur:
            raise IllegalAction(action, f"it is seat {self.cur}'s decision, not seat {seat}'s")
        if default:
            self._check_default(action)
        if phase == Phase.EXCHANGE:
            if setup.apply_exchange(self, action, default):
                setup.begin_void(self) if self.rules.declare_void else self._begin_play()
            return
        if action not in self.legal:
            raise IllegalAction(action, self._refusal(action))
        self.defaults_used += default
        self._apply_legal(action, default)

    def _check_default(self, action: Action) -> None:
        """R10: only the default of the decision may be recorded as one (an exchange in any
        order of its three tiles)."""
        d = self.default_action(action.seat)
        arg = action.arg
        if action == d or (action.verb == d.verb and isinstance(arg, tuple) and tuple(sorted(arg)) == d.arg):
            return
        raise IllegalAction(action, f"it is marked as the R10 default, but the default of this decision is '{d}'")

    def default_action(self, seat: int | None = None) -> Action:
        """The R10 default of the pending decision (R10.1, R10.2, R11.1, R11.2)."""
        _need_int("seat", seat, optional=True)
        seat = self.cur if seat is None else seat
        if seat is None or seat != self.cur:
            raise IllegalAction(f"{seat} default", "no pending decision for this seat")
        phase = self.phase
        if phase == _CLAIM:
            return _PASS[seat]  # R10.2 (compulsory wins are taken by the engine)
        if phase == _TURN:
            return default_discard(self.legal, self.drawn)  # R10.1
        if phase == Phase.VOID:
            return setup.default_void(self.counts[seat], seat)
        return setup.default_exchange(self.counts[seat], seat)

    def hand_result(self) -> HandResult:
        """The finished hand's :class:`~xuezhan.engine.result.HandResult` (R9.3)."""
        return HandResult.of(self)

    def result(self) -> dict:
        """The hand's result (R9.3) as a JSON-ready dict: deltas, next dealer, wins, end reason,
        kongs, payments, rules fired."""
        return self.hand_result().to_dict()

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now (see :class:`~xuezhan.engine.observation.Observation`)."""
        from xuezhan.engine.observation import Observation

        _need_int("seat", seat)
        if not 0 <= seat < 4:
            raise ValueError(f"Round: seat {seat} is not a seat (0-3)")
        return Observation(self, seat)

    # ================================================================== turns (R2)
    def _begin_play(self) -> None:
        for s in range(4):
            if s != self.dealer:
                self._update_mask(s)
        self.drawn = -1
        self.turn = DEALER_FIRST  # R5 heaven_earth: the dealer's first 14 tiles
        self._turn_decision(self.dealer)

    def _draw(self, seat: int, kong: KongRecord | None = None) -> None:
        """R1.3: draw from the front of the wall (kong replacements, after ``kong``, too). A player
        that must draw from an empty wall ends the hand (R4.5)."""
        pos = self.wpos
        left = self.wall_end - pos  # tiles in the wall before this draw
        if left <= 0:
            self._end("wall")
            return
        # R4.4: the last-tiles phase begins with the first draw made while the wall holds no
        # more tiles than there are active players.
        if left <= self.n_active and not self.last_phase:
            self.last_phase = True
            self.events.append(ev.LastTiles(left))
        t = self.wall[pos]
        self.wpos = pos + 1
        c = self.counts[seat]
        c[t] += 1
        self.lock[seat] = 0  # R4.3: its own draw clears the restriction
        self.drawn = t
        first = self.first_drawn
        if kong is not None:
            self.turn = TurnFlags(replacement=True, last_tile=left == 1, kong=kong)
        elif first[seat]:
            self.turn = DRAW_FLAGS[left == 1][False]
        else:
            # R5 heaven_earth (地胡): a non-dealer's first draw before any claim.
            self.turn = DRAW_FLAGS[left == 1][not self.any_claim and seat != self.dealer]
        first[seat] = True
        self.events.append(_DRAW[kong is not None][seat][t])
        # The turn decision on the drawn tile (R2.1), made here rather than in _turn_decision:
        # this is the commonest path of a hand.
        self.cur = seat
        can_hu = (self.mask[seat] >> t) & 1
        if can_hu and self._forced_opt and self.last_phase:
            self._self_draw_win(seat, True)  # R4.4: a self-drawn completing tile must be declared
            return
        self.phase = _TURN
        if self.stay and self.won[seat]:  # R14.2: a winner's locked hand
            self.legal, self.discard_mask = self._locked_legal(seat, t, can_hu, left == 1)
            return
        # no kong after the last wall tile (R2.1); a draw never follows a peng
        self.legal, self.discard_mask = turn_legal(seat, c, self.melds[seat], self.void[seat], can_hu, False, left == 1)

    def _can_hu(self, seat: int) -> bool:
        """R4: the seat on turn holds a winning hand (the drawn tile, or the dealer's first 14)."""
        if self.drawn >= 0:
            return bool((self.mask[seat] >> self.drawn) & 1)
        turn = self.turn
        return (
            turn.heaven
            and not turn.after_peng
            and core.is_win(bytes(self.counts[seat]), self.mbytes[seat], self.void[seat])
        )

    def _turn_legal(self, seat: int, can_hu: bool, why: dict | None = None) -> tuple[list[Action], int]:
        """The turn's legal actions and discard mask (:func:`~xuezhan.engine.legal.turn_legal`)."""
        return turn_legal(
            seat, self.counts[seat], self.melds[seat], self.void[seat], can_hu,
            self.turn.after_peng, self.wpos >= self.wall_end, why,
        )  # fmt: skip

    def _locked_legal(self, seat: int, t: int, can_hu: int, wall_empty: bool, why: dict | None = None) -> tuple:
        """R14.2: the turn of a winner that stays, having drawn ``t``
        (:func:`~xuezhan.engine.legal.locked_turn_legal`); a kong must keep its waits."""
        return locked_turn_legal(
            seat, self.counts[seat], self.melds[seat], self.void[seat], t, can_hu, wall_empty, self.mask[seat], why
        )

    def _turn_decision(self, seat: int) -> None:
        """A turn that does not begin with a draw: the dealer's first (R5 heaven_earth) and the
        turn after a peng (R2.4). (Turns that begin with a draw are decided in :meth:`_draw`,
        which also takes the R4.4 compulsory win: without a draw there is none to take.)"""
        self.cur = seat
        self.phase = _TURN
        self.legal, self.discard_mask = self._turn_legal(seat, self._can_hu(seat))

    def _discard(self, seat: int, t: int, default: bool) -> None:
        c = self.counts[seat]
        c[t] -= 1
        river = self.river
        river[seat] += (t,)
        self._river_view = tuple(river)
        seen = self._seen
        seen[t] += 1
        self.seen_view = bytes(seen)
        self.events.append(_DISCARD[1 if default else 0][seat][t])
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
            self._open_claims(seat, t, False, *self.turn.discard_context())
            return
        self.claim_group += 1
        # R2.5: the next active player draws (the next seat, unless it has won or left)
        self._draw(s1 if a[s1] else self.next_active(seat))

    def _kong(self, seat: int, verb: str, k: int, default: bool) -> None:
        """R2.1 concealed kong (angang) or added kong (jiagang; R3.3: it can be robbed first)."""
        if verb == ANGANG:
            self.counts[seat][k] = 0
            self.melds[seat].append(meld_code(MeldType.CONCEALED_KONG, k))
            self._melds_changed(seat)
            self._see(k, 4)  # a concealed kong is public (R2.3)
            self.meld_from[seat].append(None)
            # recorded once the kong stands, like every event (the replay viewer shows the
            # state at each event); the same place in the log
            self.events.append(ev.Angang(seat, TILE_STR[k], default))
            self._kong_paid(seat, k, ANGANG, None)
            return
        self.events.append(ev.Jiagang(seat, TILE_STR[k], default))
        if self.rules.rob_kong:
            self._open_claims(seat, k, True, core.ROBBING_KONG, None)
        else:
            self._complete_jiagang(seat, k)

    def _complete_jiagang(self, seat: int, k: int) -> None:
        self.counts[seat][k] -= 1
        ms = self.melds[seat]
        ms[ms.index(meld_code(MeldType.PUNG, k))] = meld_code(MeldType.KONG, k)
        self._melds_changed(seat)
        self._see(k, 1)
        self.events.append(ev.Meld(seat, "jiagang", TILE_STR[k], None))
        self._kong_paid(seat, k, "jiagang", None)

    def _kong_paid(self, seat: int, k: int, how: str, frm: int | None) -> None:
        """R6.4: the kong pays at once; then the replacement draw (R2.1)."""
        rec = pay.settle_kong(self, self.rules, seat, k, how, frm, self._others(seat))
        self.kongs.append(rec)
        self._update_mask(seat)
        self._draw(seat, rec)

    def _win(self, seat: int, frm: int | None, kind: int, res: tuple, how: str, forced: bool, group: int) -> None:
        self._leave(seat, self.won)
        wv = list(self.wins_view)
        wv[seat] += (kind,)
        self.wins_view = tuple(wv)
        win, fired = pay.win_record(seat, frm, kind, res, how, forced, group, self.rules.max_fan)
        self.events.append(win)
        self.wins.append(win)
        self.fired.update(fired)

    def _self_draw_win(self, seat: int, forced: bool) -> None:
        c = bytes(self.counts[seat])
        ctx, payer = self.turn.self_draw_context(self.rules.kong_draw_discarder_pays)
        if self.drawn >= 0:
            kind = self.drawn
            res = self._score(seat, c, kind, ctx)
        else:  # 天胡: the dealer's first 14 tiles; the winning tile is the one giving the most fan.
            scored = [(r[1], r[0], -k, k, r) for k in range(27) if c[k] and (r := self._score(seat, c, k, ctx))]
            *_, kind, res = max(scored) if scored else (0, 0, 0, -1, None)
        if res is None:  # pragma: no cover - the wait mask and the fan disagree
            raise RuntimeError(f"seat {seat}: the core's wait mask and fan disagree on {TILE_STR[kind]}")
        if forced:
            self.events.append(ev.Hu(seat, forced=True))
        if self.stay:
            if self.drawn < 0:  # R14.1: 天胡 sets aside the highest tile
                kind = max(k for k in range(27) if c[k])
            self._set_aside(seat, kind)
        self._win(seat, None, kind, res, "self_draw", forced, -1 - len(self.wins))
        pay.settle_self_draw(self, self.rules, seat, res[2], self._others(seat), payer)
        if len(self.wins) >= 3 and not self.stay:
            self._end("three_won")
        else:
            self._draw(self.next_active(seat))  # R2.5: the first active player after the winner

    def _set_aside(self, seat: int, kind: int) -> None:
        """R14.1: the self-drawn winning tile leaves the hand and is set aside, public; the hand
        is again the locked hand, so its waits are unchanged."""
        if self.won[seat]:
            self.fired.add(F.REPEAT_WIN)
        self.counts[seat][kind] -= 1
        self.aside[seat] += (kind,)
        self.aside_view = tuple(self.aside)
        self._see(kind, 1)
        self._update_mask(seat)

    # ================================================================== end (R4.5, R8)
    def _escape(self, seat: int, default: bool) -> None:
        self.events.append(ev.Escape(seat, default))
        on_turn = self.cur
        self._leave(seat, self.escaped)
        held = self._holdings(on_turn)
        self.checked = tuple(held)
        self.pigs, self.ready = pay.settle_escape(self, self.rules, self.kongs, seat, held, self.winners_in())
        self._end("escape")

    def _end(self, reason: str) -> None:
        if reason == "wall":
            held = self._holdings()
            if len(held) >= 2:
                self.checked = tuple(held)
            present = [q for q in range(4) if not self.escaped[q]]
            self.pigs, self.ready = pay.end_of_wall(self, self.rules, self.kongs, held, present, self.winners_in())
        self.phase = _OVER
        self.cur = None
        self.legal = []
        self.claims = None
        self.end_reason = reason
        self.next_dealer = nd = next_dealer(self.wins, self.dealer)
        if self.defaults_used:
            self.fired.add(F.DEFAULTS)
        self.events.append(ev.End(reason, list(self.deltas), nd))

    # ================================================================== errors
    def _refusal(self, action: Action) -> str:
        """Why ``action`` is not legal: the reason the legality function records for it."""
        seat = action.seat
        why: dict = {}
        if self.phase == _CLAIM:
            w = self.claims
            assert w is not None
            self._claim_legal(seat, w, why)
            what = f"seat {seat} is asked about {TILE_STR[w.tile]} from seat {w.frm}"
            other = None if action.verb in CLAIM_VERBS else "a claim is hu, peng, gang or pass"
            return refusal(action, self.legal, why, what, other)
        if self.phase == _TURN:
            if self.locked(seat) and self.drawn >= 0:
                self._locked_legal(seat, self.drawn, self._can_hu(seat), self.wpos >= self.wall_end, why)
                return refusal(action, self.legal, why, f"it is seat {seat}'s turn, its hand locked by its win (R14.2)")
            self._turn_legal(seat, self._can_hu(seat), why)
            return refusal(action, self.legal, why, f"it is seat {seat}'s turn")
        return refusal(action, self.legal, why, f"seat {seat} must declare its void suit (R11.2)")
