"""The claims on a discard or an added kong (docs/rules.md R3, R13): who is asked, in turn
order from the discarder, what each may claim, what a claim records, and how a claimed tile
moves (a peng or kong on a discard, R2.4; a robbed kong, R3.3).

The functions take the parts of the hand they touch (the seats, the wall's visible count, the
ledger) and the open :class:`~xuezhan.engine.turn.ClaimWindow`; the round engine
(:mod:`.round`) sequences them with the turn flow they hand back to (a win, a draw, the turn
after a peng). The legality of each claim is in :mod:`.legal`.
"""

from __future__ import annotations

from xuezhan._core import CoreRules
from xuezhan.engine import events as ev
from xuezhan.engine import fired as F
from xuezhan.engine.actions import HU, PASS, PENG, TILE_STR, Action
from xuezhan.engine.ledger import KongRecord, Ledger
from xuezhan.engine.legal import claim_actions
from xuezhan.engine.seats import Seats
from xuezhan.engine.turn import ClaimWindow
from xuezhan.engine.wall import Wall
from xuezhan.tiles import MeldType, meld_code

__all__ = ["claim_legal", "next_claimant", "note_claim", "open_window", "rob_tile", "take_meld"]


def open_window(seats: Seats, frm: int, t: int, rob: bool, ctx: int, kong: KongRecord | None) -> ClaimWindow:
    """The window of claims on tile ``t`` offered by ``frm``: the other active seats, in turn
    order from ``frm`` (R13)."""
    a = seats.active
    queue = [s for s in ((frm + 1) & 3, (frm + 2) & 3, (frm + 3) & 3) if a[s]]
    return ClaimWindow(t, frm, rob, ctx, kong, queue, 0, [], None, [0, 0, 0, 0])


def claim_legal(
    seats: Seats, s: int, w: ClaimWindow, lock_on: bool, wall_empty: bool, why: dict | None = None
) -> list[Action]:
    """The claims seat ``s`` may make on the window's tile (``lock_on``: R4.3's pass-win lock
    applies now; R14.2: a locked winner may only win)."""
    lock = seats.lock[s] if lock_on else 0
    return claim_actions(
        s,
        seats.counts[s],
        w.tile,
        seats.void[s],
        w.fan[s],
        lock,
        w.robbing,
        wall_empty,
        why,
        seats.stay and seats.won[s],
    )


def next_claimant(
    w: ClaimWindow,
    seats: Seats,
    ledger: Ledger,
    core: CoreRules,
    forced: bool,
    lock_on: bool,
    wall_empty: bool,
) -> tuple[int, list[Action]] | None:
    """The next seat to ask about the window's tile and its legal claims, or None when every
    seat has been asked (R13). ``forced``: R4.4's compulsory wins, taken here without asking."""
    t = w.tile
    mask = seats.mask
    counts = seats.counts
    while w.asked < len(w.queue):
        s = w.queue[w.asked]
        w.fan[s] = 0
        can_win = (mask[s] >> t) & 1
        if not can_win and counts[s][t] < 2:
            w.asked += 1  # it cannot claim (fast path of claim_actions)
            continue
        if can_win:
            h = bytearray(counts[s])
            h[t] += 1
            res = seats.score(s, bytes(h), t, w.ctx, core)
            if res is not None:
                if forced:
                    # R4.4: a discard that completes a hand is won at once.
                    ledger.events.append(ev.Hu(s, forced=True))
                    w.hu.append(s)
                    w.asked += 1
                    continue
                w.fan[s] = res[1]
        legal = claim_legal(seats, s, w, lock_on, wall_empty)
        if legal:
            return s, legal
        w.asked += 1
    return None


def note_claim(
    w: ClaimWindow, seats: Seats, ledger: Ledger, seat: int, verb: str, default: bool, lock_opt: bool
) -> None:
    """Record the asked seat's claim (or pass) and move on to the next seat."""
    ledger.events.append(ev.Hu(seat, default) if verb == HU else ev.CLAIM_EVENT[verb](seat, default))
    if verb == HU:
        w.hu.append(seat)
    else:
        if w.fan[seat] and lock_opt:
            # R4.3: it passed a win; remember the best fan passed.
            lock = seats.lock
            lock[seat] = max(lock[seat], w.fan[seat])
            ledger.fired.add(F.PASS_WIN)
        if verb != PASS:
            w.meld = (seat, verb)
    w.asked += 1


def rob_tile(seats: Seats, wall: Wall, frm: int, t: int) -> None:
    """R3.3: the added kong is cancelled; the robbed tile leaves the kong-maker's hand."""
    seats.counts[frm][t] -= 1
    seats.set_river(frm, seats.river[frm] + (t,))
    wall.see(t, 1)
    seats.update_mask(frm)


def take_meld(seats: Seats, wall: Wall, ledger: Ledger, seat: int, verb: str, frm: int, t: int) -> None:
    """A peng or a kong (``verb``) of ``seat`` on ``frm``'s discard ``t`` (R2.4): the discard
    leaves the pile and the meld is shown."""
    seats.set_river(frm, seats.river[frm][:-1])  # the claimed discard leaves the pile
    n = 2 if verb == PENG else 3
    seats.counts[seat][t] -= n
    seats.melds[seat].append(meld_code(MeldType.PUNG if n == 2 else MeldType.KONG, t))
    seats.melds_changed(seat)
    wall.see(t, n)  # the discard left the pile; the meld shows n + 1 tiles
    seats.meld_from[seat].append(frm)
    ledger.events.append(ev.Meld(seat, verb, TILE_STR[t], frm))
