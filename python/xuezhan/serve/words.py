"""The end of a hand in words: every payment with its rule id, the ready check, pigs, escapes.

Built only from the public views of events (``public_view(event, seat)``), so a seat's
settlement text holds nothing that seat may not know.

    >>> payment_text({"type": "pay", "rule": "R6.5", "from": 2, "to": 3, "amount": 2})
    '杠上炮 (kong transfer): seat 2 hands its kong income of 2 to seat 3, R6.5'
    >>> payment_text({"type": "pay", "rule": "R6.1", "from": 0, "to": 1, "amount": 4})
    'win on a discard (点炮): seat 0 pays seat 1 4, R6.1'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from xuezhan.engine.fired import PAYMENTS
from xuezhan.rules import FAN_NAMES

__all__ = ["RULE_NAMES", "payment_text", "settlement_lines"]

#: What each payment rule is called (R3.3, R6, R7, R8): the engine's registry.
RULE_NAMES: Mapping[str, str] = PAYMENTS
#: Fan item names (R5): the core's labels.
_ITEM_NAMES: Mapping[str, str] = FAN_NAMES


def payment_text(e: Mapping[str, Any]) -> str:
    """One ``pay`` event in words, naming its rule."""
    rule, frm, to, n = e["rule"], e["from"], e["to"], e["amount"]
    name = RULE_NAMES.get(rule, rule)
    if rule == "R6.5":
        return f"{name}: seat {frm} hands its kong income of {n} to seat {to}, {rule}"
    if rule == "R7.5":
        return f"{name}: seat {frm} returns {n} of kong income to seat {to}, {rule}"
    if rule == "R8" and to is None:
        return f"{name}: seat {frm} is charged the escape penalty {n}, paid to nobody, {rule}"
    if rule == "R8":
        return f"{name}: seat {frm} pays ready seat {to} its value {n}, {rule}"
    if rule == "R7.4":
        return f"{name}: seat {frm} (not ready) pays ready seat {to} {n}, {rule}"
    if rule == "R7.2":
        return f"{name}: seat {frm} holds three suits and pays seat {to} {n}, {rule}"
    return f"{name}: seat {frm} pays seat {to} {n}, {rule}"


def _win_text(e: Mapping[str, Any]) -> str:
    how = {
        "discard": f"on the discard of seat {e['from']}",
        "rob": f"robbing the kong of seat {e['from']}",
        "self_draw": "by self-draw (自摸)",
    }.get(e.get("how", ""), "")
    items = ", ".join(f"{_ITEM_NAMES.get(k, k)} +{v}" for k, v in (e.get("items") or {}).items()) or "平胡"
    forced = " (compulsory, R4.4)" if e.get("forced") else ""
    return f"seat {e['seat']} wins on {e['tile']} {how}{forced}: {e['fan']} fan, {e['points']} points [{items}]"


def settlement_lines(events: Iterable[Mapping[str, Any]]) -> list[str]:
    """Wins, pigs, ready players, escapes and every payment, in the order they happened."""
    out: list[str] = []
    for e in events:
        t = e.get("type")
        if t == "win":
            out.append(_win_text(e))
        elif t == "pay":
            out.append(payment_text(e))
        elif t == "pig":
            out.append(f"seat {e['seat']} is a pig (花猪): it holds a tile of every suit, R7.1")
        elif t == "ready":
            out.append(f"seat {e['seat']} is ready (听牌), worth {e['value']}, R7.3")
        elif t == "escape":
            out.append(f"seat {e['seat']} left the table: an escape, R8")
        elif t == "end":
            reason = {
                "wall": "the wall is empty",
                "three_won": "three players have won",
                "escape": "a player escaped",
            }.get(e.get("reason", ""), str(e.get("reason")))
            out.append(f"the hand is over: {reason}; this hand: {e['deltas']}")
    return out
