"""The end of a hand in words: every payment with its rule id, the ready check, pigs, escapes.

Built only from the public views of events (``public_view(event, seat)``), so a seat's
settlement text holds nothing that seat may not know.

    >>> payment_text({"type": "pay", "rule": "R6.5", "from": 2, "to": 3, "amount": 2})
    '杠上炮 (kong transfer): seat 2 hands its kong income of 2 to seat 3, R6.5'
    >>> payment_text({"type": "pay", "rule": "R6.1", "from": 0, "to": 1, "amount": 4})
    'win on a discard (点炮): seat 0 pays seat 1 4, R6.1'

At a table the seats are named (:func:`seat_labels`), and every line uses the names:

    >>> names = seat_labels(["Li", "greedy", "Wang", "greedy"], dealer=2)
    >>> names
    ['Li', 'greedy (North)', 'Wang', 'greedy (South)']
    >>> payment_text({"type": "pay", "rule": "R6.1", "from": 0, "to": 1, "amount": 4}, names)
    'win on a discard (点炮): Li pays greedy (North) 4, R6.1'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from xuezhan.engine.fired import PAYMENTS
from xuezhan.rules import FAN_NAMES

__all__ = ["RULE_NAMES", "WINDS", "count", "payment_text", "seat_labels", "seat_wind", "settlement_lines"]

#: What each payment rule is called (R3.3, R6, R7, R8): the engine's registry.
RULE_NAMES: Mapping[str, str] = PAYMENTS

#: The seat winds, from the dealer's (East) in turn order (R2: seats play 0 -> 1 -> 2 -> 3).
WINDS: tuple[str, ...] = ("East", "South", "West", "North")


def seat_wind(seat: int, dealer: int) -> int:
    """The seat's wind as an index into :data:`WINDS`: the dealer is East, the next seat South."""
    return (seat - dealer) % 4


def seat_labels(names: Sequence[str], dealer: int) -> list[str]:
    """What the room calls each seat: its name, with its seat wind when another seat has the
    same name (two ``greedy`` bots), and ``seat N`` for a seat without a name."""
    out = []
    for s, n in enumerate(names):
        if not n:
            out.append(f"seat {s}")
        elif sum(1 for o in names if o == n) > 1:
            out.append(f"{n} ({WINDS[seat_wind(s, dealer)]})")
        else:
            out.append(n)
    return out


def count(n: int, noun: str) -> str:
    """``n`` and the noun, singular for one: ``count(1, "point")`` is ``'1 point'``.

    >>> count(1, "point"), count(2, "point"), count(-1, "point")
    ('1 point', '2 points', '-1 point')
    """
    return f"{n} {noun}" if abs(n) == 1 else f"{n} {noun}s"


def _seat_namer(names: Sequence[str] | None) -> Callable[[int], str]:
    if names is None:
        return lambda s: f"seat {s}"
    return lambda s: names[s]


#: Fan item names (R5): the core's labels.
_ITEM_NAMES: Mapping[str, str] = FAN_NAMES


def payment_text(e: Mapping[str, Any], names: Sequence[str] | None = None) -> str:
    """One ``pay`` event in words, naming its rule (and the seats by ``names`` if given)."""
    who = _seat_namer(names)
    rule, n = e["rule"], e["amount"]
    frm, to = who(e["from"]), (None if e["to"] is None else who(e["to"]))
    name = RULE_NAMES.get(rule, rule)
    if rule == "R6.5":
        return f"{name}: {frm} hands its kong income of {n} to {to}, {rule}"
    if rule == "R7.5":
        return f"{name}: {frm} returns {n} of kong income to {to}, {rule}"
    if rule == "R8" and to is None:
        return f"{name}: {frm} is charged the escape penalty {n}, paid to nobody, {rule}"
    if rule == "R8":
        return f"{name}: {frm} pays {to} (ready) its value {n}, {rule}"
    if rule == "R7.4":
        return f"{name}: {frm} (not ready) pays {to} (ready) {n}, {rule}"
    if rule == "R7.2":
        return f"{name}: {frm} holds three suits and pays {to} {n}, {rule}"
    return f"{name}: {frm} pays {to} {n}, {rule}"


def _win_text(e: Mapping[str, Any], who: Callable[[int], str]) -> str:
    how = {
        "discard": f"on the discard of {who(e['from'])}" if e.get("from") is not None else "",
        "rob": f"robbing the kong of {who(e['from'])}" if e.get("from") is not None else "",
        "self_draw": "by self-draw (自摸)",
    }.get(e.get("how", ""), "")
    items = ", ".join(f"{_ITEM_NAMES.get(k, k)} +{v}" for k, v in (e.get("items") or {}).items()) or "平胡"
    forced = " (compulsory, R4.4)" if e.get("forced") else ""
    points = count(e["points"], "point")
    return f"{who(e['seat'])} wins on {e['tile']} {how}{forced}: {e['fan']} fan, {points} [{items}]"


def settlement_lines(events: Iterable[Mapping[str, Any]], names: Sequence[str] | None = None) -> list[str]:
    """Wins, pigs, ready players, escapes and every payment, in the order they happened; the
    seats by ``names`` (:func:`seat_labels`) if given, else ``seat N``."""
    who = _seat_namer(names)
    out: list[str] = []
    for e in events:
        t = e.get("type")
        if t == "win":
            out.append(_win_text(e, who))
        elif t == "pay":
            out.append(payment_text(e, names))
        elif t == "pig":
            out.append(f"{who(e['seat'])} is a pig (花猪): it holds a tile of every suit, R7.1")
        elif t == "ready":
            out.append(f"{who(e['seat'])} is ready (听牌), worth {e['value']}, R7.3")
        elif t == "escape":
            out.append(f"{who(e['seat'])} left the table: an escape, R8")
        elif t == "end":
            reason = {
                "wall": "the wall is empty",
                "three_won": "three players have won",
                "escape": "a player escaped",
            }.get(e.get("reason", ""), str(e.get("reason")))
            deltas = ", ".join(f"{who(i)} {d:+d}" for i, d in enumerate(e["deltas"]))
            out.append(f"the hand is over: {reason}; this hand: {deltas}")
    return out
