"""R11 options and presets; R5 table columns for the fan items each preset has on."""

from __future__ import annotations

import pickle
import tomllib
from pathlib import Path

import pytest

from xuezhan.rules import FAN_ITEMS, PRESETS, SHAPE_ITEMS, Rules, RulesError, as_rules

# R11 table, column by column.
R11 = {
    "leshan": dict(
        max_fan=5,
        base=1,
        self_draw_bonus="none",
        rob_kong=True,
        pass_win_lock=True,
        last_tiles_forced=True,
        kong_transfer=True,
        kong_draw_discarder_pays=True,
        pig_penalty=True,
        kong_refund=True,
        declare_void=False,
        exchange_three=False,
        escape_penalty=50,
        turn_timeout=10,
        claim_timeout=10,
        max_timeouts=3,
        after_win="leave",
    ),
    "chengdu": dict(
        max_fan=4,
        base=1,
        self_draw_bonus="point",
        rob_kong=True,
        pass_win_lock=True,
        last_tiles_forced=False,
        kong_transfer=True,
        kong_draw_discarder_pays=True,
        pig_penalty=True,
        kong_refund=True,
        declare_void=True,
        exchange_three=True,
        escape_penalty=50,
        turn_timeout=10,
        claim_timeout=10,
        max_timeouts=3,
        after_win="leave",
    ),
}
# R11: xueliu (血流成河) is chengdu with winners staying in the hand (R14).
R11["xueliu"] = {**R11["chengdu"], "after_win": "stay"}
# R5 table: the items each preset has on (self_draw follows self_draw_bonus: off in both).
R5_ON = {
    "leshan": {
        "all_triplets",
        "one_suit",
        "seven_pairs",
        "gen",
        "single_wait_melded",
        "kong_draw",
        "kong_discard",
        "robbing_kong",
        "last_tile",
    },
    "chengdu": {
        "all_triplets",
        "one_suit",
        "seven_pairs",
        "gen",
        "single_wait_melded",
        "kong_draw",
        "kong_discard",
        "robbing_kong",
        "last_tile",
        "terminals",
        "pairs_258",
        "heaven_earth",
    },
}
R5_ON["xueliu"] = R5_ON["chengdu"]


@pytest.mark.parametrize("name", ["leshan", "chengdu", "xueliu"])
def test_r11_preset_table(name):
    r = Rules.preset(name)
    for key, value in R11[name].items():
        assert getattr(r, key) == value, key
    assert r.preset == name and r.rules_id == name


@pytest.mark.parametrize("name", ["leshan", "chengdu", "xueliu"])
def test_r5_preset_fan_columns(name):
    r = Rules.preset(name)
    assert set(r.fan) == set(FAN_ITEMS) and len(r.fan) == 16
    assert {k for k, v in r.fan.items() if v} == R5_ON[name]


def test_r11_presets_shipped_as_toml_in_the_package():
    assert set(PRESETS) == {"leshan", "chengdu", "xueliu"}
    root = Path(__import__("xuezhan").__file__).parent / "presets"
    for name in PRESETS:
        data = tomllib.loads((root / f"{name}.toml").read_text())
        assert Rules.from_dict({"preset": name, **data}) == Rules.preset(name)
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    includes = [i["path"] for i in pyproject["tool"]["maturin"]["include"]]
    assert "python/xuezhan/presets/*.toml" in includes


def test_r11_default_rules_are_leshan():
    assert Rules() == Rules.preset("leshan")
    assert as_rules(None) == Rules.preset("leshan")


def test_r11_from_dict_and_overrides():
    r = Rules.from_dict({"preset": "leshan", "max_fan": 4, "fan": {"terminals": True}})
    assert r.max_fan == 4 and r.fan["terminals"] and r.fan["gen"]
    assert r.preset == "leshan"
    assert r.rules_id.startswith("leshan-") and r.rules_id != "leshan"
    assert r == Rules.preset("leshan").replace(max_fan=4, **{"fan.terminals": True})
    assert r == Rules.preset("leshan").replace(max_fan=4, fan={"terminals": True})
    c = Rules.from_dict({"preset": "chengdu", "fan.gen": False})
    assert not c.fan["gen"] and c.fan["terminals"]  # fan overrides merge into the preset's items


def _earlier_fields(d: dict) -> dict:
    """The fields an id is hashed over: all but the preset, and (R14) options added later when
    they hold their earlier meaning."""
    d = {k: v for k, v in d.items() if k != "preset" and not (k == "after_win" and v == "leave")}
    d["fan"] = {k: v for k, v in d["fan"].items() if k != "middle_five" or v}
    return d


def test_r11_to_dict_roundtrip_and_rules_id_stable():
    for name in PRESETS:
        r = Rules.preset(name).replace(max_fan=6, base=2, fan={"concealed": True})
        d = r.to_dict()
        assert Rules.from_dict(d) == r
        assert Rules.from_dict(d).rules_id == r.rules_id
        assert "self_draw" not in d["fan"]
    # stable across processes: a hash of the values, not of Python's randomised hash()
    assert (
        Rules.preset("leshan").replace(max_fan=6).rules_id
        == "leshan-"
        + __import__("hashlib")
        .sha256(
            __import__("json")
            .dumps(
                _earlier_fields(Rules.preset("leshan").replace(max_fan=6).to_dict()),
                sort_keys=True,
            )
            .encode()
        )
        .hexdigest()[:8]
    )


