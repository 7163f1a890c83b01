"""The table page as a mahjong table, in headless Chromium (Debian ``chromium`` through
Playwright): four seats on four sides (by bounding boxes), seen from the seat the page shows;
rivers in rows of six; readable backs; the newest event in view and by name; animations only
for what just happened; every hand revealed at the end with its result; one "Start next hand";
the room's CJK web font loaded; no horizontal overflow at 1280 and 390 px. Screenshots go to
``test-artifacts/`` (git-ignored)."""

from __future__ import annotations

import itertools
import re
import time

import pytest
from _browser import ART
from _room_helpers import live_server
from playwright import sync_api

from xuezhan.serve.app import create_app
from xuezhan.serve.limits import Limits, Pace
from xuezhan.serve.lobby import Room

BOTS = ("greedy", "value", "random")  # seats 1, 2, 3; the person (Alice) sits in seat 0


@pytest.fixture(scope="module")
def base():
    room = Room(
        pace=Pace(bot_delay=0.05, between_hands=0.0, claim_window=0.0),
        rules_overrides={"turn_timeout": 6.0, "claim_timeout": 1.2},
        limits=Limits(max_tables_per_client=100),  # every test opens its tables from 127.0.0.1
    )
    with live_server(create_app(room)) as url:
        yield url


_PLAYER = itertools.count(1)


def _open_table(page, base, seat=0) -> str:
    """Open a table with the bots and sit at ``seat``; the player's name (a name belongs to the
    browser that first played with it, and each page here is a new browser profile)."""
    name = f"Alice{next(_PLAYER)}"
    page.goto(base + "/")
    for s, b in zip([x for x in range(4) if x != seat], BOTS, strict=True):
        page.select_option(f"select[name=seat{s}]", b)
    page.click("#create button.big")
    page.wait_for_url("**/table/**")
    page.fill(f".slot[data-slot='{seat}'] input.name", name)
    page.click(f"button[data-sit='{seat}']")
    page.click("#start-btn")
    page.wait_for_selector("#hand .htile")
    return name


def _box(page, sel):
    b = page.locator(sel).bounding_box()
    assert b is not None, f"{sel} is not shown"
    return b


def _centre(b):
    return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2


#: What the hand test checks at each step: the event list's newest line (and whether it lies
#: inside the list's box), the rivers' marks and animations, face-up tiles, the end.
_TABLE_STATE_JS = """() => {
    const box = document.getElementById('log-box').getBoundingClientRect();
    const items = document.querySelectorAll('#log li');
    const last = items[items.length - 1];
    const r = last ? last.getBoundingClientRect() : null;
    return {
      n: items.length,
      text: last ? last.textContent : '',
      inView: r ? (r.bottom <= box.bottom + 1 && r.top >= box.top - 1) : true,
      fresh: document.querySelectorAll('.river .tile.fresh').length,
      running: document.getAnimations().filter((a) => a.effect && a.effect.target
          && a.effect.target.closest && a.effect.target.closest('.river')).length,
      faceUp: document.querySelectorAll('.slot-hand .concealed-tiles > svg[data-tile]').length,
      over: !document.getElementById('settlement').hidden,
      // the list, kept up line by line, is the one the page would build whole
      whole: (() => {
        const t = document.createElement('template');
        t.innerHTML = XZ.logLines().join('');
        const want = [...t.content.children].map((li) => li.outerHTML);
        return JSON.stringify([...items].map((li) => li.outerHTML)) === JSON.stringify(want);
      })(),
    };
}"""


def _play_one_turn(page) -> str:
    """Discard (the tile just drawn) or pass, if it is the person's decision; else wait. The
    table may move on under the click (a claim's time runs out): then nothing was done."""
    try:
        if page.is_visible("#discard-btn"):
            page.locator("#hand .htile").last.click(timeout=2000)
            page.locator("#hand .htile.selected").click(button="right", timeout=2000)
            return "discard"
        if page.is_visible("button[data-act='pass']"):
            page.locator("button[data-act='pass']").click(timeout=2000)
            return "pass"
    except sync_api.Error:
        return ""
    page.wait_for_timeout(30)
    return ""


