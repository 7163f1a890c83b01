"""The round state machine: turns (docs/rules.md R2) and claims (R3), wins (R4), R10 defaults.

``Round`` composes the four parts of a hand, each with one job: the wall and the visible tiles
(:class:`~xuezhan.engine.wall.Wall`, ``round.wall``), the seats and who is still in
(:class:`~xuezhan.engine.seats.Seats`, ``round.seats``), the pending decision
(:class:`~xuezhan.engine.turn.Turn`, ``round.turn``) and what the hand records
(:class:`~xuezhan.engine.ledger.Ledger`, ``round.ledger``); its methods are the transitions
between them. Exactly one seat has a pending decision at a time (``round.cur``);
``legal_actions(seat)`` lists its legal actions (built by :mod:`.legal`) and ``apply(action)``
takes one. The exchange and void declaration before the first turn live in :mod:`.setup`,
payments in :mod:`.settlement`, the claim window in :mod:`.claims`. Claims on a discard (or an
added kong, R3.3) are asked one seat at a time, in turn order from the discarder (R13), then
resolved (R3.2). Compulsory wins of the last-tiles phase (R4.4) are taken by the engine without
asking. ``Escape`` (R8) is accepted from any active seat at any time.

    >>> r = Round("leshan", ["1235679m1235579p", "123456789m3455p", "123456789s1489m",
    ...           "124468p1356789s"], wall="", dealer=0)
    >>> r.apply("0 discard 5p"); [str(a) for a in r.legal_actions(1)]
    ['1 hu', '1 peng', '1 pass']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Generic, NoReturn, TypeVar, overload

from xuezhan.engine import _core_adapter as core
from xuezhan.engine import claims as window
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
    PENG,
    TILE_STR,
    Action,
    ActionError,
    IllegalAction,
    check_fields,
    parse_action,
)
from xuezhan.engine.events import Event, Pay, Win
from xuezhan.engine.invariants import check_invariants
from xuezhan.engine.ledger import KongRecord, Ledger
from xuezhan.engine.legal import _PASS, default_discard, locked_turn_legal, refusal, turn_legal
from xuezhan.engine.result import HandResult, next_dealer
from xuezhan.engine.seats import Seats
from xuezhan.engine.setup import deal
from xuezhan.engine.turn import AFTER_PENG, DEALER_FIRST, DRAW_FLAGS, ClaimWindow, Phase, Turn, TurnFlags
from xuezhan.engine.wall import Wall
from xuezhan.rules import Rules, as_rules
from xuezhan.tiles import MeldType, meld_code, parse_tiles

if TYPE_CHECKING:  # pragma: no cover
    from xuezhan.engine.observation import Observation

__all__ = ["Round", "deal"]


_TURN, _CLAIM, _OVER = Phase.TURN, Phase.CLAIM, Phase.OVER
_claim_legal = window.claim_legal
T = TypeVar("T")
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


class _View(Generic[T]):
    """A read-only attribute of :class:`Round` that reads a field of one of its parts (the
    names the package, tests and docs have always read from the round itself). Setting it is
    an error naming the part's field: a data descriptor, so an instance attribute cannot
    silently shadow the part."""

    def __init__(self, path: str, doc: str) -> None:
        self.path = path
        self.get = attrgetter(path)
        self.__doc__ = doc

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _View[T]: ...
    @overload
    def __get__(self, obj: Round, owner: type | None = None) -> T: ...
    def __get__(self, obj: Round | None, owner: type | None = None) -> T | _View[T]:
        return self if obj is None else self.get(obj)

    def __set__(self, obj: Round, value: object) -> NoReturn:
        raise AttributeError(f"this view of Round is read-only: set round.{self.path}")


class Round:
    """One hand of Xuezhan Daodi. See the module docstring."""

    rules: Rules
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
        self._compose(rules, dealer, seed, scores, exchange, hands, *parts)  # type: ignore[arg-type]
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
        rnd = cls.__new__(cls)
        exchange = direction if rules.exchange_three else None
        rnd._compose(rules, dealer, seed, scores, exchange, hands, *Round.new_parts(rules, hands, wall, setup.FULL_SET))
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

    def _compose(
        self,
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
    ) -> None:
        """Set the hand's facts and its parts (also how a determinization builds a round)."""
        self.rules = rules
        self.core = rules.core
        self._forced_opt = rules.last_tiles_forced  # R4.4
        self._lock_opt = rules.pass_win_lock  # R4.3
        self.dealer = dealer
        self.seed = seed
        self.exchange_dir = exchange  # R11.1
        self.scores = list(scores) if scores is not None else [0, 0, 0, 0]  # match totals before the hand
        self.scores_view = tuple(self.scores)
        self.hands0 = [list(h) for h in hands]  # as dealt, for the log (R1.4)
        self.wall = wall
        self.seats = seats
        self.turn = turn
        self.ledger = ledger

    def _start(self) -> None:
        self.ledger.events.append(ev.Start(self.dealer, self.wall.end))  # R11.1: the direction is shown later
        rules = self.rules
        if rules.exchange_three:
            setup.begin_exchange(self.turn, self.seats)
        elif rules.declare_void:
            setup.begin_void(self.turn)
        else:
            self._begin_play()

    # ================================================================== read-only views
    # The parts' fields that callers have always read from the round itself.
    counts = _View[list[bytearray]]("seats.counts", "Each seat's concealed tiles, 27 counts (``bytearray``).")
    melds = _View[list[list[int]]]("seats.melds", "Each seat's meld codes (docs/internals.md).")
    meld_from = _View[list[list[int | None]]](
        "seats.meld_from", "Each seat's melds' discarders (None for a concealed kong or added kong)."
    )
    river = _View[list[tuple[int, ...]]]("seats.river", "Each seat's discard pile (claimed discards left it).")
    aside = _View[list[tuple[int, ...]]]("seats.aside", "Each seat's self-drawn winning tiles set aside (R14.1).")
    won = _View[list[bool]]("seats.won", "Each seat has won (at least once, R14).")
    escaped = _View[list[bool]]("seats.escaped", "Each seat has escaped (R8).")
    active = _View[list[bool]]("seats.active", "Each seat is still in the hand (R0, R14.4).")
    void = _View[list[int]]("seats.void", "Each seat's declared void suit (R11.2), -1 if none or not yet known.")
    voids_known = _View[bool]("seats.voids_known", "The voids are public (R11.2).")
    stay = _View[bool]("seats.stay", "Winners stay in the hand (R14).")
    wall_count = _View[int]("wall.count", "Tiles left in the wall.")
    phase = _View[Phase]("turn.phase", "The pending decision's :class:`~xuezhan.engine.turn.Phase`.")
    cur = _View[int | None]("turn.cur", "The seat whose decision is pending (None once the hand is over).")
    legal = _View[list[Action]]("turn.legal", "The pending decision's legal actions (the engine's list: do not edit).")
    drawn = _View[int]("turn.drawn", "The kind just drawn by the seat on turn, -1 if none.")
    discard_mask = _View[int]("turn.discard_mask", "The pending turn's legal discards (bit k = kind k).")
    claims = _View[ClaimWindow | None]("turn.claims", "The open claim window, if any.")
    v_choice = _View[list[int]]("turn.v_choice", "The void choices made so far (R11.2), -1 not yet.")
    x_choice = _View[list[tuple | None]]("turn.x_choice", "The exchange choices made so far (R11.1).")
    events = _View[list[Event]]("ledger.events", "Every event of the hand, in order.")
    deltas = _View[list[int]]("ledger.deltas", "Each seat's points this hand so far.")
    wins = _View[list[Win]]("ledger.wins", "The win events, in order.")
    kongs = _View[list[KongRecord]]("ledger.kongs", "The kongs with their income (R6.4).")
    payments = _View[list[Pay]]("ledger.payments", "The pay events, in order.")
    fired = _View[set[str]]("ledger.fired", "The rule ids that fired (R9.3).")
    pigs = _View[set[int]]("ledger.pigs", "The pigs the ready check found (R7.1).")
    ready = _View[dict[int, int]]("ledger.ready", "The ready seats and their values (R7.3).")
    checked = _View[tuple[int, ...]]("ledger.checked", "The seats the ready check was made for (R7, R8).")
    end_reason = _View[str | None]("ledger.end_reason", "Why the hand ended: wall, three_won or escape.")
    next_dealer = _View[int | None]("ledger.next_dealer", "The next hand's dealer (R9.2), once the hand is over.")

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
        _need_int("seat", seat, optional=True)  # None (``cur`` once the hand is over): no actions
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

    def _apply_legal(self, action: Action, default: bool = False) -> None:
        """Apply an action known to be in the turn's legal actions (checked by :meth:`_apply`,
        or by the play loop, which calls this directly: a legal action needs no further checks)."""
        seat, verb, arg = action
        phase = self.turn.phase
        if phase is _TURN:
            if verb == DISCARD:  # the commonest decision first
                self._discard(seat, arg, default)  # type: ignore[arg-type]
            elif verb == HU:
                self.ledger.events.append(ev.Hu(seat, default))
                self._self_draw_win(seat, False)
            else:
                self._kong(seat, verb, arg, default)  # type: ignore[arg-type]
        elif phase is _CLAIM:
            self._claim(seat, verb, default)
        elif phase is Phase.VOID:
            if setup.apply_void(self.turn, self.seats, self.ledger, seat, arg, default):  # type: ignore[arg-type]
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
        turn = self.turn
        seat, verb, phase = action.seat, action.verb, turn.phase
        if phase == _OVER:
            raise IllegalAction(action, "the hand is over")
        if verb == ESCAPE:
            if not (isinstance(seat, int) and 0 <= seat < 4) or not self.seats.active[seat]:
                raise IllegalAction(action, f"seat {seat} is not an active player (it has won or left)")
            self.ledger.defaults_used += default
            self._escape(seat, default)
            return
        if seat != turn.cur:
            raise IllegalAction(action, f"it is seat {turn.cur}'s decision, not seat {seat}'s")
        if default:
            self._check_default(action)
        if phase == Phase.EXCHANGE:
            if setup.apply_exchange(turn, self.seats, self.ledger, self.exchange_dir, action, default):
                setup.begin_void(turn) if self.rules.declare_void else self._begin_play()
            return
        if action not in turn.legal:
            raise IllegalAction(action, self._refusal(action))
        self.ledger.defaults_used += default
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

    # ================================================================== turns (R2)
    def _begin_play(self) -> None:
        seats = self.seats
        for s in range(4):
            if s != self.dealer:
                seats.update_mask(s)
        turn = self.turn
        turn.drawn = -1
        turn.flags = DEALER_FIRST  # R5 heaven_earth: the dealer's first 14 tiles
        self._turn_decision(self.dealer)

    def _draw(self, seat: int, kong: KongRecord | None = None) -> None:
        """R1.3: draw from the front of the wall (kong replacements, after ``kong``, too). A player
        that must draw from an empty wall ends the hand (R4.5)."""
        wall = self.wall
        pos = wall.pos
        left = wall.end - pos  # tiles in the wall before this draw
        if left <= 0:
            self._end("wall")
            return
        seats = self.seats
        turn = self.turn
        events = self.ledger.events
        # R4.4: the last-tiles phase begins with the first draw made while the wall holds no
        # more tiles than there are active players.
        if left <= seats.n_active and not turn.last_phase:
            turn.last_phase = True
            events.append(ev.LastTiles(left))
        t = wall.tiles[pos]
        wall.pos = pos + 1
        c = seats.counts[seat]
        c[t] += 1
        seats.lock[seat] = 0  # R4.3: its own draw clears the restriction
        turn.drawn = t
        first = turn.first_drawn
        if kong is not None:
            turn.flags = TurnFlags(replacement=True, last_tile=left == 1, kong=kong)
        elif first[seat]:
            turn.flags = DRAW_FLAGS[left == 1][False]
        else:
            # R5 heaven_earth (地胡): a non-dealer's first draw before any claim.
            turn.flags = DRAW_FLAGS[left == 1][not turn.any_claim and seat != self.dealer]
        first[seat] = True
        events.append(_DRAW[kong is not None][seat][t])
        # The turn decision on the drawn tile (R2.1), made here rather than in _turn_decision:
        # this is the commonest path of a hand.
        turn.cur = seat
        can_hu = (seats.mask[seat] >> t) & 1
        if can_hu and self._forced_opt and turn.last_phase:
            self._self_draw_win(seat, True)  # R4.4: a self-drawn completing tile must be declared
            return
        turn.phase = _TURN
        if seats.stay and seats.won[seat]:  # R14.2: a winner's locked hand
            turn.legal, turn.discard_mask = self._locked_legal(seat, t, can_hu, left == 1)
            return
        # no kong after the last wall tile (R2.1); a draw never follows a peng
        turn.legal, turn.discard_mask = turn_legal(
            seat, c, seats.melds[seat], seats.void[seat], can_hu, False, left == 1
        )

    def _can_hu(self, seat: int) -> bool:
        """R4: the seat on turn holds a winning hand (the drawn tile, or the dealer's first 14)."""
        turn = self.turn
        seats = self.seats
        if turn.drawn >= 0:
            return bool((seats.mask[seat] >> turn.drawn) & 1)
        flags = turn.flags
        return (
            flags.heaven
            and not flags.after_peng
            and core.is_win(bytes(seats.counts[seat]), seats.mbytes[seat], seats.void[seat])
        )

    def _turn_legal(self, seat: int, can_hu: bool, why: dict | None = None) -> tuple[list[Action], int]:
        """The turn's legal actions and discard mask (:func:`~xuezhan.engine.legal.turn_legal`)."""
        seats = self.seats
        return turn_legal(
            seat, seats.counts[seat], seats.melds[seat], seats.void[seat], can_hu,
            self.turn.flags.after_peng, self.wall.empty, why,
        )  # fmt: skip

    def _locked_legal(self, seat: int, t: int, can_hu: int, wall_empty: bool, why: dict | None = None) -> tuple:
        """R14.2: the turn of a winner that stays, having drawn ``t``
        (:func:`~xuezhan.engine.legal.locked_turn_legal`); a kong must keep its waits."""
        seats = self.seats
        return locked_turn_legal(
            seat, seats.counts[seat], seats.melds[seat], seats.void[seat], t, can_hu, wall_empty, seats.mask[seat], why
        )

    def _turn_decision(self, seat: int) -> None:
        """A turn that does not begin with a draw: the dealer's first (R5 heaven_earth) and the
        turn after a peng (R2.4). (Turns that begin with a draw are decided in :meth:`_draw`,
        which also takes the R4.4 compulsory win: without a draw there is none to take.)"""
        turn = self.turn
        turn.cur = seat
        turn.phase = _TURN
        turn.legal, turn.discard_mask = self._turn_legal(seat, self._can_hu(seat))

    def _discard(self, seat: int, t: int, default: bool) -> None:
        seats = self.seats
        counts = seats.counts
        c = counts[seat]
        c[t] -= 1
        river = seats.river
        river[seat] += (t,)
        seats.river_view = tuple(river)
        wall = self.wall
        seen = wall.seen
        seen[t] += 1
        wall.seen_view = bytes(seen)
        self.ledger.events.append(_DISCARD[1 if default else 0][seat][t])
        mask = seats.mask
        mask[seat] = _wait_mask(bytes(c), seats.mbytes[seat], seats.void[seat])
        # Fast path: nobody could claim (no wait on t, fewer than two t in hand): the next draws.
        a = seats.active
        s1 = (seat + 1) & 3
        s2 = (seat + 2) & 3
        s3 = (seat + 3) & 3
        if (
            (a[s1] and ((mask[s1] >> t) & 1 or counts[s1][t] >= 2))
            or (a[s2] and ((mask[s2] >> t) & 1 or counts[s2][t] >= 2))
            or (a[s3] and ((mask[s3] >> t) & 1 or counts[s3][t] >= 2))
        ):
            self._open_claims(seat, t, False, *self.turn.flags.discard_context())
            return
        self.turn.claim_group += 1
        # R2.5: the next active player draws (the next seat, unless it has won or left)
        self._draw(s1 if a[s1] else seats.next_active(seat))

    def _kong(self, seat: int, verb: str, k: int, default: bool) -> None:
        """R2.1 concealed kong (angang) or added kong (jiagang; R3.3: it can be robbed first)."""
        seats = self.seats
        events = self.ledger.events
        if verb == ANGANG:
            seats.counts[seat][k] = 0
            seats.melds[seat].append(meld_code(MeldType.CONCEALED_KONG, k))
            seats.melds_changed(seat)
            self.wall.see(k, 4)  # a concealed kong is public (R2.3)
            seats.meld_from[seat].append(None)
            # recorded once the kong stands, like every event (the replay viewer shows the
            # state at each event); the same place in the log
            events.append(ev.Angang(seat, TILE_STR[k], default))
            self._kong_paid(seat, k, ANGANG, None)
            return
        events.append(ev.Jiagang(seat, TILE_STR[k], default))
        if self.rules.rob_kong:
            self._open_claims(seat, k, True, core.ROBBING_KONG, None)
        else:
            self._complete_jiagang(seat, k)

    def _complete_jiagang(self, seat: int, k: int) -> None:
        seats = self.seats
        seats.counts[seat][k] -= 1
        ms = seats.melds[seat]
        ms[ms.index(meld_code(MeldType.PUNG, k))] = meld_code(MeldType.KONG, k)
        seats.melds_changed(seat)
        self.wall.see(k, 1)
        self.ledger.events.append(ev.Meld(seat, "jiagang", TILE_STR[k], None))
        self._kong_paid(seat, k, "jiagang", None)

    def _kong_paid(self, seat: int, k: int, how: str, frm: int | None) -> None:
        """R6.4: the kong pays at once; then the replacement draw (R2.1)."""
        seats = self.seats
        ledger = self.ledger
        rec = pay.settle_kong(ledger, self.rules, seat, k, how, frm, seats.others(seat))
        ledger.kongs.append(rec)
        seats.update_mask(seat)
        self._draw(seat, rec)

    def _leave(self, seat: int, won: bool) -> None:
        """The seat has won or escaped (:meth:`~xuezhan.engine.seats.Seats.leave`): no decision
        is pending."""
        self.seats.leave(seat, won)
        self.turn.cur = None

    def _win(self, seat: int, frm: int | None, kind: int, res: tuple, how: str, forced: bool, group: int) -> None:
        self._leave(seat, True)
        self.seats.add_win(seat, kind)
        win, fired = pay.win_record(seat, frm, kind, res, how, forced, group, self.rules.max_fan)
        ledger = self.ledger
        ledger.events.append(win)
        ledger.wins.append(win)
        ledger.fired.update(fired)

    def _self_draw_win(self, seat: int, forced: bool) -> None:
        seats = self.seats
        turn = self.turn
        ledger = self.ledger
        core_rules = self.core
        c = bytes(seats.counts[seat])
        ctx, payer = turn.flags.self_draw_context(self.rules.kong_draw_discarder_pays)
        if turn.drawn >= 0:
            kind = turn.drawn
            res = seats.score(seat, c, kind, ctx, core_rules)
        else:  # 天胡: the dealer's first 14 tiles; the winning tile is the one giving the most fan.
            scored = [
                (r[1], r[0], -k, k, r) for k in range(27) if c[k] and (r := seats.score(seat, c, k, ctx, core_rules))
            ]
            *_, kind, res = max(scored) if scored else (0, 0, 0, -1, None)
        if res is None:  # pragma: no cover - the wait mask and the fan disagree
            raise RuntimeError(f"seat {seat}: the core's wait mask and fan disagree on {TILE_STR[kind]}")
        if forced:
            ledger.events.append(ev.Hu(seat, forced=True))
        if seats.stay:
            if turn.drawn < 0:  # R14.1: 天胡 sets aside the highest tile
                kind = max(k for k in range(27) if c[k])
            if seats.won[seat]:
                ledger.fired.add(F.REPEAT_WIN)
            seats.set_aside(seat, kind)
            self.wall.see(kind, 1)
        self._win(seat, None, kind, res, "self_draw", forced, -1 - len(ledger.wins))
        pay.settle_self_draw(ledger, self.rules, seat, res[2], seats.others(seat), payer)
        if len(ledger.wins) >= 3 and not seats.stay:
            self._end("three_won")
        else:
            self._draw(seats.next_active(seat))  # R2.5: the first active player after the winner

    # ================================================================== claims (R3)
    def _open_claims(self, frm: int, t: int, rob: bool, ctx: int, kong: KongRecord | None) -> None:
        turn = self.turn
        turn.claim_group += 1
        turn.claims = window.open_window(self.seats, frm, t, rob, ctx, kong)
        self._advance_claims()

    def _claim_lock_on(self) -> bool:
        """R4.3's pass-win lock applies now (the option is on, and not in R4.4's phase)."""
        return self._lock_opt and not self.turn.last_phase

    def _claim_legal(self, s: int, w: ClaimWindow, why: dict | None = None) -> list[Action]:
        return _claim_legal(self.seats, s, w, self._claim_lock_on(), self.wall.empty, why)

    def _advance_claims(self) -> None:
        """Ask the seats that could claim, in turn order from the discarder (R13)."""
        turn = self.turn
        w = turn.claims
        assert w is not None
        forced = turn.last_phase and self._forced_opt
        asked = window.next_claimant(
            w, self.seats, self.ledger, self.core, forced, self._claim_lock_on(), self.wall.empty
        )
        if asked is None:
            self._resolve_claims(w)
        else:
            turn.ask(_CLAIM, *asked)

    def _claim(self, seat: int, verb: str, default: bool) -> None:
        w = self.turn.claims
        assert w is not None
        window.note_claim(w, self.seats, self.ledger, seat, verb, default, self._lock_opt)
        self._advance_claims()

    def _resolve_claims(self, w: ClaimWindow) -> None:
        """R3.2: win > kong, peng; several winners all win (then no peng or kong)."""
        turn = self.turn
        seats = self.seats
        ledger = self.ledger
        turn.claims = None
        frm, t = w.frm, w.tile
        if w.hu:
            if len(w.hu) > 1:
                ledger.fired.add(F.MULTI_WIN)
            turn.any_claim = True
            if w.robbing:
                window.rob_tile(seats, self.wall, frm, t)
            for s in w.hu:
                h = bytearray(seats.counts[s])
                h[t] += 1
                res = seats.score(s, bytes(h), t, w.ctx, self.core)
                assert res is not None
                if seats.won[s]:
                    ledger.fired.add(F.REPEAT_WIN)
                self._win(s, frm, t, res, "rob" if w.robbing else "discard", False, turn.claim_group)
                pay.settle_discard_win(ledger, self.rules, s, frm, res[2], w.kong, w.robbing)
            if len(ledger.wins) >= 3 and not seats.stay:
                self._end("three_won")
            else:  # R2.5: the first active player after the last winner, counting from the discarder
                self._draw(seats.next_active(w.hu[-1]))
        elif w.robbing:
            self._complete_jiagang(frm, t)
        elif w.meld is not None:
            seat, verb = w.meld
            turn.any_claim = True
            window.take_meld(seats, self.wall, ledger, seat, verb, frm, t)
            if verb == PENG:  # R2.4: after a peng the claimer discards (no draw, no kong)
                turn.drawn = -1
                turn.flags = AFTER_PENG
                self._turn_decision(seat)
            else:
                self._kong_paid(seat, t, "gang", frm)
        else:  # R2.5: no claim taken: the next active player draws
            self._draw(seats.next_active(frm))

    # ================================================================== end (R4.5, R8)
    def _escape(self, seat: int, default: bool) -> None:
        ledger = self.ledger
        seats = self.seats
        ledger.events.append(ev.Escape(seat, default))
        caught = self._caught()  # before the escapee leaves: the seat on turn
        self._leave(seat, False)
        held = seats.holdings(caught)
        ledger.checked = tuple(held)
        ledger.pigs, ledger.ready = pay.settle_escape(ledger, self.rules, ledger.kongs, seat, held, seats.winners_in())
        self._end("escape")

    def _caught(self) -> tuple[int, int] | None:
        """``(seat, kind)`` of a winner on turn holding the tile it drew (R14.5: valued on its
        locked hand, without that tile, if the hand ends now)."""
        turn = self.turn
        seat = turn.cur
        if seat is not None and turn.drawn >= 0 and self.seats.locked(seat) and turn.phase == _TURN:
            return (seat, turn.drawn)
        return None

    def _end(self, reason: str) -> None:
        ledger = self.ledger
        seats = self.seats
        turn = self.turn
        if reason == "wall":
            held = seats.holdings()
            if len(held) >= 2:
                ledger.checked = tuple(held)
            present = [q for q in range(4) if not seats.escaped[q]]
            ledger.pigs, ledger.ready = pay.end_of_wall(
                ledger, self.rules, ledger.kongs, held, present, seats.winners_in()
            )
        turn.phase = _OVER
        turn.cur = None
        turn.legal = []
        turn.claims = None
        ledger.end_reason = reason
        ledger.next_dealer = nd = next_dealer(ledger.wins, self.dealer)
        if ledger.defaults_used:
            ledger.fired.add(F.DEFAULTS)
        ledger.events.append(ev.End(reason, list(ledger.deltas), nd))

    # ================================================================== errors
    def _refusal(self, action: Action) -> str:
        """Why ``action`` is not legal: the reason the legality function records for it."""
        seat = action.seat
        turn = self.turn
        why: dict = {}
        if turn.phase == _CLAIM:
            w = turn.claims
            assert w is not None
            self._claim_legal(seat, w, why)
            what = f"seat {seat} is asked about {TILE_STR[w.tile]} from seat {w.frm}"
            other = None if action.verb in CLAIM_VERBS else "a claim is hu, peng, gang or pass"
            return refusal(action, turn.legal, why, what, other)
        if turn.phase == _TURN:
            if self.seats.locked(seat) and turn.drawn >= 0:
                self._locked_legal(seat, turn.drawn, self._can_hu(seat), self.wall.empty, why)
                return refusal(action, turn.legal, why, f"it is seat {seat}'s turn, its hand locked by its win (R14.2)")
            self._turn_legal(seat, self._can_hu(seat), why)
            return refusal(action, turn.legal, why, f"it is seat {seat}'s turn")
        return refusal(action, turn.legal, why, f"seat {seat} must declare its void suit (R11.2)")
