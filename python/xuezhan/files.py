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

import os
import stat
import zlib

__all__ = ["MAX_BYTES", "InputFileError", "gunzip", "read_bytes", "read_text"]

#: The largest input file read (16 MiB): far above any real script, log or TOML file.
MAX_BYTES = 16 * 1024 * 1024


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
