"""The claim window: whom a discard's claims were asked of stays unknown to everyone else.

A seat is asked about a claim only when it could claim (it holds a pair or three of the tile,
or wins on it), so *that* it was asked, and how long it thought, would tell everyone what it
holds. At a table where a person plays, every discard (and every added kong that can be robbed,
R3.3) therefore opens a window of ``Pace.claim_window`` seconds, whether anyone is asked or not:

- right after the discard every connection is sent the hand as it is then: the tile in the
  discarder's river (out of its hand), nothing that the claims decide (:class:`Frozen`);
- while the window is open only a seat being asked, and spectators that seat lets see its
  tiles, are sent anything more (the question, with a clock that ends with the window); nobody
  else is sent a message, so the messages and their moments are the same whether anyone was
  asked or not;
- when the window closes, everyone is sent what followed: the next draw, or the claim taken.

A person asked has until the window closes (at most R10.2's ``claim_timeout``); passing early
does not close it. Bots answer inside it (a searching bot's budget is a quarter of the table's
shortest decision limit, the window included). At a table of bots only there is no window:
there every seat's tiles are shown to spectators anyway.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass

from xuezhan.engine import Round
from xuezhan.engine.actions import DISCARD, JIAGANG, Action
from xuezhan.engine.observation import Observation
from xuezhan.serve.protocol import Aids

__all__ = ["Frozen", "opens_window"]


def opens_window(rnd: Round, action: Action) -> bool:
    """Whether ``action`` may open claims of another seat (a discard, an added kong that can be
    robbed) while another seat is still in the hand: what public facts alone decide."""
    if action.verb == JIAGANG:
        if not rnd.rules.rob_kong:
            return False
    elif action.verb != DISCARD:
        return False
    return sum(1 for s, a in enumerate(rnd.seats.active) if a and s != action.seat) > 0


@dataclass
class Frozen:
    """What a connection that is not being asked sees while a claim window is open: each seat's
    view right after the discard (or added kong) and before anything the claims decide."""

    #: When the window closes (monotonic seconds).
    until: float
    #: The hand's events up to and including the one that opened the window.
    events: int
    #: Each seat's observation (no legal actions) at that moment.
    views: list[dict]
    meld_from: list[list[int | None]]
    locked: list[bool]
    #: Each seat's aids as they were (None: not made for anyone then).
    aids: list[Aids | None]

    @classmethod
    def before(cls, rnd: Round, action: Action, seconds: float, locked: list[bool], aids: list[Aids | None]) -> Frozen:
        """The picture of the moment after ``action`` (a discard or an added kong of the seat
        on turn), taken before it is applied: the engine applies it together with what follows
        when nobody can claim (the next draw), so the moment between is built here. A discard
        leaves the discarder's hand for its river; an added kong changes nothing until no one
        robs it (R3.3). Either way the actor's drawn tile is no longer its turn's."""
        seat = action.seat
        views = []
        for s in range(4):
            obs = copy.copy(rnd.observation(s))
            obs.legal_actions = ()
            obs.discard_mask = 0
            if s == seat:
                obs.drawn = -1
            if action.verb == DISCARD:
                t = action.arg
                assert isinstance(t, int)
                if s == seat:
                    hand = bytearray(obs.hand)
                    hand[t] -= 1
                    obs.hand = bytes(hand)
                river = list(obs.discards)
                river[seat] = (*river[seat], t)
                obs.discards = tuple(river)
            views.append(_view(obs))
        return cls(
            time.monotonic() + seconds,
            len(rnd.ledger.events) + 1,
            views,
            [list(m) for m in rnd.seats.meld_from],
            list(locked),
            list(aids),
        )


def _view(obs: Observation) -> dict:
    view = obs.to_dict()
    del view["legal_actions"]
    return view
