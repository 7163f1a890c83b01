"""The round engine: state, legality, turn and claim flow, settlement, matches, scripts and logs.

One module per concern: the hand's state in four parts (the wall, :mod:`.wall`; the seats,
:mod:`.seats`; the pending decision, :mod:`.turn`; the record, :mod:`.ledger`; their R12
invariants, :mod:`.invariants`), the legal actions of each decision and why others are refused
(:mod:`.legal`), the deal, exchange and void declaration (:mod:`.setup`, R1, R11), the public
API (:mod:`.round`), the turn flow and claim sequence (:mod:`.flow`, R2, R3, R4), the claim
window (:mod:`.claims`, R3), the end of the hand (:mod:`.hand_end`, R4.5, R8),
payments (:mod:`.settlement`, R5–R8), typed events and what each seat may see of them
(:mod:`.events`), observations (:mod:`.observation`), the hand's result (:mod:`.result`, R9.3),
seeds (:mod:`.seeds`, R1.4, R9.1), matches and timing (:mod:`.match`, R9–R10), logs
(:mod:`.log`, R12.4) and scripted hands (:mod:`.script`, R13).

    >>> from xuezhan.engine import Round, public_view
    >>> r = Round("leshan", ["1235679m1235579p", "123456789m3455p", "123456789s1489m",
    ...           "124468p1356789s"], wall="", dealer=0)
    >>> r.apply("0 discard 5p"); [str(a) for a in r.legal_actions(1)]
    ['1 hu', '1 peng', '1 pass']
    >>> r.apply("1 pass"); passed = [e for e in r.ledger.events if e.type == "pass"]
    >>> public_view(passed[0], 1), public_view(passed[0], 0)  # only the passer sees its pass
    ({'type': 'pass', 'seat': 1, 'default': False}, None)

Readings where the rules are silent (each is one place in the code; also in docs/rules.md):

- R13/R3.2: once a win has been declared on a discard, a later seat that could only peng or kong
  is still asked (the shared vectors require it); its claim cannot be taken.
- R4.3: the lock also bars robbing a kong (a robbed tile is won "as a discard", R3.3), and
  passing a robbable kong locks like passing a discard. The phase of R4.4 begins whatever
  ``last_tiles_forced`` says (that option only makes wins compulsory), so the lock exception of
  R4.3 holds in it in every preset.
- R4.4: a kong replacement draw is a draw (it can begin the phase, and clears the R4.3 lock).
- R5 heaven_earth: "before any claim" = no peng, kong on a discard or win by anyone yet;
  a concealed kong is not a claim. For 天胡 the winning tile is the one giving the most fan.
- R6.3: decided by the kind of the last kong of the turn (a kong on a discard followed by a
  concealed kong and a win on its replacement is an ordinary self-draw).
- R7.3/R8: a player caught with a 14th tile by an escape is valued on its best discard; claims
  declared but not yet resolved when someone escapes are dropped (the hand ends at once).
- R8: the escapee's refunded kong income excludes income already handed on by R6.5; the pig
  test is still made (pigs neither pay R7.4 nor are paid), only the R7.2 penalty is skipped.
- R9.2: after an escape with no win the dealer stays.
- R10.3: each timeout counts; the one that exceeds ``max_timeouts`` is an escape (and so is every
  later one in the match). A bot answering for another seat is an illegal action.
- R11.1: the default exchange takes the suit held fewest (m, p, s order on a tie); the
  direction is not shown to players before the tiles pass.
- R13: script lines left over when the hand ends are refused (naming the first one).
"""

from xuezhan.engine.actions import Action, ActionError, IllegalAction, act, parse_action
from xuezhan.engine.decisions import Strategy
from xuezhan.engine.events import DECISION_TYPES, public_view
from xuezhan.engine.invariants import InvariantError
from xuezhan.engine.log import (
    ReplayMismatch,
    log_lines,
    replay_log,
    validate_dir,
    write_log,
)
from xuezhan.engine.match import play_hand, play_match, run_round
from xuezhan.engine.observation import Observation
from xuezhan.engine.result import HandResult
from xuezhan.engine.round import Round, deal
from xuezhan.engine.script import ScriptError, replay_script
from xuezhan.engine.seeds import derive_seed, first_dealer, hand_seed

__all__ = [
    "Action",
    "ActionError",
    "IllegalAction",
    "act",
    "parse_action",
    "DECISION_TYPES",
    "public_view",
    "ReplayMismatch",
    "log_lines",
    "replay_log",
    "validate_dir",
    "write_log",
    "first_dealer",
    "hand_seed",
    "play_hand",
    "play_match",
    "run_round",
    "Observation",
    "Round",
    "Strategy",
    "HandResult",
    "deal",
    "derive_seed",
    "ScriptError",
    "replay_script",
    "InvariantError",
]
