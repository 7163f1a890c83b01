"""The replay page's review in a real headless Chromium (Debian ``chromium`` through Playwright,
no browser download): open a finished room hand's replay, review a seat, see its decisions
sorted by the points they lost, jump to a decision's step. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import pytest
from _browser import ART
from _review_helpers import slipped_hand
from _room_helpers import live_server

from xuezhan.engine import log_lines
from xuezhan.serve.app import create_app
from xuezhan.serve.deals import commitment
from xuezhan.serve.lobby import Room
from xuezhan.serve.replay import named_log
from xuezhan.serve.review_jobs import ReviewLimits


@pytest.fixture(scope="module")
def slip():
    return slipped_hand("turn")


def test_review_a_seat_of_a_finished_room_hand(browser, slip):
    room = Room()
    lines = named_log(log_lines(slip.rnd), ["Mei", "greedy", "value", "random"])
    # booked as a table books a finished hand (its seed is not a deal's here: the page says so)
    rid = room.ledger.book_hand(
        "t", "leshan", 1, commitment(1), lines, [None] * 4, list(slip.rnd.ledger.deltas), [0] * 4
    )
    with live_server(create_app(room, reviews=ReviewLimits(rollouts=8))) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{url}/replay?log={rid}")
        page.wait_for_selector(".rseat")
        assert page.is_visible("#review")
        options = page.locator("#review-seat option").all_inner_texts()
        assert options[0] == "Mei"
        page.select_option("#review-seat", "0")
        page.click("#review-go")
        page.wait_for_selector("#review-rows tr", timeout=60000)
        rows = page.locator("#review-rows tr")
        losses = [float(x) for x in page.locator("#review-rows td.loss").all_inner_texts()]
        assert losses == sorted(losses, reverse=True) and len(losses) >= 4
        first = rows.first
        # the thrown-away win: played discard 7m, the best action the win, 48 points
        assert "discard 7m" in first.locator("td.played").inner_text()
        assert first.locator("td.best").inner_text().startswith("hu +48.00 [+48.00, +48.00]")
        assert first.get_attribute("data-event") == str(slip.event)
        assert "Mei (seat 0)" in page.inner_text("#review-note") and "8 rollouts" in page.inner_text("#review-note")
        page.screenshot(path=str(ART / "replay-review.png"), full_page=True)
        # the step link shows the position of that decision: seat 0 holding the 7m it drew
        first.locator("a.step").click()
        assert page.inner_text("#count").startswith(f"{slip.event} /")
        hand = page.get_attribute(".rseat[data-seat='0'] .hand", "data-hand")
        assert hand is not None and hand.count("7m") == 2
        page.close()
    room.ledger.close()


@pytest.mark.parametrize("late_script", [False, True], ids=["scripts-in-order", "review-js-last"])
def test_a_review_asked_by_the_address_and_refused_shows_why(browser, tmp_path, slip, late_script):
    """The address asks for the review at once; this server refuses it (its time limit is 0 s) and
    the page says why. With ``review.js`` held back (a loaded server can answer the hand's own
    requests before it sends that script) the review is still started: the replay's first log is
    shown only once every script of the page has run (it was once lost, the status left empty)."""
    import time

    from xuezhan.engine import write_log

    log = tmp_path / "slip.jsonl"
    write_log(slip.rnd, log)
    with live_server(create_app(Room(), logs=[log], reviews=ReviewLimits(rollouts=2, time_limit=0.0))) as url:
        page = browser.new_page(viewport={"width": 390, "height": 800})  # a phone
        seen: list[tuple[str, str]] = []  # ("asked" | "got", path) in the order they happened
        page.on("request", lambda r: seen.append(("asked", r.url.removeprefix(url))))
        page.on("requestfinished", lambda r: seen.append(("got", r.url.removeprefix(url))))
        delayed: list[str] = []

        def late(route):  # the script arrives well after the page could have asked for the log
            delayed.append(route.request.url)
            time.sleep(1.5)
            route.continue_()

        if late_script:
            page.route("**/static/review.js", late)
        page.goto(f"{url}/replay?log=f0&review=0")
        page.wait_for_selector(".rseat")
        # the review runs in a spawned worker process: starting one takes seconds on a loaded machine
        page.wait_for_function(
            "document.getElementById('review-status').textContent.includes('time limit')", timeout=90000
        )
        assert page.is_hidden("#review-table")
        assert not page.is_disabled("#review-go")
        assert len(delayed) == late_script
        # the log is asked for only after every script ran (before the fix, with the script late,
        # it came first)
        assert seen.index(("asked", "/api/logs")) > seen.index(("got", "/static/review.js"))
        page.close()


def test_review_a_log_file_chosen_in_the_browser(browser, tmp_path, slip):
    from xuezhan.engine import write_log

    log = tmp_path / "mine.jsonl"
    write_log(slip.rnd, log)
    with live_server(create_app(Room(), reviews=ReviewLimits(rollouts=4))) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{url}/replay")
        page.set_input_files("#file", str(log))
        page.wait_for_selector(".rseat")
        page.click("#review-go")
        page.wait_for_selector("#review-rows tr", timeout=60000)
        assert page.locator("#review-rows tr").first.get_attribute("data-event") == str(slip.event)
        page.close()
