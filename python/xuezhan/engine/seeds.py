"""Seeds derived from a base seed (RULES.md R1.4, R9.1), for matches and tournaments alike.

Every seed a match or a tournament plays with comes from :func:`derive_seed` ``(base, labels…)``:
a pure function of the base seed and the labels (``"hand"`` and the hand index in a match;
``"wall"``, ``"seating"`` or ``"strategy"`` and their indices in a tournament), the same on every
platform and Python, so results never depend on how work is split or resumed.

    >>> derive_seed(7, "wall", 3) == derive_seed(7, "wall", 3) != derive_seed(8, "wall", 3)
    True
    >>> hand_seed(7, 3) == derive_seed(7, "hand", 3), first_dealer(7) in range(4)
    (True, True)
"""

from __future__ import annotations

import hashlib

__all__ = ["derive_seed", "first_dealer", "hand_seed", "random_key"]

_SEED_BITS = 63


def derive_seed(base: int, *parts: object) -> int:
    """A 63-bit seed from the base seed and any labels (BLAKE2b of ``"base:part:part…"``)."""
    blob = ":".join([str(base), *map(str, parts)]).encode()
    return int.from_bytes(hashlib.blake2b(blob, digest_size=8).digest(), "little") >> (64 - _SEED_BITS)


def hand_seed(match_seed: int, hand_index: int) -> int:
    """R1.4: the seed of hand ``hand_index`` of a match."""
    return derive_seed(match_seed, "hand", hand_index)


def first_dealer(seed: int) -> int:
    """R9.1: the first dealer of a match (or of a tournament hand), drawn from its seed.

    This draw predates :func:`derive_seed` and keeps its own hash (SHA-256 of
    ``"xuezhan:dealer:seed"``) so that the dealers, and with them every published result, stay
    the same."""
    h = hashlib.sha256(f"xuezhan:dealer:{seed}".encode()).digest()
    return int.from_bytes(h[:8], "big") % 4


def random_key(seed: int) -> bytes:
    """The key ``random.Random(seed)`` seeds its Mersenne Twister with, for the core's copy of
    that generator (``_core.shuffled_tiles``, ``_core.shuffled_range``): ``abs(seed)`` in 32-bit
    words, least significant first, as little-endian bytes (one zero word for 0).

    >>> random_key(1), random_key(-(2**32))
    (b'\\x01\\x00\\x00\\x00', b'\\x00\\x00\\x00\\x00\\x01\\x00\\x00\\x00')
    """
    if not isinstance(seed, int):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    n = abs(seed)
    return n.to_bytes(max(1, -(-n.bit_length() // 32)) * 4, "little")
