"""Play a bot through many seeded hands against built-in bots and report everything it did wrong.

The hands are played exactly as a tournament plays them (:func:`xuezhan.engine.run_round`: the
same timing, R10 defaults and R8 escapes); the bot is wrapped in a recorder that notes, with the
message that caused it, every

- ``illegal`` action (one that is not among the legal actions: an escape, R10.3),
- ``timeout`` (a decision slower than ``turn_timeout`` / ``claim_timeout``, R10.1–R10.2),
- ``crash`` (an external bot's process exited or could not start),
- ``protocol`` error (an external bot's answer that is not JSON (``NaN`` is not JSON), is
  nested too deeply, has an id that is not the request's integer id (``1.0`` and ``true`` are
  not), no action, or an action that does not parse; a second answer to a request, an answer
  before its request, a line while no request was waiting; docs/protocol.md),
- ``exception`` raised by a Python strategy.

An external bot's standard error is kept, and the last lines written before a crash are
quoted in its report.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from xuezhan.engine import Round, first_dealer, hand_seed, run_round
from xuezhan.engine.decisions import Sampler, time_limit, wants_sampler
from xuezhan.rules import Rules, as_rules
from xuezhan.strategies import builtin

__all__ = ["KINDS", "CheckReport", "Problem", "check_strategy"]

#: Problem kinds, in report order.
KINDS = ("crash", "protocol", "exception", "illegal", "timeout")


@dataclass(frozen=True)
class Problem:
    """One thing the bot did wrong: what, where (hand index, its seed, rules, seat) and why."""

    kind: str
    hand: int
    seed: int
    rules: str
    seat: int
    message: str

    def __str__(self) -> str:
        return f"[{self.kind}] hand {self.hand} (seed {self.seed}, {self.rules}, seat {self.seat}): {self.message}"


@dataclass
class CheckReport:
    """The result of :func:`check_strategy`; ``ok`` is true when nothing went wrong."""

    name: str
    hands: int = 0
    decisions: int = 0
    #: Decisions made on a locked hand (R14.2: the bot had won and winners stay), so a report
    #: says whether the ``wins`` of its observations ever mattered.
    locked: int = 0
    escapes: int = 0
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def counts(self) -> dict[str, int]:
        """Number of problems per kind."""
        return {k: sum(p.kind == k for p in self.problems) for k in KINDS}

    def format(self, limit: int = 10) -> str:
        """A readable report; at most ``limit`` problems of each kind are quoted."""
        locked = f" ({self.locked} on a locked hand, R14)" if self.locked else ""
        head = f"{self.name}: {self.hands} hands, {self.decisions} decisions{locked}, "
        lines = [head + f"{self.escapes} escapes, {self.seconds:.1f} s"]
        counts = self.counts()
        if self.ok:
            lines.append("OK: no illegal action, timeout, crash, exception or protocol error")
            return "\n".join(lines)
        lines.append("FAILED: " + ", ".join(f"{n} × {k}" for k, n in counts.items() if n))
        for kind in KINDS:
            shown = [p for p in self.problems if p.kind == kind][:limit]
            for p in shown:
                lines.append(f"  {p}")
            if counts[kind] > len(shown):
                lines.append(f"  ... and {counts[kind] - len(shown)} more {kind} problems")
        return "\n".join(lines)


class _Recorder:
    """Wraps the bot under test: records what goes wrong and passes everything on unchanged."""

    def __init__(self, inner: Any, report: CheckReport, stderr_path: str | None) -> None:
        self.inner = inner
        self.report = report
        self.stderr_path = stderr_path
        self.where: tuple[int, int, str] = (0, 0, "")
        self.seat = 0
        self.rules: Rules | None = None
        self._stderr_seen = 0  # bytes of the stderr file already quoted
        if hasattr(inner, "observe"):
            self.observe = inner.observe
        # a built-in searching strategy gets its seat's sampler through the recorder, as it
        # would in a tournament (nothing for a user's bot: wants_sampler says no)
        self.uses_sampler = wants_sampler(inner)

    def reset(self, seat: int, rules: Rules) -> None:
        self.seat = seat
        self.rules = rules
        self.inner.reset(seat, rules)

    def bind_sampler(self, sampler: Sampler) -> None:
        self.inner.bind_sampler(sampler)

    def _note(self, kind: str, message: str) -> None:
        hand, seed, rules = self.where
        self.report.problems.append(Problem(kind, hand, seed, rules, self.seat, message))

    def act(self, obs: Any) -> Any:
        from xuezhan.strategies.external import BotCrashed, ExternalBotError

        rules = self.rules
        assert rules is not None
        limit = time_limit(rules, obs.phase)  # R10, the seat loop's one choice
        self.report.decisions += 1
        if rules.stay and obs.won[obs.seat]:
            self.report.locked += 1
        t0 = time.perf_counter()
        try:
            action = self.inner.act(obs)
        except ExternalBotError as exc:
            msg = str(exc)
            if isinstance(exc, BotCrashed):  # the message says how it ended (its exit status)
                self._note("crash", msg + self._stderr_tail())
            else:
                self._note("protocol", msg)
            raise
        except Exception as exc:
            self._note(
                "exception",
                f"{type(exc).__name__}: {exc} (at {_a(obs.phase)} decision)",
            )
            raise
        dt = time.perf_counter() - t0
        if dt > limit:
            self._note(
                "timeout",
                f"{dt:.2f} s for {_a(obs.phase)} decision (limit {limit:g} s)",
            )
            return action
        try:
            ok = action in obs.legal_actions
        except Exception:  # noqa: BLE001 - an action value whose comparison fails is illegal
            ok = False
        if not ok and not _same_exchange(action, obs):
            texts = [_text(a) for a in obs.legal_actions]
            legal = ", ".join(texts[:12]) + (f", ... ({len(texts)} in all)" if len(texts) > 12 else "")
            self._note(
                "illegal",
                f"answered {_text(action)!r} at {_a(obs.phase)} decision (an escape, R10.3); legal: {legal}",
            )
        return action

    def _stderr_tail(self) -> str:
        """The last lines the bot wrote to its standard error since the previous quote: every
        restart writes to the same file, and a crash quotes only what is new, so copies of an
        earlier crash's lines never pile up in later messages."""
        if not self.stderr_path or not os.path.exists(self.stderr_path):
            return ""
        with open(self.stderr_path, "rb") as fh:
            fh.seek(self._stderr_seen)
            new = fh.read()
        self._stderr_seen += len(new)
        tail = [ln for ln in new.decode("utf-8", "replace").strip().splitlines() if ln.strip()][-8:]
        return ("; its stderr ended: " + " | ".join(tail)) if tail else ""


