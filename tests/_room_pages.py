"""What the table-page tests share: opening a table and sitting down by clicking, playing the
person's decisions as the ``greedy`` strategy would (from the page's own state message), and
checking that every control of a decision lies inside the viewport, uncovered."""

from __future__ import annotations

import itertools
from typing import Any

from playwright import sync_api

from xuezhan.rules import Rules
from xuezhan.strategies import GreedyStrategy
from xuezhan.strategies.guarded import observation_from_dict

#: Each page is a new browser with its own player secret, and a name belongs to the first
#: browser that played with it (the standings): one name per page.
_PLAYER = itertools.count(1)

#: What a decision shows, all of which must be in view: the hand, the decision's buttons, the
#: clock, the acting seat (its plate and the centre's line), the aids and the locked-hand note.
CONTROLS = [
    "#hand .htile",
    "#actions button",
    "#claim-tile > *",
    "#clock",
    ".plate.turn",
    "#turn",
    "#locked-note",
    "#aid",
]

_OUT_OF_VIEW = """(sels) => {
  const W = window.innerWidth, H = window.innerHeight, out = [];
  for (const sel of sels) {
    for (const el of document.querySelectorAll(sel)) {
      if (el.closest("[hidden]") || getComputedStyle(el).visibility === "hidden") continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const at = `x ${Math.round(r.left)}-${Math.round(r.right)}, y ${Math.round(r.top)}-${Math.round(r.bottom)}`;
      if (r.left < -1 || r.top < -1 || r.right > W + 1 || r.bottom > H + 1) {
        out.push(`${sel} at ${at}`);
        continue;
      }
      const bar = el.closest("#bottom-bar");
      if (bar) { // the decision bar holds its own: nothing of it spills over the table or the hand
        const b = bar.getBoundingClientRect();
        if (r.top < b.top - 1 || r.bottom > b.bottom + 1) out.push(`${sel} spills out of the decision bar: ${at}`);
      }
      if (el.matches("button")) { // clickable: nothing lies over its centre
        const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        const by = top ? top.id || top.getAttribute("class") : "-";
        if (!top || !(el === top || el.contains(top))) out.push(`${sel} covered by ${by}`);
      }
    }
  }
  const d = document.documentElement;
  if (d.scrollHeight > H + 1) {
    const below = [...document.querySelectorAll("body *")].filter((el) => el.getBoundingClientRect().bottom > H + 1);
    const names = below.slice(0, 6).map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.getAttribute("class")}`);
    out.push(`the page scrolls: ${d.scrollHeight}px tall in ${H} (${names.join(", ")})`);
  }
  if (d.scrollWidth > W + 1) out.push(`the page scrolls sideways: ${d.scrollWidth}px wide in ${W}`);
  return out;
}"""


def out_of_view(page: Any, selectors: list[str] = CONTROLS) -> list[str]:
    """The controls (of ``selectors``) that are not wholly inside the viewport, or (buttons)
    covered by something else; and whether the page itself scrolls."""
    return page.evaluate(_OUT_OF_VIEW, selectors)


def open_table(
    page: Any, base: str, preset: str = "leshan", bots=("greedy", "greedy", "greedy"), hands: int = 1
) -> str:
    """Open a table from the lobby with ``bots`` and sit at seat 0 (not started); the name."""
    name = f"李明{next(_PLAYER)}"
    page.goto(base + "/")
    page.select_option("select[name=preset]", preset)
    for s, b in enumerate(bots, start=1):
        page.select_option(f"select[name=seat{s}]", b)
    page.fill("#create input[name=hands]", str(hands))
    page.click("#create button.big")
    page.wait_for_url("**/table/**")
    page.fill(".slot[data-slot='0'] input.name", name)
    page.click("button[data-sit='0']")
    page.wait_for_selector("#start-btn")
    return name


def state(page: Any) -> dict[str, Any] | None:
    return page.evaluate("XZ.lastState()")


def my_decision(st: dict[str, Any] | None) -> str | None:
    """The kind of decision the person has to make now, or None."""
    if not st or not st["view"] or st["over"] or st["role"] != "player":
        return None
    clock = st["clock"]
    if not clock or clock["seat"] != st["seat"]:
        return None
    if st["view"]["phase"] == "exchange":
        return "exchange"
    return st["view"]["phase"] if st["legal"] else None


def greedy_choice(st: dict[str, Any], rules: Rules) -> str:
    """The greedy strategy's choice from the page's own state message (every win taken)."""
    if "hu" in st["legal"]:
        return "hu"
    d = dict(st["view"], legal_actions=[f"{st['seat']} {a}" for a in st["legal"]])
    bot = GreedyStrategy()
    bot.reset(st["seat"], rules)
    return str(bot.act(observation_from_dict(d))).split(" ", 1)[1]


def click_action(page: Any, action: str) -> None:
    """Play ``action`` as a person does: a discard by selecting the tile and a right click, an
    exchange by clicking its three tiles and the button, anything else by its button."""
    try:
        if action.startswith("discard "):
            page.locator(f"#hand .htile[data-tile='{action.split()[1]}']").last.click(timeout=2000)
            page.locator("#hand .htile.selected").click(button="right", timeout=2000)
        elif action.startswith("exchange "):
            group = action.split()[1]  # "129p": three tiles of one suit
            for digit in group[:-1]:
                page.locator(f"#hand .htile[data-tile='{digit}{group[-1]}']:not(.selected)").first.click(timeout=2000)
            page.locator("#actions button[data-act='exchange']").click(timeout=2000)
        else:
            page.locator(f"#actions button[data-act='{action}']").click(timeout=2000)
    except sync_api.Error:
        pass  # the table moved on under the click (a claim ran out): the next decision comes
