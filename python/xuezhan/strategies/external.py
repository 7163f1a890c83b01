"""``ExternalStrategy``: a bot in another process, speaking JSON lines (``docs/protocol.md``).

The adapter is an ordinary :class:`~xuezhan.strategies.base.Strategy`. It starts the command
once, keeps it across hands, writes one JSON object per line to its stdin (``start_hand``,
every ``event`` the seat may see, and a ``request`` with the legal actions when the seat must
act), and reads one answer line per request from its stdout.

Failures follow docs/rules.md R10 and R8, as the engine enforces them:

- **Too slow** (R10.1, R10.2): the adapter stops waiting a little after ``turn_timeout`` /
  ``claim_timeout`` and hands back a placeholder; the engine sees the decision took too long,
  plays the default action and counts the timeout (past ``max_timeouts``: an escape, R10.3). A
  late answer is recognised by its ``id`` and dropped.
- **Crash, closed pipe, garbage** (not JSON, no ``action``, an action that does not parse, an
  unknown request id only after the current one): :class:`ExternalBotError` is raised, which the
  engine turns into an escape (R8, R10.3); an action that parses but is not legal is returned to
  the engine, which also makes it an escape.
- After a hand in which the bot escaped, crashed, or left a request unanswered, the process is
  killed and started afresh for the next hand, so one bad hand never poisons the next.
- The process runs in its own process group, which is ended as a whole (every process the bot
  started with it); its pipes are non-blocking and its lines capped at 1 MB
  (:mod:`xuezhan.strategies.botprocess`). Nothing the bot does can stall the engine.
- :meth:`ExternalStrategy.check` is the start-up check a tournament makes before its first hand.
"""

from __future__ import annotations

import atexit
import json
import os
import shlex
import subprocess
import tempfile
import time
import weakref
from collections.abc import Sequence
from typing import IO, Any

from xuezhan.engine.actions import ESCAPE, Action, ActionError, parse_action
from xuezhan.engine.decisions import time_limit
from xuezhan.strategies.botprocess import BotClosed, BotProcess, LineTooLong

__all__ = ["PROTOCOL", "BotStartError", "ExternalBotError", "ExternalStrategy"]

#: Protocol name and version sent in ``start_hand`` (docs/protocol.md).
PROTOCOL = "xuezhan-jsonl/1"
#: Lines of a bot's standard error quoted when it cannot start.
STDERR_TAIL = 12

_LIVE: weakref.WeakSet[ExternalStrategy] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:  # pragma: no cover - exercised at interpreter exit
    for bot in list(_LIVE):
        bot.close()


class ExternalBotError(RuntimeError):
    """The external bot crashed, closed its pipes, or answered something that is not an action."""


class BotCrashed(ExternalBotError):
    """The bot's process is gone or cannot be reached: it could not start, exited, or closed
    one of its pipes (as opposed to answering something that is not an action)."""


#: Seconds the start-up check waits for a bot's first answer at least (see
#: :meth:`ExternalStrategy.check`).
START_ALLOWANCE = 10.0


class BotStartError(ExternalBotError):
    """The bot failed its start-up check (:meth:`ExternalStrategy.check`); the message says why
    and quotes the last lines of its standard error."""


class _NotJSON(ValueError):
    pass


def _no_constant(name: str) -> Any:
    """``NaN``, ``Infinity`` and ``-Infinity`` are not JSON (Python's reader accepts them)."""
    raise _NotJSON(f"{name} is not a JSON value")


def _gone(bot: BotProcess) -> str:
    """How the bot's output ended: its exit status once the process is reaped (a moment after
    the pipe closes), else that it closed its output while still running."""
    try:
        code = bot.proc.wait(timeout=1)
    except subprocess.TimeoutExpired:
        return "closed its output (its process is still running)"
    return f"exited with status {code}" if code >= 0 else f"was killed by signal {-code}"


def _action_text(action: Action) -> str:
    """An action as the protocol writes it: the R13 script line without the seat."""
    return str(action).split(" ", 1)[1]


def _tail(err: IO[bytes], lines: int = STDERR_TAIL) -> str:
    err.flush()
    size = err.seek(0, os.SEEK_END)
    err.seek(max(0, size - 8192))
    text = err.read().decode("utf-8", "replace")
    kept = [line.rstrip() for line in text.splitlines() if line.strip()][-lines:]
    return "\n".join(f"    {line}" for line in kept)


