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


def pytest_configure(config: pytest.Config) -> None:
    """``XDG_DATA_HOME`` (where platformdirs puts the room's database) is a fresh folder of this
    process, inherited by every command a test starts; under xdist each worker has its own."""
    data = tempfile.mkdtemp(prefix="xuezhan-test-data-")
    os.environ["XDG_DATA_HOME"] = data
    config.add_cleanup(lambda: shutil.rmtree(data, ignore_errors=True))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium per test module; screenshots go to ``test-artifacts/``."""
    from pathlib import Path

    from playwright import sync_api

    if not Path(CHROMIUM).exists():
        pytest.fail(f"no chromium at {CHROMIUM}: apt-get install -y chromium (.ci/run does), or set XUEZHAN_CHROMIUM")
    ART.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()
