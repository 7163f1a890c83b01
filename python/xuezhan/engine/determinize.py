"""Determinization: a round consistent with what one seat knows, for search (sampling the
hidden information, then playing the hand forward through the engine itself).

:func:`determinize` builds a new :class:`~xuezhan.engine.round.Round` field by field from a
whitelist: what every seat sees (discard piles, melds, tiles set aside, wins, voids once
revealed, scores and payments so far, kong records, who has drawn, the turn and the claim
being asked), what the seat itself knows (its concealed tiles, the tile it drew, its own
exchange and void choices, its own pass-win lock), and samples for the rest:

- the other seats' concealed tiles, each seat keeping its (public) number of tiles, and the
  order of the wall, drawn uniformly from the tiles the seat cannot see, under the constraints
  its history gives:

  * a seat that declared a void suit (R11.2) and whose last discard since was of another suit
    holds no tile of its void suit (it would have had to discard one);
  * the seat that received this seat's three exchanged tiles (R11.1) still holds those it has
    not discarded or melded since;
  * a seat that has declared a peng or kong on the tile being claimed holds two or three of
    it, and a seat adding a kong that may be robbed (R3.3) still holds the tile it adds;
  * a winner that stays in the hand (R14) holds a locked hand that waits on every tile it has
    won (found by a depth-first search over a pair and sets around one of its winning tiles,
    then checked; several winners are dealt together, each given its next hand when it leaves
    the others none);

  The draw is uniform seat by seat; when two seats barred from different suits would be
  stranded by it, they are dealt tile by tile among the suits that keep a deal possible (so
  such samples are consistent, not exactly uniform).

- during the exchange, the direction (not shown before the tiles pass) and the choices of the
  seats that chose before; during the void declaration, the hidden choices already made (each
  the R10 default on the sampled hand);
- the other seats' pass-win locks (R4.3: a pass is private) are 0.

Optional priors, for a searcher (:func:`determinize`'s ``pick``, ``ready``, ``read_discards``):
the readiest of several draws of the other hands; ready hands dealt at a given rate; ready
hands shaped by each seat's public discards (without the suit it seems to clear, waiting on a
tile it has not thrown). They change which consistent samples are likely, never what a sample
is consistent with.

Never copied: the seed, the dealt hands, the events, the other seats' tiles or choices. A test
changes the hidden information of a real round and checks that the determinization with the
same generator does not change, and that the seat's observation of every sample equals its
observation of the real round.

Not used (documented approximations): what a seat's not claiming says about its hand (a pass
is private; in the last-tiles phase, R4.4, a discard not won tells that nobody waited on it).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from xuezhan.engine import _core_adapter as core
from xuezhan.engine.events import Discard, Voids
from xuezhan.engine.ledger import KongRecord, Ledger
from xuezhan.engine.observation import Observation
from xuezhan.engine.round import Round
from xuezhan.engine.seats import Seats
from xuezhan.engine.setup import DIRECTIONS, default_exchange, default_void
from xuezhan.engine.turn import ClaimWindow, Phase, Turn
from xuezhan.engine.wall import Wall
from xuezhan.tiles import meld_kind, meld_size, meld_suits, tile_kind

__all__ = ["DeterminizeError", "determinize"]

#: Tries of a sample of the other seats' tiles before :class:`DeterminizeError`.
_TRIES = 40
#: Tries with ready hands (``ready``) before the uniform deal alone. A try fails when the ready
#: hands asked for leave no deal (late in the wall three of them rarely fit in the few unseen
#: tiles); each new try draws the seats and their waits again.
_READY_TRIES = 8


class DeterminizeError(RuntimeError):
    """No consistent sample was found: only possible when the bounded search for locked
    winners' hands (R14) runs out of steps, which the tests' positions never make it do."""


def determinize(
    rnd: Round, seat: int, rng: random.Random, *, pick: int = 1, ready: float = 0.0, read_discards: bool = False
) -> Round:
    """A round consistent with ``seat``'s knowledge of ``rnd`` (see the module docstring),
    ready to be played on from ``seat``'s pending decision.

    ``pick`` above 1 draws that many samples of the other seats' concealed tiles (each as
    above; the hands that must win, R14, are drawn once and the others dealt ``pick`` times
    around them) and keeps the one whose opponents are closest to ready (the lowest sum of
    their shanten; won and escaped seats not counted), then builds one round from it: a bias
    towards the hands real players keep, cheaper than building ``pick`` rounds. The
    constraints are worked out once for all of them.

    ``ready`` (0 to 1) is the chance that each other seat still waiting for a tile is dealt a
    ready hand (shanten 0: a complete hand around a random tile of the suits it may hold,
    that tile taken out). Uniform hands are almost never ready, while real players late in a
    hand often are: a searcher that gives the rate it expects (for instance from the wall's
    length) samples opponents as dangerous as real ones. 0 (the default) draws no number. A
    seat that cannot be ready (it still holds a tile of its shown void) is not asked to be, and
    ready hands that do not fit together are given up after a bounded search
    (:data:`_READY_TRIES`, :data:`_READY_STEPS`): the deal is then uniform.

    ``read_discards``: ready hands are shaped by what every seat sees of their seat's play.
    A ready hand leaves out the suit the seat seems to be clearing (its shown void, R11.2, else
    the suit its melds leave out, else the suit most of its first discards are of: the core's
    ``likely_void``, :func:`xuezhan.strategies.value.likely_void`): a winning hand holds at
    most two suits (R4.2) and players drop the suit they will not keep first. And the tile it
    waits on is one the seat has not discarded (any, if it has discarded every kind it could
    wait on): players throw what they do not need. Off, the wait is uniform among the kinds
    the seat's melds allow. Only ready hands change, so without ``ready`` it changes nothing.

    >>> from xuezhan.engine import Round
    >>> r = Round.from_seed("leshan", 5, dealer=0)
    >>> d = determinize(r, 0, random.Random(1))
    >>> d.seats.counts[0] == r.seats.counts[0], d.wall.count == r.wall.count, d.seed is None
    (True, True, True)
    """
    if rnd.turn.cur != seat:
        raise ValueError(f"determinize: it is not seat {seat}'s decision")
    hidden = [s for s in range(4) if s != seat]
    sizes = {s: sum(rnd.seats.counts[s]) for s in hidden}
    pool = _unseen(rnd.wall, rnd.seats, seat)
    need, banned, discarded = _constraints(rnd, seat)
    if type(pick) is not int or pick < 1:
        raise ValueError(f"pick: expected an integer of at least 1, got {pick!r}")
    if type(ready) not in (int, float) or not 0 <= ready <= 1:
        raise ValueError(f"ready: expected a probability from 0 to 1, got {ready!r}")
    if type(read_discards) is not bool:
        raise ValueError(f"read_discards: expected true or false, got {read_discards!r}")
    if read_discards and ready:
        priors = _read_discards(rnd, seat, hidden, need, discarded)
    else:
        priors = _blind(rnd.seats, hidden)
    hands = _sample_hands(rnd.seats, rnd.turn, pool, sizes, need, banned, rng, pick, float(ready), priors)
    rest = bytearray(pool)
    for s in hidden:
        for k in range(27):
            rest[k] -= hands[s][k]
    wall = [k for k in range(27) for _ in range(rest[k])]
    rng.shuffle(wall)
    return _build(rnd, seat, hands, wall, rng)


def _shown_void(seats: Seats, s: int) -> int:
    """Seat ``s``'s void suit as the other seats know it: -1 before the voids are shown (R11.2)."""
    return seats.void[s] if seats.voids_known else -1


