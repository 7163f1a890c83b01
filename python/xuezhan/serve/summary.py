"""The end of a hand as the table shows it: one row per player with its wins (tile, how, fan
items and fan), its points by kind (wins, kongs, the ready check with pigs and refunds, escapes)
and its total, and every payment with who paid whom, how much, and the rule it was paid under.

Built only from the public views of the hand's events (like :mod:`.words`), so a summary holds
nothing a seat may not know; names come from the engine's registries (payment rules,
:data:`xuezhan.engine.fired.PAYMENTS`; rule titles, :mod:`xuezhan.rulebook`) and the core's fan
labels (:data:`xuezhan.rules.FAN_NAMES`), each split into its Chinese and its English words.

    >>> events = [
    ...     {"type": "win", "seat": 1, "from": 0, "tile": "5p", "fan": 2, "points": 2,
    ...      "items": {"gen": 1}, "how": "discard", "forced": False},
    ...     {"type": "pay", "rule": "R6.1", "from": 0, "to": 1, "amount": 2},
    ...     {"type": "end", "reason": "wall", "deltas": [-2, 2, 0, 0]},
    ... ]
    >>> s = hand_summary(events, ["Li", "Wang", "Zhao", "Qian"])
    >>> [(r.name, r.hu, r.total) for r in s.rows]
    [('Li', -2, -2), ('Wang', 2, 2), ('Zhao', 0, 0), ('Qian', 0, 0)]
    >>> p = s.payments[0]
    >>> (p.payer, p.payee, p.amount, p.words.zh, p.words.en, p.title)
    (0, 1, 2, '点炮', 'win on a discard', 'R6.1 Win on a discard')
    >>> s.rows[1].wins[0].items[0].zh, s.rows[1].wins[0].items[0].en
    ('根', 'gen')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from xuezhan import rulebook
from xuezhan.engine.fired import PAYMENTS
from xuezhan.rules import FAN_NAMES
from xuezhan.serve.protocol import FanItem, GridPayment, GridRow, GridWin, HandSummary, Words

__all__ = ["COLUMNS", "RULE_WORDS", "bilingual", "hand_summary", "rule_words"]

#: The grid column each payment rule adds to.
COLUMNS: Mapping[str, str] = {
    "R3.3": "hu",
    "R6.1": "hu",
    "R6.2": "hu",
    "R6.3": "hu",
    "R6.4": "kong",
    "R6.5": "kong",
    "R7.2": "check",
    "R7.4": "check",
    "R7.5": "check",
    "R8": "escape",
}

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef/]+")


def bilingual(label: str) -> Words:
    """A registry label that mixes both languages (``"win on a discard (点炮)"``) as its Chinese
    and its English words.

    >>> bilingual("杠上开花 after a kong on a discard (引杠者输点)")
    Words(zh='杠上开花·引杠者输点', en='after a kong on a discard')
    >>> bilingual("大对子")
    Words(zh='大对子', en='大对子')
    """
    zh = "·".join(_CJK.findall(label))
    en = " ".join(_CJK.sub(" ", label).replace("(", " ").replace(")", " ").split())
    return Words(zh=zh or en, en=en or zh)


@cache
def rule_words(rule: str) -> Words:
    """A payment rule's name (the engine's registry), in both languages."""
    return bilingual(PAYMENTS.get(rule, rule))


#: Every payment rule's name in both languages (the table's event log names payments with it).
RULE_WORDS: Mapping[str, Words] = {rule: rule_words(rule) for rule in PAYMENTS}


@cache
def _title(rule: str) -> str:
    try:
        return rulebook.title(rule)
    except (KeyError, ValueError):
        return rule


def _fan_item(key: str, fan: int) -> FanItem:
    return FanItem(key=key, zh=FAN_NAMES.get(key, key), en=key.replace("_", " "), fan=fan)


def _win(e: Mapping[str, Any]) -> GridWin:
    how = e.get("how")
    return GridWin(
        tile=e["tile"],
        how=how if how in ("self_draw", "discard", "rob") else "discard",
        discarder=e.get("from"),
        fan=e["fan"],
        points=e["points"],
        items=[_fan_item(k, v) for k, v in (e.get("items") or {}).items()],
        forced=bool(e.get("forced")),
    )


def hand_summary(events: Iterable[Mapping[str, Any]], names: Sequence[str]) -> HandSummary:
    """The grid and the payments of a finished hand from its public views (``events``); the
    seats called by ``names``. Each row's columns add up to its total, the hand's change of its
    score."""
    rows = [GridRow(seat=s, name=names[s]).model_dump() for s in range(4)]
    payments: list[GridPayment] = []
    reason = ""
    for e in events:
        t = e.get("type")
        if t == "win":
            row = rows[e["seat"]]
            row["wins"].append(_win(e))
            row["fan"] += e["fan"]
        elif t == "pay":
            rule = e["rule"]
            column = COLUMNS.get(rule, "hu")
            payer, payee, n = e["from"], e["to"], e["amount"]
            rows[payer][column] -= n
            rows[payer]["total"] -= n
            if payee is not None:
                rows[payee][column] += n
                rows[payee]["total"] += n
            payments.append(
                GridPayment(
                    payer=payer,
                    payee=payee,
                    amount=n,
                    rule=rule,
                    words=rule_words(rule),
                    title=_title(rule),
                    column=column,  # type: ignore[arg-type]
                )
            )
        elif t == "end":
            reason = str(e.get("reason", ""))
    return HandSummary(rows=[GridRow.model_validate(r) for r in rows], payments=payments, reason=reason)
