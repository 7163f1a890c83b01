//! What one seat may know (docs/rules.md R2.3): the native twin of the Python engine's
//! `Observation`, read in place from the hand instead of copied. The built-in policies see the
//! hand only through it, so they read exactly what their Python versions read.

use crate::hand::action::Action;
use crate::hand::legal::Legal;
use crate::hand::turn::Phase;
use crate::hand::Hand;
use crate::tiles::{Counts, Meld};

/// One seat's view of a hand at its decision.
#[derive(Clone, Copy)]
pub struct View<'a> {
    hand: &'a Hand,
    /// The seat that sees.
    pub seat: u8,
}

impl<'a> View<'a> {
    /// `seat`'s view of `hand`.
    pub fn new(hand: &'a Hand, seat: u8) -> View<'a> {
        View { hand, seat }
    }

    fn mine(&self) -> bool {
        self.hand.turn.cur == Some(self.seat)
    }

    /// The decision's kind as the seat sees it: a claim only when it is the one asked.
    pub fn phase(&self) -> Phase {
        match self.hand.turn.phase {
            Phase::Claim if !self.mine() => Phase::Turn,
            p => p,
        }
    }

    /// Its concealed tiles.
    pub fn hand(&self) -> &'a Counts {
        &self.hand.seats.counts[self.seat as usize]
    }

    /// Seat `s`'s melds (all public, R2.3).
    pub fn melds(&self, s: u8) -> &'a [Meld] {
        self.hand.seats.melds[s as usize].as_slice()
    }

    /// Seat `s`'s discard pile.
    pub fn discards(&self, s: u8) -> &'a [u8] {
        &self.hand.seats.river[s as usize]
    }

    /// The tiles face up outside its hand.
    pub fn seen(&self) -> &'a Counts {
        &self.hand.wall.seen
    }

    /// Tiles left in the wall.
    pub fn wall_count(&self) -> usize {
        self.hand.wall.count()
    }

    /// Seat `s` has won.
    pub fn won(&self, s: u8) -> bool {
        self.hand.seats.won[s as usize]
    }

    /// Seat `s` has escaped.
    pub fn escaped(&self, s: u8) -> bool {
        self.hand.seats.escaped[s as usize]
    }

    /// Seat `s`'s void as this seat knows it: everyone's once revealed (R11.2), else its own
    /// choice only; -1 for none.
    pub fn void(&self, s: u8) -> i8 {
        if self.hand.seats.voids_known {
            self.hand.seats.void[s as usize]
        } else if s == self.seat {
            self.hand.turn.v_choice[s as usize]
        } else {
            -1
        }
    }

    /// The tile being claimed (its claim decision only).
    pub fn claim_tile(&self) -> Option<u8> {
        match (&self.hand.turn.claims, self.phase()) {
            (Some(w), Phase::Claim) => Some(w.tile),
            _ => None,
        }
    }

    /// Its legal actions (empty when it is not its decision).
    pub fn legal(&self) -> &'a [Action] {
        if self.mine() {
            self.hand.turn.legal.as_slice()
        } else {
            &[]
        }
    }

    /// Its legal actions as [`Legal`] (the count, one by index, the head and the discards
    /// without making the whole list; none when it is not its decision).
    pub fn legal_actions(&self) -> &'a Legal {
        static NONE: Legal = Legal::none();
        if self.mine() {
            &self.hand.turn.legal
        } else {
            &NONE
        }
    }

    /// On its turn, the kinds it may discard (bit k); 0 otherwise.
    pub fn discard_mask(&self) -> u32 {
        if self.mine() && self.phase() == Phase::Turn {
            self.hand.turn.discard_mask
        } else {
            0
        }
    }

    /// Seats at the table.
    pub fn seats(&self) -> u8 {
        self.hand.seats.n
    }

    /// The hand itself, for the [`crate::hand::sight::Sight`] of this view (public facts only).
    pub(crate) fn hand_ref(&self) -> &'a Hand {
        self.hand
    }
}
