"""Rule-study definitions: the TOML format and its validated Python form.

A study plays the same hands (same wall seeds, same seats, same strategies) under several rule
variants, so that every difference between the variants comes from the rules alone. A study
file (see ``studies/cap-sweep.toml``)::

    name = "cap-sweep"
    hands = 4000              # hands per variant (rounded up to whole duplicate groups)
    seed = 20261202           # base seed: the walls, the same for every variant
    seating = "duplicate"     # as in tournaments
    strategies = ["greedy", "value", "random", "value"]   # the line-up (tournament format)
    base_variant = "max_fan=5"  # the variant the others are compared with (default: the first)

    [rules]                   # the base rules: a preset and overrides shared by every variant
    preset = "leshan"

    [[variants]]              # one variant: overrides of the base rules (any R11 field, docs/rules.md)
    name = "no pig penalty"   # optional; default: the overrides written out, or "base"
    pig_penalty = false

    [[variants]]              # a sweep: a list of values gives one variant per value
    max_fan = [3, 4, 5, 6]    # (several lists: every combination)

``workers``, ``chunk`` and ``output`` mean what they mean in a tournament file. A variant may
name another ``preset``: the base overrides then apply on top of that preset. Fan items are
written ``"fan.terminals" = true`` or ``fan = { terminals = true }``. Unknown keys, unknown rule
fields, empty or repeated sweeps and duplicate variant names are errors naming the field.

    >>> cfg = study_from_dict({"strategies": ["greedy"] * 4, "hands": 8,
    ...                        "variants": [{"max_fan": [4, 5]}, {"name": "chengdu", "preset": "chengdu"}]})
    >>> [v.name for v in cfg.variants], cfg.base_variant
    (['max_fan=4', 'max_fan=5', 'chengdu'], 'max_fan=4')
    >>> cfg.tournament(cfg.variants[2]).build_rules().rules_id
    'chengdu'
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xuezhan.tournament.config import (
    TOURNAMENT_KEYS,
    ConfigError,
    OptionTypeError,
    TournamentConfig,
    config_from_dict,
)

__all__ = [
    "MAX_VARIANTS",
    "StudyConfig",
    "StudyConfigError",
    "StudyOptionTypeError",
    "Variant",
    "load_study",
    "study_from_dict",
]

#: More variants than this is almost surely a sweep written by mistake (a cartesian product).
MAX_VARIANTS = 64
#: The longest folder name of a variant (file systems allow 255 bytes; the slug is ASCII).
MAX_SLUG = 128


class StudyConfigError(ConfigError):
    """A study definition that is not valid; the message names the file and the field."""


class StudyOptionTypeError(StudyConfigError, OptionTypeError):
    """A study field of the wrong type (``True`` or ``4.0`` where an integer is meant)."""


@dataclass(frozen=True)
class Variant:
    """One rule variant: a name and its overrides of the base rules (flat: ``fan.<id>`` keys)."""

    name: str
    overrides: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise StudyConfigError(f"name: expected a non-empty string, got {self.name!r}")
        if len(self.slug) > MAX_SLUG:
            raise StudyConfigError(
                f"name: the variant name {self.name[:40]!r}… is {len(self.name)} characters, too long for the "
                f"name of its folder (at most {MAX_SLUG}): give the variant a shorter name"
            )

    @property
    def slug(self) -> str:
        """A file-name-safe form of the name (the variant's output sub-folder)."""
        s = re.sub(r"[^A-Za-z0-9._=+-]+", "-", self.name).strip("-.")
        return s or "variant"


def _flatten_rules(table: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``{"fan": {"gen": x}}`` → ``{"fan.gen": x}``; other keys unchanged. A fan item is
    switched one way only: ``"fan.gen"`` and ``fan = {gen = ...}`` in one table is an error
    naming both (whichever came last would otherwise win silently)."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if key == "fan":
            if not isinstance(value, Mapping):
                raise StudyConfigError(f"{where}.fan: expected a table of fan items, got {value!r}")
            for item, on in value.items():
                if f"fan.{item}" in table:
                    raise StudyConfigError(
                        f'{where}: the fan item {item!r} is switched twice, by "fan.{item}" = '
                        f"{_value_text(table[f'fan.{item}'])} and by fan = {{ {item} = {_value_text(on)} }}: "
                        "write it once"
                    )
                flat[f"fan.{item}"] = on
        else:
            flat[key] = value
    return flat


def _merge(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The rules table of a variant: the base overrides, then the variant's (flat keys)."""
    merged = dict(base)
    merged.update(overrides)
    return merged


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class StudyConfig(TournamentConfig):
    """A validated study: a tournament (the line-up, hands, seed, seating, workers, chunk,
    output, name and the base rules: every field, check and method of
    :class:`~xuezhan.tournament.config.TournamentConfig`) plus its rule variants and the one
    the others are compared with (default: the first). Build it with :func:`load_study` or
    :func:`study_from_dict`; each variant plays :meth:`tournament`."""

    variants: tuple[Variant, ...] = ()
    base_variant: str = ""

    def __post_init__(self) -> None:
        try:
            super().__post_init__()  # the tournament's fields and checks
        except ConfigError as exc:
            raise _study_error(exc, str(exc)) from None
        if self.hand_logs is not None:
            raise StudyConfigError(
                "hand_logs: a study keeps no hand logs (play one variant as a tournament with --logs)"
            )
        if not isinstance(self.base_variant, str):
            raise StudyOptionTypeError(f"base_variant: expected a variant name, got {self.base_variant!r}")
        if not isinstance(self.variants, tuple) or not all(isinstance(v, Variant) for v in self.variants):
            raise StudyOptionTypeError(f"variants: expected a tuple of Variant, got {self.variants!r}")
        if not self.variants:
            raise StudyConfigError("variants: a study needs at least one variant")
        names = [v.name for v in self.variants]
        for i, n in enumerate(names):
            if n in names[:i]:
                raise StudyConfigError(f"variants[{i}]: the variant name {n!r} is used twice")
        slugs = [v.slug for v in self.variants]
        for i, s in enumerate(slugs):
            if s in slugs[:i]:
                raise StudyConfigError(
                    f"variants[{i}]: the name {names[i]!r} gives the same folder name as {names[slugs.index(s)]!r}"
                )
        if not self.base_variant:
            object.__setattr__(self, "base_variant", names[0])
        elif self.base_variant not in names:
            raise StudyConfigError(
                f"base_variant: {self.base_variant!r} is not a variant (variants: {', '.join(names)})"
            )

    @property
    def base_index(self) -> int:
        return [v.name for v in self.variants].index(self.base_variant)

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    def variant_rules(self, variant: Variant) -> dict[str, Any]:
        """The rules table (preset + overrides) the variant plays."""
        return _merge(_flatten_rules(self.rules, "rules"), variant.overrides)

    def tournament(self, variant: Variant) -> TournamentConfig:
        """The tournament one variant plays: this study's tournament fields (so the same walls
        and seats as every other variant) under the variant's rules, named after it."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(TournamentConfig)}
        try:
            return TournamentConfig(
                **{
                    **fields,
                    "rules": self.variant_rules(variant),
                    "output": None,
                    "name": f"{self.name}/{variant.name}",
                }
            )
        except ConfigError as exc:
            raise _study_error(exc, str(exc)) from None

    def to_dict(self) -> dict[str, Any]:
        """The tournament's fields, the base variant and each variant with its overrides (what
        :meth:`identity` digests, without workers, output and name)."""
        return {
            **super().to_dict(),
            "base_variant": self.base_variant,
            "variants": [{"name": v.name, **dict(v.overrides)} for v in self.variants],
        }


_OWN_KEYS = {"variants", "base_variant"}
_TOP_KEYS = TOURNAMENT_KEYS | _OWN_KEYS


def _study_error(exc: ConfigError, message: str) -> StudyConfigError:
    """``exc`` as a study's error with ``message``, a type error staying one (TypeError too)."""
    return StudyOptionTypeError(message) if isinstance(exc, TypeError) else StudyConfigError(message)


def _variant(name: str, overrides: Mapping[str, Any], where: str) -> Variant:
    try:
        return Variant(name, overrides)
    except StudyConfigError as exc:
        raise StudyConfigError(f"{where}.{exc}") from None


def _expand(entry: Mapping[str, Any], where: str) -> list[Variant]:
    """One ``[[variants]]`` entry → its variants (several for a sweep)."""
    name = entry.get("name")
    if name is not None and not (isinstance(name, str) and name.strip()):
        raise StudyConfigError(f"{where}.name: expected a non-empty string, got {name!r}")
    overrides = _flatten_rules({k: v for k, v in entry.items() if k != "name"}, where)
    swept = {k: v for k, v in overrides.items() if isinstance(v, list)}
    for key, values in swept.items():
        if not values:
            raise StudyConfigError(f"{where}.{key}: a sweep needs at least one value, got []")
        for v in values:
            if isinstance(v, (list, dict)):
                raise StudyConfigError(f"{where}.{key}: a sweep is a list of plain values, got {v!r} in it")
        seen: list[Any] = []
        for v in values:
            if any(v == s and type(v) is type(s) for s in seen):
                raise StudyConfigError(f"{where}.{key}: the sweep repeats the value {_value_text(v)}")
            seen.append(v)
    fixed = {k: v for k, v in overrides.items() if k not in swept}
    if not swept:
        label = name or (", ".join(f"{k}={_value_text(v)}" for k, v in fixed.items()) or "base")
        return [_variant(label, fixed, where)]
    keys = list(swept)
    out = []
    for combo in itertools.product(*(swept[k] for k in keys)):
        point = dict(zip(keys, combo, strict=True))
        text = ", ".join(f"{k}={_value_text(v)}" for k, v in point.items())
        out.append(_variant(f"{name} {text}" if name else text, {**fixed, **point}, where))
    return out


def study_from_dict(data: Mapping[str, Any], *, source: str = "study", base_dir: str | None = None) -> StudyConfig:
    """Validate a parsed study TOML document (or any mapping) into a :class:`StudyConfig`: its
    tournament keys as a tournament file's (:func:`~xuezhan.tournament.config.config_from_dict`;
    ``base_dir``, the file's folder, is where relative ``cmd`` paths and ``module:Class``
    modules are looked up), then the variants."""
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise StudyConfigError(f"{source}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(_TOP_KEYS))})")
    if "variants" not in data:
        raise StudyConfigError(f"{source}: 'variants' is required")
    rules = data.get("rules", {"preset": "leshan"})
    if not isinstance(rules, Mapping):
        raise StudyConfigError(f"{source}: rules: expected a table (preset and overrides), got {rules!r}")
    for key, value in _flatten_rules(rules, f"{source}: rules").items():
        if isinstance(value, list):
            raise StudyConfigError(f"{source}: rules.{key}: a sweep belongs in [[variants]], not in the base rules")
    try:
        base = config_from_dict(
            {"name": "study", **{k: v for k, v in data.items() if k not in _OWN_KEYS}}, source=source, base_dir=base_dir
        )
    except ConfigError as exc:
        raise _study_error(exc, str(exc)) from None
    entries = data["variants"]
    if not isinstance(entries, list) or not entries:
        raise StudyConfigError(
            f"{source}: 'variants' must be a non-empty list of tables ([[variants]]), got {entries!r}"
        )
    variants: list[Variant] = []
    origin: list[str] = []
    for i, entry in enumerate(entries):
        where = f"variants[{i}]"
        if not isinstance(entry, Mapping):
            raise StudyConfigError(f"{source}: {where}: expected a table of rule overrides, got {entry!r}")
        try:
            expanded = _expand(entry, where)
        except StudyConfigError as exc:
            raise _study_error(exc, f"{source}: {exc}") from None
        variants += expanded
        origin += [where] * len(expanded)
    if len(variants) > MAX_VARIANTS:
        raise StudyConfigError(
            f"{source}: variants: {len(variants)} variants (at most {MAX_VARIANTS}); a sweep over "
            "several lists plays every combination"
        )
    base_variant = data.get("base_variant", "")
    if not isinstance(base_variant, str):
        raise StudyConfigError(f"{source}: base_variant: expected a variant name, got {base_variant!r}")
    fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(TournamentConfig)}
    try:
        config = StudyConfig(**fields, variants=tuple(variants), base_variant=base_variant)
    except ConfigError as exc:
        raise _study_error(exc, f"{source}: {exc}") from None
    # Every variant's rules must be valid: name the variant and the field (R11: nothing ignored).
    from xuezhan.rules import RulesError

    try:
        config.tournament(Variant("base", {})).build_rules()
    except RulesError as exc:
        raise StudyConfigError(f"{source}: rules: {exc}") from None
    for v, where in zip(config.variants, origin, strict=True):
        try:
            config.tournament(v).build_rules()
        except RulesError as exc:
            field_name = next((k for k in v.overrides if _names(str(exc), k)), None)
            at = f"{where}.{field_name}" if field_name else where
            raise StudyConfigError(f"{source}: {at} (variant {v.name!r}): {exc}") from None
    return config


def _names(message: str, key: str) -> bool:
    """Whether a rules error message is about the override ``key`` (``fan.<id>`` included)."""
    short = key.removeprefix("fan.")
    return f"'{key}'" in message or f"'{short}'" in message or message.startswith((f"{key} ", f"{key}="))


def load_study(path: str | os.PathLike[str]) -> StudyConfig:
    """Read a study file (TOML; JSON when it ends in ``.json``) through the same bounded reader
    as tournament files (:func:`xuezhan.files.read_document`: a regular file of at most 16 MB,
    UTF-8, bounded nesting); errors name the file and the field."""
    from xuezhan.files import InputFileError, read_document

    p = Path(path)
    try:
        data = read_document(p, what="study file")
    except InputFileError as exc:
        raise StudyConfigError(str(exc)) from None
    data.setdefault("name", p.stem)
    return study_from_dict(data, source=str(p), base_dir=str(p.resolve().parent))
