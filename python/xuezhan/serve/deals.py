"""Fair deals: each hand's seed comes from the operating system's secure generator, and the
room commits to it before play and reveals it after.

When a hand starts every seat and spectator is shown :func:`commitment` of its seed, the
SHA-256 of ``xuezhan-deal:<seed in decimal>``; when the hand ends the seed itself is shown. The
seed (R1.4) fixes the four hands and the wall (``Round.from_seed``), so anyone holding the
commitment can check, once the seed is revealed, that the deal was fixed before the first
decision. A seed of 128 random bits cannot be guessed from its hash, so no extra salt is needed;
anyone can recompute the hash with ``printf 'xuezhan-deal:SEED' | sha256sum``.

    >>> commitment(5)  # printf 'xuezhan-deal:5' | sha256sum
    '8441a6ca9e97e2aa6bf7640a02f8266d34db61d7ce4af90faec38f241c4a81b8'
    >>> verify(12345, commitment(12345)), verify(12346, commitment(12345))
    (True, False)
    >>> new_seed().bit_length() <= SEED_BITS
    True
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = ["COMMIT_PREFIX", "SEED_BITS", "commitment", "new_seed", "verify"]

#: Bits of a room hand's seed (from :mod:`secrets`, the OS's secure generator).
SEED_BITS = 128
#: What is hashed before the seed, so the hash names what it commits to.
COMMIT_PREFIX = "xuezhan-deal:"


def new_seed() -> int:
    """A fresh hand seed: 128 bits from the operating system's secure generator."""
    return secrets.randbits(SEED_BITS)


def commitment(seed: int) -> str:
    """The hex SHA-256 the room shows before play for a hand dealt from ``seed``."""
    return hashlib.sha256(f"{COMMIT_PREFIX}{seed}".encode()).hexdigest()


def verify(seed: int | str, shown: str) -> bool:
    """Whether ``shown`` is the commitment of ``seed`` (the check the replay page makes)."""
    return hmac.compare_digest(commitment(int(seed)), shown)
