"""The claim flow (RULES.md R3, R13): asking the seats that could claim a discard or an added
kong, one at a time in turn order from the discarder, then resolving the claims (R3.2).

:class:`ClaimFlow` is the part of :class:`~xuezhan.engine.round.Round` that runs from a discard
(or added kong) to the next turn; the turn flow it hands back to (drawing, kongs, wins, the end
of the hand) is in :mod:`.round`, the legality of each claim in :mod:`.legal`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xuezhan.engine import events as ev
from xuezhan.engine import fired as F
from xuezhan.engine import settlement as pay
from xuezhan.engine.actions import HU, PASS, PENG, TILE_STR, Action
from xuezhan.engine.legal import claim_actions
from xuezhan.engine.state import AFTER_PENG, ClaimWindow, HandState, KongRecord, Phase
from xuezhan.tiles import MeldType, meld_code

__all__ = ["ClaimFlow"]

_CLAIM = Phase.CLAIM


class ClaimFlow(HandState):
    """Claims on a discard or an added kong (R3); see the module docstring."""

    if TYPE_CHECKING:  # the turn flow, provided by Round

        def _draw(self, seat: int, kong: KongRecord | None = None) -> None: ...
        def _turn_decision(self, seat: int) -> None: ...
        def _kong_paid(self, seat: int, k: int, how: str, frm: int | None) -> None: ...
        def _complete_jiagang(self, seat: int, k: int) -> None: ...
        def _win(
            self, seat: int, frm: int | None, kind: int, res: tuple, how: str, forced: bool, group: int
        ) -> None: ...
        def _end(self, reason: str) -> None: ...

    def _open_claims(self, frm: int, t: int, rob: bool, ctx: int, kong: KongRecord | None) -> None:
        self.claim_group += 1
        a = self.active
        queue = [s for s in ((frm + 1) & 3, (frm + 2) & 3, (frm + 3) & 3) if a[s]]
        self.claims = ClaimWindow(t, frm, rob, ctx, kong, queue, 0, [], None, [0, 0, 0, 0])
        self._advance_claims()

    def _claim_legal(self, s: int, w: ClaimWindow, why: dict | None = None) -> list[Action]:
        lock = self.lock[s] if self._lock_opt and not self.last_phase else 0  # R4.3 (not in R4.4)
        empty = self.wpos >= self.wall_end
        return claim_actions(
            s, self.counts[s], w.tile, self.void[s], w.fan[s], lock, w.robbing, empty, why, self.stay and self.won[s]
        )

    def _advance_claims(self) -> None:
        """Ask the seats that could claim, in turn order from the discarder (R13)."""
        w = self.claims
        assert w is not None
        t = w.tile
        while w.asked < len(w.queue):
            s = w.queue[w.asked]
            w.fan[s] = 0
            can_win = (self.mask[s] >> t) & 1
            if not can_win and self.counts[s][t] < 2:
                w.asked += 1  # it cannot claim (fast path of claim_actions)
                continue
            if can_win:
                h = bytearray(self.counts[s])
                h[t] += 1
                res = self._score(s, bytes(h), t, w.ctx)
                if res is not None:
                    if self.last_phase and self._forced_opt:
                        # R4.4: a discard that completes a hand is won at once.
                        self.events.append(ev.Hu(s, forced=True))
                        w.hu.append(s)
                        w.asked += 1
                        continue
                    w.fan[s] = res[1]
            legal = self._claim_legal(s, w)
            if legal:
                self.phase = _CLAIM
                self.cur = s
                self.legal = legal
                return
            w.asked += 1
        self._resolve_claims(w)

    def _claim(self, seat: int, verb: str, default: bool) -> None:
        w = self.claims
        assert w is not None
        self.events.append(ev.Hu(seat, default) if verb == HU else ev.CLAIM_EVENT[verb](seat, default))
        if verb == HU:
            w.hu.append(seat)
        else:
            if w.fan[seat] and self._lock_opt:
                # R4.3: it passed a win; remember the best fan passed.
                self.lock[seat] = max(self.lock[seat], w.fan[seat])
                self.fired.add(F.PASS_WIN)
            if verb != PASS:
                w.meld = (seat, verb)
        w.asked += 1
        self._advance_claims()

    def _resolve_claims(self, w: ClaimWindow) -> None:
        """R3.2: win > kong, peng; several winners all win (then no peng or kong)."""
        self.claims = None
        frm, t = w.frm, w.tile
        if w.hu:
            if len(w.hu) > 1:
                self.fired.add(F.MULTI_WIN)
            self.any_claim = True
            if w.robbing:
                # R3.3: the kong is cancelled; the robbed tile leaves the kong-maker's hand.
                self.counts[frm][t] -= 1
                self._set_river(frm, self.river[frm] + (t,))
                self._see(t, 1)
                self._update_mask(frm)
            for s in w.hu:
                h = bytearray(self.counts[s])
                h[t] += 1
                res = self._score(s, bytes(h), t, w.ctx)
                assert res is not None
                if self.won[s]:
                    self.fired.add(F.REPEAT_WIN)
                self._win(s, frm, t, res, "rob" if w.robbing else "discard", False, self.claim_group)
                pay.settle_discard_win(self, self.rules, s, frm, res[2], w.kong, w.robbing)
            if len(self.wins) >= 3 and not self.stay:
                self._end("three_won")
            else:  # R2.5: the first active player after the last winner, counting from the discarder
                self._draw(self.next_active(w.hu[-1]))
        elif w.robbing:
            self._complete_jiagang(frm, t)
        elif w.meld is not None:
            seat, verb = w.meld
            self.any_claim = True
            self._set_river(frm, self.river[frm][:-1])  # the claimed discard leaves the pile
            n = 2 if verb == PENG else 3
            self.counts[seat][t] -= n
            self.melds[seat].append(meld_code(MeldType.PUNG if n == 2 else MeldType.KONG, t))
            self._melds_changed(seat)
            self._see(t, n)  # the discard left the pile; the meld shows n + 1 tiles
            self.meld_from[seat].append(frm)
            self.events.append(ev.Meld(seat, verb, TILE_STR[t], frm))
            if n == 2:  # R2.4: after a peng the claimer discards (no draw, no kong)
                self.drawn = -1
                self.turn = AFTER_PENG
                self._turn_decision(seat)
            else:
                self._kong_paid(seat, t, "gang", frm)
        else:  # R2.5: no claim taken: the next active player draws
            self._draw(self.next_active(frm))
