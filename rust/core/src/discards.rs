//! Discard choice support: shanten after each discard and its ukeire (useful unseen tiles).

use crate::error::EvalError;
use crate::shanten::{pair_stats, suit_dist_capped_packed, UNREACHABLE};
use crate::suit_table::{draw_masks, split_code, tables, SuitTables, DRAW_DIST_SHIFT};
use crate::tiles::{validate, Counts, Meld, Size};
use crate::win::allowed_voids;

/// One discard option of a 14-tile hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Discard {
    /// The kind discarded.
    pub kind: u8,
    /// Shanten of the 13 tiles left.
    pub shanten: i8,
    /// Sum over kinds whose draw lowers that shanten of `max(0, 4 − held − visible)`.
    pub ukeire: u32,
}

/// One row per distinct kind in the concealed 14-tile hand, ordered by kind.
///
/// `visible` counts the tiles the player sees outside its concealed hand (all discards and all
/// melds, its own included).
///
/// ```
/// use xuezhan_core::{best_discards, parse_counts};
/// let c = parse_counts("11122233345m99m1p").unwrap();
/// let d = best_discards(&c, &[], &[0; 27], None).unwrap();
/// let p1 = d.iter().find(|d| d.kind == 9).unwrap();
/// assert_eq!(p1.shanten, 0);
/// assert_eq!(p1.ukeire, 1 + 4 + 2); // waits 3m (3 held), 6m (none held), 9m (2 held)
/// ```
pub fn best_discards(
    c: &Counts,
    melds: &[Meld],
    visible: &Counts,
    void: Option<u8>,
) -> Result<Vec<Discard>, EvalError> {
    validate(c, melds, void, Size::Fourteen)?;
    check_visible(visible)?;
    let mut out = Vec::new();
    best_discards_unchecked(c, melds, visible, void, &mut out);
    Ok(out)
}

/// `visible` counts (tiles seen outside the hand) of at most 4 each.
pub(crate) fn check_visible(visible: &Counts) -> Result<(), EvalError> {
    match visible.iter().position(|&v| v > 4) {
        Some(k) => Err(EvalError::BadVisible {
            kind: k as u8,
            count: visible[k],
        }),
        None => Ok(()),
    }
}

/// A set of legal discards (bit k = kind k): not empty, and every kind held in `c`.
///
/// ```
/// use xuezhan_core::{check_legal, parse_counts};
/// let c = parse_counts("123m").unwrap();
/// assert!(check_legal(&c, 0b111).is_ok() && check_legal(&c, 1 << 9).is_err());
/// ```
pub fn check_legal(c: &Counts, legal: u32) -> Result<(), EvalError> {
    let held = (0..27).filter(|&k| c[k] != 0).fold(0u32, |m, k| m | 1 << k);
    if legal == 0 || legal & !held != 0 {
        return Err(EvalError::BadLegal { legal, held });
    }
    Ok(())
}

/// [`best_discards`] without validation; results appended to `out` (cleared first).
///
/// ```
/// use xuezhan_core::{best_discards_unchecked, parse_counts};
/// let mut out = Vec::new();
/// let c = parse_counts("123456789m11p23p5s").unwrap();
/// best_discards_unchecked(&c, &[], &[0; 27], None, &mut out);
/// let s5 = out.iter().find(|d| d.kind == 22).unwrap();
/// assert_eq!((s5.shanten, s5.ukeire), (0, 2 + 4)); // waits 1p (two left) and 4p (four)
/// ```
///
/// Per discard only the discarded tile's suit changes, and per draw only the drawn tile's:
/// the other suits' distances are fixed, so a draw into suit `s` lowers the standard form
/// exactly when its new distances beat per-suit thresholds computed once per discard (see
/// [`Thresholds`]). A suit whose thresholds no draw can meet is skipped without any lookup,
/// which matters most for suits holding a meld kind (their distances need a small DP).
pub fn best_discards_unchecked(
    c: &Counts,
    melds: &[Meld],
    visible: &Counts,
    void: Option<u8>,
    out: &mut Vec<Discard>,
) {
    discards_impl(c, melds, visible, void, None, out)
}

/// [`best_discards`] with the ukeire only of the kinds of `lowest_of` (bit k = kind k) whose
/// shanten is the lowest among them (every other row has ukeire 0): all that a ranking by
/// (shanten, −ukeire, …) over `lowest_of` reads, at a fraction of the cost.
///
/// ```
/// use xuezhan_core::{best_discards, best_discards_lowest, parse_counts};
/// let c = parse_counts("123456789m11p23p5s").unwrap();
/// let all = best_discards(&c, &[], &[0; 27], None).unwrap();
/// let low = best_discards_lowest(&c, &[], &[0; 27], None, 1 << 22 | 1 << 0).unwrap();
/// let s5 = |d: &[xuezhan_core::Discard]| *d.iter().find(|d| d.kind == 22).unwrap();
/// assert_eq!(s5(&low), s5(&all)); // 5s: the lowest shanten of {1m, 5s}
/// assert_eq!(low.iter().find(|d| d.kind == 0).unwrap().ukeire, 0); // 1m: not read
/// ```
pub fn best_discards_lowest(
    c: &Counts,
    melds: &[Meld],
    visible: &Counts,
    void: Option<u8>,
    lowest_of: u32,
) -> Result<Vec<Discard>, EvalError> {
    validate(c, melds, void, Size::Fourteen)?;
    check_visible(visible)?;
    let mut out = Vec::new();
    discards_impl(c, melds, visible, void, Some(lowest_of), &mut out);
    Ok(out)
}

