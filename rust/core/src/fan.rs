//! Fan (R5): items, the rules value the core needs, and the best reading of a win.
//!
//! Only three items depend on how the hand is split (its "reading"): `all_triplets` (+
//! `pairs_258` on top), `terminals` and `seven_pairs`. Every other item is a property of the
//! tiles or the context. So the best reading is the best of at most three candidates, each
//! known from one per-suit table flag: triplets-only (`A`), terminals-in-every-set (`T`),
//! seven pairs (all counts even), or a plain reading worth nothing extra.

use crate::error::EvalError;
use crate::suit_table::{tables, A_BIT, T_BIT, W_BIT};
use crate::tiles::{meld_copies, meld_suits, validate, Counts, Meld, Size};
use crate::win::{all_even, concealed_suits};

/// Fan item ids: bit positions in [`RulesCore::items`] and indices of [`FanResult::items`].
pub mod item {
    /// 大对子: four triplets/kongs + pair (+1).
    pub const ALL_TRIPLETS: usize = 0;
    /// 清一色: one suit (+2).
    pub const ONE_SUIT: usize = 1;
    /// 七对 (+2).
    pub const SEVEN_PAIRS: usize = 2;
    /// 根: each kind with all four copies (+1 each).
    pub const GEN: usize = 3;
    /// 金钩钓: four melds, won on the pair (+1).
    pub const SINGLE_WAIT_MELDED: usize = 4;
    /// 杠上开花 (+1).
    pub const KONG_DRAW: usize = 5;
    /// 杠上炮 (+1).
    pub const KONG_DISCARD: usize = 6;
    /// 抢杠胡 (+1).
    pub const ROBBING_KONG: usize = 7;
    /// 海底 (+1).
    pub const LAST_TILE: usize = 8;
    /// 带幺九 (+2).
    pub const TERMINALS: usize = 9;
    /// 将对 (+2, on top of all_triplets).
    pub const PAIRS_258: usize = 10;
    /// 门清 (+1).
    pub const CONCEALED: usize = 11;
    /// 中张 (+1).
    pub const NO_TERMINALS: usize = 12;
    /// 天胡 / 地胡: fan = max_fan.
    pub const HEAVEN_EARTH: usize = 13;
    /// 自摸加番 (+1).
    pub const SELF_DRAW: usize = 14;
    /// 夹心五: the winning 5 completes a 4-5-6 run in the reading that counts (+1).
    pub const MIDDLE_FIVE: usize = 15;
    /// Number of items.
    pub const COUNT: usize = 16;
    /// Item ids (RULES.md R5) by bit: `IDS[i]` names bit `i`. The one table of item ids: the
    /// Python package reads it from `xuezhan._core.FAN_ITEMS`.
    pub const IDS: [&str; COUNT] = [
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
        "concealed",
        "no_terminals",
        "heaven_earth",
        "self_draw",
        "middle_five",
    ];
    /// Display names (R5 table) by bit, beside [`IDS`].
    pub const LABELS: [&str; COUNT] = [
        "大对子",
        "清一色",
        "七对",
        "根",
        "金钩钓",
        "杠上开花",
        "杠上炮",
        "抢杠胡",
        "海底",
        "带幺九",
        "将对",
        "门清",
        "中张",
        "天胡/地胡",
        "自摸加番",
        "夹心五",
    ];
    /// Items that describe the hand itself (R7.3 values use only these).
    pub const SHAPE_MASK: u32 = 1 << ALL_TRIPLETS
        | 1 << ONE_SUIT
        | 1 << SEVEN_PAIRS
        | 1 << GEN
        | 1 << SINGLE_WAIT_MELDED
        | 1 << TERMINALS
        | 1 << PAIRS_258
        | 1 << CONCEALED
        | 1 << NO_TERMINALS
        | 1 << MIDDLE_FIVE;
}

/// Win context flags (bits of the `ctx` argument of [`fan`]).
pub mod ctx {
    /// 自摸: the winning tile was drawn by the winner.
    pub const SELF_DRAW: u8 = 1 << 0;
    /// 杠上开花: the winning tile is a kong replacement.
    pub const KONG_DRAW: u8 = 1 << 1;
    /// 杠上炮: won on a discard made right after the discarder's kong replacement draw.
    pub const KONG_DISCARD: u8 = 1 << 2;
    /// 抢杠胡: won on a tile added to a pung.
    pub const ROBBING_KONG: u8 = 1 << 3;
    /// 海底: last wall tile, or the discard right after drawing it.
    pub const LAST_TILE: u8 = 1 << 4;
    /// 天胡 / 地胡.
    pub const HEAVEN_EARTH: u8 = 1 << 5;
    /// R6.3: self-draw paid by the discarder alone; suppresses the `self_draw` fan bonus.
    pub const DISCARDER_PAYS: u8 = 1 << 6;
    /// Number of flags.
    pub const COUNT: usize = 7;
    /// Flag names by bit: `NAMES[i]` names bit `i` (the fields of Python's `WinContext`).
    pub const NAMES: [&str; COUNT] = [
        "self_draw",
        "kong_draw",
        "kong_discard",
        "robbing_kong",
        "last_tile",
        "heaven_earth",
        "discarder_pays",
    ];
}

