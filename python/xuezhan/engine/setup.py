"""Before the first turn: the deal (R1.2, R1.4), the exchange (换三张, R11.1) and the void
declaration (定缺, R11.2).

The choices are made by seats 0 to 3 in order, one decision each; the exchanged tiles pass all
at once after the fourth choice, and the voids are revealed together after the fourth
declaration. The functions update the parts of the hand they concern (the pending decision,
:class:`~xuezhan.engine.turn.Turn`; the seats' tiles and voids,
:class:`~xuezhan.engine.seats.Seats`; the events, :class:`~xuezhan.engine.ledger.Ledger`); the
round engine calls them and moves on to the first turn when they report that the step is
complete.

    >>> hands, wall, direction = deal(7, dealer=2)
    >>> [len(h) for h in hands], len(wall), direction in DIRECTIONS
    ([13, 13, 14, 13], 55, True)
    >>> default_void(bytearray(27), 0)  # no tiles at all: the first suit on a tie (R11.2)
    Action(seat=0, verb='void', arg=0)
"""

from __future__ import annotations

from collections.abc import Sequence

from xuezhan._core import shuffled_tiles as _shuffled_tiles
from xuezhan.engine import fired as F
from xuezhan.engine.actions import EXCHANGE, TILE_STR, Action, IllegalAction, act
from xuezhan.engine.events import Exchange, Exchanged, Received, Void, Voids
from xuezhan.engine.ledger import Ledger
from xuezhan.engine.legal import exchange_actions, exchange_reason, void_actions
from xuezhan.engine.seats import Seats
from xuezhan.engine.seeds import random_key
from xuezhan.engine.turn import Phase, Turn

__all__ = [
    "DIRECTIONS",
    "apply_exchange",
    "apply_void",
    "begin_exchange",
    "begin_void",
    "check_deal",
    "check_dealer",
    "check_kinds",
    "deal",
    "default_exchange",
    "default_void",
]

#: R11.1 exchange directions and the seat offset each passes to.
DIRECTIONS = {"next": 1, "prev": 3, "across": 2}
_TILE = TILE_STR
_SUIT = "mps"
#: The counts of the whole set (R1.1): four of each of the 27 kinds.
FULL_SET = bytes([4] * 27)
_DIRECTION_NAMES = ("next", "prev", "across")  # randrange(3) of the deal's generator
_SUIT_SLICES = ((0, 9), (9, 18), (18, 27))


def deal(seed: int, dealer: int) -> tuple[list[list[int]], list[int], str]:
    """R1.2/R1.4: shuffle the 108 tiles with ``random.Random(seed)`` (Mersenne Twister, the same
    on every platform): the tiles are ordered by 108 successive ``random()`` draws (a uniformly
    random permutation; ties, of probability ~2^-40, keep the tile order). The dealer gets the
    first 14, the others 13 each in turn order from the dealer; the rest is the wall, in order.
    The exchange direction (R11.1) is the next draw of the same generator, with equal odds.

    The generator runs in the core (``_core.shuffled_tiles``, bit for bit Python's ``random``:
    the tests compare the two over thousands of seeds); ``seed`` is any integer."""
    tiles_b, d = _shuffled_tiles(random_key(seed))
    tiles = list(tiles_b)
    hands: list[list[int]] = [[], [], [], []]
    pos = 0
    for i in range(4):
        s = (dealer + i) % 4
        n = 14 if i == 0 else 13
        hands[s] = tiles[pos : pos + n]
        pos += n
    return hands, tiles[pos:], _DIRECTION_NAMES[d]


def check_dealer(dealer: int) -> None:
    """A clear :class:`ValueError` unless ``dealer`` is a seat."""
    if not isinstance(dealer, int) or not 0 <= dealer < 4:
        raise ValueError(f"dealer {dealer!r} is not a seat (0-3)")


def check_deal(hands: Sequence[Sequence[int]], wall: Sequence[int], dealer: int) -> None:
    """A clear :class:`ValueError` unless the hands and wall are a deal (R1.1, R1.2)."""
    check_dealer(dealer)
    if len(hands) != 4:
        raise ValueError(f"a hand has four players, got {len(hands)} hands (R1.2)")
    for s, h in enumerate(hands):
        n = 14 if s == dealer else 13
        if len(h) != n:
            who = "the dealer" if s == dealer else f"seat {s}"
            raise ValueError(f"hand of seat {s} has {len(h)} tiles: {who} gets {n} (R1.2)")
    for i, ks in enumerate((*hands, wall)):  # the message is built only for a bad one
        try:
            ok = not ks or (min(ks) >= 0 and max(ks) < 27)
        except TypeError:
            ok = False
        if not ok:
            what = f"hand of seat {i}" if i < 4 else "wall"
            raise ValueError(f"the {what} holds something that is not a tile kind 0-26: {list(ks)!r}")


