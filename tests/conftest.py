"""Fixtures shared by the test modules: the browser the page tests drive (Debian's chromium
through Playwright, never a downloaded browser), and a data folder of the session's own (the
game room keeps its standings in the user's data folder: the tests never touch the real one)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
from _browser import ART, CHROMIUM

#: Module-scoped fixtures that start something expensive (a Ray instance).
SHARED = frozenset({"ray_cluster"})


def pytest_itemcollected(item: pytest.Item) -> None:
    """Under ``pytest -n auto --dist loadgroup`` (``.ci/run``), the tests of one module that
    share an expensive module-scoped resource (:data:`SHARED`) run on one worker, which builds
    it once: the Ray tests (one local Ray instance). The other tests, the browser's too, go one
    by one to whichever worker is free, so no long module queues behind another (a worker
    starts a chromium for each run of a module's page tests it gets, a second each). (Marked as
    each test is collected: xdist reads the groups when collection ends.)"""
    shared = SHARED.intersection(getattr(item, "fixturenames", ()))
    if shared:
        module = item.module.__name__  # type: ignore[attr-defined]
        item.add_marker(pytest.mark.xdist_group(f"{min(shared)}:{module}"))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Fail loudly, not slowly, when ``--dist loadgroup`` would not group: pytest-xdist marks a
    grouped test by a suffix of its node id (``…@group``), which pytest 9.2 ignores (hence the
    ``pytest<9.2`` of the test extra); the groups would then be dealt out test by test."""
    if not getattr(session.config.option, "loadgroup", False):
        return
    lost = [i.nodeid for i in session.items if i.get_closest_marker("xdist_group") and "@" not in i.nodeid]
    if lost:
        raise pytest.UsageError(
            f"--dist loadgroup does not group on this pytest ({pytest.__version__}) and pytest-xdist: "
            f"{lost[0]} has no group; install the test extra's pytest"
        )


def pytest_configure(config: pytest.Config) -> None:
    """``XDG_DATA_HOME`` (where platformdirs puts the room's database) is a fresh folder of this
    process, inherited by every command a test starts; under xdist each worker has its own."""
    data = tempfile.mkdtemp(prefix="xuezhan-test-data-")
    os.environ["XDG_DATA_HOME"] = data
    config.add_cleanup(lambda: shutil.rmtree(data, ignore_errors=True))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium per test module (per run of its tests on an xdist worker), closed
    before the worker goes on: Playwright's synchronous API holds an event loop while it runs,
    which the tests that run asyncio themselves must not meet. Screenshots go to
    ``test-artifacts/``."""
    from pathlib import Path

    from playwright import sync_api

    if not Path(CHROMIUM).exists():
        pytest.fail(f"no chromium at {CHROMIUM}: apt-get install -y chromium (.ci/run does), or set XUEZHAN_CHROMIUM")
    ART.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()
