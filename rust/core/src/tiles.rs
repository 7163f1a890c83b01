//! Tile kinds, hand counts, melds and input validation (R0, R4.1).
//!
//! A kind is 0–26: `1m`–`9m` = 0–8, `1p`–`9p` = 9–17, `1s`–`9s` = 18–26. A concealed hand is
//! 27 counts. Melds cross the Python boundary as one byte `meld_type * 27 + kind`.

use crate::error::EvalError;

/// Concealed tiles of a hand: count of each of the 27 kinds (0–4).
pub type Counts = [u8; 27];

/// Number of tile kinds (R0: three suits of nine ranks, no honours).
pub const NUM_KINDS: usize = 27;

/// Suit letters in kind order.
pub const SUIT_LETTERS: [char; 3] = ['m', 'p', 's'];

/// The kind of a meld (R2, R3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MeldType {
    /// 碰: an exposed triplet claimed on a discard.
    Pung = 0,
    /// 明杠 / 加杠: an exposed kong (on a discard or added to an own pung).
    Kong = 1,
    /// 暗杠: a concealed kong (shown, but not an exposed meld for `concealed`).
    ConcealedKong = 2,
}

/// A meld: its type and the kind of its tiles.
///
/// ```
/// use xuezhan_core::{Meld, MeldType};
/// let m = Meld::from_code(2 * 27 + 24).unwrap(); // concealed kong of 7s
/// assert_eq!(m, Meld { ty: MeldType::ConcealedKong, kind: 24 });
/// assert_eq!(m.code(), 78);
/// assert!(Meld::from_code(81).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Meld {
    /// Pung, kong or concealed kong.
    pub ty: MeldType,
    /// Tile kind 0–26.
    pub kind: u8,
}

impl Meld {
    /// Decodes `meld_type * 27 + kind`.
    pub fn from_code(code: u8) -> Result<Meld, EvalError> {
        let ty = match code / 27 {
            0 => MeldType::Pung,
            1 => MeldType::Kong,
            2 => MeldType::ConcealedKong,
            _ => return Err(EvalError::BadMeldCode(code)),
        };
        Ok(Meld {
            ty,
            kind: code % 27,
        })
    }

    /// Encodes as `meld_type * 27 + kind`.
    pub fn code(&self) -> u8 {
        self.ty as u8 * 27 + self.kind
    }

    /// Tiles of this kind the meld holds (3 for a pung, 4 for a kong): what counts towards
    /// the four-copies limit and `gen`.
    pub fn copies(&self) -> u8 {
        if self.ty == MeldType::Pung {
            3
        } else {
            4
        }
    }

    /// True for pungs and exposed kongs: the melds that break `concealed` (门清).
    pub fn is_exposed(&self) -> bool {
        self.ty != MeldType::ConcealedKong
    }
}

/// Decodes a sequence of meld bytes.
///
/// ```
/// let melds = xuezhan_core::melds_from_codes(&[5, 27 + 9]).unwrap();
/// assert_eq!(melds.len(), 2);
/// assert!(xuezhan_core::melds_from_codes(&[0, 1, 2, 3, 4]).is_err());
/// ```
pub fn melds_from_codes(codes: &[u8]) -> Result<Vec<Meld>, EvalError> {
    if codes.len() > 4 {
        return Err(EvalError::TooManyMelds(codes.len()));
    }
    codes.iter().map(|&c| Meld::from_code(c)).collect()
}

/// Short name of a kind, e.g. `5m`; out-of-range kinds print as `kind N`.
///
/// ```
/// assert_eq!(xuezhan_core::tile_name(13), "5p");
/// ```
pub fn tile_name(kind: u8) -> String {
    if (kind as usize) < NUM_KINDS {
        format!("{}{}", kind % 9 + 1, SUIT_LETTERS[(kind / 9) as usize])
    } else {
        format!("kind {kind}")
    }
}

/// Parses R0 notation (`"123m55p"`) into counts; used by tests, doc examples and benches.
/// Returns `None` on a malformed string or a count over 4.
///
/// ```
/// let c = xuezhan_core::parse_counts("123m55p").unwrap();
/// assert_eq!(c[0] + c[1] + c[2] + c[13], 5);
/// assert_eq!(c[13], 2);
/// ```
pub fn parse_counts(s: &str) -> Option<Counts> {
    let mut c = [0u8; 27];
    let mut pending: Vec<u8> = Vec::new();
    for ch in s.chars() {
        match ch {
            '1'..='9' => pending.push(ch as u8 - b'1'),
            'm' | 'p' | 's' | 'M' | 'P' | 'S' => {
                if pending.is_empty() {
                    return None;
                }
                let suit = match ch.to_ascii_lowercase() {
                    'm' => 0,
                    'p' => 1,
                    _ => 2,
                };
                for r in pending.drain(..) {
                    let k = suit * 9 + r as usize;
                    c[k] += 1;
                    if c[k] > 4 {
                        return None;
                    }
                }
            }
            ' ' => {}
            _ => return None,
        }
    }
    if pending.is_empty() {
        Some(c)
    } else {
        None
    }
}

/// Tiles in a meld set counted per kind (pung 3, kong 4).
#[inline]
pub(crate) fn meld_copies(melds: &[Meld]) -> [u8; 27] {
    let mut m = [0u8; 27];
    for x in melds {
        m[x.kind as usize] += x.copies();
    }
    m
}

/// Bit s set when some meld is of suit s.
#[inline]
pub(crate) fn meld_suits(melds: &[Meld]) -> u8 {
    melds.iter().fold(0u8, |a, m| a | 1 << (m.kind / 9))
}