/// [`best_discards_unchecked`], or with `lowest_of = Some(set)` (bit k = kind k) the ukeire
/// only of the kinds of `set` whose shanten is the lowest among `set` (every other row has
/// ukeire 0): all a ranking by (shanten, −ukeire, …) over `set` reads.
///
/// Everything works on packed distances ([`lanes`]), one suit at a time, with the hand's own
/// suits evaluated once ([`Hand::new`]); a discard changes only its own suit, so each
/// discard costs one lookup (its suit's new distances and draw masks) and a few lane-wise
/// operations ([`Hand::discard`]):
/// - **shanten**: per allowed void, the standard form's count is the least lane of
///   `S(m, p) = d_a(m, p) + d_b(sets − m, 1 − p)` over the two kept suits. A discard leaves
///   the hand's count `m14` or one more, and it is `m14` exactly when a lane of a new `S`
///   still equals `m14` (or the discarded suit is the void's and that void reached it, or
///   seven pairs does).
/// - **ukeire**: a draw changes one suit's distances by at most one, so it lowers a count
///   `miss13` exactly when it lowers that suit's distance at a *tight* lane (`S = miss13`).
///   The kinds that lower it are the union, over the tight lanes of each suit, of the
///   suit's draw masks ("which added rank lowers this distance", [`draw_masks`]) — the
///   discarded suit's from its new configuration, every other suit's from the hand's own.
///
/// On x86-64 a copy compiled with the bit-manipulation instructions of every x86-64 CPU since
/// about 2013 (`popcnt`, `bmi1`, `bmi2`, `lzcnt`) runs where the CPU has them (detected once):
/// the ukeire sums and the bit loops are then single instructions.
pub(crate) fn discards_impl(
    c: &Counts,
    melds: &[Meld],
    visible: &Counts,
    void: Option<u8>,
    lowest_of: Option<u32>,
    out: &mut Vec<Discard>,
) {
    #[cfg(target_arch = "x86_64")]
    if bit_instructions() {
        // SAFETY: the CPU has every feature `discards_bmi` is compiled with.
        return unsafe { discards_bmi(c, melds, visible, void, lowest_of, out) };
    }
    discards_body(c, melds, visible, void, lowest_of, out)
}

/// The CPU has `popcnt`, `bmi1`, `bmi2` and `lzcnt` (detected once, then a cached load).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn bit_instructions() -> bool {
    std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
}

/// [`discards_body`] compiled with the bit-manipulation instructions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt")]
fn discards_bmi(
    c: &Counts,
    melds: &[Meld],
    visible: &Counts,
    void: Option<u8>,
    lowest_of: Option<u32>,
    out: &mut Vec<Discard>,
) {
    discards_body(c, melds, visible, void, lowest_of, out)
}

/// [`discards_impl`] for any CPU.
#[inline(always)]
fn discards_body(
    c: &Counts,
    melds: &[Meld],
    visible: &Counts,
    void: Option<u8>,
    lowest_of: Option<u32>,
    out: &mut Vec<Discard>,
) {
    out.clear();
    let allowed = allowed_voids(melds, void);
    let sd = SuitDists::new(melds);
    let km = KindMasks::new(c, visible, &sd.cap);
    if allowed == 0 {
        out.extend(bits(km.held).map(|k| Discard {
            kind: k as u8,
            shanten: UNREACHABLE,
            ukeire: 0,
        }));
        return;
    }
    let hand = Hand::new(c, melds, visible, allowed, sd, km);
    let mut cache = None; // capped suits only
                          // Every discard's lookup first (its suit's new distances and draw masks), so that their
                          // cache misses overlap.
    let mut entries = [(0usize, 0u128); 14];
    let mut n = 0;
    for k in bits(km.held) {
        entries[n] = (k, hand.entry(k));
        n += 1;
    }
    let entries = &entries[..n];
    let Some(set) = lowest_of else {
        for &(k, e) in entries {
            let (miss, ukeire) = hand.discard(k, e, u8::MAX, &mut cache);
            out.push(Discard {
                kind: k as u8,
                shanten: miss as i8 - 1,
                ukeire,
            });
        }
        return;
    };
    // Every row's count first (`limit` 0: a 13-tile hand misses at least one tile, so no
    // ukeire), then the ukeire of the rows of `set` of the lowest count among `set`.
    out.extend(entries.iter().map(|&(k, e)| Discard {
        kind: k as u8,
        shanten: hand.discard(k, e, 0, &mut cache).0 as i8 - 1,
        ukeire: 0,
    }));
    let lowest = out
        .iter()
        .filter(|d| set & (1 << d.kind) != 0)
        .map(|d| d.shanten)
        .min();
    for (row, &(k, e)) in out.iter_mut().zip(entries) {
        if set & (1 << k) != 0 && Some(row.shanten) == lowest {
            row.ukeire = hand.discard(k, e, u8::MAX, &mut cache).1;
        }
    }
}

/// Per kind, as 27-bit masks: held, odd counts, worth drawing (a copy unseen, room under the
/// melds' caps), and the ukeire weights `4 − held − visible` as three bit planes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct KindMasks {
    held: u32,
    odd: u32,
    room: u32,
    weight: [u32; 3],
}

impl KindMasks {
    #[inline(always)]
    fn new(c: &Counts, visible: &Counts, cap: &[u8; 27]) -> KindMasks {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            KindMasks::new_sse2(c, visible, cap)
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        {
            KindMasks::new_swar(c, visible, cap)
        }
    }

