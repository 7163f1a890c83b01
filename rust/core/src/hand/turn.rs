//! Whose decision is pending and how the turn came about (docs/rules.md R2, R3, R4.4, R5, R11):
//! the native twin of the Python engine's `Turn` part. It holds no tiles and no money.

use crate::fan::ctx;
use crate::hand::legal::Legal;

/// The kind of the pending decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// R11.1, seats 0 to 3 in order.
    Exchange,
    /// R11.2, seats 0 to 3 in order.
    Void,
    /// R2.1.
    Turn,
    /// R3, one asked seat at a time.
    Claim,
    /// The hand is over.
    Over,
}

/// How the current turn began; replaced as a whole at every draw and peng.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TurnFlags {
    /// Drew a kong replacement (R5 kong_draw / kong_discard, R6.3, R6.5).
    pub replacement: bool,
    /// Drew the last wall tile (R5 last_tile).
    pub last_tile: bool,
    /// A peng began the turn: no draw, no kong (R2.1, R2.4).
    pub after_peng: bool,
    /// R5 heaven_earth: the dealer's first 14 tiles / a first draw.
    pub heaven: bool,
    /// The last kong of this turn (an index into the ledger's kongs; R6.3, R6.5).
    pub kong: Option<usize>,
}

/// The claims on one discard or added kong (R3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimWindow {
    /// The tile.
    pub tile: u8,
    /// Who offered it.
    pub frm: u8,
    /// An added kong (R3.3).
    pub robbing: bool,
    /// Win context flags of a win on it (R5).
    pub ctx: u8,
    /// The discarder's kong this turn, for R6.5 (an index into the ledger's kongs).
    pub kong: Option<usize>,
    /// The other active seats, in turn order from `frm`.
    pub queue: Vec<u8>,
    /// Index in `queue` of the seat being asked.
    pub asked: usize,
    /// Seats that declared a win, in order.
    pub hu: Vec<u8>,
    /// (seat, is_gang) of a declared peng or kong.
    pub meld: Option<(u8, bool)>,
    /// Capped fan of each seat's legal win on the tile (0 none).
    pub fan: [u8; 4],
}

/// The pending decision and the state of play around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// The kind of decision.
    pub phase: Phase,
    /// The seat to decide.
    pub cur: Option<u8>,
    /// Its legal actions.
    pub legal: Legal,
    /// The legal discards of the pending turn (bit k = kind k); as the Python engine's, kept
    /// from the last turn while a claim is pending.
    pub discard_mask: u32,
    /// The kind just drawn by the seat on turn, -1 if none (R10.1).
    pub drawn: i8,
    /// How the turn began.
    pub flags: TurnFlags,
    /// R5 heaven_earth: a peng, a kong on a discard or a win happened.
    pub any_claim: bool,
    /// Each seat has drawn.
    pub first_drawn: [bool; 4],
    /// Numbers the discards, to tell a multiple win on one discard (R9.2).
    pub claim_group: i64,
    /// The open claim window.
    pub claims: Option<ClaimWindow>,
    /// R4.4: the last-tiles phase has begun.
    pub last_phase: bool,
    /// Exchange choices so far (R11.1).
    pub x_choice: [Option<[u8; 3]>; 4],
    /// Void choices so far (R11.2), -1 not yet.
    pub v_choice: [i8; 4],
}

impl Default for Turn {
    fn default() -> Self {
        Turn {
            phase: Phase::Turn,
            cur: None,
            legal: Legal::with_capacity(16),
            discard_mask: 0,
            drawn: -1,
            flags: TurnFlags::default(),
            any_claim: false,
            first_drawn: [false; 4],
            claim_group: 0,
            claims: None,
            last_phase: false,
            x_choice: [None; 4],
            v_choice: [-1; 4],
        }
    }
}

impl TurnFlags {
    /// The flags of the turn after a peng.
    pub const AFTER_PENG: TurnFlags = TurnFlags {
        replacement: false,
        last_tile: false,
        after_peng: true,
        heaven: false,
        kong: None,
    };

    /// The flags of the dealer's first turn.
    pub const DEALER_FIRST: TurnFlags = TurnFlags {
        replacement: false,
        last_tile: false,
        after_peng: false,
        heaven: true,
        kong: None,
    };

    /// The win context flags (R5) of a win on this turn's discard: kong_discard right after a
    /// kong replacement draw, last_tile right after drawing the last wall tile; and the kong
    /// whose income the discarder hands on if it is won (R6.5).
    pub fn discard_context(&self) -> (u8, Option<usize>) {
        let mut c = 0;
        if self.replacement {
            c |= ctx::KONG_DISCARD;
        }
        if self.last_tile {
            c |= ctx::LAST_TILE;
        }
        (c, if self.replacement { self.kong } else { None })
    }
}
