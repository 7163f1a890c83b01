"""Tampered hand logs (R12.4): a log is accepted only when the engine reproduces it line for line.

Real logs (the rule vectors, random scripted hands of both presets with their exchange and void
phases, R10 defaults, kongs, a robbed kong, tournament-style hands) are damaged in named ways and
at random. Every reader of logs (``replay_log``, ``xuezhan replay``, ``xuezhan validate`` and the
replay viewer's frames) either reproduces the log exactly or gives one clear error naming the
first line that differs: never a log shown or counted as valid, never another exception ("pop
from empty list"). ``"default": true`` is checked against the R10 default (R10.1, R10.2).
"""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest
from click.testing import CliRunner

from xuezhan.cli import main
from xuezhan.documents import DocumentError, parse_log
from xuezhan.engine import Round, log_lines, play_hand, replay_script
from xuezhan.engine.events import dumps
from xuezhan.engine.log import ReplayMismatch, event_action, replay_log
from xuezhan.serve.replay import LogError, frames
from xuezhan.strategies import GreedyStrategy, RandomStrategy, ValueStrategy
from xuezhan.tiles import TILE_STR

VECTORS = Path(__file__).resolve().parent / "vectors"

# R3.3: seat 1 pengs 5p, then adds the fourth 5p; seat 2 robs it (as tests/test_engine_rules.py).
ROB = {
    "rules": {"preset": "leshan"},
    "hands": ["12468m24568p1379s", "2468m13555p1357s", "123m456m789m46p99p", "1379m1379p24678s"],
    "wall": "1m2m3m4m5m6m7m8m9m3p",
    "script": [
        "0 discard 5p",
        "1 peng",
        "2 pass",
        "1 discard 1p",
        "2 discard 1m",
        "3 discard 2s",
        "0 discard 2m",
        "1 jiagang 5p",
        "2 hu",
    ],
}


def _script_log(doc: dict) -> list[str]:
    _, rnd = replay_script(doc, return_round=True)
    return log_lines(rnd)


def _corpus() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for path in sorted(VECTORS.glob("*.json")) + sorted((VECTORS / "random").glob("*.json"))[:16]:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if (doc.get("expect") or {}).get("error") is None:  # not the vectors of a refused line
            out[path.stem] = _script_log(doc)
    out["robbed-kong"] = _script_log(ROB)
    # a script cut short: the rest of the hand is played by R10 defaults ("default": true)
    cut = json.loads((VECTORS / "random" / "random-chengdu-100.json").read_text(encoding="utf-8"))
    cut["script"] = cut["script"][:3]
    cut.pop("expect", None)
    out["defaults"] = _script_log(cut)
    for preset in ("leshan", "chengdu"):
        for seed in range(3):
            buf = io.StringIO()
            bots = [GreedyStrategy(), ValueStrategy(), RandomStrategy(seed), ValueStrategy()]
            play_hand(bots, preset, seed=seed, log=buf)
            out[f"{preset}-{seed}"] = buf.getvalue().splitlines()
    return out


CORPUS = _corpus()


def _first(lines: list[str], pred: Callable[[dict], bool], start: int = 1) -> int:
    """The index (0-based) of the first event line from ``start`` whose JSON matches ``pred``."""
    for i in range(start, len(lines)):
        if pred(json.loads(lines[i])):
            return i
    raise LookupError("no such line")


def _edit(lines: list[str], i: int, **changes: object) -> list[str]:
    rec = json.loads(lines[i])
    rec.update(changes)
    return [*lines[:i], json.dumps(rec), *lines[i + 1 :]]


def _fault(lines: list[str]) -> tuple[type[Exception], int, str]:
    """(the error type, the line it names, its message) of a log that must not replay."""
    try:
        replay_log(lines)
    except ReplayMismatch as exc:
        return ReplayMismatch, exc.line, str(exc)
    except DocumentError as exc:
        m = re.search(r"line (\d+)", str(exc))
        assert m, f"the error names no line: {exc}"
        return DocumentError, int(m.group(1)), str(exc)
    raise AssertionError("the tampered log replayed as if it were real")


def _all_readers_refuse(lines: list[str], line: int, tmp_path: Path) -> None:
    """The viewer refuses the log naming the same line; validate and replay report it."""
    with pytest.raises(LogError, match=rf"line {line}\b"):
        frames(lines, "tampered.jsonl")
    folder = tmp_path / "logs"
    folder.mkdir(exist_ok=True)
    path = folder / "tampered.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["validate", str(folder)])
    assert res.exit_code == 1, res.output
    assert re.search(rf"FAIL .*tampered\.jsonl: .*line {line}\b", res.output), res.output
    res = CliRunner().invoke(main, ["replay", str(path)])
    assert res.exit_code in (1, 2) and f"line {line}" in res.output and "Traceback" not in res.output, res.output
    code = res.exit_code  # 1: a log that differs (a finding), 2: not a well-formed hand log
    # xuezhan view refuses it before serving anything (serving it would fail the test, not hang),
    # with replay's exit status
    with mock.patch("xuezhan.cli.serve_cmd._run", side_effect=AssertionError("served a tampered log")):
        res = CliRunner().invoke(main, ["view", str(path), "--no-browser"])
    assert res.exit_code == code and f"line {line}" in res.output and "Traceback" not in res.output, res.output


