"""The ledger of a hand: its events, payments, wins, kongs, rules fired and what its end found
(docs/rules.md R6–R9, R12.2).

:class:`Ledger` is everything a hand records and nothing it plays with: settlement
(:mod:`.settlement`) is handed the ledger alone (with the rules and the facts it settles), never
the seats or the wall, so a payment cannot depend on anything but its rule. Kong income is kept
per kong (:class:`KongRecord`) so that R6.5 (transfer) and R7.5 / R8 (refund) can find it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xuezhan.engine.events import Event, Pay, Win

__all__ = ["KongRecord", "Ledger"]


@dataclass(slots=True)
class KongRecord:
    """One kong and the income it earned at once (R6.4), for the transfer (R6.5) and the refund
    (R7.5, R8). ``how`` is ``"gang"`` (on a discard of ``frm``), ``"angang"`` or ``"jiagang"``."""

    seat: int
    kind: int
    how: str
    frm: int | None
    pay: list[tuple[int, int]] = field(default_factory=list)  # (payer, amount)
    transferred: bool = False  # handed on by R6.5
    refunded: bool = False  # returned by R7.5 / R8

    @property
    def income(self) -> int:
        return sum(a for _, a in self.pay)


@dataclass(slots=True)
class Ledger:
    """What a hand records: every event in order, the payments and the deltas they add up to
    (R12.2), the wins, the kongs with their income, the rule ids that fired (R9.3) and the
    findings of the end of the hand (R7, R8, R9.2)."""

    events: list[Event] = field(default_factory=list)
    deltas: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    deltas_view: tuple[int, ...] = (0, 0, 0, 0)  # tuple(deltas), rebuilt at each payment
    payments: list[Pay] = field(default_factory=list)  # the pay events, in order
    wins: list[Win] = field(default_factory=list)  # the win events, in order
    kongs: list[KongRecord] = field(default_factory=list)
    fired: set[str] = field(default_factory=set)  # rule ids (xuezhan.engine.fired)
    defaults_used: int = 0  # R10 defaults taken (the "defaults" rule fires at the end)
    # what the end of the hand found (R7, R8, R9.2)
    checked: tuple[int, ...] = ()  # the seats the ready check was made for
    pigs: set[int] = field(default_factory=set)
    ready: dict[int, int] = field(default_factory=dict)  # ready seat -> its value (R7.3)
    end_reason: str | None = None  # "wall", "three_won" or "escape"
    next_dealer: int | None = None

    def pay(self, rule: str, payer: int, payee: int | None, amount: int) -> None:
        """One payment, recorded as a ``pay`` event (nothing for an amount of 0). R12.2: every
        point paid is received, except the R8 penalty (``payee`` None)."""
        if amount <= 0:
            return
        d = self.deltas
        d[payer] -= amount
        if payee is not None:
            d[payee] += amount
        self.deltas_view = tuple(d)
        e = Pay(rule, payer, payee, amount)
        self.events.append(e)
        self.payments.append(e)

    def record(self, event: Event) -> None:
        """Append an event."""
        self.events.append(event)

    def fire(self, rule_id: str) -> None:
        """Note that a rule fired in this hand (R9.3)."""
        self.fired.add(rule_id)
