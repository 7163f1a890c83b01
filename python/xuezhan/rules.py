"""Rule options and presets (docs/rules.md R11).

A :class:`Rules` value holds every option of the R11 table; it is immutable and hashable. The
presets ``leshan`` and ``chengdu`` are TOML files in ``xuezhan/presets/``. Unknown fields are
an error, never ignored (R11)::

    >>> r = Rules.preset("leshan")
    >>> r.max_fan, r.self_draw_bonus, r.fan["terminals"]
    (5, 'none', False)
    >>> r2 = Rules.from_dict({"preset": "leshan", "max_fan": 4, "fan": {"terminals": True}})
    >>> r2.max_fan, r2.fan["terminals"], r2.rules_id != r.rules_id
    (4, True, True)
    >>> r.replace(**{"fan.gen": False}).fan["gen"]
    False
    >>> Rules.from_dict({"max_fans": 4})
    Traceback (most recent call last):
    ...
    xuezhan.rules.RulesError: unknown rules field 'max_fans' (known: preset, max_fan, base, ..., after_win)
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from typing import Any

from xuezhan import _core

__all__ = [
    "Rules",
    "RulesError",
    "RulesTypeError",
    "FanItems",
    "FAN_ITEMS",
    "FAN_NAMES",
    "SHAPE_ITEMS",
    "SITUATIONAL_ITEMS",
    "SELF_DRAW_BONUS",
    "AFTER_WIN",
    "PRESETS",
    "RulesLike",
    "as_rules",
]


class RulesError(ValueError):
    """An unknown field, preset or fan item, or a value of the wrong type or range."""


class RulesTypeError(RulesError, TypeError):
    """``rules`` of a type that cannot be rules (a number, a list...): a :class:`RulesError`
    that is also a ``TypeError``."""


#: Fan item ids (R5) in bit order: ``FAN_ITEMS[i]`` is bit ``i`` of the core's item mask
#: (docs/internals.md). Defined once, in the Rust core (``xuezhan._core.FAN_ITEMS``).
FAN_ITEMS: tuple[str, ...] = _core.FAN_ITEMS
#: Display names of the fan items (R5 table), from the core.
FAN_NAMES: dict[str, str] = dict(zip(_core.FAN_ITEMS, _core.FAN_LABELS, strict=True))
#: Items read from the hand's shape: the only ones in a ready-check value (R7.3); the core's
#: ``SHAPE_MASK``.
SHAPE_ITEMS: frozenset[str] = frozenset(k for i, k in enumerate(FAN_ITEMS) if _core.SHAPE_MASK >> i & 1)
#: Items that depend on how the hand was won (the win context).
SITUATIONAL_ITEMS: frozenset[str] = frozenset(FAN_ITEMS) - SHAPE_ITEMS
#: Values of ``self_draw_bonus`` (R6.2).
SELF_DRAW_BONUS: tuple[str, ...] = ("none", "point", "fan")
#: Values of ``after_win`` (R14): ``leave`` (血战到底, a winner leaves the hand) or ``stay``
#: (血流成河, a winner stays in and may win again).
AFTER_WIN: tuple[str, ...] = ("leave", "stay")

# `self_draw` is not a free switch: it is on exactly when self_draw_bonus == "fan" (R5, R6.2).
_DERIVED_ITEM = "self_draw"
_FREE_ITEMS = tuple(i for i in FAN_ITEMS if i != _DERIVED_ITEM)


class FanItems(Mapping[str, bool]):
    """An immutable, hashable mapping fan item id → enabled, over all 15 ids of R5."""

    __slots__ = ("_d", "_hash", "_mask")
    _d: dict[str, bool]
    _hash: int
    _mask: int

    def __init__(self, items: Mapping[str, bool]) -> None:
        d = {k: bool(items[k]) for k in FAN_ITEMS}
        object.__setattr__(self, "_d", d)
        object.__setattr__(self, "_hash", hash(tuple(d.values())))
        object.__setattr__(self, "_mask", sum(1 << i for i, k in enumerate(FAN_ITEMS) if d[k]))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("FanItems is immutable")

    def __getitem__(self, key: str) -> bool:
        try:
            return self._d[key]
        except KeyError:
            raise KeyError(f"unknown fan item {key!r} (known: {', '.join(FAN_ITEMS)})") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FanItems):
            return self._d == other._d
        if isinstance(other, Mapping):
            return dict(self._d) == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        on = [k for k, v in self._d.items() if v]
        return f"FanItems(on={on})"

    def __reduce__(self) -> tuple:
        return (FanItems, (dict(self._d),))

    @property
    def mask(self) -> int:
        """Bit mask of the enabled items (bit i = ``FAN_ITEMS[i]``)."""
        return self._mask

    def enabled(self) -> list[str]:
        """Ids of the enabled items, in bit order."""
        return [k for k in FAN_ITEMS if self._d[k]]


_INT_RANGES: dict[str, tuple[int, int]] = {
    "max_fan": (1, 16),  # points = base × 2^(fan−1) (R0); 16 keeps every value exact in a u64
    "base": (1, 1_000_000),
    "escape_penalty": (0, 1_000_000),
    "max_timeouts": (0, 1_000_000),
}
_FLOAT_RANGES: dict[str, tuple[float, float]] = {
    "turn_timeout": (0.001, 86_400.0),
    "claim_timeout": (0.001, 86_400.0),
}
_BOOL_FIELDS = (
    "rob_kong",
    "pass_win_lock",
    "last_tiles_forced",
    "kong_transfer",
    "kong_draw_discarder_pays",
    "pig_penalty",
    "kong_refund",
    "declare_void",
    "exchange_three",
)


class _PresetAccessor:
    """``Rules.preset(name)`` loads a preset; ``rules.preset`` is the name of the value's preset."""

    def __init__(self, func: Any) -> None:
        self.func = func
        self.__doc__ = func.__doc__

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        if obj is None:
            return self.func.__get__(cls, type(cls))
        return obj.preset_name


