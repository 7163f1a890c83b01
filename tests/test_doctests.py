"""The examples in the public API's docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "xuezhan",
    "xuezhan.tiles",
    "xuezhan.rules",
    "xuezhan.strategies",
    "xuezhan.evaluate",
    "xuezhan.batch",
    "xuezhan.study.config",
    "xuezhan.study.estimators",
    "xuezhan.study.measure",
    "xuezhan.files",
    "xuezhan.documents",
    "xuezhan.rulebook",
    "xuezhan.extras",
    "xuezhan.reporting",
    "xuezhan.tournament.report.header",
    "xuezhan.tournament.stats",
    "xuezhan.tournament.readback",
    "xuezhan.strategies.botprocess",
    "xuezhan.strategies.guarded",
    "xuezhan.strategies.policies",
    "xuezhan.search.estimate",
    "xuezhan.tournament.schema",
    # the round engine
    "xuezhan.engine.actions",
    "xuezhan.engine.events",
    "xuezhan.engine.legal",
    "xuezhan.engine.setup",
    "xuezhan.engine.round",
    "xuezhan.engine.determinize",
    "xuezhan.engine.result",
    "xuezhan.engine.script",
    "xuezhan.engine.seeds",
    "xuezhan.engine",
    # native whole-hand play and the strategies on it
    "xuezhan.native",
    "xuezhan.tournament.engines",
    "xuezhan.tournament.scheduling",
    "xuezhan.strategies.expert",
    "xuezhan.strategies.value",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize("doc, least", [("docs/evaluator.md", 10), ("README.md", 8), ("docs/native.md", 2)])
def test_guide_examples(doc, least):
    """The examples of the evaluator guide and of the README run and give what they show."""
    from pathlib import Path

    path = Path(__file__).parents[1] / doc
    result = doctest.testfile(str(path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= least
    assert result.failed == 0