/// The part of the rules the core needs (R5, R11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RulesCore {
    /// Cap (极品), in fan.
    pub max_fan: u8,
    /// Points of a 1-fan win.
    pub base: u32,
    /// Enabled items: bit = item id (see [`item`]).
    pub items: u32,
    /// `self_draw_bonus = "fan"`: a self-draw not paid under R6.3 earns +1 fan.
    pub self_draw_fan: bool,
}

impl RulesCore {
    /// The `leshan` preset: max_fan 5; terminals, pairs_258, concealed, no_terminals and
    /// heaven_earth off.
    ///
    /// ```
    /// assert_eq!(xuezhan_core::RulesCore::leshan().max_fan, 5);
    /// ```
    pub fn leshan() -> RulesCore {
        RulesCore {
            max_fan: 5,
            base: 1,
            items: 0x1ff,
            self_draw_fan: false,
        }
    }

    /// The `chengdu` preset: max_fan 4; terminals, pairs_258 and heaven_earth on.
    ///
    /// ```
    /// use xuezhan_core::{RulesCore, item};
    /// assert!(RulesCore::chengdu().items & 1 << item::TERMINALS != 0);
    /// ```
    pub fn chengdu() -> RulesCore {
        RulesCore {
            max_fan: 4,
            base: 1,
            items: 0x1ff | 1 << item::TERMINALS | 1 << item::PAIRS_258 | 1 << item::HEAVEN_EARTH,
            self_draw_fan: false,
        }
    }

    #[inline(always)]
    pub(crate) fn on(&self, id: usize) -> bool {
        self.items & (1 << id) != 0
    }

    /// Points of a capped fan: `base × 2^(fan − 1)`.
    #[inline]
    pub fn points(&self, capped: u8) -> u64 {
        (self.base as u64) << capped.saturating_sub(1)
    }
}

/// The value of a win.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FanResult {
    /// 1 + every item that applies (and, with `heaven_earth`, at least `max_fan`).
    pub raw: u8,
    /// `min(raw, max_fan)`.
    pub capped: u8,
    /// `base × 2^(capped − 1)`.
    pub points: u64,
    /// Fan of each item by id (0 = did not apply); `heaven_earth` records `max_fan`.
    pub items: [u8; item::COUNT],
}

/// Fan of a win: `c` is the 14-tile concealed hand including the winning tile `win_kind`.
/// Returns `Ok(None)` when the hand does not win.
///
/// ```
/// use xuezhan_core::{fan, parse_counts, RulesCore};
/// let r = RulesCore::leshan();
/// // 清对 (one suit + all triplets) = 1 + 2 + 1 = 4 fan, 8 points.
/// let c = parse_counts("11122233355577m").unwrap();
/// let f = fan(&c, &[], 6, 0, &r, None).unwrap().unwrap();
/// assert_eq!((f.raw, f.capped, f.points), (4, 4, 8));
/// assert!(fan(&parse_counts("11122233355578m").unwrap(), &[], 6, 0, &r, None).unwrap().is_none());
/// ```
#[inline]
pub fn fan(
    c: &Counts,
    melds: &[Meld],
    win_kind: u8,
    ctx: u8,
    rules: &RulesCore,
    void: Option<u8>,
) -> Result<Option<FanResult>, EvalError> {
    validate(c, melds, void, Size::Fourteen)?;
    if win_kind >= 27 {
        return Err(EvalError::BadKind(win_kind as i64));
    }
    if c[win_kind as usize] == 0 {
        return Err(EvalError::WinTileNotInHand(win_kind));
    }
    Ok(fan_unchecked(c, melds, win_kind, ctx, rules, void))
}

const TERMINAL_KINDS: u32 = 1 | 1 << 8 | 1 << 9 | 1 << 17 | 1 << 18 | 1 << 26;
const KINDS_258: u32 = 0b010010010 * (1 | 1 << 9 | 1 << 18);

