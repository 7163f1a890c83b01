//! `greedy` and `value` (Python `GreedyStrategy`, `ValueStrategy`): one decision function with
//! value's hooks, as `ValueStrategy` subclasses `GreedyStrategy`. The discard rankings are the
//! evaluator's own (`greedy_discard`, `value_discard`), called with what the Python strategies
//! pass them.

use super::{Policy, PolicySpec};
use crate::discards::greedy_discard_unchecked;
use crate::hand::action::{Act, Action};
use crate::hand::legal::suit_counts;
use crate::hand::rules::HandRules;
use crate::hand::turn::Phase;
use crate::hand::view::View;
use crate::shanten::shanten_parts_unchecked;
use crate::tiles::{Counts, Meld, MeldType};
use crate::value::{
    one_suit_target, triplets_shanten, value_discard_unchecked, Opponent, ValueParams, ValueTurn,
};

/// The options of `value` (each documented in `xuezhan.strategies.value`); `params.max_factor`
/// is set from the rules of each hand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValueOptions {
    /// The discard ranking's options.
    pub params: ValueParams,
    /// How much a kong may raise the shanten and still be made.
    pub kong_slack: i8,
    /// Choose the void suit by the shanten without it.
    pub smart_void: bool,
    /// Peng only when it helps (or keeps an all-triplets route).
    pub strict_peng: bool,
}

impl Default for ValueOptions {
    fn default() -> Self {
        ValueOptions {
            params: ValueParams::default(),
            kong_slack: 1,
            smart_void: true,
            strict_peng: false,
        }
    }
}

fn shanten(c: &Counts, melds: &[Meld], void: i8) -> i8 {
    shanten_parts_unchecked(c, melds, (void >= 0).then_some(void as u8)).total
}

fn void_opt(v: i8) -> Option<u8> {
    (v >= 0).then_some(v as u8)
}

fn meld_suits(melds: &[Meld]) -> u8 {
    melds.iter().fold(0, |m, x| m | 1 << (x.kind / 9))
}

fn value_options(p: &Policy) -> Option<&ValueOptions> {
    match &p.spec {
        PolicySpec::Value(o) => Some(o),
        _ => None,
    }
}

/// The suit to give up: the fewest concealed tiles among the suits no meld uses (m, p, s on
/// ties); `value` (``smart_void``) first by the shanten the hand would have without it.
fn choose_void(p: &Policy, counts: &Counts, melds: &[Meld]) -> i8 {
    choose_void_of(
        counts,
        melds,
        value_options(p).is_some_and(|o| o.smart_void),
    )
}

/// The suit to give up (see [`choose_void`]); `smart`: `value`'s choice by shanten first.
pub(crate) fn choose_void_of(counts: &Counts, melds: &[Meld], smart: bool) -> i8 {
    let n = suit_counts(counts);
    let used = meld_suits(melds);
    let mut cands: Vec<u8> = (0..3).filter(|s| used >> s & 1 == 0).collect();
    if cands.is_empty() {
        cands = vec![0, 1, 2];
    }
    let best = if smart {
        cands
            .into_iter()
            .min_by_key(|&s| (shanten(counts, melds, s as i8), n[s as usize], s))
    } else {
        cands.into_iter().min_by_key(|&s| (n[s as usize], s))
    };
    best.unwrap_or(0) as i8
}

pub(super) fn act(p: &mut Policy, v: &View, rules: &HandRules) -> Action {
    // every action but a turn's discards (those are `v.discard_mask()`)
    let legal = v.legal_actions().head();
    if let Some(&hu) = legal.first().filter(|a| a.act == Act::Hu) {
        return hu; // a win, when legal, comes first: always taken
    }
    match v.phase() {
        Phase::Exchange => return exchange(p, v),
        Phase::Void => {
            p.void = choose_void(p, v.hand(), v.melds(p.seat));
            return *legal
                .iter()
                .find(|a| a.act == Act::Void(p.void as u8))
                .unwrap_or(&legal[0]);
        }
        _ => {}
    }
    let counts = v.hand();
    let melds = v.melds(p.seat);
    // the declared void (R11.2), else the suit chosen at the first decision, chosen again when
    // a meld lands in it
    let declared = v.void(p.seat);
    if declared >= 0 {
        p.void = declared;
    } else if p.void < 0 || meld_suits(melds) >> p.void & 1 != 0 {
        p.void = choose_void(p, counts, melds);
    }
    let mask = v.discard_mask();
    if mask != 0 {
        let no_kong = legal.is_empty();
        return turn(p, v, rules, legal, counts, melds, mask, no_kong);
    }
    claim(p, v, legal, counts, melds)
}

