"""One seat's decision, the same everywhere a strategy plays: matches (:mod:`.match`), the game
room, the single-agent environment and check-bot (docs/rules.md R8, R10).

- :class:`Strategy` is the only thing the engine knows of a bot.
- :func:`time_limit` is the one choice of a decision's time: ``claim_timeout`` for a claim (R10.2),
  ``turn_timeout`` for everything else (R10.1).
- :func:`rule` turns a strategy's answer into what the hand applies: a legal action as it is;
  a decision slower than its limit the default (R10.1/R10.2), counted, and past
  ``max_timeouts`` an escape (R10.3); an answer that is not an action of this seat an escape
  (R10.3, R8). :func:`crashed` is the escape of a strategy that raised.
- :func:`apply` applies a :class:`Ruling`; an own action the hand refuses is an escape (R10.3).
- :func:`decide` does all of it for one decision of a synchronous strategy, and :class:`Delivery`
  hands each strategy the public views of the events it has not seen.
- :func:`bind_samplers` gives each built-in strategy that asks for one (``uses_sampler = True``,
  such as ``search``; :func:`wants_sampler`) a :class:`Sampler` of its seat before a hand is played: its only
  capability is ``sample(rng)``, a round consistent with what the seat knows
  (:func:`~xuezhan.engine.determinize.determinize`), never the round itself.

    >>> from xuezhan.engine import Round
    >>> from xuezhan.engine.actions import act
    >>> r = Round.from_seed("leshan", 1, 0)
    >>> rule(r, 0, act(1, "pass"), 0.0, [0, 0, 0, 0]).note  # another seat's action: an escape
    'illegal action'
    >>> time_limit(r.rules, "claim") == r.rules.claim_timeout
    True
    >>> rule(r, 0, r.legal_actions(0)[0], 99.0, [0, 0, 0, 0]).note  # too slow: the default (R10.1)
    'timeout'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from xuezhan.engine.actions import ESCAPE, Action, IllegalAction, act, check_fields
from xuezhan.engine.events import public_view
from xuezhan.engine.observation import Observation
from xuezhan.engine.turn import Phase

if TYPE_CHECKING:  # pragma: no cover
    from xuezhan.engine.round import Round
    from xuezhan.rules import Rules

_CLAIM = Phase.CLAIM

__all__ = [
    "Delivery",
    "Ruling",
    "Sampler",
    "Strategy",
    "apply",
    "bind_samplers",
    "crashed",
    "decide",
    "rule",
    "time_limit",
    "wants_sampler",
]


@runtime_checkable
class Strategy(Protocol):
    """``reset(seat, rules)`` before each hand; ``act(observation) -> Action`` per decision;
    optional ``observe(event)`` receives every event the seat may see, in order."""

    def reset(self, seat: int, rules: Rules) -> None: ...

    def act(self, observation: Observation) -> Action: ...


def time_limit(rules: Rules, phase: Phase | str) -> float:
    """Seconds allowed for a decision of ``phase`` (a :class:`~.state.Phase` or its name, as
    in ``Observation.phase``): ``claim_timeout`` for a claim (R10.2), ``turn_timeout`` for
    everything else (R10.1, R11)."""
    return rules.claim_timeout if phase is _CLAIM or phase == "claim" else rules.turn_timeout


@dataclass(slots=True)
class Ruling:
    """What the hand applies for one decision: ``action`` with its ``default`` flag and
    ``note``; ``legal`` = already known legal (applied without a second check)."""

    action: Action
    default: bool = False
    note: str | None = None
    legal: bool = False


def crashed(seat: int, exc: BaseException) -> Ruling:
    """R10.3: a strategy that raised escapes (R8)."""
    return Ruling(act(seat, ESCAPE), note=f"exception {type(exc).__name__}")


def rule(rnd: Round, seat: int, answer: Any, elapsed: float, timeouts: list[int], limit: float | None = None) -> Ruling:
    """The ruling on ``answer``, given ``elapsed`` seconds against ``limit`` (by default
    :func:`time_limit` of the decision; ``inf`` for none). ``timeouts`` (per seat, the match's
    counts) is updated."""
    if limit is None:
        limit = time_limit(rnd.rules, rnd.turn.phase)
    if elapsed > limit:
        timeouts[seat] += 1
        if timeouts[seat] > rnd.rules.max_timeouts:  # R10.3: past max_timeouts the bot escapes
            return Ruling(act(seat, ESCAPE), default=True, note="timeout limit")
        return Ruling(rnd.default_action(), default=True, note="timeout")
    found = legal_answer(rnd.turn.legal, answer)
    if found is not None:
        return Ruling(found, legal=True)
    if type(answer) is Action and _typed(answer) and answer.seat == seat:
        return Ruling(answer)  # its own escape, or an exchange written in another order
    return Ruling(act(seat, ESCAPE), note="illegal action")  # R10.3: not an action of this seat


def apply(rnd: Round, ruling: Ruling) -> None:
    """Apply a ruling; an own action the hand refuses is an escape (R10.3, R8)."""
    if ruling.legal:
        rnd.apply_legal(ruling.action)
        return
    try:
        rnd.apply(ruling.action, default=ruling.default, note=ruling.note)
    except (IllegalAction, TypeError):  # R10.3: refused, or fields of the wrong types
        rnd.apply(act(ruling.action.seat, ESCAPE), note="illegal action")


def decide(
    rnd: Round,
    seat: int,
    strategy_act: Callable[[Observation], Any],
    timeouts: list[int],
    limit: float | None = None,
) -> None:
    """One decision of a synchronous strategy (its ``act``), timed, ruled on and applied."""
    obs = Observation(rnd, seat)
    t0 = perf_counter()
    try:
        answer = strategy_act(obs)
    except Exception as exc:  # noqa: BLE001 - R10.3: a crash is an escape (R8)
        apply(rnd, crashed(seat, exc))
        return
    elapsed = perf_counter() - t0
    # The common case first, without building a ruling (tournaments make millions of these):
    # in time and legal is exactly what rule() would pass through as it is.
    turn = rnd.turn
    if elapsed <= (limit if limit is not None else time_limit(rnd.rules, turn.phase)):
        found = legal_answer(turn.legal, answer)
        if found is not None:
            rnd.apply_legal(found)
            return
    apply(rnd, rule(rnd, seat, answer, elapsed, timeouts, limit))


def legal_answer(legal: list[Action], answer: Any) -> Action | None:
    """The legal action ``answer`` is, or None. The engine's own action objects are found by
    identity and cost nothing more; an equal action it did not make counts only when its fields
    have exactly the engine's types (not ``True`` for 1, nor ``13.0`` for 13)."""
    try:
        found = legal[legal.index(answer)]
    except Exception:  # noqa: BLE001 - not listed, or a broken action value (its __eq__ raised, ...)
        return None
    if found is not answer and (type(answer) is not Action or not _typed(answer)):
        return None
    return found


