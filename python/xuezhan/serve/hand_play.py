"""One hand in play at a table, over the engine's seat loop (:mod:`xuezhan.engine.decisions`):
each decision asked of a bot or a person, ruled on and applied.

The server owns the clock (R10): a bot decides in a worker thread and the seat loop rules on
its answer (a crash or an illegal action is an escape, R8; an overrun takes the default and
counts). A person's turn ends after ``turn_timeout`` with the tile they had selected, else the
engine's default (R10.1); a claim after ``claim_timeout`` with a pass (R10.2). A person whose
connection has been gone for longer than ``turn_timeout`` when a decision of theirs runs out
escapes (R8).

When winners stay (血流成河, R14), a person's locked hand whose only legal action is the discard
of the tile it drew has that discard played for it after ``Pace.locked_discard`` seconds (at
most half the turn timer), unless the person acts first or leaves (:mod:`xuezhan.serve.locked`);
one timer per decision, cancelled when the decision ends.

A searching bot (``search``, docs/search.md) gets a :class:`~xuezhan.engine.decisions.Sampler` of
its seat for the hand, after its ``reset``, as in every loop that plays hands
(:func:`~xuezhan.engine.decisions.bind_samplers`; a user's bot never gets one); it thinks in the
room's search threads (``search_pool``), one per search seat. The sampler stays in the server.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from xuezhan.engine import Round, act, parse_action
from xuezhan.engine.actions import DISCARD, ESCAPE, Action, ActionError
from xuezhan.engine.decisions import Delivery, Ruling, apply, bind_samplers, crashed, rule, time_limit, wants_sampler
from xuezhan.engine.turn import Phase
from xuezhan.serve.claim_window import Frozen, opens_window
from xuezhan.serve.limits import Pace, RoomError
from xuezhan.serve.locked import forced_discard
from xuezhan.serve.protocol import Aids
from xuezhan.serve.seating import Seating
from xuezhan.tiles import parse_tiles

__all__ = ["Decision", "HandPlay"]


@dataclass
class Decision:
    """The decision the hand waits for: whose, what kind, and its clock (R10)."""

    seat: int
    kind: str
    deadline: float
    total: float
    person: bool
    future: asyncio.Future | None = None
    #: A locked hand's forced discard (R14.2) to be played for the person at ``auto_at``
    #: (monotonic seconds) by ``timer``; None once the person acted or left.
    auto: Action | None = None
    auto_at: float = 0.0
    timer: asyncio.TimerHandle | None = None
    #: The forced discard was played for the person (its event is noted ``locked``).
    auto_played: bool = False

    def cancel_auto(self) -> None:
        """No forced discard for this decision any more (the person acted, left, or it ended)."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.auto = None


