"""A table: four seats, a rules value, and a match with R9 dealer rotation.

A :class:`Table` puts its parts together, one job each:

- :class:`~xuezhan.serve.seating.Seating` (:mod:`.seating`): the seats, their tokens and holders,
  the host, the searching-seat cap;
- :class:`~xuezhan.serve.hand_play.HandPlay` (:mod:`.hand_play`): one hand in play over the
  engine's seat loop, the person's clock and forced discards;
- :class:`~xuezhan.serve.connections.Audience` (:mod:`.connections`): the connections and the
  fan-out to them; what each one is sent is built by :mod:`.views`;
- :mod:`.sweeping`: people who do not press Start, searching bots that wait for nothing;
- :mod:`.booking`: the finished hand in the room's standings.

The table's own job is the match: its ``run`` task waits until four seats are taken and every
connected person pressed Start, deals the hand (:meth:`Round.from_seed` with a fresh 128-bit
seed from :mod:`xuezhan.serve.deals`, committed to before play and revealed after; the first
dealer from that seed by R9.1, the next by R9.2), plays it, books it, and adds up the scores
(R9.3). Seats change between hands only; for the next hand a bot stands in for a person who is
gone unless they come back (``resume`` with their token).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field

from xuezhan.engine import Round
from xuezhan.engine.match import first_dealer
from xuezhan.rules import Rules
from xuezhan.serve.booking import book_hand
from xuezhan.serve.bots import BotCatalog
from xuezhan.serve.connections import Audience, Client
from xuezhan.serve.deals import commitment, new_seed
from xuezhan.serve.hand_play import Decision, HandPlay
from xuezhan.serve.limits import Limits, Pace, RoomError
from xuezhan.serve.locked import locked_seats
from xuezhan.serve.protocol import StateMsg, TableMsg
from xuezhan.serve.seating import Seat, Seating
from xuezhan.serve.standings import Standings
from xuezhan.serve.sweeping import unseat_idle
from xuezhan.serve.views import PublicViews, state_for, table_msg

__all__ = ["Table"]

_log = logging.getLogger("xuezhan.serve")


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
        #: The shortest decision time limit of this table's rules (R10.1, R10.2) and its claim
        #: window (:mod:`.claim_window`, when on): a bot's bound.
        limit = min(self.rules.turn_timeout, self.rules.claim_timeout)
        if self.pace.claim_window > 0:
            limit = min(limit, self.pace.claim_window)
        self.seating = Seating(self.id, self.bots, limit, self.server_searching)
        self.audience = Audience()
        self.views = PublicViews()
        self.scores = [0, 0, 0, 0]
        self.hand_no = 0  # hands finished in this match
        self.dealer: int | None = None  # R9.1: drawn from the first hand's seed
        self.status = "waiting"
        self.hand: HandPlay | None = None  # the hand in play, or the last one
        self.rnd_no = 0  # the hand number of ``hand`` (hand_no moves on when it ends)
        self.seed: int | None = None  # the current hand's seed: secret until the hand is over
        self.commitment: str | None = None  # its hash, shown to everyone from the deal on
        self.booked = False  # the current hand is over and in the standings (or has none)
        self.last_replay: str | None = None  # the replay id of the last finished hand
        self.timeouts = [0, 0, 0, 0]
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self.played = 0  # hands started at this table, across matches

    # ------------------------------------------------------------------ the parts, read
    @property
    def seats(self) -> list[Seat]:
        return self.seating.seats

    @property
    def host_token(self) -> str:
        return self.seating.host_token

    @property
    def clients(self) -> set[Client]:
        return self.audience.clients

    @property
    def idle_since(self) -> float | None:
        return self.audience.idle_since

    @property
    def rnd(self) -> Round | None:
        """The hand in play, or the last one (None before the first)."""
        return self.hand.rnd if self.hand is not None else None

    @property
    def decision(self) -> Decision | None:
        """The decision the hand waits for (None: none, or no hand)."""
        return self.hand.decision if self.hand is not None else None

    @property
    def searching(self) -> int:
        """This table's seats held by a searching bot (each counts against the server's cap)."""
        return self.seating.searching

    # ------------------------------------------------------------------ lifecycle
    def start_task(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.run(), name=f"table-{self.id}")

    async def close(self) -> None:
        self.audience.close()
        if self._task is not None:
            self._task.cancel()
            # its own failure was logged by run(); a cancelled task is what we asked for
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        self.close_bots()

    def close_bots(self) -> None:
        """Close every seat's bot (external bots end their processes)."""
        self.seating.close_bots()

    # ------------------------------------------------------------------ what people see
    def table_msg(self) -> TableMsg:
        return table_msg(self)

    def state_for(self, client: Client) -> StateMsg:
        """The state message for one connection: only the seat it sees, never more."""
        return state_for(self, client)

    def touch(self, table: bool = False) -> None:
        """Something changed: queue a fresh state (and table) message for every connection."""
        self.audience.touch(table)

    def touch_seat(self, seat: int) -> None:
        """Something changed in ``seat``'s own view only (its claim question, :mod:`.claim_window`):
        a fresh state for the connections that see that seat's tiles, and for nobody else."""
        shown = self.seating.shown(seat)
        for c in self.clients:
            if c.sees == seat and (shown or self.holds(c) == seat):
                c.mark_state()

    # ------------------------------------------------------------------ requests
    def holds(self, client: Client) -> int | None:
        """The seat ``client`` holds now, or None (a spectator, or a seat taken over)."""
        return self.seating.holds(client)

    def join(self, client: Client) -> None:
        self.audience.join(client)
        self.audience.touch_table_soon()

    def leave(self, client: Client) -> None:
        self.audience.leave(client)
        seat = self.seating.left(client)
        if seat is not None:
            if self.hand is not None:
                self.hand.person_left(seat)  # nothing is played for a person who left (R8 decides)
            self._wake.set()
            self.touch(table=True)
        else:
            self.audience.touch_table_soon()

    def _between_hands(self) -> bool:
        return self.hand is None or (self.hand.rnd.over and self.booked)

    def sit(self, client: Client, seat: int, name: str, player_id: int | None = None) -> str:
        token = self.seating.sit(client, seat, name, player_id)
        self._wake.set()
        return token  # the caller sends the welcome, then touches (welcome first)

    def resume(self, client: Client, token: str) -> int:
        seat = self.seating.resume(client, token)
        self._wake.set()
        return seat  # the caller sends the welcome, then touches

    def claim_host(self, client: Client, token: str) -> None:
        self.seating.claim_host(client, token)

    def seat_bot(self, client: Client | None, seat: int, strategy: str) -> None:
        """Seat a bot: in an empty seat the host or a seated person may; a bot is replaced by
        the host only (``client`` None: the server itself, when the table is opened)."""
        if not self._between_hands():
            raise RoomError("seats change between hands only")
        self.seating.seat_bot(client, seat, strategy, self.status == "over")
        self._wake.set()
        self.touch(table=True)

    def stand(self, client: Client, seat: int) -> None:
        if not self._between_hands():
            raise RoomError("seats change between hands only (closing the page during a hand is an escape, R8)")
        self.seating.stand(client, seat)
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

    def show_hand(self, client: Client, allow: bool) -> None:
        """允许旁观看牌: the seated person lets spectators see its tiles, or stops; at once."""
        self.seating.show_hand(client, allow)
        self.touch(table=True)

    def select(self, client: Client, tile: str | None) -> None:
        seat = self.holds(client)
        if seat is None:
            raise RoomError("a spectator cannot act")
        if self.hand is not None:
            self.hand.select(seat, tile)

    def act(self, client: Client, text: str) -> None:
        seat = self.holds(client)
        if seat is None:
            raise RoomError("a spectator cannot act")
        if self.hand is None:
            raise RoomError(f"seat {seat} has no decision to make now")
        self.hand.act(seat, text)

    # ------------------------------------------------------------------ the match
    def _ready(self) -> bool:
        return self.seating.ready(self.status == "over")

    def _free_searching(self) -> None:
        if self.seating.free_searching():
            self.touch(table=True)

    async def _wait_ready(self) -> None:
        people = any(s.kind == "person" and s.connected for s in self.seats)
        if self.hand_no and not people and self.pace.between_hands > 0:
            await asyncio.sleep(self.pace.between_hands)
        while not self._ready():
            self._wake.clear()
            left, changed = unseat_idle(self.seating, self.limits.start_timeout, self.status == "over")
            if changed:
                self.touch(table=True)
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
            if self.hand is not None:
                self.hand.decision = None
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
            self.seating.hand_over()
            self.status = "over" if self.hand_no >= self.hands else "between"
            self.touch(table=True)

    async def _play_hand(self) -> None:
        self.seating.stand_ins()
        self.status = "playing"
        # R1.4: a fresh secret seed for each hand, committed to now and revealed at the end;
        # the first dealer of a match by R9.1 from it, the next by R9.2.
        seed = self.seeds()
        if self.dealer is None:
            self.dealer = first_dealer(seed)
        rnd = Round.from_seed(self.rules, seed, self.dealer, list(self.scores))
        self.seed, self.commitment, self.booked = seed, commitment(seed), False
        self.hand = HandPlay(
            rnd,
            self.seating,
            self.pace,
            self.timeouts,
            self.touch,
            self.search_pool,
            on_seat_change=self.touch_seat,
            snapshot=lambda: (locked_seats(rnd), self.views.aids_now(rnd)),
        )
        self.rnd_no = self.hand_no
        self.played += 1
        self.views.reset()
        self.touch(table=True)
        await self.hand.play()
        self.scores = [a + d for a, d in zip(self.scores, rnd.ledger.deltas, strict=True)]
        if rnd.ledger.next_dealer is not None:
            self.dealer = rnd.ledger.next_dealer  # R9.2

    async def _book(self) -> None:
        """Book the finished hand in the standings, off the event loop; then the hand shows as
        over, with its seed and replay id."""
        rnd = self.rnd
        assert rnd is not None and rnd.over and self.seed is not None and self.commitment is not None
        if self.ledger is not None:
            self.last_replay = await book_hand(
                self.ledger, self.name, rnd, self.seed, self.commitment, self.seats, self.id
            )
        self.booked = True
        self.touch(table=True)
