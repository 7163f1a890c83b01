"""Hypothesis settings of the fuzz suites (tests/fuzz/).

Profiles, chosen with ``XUEZHAN_FUZZ=ci|long`` (default ``ci``):

- ``ci``: few examples per test, so the CLI fuzz part stays well under a minute in CI;
- ``long``: many more, for a run by hand (``XUEZHAN_FUZZ=long pytest tests/fuzz``).

Tests take the profile with ``@settings(FUZZ)`` (``from conftest import FUZZ`` does not work
across folders, so they read it as ``settings.get_profile(FUZZ_PROFILE)``). The global
Hypothesis settings of the other suites are left alone. No deadline: examples run the CLI, whose
time varies with the machine, and a deadline would make the suite flaky, not stricter.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

FUZZ_PROFILE = "xuezhan-fuzz"

_EXAMPLES = {"ci": 40, "long": 2000}

settings.register_profile(
    FUZZ_PROFILE,
    max_examples=_EXAMPLES.get(os.environ.get("XUEZHAN_FUZZ", "ci"), 40),
    deadline=None,
    derandomize=os.environ.get("XUEZHAN_FUZZ", "ci") == "ci",  # CI: the same examples every run
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
    database=None,
)
