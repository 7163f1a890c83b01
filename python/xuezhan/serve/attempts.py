"""What one client may try: sits per client address, and password attempts per client address and
per name, with a backoff and a lockout.

- **Sits**: each client address may ask for ``sits_per_minute`` sits on average, ``sit_burst``
  at once (a person sits a few times an evening; a script sitting in a loop is refused).
- **Password attempts**: one at a time per client address and per name. After a failed attempt
  the address waits ``backoff`` seconds before its next, doubled at each further failure (at
  most ``backoff_max``); after ``password_failures`` failed attempts on a name, from any
  addresses, the name is locked for ``lockout`` seconds, doubled at each further failure (at most
  ``lockout_max``). A right password clears both. The lockout is on password attempts only: a
  browser that owns the name (its secret) sits without a password and is never locked out, so
  nobody can keep the owner from their own name.

At the defaults (5 free failures, then locks of 60 s doubling), a name takes at most 15 wrong
guesses in its first day, from any number of addresses, and one a day once the lock reaches
its cap of a day (:func:`guesses_within`; docs/room.md).

The books are bounded: at most ``max_keys`` addresses and names each; past it the entry longest
untouched is forgotten, a locked one last.

    >>> from xuezhan.serve.limits import Limits
    >>> now = [0.0]
    >>> a = Attempts(Limits(), clock=lambda: now[0])
    >>> for i in range(5):
    ...     with a.password(f"10.0.0.{i}", "Mei") as attempt:
    ...         attempt.failed()
    >>> with a.password("10.0.0.9", "Mei"):
    ...     pass
    Traceback (most recent call last):
    ...
    xuezhan.serve.limits.TooMany: too many wrong passwords for 'Mei': password attempts on it wait 60 s
"""

from __future__ import annotations

import contextlib
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from xuezhan.serve.limits import Bucket, Limits, TooMany

__all__ = ["Attempt", "Attempts", "guesses_within"]


@dataclass
class _Strikes:
    """Failed password attempts of one address or on one name, and until when it must wait."""

    failures: int = 0
    until: float = 0.0
    busy: bool = False  # an attempt is being checked now


class Attempt:
    """One password attempt under way: say how it ended (:meth:`passed` or :meth:`failed`); an
    attempt that ends without either (the server was busy) counts for nothing."""

    def __init__(self) -> None:
        self.ok: bool | None = None

    def passed(self) -> None:
        self.ok = True

    def failed(self) -> None:
        self.ok = False


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.0f} h"


class Attempts:
    """The sits and password attempts of every client address and name (see the module)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic, max_keys: int = 100_000) -> None:
        self.limits = limits
        self.clock = clock
        self.max_keys = max_keys
        self._sits: OrderedDict[str, Bucket] = OrderedDict()
        self._addrs: OrderedDict[str, _Strikes] = OrderedDict()
        self._names: OrderedDict[str, _Strikes] = OrderedDict()

    # ------------------------------------------------------------------ sits
    def sit(self, addr: str) -> None:
        """Count one sit of ``addr``; :class:`TooMany` (nothing counted) past its rate."""
        lim = self.limits
        bucket = self._sits.get(addr)
        if bucket is None:
            bucket = Bucket(lim.sits_per_minute / 60.0, lim.sit_burst, self.clock)
            self._keep(self._sits, addr, bucket)
        self._sits.move_to_end(addr)
        if not bucket.take():
            raise TooMany(
                f"too many sits from your address (at most {lim.sits_per_minute:g} a minute); "
                f"try again in {_seconds(max(1.0, bucket.wait()))}"
            )

    # ------------------------------------------------------------------ passwords
    @contextlib.contextmanager
    def password(self, addr: str, name: str) -> Iterator[Attempt]:
        """One password attempt of ``addr`` on ``name``: :class:`TooMany` at once (before any
        hashing) while the address backs off, the name is locked, or either has an attempt
        under way; else the attempt, whose outcome is booked when the block ends."""
        now = self.clock()
        a = self._strikes(self._addrs, addr)
        n = self._strikes(self._names, name)
        if n.until > now:
            raise TooMany(
                f"too many wrong passwords for {name!r}: password attempts on it wait {_seconds(n.until - now)}"
            )
        if a.until > now:
            raise TooMany(f"a wrong password was given from your address: wait {_seconds(a.until - now)}")
        if a.busy or n.busy:
            raise TooMany("a password is being checked for you or for this name; wait for its answer")
        a.busy = n.busy = True
        attempt = Attempt()
        try:
            yield attempt
        finally:
            a.busy = n.busy = False
            if attempt.ok is True:
                self._addrs.pop(addr, None)
                self._names.pop(name, None)
            elif attempt.ok is False:
                lim = self.limits
                now = self.clock()
                a.failures += 1
                a.until = now + min(lim.backoff_max, lim.backoff * 2 ** (a.failures - 1))
                n.failures += 1
                if n.failures >= lim.password_failures:
                    n.until = now + min(lim.lockout_max, lim.lockout * 2 ** (n.failures - lim.password_failures))

    # ------------------------------------------------------------------ the books
    def _strikes(self, book: OrderedDict[str, _Strikes], key: str) -> _Strikes:
        got = book.get(key)
        if got is None:
            got = _Strikes()
            self._keep(book, key, got)
        book.move_to_end(key)
        return got

    def _keep(self, book: OrderedDict, key: str, value: object) -> None:
        """Add an entry; past ``max_keys`` forget the one longest untouched that waits for
        nothing (else the oldest), so flooding the books cannot lift a lock."""
        book[key] = value
        if len(book) <= self.max_keys:
            return
        now = self.clock()
        for k, v in book.items():
            if k != key and not (isinstance(v, _Strikes) and (v.until > now or v.busy)):
                del book[k]
                return
        book.popitem(last=False)


def guesses_within(seconds: float, limits: Limits) -> int:
    """The most wrong passwords one name can take in ``seconds`` at ``limits``, from any number
    of client addresses (each guess made the moment the name's lock allows it).

    >>> guesses_within(86_400, Limits())
    15
    """
    now = [0.0]
    attempts = Attempts(limits, clock=lambda: now[0])
    n = 0
    while True:
        lock = attempts._names.get("name")
        if lock is not None and lock.until > now[0]:
            now[0] = lock.until
        if now[0] > seconds:
            return n
        with attempts.password(f"address {n}", "name") as attempt:
            attempt.failed()
        n += 1