/// Which tile totals (`concealed + 3 × melds`) a call accepts.
#[derive(Clone, Copy)]
pub(crate) enum Size {
    /// 14: a complete hand (win, fan, best_discards).
    Fourteen,
    /// 13: a hand waiting for its 14th tile.
    Thirteen,
    /// 13 or 14 (shanten).
    Either,
}

/// Converts a Python-style void (−1 = none) to `Option<u8>`.
///
/// ```
/// assert_eq!(xuezhan_core::void_from_i64(-1).unwrap(), None);
/// assert_eq!(xuezhan_core::void_from_i64(2).unwrap(), Some(2));
/// assert!(xuezhan_core::void_from_i64(3).is_err());
/// ```
pub fn void_from_i64(v: i64) -> Result<Option<u8>, EvalError> {
    match v {
        -1 => Ok(None),
        0..=2 => Ok(Some(v as u8)),
        _ => Err(EvalError::BadVoid(v)),
    }
}

/// The tile total of `c` and whether any count exceeds 4, a byte lane per kind: kinds 0–7,
/// 8–15, 16–23 and 24–26 as four `u64` words. A lane `x` is over 4 exactly when bit 7 of
/// `x | ((x & 0x7f) + 0x7b)` is set (no carry leaves a lane); once none is, the four words'
/// lane-wise sum stays below 17 per lane, and one multiply adds the eight lanes.
#[inline(always)]
fn count_words(c: &Counts) -> (u32, bool) {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let word = |i: usize| u64::from_le_bytes(c[i..i + 8].try_into().unwrap());
    // Kinds 19–26 shifted down to lanes 0–4: the last three kinds in lanes 0–2.
    let (a, b, d, e) = (word(0), word(8), word(16), word(19) >> 40);
    let over = |x: u64| (x | ((x & LOW7) + 0x7b * ONES)) & HIGH;
    if over(a) | over(b) | over(d) | over(e) != 0 {
        return (0, true);
    }
    let sum = (a + b + d + e).wrapping_mul(ONES) >> 56;
    (sum as u32, false)
}

impl Size {
    #[inline(always)]
    fn accepts(self, total: u32) -> bool {
        match self {
            Size::Fourteen => total == 14,
            Size::Thirteen => total == 13,
            Size::Either => total == 13 || total == 14,
        }
    }
}

/// Validates counts, melds, void and the tile total; every checked entry point starts here so
/// the unchecked fast paths can index tables without bounds worries.
///
/// Inlined into each entry point: a valid hand without melds costs a few word operations
/// (with the entry point's constant size, and often a constant void, folded in); melds and
/// every error take [`validate_full`].
#[inline(always)]
pub(crate) fn validate(
    c: &Counts,
    melds: &[Meld],
    void: Option<u8>,
    size: Size,
) -> Result<(), EvalError> {
    if melds.is_empty() && void.is_none_or(|v| v <= 2) {
        let (total, over) = count_words(c);
        if !over && size.accepts(total) {
            return Ok(());
        }
    }
    validate_full(c, melds, void, size)
}

/// [`validate`] in full: melds, and naming what is wrong.
#[inline(never)]
fn validate_full(
    c: &Counts,
    melds: &[Meld],
    void: Option<u8>,
    size: Size,
) -> Result<(), EvalError> {
    if melds.len() > 4 {
        return Err(EvalError::TooManyMelds(melds.len()));
    }
    for m in melds {
        if m.kind as usize >= NUM_KINDS {
            return Err(EvalError::BadKind(m.kind as i64));
        }
    }
    if let Some(v) = void {
        if v > 2 {
            return Err(EvalError::BadVoid(v as i64));
        }
    }
    let total = if melds.is_empty() {
        // Fast path (the common case): the 27 counts as four u64 words, checked and summed
        // eight lanes at a time; the slow search below only runs to name the offending kind.
        let (total, over) = count_words(c);
        if over {
            let k = c.iter().position(|&x| x > 4).unwrap_or(0);
            return Err(EvalError::TooManyCopies {
                kind: k as u8,
                count: c[k] as u32,
            });
        }
        total
    } else {
        let mc = meld_copies(melds);
        let mut total = 0u32;
        for k in 0..NUM_KINDS {
            let n = c[k] as u32 + mc[k] as u32;
            if n > 4 {
                return Err(EvalError::TooManyCopies {
                    kind: k as u8,
                    count: n,
                });
            }
            total += c[k] as u32;
        }
        total
    };
    let got = total + 3 * melds.len() as u32;
    let (ok, expected) = match size {
        Size::Fourteen => (got == 14, "14"),
        Size::Thirteen => (got == 13, "13"),
        Size::Either => (got == 13 || got == 14, "13 or 14"),
    };
    if !ok {
        return Err(EvalError::WrongTileCount { got, expected });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meld_codes_roundtrip() {
        for code in 0..81u8 {
            assert_eq!(Meld::from_code(code).unwrap().code(), code);
        }
        assert_eq!(Meld::from_code(81), Err(EvalError::BadMeldCode(81)));
    }

    #[test]
    fn validate_names_the_problem() {
        let c = parse_counts("1111m").unwrap();
        let melds = [Meld {
            ty: MeldType::Pung,
            kind: 0,
        }];
        let e = validate(&c, &melds, None, Size::Fourteen).unwrap_err();
        assert_eq!(e, EvalError::TooManyCopies { kind: 0, count: 7 });
        let c = parse_counts("123m").unwrap();
        let e = validate(&c, &[], None, Size::Thirteen).unwrap_err();
        assert!(e.to_string().contains("3 tiles"));
        assert!(validate(&c, &[], Some(3), Size::Either).is_err());
    }

    #[test]
    fn parse_rejects_bad_input() {
        assert!(parse_counts("11111m").is_none());
        assert!(parse_counts("12").is_none());
        assert!(parse_counts("1z").is_none());
        assert_eq!(tile_name(26), "9s");
    }
}
