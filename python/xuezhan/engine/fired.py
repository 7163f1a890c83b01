"""The registry of rule ids a hand can fire (R9.3: a result's ``fired``), and of the rules a
payment can name: one place that settlement, claims and setup fire from, and that the
tournament report, the rule studies and the game room read their words from.

Each fired id is ``<rule>-<what>``: the docs/rules.md rule it cites, then what happened.

    >>> FIRED[MULTI_WIN].rule, FIRED[MULTI_WIN].words
    ('R3.2', 'several wins on one discard (一炮多响)')
    >>> KONG[ANGANG_HOW], PAYMENTS["R6.5"]
    ('R6.4-angang', '杠上炮 (kong transfer)')
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "FIRED",
    "FiredRule",
    "HEADLINE",
    "KONG",
    "PAYMENTS",
    "ANGANG_HOW",
    "CAPPED",
    "DEFAULTS",
    "DISCARD_WIN",
    "ESCAPE",
    "EXCHANGE",
    "KONG_DRAW_DISCARDER_PAYS",
    "KONG_TRANSFER",
    "MULTI_WIN",
    "PASS_WIN",
    "PHASE_WIN",
    "PIG",
    "READY_CHECK",
    "READY_PAID",
    "REFUND",
    "REPEAT_WIN",
    "ROB_KONG",
    "SELF_DRAW",
    "VOID",
]


@dataclass(frozen=True, slots=True)
class FiredRule:
    """A fired-rule id, the docs/rules.md rule it cites, and what it means in words."""

    id: str
    rule: str
    words: str
    headline: bool = False  # a study lists it even when it never fired (0% is worth reading)


MULTI_WIN = "R3.2-multi-win"
ROB_KONG = "R3.3-rob-kong"
PASS_WIN = "R4.3-pass"
PHASE_WIN = "R4.4-phase-win"
CAPPED = "R5-capped"
DISCARD_WIN = "R6.1-discard-win"
SELF_DRAW = "R6.2-self-draw"
KONG_DRAW_DISCARDER_PAYS = "R6.3-kong-draw-discarder-pays"
KONG_TRANSFER = "R6.5-kong-transfer"
READY_CHECK = "R7-ready-check"
PIG = "R7.2-pig"
READY_PAID = "R7.4-ready-paid"
REFUND = "R7.5-refund"
ESCAPE = "R8-escape"
DEFAULTS = "R10-defaults"
EXCHANGE = "R11.1-exchange"
VOID = "R11.2-void"
REPEAT_WIN = "R14.3-repeat-win"
ANGANG_HOW = "angang"
#: The id a kong fires by how it was made (R6.4): on a discard, concealed, added.
KONG: dict[str, str] = {how: f"R6.4-{how}" for how in ("gang", ANGANG_HOW, "jiagang")}

_RULES = (
    FiredRule(MULTI_WIN, "R3.2", "several wins on one discard (一炮多响)", True),
    FiredRule(KONG_TRANSFER, "R6.5", "kong income handed on, 杠上炮 (呼叫转移)", True),
    FiredRule(ROB_KONG, "R3.3", "robbed kong (抢杠胡)", True),
    FiredRule(KONG_DRAW_DISCARDER_PAYS, "R6.3", "杠上开花 after a kong on a discard: discarder pays"),
    FiredRule(PHASE_WIN, "R4.4", "forced win in the last tiles (R4.4)", True),
    FiredRule(PASS_WIN, "R4.3", "passed win (过水)", True),
    FiredRule(READY_CHECK, "R7", "end-of-wall ready check (查叫)", True),
    FiredRule(READY_PAID, "R7.4", "not-ready player pays a ready one"),
    FiredRule(PIG, "R7.2", "pig caught (花猪)", True),
    FiredRule(REFUND, "R7.5", "kong refund (退税)", True),
    FiredRule(ESCAPE, "R8", "escape (逃跑)", True),
    FiredRule(CAPPED, "R5", "win at the cap (极品)"),
    FiredRule(DISCARD_WIN, "R6.1", "win on a discard"),
    FiredRule(SELF_DRAW, "R6.2", "self-draw win (自摸)"),
    FiredRule(KONG["gang"], "R6.4", "kong on a discard (点杠)"),
    FiredRule(KONG["jiagang"], "R6.4", "added kong (加杠)"),
    FiredRule(KONG[ANGANG_HOW], "R6.4", "concealed kong (暗杠)"),
    FiredRule(EXCHANGE, "R11.1", "exchange of three tiles (换三张)"),
    FiredRule(VOID, "R11.2", "void suit declared (定缺)"),
    FiredRule(DEFAULTS, "R10", "a decision taken by default (R10)"),
    FiredRule(REPEAT_WIN, "R14.3", "a winner won again (血流成河, R14)"),
)
#: Every fired id, in the order reports list them.
FIRED: dict[str, FiredRule] = {r.id: r for r in _RULES}
#: The ids a study lists even when they never fired.
HEADLINE: tuple[str, ...] = tuple(r.id for r in _RULES if r.headline)

#: What each rule a payment names is called (R3.3, R6, R7, R8): the ``rule`` of a ``pay`` event.
PAYMENTS: dict[str, str] = {
    "R3.3": "抢杠胡 (robbing a kong)",
    "R6.1": "win on a discard (点炮)",
    "R6.2": "self-draw (自摸)",
    "R6.3": "杠上开花 after a kong on a discard (引杠者输点)",
    "R6.4": "kong (杠)",
    "R6.5": "杠上炮 (kong transfer)",
    "R7.2": "pig (花猪)",
    "R7.4": "ready check (查叫)",
    "R7.5": "kong refund (退税)",
    "R8": "escape (逃跑)",
}
