//! The `value` strategy's discard choice: one call per turn (rule ids per docs/rules.md).
//!
//! `value` is `greedy` plus fan awareness and defence (the policy is described, option by
//! option, in the Python module `xuezhan.strategies.value`). Its turn reads the hand, the
//! tiles it can see and what it can tell of each opponent; the whole ranking lives here so a
//! decision costs a few microseconds, not tens of them in Python. The kong and claim choices
//! stay in Python (they are `greedy`'s, with `value`'s slack and hooks), and call
//! [`one_suit_target`] and [`triplets_shanten`] from here so each rule of the policy has one
//! implementation.
//!
//! Danger values are compared after rounding to 2 or 3 decimals exactly as Python's
//! `round(x, n)` does (correctly rounded, ties to even): see [`round_to`].
//!
//! ```
//! use xuezhan_core::{parse_counts, value_discard, RulesCore, ValueParams, ValueTurn};
//! let c = parse_counts("123456789m11p23p5s").unwrap();
//! let legal = (0..27).filter(|&k| c[k] > 0).fold(0u32, |m, k| m | 1 << k);
//! let turn = ValueTurn {
//!     counts: &c, melds: &[], visible: &[0; 27], void: None, legal,
//!     wall_count: 50, opponents: &[], rules: &RulesCore::leshan(),
//! };
//! let v = value_discard(&turn, &ValueParams::default()).unwrap();
//! assert_eq!((v.kind, v.shanten), (22, Some(0))); // 5s: ready on 1p/4p
//! ```

use crate::discards::{
    check_legal, check_visible, discards_impl, greedy_discard_unchecked, is_terminal,
    most_isolated, Discard,
};
use crate::error::EvalError;
use crate::fan::RulesCore;
use crate::shanten::{shanten_parts_unchecked, shanten_unchecked};
use crate::tiles::{validate, Counts, Meld, Size};
use crate::waits::{wait_mask_unchecked, waits_unchecked, Wait};

/// The options of the `value` strategy (each one documented in `xuezhan.strategies.value`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValueParams {
    /// Weigh each discard's danger to ready-looking opponents.
    pub defence: bool,
    /// Score ready hands by their waits' points and steer toward big items.
    pub fan: bool,
    /// Weigh the ukeire of unready hands by [`potential`].
    pub steer: bool,
    /// Fold (throw the safest tile) when far, late and facing a ready-looking opponent.
    pub fold: bool,
    /// How much danger lowers a discard's score.
    pub alpha: f64,
    /// Score 1-shanten discards one draw ahead.
    pub lookahead: bool,
    /// Fold only with at most this many wall tiles left.
    pub fold_wall: i64,
    /// Play for 清一色 when it is cheap enough.
    pub one_suit: bool,
    /// Tiles of the main suit needed (melds count three).
    pub one_suit_min: i64,
    /// Extra shanten 清一色 may cost.
    pub one_suit_slack: i64,
    /// Wall tiles needed to start.
    pub one_suit_wall: i64,
    /// The slack shrinks by one per this many wall tiles (at least 1).
    pub one_suit_step: i64,
    /// The cap of [`potential`]: the points factor of the cap (2^(max_fan − 1)).
    pub max_factor: f64,
}

impl Default for ValueParams {
    /// The strategy's defaults under leshan (max_fan 5).
    fn default() -> Self {
        ValueParams {
            defence: true,
            fan: true,
            steer: true,
            fold: true,
            alpha: 0.25,
            lookahead: false,
            fold_wall: 16,
            one_suit: true,
            one_suit_min: 9,
            one_suit_slack: 3,
            one_suit_wall: 10,
            one_suit_step: 15,
            max_factor: 16.0,
        }
    }
}

/// What a seat can tell of one opponent still in the hand (active: not won, not escaped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opponent<'a> {
    /// How many melds it has shown.
    pub melds: u8,
    /// The suits its melds use (bit s = suit s).
    pub meld_suits: u8,
    /// Its void suit once declared and revealed (R11.2).
    pub declared_void: Option<u8>,
    /// Its discard pile, oldest first.
    pub river: &'a [u8],
}

