"""Hands for the reviewer's tests: seat 0 (the dealer) is dealt a pure-suit seven-pairs hand
waiting on 7m alone (清七对, worth the leshan cap), the other seats no 7m; greedy bots play every
seat through the engine, except at the one decision where seat 0 throws the win away: it draws
7m and discards it instead of declaring the win (``"turn"``), or passes the 7m another seat
discards (``"claim"``)."""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass

from xuezhan.engine import Round
from xuezhan.engine.actions import DISCARD, HU, PASS
from xuezhan.engine.events import Win
from xuezhan.strategies import GreedyStrategy
from xuezhan.tiles import TILE_STR, parse_tiles

#: Seat 0's 14 tiles: it throws 9p first, then waits on 7m alone.
SEAT0 = "1122334455667m9p"
_SEVEN_M = TILE_STR.index("7m")


@dataclass(frozen=True)
class Slip:
    """A finished hand and its mistake: the mistaken decision's event index, the action played
    there (without the seat) and the points the win it threw away was worth."""

    rnd: Round
    event: int
    played: str
    win_points: int


def deal(phase: str, shuffle_seed: int = 1) -> tuple[list[list[int]], list[int]]:
    """The four hands and the wall. Seats 1-3 hold no character (m) tile, and the wall's first
    twelve tiles hold one, 7m: seat 0's first draw (wall position 3) for ``"turn"``, seat 1's
    (position 0) for ``"claim"``; so nothing tempts seat 0 to break its hand before that
    decision. The other characters, the last two 7m among them, lie deeper in the wall."""
    rest = [k for k in range(27) for _ in range(4)]
    for k in parse_tiles(SEAT0):
        rest.remove(k)
    rng = random.Random(shuffle_seed)
    chars = [k for k in rest if k < 9]
    others = [k for k in rest if k >= 9]
    chars.remove(_SEVEN_M)
    rng.shuffle(chars)
    rng.shuffle(others)
    hands = [parse_tiles(SEAT0), others[:13], others[13:26], others[26:39]]
    early = others[39:]
    early.insert(3 if phase == "turn" else 0, _SEVEN_M)
    tail = early[12:] + chars
    rng.shuffle(tail)
    return hands, early[:12] + tail


def _win_points(rnd: Round, seat: int) -> int:
    """What declaring the win now is worth to ``seat`` (the points of its win event)."""
    trial = copy.deepcopy(rnd)
    n = len(trial.ledger.events)
    trial.apply(f"{seat} hu")
    return sum(e.points for e in trial.ledger.events[n:] if isinstance(e, Win) and e.seat == seat)


def _played(phase: str, preset: str, shuffle_seed: int) -> Slip | None:
    hands, wall = deal(phase, shuffle_seed)
    rnd = Round(preset, hands, wall, dealer=0)
    bots = [GreedyStrategy() for _ in range(4)]
    for s, b in enumerate(bots):
        b.reset(s, rnd.rules)
    slip: tuple[int, str, int] | None = None
    while not rnd.over:
        s = rnd.turn.cur
        assert s is not None
        obs = rnd.observation(s)
        legal = obs.legal_actions
        if slip is None and s == 0 and any(a.verb == HU for a in legal):
            if obs.phase != phase:
                return None  # a claim moved the draws: seat 0's first chance is of the other kind
            if phase == "turn":
                bad = next(a for a in legal if a.verb == DISCARD and a.arg == obs.drawn)
            else:
                bad = next(a for a in legal if a.verb == PASS)
            slip = (len(rnd.ledger.events), str(bad).split(" ", 1)[1], _win_points(rnd, s))
            rnd.apply(bad)
            continue
        rnd.apply(bots[s].act(obs))
    return None if slip is None else Slip(rnd, *slip)


def slipped_hand(phase: str, preset: str = "leshan") -> Slip:
    """A hand of :func:`deal` played by four greedy bots, except that at seat 0's first chance
    to win, in ``phase``, it discards the tile it drew (``"turn"``) or passes (``"claim"``): the
    first shuffle (seed 1, 2, ...) where that first chance is of that kind."""
    for shuffle_seed in range(1, 50):
        found = _played(phase, preset, shuffle_seed)
        if found is not None:
            return found
    raise AssertionError(f"no deal gives seat 0 its first win in a {phase}")
