"""A bot's process: its own process group, non-blocking pipes, capped lines, a sure end.

:class:`BotProcess` is the part of the external-bot adapter (``docs/protocol.md``) that deals
with the operating system, so that no bot, whatever it does or spawns, can stall the engine:

- The bot starts in a new session (``start_new_session``), hence its own process group, which
  every process it starts joins unless it leaves on purpose. :meth:`BotProcess.stop` ends the
  whole group: end of input, a short grace, ``SIGTERM``, another grace, ``SIGKILL``.
- Both pipes are non-blocking and driven from the caller's thread with a selector: no reader
  or writer thread exists, so nothing waits on a pipe that a grandchild may hold open.
- A line longer than :data:`LINE_CAP` bytes is refused (:class:`LineTooLong`) without ever
  buffering more than the cap plus one read.

POSIX only (process groups, non-blocking pipes): elsewhere (Windows) starting a bot raises
:class:`UnsupportedPlatform`, an :class:`OSError` that says so. Every live process group is
listed in a registry so that :func:`kill_all` can end them all at once, e.g. from a signal
handler of a dying worker.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import sys
import time
import weakref
from collections import deque
from collections.abc import Sequence
from typing import IO

__all__ = ["LINE_CAP", "BotClosed", "BotProcess", "LineTooLong", "UnsupportedPlatform", "kill_all"]

#: The longest line a bot may write, in bytes (newline excluded); longer is garbage (R8).
LINE_CAP = 1 << 20
_READ = 1 << 16
#: While waiting for a line, how often the bot's own process is checked for life (seconds).
_LEADER_POLL = 0.05
#: Seconds a stopping bot gets after end of input, then after SIGTERM.
GRACE = 0.2

_LIVE: weakref.WeakSet[BotProcess] = weakref.WeakSet()


#: Process groups and selectable pipes: Linux, macOS and the other POSIX systems.
POSIX = os.name == "posix"


class UnsupportedPlatform(OSError):
    """External bot processes need POSIX process groups and pipes; this system has neither."""


class BotClosed(EOFError):
    """The bot closed its standard output (it exited or closed the pipe)."""


class LineTooLong(ValueError):
    """The bot wrote a line longer than :data:`LINE_CAP` bytes."""


def kill_all() -> None:
    """``SIGKILL`` every bot process group still alive; safe in signal handlers and threads."""
    for bot in list(_LIVE):
        bot.kill_group(signal.SIGKILL)


def _has_live_member(pgid: int) -> bool:
    """Some process of the group is not a zombie (True where ``/proc`` cannot tell).

    Processes the bot started are reparented when they die after it, and their new parent may
    reap them late; as zombies they still count for ``killpg(pgid, 0)`` but hold nothing.
    """
    proc = "/proc"
    if not os.path.isdir(proc):
        return True
    for name in os.listdir(proc):
        if not name.isdigit():
            continue
        try:
            with open(f"{proc}/{name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


class BotProcess:
    """One running bot: write bytes to it, read its lines with a deadline, stop it for good.

    ``stderr`` is a file path (appended to), an open binary file, ``"inherit"``, or None
    (discarded). Raises :class:`OSError` when the program cannot be started at all (missing,
    not executable, a folder, a missing ``cwd``).

    >>> import sys, time
    >>> bot = BotProcess([sys.executable, "-c", "import sys; print(sys.stdin.readline().upper(), end='')"])
    >>> bot.write(b"hello\\n")
    >>> bot.read_line(time.monotonic() + 30)
    b'HELLO'
    >>> bot.stop()
    >>> bot.running()
    False
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        stderr: str | IO[bytes] | None = None,
    ) -> None:
        if not POSIX:
            raise UnsupportedPlatform(
                f"external bots need process groups, which {sys.platform} lacks: run them on Linux or macOS"
                " (a module:Class strategy runs in-process on any system with trusted = true)"
            )
        err: int | IO[bytes] | None
        opened: IO[bytes] | None = None
        if stderr is None:
            err = subprocess.DEVNULL
        elif stderr == "inherit":
            err = None
        elif isinstance(stderr, str):
            opened = err = open(stderr, "ab")  # noqa: SIM115 - handed to the child, closed below
        else:
            err = stderr
        try:
            self.proc = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                cwd=cwd,
                env=env,
                bufsize=0,
                start_new_session=True,  # its own session and process group: ended as a whole
            )
        finally:
            if opened is not None:
                opened.close()
        self.pid = self.pgid = self.proc.pid
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in: int | None = self.proc.stdin.fileno()
        self._out: int | None = self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._out, selectors.EVENT_READ)
        self._pending = bytearray()  # written by us, not yet taken by the pipe
        self._partial = bytearray()  # the start of a line not yet ended
        self._lines: deque[bytes] = deque()
        self._eof = False
        self.write_error: str | None = None
        self._group_alive = True
        _LIVE.add(self)

    # ------------------------------------------------------------------ state
    def running(self) -> bool:
        """The bot's own process is running (its children are not looked at)."""
        return self.proc.poll() is None

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    # ------------------------------------------------------------------ writing
    def write(self, data: bytes) -> None:
        """Queue ``data`` and hand the pipe what it takes now; never blocks.

        The rest goes out while :meth:`read_line` waits. A bot that stops reading simply
        leaves its input queued (its requests then time out, R10). A closed pipe sets
        :attr:`write_error` and drops the data.
        """
        if self.write_error is not None or self._in is None:
            return
        self._pending += data
        self._push()

    def _push(self) -> None:
        fd = self._in
        while self._pending and fd is not None:
            try:
                n = os.write(fd, self._pending)
            except BlockingIOError:
                break
            except OSError as exc:  # EPIPE: the bot closed its input or exited
                self.write_error = exc.strerror or str(exc)
                self._pending.clear()
                break
            del self._pending[:n]
        self._watch_writes(bool(self._pending) and self.write_error is None)

    def _watch_writes(self, on: bool) -> None:
        fd = self._in
        if fd is None:
            return
        key = self._sel.get_map().get(fd)
        if on and key is None:
            self._sel.register(fd, selectors.EVENT_WRITE)
        elif not on and key is not None:
            self._sel.unregister(fd)

    def close_input(self) -> None:
        """End of input: a well-behaved bot exits by itself."""
        fd, self._in = self._in, None
        if fd is not None:
            if fd in self._sel.get_map():
                self._sel.unregister(fd)
            self._pending.clear()
            assert self.proc.stdin is not None
            self.proc.stdin.close()

    # ------------------------------------------------------------------ reading
    def read_line(self, deadline: float) -> bytes | None:
        """The bot's next line (without its newline), or None when ``deadline`` (monotonic) passes.

        Raises :class:`BotClosed` at end of output and :class:`LineTooLong` past the cap.
        """
        while True:
            if self._lines:
                return self._lines.popleft()
            if self._eof:
                raise BotClosed("end of output")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            events = self._sel.select(min(remaining, _LEADER_POLL))
            for key, _ in events:
                if key.fd == self._in:
                    self._push()
                elif key.fd == self._out:
                    self._read()
            if not events and self.proc.poll() is not None:
                # The bot exited but a process it started holds the pipe open: what the bot
                # wrote is read, then it counts as closed (R10.3: a dead process is an escape).
                self._read()
                if not self._lines:
                    self._eof = True

    def ready_line(self) -> bytes | None:
        """A line the bot has already written, without waiting (None if there is none; the end
        of output is left for :meth:`read_line` to report)."""
        if not self._lines and not self._eof:
            for key, _ in self._sel.select(0):
                if key.fd == self._in:
                    self._push()
                elif key.fd == self._out:
                    self._read()
        return self._lines.popleft() if self._lines else None

    def _read(self) -> None:
        fd = self._out
        if fd is None:
            self._eof = True
            return
        try:
            chunk = os.read(fd, _READ)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._eof = True
            self._sel.unregister(fd)
            if self._partial:
                self._lines.append(bytes(self._partial))
                self._partial.clear()
            return
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            self._partial += chunk[start:end]
            start = end + 1
            line, self._partial = bytes(self._partial), bytearray()
            if len(line) > LINE_CAP:
                self._eof = True  # nothing more is read from a bot that broke the protocol
                raise LineTooLong(f"a line of {len(line)} bytes (the limit is {LINE_CAP})")
            self._lines.append(line)
        self._partial += chunk[start:]
        if len(self._partial) > LINE_CAP:
            n = len(self._partial)
            self._partial = bytearray()
            self._eof = True  # nothing more is read from a bot that broke the protocol
            raise LineTooLong(f"more than {n} bytes without a newline (the limit is {LINE_CAP})")

    # ------------------------------------------------------------------ ending
    def kill_group(self, sig: int) -> bool:
        """Send ``sig`` to the bot's process group; False when the group is gone."""
        if not self._group_alive:
            return False
        try:
            os.killpg(self.pgid, sig)
            return True
        except ProcessLookupError:
            self._group_alive = False
            return False
        except PermissionError:  # every member left the group or changed owner
            self._group_alive = False
            return False

    def _group_gone(self, deadline: float) -> bool:
        while True:
            self.proc.poll()  # reap the leader, else its zombie keeps the group "alive"
            if not self.kill_group(0) or not _has_live_member(self.pgid):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    def stop(self, grace: float = GRACE) -> None:
        """End the bot and every process of its group; returns within about ``3 × grace``.

        End of input first (a bot may exit cleanly), then ``SIGTERM`` to the group, then
        ``SIGKILL``. Never waits on a pipe: a grandchild holding the output open cannot block it.
        """
        self.close_input()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=grace)
        if not self._group_gone(time.monotonic()):
            self.kill_group(signal.SIGTERM)
            if not self._group_gone(time.monotonic() + grace):
                self.kill_group(signal.SIGKILL)
                self._group_gone(time.monotonic() + 5 * grace)
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL was sent: not expected
            self.proc.wait(timeout=5 * grace)
        fd, self._out = self._out, None
        if fd is not None:
            if fd in self._sel.get_map():
                self._sel.unregister(fd)
            assert self.proc.stdout is not None
            self.proc.stdout.close()
        self._sel.close()
        self._eof = True
        _LIVE.discard(self)
