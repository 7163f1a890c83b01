//! The evaluator against its peer, the `xiangting` crate (riichi rules), on the hand sets of
//! the peer benchmarks (`rust/bench/benches/peers.rs`): win check, shanten, waits and best discards
//! agree on every hand where the two rule sets agree. The known rule differences, each
//! recognised by its own condition and counted:
//!
//! - **void** (R4.2): a hand holding three suits (or its declared void suit) must drop one;
//!   the peer keeps all three, so the evaluator's shanten is never lower than the peer's.
//! - **third suit** (R4.2; Sichuan has no honours): the peer may complete a pair or a set in
//!   a suit the hand does not hold, or in honours; Sichuan keeps two suits and has no
//!   honour tiles. Recognised by the peer's necessary tiles reaching such a suit.
//! - **seven pairs with four equal tiles** (R4.1): Sichuan counts a quad as two pairs, the
//!   peer (distinct pairs) as one. Recognised by a kind held three or four times in a hand
//!   whose seven-pairs shanten is its shanten.

use xuezhan_core::*;

#[path = "../measure/hands.rs"]
mod hands;
#[path = "../measure/peer.rs"]
mod peer;
use hands::peer_sets;

/// Why a hand's answers may differ from the peer's, if they may.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Difference {
    Void,
    ThirdSuit,
    SevenPairsQuad,
}

/// Suits (bit s) holding a tile of `c`.
fn suits(c: &Counts) -> u8 {
    (0..27)
        .filter(|&k| c[k] > 0)
        .fold(0, |m, k| m | 1 << (k / 9))
}

/// The rule difference that may separate the answers on `c` (13 or 14 tiles), if any.
fn difference(c: &Counts, void: Option<u8>) -> Option<Difference> {
    let p = shanten_parts(c, &[], void).unwrap();
    if c.iter().any(|&x| x >= 3) && p.seven_pairs == p.total {
        return Some(Difference::SevenPairsQuad);
    }
    let held = suits(c);
    if held == 7 || void.is_some_and(|v| held & (1 << v) != 0) {
        return Some(Difference::Void);
    }
    let mut h = [0u8; 34];
    h[..27].copy_from_slice(c);
    let n: u32 = c.iter().map(|&x| x as u32).sum();
    if n % 3 == 1 {
        let (_, nec) =
            xiangting::calculate_necessary_tiles(&h, xiangting::PlayerCount::Four).unwrap();
        let outside = (0..3).filter(|&s| held & (1 << s) == 0 && nec >> (9 * s) & 0x1ff != 0);
        // Honours, or a suit beyond the one Sichuan may still add (two kept suits in all).
        if nec >> 27 != 0 || outside.count() + held.count_ones() as usize > 2 {
            return Some(Difference::ThirdSuit);
        }
    } else {
        // 14 tiles: the peer's necessary tiles of each discard tell the same.
        for k in (0..27).filter(|&k| c[k] > 0) {
            let mut d = *c;
            d[k] -= 1;
            if difference(&d, void) == Some(Difference::ThirdSuit) {
                return Some(Difference::ThirdSuit);
            }
        }
    }
    None
}

/// Tally of one comparison: rows equal to the peer's, rows set aside per difference.
#[derive(Default, Debug)]
struct Tally {
    equal: usize,
    aside: [usize; 3],
}

impl Tally {
    /// Compares one row: equal, or a named difference (with the void one's shanten no lower
    /// than the peer's); anything else fails the test with the hand.
    fn row<T: PartialEq + std::fmt::Debug>(
        &mut self,
        what: &str,
        c: &Counts,
        void: Option<u8>,
        ours: T,
        theirs: T,
        (ours_sh, theirs_sh): (i8, i8),
    ) {
        if ours == theirs {
            self.equal += 1;
            return;
        }
        match difference(c, void) {
            Some(d) => {
                if d == Difference::Void {
                    assert!(
                        ours_sh >= theirs_sh,
                        "{what} {c:?}: void hand below the peer"
                    );
                }
                self.aside[d as usize] += 1;
            }
            None => panic!("{what} {c:?} void {void:?}: {ours:?} vs the peer's {theirs:?}"),
        }
    }

    /// At least `share` of the rows compared equal: the test is not passing vacuously.
    fn check(&self, what: &str, share: f64) {
        let total = self.equal + self.aside.iter().sum::<usize>();
        eprintln!(
            "{what}: {} of {total} equal, set aside {:?}",
            self.equal, self.aside
        );
        assert!(
            self.equal as f64 >= share * total as f64,
            "{what}: only {} of {total} rows equal",
            self.equal
        );
    }
}

#[test]
fn win_shanten_and_waits_agree_with_xiangting() {
    let s = peer_sets();
    let mut t = Tally::default();
    for c in s.mixed14.iter().chain(s.two14.iter()) {
        let (a, b) = (is_win(c, &[], None).unwrap(), peer::is_win(c));
        let (sa, sb) = (shanten(c, &[], None).unwrap(), peer::shanten(c));
        t.row("is_win", c, None, a, b, (sa, sb));
        t.row("shanten", c, None, sa, sb, (sa, sb));
    }
    for p in &s.selfplay {
        let (sa, sb) = (
            shanten(&p.counts, &[], Some(p.void)).unwrap(),
            peer::shanten(&p.counts),
        );
        t.row("shanten", &p.counts, Some(p.void), sa, sb, (sa, sb));
    }
    for c in s
        .two13
        .iter()
        .chain(s.ready13.iter())
        .chain(s.three14.iter())
    {
        let (sa, sb) = (shanten(c, &[], None).unwrap(), peer::shanten(c));
        t.row("shanten", c, None, sa, sb, (sa, sb));
        if c.iter().map(|&x| x as u32).sum::<u32>() == 13 {
            let w = wait_mask(c, &[], None).unwrap();
            t.row("waits", c, None, w, peer::wait_mask(c), (sa, sb));
        }
    }
    t.check("win, shanten, waits", 0.85);
}

#[test]
fn best_discards_agree_with_xiangting() {
    let s = peer_sets();
    let mut peer_rows = Vec::new();
    let zero = [0u8; 27];
    let mut two_suit = Tally::default();
    let mut all = Tally::default();
    let hands = s
        .selfplay
        .iter()
        .map(|p| (p.counts, p.visible, Some(p.void)))
        .chain(s.two14.iter().map(|&c| (c, zero, None)))
        .chain(s.ready14.iter().map(|&c| (c, zero, None)))
        .chain(s.three14.iter().map(|&c| (c, zero, None)));
    for (c, visible, void) in hands {
        let ours = best_discards(&c, &[], &visible, void).unwrap();
        peer::best_discards(&c, &visible, &mut peer_rows);
        assert_eq!(ours.len(), peer_rows.len());
        let tally = if suits(&c).count_ones() <= 2 && void.is_none() {
            &mut two_suit
        } else {
            &mut all
        };
        for (a, b) in ours.iter().zip(&peer_rows) {
            assert_eq!(a.kind, b.kind);
            let mut h = c;
            h[a.kind as usize] -= 1;
            let row = |d: &Discard| (d.shanten, d.ukeire);
            tally.row(
                "best_discards",
                &h,
                void,
                row(a),
                row(b),
                (a.shanten, b.shanten),
            );
        }
    }
    two_suit.check("best_discards, two-suit hands", 0.9);
    all.check("best_discards, self-play and three-suit hands", 0.25);
}