def _a(phase: str) -> str:
    return ("an " if phase[0] in "aeiou" else "a ") + phase


def _text(action: Any) -> str:
    """An action as the protocol writes it (the script line without the seat)."""
    s = str(action)
    head, _, rest = s.partition(" ")
    return rest if head.isdigit() and rest else s


def _same_exchange(action: Any, obs: Any) -> bool:
    """An exchange written in another tile order is legal (the engine sorts it)."""
    arg = getattr(action, "arg", None)
    if getattr(action, "verb", None) != "exchange" or not isinstance(arg, tuple):
        return False
    key = tuple(sorted(arg))
    return any(a.verb == "exchange" and a.arg == key and a.seat == action.seat for a in obs.legal_actions)


def check_strategy(
    strategy: Any,
    *,
    hands: int = 200,
    seed: int = 0,
    rules: str | Rules | dict | Sequence[str | Rules | dict] = ("leshan", "chengdu", "xueliu"),
    opponents: Sequence[str] = ("random", "greedy", "value"),
    timeout: float | None = None,
    cwd: str | None = None,
    name: str | None = None,
    progress: Any = None,
) -> CheckReport:
    """Play ``hands`` seeded hands with ``strategy`` (a ``Strategy`` object, or a command line
    run as an external bot) against built-in ``opponents``, and report every problem.

    The bot sits in seat ``i % 4`` in hand ``i``, hands alternate over ``rules`` (by default
    every preset, so the exchange and void decisions of chengdu and the locked hand of xueliu,
    R14, are exercised; the report counts the decisions on a locked hand), hand ``i`` is
    dealt from ``hand_seed(seed, i)``. ``timeout`` overrides the rules' ``turn_timeout`` and
    ``claim_timeout`` (seconds). A command line runs in ``cwd``; its standard error goes to a
    temporary file whose last lines are quoted when it crashes. ``progress(i)`` is called after
    each hand.
    """
    if hands < 1:
        raise ValueError(f"hands={hands!r}: play at least one hand")
    if len(opponents) != 3:
        raise ValueError(f"three opponents are needed, got {len(opponents)}")
    rule_list = [rules] if isinstance(rules, (str, Rules, dict)) else list(rules)
    if not rule_list:
        raise ValueError("rules: name at least one preset or Rules value")
    rvals = [as_rules(r) for r in rule_list]
    if timeout is not None:
        if timeout <= 0:
            raise ValueError(f"timeout={timeout!r}: expected a positive number of seconds")
        rvals = [r.replace(turn_timeout=timeout, claim_timeout=timeout) for r in rvals]
    # A preset is named as such; rules changed from one are marked with a star.
    names = [r.preset_name if r == Rules.preset(r.preset_name) else f"{r.preset_name}*" for r in rvals]

    stderr_path = None
    owned = False
    if isinstance(strategy, str):
        from xuezhan.strategies.external import ExternalStrategy

        fd, stderr_path = tempfile.mkstemp(prefix="xuezhan-check-", suffix=".stderr")
        os.close(fd)
        label = name or strategy
        strategy = ExternalStrategy(strategy, name=label, cwd=cwd, stderr=stderr_path)
        owned = True
    label = name or getattr(strategy, "name", None) or type(strategy).__name__
    report = CheckReport(name=str(label))
    bot = _Recorder(strategy, report, stderr_path)
    t0 = time.perf_counter()
    try:
        for i in range(hands):
            k = i % len(rvals)
            r = rvals[k]
            hs = hand_seed(seed, i)
            seat = i % 4
            seats: list[Any] = [None] * 4
            seats[seat] = bot
            for j, opp in enumerate(opponents):
                s = (seat + 1 + j) % 4
                seats[s] = builtin(opp, hs % 2**32 + s, role="opponent")
            bot.where = (i, hs, names[k])
            for s, strat in enumerate(seats):
                strat.reset(s, r)
            rnd = Round.from_seed(r, hs, first_dealer(hs))
            run_round(rnd, seats, [0, 0, 0, 0])
            report.hands += 1
            report.escapes += int(rnd.observation(seat).escaped[seat])
            if progress is not None:
                progress(i)
    finally:
        report.seconds = time.perf_counter() - t0
        if owned:
            strategy.close()
            if stderr_path and os.path.exists(stderr_path):
                os.unlink(stderr_path)
    return report
