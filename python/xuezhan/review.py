"""The reviewer: which of one seat's decisions in a logged hand cost it points.

A hand log (a tournament's ``--logs``, a hand played in the game room, ``xuezhan replay --log``)
is read by the one log reader (:func:`xuezhan.documents.parse_log`) and replayed through the
engine (:func:`xuezhan.engine.log.replay_log`). At each decision of the reviewed seat that had
a choice (a turn: discard, kong or win; a claim: win, peng, kong or pass; the exchange of three
tiles, R11.1; the void suit, R11.2), every legal action is estimated as the ``expert``
strategy's search estimates it (the default ``policy``, :func:`xuezhan.search.estimate.estimate_expert`):
``rollouts`` samples of what the seat could not see there, drawn by the native engine's
determinizer (rust/core/src/hand/sample.rs, which says what a sample keeps and what it draws),
each action played on every sample and the hand finished by ``value`` at all four seats,
natively. With ``policy`` ``greedy``, ``value`` or ``random`` the samples are the Python
determinizer's (:func:`xuezhan.engine.determinize.determinize`) and the rollouts are played by
that policy at all four seats (:func:`xuezhan.search.estimate_actions`). An estimate is the
seat's mean result for the hand (its delta, in points) with a normal 95% interval; the
choice's *loss* is the best action's mean less the played action's mean (0 when the played
action is the best).

A decision with more than :data:`MAX_CANDIDATES` legal actions (an exchange can have dozens)
is first screened: every action on a quarter of the rollouts, then the best
``MAX_CANDIDATES - 1`` and the played action on all of them.

Decisions are reviewed independently, each with its own random generator drawn from
``(seed, the decision's event)``: the same log, seat, seed and options give the same review.

    >>> from xuezhan.engine import Round, log_lines
    >>> from xuezhan.engine.match import run_round
    >>> from xuezhan.documents import parse_log
    >>> from xuezhan.strategies import GreedyStrategy
    >>> rnd = Round.from_seed("leshan", 1)
    >>> bots = [GreedyStrategy() for _ in range(4)]
    >>> for i, b in enumerate(bots): b.reset(i, rnd.rules)
    >>> log = parse_log("\\n".join(log_lines(run_round(rnd, bots))))
    >>> rv = review_log(log, 0, rollouts=2, seed=0)
    >>> rv.seat, all(d.loss >= 0 and d.played.rollouts == 2 for d in rv.decisions)
    (0, True)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from xuezhan.documents import DocumentError, HandLog
from xuezhan.engine.actions import ESCAPE, Action
from xuezhan.engine.determinize import DeterminizeError
from xuezhan.engine.events import Draw, Peng
from xuezhan.engine.log import ReplayMismatch, replay_log
from xuezhan.engine.round import Round
from xuezhan.search import ActionEstimate, estimate_actions
from xuezhan.search.estimate import estimate_expert
from xuezhan.strategies.policies import ROLLOUT_POLICIES
from xuezhan.tiles import SUITS, TILE_STR, format_tiles

__all__ = [
    "FORMAT",
    "MAX_CANDIDATES",
    "POLICIES",
    "ActionValue",
    "Decision",
    "Position",
    "Review",
    "ReviewError",
    "ReviewTimeout",
    "count_decisions",
    "review_log",
]

#: The version of the review document (:class:`Review`); a change that breaks a reader bumps it.
FORMAT = 1
#: The most actions of one decision estimated on every rollout (more are screened first).
MAX_CANDIDATES = 12
#: Rollout policies: ``expert``'s own search, or a built-in strategy fast enough to play
#: thousands of hands a decision.
POLICIES = ("expert", *ROLLOUT_POLICIES)


class ReviewError(ValueError):
    """A log that cannot be reviewed (not a hand log, one the engine does not reproduce, a seat
    out of range, bad options); the message names the log and the fault."""


class ReviewTimeout(RuntimeError):
    """The review passed its deadline (between two decisions); ``done`` decisions were reviewed."""

    def __init__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        super().__init__(f"the time limit passed after {done} of {total} decisions")

    def __reduce__(self) -> tuple[type[ReviewTimeout], tuple[int, int]]:
        return ReviewTimeout, (self.done, self.total)  # it crosses from a worker process


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ActionValue(_Model):
    """One action's estimate: the seat's mean result for the hand (points) after it, with a 95%
    interval, over ``rollouts`` determinized rollouts."""

    action: str = Field(description='The action as an R13 script line without the seat: "discard 5p", "hu", "pass".')
    mean: float = Field(description="Mean delta of the reviewed seat for the whole hand, in points.")
    low: float = Field(description="Lower end of the 95% interval of the mean (normal approximation).")
    high: float = Field(description="Upper end of the 95% interval of the mean.")
    rollouts: int = Field(description="Rollouts (determinized samples played to the end) behind the estimate.")


class Position(_Model):
    """Where the decision was taken, as the reviewed seat saw it."""

    turn: int = Field(description="Turns begun in the hand so far (a draw or a peng begins one; 0 before play).")
    phase: Literal["exchange", "void", "turn", "claim"] = Field(description="The kind of decision.")
    hand: str = Field(description='The seat\'s concealed tiles, drawn tile included ("1122m9p").')
    melds: str = Field(description='The seat\'s melds: "333m" a pung, "9999m" a kong, "(9999m)" a concealed kong.')
    void: str | None = Field(description="The seat's void suit (m, p or s) once chosen (R11.2), else null.")
    drawn: str | None = Field(description="The tile just drawn (a turn after a draw), else null.")
    claim_tile: str | None = Field(description="The tile that could be claimed (a claim), else null.")
    claim_from: int | None = Field(description="The seat that offered it (a claim), else null.")
    wall_count: int = Field(description="Tiles left in the wall.")


class Decision(_Model):
    """One reviewed decision: the played action, the best alternatives, the points the choice lost."""

    event: int = Field(description="Index (0-based) of the decision's event among the log's events.")
    line: int = Field(description="The log's line (1-based) of the decision's event.")
    step: int = Field(description="The replay page's frame showing the position before the decision.")
    position: Position
    played: ActionValue = Field(description="The action played.")
    default: bool = Field(description="The played action was the R10 default (the time ran out).")
    best: list[ActionValue] = Field(description="The best other actions, best first (at most --top).")
    loss: float = Field(description="Best action's mean less the played action's mean; 0 if played is best.")
    legal: int = Field(description="Legal actions at the decision.")
    estimated: int = Field(description="Actions estimated on every rollout (all legal ones unless screened).")


class Review(_Model):
    """The review of one seat of one hand (``xuezhan review --json``; the room's review API)."""

    format: Literal[1] = Field(default=1, description="Version of this document (FORMAT).")
    source: str = Field(description="The log reviewed.")
    seat: int = Field(description="The seat reviewed, 0-3.")
    name: str | None = Field(description="The seat's name (a hand played in the room), else null.")
    preset: str | None = Field(description="The hand's rule preset.")
    rollouts: int = Field(description="Determinized rollouts per decision.")
    policy: str = Field(description="The rollout policy of all four seats.")
    seed: int = Field(description="The review's seed (same seed, same review).")
    delta: int = Field(description="The seat's actual result for the hand, in points.")
    decisions: list[Decision] = Field(description="Every decision with a choice, in play order.")
    by_loss: list[int] = Field(description="Indices into decisions, largest loss first (ties in play order).")
    total_loss: float = Field(description="Sum of the decisions' losses.")
    unreviewed: list[int] = Field(
        default_factory=list,
        description="Log lines of decisions with no estimate: no round consistent with the seat's view was "
        "found (a winner's locked hand, R14, can make that rare case).",
    )


# an observation's meld types (0 pung, 1 kong, 2 concealed kong) as the project writes melds
_MELD_FORMS = ("{}", "{}", "({})")


def _tile(k: int | None) -> str | None:
    """A tile kind as text; None for none (an observation's -1 or None)."""
    return TILE_STR[k] if k is not None and k >= 0 else None


def _short(action: Action) -> str:
    return str(action).split(" ", 1)[1]


def _value(e: ActionEstimate) -> ActionValue:
    return ActionValue(
        action=_short(e.action),
        mean=round(e.mean, 6),
        low=round(e.low, 6),
        high=round(e.high, 6),
        rollouts=e.rollouts,
    )


def _position(rnd: Round, seat: int) -> Position:
    obs = rnd.observation(seat)
    turn = sum(1 for e in rnd.ledger.events if (isinstance(e, Draw) and not e.replacement) or isinstance(e, Peng))
    melds = " ".join(
        _MELD_FORMS[t].format(TILE_STR[k][0] * (3 if t == 0 else 4) + TILE_STR[k][1]) for t, k in obs.melds[seat]
    )
    void = obs.voids[seat]
    return Position(
        turn=turn,
        phase=obs.phase,  # type: ignore[arg-type]  # a pending decision is never "over"
        hand=format_tiles(obs.hand),
        melds=melds,
        void=SUITS[void] if void >= 0 else None,
        drawn=_tile(obs.drawn),
        claim_tile=_tile(obs.claim_tile),
        claim_from=obs.claim_from,
        wall_count=obs.wall_count,
    )


def _decides(rnd: Round, seat: int, action: Action) -> bool:
    """A decision of ``seat`` with a choice (an escape is no choice among legal actions)."""
    return rnd.turn.cur == seat and action.seat == seat and action.verb != ESCAPE and len(rnd.legal_actions(seat)) > 1


def _replayed(log: HandLog, before: Callable[[Round, Action, int], None] | None = None) -> Round:
    try:
        return replay_log(log, before=before)
    except ReplayMismatch as exc:
        raise ReviewError(f"{log.source}: not the log of a hand the engine plays: {exc}") from None
    except DocumentError as exc:  # a header that deals no hand (rules, tiles)
        raise ReviewError(str(exc)) from None


def count_decisions(log: HandLog, seat: int) -> int:
    """The decisions of ``seat`` with a choice in ``log`` (replaying it, so a log the engine does
    not reproduce raises :class:`ReviewError`)."""
    _check_seat(log, seat)
    n = 0

    def count(rnd: Round, action: Action, index: int) -> None:
        nonlocal n
        n += _decides(rnd, seat, action)

    _replayed(log, count)
    return n


def _check_seat(log: HandLog, seat: int) -> None:
    if type(seat) is not int or not 0 <= seat <= 3:
        raise ReviewError(f"{log.source}: seat {seat!r}: a seat is 0, 1, 2 or 3")


def _estimates(
    rnd: Round, seat: int, played: Action, rollouts: int, rng: random.Random, policy: str
) -> tuple[list[ActionEstimate], int]:
    """Every candidate's estimate, best first, and how many were estimated on all rollouts."""
    legal = rnd.legal_actions(seat)
    if played not in legal:  # never for a log the engine reproduced; kept so the played one is shown
        legal.append(played)

    def estimate(n: int, actions: list[Action]) -> list[ActionEstimate]:
        if policy == "expert":
            return estimate_expert(rnd, seat, rollouts=n, rng=rng, actions=actions)
        return estimate_actions(rnd, seat, rollouts=n, rng=rng, policy=ROLLOUT_POLICIES[policy], actions=actions)

    if len(legal) > MAX_CANDIDATES:
        screen = estimate(max(2, rollouts // 4), legal)
        keep = [e.action for e in screen if e.action != played][: MAX_CANDIDATES - 1]
        legal = [a for a in legal if a in keep or a == played]  # legal order: ties break the same way
    return estimate(rollouts, legal), len(legal)


def review_log(
    log: HandLog,
    seat: int,
    *,
    rollouts: int = 64,
    seed: int = 0,
    top: int = 3,
    policy: str = "expert",
    deadline: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Review:
    """Review ``seat``'s decisions in ``log`` (see the module docstring).

    ``deadline`` (a :func:`time.monotonic` time) stops the review between two decisions with
    :class:`ReviewTimeout`; ``progress(done, total)`` is called after each decision. A log that
    the engine does not reproduce, a seat out of range or a bad option raises
    :class:`ReviewError` before any rollout."""
    _check_seat(log, seat)
    if type(rollouts) is not int or rollouts < 2:
        raise ReviewError(f"rollouts: expected a whole number of at least 2 (an interval needs two), got {rollouts!r}")
    if type(top) is not int or top < 1:
        raise ReviewError(f"top: expected a whole number of at least 1, got {top!r}")
    if policy not in POLICIES:
        raise ReviewError(f"policy {policy!r}: the rollout policy is one of {', '.join(POLICIES)}")
    if type(seed) is not int:
        raise ReviewError(f"seed: expected a whole number, got {seed!r}")
    total = count_decisions(log, seat)  # also checks that the log reproduces, before any rollout
    decisions: list[Decision] = []
    unreviewed: list[int] = []

    def review(rnd: Round, action: Action, index: int) -> None:
        if not _decides(rnd, seat, action):
            return
        if deadline is not None and time.monotonic() > deadline:
            raise ReviewTimeout(len(decisions) + len(unreviewed), total)
        rng = random.Random(f"xuezhan review {seed} {index}")  # str seeds hash with SHA-512: stable
        try:
            ests, estimated = _estimates(rnd, seat, action, rollouts, rng, policy)
        except DeterminizeError:
            unreviewed.append(log.line_of(index))
            return
        mine = next(e for e in ests if e.action == action)
        played = _value(mine)
        loss = max(0.0, ests[0].mean - mine.mean)
        decisions.append(
            Decision(
                event=index,
                line=log.line_of(index),
                step=index,
                position=_position(rnd, seat),
                played=played,
                default=bool(getattr(log.events[index], "default", False)),
                best=[_value(e) for e in ests if e.action != action][:top],
                loss=round(loss, 6),
                legal=len(rnd.legal_actions(seat)),
                estimated=estimated,
            )
        )
        if progress is not None:
            progress(len(decisions) + len(unreviewed), total)

    rnd = _replayed(log, review)
    order = sorted(range(len(decisions)), key=lambda i: (-decisions[i].loss, i))
    hdr = log.header
    return Review(
        source=log.source,
        seat=seat,
        name=hdr.names[seat] if hdr.names else None,
        preset=hdr.rules.get("preset") if isinstance(hdr.rules.get("preset"), str) else None,
        rollouts=rollouts,
        policy=policy,
        seed=seed,
        delta=rnd.ledger.deltas[seat],
        decisions=decisions,
        by_loss=order,
        total_loss=round(sum(d.loss for d in decisions), 6),
        unreviewed=unreviewed,
    )