def test_every_log_of_the_corpus_replays_and_is_shown(tmp_path):
    kinds = set()
    for name, lines in CORPUS.items():
        rnd = replay_log(lines)
        assert log_lines(rnd) == lines, name
        doc = frames(lines, name)
        assert len(doc["frames"]) == len(lines)  # the deal, then one frame per event
        assert doc["frames"][-1]["deltas"] == rnd.ledger.deltas
        # every frame holds the tiles dealt (R12.1): hands, melds, discard piles and the wall
        dealt = sum(len(h) for h in json.loads(lines[0])["hands"]) // 2 + len(json.loads(lines[0])["wall"]) // 2
        for f in doc["frames"]:
            melds = sum(3 if kind == "peng" else 4 for ms in f["melds"] for kind, _ in ms)
            held = sum(len(h) // 2 for h in f["hands"]) + sum(len(d) // 2 for d in f["discards"])
            assert held + melds + f["wall_count"] == dealt, (name, f["text"])
        kinds |= {json.loads(ln)["type"] for ln in lines}
        kinds |= {"rob" for ln in lines if '"how":"rob"' in ln}
        kinds |= {"default" for ln in lines if '"default":true' in ln}
    # the corpus exercises what the tampering needs: kongs, a robbed kong, defaults, setup phases
    assert {"angang", "meld", "rob", "default", "exchange", "void", "pay", "win"} <= kinds


# ------------------------------------------------------------------------ named tamperings


def _raised_payment(lines):
    i = _first(lines, lambda e: e["type"] == "pay")
    return _edit(lines, i, amount=json.loads(lines[i])["amount"] + 1), i


def _changed_decision_seat(lines):  # the old viewer: "pop from empty list"
    i = _first(lines, lambda e: e["type"] == "discard")
    return _edit(lines, i, seat=(json.loads(lines[i])["seat"] + 1) % 4), i


def _changed_claim_seat(lines):
    i = _first(lines, lambda e: e["type"] in ("peng", "gang", "pass"))
    return _edit(lines, i, seat=(json.loads(lines[i])["seat"] + 2) % 4), i


def _seat_true(lines):
    i = _first(lines, lambda e: e["type"] == "draw" and e["seat"] == 1)
    return _edit(lines, i, seat=True), i


def _amount_float(lines):
    i = _first(lines, lambda e: e["type"] == "pay")
    return _edit(lines, i, amount=float(json.loads(lines[i])["amount"])), i


def _amount_nan(lines):
    i = _first(lines, lambda e: e["type"] == "pay")
    return [*lines[:i], re.sub(r'"amount":\s*\d+', '"amount": NaN', lines[i]), *lines[i + 1 :]], i


def _r10_defaults(lines: list[str]) -> dict[int, str]:
    """The R10 default of each decision line (by 0-based index), from the engine."""
    log = parse_log("\n".join(lines))
    hdr = log.header
    rnd = Round(hdr.rules, hdr.hands, hdr.wall, hdr.dealer, hdr.exchange, hdr.seed)
    out = {}
    for i, e in enumerate(log.events):
        if i < len(rnd.ledger.events):
            continue  # a consequence the engine has already recorded
        out[i + 1] = str(rnd.default_action())
        rnd.apply(event_action(e), default=e.default, note=e.note)
    return out


def _default_not_r10(lines):
    """A discard the seat chose, marked as the R10 default although R10.1 would throw another
    tile (a replay would then count R10 as fired)."""
    defaults = _r10_defaults(lines)
    for i, want in sorted(defaults.items()):
        e = json.loads(lines[i])
        if e["type"] == "discard" and not e["default"] and want != f"{e['seat']} discard {e['tile']}":
            return _edit(lines, i, default=True), i
    raise LookupError("no discard that differs from the R10 default")


def _deleted_draw(lines):
    i = _first(lines, lambda e: e["type"] == "draw")
    return [*lines[:i], *lines[i + 1 :]], i


def _duplicated_payment(lines):
    i = _first(lines, lambda e: e["type"] == "pay")
    return [*lines[: i + 1], lines[i], *lines[i + 1 :]], i + 1


def _swapped_lines(lines):
    i = _first(lines, lambda e: e["type"] == "discard")
    return [*lines[:i], lines[i + 1], lines[i], *lines[i + 2 :]], i


def _truncated(lines):
    return lines[:-3], len(lines) - 3


def _event_after_end(lines):
    return [*lines, lines[-1]], len(lines)


def _extra_field(lines):
    i = _first(lines, lambda e: e["type"] == "draw")
    return _edit(lines, i, shown=True), i


def _unknown_type(lines):
    i = _first(lines, lambda e: e["type"] == "draw")
    return _edit(lines, i, type="drew"), i


def _non_canonical_tile(lines):
    i = _first(lines, lambda e: e["type"] == "draw")
    return _edit(lines, i, tile=json.loads(lines[i])["tile"].upper()), i


def _raised_fan(lines):
    i = _first(lines, lambda e: e["type"] == "win")
    return _edit(lines, i, fan=json.loads(lines[i])["fan"] + 1), i


def _changed_end_deltas(lines):
    e = json.loads(lines[-1])
    d = e["deltas"]
    return _edit(lines, len(lines) - 1, deltas=[d[0] + 1, d[1] - 1, d[2], d[3]]), len(lines) - 1


def _changed_next_dealer(lines):
    e = json.loads(lines[-1])
    return _edit(lines, len(lines) - 1, next_dealer=(e["next_dealer"] + 1) % 4), len(lines) - 1


def _replacement_flag(lines):
    i = _first(lines, lambda e: e["type"] == "draw")
    return _edit(lines, i, replacement=not json.loads(lines[i])["replacement"]), i


def _wall_swapped(lines):
    hdr = json.loads(lines[0])
    wall = [hdr["wall"][j : j + 2] for j in range(0, len(hdr["wall"]), 2)]
    j = next(j for j in range(1, len(wall)) if wall[j] != wall[0])
    wall[0], wall[j] = wall[j], wall[0]
    # with a seed, the header itself no longer holds the seed's deal (R1.4); without one, the
    # first draw differs
    first = 0 if hdr["seed"] is not None else _first(lines, lambda e: e["type"] == "draw")
    return [json.dumps({**hdr, "wall": "".join(wall)}), *lines[1:]], first


def _robbed_tile_changed(lines):
    i = _first(lines, lambda e: e["type"] == "win" and e["how"] == "rob")
    return _edit(lines, i, how="discard"), i


def _changed_seed(lines):  # R1.4: the seed must deal the recorded hands and wall
    return [json.dumps({**json.loads(lines[0]), "seed": json.loads(lines[0])["seed"] + 1}), *lines[1:]], 0


def _header_format(lines):
    return [json.dumps({**json.loads(lines[0]), "format": 2}), *lines[1:]], 0


TAMPERINGS = {
    "raised_payment": (_raised_payment, "leshan-1"),
    "changed_decision_seat": (_changed_decision_seat, "leshan-0"),
    "changed_claim_seat": (_changed_claim_seat, "robbed-kong"),
    "seat_true": (_seat_true, "chengdu-0"),
    "amount_float": (_amount_float, "leshan-2"),
    "amount_nan": (_amount_nan, "leshan-2"),
    "default_true_not_the_r10_default": (_default_not_r10, "leshan-0"),
    "deleted_draw": (_deleted_draw, "chengdu-1"),
    "duplicated_payment": (_duplicated_payment, "02-kong-then-double-win"),
    "swapped_lines": (_swapped_lines, "leshan-1"),
    "truncated": (_truncated, "chengdu-2"),
    "event_after_the_end": (_event_after_end, "leshan-0"),
    "extra_field": (_extra_field, "leshan-0"),
    "unknown_event_type": (_unknown_type, "leshan-0"),
    "non_canonical_tile": (_non_canonical_tile, "chengdu-0"),
    "raised_fan": (_raised_fan, "02-kong-then-double-win"),
    "changed_end_deltas": (_changed_end_deltas, "chengdu-1"),
    "changed_next_dealer": (_changed_next_dealer, "leshan-2"),
    "replacement_flag": (_replacement_flag, "leshan-0"),
    "wall_swapped": (_wall_swapped, "leshan-1"),
    "wall_swapped_without_seed": (_wall_swapped, "robbed-kong"),
    "robbed_kong_as_discard_win": (_robbed_tile_changed, "robbed-kong"),
    "header_format": (_header_format, "leshan-0"),
    "changed_seed": (_changed_seed, "chengdu-2"),
}


@pytest.mark.parametrize("kind", sorted(TAMPERINGS))
def test_tampered_log_is_refused_naming_its_first_differing_line(kind, tmp_path):
    tamper, source = TAMPERINGS[kind]
    lines, index = tamper(CORPUS[source])
    kind_of_error, line, message = _fault(lines)
    assert line == index + 1, message  # the first differing line, 1-based
    assert "Traceback" not in message and "pop from" not in message
    _all_readers_refuse(lines, line, tmp_path)


def test_default_true_is_checked_against_r10_and_r10_not_counted(tmp_path):
    lines, index = _default_not_r10(CORPUS["leshan-0"])
    _, line, message = _fault(lines)
    assert line == index + 1 and "R10 default" in message
    # the real R10 defaults of a cut-short script replay, and only they fire R10
    rnd = replay_log(CORPUS["defaults"])
    assert "R10-defaults" in rnd.ledger.fired
    assert "R10-defaults" not in replay_log(CORPUS["leshan-0"]).ledger.fired


# ------------------------------------------------------------------------ random tampering


def _mutate_value(rng: random.Random, v: object) -> object:
    if isinstance(v, bool):
        return rng.choice([not v, 1 if v else 0, None, str(v).lower()])
    if isinstance(v, int):
        return rng.choice([v + 1, v - 1, float(v), True, str(v), None, v + 4])
    if isinstance(v, str):
        if v in TILE_STR:
            return rng.choice([t for t in TILE_STR if t != v] + [v.upper(), "0m", ""])
        return rng.choice([v + "x", "", v[::-1], 0])
    if isinstance(v, list):
        return rng.choice([v[:-1], [*v, v[-1] if v else 0], list(reversed(v))])
    if isinstance(v, dict):
        return rng.choice([{}, {**v, "extra": 1}])
    return rng.choice([0, "x", False])


def _mutate(rng: random.Random, lines: list[str]) -> tuple[list[str], int]:
    """One random damage; returns the damaged log and the first changed index (0-based)."""
    i = rng.randrange(1, len(lines))
    how = rng.random()
    if how < 0.6:
        rec = json.loads(lines[i])
        key = rng.choice([k for k in rec if k != "type"] or ["type"])
        rec[key] = _mutate_value(rng, rec[key])
        return [*lines[:i], json.dumps(rec), *lines[i + 1 :]], i
    if how < 0.7:
        return [*lines[:i], *lines[i + 1 :]], i
    if how < 0.8:
        return [*lines[: i + 1], lines[i], *lines[i + 1 :]], i + 1
    if how < 0.9 and i + 1 < len(lines):
        return [*lines[:i], lines[i + 1], lines[i], *lines[i + 2 :]], i
    rec = json.loads(lines[0])
    key = rng.choice(["dealer", "wall", "hands", "seed", "exchange"])
    rec[key] = _mutate_value(rng, rec[key])
    return [json.dumps(rec), *lines[1:]], 0


def test_random_tampering_replays_identically_or_names_the_first_differing_line():
    rng = random.Random(20261203)
    names = sorted(CORPUS)
    refused = identical = 0
    for _ in range(600):
        name = rng.choice(names)
        lines, first = _mutate(rng, CORPUS[name])
        try:
            rnd = replay_log(lines)
        except (ReplayMismatch, DocumentError) as exc:
            m = re.search(r"line (\d+)", str(exc))
            assert m, str(exc)
            line = int(m.group(1))
            # nothing before the damage differs; the first difference may come later (a changed
            # decision that is legal shows in the events it causes)
            assert first + 1 <= line <= len(lines) + 1, (name, first, str(exc))
            with pytest.raises(LogError, match=rf"line {line}\b"):
                frames(lines, name)
            refused += 1
        else:
            # accepted only when the engine produces exactly this log
            got = [json.loads(ln) for ln in log_lines(rnd)]
            assert got[1:] == [json.loads(ln) for ln in lines[1:]], (name, first)
            assert frames(lines, name)["frames"][-1]["deltas"] == rnd.ledger.deltas
            identical += 1
    assert refused > 500


def test_a_log_is_read_once_into_typed_events():
    log = parse_log("\n".join(CORPUS["robbed-kong"]), source="rob.jsonl")
    assert [dumps(e) for e in log.events] == CORPUS["robbed-kong"][1:]
    assert log.line_numbers == tuple(range(2, len(CORPUS["robbed-kong"]) + 1))


def test_the_room_refuses_a_tampered_log_uploaded_or_offered(tmp_path):
    import warnings

    with warnings.catch_warnings():  # starlette asks for httpx2; httpx is what the test extra installs
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from xuezhan.serve.app import create_app

    lines, index = _raised_payment(CORPUS["leshan-1"])
    path = tmp_path / "tampered.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(CORPUS["leshan-1"]) + "\n", encoding="utf-8")
    with TestClient(create_app(logs=[path, good])) as client:
        r = client.post("/api/replay", content="\n".join(lines).encode())
        assert r.status_code == 400 and f"line {index + 1}" in r.json()["error"]
        r = client.get("/api/replay/f0")
        assert r.status_code == 400 and f"line {index + 1}" in r.json()["error"]
        r = client.get("/api/replay/f1")
        assert r.status_code == 200 and len(r.json()["frames"]) == len(CORPUS["leshan-1"])
