"""Actions of the round engine and the R13 script-line notation (``SEAT VERB [TILE]``).

An :class:`Action` is an immutable ``(seat, verb, arg)`` triple. ``arg`` is a tile kind 0–26
for ``discard``/``angang``/``jiagang``, a sorted tuple of three kinds for ``exchange``
(R11.1), a suit 0–2 for ``void`` (R11.2), and ``None`` otherwise. ``str(action)`` is the
script line (R13): ``"0 discard 5p"``, ``"1 hu"``, ``"0 exchange 357s"``, ``"2 void p"``.

The legal-action lists of the engine hand out shared, pre-built :class:`Action` values
(:func:`act`), so building them costs nothing per decision.
"""

from __future__ import annotations

from typing import NamedTuple

from xuezhan.tiles import SUITS, TILE_STR, TileError, format_tiles, parse_tiles

__all__ = [
    "Action",
    "ActionError",
    "IllegalAction",
    "DISCARD",
    "HU",
    "PENG",
    "GANG",
    "ANGANG",
    "JIAGANG",
    "PASS",
    "ESCAPE",
    "EXCHANGE",
    "VOID",
    "VERBS",
    "TURN_VERBS",
    "CLAIM_VERBS",
    "TILE_VERBS",
    "act",
    "check_fields",
    "parse_action",
]

DISCARD = "discard"
HU = "hu"
PENG = "peng"
GANG = "gang"
ANGANG = "angang"
JIAGANG = "jiagang"
PASS = "pass"
ESCAPE = "escape"
EXCHANGE = "exchange"
VOID = "void"

#: Every verb of R13.
VERBS = (DISCARD, HU, PENG, GANG, ANGANG, JIAGANG, PASS, ESCAPE, EXCHANGE, VOID)
#: Verbs of a turn decision (R2.1).
TURN_VERBS = frozenset({DISCARD, HU, ANGANG, JIAGANG})
#: Verbs of a claim decision (R3.1); ``hu`` is both (R13).
CLAIM_VERBS = frozenset({HU, PENG, GANG, PASS})
#: Verbs that take one tile.
TILE_VERBS = frozenset({DISCARD, ANGANG, JIAGANG})


class ActionError(ValueError):
    """A script line or action value that is not well formed (not a question of legality)."""


class IllegalAction(ValueError):
    """An action that is not legal in the current state; the message names the action.

    The state is unchanged when this is raised.
    """

    def __init__(self, action: object, reason: str) -> None:
        self.action = action
        self.reason = reason
        super().__init__(f"illegal action '{action}': {reason}")


class _Fields(NamedTuple):
    seat: int
    verb: str
    arg: int | tuple[int, int, int] | None = None


def _field_type(name: str, value: object, what: str) -> TypeError:
    hint = ""
    if type(value).__module__ == "numpy":
        hint = " (convert a numpy scalar with int() first)"
    return TypeError(f"Action {name}: expected {what}, got {type(value).__name__} {value!r}{hint}")


def check_fields(seat: object, verb: object, arg: object) -> None:
    """Raise ``TypeError`` naming the field unless ``seat`` is an ``int``, ``verb`` a ``str`` and
    ``arg`` None, an ``int`` or a tuple of ``int`` (exactly these types: ``bool``,
    ``float``, numpy scalars and ``str`` are refused, so an action never compares equal to a
    legal one while carrying another type). Ranges and verbs are questions of legality
    (:class:`IllegalAction`), not of type."""
    if type(seat) is not int:
        raise _field_type("seat", seat, "an int 0-3")
    if type(verb) is not str:
        raise _field_type("verb", verb, f"a str (one of {', '.join(VERBS)})")
    if arg is None or type(arg) is int:
        return
    if type(arg) is tuple:
        for k in arg:
            if type(k) is not int:
                raise _field_type("arg", k, "int tile kinds 0-26 (an exchange)")
        return
    raise _field_type("arg", arg, "None, an int (a tile kind 0-26 or a suit 0-2) or a tuple of int")


class Action(_Fields):
    """One decision of one seat: ``(seat, verb, arg)``. ``str(action)`` is its R13 script line.

    ``seat`` is an ``int``, ``verb`` a ``str``, ``arg`` the ``int`` tile kind (0-26) of
    ``discard``/``angang``/``jiagang``, the ``int`` suit (0-2) of ``void``, the three sorted
    ``int`` kinds of ``exchange``, else None. Other types (``bool``, ``float``, numpy integers,
    ``str`` numbers) raise ``TypeError`` naming the field.

    >>> Action(0, "discard", 13)
    Action(seat=0, verb='discard', arg=13)
    >>> Action(True, "hu")
    Traceback (most recent call last):
    ...
    TypeError: Action seat: expected an int 0-3, got bool True
    """

    __slots__ = ()

    def __new__(cls, seat: int, verb: str, arg: int | tuple[int, int, int] | None = None) -> Action:
        check_fields(seat, verb, arg)
        return tuple.__new__(cls, (seat, verb, arg))

    def __str__(self) -> str:
        v = self.verb
        a = self.arg
        if a is None:
            return f"{self.seat} {v}"
        try:
            if isinstance(a, tuple):
                return f"{self.seat} {v} {format_tiles(list(a))}"
            if v == VOID:
                return f"{self.seat} {v} {SUITS[a]}"
            return f"{self.seat} {v} {TILE_STR[a]}"
        except (IndexError, TypeError, ValueError):  # a malformed action still prints
            return f"{self.seat} {v} {a!r}"

    @property
    def tile(self) -> str | None:
        """The tile of a tile verb as a string (``"5p"``), else None."""
        if self.verb in TILE_VERBS and isinstance(self.arg, int):
            return TILE_STR[self.arg]
        return None


