//! Waits of a 13-tile hand (R4, R7.3): which kinds complete it, and each wait's value.

use crate::error::EvalError;
use crate::fan::{fan_of_shape, has_run_456, item, RulesCore, Shape};
use crate::suit_table::{split_code, tables, A_BIT, T_BIT, WAIT_SHIFT, W_BIT};
use crate::tiles::{meld_copies, meld_suits, validate, Counts, Meld, Size};
use crate::win::concealed_suits;

/// One wait with its R7.3 value: shape items and `gen` only, capped, scored as a win on a
/// discard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wait {
    /// The kind that completes the hand.
    pub kind: u8,
    /// Capped fan.
    pub fan: u8,
    /// `base × 2^(fan − 1)`.
    pub points: u64,
}

/// Bit k set when kind k completes the 13-tile hand, except kinds the player already holds
/// all four of (concealed + melds).
///
/// ```
/// use xuezhan_core::{wait_mask, parse_counts};
/// let c = parse_counts("11122233345m99m").unwrap();
/// assert_eq!(wait_mask(&c, &[], None), Ok(1 << 2 | 1 << 5 | 1 << 8)); // 3m 6m 9m
/// ```
#[inline]
pub fn wait_mask(c: &Counts, melds: &[Meld], void: Option<u8>) -> Result<u32, EvalError> {
    validate(c, melds, void, Size::Thirteen)?;
    Ok(wait_mask_unchecked(c, melds, void))
}