    /// With SSE2 (every x86-64): sixteen kinds per compare, one bit per kind by move mask;
    /// the two loads (kinds 0–15 and 11–26) overlap.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    fn new_sse2(c: &Counts, visible: &Counts, cap: &[u8; 27]) -> KindMasks {
        use std::arch::x86_64::*;
        let half = |at: usize| -> [u32; 6] {
            let load = |a: &[u8; 27]| {
                let lo = u64::from_le_bytes(a[at..at + 8].try_into().unwrap());
                let hi = u64::from_le_bytes(a[at + 8..at + 16].try_into().unwrap());
                (lo, hi)
            };
            let ((c0, c1), (v0, v1), (k0, k1)) = (load(c), load(visible), load(cap));
            // SAFETY: only compiled where SSE2 is enabled (every x86-64 target); the
            // intrinsics read nothing but their register arguments.
            unsafe {
                let cw = _mm_set_epi64x(c1 as i64, c0 as i64);
                let seen = _mm_add_epi8(cw, _mm_set_epi64x(v1 as i64, v0 as i64));
                let capw = _mm_set_epi64x(k1 as i64, k0 as i64);
                let four = _mm_set1_epi8(4);
                // Counts are at most 8 here, so the signed compares are exact.
                let roomy = _mm_and_si128(_mm_cmplt_epi8(cw, capw), _mm_cmplt_epi8(seen, four));
                let w = _mm_and_si128(_mm_sub_epi8(four, seen), roomy);
                let bits = |x: __m128i| _mm_movemask_epi8(x) as u32;
                [
                    !bits(_mm_cmpeq_epi8(cw, _mm_setzero_si128())) & 0xffff,
                    bits(_mm_slli_epi16::<7>(cw)),
                    bits(roomy),
                    bits(_mm_slli_epi16::<7>(w)),
                    bits(_mm_slli_epi16::<6>(w)),
                    bits(_mm_slli_epi16::<5>(w)),
                ]
            }
        };
        let (a, b) = (half(0), half(11));
        let m = |i: usize| a[i] | b[i] << 11;
        KindMasks {
            held: m(0),
            odd: m(1),
            room: m(2),
            weight: [m(3), m(4), m(5)],
        }
    }

    /// Byte-lane arithmetic on eight kinds at a time.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    #[inline(always)]
    fn new_swar(c: &Counts, visible: &Counts, cap: &[u8; 27]) -> KindMasks {
        let (mut held, mut odd, mut room) = (0u32, 0u32, 0u32);
        let mut weight = [0u32; 3];
        for (i, at) in [(0, 0), (8, 8), (16, 16), (19, 24)] {
            let word = |a: &[u8; 27]| {
                let w = u64::from_le_bytes(a[i..i + 8].try_into().unwrap());
                if i == 19 {
                    w >> 40 // kinds 24–26 in lanes 0–2
                } else {
                    w
                }
            };
            let (cw, vw, capw) = (word(c), word(visible), word(cap));
            let seen = cw + vw;
            let roomy = bytes::lt(cw, capw) & bytes::lt(seen, 4 * bytes::ONES);
            let w = ((4 * bytes::ONES) | bytes::HIGH).wrapping_sub(seen) & bytes::widen(roomy);
            held |= bytes::gather(bytes::nonzero(cw)) << at;
            odd |= bytes::gather((cw & bytes::ONES) << 7) << at;
            room |= bytes::gather(roomy) << at;
            for (b, plane) in weight.iter_mut().enumerate() {
                *plane |= bytes::gather((w >> b & bytes::ONES) << 7) << at;
            }
        }
        KindMasks {
            held,
            odd,
            room,
            weight,
        }
    }
}

/// What [`Hand::discard`] reads of a 14-tile hand, computed once.
struct Hand<'a> {
    c: &'a Counts,
    visible: &'a Counts,
    sd: SuitDists,
    km: KindMasks,
    t: &'static SuitTables,
    draw_masks: &'static [u128],
    sets: usize,
    /// Seven pairs can reach `m14 + 1` after a discard (no melds and enough pairs): without
    /// 7 − (pairs held) ≥ m14 + 2 tiles missing, it never decides a shanten or an ukeire.
    seven: bool,
    allowed: u8,
    /// The lanes `(m, p)` with `m ≤ sets` (bit `2m + p`).
    valid: u32,
    codes: [(u32, u32); 3],
    suit_tiles: [u32; 3],
    /// Per suit: packed distances (exact for a capped suit) and its [`draw_masks`] entry (an
    /// uncapped suit; no masks at 14 tiles; 0 for a capped suit).
    dp: [u128; 3],
    dm: [u128; 3],
    /// `dp` in the partner's view ([`lanes::partner`]).
    pdp: [u128; 3],
    /// Per suit s: the allowed voids other than s (bit v).
    voids_besides: [u8; 3],
    /// The standard form's count per void (`u8::MAX` where not allowed) and the hand's count.
    per_void: [u8; 3],
    m14: u8,
    /// `tight[v][j][s]`: the lanes (bit `2m + p`) of kept suit `s`, in its own orientation,
    /// where void `v`'s `S` equals `m14 + j`; zero where `v` is not allowed, and at `s = v`.
    tight: [[[u32; 3]; 2]; 3],
    ps14: [(u8, u8); 3],
}

/// Per capped suit and lane the ranks whose draw may lower the hand's own distance there
/// ([`fill_low`], on first need), and the exact distances of the hand plus one kind (on
/// first need).
struct CappedCache {
    low: [[u16; 10]; 3],
    low_done: u8,
    exact: [u128; 27],
    exact_done: u32,
}

impl CappedCache {
    /// The ranks of suit `u` whose draw can lower its distance at some lane of `f` (from
    /// [`fill_low`], computed once per suit and hand; `own`: the suit's exact distances).
    #[inline(always)]
    fn low_at(&mut self, c: &Counts, room: u32, u: usize, own: u128, f: u32) -> u32 {
        if self.low_done & (1 << u) == 0 {
            fill_low(c, room, u, own, &mut self.low[u]);
            self.low_done |= 1 << u;
        }
        let mut m = 0u32;
        for l in bits(f) {
            m |= self.low[u][l] as u32;
        }
        m
    }
}

