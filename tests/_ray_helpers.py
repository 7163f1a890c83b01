"""A strategy for the Ray executor test: greedy, sleeping before each decision when
XUEZHAN_TEST_SLEEP (seconds) is set, and leaving a file named by its process id in
XUEZHAN_TEST_PIDDIR, so the test knows which worker processes play and can kill one mid-run."""

import os
import time
from pathlib import Path

from xuezhan.strategies.greedy import GreedyStrategy


class PidSlowGreedy(GreedyStrategy):
    def reset(self, seat, rules):
        piddir = os.environ.get("XUEZHAN_TEST_PIDDIR")
        if piddir:
            Path(piddir, f"pid-{os.getpid()}").touch()
        return super().reset(seat, rules)

    def act(self, obs):
        delay = float(os.environ.get("XUEZHAN_TEST_SLEEP", "0") or 0)
        if delay:
            time.sleep(delay)
        return super().act(obs)
