"""Two deals that differ only in whether one seat is asked about a claim (for the claim window's
leak test): in deal ``asked`` seat :data:`ASKED` holds a pair of a tile another seat discards
early, in deal ``not_asked`` it holds two other tiles instead (the pair lies at the far end of
the wall, which the test never reaches). Played with every seat taking its R10 default, the two
hands' events are the same up to the horizon, but for the asked seat's own pass."""

from __future__ import annotations

from dataclasses import dataclass

from xuezhan.engine import Round, public_view
from xuezhan.engine.turn import Phase
from xuezhan.rules import Rules

#: The seat a claim is asked of (a person, not the dealer: its every turn begins with a draw,
#: and R10.1's default discards that tile, so its own tiles never leave its hand).
ASKED = 2
DEALER = 1
#: Events the test follows past the claim question.
AFTER = 12
#: Tiles at the wall's far end no draw before the horizon reaches.
TAIL = 24


@dataclass(frozen=True)
class Deals:
    rules: Rules
    asked: tuple[list[list[int]], list[int]]  # hands, wall
    not_asked: tuple[list[list[int]], list[int]]
    #: The index of the discard event whose claims ask seat ASKED (deal ``asked``), and the
    #: event count the test follows the hands to.
    discard: int
    horizon: int

    def round(self, which: str) -> Round:
        hands, wall = self.asked if which == "asked" else self.not_asked
        return Round(self.rules, hands, wall, DEALER)


def _play_defaults(rnd: Round, until: int) -> list[tuple[int, bool]]:
    """Every decision its R10 default until ``until`` events; (events before it, asked seat is
    ASKED in a claim) for each decision."""
    asked = []
    while not rnd.over and len(rnd.ledger.events) < until:
        asked.append((len(rnd.ledger.events), rnd.turn.phase == Phase.CLAIM and rnd.turn.cur == ASKED))
        rnd.apply(rnd.default_action(), default=True)
    return asked


def _public(rnd: Round) -> list[list]:
    """What every seat but ASKED (and nobody, 4: a spectator of a hidden seat) has seen."""
    return [[v for e in rnd.ledger.events if (v := public_view(e, s)) is not None] for s in range(5) if s != ASKED]


def find(rules: Rules | str = "leshan", seeds: range = range(400)) -> Deals:
    """The first seed whose deal can be made into the two (see the module)."""
    rules = rules if isinstance(rules, Rules) else Rules.preset(rules)
    for seed in seeds:
        base = Round.from_seed(rules, seed, DEALER)
        hands = [list(h) for h in base.hands0]
        wall = list(base.wall.tiles[base.wall.pos : base.wall.end])
        rnd = Round(rules, hands, wall, DEALER)
        _play_defaults(rnd, 10**6)
        for i, e in enumerate(rnd.ledger.events[:60]):
            if e.type != "discard" or e.seat == ASKED:
                continue
            x = _kind(e.tile)
            tail = [j for j in range(len(wall) - TAIL, len(wall)) if wall[j] == x]
            mine = [k for k in set(hands[ASKED]) if hands[ASKED].count(k) == 1 and k != x]
            if hands[ASKED].count(x) or len(tail) < 2 or len(mine) < 2:
                continue
            y, z = sorted(mine)[:2]
            a_hand = [k for k in hands[ASKED] if k not in (y, z)] + [x, x]
            a_wall = list(wall)
            a_wall[tail[0]], a_wall[tail[1]] = y, z
            a_hands = [list(h) for h in hands]
            a_hands[ASKED] = sorted(a_hand)
            horizon = i + 1 + AFTER
            deals = Deals(rules, (a_hands, a_wall), (hands, wall), i, horizon)
            b = deals.round("not_asked")
            a = deals.round("asked")
            asked_b = _play_defaults(b, horizon)
            asked_a = _play_defaults(a, horizon + 1)  # the pass is one more event, seen by nobody else
            if any(q for _, q in asked_b) or (i + 1, True) not in asked_a or b.over or a.over:
                continue
            if _public(a) != _public(b) or len(b.ledger.events) < horizon:
                continue
            return deals
    raise AssertionError("no deal found")


def _kind(tile: str) -> int:
    from xuezhan.tiles import parse_tiles

    return parse_tiles(tile)[0]
