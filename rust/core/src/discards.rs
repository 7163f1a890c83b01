//! Discard choice support: shanten after each discard and its ukeire (useful unseen tiles).

use crate::error::EvalError;
use crate::shanten::{
    pair_stats, prefer_empty_void_mask, seven_pairs_missing, standard_missing, suit_dist_capped,
    SuitDist, UNREACHABLE,
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
/// [`DrawTest`]). A suit whose thresholds no draw can meet is skipped without any lookup,
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
/// ukeire 0): all a ranking by (shanten, −ukeire, …) over `set` reads. The shanten of every
/// discard is cheap; the ukeire is most of the work.
pub(crate) fn discards_impl(
    c: &Counts,
    melds: &[Meld],
    visible: &Counts,
    void: Option<u8>,
    lowest_of: Option<u32>,
    out: &mut Vec<Discard>,
) {
    out.clear();
    let allowed = allowed_voids(melds, void);
    if allowed == 0 {
        out.extend((0..27).filter(|&k| c[k] != 0).map(|k| Discard {
            kind: k as u8,
            shanten: UNREACHABLE,
            ukeire: 0,
        }));
        return;
    }
    let sd = SuitDists::new(melds);
    let sets = 4 - melds.len();
    let seven = melds.is_empty();
    let mut h = *c;
    let base_d = [sd.dist(&h, 0), sd.dist(&h, 1), sd.dist(&h, 2)];
    let base_ps = pair_stats(&h);
    // Table distances of each suit of `c` plus one tile of each rank (filled lazily per suit):
    // a draw into a suit other than the discard's sees exactly that configuration. For a
    // capped suit they are lower bounds; the exact values are computed on demand (`exact`).
    let mut plus = [base_d[0]; 27];
    let mut plus_done = 0u8;
    let mut exact = [base_d[0]; 27];
    let mut exact_done = 0u32;
    // The 13 tiles left by discarding kind k (`h` holds them): per-suit distances, pair
    // statistics, the missing counts of seven pairs and of the hand.
    let after = |h: &Counts, k: usize| {
        let sk = k / 9;
        let mut d = base_d;
        d[sk] = sd.dist(h, sk);
        let mut ps = base_ps;
        let x = h[k];
        ps[sk].0 = ps[sk].0 + (x >> 1) - ((x + 1) >> 1);
        ps[sk].1 = ps[sk].1 + (x & 1) - ((x + 1) & 1);
        let al13 = prefer_empty_void_mask(crate::win::concealed_suits(h) ^ 7, allowed);
        let std13 = standard_missing(&d, sets, al13);
        let sp13 = if seven {
            seven_pairs_missing(&ps, al13)
        } else {
            u8::MAX
        };
        (d, ps, sp13, std13.min(sp13))
    };
    // With `lowest_of`: the lowest missing count over that set, found first (each discard's
    // facts kept for the pass below: they cost a table lookup or a capped-suit DP each).
    let mut wanted = u32::MAX;
    let mut lowest = 0u8;
    let mut known: [Option<AfterDiscard>; 27] = [None; 27];
    if let Some(set) = lowest_of {
        wanted = set;
        lowest = u8::MAX;
        for k in 0..27 {
            if c[k] != 0 && set & (1 << k) != 0 {
                h[k] -= 1;
                let a = after(&h, k);
                lowest = lowest.min(a.3);
                known[k] = Some(a);
                h[k] += 1;
            }
        }
    }
    for k in 0..27 {
        if c[k] == 0 {
            continue;
        }
        let sk = k / 9;
        h[k] -= 1;
        let (d, ps, sp13, miss13) = known[k].unwrap_or_else(|| after(&h, k));
        if lowest_of.is_some() && (wanted & (1 << k) == 0 || miss13 != lowest) {
            h[k] += 1;
            out.push(Discard {
                kind: k as u8,
                shanten: miss13 as i8 - 1,
                ukeire: 0, // not wanted by the ranking
            });
            continue;
        }
        let mut ukeire = 0u32;
        for s in 0..3 {
            let test = DrawTest::new(&d, s, sets, allowed, miss13);
            // Seven pairs after a draw depends only on the drawn kind's count parity.
            let sp_lower = |odd_before: bool| -> bool {
                if !seven || sp13 > miss13 {
                    return false;
                }
                let mut p2 = ps;
                if odd_before {
                    if p2[s].1 == 0 {
                        return false; // no odd count in this suit: no draw can pair one
                    }
                    p2[s] = (p2[s].0 + 1, p2[s].1 - 1);
                } else {
                    p2[s].1 += 1;
                }
                seven_pairs_missing(&p2, allowed) < miss13
            };
            let (sp_odd, sp_even) = (sp_lower(true), sp_lower(false));
            let ranks = sd.room(&h, visible, s);
            if ranks == 0 || (test.hopeless() && !sp_odd && !sp_even) {
                continue;
            }
            let mut same = [base_d[s]; 9];
            let bound: &[SuitDist] = if s == sk {
                if !test.hopeless() {
                    sd.table_plus_each(&h, s, ranks, &mut same);
                }
                &same
            } else {
                if plus_done & (1 << s) == 0 && !test.hopeless() {
                    sd.table_plus_each(c, s, sd.room(c, &[0; 27], s), &mut plus[s * 9..s * 9 + 9]);
                    plus_done |= 1 << s;
                }
                &plus[s * 9..s * 9 + 9]
            };
            for (r, bound_r) in bound.iter().enumerate() {
                if ranks & (1 << r) == 0 {
                    continue;
                }
                let t = s * 9 + r;
                let sp = if h[t] & 1 != 0 { sp_odd } else { sp_even };
                let lowers = sp
                    || (!test.hopeless()
                        && test.lowers(bound_r)
                        && (!sd.is_capped(s)
                            || test.lowers(&if s == sk {
                                sd.dist_plus(&h, t)
                            } else {
                                if exact_done & (1 << t) == 0 {
                                    exact[t] = sd.dist_plus(c, t);
                                    exact_done |= 1 << t;
                                }
                                exact[t]
                            })));
                if lowers {
                    ukeire += (4 - h[t] - visible[t]) as u32;
                }
            }
        }
        h[k] += 1;
        out.push(Discard {
            kind: k as u8,
            shanten: miss13 as i8 - 1,
            ukeire,
        });
    }
}

/// What discarding one kind leaves: per-suit distances, pair statistics, the missing counts
/// of seven pairs and of the hand.
type AfterDiscard = ([SuitDist; 3], [(u8, u8); 3], u8, u8);

/// Whether a draw into suit `s` lowers the standard-form missing count of a 13-tile hand
/// whose per-suit distances are `d`, given only the suit's new distances.
///
/// Dropping `s` (void = `s`) ignores the draw, so only the allowed voids `v ≠ s` matter; they
/// keep `s` with the third suit `o`, and the new missing count is
/// `min over (m, p) of d'_s(m, p) + d_o(sets − m, 1 − p)`. The draw lowers it iff some
/// `d'_s(m, p) ≤ miss13 − 1 − min_o d_o(sets − m, 1 − p)`: one threshold per `(m, p)`. A draw
/// lowers a distance by at most one, so when every threshold is below `d_s(m, p) − 1` no draw
/// into `s` can help ([`DrawTest::hopeless`]).
struct DrawTest {
    /// Thresholds `[p][m]`, −1 where unreachable.
    thr: [[i8; 5]; 2],
    hopeless: bool,
}

impl DrawTest {
    // `m` indexes two rows of `other` and, reversed (`sets − m`), the partner's distances:
    // an iterator over one of them would hide the pairing the formula above describes.
    #[allow(clippy::needless_range_loop)]
    fn new(d: &[SuitDist; 3], s: usize, sets: usize, allowed: u8, miss13: u8) -> DrawTest {
        let mut other = [[u8::MAX; 5]; 2]; // min over kept partners of d_o(sets − m, 1 − p)
        for v in 0..3 {
            if v == s || allowed & (1 << v) == 0 {
                continue;
            }
            let o = &d[3 - s - v];
            for m in 0..=sets {
                other[0][m] = other[0][m].min(o.1[sets - m]);
                other[1][m] = other[1][m].min(o.0[sets - m]);
            }
        }
        let mut thr = [[-1i8; 5]; 2];
        let mut hopeless = true;
        for p in 0..2 {
            let ds = if p == 0 { &d[s].0 } else { &d[s].1 };
            for m in 0..=sets {
                let t = miss13 as i16 - 1 - other[p][m] as i16;
                if t >= 0 {
                    thr[p][m] = t as i8;
                    hopeless &= (ds[m] as i16) - 1 > t;
                }
            }
        }
        DrawTest { thr, hopeless }
    }

    #[inline(always)]
    fn hopeless(&self) -> bool {
        self.hopeless
    }

    #[inline(always)]
    fn lowers(&self, nd: &SuitDist) -> bool {
        let mut hit = false;
        for m in 0..5 {
            hit |= (nd.0[m] as i8) <= self.thr[0][m];
            hit |= (nd.1[m] as i8) <= self.thr[1][m];
        }
        hit
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

    #[inline]
    fn dist(&self, h: &Counts, s: usize) -> SuitDist {
        let hs = &h[s * 9..s * 9 + 9];
        if self.capped & (1 << s) != 0 {
            suit_dist_capped(hs, &self.cap[s * 9..s * 9 + 9])
        } else {
            let t = tables();
            t.distances(t.record(hs))
        }
    }

    /// Ranks (bit r) of suit `s` worth drawing into `h`: a copy is left unseen and the cap
    /// allows one more. (A suit of 14 tiles takes no draw: its configuration is full.)
    #[inline]
    fn room(&self, h: &Counts, visible: &Counts, s: usize) -> u32 {
        let hs = &h[s * 9..s * 9 + 9];
        if hs.iter().map(|&x| x as u32).sum::<u32>() >= 14 {
            return 0;
        }
        let mut m = 0u32;
        for r in 0..9 {
            let t = s * 9 + r;
            if h[t] < self.cap[t] && h[t] + visible[t] < 4 {
                m |= 1 << r;
            }
        }
        m
    }

    #[inline(always)]
    fn is_capped(&self, s: usize) -> bool {
        self.capped & (1 << s) != 0
    }

    /// Exact distances of the suit of kind `t` in `h` plus one tile `t`.
    fn dist_plus(&self, h: &Counts, t: usize) -> SuitDist {
        let mut h2 = *h;
        h2[t] += 1;
        self.dist(&h2, t / 9)
    }

    /// Table distances of suit `s` of `h` plus one tile of each rank in `ranks`, into
    /// `out[r]`: exact for an uncapped suit, a lower bound for a capped one (the caps only
    /// remove targets).
    fn table_plus_each(&self, h: &Counts, s: usize, ranks: u32, out: &mut [SuitDist]) {
        let t = tables();
        let (lo, hi) = split_code(&h[s * 9..s * 9 + 9]);
        let recs = t.records_plus_each(lo, hi, ranks);
        for r in 0..9 {
            if ranks & (1 << r) != 0 {
                out[r] = t.distances(recs[r]);
            }
        }
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
