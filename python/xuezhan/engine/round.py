"""The round state machine's public face: one hand of the game, its actions and R10 defaults.

``Round`` composes the four parts of a hand, each with one job, and every field is read through
its part (one path to each): the wall and the visible tiles
(:class:`~xuezhan.engine.wall.Wall`, ``round.wall``: ``round.wall.count`` tiles left), the seats
and who is still in (:class:`~xuezhan.engine.seats.Seats`, ``round.seats``: ``round.seats.counts``,
``round.seats.melds``, ``round.seats.won``, ...), the pending decision
(:class:`~xuezhan.engine.turn.Turn`, ``round.turn``: ``round.turn.phase``, ``round.turn.cur``)
and what the hand records (:class:`~xuezhan.engine.ledger.Ledger`, ``round.ledger``:
``round.ledger.events``, ``round.ledger.deltas``, ...); beside them the hand's facts
(``rules``, ``dealer``, ``seed``, ``scores``, the dealt ``hands0``, ``exchange_dir``).
Exactly one seat has a pending decision at a time (``round.turn.cur``); ``legal_actions(seat)``
lists its legal actions (built by :mod:`.legal`) and ``apply(action)`` takes one. The
transitions live by concern: the exchange and void declaration before the first turn in
:mod:`.setup`, the turn flow and the claim windows in :mod:`.flow` (claims asked one seat at a
time in turn order from the discarder, R13, then resolved, R3.2; the compulsory wins of the
last-tiles phase, R4.4, taken without asking), the claim window's bookkeeping in
:mod:`.claims`, payments in :mod:`.settlement` and the end of the hand in :mod:`.hand_end`.
``Escape`` (R8) is accepted from any active seat at any time.

    >>> r = Round("leshan", ["1235679m1235579p", "123456789m3455p", "123456789s1489m",
    ...           "124468p1356789s"], wall="", dealer=0)
    >>> r.apply("0 discard 5p"); [str(a) for a in r.legal_actions(1)]
    ['1 hu', '1 peng', '1 pass']
    >>> r.turn.cur, r.seats.river[0], r.wall.count, r.ledger.events[-1].type
    (1, (13,), 0, 'discard')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xuezhan._core import CoreRules
from xuezhan.engine import events as ev
from xuezhan.engine import flow, setup
from xuezhan.engine.actions import (
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
from xuezhan.engine.hand_end import escape
from xuezhan.engine.invariants import check_invariants
from xuezhan.engine.ledger import Ledger
from xuezhan.engine.legal import _PASS, default_discard, refusal
from xuezhan.engine.result import HandResult
from xuezhan.engine.seats import Seats
from xuezhan.engine.setup import deal
from xuezhan.engine.turn import Phase, Turn
from xuezhan.engine.wall import Wall
from xuezhan.rules import Rules, as_rules
from xuezhan.tiles import parse_tiles

if TYPE_CHECKING:  # pragma: no cover
    from xuezhan.engine.observation import Observation

__all__ = ["Round", "deal"]


_TURN, _CLAIM, _OVER = Phase.TURN, Phase.CLAIM, Phase.OVER


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


class Round:
    """One hand of Xuezhan Daodi. See the module docstring."""

    # the hand's facts
    rules: Rules
    core: CoreRules  # rules.core: the rules as the Rust core reads them
    dealer: int
    seed: int | None  # the deal's seed (R1.4), None for a deal given as tiles
    exchange_dir: str | None  # R11.1: next, prev or across; None without the exchange
    scores: list[int]  # the match's totals before the hand
    scores_view: tuple[int, ...]  # the same, as observations show it
    hands0: list[list[int]]  # the hands as dealt (kinds), for the log (R1.4)
    # its parts
    wall: Wall
    seats: Seats
    turn: Turn
    ledger: Ledger

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
        parts = Round.new_parts(rules, hands, wall)  # type: ignore[arg-type]
        # the facts and the parts, set as from_parts sets them (one place)
        vars(self).update(vars(Round.from_parts(rules, dealer, seed, scores, exchange, hands, *parts)))  # type: ignore[arg-type]
        setup.check_kinds(self.wall.dealt)
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
        exchange = direction if rules.exchange_three else None
        rnd = cls.from_parts(
            rules, dealer, seed, scores, exchange, hands, *Round.new_parts(rules, hands, wall, setup.FULL_SET)
        )
        rnd._start()
        return rnd

    @staticmethod
    def new_parts(
        rules: Rules, hands: Sequence[Sequence[int]], wall: Sequence[int], dealt: bytes | None = None
    ) -> tuple[Wall, Seats, Turn, Ledger]:
        """The parts of a hand not yet begun: ``hands`` (kinds) dealt, ``wall`` in draw order;
        ``dealt``: the 27 counts of the hands and wall together, when the caller knows them."""
        return (
            Wall.deal(hands, wall, dealt),
            Seats.deal(hands, rules.after_win == "stay", not rules.declare_void),
            Turn(),
            Ledger(),
        )

    @classmethod
    def from_parts(
        cls,
        rules: Rules,
        dealer: int,
        seed: int | None,
        scores: Sequence[int] | None,
        exchange: str | None,
        hands: Sequence[Sequence[int]],
        wall: Wall,
        seats: Seats,
        turn: Turn,
        ledger: Ledger,
    ) -> Round:
        """A round made of the hand's facts (``hands``: as dealt, for the log) and its parts as
        they are, taken as they are (not copied, not checked, nothing recorded): how a
        determinization builds the round it samples (:mod:`.determinize`).

            >>> r = Round.from_seed("leshan", 3, dealer=1)
            >>> twin = Round.from_parts(r.rules, r.dealer, r.seed, r.scores, r.exchange_dir, r.hands0,
            ...                         r.wall, r.seats, r.turn, r.ledger)
            >>> twin.turn is r.turn, twin.legal_actions(1) == r.legal_actions(1)
            (True, True)
        """
        rnd = cls.__new__(cls)
        rnd.rules = rules
        rnd.core = rules.core
        rnd.dealer = dealer
        rnd.seed = seed
        rnd.exchange_dir = exchange
        rnd.scores = list(scores) if scores is not None else [0, 0, 0, 0]
        rnd.scores_view = tuple(rnd.scores)
        rnd.hands0 = [list(h) for h in hands]
        rnd.wall, rnd.seats, rnd.turn, rnd.ledger = wall, seats, turn, ledger
        return rnd

    def _start(self) -> None:
        self.ledger.events.append(ev.Start(self.dealer, self.wall.end))  # R11.1: the direction is shown later
        rules = self.rules
        if rules.exchange_three:
            setup.begin_exchange(self.turn, self.seats)
        elif rules.declare_void:
            setup.begin_void(self.turn)
        else:
            flow.begin_play(self)

    @property
    def over(self) -> bool:
        return self.turn.phase == _OVER

    def locked(self, seat: int) -> bool:
        """R14.2: ``seat`` has won and stays in the hand (``after_win = "stay"``): it may only
        win, make a kong that keeps its waits, or discard the tile it drew.

            >>> Round.from_seed("xueliu", 1, 0).locked(0)
            False
        """
        _need_int("seat", seat)
        if not 0 <= seat <= 3:
            raise ValueError(f"Round: seat must be 0-3, got {seat}")
        return self.seats.locked(seat)

    # ================================================================== public API
    def legal_actions(self, seat: int) -> list[Action]:
        """The legal actions of ``seat`` at the pending decision (empty if it is not its decision).

        ``escape`` is always accepted by :meth:`apply` from an active seat but is not listed."""
        _need_int("seat", seat, optional=True)  # None (``turn.cur`` once the hand is over): no actions
        turn = self.turn
        return list(turn.legal) if seat == turn.cur else []  # a copy: the engine's list stays intact

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
        n = len(self.ledger.events)
        self._apply(action, default)
        if note is not None:  # the decision event, with the note (events are not edited in place)
            events = self.ledger.events
            events[n] = dataclasses.replace(events[n], note=note)  # type: ignore[type-var]

    def apply_legal(self, action: Action, default: bool = False) -> None:
        """Apply ``action``, one of the engine's own :meth:`legal_actions` of the pending
        decision, without checking it again: the seat loop's fast path
        (:mod:`.decisions`), which has found it in the list. Anything else goes through
        :meth:`apply`, which checks it and refuses it unchanged; an action that is not legal
        here leaves the hand in an undefined state.

            >>> r = Round.from_seed("leshan", 3, dealer=0)
            >>> r.apply_legal(r.legal_actions(0)[0]); r.ledger.events[-1].type
            'draw'
        """
        seat, verb, arg = action
        phase = self.turn.phase
        if phase is _TURN:
            if verb == DISCARD:  # the commonest decision first
                flow.discard(self, seat, arg, default)  # type: ignore[arg-type]
            elif verb == HU:
                self.ledger.events.append(ev.Hu(seat, default))
                flow.self_draw_win(self, seat, False)
            else:
                flow.kong(self, seat, verb, arg, default)  # type: ignore[arg-type]
        elif phase is _CLAIM:
            flow.claim(self, seat, verb, default)
        elif phase is Phase.VOID:
            if setup.apply_void(self.turn, self.seats, self.ledger, seat, arg, default):  # type: ignore[arg-type]
                flow.begin_play(self)
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
        turn = self.turn
        seat, verb, phase = action.seat, action.verb, turn.phase
        if phase == _OVER:
            raise IllegalAction(action, "the hand is over")
        if verb == ESCAPE:
            if not (isinstance(seat, int) and 0 <= seat < 4) or not self.seats.active[seat]:
                raise IllegalAction(action, f"seat {seat} is not an active player (it has won or left)")
            self.ledger.defaults_used += default
            escape(turn, self.seats, self.ledger, self.rules, self.dealer, seat, default)
            return
        if seat != turn.cur:
            raise IllegalAction(action, f"it is seat {turn.cur}'s decision, not seat {seat}'s")
        if default:
            self._check_default(action)
        if phase == Phase.EXCHANGE:
            if setup.apply_exchange(turn, self.seats, self.ledger, self.exchange_dir, action, default):
                setup.begin_void(turn) if self.rules.declare_void else flow.begin_play(self)
            return
        if action not in turn.legal:
            raise IllegalAction(action, self._refusal(action))
        self.ledger.defaults_used += default
        self.apply_legal(action, default)

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
        turn = self.turn
        seat = turn.cur if seat is None else seat
        if seat is None or seat != turn.cur:
            raise IllegalAction(f"{seat} default", "no pending decision for this seat")
        phase = turn.phase
        if phase == _CLAIM:
            return _PASS[seat]  # R10.2 (compulsory wins are taken by the engine)
        if phase == _TURN:
            return default_discard(turn.legal, turn.drawn)  # R10.1
        if phase == Phase.VOID:
            return setup.default_void(self.seats.counts[seat], seat)
        return setup.default_exchange(self.seats.counts[seat], seat)

    def hand_result(self) -> HandResult:
        """The finished hand's :class:`~xuezhan.engine.result.HandResult` (R9.3)."""
        return HandResult.of(self.ledger, self.seats.escaped)

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

    def check_invariants(self) -> None:
        """Raise :class:`~xuezhan.engine.invariants.InvariantError` unless R12.1–R12.3 hold now."""
        check_invariants(self.rules, self.wall, self.seats, self.turn, self.ledger)

    # ================================================================== errors
    def _refusal(self, action: Action) -> str:
        """Why ``action`` is not legal: the reason the legality function records for it."""
        seat = action.seat
        turn = self.turn
        why: dict = {}
        if turn.phase == _CLAIM:
            w = turn.claims
            assert w is not None
            flow.claim_legal(self, seat, w, why)
            what = f"seat {seat} is asked about {TILE_STR[w.tile]} from seat {w.frm}"
            other = None if action.verb in CLAIM_VERBS else "a claim is hu, peng, gang or pass"
            return refusal(action, turn.legal, why, what, other)
        if turn.phase == _TURN:
            hu = flow.can_hu(self, seat)
            if self.seats.locked(seat) and turn.drawn >= 0:
                flow.locked_legal(self, seat, turn.drawn, hu, self.wall.empty, why)
                return refusal(action, turn.legal, why, f"it is seat {seat}'s turn, its hand locked by its win (R14.2)")
            flow.turn_legal_of(self, seat, hu, why)
            return refusal(action, turn.legal, why, f"it is seat {seat}'s turn")
        return refusal(action, turn.legal, why, f"seat {seat} must declare its void suit (R11.2)")
