"""血流成河 at the table in a real headless Chromium (Debian ``chromium`` through Playwright):
a person plays a xueliu table (docs/rules.md R14) until its seat has won and is locked; the
page shows the lock and every seat's wins, plays the forced discard of the drawn tile by itself
after the pause, offers the one-click "Discard drawn tile", and the end-of-hand panel and the
replay page show each seat's wins. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import time
from typing import Any

import pytest
from _browser import ART
from _room_helpers import live_server
from _room_pages import click_action, greedy_choice

from xuezhan.rules import Rules
from xuezhan.serve.app import create_app
from xuezhan.serve.limits import Limits, Pace
from xuezhan.serve.lobby import Room

# the forced discard's pause (the room's default is 1 s): long enough that a loaded machine
# (pytest's workers, chromium, the server on two cores) still shows the button before the
# table plays the tile; the turn timer is 3 s
PAUSE = 1.5
_XUELIU = Rules.preset("xueliu")


@pytest.fixture(scope="module")
def served():
    room = Room(
        pace=Pace(bot_delay=0.0, between_hands=0.0, claim_window=0.0, locked_discard=PAUSE),
        rules_overrides={"turn_timeout": 3.0, "claim_timeout": 1.5},
        limits=Limits(max_tables_per_client=100),
    )
    with live_server(create_app(room)) as url:
        yield room, url


def _state(page) -> dict[str, Any] | None:
    return page.evaluate("XZ.lastState()")


def _play_until(page, stop, seconds: float = 150.0) -> dict[str, Any]:
    """Play the person's decisions (greedy) until ``stop(state)``; bounded in time."""
    acted = None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        st = _state(page)
        if st is not None and stop(st):
            return st
        if st and st["view"] and not st["over"] and st["legal"] and st["clock"] and st["clock"]["seat"] == st["seat"]:
            at = (st["hand_no"], st["n_events"])
            if at != acted and st["forced"] is None:
                acted = at
                click_action(page, greedy_choice(st, _XUELIU))
                continue
        if st and st["over"] and page.is_visible("#next-btn"):
            page.click("#next-btn")
        page.wait_for_timeout(40)
    raise AssertionError("the person's seat was never locked with a forced discard in time")


#: The page's state and what it shows of the locked seats, read in one step.
_SNAPSHOT = """() => {
  const shown = (q) => { const e = document.querySelector(q); return !!e && e.checkVisibility(); };
  const mine = document.querySelector("#my-melds .wins[data-seat='0']");
  const seats = {};
  for (const pos of [1, 2, 3]) {
    const wins = document.querySelectorAll(`.slot-hand[data-pos='${pos}'] .wins`);
    seats[pos] = {
      tags: document.querySelectorAll(`.plate[data-pos='${pos}'] .locked`).length,
      wins: wins.length,
      data_wins: wins.length ? wins[0].getAttribute("data-wins") : null,
      data_aside: wins.length ? wins[0].getAttribute("data-aside") : null,
    };
  }
  return {
    st: XZ.lastState(),
    own_tag: shown(".plate.pos-bottom .locked"),
    note: document.querySelector("#locked-note").innerText,
    own_wins: mine && {
      count: mine.getAttribute("data-count"),
      wins: mine.getAttribute("data-wins"),
      tiles: mine.querySelectorAll(".win-tile").length,
    },
    discard_drawn: shown("#discard-drawn-btn"),
    seats,
  };
}"""


def _forced(st) -> bool:
    return bool(st["forced"]) and bool(st["locked"]) and st["locked"][st["seat"]]


