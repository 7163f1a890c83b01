"""Fixtures shared by the test modules: the browser the page tests drive (Debian's chromium
through Playwright, never a downloaded browser)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _browser import ART, CHROMIUM


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
