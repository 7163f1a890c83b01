"""The end of a hand at the table: every seat's tiles revealed with how its hand ended (R7).

Only a finished hand is revealed (:func:`revealed_hands` refuses an unfinished one): until the
end, nothing a seat receives holds another seat's concealed tiles.
"""

from __future__ import annotations

from collections.abc import Sequence

from xuezhan.engine import Round
from xuezhan.evaluate import waits
from xuezhan.serve.protocol import RevealedHand
from xuezhan.tiles import TILE_STR as _TILE
from xuezhan.tiles import parse_tiles

__all__ = ["revealed_hands"]

_MELD_TEXT = ("{t}{t}{t}", "{t}{t}{t}{t}", "({t}{t}{t}{t})")  # pung, kong, concealed kong


def revealed_hands(rnd: Round, names: Sequence[str]) -> list[RevealedHand]:
    """Each seat's concealed tiles and result once ``rnd`` is over; ``names`` as the table
    calls the seats. Raises ``ValueError`` for a hand still in play."""
    if not rnd.over:
        raise ValueError("a hand is revealed only once it is over")
    result = rnd.hand_result()
    res = result.seats
    stay = rnd.rules.stay
    out = []
    for s in range(4):
        obs = rnd.observation(s).to_dict()
        tiles = parse_tiles(obs["hand"])
        won = [w for w in result.wins if w.seat == s]
        win = won[0] if won else None
        win_tile = None
        if win is not None:
            win_tile = win.tile
            k = parse_tiles(win.tile)[0]
            # a self-drawn winning tile is in the hand when the winner leaves; show it apart
            # (when winners stay it was set aside already, R14.1)
            if not stay and win.how == "self_draw" and k in tiles:
                tiles.remove(k)
        hand = "".join(_TILE[k] for k in sorted(tiles))
        r = res[s]
        value = 0
        ready_waits: list[str] = []
        if win is not None:
            result_, value = "won", sum(w.points for w in won)
        elif r.escaped:
            result_ = "escaped"
        elif r.pig:
            result_ = "pig"
        elif r.ready:
            result_, value = "ready", rnd.ledger.ready[s]
            melds = ",".join(_MELD_TEXT[kind].format(t=t) for kind, t in obs["melds"][s])
            void = obs["voids"][s]
            ready_waits = [w.tile for w in waits(hand, melds, rules=rnd.rules, void=void)]
        elif r.checked:
            result_ = "not_ready"
        else:
            result_ = "playing"
        out.append(
            RevealedHand(
                seat=s,
                name=names[s],
                hand=hand,
                win_tile=win_tile,
                result=result_,  # type: ignore[arg-type]
                value=value,
                waits=ready_waits,
                wins=[w.tile for w in won],
                aside=obs["aside"][s] if stay else "",
            )
        )
    return out
