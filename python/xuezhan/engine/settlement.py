"""Settlement: every payment of a hand (docs/rules.md R6, R7, R8), one function per rule.

Each payment is one ``pay`` event naming its rule id, payer, payee (``None`` for the escape
penalty, paid to nobody) and amount, and is added to the hand's deltas at once. Kong income is
recorded per kong so that R6.5 (transfer) and R7.5 / R8 (refund) can find it.

The functions work on a :class:`xuezhan.engine.state.HandState`; the round transitions call them.
"""

from __future__ import annotations

from typing import Optional

from xuezhan.engine import _core_adapter as core
from xuezhan.rules import FAN_ITEMS
from xuezhan.tiles import TILE_STR

__all__ = [
    "pay",
    "score_win",
    "settle_discard_win",
    "settle_self_draw",
    "settle_kong",
    "end_of_wall",
    "settle_escape",
    "ready_value",
    "is_pig",
]



def pay(st, rule: str, payer: int, payee: Optional[int], amount: int) -> None:
    """One payment (R12.2: every point paid is received, except the R8 penalty)."""
    if amount <= 0:
        return
    d = st.deltas
    d[payer] -= amount
    if payee is not None:
        d[payee] += amount
    st.events.append({"type": "pay", "rule": rule, "from": payer, "to": payee, "amount": amount})


def score_win(st, seat: int, counts14: bytes, win_kind: int, ctx: int):
    """Fan of a win (R5) via the core: ``(raw, capped, points, items)`` or None if no win."""
    return core.fan(counts14, st.mbytes[seat], win_kind, ctx, st.core, st.void[seat])


def _items_dict(items) -> dict:
    return {FAN_ITEMS[b]: f for b, f in items}


def record_win(st, seat: int, frm: Optional[int], kind: int, result, ctx: int, forced: bool, how: str) -> dict:
    raw, capped, points, items = result
    win = {
        "type": "win",
        "seat": seat,
        "from": frm,
        "tile": TILE_STR[kind],
        "fan": capped,
        "raw_fan": raw,
        "points": points,
        "items": _items_dict(items),
        "how": how,
        "forced": forced,
        "group": st.claim_group if how != "self_draw" else -1 - len(st.wins),
    }
    st.events.append(win)
    st.wins.append(win)
    if raw >= st.rules.max_fan:
        st.fired.add("R5-capped")  # reached the cap (极品)
    if forced:
        st.fired.add("R4.4-phase-win")
    return win


def settle_discard_win(st, winner: int, discarder: int, points: int, kong_rec: Optional[dict], robbed: bool) -> None:
    """R6.1 (and R3.3 for a robbed kong): the discarder alone pays the winner its points;
    R6.5: after the discarder's kong and replacement draw, it also pays the winner that kong's
    full income (each winner of a multiple win gets the full amount)."""
    if robbed:
        pay(st, "R3.3", discarder, winner, points)
        st.fired.add("R3.3-rob-kong")
    else:
        pay(st, "R6.1", discarder, winner, points)
        st.fired.add("R6.1-discard-win")
    if kong_rec is not None and st.rules.kong_transfer:
        income = sum(a for _, a in kong_rec["pay"])
        if income > 0:
            pay(st, "R6.5", discarder, winner, income)
            kong_rec["transferred"] = True
            st.fired.add("R6.5-kong-transfer")


def settle_self_draw(st, winner: int, points: int, discarder_pays: Optional[int]) -> None:
    """R6.2: every other active player pays (``point`` bonus: ``base`` more each); R6.3: after a
    kong on a discard, won on its replacement, the discarder of the konged tile pays alone."""
    if discarder_pays is not None:
        pay(st, "R6.3", discarder_pays, winner, points)
        st.fired.add("R6.3-kong-draw-discarder-pays")
        return
    amount = points + (st.rules.base if st.rules.self_draw_bonus == "point" else 0)
    active = st.active
    for p in range(4):
        if p != winner and active[p]:
            pay(st, "R6.2", p, winner, amount)
    st.fired.add("R6.2-self-draw")


def settle_kong(st, seat: int, kind: int, how: str, frm: Optional[int]) -> dict:
    """R6.4: a kong pays at once: on a discard the discarder 2 × base; added kong every other
    active player 1 × base; concealed kong every other active player 2 × base."""
    base = st.rules.base
    rec = {"seat": seat, "kind": kind, "how": how, "from": frm, "pay": [], "transferred": False}
    if how == "gang":
        payers = [frm]
        amount = 2 * base
    else:
        active = st.active
        payers = [p for p in range(4) if p != seat and active[p]]
        amount = base if how == "jiagang" else 2 * base
    for p in payers:
        pay(st, "R6.4", p, seat, amount)
        rec["pay"].append((p, amount))
    st.kongs.append(rec)
    st.fired.add(f"R6.4-{how}")
    return rec


