#!/usr/bin/env python3
"""A complete external bot for xuezhan, in plain Python (standard library only).

It speaks the JSON-lines protocol of docs/protocol.md on stdin/stdout:

    xuezhan tournament tournaments/quick.toml      # with an entry  cmd = "python examples/bot.py"

Strategy (simple but sound): always win when allowed; choose the suit it holds fewest of as
its void suit and throw that suit away first (never be a pig, docs/rules.md R7.1); otherwise throw
the most isolated tile (fewest neighbours within two ranks); peng a tile it holds two of unless
it is in its void suit; never kong. Every request is answered with one line
``{"id": <request id>, "action": "<one of the legal actions>"}``.
"""

import json
import sys

SUITS = "mps"


def parse_hand(text):
    """'1m1m5p' or '115m5p' -> list of (rank, suit) pairs."""
    tiles, digits = [], []
    for ch in text:
        if ch.isdigit():
            digits.append(int(ch))
        elif ch in SUITS:
            tiles.extend((d, ch) for d in digits)
            digits = []
    return tiles


class Bot:
    def __init__(self):
        self.seat = None
        self.void = None

    def start_hand(self, msg):
        self.seat = msg["seat"]
        self.void = None

    def choose_void(self, hand, melds):
        used = {t[-1] for _, t in melds}
        counts = {s: sum(1 for _, su in hand if su == s) for s in SUITS if s not in used}
        if not counts:
            return None
        return min(counts, key=lambda s: (counts[s], SUITS.index(s)))

    def isolation(self, tile, hand):
        rank, suit = tile
        same = [r for r, s in hand if s == suit]
        copies = same.count(rank) - 1
        near = sum(1 for r in same if r != rank and abs(r - rank) <= 2)
        edge = 1 if rank in (1, 9) else 0
        return (copies * 3 + near, -edge)

    def act(self, req):
        obs = req["observation"]
        legal = req["legal"]
        hand = parse_hand(obs["hand"])
        melds = obs["melds"][obs["seat"]]
        if "hu" in legal:
            return "hu"
        if obs["phase"] == "exchange":
            counts = {s: [t for t in hand if t[1] == s] for s in SUITS}
            suit = min((s for s in SUITS if len(counts[s]) >= 3), key=lambda s: len(counts[s]))
            three = sorted(counts[suit], key=lambda t: self.isolation(t, hand))[:3]
            return "exchange " + "".join(str(r) for r, _ in three) + suit
        if obs["phase"] == "void":
            self.void = self.choose_void(hand, melds)
            return "void " + (self.void or "m")
        declared = obs["voids"][obs["seat"]]
        if declared:
            self.void = declared
        elif self.void is None or any(t[-1] == self.void for _, t in melds):
            self.void = self.choose_void(hand, melds)
        discards = [a for a in legal if a.startswith("discard ")]
        if discards:
            options = [(int(a[8]), a[9]) for a in discards]
            in_void = [t for t in options if t[1] == self.void]
            pool = in_void or options
            rank, suit = min(pool, key=lambda t: (self.isolation(t, hand), t[1], t[0]))
            return f"discard {rank}{suit}"
        if "peng" in legal and obs["claim_tile"] and obs["claim_tile"][1] != self.void:
            return "peng"
        return "pass" if "pass" in legal else legal[0]


def main():
    bot = Bot()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "start_hand":
            bot.start_hand(msg)
        elif kind == "request":
            action = bot.act(msg)
            sys.stdout.write(json.dumps({"id": msg["id"], "action": action}) + "\n")
            sys.stdout.flush()
        # "event" messages need no answer; this bot keeps no memory of them.


if __name__ == "__main__":
    main()
