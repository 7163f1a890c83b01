"""The game room in a real headless Chromium (Debian ``chromium``, Playwright with
``executable_path``; no browser download): sit with three bots and play a whole hand by
clicking, a discard timer running out (R10.1), right click to sort, a spectator's view, a
setting kept over a reload. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import itertools
import time

import pytest
from _browser import ART
from _room_helpers import live_server
from playwright.sync_api import Error as PlaywrightError

from xuezhan.serve.app import create_app
from xuezhan.serve.limits import Limits, Pace
from xuezhan.serve.lobby import Room

#: Each page is a new browser with its own player secret, and a name belongs to the first
#: browser that played with it (the standings): one name per page.
_PLAYER = itertools.count(1)


@pytest.fixture(scope="module")
def base():
    room = Room(
        pace=Pace(bot_delay=0.05, between_hands=0.0, claim_window=0.0),
        rules_overrides={"turn_timeout": 4.0, "claim_timeout": 1.2},  # room for a slow, loaded CI machine
        limits=Limits(max_tables_per_client=100),  # every test opens its tables from 127.0.0.1
    )
    with live_server(create_app(room)) as url:
        yield url


def _open_table(page, base, bots=("greedy", "value", "random")) -> str:
    """Open a table with ``bots`` and sit at seat 0; the player's name (a name belongs to the
    browser that first played with it, and each page here is a new browser profile)."""
    name = f"Alice {next(_PLAYER)}"
    page.goto(base + "/")
    for s, b in enumerate(bots, start=1):
        page.select_option(f"select[name=seat{s}]", b)
    page.click("#create button.big")
    page.wait_for_url("**/table/**")
    page.fill(".slot[data-slot='0'] input.name", name)
    page.click("button[data-sit='0']")
    page.click("#start-btn")
    page.wait_for_selector("#hand .htile")
    return name


def _order(page):
    return page.evaluate("XZ.handOrder()")


def _key(t):
    return "mps".index(t[1]) * 9 + int(t[0])


def test_play_a_whole_hand_by_clicking(base, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    _open_table(page, base)
    page.screenshot(path=str(ART / "room-start.png"))
    turns = claims = 0
    sorted_checked = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if page.is_visible("#settlement"):
            break
        if page.is_visible("#discard-btn"):
            last = page.locator("#hand .htile").last
            if turns == 3 and not sorted_checked:
                # right click with nothing selected sorts the hand
                page.click("#hand", button="right", position={"x": 2, "y": 2})
                order = _order(page)
                assert order == sorted(order, key=_key)
                sorted_checked = True
            timed_out = "#log li[data-type='discard'][data-seat='0'][data-note='timeout']"
            before = page.locator(timed_out).count()
            try:
                last.click(timeout=5000)  # left click selects ...
                page.wait_for_selector("#hand .htile.selected", timeout=5000)
                if turns == 1:
                    page.screenshot(path=str(ART / "room-selected.png"))
                # ... right click discards it
                page.locator("#hand .htile.selected").click(button="right", timeout=5000)
            except PlaywrightError:
                # on a loaded machine the turn's clock (4 s) can run out between the clicks: the
                # table played the selected tile then, and the selection went with it; nothing
                # else may take the selection away
                if page.locator(timed_out).count() > before:
                    continue
                raise
            turns += 1
            page.wait_for_timeout(60)
            continue
        passed = page.query_selector("button[data-act='pass']")
        if passed:
            try:
                if claims % 2 == 0:
                    page.click("#clock", button="right", timeout=5000)  # a right click on the countdown passes
                else:
                    passed.click(timeout=5000)
            except PlaywrightError:  # the claim's own short timer ran out first (a loaded machine): passed
                continue
            claims += 1
            page.wait_for_timeout(60)
            continue
        page.wait_for_timeout(40)
    page.screenshot(path=str(ART / "room-settlement.png"))
    assert page.is_visible("#settlement"), "the hand did not end within a minute"
    assert turns >= 1
    # the end in Chinese: the grid's headers, and every payment naming its rule (id on hover)
    assert [h.strip() for h in page.locator("#grid th").all_inner_texts()][:4] == ["玩家", "胡牌", "番型", "番数"]
    rules = [li.get_attribute("data-rule") for li in page.locator("#payments li").all()]
    assert rules and all(r.startswith(("R3", "R6", "R7", "R8")) for r in rules)
    assert all(
        li.get_attribute("title").startswith(li.get_attribute("data-rule") + " ")
        for li in page.locator("#payments li").all()
    )
    assert not errors
    page.close()


def test_discard_timer_plays_the_selected_tile(base, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    alice = _open_table(page, base, ("greedy", "greedy", "greedy"))
    page.wait_for_selector("#discard-btn", timeout=30000)
    assert page.is_visible("#clock")
    first = page.locator("#hand .htile").first
    chosen = first.get_attribute("data-tile")
    first.click()  # selected, never discarded by hand
    page.screenshot(path=str(ART / "room-countdown.png"))
    # the log says so, in Chinese: "李明 打出 五筒（超时）"
    page.wait_for_selector(
        f"#log li[data-type='discard'][data-seat='0'][data-tile='{chosen}'][data-note='timeout']", timeout=8000
    )
    line = page.locator(f"#log li[data-type='discard'][data-seat='0'][data-tile='{chosen}']").last.inner_text()
    tile = page.evaluate("(t) => XZ.tileName(t)", chosen)
    assert line == f"{alice} 打出 {tile}（超时）" and "万" in tile or "筒" in tile or "条" in tile
    page.close()


def test_spectator_sees_one_players_view(base, browser):
    player = browser.new_page(viewport={"width": 1280, "height": 800})
    _open_table(player, base)
    table_url = player.url
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})  # another browser: no seat token
    spec = ctx.new_page()
    spec.goto(table_url)
    spec.wait_for_selector(".who[data-seat='2']")
    spec.click(".who[data-seat='2']")
    spec.wait_for_function("document.getElementById('role').textContent === '旁观 value'")
    # the watched seat sits at the bottom, the next one (random, seat 3) on its right
    spec.wait_for_selector(".plate.pos-bottom .who[data-seat='2']")
    assert spec.get_attribute(".plate.pos-right .who", "data-seat") == "3"
    # a person plays at this table: the bot's tiles are private, the spectator sees backs only
    spec.wait_for_selector("#hand .htile.back")
    n = len(spec.query_selector_all("#hand .htile.back"))
    assert 1 <= n <= 14 and spec.query_selector("#hand .htile[data-tile]") is None
    assert spec.query_selector("#discard-btn") is None and spec.query_selector("button[data-act]") is None
    spec.screenshot(path=str(ART / "room-spectator.png"))
    ctx.close()
    player.close()


def test_a_players_tiles_reach_spectators_only_with_its_permission(base, browser):
    """允许旁观看牌 (Settings): off by default, a spectator of the player's seat sees backs;
    switched on, the player's own tiles; switched off again, backs."""
    player = browser.new_page(viewport={"width": 1280, "height": 800})
    _open_table(player, base, ("greedy", "greedy", "greedy"))
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    spec = ctx.new_page()
    spec.goto(player.url)
    spec.wait_for_selector("#hand .htile.back")  # seat 0 is watched by default
    assert spec.query_selector("#hand .htile[data-tile]") is None
    player.click("#settings-btn")
    player.check("#settings input[name=showHand]")
    player.click("#settings-close")
    spec.wait_for_selector("#hand .htile[data-tile]")
    assert spec.query_selector("#hand .htile.back") is None
    spec.screenshot(path=str(ART / "room-spectator-allowed.png"))
    player.click("#settings-btn")
    player.uncheck("#settings input[name=showHand]")
    player.click("#settings-close")
    spec.wait_for_selector("#hand .htile.back")
    assert spec.query_selector("#hand .htile[data-tile]") is None
    ctx.close()
    player.close()