class _ReadyPrior(NamedTuple):
    """What shapes a seat's ready hand (see ``read_discards`` in :func:`determinize`): the suit
    it leaves out (-1: none) and the kinds its wait avoids (bit k = kind k)."""

    void: int
    avoid: int


def _blind(seats: Seats, hidden: list[int]) -> dict[int, _ReadyPrior]:
    """Ready hands shaped only by the rules: without the shown void (R11.2), any wait."""
    return {s: _ReadyPrior(_shown_void(seats, s), 0) for s in hidden}


def _read_discards(
    rnd: Round, seat: int, hidden: list[int], need: dict[int, bytearray], discarded: list[bytearray]
) -> dict[int, _ReadyPrior]:
    """Ready hands shaped by each seat's public play, as ``seat`` sees it: the suit it seems to
    be clearing (its shown void first; the core's rule) and the kinds it has discarded
    (``discarded``, claimed discards included: every seat saw them thrown). A guessed suit
    that the seat's melds or required tiles (``need``) are of is wrong, so the shown void (or
    none) stands instead."""
    obs = Observation(rnd, seat)
    out = {}
    for s in hidden:
        void = _shown_void(rnd.seats, s)
        if void < 0:
            guess = core.likely_void(obs, s)
            void = -1 if guess in _fixed_suits(rnd.seats.melds[s], need.get(s, bytes(27))) else guess
        out[s] = _ReadyPrior(void, sum(1 << k for k in range(27) if discarded[s][k]))
    return out