/// [`wait_mask`] without validation (see [`crate::is_win_unchecked`]).
///
/// ```
/// use xuezhan_core::{wait_mask_unchecked, parse_counts};
/// let c = parse_counts("1112345678999m").unwrap(); // nine gates, minus one tile: 13
/// assert_eq!(wait_mask_unchecked(&c, &[], None), 0x1ff);
/// assert_eq!(wait_mask_unchecked(&c, &[], Some(0)), 0); // holds its void suit
/// ```
#[inline]
pub fn wait_mask_unchecked(c: &Counts, melds: &[Meld], void: Option<u8>) -> u32 {
    let present = concealed_suits(c) | meld_suits(melds);
    if present == 7 {
        return 0;
    }
    let mut allowed_kinds: u32 = (1 << 27) - 1;
    if present.count_ones() == 2 {
        // The winning tile may not bring a third suit.
        let missing = (!present & 7).trailing_zeros();
        allowed_kinds &= !(0x1ff << (9 * missing));
    }
    if let Some(v) = void {
        if present & (1 << v) != 0 {
            return 0;
        }
        allowed_kinds &= !(0x1ff << (9 * v));
    }
    let t = tables();
    let mut rank = [0usize; 3];
    let mut res = [0u8; 3];
    for s in 0..3 {
        let cs = &c[s * 9..s * 9 + 9];
        rank[s] = t.rank_code(split_code(cs));
        // the suit's tiles: its first eight counts summed as the bytes of a word, and the ninth
        let w = u64::from_le_bytes(cs[..8].try_into().expect("eight counts"));
        let tiles = (w.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u8 + cs[8];
        res[s] = tiles % 3;
    }
    // (the complete bits from their small bit set: most hands wait on nothing, and then no
    // record is read from the large table, whose reads miss the cache)
    let complete = |s: usize| res[s] != 1 && t.is_complete(rank[s]);
    let mut mask = 0u32;
    // Standard form: the tile goes into a suit of residue 1 (→ its pair) or 2 (→ sets); the
    // other two suits must already be complete.
    for s in 0..3 {
        let (a, b) = ((s + 1) % 3, (s + 2) % 3);
        if res[s] != 0 && complete(a) && complete(b) {
            mask |= ((t.record_at(rank[s]) >> WAIT_SHIFT) & 0x1ff) << (9 * s);
        }
    }
    // Seven pairs: six pairs and one odd kind (a single or a triplet, R4.1).
    if melds.is_empty() {
        let odd = odd_kinds(c);
        if odd.count_ones() == 1 {
            mask |= odd;
        }
    }
    if mask == 0 {
        return 0; // (most hands: nothing below can add a wait)
    }
    // A kind already held four times cannot be drawn (R7.3).
    let mc = meld_copies(melds);
    for k in 0..27 {
        if c[k] + mc[k] >= 4 {
            mask &= !(1 << k);
        }
    }
    mask & allowed_kinds
}

/// The kinds held an odd number of times (bit k = kind k): eight counts at a time as the bytes
/// of a word, each count's low bit moved to its byte's high bit and gathered.
#[inline(always)]
fn odd_kinds(c: &Counts) -> u32 {
    let word = |at: usize| u64::from_le_bytes(c[at..at + 8].try_into().expect("eight counts"));
    let mut odd = 0u32;
    // kinds 0-7, 8-15, 16-23, and 24-26 as the top three bytes of the word at 19
    for (i, w) in [word(0), word(8), word(16), word(19) >> 40]
        .into_iter()
        .enumerate()
    {
        let high = (w << 7) & 0x8080_8080_8080_8080;
        odd |= (((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32) << (8 * i);
    }
    odd
}

/// Every wait of a 13-tile hand with its R7.3 value (ordered by kind).
///
/// ```
/// use xuezhan_core::{waits, parse_counts, RulesCore};
/// let c = parse_counts("11122233345m99m").unwrap();
/// let w = waits(&c, &[], &RulesCore::leshan(), None).unwrap();
/// let v: Vec<(u8, u8, u64)> = w.iter().map(|w| (w.kind, w.fan, w.points)).collect();
/// assert_eq!(v, vec![(2, 4, 8), (5, 3, 4), (8, 3, 4)]);
/// ```
pub fn waits(
    c: &Counts,
    melds: &[Meld],
    rules: &RulesCore,
    void: Option<u8>,
) -> Result<Vec<Wait>, EvalError> {
    validate(c, melds, void, Size::Thirteen)?;
    let mut out = Vec::new();
    waits_unchecked(c, melds, rules, void, &mut out);
    Ok(out)
}

/// [`waits`] without validation, appending to `out` (cleared first) to reuse its allocation.
///
/// ```
/// use xuezhan_core::{waits_unchecked, parse_counts, RulesCore};
/// let mut out = Vec::new();
/// // 清七对 wait on 9m: one_suit + seven_pairs = 5 fan, capped at chengdu's 4 (8 points).
/// waits_unchecked(&parse_counts("1122335566779m").unwrap(), &[], &RulesCore::chengdu(), None, &mut out);
/// assert_eq!((out[0].kind, out[0].fan, out[0].points), (8, 4, 8));
/// ```
///
/// Each wait changes one suit by one tile, so the hand is read once and every wait costs one
/// table lookup plus the shared fan-of-shape step; no per-wait rescan of the 27 counts.
#[inline]
pub fn waits_unchecked(
    c: &Counts,
    melds: &[Meld],
    rules: &RulesCore,
    void: Option<u8>,
    out: &mut Vec<Wait>,
) {
    out.clear();
    let mut mask = wait_mask_unchecked(c, melds, void);
    if mask == 0 {
        return;
    }
    let shape_rules = RulesCore {
        items: rules.items & item::SHAPE_MASK,
        self_draw_fan: false,
        ..*rules
    };
    let t = tables();
    let present = concealed_suits(c) | meld_suits(melds);
    let mc = meld_copies(melds);
    let mut kinds = 0u32;
    let mut gen = 0u8;
    let mut n_odd = 0u32;
    for k in 0..27 {
        let n = c[k] + mc[k];
        kinds |= ((n != 0) as u32) << k;
        gen += (n == 4) as u8;
        n_odd += (c[k] & 1) as u32;
    }
    const TERMINAL_KINDS: u32 = 1 | 1 << 8 | 1 << 9 | 1 << 17 | 1 << 18 | 1 << 26;
    let meld_kinds = melds.iter().fold(0u32, |a, m| a | 1 << m.kind);
    let mut codes = [(0u32, 0u32); 3];
    // Per suit: (complete, triplet reading, terminal reading) as it stands; empty suits pass.
    let mut flags = [(true, true, true); 3];
    for s in 0..3 {
        let cs = &c[s * 9..s * 9 + 9];
        codes[s] = split_code(cs);
        if present & (1 << s) != 0 {
            let r = t.record(cs);
            let n: u32 = cs.iter().map(|&x| x as u32).sum();
            flags[s] = (n % 3 != 1 && r & W_BIT != 0, r & A_BIT != 0, r & T_BIT != 0);
        }
    }
    let base = Shape {
        present,
        std_ok: false,
        trip: false,
        term: false,
        seven_pairs: false,
        gen,
        kinds,
        melds_term: meld_kinds & !TERMINAL_KINDS == 0,
        single_wait_melded: melds.len() == 4,
        concealed: !melds.iter().any(|m| m.is_exposed()),
        mid5: false,
    };
    let mid5_on = shape_rules.on(item::MIDDLE_FIVE);
    while mask != 0 {
        let k = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        let (s, r) = (k / 9, k % 9);
        let rec = t.record_plus(codes[s].0, codes[s].1, r);
        let (a, b) = ((s + 1) % 3, (s + 2) % 3);
        let mut sh = base;
        sh.std_ok = rec & W_BIT != 0 && flags[a].0 && flags[b].0;
        sh.trip = rec & A_BIT != 0 && flags[a].1 && flags[b].1;
        sh.term = rec & T_BIT != 0 && flags[a].2 && flags[b].2;
        sh.seven_pairs = melds.is_empty() && n_odd == 1 && c[k] & 1 == 1;
        sh.gen += (c[k] + mc[k] == 3) as u8;
        sh.kinds |= 1 << k;
        if mid5_on && r == 4 {
            let mut cs = [0u8; 9];
            cs.copy_from_slice(&c[s * 9..s * 9 + 9]);
            cs[4] += 1;
            sh.mid5 = has_run_456(&cs);
        }
        let f = fan_of_shape(&sh, 0, &shape_rules);
        out.push(Wait {
            kind: k as u8,
            fan: f.capped,
            points: f.points,
        });
    }
}

#[cfg(test)]
mod tests {
    /// The word-at-a-time odd kinds are the kind-by-kind ones.
    #[test]
    fn odd_kinds_are_the_odd_counts() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..20_000 {
            let mut c = [0u8; 27];
            for n in c.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *n = (x % 5) as u8;
            }
            let want = (0..27)
                .filter(|&k| c[k] & 1 != 0)
                .fold(0, |m, k| m | 1 << k);
            assert_eq!(super::odd_kinds(&c), want, "{c:?}");
        }
    }

    use super::*;
    use crate::tiles::{parse_counts, MeldType};

    #[test]
    fn seven_pairs_wait_on_triplet_kind() {
        let c = parse_counts("1122334455666m").unwrap();
        let m = wait_mask(&c, &[], None).unwrap();
        assert!(m & 1 << 5 != 0);
    }

    #[test]
    fn four_held_is_not_a_wait() {
        // 5m pung + single 5m concealed: 5m is the only completing tile but all four are held.
        let melds = [
            Meld {
                ty: MeldType::Pung,
                kind: 4,
            },
            Meld {
                ty: MeldType::Pung,
                kind: 0,
            },
            Meld {
                ty: MeldType::Pung,
                kind: 9,
            },
            Meld {
                ty: MeldType::Pung,
                kind: 10,
            },
        ];
        let c = parse_counts("5m").unwrap();
        assert_eq!(wait_mask(&c, &melds, None).unwrap(), 0);
    }
}
