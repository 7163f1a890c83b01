"""The turn flow of a hand (docs/rules.md R2, R4, R14) and its claim windows (R3, R13).

The transitions of :class:`~xuezhan.engine.round.Round` after the setup phases: the draw
(:func:`draw`, R1.3, R4.4, R4.5), the turn decision it opens (R2.1; R14.2 for a winner that
stays), a discard and the claims it may open (:func:`discard`, R2.2), kongs and their payment
(:func:`kong`, R2.1, R3.3, R6.4), wins (:func:`self_draw_win`, R4, R14.1) and the claim window
asked one seat at a time in turn order from the discarder (R13), then resolved (R3.2,
:func:`resolve_claims`). Each function takes the round and changes its parts (``rnd.wall``,
``rnd.seats``, ``rnd.turn``, ``rnd.ledger``); the claim window's own bookkeeping is
:mod:`.claims`, the payments :mod:`.settlement` and the end of the hand :mod:`.hand_end`.

This is the engine's hot path (a tournament makes millions of draws and discards): the shared
event objects are built once, and a discard nobody can claim goes straight to the next draw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xuezhan.engine import _core_adapter as core
from xuezhan.engine import claims as window
from xuezhan.engine import events as ev
from xuezhan.engine import fired as F
from xuezhan.engine import settlement as pay
from xuezhan.engine.actions import ANGANG, PENG, TILE_STR, Action
from xuezhan.engine.hand_end import end_hand, leave
from xuezhan.engine.ledger import KongRecord
from xuezhan.engine.legal import locked_turn_legal, turn_legal
from xuezhan.engine.turn import AFTER_PENG, DEALER_FIRST, DRAW_FLAGS, ClaimWindow, Phase, TurnFlags
from xuezhan.tiles import MeldType, meld_code

if TYPE_CHECKING:  # pragma: no cover
    from xuezhan.engine.round import Round

__all__ = [
    "begin_play",
    "can_hu",
    "claim",
    "claim_legal",
    "discard",
    "draw",
    "kong",
    "locked_legal",
    "self_draw_win",
    "turn_legal_of",
]

_TURN, _CLAIM = Phase.TURN, Phase.CLAIM
_wait_mask = core.wait_mask
# _DISCARD[default][seat][kind]: the shared discard events (immutable), built once
_DISCARD = tuple(
    tuple(tuple(ev.Discard(s, TILE_STR[k], d) for k in range(27)) for s in range(4)) for d in (False, True)
)
# _DRAW[replacement][seat][kind]: the shared draw events (immutable), built once
_DRAW = tuple(tuple(tuple(ev.Draw(s, TILE_STR[k], r) for k in range(27)) for s in range(4)) for r in (False, True))


# ====================================================================== turns (R2)
def begin_play(rnd: Round) -> None:
    """The setup phases are over (R11): every seat's waits, then the dealer's first turn."""
    seats = rnd.seats
    for s in range(4):
        if s != rnd.dealer:
            seats.update_mask(s)
    turn = rnd.turn
    turn.drawn = -1
    turn.flags = DEALER_FIRST  # R5 heaven_earth: the dealer's first 14 tiles
    _turn_decision(rnd, rnd.dealer)


def draw(rnd: Round, seat: int, kong: KongRecord | None = None) -> None:
    """R1.3: draw from the front of the wall (kong replacements, after ``kong``, too). A player
    that must draw from an empty wall ends the hand (R4.5)."""
    wall = rnd.wall
    pos = wall.pos
    left = wall.end - pos  # tiles in the wall before this draw
    if left <= 0:
        end_hand(rnd.turn, rnd.seats, rnd.ledger, rnd.rules, rnd.dealer, "wall")
        return
    seats = rnd.seats
    turn = rnd.turn
    events = rnd.ledger.events
    # R4.4: the last-tiles phase begins with the first draw made while the wall holds no
    # more tiles than there are active players.
    if left <= seats.n_active and not turn.last_phase:
        turn.last_phase = True
        events.append(ev.LastTiles(left))
    t = wall.tiles[pos]
    wall.pos = pos + 1
    c = seats.counts[seat]
    c[t] += 1
    seats.lock[seat] = 0  # R4.3: its own draw clears the restriction
    turn.drawn = t
    first = turn.first_drawn
    if kong is not None:
        turn.flags = TurnFlags(replacement=True, last_tile=left == 1, kong=kong)
    elif first[seat]:
        turn.flags = DRAW_FLAGS[left == 1][False]
    else:
        # R5 heaven_earth (地胡): a non-dealer's first draw before any claim.
        turn.flags = DRAW_FLAGS[left == 1][not turn.any_claim and seat != rnd.dealer]
    first[seat] = True
    events.append(_DRAW[kong is not None][seat][t])
    # The turn decision on the drawn tile (R2.1), made here rather than in _turn_decision:
    # this is the commonest path of a hand.
    turn.cur = seat
    hu = (seats.mask[seat] >> t) & 1
    if hu and turn.last_phase and rnd.rules.last_tiles_forced:
        self_draw_win(rnd, seat, True)  # R4.4: a self-drawn completing tile must be declared
        return
    turn.phase = _TURN
    if seats.stay and seats.won[seat]:  # R14.2: a winner's locked hand
        turn.legal, turn.discard_mask = locked_legal(rnd, seat, t, hu, left == 1)
        return
    # no kong after the last wall tile (R2.1); a draw never follows a peng
    turn.legal, turn.discard_mask = turn_legal(seat, c, seats.melds[seat], seats.void[seat], hu, False, left == 1)


def can_hu(rnd: Round, seat: int) -> bool:
    """R4: the seat on turn holds a winning hand (the drawn tile, or the dealer's first 14)."""
    turn = rnd.turn
    seats = rnd.seats
    if turn.drawn >= 0:
        return bool((seats.mask[seat] >> turn.drawn) & 1)
    flags = turn.flags
    return (
        flags.heaven
        and not flags.after_peng
        and core.is_win(bytes(seats.counts[seat]), seats.mbytes[seat], seats.void[seat])
    )


def turn_legal_of(rnd: Round, seat: int, hu: bool, why: dict | None = None) -> tuple[list[Action], int]:
    """The turn's legal actions and discard mask (:func:`~xuezhan.engine.legal.turn_legal`);
    ``why``, if given, collects the reason each other action is refused."""
    seats = rnd.seats
    return turn_legal(
        seat, seats.counts[seat], seats.melds[seat], seats.void[seat], hu,
        rnd.turn.flags.after_peng, rnd.wall.empty, why,
    )  # fmt: skip


def locked_legal(rnd: Round, seat: int, t: int, hu: int, wall_empty: bool, why: dict | None = None) -> tuple:
    """R14.2: the turn of a winner that stays, having drawn ``t``
    (:func:`~xuezhan.engine.legal.locked_turn_legal`); a kong must keep its waits."""
    seats = rnd.seats
    return locked_turn_legal(
        seat, seats.counts[seat], seats.melds[seat], seats.void[seat], t, hu, wall_empty, seats.mask[seat], why
    )


def _turn_decision(rnd: Round, seat: int) -> None:
    """A turn that does not begin with a draw: the dealer's first (R5 heaven_earth) and the
    turn after a peng (R2.4). (Turns that begin with a draw are decided in :func:`draw`, which
    also takes the R4.4 compulsory win: without a draw there is none to take.)"""
    turn = rnd.turn
    turn.cur = seat
    turn.phase = _TURN
    turn.legal, turn.discard_mask = turn_legal_of(rnd, seat, can_hu(rnd, seat))


def discard(rnd: Round, seat: int, t: int, default: bool) -> None:
    """R2.2: ``seat`` discards ``t``; the claims on it (R3), or the next draw (R2.5)."""
    seats = rnd.seats
    counts = seats.counts
    c = counts[seat]
    c[t] -= 1
    river = seats.river
    river[seat] += (t,)
    seats.river_view = tuple(river)
    wall = rnd.wall
    seen = wall.seen
    seen[t] += 1
    wall.seen_view = bytes(seen)
    rnd.ledger.events.append(_DISCARD[1 if default else 0][seat][t])
    mask = seats.mask
    mask[seat] = _wait_mask(bytes(c), seats.mbytes[seat], seats.void[seat])
    # Fast path: nobody could claim (no wait on t, fewer than two t in hand): the next draws.
    a = seats.active
    s1 = (seat + 1) & 3
    s2 = (seat + 2) & 3
    s3 = (seat + 3) & 3
    if (
        (a[s1] and ((mask[s1] >> t) & 1 or counts[s1][t] >= 2))
        or (a[s2] and ((mask[s2] >> t) & 1 or counts[s2][t] >= 2))
        or (a[s3] and ((mask[s3] >> t) & 1 or counts[s3][t] >= 2))
    ):
        _open_claims(rnd, seat, t, False, *rnd.turn.flags.discard_context())
        return
    rnd.turn.claim_group += 1
    # R2.5: the next active player draws (the next seat, unless it has won or left)
    draw(rnd, s1 if a[s1] else seats.next_active(seat))


def kong(rnd: Round, seat: int, verb: str, k: int, default: bool) -> None:
    """R2.1 concealed kong (angang) or added kong (jiagang; R3.3: it can be robbed first)."""
    seats = rnd.seats
    events = rnd.ledger.events
    if verb == ANGANG:
        seats.counts[seat][k] = 0
        seats.melds[seat].append(meld_code(MeldType.CONCEALED_KONG, k))
        seats.melds_changed(seat)
        rnd.wall.see(k, 4)  # a concealed kong is public (R2.3)
        seats.meld_from[seat].append(None)
        # recorded once the kong stands, like every event (the replay viewer shows the
        # state at each event); the same place in the log
        events.append(ev.Angang(seat, TILE_STR[k], default))
        _kong_paid(rnd, seat, k, ANGANG, None)
        return
    events.append(ev.Jiagang(seat, TILE_STR[k], default))
    if rnd.rules.rob_kong:
        _open_claims(rnd, seat, k, True, core.ROBBING_KONG, None)
    else:
        _complete_jiagang(rnd, seat, k)


def _complete_jiagang(rnd: Round, seat: int, k: int) -> None:
    seats = rnd.seats
    seats.counts[seat][k] -= 1
    ms = seats.melds[seat]
    ms[ms.index(meld_code(MeldType.PUNG, k))] = meld_code(MeldType.KONG, k)
    seats.melds_changed(seat)
    rnd.wall.see(k, 1)
    rnd.ledger.events.append(ev.Meld(seat, "jiagang", TILE_STR[k], None))
    _kong_paid(rnd, seat, k, "jiagang", None)


def _kong_paid(rnd: Round, seat: int, k: int, how: str, frm: int | None) -> None:
    """R6.4: the kong pays at once; then the replacement draw (R2.1)."""
    seats = rnd.seats
    ledger = rnd.ledger
    rec = pay.settle_kong(ledger, rnd.rules, seat, k, how, frm, seats.others(seat))
    ledger.kongs.append(rec)
    seats.update_mask(seat)
    draw(rnd, seat, rec)


def _win(rnd: Round, seat: int, frm: int | None, kind: int, res: tuple, how: str, forced: bool, group: int) -> None:
    leave(rnd.turn, rnd.seats, seat, True)
    rnd.seats.add_win(seat, kind)
    win, fired = pay.win_record(seat, frm, kind, res, how, forced, group, rnd.rules.max_fan)
    ledger = rnd.ledger
    ledger.events.append(win)
    ledger.wins.append(win)
    ledger.fired.update(fired)


def self_draw_win(rnd: Round, seat: int, forced: bool) -> None:
    """R4: the seat on turn wins on its own draw (``forced``: the R4.4 compulsory win); R14.1:
    a winner that stays sets the tile aside; then R2.5, or the end of the hand (R4.5)."""
    seats = rnd.seats
    turn = rnd.turn
    ledger = rnd.ledger
    core_rules = rnd.core
    c = bytes(seats.counts[seat])
    ctx, payer = turn.flags.self_draw_context(rnd.rules.kong_draw_discarder_pays)
    if turn.drawn >= 0:
        kind = turn.drawn
        res = seats.score(seat, c, kind, ctx, core_rules)
    else:  # 天胡: the dealer's first 14 tiles; the winning tile is the one giving the most fan.
        scored = [(r[1], r[0], -k, k, r) for k in range(27) if c[k] and (r := seats.score(seat, c, k, ctx, core_rules))]
        *_, kind, res = max(scored) if scored else (0, 0, 0, -1, None)
    if res is None:  # pragma: no cover - the wait mask and the fan disagree
        raise RuntimeError(f"seat {seat}: the core's wait mask and fan disagree on {TILE_STR[kind]}")
    if forced:
        ledger.events.append(ev.Hu(seat, forced=True))
    if seats.stay:
        if turn.drawn < 0:  # R14.1: 天胡 sets aside the highest tile
            kind = max(k for k in range(27) if c[k])
        if seats.won[seat]:
            ledger.fired.add(F.REPEAT_WIN)
        seats.set_aside(seat, kind)
        rnd.wall.see(kind, 1)
    _win(rnd, seat, None, kind, res, "self_draw", forced, -1 - len(ledger.wins))
    pay.settle_self_draw(ledger, rnd.rules, seat, res[2], seats.others(seat), payer)
    if len(ledger.wins) >= 3 and not seats.stay:
        end_hand(turn, seats, ledger, rnd.rules, rnd.dealer, "three_won")
    else:
        draw(rnd, seats.next_active(seat))  # R2.5: the first active player after the winner


# ====================================================================== claims (R3)
def _open_claims(rnd: Round, frm: int, t: int, rob: bool, ctx: int, kong: KongRecord | None) -> None:
    turn = rnd.turn
    turn.claim_group += 1
    turn.claims = window.open_window(rnd.seats, frm, t, rob, ctx, kong)
    _advance_claims(rnd)


def _lock_on(rnd: Round) -> bool:
    """R4.3's pass-win lock applies now (the option is on, and not in R4.4's phase)."""
    return rnd.rules.pass_win_lock and not rnd.turn.last_phase


def claim_legal(rnd: Round, s: int, w: ClaimWindow, why: dict | None = None) -> list[Action]:
    """The claims seat ``s`` may make on the open window ``w``
    (:func:`~xuezhan.engine.claims.claim_legal`); ``why`` collects the refusals' reasons."""
    return window.claim_legal(rnd.seats, s, w, _lock_on(rnd), rnd.wall.empty, why)


def _advance_claims(rnd: Round) -> None:
    """Ask the seats that could claim, in turn order from the discarder (R13)."""
    turn = rnd.turn
    w = turn.claims
    assert w is not None
    forced = turn.last_phase and rnd.rules.last_tiles_forced
    asked = window.next_claimant(w, rnd.seats, rnd.ledger, rnd.core, forced, _lock_on(rnd), rnd.wall.empty)
    if asked is None:
        resolve_claims(rnd, w)
    else:
        turn.ask(_CLAIM, *asked)


def claim(rnd: Round, seat: int, verb: str, default: bool) -> None:
    """The asked seat's claim (or pass) on the open window; then the next seat is asked."""
    w = rnd.turn.claims
    assert w is not None
    window.note_claim(w, rnd.seats, rnd.ledger, seat, verb, default, rnd.rules.pass_win_lock)
    _advance_claims(rnd)


def resolve_claims(rnd: Round, w: ClaimWindow) -> None:
    """R3.2: win > kong, peng; several winners all win (then no peng or kong)."""
    turn = rnd.turn
    seats = rnd.seats
    ledger = rnd.ledger
    turn.claims = None
    frm, t = w.frm, w.tile
    if w.hu:
        if len(w.hu) > 1:
            ledger.fired.add(F.MULTI_WIN)
        turn.any_claim = True
        if w.robbing:
            window.rob_tile(seats, rnd.wall, frm, t)
        for s in w.hu:
            h = bytearray(seats.counts[s])
            h[t] += 1
            res = seats.score(s, bytes(h), t, w.ctx, rnd.core)
            assert res is not None
            if seats.won[s]:
                ledger.fired.add(F.REPEAT_WIN)
            _win(rnd, s, frm, t, res, "rob" if w.robbing else "discard", False, turn.claim_group)
            pay.settle_discard_win(ledger, rnd.rules, s, frm, res[2], w.kong, w.robbing)
        if len(ledger.wins) >= 3 and not seats.stay:
            end_hand(turn, seats, ledger, rnd.rules, rnd.dealer, "three_won")
        else:  # R2.5: the first active player after the last winner, counting from the discarder
            draw(rnd, seats.next_active(w.hu[-1]))
    elif w.robbing:
        _complete_jiagang(rnd, frm, t)
    elif w.meld is not None:
        seat, verb = w.meld
        turn.any_claim = True
        window.take_meld(seats, rnd.wall, ledger, seat, verb, frm, t)
        if verb == PENG:  # R2.4: after a peng the claimer discards (no draw, no kong)
            turn.drawn = -1
            turn.flags = AFTER_PENG
            _turn_decision(rnd, seat)
        else:
            _kong_paid(rnd, seat, t, "gang", frm)
    else:  # R2.5: no claim taken: the next active player draws
        draw(rnd, seats.next_active(frm))