def test_a_locked_seat_in_the_browser_wins_shown_forced_discard_played_R14(served, browser):
    room, base = served
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base + "/")
    page.select_option("select[name=preset]", "xueliu")
    for s in (1, 2, 3):
        page.select_option(f"select[name=seat{s}]", "greedy")
    page.fill("#create input[name=hands]", "6")
    page.click("#create button.big")
    page.wait_for_url("**/table/**")
    page.fill(".slot[data-slot='0'] input.name", "Lin")
    page.click("button[data-sit='0']")
    page.click("#start-btn")
    page.wait_for_selector("#hand .htile")
    table = next(iter(room.tables.values()))
    assert table.rules.stay

    # 1. play until the person's seat won and draws a tile it can only discard; what the page
    # shows is read with its state in one step (a loaded machine may play on between two reads)
    for _ in range(3):
        st = _play_until(page, _forced)
        seen_at = time.monotonic()
        snap = page.evaluate(_SNAPSHOT)
        if _forced(snap["st"]) and snap["st"]["n_events"] == st["n_events"]:
            break
    else:
        raise AssertionError("the page never showed a forced discard long enough to be read")
    drawn = st["view"]["drawn"]
    n_wins = len(st["view"]["wins"][0]) // 2
    assert n_wins >= 1 and st["forced"] == f"discard {drawn}"
    # the page says the seat is locked: its plate's tag, the note, its wins in front of it
    assert snap["own_tag"] and "锁牌" in snap["note"]
    assert snap["own_wins"] == {"count": str(n_wins), "wins": st["view"]["wins"][0], "tiles": n_wins}
    assert snap["discard_drawn"]
    # every other seat: locked tag and wins exactly as the state says (public)
    for s in (1, 2, 3):
        pos = (s - st["seat"]) % 4
        seat = snap["seats"][str(pos)]  # (a JSON object: its keys are text)
        assert seat["tags"] == (1 if st["locked"][s] else 0)
        assert seat["wins"] == (1 if st["locked"][s] else 0)
        if st["locked"][s]:
            assert seat["data_wins"] == st["view"]["wins"][s]
            assert seat["data_aside"] == st["view"]["aside"][s]
    page.screenshot(path=str(ART / "room-locked-forced.png"))
    # the wins in front of each seat fit a phone too
    page.set_viewport_size({"width": 390, "height": 844})
    width = page.evaluate("document.documentElement.scrollWidth")
    page.screenshot(path=str(ART / "room-locked-phone.png"))
    page.set_viewport_size({"width": 1280, "height": 900})
    assert width <= 400, f"the page is {width}px wide on a 390px phone"

    # 2. the person does nothing: the table discards the drawn tile after the pause
    # (the newest: on a loaded machine the log may already hold earlier ones, scrolled away)
    page.locator("#log li[data-type='discard'][data-note='locked']").last.wait_for(
        state="visible", timeout=int((PAUSE + 2.5) * 1000)
    )
    assert page.locator("#log li[data-note='locked']").last.inner_text().endswith("（锁牌，自动打出）")
    waited = time.monotonic() - seen_at
    assert waited >= PAUSE * 0.5, waited  # the person saw it first (the page took part of the pause)
    assert table.timeouts == [0, 0, 0, 0]

    # 3. the next forced discard, at once with the one-click button: the person's own discard
    # of the drawn tile (the table's would be noted "locked"), made before the pause ran out. A
    # loaded machine can deliver the click after the pause (the table's discard first, the
    # click then on nothing or on a later decision): up to three forced discards, of which one
    # must be the person's own, of the tile the page showed.
    tries: list[Any] = []
    for _ in range(3):
        # (a later forced discard: later in this hand, or in a later one)
        after = (st["hand_no"], st["n_events"])
        st = _play_until(page, lambda s, after=after: _forced(s) and (s["hand_no"], s["n_events"]) > after)
        rnd = table.rnd
        n0 = len(rnd.ledger.events)  # the hand waits for this decision, unless the pause ran out
        page.click("#discard-drawn-btn")
        page.wait_for_function(
            f"() => {{ const s = XZ.lastState(); return s && s.n_events > {st['n_events']}; }}", timeout=5000
        )
        mine = next((e for e in rnd.ledger.events[n0:] if e.type == "discard" and e.seat == 0), None)
        tries.append(mine)
        if mine is not None and mine.note is None and mine.tile == st["view"]["drawn"] and not mine.default:
            break
    else:
        raise AssertionError(f"no click on the one-click button was the person's own discard: {tries}")

    # 4. the hand's end: the panel lists each seat's wins, as the engine has them
    st = _play_until(page, lambda s: s["over"])
    page.wait_for_selector("#settlement:not([hidden]) #grid tr.grow")
    res = table.rnd.hand_result()
    for s in range(4):
        won = [w.tile for w in res.wins if w.seat == s]
        row = page.locator(f"#grid tr.grow[data-seat='{s}']")
        # the grid lists each of its wins with its tile, as the engine has them
        assert row.locator(".gwin").evaluate_all("(ws) => ws.map((w) => w.dataset.tile)") == won
        if len(won) and table.rnd.locked(s):
            assert row.locator(".wins").get_attribute("data-count") == str(len(won))
            assert row.locator(".wins").get_attribute("data-wins") == "".join(won)
    page.screenshot(path=str(ART / "room-locked-end.png"))

    # 5. the replay page: each seat's wins at the last frame
    with page.expect_popup() as pop:
        page.click("#settle-replay")
    replay = pop.value
    replay.wait_for_selector("#seats .rseat")
    replay.click("#last")
    for s in range(4):
        won = "".join(w.tile for w in res.wins if w.seat == s)
        box = replay.locator(f".rseat[data-seat='{s}'] .wins")
        assert box.count() == (1 if won else 0)
        if won:
            assert box.get_attribute("data-wins") == won
            assert replay.locator(f".rseat[data-seat='{s}'] .locked").count() == 1
    replay.screenshot(path=str(ART / "room-locked-replay.png"))
    replay.close()
    page.close()