impl<'a> Hand<'a> {
    #[inline(always)]
    fn new(
        c: &'a Counts,
        melds: &[Meld],
        visible: &'a Counts,
        allowed: u8,
        sd: SuitDists,
        km: KindMasks,
    ) -> Hand<'a> {
        let t = tables();
        let draw_masks = draw_masks();
        let sets = 4 - melds.len();
        let seven = melds.is_empty();
        let valid = (1u32 << (2 * sets + 2)) - 1;
        let codes: [(u32, u32); 3] = std::array::from_fn(|s| split_code(&c[s * 9..s * 9 + 9]));
        let suit_tiles: [u32; 3] = std::array::from_fn(|s| {
            let w = u64::from_le_bytes(c[s * 9..s * 9 + 8].try_into().unwrap());
            (w.wrapping_mul(bytes::ONES) >> 56) as u32 + c[s * 9 + 8] as u32
        });
        let mut dp = [0u128; 3];
        let mut dm = [0u128; 3];
        for s in 0..3 {
            if sd.is_capped(s) {
                dp[s] = sd.packed(c, s);
            } else {
                // One entry holds both (no draw masks for 14 tiles).
                let entry = draw_masks[t.rank_code(codes[s])];
                dp[s] = t.packed((entry >> DRAW_DIST_SHIFT) as u32);
                dm[s] = entry;
            }
        }
        let ps14 = pair_stats(c);
        let mut sums = [0u128; 3];
        let mut per_void = [u8::MAX; 3];
        for v in 0..3 {
            if allowed & (1 << v) != 0 {
                let (a, b) = ((v + 1) % 3, (v + 2) % 3);
                sums[v] = dp[a] + lanes::partner(dp[b], sets);
                per_void[v] = lanes::least(sums[v], sets);
            }
        }
        let seven14 = if seven {
            SevenPairs::new(&ps14, allowed).missing
        } else {
            u8::MAX
        };
        let m14 = per_void
            .iter()
            .copied()
            .min()
            .unwrap_or(u8::MAX)
            .min(seven14);
        let pairs: u8 = ps14.iter().map(|p| p.0).sum();
        let seven = seven && 7u8.saturating_sub(pairs) <= m14.saturating_add(1);
        let mut tight = [[[0u32; 3]; 2]; 3];
        for v in 0..3 {
            if allowed & (1 << v) != 0 {
                let (a, b) = ((v + 1) % 3, (v + 2) % 3);
                for (j, tj) in tight[v].iter_mut().enumerate() {
                    let e = lanes::eq_bits(sums[v], m14 + j as u8) & valid;
                    tj[a] = e;
                    tj[b] = lanes::partner_bits(e, sets);
                }
            }
        }
        Hand {
            c,
            visible,
            sd,
            km,
            t,
            draw_masks,
            sets,
            seven,
            allowed,
            valid,
            codes,
            suit_tiles,
            dp,
            dm,
            pdp: dp.map(|x| lanes::partner(x, sets)),
            voids_besides: std::array::from_fn(|s| allowed & !(1 << s)),
            per_void,
            m14,
            tight,
            ps14,
        }
    }

    /// The [`draw_masks`] entry of the discarded suit once one tile of kind `k` is gone (its
    /// new distances and draw masks); for a capped suit its exact distances, packed.
    #[inline(always)]
    fn entry(&self, k: usize) -> u128 {
        let s = k / 9;
        if self.sd.is_capped(s) {
            let mut h = *self.c;
            h[k] -= 1;
            self.sd.packed(&h, s)
        } else {
            self.draw_masks[self.t.rank_code(minus_code(self.codes[s], k - 9 * s))]
        }
    }

    /// The missing count of the hand less one tile of kind `k` (whose [`Hand::entry`] is
    /// `dm`), and its ukeire when that count is at most `limit` (else 0).
    #[inline(always)]
    fn discard(&self, k: usize, dm: u128, limit: u8, cache: &mut Option<CappedCache>) -> (u8, u32) {
        let (c, sets, allowed, m14) = (self.c, self.sets, self.allowed, self.m14);
        let s = k / 9;
        let d = if self.sd.is_capped(s) {
            dm // the exact distances (see `entry`)
        } else {
            self.t.packed((dm >> DRAW_DIST_SHIFT) as u32)
        };
        let ps = if self.seven {
            pairs_after(&self.ps14, c[k], s)
        } else {
            self.ps14 // not read
        };
        let seven13 = if self.seven {
            SevenPairs::new(&ps, allowed).missing
        } else {
            u8::MAX
        };
        // Per void v ≠ s that is allowed: the lanes of s where the new S is m14, m14 + 1.
        let mut eq = [[0u32; 2]; 3];
        let mut keeps = (allowed & (1 << s) != 0 && self.per_void[s] == m14) || seven13 <= m14;
        for v in bits(self.voids_besides[s] as u32) {
            let e = &mut eq[v];
            {
                let sum = d + self.pdp[3 - s - v];
                e[0] = lanes::eq_bits(sum, m14) & self.valid;
                e[1] = lanes::eq_bits(sum, m14 + 1) & self.valid;
                keeps |= e[0] != 0;
            }
        }
        let j = !keeps as usize;
        let miss = m14 + j as u8;
        if miss > limit {
            return (miss, 0);
        }
        // The tight lanes of each suit a draw can go to.
        let mut f = self.tight[s][j];
        for v in bits(self.voids_besides[s] as u32) {
            f[s] |= eq[v][j];
            f[3 - s - v] |= lanes::partner_bits(eq[v][j], sets);
        }
        let km = self.km;
        let k_room = (c[k] - 1 < self.sd.cap[k] && c[k] - 1 + self.visible[k] < 4) as u32;
        let room13 = km.room | k_room << k;
        let odd13 = km.odd ^ 1 << k;
        let sp = if self.seven {
            SevenPairs::draws(&ps, allowed, miss)
        } else {
            0
        };
        let mut lowers = 0u32; // kinds whose draw lowers the count
        for (u, &fu) in f.iter().enumerate() {
            let mut m = if fu == 0 {
                0
            } else if !self.sd.is_capped(u) {
                union(if u == s { dm } else { self.dm[u] }, fu)
            } else {
                self.capped_lowers(u, k, d, fu, room13, cache)
            };
            if sp != 0 {
                let odd_u = (odd13 >> (9 * u)) & 0x1ff;
                if sp & (1 << u) != 0 {
                    m |= odd_u;
                }
                if sp & (8 << u) != 0 {
                    m |= !odd_u & 0x1ff;
                }
            }
            lowers |= m << (9 * u);
        }
        lowers &= room13;
        // The weights are the hand's; the discarded kind has one copy more left to draw.
        let others = lowers & !(1 << k);
        let mut ukeire = (others & km.weight[0]).count_ones()
            + 2 * (others & km.weight[1]).count_ones()
            + 4 * (others & km.weight[2]).count_ones();
        if lowers & (1 << k) != 0 {
            ukeire += (4 - (c[k] - 1) - self.visible[k]) as u32;
        }
        (miss, ukeire)
    }

    /// The ranks of capped suit `u` whose draw lowers its distance at a lane of `f` (the
    /// discard `k` taken, which leaves `d13` as the discarded suit's distances): candidates
    /// from the table's distances (lower bounds of the exact ones), then the exact ones.
    #[inline(never)]
    fn capped_lowers(
        &self,
        u: usize,
        k: usize,
        d13: u128,
        f: u32,
        room13: u32,
        cache: &mut Option<CappedCache>,
    ) -> u32 {
        let (c, t) = (self.c, self.t);
        let sd = &self.sd;
        let room = self.km.room;
        let cc = cache.get_or_insert_with(|| CappedCache {
            low: [[0; 10]; 3],
            low_done: 0,
            exact: [0; 27],
            exact_done: 0,
        });
        let ranks = (room13 >> (9 * u)) & 0x1ff;
        let own = self.dp[u];
        if u != k / 9 {
            // The hand's own configuration plus one tile of each rank.
            let mut m = cc.low_at(c, room, u, own, f) & ranks;
            for r in bits(m) {
                let tk = u * 9 + r;
                if cc.exact_done & (1 << tk) == 0 {
                    cc.exact[tk] = sd.packed_plus(c, tk);
                    cc.exact_done |= 1 << tk;
                }
                if lanes::lt_bits(cc.exact[tk], own) & f == 0 {
                    m &= !(1 << r);
                }
            }
            return m;
        }
        // The discarded suit: drawing the discarded kind back restores the hand's own suit.
        let r0 = k - 9 * u;
        let mut m = 0u32;
        if ranks & (1 << r0) != 0 && lanes::lt_bits(own, d13) & f != 0 {
            m |= 1 << r0;
        }
        let mut cand = ranks & !(1 << r0);
        // Where the discard left a lane at the hand's own distance, a draw's new distance
        // there is at least the hand's own suit plus that rank (removing a tile never
        // lowers a distance), so only the ranks of `low` can lower it.
        if self.suit_tiles[u] <= 13 && lanes::lt_bits(own, d13) & f == 0 {
            cand &= cc.low_at(c, room, u, own, f);
        }
        if cand != 0 {
            // Only a draw that lowers the table's distances (lower bounds of the exact ones)
            // can lower the exact ones: see `table_lowers`.
            let (lo, hi) = minus_code(self.codes[u], r0);
            cand &= table_lowers(self.draw_masks[t.rank(lo, hi)], d13, f, cand);
            let mut h = *c;
            h[k] -= 1;
            for r in bits(cand) {
                if lanes::lt_bits(sd.packed_plus(&h, u * 9 + r), d13) & f != 0 {
                    m |= 1 << r;
                }
            }
        }
        m
    }
}