class HandPlay:
    """Plays ``rnd`` to its end with the table's seats: :meth:`play` asks every decision;
    :meth:`act` and :meth:`select` are a person's answers. ``timeouts`` (the match's count per
    seat, R10) is updated in place; ``on_change`` is called whenever what people see changed."""

    def __init__(
        self,
        rnd: Round,
        seating: Seating,
        pace: Pace,
        timeouts: list[int],
        on_change: Callable[[], None],
        search_pool: Executor | None = None,
        on_seat_change: Callable[[int], None] | None = None,
        snapshot: Callable[[], tuple[list[bool], list[Aids | None]]] | None = None,
    ) -> None:
        self.rnd = rnd
        self.seating = seating
        self.pace = pace
        self.timeouts = timeouts
        self.on_change = on_change
        #: What changed concerns one seat's own view only (its claim question): only the
        #: connections that see that seat's tiles are sent it.
        self.on_seat_change = on_seat_change or (lambda seat: on_change())
        #: The locked seats and the aids shown now, for a claim window's picture (:mod:`.claim_window`).
        self.snapshot = snapshot or (lambda: ([False] * 4, [None] * 4))
        self.search_pool = search_pool
        self.decision: Decision | None = None
        #: Each person's selected tile (played for it if its turn runs out, R10.1).
        self.selected: list[int | None] = [None] * 4
        #: The open claim window (None: none): what those not asked see until it closes.
        self.frozen: Frozen | None = None

    async def play(self) -> None:
        """Ask and apply every decision until the hand is over."""
        rnd = self.rnd
        rules = rnd.rules
        bots = [s.strategy for s in self.seating.seats]
        for i, b in enumerate(bots):
            if b is not None:
                b.reset(i, rules)
        # A searching bot samples this hand's hidden tiles through a sampler of its own seat, as
        # in every loop that plays hands; it stays here (no connection is sent anything of it).
        bind_samplers(rnd, bots)
        deliver = Delivery(bots)  # the bots' public views (people get theirs in state messages)
        self.on_change()
        while not rnd.over:
            seat = rnd.turn.cur
            assert seat is not None
            phase = rnd.observation(seat).phase
            kind = phase if phase in ("turn", "claim", "exchange", "void") else "turn"
            limit = time_limit(rules, rnd.turn.phase)  # R10
            bot = bots[seat]
            if bot is not None:
                deliver(rnd.ledger.events)
                ruling = await self._bot_decision(bot, seat, kind, limit)
            else:
                ruling = await self._person_decision(seat, kind, limit)
            self.decision = None
            opening = self._window_before(ruling.action)
            n = len(rnd.ledger.events)
            apply(rnd, ruling)  # an own action the hand refuses is an escape (R10.3)
            if kind == "turn":
                self.selected[seat] = None
            if opening is not None and len(rnd.ledger.events) > n and rnd.ledger.events[n].type == ruling.action.verb:
                self.frozen = opening  # everyone sees the discard; nothing more until it closes
                self.on_change()
            if self.frozen is None:
                self.on_change()
            else:
                if kind == "claim" and bot is None:
                    self.on_seat_change(seat)  # the person who answered: the question is gone
                if rnd.turn.phase != Phase.CLAIM:  # the claims are decided: shown when the window closes
                    await self._close_window()
        await self._close_window()
        deliver(rnd.ledger.events)
        for b in bots:
            if b is not None:
                end = getattr(b, "end_hand", None)
                if callable(end):
                    end()

    def _window_before(self, action: Action) -> Frozen | None:
        """The picture a claim window would show (taken before ``action`` is applied), when
        ``action`` opens one: at a table where a person plays, with the window switched on."""
        # never longer than an asked seat may think (R10.2): nobody is waited for past that
        seconds = min(self.pace.claim_window, self.rnd.rules.claim_timeout)
        if seconds <= 0 or not self.seating.people() or not opens_window(self.rnd, action):
            return None
        locked, aids = self.snapshot()
        return Frozen.before(self.rnd, action, seconds, locked, aids)

    async def _close_window(self) -> None:
        """Wait for the open claim window's end (whatever the claims were), then show everyone
        what followed."""
        frozen = self.frozen
        if frozen is None:
            return
        left = frozen.until - time.monotonic()
        if left > 0:
            await asyncio.sleep(left)
        self.frozen = None
        self.on_change()

    async def _bot_decision(self, bot: Any, seat: int, kind: str, limit: float) -> Ruling:
        """A bot's decision, in a worker thread, ruled on by the engine's seat loop (R10.3: an
        exception or an illegal action is an escape, R8; a decision slower than the limit takes
        the default and counts, past ``max_timeouts`` an escape)."""
        rnd = self.rnd
        now = time.monotonic()
        self.decision = Decision(seat, kind, now + limit, limit, False)
        if kind == "turn" and self.pace.bot_delay > 0:
            self.on_change()
            await asyncio.sleep(self.pace.bot_delay)
        obs = rnd.observation(seat)
        t0 = perf_counter()
        try:
            if self.search_pool is not None and wants_sampler(bot):
                # searches think in threads of their own (as many as the server's search seats),
                # so the shared pool stays free for the other bots and the standings
                action = await asyncio.get_running_loop().run_in_executor(self.search_pool, bot.act, obs)
            else:
                action = await asyncio.to_thread(bot.act, obs)
        except Exception as exc:  # noqa: BLE001 - any crash of a bot is its escape
            return crashed(seat, exc)
        return rule(rnd, seat, action, perf_counter() - t0, self.timeouts, limit)

    @staticmethod
    def _play_forced(d: Decision) -> None:
        """The pause is over: play the forced discard for the person, unless they acted."""
        d.timer = None
        fut, action = d.future, d.auto
        if fut is not None and not fut.done() and action is not None:
            d.auto_played = True
            fut.set_result(action)

    async def _person_decision(self, seat: int, kind: str, limit: float) -> Ruling:
        rnd = self.rnd
        loop = asyncio.get_running_loop()
        fut: asyncio.Future = loop.create_future()
        frozen = self.frozen
        if frozen is not None:  # asked inside a claim window: the window is the clock
            limit = max(0.0, min(limit, frozen.until - time.monotonic()))
        self.decision = d = Decision(seat, kind, time.monotonic() + limit, limit, True, fut)
        forced = forced_discard(rnd, seat) if self.seating.seats[seat].holder is not None else None
        if forced is not None:
            # R14.2: the locked hand's one legal action, played for the person after a short
            # pause (well inside the turn timer: it is never a timeout), unless they act first.
            pause = min(self.pace.locked_discard, limit / 2)
            d.auto, d.auto_at = forced, time.monotonic() + pause
            d.timer = loop.call_later(pause, self._play_forced, d)
        if frozen is not None:
            self.on_seat_change(seat)  # the question is nobody else's business
        else:
            self.on_change()
        try:
            action = await asyncio.wait_for(asyncio.shield(fut), limit)
            return Ruling(action, note="locked" if d.auto_played else None)
        except TimeoutError:
            pass
        finally:
            d.cancel_auto()
        s = self.seating.seats[seat]
        turn_to = rnd.rules.turn_timeout
        # R8: gone for longer than the turn timer at this decision is an escape.
        while s.gone_since is not None and not fut.done():
            left = s.gone_since + turn_to - time.monotonic()
            if left <= 0:
                fut.cancel()
                return Ruling(act(seat, ESCAPE), default=True, note="left the table")
            await asyncio.sleep(min(left, 0.05))
        if fut.done() and not fut.cancelled():
            return Ruling(fut.result())
        fut.cancel()
        d.future = None
        # R10.1 as the room plays it: the selected tile if it may be discarded, else the
        # engine's default (the tile just drawn, ...); R10.2: a claim passes.
        sel = self.selected[seat]
        if kind == "turn" and sel is not None:
            a = act(seat, DISCARD, sel)
            if a in rnd.legal_actions(seat):
                # the player's own choice, a default only when it is the R10 default
                return Ruling(a, default=a == rnd.default_action(seat), note="timeout")
        return Ruling(rnd.default_action(seat), default=True, note="timeout")

    # ------------------------------------------------------------------ a person's answers
    def select(self, seat: int, tile: str | None) -> None:
        """The person's selected tile (or none)."""
        self.selected[seat] = parse_tiles(tile)[0] if tile else None

    def act(self, seat: int, text: str) -> None:
        """The person's decision (an R13 line without the seat), or :class:`RoomError` saying why not."""
        d = self.decision
        rnd = self.rnd
        if d is None or not d.person or d.seat != seat or d.future is None or d.future.done():
            raise RoomError(f"seat {seat} has no decision to make now")
        try:
            action = parse_action(f"{seat} {text}")
        except ActionError as exc:
            raise RoomError(str(exc).replace(f"'{seat} ", "'", 1)) from None
        if action.verb == ESCAPE:
            raise RoomError("to leave, close the page (an escape, R8)")
        if action not in rnd.legal_actions(seat):
            raise RoomError(
                f"'{text}' is not legal now; legal: "
                + ", ".join(str(a).split(" ", 1)[1] for a in rnd.legal_actions(seat)[:40])
            )
        d.cancel_auto()
        d.future.set_result(action)

    def person_left(self, seat: int) -> None:
        """The person of ``seat`` is gone: nothing is played for them (R8 decides)."""
        d = self.decision
        if d is not None and d.seat == seat:
            d.cancel_auto()
