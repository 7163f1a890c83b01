"""Replay frames: a logged hand (JSON lines, plain or gzip) stepped event by event, all four
hands open, for the replay viewer (``xuezhan view LOG``).

The log's header gives the dealt hands and the wall (R1.4); each event moves tiles the way the
engine did. :func:`frames` returns one frame per event: the four concealed hands, melds, discard
piles, wall count, the hand's running deltas and the event in words.

    >>> from xuezhan.engine import Round, log_lines
    >>> from xuezhan.engine.match import run_round
    >>> from xuezhan.strategies import GreedyStrategy
    >>> bots = [GreedyStrategy() for _ in range(4)]
    >>> for i, b in enumerate(bots): b.reset(i, Round.from_seed("leshan", 1).rules)
    >>> rnd = run_round(Round.from_seed("leshan", 1), bots)
    >>> doc = frames(log_lines(rnd))
    >>> len(doc["frames"]) == len(rnd.events) + 1, doc["frames"][-1]["deltas"] == rnd.deltas
    (True, True)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from xuezhan.serve.words import payment_text, settlement_lines
from xuezhan.tiles import TILE_STR as _TILE
from xuezhan.tiles import parse_tiles

__all__ = ["LogError", "frames", "named_log", "read_log_lines"]

_MELD = {"peng": 0, "gang": 1, "jiagang": 1}


class LogError(ValueError):
    """A file that is not a hand log; the message names the file and line."""


def read_log_lines(path: str | Path) -> list[str]:
    """The lines of a hand log, ``.jsonl`` or gzip-compressed ``.jsonl.gz``."""
    from xuezhan.tournament.hand_logs import read_lines

    try:
        return [ln for ln in read_lines(path) if ln.strip()]
    except ValueError as exc:  # the file reader's errors name the file and the fault
        raise LogError(str(exc)) from None


def named_log(lines: list[str], names: list[str]) -> list[str]:
    """A hand log whose header also names the seats (``names``), for the replay page; the
    engine's replay ignores the field."""
    hdr = json.loads(lines[0])
    hdr["names"] = list(names)
    return [json.dumps(hdr, sort_keys=True, separators=(",", ":"), ensure_ascii=False), *lines[1:]]


def _names(hdr: dict) -> list[str]:
    """The seats' names from a log header, ``seat N`` where it has none (a log from a
    tournament, or an uploaded file whose names are not four short strings)."""
    got = hdr.get("names")
    if isinstance(got, list) and len(got) == 4 and all(isinstance(n, str) and 0 < len(n) <= 40 for n in got):
        return list(got)
    return [f"seat {s}" for s in range(4)]


class _Tracker:
    def __init__(self, header: dict) -> None:
        self.hands = [[0] * 27 for _ in range(4)]
        for s, h in enumerate(header["hands"]):
            for k in parse_tiles(h):
                self.hands[s][k] += 1
        self.wall = len(parse_tiles(header["wall"]))
        self.melds: list[list[list[Any]]] = [[], [], [], []]
        self.rivers: list[list[int]] = [[], [], [], []]
        self.deltas = [0, 0, 0, 0]
        self.won = [False] * 4
        self.escaped = [False] * 4
        self.voids: list[Any] = [None] * 4
        self.exchange: list[list[int]] = [[], [], [], []]

    def apply(self, e: dict) -> None:
        t = e.get("type")
        h = self.hands
        if t == "exchange":
            self.exchange[e["seat"]] = parse_tiles(e["tiles"])
        elif t == "exchanged":
            for s in range(4):
                for k in self.exchange[s]:
                    h[s][k] -= 1
        elif t == "received":
            for k in parse_tiles(e["tiles"]):
                h[e["seat"]][k] += 1
        elif t == "void":
            self.voids[e["seat"]] = e["suit"]
        elif t == "voids":
            self.voids = list(e["voids"])
        elif t == "draw":
            h[e["seat"]][parse_tiles(e["tile"])[0]] += 1
            self.wall -= 1
        elif t == "discard":
            k = parse_tiles(e["tile"])[0]
            h[e["seat"]][k] -= 1
            self.rivers[e["seat"]].append(k)
        elif t == "angang":
            k = parse_tiles(e["tile"])[0]
            h[e["seat"]][k] -= 4
            self.melds[e["seat"]].append(["angang", _TILE[k]])
        elif t == "meld":
            k = parse_tiles(e["tile"])[0]
            s = e["seat"]
            if e["meld"] == "jiagang":
                h[s][k] -= 1
                for m in self.melds[s]:
                    if m == ["peng", _TILE[k]]:
                        m[0] = "jiagang"
                        break
            else:
                h[s][k] -= 2 if e["meld"] == "peng" else 3
                self.rivers[e["from"]].pop()
                self.melds[s].append([e["meld"], _TILE[k]])
        elif t == "win":
            self.won[e["seat"]] = True
            if e.get("how") == "rob":  # R3.3: the robbed tile leaves the kong-maker's hand
                k = parse_tiles(e["tile"])[0]
                if h[e["from"]][k]:
                    h[e["from"]][k] -= 1
                    self.rivers[e["from"]].append(k)
        elif t == "escape":
            self.escaped[e["seat"]] = True
        elif t == "pay":
            self.deltas[e["from"]] -= e["amount"]
            if e["to"] is not None:
                self.deltas[e["to"]] += e["amount"]

    def frame(self, text: str) -> dict:
        return {
            "text": text,
            "hands": ["".join(_TILE[k] * n for k, n in enumerate(c) if n) for c in self.hands],
            "melds": [[list(m) for m in ms] for ms in self.melds],
            "discards": ["".join(_TILE[k] for k in r) for r in self.rivers],
            "wall_count": self.wall,
            "deltas": list(self.deltas),
            "won": list(self.won),
            "escaped": list(self.escaped),
            "voids": list(self.voids),
        }


