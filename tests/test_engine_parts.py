"""The hand's parts (docs/internals.md): the wall, the seats, the turn and the ledger each do
one job and are used through narrow interfaces. Settlement runs on a ledger alone, the claim
window on seats, wall and ledger, the exchange on turn, seats and ledger; a round is those four
parts and its facts, nothing else, each field read through the part that keeps it; nothing
outside the round calls its private methods; a deep copy plays on exactly like the original."""

from __future__ import annotations

import ast
import copy
import dataclasses
import random
import typing
from pathlib import Path

import pytest
from _engine_helpers import PENG_HANDS

from xuezhan.engine import Round, hand_end, log_lines, settlement, setup
from xuezhan.engine import claims as claim_flow
from xuezhan.engine import fired as F
from xuezhan.engine.actions import act
from xuezhan.engine.ledger import KongRecord, Ledger
from xuezhan.engine.seats import Holding, Seats
from xuezhan.engine.turn import Phase, Turn
from xuezhan.engine.wall import Wall
from xuezhan.rules import Rules
from xuezhan.tiles import parse_tiles, to_counts

PARTS = (Wall, Seats, Turn, Ledger)


def test_settlement_runs_on_a_ledger_alone():
    """R6.4 then R7.5: a kong's income and its refund, with nothing of a hand but its ledger."""
    rules = Rules.preset("chengdu")
    ledger = Ledger()
    rec = settlement.settle_kong(ledger, rules, 2, 9, "angang", None, [0, 1, 3])
    assert ledger.deltas == [-2, -2, 6, -2] and ledger.deltas_view == (-2, -2, 6, -2)
    assert [(p.rule, p.frm, p.to, p.amount) for p in ledger.payments] == [("R6.4", p, 2, 2) for p in (0, 1, 3)]
    assert ledger.events == ledger.payments and rec.income == 6
    settlement.refund_kongs(ledger, [rec], 2, "R7.5")
    assert ledger.deltas == [0, 0, 0, 0] and rec.refunded
    assert ledger.fired == {F.KONG["angang"], F.REFUND}


def test_the_ready_check_runs_on_a_ledger_and_holdings():
    """R7.2–R7.4 from the seats' tiles as values (Holding), not from the seats themselves."""
    rules = Rules.preset("chengdu")
    ledger = Ledger()
    ready = Holding(to_counts("123456789m4566p"[:-1] + "p"), b"", -1)  # waits on 4p, 7p
    pig = Holding(to_counts("1m1p1s2m2p2s3m3p3s4m4p4s5m"), b"", -1)  # all three suits
    held = {0: ready, 1: pig}
    pigs, values = settlement.end_of_wall(ledger, rules, [], held, [0, 1, 2, 3])
    assert pigs == {1} and set(values) == {0} and values[0] > 0
    assert sum(ledger.deltas) == 0 and ledger.deltas[1] < 0 < ledger.deltas[0]


def test_the_claim_window_runs_on_seats_wall_and_ledger():
    """R3, R13: who is asked about a discard, what it may claim, and the peng's tile move."""
    hands = [parse_tiles(h) for h in PENG_HANDS]  # seat 1 holds 555p, seat 2 waits on 5p
    seats = Seats.deal(hands, stay=False, voids_known=True)
    wall = Wall.deal(hands, [])
    ledger = Ledger()
    five_p = parse_tiles("5p")[0]
    seats.counts[0][five_p] -= 1  # the dealer discards 5p
    seats.set_river(0, (five_p,))
    wall.see(five_p, 1)
    for s in range(4):
        seats.update_mask(s)
    core = Rules.preset("leshan").core
    w = claim_flow.open_window(seats, 0, five_p, False, 0, None)
    assert w.queue == [1, 2, 3]
    first = claim_flow.next_claimant(w, seats, ledger, core, False, True, False)
    assert first is not None and first[0] == 1 and {a.verb for a in first[1]} >= {"peng", "gang", "pass"}
    claim_flow.note_claim(w, seats, ledger, 1, "peng", False, True)
    second = claim_flow.next_claimant(w, seats, ledger, core, False, True, False)
    assert second is not None and second[0] == 2 and second[1][0] == act(2, "hu")  # asked after the peng (R13)
    claim_flow.take_meld(seats, wall, ledger, 1, "peng", 0, five_p)
    assert seats.river[0] == () and seats.counts[1][five_p] == 1 and seats.meld_view[1] == ((0, five_p),)
    assert wall.seen_view[five_p] == 3 and seats.meld_from[1] == [0]
    assert [e.type for e in ledger.events] == ["peng", "meld"]


def test_the_exchange_runs_on_turn_seats_and_ledger():
    """R11.1: four choices, then the tiles pass all at once, without a round."""
    rnd = Round.from_seed("chengdu", 3, dealer=0)
    turn, seats, ledger = Turn(), copy.deepcopy(rnd.seats), Ledger()
    before = [bytes(c) for c in seats.counts]
    setup.begin_exchange(turn, seats)
    assert turn.phase is Phase.EXCHANGE and turn.cur == 0
    for s in range(4):
        choice = setup.default_exchange(seats.counts[s], s)
        done = setup.apply_exchange(turn, seats, ledger, "across", choice, default=False)
        assert done == (s == 3)
    assert [sum(c) for c in seats.counts] == [sum(b) for b in before]
    assert [bytes(c) for c in seats.counts] != before and ledger.fired == {F.EXCHANGE}


def _names(hint: object) -> str:
    return repr(hint)


