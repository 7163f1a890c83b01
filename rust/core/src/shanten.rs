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

/// Exact per-suit distances when melds cap some kinds below four copies (a pung leaves one
/// copy of its kind for the concealed hand, a kong none): the nearest complete hand must
/// respect the cap, which the shared table (caps of 4) cannot know. Only melded hands with a
/// meld in the suit take this path.
///
/// Rank-by-rank dynamic programme maximising the overlap `Σ min(T_r, h_r)` with the target;
/// `d(m, p) = 3m + 2p − overlap`. Only sets and a pair that add overlap are placed: a set
/// adding none (touching no held tile, or a run beyond the largest count of its ranks) could
/// go anywhere, so it is counted as a "free" set
/// (3 missing tiles, 2 for a free pair) at the end. Free sets always fit: a suit with k melds
/// needs at most 4 − k sets, leaving kinds with room for a triplet. At most three sets are
/// tracked (a suit holding a meld kind never needs four): `d(4, p)` is reported as
/// `d(3, p) + 3`, which no caller reads.
///
/// The eight (pair, sets) values of a DP state share one `u64` ([`Lanes`]), so a transition
/// is a shift, an add and a byte-wise max instead of a loop over the set counts.
// The DP indices are its state (runs started one and two ranks back, new runs `u`): `cur[a][b]`
// moves to `nxt[u][a]`, so they are arithmetic, not positions to iterate over.
#[allow(clippy::needless_range_loop)]
pub(crate) fn capped_suit_dist(h: &[u8], cap: &[u8]) -> SuitDist {
    /// Sets tracked.
    const J: usize = 4;
    // cur[a][b]: a = runs started at r−1, b = at r−2 (a + b < J).
    let mut cur = [[0u64; J]; J];
    cur[0][0] = Lanes::START;
    let hv = |r: usize| if r < 9 { h[r] as usize } else { 0 };
    for r in 0..9 {
        let mut nxt = [[0u64; J]; J];
        let (capr, hr) = (cap[r] as usize, h[r] as usize);
        // A run beyond the largest count among its three ranks adds no overlap anywhere
        // (each of its ranks is already saturated without it), so it would be a free set.
        let max_u = if r <= 6 {
            hr.max(hv(r + 1)).max(hv(r + 2)).min(J - 1)
        } else {
            0
        };
        let max_t = if hr > 0 { 1 } else { 0 };
        for a in 0..J {
            for b in 0..J - a {
                let need = a + b;
                let v = cur[a][b];
                if need > capr || !Lanes::any(v) {
                    continue;
                }
                for trip in 0..=max_t {
                    for pr in 0..=max_t {
                        let with_pair = if pr == 1 { Lanes::place_pair(v) } else { v };
                        for u in 0..=max_u {
                            let w = need + 3 * trip + 2 * pr + u;
                            let add = trip + u;
                            if w > capr || add >= J {
                                break;
                            }
                            let x = Lanes::add(Lanes::place_sets(with_pair, add), w.min(hr) as u64);
                            nxt[u][a] = Lanes::max(nxt[u][a], x);
                        }
                    }
                }
            }
        }
        cur = nxt;
    }
    let end = cur[0][0];
    let mut out: SuitDist = ([0; 5], [0; 5]);
    for m in 0..J {
        let (mut best0, mut best1) = (0u8, 0u8); // the empty placement: every set free
        for j in 0..=m {
            best0 = best0.max(Lanes::get(end, 0, j));
            best1 = best1.max(Lanes::get(end, 0, j)).max(Lanes::get(end, 1, j));
        }
        out.0[m] = (3 * m) as u8 - best0;
        out.1[m] = (3 * m + 2) as u8 - best1;
    }
    out.0[J] = out.0[J - 1] + 3;
    out.1[J] = out.1[J - 1] + 3;
    out
}

/// Eight byte lanes of a `u64`: lane `4p + j` holds the best overlap with `p` pairs and `j`
/// sets placed, plus [`Lanes::BIAS`] when reachable. An unreachable lane holds less than the
/// bias (it starts at 0 and gains at most 4 per rank over 9 ranks), and no lane reaches 128,
/// so byte-wise adds never carry and the byte-wise max needs no sign handling.
struct Lanes;

impl Lanes {
    const BIAS: u64 = 64;
    const BIAS_BITS: u64 = 0x4040_4040_4040_4040;
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    /// Nothing placed: lane (0, 0) reachable with overlap 0.
    const START: u64 = Self::BIAS;

    #[inline(always)]
    fn any(v: u64) -> bool {
        v & Self::BIAS_BITS != 0
    }

    /// `add` more sets: lane j moves to j + add within each pair half; lanes past three sets
    /// are dropped and the vacated lower lanes become unreachable.
    #[inline(always)]
    fn place_sets(v: u64, add: usize) -> u64 {
        const KEEP: [u64; 4] = [
            !0,
            0xffff_ff00_ffff_ff00,
            0xffff_0000_ffff_0000,
            0xff00_0000_ff00_0000,
        ];
        (v << (8 * add)) & KEEP[add]
    }

    /// The pair: the no-pair half moves to the pair half (a second pair is not allowed).
    #[inline(always)]
    fn place_pair(v: u64) -> u64 {
        (v & 0xffff_ffff) << 32
    }

    #[inline(always)]
    fn add(v: u64, gain: u64) -> u64 {
        v + gain * Self::ONES
    }

    /// Byte-wise max of lanes below 128: `(a | 0x80) − b` keeps bit 7 exactly where a ≥ b.
    #[inline(always)]
    fn max(a: u64, b: u64) -> u64 {
        let ge = ((a | Self::HIGH) - b) & Self::HIGH;
        let m = (ge >> 7) * 0xff;
        (a & m) | (b & !m)
    }