def describe(e: dict, names: list[str] | None = None) -> str:
    """One event in words, the seats by ``names`` if given."""
    t = e.get("type")
    who = (lambda i: f"seat {i}") if names is None else (lambda i: names[i])
    s = who(e["seat"]) if e.get("seat") is not None else None
    extra = " (timeout default)" if e.get("default") else ""
    if t == "start":
        return f"the hand starts: {who(e['dealer'])} deals, {e['wall_count']} tiles in the wall"
    if t == "draw":
        return f"{s} draws {e['tile']}" + (" (kong replacement)" if e.get("replacement") else "")
    if t in ("discard", "angang", "jiagang"):
        verb = {
            "discard": "discards",
            "angang": "makes a concealed kong of",
            "jiagang": "adds to its pung",
        }[t]
        return f"{s} {verb} {e['tile']}{extra}"
    if t in ("peng", "gang", "pass"):
        return f"{s} says {t}{extra}"
    if t == "hu":
        return f"{s} declares a win" + (" (compulsory, R4.4)" if e.get("forced") else "")
    if t == "meld":
        frm = f" from {who(e['from'])}" if e.get("from") is not None else ""
        return f"{s}: {e['meld']} of {e['tile']}{frm}"
    if t == "pay":
        return payment_text(e, names)
    if t == "exchange":
        return f"{s} puts {e['tiles']} aside to exchange (R11.1){extra}"
    if t == "exchanged":
        return f"the tiles pass {e['direction']} (R11.1)"
    if t == "received":
        return f"{s} receives {e['tiles']}"
    if t == "void":
        return f"{s} chooses void suit {e['suit']} (R11.2){extra}"
    if t == "voids":
        return f"void suits revealed: {', '.join(map(str, e['voids']))}"
    if t == "last_tiles":
        return f"last tiles: {e['wall_count']} left, every win is compulsory (R4.4)"
    lines = settlement_lines([e], names)
    return lines[0] if lines else json.dumps(e, ensure_ascii=False)


def frames(lines: Iterable[str], name: str = "log") -> dict:
    """The replay document of a log: header facts, one frame per event, the settlement."""
    records = []
    for i, ln in enumerate(lines, start=1):
        try:
            records.append(json.loads(ln))
        except json.JSONDecodeError as exc:
            raise LogError(f"{name}: line {i} is not JSON: {exc.msg}") from None
    if not records or records[0].get("type") != "header":
        raise LogError(f"{name}: line 1 is not a hand-log header")
    hdr = records[0]
    try:
        names = _names(hdr)
        tr = _Tracker(hdr)
        out = [tr.frame(f"dealt: {names[hdr['dealer']]} is the dealer")]
        for e in records[1:]:
            tr.apply(e)
            out.append(tr.frame(describe(e, names)))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise LogError(f"{name}: line {len(out) + 1} is not a hand-log event the viewer knows: {exc}") from None
    rules = hdr.get("rules", {})
    return {
        "name": name,
        "seed": hdr.get("seed"),
        "dealer": hdr["dealer"],
        "preset": rules.get("preset"),
        "names": names,
        "frames": out,
        "settlement": settlement_lines(records[1:], names),
    }
