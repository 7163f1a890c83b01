//! Sichuan shanten: tiles missing from the nearest complete two-suit hand, minus one.
//!
//! Standard form: Tomohxx's per-suit distances `d_s(m, p)` (see [`crate::suit_table`]) are
//! combined over the two suits kept: `min over m of d_a(m, p) + d_b(M − m, 1 − p)` with
//! `M = 4 − melds`. The dropped (void) suit uses no sets, so its tiles simply all go. Seven
//! pairs: counted directly (R4.1: a quad gives two pairs).

use crate::capped::{capped_packed, unpack};
use crate::error::EvalError;
use crate::suit_table::tables;
use crate::tiles::{validate, Counts, Meld, Size};
use crate::win::allowed_voids;

/// Shanten when no win is reachable at all (melds in all three suits, or a meld in the
/// declared void suit), and the `seven_pairs` component when melds are present.
pub const UNREACHABLE: i8 = i8::MAX;

/// Shanten and its two components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShantenParts {
    /// `min(standard, seven_pairs)`.
    pub total: i8,
    /// Four sets and a pair.
    pub standard: i8,
    /// Seven pairs; [`UNREACHABLE`] when the hand has melds.
    pub seven_pairs: i8,
}

/// Shanten of a 13- or 14-tile hand: −1 complete, 0 ready (tenpai), ...
///
/// ```
/// use xuezhan_core::{shanten, parse_counts};
/// let c = parse_counts("11122233345m99m").unwrap();
/// assert_eq!(shanten(&c, &[], None), Ok(0));
/// let c = parse_counts("147m258p369s1234m").unwrap();
/// assert!(shanten(&c, &[], None).unwrap() >= 4);
/// ```
#[inline]
pub fn shanten(c: &Counts, melds: &[Meld], void: Option<u8>) -> Result<i8, EvalError> {
    validate(c, melds, void, Size::Either)?;
    Ok(shanten_unchecked(c, melds, void))
}

/// Shanten with its standard and seven-pairs components.
///
/// ```
/// use xuezhan_core::{shanten_parts, parse_counts};
/// let c = parse_counts("1122334455667m").unwrap();
/// let p = shanten_parts(&c, &[], None).unwrap();
/// assert_eq!((p.total, p.seven_pairs), (0, 0));
/// assert_eq!(p.standard, 0); // 11 234 567 + 123 45 ... waits too
/// ```
#[inline]
pub fn shanten_parts(
    c: &Counts,
    melds: &[Meld],
    void: Option<u8>,
) -> Result<ShantenParts, EvalError> {
    validate(c, melds, void, Size::Either)?;
    Ok(shanten_parts_unchecked(c, melds, void))
}

/// [`shanten`] without validation (see [`crate::is_win_unchecked`] for the caller's duties).
///
/// ```
/// use xuezhan_core::{shanten_unchecked, parse_counts};
/// // Three suits: the lone 5s must go, whichever suit is dropped (R4.2).
/// let c = parse_counts("123456789m11p22p5s").unwrap();
/// assert_eq!(shanten_unchecked(&c, &[], None), 0);
/// ```
#[inline]
pub fn shanten_unchecked(c: &Counts, melds: &[Meld], void: Option<u8>) -> i8 {
    shanten_parts_unchecked(c, melds, void).total
}

/// Per-suit distance arrays `(d(m,0), d(m,1))`.
pub(crate) type SuitDist = ([u8; 5], [u8; 5]);

/// Fewest missing tiles for `sets` sets + one pair over suits `a` and `b`.
#[inline(always)]
pub(crate) fn combine(a: &SuitDist, b: &SuitDist, sets: usize) -> u8 {
    let mut best = u8::MAX;
    for m in 0..=sets {
        let x = a.0[m] + b.1[sets - m];
        let y = a.1[m] + b.0[sets - m];
        best = best.min(x.min(y));
    }
    best
}

/// Standard-form missing-tile count given per-suit distances.
#[inline(always)]
pub(crate) fn standard_missing(d: &[SuitDist; 3], sets: usize, allowed: u8) -> u8 {
    let mut best = u8::MAX;
    if allowed & 1 != 0 {
        best = best.min(combine(&d[1], &d[2], sets));
    }
    if allowed & 2 != 0 {
        best = best.min(combine(&d[0], &d[2], sets));
    }
    if allowed & 4 != 0 {
        best = best.min(combine(&d[0], &d[1], sets));
    }
    best
}