#: Each river's tiles, as (x, y) centres relative to the table's centre (synchronous: measured
#: between two updates of the page).
_MEASURE_JS = """() => {
    const f = document.getElementById('felt').getBoundingClientRect();
    const cx = f.left + f.width / 2, cy = f.top + f.height / 2;
    return [0, 1, 2, 3].map((p) => [...document.querySelectorAll(`.river[data-pos="${p}"] .tile`)].map((t) => {
        const r = t.getBoundingClientRect();
        return [r.left + r.width / 2 - cx, r.top + r.height / 2 - cy];
    }));
}"""
#: ... once no animation runs.
_RIVERS_JS = (
    "async () => { await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));"
    " return (" + _MEASURE_JS + ")(); }"
)


def _check_rows_of_six(rows) -> int:
    """Each river with seven tiles or more: the first six in one row, the seventh behind the
    first (further from the centre, towards its seat) and in line with it. Returns how many
    rivers were checked."""
    checked = 0
    for pos, r in enumerate(rows):
        if len(r) < 7:
            continue
        checked += 1
        along = [abs(x) if pos in (1, 3) else abs(y) for x, y in r]  # distance towards its seat
        across = [y if pos in (1, 3) else x for x, y in r]
        assert all(abs(along[i] - along[0]) < 2 for i in range(6)), (pos, r[:6])  # one row of six
        assert along[6] > along[0] + 5 and abs(across[6] - across[0]) < 2, (pos, r[0], r[6])
    return checked


def _no_overflow(page, what):
    width = page.evaluate("document.documentElement.scrollWidth")
    view = page.evaluate("window.innerWidth")
    assert width <= view, f"{what}: the page is {width}px wide in a {view}px window"


