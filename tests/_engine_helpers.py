"""Helpers for the engine tests: checked event lists (R12 after every event), bots, variants."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import chain, islice
from pathlib import Path

from xuezhan import _core
from xuezhan.engine import replay_script
from xuezhan.engine.actions import HU, Action
from xuezhan.engine.events import DECISION_TYPES
from xuezhan.engine.invariants import InvariantError
from xuezhan.rules import Rules
from xuezhan.tiles import meld_kind, meld_size

# The rule vectors (R13), kept in the repository (tests/vectors/README.md).
VECTORS = Path(__file__).resolve().parent / "vectors"

# Scripted deals used across the engine and settlement tests.
W25 = "123m456m789m46p99p"  # 13 tiles waiting on 5p only
W2P5P = "123456789m3455p"  # waits 2p and 5p
JD0 = "12468m2468p13579s"  # 14 junk tiles for a dealer
J3X = "13579m1379p2468s"  # junk without 5p
KONG_HANDS = ["9999s2468m2468p13s", "13579m2468p1357s", "2468m13579p2468s", "13579m13579p246s"]
# Seat 1 holds 555p, seat 2 waits on 5p, the dealer holds the fourth 5p.
PENG_HANDS = ["12468m24568p1379s", "2468m13555p1357s", W25, "1379m1379p24678s"]
SELF_HANDS = [JD0, W2P5P, "2468m13579p2468s", J3X]


def vector(name: str, **rules) -> tuple:
    """Replay the rule vector ``name`` (rules overridden by ``rules``): (result, round)."""
    doc = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    if rules:
        doc["rules"] = {**doc["rules"], **rules}
    return replay_script(doc, return_round=True)


_AFTER_ESCAPE = {"pay", "ready", "pig", "end"}


class CheckedEvents(list):
    """An event list that checks docs/rules.md R12.1–R12.3 after every appended event."""

    def __init__(self, rnd, items=()):
        super().__init__(items)
        self.rnd = rnd
        self.escaped_at = None
        self.count = 0

    def append(self, event):  # noqa: D401
        super().append(event)
        self.count += 1
        rnd = self.rnd
        check_state(rnd)
        e = event.to_json()
        t = e["type"]
        # R12.3: a player that has won or escaped never acts or pays afterwards.
        # (R14: a winner that stays in the hand goes on acting and paying.)
        if t in DECISION_TYPES and not e.get("forced"):
            s = e["seat"]
            if (rnd.seats.won[s] and not rnd.seats.stay) or rnd.seats.escaped[s]:
                raise InvariantError(f"R12.3 seat {s} acts ({e}) after winning or escaping")
        if t == "pay":
            p = e["from"]
            if rnd.seats.won[p] and not rnd.seats.stay:
                raise InvariantError(f"R12.3 seat {p} pays {e} after winning")
            if rnd.seats.escaped[p] and e["rule"] != "R8":
                raise InvariantError(f"R12.3 seat {p} pays {e} after escaping")
        if t == "escape":
            self.escaped_at = len(self)
        elif self.escaped_at is not None and t not in _AFTER_ESCAPE:
            raise InvariantError(f"R8 the hand must end at once on an escape, got {e}")


def check_state(rnd) -> None:
    """R12.1 tile conservation and R12.2 balanced payments, at any moment of a hand."""
    r = rnd.seats.river
    a = rnd.seats.aside  # R14.1: self-drawn winning tiles set aside
    outside = Counter(chain(r[0], r[1], r[2], r[3], a[0], a[1], a[2], a[3], islice(rnd.wall.tiles, rnd.wall.pos, None)))
    for ms in rnd.seats.melds:
        for code in ms:
            outside[meld_kind(code)] += meld_size(code)
    total = bytes([a + b + c + d + outside[k] for k, (a, b, c, d) in enumerate(zip(*rnd.seats.counts, strict=True))])
    if total != rnd.wall.dealt:
        raise InvariantError(f"R12.1 tile conservation broken: {list(total)} != {list(rnd.wall.dealt)}")
    penalty = 0
    if any(rnd.seats.escaped):
        penalty = sum(e["amount"] for e in evs(rnd) if e["type"] == "pay" and e["to"] is None)
    if sum(rnd.ledger.deltas) != -penalty:
        raise InvariantError(f"R12.2 deltas {rnd.ledger.deltas} do not sum to {-penalty}")
    if rnd.turn.cur is not None and not rnd.seats.active[rnd.turn.cur]:
        raise InvariantError(f"R12.3 seat {rnd.turn.cur} has won or escaped but has a decision")
    if rnd.seats.n_active != sum(rnd.seats.active):
        raise InvariantError("active count inconsistent")


def claim_windows_showing_tiles(preset: str, hands: int):
    """``(round, seat)`` at every claim window of ``hands`` seeded hands of ``value`` players
    where another seat's tiles are public (a declared peng or kong, a kong being added that may
    be robbed, R3.3) and ``seat`` has more than one answer; the caller must not change the
    round (the hand goes on from it)."""
    from xuezhan.engine import Round
    from xuezhan.engine.turn import Phase
    from xuezhan.strategies import ValueStrategy

    for seed in range(hands):
        rnd = Round.from_seed(preset, seed)
        bots = [ValueStrategy() for _ in range(4)]
        for s, b in enumerate(bots):
            b.reset(s, rnd.rules)
        while not rnd.over:
            seat, w = rnd.turn.cur, rnd.turn.claims
            if rnd.turn.phase is Phase.CLAIM and (w.meld is not None or w.robbing) and len(rnd.legal_actions(seat)) > 1:
                yield rnd, seat
            rnd.apply(bots[seat].act(rnd.observation(seat)))


class LeaningBot:
    """Random legal actions, but takes a win with probability ``p_hu``, discards toward a win
    (lowest shanten, via the core) with probability ``p_smart`` — more wins, kongs and
    three-won ends — and very rarely misbehaves (illegal action or exception: an escape, R10.3)."""

    def __init__(self, seed: int, p_hu: float = 0.6, p_smart: float = 0.8, p_bad: float = 0.0) -> None:
        self.rng = random.Random(seed)
        self.p_hu = p_hu
        self.p_smart = p_smart
        self.p_bad = p_bad
        self.seat = -1

    def reset(self, seat, rules) -> None:
        self.seat = seat

    def act(self, obs):
        rng = self.rng
        legal = obs.legal_actions
        if self.p_bad and rng.random() < self.p_bad:
            if rng.random() < 0.5:
                raise RuntimeError("bot crashed")
            return Action(obs.seat, "discard", 99)
        if self.p_hu and legal[0].verb == HU and rng.random() < self.p_hu:
            return legal[0]
        if obs.phase == "turn" and rng.random() < self.p_smart:
            discards = [a for a in legal if a.verb == "discard"]
            kongs = [a for a in legal if a.verb in ("angang", "jiagang")]
            if kongs and rng.random() < 0.5:
                return rng.choice(kongs)
            if len(discards) > 1:
                h = obs.hand
                # Cheap heuristic: drop the suit held least (toward two suits, R4.2), then an
                # isolated tile (no copy or neighbour within two); now and then the core's advice.
                n = [sum(h[0:9]), sum(h[9:18]), sum(h[18:27])]
                held = [i for i in range(3) if n[i]]
                if len(held) == 3:
                    few = min(held, key=lambda i: n[i])
                    pick = [a for a in discards if a.arg // 9 == few]
                    if pick:
                        return rng.choice(pick)
                iso = []
                for a in discards:
                    k = a.arg
                    if h[k] > 1:
                        continue
                    r = k % 9
                    if any(h[j] for j in range(k - min(r, 2), k + min(8 - r, 2) + 1) if j != k):
                        continue
                    iso.append(a)
                if iso:
                    return rng.choice(iso)
                # Otherwise the discard leaving the lowest shanten (core).
                melds = bytes(t * 27 + k for t, k in obs.melds[obs.seat])
                v = obs.voids[obs.seat]
                hb = bytearray(h)
                best, choice = 10**9, []  # above any shanten the core reports
                for a in discards:
                    hb[a.arg] -= 1
                    sh = _core.shanten(bytes(hb), melds, v)
                    hb[a.arg] += 1
                    if sh < best:
                        best, choice = sh, [a]
                    elif sh == best:
                        choice.append(a)
                return rng.choice(choice)
        if obs.phase == "claim" and rng.random() < self.p_smart:
            for a in legal:
                if a.verb in ("gang", "peng") and rng.random() < 0.5:
                    return a
        return rng.choice(legal)


_BOOL = (
    "rob_kong",
    "pass_win_lock",
    "last_tiles_forced",
    "kong_transfer",
    "kong_draw_discarder_pays",
    "pig_penalty",
    "kong_refund",
    "declare_void",
    "exchange_three",
)


def xueliu_variants(n: int, seed: int = 14) -> list[Rules]:
    """R14: the xueliu preset, leshan with winners staying, and random option flips of both
    (middle_five among them)."""
    rng = random.Random(seed)
    out = [Rules.preset("xueliu"), Rules.preset("leshan").replace(after_win="stay")]
    while len(out) < n:
        over: dict = {k: rng.random() < 0.5 for k in _BOOL}
        over["max_fan"] = rng.randint(2, 7)
        over["self_draw_bonus"] = rng.choice(["none", "point", "fan"])
        over["fan"] = {k: rng.random() < 0.6 for k in ("terminals", "pairs_258", "heaven_earth", "middle_five")}
        out.append(Rules.preset(rng.choice(["xueliu", "leshan"])).replace(after_win="stay", **over))
    return out


def rule_variants(n: int, seed: int = 7) -> list[Rules]:
    """Both presets, each with random option flips (R11)."""
    rng = random.Random(seed)
    out = [Rules.preset("leshan"), Rules.preset("chengdu")]
    while len(out) < n:
        base = Rules.preset(rng.choice(["leshan", "chengdu"]))
        over = {k: rng.random() < 0.5 for k in _BOOL}
        over["max_fan"] = rng.randint(2, 7)
        over["base"] = rng.choice([1, 1, 2])
        over["self_draw_bonus"] = rng.choice(["none", "point", "fan"])
        over["fan"] = {
            k: rng.random() < 0.7
            for k in ("terminals", "pairs_258", "concealed", "no_terminals", "heaven_earth", "gen")
        }
        out.append(base.replace(**over))
    return out


# --------------------------------------------------------------------------- scenario builders

from xuezhan.engine import Round  # noqa: E402
from xuezhan.tiles import parse_tiles, tile_str  # noqa: E402

# Three-suited hands without pairs or waits, to fill seats a test does not look at.
J1 = "13579m2468p1357s"
J2 = "2468m13579p2468s"
J3 = "13579m13579p246s"
JD = "2468m2468p123579s"  # 14 tiles, for a junk dealer


def rest_of_wall(hands, prefix: str = "") -> str:
    """The tiles not in ``hands`` nor ``prefix``, in a fixed order (9s … 1m, then again)."""
    used = [0] * 27
    for h in hands:
        for k in parse_tiles(h):
            used[k] += 1
    for k in parse_tiles(prefix):
        used[k] += 1
    rest = []
    for _copy in range(4):
        for k in range(26, -1, -1):
            if used[k] < 4:
                used[k] += 1
                rest.append(tile_str(k))
    return "".join(rest)


def build(hands, wall: str = "", dealer: int = 0, rules="leshan", exchange=None, fill: bool = False) -> Round:
    hands = [h for h in hands]
    w = wall + (rest_of_wall(hands, wall) if fill else "")
    return Round(rules, [parse_tiles(h) for h in hands], parse_tiles(w), dealer, exchange)


def run(hands, wall, script, dealer=0, rules="leshan", exchange=None, fill=False):
    """Run a script; return ``(result, round)``."""
    w = wall + (rest_of_wall(hands, wall) if fill else "")
    doc = {
        "rules": rules if isinstance(rules, dict) else {"preset": rules},
        "dealer": dealer,
        "hands": list(hands),
        "wall": w,
        "script": list(script),
    }
    if exchange:
        doc["exchange"] = exchange
    return replay_script(doc, return_round=True)


def evs(rnd) -> list[dict]:
    """The hand's events in their JSON form (what logs hold)."""
    return [e.to_json() for e in rnd.ledger.events]


def types(rnd, *wanted):
    return [e for e in evs(rnd) if e["type"] in wanted]


def pays(rnd, rule=None):
    return [
        (e["rule"], e["from"], e["to"], e["amount"])
        for e in evs(rnd)
        if e["type"] == "pay" and (rule is None or e["rule"] == rule)
    ]