def _typed(action: Action) -> bool:
    try:
        check_fields(action.seat, action.verb, action.arg)
    except TypeError:
        return False
    return True


class Sampler:
    """Samples of the hidden information of one seat's round, for a searching strategy.

    ``sample(rng)`` is :func:`~xuezhan.engine.determinize.determinize` of the true round for the
    seat, at the seat's pending decision: a new round that keeps what the seat sees and knows
    and draws the rest (the other hands, the wall's order, hidden choices) from ``rng``. It
    exposes nothing beyond the seat's knowledge: the determinization of the same generator does
    not change when the hidden information of the true round does (tests/test_determinize.py),
    and the only other method, ``sealed``, gives the round to the native determinizer, which
    does the same, in a form Python cannot read. The round is held in a private slot, which
    Python cannot seal against code running in the same process: that is why only built-in
    strategies are given one (:func:`bind_samplers`); a user's strategy runs in its own process
    (R10.3) or, trusted, could reach the round anyway.

    Called when it is not the seat's decision, ``sample`` raises ``ValueError``.
    """

    __slots__ = ("_round", "_seat")

    def __init__(self, rnd: Round, seat: int) -> None:
        self._round = rnd
        self._seat = seat

    def sample(self, rng: random.Random, *, pick: int = 1, ready: float = 0.0, read_discards: bool = False) -> Round:
        """A round consistent with the seat's observation of the true round, drawn from ``rng``;
        ``pick``: the readiest of that many samples of the other hands; ``ready``: the chance
        that each other seat is dealt a ready hand; ``read_discards``: ready hands shaped by each
        seat's discards (see ``determinize``)."""
        from xuezhan.engine.determinize import determinize  # determinize builds on Round

        return determinize(self._round, self._seat, rng, pick=pick, ready=ready, read_discards=read_discards)

    def sealed(self) -> Any:
        """The round sealed for a built-in strategy whose search samples it in Rust (``expert``):
        an object with no method or attribute Python can read; only the native determinizer opens
        it, and reads only what the seat may know (rust/core/src/hand/sample.rs)."""
        from xuezhan._core import seal
        from xuezhan.native import from_round

        return seal(from_round(self._round))


def bind_samplers(rnd: Round, strategies: Sequence[Any]) -> None:
    """Give each strategy of ``strategies`` (one per seat) that :func:`wants_sampler` a
    :class:`Sampler` of its seat of ``rnd``, through its ``bind_sampler`` method; the others
    are left alone. Called once per hand, after the strategies' ``reset``, by every loop that
    plays a hand (matches, the environment)."""
    for seat, s in enumerate(strategies):
        if wants_sampler(s):
            s.bind_sampler(Sampler(rnd, seat))


def wants_sampler(strategy: Any) -> bool:
    """True for a strategy of the project's own code (a built-in, or a built-in wrapper such as
    check-bot's recorder around one) that asks for a :class:`Sampler` (``uses_sampler`` true);
    a user's strategy never gets one."""
    return bool(getattr(strategy, "uses_sampler", False)) and type(strategy).__module__.startswith(_OWN)


_OWN = ("xuezhan.strategies.", "xuezhan.testing.")


class Delivery:
    """Hands each seat's ``observe`` the public views of the events it has not seen yet."""

    def __init__(self, strategies: Sequence[Any]) -> None:
        self.observers: list[Callable[[dict], Any] | None] = [
            getattr(s, "observe", None) if s is not None else None for s in strategies
        ]
        self.any = any(o is not None for o in self.observers)
        self.seen = 0

    def __call__(self, events: Sequence[Any]) -> None:
        if not self.any:
            return
        n = len(events)
        for i in range(self.seen, n):
            e = events[i]
            for seat, ob in enumerate(self.observers):
                if ob is not None:
                    v = public_view(e, seat)
                    if v is not None:
                        ob(v)
        self.seen = n
