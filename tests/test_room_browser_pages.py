"""The room's pages in Debian chromium, one named test per fault that was found in them, and
the table's language and aids:

- the standings page takes none of the table's grid (its leaderboard is not ``#board``), keeps
  its player section hidden, and lays its headers out in a row, at 390 and 1280 px;
- a booked hand's replay, with its 39-digit seed, fits a 390 px phone;
- the lobby shows the hand a table is at as the table page does (1/8 while hand 1 is played);
- a spectator who never clicks gets no audio warning at all (there were hundreds);
- "1 point", not "1 points";
- Chinese by default, English when chosen in the settings and still after a reload;
- the sounds of 碰, 杠, 胡 and 自摸 are four different cues, each played for its event; the
  floating +N/-N comes with payments and goes with its switch; reduced motion starts with
  animation off; each aid goes with its switch.
"""

from __future__ import annotations

import re

import pytest
from _browser import ART
from _room_helpers import live_server
from _room_pages import open_table

from xuezhan.engine import Round, log_lines
from xuezhan.engine.decisions import Ruling, apply
from xuezhan.serve.app import create_app
from xuezhan.serve.deals import commitment
from xuezhan.serve.limits import Limits, Pace
from xuezhan.serve.lobby import Room
from xuezhan.serve.replay import named_log
from xuezhan.serve.words import settlement_lines
from xuezhan.strategies import GreedyStrategy

#: A seed of 128 bits: 39 decimal digits, as the room's deals have.
BIG_SEED = 2**127 + 987654321


def _room(**extra) -> Room:
    """The pages' room: a watcher sees each hand as it is played (short bot delay, no claim
    window), roomy clocks and table limits; `extra` adds to the settings."""
    return Room(
        pace=Pace(bot_delay=0.03, between_hands=0.0, claim_window=0.0),
        rules_overrides={"turn_timeout": 6.0, "claim_timeout": 2.0},
        limits=Limits(max_tables_per_client=100),
        **extra,
    )


@pytest.fixture(scope="module")
def served():
    room = _room()
    rnd = Round.from_seed("leshan", BIG_SEED, 0)
    bots = [GreedyStrategy() for _ in range(4)]
    for i, b in enumerate(bots):
        b.reset(i, rnd.rules)
    while not rnd.over:
        apply(rnd, Ruling(bots[rnd.turn.cur].act(rnd.observation(rnd.turn.cur))))
    lines = named_log(log_lines(rnd), ["李明", "greedy", "value", "random"])
    rid = room.ledger.book_hand(
        "t", "leshan", BIG_SEED, commitment(BIG_SEED), lines, [None] * 4, list(rnd.ledger.deltas), [0] * 4
    )
    with live_server(create_app(room)) as url:
        yield room, url, rid


@pytest.fixture(scope="module")
def show():
    """A room whose deals are all one seed (server-side): a hand of four greedy bots under
    血流成河 with a 碰, a 杠 (each kind), wins and payments, on every run (the room's own fair
    deals have hands without a kong)."""
    room = _room(seeds=lambda: 5)
    with live_server(create_app(room)) as url:
        yield url


def _bots_table(page, base, preset="leshan", hands=3) -> None:
    """A table of four bots (a show), watched from seat 0."""
    page.goto(base + "/")
    page.select_option("select[name=preset]", preset)
    for s in range(4):
        page.select_option(f"select[name=seat{s}]", "greedy")
    page.fill("#create input[name=hands]", str(hands))
    page.click("#create button.big")
    page.wait_for_url("**/table/**")


@pytest.mark.parametrize("width", [390, 1280])
def test_the_standings_page_keeps_its_own_layout_and_hidden_player_section(served, browser, width):
    _, base, _ = served
    page = browser.new_page(viewport={"width": width, "height": 844})
    page.goto(base + "/standings")
    page.wait_for_selector("#rows td")
    assert page.locator("#leaderboard").is_visible() and not page.locator("#player").is_visible()
    assert page.locator("#board").count() == 0
    heads = page.locator("#leaderboard th")
    boxes = [heads.nth(i).bounding_box() for i in range(heads.count())]
    assert len({round(b["y"]) for b in boxes}) == 1, "the headers are not in one row"
    line = float(page.evaluate("parseFloat(getComputedStyle(document.querySelector('#leaderboard th')).lineHeight)"))
    assert all(b["height"] < 2.5 * line for b in boxes), f"a header wraps one letter per line: {boxes}"
    assert [h.strip() for h in heads.all_inner_texts()] == ["#", "玩家", "积分", "局数"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(ART / f"standings-{width}.png"), full_page=True)
    page.close()


