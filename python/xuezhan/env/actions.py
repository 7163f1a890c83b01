"""The environment's fixed action ids (docs/env.md, "Actions").

One ``Discrete(115)`` space serves every decision; the ``action_mask`` of each observation marks
the ids legal now. The ids are laid out by verb, tile-indexed verbs over the 27 kinds of R0
(m = 0–8, p = 9–17, s = 18–26):

============  =========  ==============================================================
ids           verb       meaning
============  =========  ==============================================================
0–26          discard    discard kind ``id`` (R2.1)
27            peng       claim the discard as a pung (R3.1)
28            gang       claim the discard as a kong (R3.1)
29            hu         win: self-draw (R2.1) or on the discard / robbed kong (R3.1, R3.3)
30–56         angang     concealed kong of kind ``id - 30`` (R2.1)
57–83         jiagang    added kong of kind ``id - 57`` (R2.1)
84            pass       let the discard go (R3.1)
85–87         void       declare suit ``id - 85`` void (m, p, s; R11.2)
88–114        exchange   pick kind ``id - 88`` as one of the three tiles passed (R11.1)
============  =========  ==============================================================

The exchange (R11.1) is three sequential picks by the same seat: each pick is one step, the
mask allows only kinds that keep a legal choice reachable (three tiles of one suit the seat
holds), and the third pick passes the three tiles to the engine.

    >>> ACTION_NAMES[13], ACTION_NAMES[29], ACTION_NAMES[86], ACTION_NAMES[90]
    ('discard 5p', 'hu', 'void p', 'exchange 3m')
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from xuezhan.engine.actions import (
    ANGANG,
    DISCARD,
    EXCHANGE,
    GANG,
    HU,
    JIAGANG,
    PASS,
    PENG,
    VOID,
    Action,
    act,
)

__all__ = [
    "ACTION_NAMES",
    "ANGANG0",
    "DISCARD0",
    "EXCHANGE0",
    "GANG_ID",
    "HU_ID",
    "JIAGANG0",
    "N_ACTIONS",
    "PASS_ID",
    "PENG_ID",
    "VOID0",
    "action_id",
    "id_action",
]

DISCARD0: Final = 0
PENG_ID: Final = 27
GANG_ID: Final = 28
HU_ID: Final = 29
ANGANG0: Final = 30
JIAGANG0: Final = 57
PASS_ID: Final = 84
VOID0: Final = 85
EXCHANGE0: Final = 88
#: Size of the ``Discrete`` action space.
N_ACTIONS: Final = 115

_TILE = tuple(f"{k % 9 + 1}{'mps'[k // 9]}" for k in range(27))

#: A readable name per id (``"discard 5p"``, ``"hu"``, ``"exchange 3m"``...).
ACTION_NAMES: Final[tuple[str, ...]] = (
    tuple(f"discard {t}" for t in _TILE)
    + ("peng", "gang", "hu")
    + tuple(f"angang {t}" for t in _TILE)
    + tuple(f"jiagang {t}" for t in _TILE)
    + ("pass",)
    + tuple(f"void {s}" for s in "mps")
    + tuple(f"exchange {t}" for t in _TILE)
)

_OFFSET = {DISCARD: DISCARD0, ANGANG: ANGANG0, JIAGANG: JIAGANG0, VOID: VOID0}
_SIMPLE = {PENG: PENG_ID, GANG: GANG_ID, HU: HU_ID, PASS: PASS_ID}

# Every shared engine action of the turn, claim and void phases, by id (exchange is picks).
_ID_OF: dict[Action, int] = {}
for _s in range(4):
    for _k in range(27):
        _ID_OF[act(_s, DISCARD, _k)] = DISCARD0 + _k
        _ID_OF[act(_s, ANGANG, _k)] = ANGANG0 + _k
        _ID_OF[act(_s, JIAGANG, _k)] = JIAGANG0 + _k
    for _v, _i in _SIMPLE.items():
        _ID_OF[act(_s, _v)] = _i
    for _k in range(3):
        _ID_OF[act(_s, VOID, _k)] = VOID0 + _k
#: ``Action -> id`` for every non-exchange action (a dict lookup in the hot loop).
ID_OF: Final = _ID_OF


def action_id(action: Action) -> int:
    """The id of a non-exchange engine action.

    >>> action_id(act(2, DISCARD, 13)), action_id(act(0, PASS))
    (13, 84)
    """
    i = _ID_OF.get(action)
    if i is None:
        raise ValueError(f"{action} has no single action id (an exchange is three picks, ids 88-114)")
    return i


def id_action(seat: int, aid: int) -> Action:
    """The engine action of id ``aid`` for ``seat`` (not for exchange picks, ids 88–114).

    >>> str(id_action(1, 29)), str(id_action(3, 57 + 26))
    ('1 hu', '3 jiagang 9s')
    """
    if DISCARD0 <= aid < PENG_ID:
        return act(seat, DISCARD, aid)
    if aid == PENG_ID:
        return act(seat, PENG)
    if aid == GANG_ID:
        return act(seat, GANG)
    if aid == HU_ID:
        return act(seat, HU)
    if ANGANG0 <= aid < JIAGANG0:
        return act(seat, ANGANG, aid - ANGANG0)
    if JIAGANG0 <= aid < PASS_ID:
        return act(seat, JIAGANG, aid - JIAGANG0)
    if aid == PASS_ID:
        return act(seat, PASS)
    if VOID0 <= aid < EXCHANGE0:
        return act(seat, VOID, aid - VOID0)
    raise ValueError(f"action id {aid!r} is not a single engine action (0-87)")


def pick_kinds(hand: bytes, picks: list[int] | tuple[int, ...]) -> list[int]:
    """The kinds the seat may pick next in the exchange (R11.1: three tiles of one suit), from
    its tile counts: with no pick yet, every kind held in a suit of which it holds three or
    more; after a pick, the kinds of that suit still held beyond the picks. Following these
    picks reaches exactly the engine's legal exchange choices (tests/test_env.py checks it).

    >>> hand = bytes([2, 1] + [0] * 7 + [1, 1, 1] + [0] * 15)
    >>> pick_kinds(hand, []), pick_kinds(hand, [0])
    ([0, 1, 9, 10, 11], [0, 1])
    """
    if picks:
        a = picks[0] // 9 * 9
        return [k for k in range(a, a + 9) if hand[k] > picks.count(k)]
    out: list[int] = []
    for a in (0, 9, 18):
        if sum(hand[a : a + 9]) >= 3:
            out.extend(k for k in range(a, a + 9) if hand[k])
    return out


def legal_mask(obs: Any, picks: list[int] | tuple[int, ...] = ()) -> np.ndarray:
    """The action mask (``int8``, one per id) of an engine observation, as the environments
    give it; in the exchange phase, the mask of the next pick after ``picks``.

    >>> from xuezhan.engine import Round
    >>> r = Round.from_seed("leshan", 7, dealer=0)
    >>> m = legal_mask(r.observation(0))
    >>> {ACTION_NAMES[i] for i in m.nonzero()[0]} == {str(a)[2:] for a in r.legal_actions(0)}
    True
    """
    m = np.zeros(N_ACTIONS, np.int8)
    legal = obs.legal_actions
    if not legal:
        return m
    if legal[0].verb == EXCHANGE:
        for k in pick_kinds(obs.hand, picks):
            m[EXCHANGE0 + k] = 1
    else:
        for a in legal:
            m[_ID_OF[a]] = 1
    return m


__all__ += ["ID_OF", "legal_mask", "pick_kinds"]