/// The union of the draw masks `dm` ([`draw_masks`]: nine ranks per lane) over the lanes of
/// `g` (bit l = lane l): the ranks whose draw lowers one of those distances.
#[inline(always)]
fn union(dm: u128, g: u32) -> u32 {
    /// Per five lanes (bit i = lane i): their nine-bit fields set.
    const SPREAD5: [u64; 32] = {
        let mut t = [0u64; 32];
        let mut i = 0;
        while i < 32 {
            let mut l = 0;
            while l < 5 {
                if i & (1 << l) != 0 {
                    t[i] |= 0x1ff << (9 * l);
                }
                l += 1;
            }
            i += 1;
        }
        t
    };
    let g = g as usize;
    let x = (dm as u64 & SPREAD5[g & 31]) | ((dm >> 45) as u64 & SPREAD5[g >> 5]);
    // Fold the five fields onto the first.
    let x = x | x >> 27;
    let x = x | x >> 18;
    ((x | x >> 9) & 0x1ff) as u32
}

/// Fills `low` for suit `s` (whose exact distances are `own`): per lane, the ranks of `room`
/// whose draw lowers the table's distance of `c`'s suit `s` below `own` there (a superset of
/// the draws that lower the exact distance: the table's are lower bounds), once per hand.
#[inline(never)]
fn fill_low(c: &Counts, room: u32, s: usize, own: u128, low: &mut [u16; 10]) {
    let t = tables();
    let ranks = (room >> (9 * s)) & 0x1ff;
    let entry = draw_masks()[t.rank_code(split_code(&c[s * 9..s * 9 + 9]))];
    for (l, x) in low.iter_mut().enumerate() {
        *x = table_lowers(entry, own, 1 << l, ranks) as u16;
    }
}

/// Of the ranks `ranks` of a suit whose [`draw_masks`] entry is `entry` (its table distances
/// and draw masks), those whose draw brings the table's distance below `target` at a lane of
/// `f`. A draw never raises a distance: where `target` exceeds the table's distance, every
/// draw does; where they are equal, the draws of the lane's mask do. One load instead of a
/// table read per rank.
#[inline(always)]
fn table_lowers(entry: u128, target: u128, f: u32, ranks: u32) -> u32 {
    let t = tables();
    let table = t.packed((entry >> DRAW_DIST_SHIFT) as u32);
    if lanes::lt_bits(table, target) & f != 0 {
        ranks
    } else {
        union(entry, f) & ranks
    }
}

/// The split code of a suit ([`split_code`]) less one tile of rank `r`.
#[inline(always)]
fn minus_code((lo, hi): (u32, u32), r: usize) -> (u32, u32) {
    const P5: [u32; 5] = [1, 5, 25, 125, 625];
    if r < 4 {
        (lo - P5[r], hi)
    } else {
        (lo, hi - P5[r - 4])
    }
}

/// [`pair_stats`] after discarding one tile of a kind held `x` times in suit `s`.
#[inline(always)]
fn pairs_after(ps: &[(u8, u8); 3], x: u8, s: usize) -> [(u8, u8); 3] {
    let mut p = *ps;
    p[s].0 = p[s].0 + ((x - 1) >> 1) - (x >> 1);
    p[s].1 = p[s].1 + ((x - 1) & 1) - (x & 1);
    p
}

