"""Everything in view: a person plays whole leshan and 血流成河 hands by clicking, on a laptop
(1280 x 800), a phone (390 x 844) and a phone held sideways (844 x 390), in headless Debian
chromium. At every decision (exchange, void, turns, claims, the locked hand's turns) the hand,
the decision's buttons, the clock, the acting seat and the aids lie wholly inside the viewport,
no button is covered, and the page does not scroll; at the end of the hand the panel's title,
its one Start button and the grid are in view. Screenshots of each kind of decision go to
``test-artifacts/``.

The person plays as ``greedy`` (the page's own state, its exchange and void suggestions), on a
deal where that wins early in 血流成河 (seed 3: seat 0 wins, then plays a locked hand), so every
kind of decision comes up; the bots play at once."""

from __future__ import annotations

import time

import pytest
from _browser import ART
from _room_helpers import live_server
from _room_pages import click_action, greedy_choice, my_decision, open_table, out_of_view, state
from playwright import sync_api

from xuezhan.rules import Rules
from xuezhan.serve.app import create_app
from xuezhan.serve.limits import Limits, Pace
from xuezhan.serve.lobby import Room

SCREENS = {"laptop": (1280, 800), "phone": (390, 844), "sideways": (844, 390)}


@pytest.fixture(scope="module")
def base():
    room = Room(
        # the locked hand's forced discards at the room's own pause, so the page's locked turns are
        # seen (and checked) even on a loaded machine; no claim window (nobody here tests it)
        pace=Pace(bot_delay=0.0, between_hands=0.0, locked_discard=1.0, claim_window=0.0),
        # long clocks: the person always answers before they run out, even on a loaded machine
        # (a screenshot can take seconds there), so the hand goes as greedy plays it; the clocks
        # cost nothing when nobody waits
        rules_overrides={"turn_timeout": 30.0, "claim_timeout": 30.0},
        limits=Limits(max_tables_per_client=100),
        seeds=lambda: 3,  # every hand the same deal (server-side: a test's own room)
    )
    with live_server(create_app(room)) as url:
        yield room, url


def _play_hand_checking(page, preset: str, screen: str) -> set[str]:
    """Play one hand as greedy, checking the view at each decision; the kinds of decision met."""
    rules = Rules.preset(preset)
    kinds: set[str] = set()
    shot: set[str] = set()
    acted, acted_when = None, 0.0
    played: list = []  # what the person did, when (for the message of a failure)
    t0 = time.monotonic()
    page.played = played
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        st = state(page)
        if st and st["over"]:
            break
        kind = my_decision(st)
        at = (st["hand_no"], st["n_events"], kind) if st else None
        if kind is None or (at == acted and time.monotonic() - acted_when < 4.0):
            page.wait_for_timeout(25)
            continue  # (a click the table did not take is made again after a while)
        locked = bool(st["locked"] and st["locked"][st["seat"]])
        label = "locked" if locked and kind == "turn" else kind
        try:
            page.wait_for_selector("#actions button", timeout=3000)
        except sync_api.TimeoutError:
            now = state(page)
            if now and now["n_events"] != st["n_events"]:
                continue  # played for the person meanwhile (a locked hand's forced discard, R14.2)
            raise
        bad = out_of_view(page)
        assert not bad, f"{preset} on the {screen} at a {label} decision: {bad}"
        if label not in shot:
            shot.add(label)
            page.screenshot(path=str(ART / f"in-view-{preset}-{screen}-{label}.png"))
        kinds.add(label)
        acted, acted_when = at, time.monotonic()
        if kind in ("exchange", "void"):
            action = st["aids"]["suggest"]  # greedy's own choice, suggested by the page
        elif locked and st["forced"]:
            page.wait_for_timeout(5)
            continue  # the table plays the locked hand's only discard by itself (R14.2)
        else:
            action = greedy_choice(st, rules)
        if page.evaluate("XZ.lastState().n_events") != st["n_events"]:
            continue  # the page moved on meanwhile: decide on what it shows now
        click_action(page, action)
        played.append((round(time.monotonic() - t0, 2), label, action, st["n_events"]))
    else:
        raise AssertionError(f"the hand did not end within 90 s on the {screen}")
    page.wait_for_selector("#settlement:not([hidden]) #grid tbody tr")
    bad = out_of_view(
        page, ["#settle-title", "#next-box button", "#settle-hide", "#grid thead, #grid tr.grow:first-child"]
    )
    assert not bad, f"{preset} on the {screen} at the end of the hand: {bad}"
    page.screenshot(path=str(ART / f"in-view-{preset}-{screen}-end.png"))
    return kinds


@pytest.mark.parametrize(
    "preset, screen",
    [
        ("leshan", "laptop"),
        ("leshan", "phone"),
        ("xueliu", "laptop"),
        ("xueliu", "phone"),
        ("xueliu", "sideways"),
    ],
)
def test_every_control_of_every_decision_is_in_view(base, browser, preset, screen):
    room, url = base
    w, h = SCREENS[screen]
    ctx = browser.new_context(viewport={"width": w, "height": h}, has_touch=screen != "laptop")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    open_table(page, url, preset, hands=2)
    page.click("#start-btn")
    kinds = _play_hand_checking(page, preset, screen)
    rnd = room.tables[page.url.rsplit("/", 1)[1]].rnd
    ran_out = [e for e in rnd.ledger.events if getattr(e, "seat", None) == 0 and getattr(e, "note", None) == "timeout"]
    assert not ran_out, (
        f"a decision of the person ran out (the page did not take a click): {ran_out} {page.played[-8:]}"
    )
    assert {"turn", "claim"} <= kinds, kinds
    if preset == "xueliu":
        assert {"exchange", "void", "locked"} <= kinds, kinds
    # the next hand starts from the panel's one button, and the table is in view again
    page.click("#next-btn")
    page.wait_for_selector("#settlement", state="hidden")
    assert not errors
    ctx.close()