/// Per suit: (pairs available without drawing, kinds with an odd count).
///
/// SWAR over the first eight counts of a suit (one u64) plus the ninth: `x >> 1` is the
/// number of pairs a count gives (2 or 3 → 1, 4 → 2), `x & 1` whether it is odd.
#[inline(always)]
pub(crate) fn pair_stats(c: &Counts) -> [(u8, u8); 3] {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut out = [(0u8, 0u8); 3];
    for (s, o) in out.iter_mut().enumerate() {
        let v = u64::from_le_bytes(c[s * 9..s * 9 + 8].try_into().unwrap());
        let last = c[s * 9 + 8];
        let pairs = (((v >> 1) & LOW7).wrapping_mul(ONES) >> 56) as u8;
        let odd = ((v & ONES).wrapping_mul(ONES) >> 56) as u8;
        *o = (pairs + (last >> 1), odd + (last & 1));
    }
    out
}

/// Seven-pairs missing-tile count: full pairs first, then singles (or a third copy) need one
/// tile, and any further pair two.
#[inline(always)]
pub(crate) fn seven_pairs_missing(ps: &[(u8, u8); 3], allowed: u8) -> u8 {
    let mut best = u8::MAX;
    for v in 0..3 {
        if allowed & (1 << v) == 0 {
            continue;
        }
        let (mut full, mut odd) = (0u8, 0u8);
        for (s, &(f, o)) in ps.iter().enumerate() {
            if s != v {
                full += f;
                odd += o;
            }
        }
        let miss = if full >= 7 {
            0
        } else {
            let need = 7 - full;
            let one = need.min(odd);
            one + 2 * (need - one)
        };
        best = best.min(miss);
    }
    best
}

/// Whether the caps `cap` of a suit (nine values) can change its distances: a capped kind with
/// a held tile within two ranks. Else no set that adds overlap touches a capped kind, and free
/// sets fit elsewhere, so the table's distances are exact.
#[inline(always)]
fn caps_matter(hs: &[u8], cap: &[u8]) -> bool {
    // the ranks held and the capped ranks as bit sets (bit r = rank r), each capped rank then
    // spread two ranks either way
    let (mut held, mut capped) = (0u32, 0u32);
    for r in 0..9 {
        held |= ((hs[r] != 0) as u32) << r;
        capped |= ((cap[r] < 4) as u32) << r;
    }
    let near = capped | capped << 1 | capped << 2 | capped >> 1 | capped >> 2;
    held & near != 0
}

/// Distances of one suit whose kinds are capped by melds (`cap`, nine values): the table's
/// when the caps cannot matter ([`caps_matter`]), else the exact distances of
/// [`crate::capped`].
#[inline]
pub(crate) fn suit_dist_capped(hs: &[u8], cap: &[u8]) -> SuitDist {
    if caps_matter(hs, cap) {
        unpack(capped_packed(hs, cap))
    } else {
        let t = tables();
        t.distances(t.record(hs))
    }
}

/// [`suit_dist_capped`] packed (`d(m, p)` in byte `2m + p`, as
/// [`crate::suit_table::SuitTables::packed`]).
#[inline]
pub(crate) fn suit_dist_capped_packed(hs: &[u8], cap: &[u8]) -> u128 {
    if caps_matter(hs, cap) {
        capped_packed(hs, cap)
    } else {
        let t = tables();
        t.packed(t.record(hs))
    }
}

/// Per-suit distances of the concealed hand: the table, or [`suit_dist_capped`] for a suit
/// holding a meld kind.
#[inline(always)]
pub(crate) fn suit_dists(c: &Counts, melds: &[Meld]) -> [SuitDist; 3] {
    let t = tables();
    let mut d = [
        t.distances(t.record(&c[0..9])),
        t.distances(t.record(&c[9..18])),
        t.distances(t.record(&c[18..27])),
    ];
    if !melds.is_empty() {
        let mut cap = [4u8; 27];
        let mut suits = 0u8;
        for m in melds {
            cap[m.kind as usize] = 4u8.saturating_sub(m.copies());
            suits |= 1 << (m.kind / 9);
        }
        for s in 0..3 {
            if suits & (1 << s) != 0 {
                d[s] = suit_dist_capped(&c[s * 9..s * 9 + 9], &cap[s * 9..s * 9 + 9]);
            }
        }
    }
    d
}

