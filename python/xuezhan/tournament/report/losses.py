"""The biggest losses of each strategy, when the run kept its hand logs (``xuezhan tournament
--logs``), with the commands that replay them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from xuezhan.reporting import number

__all__ = ["VIEW_NEEDS", "format_lost_hands", "lost_hands"]


def lost_hands(df: pd.DataFrame, out: Path) -> list[tuple[str, int, int, Path]]:
    """With hand logs beside the results (``xuezhan tournament --logs``): each strategy's
    biggest losses whose log is there, ``(strategy, hand, delta, log path)``."""
    from xuezhan.tournament.hand_logs import LOG_DIR, worst_hands

    folder = out / LOG_DIR
    if not folder.is_dir():
        return []
    return [w for w in worst_hands(df, folder) if w[3].is_file()]


#: Said wherever the report suggests ``xuezhan view``: the viewer is part of the game room.
VIEW_NEEDS = "xuezhan view needs the serve extra: pip install 'xuezhan[serve]', or '.[serve]' in a clone"


def format_lost_hands(lost: list[tuple[str, int, int, Path]]) -> str:
    """The terminal list of :func:`lost_hands` with the command that replays each."""
    if not lost:
        return ""
    lines = [f"The biggest losses, to replay ({VIEW_NEEDS}):"]
    lines += [
        f"  {name}: hand {hand} ({number(delta, 0, signed=True)})  xuezhan view {path}"
        for name, hand, delta, path in lost
    ]
    return "\n".join(lines)
