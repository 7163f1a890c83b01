"""The errors a run (a tournament or a study) ends with, by what the command line makes of them.

- :class:`TournamentError`: a run that could not finish (a worker process died, a Ray cluster
  went away): exit status 1.
- :class:`RunRefused` (a :class:`TournamentError`): a request refused before a hand is played
  or a file is changed (an output folder in use, holding other results, damaged, or of another
  run): exit status 2, like bad input.
"""

from __future__ import annotations

__all__ = ["RunRefused", "TournamentError"]


class TournamentError(RuntimeError):
    """A tournament that cannot start or continue; the message says why and what to do."""


class RunRefused(TournamentError):
    """A refused request: the output folder is in use, holds other or damaged results, or
    ``--resume`` names another run. Nothing was played or changed."""
