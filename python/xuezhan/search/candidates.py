"""The actions a search weighs at one decision (docs/search.md): every decision that matters,
pruned to the few actions worth a rollout.

- **Turn** (a discard, a kong or a self-drawn win, R2.1): never a tile a locked winner has won
  on while another discard is legal (血流成河, R14); the base strategy's choice, then the
  legal discards no more dangerous than it (``value``'s :func:`~xuezhan.strategies.value.danger`)
  by the lowest shanten after them and the most ukeire (:func:`xuezhan._core.best_discards`, as
  ``greedy`` ranks them) up to ``width`` discards in all, plus every legal kong and the win.
  The danger filter is there because a sample's opponents hold random hands, rarely as ready
  as real ones: rollouts underrate a discard's danger, and measured on true rounds the
  search's riskier discards lost points.
- **Claim** (R3): every legal answer (pass, peng, kong, win).
- **Exchange** (R11.1): for each suit with at least three tiles, its three outermost tiles (the
  way ``greedy`` passes a suit), the base strategy's choice first.
- **Void** (R11.2): every legal suit.

The base strategy's own choice is always first: it is what the search falls back on, and it
wins ties. Actions are distinct; one candidate means nothing to search.
"""

from __future__ import annotations

from collections.abc import Sequence

from xuezhan import _core
from xuezhan.engine.actions import ANGANG, DISCARD, EXCHANGE, HU, JIAGANG, Action, act
from xuezhan.engine.observation import Observation
from xuezhan.strategies.greedy import own_melds
from xuezhan.strategies.value import danger

__all__ = ["candidates"]


def candidates(obs: Observation, base: Action, void: int, width: int, avoid: int = 0) -> list[Action]:
    """The actions to search at ``obs``'s decision (see the module doc), ``base`` first.
    ``void``: the suit the base strategy gives up (-1: none); ``width``: discards at most;
    ``avoid``: kinds (bit k) never offered as a discard while another is legal (the tiles a
    locked winner has won on, R14: :func:`~xuezhan.strategies.value.locked_wins`)."""
    legal = obs.legal_actions
    if len(legal) <= 1:
        return list(legal)
    phase = obs.phase
    if phase == "exchange":
        if base.verb == EXCHANGE and isinstance(base.arg, tuple):
            base = act(base.seat, EXCHANGE, tuple(sorted(base.arg)))  # one spelling per choice
        return _unique(base, _exchanges(obs))
    if phase != "turn" or not obs.discard_mask:
        return _unique(base, legal)  # a claim or the void: every answer
    return _turn(obs, base, legal, own_melds(obs), void, width, avoid)


def _turn(
    obs: Observation, base: Action, legal: Sequence[Action], melds: bytes, void: int, width: int, avoid: int
) -> list[Action]:
    mask = obs.discard_mask
    if mask & ~avoid:
        mask &= ~avoid  # never a tile a locked winner has won on (R14), as value
    rows = [r for r in _core.best_discards(obs.hand, melds, obs.seen, void) if mask >> r[0] & 1]
    rows.sort(key=lambda r: (r[1], -r[2], r[0]))
    by_kind = {a.arg: a for a in legal if a.verb == DISCARD and mask >> a.arg & 1}  # type: ignore[operator]
    if base.verb == DISCARD and isinstance(base.arg, int):
        # no discard more dangerous than the base choice (value's defence, R3): a sample's
        # opponents are rarely as ready as real ones, so rollouts underrate a discard's danger
        seen = obs.seen
        limit = danger(obs, base.arg, seen) + 1e-9
        rows = [r for r in rows if danger(obs, r[0], seen) <= limit]
    out = _unique(base, [by_kind[k] for k, _, _ in rows])
    n = 1 if base.verb == DISCARD else 0  # discards kept so far
    kept = [base]
    for a in out[1:]:
        if n < width:
            kept.append(a)
            n += 1
    return _unique(base, kept + [a for a in legal if a.verb in (HU, ANGANG, JIAGANG)])


def _exchanges(obs: Observation) -> list[Action]:
    c = obs.hand
    out = []
    for s in range(3):
        tiles = [k for k in range(s * 9, s * 9 + 9) for _ in range(c[k])]
        if len(tiles) >= 3:
            tiles.sort(key=lambda k: (-abs(k % 9 - 4), k))
            out.append(act(obs.seat, EXCHANGE, tuple(sorted(tiles[:3]))))
    return out


def _unique(base: Action, rest: Sequence[Action]) -> list[Action]:
    out = [base]
    for a in rest:
        if a not in out:
            out.append(a)
    return out