@pytest.mark.parametrize("seat", [0, 2])
def test_four_seats_around_the_table_seen_from_ones_own_seat(base, browser, seat):
    """The seen seat at the bottom, the next in turn order (R2: 0 -> 1 -> 2 -> 3) on its right,
    the one across at the top, the previous on its left: plates, rivers and hands by their
    bounding boxes around the table's centre."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    _open_table(page, base, seat=seat)
    page.wait_for_selector(".river .tile", timeout=20000)
    where = {"bottom": seat, "right": (seat + 1) % 4, "top": (seat + 2) % 4, "left": (seat + 3) % 4}
    for pos, s in where.items():
        assert page.get_attribute(f".plate.pos-{pos} .who", "data-seat") == str(s)
    # the table, the plates, the other seats' hands and each one's first back measured at once:
    # the table grows or shrinks as the decision bar under it changes, and the bots play on (a
    # hand drawn again between two measurements is another element), so boxes taken one by one
    # may come from two layouts
    felt, top, bottom, left, right, hands = page.evaluate(
        """() => {
        const box = (e) => {
            if (!e) return null;
            const r = e.getBoundingClientRect();
            return {x: r.x, y: r.y, width: r.width, height: r.height};
        };
        const q = (s) => document.querySelector(s);
        const plates = ['top', 'bottom', 'left', 'right'].map((p) => box(q(`.plate.pos-${p}`)));
        return [box(q('#felt')), ...plates, [1, 2, 3].map((p) => {
            const h = q(`.slot-hand[data-pos="${p}"]`);
            return {hand: box(h), back: box(h && h.querySelector('.concealed-tiles .tile.back'))};
        })];
    }"""
    )
    cx, cy = _centre(felt)
    assert top["y"] + top["height"] <= felt["y"] + 2 and bottom["y"] >= felt["y"] + felt["height"] - 2
    assert left["x"] + left["width"] <= felt["x"] + 2 and right["x"] >= felt["x"] + felt["width"] - 2
    assert abs(_centre(top)[0] - cx) < felt["width"] / 4
    # the seen seat's plate shares the row under the table with the decision's buttons: it is
    # under the table, to the left of them when there are any
    assert felt["x"] <= _centre(bottom)[0] <= felt["x"] + felt["width"]
    for b in (left, right):
        assert abs(_centre(b)[1] - cy) < felt["height"] / 4
    # the other seats' concealed tiles lie along their edges of the table, as readable backs
    for (pos, side), seen in zip(((1, "right"), (2, "top"), (3, "left")), hands, strict=True):
        b = seen["hand"]
        assert b is not None, f"seat position {pos} shows no hand"
        x, y = _centre(b)
        if side == "top":
            assert y < cy - felt["height"] / 3 and b["width"] > b["height"]
        else:
            assert (x > cx + felt["width"] / 3) if side == "right" else (x < cx - felt["width"] / 3)
            assert b["height"] > b["width"]
        bb = seen["back"]
        assert bb is not None, f"seat position {pos} shows no back"
        assert min(bb["width"], bb["height"]) >= 20, f"backs {bb} are too small to read"
    # the rivers: in front of their seats, between the centre and that seat's edge
    page.wait_for_function("document.querySelectorAll('.river .tile').length >= 4", timeout=20000)
    firsts = page.evaluate(
        """() => [0, 1, 2, 3].map((p) => {
        const t = document.querySelector(`.river[data-pos="${p}"] .tile`);
        if (!t) return null;
        const r = t.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2];
    })"""
    )
    assert sum(f is not None for f in firsts) >= 2
    for pos, f in enumerate(firsts):
        if f is None:
            continue
        dx, dy = f[0] - cx, f[1] - cy
        toward = {0: (dy, dx), 1: (dx, dy), 2: (-dy, dx), 3: (-dx, dy)}[pos]  # (towards its seat, across)
        assert toward[0] > abs(toward[1]) * 0.3, (pos, dx, dy)
    # rows of six, whichever way a river is turned: eight made-up discards in every river,
    # laid out by the page's own stylesheet (set and measured at once, between two updates)
    rows = page.evaluate(
        "() => { document.querySelectorAll('.river').forEach((r) => { r.innerHTML ="
        " XZ.tileSVG('5p', 'cn').repeat(8); }); return (" + _MEASURE_JS + ")(); }"
    )
    assert [len(r) for r in rows] == [8, 8, 8, 8]
    assert _check_rows_of_six(rows) == 4
    page.screenshot(path=str(ART / f"table-1280-seat{seat}.png"))
    page.close()


def test_a_spectator_watches_a_seat_by_clicking_its_portrait(base, browser):
    player = browser.new_page(viewport={"width": 1280, "height": 800})
    _open_table(player, base)
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    spec = ctx.new_page()
    spec.goto(player.url)
    spec.wait_for_selector(".plate.pos-top .who[data-seat='2'] .portrait")
    spec.click(".plate.pos-top .who[data-seat='2'] .portrait")  # the portrait of value, across
    # now seen from value's seat: value at the bottom, random (seat 3) on its right, Alice left
    spec.wait_for_selector(".plate.pos-bottom .who[data-seat='2']")
    assert spec.get_attribute(".plate.pos-right .who", "data-seat") == "3"
    assert spec.get_attribute(".plate.pos-left .who", "data-seat") == "1"
    assert spec.get_attribute(".plate.pos-top .who", "data-seat") == "0"
    assert spec.inner_text("#role") == "旁观 value"
    portrait = spec.locator(".plate.pos-top .portrait")
    assert portrait.inner_text() == "Al"  # a one-word name: its first two letters, on its colour
    assert "hsl" in (portrait.get_attribute("style") or "")
    spec.screenshot(path=str(ART / "table-spectator.png"))
    ctx.close()
    player.close()


#: Holds the server's messages while ``__xzHold`` is set and delivers them on ``__xzRelease()``
#: (synchronously, inside the caller's task): a reader's scroll and lines coming in can then be
#: ordered as they happen on a busy table, between two frames, every time.
_HOLD_MESSAGES_JS = """(() => {
  const Native = window.WebSocket, held = [];
  window.__xzHold = false;
  window.__xzRelease = () => { window.__xzHold = false; for (const [f, ev] of held.splice(0)) f(ev); };
  // the event lines the held messages bring (every event but a pass is a line of the list)
  window.__xzHeldLines = () => held.reduce((n, [, ev]) => n + (JSON.parse(ev.data).events || [])
      .filter((e) => e.type !== "pass").length, 0);
  window.WebSocket = class extends Native {
    set onmessage(f) { super.onmessage = (ev) => (window.__xzHold ? held.push([f, ev]) : f(ev)); }
  };
})();"""


def test_a_reader_back_at_the_end_is_followed_though_lines_came_in_before_the_frame(base, browser):
    """A reader who scrolled back to older events and then to the end of the list is followed
    again, even when new lines come in between the scroll and the next frame (a busy table):
    the lines below are new ones, not the reader's choice to stay above them."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.add_init_script(_HOLD_MESSAGES_JS)
    _open_table(page, base)
    box = "document.getElementById('log-box')"
    deadline = time.monotonic() + 90
    while page.evaluate(f"{box}.scrollHeight - {box}.clientHeight") < 60:
        assert time.monotonic() < deadline and not page.is_visible("#settlement"), "the list never overflowed"
        _play_one_turn(page)
    below = 0
    for _ in range(4):  # (a claim of the person's discard can leave too few lines: again)
        page.evaluate(f"{box}.scrollTop = 0")  # the reader scrolls back to the first events
        page.wait_for_timeout(100)
        while not page.is_visible("#discard-btn"):  # the person's turn: the bots play on after it
            assert time.monotonic() < deadline and not page.is_visible("#settlement"), "no turn of the person's"
            _play_one_turn(page)
        # held from before the person's discard: the bots' turns after it can come in faster than
        # a round trip to the page, and none of them may reach the list before the reader scrolls
        page.evaluate("window.__xzHold = true")
        if _play_one_turn(page) != "discard":
            page.evaluate("window.__xzRelease()")
            continue
        until = time.monotonic() + 5
        while page.evaluate("window.__xzHeldLines()") < 4 and time.monotonic() < until:  # the bots' turns
            page.wait_for_timeout(50)
        below = page.evaluate(
            f"(() => {{ const b = {box}; b.scrollTop = b.scrollHeight; const h = b.scrollHeight;"
            " window.__xzRelease(); return b.scrollHeight - h; })()"
        )
        if below >= 40:
            break
    assert below >= 40, f"the held lines reach only {below} px below the reader"  # the case tested
    try:
        page.wait_for_function(f"() => ({_TABLE_STATE_JS})().inView", polling="raf", timeout=2000)
    except sync_api.TimeoutError:
        text = page.evaluate(_TABLE_STATE_JS)["text"]
        raise AssertionError(f"the list no longer follows: {text!r} is out of view") from None
    page.close()