    /// Overlap of lane (p, j), 0 when unreachable.
    #[inline(always)]
    fn get(v: u64, p: usize, j: usize) -> u8 {
        let x = (v >> (8 * (4 * p + j))) & 0xff;
        x.saturating_sub(Self::BIAS) as u8
    }
}

/// Distances of one suit whose kinds are capped by melds (`cap`, nine values): the table when
/// no capped kind has a held tile within two ranks (then no set that adds overlap touches
/// it, and free sets fit elsewhere, so the cap changes nothing), else [`capped_suit_dist`].
#[inline]
pub(crate) fn suit_dist_capped(hs: &[u8], cap: &[u8]) -> SuitDist {
    let mut near = false;
    for r in 0..9 {
        if cap[r] < 4 {
            near |= hs[r.saturating_sub(2)..=(r + 2).min(8)]
                .iter()
                .any(|&x| x != 0);
        }
    }
    if near {
        capped_memo(hs, cap)
    } else {
        let t = tables();
        t.distances(t.record(hs))
    }
}

/// Entries of the per-thread memo of [`capped_suit_dist`] (direct-mapped, 24 bytes each).
const MEMO_SLOTS: usize = 1 << 13;

thread_local! {
    /// Recent capped distances by (configuration, caps). A player's hand changes by one
    /// tile a turn, so the configurations `best_discards` asks about (the hand minus one
    /// tile, plus one) largely recur from turn to turn; a hit replaces a ≈ 0.7 µs DP.
    static CAPPED_MEMO: std::cell::RefCell<Vec<(u64, SuitDist)>> =
        std::cell::RefCell::new(vec![(0, ([0; 5], [0; 5])); MEMO_SLOTS]);
}

/// [`capped_suit_dist`] through the per-thread memo.
fn capped_memo(hs: &[u8], cap: &[u8]) -> SuitDist {
    let (lo, hi) = crate::suit_table::split_code(hs);
    // Caps are 0, 1 or 4 per rank: two bits each above the 21-bit configuration code; the
    // top bit marks a used slot.
    let mut key = (hi as u64 * 625 + lo as u64) | 1 << 63;
    for (r, &c) in cap.iter().enumerate() {
        key |= (c.min(2) as u64) << (21 + 2 * r);
    }
    let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 51) as usize & (MEMO_SLOTS - 1);
    CAPPED_MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m[slot].0 == key {
            return m[slot].1;
        }
        let d = capped_suit_dist(hs, cap);
        m[slot] = (key, d);
        d
    })
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

    /// Brute force: every (m sets, p pairs) single-suit target within `cap`.
    fn brute_capped(h: &[u8; 9], cap: &[u8; 9]) -> SuitDist {
        fn rec(
            t: &mut [u8; 9],
            m: usize,
            p: usize,
            from: usize,
            h: &[u8; 9],
            cap: &[u8; 9],
            out: &mut SuitDist,
        ) {
            let miss: u8 = (0..9).map(|r| t[r].saturating_sub(h[r])).sum();
            let slot = if p == 0 { &mut out.0[m] } else { &mut out.1[m] };
            *slot = (*slot).min(miss);
            if p == 0 {
                for r in 0..9 {
                    if t[r] + 2 <= cap[r] {
                        t[r] += 2;
                        rec(t, m, 1, 99, h, cap, out);
                        t[r] -= 2;
                    }
                }
            }
            if m == 4 || from == 99 {
                return;
            }
            for set in from..16 {
                let ranks: Vec<usize> = if set < 9 {
                    vec![set; 3]
                } else {
                    (set - 9..set - 6).collect()
                };
                let mut ok = true;
                for &r in &ranks {
                    t[r] += 1;
                }
                for &r in &ranks {
                    ok &= t[r] <= cap[r];
                }
                if ok {
                    rec(t, m + 1, p, set, h, cap, out);
                }
                for &r in &ranks {
                    t[r] -= 1;
                }
            }
        }
        let mut out: SuitDist = ([u8::MAX; 5], [u8::MAX; 5]);
        rec(&mut [0; 9], 0, 0, 0, h, cap, &mut out);
        out
    }

    #[test]
    fn capped_dp_matches_brute_force() {
        let mut x = 0x1234_5678_9abc_def1u64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n) as u8
        };
        for _ in 0..300 {
            let mut cap = [4u8; 9];
            for _ in 0..=next(2) {
                cap[next(9) as usize] = next(2); // a kong (0) or pung (1) kind
            }
            let mut h = [0u8; 9];
            for _ in 0..next(12) {
                let r = next(9) as usize;
                if h[r] < cap[r] {
                    h[r] += 1;
                }
            }
            // The brute force's (4, 1) row is only reachable within the caps; compare m ≤ 3
            // (a suit holding a meld never needs four sets).
            let (got, want) = (capped_suit_dist(&h, &cap), brute_capped(&h, &cap));
            assert_eq!(
                (&got.0[..4], &got.1[..4]),
                (&want.0[..4], &want.1[..4]),
                "{h:?} {cap:?}"
            );
        }
    }

    #[test]
    fn capped_dp_matches_table_without_caps() {
        let t = tables();
        for h in [
            [0u8; 9],
            [1, 1, 2, 0, 4, 0, 1, 3, 2],
            [3, 1, 1, 1, 1, 1, 1, 1, 3],
            [0, 0, 4, 4, 0, 0, 2, 0, 0],
        ] {
            let (got, want) = (capped_suit_dist(&h, &[4; 9]), t.distances(t.record(&h)));
            assert_eq!(
                (&got.0[..4], &got.1[..4]),
                (&want.0[..4], &want.1[..4]),
                "{h:?}"
            );
        }
    }
}