/// One turn of the `value` strategy.
#[derive(Debug, Clone, Copy)]
pub struct ValueTurn<'a> {
    /// The 14 concealed tiles.
    pub counts: &'a Counts,
    /// Its own melds.
    pub melds: &'a [Meld],
    /// Tiles seen outside its concealed hand (every discard pile and every meld).
    pub visible: &'a Counts,
    /// The suit it is clearing (R4.2), if chosen.
    pub void: Option<u8>,
    /// The kinds it may discard (bit k = kind k).
    pub legal: u32,
    /// Tiles left in the wall.
    pub wall_count: i64,
    /// The opponents still in the hand, in seat order.
    pub opponents: &'a [Opponent<'a>],
    /// The rules' scoring (for the waits' points, R7.3).
    pub rules: &'a RulesCore,
}

/// The discard chosen, and the lowest shanten any legal discard leaves (`None` when no legal
/// kind is held): the strategy's kong check (in Python) compares a kong against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueChoice {
    /// The kind to discard.
    pub kind: u8,
    /// The lowest shanten over the legal discards.
    pub shanten: Option<i8>,
}

/// [`value_discard_unchecked`] after validating the hand, `visible` and `legal` (every legal
/// kind held, at least one).
pub fn value_discard(t: &ValueTurn, p: &ValueParams) -> Result<ValueChoice, EvalError> {
    validate(t.counts, t.melds, t.void, Size::Fourteen)?;
    check_visible(t.visible)?;
    check_legal(t.counts, t.legal)?;
    for o in t.opponents {
        if let Some(&k) = o.river.iter().find(|&&k| k >= 27) {
            return Err(EvalError::BadKind(k as i64));
        }
    }
    Ok(value_discard_unchecked(t, p))
}

