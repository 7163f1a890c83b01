//! Discard choice support: shanten after each discard and its ukeire (useful unseen tiles).

use crate::error::EvalError;
use crate::shanten::{
    prefer_empty_void_mask, suit_dist_capped, pair_stats, seven_pairs_missing, standard_missing, SuitDist, UNREACHABLE,
};
use crate::suit_table::{split_code, tables};
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
    for (k, &v) in visible.iter().enumerate() {
        if v > 4 {
            return Err(EvalError::BadVisible { kind: k as u8, count: v });
        }
    }
    let mut out = Vec::new();
    best_discards_unchecked(c, melds, visible, void, &mut out);
    Ok(out)
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
/// the other suits' distances and pair statistics are reused, so each of the ≤ 14 × 27
/// evaluations is one table lookup and a combine.
pub fn best_discards_unchecked(
    c: &Counts,
    melds: &[Meld],
    visible: &Counts,
    void: Option<u8>,
    out: &mut Vec<Discard>,
) {
    out.clear();
    let allowed = allowed_voids(melds, void);
    let t = tables();
    let sets = 4 - melds.len();
    let seven = melds.is_empty();
    // Suits holding a meld kind need the capped (exact, slower) distances.
    let mut cap = [4u8; 27];
    let mut capped = 0u8;
    for m in melds {
        cap[m.kind as usize] = 4u8.saturating_sub(m.copies());
        capped |= 1 << (m.kind / 9);
    }
    let dist_of = |h: &Counts, s: usize| -> SuitDist {
        let hs = &h[s * 9..s * 9 + 9];
        if capped & (1 << s) != 0 {
            suit_dist_capped(hs, &cap[s * 9..s * 9 + 9])
        } else {
            t.distances(t.record(hs))
        }
    };
    let shanten_of = |d: &[SuitDist; 3], ps: &[(u8, u8); 3], empty: u8| -> i8 {
        let al = prefer_empty_void_mask(empty, allowed);
        let st = standard_missing(d, sets, al) as i8 - 1;
        if seven {
            st.min(seven_pairs_missing(ps, al) as i8 - 1)
        } else {
            st
        }
    };
    let mut h = *c;
    let base_d = [dist_of(&h, 0), dist_of(&h, 1), dist_of(&h, 2)];
    let base_ps = pair_stats(&h);
    // Distances of each suit plus one tile of each rank: a draw into a suit other than the
    // discard's sees exactly that, so these 27 lookups serve every discard.
    // (A suit holding all 14 tiles gets no draws from other suits' discards: skipped.)
    let mut plus = [base_d[0]; 27];
    let suit_tiles: [u32; 3] =
        std::array::from_fn(|s| h[s * 9..s * 9 + 9].iter().map(|&x| x as u32).sum());
    // Ranks (bit r) of suit s that can take one more tile of hand `h`.
    let room = |h: &Counts, s: usize, skip: usize| -> u32 {
        let mut m = 0u32;
        for r in 0..9 {
            let t = s * 9 + r;
            if t != skip && h[t] < cap[t] {
                m |= 1 << r;
            }
        }
        m
    };
    // Distances of suit s of `h` plus one tile of each rank in `ranks`.
    let plus_each = |h: &Counts, s: usize, ranks: u32, out: &mut [SuitDist]| {
        if capped & (1 << s) != 0 {
            let mut h2 = *h;
            for r in 0..9 {
                if ranks & (1 << r) != 0 {
                    h2[s * 9 + r] += 1;
                    out[r] = dist_of(&h2, s);
                    h2[s * 9 + r] -= 1;
                }
            }
        } else {
            let (lo, hi) = split_code(&h[s * 9..s * 9 + 9]);
            let recs = t.records_plus_each(lo, hi, ranks);
            for r in 0..9 {
                if ranks & (1 << r) != 0 {
                    out[r] = t.distances(recs[r]);
                }
            }
        }
    };
    for s in 0..3 {
        if suit_tiles[s] < 14 {
            plus_each(&h, s, room(&h, s, usize::MAX), &mut plus[s * 9..s * 9 + 9]);
        }
    }
    for k in 0..27 {
        if c[k] == 0 {
            continue;
        }
        if allowed == 0 {
            out.push(Discard { kind: k as u8, shanten: UNREACHABLE, ukeire: 0 });
            continue;
        }
        let sk = k / 9;
        h[k] -= 1;
        let mut d = base_d;
        d[sk] = dist_of(&h, sk);
        let mut ps = base_ps;
        let x = h[k];
        ps[sk].0 = ps[sk].0 + (x >> 1) - ((x + 1) >> 1);
        ps[sk].1 = ps[sk].1 + (x & 1) - ((x + 1) & 1);
        let empty13 = crate::win::concealed_suits(&h) ^ 7;
        let s13 = shanten_of(&d, &ps, empty13);
        // Same-suit draws: gather the nine lookups first so their cache misses overlap
        // instead of each waiting behind the previous draw's comparison.
        let mut same = [base_d[sk]; 9];
        plus_each(&h, sk, room(&h, sk, k), &mut same);
        let mut ukeire = 0u32;
        for draw in 0..27 {
            if h[draw] >= cap[draw] {
                continue;
            }
            let left = 4i32 - h[draw] as i32 - visible[draw] as i32;
            if left <= 0 {
                continue;
            }
            let sd = draw / 9;
            let y = h[draw];
            let (saved_d, saved_ps) = (d[sd], ps[sd]);
            d[sd] = if sd != sk { plus[draw] } else { same[draw - sk * 9] };
            ps[sd].0 = ps[sd].0 + ((y + 1) >> 1) - (y >> 1);
            ps[sd].1 = ps[sd].1 + ((y + 1) & 1) - (y & 1);
            if shanten_of(&d, &ps, empty13 & !(1 << sd)) < s13 {
                ukeire += left as u32;
            }
            d[sd] = saved_d;
            ps[sd] = saved_ps;
        }
        h[k] += 1;
        out.push(Discard { kind: k as u8, shanten: s13, ukeire });
    }
}