# --------------------------------------------------------------------------- ready check (R7)


def is_pig(st, seat: int) -> bool:
    """R7.1: all three suits in hand + melds; with declare_void, a tile of the declared suit."""
    c = st.counts[seat]
    suits = [sum(c[0:9]) > 0, sum(c[9:18]) > 0, sum(c[18:27]) > 0]
    for code in st.melds[seat]:
        suits[(code % 27) // 9] = True
    v = st.void[seat]
    if v >= 0 and st.rules.declare_void:
        return suits[v]
    return all(suits)


def ready_value(st, seat: int) -> int:
    """R7.3: the most points over the seat's waits, scored as a discard win with shape items
    only (``_core.waits``); 0 when not ready. A wait on a tile of which the seat holds all four
    does not count (the core leaves it out). A seat caught holding a 14th tile (an escape in the
    middle of its turn, R8) is valued on its best discard."""
    c = st.counts[seat]
    mb = st.mbytes[seat]
    size = sum(c) + 3 * len(mb)
    if size == 13:
        ws = core.waits(bytes(c), mb, st.core, st.void[seat])
        return max((w[2] for w in ws), default=0)
    best = 0
    h = bytearray(c)
    for k in range(27):
        if h[k]:
            h[k] -= 1
            ws = core.waits(bytes(h), mb, st.core, st.void[seat])
            h[k] += 1
            best = max(best, max((w[2] for w in ws), default=0))
    return best


def _ready_and_refund(st, seats: list[int], ready: dict[int, int], pigs: set[int]) -> None:
    # R7.4: each active player that is neither ready nor a pig pays each ready player its value.
    for s in seats:
        if s in ready or s in pigs:
            continue
        for r, value in ready.items():
            pay(st, "R7.4", s, r, value)
            st.fired.add("R7.4-ready-paid")
    # R7.5: kong refund by every active player not ready (pigs included), except income
    # already handed on by R6.5.
    if st.rules.kong_refund:
        for s in seats:
            if s not in ready:
                refund_kongs(st, s, "R7.5")


def refund_kongs(st, seat: int, rule: str) -> None:
    """Return all kong income ``seat`` received this hand to its payers (R7.5, R8), except
    income already handed on by R6.5."""
    for rec in st.kongs:
        if rec["seat"] == seat and not rec["transferred"] and not rec.get("refunded"):
            rec["refunded"] = True
            for p, a in rec["pay"]:
                pay(st, rule, seat, p, a)
                st.fired.add("R7.5-refund")


def end_of_wall(st) -> None:
    """R7: the ready check when the wall ran out with at least two active players."""
    seats = [s for s in range(4) if st.active[s]]
    if len(seats) < 2:
        return
    st.fired.add("R7-ready-check")
    pigs = {s for s in seats if is_pig(st, s)}
    for p in sorted(pigs):
        st.events.append({"type": "pig", "seat": p})
        st.fired.add("R7.2-pig")
    if st.rules.pig_penalty:
        # R7.2: each pig pays every non-pig player (active or already won) the capped maximum.
        mp = st.rules.max_points
        for p in sorted(pigs):
            for q in range(4):
                if q != p and q not in pigs and not st.escaped[q]:
                    pay(st, "R7.2", p, q, mp)
    ready = _ready_values(st, seats, pigs)
    _ready_and_refund(st, seats, ready, pigs)


def _ready_values(st, seats, pigs) -> dict:
    """R7.3: each ready non-pig among ``seats`` with its value (包大), announced as an event."""
    ready = {}
    for s in seats:
        if s not in pigs:
            v = ready_value(st, s)
            if v > 0:
                ready[s] = v
                st.events.append({"type": "ready", "seat": s, "value": v})
    return ready


def settle_escape(st, seat: int) -> None:
    """R8: the escapee's kong income is refunded; among the other active players the ready
    check R7.3–R7.5 is made without the pig penalty; the escapee pays each ready player its
    value and a further ``escape_penalty × base`` to nobody."""
    st.fired.add("R8-escape")
    refund_kongs(st, seat, "R8")
    seats = [s for s in range(4) if st.active[s]]
    pigs = {s for s in seats if is_pig(st, s)}
    for p in sorted(pigs):  # R7.1 still tells who is a pig; R7.2 is not applied (R8)
        st.events.append({"type": "pig", "seat": p})
        st.fired.add("R7.2-pig")
    ready = _ready_values(st, seats, pigs)
    if seats:
        st.fired.add("R7-ready-check")
    _ready_and_refund(st, seats, ready, pigs)
    for r, value in ready.items():
        pay(st, "R8", seat, r, value)
    pay(st, "R8", seat, None, st.rules.escape_penalty * st.rules.base)
