//! Native whole-hand play (docs/rules.md R1–R14): the round engine of the Python package
//! (`xuezhan.engine`) in Rust, for the bulk work where nobody waits: tournaments and studies of
//! built-in strategies, and the what-if play-outs inside a searching strategy.
//!
//! The Python engine is the specification. This module mirrors it function by function, with
//! the state kept by concern as the Python engine keeps it (and as Mortal's `libriichi` keeps
//! its state): the parts [`Wall`], [`Seats`], [`Turn`] and [`Ledger`] hold the hand; the
//! `impl` blocks of [`Hand`] are split into the turn flow and claims (`flow`), the legal
//! actions (`legal`), settlement (`settle`), what a seat may see ([`view`]) and the result
//! ([`result`]). The built-in policies are in [`policy`] and the hand loop in [`play`]. The
//! Python differential tests play thousands of seeded hands both ways and compare every
//! result row and every log line.
//!
//! ```
//! use xuezhan_core::hand::{play::play_seeded, policy::PolicySpec, HandRules};
//! let lineup = [PolicySpec::greedy(), PolicySpec::greedy(), PolicySpec::value(), PolicySpec::random()];
//! let hand = play_seeded(&HandRules::leshan(), 7, &lineup, false).unwrap();
//! assert!(hand.is_over());
//! assert_eq!(hand.ledger.deltas.iter().sum::<i64>(), 0); // R12.2: no escape, points balance
//! ```

pub mod action;
pub mod event;
mod flow;
pub mod ledger;
pub mod legal;
pub mod play;
pub mod policy;
pub mod result;
pub mod rules;
pub mod sample;
pub mod seats;
pub mod seeds;
pub mod settle;
pub mod sight;
pub mod turn;
pub mod view;
pub mod wall;

pub use action::{Act, Action};
pub use event::{EndReason, Event, KongHow, MeldVerb, PayRule, Win, WinHow};
pub use ledger::{KongRecord, Ledger, FIRED};
pub use rules::{HandRules, SelfDrawBonus};
pub use seats::{Melds, Seats};
pub use turn::{ClaimWindow, Phase, Turn, TurnFlags};
pub use wall::Wall;

use crate::deal::{shuffled_tiles_from, PyRandom};

/// An error of the native engine: an action it refuses, or a state it cannot build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandError(pub String);

impl std::fmt::Display for HandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HandError {}

/// One hand: its rules and facts, and its four parts.
#[derive(Debug, Clone)]
pub struct Hand {
    /// The rules.
    pub rules: HandRules,
    /// The dealer (R1.2).
    pub dealer: u8,
    /// R11.1: the exchange direction (0 next, 1 prev, 2 across), when exchanging.
    pub exchange_dir: Option<u8>,
    /// The hands as dealt (for the log header, R1.4).
    pub hands0: Vec<Vec<u8>>,
    /// The wall and the visible tiles.
    pub wall: Wall,
    /// The seats.
    pub seats: Seats,
    /// The pending decision.
    pub turn: Turn,
    /// The record.
    pub ledger: Ledger,
}

/// R11.1: the seat offset each direction passes to (next, prev, across).
pub const DIRECTION_OFFSETS: [u8; 3] = [1, 3, 2];

/// R1.2/R1.4: the hands and wall dealt from `key` (the seed as `random.Random` keys it, see
/// [`seeds::random_key`]) with `dealer`, and the exchange direction drawn next.
pub fn deal(key: &[u32], dealer: u8) -> (Vec<Vec<u8>>, Vec<u8>, u8) {
    deal_from(PyRandom::new(key), dealer)
}

/// [`deal`] from a generator already seeded with the hand's seed.
pub fn deal_from(g: PyRandom, dealer: u8) -> (Vec<Vec<u8>>, Vec<u8>, u8) {
    let (tiles, d) = shuffled_tiles_from(g);
    let mut hands = vec![Vec::new(); 4];
    let mut pos = 0;
    for i in 0..4u8 {
        let s = ((dealer + i) % 4) as usize;
        let n = if i == 0 { 14 } else { 13 };
        hands[s] = tiles[pos..pos + n].to_vec();
        pos += n;
    }
    (hands, tiles[pos..].to_vec(), d)
}

impl Hand {
    /// A hand dealt from `seed` (R1.4) with `dealer`, as the Python `Round.from_seed`;
    /// `record`: keep its events (for a log).
    pub fn from_seed(
        rules: HandRules,
        seed: i128,
        dealer: u8,
        record: bool,
    ) -> Result<Hand, HandError> {
        Hand::from_generator(
            rules,
            PyRandom::new(&seeds::random_key(seed)),
            dealer,
            record,
        )
    }

