//! The error type of the checked entry points.
//!
//! Every variant names the offending input so that a message surfacing in Python (as a
//! `ValueError`) tells the caller exactly what to fix.

use std::fmt;

use crate::tiles::tile_name;

/// Why a checked evaluator function refused its input.
///
/// ```
/// use xuezhan_core::{is_win, Counts, EvalError};
/// let mut c: Counts = [0; 27];
/// c[0] = 5; // five 1m
/// let err = is_win(&c, &[], None).unwrap_err();
/// assert!(matches!(err, EvalError::TooManyCopies { kind: 0, .. }));
/// assert!(err.to_string().contains("1m"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvalError {
    /// A tile kind holds more than four copies, counting concealed tiles and melds
    /// (a pung counts 3, a kong 4).
    TooManyCopies {
        /// The kind, 0–26.
        kind: u8,
        /// Copies counted.
        count: u32,
    },
    /// The hand holds the wrong number of tiles for the call
    /// (`concealed + 3 × melds`).
    WrongTileCount {
        /// Tiles counted as `concealed + 3 × melds`.
        got: u32,
        /// What the call accepts, e.g. `"14"` or `"13 or 14"`.
        expected: &'static str,
    },
    /// A meld byte that is not `meld_type * 27 + kind` with `meld_type` 0–2.
    BadMeldCode(u8),
    /// More than four melds.
    TooManyMelds(usize),
    /// A void suit outside −1..=2.
    BadVoid(i64),
    /// A tile kind outside 0..=26 (a meld's kind or a winning tile).
    BadKind(i64),
    /// The winning tile is not in the 14-tile concealed hand.
    WinTileNotInHand(u8),
    /// A counts array of the wrong length (the Python layer passes raw bytes).
    BadLength {
        /// Which argument (`"counts"`, `"visible"`).
        what: &'static str,
        /// Its length.
        len: usize,
    },
    /// A `visible` count over 4.
    BadVisible {
        /// The kind.
        kind: u8,
        /// The count given.
        count: u8,
    },
    /// A set of legal discards that is empty or names a kind not held.
    BadLegal {
        /// The legal kinds given (bit k = kind k).
        legal: u32,
        /// The kinds held (bit k = kind k).
        held: u32,
    },
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EvalError::TooManyCopies { kind, count } => write!(
                f,
                "tile {} appears {} times counting concealed tiles and melds (at most 4)",
                tile_name(kind),
                count
            ),
            EvalError::WrongTileCount { got, expected } => write!(
                f,
                "hand holds {got} tiles (concealed + 3 x melds); this call needs {expected}"
            ),
            EvalError::BadMeldCode(c) => write!(
                f,
                "bad meld code {c}: expected meld_type * 27 + kind with meld_type 0 (pung), 1 (kong) or 2 (concealed kong), i.e. 0..=80"
            ),
            EvalError::TooManyMelds(n) => write!(f, "{n} melds given; a hand has at most 4"),
            EvalError::BadVoid(v) => {
                write!(f, "bad void suit {v}: expected -1 (none), 0 (m), 1 (p) or 2 (s)")
            }
            EvalError::BadKind(k) => write!(f, "bad tile kind {k}: expected 0..=26"),
            EvalError::WinTileNotInHand(k) => write!(
                f,
                "winning tile {} is not in the 14-tile concealed hand",
                tile_name(k)
            ),
            EvalError::BadLength { what, len } => {
                write!(f, "{what} must hold 27 counts, got {len}")
            }
            EvalError::BadVisible { kind, count } => write!(
                f,
                "visible count {count} for tile {} is over 4",
                tile_name(kind)
            ),
            EvalError::BadLegal { legal, held } => {
                if legal == 0 {
                    write!(f, "legal discards must name at least one tile")
                } else {
                    let k = (legal & !held).trailing_zeros() as u8;
                    if k >= 27 {
                        write!(f, "legal discards {legal:#x} name a kind above 26")
                    } else {
                        write!(f, "legal discards name {} which the hand does not hold", tile_name(k))
                    }
                }
            }
        }
    }
}

impl std::error::Error for EvalError {}
