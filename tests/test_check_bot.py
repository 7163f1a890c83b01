"""The conformance kit: ``xuezhan.testing.check_strategy`` and ``xuezhan check-bot``. A good bot
passes; bots broken on purpose (illegal actions now and then, garbage, crashes, slowness,
exceptions) are reported with the cause, and the exit status says so (R8, R10.3)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from xuezhan.cli import main
from xuezhan.engine.actions import act
from xuezhan.strategies import GreedyStrategy
from xuezhan.testing import check_strategy

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable

# A bot that plays the first legal action, except that on every Nth request it misbehaves
# in the way named by its first argument.
BROKEN = textwrap.dedent(
    """
    import json, sys, time
    mode, every = sys.argv[1], int(sys.argv[2])
    n = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] != "request":
            continue
        n += 1
        action = msg["legal"][0]
        if n % every == 0:
            if mode == "illegal":
                action = "angang 5p"
            elif mode == "garbage":
                print("discard the red dragon please", flush=True)
                continue
            elif mode == "crash":
                print("about to fail", file=sys.stderr, flush=True)
                1 / 0
            elif mode == "slow":
                time.sleep(0.6)
        print(json.dumps({"id": msg["id"], "action": action}), flush=True)
    """
)


@pytest.fixture
def broken(tmp_path):
    path = tmp_path / "broken_bot.py"
    path.write_text(BROKEN, encoding="utf-8")
    return lambda mode, every=7: f"{PY} {path} {mode} {every}"


def cli(*args):
    return CliRunner().invoke(main, ["check-bot", *args])


def test_example_bot_passes():
    res = cli(f"{PY} {ROOT / 'examples' / 'bot.py'}", "--hands", "40")
    assert res.exit_code == 0, res.output
    assert "40 hands" in res.output and "OK" in res.output


def test_sometimes_illegal_bot_is_reported_with_its_answer(broken):
    res = cli(broken("illegal"), "--hands", "12")
    assert res.exit_code == 1
    assert "FAILED" in res.output and "[illegal]" in res.output
    assert "answered 'angang 5p'" in res.output and "legal: " in res.output


def test_garbage_is_a_protocol_error_quoting_the_line(broken):
    report = check_strategy(broken("garbage"), hands=8)
    kinds = {p.kind for p in report.problems}
    assert kinds == {"protocol"}
    assert all("discard the red dragon please" in p.message for p in report.problems)
    assert report.escapes == len(report.problems)  # each one ended its hand (R8)


def test_crash_is_reported_with_exit_status_and_stderr(broken):
    report = check_strategy(broken("crash", 5), hands=6)
    assert report.problems and {p.kind for p in report.problems} == {"crash"}
    msg = report.problems[0].message
    assert "exited with status 1 during a request" in msg and "None" not in msg
    assert "ZeroDivisionError" in msg and "about to fail" in msg


def test_slow_bot_times_out(broken):
    report = check_strategy(broken("slow", 9), hands=1, timeout=0.3)
    assert report.problems and {p.kind for p in report.problems} == {"timeout"}
    assert "limit 0.3 s" in report.problems[0].message


def test_problem_names_hand_seat_and_rules(broken):
    report = check_strategy(broken("illegal", 3), hands=4, seed=5)
    seats = {p.hand: p.seat for p in report.problems}
    assert all(seat == hand % 4 for hand, seat in seats.items())  # the bot's seat in that hand
    assert {p.rules for p in report.problems} <= {"leshan", "chengdu", "xueliu"}


class _Flaky(GreedyStrategy):
    """A Python strategy that raises on one decision in 40 and answers for the wrong seat on
    another."""

    name = "flaky"

    def __init__(self):
        super().__init__()
        self.n = 0

    def act(self, obs):
        self.n += 1
        if self.n % 40 == 0:
            raise KeyError("no such tile")
        if self.n % 40 == 20:
            return act((obs.seat + 1) % 4, "pass")
        return super().act(obs)


def test_python_strategy_exceptions_and_illegal_actions():
    report = check_strategy(_Flaky(), hands=20)
    kinds = report.counts()
    assert kinds["exception"] >= 1 and kinds["illegal"] >= 1
    exc = next(p for p in report.problems if p.kind == "exception")
    assert "KeyError" in exc.message and "no such tile" in exc.message
    assert not report.ok and "FAILED" in report.format()


def test_builtin_strategies_pass():
    assert check_strategy(GreedyStrategy(), hands=8).ok


def test_the_locked_hand_is_exercised_and_counted_R14():
    """Under xueliu the bot plays locked hands (it won and stays in, R14.2): the report counts
    those decisions (each one the bot's own observation shows as a win of its seat) and says so;
    under chengdu there are none."""
    calls = []

    class Watch(GreedyStrategy):
        def reset(self, seat, rules):
            super().reset(seat, rules)
            self.stay = rules.stay

        def act(self, obs):
            calls.append(self.stay and obs.won[obs.seat] and bool(obs.wins[obs.seat]))
            return super().act(obs)

    report = check_strategy(Watch(), hands=12, rules="xueliu")
    assert report.ok and report.locked == sum(calls) > 0
    assert f"({report.locked} on a locked hand, R14)" in report.format()
    plain = check_strategy(GreedyStrategy(), hands=8, rules="chengdu")
    assert plain.locked == 0 and "locked" not in plain.format()


@pytest.mark.parametrize(
    "args, what",
    [
        (["no-such-program-xyz"], "cannot find the program"),
        (["python x.py", "--opponents", "random,greedy"], "three opponents"),
        (["python x.py", "--opponents", "random,greedy,nobody"], "nobody"),
        (["python x.py", "--rules", "nowhere"], "nowhere"),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(args, what, tmp_path):
    (tmp_path / "x.py").write_text("", encoding="utf-8")
    res = CliRunner().invoke(main, ["check-bot", *args, "--cwd", str(tmp_path), "--hands", "1"])
    assert res.exit_code == 2, res.output
    assert what in res.output and "Traceback" not in res.output
