//! Determinization in the native engine: a hand consistent with what one seat knows, for the
//! `expert`'s search (its hidden information sampled, then the hand played on by the engine).
//!
//! The sample keeps everything public (discard piles, melds, tiles set aside, wins, voids once
//! revealed, payments, kong records, the turn and the claim being asked) and what the seat
//! itself knows (its concealed tiles, the tile it drew, its exchange), and draws the rest from
//! the tiles the seat cannot see: the other seats' concealed tiles (each keeping its public
//! number of tiles) and the order of the wall, under the constraints the public history gives
//! (as the Python determinizer, `xuezhan.engine.determinize`, states them):
//!
//! - a seat that declared a void suit (R11.2) whose last discard was of another suit holds no
//!   tile of its void suit;
//! - the seat that received this seat's three exchanged tiles (R11.1) still holds those it has
//!   not discarded or melded since;
//! - a seat that has declared a peng or kong on the tile being claimed holds two or three of it,
//!   and a seat adding a kong that may be robbed (R3.3) still holds the tile it adds (these
//!   known tiles are set aside before any hand is dealt, so no other seat's ready hand takes
//!   them);
//! - a winner that stays in the hand (R14) holds a locked hand waiting on every tile it has won,
//!   and a seat that has declared a win on the tile being claimed a hand winning on it (built
//!   around the tile from random sets in its suits; when a bounded number of tries finds none,
//!   there is no sample and the caller draws again).
//!
//! `read_voids`, where voids are not declared (R11.2 off): a seat that has plainly been clearing
//! a suit (at least three of its discards, two more than of either other suit, no meld of it,
//! its last discard of another suit) is read as holding none of it, as a declared void is.
//!
//! `ready` deals each other seat still waiting for a tile a ready hand (a complete hand of its
//! suits around a random tile, that tile out) at the rate real players are ready for the wall's
//! length, and `pick` deals the other hands that many times and keeps the readiest (the lowest
//! sum of the opponents' shanten): uniform hands are far weaker than the hands players keep.
//! The other seats' pass-win locks (R4.3, private) are 0. Nothing hidden is read: the tests
//! change the hidden tiles of a hand and check that the samples do not change.

use crate::hand::policy::SplitMix;
use crate::hand::seats::Seats;
use crate::hand::turn::Phase;
use crate::hand::{Hand, DIRECTION_OFFSETS};
use crate::shanten::shanten_unchecked;
use crate::tiles::{Counts, Meld};
use crate::waits::wait_mask_unchecked;
use crate::win::is_win_unchecked;

/// Tries of a locked winner's hand before its constraint is dropped for the sample.
const LOCKED_TRIES: usize = 200;
/// Tries of the constrained deal before the bans are dropped for the sample.
const DEAL_TRIES: usize = 40;

fn void_opt(v: i8) -> Option<u8> {
    (v >= 0).then_some(v as u8)
}

/// Draws `n` tiles from `pool` (consumed) among the kinds allowed by `allowed` (bit k), in a
/// random order; None when too few are left.
fn draw(pool: &mut Counts, allowed: u32, n: usize, rng: &mut SplitMix, out: &mut Counts) -> bool {
    let mut avail: u32 = (0..27)
        .filter(|&k| allowed >> k & 1 != 0)
        .map(|k| pool[k] as u32)
        .sum();
    for _ in 0..n {
        if avail == 0 {
            return false;
        }
        let mut r = rng.below(avail as usize) as u32;
        let mut k = 0;
        loop {
            if allowed >> k & 1 != 0 {
                let c = pool[k] as u32;
                if r < c {
                    break;
                }
                r -= c;
            }
            k += 1;
        }
        pool[k] -= 1;
        out[k] += 1;
        avail -= 1;
    }
    true
}