/// Seven pairs of a hand from its [`pair_stats`], per allowed void `v`: with `full` pairs and
/// `odd` odd counts in the two kept suits (`need = 7 − full`), the count is `need` when
/// `odd ≥ need`, else `odd + 2 (need − odd)`.
struct SevenPairs {
    /// The lowest count over the allowed voids.
    missing: u8,
}

impl SevenPairs {
    /// `(full, odd, count)` keeping the two suits other than `v`.
    #[inline(always)]
    fn of_void(ps: &[(u8, u8); 3], v: usize) -> (u8, u8, u8) {
        let (a, b) = (ps[(v + 1) % 3], ps[(v + 2) % 3]);
        let (full, odd) = (a.0 + b.0, a.1 + b.1);
        if full >= 7 {
            return (full, odd, 0);
        }
        let need = 7 - full;
        let one = need.min(odd);
        (full, odd, one + 2 * (need - one))
    }

    #[inline(always)]
    fn new(ps: &[(u8, u8); 3], allowed: u8) -> SevenPairs {
        let mut missing = u8::MAX;
        for v in 0..3 {
            if allowed & (1 << v) != 0 {
                missing = missing.min(Self::of_void(ps, v).2);
            }
        }
        SevenPairs { missing }
    }

    /// Which draws lower the count of a 13-tile hand whose missing count is `miss13`: bit s
    /// drawing onto an odd count of suit s, bit 3 + s onto an even one. A draw into `s` counts
    /// only for the voids `v ≠ s` whose count is `miss13` (dropping `s` ignores the draw);
    /// there pairing an odd count always lowers it (while `need ≥ 1`), a new single only
    /// while `odd < need`.
    #[inline(always)]
    fn draws(ps: &[(u8, u8); 3], allowed: u8, miss13: u8) -> u8 {
        let mut lowers = 0u8;
        for v in 0..3 {
            if allowed & (1 << v) == 0 {
                continue;
            }
            let (full, odd, count) = Self::of_void(ps, v);
            if full >= 7 || count != miss13 {
                continue;
            }
            let others = 7 & !(1u8 << v);
            lowers |= others;
            if odd < 7 - full {
                lowers |= others << 3;
            }
        }
        lowers
    }
}

/// The set bits of `m`, lowest first.
#[inline(always)]
fn bits(m: u32) -> Bits {
    Bits(m)
}

/// Iterator of [`bits`].
struct Bits(u32);

impl Iterator for Bits {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(b)
    }
}

/// Byte-lane arithmetic on eight kinds' counts in a `u64` (every lane below 128).
// Parts serve only the portable paths, which x86-64 compiles (and tests) without running.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
mod bytes {
    pub const ONES: u64 = 0x0101_0101_0101_0101;
    pub const HIGH: u64 = ONES * 0x80;

    /// 0x80 in each lane where `a < b`.
    #[inline(always)]
    pub fn lt(a: u64, b: u64) -> u64 {
        ((b | HIGH) - a - ONES) & HIGH
    }

    /// 0x80 in each nonzero lane.
    #[inline(always)]
    pub fn nonzero(a: u64) -> u64 {
        (a + ONES * 0x7f) & HIGH
    }

    /// 0xff in each lane whose high bit is set in `flags` (high bits only).
    #[inline(always)]
    pub fn widen(flags: u64) -> u64 {
        (flags - (flags >> 7)) | flags
    }

    /// One bit per lane (bit j for lane j) from high-bit flags: the multiply collects them.
    #[inline(always)]
    pub fn gather(flags: u64) -> u32 {
        (((flags >> 7) & ONES).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
    }
}

/// Byte-lane arithmetic on packed distances: `d(m, p)` in byte `2m + p` of a `u128`
/// ([`crate::suit_table::SuitTables::packed`]). Every lane stays below 128, so subtracting
/// from `x | HIGH` never borrows across lanes.
// Parts serve only the portable paths, which x86-64 compiles (and tests) without running.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
mod lanes {
    pub const ONES: u128 = u128::from_le_bytes([1; 16]);
    pub const HIGH: u128 = ONES * 0x80;

    /// 0x80 in each lane where `a < b`.
    #[inline(always)]
    pub fn lt(a: u128, b: u128) -> u128 {
        ((b | HIGH) - a - ONES) & HIGH
    }

    /// 0xff in each lane whose high bit is set in `flags` (high bits only).
    #[inline(always)]
    fn widen(flags: u128) -> u128 {
        (flags - (flags >> 7)) | flags
    }

    /// The indices of the lanes (0–9) whose high bit is set in `flags` (high bits only).
    #[inline(always)]
    pub fn indices(flags: u128) -> impl Iterator<Item = usize> {
        use super::bytes::gather;
        super::bits(gather(flags as u64) | gather((flags >> 64) as u64) << 8)
    }

    /// 0x80 in each nonzero lane.
    #[inline(always)]
    pub fn nonzero(a: u128) -> u128 {
        (a + ONES * 0x7f) & HIGH
    }

    /// The lanes equal to `v` (bit l = lane l): one compare and a move mask with SSE2 (part
    /// of every x86-64), else byte-lane arithmetic.
    #[inline(always)]
    pub fn eq_bits(a: u128, v: u8) -> u32 {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            eq_bits_sse2(a, v)
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        {
            eq_bits_swar(a, v)
        }
    }