class ExternalStrategy:
    """A strategy played by an external program (see the module doc and ``docs/protocol.md``).

    ``cmd`` is a command line (split like a POSIX shell, no shell involved) or an argument
    list; ``cwd`` and ``env`` (added to this process's environment) are passed to the process;
    ``stderr`` is a file path for the bot's standard error (default: discarded) or ``"inherit"``.
    ``margin`` is how long past the time limit the adapter keeps waiting before giving up.
    """

    name = "external"

    def __init__(
        self,
        cmd: str | Sequence[str],
        *,
        name: str | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        stderr: str | None = None,
        margin: float = 0.05,
    ) -> None:
        self.argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
        if not self.argv:
            raise ValueError("external bot: empty command line")
        if name:
            self.name = name
        self.cwd = cwd
        self.env = env
        self.stderr = stderr
        self.margin = margin
        self.seat = -1
        self.rules: Any = None
        self.bot: BotProcess | None = None
        self._out: list[str] = []
        self._next_id = 0
        self._pending = False  # a request is unanswered (timed out)
        self._late: set[int] = set()  # ids of timed-out requests whose late answer may still come
        self._broken = False  # restart before the next hand
        self.restarts = 0
        self.starts = 0
        _LIVE.add(self)

    # ------------------------------------------------------------------ process handling
    def _environ(self) -> dict[str, str]:
        env = dict(os.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")
        if self.env:
            env.update(self.env)
        return env

    def _spawn(self, stderr: str | IO[bytes] | None) -> BotProcess:
        try:
            return BotProcess(self.argv, cwd=self.cwd, env=self._environ(), stderr=stderr)
        except OSError as exc:
            raise BotCrashed(f"external bot {self.name!r}: cannot start {shlex.join(self.argv)!r}: {exc}") from None

    def _start(self) -> None:
        self.bot = self._spawn(self.stderr)
        self.starts += 1
        self._out = []
        self._pending = False
        self._late = set()
        self._broken = False

    @property
    def pid(self) -> int | None:
        """The bot's process id (also its process group id), None when not running."""
        return self.bot.pid if self.bot is not None else None

    def close(self) -> None:
        """Stop the bot and every process it started (its process group; see :class:`BotProcess`)."""
        bot, self.bot = self.bot, None
        if bot is not None:
            bot.stop()

    def _send(self, obj: dict) -> None:
        self._out.append(json.dumps(obj, separators=(",", ":"), ensure_ascii=False))

    def _flush(self) -> None:
        if not self._out:
            return
        data = ("\n".join(self._out) + "\n").encode("utf-8")
        self._out = []
        if self.bot is None:
            raise BotCrashed(f"external bot {self.name!r} is not running")
        self.bot.write(data)
        if self.bot.write_error is not None:
            self._broken = True
            raise BotCrashed(f"external bot {self.name!r} closed its input ({self.bot.write_error})")

    def _start_hand(self, seat: int, rules: Any) -> dict:
        """The ``start_hand`` message (a subclass may add fields)."""
        return {
            "type": "start_hand",
            "protocol": PROTOCOL,
            "seat": seat,
            "rules": rules.to_dict(),
        }

    def check(self, rules: Any) -> None:
        """The start-up check: start the program once, play it one real request, stop it.

        Raises :class:`BotStartError` naming the command, with the last lines of its standard
        error, when the program cannot start, exits or closes its output before answering,
        answers something that is not a legal action, or escapes. A bot that is still running
        but has not answered within the request's time limit passes: slowness is R10's business.
        The first answer is waited for at least :data:`START_ALLOWANCE` seconds, whatever the
        rules' limit: starting an interpreter and loading a model takes longer than a decision,
        and a program that fails while starting must be caught here, not at its first hand.
        """
        from xuezhan.engine.round import Round

        where = f"cmd = {shlex.join(self.argv)!r}" + (f" (cwd = {self.cwd!r})" if self.cwd else "")
        with tempfile.TemporaryFile() as err:

            def fail(what: str) -> BotStartError:
                tail = _tail(err)
                return BotStartError(f"{where}: {what}" + (f"; the end of its stderr:\n{tail}" if tail else ""))

            try:
                bot = BotProcess(self.argv, cwd=self.cwd, env=self._environ(), stderr=err)
            except OSError as exc:
                raise BotStartError(f"{where}: cannot start it: {exc}") from None
            try:
                rnd = Round.from_seed(rules, 0, 0)
                seat = rnd.turn.cur
                assert seat is not None  # a fresh hand always waits for someone
                obs = rnd.observation(seat)
                legal = list(obs.legal_actions)
                limit = time_limit(rules, obs.phase)  # R10, the seat loop's one choice
                request = {
                    "type": "request",
                    "id": 1,
                    "timeout": limit,
                    "observation": obs.to_dict(),
                    "legal": [_action_text(a) for a in legal],
                }
                lines = [self._start_hand(seat, rules), request]
                bot.write("".join(json.dumps(m, separators=(",", ":")) + "\n" for m in lines).encode())
                deadline = time.monotonic() + max(limit, START_ALLOWANCE) + self.margin
                while True:
                    try:
                        line = bot.read_line(deadline)
                    except BotClosed:
                        try:
                            code: int | None = bot.proc.wait(timeout=1)
                        except subprocess.TimeoutExpired:
                            code = None
                        how = f"exited with code {code}" if code is not None else "closed its output"
                        raise fail(f"{how} before answering its first request") from None
                    except LineTooLong as exc:
                        raise fail(f"wrote {exc}") from None
                    if line is None:
                        if bot.running():
                            return  # running but slow: its requests will time out (R10)
                        raise fail(f"exited with code {bot.returncode} before answering its first request")
                    text = line.decode("utf-8", "replace").strip()
                    if not text:
                        continue
                    try:
                        action = self._parse(text, 1, legal, seat)
                    except ExternalBotError as exc:
                        raise fail(f"its first answer is not valid: {exc}") from None
                    if action is None:
                        continue
                    if action.verb == ESCAPE:
                        raise fail("it escaped at its first decision")
                    if action not in legal:
                        raise fail(f"its first answer {text[:200]!r} is not a legal action")
                    return
            finally:
                bot.stop()
                self._broken = False

    # ------------------------------------------------------------------ Strategy protocol
    def reset(self, seat: int, rules: Any) -> None:
        if self.bot is not None and (self._broken or self._pending or not self.bot.running()):
            self.close()
            self.restarts += 1
        self.seat = seat
        self.rules = rules
        if self.bot is None:
            try:
                self._start()
            except ExternalBotError:
                # R8/R10.3: a bot that cannot run escapes at its first decision (act raises);
                # the next hand tries to start it again.
                self._broken = True
                return
        self._send(self._start_hand(seat, rules))
        try:
            # sent at once, so that a line the bot writes in reply (an answer before it is asked)
            # is waiting, and found, when its first request comes
            self._flush()
        except ExternalBotError:
            self._broken = True  # found out at its first request

    def observe(self, event: dict) -> None:
        # Never raises: a dead bot is found out at its next request.
        if event.get("type") == "escape" and event.get("seat") == self.seat:
            self._broken = True
        self._out.append(
            json.dumps(
                {"type": "event", "event": event},
                separators=(",", ":"),
                ensure_ascii=False,
            )
        )

    def act(self, obs: Any) -> Action:
        bot = self.bot
        if bot is None:
            self._broken = True
            raise BotCrashed(f"external bot {self.name!r} is not running")
        rules = self.rules
        limit = time_limit(rules, obs.phase)  # R10, the seat loop's one choice
        self._next_id += 1
        rid = self._next_id
        legal = obs.legal_actions
        self._unasked(bot, rid)
        self._send(
            {
                "type": "request",
                "id": rid,
                "timeout": limit,
                "observation": obs.to_dict(),
                "legal": [_action_text(a) for a in legal],
            }
        )
        self._flush()
        deadline = time.monotonic() + limit + self.margin
        while True:
            try:
                line = bot.read_line(deadline)
            except BotClosed:
                self._broken = True
                raise BotCrashed(f"external bot {self.name!r} {_gone(bot)} during a request") from None
            except LineTooLong as exc:  # R8: garbage, and never buffered past the cap
                self._broken = True
                raise ExternalBotError(f"external bot {self.name!r} wrote {exc}") from None
            if line is None:
                # R10: too slow. The engine measures the same and plays the default action;
                # what we return here is never used.
                self._pending = True
                self._late.add(rid)
                return legal[0] if legal else parse_action(f"{self.seat} pass")
            text = line.decode("utf-8", "replace").strip()
            if not text:
                continue
            answer = self._parse(text, rid, legal, self.seat)
            if answer is None:
                continue  # a late answer to an earlier, timed-out request
            self._pending = False
            return answer

    def _unasked(self, bot: BotProcess, rid: int) -> None:
        """Before request ``rid`` is sent, nothing may be waiting from the bot but late answers
        to timed-out requests: one answer per request, and only once asked (docs/protocol.md).
        A line that is there anyway (a second answer, an answer before its request, a line
        nobody asked for) is a protocol error."""
        while True:
            try:
                line = bot.ready_line()
            except LineTooLong as exc:
                self._broken = True
                raise ExternalBotError(f"external bot {self.name!r} wrote {exc}") from None
            if line is None:
                return
            text = line.decode("utf-8", "replace").strip()
            if not text:
                continue
            mid = self._answer_id(text)
            if mid is not None and mid in self._late:
                self._late.discard(mid)  # the late answer to a timed-out request: ignored (R10)
                continue
            if mid is not None and mid < rid:
                why = f"a second answer to request {mid}"
            elif mid is not None:
                why = f"an answer to request {mid} before it was sent"
            else:
                why = "a line while no request was waiting"
            self._broken = True
            raise ExternalBotError(f"external bot {self.name!r} wrote {why}: {text[:200]!r}")

    @staticmethod
    def _answer_id(text: str) -> int | None:
        try:
            msg = json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            return None
        mid = msg.get("id") if isinstance(msg, dict) else None
        return mid if type(mid) is int else None

    def _parse(self, line: str, rid: int, legal: Sequence[Action], seat: int) -> Action | None:
        try:
            msg = json.loads(line, parse_constant=_no_constant)
        except ValueError as exc:
            self._broken = True
            why = f" ({exc})" if isinstance(exc, _NotJSON) else ""
            raise ExternalBotError(f"external bot {self.name!r}: answer is not JSON{why}: {line[:200]!r}") from None
        except RecursionError:
            self._broken = True
            raise ExternalBotError(
                f"external bot {self.name!r}: answer is not a usable JSON object (nested too deeply): {line[:80]!r}…"
            ) from None
        if not isinstance(msg, dict):
            self._broken = True
            raise ExternalBotError(f"external bot {self.name!r}: answer is not a JSON object: {line[:200]!r}")
        mid = msg.get("id")
        if type(mid) is not int:  # 1.0 and true compare equal to 1 but are not request ids
            self._broken = True
            raise ExternalBotError(
                f"external bot {self.name!r}: answer id {json.dumps(mid)[:40]} "
                f"is not an integer request id (expected {rid})"
            )
        if mid < rid and mid in self._late:
            self._late.discard(mid)
            return None  # the late answer to a timed-out request (R10): ignored
        if mid < rid:
            self._broken = True
            raise ExternalBotError(
                f"external bot {self.name!r}: a second answer to request {mid} "
                f"(expected an answer to {rid}): {line[:200]!r}"
            )
        if mid != rid:
            self._broken = True
            raise ExternalBotError(f"external bot {self.name!r}: answer id {mid!r}, expected {rid}")
        if "index" in msg and "action" not in msg:
            i = msg["index"]
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(legal):
                self._broken = True
                raise ExternalBotError(f"external bot {self.name!r}: index {i!r} is not one of the legal actions")
            return legal[i]
        text = msg.get("action")
        if not isinstance(text, str):
            self._broken = True
            raise ExternalBotError(f"external bot {self.name!r}: answer has no 'action' string: {line[:200]!r}")
        text = text.strip()
        if not text[:1].isdigit():
            text = f"{seat} {text}"
        try:
            action = parse_action(text)
        except ActionError as exc:
            self._broken = True
            raise ExternalBotError(f"external bot {self.name!r}: {exc}") from None
        if action.seat != seat:
            self._broken = True
            raise ExternalBotError(f"external bot {self.name!r}: action for seat {action.seat}, it plays seat {seat}")
        return action

    def __repr__(self) -> str:
        return f"ExternalStrategy({' '.join(self.argv)!r}, name={self.name!r})"
