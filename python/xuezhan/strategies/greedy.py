"""``greedy``: the lowest shanten, then the most useful tiles (docs/rules.md R4, via the Rust core).

How it plays, decision by decision:

- **Void suit (R4.2, R11.2).** At its first decision of a hand it picks the suit to be void in:
  the suit it holds fewest concealed tiles of (melds excluded; ties in m, p, s order), among
  the suits none of its melds uses. With ``declare_void`` it declares that suit (R11.2);
  otherwise it simply commits to it. While it holds a tile of that suit it discards one (the
  most isolated one), so it is never a pig (R7.1) for long.
- **Exchange (R11.1).** Passes three tiles of the suit it holds fewest of (at least three).
- **Win.** Always, on a discard, a robbed kong or its own draw (R3.1, R2.1).
- **Discard.** The legal discard with the lowest shanten of the 13 tiles left, then the most
  ukeire (unseen copies of the tiles that would lower the shanten, unseen being what
  ``obs.seen`` does not show, as
  :func:`xuezhan._core.best_discards`), then a terminal before a middle tile: the whole ranking
  is one Rust call, :func:`xuezhan._core.greedy_discard`.
- **Peng / kong.** Takes a peng or an exposed kong on a discard (R3.1), or makes a concealed or
  added kong (R2.1), whenever that does not raise its shanten; never in its void suit.

The hot path is one ``greedy_discard`` call per turn and one ``shanten`` call per claim on bytes
counts, so a greedy hand costs a few hundred microseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xuezhan import _core
from xuezhan.engine._core_adapter import shanten  # Sichuan shanten of counts, meld codes, void
from xuezhan.engine.actions import (
    ANGANG,
    DISCARD,
    EXCHANGE,
    GANG,
    HU,
    JIAGANG,
    PASS,
    PENG,
    Action,
    act,
)
from xuezhan.engine.observation import discard_mask_of
from xuezhan.tiles import MeldType, meld_code, meld_suits

__all__ = ["GreedyStrategy", "choose_void", "suit_counts", "discard_mask", "own_melds"]


_greedy_discard = _core.greedy_discard
_DISCARDS = tuple(tuple(act(seat, DISCARD, k) for k in range(27)) for seat in range(4))
_NOTHING_SEEN = bytes(27)
_PUNG, _KONG, _CKONG = MeldType.PUNG, MeldType.KONG, MeldType.CONCEALED_KONG


def suit_counts(counts: Sequence[int]) -> list[int]:
    return [sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27])]


def choose_void(counts: Sequence[int], mbytes: bytes = b"") -> int:
    """The suit with the fewest concealed tiles among the suits no meld uses (m, p, s on ties)."""
    n = suit_counts(counts)
    used = meld_suits(mbytes)
    candidates = [s for s in range(3) if s not in used] or [0, 1, 2]
    return min(candidates, key=lambda s: (n[s], s))


def own_melds(obs: Any) -> bytes:
    """The seat's melds as meld-code bytes (docs/internals.md: ``type * 27 + kind``)."""
    return bytes(meld_code(t, k) for t, k in obs.melds[obs.seat])


def discard_mask(legal: Sequence[Action]) -> tuple[int, bool]:
    """The legal discards as a kind bitmask (bit k = kind k; what ``obs.discard_mask`` holds),
    and whether they are all the legal actions (no kong to weigh)."""
    mask = discard_mask_of(legal)
    return mask, mask.bit_count() == len(legal)