def _readiness(seats: Seats, hands: dict[int, bytearray]) -> int:
    """The sum of the sampled seats' shanten, each on its public melds and its shown void
    (:func:`_shown_void`); won and escaped seats are not counted."""
    total = 0
    for s, h in hands.items():
        if not seats.won[s] and not seats.escaped[s]:
            total += core.shanten(bytes(h), seats.mbytes[s], _shown_void(seats, s))
    return total


def _unseen(wall: Wall, seats: Seats, seat: int) -> bytearray:
    """The tiles ``seat`` cannot see: the dealt set less its hand and every visible tile."""
    pool = bytearray(wall.dealt)
    mine, seen = seats.counts[seat], wall.seen_view
    for k in range(27):
        pool[k] -= mine[k] + seen[k]
    return pool


def _constraints(rnd: Round, seat: int) -> tuple[dict[int, bytearray], dict[int, int], list[bytearray]]:
    """Tiles a seat must hold (``need``), the suit it cannot hold (``banned``) and the count of
    each kind each seat has discarded (``discarded``, claimed discards included)."""
    need: dict[int, bytearray] = {}
    banned: dict[int, int] = {}
    seats, turn = rnd.seats, rnd.turn
    after_voids = not rnd.rules.declare_void
    last: dict[int, int] = {}
    discarded = [bytearray(27) for _ in range(4)]
    for e in rnd.ledger.events:
        if isinstance(e, Voids):
            after_voids = True
            last.clear()
        elif isinstance(e, Discard):
            k = tile_kind(e.tile)
            discarded[e.seat][k] += 1
            if after_voids:
                last[e.seat] = k
    if seats.voids_known:
        for s, k in last.items():
            v = seats.void[s]
            if s != seat and v >= 0 and k // 9 != v and not seats.won[s]:
                banned[s] = v  # R11.2: its last discard was not of its void suit
    w = turn.claims
    if w is not None and w.robbing and w.frm != seat:
        # R3.3: the seat adding a kong still holds the tile it adds until no one robs it
        req = need.setdefault(w.frm, bytearray(27))
        req[w.tile] = max(req[w.tile], 1)
    if w is not None and w.meld is not None and w.meld[0] != seat:  # a declared peng or kong
        m, verb = w.meld
        req = need.setdefault(m, bytearray(27))
        req[w.tile] = max(req[w.tile], 2 if verb == "peng" else 3)
    mine = turn.x_choice[seat]
    if mine is not None and rnd.exchange_dir is not None and turn.phase is not Phase.EXCHANGE:
        to = (seat + DIRECTIONS[rnd.exchange_dir]) & 3
        melded = bytearray(27)
        for code in seats.melds[to]:
            melded[meld_kind(code)] += meld_size(code)
        n = bytearray(27)
        for k in mine:
            n[k] += 1
        req = bytearray(max(0, n[k] - discarded[to][k] - melded[k]) for k in range(27))
        if any(req) and not (seats.won[to] and not seats.stay) and not seats.escaped[to]:
            old = need.get(to, bytes(27))
            need[to] = bytearray(max(a, b) for a, b in zip(req, old, strict=True))
    return need, banned, discarded


