"""Fuzzing the command line with the documents users give it: scripted hands (R13), hand logs
(R12.4) and tournament TOML files, run in-process with click's CliRunner.

Whatever the input, a command ends with exit code 0, 1 or 2, prints no traceback and no
"internal error" (the guard's message for an error without a message of its own), prints at
most one error line, and finishes within a time bound (no hang)."""

from __future__ import annotations

import json
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from xuezhan.cli import main

FUZZ = settings.get_profile("xuezhan-fuzz")
VECTORS = Path(__file__).resolve().parents[1] / "vectors"
SEED_DOCS = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(VECTORS.glob("*.json"))]
BUG = "this is a bug in xuezhan"
SECONDS = 20  # per CLI run: far above any real run of these small inputs


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def on_alarm(signum: int, frame: Any) -> None:
        raise Hang(f"the command ran more than {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run_cli(*args: str) -> Result:
    with time_limit(SECONDS):
        result = CliRunner().invoke(main, list(args))
    if isinstance(result.exception, Hang):
        raise result.exception
    return result


def assert_clean(r: Result) -> None:
    out = r.stdout + r.stderr
    assert r.exit_code in (0, 1, 2), (r.exit_code, out, r.exception)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in out and BUG not in out, out
    assert len(r.stderr.strip().splitlines()) <= 1, r.stderr
    if r.exit_code == 2:
        lines = out.strip().splitlines()
        assert len(lines) == 1, out
        assert lines[0].startswith("Error: ") or lines[0].startswith('{"error"'), out


# ------------------------------------------------------------------------------ values

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.text(max_size=8), inner, max_size=5),
    ),
    max_leaves=12,
)
tiles = st.text(alphabet="0123456789mpsMPSx ", max_size=20)
script_lines = st.one_of(
    st.builds(
        lambda seat, verb, arg: f"{seat} {verb} {arg}".strip(),
        st.sampled_from(["0", "1", "2", "3", "4", "-1", "x", ""]),
        st.sampled_from(
            [
                "discard",
                "hu",
                "peng",
                "gang",
                "angang",
                "jiagang",
                "pass",
                "escape",
                "exchange",
                "void",
                "zz",
            ]
        ),
        st.one_of(tiles, st.sampled_from(["m", "p", "s", "5p", "123m"])),
    ),
    st.text(max_size=15),
)
doc_keys = st.sampled_from(
    [
        "name",
        "rules",
        "dealer",
        "hands",
        "wall",
        "script",
        "exchange",
        "expect",
        "fired",
        "extra",
    ]
)


@st.composite
def script_documents(draw: st.DrawFn) -> Any:
    """A valid vector with a few of its fields broken, or any JSON value at all."""
    if draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    doc = json.loads(json.dumps(draw(st.sampled_from(SEED_DOCS))))
    for _ in range(draw(st.integers(1, 3))):
        key = draw(doc_keys)
        action = draw(st.integers(0, 5))
        if action == 0:
            doc.pop(key, None)
        elif action == 1:
            doc[key] = draw(json_values)
        elif action == 2:
            doc["script"] = draw(st.lists(script_lines, max_size=30))
        elif action == 3:
            doc["hands"] = draw(st.lists(tiles, min_size=0, max_size=5))
        elif action == 4:
            doc["rules"] = draw(
                st.dictionaries(
                    st.sampled_from(
                        [
                            "preset",
                            "max_fan",
                            "base",
                            "fan",
                            "fan.gen",
                            "declare_void",
                            "exchange_three",
                            "bogus",
                        ]
                    ),
                    json_values,
                    max_size=3,
                )
            )
        else:
            doc["expect"] = draw(
                st.one_of(
                    json_values,
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "deltas": st.lists(st.integers(-50, 50), min_size=0, max_size=5),
                            "next_dealer": st.integers(-1, 5),
                            "wins": st.lists(
                                st.fixed_dictionaries(
                                    {
                                        "seat": st.integers(-1, 4),
                                        "from": st.one_of(st.none(), st.integers(0, 3)),
                                        "tile": st.one_of(st.none(), tiles),
                                        "fan": st.integers(0, 9),
                                    }
                                ),
                                max_size=3,
                            ),
                            "error": st.fixed_dictionaries({"line": st.integers(-1, 40)}),
                        },
                    ),
                )
            )
    return doc


