"""What each connection of a table is sent: the table as everyone sees it (:func:`table_msg`)
and one seat's view of the hand (:func:`state_for`).

Everything a connection receives is built here for the one seat it sees (:attr:`Client.sees`),
never more: a player gets its own ``Round.observation(seat)`` and ``public_view(event, seat)``.
A spectator gets the same only when the seat it watches is shown to spectators
(:meth:`~xuezhan.serve.seating.Seating.shown`: a person who allows it, 允许旁观看牌; a bot where
no person plays); otherwise the private by default view (:func:`hidden_view`): what everyone
at the table may see, the seat's concealed tiles, its draws, its void choice and whether it is
asked about a claim hidden. Every hand is revealed once it is over (``reveal``).
"""

from __future__ import annotations

import bisect
import time
from typing import TYPE_CHECKING

from xuezhan.engine import Round, public_view
from xuezhan.serve.aids import seat_aids
from xuezhan.serve.connections import Client
from xuezhan.serve.locked import locked_seats
from xuezhan.serve.protocol import Aids, Clock, HandSummary, StateMsg, TableMsg
from xuezhan.serve.reveal import revealed_hands
from xuezhan.serve.summary import hand_summary
from xuezhan.serve.words import seat_labels, settlement_lines
from xuezhan.tiles import TILE_STR as _TILE

if TYPE_CHECKING:
    from xuezhan.serve.tables import Table

__all__ = ["NOBODY", "PublicViews", "hidden_view", "state_for", "table_msg"]


#: The index of the views everyone may see (no seat's private fields) in :class:`PublicViews`.
NOBODY = 4


class PublicViews:
    """The public views of one hand's events for each seat, and for nobody (:data:`NOBODY`),
    built once per event and seat (every connection watching a seat is sent the same list)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """A new hand."""
        self._views: list[list[dict]] = [[], [], [], [], []]
        self._at: list[list[int]] = [[], [], [], [], []]  # each view's event index
        self._viewed = [0, 0, 0, 0, 0]
        self._aids: dict[int, tuple[int, Aids]] = {}
        self._summary: HandSummary | None = None

    def aids_now(self, rnd: Round) -> list[Aids | None]:
        """Each seat's aids as made for the hand's present moment (None: not made for anyone)."""
        n = len(rnd.ledger.events)
        got = [self._aids.get(s) for s in range(4)]
        return [g[1] if g is not None and g[0] == n else None for g in got]

    def upto(self, rnd: Round, seat: int, events: int) -> list[dict]:
        """:meth:`of`, only the views of the hand's first ``events`` events."""
        views = self.of(rnd, seat)
        return views[: bisect.bisect_left(self._at[seat], events)]

    def aids(self, rnd: Round, seat: int) -> Aids:
        """``seat``'s aids (:func:`~xuezhan.serve.aids.seat_aids`), once per event and seat."""
        n = len(rnd.ledger.events)
        got = self._aids.get(seat)
        if got is None or got[0] != n:
            got = self._aids[seat] = (n, seat_aids(rnd, seat))
        return got[1]

    def summary(self, rnd: Round, names: list[str]) -> HandSummary:
        """The finished hand's grid and payments (the same for every seat: all public)."""
        if self._summary is None:
            self._summary = hand_summary(self.of(rnd, NOBODY), names)
        return self._summary

    def of(self, rnd: Round, seat: int) -> list[dict]:
        """The public views of ``rnd``'s events for ``seat`` (:data:`NOBODY`: what everyone may
        see) so far: the single outward filter."""
        views = self._views[seat]
        at = self._at[seat]
        events = rnd.ledger.events
        for i in range(self._viewed[seat], len(events)):
            v = public_view(events[i], seat)
            if v is not None:
                views.append(v)
                at.append(i)
        self._viewed[seat] = len(events)
        return views


def hidden_view(view: dict, public: list[dict]) -> dict:
    """A seat's view (an observation's dict without legal actions) as a spectator sees it when
    the seat's tiles are not shown: without its concealed tiles, its drawn tile, its own void
    choice before all four are revealed (``public`` holds the ``voids`` event then, R11.2), and
    the claim it is asked about (to everyone else the hand is between turns, as after any
    discard)."""
    view = dict(view, hand="", drawn=None)
    if view["phase"] == "claim":
        view["phase"] = "turn"
        view["claim_tile"], view["claim_from"], view["robbing"] = None, None, False
    if not any(e["type"] == "voids" for e in public):
        view["voids"] = [None] * 4
    return view


