"""The room's server side in a real headless Chromium (Debian ``chromium`` through Playwright):
``xuezhan view LOG`` end to end (the address the command opens, then that page), two tabs on
one seat, the deal's commitment checked on the table and replay pages, and the standings pages
after a server restart. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
import urllib.request

from _browser import ART
from _room_helpers import free_port, live_server
from websockets.sync.client import connect

from xuezhan.serve.app import create_app
from xuezhan.serve.limits import Pace
from xuezhan.serve.lobby import Room
from xuezhan.serve.standings import Standings


def _room(db: str = ":memory:", turn: float = 20.0) -> Room:
    return Room(
        pace=Pace(bot_delay=0.0, between_hands=0.0, claim_window=0.0),
        rules_overrides={"turn_timeout": turn, "claim_timeout": min(turn, 1.0)},
        ledger=Standings(db),
    )


def _post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_view_command_opens_the_replay_page_it_names(tmp_path, browser):
    from xuezhan.engine import play_hand
    from xuezhan.strategies import GreedyStrategy

    log = tmp_path / "hand.jsonl"
    play_hand([GreedyStrategy() for _ in range(4)], "leshan", seed=5, log=log)
    # a stand-in web browser: writes down the address the command asks it to open
    opened = tmp_path / "opened.txt"
    fake = tmp_path / "fake-browser"
    fake.write_text(f'#!/bin/sh\nprintf %s "$1" > {opened}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "xuezhan", "view", str(log), "--port", str(port)],
        env={**os.environ, "BROWSER": str(fake)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        said = proc.stderr.readline()
        deadline = time.monotonic() + 20
        while not opened.exists() or not opened.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, "the command opened nothing"
            time.sleep(0.1)
        url = opened.read_text()
        assert url == f"http://127.0.0.1:{port}/replay?log=f0" and url in said
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(url)
        page.wait_for_selector(".rseat")
        assert page.inner_text("#event").startswith("dealt")
        assert "no hand log" not in page.inner_text("body")
        page.screenshot(path=str(ART / "view-command.png"))
        page.close()
    finally:
        proc.terminate()
        proc.wait(10)


def _sit_in_page(page, base, tid, name):
    page.goto(f"{base}/table/{tid}")
    page.fill(".slot[data-slot='0'] input.name", name)
    page.click("button[data-sit='0']")
    page.wait_for_selector("#start-btn")


def test_two_tabs_on_one_seat_only_the_newest_plays(browser):
    with live_server(create_app(_room())) as base:
        t = _post(base + "/api/tables", {"hands": 1, "bots": [None, "greedy", "greedy", "greedy"]})
        ctx = browser.new_context(viewport={"width": 1280, "height": 800})  # one browser: shared storage
        tab1 = ctx.new_page()
        _sit_in_page(tab1, base, t["id"], "Tabby")
        tab2 = ctx.new_page()
        tab2.goto(f"{base}/table/{t['id']}")  # resumes the seat with the stored token
        tab2.wait_for_selector("#start-btn")
        tab1.wait_for_function("document.getElementById('message').textContent.includes('another connection')")
        assert tab1.locator("#start-btn").count() == 0  # the old tab only watches
        tab2.click("#start-btn")
        tab2.wait_for_selector("#hand .htile")
        # the old tab sees the seat's view as a spectator: no actions
        tab1.wait_for_function("document.querySelector('#deal') !== null")
        assert tab1.locator("#actions button").count() == 0
        tab1.screenshot(path=str(ART / "two-tabs-old.png"))
        ctx.close()


def _play_as_player(port: int, tid: str, name: str, secret: str) -> dict:
    """Sit at seat 0 over a websocket and let the clock play the hand (R10); the last state."""

    # the synchronous client: Playwright's loop already runs in this thread
    with connect(f"ws://127.0.0.1:{port}/ws/{tid}", max_size=2**22) as ws:
        ws.send(json.dumps({"type": "sit", "seat": 0, "name": name, "secret": secret}))
        ws.send(json.dumps({"type": "start"}))
        deadline = time.monotonic() + 120
        for _ in range(20000):
            m = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            assert m["type"] != "error", m
            if m["type"] == "state" and m["over"]:
                return m
    raise AssertionError("the hand did not end")


def test_standings_and_replay_commitment_after_a_restart(tmp_path, browser):
    db = str(tmp_path / "room.db")
    room = _room(db, turn=0.3)
    with live_server(create_app(room)) as base:
        port = int(base.rsplit(":", 1)[1])
        t = _post(base + "/api/tables", {"hands": 1, "bots": [None, "greedy", "value", "random"]})
        end = _play_as_player(port, t["id"], "Mei", "m" * 32)
    room.ledger.close()
    points = end["view"]["deltas"][0]
    room2 = _room(db)
    with live_server(create_app(room2)) as base:
        page = browser.new_page(viewport={"width": 390, "height": 800})  # a phone
        page.goto(base + "/standings")
        page.wait_for_selector("#rows a")
        cells = [c.strip() for c in page.locator("#rows tr").first.locator("td").all_inner_texts()]
        assert "Mei" in cells and str(points) in cells
        page.click("#rows a")
        page.wait_for_selector("#history a")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.screenshot(path=str(ART / "standings-player.png"))
        page.click("#history a")
        page.wait_for_selector(".rseat")
        page.wait_for_function("document.querySelector('#deal') && document.querySelector('#deal').dataset.verdict")
        assert page.get_attribute("#deal", "data-verdict") == "matches"
        assert end["commitment"] in page.inner_text("#deal") and end["seed"] in page.inner_text("#deal")
        page.screenshot(path=str(ART / "replay-commitment.png"))
        page.close()
    room2.ledger.close()


def test_a_table_that_does_not_exist_says_so_instead_of_reconnecting(browser):
    with live_server(create_app(_room())) as base:
        page = browser.new_page(viewport={"width": 390, "height": 800})
        page.goto(base + "/table/t-no-such")
        page.wait_for_function("document.getElementById('message').textContent.includes('没有这张牌桌')")
        time.sleep(1.5)  # it does not go back to "reconnecting"
        assert "重连" not in page.inner_text("#message")
        page.close()