def test_a_hand_at_the_table_newest_event_animations_and_the_reveal(base, browser):
    """Play a whole hand by clicking. Throughout: the newest event is in view and named, at
    most one river tile animates (the discard that just happened) and nothing restarts the
    others; no concealed tile of another seat is face up before the end. At the end: every
    hand is revealed with its name and result, the settlement uses names, and exactly one
    "Start next hand" button is shown."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    alice = _open_table(page, base)
    names = [alice, "greedy", "value", "random"]
    fresh_seen = 0
    checked_log = 0
    read_back = False
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not page.is_visible("#settlement"):
        _play_one_turn(page)
        # as a frame shows it: the page scrolls its list in the frame after a line comes in, so
        # the newest line is in view by the next frames (one left scrolled back never is)
        try:
            state = page.wait_for_function(
                f"() => {{ const s = ({_TABLE_STATE_JS})(); return s.inView || s.over ? s : false; }}",
                polling="raf",
                timeout=2000,
            ).json_value()
        except sync_api.TimeoutError:
            state = page.evaluate(_TABLE_STATE_JS)
        if state["over"]:
            break
        assert state["inView"], f"the newest event {state['text']!r} is scrolled out of view"
        assert state["whole"], "the event list differs from the list built whole"
        assert not re.search(r"\bseat \d\b", state["text"]), state["text"]
        assert state["fresh"] <= 1, "more than one river tile is marked as just discarded"
        assert state["running"] <= 1, f"{state['running']} river animations run at once"
        assert state["faceUp"] == 0, "another seat's concealed tile is face up before the end"
        fresh_seen += state["fresh"]
        if state["n"] > 30 and checked_log < 1:
            checked_log += 1
            assert any(n in state["text"] for n in names), state["text"]
            page.screenshot(path=str(ART / "table-1280-mid.png"))
        overflow = page.evaluate(
            "(() => { const b = document.getElementById('log-box'); return b.scrollHeight - b.clientHeight; })()"
        )
        if overflow > 60 and not read_back:
            read_back = True
            # a reader who scrolls back to older lines is left there while new ones come in (and
            # followed again once back at the end: the checks above, from the next step on)
            n0 = page.evaluate(
                "(() => { document.getElementById('log-box').scrollTop = 0;"
                " return document.querySelectorAll('#log li').length; })()"
            )
            until = time.monotonic() + 20
            while time.monotonic() < until and not page.is_visible("#settlement"):
                if page.evaluate("document.querySelectorAll('#log li').length") >= n0 + 2:
                    break
                _play_one_turn(page)
            top = page.evaluate("document.getElementById('log-box').scrollTop")
            assert top == 0, "the list was scrolled to its end under a reader of older lines"
            page.evaluate("const b = document.getElementById('log-box'); b.scrollTop = b.scrollHeight")
    assert page.is_visible("#settlement"), "the hand did not end within 90 s"
    assert fresh_seen >= 1, "no discard was ever animated"
    assert read_back, "the event list never outgrew its box (its scrolling was not checked)"
    page.wait_for_timeout(200)
    page.screenshot(path=str(ART / "table-1280-end.png"))
    # the rivers as the hand left them: rows of six (once the last animation has finished)
    _check_rows_of_six(page.evaluate(_RIVERS_JS))
    # every hand revealed in the grid, with its name and its result (胡牌, 听牌, 未听牌, 花猪, 逃跑)
    reveal = page.locator("#grid tr.grow")
    assert reveal.count() == 4
    for s in range(4):
        row = page.locator(f"#grid tr.grow[data-seat='{s}']")
        assert names[s] in row.inner_text()
        assert re.search(r"胡牌|听牌|未听牌|花猪|逃跑|未完", row.inner_text())
        assert row.locator(".rev-tiles svg[data-tile]").count() >= 1
    for pos in (1, 2, 3):
        assert page.locator(f".slot-hand[data-pos='{pos}'] .concealed-tiles.open svg[data-tile]").count() >= 1
    pays = page.inner_text("#payments")
    assert not re.search(r"\bseat \d\b", pays) and not re.search(r"\d 号位", pays)
    assert all(n in page.inner_text("#settle-scores") for n in names)
    # exactly one button starts the next hand
    buttons = page.locator("button:visible", has_text=re.compile("开始下一局"))
    assert buttons.count() == 1
    assert page.locator("#start-btn:visible").count() == 0
    _no_overflow(page, "the table at the end of a hand")
    # every meld on the table has its claimed tile turned (a concealed kong none)
    for m in page.locator(".slot-hand .meld, #my-melds .meld").all():
        sideways = m.locator("svg.side").count()
        assert sideways == (0 if "concealed" in (m.get_attribute("class") or "") else 1)
    # the hand's replay names the seats as the table did
    replay = page.get_attribute("#settle-replay", "href")
    other = browser.new_page(viewport={"width": 1280, "height": 800})
    other.goto(base + replay)
    other.wait_for_selector(".rseat .nm")
    assert [other.inner_text(f".rseat[data-seat='{s}'] .nm") for s in range(4)] == names
    other.close()
    buttons.click()  # the only person at the table is ready: the next hand starts
    page.wait_for_function("document.getElementById('settlement').hidden", timeout=15000)
    assert "第 2/" in page.inner_text("#match-info")
    assert not errors
    page.close()


def test_a_meld_turns_its_claimed_tile_towards_the_giver(base, browser):
    """The claimed tile lies sideways at the end pointing at its giver, seen from the melder:
    the giver on its left (the previous seat) the first tile, across the middle, on its right
    (the next seat) the last; a concealed kong has no giver and shows two backs."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    alice = _open_table(page, base)
    shape = page.evaluate(
        """() => {
        const one = (kind, melder, giver) => {
            const el = document.createElement('div');
            el.innerHTML = XZ.meldHTML(kind, '5p', melder, giver);
            const m = el.firstElementChild;
            return {tiles: [...m.querySelectorAll('svg.tile')].map((t) =>
                        t.classList.contains('back') ? 'back' : t.classList.contains('side') ? 'side' : 'up'),
                    title: m.getAttribute('title')};
        };
        return {left: one(0, 1, 0), across: one(0, 1, 3), right: one(0, 1, 2),
                kongRight: one(1, 3, 0), concealed: one(2, 2, null)};
    }"""
    )
    assert shape["left"]["tiles"] == ["side", "up", "up"]
    assert shape["across"]["tiles"] == ["up", "side", "up"]
    assert shape["right"]["tiles"] == ["up", "up", "side"]
    assert shape["kongRight"]["tiles"] == ["up", "up", "up", "side"]  # seat 0 is seat 3's next
    assert shape["concealed"]["tiles"] == ["back", "up", "up", "back"]
    # its title says who melded what from whom, in Chinese (seat 1 is greedy, seat 2 value)
    assert shape["left"]["title"] == f"greedy 碰 {alice} 的 五筒" and shape["concealed"]["title"] == "value 暗杠 五筒"
    page.close()