def test_a_replay_with_its_39_digit_seed_fits_a_phone(served, browser):
    _, base, rid = served
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(f"{base}/replay?log={rid}")
    page.wait_for_selector(".rseat")
    page.wait_for_function("document.querySelector('#deal') && document.querySelector('#deal').dataset.verdict")
    assert str(BIG_SEED) in page.inner_text("#deal") and len(str(BIG_SEED)) == 39
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the replay page is {width}px wide on a 390px phone"
    page.screenshot(path=str(ART / "replay-390-seed.png"), full_page=True)
    page.close()


def test_the_lobby_shows_the_hand_the_table_shows(served, browser):
    _, base, _ = served
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    open_table(page, base, hands=8)
    page.click("#start-btn")
    page.wait_for_selector("#hand .htile")
    at_table = re.search(r"第 (\d+)/8 局", page.inner_text("#match-info")).group(1)
    tid = page.url.rsplit("/", 1)[1]
    lobby = browser.new_page(viewport={"width": 1280, "height": 800})
    lobby.goto(base + "/")
    lobby.wait_for_selector(f"tr[data-table='{tid}'] .hand-no")
    assert at_table == "1" and lobby.inner_text(f"tr[data-table='{tid}'] .hand-no") == "1/8"
    lobby.close()
    page.close()


def test_a_spectator_who_never_clicks_gets_no_audio_warnings(served, browser):
    _, base, _ = served
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if m.type in ("warning", "error") else None)
    _bots_table(page, base, hands=1)
    page.wait_for_selector("#settlement:not([hidden])", timeout=60000)  # a whole hand, sounds on
    audio = [w for w in warnings if "audio" in w.lower()]
    assert len(audio) <= 1, audio
    assert page.evaluate("XZ.settings.get().sound") is True
    page.close()


def test_one_point_is_one_point():
    win = {"type": "win", "seat": 1, "from": 0, "tile": "5p", "fan": 1, "points": 1, "items": {}, "how": "discard"}
    line = settlement_lines([win])[0]
    assert "1 point [" in line and "1 points" not in line


def test_chinese_first_and_english_when_chosen_and_remembered(served, browser):
    _, base, _ = served
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    page.goto(base + "/")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert page.inner_text("#settings-btn") == "⚙ 设置" and page.inner_text("#create button.big") == "开桌"
    page.click("#settings-btn")
    page.select_option("#settings select[name=lang]", "en")
    assert page.inner_text("#settings h2") == "Settings"  # the dialog itself switched
    page.click("#settings-close")
    assert page.inner_text("#create button.big") == "Open a table"
    assert page.evaluate("[XZ.points(1), XZ.points(2), XZ.i18n.handsText(1)]") == ["1 point", "2 points", "1 hand"]
    page.reload()  # remembered
    assert page.evaluate("document.documentElement.lang") == "en" and page.inner_text("#settings-btn") == "⚙ Settings"
    open_table(page, base)  # and on the next page
    assert page.inner_text("#start-btn") == "Start"
    page.click("#start-btn")
    page.wait_for_selector("#log li")
    assert page.locator("#log li").first.inner_text().startswith("Hand starts")
    ctx.close()


#: Before the page's scripts: every state message the page receives, every sound it plays and
#: every +N/-N it floats, recorded.
_RECORD = """
window.__msgs = []; window.__sounds = []; window.__floats = 0;
const WS = window.WebSocket;
window.WebSocket = class extends WS {
  constructor(...a) {
    super(...a);
    this.addEventListener('message', (ev) => {
      const m = JSON.parse(ev.data);
      if (m.type === 'state') window.__msgs.push(m);
    });
  }
};
window.XZ = window.XZ || {};
let sound = null;
Object.defineProperty(window.XZ, 'sound', { configurable: true, get: () => sound, set(v) {
  const play = v.play; v.play = (n) => { window.__sounds.push(n); play(n); }; sound = v; } });
const count = (ms) => {
  for (const m of ms) {
    for (const n of m.addedNodes) if (n.classList && n.classList.contains('float-delta')) window.__floats++;
  }
};
document.addEventListener('DOMContentLoaded', () => {
  new MutationObserver(count).observe(document.body, {childList: true, subtree: true});
});
"""


