"""What a person may call themself or a table: one check for every name the room accepts.

A name is Unicode-normalised (NFKC, so full-width ``Ａ`` and ``A`` are one name), trimmed of
surrounding spaces, 1 to 24 characters (a table name up to 40), and printable: letters, digits,
marks, punctuation (apostrophes included), symbols and single inner spaces. Control characters
(NUL, ...), format characters (the bidirectional overrides such as RLO, zero-width joiners),
line breaks and unassigned code points are refused, with a message saying what is allowed.

    >>> clean_name("  Ａlice's  ")
    "Alice's"
    >>> clean_name("A\\u202eB")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a name may not hold U+202E (a control, format or bidirectional character); allowed: ...
"""

from __future__ import annotations

import unicodedata

__all__ = ["NAME_MAX", "TABLE_NAME_MAX", "clean_name"]

NAME_MAX = 24
TABLE_NAME_MAX = 40

# C*: control, format (bidi overrides, zero-width), surrogate, private use, unassigned;
# Zl/Zp: line and paragraph separators. Inner spaces (Zs) are kept, one at a time.
_REFUSED = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def clean_name(text: str, what: str = "a name", limit: int = NAME_MAX) -> str:
    """``text`` as the room stores it, or :class:`ValueError` saying what is allowed."""
    allowed = f"allowed: letters, digits, punctuation, symbols and single spaces, 1 to {limit} characters"
    name = unicodedata.normalize("NFKC", text)
    for ch in name:
        if unicodedata.category(ch) in _REFUSED:
            raise ValueError(
                f"{what} may not hold U+{ord(ch):04X} (a control, format or bidirectional character); {allowed}"
            )
    # every other kind of space (no-break, ideographic, ...) counts as one plain space
    name = " ".join(name.split())
    if not name:
        raise ValueError(f"{what} is empty or only spaces; {allowed}")
    if len(name) > limit:
        raise ValueError(f"{what} has {len(name)} characters; {allowed}")
    return name