# Shared pre-built actions: _SIMPLE[seat][verb], _TILE[seat][verb][kind].
_SIMPLE = [{v: Action(s, v) for v in (HU, PENG, GANG, PASS, ESCAPE)} for s in range(4)]
_TILED = [{v: tuple(Action(s, v, k) for k in range(27)) for v in TILE_VERBS} for s in range(4)]
_VOIDS = [tuple(Action(s, VOID, k) for k in range(3)) for s in range(4)]


def act(seat: int, verb: str, arg: int | tuple | None = None) -> Action:
    """A shared :class:`Action` (no allocation for the common verbs). The fields are checked as
    :class:`Action` checks them (``TypeError`` naming the field), and so are their ranges
    (:class:`ActionError`): a shared action is never picked by a ``bool``, a negative index or
    a kind out of range."""
    if type(seat) is not int or not 0 <= seat < 4:
        check_fields(seat, verb, arg)
        raise ActionError(f"act: seat {seat!r} is not a seat (0-3)")
    if verb in TILE_VERBS:
        if type(arg) is not int or not 0 <= arg < 27:
            check_fields(seat, verb, arg)
            raise ActionError(f"act: {verb} takes a tile kind 0-26, got {arg!r}")
        return _TILED[seat][verb][arg]
    if verb == VOID:
        if type(arg) is not int or not 0 <= arg < 3:
            check_fields(seat, verb, arg)
            raise ActionError(f"act: void takes a suit 0-2, got {arg!r}")
        return _VOIDS[seat][arg]
    if verb == EXCHANGE:
        if type(arg) is not tuple or len(arg) != 3:
            check_fields(seat, verb, arg)
            raise ActionError(f"act: exchange takes three tile kinds, got {arg!r}")
        return Action(seat, verb, tuple(sorted(arg)))
    simple = _SIMPLE[seat].get(verb) if type(verb) is str else None
    if simple is None or arg is not None:
        check_fields(seat, verb, arg)
        raise ActionError(f"act: {verb!r} with {arg!r} is not an action (verbs: {', '.join(VERBS)})")
    return simple


def parse_action(line: str) -> Action:
    """Parse an R13 script line ``SEAT VERB [TILE]``; a malformed line raises :class:`ActionError`.

    >>> parse_action("0 discard 5p")
    Action(seat=0, verb='discard', arg=13)
    >>> str(parse_action("2 exchange 753s")), str(parse_action("1 void P"))
    ('2 exchange 357s', '1 void p')
    """
    if not isinstance(line, str):
        raise ActionError(f"{line!r} is not a script line (expected 'SEAT VERB [TILE]')")
    parts = line.split()
    if len(parts) < 2:
        raise ActionError(f"'{line}' is not a script line: expected 'SEAT VERB [TILE]'")
    seat_s, verb = parts[0], parts[1].lower()
    if seat_s not in ("0", "1", "2", "3"):
        raise ActionError(f"'{line}': {seat_s!r} is not a seat (0-3)")
    seat = int(seat_s)
    if verb not in VERBS:
        raise ActionError(f"'{line}': {verb!r} is not a verb (one of {', '.join(VERBS)})")
    rest = "".join(parts[2:])
    if verb in TILE_VERBS:
        if not rest:
            raise ActionError(f"'{line}': {verb} needs a tile")
        try:
            kinds = parse_tiles(rest)
        except TileError as exc:
            raise ActionError(f"'{line}': {exc}") from None
        if len(kinds) != 1:
            raise ActionError(f"'{line}': {verb} takes one tile, got {len(kinds)}")
        return act(seat, verb, kinds[0])
    if verb == EXCHANGE:
        try:
            kinds = parse_tiles(rest)
        except TileError as exc:
            raise ActionError(f"'{line}': {exc}") from None
        if len(kinds) != 3:
            raise ActionError(f"'{line}': exchange takes three tiles, got {len(kinds)}")
        return act(seat, verb, tuple(kinds))
    if verb == VOID:
        r = rest.lower()
        if len(r) != 1 or r not in SUITS:
            raise ActionError(f"'{line}': void takes a suit m, p or s")
        return act(seat, verb, SUITS.index(r))
    if rest:
        raise ActionError(f"'{line}': {verb} takes no tile")
    return act(seat, verb)
