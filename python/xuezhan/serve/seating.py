"""The four seats of a table and who holds them: people with their secret tokens, bots, the
table's host, and the server-wide cap on searching seats.

A person's seat has a token; the seat is held by one connection at a time (resuming with the
token moves it, standing up voids it), and only that connection receives the seat's legal
actions or may act, press Start or select. Only the table's host (whoever opened it, proven by
the host token) or a seat's occupant changes a seat.

Searching bots (``search``, docs/search.md) are a server-wide resource: at most
``BotCatalog.search_seats`` at once over all tables; one more is refused with a message naming
the cap, and a table that does not play holds none for long (:mod:`xuezhan.serve.sweeping`).

:class:`Seating` changes seats only; whether a change is allowed now (between hands) is the
table's call (:class:`~xuezhan.serve.tables.Table`).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xuezhan.serve.bots import STAND_IN, BotCatalog
from xuezhan.serve.connections import Client
from xuezhan.serve.limits import RoomError
from xuezhan.serve.protocol import ErrorMsg, SeatInfo, WelcomeMsg

__all__ = ["Seat", "Seating", "close_bot"]


def close_bot(strategy: Any) -> None:
    """Close a bot that holds something (an external bot's process)."""
    close = getattr(strategy, "close", None)
    if callable(close):
        close()


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
    #: The person's player id in the standings (None: a guest, whose points are not kept).
    player_id: int | None = None
    #: 允许旁观看牌: the person lets spectators see its concealed tiles during play (off by default).
    shows_hand: bool = False

    @property
    def connected(self) -> bool:
        return self.kind != "person" or self.holder is not None

    def info(self, shown: bool = False) -> SeatInfo:
        return SeatInfo(
            seat=self.index,
            kind=self.kind,  # type: ignore[arg-type]
            name=self.name,
            connected=self.connected,
            started=self.started,
            stand_in=self.kind == "person" and self.strategy is not None,
            shown=shown,
        )


class Seating:
    """The seats of one table, their tokens and holders, and the table's host token.

    ``decision_limit`` bounds each bot's decisions (the shortest R10 limit of the table's rules);
    ``server_searching`` counts the searching seats of the whole server (None: this table's own).
    """

    def __init__(
        self,
        table_id: str,
        bots: BotCatalog,
        decision_limit: float,
        server_searching: Callable[[], int] | None = None,
    ) -> None:
        self.table_id = table_id
        self.bots = bots
        self.decision_limit = decision_limit
        self.server_searching = server_searching
        self.seats = [Seat(i) for i in range(4)]
        #: Whoever holds this token is the table's host (it opened the table).
        self.host_token = secrets.token_urlsafe(16)

    # ------------------------------------------------------------------ who holds what
    def holds(self, client: Client) -> int | None:
        """The seat ``client`` holds now, or None (a spectator, or a seat taken over)."""
        seat = client.seat
        if seat is not None and self.seats[seat].holder is client:
            return seat
        return None

    def may_change(self, client: Client, seat: int) -> bool:
        return client.host or self.holds(client) == seat

    def shown(self, seat: int) -> bool:
        """Whether spectators watching ``seat`` see its concealed tiles during play: a person's
        only when it allows it (允许旁观看牌); a bot's only at a table where no person plays (a
        person's rival's tiles are nobody's business, not even through a second tab)."""
        s = self.seats[seat]
        if s.kind == "person":
            return s.shows_hand
        return s.kind == "bot" and not self.people()

    def show_hand(self, client: Client, allow: bool) -> int:
        """The seated person of ``client`` allows spectators to see its tiles, or not; its seat."""
        seat = self.holds(client)
        if seat is None:
            raise RoomError("only a seated player chooses whether spectators see its tiles")
        self.seats[seat].shows_hand = allow
        return seat

    def people(self) -> bool:
        """Whether a person sits at the table (here or gone)."""
        return any(s.kind == "person" for s in self.seats)

    def _welcome(self, client: Client) -> str:
        """The welcome of a connection that holds no seat (any more)."""
        return WelcomeMsg(
            table=self.table_id, host=client.host, bots=self.bots.names, bot_labels=self.bots.labels
        ).model_dump_json()

    def unbind(self, seat: int, notice: str | None = None) -> None:
        """The seat's connection (if any) becomes a spectator of that seat."""
        s = self.seats[seat]
        c = s.holder
        s.holder = None
        if c is not None:
            c.seat, c.watch = None, seat
            if notice:
                c.send(ErrorMsg(message=notice).model_dump_json())
            c.send(self._welcome(c))
            c.mark_state()

    def vacate(self, seat: int, notice: str | None = None) -> None:
        """Empty a seat; a person's token stops working."""
        self.unbind(seat, notice)
        close_bot(self.seats[seat].strategy)
        self.seats[seat] = Seat(seat)

    def close_bots(self) -> None:
        """Close every seat's bot (external bots end their processes)."""
        for s in self.seats:
            close_bot(s.strategy)

    # ------------------------------------------------------------------ people
    def check_sit(self, client: Client, seat: int, name: str, player_id: int | None = None) -> None:
        """Refuse (:class:`RoomError`) a sit :meth:`sit` would refuse; changes nothing."""
        if self.holds(client) is not None:
            raise RoomError(f"you already sit in seat {client.seat}")
        if self.seats[seat].kind != "empty":
            raise RoomError(f"seat {seat} is taken")
        if player_id is not None and any(o.player_id == player_id for o in self.seats):
            raise RoomError(f"{name} already sits at this table")

    def sit(self, client: Client, seat: int, name: str, player_id: int | None = None) -> str:
        """Seat a person; its new token."""
        self.check_sit(client, seat, name, player_id)
        s = self.seats[seat]
        s.kind, s.name, s.token, s.player_id = "person", name, secrets.token_urlsafe(16), player_id
        s.holder, s.gone_since, s.started = client, None, False
        s.waiting_since = time.monotonic()
        client.seat = seat
        assert s.token is not None
        return s.token

    def unsit(self, seat: int, token: str) -> None:
        """Undo the :meth:`sit` that gave ``token`` (the player it sat as could not be kept): the
        seat is empty again, as if nobody had sat."""
        s = self.seats[seat]
        if s.token == token:
            if s.holder is not None and s.holder.seat == seat:
                s.holder.seat = None
            self.seats[seat] = Seat(seat)

    def set_player(self, seat: int, token: str, player_id: int) -> None:
        """The person seated in ``seat`` with ``token`` is the player ``player_id`` (a name made
        once the seat was taken); :class:`RoomError` when that player sits here already."""
        s = self.seats[seat]
        if s.token != token:
            raise RoomError("the seat was freed before your name was kept")
        if any(o.player_id == player_id for o in self.seats if o.index != seat):
            raise RoomError(f"{s.name} already sits at this table")
        s.player_id = player_id

    def resume(self, client: Client, token: str) -> int:
        """Move the seat of ``token`` to ``client``; the seat."""
        for s in self.seats:
            if s.kind == "person" and s.token is not None and secrets.compare_digest(s.token, token):
                held = self.holds(client)
                if held is not None and held != s.index:
                    raise RoomError(f"you already sit in seat {held}")
                if s.holder is not None and s.holder is not client:
                    # one connection per seat: the newest wins (another tab, a reconnect)
                    self.unbind(s.index, "your seat was resumed by another connection; this one only watches now")
                s.holder = client
                client.seat = s.index
                s.gone_since = None
                return s.index
        raise RoomError("no seat at this table has that token")

    def left(self, client: Client) -> int | None:
        """``client`` is gone: the seat it held (now without a holder), or None."""
        seat = self.holds(client)
        if seat is not None:
            s = self.seats[seat]
            s.holder = None
            s.gone_since = time.monotonic()  # R8 if gone longer than the turn timer
            s.started = False
        return seat

    def claim_host(self, client: Client, token: str) -> None:
        if not secrets.compare_digest(self.host_token, token):
            raise RoomError("that is not this table's host token")
        client.host = True

    def stand(self, client: Client, seat: int) -> None:
        """Free a seat: one's own, or (the host) any."""
        s = self.seats[seat]
        if s.kind == "empty":
            raise RoomError(f"seat {seat} is empty")
        if not self.may_change(client, seat):
            who = f"{s.name}'s" if s.kind == "person" else f"the bot {s.name}'s"
            raise RoomError(f"seat {seat} is {who}: only its occupant or the table's host frees it")
        own = self.holds(client) == seat
        self.vacate(seat, None if own else "the table's host freed your seat")
        if own:
            client.send(self._welcome(client))

    def stand_ins(self) -> None:
        """Before a hand: a person who is gone gets a bot for it; one who is here plays."""
        for s in self.seats:
            if s.kind == "person":
                if not s.connected and s.strategy is None:
                    s.strategy = self.bots.build(STAND_IN, time_limit=self.decision_limit)
                elif s.connected and s.strategy is not None:
                    close_bot(s.strategy)
                    s.strategy = None

    # ------------------------------------------------------------------ bots
    def seat_bot(self, client: Client | None, seat: int, strategy: str, match_over: bool) -> None:
        """Seat a bot: in an empty seat the host or a seated person may; a bot is replaced by
        the host only (``client`` None: the server itself, when the table is opened)."""
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
            self._check_search_seat(s, strategy, match_over)
        bot = self.bots.build(strategy, time_limit=self.decision_limit)
        close_bot(s.strategy)
        s.kind, s.name, s.strategy, s.token, s.started = "bot", strategy, bot, None, False
        s.waiting_since = time.monotonic()  # a searching bot waits for a hand as long as a person

    @property
    def searching(self) -> int:
        """This table's seats held by a searching bot (each counts against the server's cap)."""
        return sum(1 for s in self.seats if s.kind == "bot" and self.bots.searches(s.name))

    def free_searching(self) -> bool:
        """The searching bots leave their seats (the match is over and nobody sits at the table,
        or the table stopped): their slots go back to the server. Whether any left."""
        freed = False
        for s in self.seats:
            if s.kind == "bot" and self.bots.searches(s.name):
                self.vacate(s.index)
                freed = True
        return freed

    def _check_search_seat(self, s: Seat, strategy: str, match_over: bool) -> None:
        """Refuse a searching bot the server has no seat for (:class:`RoomError`, naming the cap),
        or that would never play: at a table whose match is over and where nobody sits."""
        if match_over and not self.people():
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

    # ------------------------------------------------------------------ the next hand
    def ready(self, match_over: bool) -> bool:
        """Whether a hand can start: four seated, and every person here pressed Start (a new
        match needs a person's Start: a table of bots plays one match)."""
        if any(s.kind == "empty" for s in self.seats):
            return False
        here = [s for s in self.seats if s.kind == "person" and s.connected]
        if match_over and not here:
            return False
        return all(s.started for s in here)

    def hand_over(self) -> None:
        """A hand ended: everyone is waited for again (Start, or a searching bot's next hand)."""
        now = time.monotonic()
        for s in self.seats:
            s.started = False
            s.waiting_since = now