@st.composite
def document_texts(draw: st.DrawFn) -> str:
    """The text of a document: a (broken) document, cut short, or arbitrary characters."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.text(max_size=200))
    text = json.dumps(draw(script_documents()), ensure_ascii=draw(st.booleans()))
    if kind == 1:
        return text[: draw(st.integers(0, len(text)))]
    return text


@given(text=document_texts(), as_json=st.booleans())
@FUZZ
def test_fuzz_replay_script_documents(text: str, as_json: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "hand.json"
        f.write_text(text, encoding="utf-8")
        r = run_cli("replay", str(f), *(["--json"] if as_json else []))
        assert_clean(r)
        if as_json and r.stdout.strip():
            json.loads(r.stdout)  # --json output is JSON, errors included


# ------------------------------------------------------------------------------ logs


def _seed_log() -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "hand.jsonl"
        r = CliRunner().invoke(
            main,
            [
                "replay",
                str(VECTORS / "02-kong-then-double-win.json"),
                "--log",
                str(out),
            ],
        )
        assert r.exit_code == 0, r.output
        return out.read_text(encoding="utf-8").splitlines()


SEED_LOG = _seed_log()
event_fields = st.sampled_from(
    [
        "type",
        "seat",
        "tile",
        "tiles",
        "suit",
        "from",
        "to",
        "default",
        "forced",
        "amount",
    ]
)
header_fields = st.sampled_from(["type", "rules", "hands", "wall", "dealer", "seed", "exchange", "format", "engine"])


@st.composite
def log_texts(draw: st.DrawFn) -> str:
    lines = list(SEED_LOG)
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.integers(0, 4))
        i = draw(st.integers(0, len(lines) - 1)) if lines else 0
        if action == 0 and lines:  # a field of an event (or of the header) gets another value
            try:
                rec = json.loads(lines[i])
            except ValueError:
                rec = None
            if isinstance(rec, dict):
                key = draw(header_fields if i == 0 else event_fields)
                if draw(st.booleans()):
                    rec[key] = draw(json_values)
                else:
                    rec.pop(key, None)
                lines[i] = json.dumps(rec)
        elif action == 1:  # a line becomes any JSON value, or any text
            lines.insert(i, draw(st.one_of(json_values.map(json.dumps), st.text(max_size=30))))
        elif action == 2 and lines:
            del lines[i]
        elif action == 3 and lines:
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        else:  # two events swap
            j = draw(st.integers(0, len(lines) - 1)) if lines else 0
            if lines:
                lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines) + "\n"


@given(text=log_texts(), as_json=st.booleans())
@FUZZ
def test_fuzz_replay_and_validate_logs(text: str, as_json: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "hand.jsonl"
        f.write_text(text, encoding="utf-8")
        assert_clean(run_cli("replay", str(f), *(["--json"] if as_json else [])))
        r = run_cli("validate", tmp)
        assert r.exit_code in (0, 1), r.output  # a folder with one log: reproduced or a finding
        assert "Traceback" not in r.output and BUG not in r.output and "hand.jsonl" in r.output


# ------------------------------------------------------------------------------ tournament TOML


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a valid TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


toml_scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=10),
)
toml_values = st.recursive(
    toml_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(min_size=1, max_size=6), inner, max_size=3),
    ),
    max_leaves=6,
)
strategy_entries = st.one_of(
    st.sampled_from(
        [
            "random",
            "greedy",
            "value",
            "nosuch",
            "",
            "collections:OrderedDict",
            "os:getcwd",
            "xuezhan:nothing",
            ":",
        ]
    ),
    st.fixed_dictionaries(
        {},
        optional={
            "strategy": st.sampled_from(
                [
                    "random",
                    "greedy",
                    "value",
                    "collections:OrderedDict",
                    "json:JSONDecoder",
                ]
            ),
            "cmd": st.sampled_from(["./no-such-bot", "no-such-program-xz --x", "", "bots/../x"]),
            "name": st.one_of(st.text(max_size=6), st.integers()),
            "options": st.one_of(
                st.dictionaries(
                    st.sampled_from(["seed", "alpha", "defence", "x", "1a"]),
                    toml_scalars,
                    max_size=2,
                ),
                toml_scalars,
            ),
            "cwd": st.one_of(st.text(max_size=5), st.integers()),
        },
    ),
)


@st.composite
def tournament_texts(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=120))
    top: dict[str, Any] = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "name": st.one_of(st.text(max_size=6), toml_scalars),
                "hands": st.one_of(st.integers(-5, 10), st.just(10**15), toml_scalars),
                "seed": st.one_of(st.integers(-(2**63), 2**63 - 1), toml_scalars),
                "seating": st.one_of(st.sampled_from(["duplicate", "random", "x"]), toml_scalars),
                "workers": st.one_of(st.integers(-1, 2), st.just(10**9), toml_scalars),
                "chunk": st.one_of(st.integers(-1, 5), toml_scalars),
                "preset": toml_values,
                "bogus": toml_values,
                "rules": st.one_of(
                    st.dictionaries(
                        st.sampled_from(["preset", "max_fan", "fan", "base", "rob_kong", "x"]),
                        toml_values,
                        max_size=3,
                    ),
                    toml_scalars,
                ),
            },
        )
    )
    lines = [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in top.items()]
    entries = draw(st.lists(strategy_entries, min_size=0, max_size=5))
    lines.append("strategies = [" + ", ".join(_toml_value(e) for e in entries) + "]")
    return "\n".join(lines) + "\n"


@given(text=tournament_texts())
@FUZZ
def test_fuzz_tournament_files(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "t.toml"
        f.write_text(text, encoding="utf-8")
        # A valid file plays 4 hands in this process, whatever its own hands and workers say
        # (those are still checked when the file is read).
        r = run_cli(
            "tournament",
            str(f),
            "-o",
            str(Path(tmp) / "out"),
            "--hands",
            "4",
            "--workers",
            "1",
            "--no-report",
            "--no-progress",
        )
        out = r.stdout + r.stderr
        assert r.exit_code in (0, 1, 2), out
        assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
        assert "Traceback" not in out and BUG not in out, out
        if r.exit_code != 0:
            assert len(out.strip().splitlines()) == 1 and out.startswith("Error: "), out


# ------------------------------------------------------------------------------ eval and rules


@given(
    hand=st.one_of(tiles, st.text(max_size=30)),
    melds=st.one_of(st.just(""), st.text(alphabet="0123456789mps(),", max_size=16)),
    void=st.sampled_from([[], ["--void", "m"], ["--void", "p"]]),
    win_tile=st.one_of(st.just([]), tiles.map(lambda t: ["--win-tile", t])),
)
@FUZZ
def test_fuzz_eval_arguments(hand: str, melds: str, void: list[str], win_tile: list[str]) -> None:
    assert_clean(run_cli("eval", *(["--melds", melds] if melds else []), *void, *win_tile, "--", hand))


@given(rule_id=st.text(max_size=12))
@FUZZ
def test_fuzz_rules_ids(rule_id: str) -> None:
    r = run_cli("rules", "--", rule_id)
    assert_clean(r)
    assert r.exit_code in (0, 2)
