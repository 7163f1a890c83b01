"""Playing hands and matches with strategies (docs/rules.md R9, R10).

Each decision goes through the one seat loop of :mod:`xuezhan.engine.decisions`. Every decision is
timed with ``time.perf_counter``. A decision slower than ``turn_timeout`` /
``claim_timeout`` takes the R10 default instead and counts against ``max_timeouts`` per match;
past that the bot escapes (R10.3). An exception or an illegal action from a bot is an escape
(R8). Strategies see only :class:`~xuezhan.engine.observation.Observation` values and the public
views of events; the engine knows them only through the ``Strategy`` protocol.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, Any

from xuezhan.engine.decisions import Delivery, bind_samplers, decide
from xuezhan.engine.round import Round, deal
from xuezhan.engine.seeds import first_dealer, hand_seed
from xuezhan.engine.turn import Phase
from xuezhan.rules import Rules, as_rules

__all__ = ["hand_seed", "first_dealer", "run_round", "play_hand", "play_match"]

_OVER = Phase.OVER


def run_round(
    rnd: Round,
    strategies: Sequence[Any],
    timeouts: list[int] | None = None,
    check: Any = None,
) -> Round:
    """Play ``rnd`` to its end with one strategy per seat (R10 timing and escapes).

    ``timeouts`` (per seat, mutated) carries the timeout counts of the match (R10.3).
    ``check(rnd)``, if given, is called after every decision (tests check R12 with it); with the
    environment variable ``XUEZHAN_DEBUG`` set, :meth:`Round.check_invariants` is.
    """
    if check is None and os.environ.get("XUEZHAN_DEBUG"):
        check = _debug_check  # R12 checked cheaply at run time in debug mode
    if timeouts is None:
        timeouts = [0, 0, 0, 0]
    deliver = Delivery(strategies)
    bind_samplers(rnd, strategies)  # a searching built-in samples this round's hidden tiles
    acts = [s.act for s in strategies]
    over = _OVER
    observing = deliver.any
    turn, ledger = rnd.turn, rnd.ledger  # the parts read at every decision
    while turn.phase is not over:  # phase always holds a Phase member: identity is enough
        if observing:
            deliver(ledger.events)
        seat = turn.cur
        assert seat is not None  # a hand that is not over always has a pending decision
        decide(rnd, seat, acts[seat], timeouts)  # timed, ruled on (R8, R10), applied
        if check is not None:
            check(rnd)
    deliver(ledger.events)
    return rnd


def _debug_check(rnd: Round) -> None:
    rnd.check_invariants()


def play_hand(
    strategies: Sequence[Any],
    rules: Rules | str | dict | None = None,
    seed: int = 0,
    dealer: int | None = None,
    scores: Sequence[int] | None = None,
    log: str | os.PathLike | IO[str] | None = None,
    timeouts: list[int] | None = None,
    reset: bool = True,
    check: Any = None,
) -> dict:
    """Deal a hand from ``seed`` (R1.4) and play it with ``strategies`` (one per seat).

    ``dealer`` defaults to the one drawn from ``seed`` (R9.1). Returns the result of
    :meth:`Round.result` plus ``seed`` and ``dealer``. ``log`` writes the JSON-lines log.
    """
    rules = as_rules(rules)
    if len(strategies) != 4:
        raise ValueError(f"a hand needs four strategies, got {len(strategies)}")
    if dealer is None:
        dealer = first_dealer(seed)
    if reset:
        for s, strat in enumerate(strategies):
            strat.reset(s, rules)
    rnd = Round.from_seed(rules, seed, dealer, scores)
    run_round(rnd, strategies, timeouts, check)
    if log is not None:
        from xuezhan.engine.log import write_log

        write_log(rnd, log)
    res = rnd.result()
    res["seed"] = seed
    res["dealer"] = dealer
    return res


def play_match(
    strategies: Sequence[Any],
    rules: Rules | str | dict | None = None,
    hands: int = 1,
    seed: int = 0,
    log_dir: str | os.PathLike | None = None,
) -> dict:
    """R9: a match of ``hands`` hands. The first dealer is drawn from the match seed (R9.1), the
    next dealer follows R9.2, scores add up across hands (R9.3). Hand ``i`` is dealt from
    :func:`hand_seed` ``(seed, i)``. Timeouts count per match (R10.3).

    Returns ``{"scores", "hands": [hand results], "timeouts"}``.
    """
    rules = as_rules(rules)
    scores = [0, 0, 0, 0]
    timeouts = [0, 0, 0, 0]
    dealer = first_dealer(seed)
    results = []
    for i in range(hands):
        hs = hand_seed(seed, i)
        log = None
        if log_dir is not None:
            os.makedirs(log_dir, exist_ok=True)
            log = os.path.join(os.fspath(log_dir), f"hand-{i:05d}.jsonl")
        res = play_hand(strategies, rules, hs, dealer, scores, log, timeouts)
        res["hand"] = i
        for s in range(4):
            scores[s] += res["deltas"][s]
        results.append(res)
        dealer = res["next_dealer"]
    return {"scores": scores, "hands": results, "timeouts": timeouts}


__all__ += ["deal"]