/// `value`'s discard (see the Python module for the policy in words):
///
/// 1. the rows of [`crate::best_discards`] over the legal kinds; `now` their lowest shanten;
/// 2. fold (`defend`) when `now ≥ 2`, late and an opponent looks ready: rank by danger;
/// 3. void-suit tiles first (R4.2): the least dangerous, then the most isolated;
/// 4. the 清一色 route ([`one_suit_target`]): the second suit's tiles go next;
/// 5. among the lowest-shanten discards the best score: a ready hand's wait value, else the
///    ukeire weighed by [`potential`], lowered by danger, a terminal before a middle tile.
pub fn value_discard_unchecked(t: &ValueTurn, p: &ValueParams) -> ValueChoice {
    let (c, melds, vis, legal) = (t.counts, t.melds, t.visible, t.legal);
    let mut void = t.void;
    let mut rows: Vec<Discard> = Vec::with_capacity(14);
    let legal_rows = |void: Option<u8>, lowest: bool, rows: &mut Vec<Discard>| {
        discards_impl(c, melds, vis, void, lowest.then_some(legal), rows);
        rows.retain(|r| legal >> r.kind & 1 != 0);
    };
    legal_rows(void, true, &mut rows);
    let Some(mut now) = rows.iter().map(|r| r.shanten).min() else {
        return ValueChoice {
            kind: (31 - legal.leading_zeros()) as u8,
            shanten: None,
        };
    };
    let first_now = now;
    let choice = |kind: u8| ValueChoice {
        kind,
        shanten: Some(first_now),
    };
    let threats = Threats::new(t, p.defence);
    let worst = threats.facts.iter().map(|f| f.p).fold(0.0, f64::max);
    let defend = p.fold && now >= 2 && t.wall_count <= p.fold_wall && worst >= 0.6;
    if defend {
        legal_rows(void, false, &mut rows); // a fold ranks slower discards by ukeire too
    }
    let danger = |k: u8| threats.danger(k, c, vis);
    let dz: &dyn Fn(u8) -> f64 = &danger;
    let weigh = !threats.facts.is_empty();
    if let Some(v) = void {
        let void_rows: Vec<Discard> = rows.iter().copied().filter(|r| r.kind / 9 == v).collect();
        if !void_rows.is_empty() {
            if defend {
                let best = void_rows.iter().min_by(|a, b| {
                    danger(a.kind)
                        .total_cmp(&danger(b.kind))
                        .then(a.shanten.cmp(&b.shanten))
                        .then(b.ukeire.cmp(&a.ukeire))
                        .then(a.kind.cmp(&b.kind))
                });
                return choice(best.map_or(void_rows[0].kind, |r| r.kind));
            }
            let kinds: Vec<u8> = void_rows.iter().map(|r| r.kind).collect();
            return choice(clear_tile(c, weigh.then_some(dz), &kinds));
        }
    }
    let second = if defend {
        None
    } else {
        one_suit_target(c, melds, t.void, t.wall_count, now as i64, p)
    };
    if let Some(s2) = second {
        // play as if the second suit were void too: its tiles go first, waits are 清一色
        void = Some(s2);
        legal_rows(void, true, &mut rows);
        now = rows.iter().map(|r| r.shanten).min().unwrap_or(now);
        let best_sh = rows
            .iter()
            .filter(|r| r.kind / 9 == s2)
            .map(|r| r.shanten)
            .min();
        if let Some(best_sh) = best_sh {
            let kinds: Vec<u8> = rows
                .iter()
                .filter(|r| r.kind / 9 == s2 && r.shanten == best_sh)
                .map(|r| r.kind)
                .collect();
            return choice(clear_tile(c, weigh.then_some(dz), &kinds));
        }
    }
    if defend {
        let best = rows.iter().filter(|r| r.shanten <= now + 1).min_by(|a, b| {
            round_to(danger(a.kind), 3)
                .total_cmp(&round_to(danger(b.kind), 3))
                .then(a.shanten.cmp(&b.shanten))
                .then(b.ukeire.cmp(&a.ukeire))
                .then(a.kind.cmp(&b.kind))
        });
        return choice(best.map_or(rows[0].kind, |r| r.kind));
    }
    let cands: Vec<Discard> = rows.iter().copied().filter(|r| r.shanten == now).collect();
    if !p.fan {
        // no void-suit tile is legal here: greedy's ranking over the legal discards
        let mut scratch = Vec::with_capacity(14);
        return choice(
            greedy_discard_unchecked(c, melds, vis, void, legal, false, &mut scratch).kind,
        );
    }
    if cands.len() == 1 {
        return choice(cands[0].kind); // every score below is at least 0: the one candidate wins
    }
    let mut best_kind = cands.first().map_or(0, |r| r.kind);
    let mut best_score = -1.0f64;
    let mut waits = Vec::new();
    for r in &cands {
        let mut c13 = *c;
        c13[r.kind as usize] -= 1;
        let mut score = if r.shanten == 0 {
            wait_value(&c13, melds, vis, void, t.rules, &mut waits) + 0.01 * r.ukeire as f64
        } else if r.shanten == 1 && p.lookahead {
            one_away_value(&c13, melds, vis, void, t.rules) + 0.01 * r.ukeire as f64
        } else if p.steer {
            r.ukeire as f64 * potential(&c13, melds, r.shanten, p.max_factor)
        } else {
            r.ukeire as f64
        };
        if weigh {
            score *= 1.0 - p.alpha * danger(r.kind).min(1.0);
        }
        if is_terminal(r.kind) {
            score += 0.001;
        }
        if score > best_score {
            best_kind = r.kind;
            best_score = score;
        }
    }
    choice(best_kind)
}

/// Per threatening opponent, what the danger of a tile reads: the threat, its likely void
/// suit, whether that is certain, and the kinds of its pile (bit k = kind k).
struct Fact {
    p: f64,
    void: Option<u8>,
    certain: bool,
    river: u32,
}

struct Threats {
    facts: Vec<Fact>,
}