/// Everything R5 needs to know about a complete hand, gathered once: [`fan_unchecked`]
/// builds it from counts, the waits loop updates it per wait without re-reading the hand.
#[derive(Clone, Copy)]
pub(crate) struct Shape {
    /// Suits present (bit s), concealed and melded.
    pub present: u8,
    /// Standard form complete in every suit.
    pub std_ok: bool,
    /// Every suit has an all-triplets reading (meaningful with `std_ok`).
    pub trip: bool,
    /// Every suit has a terminal reading (concealed part only).
    pub term: bool,
    /// Seven pairs (no melds, every count even).
    pub seven_pairs: bool,
    /// Kinds with four copies (concealed + melds).
    pub gen: u8,
    /// Kinds present (bit k), concealed and melded.
    pub kinds: u32,
    /// Every meld is of a 1 or 9.
    pub melds_term: bool,
    /// Four melds and the concealed pair is the winning kind.
    pub single_wait_melded: bool,
    /// No pung or exposed kong.
    pub concealed: bool,
    /// The winning tile is a 5 and some standard reading has a 4-5-6 run of its suit
    /// (meaningful with `std_ok`): the 夹心五 reading.
    pub mid5: bool,
}

/// Whether the suit `cs` (nine counts, complete with the winning 5 in it) still reads as
/// complete once one 4-5-6 run is taken out: some reading of it holds that run (夹心五).
#[inline]
pub(crate) fn has_run_456(cs: &[u8]) -> bool {
    if cs[3] == 0 || cs[4] == 0 || cs[5] == 0 {
        return false;
    }
    let mut rest = [0u8; 9];
    rest.copy_from_slice(cs);
    rest[3] -= 1;
    rest[4] -= 1;
    rest[5] -= 1;
    tables().record(&rest) & W_BIT != 0
}

/// [`fan`] without validation (see [`crate::is_win_unchecked`] for the caller's duties;
/// `win_kind` must be in the hand).
///
/// ```
/// use xuezhan_core::{fan_unchecked, parse_counts, ctx, item, RulesCore};
/// let c = parse_counts("123456m789m11p234p").unwrap();
/// let f = fan_unchecked(&c, &[], 10, ctx::SELF_DRAW | ctx::KONG_DRAW, &RulesCore::leshan(), None).unwrap();
/// assert_eq!((f.raw, f.items[item::KONG_DRAW]), (2, 1)); // 杠上开花
/// ```
#[inline]
pub fn fan_unchecked(
    c: &Counts,
    melds: &[Meld],
    win_kind: u8,
    ctx: u8,
    rules: &RulesCore,
    void: Option<u8>,
) -> Option<FanResult> {
    let present = concealed_suits(c) | meld_suits(melds);
    if present == 7 {
        return None;
    }
    if let Some(v) = void {
        if present & (1 << v) != 0 {
            return None;
        }
    }
    let t = tables();
    // Standard form: every suit complete; AND of the reading flags over suits.
    let mut std_ok = true;
    let mut trip = true;
    let mut term = true;
    for s in 0..3 {
        if present & (1 << s) != 0 {
            let r = t.record(&c[s * 9..s * 9 + 9]);
            std_ok &= r & W_BIT != 0;
            trip &= r & A_BIT != 0;
            term &= r & T_BIT != 0;
        }
    }
    let seven_pairs = melds.is_empty() && all_even(c);
    if !std_ok && !seven_pairs {
        return None;
    }
    let mc = meld_copies(melds);
    let mut kinds = 0u32;
    let mut gen = 0u8;
    for k in 0..27 {
        let n = c[k] + mc[k];
        kinds |= ((n != 0) as u32) << k;
        gen += (n == 4) as u8;
    }
    let meld_kinds = melds.iter().fold(0u32, |a, m| a | 1 << m.kind);
    let shape = Shape {
        present,
        std_ok,
        trip,
        term,
        seven_pairs,
        gen,
        kinds,
        melds_term: meld_kinds & !TERMINAL_KINDS == 0,
        single_wait_melded: melds.len() == 4 && c[win_kind as usize] == 2,
        concealed: !melds.iter().any(|m| m.is_exposed()),
        // 天胡 has no winning tile, so no 夹心五 (R5)
        mid5: ctx & ctx::HEAVEN_EARTH == 0 && win_kind % 9 == 4 && {
            let s = win_kind as usize / 9;
            has_run_456(&c[s * 9..s * 9 + 9])
        },
    };
    Some(fan_of_shape(&shape, ctx, rules))
}

