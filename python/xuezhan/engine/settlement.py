"""Settlement: every payment of a hand (docs/rules.md R6, R7, R8), one function per rule.

The functions see only the hand's :class:`~xuezhan.engine.ledger.Ledger` (pay, record an
event, note a rule that fired), the rules, and the facts of the win, kong or end of hand they
settle (who, how many points, the kong record, the tiles of the seats still playing); never the
seats, the wall or the turn. Each payment is one ``pay`` event naming its rule id, payer, payee
(``None`` for the escape penalty, paid to nobody) and amount. Kong income is kept per kong
(:class:`~xuezhan.engine.ledger.KongRecord`) so that R6.5 (transfer) and R7.5 / R8 (refund) can
find it.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from xuezhan._core import CoreRules
from xuezhan.engine import _core_adapter as core
from xuezhan.engine import fired as F
from xuezhan.engine.events import Pig, Ready, Win
from xuezhan.engine.ledger import KongRecord, Ledger
from xuezhan.engine.seats import Holding
from xuezhan.rules import FAN_ITEMS, Rules
from xuezhan.tiles import TILE_STR, meld_kind

__all__ = [
    "Holding",
    "Ledger",
    "end_of_wall",
    "is_pig",
    "ready_value",
    "refund_kongs",
    "settle_discard_win",
    "settle_escape",
    "settle_kong",
    "settle_self_draw",
    "win_record",
]


def win_record(
    seat: int, frm: int | None, kind: int, result: tuple, how: str, forced: bool, group: int, max_fan: int
) -> tuple[Win, list[str]]:
    """The ``win`` event of a win scored ``result`` = ``(raw, capped, points, items)`` by the core,
    and the rules it fires (R5 cap, R4.4 compulsory win)."""
    raw, capped, points, items = result
    win = Win(seat, frm, TILE_STR[kind], capped, raw, points, {FAN_ITEMS[b]: f for b, f in items}, how, forced, group)
    fired = []
    if raw >= max_fan:
        fired.append(F.CAPPED)  # reached the cap (极品)
    if forced:
        fired.append(F.PHASE_WIN)
    return win, fired


def settle_discard_win(
    ledger: Ledger, rules: Rules, winner: int, discarder: int, points: int, kong: KongRecord | None, robbed: bool
) -> None:
    """R6.1 (and R3.3 for a robbed kong): the discarder alone pays the winner its points;
    R6.5: after the discarder's kong and replacement draw, it also pays the winner that kong's
    full income (each winner of a multiple win gets the full amount)."""
    if robbed:
        ledger.pay("R3.3", discarder, winner, points)
        ledger.fire(F.ROB_KONG)
    else:
        ledger.pay("R6.1", discarder, winner, points)
        ledger.fire(F.DISCARD_WIN)
    if kong is not None and rules.kong_transfer:
        income = kong.income
        if income > 0:
            ledger.pay("R6.5", discarder, winner, income)
            kong.transferred = True
            ledger.fire(F.KONG_TRANSFER)


def settle_self_draw(
    ledger: Ledger, rules: Rules, winner: int, points: int, payers: Sequence[int], discarder_pays: int | None
) -> None:
    """R6.2: every other active player (``payers``) pays (``point`` bonus: ``base`` more each);
    R6.3: after a kong on a discard, won on its replacement, the discarder of the konged tile
    pays alone."""
    if discarder_pays is not None:
        ledger.pay("R6.3", discarder_pays, winner, points)
        ledger.fire(F.KONG_DRAW_DISCARDER_PAYS)
        return
    amount = points + (rules.base if rules.self_draw_bonus == "point" else 0)
    for p in payers:
        ledger.pay("R6.2", p, winner, amount)
    ledger.fire(F.SELF_DRAW)


def settle_kong(
    ledger: Ledger, rules: Rules, seat: int, kind: int, how: str, frm: int | None, others: Sequence[int]
) -> KongRecord:
    """R6.4: a kong pays at once: on a discard (``gang``) the discarder ``frm`` 2 × base; added
    kong every other active player (``others``) 1 × base; concealed kong each of them 2 × base."""
    base = rules.base
    rec = KongRecord(seat, kind, how, frm)
    if how == "gang":
        payers: Sequence[int] = [frm]  # type: ignore[list-item]
        amount = 2 * base
    else:
        payers = others
        amount = base if how == "jiagang" else 2 * base
    for p in payers:
        ledger.pay("R6.4", p, seat, amount)
        rec.pay.append((p, amount))
    ledger.fire(F.KONG[how])
    return rec


def refund_kongs(ledger: Ledger, kongs: Sequence[KongRecord], seat: int, rule: str) -> None:
    """Return all kong income ``seat`` received this hand to its payers (R7.5, R8), except
    income already handed on by R6.5."""
    for rec in kongs:
        if rec.seat == seat and not rec.transferred and not rec.refunded:
            rec.refunded = True
            for p, a in rec.pay:
                ledger.pay(rule, seat, p, a)
                ledger.fire(F.REFUND)


# --------------------------------------------------------------------------- ready check (R7)


def is_pig(h: Holding, declare_void: bool) -> bool:
    """R7.1: all three suits in hand + melds; with ``declare_void``, a tile of the declared suit."""
    c = h.counts
    suits = [any(c[0:9]), any(c[9:18]), any(c[18:27])]
    for code in h.melds:
        suits[meld_kind(code) // 9] = True
    if h.void >= 0 and declare_void:
        return suits[h.void]
    return all(suits)


def ready_value(h: Holding, core_rules: CoreRules) -> int:
    """R7.3: the most points over the seat's waits, scored as a discard win with shape items
    only (``_core.waits``); 0 when not ready. A wait on a tile of which the seat holds all four
    does not count (the core leaves it out). A seat caught holding a 14th tile (an escape in the
    middle of its turn, R8) is valued on its best discard."""
    c, mb, void = h
    if sum(c) + 3 * len(mb) == 13:
        return max((w[2] for w in core.waits(c, mb, core_rules, void)), default=0)
    best = 0
    t = bytearray(c)
    for k in range(27):
        if t[k]:
            t[k] -= 1
            ws = core.waits(bytes(t), mb, core_rules, void)
            t[k] += 1
            best = max(best, max((w[2] for w in ws), default=0))
    return best


def _pigs(ledger: Ledger, rules: Rules, held: dict[int, Holding]) -> set[int]:
    pigs = {s for s, h in held.items() if is_pig(h, rules.declare_void)}
    for p in sorted(pigs):
        ledger.record(Pig(p))
        ledger.fire(F.PIG)
    return pigs


def _ready_values(
    ledger: Ledger, rules: Rules, held: dict[int, Holding], pigs: set[int], winners: Set[int]
) -> dict[int, int]:
    """R7.3: each ready non-pig with its value (包大), announced as an event; a winner that stayed
    in the hand (``winners``) is ready, valued on its locked hand (R14.5)."""
    ready = {}
    for s, h in held.items():
        if s not in pigs:
            v = ready_value(h, rules.core)
            if v > 0 or s in winners:
                ready[s] = v
                ledger.record(Ready(s, v))
    return ready


def _ready_and_refund(
    ledger: Ledger,
    rules: Rules,
    kongs: Sequence[KongRecord],
    seats: Sequence[int],
    ready: dict[int, int],
    pigs: set[int],
) -> None:
    # R7.4: each active player that is neither ready nor a pig pays each ready player its value.
    for s in seats:
        if s in ready or s in pigs:
            continue
        for r, value in ready.items():
            ledger.pay("R7.4", s, r, value)
            ledger.fire(F.READY_PAID)
    # R7.5: kong refund by every active player not ready (pigs included), except income
    # already handed on by R6.5.
    if rules.kong_refund:
        for s in seats:
            if s not in ready:
                refund_kongs(ledger, kongs, s, "R7.5")


def end_of_wall(
    ledger: Ledger,
    rules: Rules,
    kongs: Sequence[KongRecord],
    held: dict[int, Holding],
    present: Sequence[int],
    winners: Set[int] = frozenset(),
) -> tuple[set[int], dict[int, int]]:
    """R7: the ready check when the wall ran out with at least two active players (``held``: the
    tiles of each active seat; ``present``: the seats that did not escape; ``winners``: the
    active seats that have won, when winners stay: ready, R14.5). Returns the pigs and the ready
    seats with their values."""
    if len(held) < 2:
        return set(), {}
    ledger.fire(F.READY_CHECK)
    pigs = _pigs(ledger, rules, held)
    if rules.pig_penalty:
        # R7.2: each pig pays every non-pig player (active or already won) the capped maximum.
        mp = rules.max_points
        for p in sorted(pigs):
            for q in present:
                if q != p and q not in pigs:
                    ledger.pay("R7.2", p, q, mp)
    ready = _ready_values(ledger, rules, held, pigs, winners)
    _ready_and_refund(ledger, rules, kongs, list(held), ready, pigs)
    return pigs, ready


def settle_escape(
    ledger: Ledger,
    rules: Rules,
    kongs: Sequence[KongRecord],
    seat: int,
    held: dict[int, Holding],
    winners: Set[int] = frozenset(),
) -> tuple[set[int], dict[int, int]]:
    """R8: the escapee's kong income is refunded; among the other active players (``held``;
    ``winners``: those that have won, when winners stay, ready by R14.4–R14.5) the ready check
    R7.3–R7.5 is made without the pig penalty; the escapee pays each ready player its value and
    a further ``escape_penalty × base`` to nobody. Returns the pigs and the ready seats with
    their values."""
    ledger.fire(F.ESCAPE)
    refund_kongs(ledger, kongs, seat, "R8")
    pigs = _pigs(ledger, rules, held)  # R7.1 still tells who is a pig; R7.2 is not applied (R8)
    ready = _ready_values(ledger, rules, held, pigs, winners)
    if held:
        ledger.fire(F.READY_CHECK)
    _ready_and_refund(ledger, rules, kongs, list(held), ready, pigs)
    for r, value in ready.items():
        ledger.pay("R8", seat, r, value)
    ledger.pay("R8", seat, None, rules.escape_penalty * rules.base)
    return pigs, ready
