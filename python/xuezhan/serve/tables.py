"""Tables and seating: four seats, a match with R9 dealer rotation, and the server's clock.

A :class:`Table` owns one match. Its ``run`` task waits until four seats are taken and every
connected person pressed Start, deals the hand (:meth:`Round.from_seed` with the R9 seeds and
dealers of :mod:`xuezhan.engine.match`), asks each decision of a bot or a person, and applies
it. The server owns the clock (R10): a person's turn ends after ``turn_timeout`` with the tile
they had selected, else the engine's default (R10.1); a claim after ``claim_timeout`` with a
pass (R10.2). A person whose connection has been gone for longer than ``turn_timeout`` when a
decision of theirs runs out escapes (R8); for the next hand a bot stands in for them unless they
come back (``resume`` with their token).

Everything a connection receives is built in :meth:`Table.state_for` from
``Round.observation(seat)`` and ``public_view(event, seat)`` for the one seat it sees.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import secrets
import time
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from xuezhan.engine import Action, IllegalAction, Round, act, log_lines, parse_action, public_view
from xuezhan.engine.actions import DISCARD, ESCAPE, ActionError
from xuezhan.engine.match import first_dealer, hand_seed
from xuezhan.rules import Rules
from xuezhan.serve.bots import STAND_IN, BotCatalog
from xuezhan.serve.protocol import Clock, SeatInfo, StateMsg, TableMsg
from xuezhan.serve.words import settlement_lines
from xuezhan.tiles import TILE_STR as _TILE
from xuezhan.tiles import parse_tiles

__all__ = ["Client", "Pace", "Room", "RoomError", "Seat", "Table"]

_log = logging.getLogger("xuezhan.serve")


class RoomError(ValueError):
    """A request the table refuses (the message says why); nothing changed."""


@dataclass
class Pace:
    """How fast bots play for watchers: a pause before each bot turn, and between hands of a
    table without people (seconds). Tests use zeros."""

    bot_delay: float = 0.6
    between_hands: float = 4.0


@dataclass
class Seat:
    """One of the four seats: empty, a person (a name and a secret token), or a bot."""

    index: int
    kind: str = "empty"  # "empty" | "person" | "bot"
    name: str = ""
    token: str | None = None
    strategy: Any = None  # the bot, or the stand-in playing this hand for a person who left
    started: bool = False
    connections: int = 0
    gone_since: float | None = None

    @property
    def connected(self) -> bool:
        return self.kind != "person" or self.connections > 0

    def info(self) -> SeatInfo:
        return SeatInfo(
            seat=self.index,
            kind=self.kind,  # type: ignore[arg-type]
            name=self.name,
            connected=self.connected,
            started=self.started,
            stand_in=self.kind == "person" and self.strategy is not None,
        )


class Client:
    """One websocket connection: a seated person (``seat``) or a spectator watching ``watch``.

    Messages go through one queue; state and table updates are coalesced (at most one of each
    queued), and built when sent, so a slow connection never piles up stale snapshots."""

    STATE = "\x00state"
    TABLE = "\x00table"

    def __init__(self) -> None:
        self.seat: int | None = None
        self.watch = 0
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._state_queued = False
        self._table_queued = False
        self.hand_no = -1
        self.view_seat = -1
        self.sent = 0  # public views sent for (hand_no, view_seat)

    @property
    def sees(self) -> int:
        """The seat whose view this connection receives: a player only ever its own."""
        return self.seat if self.seat is not None else self.watch

    def send(self, text: str) -> None:
        self.queue.put_nowait(text)

    def mark_state(self) -> None:
        if not self._state_queued:
            self._state_queued = True
            self.queue.put_nowait(self.STATE)

    def mark_table(self) -> None:
        if not self._table_queued:
            self._table_queued = True
            self.queue.put_nowait(self.TABLE)

    def take(self, item: str) -> None:
        if item == self.STATE:
            self._state_queued = False
        elif item == self.TABLE:
            self._table_queued = False


@dataclass
class _Decision:
    seat: int
    kind: str
    deadline: float
    total: float
    person: bool
    future: asyncio.Future | None = None


@dataclass
class Table:
    """One table: four seats, a rules value, a match of ``hands`` hands (R9)."""

    id: str
    name: str
    rules: Rules
    bots: BotCatalog
    hands: int = 8
    seed: int = field(default_factory=lambda: secrets.randbits(48))
    pace: Pace = field(default_factory=Pace)

    def __post_init__(self) -> None:
        self.seats = [Seat(i) for i in range(4)]
        self.clients: set[Client] = set()
        self.scores = [0, 0, 0, 0]
        self.hand_no = 0  # hands finished in this match
        self.dealer = first_dealer(self.seed)  # R9.1
        self.status = "waiting"
        self.rnd: Round | None = None
        self.rnd_no = 0  # the hand number of ``rnd`` (hand_no moves on when it ends)
        self.decision: _Decision | None = None
        self.selected: list[int | None] = [None] * 4
        self.timeouts = [0, 0, 0, 0]
        self._views: list[list[dict]] = [[], [], [], []]
        self._viewed = [0, 0, 0, 0]
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        #: The logs of the table's last finished hands, for the replay page: replay id -> lines.
        #: Bounded: a room runs for days. Shown only once a hand is over (all four hands open).
        self.finished: collections.OrderedDict[str, list[str]] = collections.OrderedDict()
        self.played = 0  # hands started at this table, across matches (names the replay ids)

    # ------------------------------------------------------------------ lifecycle
    def start_task(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.run(), name=f"table-{self.id}")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            # its own failure was logged by run(); a cancelled task is what we asked for
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        for s in self.seats:
            self._close_bot(s.strategy)

    @staticmethod
    def _close_bot(strategy: Any) -> None:
        close = getattr(strategy, "close", None)
        if callable(close):
            close()

    # ------------------------------------------------------------------ what people see
    def table_msg(self) -> TableMsg:
        return TableMsg(
            id=self.id,
            name=self.name,
            preset=self.rules.preset,
            hands=self.hands,
            hand_no=self.hand_no,
            status=self.status,  # type: ignore[arg-type]
            seats=[s.info() for s in self.seats],
            scores=list(self.scores),
            turn_timeout=self.rules.turn_timeout,
            claim_timeout=self.rules.claim_timeout,
            spectators=sum(1 for c in self.clients if c.seat is None),
        )

    def _public_views(self, seat: int) -> list[dict]:
        """The public views of this hand's events for ``seat`` (the single outward filter)."""
        views = self._views[seat]
        if self.rnd is not None:
            events = self.rnd.events
            for i in range(self._viewed[seat], len(events)):
                v = public_view(events[i], seat)
                if v is not None:
                    views.append(v)
            self._viewed[seat] = len(events)
        return views

    def state_for(self, client: Client) -> StateMsg:
        """The state message for one connection: only the seat it sees, never more."""
        seat = client.sees
        role = "player" if client.seat == seat else "spectator"
        rnd = self.rnd
        if rnd is None:
            return StateMsg(seat=seat, role=role, hand_no=self.hand_no)  # type: ignore[arg-type]
        views = self._public_views(seat)
        reset = client.hand_no != self.rnd_no or client.view_seat != seat
        if reset:
            client.hand_no, client.view_seat, client.sent = self.rnd_no, seat, 0
        start = client.sent
        client.sent = len(views)
        view = rnd.observation(seat).to_dict()
        legal = view.pop("legal_actions")
        if role != "player" or view["phase"] == "exchange":
            legal = []  # exchange choices are free-form (any three of one suit, R11.1)
        else:
            legal = [a.split(" ", 1)[1] for a in legal]
        clock = None
        d = self.decision
        if d is not None and (d.kind != "claim" or d.seat == seat):
            # Who is asked about a claim is that seat's business only (it would tell its tiles).
            clock = Clock(
                seat=d.seat,
                kind=d.kind,  # type: ignore[arg-type]
                remaining_ms=max(0, int((d.deadline - time.monotonic()) * 1000)),
                total_ms=int(d.total * 1000),
            )
        sel = self.selected[seat] if role == "player" else None
        return StateMsg(
            seat=seat,
            role=role,  # type: ignore[arg-type]
            hand_no=self.rnd_no,
            view=view,
            legal=legal,
            selected=_TILE[sel] if sel is not None else None,
            clock=clock,
            events_from=start,
            reset=reset,
            events=views[start:],
            settlement=settlement_lines(views) if rnd.over else [],
            over=rnd.over,
            replay_id=self.replay_id() if rnd.over else None,
            server_ms=time.time() * 1000.0,
        )

    def touch(self, table: bool = False) -> None:
        """Something changed: queue a fresh state (and table) message for every connection."""
        for c in self.clients:
            c.mark_state()
            if table:
                c.mark_table()

    # ------------------------------------------------------------------ requests
    def join(self, client: Client) -> None:
        self.clients.add(client)
        self.touch(table=True)

    def leave(self, client: Client) -> None:
        self.clients.discard(client)
        if client.seat is not None:
            s = self.seats[client.seat]
            s.connections -= 1
            if s.connections <= 0:
                s.connections = 0
                s.gone_since = time.monotonic()  # R8 if gone longer than the turn timer
                s.started = False
        self._wake.set()
        self.touch(table=True)

    def _between_hands(self) -> bool:
        return self.rnd is None or self.rnd.over

    def sit(self, client: Client, seat: int, name: str) -> str:
        if client.seat is not None:
            raise RoomError(f"you already sit in seat {client.seat}")
        s = self.seats[seat]
        if s.kind != "empty":
            raise RoomError(f"seat {seat} is taken")
        s.kind, s.name, s.token = "person", name, secrets.token_urlsafe(16)
        s.connections, s.gone_since, s.started = 1, None, False
        client.seat = seat
        self._wake.set()
        return s.token  # the caller sends the welcome, then touches (welcome first)

    def resume(self, client: Client, token: str) -> int:
        for s in self.seats:
            if s.kind == "person" and s.token is not None and secrets.compare_digest(s.token, token):
                if client.seat is not None and client.seat != s.index:
                    raise RoomError(f"you already sit in seat {client.seat}")
                if client.seat is None:
                    s.connections += 1
                client.seat = s.index
                s.gone_since = None
                self._wake.set()
                return s.index  # the caller sends the welcome, then touches
        raise RoomError("no seat at this table has that token")

    def seat_bot(self, seat: int, strategy: str) -> None:
        if not self._between_hands():
            raise RoomError("seats change between hands only")
        s = self.seats[seat]
        if s.kind == "person":
            raise RoomError(f"seat {seat} is taken by {s.name}")
        if strategy not in self.bots.names:
            raise RoomError(f"unknown bot {strategy!r}: this server offers {', '.join(self.bots.names)}")
        bot = self.bots.build(strategy)
        self._close_bot(s.strategy)
        s.kind, s.name, s.strategy, s.token, s.started = (
            "bot",
            strategy,
            bot,
            None,
            False,
        )
        self._wake.set()
        self.touch(table=True)

    def stand(self, client: Client, seat: int) -> None:
        if not self._between_hands():
            raise RoomError("seats change between hands only (closing the page during a hand is an escape, R8)")
        s = self.seats[seat]
        if s.kind == "person" and client.seat != seat:
            raise RoomError(f"seat {seat} is {s.name}'s")
        if s.kind == "empty":
            raise RoomError(f"seat {seat} is empty")
        if client.seat == seat:
            client.seat = None
            client.watch = seat
        self._close_bot(s.strategy)
        self.seats[seat] = Seat(seat)
        self.touch(table=True)

    def start(self, client: Client) -> None:
        if client.seat is None:
            raise RoomError("only a seated player can press Start")
        if not self._between_hands():
            raise RoomError("the hand is under way")
        self.seats[client.seat].started = True
        self._wake.set()
        self.touch(table=True)

    def watch(self, client: Client, seat: int) -> None:
        if client.seat is not None:
            raise RoomError("a player sees only its own seat")
        client.watch = seat
        client.mark_state()

    def select(self, client: Client, tile: str | None) -> None:
        if client.seat is None:
            raise RoomError("a spectator cannot act")
        self.selected[client.seat] = parse_tiles(tile)[0] if tile else None

    def act(self, client: Client, text: str) -> None:
        if client.seat is None:
            raise RoomError("a spectator cannot act")
        seat = client.seat
        d = self.decision
        rnd = self.rnd
        if d is None or not d.person or d.seat != seat or rnd is None or d.future is None or d.future.done():
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
        d.future.set_result(action)

    # ------------------------------------------------------------------ the match
    def _ready(self) -> bool:
        if any(s.kind == "empty" for s in self.seats):
            return False
        here = [s for s in self.seats if s.kind == "person" and s.connected]
        if self.status == "over" and not here:
            return False  # a new match needs a person's Start; a table of bots plays one match
        return all(s.started for s in here)

    async def _wait_ready(self) -> None:
        people = any(s.kind == "person" and s.connected for s in self.seats)
        if self.hand_no and not people and self.pace.between_hands > 0:
            await asyncio.sleep(self.pace.between_hands)
        while not self._ready():
            self._wake.clear()
            await self._wake.wait()

    async def run(self) -> None:
        """Play matches for as long as the table exists."""
        try:
            await self._run()
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug: say so in the server log and show the table as stopped
            _log.exception("table %s stopped", self.id)
            self.status = "over"
            self.touch(table=True)
            raise

    async def _run(self) -> None:
        while True:
            await self._wait_ready()
            if self.status == "over":  # a new match
                self.scores = [0, 0, 0, 0]
                self.hand_no = 0
                self.seed += 1
                self.dealer = first_dealer(self.seed)
                self.timeouts = [0, 0, 0, 0]
            await self._play_hand()
            self._keep_log()
            self.hand_no += 1
            for s in self.seats:
                s.started = False
            self.status = "over" if self.hand_no >= self.hands else "between"
            self.touch(table=True)

    #: How many finished hands a table keeps for replay.
    KEPT_HANDS = 64

    def replay_id(self) -> str:
        """The replay id of the current (or last) hand: ``<table id>-<hand number at the table>``."""
        return f"{self.id}-{self.played}"

    def _keep_log(self) -> None:
        rnd = self.rnd
        if rnd is None or not rnd.over:
            return
        self.finished[self.replay_id()] = log_lines(rnd)
        while len(self.finished) > self.KEPT_HANDS:
            self.finished.popitem(last=False)

    async def _play_hand(self) -> None:
        rules = self.rules
        for s in self.seats:
            if s.kind == "person":
                # A person who is gone gets a bot for this hand; one who is here plays.
                if not s.connected and s.strategy is None:
                    s.strategy = self.bots.build(STAND_IN)
                elif s.connected and s.strategy is not None:
                    self._close_bot(s.strategy)
                    s.strategy = None
        self.status = "playing"
        # R1.4 / R9: the hand's seed from (match seed, hand index); dealer by R9.1/R9.2.
        rnd = Round.from_seed(rules, hand_seed(self.seed, self.hand_no), self.dealer, list(self.scores))
        self.rnd = rnd
        self.rnd_no = self.hand_no
        self.played += 1
        self._views = [[], [], [], []]
        self._viewed = [0, 0, 0, 0]
        self.selected = [None] * 4
        bots = [s.strategy for s in self.seats]
        for i, b in enumerate(bots):
            if b is not None:
                b.reset(i, rules)
        seen = [0, 0, 0, 0]
        self.touch(table=True)
        while not rnd.over:
            seat = rnd.cur
            assert seat is not None
            phase = rnd.observation(seat).phase
            kind = phase if phase in ("turn", "claim", "exchange", "void") else "turn"
            limit = rules.claim_timeout if kind == "claim" else rules.turn_timeout
            bot = bots[seat]
            if bot is not None:
                seen[seat] = _deliver(rnd, bot, seat, seen[seat])
                action, default, note = await self._bot_decision(rnd, bot, seat, kind, limit)
            else:
                action, default, note = await self._person_decision(rnd, seat, kind, limit)
            self.decision = None
            try:
                rnd.apply(action, default=default, note=note)
            except IllegalAction:  # R10.3: an illegal action is an escape (R8)
                rnd.apply(act(seat, ESCAPE), note="illegal action")
            if kind == "turn":
                self.selected[seat] = None
            self.touch()
        for i, b in enumerate(bots):
            if b is not None:
                _deliver(rnd, b, i, seen[i])
                end = getattr(b, "end_hand", None)
                if callable(end):
                    end()
        self.scores = [a + d for a, d in zip(self.scores, rnd.deltas, strict=True)]
        self.dealer = rnd.next_dealer if rnd.next_dealer is not None else self.dealer  # R9.2

    async def _bot_decision(
        self, rnd: Round, bot: Any, seat: int, kind: str, limit: float
    ) -> tuple[Action, bool, str | None]:
        """R10.3 for a bot: an exception or an illegal action is an escape (R8); a decision
        slower than the limit takes the default and counts, past ``max_timeouts`` an escape."""
        now = time.monotonic()
        self.decision = _Decision(seat, kind, now + limit, limit, False)
        if kind == "turn" and self.pace.bot_delay > 0:
            self.touch()
            await asyncio.sleep(self.pace.bot_delay)
        obs = rnd.observation(seat)
        t0 = perf_counter()
        try:
            action = await asyncio.to_thread(bot.act, obs)
        except Exception as exc:  # noqa: BLE001 - any crash of a bot is its escape
            return act(seat, ESCAPE), False, f"exception {type(exc).__name__}"
        if perf_counter() - t0 > limit:
            self.timeouts[seat] += 1
            if self.timeouts[seat] > rnd.rules.max_timeouts:
                return act(seat, ESCAPE), True, "timeout limit"
            return rnd.default_action(seat), True, "timeout"
        if type(action) is not Action or action.seat != seat:
            return act(seat, ESCAPE), False, "illegal action"
        return action, False, None

    async def _person_decision(self, rnd: Round, seat: int, kind: str, limit: float) -> tuple[Action, bool, str | None]:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future = loop.create_future()
        self.decision = d = _Decision(seat, kind, time.monotonic() + limit, limit, True, fut)
        self.touch()
        try:
            return await asyncio.wait_for(asyncio.shield(fut), limit), False, None
        except TimeoutError:
            pass
        s = self.seats[seat]
        turn_to = rnd.rules.turn_timeout
        # R8: gone for longer than the turn timer at this decision is an escape.
        while s.gone_since is not None and not fut.done():
            left = s.gone_since + turn_to - time.monotonic()
            if left <= 0:
                fut.cancel()
                return act(seat, ESCAPE), True, "left the table"
            await asyncio.sleep(min(left, 0.05))
        if fut.done() and not fut.cancelled():
            return fut.result(), False, None
        fut.cancel()
        d.future = None
        # R10.1 as the room plays it: the selected tile if it may be discarded, else the
        # engine's default (the tile just drawn, ...); R10.2: a claim passes.
        sel = self.selected[seat]
        if kind == "turn" and sel is not None:
            a = act(seat, DISCARD, sel)
            if a in rnd.legal_actions(seat):
                # the player's own choice, not the R10 default: logged as such, with the note
                return a, a == rnd.default_action(seat), "timeout"
        return rnd.default_action(seat), True, "timeout"


