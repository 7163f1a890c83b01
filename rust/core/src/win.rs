//! Win check (R4.1–R4.2): four sets and a pair (melds count as sets) or seven pairs, in at
//! most two suits, none of the void suit.

use crate::error::EvalError;
use crate::suit_table::{tables, W_BIT};
use crate::tiles::{meld_suits, validate, Counts, Meld, Size};

/// Suits (bit s) that may serve as the missing suit of a win: every suit no meld uses, or
/// only the declared void when there is one (R4.2, R11.2).
#[inline(always)]
pub(crate) fn allowed_voids(melds: &[Meld], void: Option<u8>) -> u8 {
    let free = !meld_suits(melds) & 7;
    match void {
        Some(v) => free & (1 << v),
        None => free,
    }
}

/// Suits (bit s) holding at least one concealed tile.
#[inline(always)]
pub(crate) fn concealed_suits(c: &Counts) -> u8 {
    let mut s = 0u8;
    for suit in 0..3 {
        let v = u64::from_le_bytes(c[suit * 9..suit * 9 + 8].try_into().unwrap());
        s |= (((v | c[suit * 9 + 8] as u64) != 0) as u8) << suit;
    }
    s
}

/// True when every count is even: with 14 concealed tiles and no melds, that is seven pairs
/// (a quad is two pairs, R4.1).
#[inline(always)]
pub(crate) fn all_even(c: &Counts) -> bool {
    c.iter().fold(0u8, |a, &x| a | x) & 1 == 0
}

/// Does the 14-tile hand (`concealed + 3 × melds = 14`) win?
///
/// ```
/// use xuezhan_core::{is_win, parse_counts};
/// let c = parse_counts("123456789m11p123p").unwrap();
/// assert_eq!(is_win(&c, &[], None), Ok(true));
/// assert_eq!(is_win(&c, &[], Some(1)), Ok(false)); // holds the declared void suit
/// let three_suits = parse_counts("123456789m11p123s").unwrap();
/// assert_eq!(is_win(&three_suits, &[], None), Ok(false)); // R4.2
/// let seven_pairs = parse_counts("11223344m5555p66p").unwrap();
/// assert_eq!(is_win(&seven_pairs, &[], None), Ok(true));
/// ```
#[inline]
pub fn is_win(c: &Counts, melds: &[Meld], void: Option<u8>) -> Result<bool, EvalError> {
    validate(c, melds, void, Size::Fourteen)?;
    Ok(is_win_unchecked(c, melds, void))
}

/// [`is_win`] without validation. The caller guarantees counts ≤ 4, meld kinds < 27, a void
/// ≤ 2 and at most 14 concealed tiles (otherwise the result is meaningless or it panics).
///
/// ```
/// use xuezhan_core::{is_win_unchecked, parse_counts, Meld, MeldType};
/// let melds = [Meld { ty: MeldType::ConcealedKong, kind: 12 }]; // (4444p): a set
/// let c = parse_counts("123m456m11p788p").unwrap();
/// assert!(!is_win_unchecked(&c, &melds, None));
/// let c = parse_counts("123m456m11p789p").unwrap();
/// assert!(is_win_unchecked(&c, &melds, None));
/// ```
#[inline]
pub fn is_win_unchecked(c: &Counts, melds: &[Meld], void: Option<u8>) -> bool {
    let present = concealed_suits(c) | meld_suits(melds);
    if present == 7 {
        return false;
    }
    if let Some(v) = void {
        if present & (1 << v) != 0 {
            return false;
        }
    }
    if melds.is_empty() && all_even(c) {
        return true;
    }
    let t = tables();
    let mut ok = true;
    for s in 0..3 {
        if present & (1 << s) != 0 {
            ok &= t.record(&c[s * 9..s * 9 + 9]) & W_BIT != 0;
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiles::{parse_counts, MeldType};

    fn w(s: &str) -> bool {
        is_win(&parse_counts(s).unwrap(), &[], None).unwrap()
    }

    #[test]
    fn shapes() {
        assert!(w("111222333m99m456m"));
        assert!(w("11223344556677m"));
        assert!(!w("11223344556678m"));
        assert!(w("11112222333344m")); // standard: 123 123 123 123 44
        assert!(!w("1112345678999m1p"));
    }

    #[test]
    fn melds_count_as_sets_and_suits() {
        let melds = [Meld {
            ty: MeldType::Pung,
            kind: 18,
        }];
        let c = parse_counts("123456m11p123p").unwrap();
        // m, p concealed + s pung = three suits (R4.2).
        assert!(!is_win(&c, &melds, None).unwrap());
        let melds = [Meld {
            ty: MeldType::Kong,
            kind: 13,
        }];
        assert!(is_win(&c, &melds, None).unwrap());
        // No seven pairs with melds (R4.1: concealed only).
        let c = parse_counts("11224466m").unwrap();
        let melds = [
            Meld {
                ty: MeldType::Pung,
                kind: 8,
            },
            Meld {
                ty: MeldType::Pung,
                kind: 9,
            },
        ];
        assert!(!is_win(&c, &melds, None).unwrap());
        assert!(is_win(&parse_counts("11224466m99m").unwrap(), &melds[1..], None).is_err());
    }
}