def _sample_hands(
    seats: Seats,
    turn: Turn,
    pool: bytearray,
    sizes: dict[int, int],
    need: dict[int, bytearray],
    banned: dict[int, int],
    rng: random.Random,
    pick: int,
    ready: float,
    priors: dict[int, _ReadyPrior],
) -> dict[int, bytearray]:
    """The other seats' concealed tiles: each seat's required tiles reserved first, then the
    hands that must win, then the seats barred from a suit, then the rest, from what is left.
    The seats compete for the unseen tiles, so winners' hands that leave the rest no deal are
    drawn again (the real hands prove that one exists). ``pick`` deals of the rest are drawn
    around the same winners' hands (whose shanten is not counted) and the readiest kept."""
    # hands that must win: a locked winner's on every tile it won (R14); a seat that declared a
    # win on the tile being claimed, on that tile (its claim is public)
    must_win: dict[int, list[int]] = {}
    for s in sizes:
        if seats.stay and seats.won[s] and not seats.escaped[s]:
            must_win[s] = list(seats.wins_view[s])
    w = turn.claims
    if w is not None:
        for s in w.hu:
            must_win[s] = [w.tile, *must_win.get(s, [])]
    rest = [s for s in sizes if s not in must_win]
    voids = {s: seats.void[s] for s in must_win}
    for attempt in range(_TRIES):
        # ready hands (``ready``): a live seat is made ready, waiting on a random tile of the
        # suits it may hold; after :data:`_READY_TRIES` tries no longer (the uniform deal alone)
        ready_on = (
            _ready_waits(seats, rest, sizes, need, ready, priors, rng) if ready and attempt < _READY_TRIES else {}
        )
        winners = {**must_win, **ready_on}
        for s in ready_on:
            voids[s] = priors[s].void
        live = [s for s in rest if s not in ready_on]
        left = bytearray(pool)
        reserved = {s: bytearray(need.get(s, bytes(27))) for s in live}
        for h in reserved.values():
            _take(left, h)
        demands = [(sizes[s] - sum(reserved[s]), banned.get(s, -1)) for s in live]
        if winners:
            steps = _STEPS * len(must_win) + _READY_STEPS * len(ready_on)
            won = _winning_hands(seats, winners, voids, left, sizes, need, rng, demands, steps)
            if won is None:
                continue
            for h in won.values():
                _take(left, h)
        else:
            won = {}
        best: tuple[int, dict[int, bytearray]] | None = None
        for _ in range(pick):
            dealt = _deal_rest(live, reserved, left, sizes, banned, rng)
            if dealt is None:  # no deal exists around these winners' hands
                break
            hands = {**won, **dealt}
            if pick == 1:
                return hands
            score = _readiness(seats, hands)
            if best is None or score < best[0]:
                best = (score, hands)
        if best is not None:
            return best[1]
    raise DeterminizeError(f"no sample of the other seats' tiles within their constraints in {_TRIES} tries")


