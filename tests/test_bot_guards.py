"""Guards around bots and tournament runs that a hostile or broken bot must not get past.

External bots (docs/protocol.md) run in their own process group, ended as a whole; their lines
are capped; a Python ``module:Class`` strategy is pre-empted past its time limit (docs/rules.md R10);
a bot that cannot start stops the tournament before its first hand; pool workers end with the
main process; a dead worker is a clear message; ``--resume`` verifies every part file; one run
at a time uses an output folder. The bots here are real programs written by the tests.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _results_helpers import rewrite_chunks, start_interruptible

from xuezhan.engine.match import first_dealer, run_round
from xuezhan.engine.observation import Observation
from xuezhan.engine.round import Round
from xuezhan.rules import Rules
from xuezhan.strategies.external import ExternalStrategy
from xuezhan.strategies.greedy import GreedyStrategy
from xuezhan.strategies.guarded import GuardedFactory, observation_from_dict
from xuezhan.tournament import ConfigError, TournamentConfig, TournamentError, run
from xuezhan.tournament.config import StrategySpec
from xuezhan.tournament.folder import OutputLock
from xuezhan.tournament.play import strategy_factory
from xuezhan.tournament.results import done_chunks, load_results, read_parts
from xuezhan.tournament.store import SegmentWriter

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
CLI = [PY, "-c", "from xuezhan.cli import main; main()"]
# Tiny R10 limits so that the tests are fast (R10.1, R10.2; R10.3 escape after 1 + 1 timeouts).
FAST = Rules.preset("leshan").replace(turn_timeout=0.2, claim_timeout=0.2, max_timeouts=1)
FAST_RULES = {
    "preset": "leshan",
    "turn_timeout": 0.2,
    "claim_timeout": 0.2,
    "max_timeouts": 1,
}


# ----------------------------------------------------------------------------- helpers


def wait_until(cond: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll ``cond`` until it holds or ``timeout`` seconds pass (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def group_alive(pgid: int) -> bool:
    """Some process of the group is running (zombies waiting for a late reaper do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return any(" state Z " not in m for m in members(pgid))


def with_marker(marker: str) -> list[int]:
    """Live processes whose command line contains ``marker``."""
    found = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if marker.encode() in (p / "cmdline").read_bytes() and alive(int(p.name)):
                    found.append(int(p.name))
            except OSError:
                pass
    return found


def children(pid: int) -> list[int]:
    found = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                fields = (p / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(p.name))
    return found


def members(pgid: int) -> list[str]:
    """The processes of a process group, with their state and parent (for failure messages)."""
    found = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                stat = (p / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid:
                found.append(f"{p.name} {stat.split(')')[0]}) state {fields[0]} ppid {fields[1]}")
    return found


def pids_in(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def play(bot, rules=FAST, seed=11):
    """One hand with ``bot`` in seat 0 and greedy elsewhere; returns (round, timeouts)."""
    strategies = [bot, GreedyStrategy(), GreedyStrategy(), GreedyStrategy()]
    for s, strat in enumerate(strategies):
        strat.reset(s, rules)
    rnd = Round.from_seed(rules, seed, first_dealer(seed))
    timeouts = [0, 0, 0, 0]
    run_round(rnd, strategies, timeouts)
    return rnd, timeouts


def script(tmp_path: Path, name: str, code: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(code), encoding="utf-8")
    return path


# A bot answering the first legal action; "$HANG" requests in, it stops answering for good.
ANSWERING = """
import json, os, sys, time
open(sys.argv[1], "a").write(f"{os.getpid()}\\n")
hang = int(sys.argv[2])
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "request":
        if msg["id"] > hang:
            time.sleep(60)
        print(json.dumps({"id": msg["id"], "action": msg["legal"][0]}), flush=True)
"""


# ----------------------------------------------------------------------------- process groups


def test_r10_shell_wrapped_bot_that_stops_answering_cannot_stall_the_engine(tmp_path):
    """bash runs the bot, which stops answering: the requests time out (R10), the bot escapes
    (R10.3), and ending it ends bash and the bot, though the bot holds the pipes."""
    bot_py = script(tmp_path, "bot.py", ANSWERING)
    pids = tmp_path / "pids"
    cmd = f"bash -c {shlex.quote(f'{PY} {bot_py} {pids} 2; echo done')}"
    bot = ExternalStrategy(cmd, name="wrapped")
    t0 = time.monotonic()
    try:
        rnd, timeouts = play(bot)
        pgid = bot.pid
        assert pgid is not None
        assert rnd.seats.escaped[0] and timeouts[0] == 2
    finally:
        bot.close()
    assert time.monotonic() - t0 < 10
    assert pids_in(pids) and not group_alive(pgid), members(pgid)
    assert wait_until(lambda: not any(alive(p) for p in pids_in(pids)), 5)


def test_a_bots_children_end_with_it_every_hand(tmp_path):
    """A bot that starts a child ignoring SIGTERM and crashes at its first request: each hand
    is an escape (R8) and a restart, and no child survives its hand (SIGKILL after the grace)."""
    bot_py = script(
        tmp_path,
        "spawner.py",
        """
        import json, subprocess, sys
        child = subprocess.Popen([sys.executable, "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"])
        open(sys.argv[1], "a").write(f"{child.pid}\\n")
        for line in sys.stdin:
            if json.loads(line)["type"] == "request":
                sys.exit(3)
        """,
    )
    pids = tmp_path / "children"
    bot = ExternalStrategy([PY, str(bot_py), str(pids)], name="spawner")
    # time limits far above a bot's start on a loaded machine: a death noticed at once is no
    # timeout, while waiting for the pipe the child holds open would be one
    patient = FAST.replace(turn_timeout=5.0, claim_timeout=5.0)
    try:
        for seed in (1, 2, 3):
            rnd, timeouts = play(bot, rules=patient, seed=seed)
            # R10.3: the bot's death is an escape at once, though its child holds the pipe
            assert rnd.seats.escaped[0] and timeouts == [0, 0, 0, 0]
    finally:
        bot.close()
    assert bot.starts == 3 and len(pids_in(pids)) == 3
    assert wait_until(lambda: not any(alive(p) for p in pids_in(pids)), 5)


def test_r8_a_line_over_the_cap_is_garbage_and_is_not_read_to_its_end(tmp_path):
    """300 MB without a newline: an escape (R8) as soon as the 1 MB cap is passed; the bot is
    left blocked on its write, so the adapter never took (nor buffered) the rest."""
    bot_py = script(
        tmp_path,
        "flood.py",
        """
        import sys
        for line in sys.stdin:
            if '"request"' in line:
                block = b"x" * (1 << 20)
                for _ in range(300):
                    sys.stdout.buffer.write(block)
                sys.stdout.buffer.flush()
                sys.exit(0)
        """,
    )
    bot = ExternalStrategy([PY, str(bot_py)], name="flood")
    try:
        rnd, timeouts = play(bot)
        assert rnd.seats.escaped[0] and timeouts == [0, 0, 0, 0]
        assert bot.bot is not None and bot.bot.running()  # still writing: the rest was never read
    finally:
        bot.close()


# ----------------------------------------------------------------------------- Python strategies


def test_r10_3_a_guarded_python_strategy_that_sleeps_is_pre_empted():
    cfg = TournamentConfig(
        strategies=[
            {"name": "sleeper", "strategy": "_slow_strategies:Sleeper"},
            "greedy",
            "random",
            "greedy",
        ],
        hands=4,
        seed=4,
        workers=1,
        chunk=4,
        rules=FAST_RULES,
    )
    t0 = time.monotonic()
    df = run(cfg, progress=False)
    assert time.monotonic() - t0 < 20  # each act() sleeps 30 s
    s = df[df["strategy"] == "sleeper"]
    assert (s["timeouts"] == 2).all() and s["escape"].all()  # R10.1-R10.3
    assert (df.groupby("hand")["delta"].sum() == -50).all()  # R8, R12.2


def test_guarded_python_strategies_play_exactly_like_in_process():
    """Observations cross to the worker and back without loss: the same table, seeded or not."""
    plain = run(
        TournamentConfig(
            strategies=["random", "greedy", "value", "greedy"],
            hands=12,
            seed=5,
            workers=1,
        ),
        progress=False,
    )
    guarded = run(
        TournamentConfig(
            strategies=[
                {
                    "name": "random",
                    "strategy": "xuezhan.strategies.random_bot:RandomStrategy",
                },  # takes a seed
                {
                    "name": "greedy",
                    "strategy": "xuezhan.strategies.greedy:GreedyStrategy",
                },
                {"name": "value", "strategy": "xuezhan.strategies.value:ValueStrategy"},
                "greedy",
            ],
            hands=12,
            seed=5,
            workers=1,
        ),
        progress=False,
    )
    pd.testing.assert_frame_equal(plain, guarded)


def test_observation_to_dict_and_back_is_the_identity():
    rules = Rules.preset("chengdu")  # exchange and void phases too (R11.1, R11.2)
    seen = 0
    for seed in range(3):
        rnd = Round.from_seed(rules, seed, first_dealer(seed))
        greedy = [GreedyStrategy() for _ in range(4)]
        for s, g in enumerate(greedy):
            g.reset(s, rules)
        while not rnd.over:
            obs = rnd.observation(rnd.turn.cur)
            back = observation_from_dict(obs.to_dict())
            for field in Observation.__slots__:
                assert getattr(back, field) == getattr(obs, field), field
            seen += 1
            rnd.apply(greedy[rnd.turn.cur].act(obs))
    assert seen > 100


def test_builtin_names_and_trusted_entries_run_in_process_others_are_guarded():
    assert not isinstance(strategy_factory(StrategySpec(name="g", strategy="greedy")), GuardedFactory)
    spec = StrategySpec(name="g", strategy="xuezhan.strategies.greedy:GreedyStrategy")
    guarded = strategy_factory(spec)
    assert isinstance(guarded, GuardedFactory)
    guarded.close()
    trusted = StrategySpec.parse(
        {"strategy": "xuezhan.strategies.greedy:GreedyStrategy", "trusted": True},
        "strategies[0]",
    )
    assert strategy_factory(trusted) is GreedyStrategy
    with pytest.raises(ConfigError, match="trusted"):
        StrategySpec.parse({"strategy": "greedy", "trusted": "yes"}, "strategies[0]")
    with pytest.raises(ConfigError, match="trusted: only a 'module:Class'"):
        StrategySpec.parse({"cmd": "python bot.py", "trusted": True}, "strategies[0]")


# ----------------------------------------------------------------------------- start-up check


@pytest.mark.parametrize(
    "case",
    [
        "missing program",
        "not executable",
        "a folder",
        "missing script",
        "missing cwd",
        "exits at once",
        "guarded class that fails",
    ],
)
def test_a_bot_that_cannot_start_stops_the_tournament_before_its_first_hand(tmp_path, case):
    out = tmp_path / "out"
    entry: dict = {"name": "ghost"}
    expect = ""
    if case == "missing program":
        entry["cmd"], expect = "/nonexistent/bot -v", "cannot find the program"
    elif case == "not executable":
        entry["cmd"], expect = "/etc/passwd", "Permission denied"
    elif case == "a folder":
        entry["cmd"], expect = str(tmp_path), "Permission denied"
    elif case == "missing script":
        entry["cmd"], expect = f"{PY} /nonexistent/bot.py", "can't open file"
    elif case == "missing cwd":
        entry["cmd"], entry["cwd"], expect = (
            f"{PY} bot.py",
            str(tmp_path / "gone"),
            "No such file",
        )
    elif case == "exits at once":
        bot = script(
            tmp_path,
            "dies.py",
            "import sys\nprint('model weights not found', file=sys.stderr)\nsys.exit(4)\n",
        )
        entry["cmd"], expect = f"{PY} {bot}", "model weights not found"
    else:
        entry["strategy"], expect = "_slow_strategies:Broken", "RuntimeError: no model"
    cfg = TournamentConfig(
        strategies=["greedy", "greedy", "greedy", entry],
        hands=4,
        workers=1,
        rules=FAST_RULES,
    )
    with pytest.raises(ConfigError) as err:
        run(cfg, output=out, progress=False)
    message = str(err.value)
    assert message.startswith("strategies[3] ('ghost')") and expect in message
    if "cmd" in entry:
        assert shlex.split(entry["cmd"])[0] in message
    assert not out.exists()  # refused before anything was written


def test_cli_names_the_bot_that_cannot_start_without_a_traceback(tmp_path):
    toml = script(
        tmp_path,
        "t.toml",
        f"""
        hands = 4
        workers = 1
        strategies = ["greedy", "greedy", "greedy", {{name = "ghost", cmd = "{PY} /nonexistent/bot.py"}}]
        """,
    )
    r = subprocess.run(
        [*CLI, "tournament", str(toml), "-o", str(tmp_path / "o")],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "ghost" in r.stderr and "/nonexistent/bot.py" in r.stderr and "can't open file" in r.stderr


# ----------------------------------------------------------------------------- pool workers


def _slow_module(tmp_path: Path) -> str:
    """A uniquely named copy of a slow strategy: its name marks the guarded workers' command lines."""
    name = f"slow_{os.getpid()}_{time.monotonic_ns()}"
    shutil.copy(ROOT / "tests" / "_slow_strategies.py", tmp_path / f"{name}.py")
    return name


def _start_cli(
    tmp_path: Path, module: str, hands: int = 200
) -> tuple[subprocess.Popen, Path, list[str], dict[str, str]]:
    toml = tmp_path / "t.toml"
    toml.write_text(
        f"hands = {hands}\nseed = 9\nchunk = 4\nworkers = 2\n"
        f'strategies = ["{module}:SlowGreedy", "greedy", "random", "greedy"]\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    env = {
        **os.environ,
        # the test's bots, then whatever this process imports xuezhan from (the installed package)
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
    }
    cmd = [*CLI, "tournament", str(toml), "--output", str(out), "--no-report"]
    proc = start_interruptible(cmd, env, sleep=0.003)
    assert wait_until(
        lambda: len(done_chunks(out)) >= 2 or proc.poll() is not None,
        60,
    )
    assert proc.poll() is None, "the run finished before the test could act"
    return proc, out, cmd, env


def test_a_killed_pool_worker_is_a_clear_message_and_resume_completes(tmp_path):
    module = _slow_module(tmp_path)
    proc, out, cmd, env = _start_cli(tmp_path, module)
    workers = children(proc.pid)
    assert len(workers) == 2
    os.kill(workers[0], signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "Traceback" not in err, err
    assert "worker process died" in err and "chunk" in err and "--resume" in err
    saved = read_parts(out)
    assert len(saved) > 0
    assert wait_until(lambda: not with_marker(module) and not any(alive(w) for w in workers), 10)
    done = subprocess.run(
        [*cmd, "--resume"],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    final = read_parts(out)
    assert sorted(final["hand"].unique()) == list(range(200)) and len(final) == 800
    kept = saved.merge(final, how="left", indicator=True)
    assert (kept["_merge"] == "both").all()  # the finished hands were kept as they were


def test_pool_workers_and_their_bots_end_when_the_main_process_is_killed(tmp_path):
    module = _slow_module(tmp_path)
    proc, out, _, _ = _start_cli(tmp_path, module)
    workers = children(proc.pid)
    assert len(workers) == 2 and with_marker(module)  # the guarded strategy's worker processes
    proc.kill()
    proc.communicate(timeout=30)
    assert wait_until(lambda: not any(alive(w) for w in workers) and not with_marker(module), 10)
    # the dead run's lock went with it: a new run may continue in the folder
    with OutputLock(out):
        pass


# ----------------------------------------------------------------------------- output folder


def test_resume_refuses_stored_chunks_that_are_not_their_hands(tmp_path):
    c = TournamentConfig(
        strategies=["random", "greedy", "random", "greedy"],
        hands=16,
        seed=3,
        workers=1,
        chunk=4,
    )
    out = tmp_path / "o"
    run(c, output=out, progress=False)
    (out / "results.parquet").unlink()
    seg = out / "parts" / "seg-000000.parquet"
    chunk0 = pq.ParquetFile(seg).read_row_group(0)
    # chunk 1's row group replaced by chunk 0's rows: refused, naming file, row group and chunk
    rewrite_chunks(out, lambda chunk, t: chunk0 if chunk == 1 else t)
    with pytest.raises(
        TournamentError,
        match=r"seg-000000\.parquet \(row group 1, chunk 1\): holds hands 0-3.*chunk holds hands 4-7",
    ):
        run(c, output=out, resume=True, progress=False)

    # same hands, one row's wall seed altered: also refused
    def alter(chunk: int, t: pa.Table) -> pa.Table:
        if chunk == 1:
            return pq.ParquetFile(seg_copy).read_row_group(1)
        if chunk != 2:
            return t
        seeds = t.column("seed").to_pylist()
        seeds[5] += 1
        return t.set_column(t.schema.get_field_index("seed"), "seed", pa.array(seeds, pa.int64()))

    seg_copy = tmp_path / "copy.parquet"
    run(c, output=tmp_path / "ref", progress=False)
    shutil.copy(tmp_path / "ref" / "parts" / "seg-000000.parquet", seg_copy)
    rewrite_chunks(out, alter)
    with pytest.raises(TournamentError, match=r"chunk 2\): hand 9 seat 1 has wall seed"):
        run(c, output=out, resume=True, progress=False)
    # a chunk stored twice (in two segments) is refused too
    seg.unlink()
    with SegmentWriter(out, run=c.identity(), first=0, journal=False) as w:
        w.add(0, chunk0)
    with SegmentWriter(out, run=c.identity(), first=1, journal=False) as w:
        w.add(0, chunk0)
    with pytest.raises(TournamentError, match=r"chunk 0 is stored twice"):
        run(c, output=out, resume=True, progress=False)
    (out / "parts" / "seg-000001.parquet").unlink()
    full = run(c, output=out, resume=True, progress=False)
    assert list(full["hand"]) == [h for h in range(16) for _ in range(4)]
    pd.testing.assert_frame_equal(full, load_results(tmp_path / "ref"))


def test_two_runs_cannot_share_an_output_folder(tmp_path):
    out = tmp_path / "o"
    c = TournamentConfig(strategies=["random", "greedy", "random", "greedy"], hands=4, seed=3, workers=1)
    holder = OutputLock(out)
    holder.acquire()
    try:
        with pytest.raises(TournamentError, match=f"another run \\(pid {os.getpid()}\\)"):
            run(c, output=out, progress=False)
        with pytest.raises(TournamentError, match="another run"):
            run(c, output=out, resume=True, progress=False)
        assert not (out / "parts").exists()
    finally:
        holder.release()
    assert len(run(c, output=out, progress=False)) == 16  # released: the folder is usable again


def test_a_second_cli_run_is_refused_while_the_first_runs(tmp_path):
    module = _slow_module(tmp_path)
    proc, _, cmd, env = _start_cli(tmp_path, module, hands=400)
    try:
        second = subprocess.run(
            [*cmd, "--resume"],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert second.returncode != 0 and "another run" in second.stderr and "Traceback" not in second.stderr
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
