"""The examples in the public API's docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["xuezhan", "xuezhan.tiles", "xuezhan.rules", "xuezhan.evaluate", "xuezhan.batch"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_evaluator_guide_examples():
    """docs/evaluator.md: every example in the guide runs and gives what it shows."""
    from pathlib import Path

    path = Path(__file__).parents[1] / "docs" / "evaluator.md"
    result = doctest.testfile(str(path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0