/// A random locked hand of `n` concealed tiles (with `melds`) waiting on every kind of `won`,
/// its tiles from `pool` in the suits `suits` (bit s); consumed from `pool` when found.
#[allow(clippy::needless_range_loop)]
fn locked_hand(
    pool: &mut Counts,
    n: usize,
    melds: &[Meld],
    won: u32,
    suits: u8,
    void: Option<u8>,
    rng: &mut SplitMix,
) -> Option<Counts> {
    let first = won.trailing_zeros() as u8;
    for _ in 0..LOCKED_TRIES {
        // a complete hand of n + 1 tiles holding `first`: a pair and sets from the pool
        let mut p = *pool;
        let mut h = [0u8; 27];
        p[first as usize] += 1; // the winning tile itself is not in the hand: borrowed, returned below
        let mut ok = true;
        let mut left = n + 1;
        // the pair first, then sets of three
        let mut pieces = Vec::with_capacity(5);
        pieces.push(2usize);
        while left > 2 && pieces.len() < 6 {
            pieces.push(3);
            left = left.saturating_sub(3);
        }
        if pieces.iter().sum::<usize>() != n + 1 {
            return None;
        }
        for (i, &size) in pieces.iter().enumerate() {
            let mut placed = false;
            for _ in 0..20 {
                let s = loop {
                    let s = rng.below(3) as u8;
                    if suits >> s & 1 != 0 {
                        break s;
                    }
                };
                let r = rng.below(9) as u8;
                let k = (s * 9 + r) as usize;
                let run = size == 3 && r <= 6 && rng.below(2) == 0;
                let need: Vec<usize> = if run {
                    vec![k, k + 1, k + 2]
                } else {
                    vec![k; size]
                };
                let mut q = p;
                if need.iter().all(|&x| {
                    if q[x] == 0 {
                        false
                    } else {
                        q[x] -= 1;
                        true
                    }
                }) {
                    p = q;
                    for &x in &need {
                        h[x] += 1;
                    }
                    placed = true;
                    break;
                }
            }
            if !placed {
                ok = false;
                break;
            }
            let _ = i;
        }
        if !ok || h[first as usize] == 0 {
            continue;
        }
        h[first as usize] -= 1;
        if wait_mask_unchecked(&h, melds, void) & won != won {
            continue;
        }
        let mut h14 = h;
        h14[first as usize] += 1;
        if !is_win_unchecked(&h14, melds, void) {
            continue;
        }
        // the winning tile was borrowed (it is face up): the pool gives up the hand's tiles only
        for k in 0..27 {
            pool[k] -= h[k];
        }
        return Some(h);
    }
    None
}

/// The suit seat `i` has plainly been clearing, where voids are not declared (`read_voids`).
fn read_void(seats: &Seats, i: usize) -> Option<u8> {
    if seats.won[i] {
        return None;
    }
    let mut per = [0u8; 3];
    for (k, &c) in seats.discarded[i].iter().enumerate() {
        per[k / 9] += c;
    }
    let v = (0..3u8).max_by_key(|&s| per[s as usize])?;
    let clear = per[v as usize] >= 3
        && (0..3).all(|s| s == v as usize || per[s] + 2 <= per[v as usize])
        && seats.last_discard[i] >= 0
        && seats.last_discard[i] as u8 / 9 != v
        && seats.melds[i].as_slice().iter().all(|m| m.kind / 9 != v);
    clear.then_some(v)
}

/// The share of other seats (still waiting for a tile) that hold a ready hand with `wall`
/// tiles left: a straight line measured in `value` self-play, the Python search's
/// (`xuezhan.strategies.search.ready_rate`; the tests compare them).
pub fn ready_rate(wall: usize) -> f64 {
    (0.70 - 0.0145 * wall as f64).clamp(0.0, 1.0)
}

