"""The lobby: the tables of one server, its bots, limits and standings (:class:`Room`).

Tables are opened here (bounded per server and per client address, :class:`Limits`), closed
when nobody has been connected to them for ``idle_timeout`` seconds (:mod:`.sweeping`), and
share the server's threads for searching bots: one per search seat (``--search-seats``), so a
search never waits for a thread and never holds one the other bots or the standings need.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from xuezhan.rules import PRESETS, Rules
from xuezhan.serve.attempts import Attempts
from xuezhan.serve.bots import BotCatalog
from xuezhan.serve.deals import new_seed
from xuezhan.serve.limits import Limits, Pace, RoomError, RoomFull
from xuezhan.serve.passwords import Passwords
from xuezhan.serve.standings import Standings
from xuezhan.serve.sweeping import Sweeper
from xuezhan.serve.tables import Table

__all__ = ["Room"]


class Room:
    """The lobby: the tables of one server, its bots, limits and standings ledger."""

    def __init__(
        self,
        bots: BotCatalog | None = None,
        pace: Pace | None = None,
        rules_overrides: dict[str, Any] | None = None,
        limits: Limits | None = None,
        ledger: Standings | None = None,
        seeds: Callable[[], int] | None = None,
    ) -> None:
        """``seeds`` replaces the secure generator of hand seeds: for tests only (server-side)."""
        self.bots = bots or BotCatalog()
        self.pace = pace or Pace()
        self.limits = limits or Limits()
        self.ledger = ledger if ledger is not None else Standings(":memory:")
        self.seeds = seeds or new_seed
        self.rules_overrides = dict(rules_overrides or {})
        self.tables: dict[str, Table] = {}
        #: One thread per searching seat the server allows: a search never waits for a thread,
        #: and never holds one the other bots or the ledger need (None: no searching bots).
        n = self.bots.search_seats
        self._search_pool = ThreadPoolExecutor(n, thread_name_prefix="search") if n else None
        self._n = 0
        self._sweeper = Sweeper(self.limits.sweep, self.expire)
        #: Sits and password attempts per client address and per name (backoff, lockout).
        self.attempts = Attempts(self.limits)
        #: Password hashing in its own thread, a bounded queue (never the bots' or the standings').
        self.passwords = Passwords(self.limits.password_queue)

    def create(
        self,
        name: str,
        preset: str = "leshan",
        hands: int = 8,
        bots: list[str | None] | None = None,
        owner: str = "",
    ) -> Table:
        """A new table (its task starts in the running event loop); ``bots`` seats bots at once.
        ``owner`` is the opening client's address, counted against ``max_tables_per_client``."""
        if preset not in PRESETS:
            raise RoomError(f"unknown rules preset {preset!r}: {', '.join(PRESETS)}")
        if not 1 <= hands <= 64:
            raise RoomError(f"hands must be 1 to 64, got {hands}")
        lim = self.limits
        if len(self.tables) >= lim.max_tables:
            raise RoomFull(f"the server has its maximum of {lim.max_tables} tables open; join one or try later")
        if owner and sum(1 for t in self.tables.values() if t.owner == owner) >= lim.max_tables_per_client:
            raise RoomFull(f"you have {lim.max_tables_per_client} tables open already, the most one client may")
        rules = Rules.preset(preset)
        if self.rules_overrides:
            rules = rules.replace(**self.rules_overrides)
        self._n += 1
        tid = f"t{secrets.token_hex(4)}"  # random: not reused after a restart (host keys)
        while tid in self.tables:
            tid = f"t{secrets.token_hex(4)}"
        table = Table(
            tid,
            name or f"Table {self._n}",
            rules,
            self.bots,
            hands,
            pace=self.pace,
            limits=self.limits,
            ledger=self.ledger,
            seeds=self.seeds,
            owner=owner,
            server_searching=self.searching_seats,
            search_pool=self._search_pool,
        )
        self.tables[tid] = table  # first: its own searching seats count as they are taken
        try:
            for i, b in enumerate(bots or []):
                if b:
                    table.seat_bot(None, i, b)
        except BaseException:  # a refused bot: no table, and the bots already built are closed
            del self.tables[tid]
            table.close_bots()
            raise
        table.start_task()
        self._sweeper.start()
        return table

    def searching_seats(self) -> int:
        """The searching bots seated at the server's tables now (at most ``bots.search_seats``)."""
        return sum(t.searching for t in self.tables.values())

    async def expire(self) -> list[str]:
        """Close the tables nobody has been connected to for ``idle_timeout`` seconds; their ids."""
        now = time.monotonic()
        gone = [
            t
            for t in self.tables.values()
            if t.idle_since is not None and now - t.idle_since >= self.limits.idle_timeout
        ]
        for t in gone:
            del self.tables[t.id]
            await t.close()
        return [t.id for t in gone]

    async def close(self) -> None:
        await self._sweeper.stop()
        for t in self.tables.values():
            await t.close()
        self.passwords.close()
