//! Actions: one decision of one seat (docs/rules.md R2, R3, R8, R11; the R13 verbs).
//!
//! The same actions as the Python engine's `Action` (`xuezhan.engine.actions`), in the same
//! order wherever a list of them is built (the legal actions of a decision), because a policy
//! that draws uniformly among them (`random`) must pick the same one.

use crate::tiles::tile_name;

/// What an action does; the tile kinds and suits are its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Act {
    /// Discard a tile kind (R2.1).
    Discard(u8),
    /// Win: by self-draw on a turn (R2.1) or as a claim (R3.1).
    Hu,
    /// Claim a discard as a pung (R3.1).
    Peng,
    /// Claim a discard as a kong (R3.1).
    Gang,
    /// Concealed kong of a kind (R2.1).
    Angang(u8),
    /// Added kong of a kind onto an own pung (R2.1, R3.3).
    Jiagang(u8),
    /// Pass a claim (R3.1).
    Pass,
    /// Leave the hand (R8).
    Escape,
    /// Choose three tiles of one suit to pass (R11.1), sorted.
    Exchange([u8; 3]),
    /// Name the void suit 0–2 (R11.2).
    Void(u8),
}

/// One decision of one seat.
///
/// ```
/// use xuezhan_core::hand::{Act, Action};
/// assert_eq!(Action::new(0, Act::Discard(13)).to_string(), "0 discard 5p");
/// assert_eq!(Action::new(2, Act::Exchange([18, 20, 24])).to_string(), "2 exchange 137s");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Action {
    /// The seat that decides.
    pub seat: u8,
    /// What it does.
    pub act: Act,
}

impl Action {
    /// An action of `seat`.
    pub const fn new(seat: u8, act: Act) -> Action {
        Action { seat, act }
    }

    /// The verb as the R13 script lines and the logs write it.
    pub fn verb(&self) -> &'static str {
        match self.act {
            Act::Discard(_) => "discard",
            Act::Hu => "hu",
            Act::Peng => "peng",
            Act::Gang => "gang",
            Act::Angang(_) => "angang",
            Act::Jiagang(_) => "jiagang",
            Act::Pass => "pass",
            Act::Escape => "escape",
            Act::Exchange(_) => "exchange",
            Act::Void(_) => "void",
        }
    }

    /// The tile kind of a discard or kong, else None.
    pub fn tile(&self) -> Option<u8> {
        match self.act {
            Act::Discard(k) | Act::Angang(k) | Act::Jiagang(k) => Some(k),
            _ => None,
        }
    }
}

/// Three kinds of one suit as the log writes an exchange: `"1s3s7s"`, in the given order.
pub(crate) fn three_tiles(t: &[u8; 3]) -> String {
    t.iter().map(|&k| tile_name(k)).collect()
}

impl std::fmt::Display for Action {
    /// The R13 script line: `"0 discard 5p"`, `"1 hu"`, `"0 exchange 357s"`, `"2 void p"`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let seat = self.seat;
        let verb = self.verb();
        match self.act {
            Act::Discard(k) | Act::Angang(k) | Act::Jiagang(k) => {
                write!(f, "{seat} {verb} {}", tile_name(k))
            }
            Act::Exchange(t) => {
                let suit = crate::tiles::SUIT_LETTERS[(t[0] / 9) as usize];
                let ranks: String = t.iter().map(|&k| char::from(b'1' + k % 9)).collect();
                write!(f, "{seat} {verb} {ranks}{suit}")
            }
            Act::Void(s) => write!(
                f,
                "{seat} {verb} {}",
                crate::tiles::SUIT_LETTERS[s as usize]
            ),
            _ => write!(f, "{seat} {verb}"),
        }
    }
}
