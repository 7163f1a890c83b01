"""A deliberately slow strategy for the interruption test: greedy, sleeping before each decision
when XUEZHAN_TEST_SLEEP (seconds) is set, so a run can be interrupted midway."""

import os
import time

from xuezhan.strategies.greedy import GreedyStrategy


class SlowGreedy(GreedyStrategy):
    def act(self, obs):
        delay = float(os.environ.get("XUEZHAN_TEST_SLEEP", "0") or 0)
        if delay:
            time.sleep(delay)
        return super().act(obs)


class Sleeper(GreedyStrategy):
    """Never decides in time: every act() sleeps 30 s (pre-emption test, R10.3)."""

    def act(self, obs):
        time.sleep(30)
        return super().act(obs)


class Broken(GreedyStrategy):
    """Cannot be built (start-up check test)."""

    def __init__(self, **options):
        raise RuntimeError("no model")
