"""External bots over the JSON-lines protocol (docs/protocol.md): the example bot, and bots that
sleep, crash or print garbage, handled as docs/rules.md R10 (timeouts, default actions) and R8
(escape) say; the tournament keeps going and the process is restarted for the next hand."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from _engine_helpers import evs

from xuezhan.engine.match import first_dealer, run_round
from xuezhan.engine.round import Round
from xuezhan.rules import Rules
from xuezhan.strategies.external import PROTOCOL, ExternalBotError, ExternalStrategy
from xuezhan.strategies.greedy import GreedyStrategy
from xuezhan.tournament import TournamentConfig, run

ROOT = Path(__file__).resolve().parents[1]
BAD = [sys.executable, str(ROOT / "tests" / "_bad_bot.py")]
EXAMPLE = f"{sys.executable} {ROOT / 'examples' / 'bot.py'}"
# Tiny R10 limits so that the tests are fast.
FAST = Rules.preset("leshan").replace(turn_timeout=0.3, claim_timeout=0.3, max_timeouts=1)


def play(bot, rules=FAST, seed=11, seat=0):
    """One hand with ``bot`` in ``seat`` and greedy elsewhere; returns (round, timeouts)."""
    strategies = [GreedyStrategy() for _ in range(4)]
    strategies[seat] = bot
    for s, strat in enumerate(strategies):
        strat.reset(s, rules)
    rnd = Round.from_seed(rules, seed, first_dealer(seed))
    timeouts = [0, 0, 0, 0]
    run_round(rnd, strategies, timeouts)
    return rnd, timeouts


@pytest.fixture
def bots():
    made = []

    def make(*args, **kw):
        b = ExternalStrategy(*args, **kw)
        made.append(b)
        return b

    yield make
    for b in made:
        b.close()


def test_example_bot_plays_whole_hands_without_escapes(bots):
    bot = bots(EXAMPLE, name="example")
    for seed in range(6):
        rnd, timeouts = play(bot, rules=Rules.preset("leshan"), seed=seed, seat=seed % 4)
        assert not any(rnd.seats.escaped) and timeouts == [0, 0, 0, 0]
        assert sum(rnd.ledger.deltas) == 0  # R12.2
    assert bot.starts == 1  # one process for all the hands


def test_example_bot_handles_exchange_and_void_phases(bots):
    bot = bots(EXAMPLE)
    rules = Rules.preset("chengdu")  # exchange_three and declare_void (R11.1, R11.2)
    for seed in range(3):
        rnd, timeouts = play(bot, rules=rules, seed=seed)
        assert not any(rnd.seats.escaped) and timeouts == [0, 0, 0, 0]
        assert any(e["type"] == "exchange" and e["seat"] == 0 and not e["default"] for e in evs(rnd))
        assert any(e["type"] == "void" and e["seat"] == 0 and not e["default"] for e in evs(rnd))


def test_protocol_messages(bots, tmp_path):
    log = tmp_path / "seen.jsonl"
    bot = bots([*BAD, "record", str(log)])
    rnd, _ = play(bot, rules=Rules.preset("leshan"), seed=3)
    assert not rnd.seats.escaped[0]
    msgs = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert msgs[0] == {"type": "start_hand", "protocol": PROTOCOL, "seat": 0, "rules": Rules.preset("leshan").to_dict()}
    requests = [m for m in msgs if m["type"] == "request"]
    assert [r["id"] for r in requests] == list(range(1, len(requests) + 1))
    for r in requests:
        assert r["timeout"] == 10.0 and r["legal"]
        assert all(not a[0].isdigit() for a in r["legal"])  # actions without the seat
        assert r["observation"]["seat"] == 0
    assert any(a.startswith("discard ") for r in requests for a in r["legal"])
    events = [m["event"] for m in msgs if m["type"] == "event"]
    assert events[0]["type"] == "start"
    # private information never reaches the bot: others' draws have no tile
    assert all(e["tile"] is None for e in events if e["type"] == "draw" and e["seat"] != 0)
    assert any(e["tile"] for e in events if e["type"] == "draw" and e["seat"] == 0)


def test_sleeping_bot_times_out_then_escapes_and_is_restarted(bots):
    """R10.1/R10.2: a slow decision takes the default; past max_timeouts the bot escapes (R10.3, R8)."""
    bot = bots([*BAD, "sleep"])
    t0 = time.monotonic()
    rnd, timeouts = play(bot)
    assert time.monotonic() - t0 < 10  # two 0.3 s waits, not 30 s sleeps
    assert timeouts[0] == 2 and rnd.seats.escaped[0]
    assert sum(rnd.ledger.deltas) == -50  # R8 escape penalty paid to nobody (R12.2)
    assert any(e["type"] == "discard" and e["seat"] == 0 and e["default"] for e in evs(rnd)) or any(
        e["type"] == "pass" and e["seat"] == 0 and e["default"] for e in evs(rnd)
    )
    play(bot, seed=12)
    assert bot.starts == 2 and bot.restarts == 1  # a fresh process for the next hand


def test_late_answer_is_a_timeout_and_is_dropped(bots):
    bot = bots([*BAD, "late", "0.45"])
    rules = FAST.replace(max_timeouts=3)
    rnd, timeouts = play(bot, rules=rules)
    assert timeouts[0] == 1 and not rnd.seats.escaped[0]
    # the late answer (to request 1) was skipped: the bot's later answers were all accepted
    assert not any(e["type"] == "escape" for e in evs(rnd))


@pytest.mark.parametrize("mode", ["crash", "garbage", "wrongid", "illegal"])
def test_crash_or_garbage_is_an_escape_and_the_next_hand_gets_a_new_process(bots, mode):
    bot = bots([*BAD, mode])
    rnd, timeouts = play(bot)
    assert rnd.seats.escaped[0] and not any(rnd.seats.escaped[1:])  # R8
    assert timeouts == [0, 0, 0, 0]
    assert rnd.ledger.deltas[0] <= -50 and sum(rnd.ledger.deltas) == -50
    rnd2, _ = play(bot, seed=12)
    assert rnd2.seats.escaped[0]
    assert bot.starts == 2


def test_adapter_errors_name_the_bot(bots):
    bot = bots([*BAD, "garbage"], name="noisy")
    bot.reset(0, FAST)
    rnd = Round.from_seed(FAST, 1, 0)
    with pytest.raises(ExternalBotError, match="noisy.*not JSON"):
        bot.act(rnd.observation(0))


def test_a_bot_that_cannot_start_escapes_and_a_tournament_refuses_it_up_front(bots):
    bot = bots(["/nonexistent/bot"])
    rnd, _ = play(bot)
    assert rnd.seats.escaped[0] and sum(rnd.ledger.deltas) == -50  # R8: a dead process is an escape
    from xuezhan.tournament import ConfigError

    cfg = TournamentConfig(
        strategies=["greedy", "greedy", "greedy", {"name": "ghost", "cmd": "/nonexistent/bot -v"}], hands=4, workers=1
    )
    with pytest.raises(
        ConfigError, match="ghost.*cannot find the program '/nonexistent/bot' of cmd = '/nonexistent/bot -v'"
    ):
        run(cfg, progress=False)


def test_tournament_keeps_going_with_a_crashing_bot(tmp_path):
    cfg = TournamentConfig(
        # it passes the start-up check (one answer), then crashes in every hand
        strategies=[{"name": "crasher", "cmd": " ".join([*BAD, "crashlater"])}, "greedy", "greedy", "random"],
        hands=8,
        seed=1,
        workers=2,
        chunk=2,
        rules={"preset": "leshan", "turn_timeout": 0.3, "claim_timeout": 0.3},
    )
    df = run(cfg, output=tmp_path / "o", progress=False)
    assert len(df) == 32
    crash = df[df["strategy"] == "crasher"]
    assert crash["escape"].all() and (crash["delta"] <= -50).all()
    assert not df.loc[df["strategy"] != "crasher", "escape"].any()
    assert (df.groupby("hand")["delta"].sum() == -50).all()  # R12.2 with an escape


def test_tournament_counts_timeouts(tmp_path):
    cfg = TournamentConfig(
        strategies=[{"name": "sleeper", "cmd": " ".join([*BAD, "sleep"])}, "greedy", "greedy", "greedy"],
        hands=4,
        seed=2,
        workers=1,
        chunk=4,
        rules={"preset": "leshan", "turn_timeout": 0.2, "claim_timeout": 0.2, "max_timeouts": 1},
    )
    df = run(cfg, progress=False)
    s = df[df["strategy"] == "sleeper"]
    assert (s["timeouts"] == 2).all() and s["escape"].all()
    assert (df.loc[df["strategy"] != "sleeper", "timeouts"] == 0).all()


def test_the_minimal_bot_in_docs_protocol_plays(bots, tmp_path):
    doc = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    code = doc.split("## A minimal bot")[1].split("```python")[1].split("```")[0]
    path = tmp_path / "mini.py"
    path.write_text(code, encoding="utf-8")
    bot = bots([sys.executable, str(path)])
    for seed in range(3):
        rnd, timeouts = play(bot, rules=Rules.preset("leshan"), seed=seed)
        assert not any(rnd.seats.escaped) and timeouts == [0, 0, 0, 0]


def test_pool_workers_stop_their_bot_processes(tmp_path):
    marker = f"xuezhan-test-marker-{time.time_ns()}"
    cfg = TournamentConfig(
        strategies=["greedy", {"name": "example", "cmd": f"{EXAMPLE} {marker}"}, "greedy", "value"],
        hands=8,
        seed=3,
        workers=2,
        chunk=2,
    )
    df = run(cfg, progress=False)
    assert not df["escape"].any() and (df["timeouts"] == 0).all()

    def running() -> int:
        n = 0
        for p in Path("/proc").iterdir():
            if p.name.isdigit():
                try:
                    if marker.encode() in (p / "cmdline").read_bytes():
                        n += 1
                except OSError:
                    pass
        return n

    deadline = time.monotonic() + 5
    while running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running() == 0


def test_a_bot_that_stops_reading_cannot_block_the_engine(bots):
    """Its input pipe fills up; writes happen off the engine's clock, so the requests time out
    (R10) and the bot escapes (R10.3) instead of hanging the tournament."""
    bot = bots([*BAD, "deaf"])
    bot.reset(0, FAST)
    for i in range(2000):  # about 1 MB of events: far more than a pipe holds
        bot.observe({"type": "discard", "seat": 1, "tile": "5m", "default": False, "pad": "x" * 400, "i": i})
    t0 = time.monotonic()
    rnd = Round.from_seed(FAST, 5, 0)
    strategies = [bot, GreedyStrategy(), GreedyStrategy(), GreedyStrategy()]
    for s in (1, 2, 3):
        strategies[s].reset(s, FAST)
    timeouts = [0, 0, 0, 0]
    run_round(rnd, strategies, timeouts)
    assert time.monotonic() - t0 < 10
    assert rnd.seats.escaped[0] and timeouts[0] == 2
    t1 = time.monotonic()
    bot.close()
    assert time.monotonic() - t1 < 5