    /// [`eq_bits`] with SSE2.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    pub fn eq_bits_sse2(a: u128, v: u8) -> u32 {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x};
        // SAFETY: only compiled where SSE2 is enabled (every x86-64 target); the intrinsics
        // read nothing but their register arguments.
        unsafe {
            let x = _mm_set_epi64x((a >> 64) as i64, a as i64);
            _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(v as i8))) as u32
        }
    }

    /// [`eq_bits`] without SIMD.
    #[inline(always)]
    pub fn eq_bits_swar(a: u128, v: u8) -> u32 {
        gather(!nonzero(a ^ (ONES * v as u128)) & HIGH)
    }

    /// The lanes where `a < b` (bit l = lane l).
    #[inline(always)]
    pub fn lt_bits(a: u128, b: u128) -> u32 {
        gather(lt(a, b))
    }

    /// One bit per lane (bit l for lane l, 0–15) from high-bit flags.
    #[inline(always)]
    pub fn gather(flags: u128) -> u32 {
        use super::bytes::gather;
        gather(flags as u64) | gather((flags >> 64) as u64) << 8
    }

    /// [`partner`] on lane bits: bit `l` to bit `2 sets + 1 − l` (lanes past `sets` clear).
    #[inline(always)]
    pub fn partner_bits(g: u32, sets: usize) -> u32 {
        ((g as u16).reverse_bits() >> (14 - 2 * sets)) as u32
    }

    /// The least of the lanes `(m, p)` with `m ≤ sets`: the others raised to 0x7f, then
    /// halves folded onto each other.
    #[inline(always)]
    pub fn least(d: u128, sets: usize) -> u8 {
        let x = d | ((ONES * 0x7f) & !(valid(sets) * 0xff));
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            least_sse2(x)
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        {
            least_swar(x)
        }
    }

    /// The least of all sixteen lanes, with SSE2.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[inline(always)]
    pub fn least_sse2(x: u128) -> u8 {
        use std::arch::x86_64::{_mm_cvtsi128_si32, _mm_min_epu8, _mm_set_epi64x, _mm_srli_si128};
        // SAFETY: only compiled where SSE2 is enabled (every x86-64 target); the intrinsics
        // read nothing but their register arguments.
        unsafe {
            let v = _mm_set_epi64x((x >> 64) as i64, x as i64);
            let v = _mm_min_epu8(v, _mm_srli_si128::<8>(v));
            let v = _mm_min_epu8(v, _mm_srli_si128::<4>(v));
            let v = _mm_min_epu8(v, _mm_srli_si128::<2>(v));
            let v = _mm_min_epu8(v, _mm_srli_si128::<1>(v));
            _mm_cvtsi128_si32(v) as u8
        }
    }

    /// The least of all sixteen lanes, without SIMD.
    #[inline(always)]
    pub fn least_swar(x: u128) -> u8 {
        let x = min(x, x >> 64) as u64;
        let min8 = |a: u64, b: u64| {
            use super::bytes;
            let a_lt = bytes::widen(bytes::lt(a, b));
            (a & a_lt) | (b & !a_lt)
        };
        let x = min8(x, x >> 32);
        let x = min8(x, x >> 16);
        min8(x, x >> 8) as u8
    }

    /// Lane-wise minimum.
    #[inline(always)]
    fn min(a: u128, b: u128) -> u128 {
        let a_lt = widen(lt(a, b));
        (a & a_lt) | (b & !a_lt)
    }

    /// One in each lane `(m, p)` with `m ≤ sets`.
    #[inline(always)]
    pub fn valid(sets: usize) -> u128 {
        ONES & ((1u128 << (16 * (sets + 1))) - 1)
    }

    /// The partner's view: lane `(m, p)` gets lane `(sets − m, 1 − p)` (`2m + p` ↦
    /// `2 sets + 1 − (2m + p)`, a byte reversal), lanes past `sets` zero.
    #[inline(always)]
    pub fn partner(d: u128, sets: usize) -> u128 {
        d.swap_bytes() >> (8 * (14 - 2 * sets))
    }
}

/// Per-suit distances of concealed configurations under the melds' four-copies caps: the
/// shared table, or [`suit_dist_capped`] for a suit holding a meld kind.
struct SuitDists {
    cap: [u8; 27],
    /// Suits (bit s) holding a meld kind.
    capped: u8,
}

impl SuitDists {
    fn new(melds: &[Meld]) -> SuitDists {
        let mut cap = [4u8; 27];
        let mut capped = 0u8;
        for m in melds {
            cap[m.kind as usize] = 4u8.saturating_sub(m.copies());
            capped |= 1 << (m.kind / 9);
        }
        SuitDists { cap, capped }
    }

    /// The packed distances ([`lanes`]) of suit `s` of `h`: exact for a capped suit.
    #[inline]
    fn packed(&self, h: &Counts, s: usize) -> u128 {
        let hs = &h[s * 9..s * 9 + 9];
        if self.capped & (1 << s) != 0 {
            suit_dist_capped_packed(hs, &self.cap[s * 9..s * 9 + 9])
        } else {
            let t = tables();
            t.packed(t.record(hs))
        }
    }

    #[inline(always)]
    fn is_capped(&self, s: usize) -> bool {
        self.capped & (1 << s) != 0
    }

    /// Exact packed distances of the suit of kind `t` in `h` plus one tile `t`.
    fn packed_plus(&self, h: &Counts, t: usize) -> u128 {
        let mut h2 = *h;
        h2[t] += 1;
        self.packed(&h2, t / 9)
    }
}

/// The `greedy` strategy's discard (one call per turn): which legal discard it throws and the
/// lowest shanten any legal discard leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GreedyChoice {
    /// The kind to discard.
    pub kind: u8,
    /// The lowest shanten over the legal discards (`None` when the ranking was not needed: a
    /// void-suit tile chosen by isolation alone).
    pub shanten: Option<i8>,
}

/// `greedy`'s discard among the kinds of `legal` (bit k = kind k may be discarded), all held.
///
/// Ranking, in order:
/// 1. **Void suit first** (R4.2): when a legal kind is of the `void` suit only those count.
///    With `isolate_void` they are ranked by isolation alone ([`most_isolated`]: no shanten
///    or ukeire is computed, as every void-suit tile keeps the shanten).
/// 2. Otherwise by [`best_discards`]: the lowest shanten, then the most ukeire, then a
///    terminal, then the lowest kind.
///
/// ```
/// use xuezhan_core::{greedy_discard, parse_counts};
/// let c = parse_counts("123456789m11p23p5s").unwrap();
/// let legal = (0..27).filter(|&k| c[k] > 0).fold(0u32, |m, k| m | 1 << k);
/// let g = greedy_discard(&c, &[], &[0; 27], None, legal, true).unwrap();
/// assert_eq!((g.kind, g.shanten), (22, Some(0))); // 5s: ready on 1p/4p
/// let v = greedy_discard(&c, &[], &[0; 27], Some(2), legal, true).unwrap();
/// assert_eq!((v.kind, v.shanten), (22, None)); // void s: its only tile goes first
/// ```
pub fn greedy_discard(
    c: &Counts,
    melds: &[Meld],
    visible: &Counts,
    void: Option<u8>,
    legal: u32,
    isolate_void: bool,
) -> Result<GreedyChoice, EvalError> {
    validate(c, melds, void, Size::Fourteen)?;
    check_visible(visible)?;
    check_legal(c, legal)?;
    let mut out = Vec::with_capacity(14);
    Ok(greedy_discard_unchecked(
        c,
        melds,
        visible,
        void,
        legal,
        isolate_void,
        &mut out,
    ))
}