def check_kinds(dealt: bytes) -> None:
    """A clear :class:`ValueError` if the dealt tiles hold more than four of a kind (R1.1)."""
    if max(dealt) > 4:
        k = next(k for k in range(27) if dealt[k] > 4)
        raise ValueError(f"the hands and wall hold {dealt[k]} × {_TILE[k]}: there are only four (R1.1)")


# --------------------------------------------------------------------------- R11.1 exchange
def begin_exchange(turn: Turn, seats: Seats) -> None:
    turn.ask(Phase.EXCHANGE, 0, exchange_actions(0, seats.counts[0]))


def apply_exchange(
    turn: Turn, seats: Seats, ledger: Ledger, direction: str | None, action: Action, default: bool
) -> bool:
    """Record ``action`` (an exchange of the seat to choose); after the fourth choice the tiles
    pass all at once in ``direction`` (R11.1). True when the exchange is complete. The three
    tiles may be given in any order; anything else raises :class:`IllegalAction` with nothing
    changed."""
    seat = action.seat
    counts = seats.counts
    if action not in turn.legal:
        arg = action.arg
        if isinstance(arg, tuple) and len(arg) == 3 and all(type(k) is int for k in arg):
            a, b, c = sorted(arg)
            action = Action(seat, action.verb, (a, b, c))
        if action not in turn.legal:
            legal = ", ".join(str(a) for a in turn.legal)
            raise IllegalAction(action, f"{exchange_reason(action, counts[seat])}; legal: {legal}")
    tiles: tuple[int, int, int] = action.arg  # type: ignore[assignment]
    if default:
        ledger.defaults_used += 1
    turn.x_choice[seat] = tiles
    ledger.record(Exchange(seat, _TILE[tiles[0]] + _TILE[tiles[1]] + _TILE[tiles[2]], default))
    if seat < 3:
        turn.cur = seat + 1
        turn.legal = exchange_actions(seat + 1, counts[seat + 1])
        return False
    off = DIRECTIONS[direction]  # type: ignore[index]
    chosen: list[tuple[int, int, int]] = turn.x_choice  # type: ignore[assignment]
    for s in range(4):
        for k in chosen[s]:
            counts[s][k] -= 1
    for s in range(4):
        for k in chosen[s]:
            counts[(s + off) & 3][k] += 1
    ledger.record(Exchanged(direction))  # type: ignore[arg-type]
    for s in range(4):
        ledger.record(Received(s, "".join(_TILE[k] for k in chosen[(s - off) & 3])))
    ledger.fire(F.EXCHANGE)
    return True


def default_exchange(counts: bytearray, seat: int) -> Action:
    """R11.1 default (R10): the three highest tiles of the suit it holds fewest of, among suits
    with at least three."""
    n = [sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27])]
    s = min((i for i in range(3) if n[i] >= 3), key=lambda i: (n[i], i))
    tiles: list[int] = []
    for k in range(s * 9 + 8, s * 9 - 1, -1):
        tiles.extend([k] * counts[k])
    return act(seat, EXCHANGE, tuple(tiles[:3]))


# --------------------------------------------------------------------------- R11.2 void
def begin_void(turn: Turn) -> None:
    turn.ask(Phase.VOID, 0, void_actions(0))


def apply_void(turn: Turn, seats: Seats, ledger: Ledger, seat: int, suit: int, default: bool) -> bool:
    """Record a legal void choice; after the fourth the voids are revealed together (R11.2).
    True when the declaration is complete."""
    turn.v_choice[seat] = suit
    ledger.record(Void(seat, _SUIT[suit], default))
    if seat < 3:
        turn.cur = seat + 1
        turn.legal = void_actions(seat + 1)
        return False
    seats.set_voids(turn.v_choice)
    ledger.record(Voids([_SUIT[v] for v in seats.void]))
    ledger.fire(F.VOID)
    return True


def default_void(counts: bytearray, seat: int) -> Action:
    """R11.2 default (R10): the suit it holds fewest of (the first in m, p, s order on a tie)."""
    n = [sum(counts[a:b]) for a, b in _SUIT_SLICES]
    return void_actions(seat)[n.index(min(n))]