/// R11.1: three tiles of the suit held fewest of (at least three), the outer tiles first.
fn exchange(p: &Policy, v: &View) -> Action {
    exchange_of(p.seat, v.hand())
}

/// R11.1: three tiles of the suit held fewest of (at least three), the outer tiles first.
pub(crate) fn exchange_of(seat: u8, c: &Counts) -> Action {
    let n = suit_counts(c);
    let s = (0..3u8)
        .filter(|&i| n[i as usize] >= 3)
        .min_by_key(|&i| (n[i as usize], i))
        .unwrap_or(0);
    exchange_in(seat, c, s)
}

/// The three outermost tiles of suit `s` (at least three held), as `greedy` passes a suit.
pub(crate) fn exchange_in(seat: u8, c: &Counts, s: u8) -> Action {
    let mut tiles: Vec<u8> = Vec::with_capacity(14);
    for k in s * 9..s * 9 + 9 {
        for _ in 0..c[k as usize] {
            tiles.push(k);
        }
    }
    tiles.sort_by_key(|&k| (-((k % 9) as i8 - 4).abs(), k));
    let mut t = [tiles[0], tiles[1], tiles[2]];
    t.sort_unstable();
    Action::new(seat, Act::Exchange(t))
}

#[allow(clippy::too_many_arguments)]
fn turn(
    p: &Policy,
    v: &View,
    rules: &HandRules,
    legal: &[Action],
    counts: &Counts,
    melds: &[Meld],
    mask: u32,
    no_kong: bool,
) -> Action {
    let void = p.void;
    let (kind, now) = match value_options(p) {
        Some(_) => {
            // never feed a locked winner a tile it has won on (R14), while another is legal
            let avoid = locked_wins(v, rules.stay);
            let mask = if mask & !avoid != 0 {
                mask & !avoid
            } else {
                mask
            };
            let opponents: Vec<Opponent> = (0..v.seats())
                .filter(|&o| o != p.seat && !v.won(o) && !v.escaped(o))
                .map(|o| Opponent {
                    melds: v.melds(o).len() as u8,
                    meld_suits: meld_suits(v.melds(o)),
                    declared_void: void_opt(v.void(o)),
                    river: v.discards(o),
                })
                .collect();
            let t = ValueTurn {
                counts,
                melds,
                visible: v.seen(),
                void: void_opt(void),
                legal: mask,
                wall_count: v.wall_count() as i64,
                opponents: &opponents,
                rules: &rules.core,
            };
            let ch = value_discard_unchecked(&t, &p.params);
            (ch.kind, ch.shanten)
        }
        None => {
            let mut rows = Vec::with_capacity(14);
            if no_kong && void >= 0 && mask >> (9 * void) & 0x1ff != 0 {
                // void-suit tiles are useless to the hand (R4.2): isolation alone ranks them
                let g = greedy_discard_unchecked(
                    counts,
                    melds,
                    &[0; 27],
                    void_opt(void),
                    mask,
                    true,
                    &mut rows,
                );
                return Action::new(p.seat, Act::Discard(g.kind));
            }
            let g = greedy_discard_unchecked(
                counts,
                melds,
                v.seen(),
                void_opt(void),
                mask,
                no_kong,
                &mut rows,
            );
            (g.kind, Some(g.shanten.unwrap_or(99)))
        }
    };
    if !no_kong {
        if let Some(now) = now {
            if let Some(a) = kong(p, legal, counts, melds, now) {
                return a;
            }
        }
    }
    Action::new(p.seat, Act::Discard(kind))
}

/// The kinds (bit k) the locked winners have won on (R14: a winner that stays keeps its waits,
/// and its winning tiles are public); 0 when winners leave. Python's
/// `xuezhan.strategies.value.locked_wins`.
pub(crate) fn locked_wins<S: crate::hand::sight::Sight>(s: &S, stay: bool) -> u32 {
    if !stay {
        return 0;
    }
    (0..s.seats())
        .filter(|&o| o != s.seat() && s.won(o) && !s.escaped(o))
        .flat_map(|o| s.wins(o))
        .fold(0, |m, k| m | 1 << k)
}

/// The first concealed or added kong (R2.1) that raises the shanten `now` by at most the
/// policy's slack (never in the void suit).
fn kong(p: &Policy, legal: &[Action], counts: &Counts, melds: &[Meld], now: i8) -> Option<Action> {
    kong_of(p.seat, p.void, p.kong_slack, legal, counts, melds, now)
}