def _ready_waits(
    seats: Seats,
    rest: list[int],
    sizes: dict[int, int],
    need: dict[int, bytearray],
    ready: float,
    priors: dict[int, _ReadyPrior],
    rng: random.Random,
) -> dict[int, list[int]]:
    """The seats of ``rest`` to be dealt a ready hand, each with probability ``ready`` (only a
    seat waiting for a tile, its size 1 more than a multiple of 3), and the tile each waits on:
    uniform among the kinds of the suits its hand may be of. A winning hand holds at most two
    suits, none of them its void (once shown, R11.2; with ``read_discards`` the suit it seems
    to be clearing, ``priors``), so the suits of its melds and of the tiles
    it must hold (``need``) fix one or both; a seat whose fixed suits leave no such hand (it
    still holds a tile of its void, or tiles of three suits) cannot be ready and is not asked to
    be (every deal asked of it would fail, and with it the whole sample)."""
    out: dict[int, list[int]] = {}
    for s in rest:
        if seats.won[s] or seats.escaped[s] or sizes[s] % 3 != 1 or rng.random() >= ready:
            continue
        void, avoid = priors[s]
        fixed = _fixed_suits(seats.melds[s], need.get(s, bytes(27)))
        if void in fixed or len(fixed) > 2:
            continue
        kinds = [k for k in range(27) if k // 9 != void and len(fixed | {k // 9}) <= 2]
        kinds = [k for k in kinds if not avoid >> k & 1] or kinds
        out[s] = [kinds[rng.randrange(len(kinds))]]
    return out


def _fixed_suits(melds: Sequence[int], need: Sequence[int]) -> set[int]:
    """The suits a seat's winning hand must be of: its melds' and those of the tiles it must
    hold (``need``)."""
    return meld_suits(melds) | {k // 9 for k in range(27) if need[k]}


def _deal_rest(
    rest: list[int],
    reserved: dict[int, bytearray],
    left: bytearray,
    sizes: dict[int, int],
    banned: dict[int, int],
    rng: random.Random,
) -> dict[int, bytearray] | None:
    """The seats without a winning hand to keep: their reserved tiles and the rest drawn from
    ``left``, the seats barred from a suit first. Each seat's draw is uniform; when that leaves
    too few tiles of the suits a later seat may hold (two seats barred from different suits
    competing for the third), the deal is made again tile by tile, never taking a tile that
    leaves the other seats' needs unmet (:func:`_fits`); None only when no deal exists."""
    order = sorted(rest, key=lambda s: (s not in banned, rng.random()))
    left = bytearray(left)
    out: dict[int, bytearray] = {}
    for s in order:
        h = bytearray(reserved[s])
        ban = banned.get(s, -1)
        allowed = b"".join(_ONE[k] * left[k] for k in range(27) if k // 9 != ban)  # the tiles, in kind order
        extra = sizes[s] - sum(h)
        if extra > len(allowed):
            return _deal_tile_by_tile(order, reserved, left, out, sizes, banned, rng)
        for k in rng.sample(allowed, extra):
            h[k] += 1
            left[k] -= 1
        out[s] = h
    return out


def _deal_tile_by_tile(
    order: list[int],
    reserved: dict[int, bytearray],
    left: bytearray,
    dealt: dict[int, bytearray],
    sizes: dict[int, int],
    banned: dict[int, int],
    rng: random.Random,
) -> dict[int, bytearray] | None:
    """The uniform deal got stuck: put the tiles of the seats dealt so far back and deal every
    seat again, one tile at a time, uniformly among the tiles whose suit keeps a deal possible
    for all the seats (Hall's condition on the suits, :func:`_fits`)."""
    left = bytearray(left)
    for s, h in dealt.items():  # their reserved tiles were never in ``left``
        for k in range(27):
            left[k] += h[k] - reserved[s][k]
    out = {s: bytearray(reserved[s]) for s in order}
    owed = {s: sizes[s] - sum(out[s]) for s in order}
    demands = [(owed[s], banned.get(s, -1)) for s in order]
    supply = [sum(left[u * 9 : u * 9 + 9]) for u in range(3)]
    if not _fits(supply, demands):
        return None
    for i, s in enumerate(order):
        ban = banned.get(s, -1)
        while owed[s]:
            owed[s] -= 1
            later = [(owed[t], banned.get(t, -1)) for t in order[i:]]
            suits = []
            for u in range(3):
                if u != ban and supply[u]:
                    supply[u] -= 1
                    if _fits(supply, later):
                        suits.append(u)
                    supply[u] += 1
            tiles = b"".join(_ONE[k] * left[k] for k in range(27) if k // 9 in suits)
            k = tiles[rng.randrange(len(tiles))]  # a suit always fits: the deal was possible
            out[s][k] += 1
            left[k] -= 1
            supply[k // 9] -= 1
    return out


def _fits(supply: Sequence[int], demands: Sequence[tuple[int, int]]) -> bool:
    """Whether seats needing ``demands`` (tiles, barred suit or -1) can all be dealt from
    ``supply`` (tiles per suit): Hall's condition, for every group of seats the tiles of the
    suits one of them may hold are at least what the group needs (a transportation problem,
    so the condition is also sufficient)."""
    n = len(demands)
    for group in range(1, 1 << n):
        need = usable = 0
        allowed = [False, False, False]
        for i, (count, ban) in enumerate(demands):
            if group >> i & 1:
                if count < 0:
                    return False
                need += count
                for u in range(3):
                    if u != ban:
                        allowed[u] = True
        for u in range(3):
            if allowed[u]:
                usable += supply[u]
        if need > usable:
            return False
    return True


_ONE = [bytes([k]) for k in range(27)]


def _take(left: bytearray, h: Sequence[int]) -> None:
    for k in range(27):
        left[k] -= h[k]


def _winning_hands(
    seats: Seats,
    must_win: dict[int, list[int]],
    voids: dict[int, int],
    left: bytearray,
    sizes: dict[int, int],
    need: dict[int, bytearray],
    rng: random.Random,
    demands: list[tuple[int, int]],
    steps: int,
) -> dict[int, bytearray] | None:
    """Hands for the seats that must win, each from what the ones before it left, such that
    the other seats (``demands``: tiles each needs, barred suit) can still be dealt. Several
    winners compete for the same tiles, so a winner whose hand leaves the next one none (or the
    others too few) is given its next hand, depth first, within one shared budget of steps."""
    order = sorted(must_win, key=lambda _: rng.random())
    budget = [steps]
    out: dict[int, bytearray] = {}

    def place(i: int, left: bytearray) -> bool:
        if i == len(order):
            return _fits([sum(left[u * 9 : u * 9 + 9]) for u in range(3)], demands)
        s = order[i]
        hands = _winning_hand(seats, s, must_win[s], voids[s], left, sizes[s], need.get(s, bytes(27)), rng, budget)
        for h in hands:
            after = bytearray(left)
            _take(after, h)
            out[s] = h
            if place(i + 1, after):
                return True
            if budget[0] <= 0:
                return False
        return False

    return out if place(0, bytearray(left)) else None


def _winning_hand(
    seats: Seats,
    s: int,
    wins: list[int],
    void: int,
    left: bytearray,
    size: int,
    need: Sequence[int],
    rng: random.Random,
    budget: list[int],
) -> Iterator[bytearray]:
    """Hands of ``size`` tiles for seat ``s`` that wait on every tile of ``wins`` (a locked
    winner's, R14, or a declared win's) and hold ``need``, from the tiles in ``left``: one
    winning tile with the hand makes a pair and sets of at most two suits, none of them its void
    suit. A depth-first search over the blocks, in random order, spending the shared ``budget``
    of steps; it yields each hand it finds."""
    melds = bytes(seats.melds[s])
    sets = (size - 1) // 3
    # a hand of other suits would only be rejected at its last block
    used = _fixed_suits(melds, need) | {k // 9 for k in wins}
    suit_sets = [set(c) for c in ((0, 1), (0, 2), (1, 2)) if used <= set(c) and void not in c]
    rng.shuffle(suit_sets)
    for suits in suit_sets:
        for w in rng.sample(sorted(set(wins)), len(set(wins))):
            avail = bytearray(left)
            avail[w] += 1  # one copy of the winning tile is not among the unseen
            kinds = [k for k in range(27) if k // 9 in suits]
            search = _BlockSearch(avail, kinds, rng, budget, w, wins, need, melds, void)
            yield from search.run(bytearray(27), sets, -1, True)
            if budget[0] <= 0:
                return


#: Steps of the search for one winner's hand that must win (R14, a declared win), and for one
#: seat asked to be ready (``ready``); the steps of the seats dealt together are shared. A ready
#: hand that exists is found in a few dozen steps at the median (90% within 500, on seeded
#: positions of the three presets); when the hands asked for do not fit together, every step
#: is spent, so the optional ready hands get far fewer than the hands that must be found.
_STEPS = 4000
_READY_STEPS = 500


@dataclasses.dataclass
class _BlockSearch:
    """Depth-first search for a pair and sets (see :func:`_winning_hand`)."""

    avail: bytearray
    kinds: list[int]
    rng: random.Random
    budget: list[int]
    w: int
    wins: list[int]
    need: Sequence[int]
    melds: bytes
    void: int
    needed: list[int] = dataclasses.field(init=False)
    #: (kind, copies the complete hand must hold, the largest key of a set holding it)
    owed: list[tuple[int, int, int]] = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        self.needed = [k for k in range(27) if self.need[k]]  # kinds it must hold
        owed = {k: self.need[k] for k in self.needed}
        owed[self.w] = owed.get(self.w, 0) + 1  # the winning tile completes the hand
        # a set's key (see run) is 2k for a pung of k and 2k+1 for a chow from k: the last set
        # that can hold k is the chow from k, or the pung of k for an 8 or a 9
        self.owed = [(k, n, 2 * k + (k % 9 <= 6)) for k, n in sorted(owed.items())]

    def run(self, h: bytearray, sets: int, last: int, pair: bool) -> Iterator[bytearray]:
        self.budget[0] -= 1
        if self.budget[0] <= 0:
            return
        if not pair and any(h[k] < n and top < last for k, n, top in self.owed):
            return  # the sets still to come (keys from ``last`` on) cannot hold a tile it must hold
        if not pair and sets == 0:
            found = self._check(h)
            if found is not None:
                yield found
            return
        avail = self.avail
        options: list[tuple[int, ...]] = []
        if pair:
            options = [(k, k) for k in self.kinds if avail[k] >= 2]
        else:  # sets in non-decreasing order of a key, so each hand is built once
            for k in self.kinds:
                if 2 * k >= last and avail[k] >= 3:
                    options.append((k, k, k))
                if 2 * k + 1 >= last and k % 9 <= 6 and avail[k] and avail[k + 1] and avail[k + 2]:
                    options.append((k, k + 1, k + 2))
        self.rng.shuffle(options)
        for block in options:
            for t in block:
                avail[t] -= 1
                h[t] += 1
            key = last if pair else 2 * block[0] + (block[1] != block[0])
            yield from self.run(h, sets - (not pair), key, False)
            for t in block:
                avail[t] += 1
                h[t] -= 1
            if self.budget[0] <= 0:
                return

    def _check(self, h: bytearray) -> bytearray | None:
        if not h[self.w]:
            return None
        h13 = bytearray(h)
        h13[self.w] -= 1
        need = self.need
        if any(h13[k] < need[k] for k in self.needed):
            return None
        mask = core.wait_mask(bytes(h13), self.melds, self.void)
        return h13 if all(mask >> x & 1 for x in self.wins) else None


def _build(rnd: Round, seat: int, hands: dict[int, bytearray], wall: list[int], rng: random.Random) -> Round:
    """The new round: public and own fields copied, hidden ones from the sample."""
    new_hands = [list(rnd.seats.counts[seat]) if s == seat else list(hands[s]) for s in range(4)]
    exchange = rnd.exchange_dir
    turn = rnd.turn
    if turn.phase is Phase.EXCHANGE:
        exchange = rng.choice(sorted(DIRECTIONS))  # not shown before the tiles pass (R11.1)
    hands0 = [[k for k in range(27) for _ in range(c[k])] for c in new_hands]
    return Round.from_parts(
        rnd.rules, rnd.dealer, None, rnd.scores, exchange, hands0,
        _wall(rnd.wall, wall), _seats(rnd.seats, seat, hands), *_turn_and_ledger(rnd, seat, hands),
    )  # fmt: skip


def _wall(old: Wall, wall: list[int]) -> Wall:
    """The sampled wall (its order and tiles hidden), the dealt set and the visible count."""
    return Wall(wall, old.dealt, 0, len(wall), bytearray(old.seen_view), old.seen_view)


def _seats(old: Seats, seat: int, hands: dict[int, bytearray]) -> Seats:
    """Every seat's public tiles and standing; the seat's own tiles, void and lock; the others'
    sampled tiles, hidden voids (-1) and no lock (R4.3: a pass is private)."""
    counts = [bytearray(c) if s == seat else hands[s] for s, c in enumerate(old.counts)]
    known = old.voids_known
    void = list(old.void) if known else [old.void[s] if s == seat else -1 for s in range(4)]
    new = Seats(
        counts,
        old.stay,
        known,
        melds=[list(m) for m in old.melds],
        mbytes=list(old.mbytes),
        meld_from=[list(m) for m in old.meld_from],
        river=list(old.river),
        aside=list(old.aside),
        won=list(old.won),
        escaped=list(old.escaped),
        active=list(old.active),
        n_active=old.n_active,
        void=void,
        lock=[old.lock[s] if s == seat else 0 for s in range(4)],
        meld_view=old.meld_view,
        river_view=old.river_view,
        aside_view=old.aside_view,
        wins_view=old.wins_view,
        void_view=tuple(void) if known else (-1, -1, -1, -1),
    )
    for s in range(4):  # its own waits as they are; the others' from their sampled tiles
        if s == seat:
            new.mask[s] = old.mask[s]
        elif sum(counts[s]) % 3 == 1:
            new.update_mask(s)
    return new


def _turn_and_ledger(rnd: Round, seat: int, hands: dict[int, bytearray]) -> tuple[Turn, Ledger]:
    """The pending decision as it is (the others' hidden setup choices replaced) and the public
    record so far (payments, wins, kongs; no events, no rules fired yet)."""
    old, led = rnd.turn, rnd.ledger
    kongs = [KongRecord(k.seat, k.kind, k.how, k.frm, list(k.pay), k.transferred, k.refunded) for k in led.kongs]
    kong_of = {id(k): n for k, n in zip(led.kongs, kongs, strict=True)}
    flags = old.flags
    turn = Turn(
        old.phase,
        old.cur,
        list(old.legal),
        old.discard_mask,
        old.drawn,
        flags if flags.kong is None else dataclasses.replace(flags, kong=kong_of[id(flags.kong)]),
        old.any_claim,
        list(old.first_drawn),
        old.claim_group,
        None,
        old.last_phase,
    )
    # setup choices pending: its own as made; the others' made before it (hidden) are the R10
    # defaults on their sampled tiles (once the exchange or the voids are done, none is pending)
    for s in range(4):
        own = s == seat
        if old.phase is Phase.EXCHANGE and old.x_choice[s] is not None:
            turn.x_choice[s] = old.x_choice[s] if own else default_exchange(hands[s], s).arg  # type: ignore[assignment]
        if old.phase is Phase.VOID and old.v_choice[s] >= 0:
            turn.v_choice[s] = old.v_choice[s] if own else default_void(hands[s], s).arg  # type: ignore[assignment]
    w = old.claims
    if w is not None:
        queue = [s for s in w.queue[w.asked :]]
        kong = None if w.kong is None else kong_of[id(w.kong)]
        turn.claims = ClaimWindow(w.tile, w.frm, w.robbing, w.ctx, kong, queue, 0, list(w.hu), w.meld, [0, 0, 0, 0])
        turn.claims.fan[seat] = w.fan[seat]
    ledger = Ledger(
        deltas=list(led.deltas),
        deltas_view=led.deltas_view,
        payments=list(led.payments),
        wins=list(led.wins),
        kongs=kongs,
    )
    return turn, ledger
