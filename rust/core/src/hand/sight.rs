//! What a seat may know, as a trait: the one interface the policies written once in Rust read,
//! whether they play in the native engine (a [`View`] of the hand) or in the Python engine (an
//! [`ObsSight`] built from its `Observation`, field for field). A policy written against it
//! decides the same in both engines, so it needs no Python twin.

use crate::hand::action::Action;
use crate::hand::turn::Phase;
use crate::hand::view::View;
use crate::hand::Hand;
use crate::tiles::{Counts, Meld};

/// One seat's knowledge at its decision (docs/rules.md R2.3): everything an `Observation`
/// holds, nothing more.
pub trait Sight {
    /// The seat that sees.
    fn seat(&self) -> u8;
    /// Seats at the table.
    fn seats(&self) -> u8;
    /// The decision's kind as the seat sees it.
    fn phase(&self) -> Phase;
    /// Its concealed tiles.
    fn hand(&self) -> &Counts;
    /// Seat `s`'s melds.
    fn melds(&self, s: u8) -> &[Meld];
    /// Seat `s`'s discard pile.
    fn discards(&self, s: u8) -> &[u8];
    /// The tiles face up outside its hand (discards, melds, tiles set aside).
    fn seen(&self) -> &Counts;
    /// Tiles left in the wall.
    fn wall_count(&self) -> usize;
    /// R4.4's last-tiles phase has begun.
    fn last_tiles(&self) -> bool;
    /// Seat `s` has won.
    fn won(&self, s: u8) -> bool;
    /// Seat `s` has escaped.
    fn escaped(&self, s: u8) -> bool;
    /// The tiles seat `s` has won on, in order (public).
    fn wins(&self, s: u8) -> Vec<u8>;
    /// Seat `s`'s void as this seat knows it (-1: none or not known).
    fn void(&self, s: u8) -> i8;
    /// The tile being claimed (its own claim decision only).
    fn claim_tile(&self) -> Option<u8>;
    /// Who offered the claimed tile.
    fn claim_from(&self) -> Option<u8>;
    /// Its legal actions.
    fn legal(&self) -> &[Action];
    /// On its turn, the kinds it may discard (bit k).
    fn discard_mask(&self) -> u32;
    /// The kind it just drew on its turn, -1 if none.
    fn drawn(&self) -> i8;
    /// The hand itself, when the seat's strategy may sample its hidden information
    /// ([`crate::hand::sample::determinize`] reads only what the seat may know of it).
    fn truth(&self) -> Option<&Hand> {
        None
    }
}

impl Sight for View<'_> {
    fn seat(&self) -> u8 {
        self.seat
    }
    fn seats(&self) -> u8 {
        View::seats(self)
    }
    fn phase(&self) -> Phase {
        View::phase(self)
    }
    fn hand(&self) -> &Counts {
        View::hand(self)
    }
    fn melds(&self, s: u8) -> &[Meld] {
        View::melds(self, s)
    }
    fn discards(&self, s: u8) -> &[u8] {
        View::discards(self, s)
    }
    fn seen(&self) -> &Counts {
        View::seen(self)
    }
    fn wall_count(&self) -> usize {
        View::wall_count(self)
    }
    fn last_tiles(&self) -> bool {
        self.hand_ref().turn.last_phase
    }
    fn won(&self, s: u8) -> bool {
        View::won(self, s)
    }
    fn escaped(&self, s: u8) -> bool {
        View::escaped(self, s)
    }
    fn wins(&self, s: u8) -> Vec<u8> {
        self.hand_ref()
            .ledger
            .wins
            .iter()
            .filter(|w| w.seat == s)
            .map(|w| w.tile)
            .collect()
    }
    fn void(&self, s: u8) -> i8 {
        View::void(self, s)
    }
    fn claim_tile(&self) -> Option<u8> {
        View::claim_tile(self)
    }
    fn claim_from(&self) -> Option<u8> {
        View::claim_tile(self).and(self.hand_ref().turn.claims.as_ref().map(|w| w.frm))
    }
    fn legal(&self) -> &[Action] {
        View::legal(self)
    }
    fn discard_mask(&self) -> u32 {
        View::discard_mask(self)
    }
    fn truth(&self) -> Option<&Hand> {
        Some(self.hand_ref())
    }
    fn drawn(&self) -> i8 {
        let h = self.hand_ref();
        if h.turn.cur == Some(self.seat) && h.turn.phase == Phase::Turn {
            h.turn.drawn
        } else {
            -1
        }
    }
}

/// A seat's knowledge held by value: what the Python engine's `Observation` gives a strategy
/// (the binding copies it field by field).
#[derive(Debug, Clone, Default)]
pub struct ObsSight {
    /// The seat.
    pub seat: u8,
    /// The decision's kind.
    pub phase: Option<Phase>,
    /// Its concealed tiles.
    pub hand: Counts,
    /// Every seat's melds.
    pub melds: [Vec<Meld>; 4],
    /// Every seat's discard pile.
    pub discards: [Vec<u8>; 4],
    /// The visible tiles.
    pub seen: Counts,
    /// Tiles left in the wall.
    pub wall_count: usize,
    /// R4.4's phase.
    pub last_tiles: bool,
    /// Who has won.
    pub won: [bool; 4],
    /// Who has escaped.
    pub escaped: [bool; 4],
    /// The tiles each seat has won on.
    pub wins: [Vec<u8>; 4],
    /// The voids as the seat knows them.
    pub voids: [i8; 4],
    /// The tile being claimed.
    pub claim_tile: Option<u8>,
    /// Who offered it.
    pub claim_from: Option<u8>,
    /// Its legal actions.
    pub legal: Vec<Action>,
    /// Its legal discards.
    pub discard_mask: u32,
    /// The kind it just drew.
    pub drawn: i8,
    /// The hand, when the strategy may sample it (the seat loop's sampler, built-ins only).
    pub truth: Option<Hand>,
}

impl Sight for ObsSight {
    fn seat(&self) -> u8 {
        self.seat
    }
    fn seats(&self) -> u8 {
        4
    }
    fn phase(&self) -> Phase {
        self.phase.unwrap_or(Phase::Turn)
    }
    fn hand(&self) -> &Counts {
        &self.hand
    }
    fn melds(&self, s: u8) -> &[Meld] {
        &self.melds[s as usize]
    }
    fn discards(&self, s: u8) -> &[u8] {
        &self.discards[s as usize]
    }
    fn seen(&self) -> &Counts {
        &self.seen
    }
    fn wall_count(&self) -> usize {
        self.wall_count
    }
    fn last_tiles(&self) -> bool {
        self.last_tiles
    }
    fn won(&self, s: u8) -> bool {
        self.won[s as usize]
    }
    fn escaped(&self, s: u8) -> bool {
        self.escaped[s as usize]
    }
    fn wins(&self, s: u8) -> Vec<u8> {
        self.wins[s as usize].clone()
    }
    fn void(&self, s: u8) -> i8 {
        self.voids[s as usize]
    }
    fn claim_tile(&self) -> Option<u8> {
        self.claim_tile
    }
    fn claim_from(&self) -> Option<u8> {
        self.claim_from
    }
    fn legal(&self) -> &[Action] {
        &self.legal
    }
    fn discard_mask(&self) -> u32 {
        self.discard_mask
    }
    fn drawn(&self) -> i8 {
        self.drawn
    }
    fn truth(&self) -> Option<&Hand> {
        self.truth.as_ref()
    }
}