def _deliver(rnd: Round, bot: Any, seat: int, seen: int) -> int:
    """Hand a bot the public views of the events since ``seen`` (its optional ``observe``)."""
    observe = getattr(bot, "observe", None)
    events = rnd.events
    if observe is not None:
        for i in range(seen, len(events)):
            v = public_view(events[i], seat)
            if v is not None:
                observe(v)
    return len(events)


class Room:
    """The lobby: the tables of one server."""

    def __init__(
        self,
        bots: BotCatalog | None = None,
        pace: Pace | None = None,
        rules_overrides: dict[str, Any] | None = None,
    ) -> None:
        self.bots = bots or BotCatalog()
        self.pace = pace or Pace()
        self.rules_overrides = dict(rules_overrides or {})
        self.tables: dict[str, Table] = {}
        self._n = 0

    def create(
        self,
        name: str,
        preset: str = "leshan",
        hands: int = 8,
        seed: int | None = None,
        bots: list[str | None] | None = None,
    ) -> Table:
        """A new table (its task starts in the running event loop); ``bots`` seats bots at once."""
        if preset not in ("leshan", "chengdu"):
            raise RoomError(f"unknown rules preset {preset!r}: leshan or chengdu")
        if not 1 <= hands <= 64:
            raise RoomError(f"hands must be 1 to 64, got {hands}")
        rules = Rules.preset(preset)
        if self.rules_overrides:
            rules = rules.replace(**self.rules_overrides)
        self._n += 1
        tid = f"t{self._n}"
        kw: dict[str, Any] = {} if seed is None else {"seed": seed}
        table = Table(
            tid,
            name or f"Table {self._n}",
            rules,
            self.bots,
            hands,
            pace=self.pace,
            **kw,
        )
        for i, b in enumerate(bots or []):
            if b:
                table.seat_bot(i, b)
        self.tables[tid] = table
        table.start_task()
        return table

    async def close(self) -> None:
        for t in self.tables.values():
            await t.close()
