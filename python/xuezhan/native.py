"""Native whole-hand play: hands of built-in strategies played in Rust, byte for byte as the
Python engine plays them.

The Python round engine (:mod:`xuezhan.engine`) is the specification and plays every hand in
which a person, an external program or a clock takes part. This module is the accelerator for
the bulk work where nobody waits: whole hands of the built-in strategies ``random``,
``greedy``, ``value`` and ``expert`` under any rules the Python engine plays (but a clock of less than
:data:`MIN_TIMEOUT` seconds), in batches across cores with the GIL released. Tournaments and
studies take it on their own (``engine = "auto"``); the differential tests
(``tests/test_native_differential.py``) play thousands of hands both ways and compare every
result row and every log line.

    >>> import numpy as np
    >>> from xuezhan import native
    >>> t = native.play("leshan", np.arange(3), ["random", "greedy", "value", "value"])
    >>> t.num_rows, t.column_names[:4]
    (12, ['hand', 'seed', 'seat', 'entry'])
    >>> sum(t.column("delta").to_pylist()[:4])  # R12.2: a hand's points balance
    0

A hand of the batch is dealt from its seed with the dealer drawn from it (R1.4, R9.1), exactly
as a tournament deals hand ``i`` from its wall seed; ``seatings[i][s]`` names the line-up entry
in seat ``s`` (default: entry ``s``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import pyarrow as pa

from xuezhan import _core
from xuezhan.rules import FAN_ITEMS, Rules, RulesLike, as_rules
from xuezhan.tiles import TILE_STR

__all__ = [
    "ENGINES",
    "from_round",
    "round_state",
    "MIN_TIMEOUT",
    "NATIVE_STRATEGIES",
    "Entry",
    "NativeUnsupported",
    "lineup",
    "native_rules",
    "play",
    "play_columns",
    "string_column",
    "STRING_COLUMNS",
    "unsupported_rules",
    "unsupported_strategy",
]

#: The engines a tournament or study may ask for (``engine`` in the TOML, ``--engine``).
ENGINES = ("auto", "native", "python")
#: The built-in strategies the native engine plays.
NATIVE_STRATEGIES = ("random", "greedy", "value", "expert")
#: The shortest decision time (R10) the native engine plays under, in seconds. It has no clock:
#: a built-in decision takes microseconds, so under a limit of a second or more the Python
#: engine never times one out either; under a shorter one the Python engine's results depend on
#: the machine's speed, and only it can play them.
MIN_TIMEOUT = 1.0
#: Why a hand ended, by the native code (0, 1, 2).
END_REASONS = ("wall", "three_won", "escape")
#: The rule ids the native engine fires, in bit order (the Python registry's, tested).
FIRED_IDS: tuple[str, ...] = _core.NATIVE_FIRED


class NativeUnsupported(ValueError):
    """A line-up entry or a rule option the native engine does not play; the message names it."""


def unsupported_rules(rules: Rules) -> str | None:
    """Why the native engine cannot play ``rules`` (naming the option), or None.

    >>> unsupported_rules(as_rules("xueliu")) is None
    True
    >>> unsupported_rules(as_rules({"turn_timeout": 0.5}))
    'turn_timeout = 0.5 (the native engine has no clock: it plays decision limits of 1 s or more)'
    """
    for name in ("turn_timeout", "claim_timeout"):
        value = getattr(rules, name)
        if value < MIN_TIMEOUT:
            limit = f"{MIN_TIMEOUT:g} s"
            return f"{name} = {value:g} (the native engine has no clock: it plays decision limits of {limit} or more)"
    return None


def unsupported_strategy(strategy: str | None, options: Mapping[str, Any]) -> str | None:
    """Why the native engine cannot play a line-up entry (a built-in name with its options, or
    anything else), or None.

    >>> unsupported_strategy("value", {"defence": False}) is None
    True
    >>> unsupported_strategy("search", {})
    "'search' is not a strategy the native engine plays (random, greedy, value, expert)"
    """
    if strategy not in NATIVE_STRATEGIES:
        what = repr(strategy) if strategy is not None else "an external bot (cmd)"
        return f"{what} is not a strategy the native engine plays ({', '.join(NATIVE_STRATEGIES)})"
    try:
        _core.NativeLineup([_entry_tuple(Entry(strategy, options))])
    except ValueError as exc:
        return str(exc).removeprefix("NativeLineup: ")
    return None


def native_rules(rules: Rules, *, timed: bool = True) -> Any:
    """The native engine's copy of ``rules`` (every option of play and settlement). ``timed``:
    the hands it plays stand for hands played under the rules' clock (a tournament's), so a
    limit shorter than :data:`MIN_TIMEOUT` is :class:`NativeUnsupported` naming it; play-outs
    (a search's, a review's) are untimed in either engine and take any rules."""
    if timed:
        why = unsupported_rules(rules)
        if why is not None:
            raise NativeUnsupported(f"the native engine cannot play {why}")
    return _untimed_rules(rules)


@lru_cache(maxsize=64)
def _untimed_rules(rules: Rules) -> Any:
    return _core.NativeRules(
        core=rules.core,
        self_draw_bonus=rules.self_draw_bonus,
        rob_kong=rules.rob_kong,
        pass_win_lock=rules.pass_win_lock,
        last_tiles_forced=rules.last_tiles_forced,
        kong_transfer=rules.kong_transfer,
        kong_draw_discarder_pays=rules.kong_draw_discarder_pays,
        pig_penalty=rules.pig_penalty,
        kong_refund=rules.kong_refund,
        declare_void=rules.declare_void,
        exchange_three=rules.exchange_three,
        escape_penalty=rules.escape_penalty,
        after_win=rules.after_win,
    )


@dataclass(frozen=True)
class Entry:
    """One line-up entry: a built-in strategy's name and its options (``seed`` among them, as a
    tournament file gives it: it is mixed into each hand's seed of a ``random`` seat)."""

    strategy: str
    options: Mapping[str, Any] = field(default_factory=dict)


