"""A Griffe extension for the documentation site: the package's docstrings are written for
``help()`` and doctest (reST roles such as :func:`name`, ``>>>`` examples); this turns them into
the Markdown that mkdocstrings renders, at build time, without touching the sources.

- A role (``:func:`~.verdict.rule_changes```, ``:class:`Rules```, ``:mod:`.summary```) becomes
  a link to the object when its target resolves in the package (Sphinx's search: the name as
  written, then within the docstring's class and module and each package above), else its name
  as code. Links are optional cross-references: an object that no page renders stays plain
  text instead of failing the strict build.
- A doctest block (a ``>>>`` line to the next blank line) becomes a fenced ``pycon`` block, so
  that Markdown does not read ``>>>`` as nested quotes.

Used by mkdocs.yml (``extensions: [tools/griffe_docstrings.py]``).
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

#: A reST role: ``:func:`target```, ``:py:class:`~a.b```, ``:data:`.X```.
_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|exc|obj|const):`([^`]+)`")
_DOCTEST = re.compile(r"^(\s*)>>> ")


def _candidates(target: str, obj: griffe.Object) -> list[str]:
    """Where a role's target may be, in Sphinx's order of search."""
    scopes = []
    scope: Any = obj if isinstance(obj, (griffe.Module, griffe.Class)) else obj.parent
    while scope is not None:
        scopes.append(scope.path)
        scope = scope.parent
    if target.startswith("."):
        return [f"{s}{target}" for s in scopes]
    return [target, *(f"{s}.{target}" for s in scopes)]


def _resolve(target: str, obj: griffe.Object, collection: Any) -> str | None:
    for path in _candidates(target, obj):
        try:
            collection.get_member(path)
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            continue
        return path
    return None


def _roles(text: str, obj: griffe.Object, collection: Any) -> str:
    def link(m: re.Match[str]) -> str:
        target = m.group(1).strip()
        short = target.startswith("~")
        target = target.lstrip("~")
        shown = target.rsplit(".", 1)[-1] if short else target.lstrip(".")
        path = _resolve(target, obj, collection)
        if path is None:
            return f"`{shown}`"
        return f'<autoref identifier="{html.escape(path)}" optional><code>{html.escape(shown)}</code></autoref>'

    return _ROLE.sub(link, text)


def _fence_doctests(text: str) -> str:
    """Each ``>>>`` block (to the next blank line) in a ``pycon`` fence; an indented block (a
    Markdown code block already) is left as it is."""
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _DOCTEST.match(lines[i])
        if m is None or len(m.group(1)) >= 4:
            out.append(lines[i])
            i += 1
            continue
        indent = m.group(1)
        out += ["", f"{indent}```pycon"]
        while i < len(lines) and lines[i].strip():
            out.append(lines[i])
            i += 1
        out += [f"{indent}```", ""]
    return "\n".join(out)


def _in_code(text: str) -> list[tuple[bool, str]]:
    """The text in runs: inside a fenced or indented code block, or not (roles are rewritten
    outside code only)."""
    runs: list[tuple[bool, str]] = []
    fence = False
    for line in text.split("\n"):
        if line.strip().startswith("```"):
            fence = not fence
            runs.append((True, line))
            continue
        runs.append((fence or line.startswith("    "), line))
    return runs


class Docstrings(griffe.Extension):
    """Rewrite every docstring of the package once it is loaded (see the module's docstring)."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        collection = loader.modules_collection
        stack: list[griffe.Object] = [pkg]
        while stack:
            obj = stack.pop()
            if obj.docstring is not None:
                text = _fence_doctests(obj.docstring.value)
                obj.docstring.value = "\n".join(
                    line if code else _roles(line, obj, collection) for code, line in _in_code(text)
                )
            stack += [m for m in obj.members.values() if not m.is_alias]
