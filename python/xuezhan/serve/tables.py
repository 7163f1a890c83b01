"""Tables and seating: four seats, a match with R9 dealer rotation, and the server's clock.

A :class:`Table` owns one match. Its ``run`` task waits until four seats are taken and every
connected person pressed Start, deals the hand (:meth:`Round.from_seed` with a fresh 128-bit
seed from :mod:`xuezhan.serve.deals`, committed to before play and revealed after; the first
dealer from that seed by R9.1, the next by R9.2), asks each decision of a bot or a person, and
applies it; the finished hand is booked in the room's :class:`~xuezhan.serve.standings.Standings`.

A person's seat has a token; the seat is held by one connection at a time (resuming with the
token moves it, standing up voids it), and only that connection receives the seat's legal
actions or may act, press Start or select. Only the table's host (whoever opened it, proven by
the host token) or a seat's occupant changes a seat. The limits of :class:`Limits` bound what
one client can make the server hold: tables, seats held without pressing Start, idle tables.

The server owns the clock (R10): a person's turn ends after ``turn_timeout`` with the tile
they had selected, else the engine's default (R10.1); a claim after ``claim_timeout`` with a
pass (R10.2). A person whose connection has been gone for longer than ``turn_timeout`` when a
decision of theirs runs out escapes (R8); for the next hand a bot stands in for them unless they
come back (``resume`` with their token).

When winners stay (血流成河, R14), a person's locked hand whose only legal action is the discard
of the tile it drew has that discard played for it after ``Pace.locked_discard`` seconds (at
most half the turn timer), unless the person acts first or leaves (:mod:`xuezhan.serve.locked`);
one timer per decision, cancelled when the decision ends.

A searching bot (``search``, docs/search.md) gets a :class:`~xuezhan.engine.decisions.Sampler` of
its seat for each hand, after its ``reset``, as in every loop that plays hands
(:func:`~xuezhan.engine.decisions.bind_samplers`; a user's bot never gets one). The sampler stays in
the server: nothing a connection receives changes. Searching seats are a server-wide resource:
at most ``BotCatalog.search_seats`` at once over all tables (``xuezhan serve --search-seats``);
one more is refused with a message naming the cap. A seat's slot is free again when its bot is
replaced or removed, when its table closes or stops, and when the table does not play: a
searching bot leaves its seat after waiting ``start_timeout`` for a hand, and at once when its
match is over and no person sits at the table (nobody could start another), so a table that
does not play cannot hold searching seats. Searches think in the room's own threads, one per
search seat.

Everything a connection receives is built in :meth:`Table.state_for` from
``Round.observation(seat)`` and ``public_view(event, seat)`` for the one seat it sees.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from xuezhan.engine import Round, act, log_lines, parse_action, public_view
from xuezhan.engine.actions import DISCARD, ESCAPE, Action, ActionError
from xuezhan.engine.decisions import Delivery, Ruling, apply, bind_samplers, crashed, rule, time_limit, wants_sampler
from xuezhan.engine.match import first_dealer
from xuezhan.rules import PRESETS, Rules
from xuezhan.serve.bots import STAND_IN, BotCatalog
from xuezhan.serve.deals import commitment, new_seed
from xuezhan.serve.locked import forced_discard, locked_seats
from xuezhan.serve.protocol import Clock, ErrorMsg, SeatInfo, StateMsg, TableMsg, WelcomeMsg
from xuezhan.serve.replay import named_log
from xuezhan.serve.reveal import revealed_hands
from xuezhan.serve.standings import Standings
from xuezhan.serve.words import seat_labels, settlement_lines
from xuezhan.tiles import TILE_STR as _TILE
from xuezhan.tiles import parse_tiles

__all__ = ["Client", "Limits", "Pace", "Room", "RoomError", "RoomFull", "Seat", "Table"]

_log = logging.getLogger("xuezhan.serve")


class RoomError(ValueError):
    """A request the table refuses (the message says why); nothing changed."""


class RoomFull(RoomError):
    """A new table refused: the server's or the client's table limit is reached."""


@dataclass
class Pace:
    """How fast bots play for watchers: a pause before each bot turn, and between hands of a
    table without people (seconds). Tests use zeros."""

    bot_delay: float = 0.6
    between_hands: float = 4.0
    #: The pause before a locked hand's forced discard is played for a person (R14.2,
    #: :mod:`xuezhan.serve.locked`); at most half the turn timer, so it always comes first.
    locked_discard: float = 1.0


@dataclass
class Limits:
    """What one server, one client and one connection may make the room hold or do."""

    #: Open tables on the server, and opened by one client address.
    max_tables: int = 100
    max_tables_per_client: int = 3
    #: Seconds a seated person may wait without pressing Start before being unseated.
    start_timeout: float = 180.0
    #: Seconds a table without any connection lives on before it is closed.
    idle_timeout: float = 600.0
    #: Messages queued for one connection before it is dropped as a slow reader.
    send_queue: int = 64
    #: Seconds one message may take to reach a connection before it is dropped as a slow reader.
    send_timeout: float = 30.0
    #: Client messages per second a connection may send on average, and in a burst.
    rate: float = 20.0
    burst: int = 60
    #: How often the room looks for idle tables (seconds).
    sweep: float = 5.0


@dataclass
class Seat:
    """One of the four seats: empty, a person (a name and a secret token), or a bot."""

    index: int
    kind: str = "empty"  # "empty" | "person" | "bot"
    name: str = ""
    token: str | None = None
    strategy: Any = None  # the bot, or the stand-in playing this hand for a person who left
    started: bool = False
    #: The one connection that holds this person's seat (None: gone).
    holder: Client | None = None
    gone_since: float | None = None
    #: Since when the table has been waiting for this person's Start, or (a bot) for its next
    #: hand (monotonic seconds); a searching bot leaves after ``start_timeout`` too.
    waiting_since: float = 0.0
    #: The person's player id in the ledger (None: a guest, whose points are not kept).
    player_id: int | None = None

    @property
    def connected(self) -> bool:
        return self.kind != "person" or self.holder is not None

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

    def __init__(self, peer: str = "", queue_size: int = 64) -> None:
        self.seat: int | None = None
        self.watch = 0
        self.peer = peer  # the client's address (tables per client are counted by it)
        self.host = False  # proved the table's host token
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(queue_size)
        self._state_queued = False
        self._table_queued = False
        self.hand_no = -1
        self.view_seat = -1
        self.sent = 0  # public views sent for (hand_no, view_seat)
        #: Set when the connection is to be closed (a slow reader, a flood); the app closes it.
        self.dropped: str | None = None
        self.on_drop: Callable[[str], None] | None = None
        #: When the message being sent now began its way (None: nothing on its way).
        self.sending_since: float | None = None

    @property
    def sees(self) -> int:
        """The seat whose view this connection receives: a player only ever its own."""
        return self.seat if self.seat is not None else self.watch

    def _put(self, item: str) -> None:
        if self.dropped is not None:
            return
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.drop("too many messages waiting: the connection reads too slowly")

    def drop(self, why: str) -> None:
        """Close this connection (once): it reads too slowly or sends too much."""
        if self.dropped is None:
            self.dropped = why
            if self.on_drop is not None:
                self.on_drop(why)

    def send(self, text: str) -> None:
        self._put(text)

    def mark_state(self) -> None:
        if not self._state_queued:
            self._state_queued = True
            self._put(self.STATE)

    def mark_table(self) -> None:
        if not self._table_queued:
            self._table_queued = True
            self._put(self.TABLE)

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


@dataclass
class Table:
    """One table: four seats, a rules value, a match of ``hands`` hands (R9)."""

    id: str
    name: str
    rules: Rules
    bots: BotCatalog
    hands: int = 8
    pace: Pace = field(default_factory=Pace)
    limits: Limits = field(default_factory=Limits)
    ledger: Standings | None = None
    #: Where hand seeds come from: the OS's secure generator. Only server-side code (tests) may
    #: pass another; no client of the room can choose a deal.
    seeds: Callable[[], int] = new_seed
    #: The address of the client that opened the table (for the per-client cap).
    owner: str = ""
    #: The searching seats of the whole server, this table's included (the room's count); None:
    #: a table on its own, whose count is its own.
    server_searching: Callable[[], int] | None = None
    #: The threads searching bots think in (the room's; None: the shared pool, as other bots).
    search_pool: Executor | None = None

    def __post_init__(self) -> None:
        self.seats = [Seat(i) for i in range(4)]
        self.clients: set[Client] = set()
        #: Whoever holds this token is the table's host (it opened the table).
        self.host_token = secrets.token_urlsafe(16)
        self.scores = [0, 0, 0, 0]
        self.hand_no = 0  # hands finished in this match
        self.dealer: int | None = None  # R9.1: drawn from the first hand's seed
        self.status = "waiting"
        self.rnd: Round | None = None
        self.rnd_no = 0  # the hand number of ``rnd`` (hand_no moves on when it ends)
        self.seed: int | None = None  # the current hand's seed: secret until the hand is over
        self.commitment: str | None = None  # its hash, shown to everyone from the deal on
        self.booked = False  # the current hand is over and in the ledger (or has no ledger)
        self.last_replay: str | None = None  # the replay id of the last finished hand
        self.decision: _Decision | None = None
        self.selected: list[int | None] = [None] * 4
        self.timeouts = [0, 0, 0, 0]
        self._views: list[list[dict]] = [[], [], [], []]
        self._viewed = [0, 0, 0, 0]
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._table_flush: asyncio.TimerHandle | None = None
        self.idle_since: float | None = time.monotonic()  # no connection since then
        self.played = 0  # hands started at this table, across matches

    # ------------------------------------------------------------------ lifecycle
    def start_task(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.run(), name=f"table-{self.id}")

    async def close(self) -> None:
        if self._table_flush is not None:
            self._table_flush.cancel()
            self._table_flush = None
        if self._task is not None:
            self._task.cancel()
            # its own failure was logged by run(); a cancelled task is what we asked for
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        self.close_bots()

    def close_bots(self) -> None:
        """Close every seat's bot (external bots end their processes)."""
        for s in self.seats:
            self._close_bot(s.strategy)

    @staticmethod
    def _close_bot(strategy: Any) -> None:
        close = getattr(strategy, "close", None)
        if callable(close):
            close()

    # ------------------------------------------------------------------ searching seats
    @property
    def searching(self) -> int:
        """This table's seats held by a searching bot (each counts against the server's cap)."""
        return sum(1 for s in self.seats if s.kind == "bot" and self.bots.searches(s.name))

    def _free_searching(self) -> None:
        """The searching bots leave their seats (the match is over and nobody sits at the table,
        or the table stopped): their slots go back to the server."""
        freed = False
        for s in self.seats:
            if s.kind == "bot" and self.bots.searches(s.name):
                self._vacate(s.index)
                freed = True
        if freed:
            self.touch(table=True)

    def _check_search_seat(self, s: Seat, strategy: str) -> None:
        """Refuse a searching bot the server has no seat for (:class:`RoomError`, naming the cap),
        or that would never play: at a table whose match is over and where nobody sits."""
        if self.status == "over" and not any(o.kind == "person" for o in self.seats):
            raise RoomError(
                f"this table's match is over and nobody sits at it: {strategy!r} is seated only for "
                "a match that will be played (sit down first, or open a new table)"
            )
        if s.kind == "bot" and self.bots.searches(s.name):
            return  # it takes the slot of the searching bot it replaces
        cap = self.bots.search_seats
        used = self.server_searching() if self.server_searching is not None else self.searching
        if used >= cap:
            raise RoomError(
                f"the server seats at most {cap} searching bots ({strategy!r}) at once, and all "
                f"{cap} are taken; choose another bot, or try again when one is freed"
            )

    def _decision_limit(self) -> float:
        """The shortest decision time limit of this table's rules (R10.1, R10.2)."""
        return min(self.rules.turn_timeout, self.rules.claim_timeout)

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
            events = self.rnd.ledger.events
            for i in range(self._viewed[seat], len(events)):
                v = public_view(events[i], seat)
                if v is not None:
                    views.append(v)
            self._viewed[seat] = len(events)
        return views

    def state_for(self, client: Client) -> StateMsg:
        """The state message for one connection: only the seat it sees, never more."""
        seat = client.sees
        role = "player" if client.seat == seat and self.seats[seat].holder is client else "spectator"
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
        forced = forced_ms = None
        if role == "player" and d is not None and d.seat == seat and d.auto is not None:
            forced = str(d.auto).split(" ", 1)[1]
            forced_ms = max(0, int((d.auto_at - time.monotonic()) * 1000))
        names = seat_labels([s.name for s in self.seats], rnd.dealer)
        over = rnd.over and self.booked
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
            settlement=settlement_lines(views, names) if over else [],
            names=names,
            meld_from=[list(m) for m in rnd.seats.meld_from],
            locked=locked_seats(rnd),
            forced=forced,
            forced_ms=forced_ms,
            reveal=revealed_hands(rnd, names) if over else [],  # never before the end
            over=over,
            replay_id=self.last_replay if over else None,
            commitment=self.commitment,
            seed=str(self.seed) if over else None,  # revealed only once the hand is over
            server_ms=time.time() * 1000.0,
        )

    def touch(self, table: bool = False) -> None:
        """Something changed: queue a fresh state (and table) message for every connection."""
        for c in self.clients:
            c.mark_state()
            if table:
                c.mark_table()

    #: Seconds over which joins and leaves are gathered into one table message.
    COALESCE = 0.25

    def _touch_table_soon(self) -> None:
        """A spectator came or went: one table message for all of them within ``COALESCE``
        seconds, however many came or went meanwhile (the count is all that changed)."""
        if self._table_flush is None:

            def flush() -> None:
                self._table_flush = None
                for c in self.clients:
                    c.mark_table()

            self._table_flush = asyncio.get_running_loop().call_later(self.COALESCE, flush)

    # ------------------------------------------------------------------ seats
    def holds(self, client: Client) -> int | None:
        """The seat ``client`` holds now, or None (a spectator, or a seat taken over)."""
        seat = client.seat
        if seat is not None and self.seats[seat].holder is client:
            return seat
        return None

    def _unbind(self, seat: int, notice: str | None = None) -> None:
        """The seat's connection (if any) becomes a spectator of that seat."""
        s = self.seats[seat]
        c = s.holder
        s.holder = None
        if c is not None:
            c.seat, c.watch = None, seat
            if notice:
                c.send(ErrorMsg(message=notice).model_dump_json())
            c.send(
                WelcomeMsg(
                    table=self.id, host=c.host, bots=self.bots.names, bot_labels=self.bots.labels
                ).model_dump_json()
            )
            c.mark_state()

    def _vacate(self, seat: int, notice: str | None = None) -> None:
        """Empty a seat; a person's token stops working."""
        self._unbind(seat, notice)
        self._close_bot(self.seats[seat].strategy)
        self.seats[seat] = Seat(seat)

    def _may_change(self, client: Client, seat: int) -> bool:
        return client.host or self.holds(client) == seat

    # ------------------------------------------------------------------ requests
    def join(self, client: Client) -> None:
        self.clients.add(client)
        self.idle_since = None
        client.mark_table()
        client.mark_state()
        self._touch_table_soon()

    def leave(self, client: Client) -> None:
        self.clients.discard(client)
        if not self.clients:
            self.idle_since = time.monotonic()
        seat = self.holds(client)
        if seat is not None:
            s = self.seats[seat]
            s.holder = None
            s.gone_since = time.monotonic()  # R8 if gone longer than the turn timer
            d = self.decision
            if d is not None and d.seat == seat:
                d.cancel_auto()  # nothing is played for a person who left (R8 decides)
            s.started = False
            self._wake.set()
            self.touch(table=True)
        else:
            self._touch_table_soon()

    def _between_hands(self) -> bool:
        return self.rnd is None or (self.rnd.over and self.booked)

    def sit(self, client: Client, seat: int, name: str, player_id: int | None = None) -> str:
        if self.holds(client) is not None:
            raise RoomError(f"you already sit in seat {client.seat}")
        s = self.seats[seat]
        if s.kind != "empty":
            raise RoomError(f"seat {seat} is taken")
        if player_id is not None and any(o.player_id == player_id for o in self.seats):
            raise RoomError(f"{name} already sits at this table")
        s.kind, s.name, s.token, s.player_id = "person", name, secrets.token_urlsafe(16), player_id
        s.holder, s.gone_since, s.started = client, None, False
        s.waiting_since = time.monotonic()
        client.seat = seat
        self._wake.set()
        assert s.token is not None
        return s.token  # the caller sends the welcome, then touches (welcome first)

    def resume(self, client: Client, token: str) -> int:
        for s in self.seats:
            if s.kind == "person" and s.token is not None and secrets.compare_digest(s.token, token):
                held = self.holds(client)
                if held is not None and held != s.index:
                    raise RoomError(f"you already sit in seat {held}")
                if s.holder is not None and s.holder is not client:
                    # one connection per seat: the newest wins (another tab, a reconnect)
                    self._unbind(s.index, "your seat was resumed by another connection; this one only watches now")
                s.holder = client
                client.seat = s.index
                s.gone_since = None
                self._wake.set()
                return s.index  # the caller sends the welcome, then touches
        raise RoomError("no seat at this table has that token")

    def claim_host(self, client: Client, token: str) -> None:
        if not secrets.compare_digest(self.host_token, token):
            raise RoomError("that is not this table's host token")
        client.host = True

    def seat_bot(self, client: Client | None, seat: int, strategy: str) -> None:
        """Seat a bot: in an empty seat the host or a seated person may; a bot is replaced by
        the host only (``client`` None: the server itself, when the table is opened)."""
        if not self._between_hands():
            raise RoomError("seats change between hands only")
        s = self.seats[seat]
        if s.kind == "person":
            raise RoomError(f"seat {seat} is taken by {s.name}")
        if client is not None and not client.host:
            if s.kind == "bot":
                raise RoomError("only the table's host changes a bot's seat")
            if self.holds(client) is None:
                raise RoomError("only the table's host or a seated player seats a bot")
        if strategy not in self.bots.names:
            raise RoomError(f"unknown bot {strategy!r}: this server offers {', '.join(self.bots.names)}")
        if self.bots.searches(strategy):
            self._check_search_seat(s, strategy)
        bot = self.bots.build(strategy, time_limit=self._decision_limit())
        self._close_bot(s.strategy)
        s.kind, s.name, s.strategy, s.token, s.started = (
            "bot",
            strategy,
            bot,
            None,
            False,
        )
        s.waiting_since = time.monotonic()  # a searching bot waits for a hand as long as a person
        self._wake.set()
        self.touch(table=True)

    def stand(self, client: Client, seat: int) -> None:
        if not self._between_hands():
            raise RoomError("seats change between hands only (closing the page during a hand is an escape, R8)")
        s = self.seats[seat]
        if s.kind == "empty":
            raise RoomError(f"seat {seat} is empty")
        if not self._may_change(client, seat):
            who = f"{s.name}'s" if s.kind == "person" else f"the bot {s.name}'s"
            raise RoomError(f"seat {seat} is {who}: only its occupant or the table's host frees it")
        own = self.holds(client) == seat
        self._vacate(seat, None if own else "the table's host freed your seat")
        if own:
            client.send(
                WelcomeMsg(
                    table=self.id, host=client.host, bots=self.bots.names, bot_labels=self.bots.labels
                ).model_dump_json()
            )
        self._wake.set()
        self.touch(table=True)

    def start(self, client: Client) -> None:
        seat = self.holds(client)
        if seat is None:
            raise RoomError("only a seated player can press Start")
        if not self._between_hands():
            raise RoomError("the hand is under way")
        self.seats[seat].started = True
        self._wake.set()
        self.touch(table=True)

    def watch(self, client: Client, seat: int) -> None:
        if self.holds(client) is not None:
            raise RoomError("a player sees only its own seat")
        client.watch = seat
        client.mark_state()

    def select(self, client: Client, tile: str | None) -> None:
        seat = self.holds(client)
        if seat is None:
            raise RoomError("a spectator cannot act")
        self.selected[seat] = parse_tiles(tile)[0] if tile else None

    def act(self, client: Client, text: str) -> None:
        seat = self.holds(client)
        if seat is None:
            raise RoomError("a spectator cannot act")
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
        d.cancel_auto()
        d.future.set_result(action)

    # ------------------------------------------------------------------ the match
    def _ready(self) -> bool:
        if any(s.kind == "empty" for s in self.seats):
            return False
        here = [s for s in self.seats if s.kind == "person" and s.connected]
        if self.status == "over" and not here:
            return False  # a new match needs a person's Start; a table of bots plays one match
        return all(s.started for s in here)

    def _unseat_idle(self) -> float | None:
        """Unseat the people who did not press Start within ``start_timeout``, and the searching
        bots that waited as long for a hand (a table that does not play holds no searching seat
        for longer); the seconds until the next such deadline (None: nobody is waited for)."""
        now = time.monotonic()
        nxt: float | None = None
        for s in self.seats:
            if s.kind == "person" and not s.started:
                why = f"you were unseated: Start was not pressed within {self.limits.start_timeout:g} s"
            elif s.kind == "bot" and self.bots.searches(s.name):
                why = None
            else:
                continue
            left = s.waiting_since + self.limits.start_timeout - now
            if left <= 0:
                self._vacate(s.index, why)
                self.touch(table=True)
            else:
                nxt = left if nxt is None else min(nxt, left)
        if self.status == "over" and not any(s.kind == "person" for s in self.seats):
            self._free_searching()  # nobody will start another match with them
        return nxt

    async def _wait_ready(self) -> None:
        people = any(s.kind == "person" and s.connected for s in self.seats)
        if self.hand_no and not people and self.pace.between_hands > 0:
            await asyncio.sleep(self.pace.between_hands)
        while not self._ready():
            self._wake.clear()
            left = self._unseat_idle()
            if self._ready():
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), left)

    async def run(self) -> None:
        """Play matches for as long as the table exists."""
        try:
            await self._run()
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug: say so in the server log and show the table as stopped
            _log.exception("table %s stopped", self.id)
            self.status = "over"
            self.decision = None
            self._free_searching()  # a stopped table holds no searching seat
            self.touch(table=True)
            raise

    async def _run(self) -> None:
        while True:
            await self._wait_ready()
            if self.status == "over":  # a new match
                self.scores = [0, 0, 0, 0]
                self.hand_no = 0
                self.dealer = None
                self.timeouts = [0, 0, 0, 0]
            await self._play_hand()
            await self._book()
            self.hand_no += 1
            now = time.monotonic()
            for s in self.seats:
                s.started = False
                s.waiting_since = now
            self.status = "over" if self.hand_no >= self.hands else "between"
            self.touch(table=True)

    async def _book(self) -> None:
        """Book the finished hand (points, R8 penalties, its log) in the ledger, off the event
        loop; then the hand shows as over, with its seed and replay id."""
        rnd = self.rnd
        assert rnd is not None and rnd.over and self.seed is not None and self.commitment is not None
        if self.ledger is not None:
            paid = [0, 0, 0, 0]
            for e in rnd.ledger.events:
                if e.type == "pay" and e.rule == "R8":  # type: ignore[attr-defined]
                    paid[e.frm] += e.amount  # type: ignore[attr-defined]
            players = [s.player_id if s.kind == "person" else None for s in self.seats]
            try:
                self.last_replay = await asyncio.to_thread(
                    self.ledger.book_hand,
                    self.name,
                    self.rules.preset,
                    self.seed,
                    self.commitment,
                    named_log(log_lines(rnd), seat_labels([s.name for s in self.seats], rnd.dealer)),
                    players,
                    list(rnd.ledger.deltas),
                    paid,
                )
            except Exception:  # the database failed: say so loudly, keep the table playing
                _log.exception("table %s: the hand could not be booked", self.id)
                self.last_replay = None
        self.booked = True
        self.touch(table=True)

    async def _play_hand(self) -> None:
        rules = self.rules
        for s in self.seats:
            if s.kind == "person":
                # A person who is gone gets a bot for this hand; one who is here plays.
                if not s.connected and s.strategy is None:
                    s.strategy = self.bots.build(STAND_IN, time_limit=self._decision_limit())
                elif s.connected and s.strategy is not None:
                    self._close_bot(s.strategy)
                    s.strategy = None
        self.status = "playing"
        # R1.4: a fresh secret seed for each hand, committed to now and revealed at the end;
        # the first dealer of a match by R9.1 from it, the next by R9.2.
        seed = self.seeds()
        if self.dealer is None:
            self.dealer = first_dealer(seed)
        rnd = Round.from_seed(rules, seed, self.dealer, list(self.scores))
        self.seed, self.commitment, self.booked = seed, commitment(seed), False
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
        # A searching bot samples this hand's hidden tiles through a sampler of its own seat, as
        # in every loop that plays hands; it stays here (no connection is sent anything of it).
        bind_samplers(rnd, bots)
        deliver = Delivery(bots)  # the bots' public views (people get theirs in state messages)
        self.touch(table=True)
        while not rnd.over:
            seat = rnd.turn.cur
            assert seat is not None
            phase = rnd.observation(seat).phase
            kind = phase if phase in ("turn", "claim", "exchange", "void") else "turn"
            limit = time_limit(rules, rnd.turn.phase)  # R10
            bot = bots[seat]
            if bot is not None:
                deliver(rnd.ledger.events)
                ruling = await self._bot_decision(rnd, bot, seat, kind, limit)
            else:
                ruling = await self._person_decision(rnd, seat, kind, limit)
            self.decision = None
            apply(rnd, ruling)  # an own action the hand refuses is an escape (R10.3)
            if kind == "turn":
                self.selected[seat] = None
            self.touch()
        deliver(rnd.ledger.events)
        for b in bots:
            if b is not None:
                end = getattr(b, "end_hand", None)
                if callable(end):
                    end()
        self.scores = [a + d for a, d in zip(self.scores, rnd.ledger.deltas, strict=True)]
        if rnd.ledger.next_dealer is not None:
            self.dealer = rnd.ledger.next_dealer  # R9.2

    async def _bot_decision(self, rnd: Round, bot: Any, seat: int, kind: str, limit: float) -> Ruling:
        """A bot's decision, in a worker thread, ruled on by the engine's seat loop (R10.3: an
        exception or an illegal action is an escape, R8; a decision slower than the limit takes
        the default and counts, past ``max_timeouts`` an escape)."""
        now = time.monotonic()
        self.decision = _Decision(seat, kind, now + limit, limit, False)
        if kind == "turn" and self.pace.bot_delay > 0:
            self.touch()
            await asyncio.sleep(self.pace.bot_delay)
        obs = rnd.observation(seat)
        t0 = perf_counter()
        try:
            if self.search_pool is not None and wants_sampler(bot):
                # searches think in threads of their own (as many as the server's search seats),
                # so the shared pool stays free for the other bots and the ledger
                action = await asyncio.get_running_loop().run_in_executor(self.search_pool, bot.act, obs)
            else:
                action = await asyncio.to_thread(bot.act, obs)
        except Exception as exc:  # noqa: BLE001 - any crash of a bot is its escape
            return crashed(seat, exc)
        return rule(rnd, seat, action, perf_counter() - t0, self.timeouts, limit)

    @staticmethod
    def _play_forced(d: _Decision) -> None:
        """The pause is over: play the forced discard for the person, unless they acted."""
        d.timer = None
        fut, action = d.future, d.auto
        if fut is not None and not fut.done() and action is not None:
            d.auto_played = True
            fut.set_result(action)

    async def _person_decision(self, rnd: Round, seat: int, kind: str, limit: float) -> Ruling:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future = loop.create_future()
        self.decision = d = _Decision(seat, kind, time.monotonic() + limit, limit, True, fut)
        forced = forced_discard(rnd, seat) if self.seats[seat].holder is not None else None
        if forced is not None:
            # R14.2: the locked hand's one legal action, played for the person after a short
            # pause (well inside the turn timer: it is never a timeout), unless they act first.
            pause = min(self.pace.locked_discard, limit / 2)
            d.auto, d.auto_at = forced, time.monotonic() + pause
            d.timer = loop.call_later(pause, self._play_forced, d)
        self.touch()
        try:
            action = await asyncio.wait_for(asyncio.shield(fut), limit)
            return Ruling(action, note="locked" if d.auto_played else None)
        except TimeoutError:
            pass
        finally:
            d.cancel_auto()
        s = self.seats[seat]
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
        self._sweeper: asyncio.Task | None = None

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
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep(), name="room-sweeper")
        return table

    def searching_seats(self) -> int:
        """The searching bots seated at the server's tables now (at most ``bots.search_seats``)."""
        return sum(t.searching for t in self.tables.values())

    async def _sweep(self) -> None:
        """Close the tables nobody has been connected to for ``idle_timeout`` seconds."""
        while True:
            await asyncio.sleep(self.limits.sweep)
            await self.expire()

    async def expire(self) -> list[str]:
        """Close idle tables now; their ids."""
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
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        for t in self.tables.values():
            await t.close()
