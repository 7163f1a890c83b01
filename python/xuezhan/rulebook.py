"""The project's rules reference (``docs/rules.md``), shipped in the package as ``xuezhan/rules.md``.

Every rule id the engine, the results and the reports cite (``R4.3``, ``R6.5-kong-transfer``, …)
names a section of that document; this module finds them.

>>> from xuezhan import rulebook
>>> rulebook.title("R4.3")
'R4.3 Passing a win locks further discard wins'
>>> rulebook.title("R6.5-kong-transfer")        # a fired-rule name: its id is the part before '-'
'R6.5 Win on the discard after a kong (呼叫转移)'
>>> rulebook.section("R1.3").splitlines()[0]
'### R1.3 One wall, drawn from the front'
>>> "R4.3" in rulebook.rule_ids() and "R13" in rulebook.rule_ids()
True
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

__all__ = [
    "UnknownRuleError",
    "anchor",
    "plain_text",
    "rule_id_of",
    "rule_ids",
    "section",
    "text",
    "title",
]

#: The document inside the package (``docs/rules.md`` in the repository; one file, linked).
RESOURCE = "rules.md"

_HEADING = re.compile(r"^(#{2,3}) (R\d+(?:\.\d+)?) (.*)$")
_ANCHOR = re.compile(r'^<a id="[^"]*"></a>\s*$')
_PAGE_LINK = re.compile(r"\[([^\]]+)\]\(#[^)]*\)")
# A rule id, or a fired-rule name: the id, a dash and a word ("R6.4-added").
_ID = re.compile(r"^(R\d+(?:\.\d+)?)(?:-[\w.-]*)?$", re.IGNORECASE)


class UnknownRuleError(LookupError):
    """A rule id that the rules reference does not have; the message lists the valid ids."""


@cache
def text() -> str:
    """The whole rules reference (Markdown)."""
    return resources.files("xuezhan").joinpath(RESOURCE).read_text(encoding="utf-8")


def plain_text() -> str:
    """The whole rules reference as a terminal shows it (``xuezhan rules``): without the HTML
    anchors (``<a id="R4.3"></a>``) that only links into the page use, and a link to a section
    of the page (``[Readings …](#readings)``) as its words."""
    lines = [_PAGE_LINK.sub(r"\1", ln) for ln in text().splitlines() if not _ANCHOR.match(ln)]
    # an anchor stood between two blank lines: keep one
    out = [ln for i, ln in enumerate(lines) if ln.strip() or not (i and not lines[i - 1].strip())]
    return "\n".join(out).strip("\n")


@cache
def _sections() -> dict[str, tuple[int, int, int, str]]:
    """id -> (heading level, first line, end line (exclusive), heading title)."""
    lines = text().splitlines()
    heads: list[tuple[int, str, int, str]] = []
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if m:
            heads.append((len(m.group(1)), m.group(2), i, f"{m.group(2)} {m.group(3)}"))
        elif line.startswith("## "):
            heads.append((2, "", i, line[3:]))  # a section without an id still ends the one before
    out: dict[str, tuple[int, int, int, str]] = {}
    for k, (level, rid, start, head) in enumerate(heads):
        if not rid:
            continue
        end = len(lines)
        for level2, _, start2, _ in heads[k + 1 :]:
            if level2 <= level:
                end = start2
                break
        out[rid] = (level, start, end, head)
    return out


def rule_ids() -> list[str]:
    """Every rule id of the reference, in document order (``R0``, ``R1``, ``R1.1``, …)."""
    return list(_sections())


def rule_id_of(name: str) -> str:
    """The rule id in a rule id or a fired-rule name: ``"R6.4-added"`` -> ``"R6.4"``.

    Raises :class:`UnknownRuleError` when there is none or the reference lacks it.
    """
    m = _ID.match(name.strip())
    rid = m.group(1).upper() if m else ""
    if rid not in _sections():
        raise UnknownRuleError(f"unknown rule id {name.strip()!r}: valid ids are {', '.join(rule_ids())}")
    return rid


def anchor(name: str) -> str:
    """The link target of a rule in the reference: ``"R4.3"`` -> ``"docs/rules.md#R4.3"``."""
    return f"docs/rules.md#{rule_id_of(name)}"


def title(name: str) -> str:
    """The heading of a rule: its id and short title."""
    return _sections()[rule_id_of(name)][3]


def section(name: str) -> str:
    """The text of one rule (with its sub-rules), then the readings of it where the rules are
    silent, if any. Case-insensitive: ``section("r4.3")`` works too."""
    rid = rule_id_of(name)
    _, start, end, _ = _sections()[rid]
    lines = text().splitlines()
    body = [ln for ln in lines[start:end] if not _ANCHOR.match(ln)]
    while body and not body[-1].strip():
        body.pop()
    readings = _readings(rid)
    if readings:
        body += ["", "Readings where the rules are silent:", *readings]
    return "\n".join(body)


def _readings(rid: str) -> list[str]:
    """The bullets of the readings section that cite ``rid`` (or a sub-rule of it) first."""
    lines = text().splitlines()
    try:
        start = lines.index('<a id="readings"></a>')
    except ValueError:  # pragma: no cover - the document always has the section
        return []
    items: list[list[str]] = []
    for ln in lines[start + 1 :]:
        if ln.startswith("- "):
            items.append([ln])
        elif ln.startswith("  ") and items:
            items[-1].append(ln)
    # A top-level id (R4) also gathers the readings of its sub-rules (R4.3), as its section does.
    sub = r"(?:\.\d+)?" if "." not in rid else ""
    pattern = re.compile(rf"^- (?:[A-Z0-9./]*/)?{re.escape(rid)}{sub}(?![\d.])")
    return ["\n".join(item) for item in items if pattern.match(item[0])]