def _entry_tuple(e: Entry) -> tuple[str, dict[str, Any], str]:
    options = dict(e.options)
    seed = options.pop("seed", "")
    return (e.strategy, options, str(seed))


def lineup(entries: Sequence[str | Entry]) -> Any:
    """The native line-up of ``entries`` (names or :class:`Entry` values); an entry the native
    engine does not play is :class:`NativeUnsupported` naming it."""
    es = [Entry(e) if isinstance(e, str) else e for e in entries]
    for i, e in enumerate(es):
        why = unsupported_strategy(e.strategy, e.options)
        if why is not None:
            raise NativeUnsupported(f"line-up entry {i}: {why}")
    return _core.NativeLineup([_entry_tuple(e) for e in es])


#: The results' string columns, which the engine returns dictionary-encoded (per row a code
#: into the column's distinct values).
STRING_COLUMNS = ("fan_items", "end", "fired")


def _dictionary(cols: Mapping[str, Any], name: str) -> pa.DictionaryArray:
    """String column ``name`` of the engine's columns, dictionary-encoded."""
    return pa.DictionaryArray.from_arrays(cols[f"{name}_codes"], pa.array(cols[f"{name}_names"], pa.string()))


def string_column(cols: Mapping[str, Any], name: str, type: pa.DataType | None = None) -> pa.Array:
    """String column ``name`` (one of :data:`STRING_COLUMNS`) of :func:`play_columns`'s columns, as
    plain strings of ``type`` (``string``, the default, or ``large_string``: what a results table
    holds)."""
    return pa.array(cols[f"{name}_names"], type or pa.string()).take(cols[f"{name}_codes"])