/// A hand consistent with what `seat` knows of `hand`, at its pending decision (see the module
/// doc); `pick`: the readiest of that many deals of the unconstrained hands; `ready`: each
/// other seat still waiting is dealt a ready hand at [`ready_rate`]; `read_voids`: the suits
/// the others have been clearing are read from their discards. None when the
/// hands that must win (locked winners, a declared win on the claimed tile) could not be built
/// within the bounded tries: the caller draws again.
#[allow(clippy::needless_range_loop)] // counts of several arrays, kind by kind
pub fn determinize(
    hand: &Hand,
    seat: u8,
    rng: &mut SplitMix,
    pick: u8,
    ready: bool,
    read_voids: bool,
) -> Option<Hand> {
    let seats = &hand.seats;
    let n = seats.n;
    let me = seat as usize;
    // the tiles the seat cannot see
    let mut pool = hand.wall.dealt;
    for k in 0..27 {
        pool[k] -= seats.counts[me][k] + hand.wall.seen[k];
    }
    let others: Vec<u8> = (0..n).filter(|&o| o != seat).collect();
    let size: Vec<usize> = (0..n as usize)
        .map(|o| seats.counts[o].iter().map(|&c| c as usize).sum())
        .collect();
    // constraints: required tiles and banned suits
    let mut need = [[0u8; 27]; 4];
    let mut banned: [Option<u8>; 4] = [None; 4];
    if seats.voids_known {
        for &o in &others {
            let i = o as usize;
            let v = seats.void[i];
            let last = seats.last_discard[i];
            if v >= 0 && last >= 0 && (last / 9) != v && !seats.won[i] {
                banned[i] = Some(v as u8); // R11.2: its last discard was not of its void suit
            }
        }
    }
    if read_voids && !hand.rules.declare_void {
        for &o in &others {
            banned[o as usize] = read_void(seats, o as usize);
        }
    }
    if let Some(w) = &hand.turn.claims {
        if w.robbing && w.frm != seat {
            // R3.3: the seat adding a kong still holds the tile it adds until no one robs it
            let r = &mut need[w.frm as usize][w.tile as usize];
            *r = (*r).max(1);
        }
        if let Some((m, gang)) = w.meld {
            if m != seat {
                let r = &mut need[m as usize][w.tile as usize];
                *r = (*r).max(if gang { 3 } else { 2 });
            }
        }
    }
    if let (Some(mine), Some(d)) = (hand.turn.x_choice[me], hand.exchange_dir) {
        if hand.turn.phase != Phase::Exchange {
            let to = ((seat + DIRECTION_OFFSETS[d as usize]) % n) as usize;
            let mut passed = [0u8; 27];
            for k in mine {
                passed[k as usize] += 1;
            }
            let mut melded = [0u8; 27];
            for m in seats.melds[to].as_slice() {
                melded[m.kind as usize] += m.copies();
            }
            if (!seats.won[to] || seats.stay) && !seats.escaped[to] {
                for k in 0..27 {
                    let req = passed[k].saturating_sub(seats.discarded[to][k] + melded[k]);
                    need[to][k] = need[to][k].max(req);
                }
            }
        }
    }
    // hands that must win: locked winners (R14) and the seats that declared a win on the
    // tile being claimed (a public declaration) wait on those tiles
    let mut must_wait = [0u32; 4];
    if seats.stay {
        for w in &hand.ledger.wins {
            let i = w.seat as usize;
            if w.seat != seat && seats.won[i] && !seats.escaped[i] {
                must_wait[i] |= 1 << w.tile;
            }
        }
    }
    if let Some(w) = &hand.turn.claims {
        for &o in &w.hu {
            if o != seat {
                must_wait[o as usize] |= 1 << w.tile;
            }
        }
    }
    // the tiles a seat is known to hold (the pair or triplet of a declared peng or kong, the
    // exchanged tiles it has not shown) are set aside before any hand is dealt: a ready hand
    // dealt to another seat first must not take them (that seat's meld would then take tiles
    // it does not hold). A seat that must win is dealt whole around its wait, as before.
    let mut reserved = [[0u8; 27]; 4];
    for &o in &others {
        let i = o as usize;
        if must_wait[i] != 0 {
            continue;
        }
        for k in 0..27 {
            let take = need[i][k].min(pool[k]);
            pool[k] -= take;
            reserved[i][k] = take;
        }
    }
    let mut hands = [[0u8; 27]; 4];
    let mut fixed = [false; 4];
    {
        for &o in &others {
            let i = o as usize;
            if must_wait[i] == 0 {
                continue;
            }
            let won = must_wait[i];
            let melds = seats.melds[i].as_slice();
            let mut suits = 0u8;
            for m in melds {
                suits |= 1 << (m.kind / 9);
            }
            for k in 0..27 {
                if won >> k & 1 != 0 {
                    suits |= 1 << (k / 9);
                }
            }
            if let Some(v) = void_opt(seats.void[i]).filter(|_| seats.voids_known) {
                suits &= !(1 << v);
            }
            if suits.count_ones() == 1 {
                // a hand of two suits may add one: any that is not the void
                let extra = (0..3u8)
                    .filter(|&s| suits >> s & 1 == 0 && Some(s) != banned[i])
                    .collect::<Vec<_>>();
                if !extra.is_empty() {
                    suits |= 1 << extra[rng.below(extra.len())];
                }
            }
            hands[i] = locked_hand(
                &mut pool,
                size[i],
                melds,
                won,
                suits,
                void_opt(seats.void[i]),
                rng,
            )?;
            fixed[i] = true;
        }
    }
    // ready hands, at the rate real players are ready for the wall's length (`ready`): a
    // complete hand of the seat's suits around a random tile, that tile taken out
    if ready {
        let rate = ready_rate(hand.wall.count());
        for &o in &others {
            let i = o as usize;
            if fixed[i] || seats.won[i] || seats.escaped[i] || need[i].iter().any(|&c| c > 0) {
                continue;
            }
            if (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 >= rate {
                continue;
            }
            let melds = seats.melds[i].as_slice();
            let mut suits = 0u8;
            for m in melds {
                suits |= 1 << (m.kind / 9);
            }
            let shown = if seats.voids_known {
                void_opt(seats.void[i])
            } else {
                None
            };
            let barred = shown.or(banned[i]);
            while suits.count_ones() < 2 {
                let s = rng.below(3) as u8;
                if Some(s) != barred {
                    suits |= 1 << s;
                }
            }
            if let Some(v) = barred {
                suits &= !(1 << v);
            }
            let kinds: Vec<u8> = (0..27u8).filter(|&k| suits >> (k / 9) & 1 != 0).collect();
            if kinds.is_empty() {
                continue;
            }
            let wait = kinds[rng.below(kinds.len())];
            if let Some(h) = locked_hand(&mut pool, size[i], melds, 1 << wait, suits, shown, rng) {
                hands[i] = h;
                fixed[i] = true;
            }
        }
    }
    // the other hands: required tiles, then random ones outside any banned suit; `pick` deals,
    // the readiest kept
    let free: Vec<u8> = others
        .iter()
        .copied()
        .filter(|&o| !fixed[o as usize])
        .collect();
    let mut best: Option<(i32, [[u8; 27]; 4], Counts)> = None;
    for _ in 0..pick.max(1) {
        let mut dealt = None;
        for attempt in 0..DEAL_TRIES {
            let mut p = pool;
            let mut hs = hands;
            let mut ok = true;
            // banned seats first: they need tiles from fewer suits
            let mut order = free.clone();
            order.sort_by_key(|&o| banned[o as usize].is_none());
            for &o in &order {
                let i = o as usize;
                for k in 0..27 {
                    hs[i][k] += reserved[i][k];
                }
                let have: usize = hs[i].iter().map(|&c| c as usize).sum();
                let mut allowed: u32 = (1 << 27) - 1;
                if let (Some(v), true) = (banned[i], attempt + 1 < DEAL_TRIES) {
                    allowed &= !(0x1ff << (9 * v));
                }
                if !draw(
                    &mut p,
                    allowed,
                    size[i].saturating_sub(have),
                    rng,
                    &mut hs[i],
                ) {
                    ok = false;
                    break;
                }
            }
            if ok {
                dealt = Some((hs, p));
                break;
            }
        }
        let Some((hs, p)) = dealt else {
            continue;
        };
        let readiness: i32 = free
            .iter()
            .filter(|&&o| !seats.won[o as usize] && !seats.escaped[o as usize])
            .map(|&o| {
                let i = o as usize;
                let v = if seats.voids_known {
                    void_opt(seats.void[i])
                } else {
                    None
                };
                shanten_unchecked(&hs[i], seats.melds[i].as_slice(), v) as i32
            })
            .sum();
        if best.as_ref().is_none_or(|(r, _, _)| readiness < *r) {
            best = Some((readiness, hs, p));
        }
    }
    let mut out = hand.clone();
    out.ledger.events = None;
    let (hs, rest) = match best {
        Some((_, hs, p)) => (hs, p),
        None => {
            // no deal met the bans (never seen): the true hidden tiles' multiset, reshuffled
            let mut hs = hands;
            let mut p = pool;
            for &o in &free {
                let i = o as usize;
                hs[i] = reserved[i];
                let have: usize = hs[i].iter().map(|&c| c as usize).sum();
                draw(
                    &mut p,
                    (1 << 27) - 1,
                    size[i].saturating_sub(have),
                    rng,
                    &mut hs[i],
                );
            }
            (hs, p)
        }
    };
    for &o in &others {
        out.seats.counts[o as usize] = hs[o as usize];
        out.seats.lock[o as usize] = 0;
        out.seats.update_mask(o);
    }
    if let Some(w) = &mut out.turn.claims {
        for &o in &others {
            w.fan[o as usize] = 0;
        }
    }
    let mut wall: Vec<u8> = (0..27u8)
        .flat_map(|k| std::iter::repeat_n(k, rest[k as usize] as usize))
        .collect();
    for i in (1..wall.len()).rev() {
        let j = rng.below(i + 1);
        wall.swap(i, j);
    }
    let pos = out.wall.pos;
    out.wall.tiles.truncate(pos);
    out.wall.tiles.extend(wall);
    hidden_choices(&mut out, &others, rng);
    Some(out)
}

/// The setup's hidden facts drawn, as the Python determinizer draws them: during the exchange
/// the direction (not shown before the tiles pass, R11.1) and the choices of the seats that
/// chose before (each the R10 default on its sampled hand); during the void declaration the
/// hidden choices already made, the same way (R11.2). Once the tiles have passed, what the
/// others passed is kept by nobody (the engine reads it no more; the receiver holds it).
fn hidden_choices(out: &mut Hand, others: &[u8], rng: &mut SplitMix) {
    use crate::hand::legal::{default_exchange, default_void};
    use crate::hand::Act;
    match out.turn.phase {
        Phase::Exchange => {
            if out.exchange_dir.is_some() {
                out.exchange_dir = Some(rng.below(DIRECTION_OFFSETS.len()) as u8);
            }
            for &o in others {
                if out.turn.x_choice[o as usize].is_some() {
                    if let Act::Exchange(t) = default_exchange(o, &out.seats.counts[o as usize]).act
                    {
                        out.turn.x_choice[o as usize] = Some(t);
                    }
                }
            }
        }
        Phase::Void => {
            for &o in others {
                out.turn.x_choice[o as usize] = None; // passed, and private to its receiver
                if out.turn.v_choice[o as usize] >= 0 {
                    if let Act::Void(v) = default_void(o, &out.seats.counts[o as usize]).act {
                        out.turn.v_choice[o as usize] = v as i8;
                    }
                }
            }
        }
        _ => {
            for &o in others {
                out.turn.x_choice[o as usize] = None; // passed, and private to its receiver
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hand::play::play_out;
    use crate::hand::policy::{Policy, PolicySpec};
    use crate::hand::view::View;
    use crate::hand::HandRules;

    /// The rule sets the samples are checked under: leshan, chengdu, and chengdu with winners
    /// staying in (R14).
    fn rule_sets() -> [HandRules; 3] {
        [
            HandRules::leshan(),
            HandRules::chengdu(),
            HandRules {
                stay: true,
                ..HandRules::chengdu()
            },
        ]
    }

    /// Hands of `value` players stopped at a decision `steps` decisions in.
    fn positions(rules: HandRules) -> Vec<Hand> {
        let mut out = Vec::new();
        for seed in 0..60i128 {
            let mut h = Hand::from_seed(rules, seed, (seed % 4) as u8, false).unwrap();
            let mut pols: Vec<Policy> = (0..4u8)
                .map(|s| Policy::new(&PolicySpec::value(), s, &rules, None))
                .collect();
            for _ in 0..(seed as usize * 7) % 90 {
                let Some(s) = h.turn.cur else { break };
                let a = pols[s as usize].act(&View::new(&h, s), &rules);
                h.apply_legal(a, false);
            }
            if !h.is_over() {
                out.push(h);
            }
            let _ = play_out;
        }
        out
    }

    fn public(h: &Hand, seat: u8) -> String {
        // what the seat sees: its tiles, every pile, meld, wall count, the turn, the claim
        let v = View::new(h, seat);
        format!(
            "{:?} {:?} {:?} {:?} {} {:?} {:?} {:?} {:?}",
            v.hand(),
            (0..4).map(|s| v.discards(s).to_vec()).collect::<Vec<_>>(),
            (0..4).map(|s| v.melds(s).to_vec()).collect::<Vec<_>>(),
            v.seen(),
            v.wall_count(),
            v.legal(),
            v.claim_tile(),
            h.ledger.deltas,
            (0..4).map(|s| v.void(s)).collect::<Vec<_>>(),
        )
    }

    #[test]
    fn samples_keep_what_the_seat_sees_and_conserve_the_tiles() {
        for rules in rule_sets() {
            let (mut drawn, mut read) = (0, 0);
            for h in positions(rules) {
                let seat = h.turn.cur.unwrap();
                let mut rng = SplitMix::new(7);
                for i in 0..4 {
                    let read_voids = i % 2 == 1;
                    let Some(s) = determinize(&h, seat, &mut rng, 4, true, read_voids) else {
                        continue;
                    };
                    drawn += 1;
                    s.check_invariants().unwrap(); // R12.1: the same tiles, none over four
                    assert_eq!(public(&s, seat), public(&h, seat));
                    assert_eq!(s.wall.tiles.len(), h.wall.tiles.len());
                    for o in 0..4u8 {
                        let n = |x: &Hand| {
                            x.seats.counts[o as usize]
                                .iter()
                                .map(|&c| c as u32)
                                .sum::<u32>()
                        };
                        assert_eq!(n(&s), n(&h), "seat {o} keeps its number of tiles");
                        // R11.2: a seat whose last discard was not of its void holds none of it
                        let (v, last) =
                            (h.seats.void[o as usize], h.seats.last_discard[o as usize]);
                        if o != seat
                            && h.seats.voids_known
                            && v >= 0
                            && last >= 0
                            && last / 9 != v
                            && !h.seats.won[o as usize]
                        {
                            let suit =
                                &s.seats.counts[o as usize][(v as usize) * 9..(v as usize) * 9 + 9];
                            assert!(suit.iter().all(|&c| c == 0));
                        }
                        // `read_voids` (no declared voids): a suit plainly being cleared, the same
                        if let Some(v) = read_voids
                            .then(|| read_void(&h.seats, o as usize))
                            .flatten()
                            .filter(|_| o != seat && !h.rules.declare_void)
                        {
                            let suit =
                                &s.seats.counts[o as usize][v as usize * 9..v as usize * 9 + 9];
                            assert!(suit.iter().all(|&c| c == 0), "seat {o} clears suit {v}");
                            read += 1;
                        }
                    }
                    // locked winners (R14) still wait on every tile they won
                    if rules.stay {
                        for w in &h.ledger.wins {
                            let o = w.seat as usize;
                            if w.seat != seat && !h.seats.escaped[o] {
                                assert!(
                                    s.seats.mask[o] >> w.tile & 1 != 0,
                                    "a locked winner waits on {}",
                                    w.tile
                                );
                            }
                        }
                    }
                }
            }
            assert!(drawn > 100);
            assert!(
                rules.declare_void || read > 10,
                "read voids checked {read} times"
            );
        }
    }

    /// R11: during the exchange and the void declaration, the choices the other seats made
    /// before (hidden) and the exchange's direction (shown only when the tiles pass) do not show
    /// in a sample: changing them changes nothing, and each sampled choice is one the sampled
    /// hand can make.
    #[test]
    fn setup_samples_do_not_reveal_the_choices_made_before() {
        use crate::hand::legal::default_exchange;
        use crate::hand::policy::greedy::exchange_in;
        use crate::hand::Act;
        let rules = HandRules::chengdu();
        let mut checked = [0, 0];
        for seed in 0..40i128 {
            let mut h = Hand::from_seed(rules, seed, (seed % 4) as u8, false).unwrap();
            while matches!(h.turn.phase, Phase::Exchange | Phase::Void) {
                let seat = h.turn.cur.unwrap();
                let mut other = h.clone();
                let mut changed = false;
                for o in (0..4u8).filter(|&o| o != seat) {
                    let c = &h.seats.counts[o as usize];
                    if let Some(mine) = h.turn.x_choice[o as usize] {
                        let n = crate::hand::legal::suit_counts(c);
                        if let Some(s) = (0..3).find(|&s| n[s] >= 3 && s != mine[0] as usize / 9) {
                            if let Act::Exchange(t) = exchange_in(o, c, s as u8).act {
                                other.turn.x_choice[o as usize] = Some(t);
                                changed = true;
                            }
                        }
                    }
                    if h.turn.v_choice[o as usize] >= 0 {
                        other.turn.v_choice[o as usize] = (h.turn.v_choice[o as usize] + 1) % 3;
                        changed = true;
                    }
                }
                if let (Some(d), Phase::Exchange) = (h.exchange_dir, h.turn.phase) {
                    other.exchange_dir = Some((d + 1) % 3);
                    changed = true;
                }
                if changed {
                    let a = determinize(&h, seat, &mut SplitMix::new(seed as u64), 3, true, false)
                        .unwrap();
                    let b = determinize(
                        &other,
                        seat,
                        &mut SplitMix::new(seed as u64),
                        3,
                        true,
                        false,
                    )
                    .unwrap();
                    assert_eq!(a.turn.x_choice, b.turn.x_choice);
                    assert_eq!(a.turn.v_choice, b.turn.v_choice);
                    assert_eq!(a.exchange_dir, b.exchange_dir);
                    assert_eq!(a.seats.counts, b.seats.counts);
                    for o in 0..4 {
                        if h.turn.phase != Phase::Exchange {
                            break; // the tiles have passed
                        }
                        if let Some(t) = a.turn.x_choice[o] {
                            let mut c = a.seats.counts[o];
                            for k in t {
                                assert!(c[k as usize] > 0, "seat {o} holds the tiles it passes");
                                c[k as usize] -= 1;
                            }
                            assert!(t.iter().all(|&k| k / 9 == t[0] / 9), "one suit (R11.1)");
                        }
                    }
                    checked[usize::from(h.turn.phase == Phase::Void)] += 1;
                }
                let a = match h.turn.phase {
                    Phase::Exchange => default_exchange(seat, &h.seats.counts[seat as usize]),
                    _ => h.default_action().unwrap(),
                };
                h.apply_legal(a, false);
            }
        }
        assert!(checked[0] > 40 && checked[1] > 40, "{checked:?}");
    }

    #[test]
    fn samples_do_not_depend_on_the_hidden_tiles() {
        // two hands the seat cannot tell apart: two other seats swap a concealed tile, and the
        // wall is reversed; the same generator gives the same sample
        let rules = HandRules::leshan();
        let mut checked = 0;
        for h in positions(rules) {
            let seat = h.turn.cur.unwrap();
            let (a, b) = ((seat + 1) % 4, (seat + 2) % 4);
            let ka = (0..27).find(|&k| h.seats.counts[a as usize][k] > 0);
            let kb = (0..27).find(|&k| h.seats.counts[b as usize][k] > 0 && Some(k) != ka);
            let (Some(ka), Some(kb)) = (ka, kb) else {
                continue;
            };
            if h.turn.claims.is_some() {
                continue; // a declared claim ties hidden tiles to public ones
            }
            let mut twin = h.clone();
            twin.seats.counts[a as usize][ka] -= 1;
            twin.seats.counts[a as usize][kb] += 1;
            twin.seats.counts[b as usize][kb] -= 1;
            twin.seats.counts[b as usize][ka] += 1;
            twin.seats.update_mask(a);
            twin.seats.update_mask(b);
            let pos = twin.wall.pos;
            twin.wall.tiles[pos..].reverse();
            let s1 = determinize(&h, seat, &mut SplitMix::new(3), 6, true, false).unwrap();
            let s2 = determinize(&twin, seat, &mut SplitMix::new(3), 6, true, false).unwrap();
            assert_eq!(s1.seats.counts, s2.seats.counts);
            assert_eq!(s1.wall.tiles, s2.wall.tiles);
            checked += 1;
        }
        assert!(checked > 20);
    }

    /// Every answer to a claim, played on samples of the claim window: the seats whose part in
    /// it is public (a declared peng or kong, a kong being added and not yet robbed, R3.3) hold
    /// the tiles it takes, so every answer plays out with the tiles conserved (R12.1). Before,
    /// a ready hand dealt to another seat could take the tiles of a declared peng, and the
    /// tile of an added kong was dealt anywhere: passing a win there broke the sample.
    #[test]
    fn every_answer_to_a_claim_plays_out_on_its_samples() {
        let mut robbed = 0;
        for rules in rule_sets() {
            let (mut windows, mut shared) = (0, 0);
            for seed in 0..150i128 {
                let mut h = Hand::from_seed(rules, seed, (seed % 4) as u8, false).unwrap();
                let mut pols: Vec<Policy> = (0..4u8)
                    .map(|s| Policy::new(&PolicySpec::value(), s, &rules, None))
                    .collect();
                let mut rng = SplitMix::new(seed as u64);
                while let Some(seat) = h.turn.cur {
                    if h.turn.phase == Phase::Claim && h.legal().len() > 1 {
                        let w = h.turn.claims.as_ref().unwrap();
                        windows += 1;
                        shared += usize::from(w.meld.is_some());
                        robbed += usize::from(w.robbing);
                        for _ in 0..2 {
                            let Some(sample) = determinize(&h, seat, &mut rng, 4, true, false)
                            else {
                                continue;
                            };
                            for &a in h.legal() {
                                let mut x = sample.clone();
                                x.apply(a, false).unwrap();
                                x.check_invariants().unwrap();
                                let mut ps: Vec<Policy> = (0..4u8)
                                    .map(|s| Policy::new(&PolicySpec::value(), s, &rules, None))
                                    .collect();
                                play_out(&mut x, &mut ps);
                                x.check_invariants().unwrap();
                                assert!(x.is_over());
                            }
                        }
                    }
                    let a = pols[seat as usize].act(&View::new(&h, seat), &rules);
                    h.apply_legal(a, false);
                }
            }
            assert!(
                windows > 100 && shared > 2,
                "{windows} windows, {shared} with a meld"
            );
        }
        // the windows that broke samples before are among those played
        assert!(robbed > 0, "no kong to rob was answered");
    }
}