/// [`greedy_discard`] without validation (`legal` non-empty and held); `rows` is scratch.
pub fn greedy_discard_unchecked(
    c: &Counts,
    melds: &[Meld],
    visible: &Counts,
    void: Option<u8>,
    legal: u32,
    isolate_void: bool,
    rows: &mut Vec<Discard>,
) -> GreedyChoice {
    if let Some(v) = void {
        let suit = 0x1ffu32 << (9 * v as u32);
        if legal & suit != 0 {
            if isolate_void {
                return GreedyChoice {
                    kind: most_isolated(c, legal & suit),
                    shanten: None,
                };
            }
            // the lowest shanten is over every legal discard; the choice among the void suit's
            let (kind, now) = lowest(c, melds, visible, Some(v), legal, legal & suit, rows);
            return GreedyChoice {
                kind,
                shanten: Some(now),
            };
        }
    }
    let (kind, now) = lowest(c, melds, visible, void, legal, legal, rows);
    GreedyChoice {
        kind,
        shanten: Some(now),
    }
}

#[inline]
pub(crate) fn is_terminal(k: u8) -> bool {
    matches!(k % 9, 0 | 8)
}

/// Fills `rows` as [`best_discards_unchecked`] does (the ukeire only where the ranking over
/// `rank` reads it) and returns (the best kind of `rank`, the lowest shanten over `legal`).
fn lowest(
    c: &Counts,
    melds: &[Meld],
    visible: &Counts,
    void: Option<u8>,
    legal: u32,
    rank: u32,
    rows: &mut Vec<Discard>,
) -> (u8, i8) {
    discards_impl(c, melds, visible, void, Some(rank), rows);
    let now = rows
        .iter()
        .filter(|d| legal & (1 << d.kind) != 0)
        .map(|d| d.shanten)
        .min()
        .unwrap_or(99);
    (lowest_ranked(rows, rank), now)
}

/// The legal row with the least (shanten, −ukeire, −terminal, kind); the highest legal kind if
/// no row is legal (cannot happen when every legal kind is held).
fn lowest_ranked(rows: &[Discard], legal: u32) -> u8 {
    rows.iter()
        .filter(|d| legal & (1 << d.kind) != 0)
        .min_by_key(|d| {
            (
                d.shanten,
                std::cmp::Reverse(d.ukeire),
                !is_terminal(d.kind),
                d.kind,
            )
        })
        .map(|d| d.kind)
        .unwrap_or_else(|| (31 - legal.leading_zeros()) as u8)
}

/// The most isolated kind of the set `kinds` (bit k): fewest tiles within two ranks in its
/// suit (itself excluded), then fewest copies, then a terminal, then the lowest kind.
pub fn most_isolated(c: &Counts, kinds: u32) -> u8 {
    let mut best = (u32::MAX, 0u8, true, 0u8);
    for k in 0..27u8 {
        if kinds & (1 << k) == 0 {
            continue;
        }
        let ku = k as usize;
        let lo = ku - ku % 9;
        let a = ku.saturating_sub(2).max(lo);
        let b = (ku + 2).min(lo + 8);
        let near = c[a..=b].iter().map(|&x| x as u32).sum::<u32>() - c[ku] as u32;
        let key = (near, c[ku], !is_terminal(k), k);
        if key < best {
            best = key;
        }
    }
    best.3
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small generator (xorshift64*), so the checks below need no dependency.
    fn next(x: &mut u64) -> u64 {
        *x ^= *x >> 12;
        *x ^= *x << 25;
        *x ^= *x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// The SSE2 paths (what x86-64 runs) and the portable ones (what other targets run) agree.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn simd_and_portable_paths_agree() {
        let mut x = 0x5eed_u64;
        for _ in 0..20_000 {
            let mut c = [0u8; 27];
            let mut v = [0u8; 27];
            let mut cap = [4u8; 27];
            for k in 0..27 {
                let r = next(&mut x);
                c[k] = (r % 5) as u8;
                v[k] = ((r >> 8) % (5 - c[k] as u64)) as u8;
                if (r >> 16).is_multiple_of(9) {
                    cap[k] = ((r >> 24) % 2) as u8;
                }
            }
            assert_eq!(
                KindMasks::new_sse2(&c, &v, &cap),
                KindMasks::new_swar(&c, &v, &cap)
            );
            let mut d = 0u128;
            for l in 0..16 {
                d |= ((next(&mut x) % 20) as u128) << (8 * l);
            }
            assert_eq!(lanes::least_sse2(d), lanes::least_swar(d));
            let at = (next(&mut x) % 20) as u8;
            assert_eq!(lanes::eq_bits_sse2(d, at), lanes::eq_bits_swar(d, at));
        }
    }

    /// [`lanes::partner_bits`] is [`lanes::partner`] on lane flags.
    #[test]
    fn partner_bits_is_partner() {
        let mut x = 7u64;
        for sets in 0..=4 {
            for _ in 0..1000 {
                let g = next(&mut x) as u32 & ((1 << (2 * sets + 2)) - 1);
                let flags = (0..16).fold(0u128, |f, l| f | (((g >> l) & 1) as u128) << (8 * l + 7));
                assert_eq!(
                    lanes::partner_bits(g, sets),
                    lanes::gather(lanes::partner(flags, sets))
                );
            }
        }
    }
}