/// R5 on a gathered [`Shape`]: context items, reading-independent items, and the best of
/// the (at most three) readings.
#[inline]
pub(crate) fn fan_of_shape(sh: &Shape, ctx: u8, rules: &RulesCore) -> FanResult {
    let mut items = [0u8; item::COUNT];
    let mut set = |id: usize, v: u8| {
        if rules.on(id) {
            items[id] = v;
        }
    };
    if sh.present.count_ones() == 1 {
        set(item::ONE_SUIT, 2);
    }
    if sh.gen > 0 {
        set(item::GEN, sh.gen);
    }
    if sh.single_wait_melded {
        set(item::SINGLE_WAIT_MELDED, 1);
    }
    if sh.concealed {
        set(item::CONCEALED, 1);
    }
    if sh.kinds & TERMINAL_KINDS == 0 {
        set(item::NO_TERMINALS, 1);
    }
    if ctx != 0 {
        if ctx & ctx::KONG_DRAW != 0 {
            set(item::KONG_DRAW, 1);
        }
        if ctx & ctx::KONG_DISCARD != 0 {
            set(item::KONG_DISCARD, 1);
        }
        if ctx & ctx::ROBBING_KONG != 0 {
            set(item::ROBBING_KONG, 1);
        }
        if ctx & ctx::LAST_TILE != 0 {
            set(item::LAST_TILE, 1);
        }
        if ctx & ctx::SELF_DRAW != 0
            && ctx & ctx::DISCARDER_PAYS == 0
            && (rules.self_draw_fan || rules.on(item::SELF_DRAW))
        {
            items[item::SELF_DRAW] = 1;
        }
    }

    // Reading-dependent items: the reading with the most (enabled) fan counts.
    let on = |id: usize, v: u8| if rules.on(id) { v } else { 0 };
    // (value, [all_triplets, terminals, pairs_258]) of the best standard reading.
    let mut best = (0u8, [0u8; 3]);
    let mut best_sp = false;
    let mut best_mid5 = false;
    if sh.std_ok {
        // Melds are triplets/kongs, so they never break the triplet reading; for terminals
        // every meld must be of a 1 or 9.
        if sh.trip {
            let a = on(item::ALL_TRIPLETS, 1);
            let p = if sh.kinds & !KINDS_258 == 0 {
                on(item::PAIRS_258, 2)
            } else {
                0
            };
            let tm = if sh.kinds & !TERMINAL_KINDS == 0 {
                on(item::TERMINALS, 2)
            } else {
                0
            };
            if a + p + tm > best.0 {
                best = (a + p + tm, [a, tm, p]);
            }
        }
        if sh.term && sh.melds_term {
            let tm = on(item::TERMINALS, 2);
            if tm > best.0 {
                best = (tm, [0, tm, 0]);
            }
        }
        // 夹心五 is read only in a reading with runs (no triplet or terminal reading holds a
        // 4-5-6 run); it wins only when worth strictly more, so hands without it read as before.
        if sh.mid5 {
            let m = on(item::MIDDLE_FIVE, 1);
            if m > best.0 {
                best = (m, [0; 3]);
                best_mid5 = true;
            }
        }
    }
    if sh.seven_pairs {
        let v = on(item::SEVEN_PAIRS, 2);
        if v > best.0 || !sh.std_ok {
            best = (v, [0; 3]);
            best_sp = true;
            best_mid5 = false;
        }
    }
    if best_sp {
        items[item::SEVEN_PAIRS] = best.0;
    } else if best_mid5 {
        items[item::MIDDLE_FIVE] = best.0;
    } else {
        items[item::ALL_TRIPLETS] = best.1[0];
        items[item::TERMINALS] = best.1[1];
        items[item::PAIRS_258] = best.1[2];
    }

    let mut raw = 1u8;
    for (i, &v) in items.iter().enumerate() {
        if i != item::HEAVEN_EARTH {
            raw += v;
        }
    }
    if ctx & ctx::HEAVEN_EARTH != 0 && rules.on(item::HEAVEN_EARTH) {
        items[item::HEAVEN_EARTH] = rules.max_fan;
        raw = raw.max(rules.max_fan);
    }
    let capped = raw.min(rules.max_fan);
    FanResult {
        raw,
        capped,
        points: rules.points(capped),
        items,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiles::{parse_counts, MeldType};

    fn f(s: &str, win: &str, melds: &[Meld], rules: &RulesCore) -> FanResult {
        let c = parse_counts(s).unwrap();
        let w = parse_counts(win)
            .unwrap()
            .iter()
            .position(|&x| x > 0)
            .unwrap() as u8;
        fan(&c, melds, w, 0, rules, None).unwrap().unwrap()
    }

    fn with_middle_five() -> RulesCore {
        RulesCore {
            items: RulesCore::leshan().items | 1 << item::MIDDLE_FIVE,
            ..RulesCore::leshan()
        }
    }

    #[test]
    fn middle_five_needs_the_winning_five_in_a_456_run() {
        let r = with_middle_five();
        // 123m 456m 789m 234p 55p won on 5m: the 5m completes 4-5-6 (夹心五).
        let g = f("12345678955m234p", "5m", &[], &r);
        assert_eq!((g.raw, g.items[item::MIDDLE_FIVE]), (2, 1));
        // the same hand won on 5p: the pair, not a run
        let g = f("123456789m23455p", "5p", &[], &r);
        assert_eq!((g.raw, g.items[item::MIDDLE_FIVE]), (1, 0));
        // 345m 567m: its only split holds the 5m in 3-4-5 and 5-6-7, never 4-5-6
        let g = f("345567m11123789p", "5m", &[], &r);
        assert_eq!(g.items[item::MIDDLE_FIVE], 0);
        // off by default (leshan)
        assert_eq!(
            f("12345678955m234p", "5m", &[], &RulesCore::leshan()).raw,
            1
        );
    }

    #[test]
    fn middle_five_is_read_in_the_best_split() {
        let r = with_middle_five();
        // 444555666m 789m 11p won on 5m: runs 456 ×3 (夹心五) beat no bonus; total 2 fan
        let g = f("444555666789m11p", "5m", &[], &r);
        assert_eq!((g.raw, g.items[item::MIDDLE_FIVE]), (2, 1));
        // 444555666m 888m 11p: the triplet reading (大对子) is worth as much; the fan is the
        // same and the earlier reading's items are reported
        let g = f("444555666888m11p", "5m", &[], &r);
        assert_eq!(
            (
                g.raw,
                g.items[item::ALL_TRIPLETS],
                g.items[item::MIDDLE_FIVE]
            ),
            (2, 1, 0)
        );
    }

    #[test]
    fn name_tables_match_the_constants() {
        assert_eq!(item::IDS[item::ALL_TRIPLETS], "all_triplets");
        assert_eq!(item::IDS[item::GEN], "gen");
        assert_eq!(item::IDS[item::TERMINALS], "terminals");
        assert_eq!(item::IDS[item::HEAVEN_EARTH], "heaven_earth");
        assert_eq!(item::IDS[item::SELF_DRAW], "self_draw");
        assert_eq!(
            ctx::NAMES[ctx::ROBBING_KONG.trailing_zeros() as usize],
            "robbing_kong"
        );
        assert_eq!(
            ctx::NAMES[ctx::DISCARDER_PAYS.trailing_zeros() as usize],
            "discarder_pays"
        );
        assert_eq!(1u32 << ctx::COUNT, u32::from(ctx::DISCARDER_PAYS) << 1);
    }

    #[test]
    fn reading_with_most_fan_wins() {
        // 111222333m999p11p: triplet reading (1 fan) vs terminal reading 123x3 999 11 (2 fan):
        // chengdu has terminals → the terminal reading counts; both include all 1/9? no: 2m,3m.
        let ch = RulesCore::chengdu();
        let r = f("111222333m99911p", "1p", &[], &ch);
        assert_eq!(r.items[item::TERMINALS], 2);
        assert_eq!(r.items[item::ALL_TRIPLETS], 0);
        assert_eq!(r.raw, 3);
        // leshan: terminals off → all_triplets reading.
        let r = f("111222333m99911p", "1p", &[], &RulesCore::leshan());
        assert_eq!(r.items[item::ALL_TRIPLETS], 1);
        assert_eq!(r.raw, 2);
    }

    #[test]
    fn melds_and_single_wait() {
        let le = RulesCore::leshan();
        let melds = [
            Meld {
                ty: MeldType::Pung,
                kind: 0,
            },
            Meld {
                ty: MeldType::Pung,
                kind: 1,
            },
            Meld {
                ty: MeldType::Kong,
                kind: 11,
            },
            Meld {
                ty: MeldType::ConcealedKong,
                kind: 12,
            },
        ];
        let r = f("55m", "5m", &melds, &le);
        // all_triplets 1 + single_wait 1 + gen 2 = 5.
        assert_eq!(r.items[item::SINGLE_WAIT_MELDED], 1);
        assert_eq!(r.items[item::GEN], 2);
        assert_eq!(r.raw, 5);
    }
}