def test_r6_2_self_draw_item_follows_self_draw_bonus():
    assert not Rules.preset("leshan").fan["self_draw"]
    r = Rules.preset("leshan").replace(self_draw_bonus="fan")
    assert r.fan["self_draw"]
    assert not r.replace(self_draw_bonus="point").fan["self_draw"]
    assert Rules.from_dict({"self_draw_bonus": "fan", "fan.self_draw": True}) == r
    with pytest.raises(RulesError, match="self_draw"):
        Rules.from_dict({"fan": {"self_draw": True}})


def test_r11_from_toml(tmp_path):
    p = tmp_path / "r.toml"
    p.write_text('preset = "chengdu"\nmax_fan = 3\n[fan]\nterminals = false\n')
    r = Rules.from_toml(p)
    assert (r.preset, r.max_fan, r.fan["terminals"], r.declare_void) == ("chengdu", 3, False, True)
    assert as_rules(str(p)) == r
    q = tmp_path / "wrapped.toml"
    q.write_text("[rules]\nmax_fan = 3\n")
    assert Rules.from_toml(q).max_fan == 3
    bad = tmp_path / "bad.toml"
    bad.write_text("max_fan = 3\nmaxfan = 4\n")
    with pytest.raises(RulesError, match="maxfan"):
        Rules.from_toml(bad)
    broken = tmp_path / "broken.toml"
    broken.write_text("max_fan = \n")
    with pytest.raises(RulesError, match="not valid TOML"):
        Rules.from_toml(broken)
    with pytest.raises(RulesError, match="missing.toml: no such rules file"):
        Rules.from_toml(tmp_path / "missing.toml")


@pytest.mark.parametrize(
    "data, words",
    [
        ({"max_fans": 4}, ["unknown rules field", "max_fans"]),
        ({"preset": "tokyo"}, ["unknown preset", "tokyo"]),
        ({"fan": {"riichi": True}}, ["unknown fan item", "riichi"]),
        ({"fan.riichi": True}, ["unknown fan item", "riichi"]),
        ({"max_fan": "5"}, ["max_fan", "'5'", "not an integer"]),
        ({"max_fan": 0}, ["max_fan", "0", "out of range"]),
        ({"max_fan": 4.0}, ["max_fan", "not an integer"]),
        ({"base": True}, ["base", "True"]),
        ({"base": 0}, ["base", "out of range"]),
        ({"escape_penalty": -1}, ["escape_penalty", "-1"]),
        ({"self_draw_bonus": "double"}, ["self_draw_bonus", "double"]),
        ({"rob_kong": "yes"}, ["rob_kong", "yes"]),
        ({"declare_void": 1}, ["declare_void", "1"]),
        ({"fan": {"gen": 1}}, ["fan.gen", "1"]),
        ({"fan": ["gen"]}, ["fan", "gen"]),
        ({"turn_timeout": 0}, ["turn_timeout", "0"]),
        ({"claim_timeout": "10"}, ["claim_timeout", "'10'"]),
        ({"max_timeouts": -3}, ["max_timeouts", "-3"]),
    ],
)
def test_r11_bad_options_are_errors_naming_field_and_value(data, words):
    with pytest.raises(RulesError) as exc:
        Rules.from_dict(data)
    for w in words:
        assert w in str(exc.value)
    assert isinstance(exc.value, ValueError)


def test_r11_rules_value_is_immutable_hashable_picklable():
    r = Rules.preset("chengdu")
    with pytest.raises(AttributeError):  # a frozen dataclass: FrozenInstanceError
        r.max_fan = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        r.fan.x = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        r.fan["gen"] = False  # type: ignore[index]
    assert {r: 1}[Rules.preset("chengdu")] == 1
    assert pickle.loads(pickle.dumps(r)) == r
    core = r.core  # cached on the value, not pickled, rebuilt after unpickling
    assert r.core is core and (core.max_fan, core.base, core.items) == (4, 1, r.fan.mask)
    again = pickle.loads(pickle.dumps(r))
    assert again == r and again.core.items == core.items
    assert Rules.preset("leshan").replace(self_draw_bonus="fan").core.self_draw_fan
    with pytest.raises(RulesError, match="preset"):
        r.replace(preset="leshan")


def test_r0_points_and_cap():
    r = Rules.preset("leshan")
    assert [r.points(f) for f in range(1, 8)] == [1, 2, 4, 8, 16, 16, 16]
    assert r.replace(base=3).points(2) == 6
    assert Rules.preset("chengdu").max_points == 8


def test_r7_3_shape_items_match_internals():
    assert {
        "all_triplets",
        "one_suit",
        "seven_pairs",
        "gen",
        "single_wait_melded",
        "terminals",
        "pairs_258",
        "concealed",
        "no_terminals",
        "middle_five",
    } == SHAPE_ITEMS
    assert FAN_ITEMS.index("self_draw") == 14 and FAN_ITEMS.index("terminals") == 9
    assert FAN_ITEMS.index("middle_five") == 15


def test_r14_after_win_option():
    assert Rules.preset("xueliu").stay and not Rules.preset("chengdu").stay
    assert Rules.preset("leshan").replace(after_win="stay").stay
    with pytest.raises(RulesError, match="after_win = 'remain' is not one of leave, stay"):
        Rules.preset("leshan").replace(after_win="remain")


def test_r14_later_options_keep_earlier_rules_ids():
    """after_win and middle_five came later: at their earlier meaning they leave a rules id as it
    was (so stored results keep their ids); set away from it they change it."""
    six = Rules.preset("leshan").replace(max_fan=6)
    assert six.rules_id == "leshan-443a6a29"  # the id written before these options existed
    assert six.replace(after_win="leave", fan={"middle_five": False}).rules_id == six.rules_id
    assert six.replace(after_win="stay").rules_id != six.rules_id
    assert six.replace(fan={"middle_five": True}).rules_id != six.rules_id
