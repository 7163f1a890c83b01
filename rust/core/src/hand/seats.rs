//! What belongs to each seat (docs/rules.md R0, R2, R4.3, R11.2, R14): the native twin of the
//! Python engine's `Seats` part. It answers the questions the flow asks about seats (who is
//! next, who pays, is a seat locked, what it holds at the end) and knows nothing of the wall,
//! the turn or the money.

use crate::tiles::{Counts, Meld, MeldType};
use crate::waits::wait_mask_unchecked;

/// At most this many seats (the arrays' size; the table's own count is `n`).
pub const MAX_SEATS: usize = 4;

/// One seat's melds (at most four), with whose discard each took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Melds {
    /// The melds, oldest first.
    pub list: [Meld; 4],
    /// The discarder of each (None for a concealed kong; an added kong keeps its pung's).
    pub from: [Option<u8>; 4],
    /// How many.
    pub len: u8,
}

impl Default for Melds {
    fn default() -> Self {
        Melds {
            list: [Meld {
                ty: MeldType::Pung,
                kind: 0,
            }; 4],
            from: [None; 4],
            len: 0,
        }
    }
}

impl Melds {
    /// The melds as a slice (what the evaluator reads).
    #[inline]
    pub fn as_slice(&self) -> &[Meld] {
        &self.list[..self.len as usize]
    }

    /// Adds a meld taken from `from`'s discard (None: a concealed kong).
    pub fn push(&mut self, m: Meld, from: Option<u8>) {
        let i = self.len as usize;
        self.list[i] = m;
        self.from[i] = from;
        self.len += 1;
    }

    /// The suits the melds use (bit s = suit s).
    pub fn suits(&self) -> u8 {
        self.as_slice().iter().fold(0, |m, x| m | 1 << (x.kind / 9))
    }

    /// Holds a pung of `k`.
    pub fn has_pung(&self, k: u8) -> bool {
        self.as_slice()
            .iter()
            .any(|m| m.ty == MeldType::Pung && m.kind == k)
    }
}

/// Each seat's tiles and standing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seats {
    /// Seats at the table.
    pub n: u8,
    /// Concealed tiles.
    pub counts: [Counts; MAX_SEATS],
    /// R14: winners stay in the hand.
    pub stay: bool,
    /// R11.2: the voids are public (revealed, or none declared).
    pub voids_known: bool,
    /// Melds.
    pub melds: [Melds; MAX_SEATS],
    /// Discard piles (claimed discards left them).
    pub river: [Vec<u8>; MAX_SEATS],
    /// R14.1: self-drawn winning tiles set aside.
    pub aside: [Vec<u8>; MAX_SEATS],
    /// Has won (at least once).
    pub won: [bool; MAX_SEATS],
    /// Has escaped (R8).
    pub escaped: [bool; MAX_SEATS],
    /// Still in the hand (R0, R14.4).
    pub active: [bool; MAX_SEATS],
    /// How many are active.
    pub n_active: u8,
    /// Declared void suit (R11.2), -1 if none or not yet revealed.
    pub void: [i8; MAX_SEATS],
    /// Wait masks of the concealed tiles (bit k: kind k completes the hand).
    pub mask: [u32; MAX_SEATS],
    /// R4.3: the best capped fan passed since the seat's last draw (0 = none).
    pub lock: [u8; MAX_SEATS],
    /// Each seat's last discard (-1 none): public, what R11.2's void says of its hand.
    pub last_discard: [i8; MAX_SEATS],
    /// How many of each kind each seat has discarded, claimed discards included (public).
    pub discarded: [Counts; MAX_SEATS],
}

impl Seats {
    /// The seats of a new hand holding `hands` (lists of kinds).
    pub fn deal(hands: &[Vec<u8>], stay: bool, voids_known: bool) -> Seats {
        let n = hands.len();
        let mut counts = [[0u8; 27]; MAX_SEATS];
        for (s, h) in hands.iter().enumerate() {
            for &k in h {
                counts[s][k as usize] += 1;
            }
        }
        let mut active = [false; MAX_SEATS];
        active[..n].fill(true);
        Seats {
            n: n as u8,
            counts,
            stay,
            voids_known,
            melds: Default::default(),
            river: Default::default(),
            aside: Default::default(),
            won: [false; MAX_SEATS],
            escaped: [false; MAX_SEATS],
            active,
            n_active: n as u8,
            void: [-1; MAX_SEATS],
            mask: [0; MAX_SEATS],
            lock: [0; MAX_SEATS],
            last_discard: [-1; MAX_SEATS],
            discarded: [[0; 27]; MAX_SEATS],
        }
    }

    /// The void of `s` as the evaluator reads it.
    #[inline]
    pub fn void_of(&self, s: u8) -> Option<u8> {
        let v = self.void[s as usize];
        (v >= 0).then_some(v as u8)
    }

    /// The seat has won (`won`) or escaped: it takes no further part (R2.4, R8), except a
    /// winner when winners stay (R14.1): it is locked, and still in the hand.
    pub(crate) fn leave(&mut self, s: u8, won: bool) {
        let i = s as usize;
        if won {
            self.won[i] = true;
            if self.stay {
                return;
            }
        } else {
            self.escaped[i] = true;
        }
        self.active[i] = false;
        self.n_active -= 1;
    }

    /// R14.2: the seat has won and stays in the hand.
    #[inline]
    pub fn locked(&self, s: u8) -> bool {
        self.stay && self.won[s as usize]
    }

    /// The seats that won and are still in the hand (R14.5: ready in the ready check).
    pub fn winners_in(&self, s: u8) -> bool {
        self.stay && self.won[s as usize] && !self.escaped[s as usize]
    }

    /// The other active seats, in seat order (R6.2, R6.4 payers).
    pub fn others(&self, s: u8) -> impl Iterator<Item = u8> + '_ {
        (0..self.n).filter(move |&p| p != s && self.active[p as usize])
    }

    /// The first active seat after `s` in turn order (R2.5); -1 if none.
    pub fn next_active(&self, s: u8) -> i8 {
        for i in 1..=self.n {
            let q = self.after(s, i);
            if self.active[q as usize] {
                return q as i8;
            }
        }
        -1
    }

    /// `(s + i) mod n`: the seat `i` places after `s` in turn order (`s < n`, `i ≤ n`; a
    /// subtraction, not a division: this is asked at every discard).
    #[inline]
    pub fn after(&self, s: u8, i: u8) -> u8 {
        let q = s + i;
        if q >= self.n {
            q - self.n
        } else {
            q
        }
    }

    /// Refresh the seat's wait mask.
    #[inline]
    pub(crate) fn update_mask(&mut self, s: u8) {
        let i = s as usize;
        self.mask[i] =
            wait_mask_unchecked(&self.counts[i], self.melds[i].as_slice(), self.void_of(s));
    }

    /// R14.1: the self-drawn winning tile leaves the hand and is set aside (the caller makes
    /// it visible); the hand is again the locked hand, so its waits are unchanged.
    pub(crate) fn set_aside(&mut self, s: u8, kind: u8) {
        let i = s as usize;
        self.counts[i][kind as usize] -= 1;
        self.aside[i].push(kind);
        self.update_mask(s);
    }
}