impl Threats {
    fn new(t: &ValueTurn, defence: bool) -> Threats {
        let facts = if defence {
            t.opponents
                .iter()
                .map(|o| {
                    let void = likely_void(o);
                    Fact {
                        p: opponent_threat(o),
                        void,
                        certain: void.is_some()
                            && (o.declared_void.is_some() || o.meld_suits.count_ones() >= 2),
                        river: o.river.iter().fold(0u32, |m, &k| m | 1 << k),
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        Threats { facts }
    }

    /// How likely a discard of `kind` is to be won on, summed over the opponents.
    fn danger(&self, kind: u8, c: &Counts, vis: &Counts) -> f64 {
        let k = kind as usize;
        let live = 4 - c[k] as i32 - vis[k] as i32;
        let suit = kind / 9;
        let mut total = 0.0;
        for f in &self.facts {
            let mut w = if f.void == Some(suit) {
                if f.certain {
                    continue; // R4.2 / R11.2: it cannot win with this suit
                }
                0.15
            } else {
                1.0
            };
            if f.river >> k & 1 != 0 {
                w *= 0.5;
            }
            if live <= 0 {
                w *= 0.55;
            }
            if is_terminal(kind) {
                w *= 0.75;
            }
            total += f.p * w;
        }
        total
    }
}

/// The danger of `kind` for a seat holding `c` and seeing `visible`, with every opponent of
/// `opponents` weighed by its threat (as `value` weighs a discard when defence is on).
///
/// ```
/// use xuezhan_core::{danger, Opponent};
/// // an opponent with pungs in m and p cannot win on an s tile (R4.2)
/// let o = Opponent { melds: 2, meld_suits: 0b011, declared_void: None, river: &[] };
/// assert_eq!(danger(20, &[0; 27], &[0; 27], &[o]), 0.0);
/// assert!(danger(4, &[0; 27], &[0; 27], &[o]) > 0.0);
/// ```
pub fn danger(kind: u8, c: &Counts, visible: &Counts, opponents: &[Opponent]) -> f64 {
    let t = ValueTurn {
        counts: c,
        melds: &[],
        visible,
        void: None,
        legal: 0,
        wall_count: 0,
        opponents,
        rules: &RulesCore::leshan(),
    };
    Threats::new(&t, true).danger(kind.min(26), c, visible)
}

/// Rough probability that an opponent is ready (tenpai): more melds, more discards, more
/// likely.
pub fn opponent_threat(o: &Opponent) -> f64 {
    (0.05 + 0.22 * o.melds as f64 + 0.045 * o.river.len() as f64).min(0.95)
}

/// The suit an opponent seems to be clearing (R4.2): its declared void (R11.2), the suit its
/// melds leave out when they use two suits, else the suit it has discarded most if that is at
/// least three tiles and half of its first eight discards and no meld uses it.
///
/// ```
/// use xuezhan_core::{likely_void, Opponent};
/// let o = Opponent { melds: 0, meld_suits: 0, declared_void: None, river: &[0, 1, 3, 20] };
/// assert_eq!(likely_void(&o), Some(0)); // three m of four discards
/// ```
pub fn likely_void(o: &Opponent) -> Option<u8> {
    if o.declared_void.is_some() {
        return o.declared_void;
    }
    match o.meld_suits.count_ones() {
        2 => return Some((0..3).find(|s| o.meld_suits >> s & 1 == 0).unwrap_or(0)),
        3 => return None,
        _ => {}
    }
    let river = o.river;
    if river.len() < 3 {
        return None;
    }
    let mut n = [0usize; 3];
    for &k in river.iter().take(8) {
        n[(k / 9) as usize] += 1;
    }
    let s = (0..3).fold(0, |best, i| if n[i] > n[best] { i } else { best });
    if o.meld_suits >> s & 1 != 0 || n[s] < 3 || 2 * n[s] < river.len().min(8) {
        return None;
    }
    Some(s as u8)
}

/// Python's `round(x, digits)`: correctly rounded to `digits` decimals, ties to even (both
/// Rust's float formatting and Python's `round` round the exact binary value so).
pub fn round_to(x: f64, digits: usize) -> f64 {
    format!("{x:.digits$}").parse().unwrap_or(x)
}

/// Which tile of a suit being cleared to throw: all are useless to the hand, so the least
/// dangerous (rounded to 2 decimals), then the most isolated.
fn clear_tile(c: &Counts, danger: Option<&dyn Fn(u8) -> f64>, kinds: &[u8]) -> u8 {
    let mut keep = kinds.iter().fold(0u32, |m, &k| m | 1 << k);
    if let (Some(dz), true) = (danger, kinds.len() > 1) {
        let rounded: Vec<f64> = kinds.iter().map(|&k| round_to(dz(k), 2)).collect();
        let low = rounded.iter().copied().fold(f64::INFINITY, f64::min);
        keep = kinds
            .iter()
            .zip(&rounded)
            .filter(|(_, &d)| d <= low)
            .fold(0u32, |m, (&k, _)| m | 1 << k);
    }
    most_isolated(c, keep)
}

/// (main suit, tiles outside it), melds counting three tiles each.
fn off_suit(c: &Counts, melds: &[Meld]) -> (u8, i64) {
    let mut n = [0i64; 3];
    for (k, &x) in c.iter().enumerate() {
        n[k / 9] += x as i64;
    }
    for m in melds {
        n[(m.kind / 9) as usize] += 3;
    }
    let main = (0..3).fold(0, |best, s| if n[s] > n[best] { s } else { best });
    (main as u8, n.iter().sum::<i64>() - n[main])
}

/// Shanten toward 对对胡 (four triplets or kongs and a pair) of a 13-tile hand; melds count as
/// triplets (Sichuan has no chow, R2.2).
///
/// ```
/// use xuezhan_core::{parse_counts, triplets_shanten};
/// assert_eq!(triplets_shanten(&parse_counts("111222333m4455p").unwrap(), 0), 0);
/// assert_eq!(triplets_shanten(&parse_counts("111m22m33p44p55p9s").unwrap(), 0), 2);
/// ```
pub fn triplets_shanten(c: &Counts, melds: usize) -> i8 {
    let mut t = melds as i64;
    let mut p = 0i64;
    for &n in c {
        if n >= 3 {
            t += 1;
        } else if n == 2 {
            p += 1;
        }
    }
    t = t.min(4);
    if t + p > 5 {
        p = 5 - t;
    }
    (8 - 2 * t - p) as i8
}

/// Expected points factor of a 13-tile hand at `shanten`: only the big items, and only when
/// the hand is already close to them (清一色 ×1.5, 对对胡 ×1.3, 七对 ×1.5), at most
/// `max_factor`.
pub fn potential(c13: &Counts, melds: &[Meld], shanten: i8, max_factor: f64) -> f64 {
    let mut f = 1.0;
    let (main, off) = off_suit(c13, melds);
    if off <= 1 && melds.iter().all(|m| m.kind / 9 == main) {
        f *= 1.5; // 清一色 within reach
    }
    if triplets_shanten(c13, melds.len()) <= shanten {
        f *= 1.3; // 对对胡 is (one of) the fastest routes
    }
    if melds.is_empty() {
        let parts = shanten_parts_unchecked(c13, &[], None);
        if parts.seven_pairs <= shanten && parts.seven_pairs < parts.standard {
            f *= 1.5; // 七对 is the fastest route
        }
    }
    f64::min(f, max_factor)
}

/// The suit to clear for 清一色 (+2 fan: four times the points), if any: only early, with the
/// void suit gone, every meld in the main suit, at least `one_suit_min` tiles of it, and at
/// most `one_suit_slack` more shanten than `now` (one less per `one_suit_step` tiles the wall
/// shrinks below that, never less than one).
pub fn one_suit_target(
    c: &Counts,
    melds: &[Meld],
    void: Option<u8>,
    wall_count: i64,
    now: i64,
    p: &ValueParams,
) -> Option<u8> {
    if !p.one_suit || wall_count < p.one_suit_wall {
        return None;
    }
    let (main, off) = off_suit(c, melds);
    if melds.iter().any(|m| m.kind / 9 != main) {
        return None;
    }
    let tiles = c.iter().map(|&x| x as i64).sum::<i64>() + 3 * melds.len() as i64;
    if tiles - off < p.one_suit_min {
        return None;
    }
    let mut others = (0..3u8).filter(|&s| s != main && Some(s) != void);
    let (Some(second), None) = (others.next(), others.next()) else {
        return None;
    };
    if off == 0 {
        return None;
    }
    if let Some(v) = void {
        let v = v as usize * 9;
        if c[v..v + 9].iter().any(|&x| x != 0) {
            return None;
        }
    }
    let step = p.one_suit_step.max(1);
    let slack = p
        .one_suit_slack
        .min(1 + (wall_count - p.one_suit_wall).div_euclid(step));
    if shanten_unchecked(c, melds, Some(second)) as i64 > now + slack {
        return None;
    }
    Some(second)
}

/// Σ over the waits of a ready 13-tile hand of unseen copies × the wait's points (R7.3).
fn wait_value(
    c13: &Counts,
    melds: &[Meld],
    vis: &Counts,
    void: Option<u8>,
    rules: &RulesCore,
    out: &mut Vec<Wait>,
) -> f64 {
    waits_unchecked(c13, melds, rules, void, out);
    let mut score = 0.0;
    for w in out.iter() {
        let k = w.kind as usize;
        let live = 4 - c13[k] as i64 - vis[k] as i64;
        if live > 0 {
            score += (live as u64 * w.points) as f64;
        }
    }
    score
}

/// Σ over the draws that make a 1-shanten hand ready of unseen copies × the best ready hand's
/// wait value (one draw of lookahead: good shapes over raw ukeire).
fn one_away_value(
    c13: &Counts,
    melds: &[Meld],
    vis: &Counts,
    void: Option<u8>,
    rules: &RulesCore,
) -> f64 {
    let mut total = 0.0;
    let mut c = *c13;
    let mut waits = Vec::new();
    for t in 0..27 {
        if void == Some((t / 9) as u8) {
            continue;
        }
        let live = 4 - c[t] as i64 - vis[t] as i64;
        if live <= 0 {
            continue;
        }
        c[t] += 1;
        if shanten_parts_unchecked(&c, melds, void).total == 0 {
            let mut best = 0.0f64;
            for e in 0..27 {
                if c[e] == 0 || e == t {
                    continue;
                }
                c[e] -= 1;
                if wait_mask_unchecked(&c, melds, void) != 0 {
                    let v = wait_value(&c, melds, vis, void, rules, &mut waits);
                    if v > best {
                        best = v;
                    }
                }
                c[e] += 1;
            }
            total += live as f64 * best;
        }
        c[t] -= 1;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_counts;

    fn legal_of(c: &Counts) -> u32 {
        (0..27).filter(|&k| c[k] > 0).fold(0u32, |m, k| m | 1 << k)
    }

    #[test]
    fn round_to_matches_pythons_round_ties_to_even() {
        // values Python's round() gives: round(0.125, 2) == 0.12, round(0.375, 2) == 0.38,
        // round(0.285, 2) == 0.28 (0.285 is stored just below), round(0.0625, 3) == 0.062
        assert_eq!(round_to(0.125, 2), 0.12);
        assert_eq!(round_to(0.375, 2), 0.38);
        assert_eq!(round_to(0.285, 2), 0.28);
        assert_eq!(round_to(0.0625, 3), 0.062);
    }

    #[test]
    fn void_suit_tiles_go_first_r4_2() {
        let c = parse_counts("123456789m11p23p5s").unwrap();
        let turn = ValueTurn {
            counts: &c,
            melds: &[],
            visible: &[0; 27],
            void: Some(1),
            legal: legal_of(&c),
            wall_count: 50,
            opponents: &[],
            rules: &RulesCore::leshan(),
        };
        let v = value_discard(&turn, &ValueParams::default()).unwrap();
        assert_eq!(v.kind / 9, 1);
    }

    #[test]
    fn folds_to_a_tile_the_threat_cannot_win_on_r4_2() {
        // far from ready, late, an opponent with pungs in m and p (its void is s, certain)
        let c = parse_counts("12479m47m258s1369s").unwrap();
        let river = [9u8, 9, 9];
        let opp = [Opponent {
            melds: 2,
            meld_suits: 0b011,
            declared_void: None,
            river: &river,
        }];
        let turn = ValueTurn {
            counts: &c,
            melds: &[],
            visible: &[0; 27],
            void: Some(1),
            legal: legal_of(&c),
            wall_count: 8,
            opponents: &opp,
            rules: &RulesCore::leshan(),
        };
        let v = value_discard(&turn, &ValueParams::default()).unwrap();
        assert_eq!(v.kind / 9, 2, "an s tile is safe against it");
        let off = ValueParams {
            defence: false,
            ..ValueParams::default()
        };
        assert_ne!(value_discard(&turn, &off).unwrap().kind / 9, 2);
    }

    #[test]
    fn bad_input_is_an_error() {
        let c = parse_counts("123456789m11p23p5s").unwrap();
        let mut turn = ValueTurn {
            counts: &c,
            melds: &[],
            visible: &[0; 27],
            void: None,
            legal: 1 << 26,
            wall_count: 50,
            opponents: &[],
            rules: &RulesCore::leshan(),
        };
        assert!(matches!(
            value_discard(&turn, &ValueParams::default()),
            Err(EvalError::BadLegal { .. })
        ));
        let river = [30u8];
        let opp = [Opponent {
            melds: 0,
            meld_suits: 0,
            declared_void: None,
            river: &river,
        }];
        turn.legal = legal_of(&c);
        turn.opponents = &opp;
        assert_eq!(
            value_discard(&turn, &ValueParams::default()),
            Err(EvalError::BadKind(30))
        );
    }
}