class GreedyStrategy:
    """Lowest shanten, most useful tiles, void suit early, always wins; see the module doc."""

    name = "greedy"

    #: How much a kong may raise the shanten and still be made (greedy: not at all).
    kong_slack = 0
    #: Its decisions never depend on its seed and ``reset`` clears a hand's state: a tournament
    #: builds one per worker instead of one per hand (see :mod:`xuezhan.strategies.base`).
    deterministic = True

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed  # the strategy is deterministic: accepted like every strategy's, unused
        self.seat = 0
        self.rules: Any = None
        self.void: int = -1
        self._meld_key: Any = None  # the melds tuple ``_melds`` was built from
        self._melds = b""
        self._meld_suits = 0  # the suits its melds use (bit s = suit s), with ``_melds``
        self._discards = _DISCARDS[0]  # its discard actions by kind (the engine's shared ones)

    # ------------------------------------------------------------------ Strategy protocol
    def reset(self, seat: int, rules: Any) -> None:
        self.seat = seat
        self.rules = rules
        self.void = -1
        self._meld_key = None
        self._discards = _DISCARDS[seat]

    def act(self, obs: Any) -> Action:
        legal = obs.legal_actions
        if legal and legal[0][1] == HU:  # a win, when legal, comes first
            return legal[0]
        phase = obs.phase
        if phase == "exchange":
            return self.exchange(obs)
        if phase == "void":
            return self.declare(obs, legal)
        counts = obs.hand
        ms = obs.melds[obs.seat]
        if ms is not self._meld_key:  # its melds changed (the engine builds a new tuple then)
            self._meld_key = ms
            self._melds = bytes(meld_code(t, k) for t, k in ms)
            self._meld_suits = sum(1 << s for s in meld_suits(self._melds))
        melds = self._melds
        self._update_void(obs, counts, melds)
        mask = obs.discard_mask  # the legal discards (bit k = kind k)
        if mask:
            return self.turn(obs, legal, counts, melds, (mask, mask.bit_count() == len(legal)))
        return self.claim(obs, legal, counts, melds)

    # ------------------------------------------------------------------ decisions
    def _choose_void(self, counts: bytes, melds: bytes) -> int:
        """The suit to give up (subclasses choose differently)."""
        return choose_void(counts, melds)

    def _update_void(self, obs: Any, counts: bytes, melds: bytes) -> None:
        """The declared void (R11.2), else the suit chosen at the first decision, chosen again
        when a meld lands in it (``melds`` and ``_meld_suits`` are the seat's own)."""
        declared = obs.voids[obs.seat]
        if declared >= 0:
            self.void = declared
        elif self.void < 0 or self._meld_suits >> self.void & 1:
            self.void = self._choose_void(counts, melds)

    def exchange(self, obs: Any) -> Action:
        c = obs.hand
        n = suit_counts(c)
        s = min((i for i in range(3) if n[i] >= 3), key=lambda i: (n[i], i))
        tiles: list[int] = []
        for k in range(s * 9, s * 9 + 9):
            tiles.extend([k] * c[k])
        # keep the middle of the suit out of the exchange: pass the outer tiles first
        tiles.sort(key=lambda k: (-abs(k % 9 - 4), k))
        return act(self.seat, EXCHANGE, tuple(tiles[:3]))

    def declare(self, obs: Any, legal: list[Action]) -> Action:
        self.void = self._choose_void(obs.hand, own_melds(obs))
        for a in legal:
            if a.arg == self.void:
                return a
        return legal[0]

    def turn(
        self, obs: Any, legal: Sequence[Action], counts: bytes, melds: bytes, discards: tuple[int, bool] | None = None
    ) -> Action:
        """One Rust call ranks the discards (``_core.greedy_discard``: void suit first, the most
        isolated of it when no kong is to be weighed; else lowest shanten, most ukeire, a
        terminal); a kong that keeps that shanten is taken instead."""
        void = self.void
        mask, no_kong = discard_mask(legal) if discards is None else discards
        if no_kong and void >= 0 and mask >> (9 * void) & 0x1FF:
            # void-suit tiles are useless to the hand (R4.2): isolation alone ranks them, so
            # the visible tiles are not needed
            return self._discards[_greedy_discard(counts, melds, _NOTHING_SEEN, void, mask, True)[0]]
        kind, now = _greedy_discard(counts, melds, obs.seen, void, mask, no_kong)
        if not no_kong:
            kong = self._kong(legal, counts, melds, void, 99 if now is None else now)
            if kong is not None:
                return kong
        return self._discards[kind]

    def _kong(self, legal: Sequence[Action], counts: bytes, melds: bytes, void: int, now: int) -> Action | None:
        """The first concealed or added kong (R2.1) that raises the shanten ``now`` by at most
        ``kong_slack`` (never in the void suit), else None."""
        for a in legal:
            if a.verb == ANGANG or a.verb == JIAGANG:
                k = a.arg
                assert isinstance(k, int)  # a kong's argument is its kind
                if k // 9 == void:
                    continue
                c = bytearray(counts)
                if a.verb == ANGANG:
                    c[k] -= 4
                    m = melds + bytes([meld_code(_CKONG, k)])
                else:
                    c[k] -= 1
                    m = bytes(meld_code(_KONG, k) if code == meld_code(_PUNG, k) else code for code in melds)
                if shanten(bytes(c), m, void) <= now + self.kong_slack:
                    return a
        return None

    def _claim_choices(self, obs: Any, legal: list[Action]) -> tuple[Action, dict[str, Action] | None]:
        """The pass action, and the legal claims by verb; None when passing is the only sensible
        answer (no tile to claim, or a tile of the void suit, R11.2)."""
        pass_action = next((a for a in legal if a.verb == PASS), legal[0])
        tile = obs.claim_tile
        if tile is None or tile // 9 == self.void:
            return pass_action, None
        return pass_action, {a.verb: a for a in legal}

    def claim(self, obs: Any, legal: list[Action], counts: bytes, melds: bytes) -> Action:
        """A kong on a discard when it raises the shanten by at most ``kong_slack``, else a peng
        when :meth:`_take_peng` says so (R3.1); never in the void suit."""
        pass_action, verbs = self._claim_choices(obs, legal)
        if verbs is None or (GANG not in verbs and PENG not in verbs):
            return pass_action
        tile = obs.claim_tile
        if self._keep_suit(obs, counts, melds, tile // 9):
            return pass_action
        void = self.void
        now = shanten(counts, melds, void)
        if GANG in verbs:
            c = bytearray(counts)
            c[tile] -= 3
            if shanten(bytes(c), melds + bytes([meld_code(_KONG, tile)]), void) <= now + self.kong_slack:
                return verbs[GANG]
        if PENG in verbs and self._take_peng(counts, melds, tile, now):
            return verbs[PENG]
        return pass_action

    def _keep_suit(self, obs: Any, counts: bytes, melds: bytes, suit: int) -> bool:
        """True when no meld may be claimed in ``suit`` (subclasses keep a suit clear)."""
        return False

    def _take_peng(self, counts: bytes, melds: bytes, tile: int, now: int) -> bool:
        """Peng when it does not raise the shanten ``now``."""
        c = bytearray(counts)
        c[tile] -= 2
        return shanten(bytes(c), melds + bytes([meld_code(_PUNG, tile)]), self.void) <= now