/// When an allowed void suit holds no tile, dropping it is never worse than dropping a suit
/// that does (an empty suit is at the maximum distance for every target, for both forms), so
/// only that choice needs combining: a third of the work for the usual two-suit hand.
#[inline(always)]
pub(crate) fn prefer_empty_void(c: &Counts, allowed: u8) -> u8 {
    prefer_empty_void_mask(crate::win::concealed_suits(c) ^ 7, allowed)
}

/// [`prefer_empty_void`] given the mask of empty suits.
#[inline(always)]
pub(crate) fn prefer_empty_void_mask(empty: u8, allowed: u8) -> u8 {
    let e = empty & allowed;
    if e != 0 {
        e & e.wrapping_neg()
    } else {
        allowed
    }
}

/// [`shanten_parts`] without validation.
///
/// ```
/// use xuezhan_core::{shanten_parts_unchecked, parse_counts, Meld, MeldType, UNREACHABLE};
/// let c = parse_counts("1122m").unwrap();
/// let melds = [Meld { ty: MeldType::Pung, kind: 9 }, Meld { ty: MeldType::Pung, kind: 10 },
///              Meld { ty: MeldType::Pung, kind: 11 }];
/// let p = shanten_parts_unchecked(&c, &melds, None);
/// assert_eq!((p.total, p.standard, p.seven_pairs), (0, 0, UNREACHABLE));
/// ```
#[inline]
pub fn shanten_parts_unchecked(c: &Counts, melds: &[Meld], void: Option<u8>) -> ShantenParts {
    let allowed = allowed_voids(melds, void);
    if allowed == 0 {
        return ShantenParts {
            total: UNREACHABLE,
            standard: UNREACHABLE,
            seven_pairs: UNREACHABLE,
        };
    }
    let allowed = prefer_empty_void(c, allowed);
    let d = suit_dists(c, melds);
    let standard = standard_missing(&d, 4 - melds.len(), allowed) as i8 - 1;
    let seven_pairs = if melds.is_empty() {
        seven_pairs_missing(&pair_stats(c), allowed) as i8 - 1
    } else {
        UNREACHABLE
    };
    ShantenParts {
        total: standard.min(seven_pairs),
        standard,
        seven_pairs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiles::{parse_counts, MeldType};

    fn sh(s: &str) -> i8 {
        shanten(&parse_counts(s).unwrap(), &[], None).unwrap()
    }

    #[test]
    fn examples() {
        assert_eq!(sh("123456789m11p123p"), -1);
        assert_eq!(sh("11223344556677m"), -1);
        assert_eq!(sh("1112345678999m"), 0);
        // three suits: the s tiles must go.
        assert_eq!(sh("123456789m11p12s"), 2);
        assert_eq!(sh("123456789m11p1s2p"), 1);
        assert_eq!(sh("123456789m11p22p"), 0);
    }

    #[test]
    fn void_and_melds() {
        let c = parse_counts("123456789m11p12p").unwrap();
        assert_eq!(shanten(&c, &[], Some(2)).unwrap(), 0);
        assert_eq!(shanten(&c, &[], Some(1)).unwrap(), 4); // every p goes: 4 missing...
        let melds = [
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
                kind: 18,
            },
        ];
        let c = parse_counts("1234m").unwrap();
        let p = shanten_parts(&c, &melds, None).unwrap();
        assert_eq!(p.total, UNREACHABLE);
    }

    #[test]
    fn meld_caps_the_target() {
        // Pung of 5m + single 5m: waiting on a fifth 5m is no wait; a new pair is needed.
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
        assert_eq!(shanten(&c, &melds, None).unwrap(), 1);
        let c = parse_counts("6m").unwrap();
        assert_eq!(shanten(&c, &melds, None).unwrap(), 0);
    }
}