def test_search_is_offered_by_its_label_in_the_lobby_and_at_the_table(base, browser):
    """The lobby's seat choices and the table's bot choices show each bot by its label (what it
    is), ``search`` among them; choosing it seats the bot named ``search``."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(base + "/")
    page.wait_for_selector("select[name=seat1] option[value=search]", state="attached")
    assert "looks ahead" in page.inner_text("select[name=seat1] option[value=search]")
    page.click("#create button.big")  # four seats for people: the bots are chosen on the table page
    page.wait_for_url("**/table/**")
    choice = ".slot[data-slot='1'] select.bot"
    page.wait_for_selector(f"{choice} option[value=search]", state="attached")
    assert "looks ahead" in page.inner_text(f"{choice} option[value=search]")
    page.select_option(choice, "search")
    page.click("button[data-bot='1']")
    page.wait_for_function("document.querySelector(\".slot[data-slot='1']\").textContent.includes('search (机器人)')")
    page.close()


def test_a_setting_survives_a_reload_and_the_page_fits_a_phone(base, browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    _open_table(page, base)
    page.click("#settings-btn")
    page.select_option("#settings select[name=tiles]", "label")
    page.select_option("#settings select[name=background]", "dark")
    page.uncheck("#settings input[name=sound]")
    page.screenshot(path=str(ART / "room-settings.png"))
    page.click("#settings-close")
    page.reload()
    page.wait_for_selector("#hand .htile")
    assert page.evaluate("document.body.dataset.bg") == "dark"
    assert page.evaluate("JSON.parse(localStorage.getItem('xuezhan.settings')).sound") is False
    label = page.locator("#hand .htile text").first.text_content()
    assert len(label) == 2 and label[1] in "mps"  # tiles drawn as "5p" labels now
    page.screenshot(path=str(ART / "room-labels.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(200)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 400, f"the page is {width}px wide on a 390px phone"
    page.screenshot(path=str(ART / "room-phone.png"), full_page=True)
    ctx.close()


def test_chengdu_exchange_and_void_by_clicking(base, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(base + "/")
    page.select_option("select[name=preset]", "chengdu")
    for s in (1, 2, 3):
        page.select_option(f"select[name=seat{s}]", "greedy")
    page.click("#create button.big")
    page.wait_for_url("**/table/**")
    alice = f"Alice {next(_PLAYER)}"
    page.fill(".slot[data-slot='0'] input.name", alice)
    page.click("button[data-sit='0']")
    page.click("#start-btn")
    page.wait_for_selector("button[data-act='exchange']", timeout=15000)
    tiles = page.evaluate("XZ.handOrder()")
    suit = next(x for x in "mps" if sum(t[1] == x for t in tiles) >= 3)
    picked = [i for i, t in enumerate(tiles) if t[1] == suit][:3]
    for i in picked:
        page.locator("#hand .htile").nth(i).click()
    page.screenshot(path=str(ART / "room-exchange.png"))
    page.click("button[data-act='exchange']")
    mine = "".join(sorted((tiles[i] for i in picked), key=_key))
    page.wait_for_selector("#log li[data-type='exchange'][data-seat='0']", timeout=8000)
    said = page.locator("#log li[data-type='exchange'][data-seat='0']").inner_text()
    assert said == f"{alice} 换三张 " + page.evaluate("(ts) => XZ.splitTiles(ts).map(XZ.tileName).join('')", mine)
    page.wait_for_selector("button[data-act='void s']", timeout=15000)
    page.click("button[data-act='void s']")
    page.wait_for_selector(".plate .void", timeout=15000)  # 定缺 shown once all four chose
    assert "缺条" in page.inner_text(".pos-bottom .who")
    # the void suit's tiles are marked and sort last (an aid, on by default)
    page.wait_for_function("XZ.handOrder().length > 0")
    # read the hand as drawn in one go: the bots play on, and a draw between two reads would
    # compare one hand's tiles with the next hand's marks
    shown = page.evaluate(
        "[...document.querySelectorAll('#hand .htile')]"
        ".map((e) => [e.dataset.tile, e.classList.contains('drawn'), e.classList.contains('void-tile')])"
    )
    suits = [t[1] for t, drawn, _ in shown if not drawn]
    assert "s" not in suits or suits[suits.index("s") :] == ["s"] * (len(suits) - suits.index("s")), shown
    assert [marked for _, _, marked in shown] == [t[1] == "s" for t, _, _ in shown], shown
    page.screenshot(path=str(ART / "room-void.png"))
    page.close()


def test_replay_viewer_steps_forward_and_back(tmp_path, browser):
    from xuezhan.engine import play_hand
    from xuezhan.strategies import GreedyStrategy

    log = tmp_path / "hand.jsonl"
    play_hand([GreedyStrategy() for _ in range(4)], "leshan", seed=5, log=log)
    with live_server(create_app(Room(), logs=[log])) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(url + "/replay?log=f0")
        page.wait_for_selector(".rseat")
        assert page.inner_text("#event").startswith("dealt")
        # a tournament log names no one: the seats are "1 号位"; a table's hand has its names
        assert page.inner_text(".rseat[data-seat='1'] .nm") == "1 号位"
        # all four hands open: 14 + 13 + 13 + 13 tiles at the deal
        sizes = [len(page.locator(f".rseat[data-seat='{s}'] .hand .tile").all()) for s in range(4)]
        assert sorted(sizes) == [13, 13, 13, 14]
        page.click("#next")
        page.click("#next")
        second = page.inner_text("#event")
        page.click("#prev")
        assert page.inner_text("#count").startswith("1 /")
        page.keyboard.press("ArrowRight")
        assert page.inner_text("#event") == second
        page.keyboard.press("End")
        assert page.is_visible("#settle") and "the hand is over" in page.inner_text("#settle-lines")
        # each seat's river lies in its own box, in rows of six
        for seat in range(4):
            box = page.locator(f".rseat[data-seat='{seat}']").bounding_box()
            tiles = page.locator(f".rseat[data-seat='{seat}'] .river .tile").all()
            assert tiles, f"seat {seat} has no river at the end"
            ys = []
            for t in tiles:
                b = t.bounding_box()
                assert box["x"] <= b["x"] and b["x"] + b["width"] <= box["x"] + box["width"] + 1
                assert box["y"] <= b["y"] and b["y"] + b["height"] <= box["y"] + box["height"] + 1
                ys.append(round(b["y"]))
            assert all(ys.count(y) <= 6 for y in set(ys))
        page.screenshot(path=str(ART / "replay-end.png"))
        page.close()