# Presets are package data beside this module (pyproject's maturin `include` ships them in
# the wheel). Plain os.path keeps `import xuezhan` fast (no importlib.resources).
_PRESET_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "presets")
#: The preset a bare ``Rules()`` (and a ``from_dict`` without ``preset``) starts from.
DEFAULT_PRESET = "leshan"


@cache
def _read_preset_file(name: str) -> dict[str, Any]:
    """The TOML table of a shipped preset: the only place preset values are written."""
    import tomllib

    with open(os.path.join(_PRESET_DIR, f"{name}.toml"), "rb") as f:
        return tomllib.load(f)


_DEFAULTS = _read_preset_file(DEFAULT_PRESET)


def _default_fan() -> FanItems:
    return FanItems({**_DEFAULTS["fan"], _DERIVED_ITEM: _DEFAULTS["self_draw_bonus"] == "fan"})


@dataclass(frozen=True)
class Rules:
    """Every rule option of docs/rules.md R11. Defaults are the ``leshan`` preset (read from its TOML file).

    Build one with :meth:`preset`, :meth:`from_dict`, :meth:`from_toml` or :meth:`replace`;
    ``preset`` records the preset it was derived from.
    """

    # Defaults: the values of presets/leshan.toml (the TOML files are the only copy).
    preset_name: str = DEFAULT_PRESET  # the preset these rules were derived from (also ``rules.preset``)
    max_fan: int = _DEFAULTS["max_fan"]  # R0 cap (极品)
    base: int = _DEFAULTS["base"]  # R0 points of a 1-fan win
    self_draw_bonus: str = _DEFAULTS["self_draw_bonus"]  # R6.2: none | point | fan
    rob_kong: bool = _DEFAULTS["rob_kong"]  # R3.3
    pass_win_lock: bool = _DEFAULTS["pass_win_lock"]  # R4.3
    last_tiles_forced: bool = _DEFAULTS["last_tiles_forced"]  # R4.4
    kong_transfer: bool = _DEFAULTS["kong_transfer"]  # R6.5
    kong_draw_discarder_pays: bool = _DEFAULTS["kong_draw_discarder_pays"]  # R6.3
    pig_penalty: bool = _DEFAULTS["pig_penalty"]  # R7.2
    kong_refund: bool = _DEFAULTS["kong_refund"]  # R7.5
    declare_void: bool = _DEFAULTS["declare_void"]  # R11.2
    exchange_three: bool = _DEFAULTS["exchange_three"]  # R11.1
    fan: FanItems = field(default_factory=_default_fan)  # R5 items on/off
    escape_penalty: int = _DEFAULTS["escape_penalty"]  # R8, in units of base
    turn_timeout: float = _DEFAULTS["turn_timeout"]  # R10.1, seconds
    claim_timeout: float = _DEFAULTS["claim_timeout"]  # R10.2, seconds
    max_timeouts: int = _DEFAULTS["max_timeouts"]  # R10.3, per match
    after_win: str = _DEFAULTS["after_win"]  # R14: leave (血战到底) | stay (血流成河)

    # ------------------------------------------------------------------ validation
    def __post_init__(self) -> None:
        if not isinstance(self.preset_name, str) or not self.preset_name:
            raise RulesError(f"preset {self.preset_name!r} is not a preset name")
        for name, (lo, hi) in _INT_RANGES.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise RulesError(f"{name} = {v!r} is not an integer")
            if not lo <= v <= hi:
                raise RulesError(f"{name} = {v!r} is out of range ({lo}-{hi})")
        for name, (flo, fhi) in _FLOAT_RANGES.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise RulesError(f"{name} = {v!r} is not a number of seconds")
            if not flo <= v <= fhi:
                raise RulesError(f"{name} = {v!r} is out of range (more than 0, at most {fhi:g} seconds)")
            object.__setattr__(self, name, float(v))
        for name in _BOOL_FIELDS:
            v = getattr(self, name)
            if not isinstance(v, bool):
                raise RulesError(f"{name} = {v!r} is not true or false")
        if self.self_draw_bonus not in SELF_DRAW_BONUS:
            raise RulesError(f"self_draw_bonus = {self.self_draw_bonus!r} is not one of {', '.join(SELF_DRAW_BONUS)}")
        if self.after_win not in AFTER_WIN:
            raise RulesError(f"after_win = {self.after_win!r} is not one of {', '.join(AFTER_WIN)} (R14)")
        object.__setattr__(self, "fan", self._check_fan(self.fan))

    def _check_fan(self, fan: object) -> FanItems:
        if not isinstance(fan, Mapping):
            raise RulesError(f"fan = {fan!r} is not a table of fan items (item id = true/false)")
        derived = self.self_draw_bonus == "fan"
        if isinstance(fan, FanItems):
            # A FanItems always holds all ids; re-derive self_draw from self_draw_bonus (R6.2).
            items = {k: fan[k] for k in _FREE_ITEMS}
        else:
            items = {}
            for k, v in fan.items():
                if k not in FAN_ITEMS:
                    raise RulesError(f"unknown fan item {k!r} (known: {', '.join(FAN_ITEMS)})")
                if not isinstance(v, bool):
                    raise RulesError(f"fan.{k} = {v!r} is not true or false")
                if k == _DERIVED_ITEM:
                    if v != derived:
                        raise RulesError(
                            f"fan.self_draw = {v!r} contradicts self_draw_bonus = {self.self_draw_bonus!r}: "
                            'the self_draw item is on exactly when self_draw_bonus = "fan" (R6.2)'
                        )
                    continue
                items[k] = v
            missing = [k for k in _FREE_ITEMS if k not in items]
            if missing:
                base = self.preset_name if self.preset_name in PRESETS else DEFAULT_PRESET
                defaults = _load_preset(base).fan
                for k in missing:
                    items[k] = defaults[k]
        items[_DERIVED_ITEM] = derived
        return FanItems(items)

    # ------------------------------------------------------------------ constructors
    @_PresetAccessor
    def preset(cls, name: str = DEFAULT_PRESET) -> Rules:
        """The preset ``name`` (``leshan`` or ``chengdu``), loaded from ``xuezhan/presets/``.

        On the class it loads a preset; on a value, ``rules.preset`` is the preset's name.

        >>> Rules.preset("chengdu").declare_void, Rules.preset("chengdu").preset
        (True, 'chengdu')
        """
        return _load_preset(name)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rules from ``{"preset": name, **overrides}``; the preset defaults to ``leshan``.

        Overrides may use a nested ``"fan": {...}`` table (merged into the preset's items) or
        ``"fan.<id>"`` keys.

        >>> Rules.from_dict({"preset": "chengdu", "fan.terminals": False}).fan["terminals"]
        False
        """
        if isinstance(data, Rules):
            return data
        if not isinstance(data, Mapping):
            raise RulesTypeError(f"rules must be a table of options, got {data!r}")
        d = dict(data)
        name = d.pop("preset", DEFAULT_PRESET)
        if not isinstance(name, str):
            raise RulesTypeError(f"preset = {name!r} is not a preset name (presets: {', '.join(PRESETS)})")
        bad = [k for k in d if not isinstance(k, str)]
        if bad:
            raise RulesTypeError(f"rules field names must be strings, got {bad[0]!r}")
        return cls.preset(name).replace(**d)

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> Rules:
        """Rules from a TOML file: ``preset = "leshan"`` plus overrides, e.g. a ``[fan]`` table.

        A file whose only top-level key is a ``[rules]`` table is read from that table.
        """
        import tomllib

        from xuezhan.files import InputFileError, read_text

        try:
            data = tomllib.loads(read_text(path, what="rules file"))
        except InputFileError as exc:
            raise RulesError(str(exc)) from None
        except tomllib.TOMLDecodeError as exc:
            raise RulesError(f"rules file {os.fspath(path)!r} is not valid TOML: {exc}") from None
        if set(data) == {"rules"} and isinstance(data["rules"], dict):
            data = data["rules"]
        try:
            return cls.from_dict(data)
        except RulesError as exc:
            raise RulesError(f"{os.fspath(path)}: {exc}") from None

    def replace(self, **overrides: Any) -> Rules:
        """A copy with some options changed; ``fan={...}`` merges, ``**{"fan.gen": False}`` too.

        >>> Rules.preset("leshan").replace(max_fan=6, fan={"concealed": True}).fan.enabled()[-1]
        'concealed'
        """
        changes: dict[str, Any] = {}
        fan_changes: dict[str, Any] = {}
        for key, value in overrides.items():
            if key.startswith("fan."):
                fan_changes[key[4:]] = value
            elif key == "fan":
                if not isinstance(value, Mapping):
                    raise RulesError(f"fan = {value!r} is not a table of fan items (item id = true/false)")
                for item in value:
                    if f"fan.{item}" in overrides:  # one way to switch an item, never a silent winner
                        raise RulesError(
                            f"fan item {item!r} is switched twice, by 'fan.{item}' and by the fan table: write it once"
                        )
                fan_changes.update(value)
            elif key in ("preset", "preset_name"):
                raise RulesError(
                    f"preset = {value!r} cannot be replaced on a Rules value; use Rules.from_dict"
                    '({"preset": ..., ...}) to start from another preset'
                )
            elif key in _FIELD_NAMES:
                changes[key] = value
            else:
                raise RulesError(f"unknown rules field {key!r} (known: {', '.join(_KEYS)})")
        if fan_changes or "self_draw_bonus" in changes:
            fan = {k: self.fan[k] for k in _FREE_ITEMS}
            for k, v in fan_changes.items():
                if k not in FAN_ITEMS:
                    raise RulesError(f"unknown fan item {k!r} (known: {', '.join(FAN_ITEMS)})")
                fan[k] = v
            changes["fan"] = fan
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------------ views
    def to_dict(self) -> dict[str, Any]:
        """A plain dict (TOML/JSON-ready) that :meth:`from_dict` turns back into these rules.

        The ``fan`` table omits ``self_draw``, which follows ``self_draw_bonus``.
        """
        out: dict[str, Any] = {"preset": self.preset_name}
        for f in dataclasses.fields(self):
            if f.name == "preset_name":
                continue
            v = getattr(self, f.name)
            if f.name == "fan":
                v = {k: v[k] for k in _FREE_ITEMS}
            out[f.name] = v
        return out

    @property
    def stay(self) -> bool:
        """``after_win = "stay"`` (血流成河, R14): winners stay in the hand."""
        return self.after_win == "stay"

    @property
    def rules_id(self) -> str:
        """A stable short id: the preset name if these are exactly a preset, else
        ``<preset>-<8 hex digits>`` hashed over every option value (not the preset label).

        >>> Rules.preset("leshan").rules_id
        'leshan'
        >>> Rules.preset("leshan").replace(max_fan=6).rules_id.startswith("leshan-")
        True
        """
        return _rules_id(self)

    @cached_property
    def core(self) -> Any:
        """The ``xuezhan._core.CoreRules`` for the hand evaluator (built once per value).

        A cache, not a field (eq/hash/repr ignore it); once built it is a plain instance
        attribute, so the evaluator's hot path reads it without a descriptor call.
        """
        return _core_rules(self.max_fan, self.base, self.fan.mask, self.self_draw_bonus == "fan")

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("core", None)  # rebuilt on first use after unpickling
        return state

    @property
    def fan_mask(self) -> int:
        """Enabled fan items as a bit mask (bit i = ``FAN_ITEMS[i]``)."""
        return self.fan.mask

    def points(self, fan: int) -> int:
        """Points of a win of ``fan`` fan: ``base × 2^(min(fan, max_fan) − 1)`` (R0).

        >>> Rules.preset("leshan").points(7)
        16
        """
        capped = max(1, min(int(fan), self.max_fan))
        return self.base << (capped - 1)

    @property
    def max_points(self) -> int:
        """The capped maximum ``base × 2^(max_fan − 1)`` (R7.2 pig penalty)."""
        return self.base << (self.max_fan - 1)

    def __repr__(self) -> str:
        return f"Rules({self.rules_id!r})"


_FIELD_NAMES = tuple(f.name for f in dataclasses.fields(Rules) if f.name != "preset_name")
_KEYS = ("preset",) + _FIELD_NAMES


def _discover_presets() -> tuple[str, ...]:
    try:
        return tuple(sorted(n[:-5] for n in os.listdir(_PRESET_DIR) if n.endswith(".toml")))
    except OSError:  # pragma: no cover - broken install
        return ()


#: Names of the shipped presets.
PRESETS: tuple[str, ...] = _discover_presets()


@cache
def _load_preset(name: str) -> Rules:
    if not isinstance(name, str) or name not in PRESETS:
        raise RulesError(f"unknown preset {name!r} (presets: {', '.join(PRESETS)})")
    data = dict(_read_preset_file(name))
    unknown = set(data) - set(_FIELD_NAMES)
    missing = set(_FIELD_NAMES) - set(data)
    fan = data.get("fan", {})
    if unknown or missing or set(fan) != set(_FREE_ITEMS):
        raise RulesError(f"preset file {name}.toml is incomplete or has unknown fields")  # pragma: no cover
    try:
        return Rules(preset_name=name, **data)
    except RulesError as exc:  # pragma: no cover - a broken preset file
        raise RulesError(f"preset {name}: {exc}") from None


#: Options added later, with the value that means the rules as they were before them (R14).
_LATER_OPTIONS: dict[str, Any] = {"after_win": "leave"}
#: Fan items added later: hashed only when on.
_LATER_ITEMS: tuple[str, ...] = ("middle_five",)


@lru_cache(maxsize=256)
def _rules_id(rules: Rules) -> str:
    import hashlib
    import json

    d = rules.to_dict()
    name = d.pop("preset")
    if name in PRESETS and _load_preset(name) == rules:
        return name
    # Options added after ids were first written are hashed only when set away from what the
    # rules meant before they existed, so every earlier id (and every stored result) stands.
    for key, before in _LATER_OPTIONS.items():
        if d.get(key) == before:
            del d[key]
    for item in _LATER_ITEMS:
        if not d["fan"].get(item):
            del d["fan"][item]
    digest = hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:8]
    return f"{name}-{digest}"


@lru_cache(maxsize=256)
def _core_rules(max_fan: int, base: int, items: int, self_draw_fan: bool) -> Any:
    return _core.CoreRules(max_fan, base, items, self_draw_fan)


#: Anything :func:`as_rules` accepts.
RulesLike = Rules | str | Mapping[str, Any] | None


def as_rules(rules: RulesLike) -> Rules:
    """A :class:`Rules` from a Rules value, a preset name, a path to a ``.toml`` file, a dict, or
    None (``leshan``).

    >>> as_rules("chengdu").max_fan, as_rules({"max_fan": 3}).max_fan, as_rules(None).preset_name
    (4, 3, 'leshan')
    """
    if rules.__class__ is Rules:  # the hot case: every evaluator call passes through here
        return rules
    if rules is None:
        return _load_preset(DEFAULT_PRESET)
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, (str, os.PathLike)):
        s = os.fspath(rules)
        if s in PRESETS:
            return _load_preset(s)
        if s.endswith(".toml") or os.sep in s or os.path.exists(s):
            return Rules.from_toml(s)
        raise RulesError(f"unknown preset {s!r} (presets: {', '.join(PRESETS)}; or give a .toml file)")
    if isinstance(rules, Mapping):
        return Rules.from_dict(rules)
    raise RulesTypeError(f"rules: {rules!r} is not rules: give a Rules value, a preset name, a .toml file or a dict")