def play_columns(
    rules: RulesLike,
    seeds: Sequence[int] | np.ndarray,
    entries: Sequence[str | Entry] | Any,
    *,
    seatings: np.ndarray | None = None,
    threads: int = 1,
    logs: bool = False,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """:func:`play`'s hands as the engine returns them: the seeds and the seatings as arrays, and
    the columns (numpy arrays, one row per (hand, seat); per hand ``end`` and ``fired``; the
    string columns :data:`STRING_COLUMNS` as ``{name}_codes`` and ``{name}_names``, see
    :func:`string_column`; with ``logs``, ``lines``). The tournament's chunk player builds its
    table from them directly.

        >>> seeds, seatings, cols = play_columns("leshan", [5], ["random"] * 4)
        >>> seatings.tolist(), len(cols["delta"]), string_column(cols, "end").to_pylist()[0] in END_REASONS
        ([[0, 1, 2, 3]], 4, True)
    """
    r = as_rules(rules)
    nr = native_rules(r)
    lu = entries if isinstance(entries, _core.NativeLineup) else lineup(entries)
    seed_arr = np.ascontiguousarray(np.asarray(seeds, dtype=np.int64))
    if seed_arr.ndim != 1:
        raise ValueError(f"seeds: expected a list of integers, got an array of shape {seed_arr.shape}")
    n = len(seed_arr)
    if seatings is None:
        seat_arr = np.tile(np.arange(4, dtype=np.uint8), (n, 1))
    else:
        seat_arr = np.ascontiguousarray(np.asarray(seatings, dtype=np.uint8))
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        raise ValueError(f"threads: expected a positive integer, got {threads!r}")
    cols = _core.play_hands(nr, lu, seed_arr, seat_arr, threads=threads, logs=logs)
    return seed_arr, seat_arr, cols


def play(
    rules: RulesLike,
    seeds: Sequence[int] | np.ndarray,
    entries: Sequence[str | Entry] | Any,
    *,
    seatings: np.ndarray | None = None,
    threads: int = 1,
    logs: bool = False,
) -> pa.Table:
    """Play one hand per seed natively and return one row per (hand, seat).

    ``rules``: anything :func:`~xuezhan.rules.as_rules` takes; ``seeds``: the hands' seeds
    (63-bit integers); ``entries``: the line-up (four built-in names or :class:`Entry`
    values, or a :func:`lineup`); ``seatings``: ``(len(seeds), 4)`` entry indices per seat
    (default: entry ``s`` in seat ``s``); ``threads``: worker threads (the GIL is released;
    hands are spread across them and the table is the same for any count); ``logs``: add a
    ``log`` column holding each hand's event lines (on its first row, the engine's log without
    its header; see :mod:`xuezhan.engine.log`).

    Columns: ``hand`` (index into ``seeds``), ``seed``, ``seat``, ``entry``, and the result
    columns of a tournament's table (:mod:`xuezhan.tournament.results`): ``dealer``,
    ``delta``, ``won``, ``wins``, ``win_order``, ``self_draw``, ``fan``, ``fan_items``,
    ``dealt_in``, ``kongs``, ``pig``, ``checked``, ``ready``, ``escape``, ``end``,
    ``fired`` (the strings dictionary-encoded).
    """
    seed_arr, seat_arr, cols = play_columns(rules, seeds, entries, seatings=seatings, threads=threads, logs=logs)
    n = len(seed_arr)
    hand = np.repeat(np.arange(n, dtype=np.int64), 4)
    arrays: dict[str, Any] = {
        "hand": hand,
        "seed": np.repeat(seed_arr, 4),
        "seat": np.tile(np.arange(4, dtype=np.int8), n),
        "entry": seat_arr.reshape(-1).astype(np.int8),
    }
    for name in ("dealer", "delta", "won", "wins", "win_order", "self_draw", "fan"):
        arrays[name] = cols[name]
    arrays["fan_items"] = _dictionary(cols, "fan_items")
    for name in ("dealt_in", "kongs", "pig", "checked", "ready", "escape"):
        arrays[name] = cols[name]
    arrays["end"] = _dictionary(cols, "end")
    arrays["fired"] = _dictionary(cols, "fired")
    if logs:
        lines = cols["lines"]
        arrays["log"] = pa.array([lines[i // 4] if i % 4 == 0 else None for i in range(4 * n)], pa.list_(pa.string()))
    return pa.table(arrays)


_DIRECTION_INDEX = {"next": 0, "prev": 1, "across": 2}
_FIRED_BIT = {rule_id: i for i, rule_id in enumerate(FIRED_IDS)}
_ITEM_BIT = {item: i for i, item in enumerate(FAN_ITEMS)}
_KIND = {name: k for k, name in enumerate(TILE_STR)}


def _action(a: Any) -> tuple[int, str, Any]:
    return (a.seat, a.verb, a.arg)


def from_round(rnd: Any, *, record: bool = False) -> Any:
    """The native engine's copy of a Python :class:`~xuezhan.engine.Round` at its pending
    decision (a round being played, or a determinized sample): its wall, seats, turn and
    ledger, to be played on natively (``play_out``, ``rollouts``); ``record``: keep the events
    from here on (``events()``). What it plays from there is untimed, so any rules do.

        >>> from xuezhan.engine import Round
        >>> r = Round.from_seed("leshan", 3, dealer=0)
        >>> h = from_round(r)
        >>> h.cur == r.turn.cur, h.legal() == [(a.seat, a.verb, a.arg) for a in r.turn.legal]
        (True, True)
    """
    return _core.NativeHand.from_state(native_rules(rnd.rules, timed=False), round_state(rnd), record)


def round_state(rnd: Any) -> dict[str, Any]:
    """The state of a Python round as :func:`from_round` hands it to the native engine (plain
    values: bytes, ints, tuples), in the layout ``NativeHand.from_state`` reads."""
    wall, seats, turn, ledger = rnd.wall, rnd.seats, rnd.turn, rnd.ledger
    kongs = ledger.kongs

    def kong_index(rec: Any) -> int | None:
        if rec is None:
            return None
        for i, k in enumerate(kongs):
            if k is rec:
                return i
        raise ValueError("from_round: the turn's kong is not one of the ledger's kongs")

    last = [-1, -1, -1, -1]
    discarded = [bytearray(27) for _ in range(4)]
    for e in ledger.events:  # public: every seat saw every discard, claimed ones too
        if e.type == "discard":
            k = _KIND[e.tile]
            last[e.seat] = k
            discarded[e.seat][k] += 1
    f = turn.flags
    w = turn.claims
    claims = None
    if w is not None:
        meld = None if w.meld is None else (w.meld[0], w.meld[1] == "gang")
        claims = (
            *(w.tile, w.frm, w.robbing, w.ctx, kong_index(w.kong)),
            *(list(w.queue), w.asked, list(w.hu), meld, list(w.fan)),
        )
    state = {
        "dealer": rnd.dealer,
        "exchange": None if rnd.exchange_dir is None else _DIRECTION_INDEX[rnd.exchange_dir],
        "wall": {"tiles": bytes(wall.tiles), "dealt": bytes(wall.dealt), "pos": wall.pos, "seen": bytes(wall.seen)},
        "seats": {
            "counts": [bytes(c) for c in seats.counts],
            "melds": [bytes(m) for m in seats.melds],
            "meld_from": [list(m) for m in seats.meld_from],
            "river": [bytes(r) for r in seats.river],
            "aside": [bytes(a) for a in seats.aside],
            "won": list(seats.won),
            "escaped": list(seats.escaped),
            "active": list(seats.active),
            "void": list(seats.void),
            "mask": list(seats.mask),
            "lock": list(seats.lock),
            "voids_known": seats.voids_known,
            "last_discard": last,
            "discarded": [bytes(d) for d in discarded],
        },
        "turn": {
            "phase": int(turn.phase),
            "cur": turn.cur,
            "legal": [_action(a) for a in turn.legal],
            "discard_mask": turn.discard_mask,
            "drawn": turn.drawn,
            "flags": (f.replacement, f.last_tile, f.after_peng, f.heaven, kong_index(f.kong)),
            "any_claim": turn.any_claim,
            "first_drawn": list(turn.first_drawn),
            "claim_group": turn.claim_group,
            "claims": claims,
            "last_phase": turn.last_phase,
            "x_choice": list(turn.x_choice),
            "v_choice": list(turn.v_choice),
        },
        "ledger": {
            "deltas": list(ledger.deltas),
            "fired": sum(1 << _FIRED_BIT[x] for x in ledger.fired),
            "defaults_used": ledger.defaults_used,
            "wins": [
                (
                    x.seat,
                    x.frm,
                    _KIND[x.tile],
                    x.fan,
                    x.raw_fan,
                    x.points,
                    [(_ITEM_BIT[k], v) for k, v in x.items.items()],
                    x.how,
                    x.forced,
                    x.group,
                )
                for x in ledger.wins
            ],
            "kongs": [(k.seat, k.kind, k.how, k.frm, list(k.pay), k.transferred, k.refunded) for k in kongs],
        },
    }
    return state
