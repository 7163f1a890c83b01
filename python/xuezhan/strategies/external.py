"""``ExternalStrategy``: a bot in another process, speaking JSON lines (``docs/protocol.md``).

The adapter is an ordinary :class:`~xuezhan.strategies.base.Strategy`. It starts the command
once, keeps it across hands, writes one JSON object per line to its stdin (``start_hand``,
every ``event`` the seat may see, and a ``request`` with the legal actions when the seat must
act), and reads one answer line per request from its stdout.

Failures follow RULES.md R10 and R8, as the engine enforces them:

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
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import shlex
import subprocess
import threading
import time
import weakref
from typing import Any, Optional, Sequence, Union

from xuezhan.engine.actions import Action, ActionError, parse_action

__all__ = ["ExternalStrategy", "ExternalBotError", "PROTOCOL"]

#: Protocol name and version sent in ``start_hand`` (docs/protocol.md).
PROTOCOL = "xuezhan-jsonl/1"

_LIVE: "weakref.WeakSet[ExternalStrategy]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:  # pragma: no cover - exercised at interpreter exit
    for bot in list(_LIVE):
        bot.close()


class ExternalBotError(RuntimeError):
    """The external bot crashed, closed its pipes, or answered something that is not an action."""


def _action_text(action: Action) -> str:
    """An action as the protocol writes it: the R13 script line without the seat."""
    return str(action).split(" ", 1)[1]


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
        cmd: Union[str, Sequence[str]],
        *,
        name: Optional[str] = None,
        cwd: Optional[str] = None,
        env: Optional[dict[str, str]] = None,
        stderr: Optional[str] = None,
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
        self.proc: Optional[subprocess.Popen] = None
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._writes: "queue.Queue[Optional[str]]" = queue.Queue()
        self._write_error: list[str] = []
        self._out: list[str] = []
        self._next_id = 0
        self._pending = False  # a request is unanswered (timed out)
        self._broken = False  # restart before the next hand
        self.restarts = 0
        self.starts = 0
        _LIVE.add(self)

    # ------------------------------------------------------------------ process handling
    def _start(self) -> None:
        env = dict(os.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")
        if self.env:
            env.update(self.env)
        if self.stderr is None:
            err: Any = subprocess.DEVNULL
        elif self.stderr == "inherit":
            err = None
        else:
            err = open(self.stderr, "a", encoding="utf-8")  # noqa: SIM115 - kept for the process
        try:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                cwd=self.cwd,
                env=env,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as exc:
            raise ExternalBotError(f"external bot {self.name!r}: cannot start {self.argv!r}: {exc}") from None
        finally:
            if err not in (None, subprocess.DEVNULL):
                err.close()
        self.starts += 1
        self._lines = queue.Queue()
        threading.Thread(target=self._reader, args=(self.proc, self._lines), daemon=True).start()
        # Writes go through a thread too: a bot that stops reading fills the pipe, and a
        # blocked write must not stop the clock of R10 (the request then simply times out).
        self._writes = queue.Queue()
        self._write_error: list[str] = []
        threading.Thread(
            target=self._writer, args=(self.proc, self._writes, self._write_error), daemon=True
        ).start()
        self._out = []
        self._pending = False
        self._broken = False

    @staticmethod
    def _reader(proc: subprocess.Popen, lines: "queue.Queue[Optional[str]]") -> None:
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            lines.put(None)  # end of stream

    @staticmethod
    def _writer(proc: subprocess.Popen, writes: "queue.Queue[Optional[str]]", error: list[str]) -> None:
        while True:
            data = writes.get()
            if data is None:  # close(): end of input, so a well-behaved bot exits by itself
                try:
                    if proc.stdin:
                        proc.stdin.close()
                except (OSError, ValueError):
                    pass
                return
            try:
                assert proc.stdin is not None
                proc.stdin.write(data)
                proc.stdin.flush()
            except (OSError, ValueError) as exc:
                error.append(str(exc))
                return

    def close(self) -> None:
        """Stop the bot's process (it gets its stdin closed, then is killed if still running)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        self._writes.put(None)
        try:
            proc.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            proc.kill()
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
        for pipe in (proc.stdin, proc.stdout):
            if pipe:
                try:
                    pipe.close()
                except OSError:
                    pass

    def _send(self, obj: dict) -> None:
        self._out.append(json.dumps(obj, separators=(",", ":"), ensure_ascii=False))

    def _flush(self) -> None:
        if not self._out:
            return
        data = "\n".join(self._out) + "\n"
        self._out = []
        if self.proc is None:
            raise ExternalBotError(f"external bot {self.name!r} is not running")
        if self._write_error:
            self._broken = True
            raise ExternalBotError(f"external bot {self.name!r} closed its input ({self._write_error[0]})")
        self._writes.put(data)

    # ------------------------------------------------------------------ Strategy protocol
    def reset(self, seat: int, rules: Any) -> None:
        if self.proc is not None and (self._broken or self._pending or self.proc.poll() is not None):
            self.close()
            self.restarts += 1
        self.seat = seat
        self.rules = rules
        if self.proc is None:
            try:
                self._start()
            except ExternalBotError:
                # R8/R10.3: a bot that cannot run escapes at its first decision (act raises);
                # the next hand tries to start it again.
                self._broken = True
                return
        self._send({"type": "start_hand", "protocol": PROTOCOL, "seat": seat, "rules": rules.to_dict()})

    def observe(self, event: dict) -> None:
        # Never raises: a dead bot is found out at its next request.
        if event.get("type") == "escape" and event.get("seat") == self.seat:
            self._broken = True
        self._out.append(json.dumps({"type": "event", "event": event}, separators=(",", ":"), ensure_ascii=False))

    def act(self, obs: Any) -> Action:
        if self.proc is None:
            self._broken = True
            raise ExternalBotError(f"external bot {self.name!r} is not running")
        rules = self.rules
        limit = rules.claim_timeout if obs.phase == "claim" else rules.turn_timeout
        self._next_id += 1
        rid = self._next_id
        legal = obs.legal_actions
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
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                # R10: too slow. The engine measures the same and plays the default action;
                # what we return here is never used.
                self._pending = True
                return legal[0] if legal else parse_action(f"{self.seat} pass")
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                self._broken = True
                code = self.proc.poll() if self.proc else None
                raise ExternalBotError(f"external bot {self.name!r} exited (code {code}) during a request")
            line = line.strip()
            if not line:
                continue
            answer = self._parse(line, rid, legal)
            if answer is None:
                continue  # a late answer to an earlier, timed-out request
            self._pending = False
            return answer

    def _parse(self, line: str, rid: int, legal: Sequence[Action]) -> Optional[Action]:
        try:
            msg = json.loads(line)
        except ValueError:
            self._broken = True
            raise ExternalBotError(f"external bot {self.name!r}: answer is not JSON: {line[:200]!r}") from None
        if not isinstance(msg, dict):
            self._broken = True
            raise ExternalBotError(f"external bot {self.name!r}: answer is not a JSON object: {line[:200]!r}")
        mid = msg.get("id")
        if isinstance(mid, int) and not isinstance(mid, bool) and mid < rid:
            return None
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
            text = f"{self.seat} {text}"
        try:
            action = parse_action(text)
        except ActionError as exc:
            self._broken = True
            raise ExternalBotError(f"external bot {self.name!r}: {exc}") from None
        if action.seat != self.seat:
            self._broken = True
            raise ExternalBotError(f"external bot {self.name!r}: action for seat {action.seat}, it plays seat {self.seat}")
        return action

    def __repr__(self) -> str:
        return f"ExternalStrategy({' '.join(self.argv)!r}, name={self.name!r})"
