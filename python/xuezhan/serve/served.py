"""What the room's endpoints share: the one :class:`Served` of an app, kept in
``app.state.served`` by :func:`~xuezhan.serve.app.create_app` and read by every endpoint with
:func:`served` (``request.app.state``), so each endpoint is a module-level function that can
be imported and tested on its own with any app that holds one."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from starlette.requests import HTTPConnection

from xuezhan.serve.lobby import Room
from xuezhan.serve.review_jobs import Reviews

__all__ = ["Served", "served"]


@dataclass
class Served:
    """The room (its tables, bots, limits and standings), the hand logs the replay page
    offers, the reviews, and the bound on logs replayed at once (each in a thread)."""

    room: Room
    logs: list[Path] = field(default_factory=list)
    reviews: Reviews = field(default_factory=Reviews)
    replays: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(2))


def served(conn: HTTPConnection) -> Served:
    """The :class:`Served` of the app that received ``conn`` (a request or a websocket)."""
    state = conn.app.state.served
    assert isinstance(state, Served), "the app was not made by create_app"
    return state
