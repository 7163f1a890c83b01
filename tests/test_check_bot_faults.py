"""check-bot against bots that break the protocol in the quieter ways (docs/protocol.md: answer
each request, and only it, with one line): answering before being asked, answering twice,
writing lines nobody asked for, ids that only compare equal (``1.0``, ``true``), ``NaN``,
deeply nested JSON; and the messages of crashes (an exit status, never "exit code None"; each
crash quotes only its own stderr). Each fault is reported with its class and cause, the command
exits 1, and the whole check ends in bounded time."""

from __future__ import annotations

import sys
import textwrap
import time

import pytest
from click.testing import CliRunner

from xuezhan.cli import main
from xuezhan.engine import Round
from xuezhan.strategies.external import ExternalBotError, ExternalStrategy
from xuezhan.testing import check_strategy

PY = sys.executable

# Plays the first legal action; on every EVERY-th request it misbehaves as MODE says.
FAULTY = textwrap.dedent(
    """
    import json, os, sys
    mode, every = sys.argv[1], int(sys.argv[2])
    n = 0
    last = 0
    def say(text):
        sys.stdout.write(text + "\\n"); sys.stdout.flush()
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "start_hand" and mode == "early":
            # an answer to the next request before it exists (index 0 is legal whatever it asks)
            say(json.dumps({"id": last + 1, "index": 0}))
            continue
        if msg["type"] in ("start_hand", "event") and mode == "chatter" and n % every == every - 1:
            say("thinking about the red dragon")
            n += 1
            continue
        if msg["type"] != "request":
            continue
        n += 1
        last = msg["id"]
        answer = {"id": msg["id"], "action": msg["legal"][0]}
        text = json.dumps(answer)
        if n % every == 0:
            if mode == "twice":
                say(text)
            elif mode == "floatid":
                text = text.replace('"id": %d' % msg["id"], '"id": %d.0' % msg["id"])
            elif mode == "boolid":
                text = text.replace('"id": %d' % msg["id"], '"id": true')
            elif mode == "nan":
                text = text[:-1] + ', "confidence": NaN}'
            elif mode == "deep":
                text = "[" * 100000 + "]" * 100000
            elif mode == "crash":
                print("crash of process %d" % os.getpid(), file=sys.stderr, flush=True)
                sys.exit(2)
        say(text)
    """
)


@pytest.fixture
def faulty(tmp_path):
    path = tmp_path / "faulty_bot.py"
    path.write_text(FAULTY, encoding="utf-8")
    return lambda mode, every=5: f"{PY} {path} {mode} {every}"


def _protocol_faults(cmd: str, hands: int = 6) -> list[str]:
    t0 = time.monotonic()
    report = check_strategy(cmd, hands=hands, timeout=2.0)
    assert time.monotonic() - t0 < 60  # bounded time
    assert report.problems, "the fault was not reported"
    assert {p.kind for p in report.problems} == {"protocol"}, report.format()
    assert report.escapes == len(report.problems)  # each one ends its hand (R8)
    return [p.message for p in report.problems]


def test_a_second_answer_to_a_request_is_a_protocol_error(faulty):
    msgs = _protocol_faults(faulty("twice"))
    assert all("a second answer to request" in m for m in msgs)


def test_an_answer_before_its_request_is_a_protocol_error(faulty):
    msgs = _protocol_faults(faulty("early"))
    # found when the next request comes; if the request was already on its way, the early line
    # was taken as the answer and the bot's own answer to that request is a second one
    assert all("before it was sent" in m or "a second answer" in m for m in msgs), msgs


def test_a_line_nobody_asked_for_is_a_protocol_error(faulty):
    msgs = _protocol_faults(faulty("chatter", 3))
    assert all("red dragon" in m for m in msgs), msgs
    # found before the next request is sent, or (when it came with that request) read in its place
    assert all("while no request was waiting" in m or "answer is not JSON" in m for m in msgs), msgs


@pytest.mark.parametrize(
    ("mode", "why"), [("chatter", "while no request was waiting"), ("early", "before it was sent")]
)
def test_lines_waiting_before_a_request_are_found_before_it_is_sent(faulty, mode, why):
    # the bot replies to start_hand at once; by its first request the line is there
    rnd = Round.from_seed("leshan", 3, 0)
    bot = ExternalStrategy(faulty(mode, 1))
    try:
        bot.reset(0, rnd.rules)
        time.sleep(1.0)
        with pytest.raises(ExternalBotError, match=why):
            bot.act(rnd.observation(0))
    finally:
        bot.close()


@pytest.mark.parametrize(("mode", "shown"), [("floatid", "answer id 2.0"), ("boolid", "answer id true")])
def test_an_id_that_only_compares_equal_is_a_protocol_error(faulty, mode, shown):
    # 2.0 == 2 and true == 1 in Python: the id must be the request's integer itself
    msgs = _protocol_faults(faulty(mode, 2))
    assert all("is not an integer request id" in m for m in msgs), msgs
    assert any(shown in m for m in msgs) or mode == "boolid"


def test_nan_in_an_answer_is_a_protocol_error(faulty):
    msgs = _protocol_faults(faulty("nan"))
    assert all("not JSON" in m and "NaN" in m for m in msgs), msgs


def test_deeply_nested_json_is_a_protocol_error_not_an_exception(faulty):
    msgs = _protocol_faults(faulty("deep"), hands=3)
    assert all("nested too deeply" in m for m in msgs), msgs


def test_each_crash_quotes_its_own_stderr_and_exit_status(faulty):
    report = check_strategy(faulty("crash", 3), hands=8, timeout=2.0)
    crashes = [p.message for p in report.problems if p.kind == "crash"]
    assert len(crashes) >= 3
    for m in crashes:
        assert "exited with status 2 during a request" in m
        assert "None" not in m
        assert m.count("crash of process") == 1, m  # its own lines only, no copies of earlier ones


def test_check_bot_command_exits_1_naming_the_class(faulty):
    res = CliRunner().invoke(main, ["check-bot", faulty("twice"), "--hands", "4", "--timeout", "2"])
    assert res.exit_code == 1, res.output
    assert "FAILED" in res.output and "[protocol]" in res.output and "a second answer" in res.output
