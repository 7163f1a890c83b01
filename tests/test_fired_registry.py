"""One registry of fired-rule ids (xuezhan.engine.fired): every id the engine fires is in it
and cites a rule of docs/rules.md; the engine spells no fired id anywhere else; the study, the
report and the room read their words from it (R9.3)."""

from __future__ import annotations

import re
from pathlib import Path

from _engine_helpers import LeaningBot, rule_variants, xueliu_variants

from xuezhan import rulebook
from xuezhan.engine import Round, run_round
from xuezhan.engine.fired import FIRED, HEADLINE, KONG, PAYMENTS
from xuezhan.engine.match import first_dealer, hand_seed
from xuezhan.serve import words
from xuezhan.study import measure

ENGINE = Path(__file__).resolve().parents[1] / "python" / "xuezhan" / "engine"


def test_r9_3_every_registered_id_cites_a_documented_rule():
    known = set(rulebook.rule_ids())
    for rid, r in FIRED.items():
        assert rid == r.id and rid.startswith(r.rule + "-"), rid
        assert r.rule in known, rid
        assert r.words
    assert set(KONG.values()) <= set(FIRED)
    assert set(HEADLINE) <= set(FIRED)
    assert set(PAYMENTS) <= known


def test_r9_3_every_id_the_engine_fires_is_registered():
    seen: set[str] = set()
    variants = rule_variants(12) + xueliu_variants(6)
    for n in range(900):
        rules = variants[n % len(variants)]
        bots = [LeaningBot(n * 4 + i, p_hu=0.7, p_bad=0.002) for i in range(4)]
        for s, b in enumerate(bots):
            b.reset(s, rules)
        rnd = Round.from_seed(rules, hand_seed(77, n), first_dealer(n))
        run_round(rnd, bots)
        seen |= rnd.ledger.fired
    assert seen <= set(FIRED), seen - set(FIRED)
    assert len(seen) >= 15  # the hands reach most of them (kongs, pigs, escapes, repeat wins…)


def test_r9_3_the_engine_spells_fired_ids_only_in_the_registry():
    pattern = re.compile(r"""["']R\d+(?:\.\d+)?-[a-z]""")
    spelled = {
        f.name: pattern.findall(f.read_text(encoding="utf-8")) for f in ENGINE.glob("*.py") if f.name != "fired.py"
    }
    assert not {k: v for k, v in spelled.items() if v}


def test_readers_take_their_words_from_the_registry():
    for rid, r in FIRED.items():
        assert measure.RULE_WORDS[rid] == r.words
    assert words.RULE_NAMES is PAYMENTS
