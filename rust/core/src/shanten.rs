//! Sichuan shanten: tiles missing from the nearest complete two-suit hand, minus one.
//!
//! Standard form: Tomohxx's per-suit distances `d_s(m, p)` (see [`crate::suit_table`]) are
//! combined over the two suits kept: `min over m of d_a(m, p) + d_b(M − m, 1 − p)` with
//! `M = 4 − melds`. The dropped (void) suit uses no sets, so its tiles simply all go. Seven
//! pairs: counted directly (R4.1: a quad gives two pairs).

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
pub fn shanten_parts(
    c: &Counts,
    melds: &[Meld],
    void: Option<u8>,
) -> Result<ShantenParts, EvalError> {
    validate(c, melds, void, Size::Either)?;
    Ok(shanten_parts_unchecked(c, melds, void))
}

/// [`shanten`] without validation (see [`crate::is_win_unchecked`] for the caller's duties).
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
#[inline(always)]
pub(crate) fn pair_stats(c: &Counts) -> [(u8, u8); 3] {
    let mut out = [(0u8, 0u8); 3];
    for (s, o) in out.iter_mut().enumerate() {
        for &x in &c[s * 9..s * 9 + 9] {
            o.0 += x >> 1; // 2 or 3 → one pair, 4 → two pairs
            o.1 += x & 1;
        }
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

/// [`shanten_parts`] without validation.
#[inline]
pub fn shanten_parts_unchecked(c: &Counts, melds: &[Meld], void: Option<u8>) -> ShantenParts {
    let allowed = allowed_voids(melds, void);
    if allowed == 0 {
        return ShantenParts { total: UNREACHABLE, standard: UNREACHABLE, seven_pairs: UNREACHABLE };
    }
    let t = tables();
    let d = [
        t.distances(t.record(&c[0..9])),
        t.distances(t.record(&c[9..18])),
        t.distances(t.record(&c[18..27])),
    ];
    let standard = standard_missing(&d, 4 - melds.len(), allowed) as i8 - 1;
    let seven_pairs = if melds.is_empty() {
        seven_pairs_missing(&pair_stats(c), allowed) as i8 - 1
    } else {
        UNREACHABLE
    };
    ShantenParts { total: standard.min(seven_pairs), standard, seven_pairs }
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
            Meld { ty: MeldType::Pung, kind: 0 },
            Meld { ty: MeldType::Pung, kind: 9 },
            Meld { ty: MeldType::Pung, kind: 18 },
        ];
        let c = parse_counts("1234m").unwrap();
        let p = shanten_parts(&c, &melds, None).unwrap();
        assert_eq!(p.total, UNREACHABLE);
    }
}