@pytest.mark.parametrize("module", [settlement, claim_flow, setup, hand_end])
def test_the_part_functions_never_take_the_whole_round(module):
    """No public function of settlement, the claim window, setup or the end of the hand takes a Round."""
    for name in module.__all__:
        fn = getattr(module, name)
        if not callable(fn) or isinstance(fn, type):
            continue
        hints = typing.get_type_hints(fn)
        assert not any("Round" in _names(h) for h in hints.values()), f"{module.__name__}.{name} takes a Round"


def test_settlement_sees_only_the_ledger_of_a_hand():
    """Settlement's functions take the ledger, never the seats, the wall or the turn."""
    for name in settlement.__all__:
        fn = getattr(settlement, name)
        if not callable(fn) or isinstance(fn, type):
            continue
        hints = " ".join(_names(h) for h in typing.get_type_hints(fn).values())
        for part in ("Seats", "Wall", "Turn"):
            assert part not in hints, f"settlement.{name} takes {part}"


def test_a_round_is_its_four_parts_and_its_facts():
    rnd = Round.from_seed("xueliu", 11, dealer=1)
    parts = {type(v) for k, v in vars(rnd).items() if dataclasses.is_dataclass(v) and k != "rules"}
    assert parts == set(PARTS)
    assert set(vars(rnd)) == {
        "rules", "core", "dealer", "seed", "exchange_dir", "scores", "scores_view",
        "hands0", "wall", "seats", "turn", "ledger",
    }  # fmt: skip
    for part in PARTS:
        assert not hasattr(part(**_minimal(part)), "__dict__"), f"{part.__name__} is not slotted"
    fields = [{f.name for f in dataclasses.fields(p)} for p in PARTS]
    for i, a in enumerate(fields):
        for b in fields[i + 1 :]:
            assert not a & b, f"a field kept in two parts: {a & b}"


def _minimal(part: type) -> dict:
    if part is Wall:
        return {"tiles": [], "dealt": bytes(27)}
    if part is Seats:
        return {"counts": [bytearray(27) for _ in range(4)]}
    return {}


#: The names a round once forwarded to its parts (each field had two names): gone for good.
OLD_VIEWS = [
    "counts",
    "melds",
    "meld_from",
    "river",
    "aside",
    "won",
    "escaped",
    "active",
    "void",
    "voids_known",
    "stay",
    "wall_count",
    "phase",
    "cur",
    "legal",
    "drawn",
    "discard_mask",
    "claims",
    "v_choice",
    "x_choice",
    "events",
    "deltas",
    "wins",
    "kongs",
    "payments",
    "fired",
    "pigs",
    "ready",
    "checked",
    "end_reason",
    "next_dealer",
]


def test_each_field_of_a_round_has_one_path_through_its_part():
    """No field of a part is also an attribute of the round (``rnd.turn.cur``, never ``rnd.cur``)."""
    rnd = Round.from_seed("xueliu", 5, dealer=0)
    fields = {f.name for part in PARTS for f in dataclasses.fields(part)}
    assert set(OLD_VIEWS) - {"wall_count"} <= fields
    for name in sorted(fields | set(OLD_VIEWS)):
        assert not hasattr(rnd, name), f"Round.{name}: read it through the part that keeps it"
    assert rnd.wall.count == len(rnd.wall.tiles) - rnd.wall.pos


ROOT = Path(__file__).resolve().parents[1]


def _private_uses(path: Path, private: set[str]) -> list[str]:
    """``x._name`` in ``path`` for a private name of Round, ``x`` anything but ``self``/``cls``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in private
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]


def test_the_round_module_holds_the_public_api_only():
    """The transitions live in the engine's modules by concern (flow, claims, setup, the end of
    the hand): round.py stays at most 450 lines."""
    lines = (ROOT / "python" / "xuezhan" / "engine" / "round.py").read_text(encoding="utf-8").count("\n")
    assert lines <= 450, f"round.py has {lines} lines"


def test_no_module_outside_the_round_calls_its_private_methods():
    """The seat loop, the determinization, the flow modules, the tests and the benchmarks use
    Round's public API (``apply_legal``, ``from_parts``, ...), never its private methods."""
    private = {n for n in vars(Round) if n.startswith("_") and not n.startswith("__")}
    assert {"_start", "_apply", "_refusal"} <= private
    files = [p for d in ("python", "tests", "benchmarks", "examples") for p in (ROOT / d).rglob("*.py")]
    own = ROOT / "python" / "xuezhan" / "engine" / "round.py"
    assert own in files
    found = [hit for p in files if p != own for hit in _private_uses(p, private)]
    assert not found, found


@pytest.mark.parametrize("preset", ["leshan", "chengdu", "xueliu"])
def test_a_deep_copy_plays_on_like_the_original_and_shares_no_part(preset):
    rng = random.Random(4)
    rnd = Round.from_seed(preset, 21, dealer=2)
    for _ in range(25):
        rnd.apply(rng.choice(rnd.legal_actions(rnd.turn.cur)))
    twin = copy.deepcopy(rnd)
    for name in ("wall", "seats", "turn", "ledger"):
        assert getattr(twin, name) is not getattr(rnd, name)
    assert twin.seats.counts[0] is not rnd.seats.counts[0]
    moves = random.Random(9)
    while not rnd.over:
        a = moves.choice(rnd.legal_actions(rnd.turn.cur))
        rnd.apply(a)
        twin.apply(a)
    assert log_lines(twin) == log_lines(rnd) and twin.result() == rnd.result()


def test_kong_records_live_in_the_ledger():
    rnd = Round("leshan", ["9999s2468m2468p13s", "13579m2468p1357s", "2468m13579p2468s", "13579m13579p246s"], "5m6m")
    rnd.apply("0 angang 9s")
    assert (
        rnd.ledger.kongs and isinstance(rnd.ledger.kongs[0], KongRecord) and rnd.turn.flags.kong is rnd.ledger.kongs[0]
    )
