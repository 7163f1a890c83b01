"""The round engine (issue 3): state machine, settlement, matches, scripts and logs.

RULES.md R1–R4 (:mod:`.round`), R5–R8 (:mod:`.settlement`), R9–R10 (:mod:`.match`),
R12.4 (:mod:`.log`), R13 (:mod:`.script`).
"""

from xuezhan.engine.actions import Action, ActionError, IllegalAction, act, parse_action
from xuezhan.engine.events import DECISION_TYPES, public_view
from xuezhan.engine.log import ReplayMismatch, log_lines, replay_log, validate_dir, write_log
from xuezhan.engine.match import first_dealer, hand_seed, play_hand, play_match, run_round
from xuezhan.engine.observation import Observation
from xuezhan.engine.round import Round, deal
from xuezhan.engine.script import ScriptError, replay_script
from xuezhan.engine.state import InvariantError

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
    "deal",
    "ScriptError",
    "replay_script",
    "InvariantError",
]