def _cues(msgs) -> tuple[list[str], int]:
    """What the page should play and float for these state messages: a cue per claim, kong and
    win that just happened (none for the backlog a reset brings), a float per seat a batch of
    payments touched."""
    cues, floats = [], 0
    for m in msgs:
        if m["reset"]:
            continue
        net = [0, 0, 0, 0]
        for e in m["events"]:
            if e["type"] == "meld":
                cues.append("peng" if e["meld"] == "peng" else "gang")
            elif e["type"] == "angang":
                cues.append("gang")
            elif e["type"] == "win":
                cues.append("zimo" if e["how"] == "self_draw" else "hu")
            elif e["type"] == "pay":
                net[e["from"]] -= e["amount"]
                if e["to"] is not None:
                    net[e["to"]] += e["amount"]
        floats += sum(1 for n in net if n)
    return cues, floats


def test_sounds_floats_and_motion_follow_the_events_and_the_settings(show, browser):
    """A table of bots in 血流成河, watched: each 碰, 杠, 胡 and 自摸 plays its own cue as it
    happens; each batch of payments floats +N/-N over the plates it touched, and none once that
    aid is off; a system asking for reduced motion gets no animation."""
    base = show
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    ctx.add_init_script(_RECORD)
    page = ctx.new_page()
    _bots_table(page, base, "xueliu", hands=2)  # many wins, kongs and payments
    assert page.evaluate("document.body.classList.contains('anim')") is False  # reduced motion
    page.wait_for_selector("#settlement:not([hidden])", timeout=60000)
    msgs = page.evaluate("window.__msgs")
    cues, floats = _cues(msgs)
    played = [n for n in page.evaluate("window.__sounds") if n in ("peng", "gang", "hu", "zimo")]
    assert played == cues and {"hu", "gang"} <= set(cues), (played, cues)
    names = page.evaluate("XZ.sound.names")
    assert {"peng", "gang", "hu", "zimo"} <= set(names) and len(set(names)) == len(names)
    assert floats >= 1 and page.evaluate("window.__floats") == floats
    # with the aid off, no float at the next hand's payments
    page.evaluate("XZ.settings.set('aidFloat', false); window.__floats = 0;")
    page.wait_for_function("XZ.lastState() && XZ.lastState().hand_no === 1", timeout=30000)
    page.wait_for_function("XZ.handEvents().some((e) => e.type === 'pay')", timeout=60000)
    assert page.evaluate("window.__floats") == 0
    ctx.close()


def test_each_aid_goes_with_its_switch(served, browser):
    """At a chengdu table: the exchange suggestion marks three tiles of one suit and says so;
    with the aid off, nothing is marked; the void suit's tiles are marked once it is chosen,
    and not with that aid off."""
    _, base, _ = served
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    open_table(page, base, "chengdu")
    page.click("#start-btn")
    page.wait_for_selector("#actions button[data-act='exchange']", timeout=20000)
    marked = page.evaluate("[...document.querySelectorAll('#hand .htile.suggest')].map((t) => t.dataset.tile)")
    suggest = page.evaluate("XZ.lastState().aids.suggest")
    tiles = [d + g[-1] for g in re.findall(r"[1-9]+[mps]", suggest.split()[1]) for d in g[:-1]]  # "129p"
    assert suggest.startswith("exchange ") and len(tiles) == 3 and sorted(marked) == sorted(tiles)
    assert len({t[1] for t in marked}) == 1 and "建议换" in page.inner_text("#aid")
    page.evaluate("XZ.settings.set('aidSuggest', false)")
    assert page.locator("#hand .htile.suggest").count() == 0 and not page.is_visible("#aid")
    page.evaluate("XZ.settings.set('aidSuggest', true)")
    for t in marked:
        page.locator(f"#hand .htile.suggest[data-tile='{t}']:not(.selected)").first.click()
    page.click("#actions button[data-act='exchange']")
    page.wait_for_selector("#actions button.suggest[data-act^='void']", timeout=20000)
    page.click("#actions button.suggest[data-act^='void']")
    page.wait_for_selector("#hand .htile.void-tile, .plate .void", timeout=20000)
    page.wait_for_selector(".plate.pos-bottom .void")
    # the suit and the hand as drawn, read in one go: the bots play on, and a draw between two
    # reads would compare one hand's tiles with the next hand's marks
    mine, shown = page.evaluate(
        "[XZ.lastState().view.voids[XZ.lastState().seat],"
        " [...document.querySelectorAll('#hand .htile')]"
        ".map((e) => [e.dataset.tile, e.classList.contains('void-tile')])]"
    )
    assert [marked for _, marked in shown] == [t[1] == mine for t, _ in shown], (mine, shown)
    page.evaluate("XZ.settings.set('aidVoids', false)")
    assert page.locator("#hand .htile.void-tile").count() == 0
    page.close()
