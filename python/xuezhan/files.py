"""Reading the files users hand to xuezhan (scripts, logs, rules and tournament TOML): one place.

A path is read only when it is a regular file no larger than :data:`MAX_BYTES`, so that
``/dev/zero``, a FIFO or a folder gives a clear error instead of a hang or an exhausted memory,
and every error names the file.

>>> import tempfile, os
>>> with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
...     _ = f.write('preset = "leshan"')
>>> read_text(f.name, what="rules file")
'preset = "leshan"'
>>> os.unlink(f.name)
>>> read_text("/dev/null", what="rules file")
Traceback (most recent call last):
...
xuezhan.files.InputFileError: /dev/null: not a regular file (a device, pipe or socket): give a rules file
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
import zlib
from typing import Any

__all__ = ["MAX_BYTES", "MAX_DEPTH", "InputFileError", "depth", "gunzip", "read_bytes", "read_document", "read_text"]

#: The largest input file read (16 MiB): far above any real script, log or TOML file.
MAX_BYTES = 16 * 1024 * 1024
#: The deepest nesting of tables and lists a configuration document may have (a real one has 4).
MAX_DEPTH = 32


class InputFileError(ValueError):
    """A file that cannot be used as input; the message names the file and the reason."""


def read_bytes(path: str | os.PathLike[str], *, what: str = "file", limit: int | None = None) -> bytes:
    """The contents of a regular file of at most ``limit`` bytes (default :data:`MAX_BYTES`);
    ``what`` names the file's role in errors."""
    p = os.fspath(path)
    if limit is None:
        limit = MAX_BYTES
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise InputFileError(f"{p}: no such {what}") from None
    except OSError as exc:
        raise InputFileError(f"{p}: cannot read the {what}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputFileError(f"{p}: a folder, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise InputFileError(f"{p}: not a regular file (a device, pipe or socket): give a {what}")
    if st.st_size > limit:
        raise InputFileError(f"{p}: {st.st_size:,} bytes, more than the {limit:,}-byte limit of a {what}")
    try:
        with open(p, "rb") as f:
            data = f.read(limit + 1)  # a file growing while read still stops at the limit
    except OSError as exc:
        raise InputFileError(f"{p}: cannot read the {what}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise InputFileError(f"{p}: more than the {limit:,}-byte limit of a {what}")
    if p.endswith(".gz"):
        return gunzip(data, name=p, what=what, limit=limit)
    return data


def gunzip(data: bytes, *, name: str, what: str = "file", limit: int | None = None) -> bytes:
    """Gzip-compressed ``data`` (named ``name`` in errors) decompressed, held to ``limit`` bytes
    (default :data:`MAX_BYTES`) once decompressed, so a small file cannot expand without bound."""
    p = name
    if limit is None:
        limit = MAX_BYTES
    d = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)  # gzip framing
    try:
        out = d.decompress(data, limit + 1)
        if not d.eof and len(out) <= limit:
            raise InputFileError(f"{p}: the gzip stream is cut short: not a {what}")
    except zlib.error as exc:
        raise InputFileError(f"{p}: not gzip data ({exc}): not a {what}") from None
    if len(out) > limit:
        raise InputFileError(f"{p}: more than the {limit:,}-byte limit of a {what} once decompressed")
    return out


def read_text(path: str | os.PathLike[str], *, what: str = "file", limit: int | None = None) -> str:
    """:func:`read_bytes` decoded as UTF-8 (a leading byte-order mark is dropped)."""
    data = read_bytes(path, what=what, limit=limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{os.fspath(path)}: not UTF-8 text (byte {exc.start}): not a {what}") from None


def depth(value: Any) -> int:
    """Nesting depth of a parsed document (a scalar is 1), counted without recursion.

    >>> depth(1), depth({"a": [1, {"b": 2}]})
    (1, 4)
    """
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(v, dict):
            stack += [(x, d + 1) for x in v.values()]
        elif isinstance(v, list):
            stack += [(x, d + 1) for x in v]
    return deepest


def read_document(path: str | os.PathLike[str], *, what: str = "file") -> dict[str, Any]:
    """A configuration document (a tournament or study file): TOML, or JSON when the name ends
    in ``.json``, read by :func:`read_text` (a regular file, at most :data:`MAX_BYTES`, UTF-8),
    a table at the top, nested at most :data:`MAX_DEPTH` levels. Every error is one
    :class:`InputFileError` naming the file.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    ...     _ = f.write('[1, 2]')
    >>> read_document(f.name, what="study file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xuezhan.files.InputFileError: ...json: not a study file: a JSON list at the top, not a table of fields
    >>> os.unlink(f.name)
    """
    p = os.fspath(path)
    text = read_text(p, what=what)
    as_json = p.endswith(".json")
    try:
        data = json.loads(text) if as_json else tomllib.loads(text)
    except RecursionError:
        raise InputFileError(f"{p}: not a {what}: nested more than {MAX_DEPTH} levels") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(f"{p}: not valid TOML: {exc}") from None
    except ValueError as exc:  # json.JSONDecodeError
        raise InputFileError(f"{p}: not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        kind = {list: "list", str: "string", bool: "boolean", type(None): "null"}.get(type(data), "number")
        raise InputFileError(f"{p}: not a {what}: a JSON {kind} at the top, not a table of fields")
    if depth(data) > MAX_DEPTH:
        raise InputFileError(f"{p}: not a {what}: nested more than {MAX_DEPTH} levels")
    return data
