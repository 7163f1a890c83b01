"""The optional extras (``pyproject.toml``'s optional dependencies) and the one error for a
missing one.

The core (the evaluator, the engine, tournaments, studies, reports) needs only xuezhan's own
dependencies; three parts need an extra: the game room and the replay viewer (``serve``), the
reinforcement-learning environments (``rl``) and the Ray executor (``ray``). Each checks its
extra once, where it starts (:func:`require`), before anything is written, and a missing one is
a :class:`MissingExtra` naming the extra and both ways to install it (before a release the
PyPI name does not exist yet: from a clone it is ``pip install '.[ray]'``). The command line
prints it as one line and exits 2 (bad input: the request cannot be served as installed).

    >>> install_hint("ray")
    "pip install '.[ray]' in a clone of xuezhan, or pip install 'xuezhan[ray]' from PyPI"
    >>> try:
    ...     require("ray", "--executor ray", modules=("xuezhan_no_such_module",))
    ... except MissingExtra as exc:
    ...     print(exc)
    --executor ray needs the 'ray' extra (xuezhan_no_such_module is not installed): pip install '.[ray]' in a clone of xuezhan, or pip install 'xuezhan[ray]' from PyPI
"""  # noqa: E501 - the example's message is one line

from __future__ import annotations

import importlib
from collections.abc import Sequence

__all__ = ["EXTRAS", "MissingExtra", "install_hint", "require"]

#: The modules each extra brings (the top-level packages of its dependencies in pyproject.toml).
EXTRAS: dict[str, tuple[str, ...]] = {
    "serve": ("sqlalchemy", "starlette", "uvicorn", "websockets"),
    "rl": ("pettingzoo", "gymnasium"),
    "ray": ("ray",),
}


def install_hint(extra: str) -> str:
    """How to install ``extra``: from a clone, and from PyPI."""
    return f"pip install '.[{extra}]' in a clone of xuezhan, or pip install 'xuezhan[{extra}]' from PyPI"


class MissingExtra(ImportError):
    """A part of xuezhan used without its extra: ``extra`` names it, ``name`` the module that
    is missing; the message says what needed it and how to install it, on one line."""

    def __init__(self, extra: str, what: str, module: str) -> None:
        self.extra = extra
        super().__init__(
            f"{what} needs the '{extra}' extra ({module} is not installed): {install_hint(extra)}", name=module
        )


def require(extra: str, what: str, *, modules: Sequence[str] | None = None) -> None:
    """Import the modules of ``extra`` (default: :data:`EXTRAS`); the first that does not import
    raises :class:`MissingExtra`, saying that ``what`` (``"--executor ray"``, ``"xuezhan
    serve"``) needs it. A module already imported costs nothing."""
    for module in EXTRAS[extra] if modules is None else modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            # the package itself, not the submodule a dependency failed on (gymnasium.spaces)
            raise MissingExtra(extra, what, (exc.name or module).partition(".")[0]) from None