def test_the_cjk_font_is_loaded_and_draws_the_tiles(base, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    _open_table(page, base)
    # the page asks for the face when it lays out the tiles' text: on a loaded machine that can
    # come after the hand is shown (then `document.fonts.ready` has nothing to wait for yet)
    page.wait_for_function(
        """() => [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'Xuezhan CJK'
                                            && f.status !== 'unloaded')""",
        timeout=10000,
    )
    loaded = page.evaluate(
        """async () => {
        await document.fonts.ready;
        const faces = [...document.fonts].filter((f) => f.family.replace(/"/g, '') === 'Xuezhan CJK');
        return {loaded: faces.filter((f) => f.status === 'loaded').length,
                check: document.fonts.check('20px "Xuezhan CJK"', '万筒条庄缺'),
                files: performance.getEntriesByType('resource').map((e) => e.name.split('/').pop())
                    .filter((n) => n.endsWith('.woff2'))};
    }"""
    )
    # the tiles draw with the room's font: its pages' face is loaded for them (and no names slice
    # here: this machine's own CJK font draws the names)
    assert loaded["check"] and loaded["loaded"] >= 1 and "xuezhan-cjk.woff2" in loaded["files"]
    page.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_lobby_table_and_replay_fit_the_screen(base, browser, width):
    page = browser.new_page(viewport={"width": width, "height": 844 if width < 500 else 800})
    _open_table(page, base)
    page.wait_for_selector(".river .tile", timeout=20000)
    _no_overflow(page, "the table")
    # the table fits across the screen: the felt and the seen hand inside the window
    felt = _box(page, "#felt")
    assert felt["x"] >= 0 and felt["x"] + felt["width"] <= width
    hand = _box(page, "#hand")
    assert hand["x"] >= 0 and hand["x"] + hand["width"] <= width
    page.screenshot(path=str(ART / f"table-{width}.png"), full_page=True)
    # the lobby, listing at least that table
    page.goto(base + "/")
    page.wait_for_selector("#tables a[href^='/table/']")
    _no_overflow(page, "the lobby")
    page.screenshot(path=str(ART / f"lobby-{width}.png"), full_page=True)
    page.goto(base + "/replay")
    page.wait_for_selector("#logs")
    _no_overflow(page, "the replay page")
    page.close()


def test_a_table_that_does_not_exist_says_so_instead_of_reconnecting(base, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(base + "/table/t999999")
    page.wait_for_function("document.getElementById('message').textContent.includes('没有这张牌桌')")
    page.wait_for_timeout(1500)  # the page used to retry every second, saying "reconnecting…"
    assert "重连" not in page.inner_text("#message")
    assert page.inner_text("#turn") == "没有这张牌桌"
    page.close()