    /// [`Hand::from_seed`] with the generator of the hand's seed already seeded.
    pub fn from_generator(
        rules: HandRules,
        g: PyRandom,
        dealer: u8,
        record: bool,
    ) -> Result<Hand, HandError> {
        let (hands, wall, d) = deal_from(g, dealer);
        let dir = rules.exchange_three.then_some(d);
        Hand::new(rules, hands, wall, dealer, dir, record)
    }

    /// A hand of `hands` (kinds; the dealer's 14 tiles, 13 for the others) and `wall` in draw
    /// order, as the Python `Round(...)`.
    pub fn new(
        rules: HandRules,
        hands: Vec<Vec<u8>>,
        wall: Vec<u8>,
        dealer: u8,
        exchange_dir: Option<u8>,
        record: bool,
    ) -> Result<Hand, HandError> {
        if let Some(why) = rules.unsupported() {
            return Err(HandError(format!("the native engine cannot play {why}")));
        }
        if hands.len() != rules.seats as usize || dealer >= rules.seats {
            return Err(HandError(format!(
                "{} hands with dealer {dealer}: a hand has {} seats (R1.2)",
                hands.len(),
                rules.seats
            )));
        }
        let mut dealt = [0u8; 27];
        for (s, h) in hands.iter().enumerate() {
            let n = if s == dealer as usize { 14 } else { 13 };
            if h.len() != n {
                return Err(HandError(format!(
                    "hand of seat {s} has {} tiles: it gets {n} (R1.2)",
                    h.len()
                )));
            }
        }
        for &k in hands.iter().flatten().chain(wall.iter()) {
            if k >= 27 {
                return Err(HandError(format!("{k} is not a tile kind 0-26")));
            }
            dealt[k as usize] += 1;
            if dealt[k as usize] > 4 {
                return Err(HandError(format!("more than four of kind {k} (R1.1)")));
            }
        }
        if rules.exchange_three && exchange_dir.is_none_or(|d| d > 2) {
            return Err(HandError(
                "exchange_three is on: the exchange direction must be 0-2".into(),
            ));
        }
        let seats = Seats::deal(&hands, rules.stay, !rules.declare_void);
        let mut hand = Hand {
            rules,
            dealer,
            exchange_dir,
            hands0: hands,
            wall: Wall {
                tiles: wall,
                dealt,
                pos: 0,
                seen: [0; 27],
            },
            seats,
            turn: Turn::default(),
            ledger: Ledger::new(record),
        };
        hand.start();
        Ok(hand)
    }

    /// The hand is over.
    #[inline]
    pub fn is_over(&self) -> bool {
        self.turn.phase == Phase::Over
    }

    /// R14.2: `seat` has won and stays in the hand.
    pub fn locked(&self, seat: u8) -> bool {
        self.seats.locked(seat)
    }

    /// The legal actions of the pending decision (empty once the hand is over).
    pub fn legal(&self) -> &[Action] {
        self.turn.legal.as_slice()
    }

    /// The log lines of the events so far (empty unless the hand records them).
    pub fn event_lines(&self) -> Vec<String> {
        self.ledger
            .events
            .as_ref()
            .map(|ev| ev.iter().map(Event::to_json).collect())
            .unwrap_or_default()
    }

    /// R12.1 and R12.2, checked now: tiles conserved and no kind over four; the deltas sum to
    /// minus the escape penalty (zero without an escape). The message names what is wrong.
    pub fn check_invariants(&self) -> Result<(), HandError> {
        let mut n = [0u32; 27];
        for s in 0..self.seats.n as usize {
            for (k, &c) in self.seats.counts[s].iter().enumerate() {
                n[k] += c as u32;
            }
            for m in self.seats.melds[s].as_slice() {
                n[m.kind as usize] += m.copies() as u32;
            }
            for &k in self.seats.river[s].iter().chain(&self.seats.aside[s]) {
                n[k as usize] += 1;
            }
        }
        for &k in &self.wall.tiles[self.wall.pos..] {
            n[k as usize] += 1;
        }
        for (k, (&have, &dealt)) in n.iter().zip(&self.wall.dealt).enumerate() {
            if have != dealt as u32 || have > 4 {
                return Err(HandError(format!(
                    "R12.1: {have} tiles of kind {k} in play, {dealt} dealt"
                )));
            }
        }
        let sum: i64 = self.ledger.deltas.iter().sum();
        let escaped = self.seats.escaped.iter().filter(|&&e| e).count() as i64;
        let penalty = escaped * self.rules.escape_penalty * self.rules.core.base as i64;
        if sum != -penalty {
            return Err(HandError(format!(
                "R12.2: the deltas sum to {sum}, not {}",
                -penalty
            )));
        }
        Ok(())
    }
}