/// [`kong`] with the policy's facts given: its void and slack.
pub(crate) fn kong_of(
    _seat: u8,
    void: i8,
    kong_slack: i8,
    legal: &[Action],
    counts: &Counts,
    melds: &[Meld],
    now: i8,
) -> Option<Action> {
    for a in legal {
        let (k, concealed) = match a.act {
            Act::Angang(k) => (k, true),
            Act::Jiagang(k) => (k, false),
            _ => continue,
        };
        if (k / 9) as i8 == void {
            continue;
        }
        let mut c = *counts;
        let mut m: Vec<Meld> = melds.to_vec();
        if concealed {
            c[k as usize] -= 4;
            m.push(Meld {
                ty: MeldType::ConcealedKong,
                kind: k,
            });
        } else {
            c[k as usize] -= 1;
            for x in m.iter_mut() {
                if x.ty == MeldType::Pung && x.kind == k {
                    x.ty = MeldType::Kong;
                }
            }
        }
        if shanten(&c, &m, void) as i16 <= now as i16 + kong_slack as i16 {
            return Some(*a);
        }
    }
    None
}

/// A kong on a discard when it raises the shanten by at most the slack, else a peng when it
/// does not raise it (R3.1); never in the void suit, nor (value) in the suit cleared for 清一色.
fn claim(p: &Policy, v: &View, legal: &[Action], counts: &Counts, melds: &[Meld]) -> Action {
    let vo = value_options(p);
    claim_with(
        p.seat,
        p.void,
        p.kong_slack,
        vo.map(|_| &p.params),
        vo.is_some_and(|o| o.strict_peng),
        v.claim_tile(),
        v.wall_count(),
        legal,
        counts,
        melds,
    )
}

/// [`claim`] with the policy's facts given: its void, slack, `value`'s parameters (None for
/// `greedy`: no 清一色 route to keep) and `strict_peng`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn claim_with(
    _seat: u8,
    void: i8,
    kong_slack: i8,
    params: Option<&ValueParams>,
    strict_peng: bool,
    claim_tile: Option<u8>,
    wall_count: usize,
    legal: &[Action],
    counts: &Counts,
    melds: &[Meld],
) -> Action {
    let pass = *legal
        .iter()
        .find(|a| a.act == Act::Pass)
        .unwrap_or(&legal[0]);
    let Some(tile) = claim_tile else {
        return pass;
    };
    if (tile / 9) as i8 == void {
        return pass;
    }
    let gang = legal.iter().find(|a| a.act == Act::Gang).copied();
    let peng = legal.iter().find(|a| a.act == Act::Peng).copied();
    if gang.is_none() && peng.is_none() {
        return pass;
    }
    if let Some(params) = params {
        // a meld in the suit being cleared for 清一色 would kill it
        let now = shanten(counts, melds, void);
        let target = one_suit_target(
            counts,
            melds,
            void_opt(void),
            wall_count as i64,
            now as i64,
            params,
        );
        if target == Some(tile / 9) {
            return pass;
        }
    }
    let now = shanten(counts, melds, void);
    if let Some(g) = gang {
        let mut c = *counts;
        c[tile as usize] -= 3;
        let mut m = melds.to_vec();
        m.push(Meld {
            ty: MeldType::Kong,
            kind: tile,
        });
        if shanten(&c, &m, void) as i16 <= now as i16 + kong_slack as i16 {
            return g;
        }
    }
    if let Some(pg) = peng {
        if take_peng(void, strict_peng, counts, melds, tile, now) {
            return pg;
        }
    }
    pass
}

/// Peng when it does not raise the shanten `now`; `value` with `strict_peng` weighs the
/// seven-pairs and all-triplets routes.
fn take_peng(
    void: i8,
    strict_peng: bool,
    counts: &Counts,
    melds: &[Meld],
    tile: u8,
    now: i8,
) -> bool {
    let mut c = *counts;
    c[tile as usize] -= 2;
    let mut m = melds.to_vec();
    m.push(Meld {
        ty: MeldType::Pung,
        kind: tile,
    });
    let after = shanten(&c, &m, void);
    if !strict_peng {
        return after <= now;
    }
    let seven = melds
        .is_empty()
        .then(|| shanten_parts_unchecked(counts, melds, void_opt(void)).seven_pairs);
    if let Some(sv) = seven {
        if sv <= now && after >= sv {
            return false; // keep the better seven-pairs route
        }
    }
    if after < now {
        return true;
    }
    if after == now {
        // on an all-triplets route a peng costs nothing
        let best_tt = (0..27)
            .filter(|&k| c[k] != 0)
            .map(|k| {
                let mut d = c;
                d[k] -= 1;
                triplets_shanten(&d, m.len())
            })
            .min()
            .unwrap_or(i8::MAX);
        return best_tt <= after;
    }
    false
}