def table_msg(table: Table) -> TableMsg:
    """The table as everyone may see it: seats, scores, rules preset, match progress."""
    return TableMsg(
        id=table.id,
        name=table.name,
        preset=table.rules.preset,
        hands=table.hands,
        hand_no=table.hand_no,
        status=table.status,  # type: ignore[arg-type]
        seats=[s.info(table.seating.shown(s.index)) for s in table.seats],
        scores=list(table.scores),
        turn_timeout=table.rules.turn_timeout,
        claim_timeout=table.rules.claim_timeout,
        spectators=table.audience.spectators,
    )


def state_for(table: Table, client: Client) -> StateMsg:
    """The state message for one connection: only the seat it sees, never more."""
    seat = client.sees
    role = "player" if client.seat == seat and table.seats[seat].holder is client else "spectator"
    hand = table.hand
    if hand is None:
        return StateMsg(seat=seat, role=role, hand_no=table.hand_no)  # type: ignore[arg-type]
    rnd = hand.rnd
    hidden = role != "player" and not table.seating.shown(seat)
    key = NOBODY if hidden else seat
    d = hand.decision
    # While a claim window is open, a connection not shown the seat being asked sees the hand as
    # it was right after the discard (:mod:`.claim_window`): whoever is asked or not, the same.
    frozen = hand.frozen
    if frozen is not None and d is not None and d.kind == "claim" and d.seat == seat and not hidden:
        frozen = None  # the seat asked (or a spectator it lets see its tiles): the question
    views = table.views.of(rnd, key) if frozen is None else table.views.upto(rnd, key, frozen.events)
    reset = client.hand_no != table.rnd_no or client.view_seat != seat or client.view_hidden != hidden
    if reset or client.sent > len(views):  # a connection that saw the question sees the window again
        reset = True
        client.hand_no, client.view_seat, client.view_hidden, client.sent = table.rnd_no, seat, hidden, 0
    start = client.sent
    client.sent = len(views)
    legal: list[str] = []
    if frozen is not None:
        view = frozen.views[seat]
        if hidden:
            view = hidden_view(view, views)
    else:
        view = rnd.observation(seat).to_dict()
        actions = view.pop("legal_actions")
        if hidden:
            view = hidden_view(view, views)
        elif role == "player" and view["phase"] != "exchange":  # exchange choices are free-form (R11.1)
            legal = [a.split(" ", 1)[1] for a in actions]
    clock = None
    if frozen is None and d is not None and (d.kind != "claim" or (d.seat == seat and not hidden)):
        # Who is asked about a claim is that seat's business only (it would tell its tiles).
        clock = Clock(
            seat=d.seat,
            kind=d.kind,  # type: ignore[arg-type]
            remaining_ms=max(0, int((d.deadline - time.monotonic()) * 1000)),
            total_ms=int(d.total * 1000),
        )
    sel = hand.selected[seat] if role == "player" else None
    forced = forced_ms = None
    if frozen is None and role == "player" and d is not None and d.seat == seat and d.auto is not None:
        forced = str(d.auto).split(" ", 1)[1]
        forced_ms = max(0, int((d.auto_at - time.monotonic()) * 1000))
    names = seat_labels([s.name for s in table.seats], rnd.dealer)
    over = rnd.over and table.booked and frozen is None
    if frozen is not None:
        aids = None if hidden else frozen.aids[seat]
    else:
        aids = None if hidden or over else table.views.aids(rnd, seat)
    return StateMsg(
        seat=seat,
        role=role,  # type: ignore[arg-type]
        hidden=hidden,
        hand_no=table.rnd_no,
        view=view,
        legal=legal,
        selected=_TILE[sel] if sel is not None else None,
        clock=clock,
        events_from=start,
        reset=reset,
        events=views[start:],
        settlement=settlement_lines(views, names) if over else [],
        names=names,
        meld_from=[list(m) for m in rnd.seats.meld_from] if frozen is None else frozen.meld_from,
        locked=locked_seats(rnd) if frozen is None else frozen.locked,
        forced=forced,
        forced_ms=forced_ms,
        reveal=revealed_hands(rnd, names) if over else [],  # never before the end
        summary=table.views.summary(rnd, names) if over else None,
        aids=aids,
        over=over,
        replay_id=table.last_replay if over else None,
        commitment=table.commitment,
        seed=str(table.seed) if over else None,  # revealed only once the hand is over
        server_ms=time.time() * 1000.0,
    )
