"""The biggest losses of each strategy, when the run kept its hand logs (``xuezhan tournament
--logs``), with the command that reviews each: ``xuezhan review LOG --seat N`` says which of
the seat's decisions cost it the points, ``xuezhan view LOG`` replays the hand.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from xuezhan.reporting import TERMINAL_WIDTH, number, terminal_text
from xuezhan.tournament.hand_logs import LostHand

__all__ = ["VIEW_NEEDS", "LostHand", "format_lost_hands", "lost_hands", "review_command"]

#: Said wherever the report suggests ``xuezhan view``: the viewer is part of the game room.
VIEW_NEEDS = "xuezhan view needs the serve extra: pip install 'xuezhan[serve]', or '.[serve]' in a clone"


def lost_hands(df: pd.DataFrame, out: Path) -> list[LostHand]:
    """With hand logs beside the results (``xuezhan tournament --logs``): each strategy's
    biggest losses whose log is there (:func:`xuezhan.tournament.hand_logs.worst_hands`)."""
    from xuezhan.tournament.hand_logs import LOG_DIR, worst_hands

    folder = out / LOG_DIR
    if not folder.is_dir():
        return []
    return [w for w in worst_hands(df, folder) if w.log.is_file()]


def review_command(lost: LostHand) -> str:
    """The command that reviews the losing seat's decisions in that hand."""
    return f"xuezhan review {lost.log} --seat {lost.seat}"


def format_lost_hands(lost: list[LostHand], width: int = TERMINAL_WIDTH) -> str:
    """The terminal list of :func:`lost_hands`: per loss the strategy, the hand, its seat and
    the points, then the command that reviews it (never wrapped: it must paste whole)."""
    if not lost:
        return ""
    head = terminal_text(
        [
            "The biggest losses: `xuezhan review LOG --seat N` shows which of the seat's decisions cost it "
            f"points; `xuezhan view LOG` replays the hand with every tile open ({VIEW_NEEDS})."
        ],
        width,
    )
    lines = [
        f"  {w.strategy}, seat {w.seat} in hand {w.hand} ({number(w.delta, 0, signed=True)}):  {review_command(w)}"
        for w in lost
    ]
    return "\n".join([head, *lines])
