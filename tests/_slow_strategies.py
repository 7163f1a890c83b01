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
