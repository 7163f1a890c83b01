//! The peer: the `xiangting` crate (riichi rules: three suits and honours, no void, seven
//! distinct pairs), called the way a caller without this crate would answer the same
//! questions. Shared by the peer benchmarks and the agreement test.

use xiangting::{calculate_necessary_tiles, calculate_replacement_number, PlayerCount};
use xuezhan_core::{Counts, Discard};

/// The peer's 34-kind hand: the 27 suited kinds, no honours.
#[inline(always)]
pub fn hand34(c: &Counts) -> [u8; 34] {
    let mut h = [0u8; 34];
    h[..27].copy_from_slice(c);
    h
}

/// Shanten (replacement number − 1).
#[inline(always)]
pub fn shanten(c: &Counts) -> i8 {
    calculate_replacement_number(&hand34(c), PlayerCount::Four).unwrap() as i8 - 1
}

/// Win check of 14 tiles: nothing left to replace.
#[inline(always)]
pub fn is_win(c: &Counts) -> bool {
    calculate_replacement_number(&hand34(c), PlayerCount::Four).unwrap() == 0
}

/// Waits of 13 tiles as a 27-bit mask (suited kinds only): the tiles that complete it.
#[inline(always)]
pub fn wait_mask(c: &Counts) -> u32 {
    let (r, nec) = calculate_necessary_tiles(&hand34(c), PlayerCount::Four).unwrap();
    if r == 1 {
        (nec & 0x7ff_ffff) as u32
    } else {
        0
    }
}

/// `best_discards` from the peer: one `calculate_necessary_tiles` per distinct discard, the
/// ukeire summed over the suited necessary kinds as the core counts it.
#[inline(always)]
pub fn best_discards(c: &Counts, visible: &Counts, out: &mut Vec<Discard>) {
    out.clear();
    let mut h = hand34(c);
    for k in 0..27 {
        if c[k] == 0 {
            continue;
        }
        h[k] -= 1;
        let (r, nec) = calculate_necessary_tiles(&h, PlayerCount::Four).unwrap();
        let mut ukeire = 0u32;
        let mut m = nec & 0x7ff_ffff;
        while m != 0 {
            let t = m.trailing_zeros() as usize;
            m &= m - 1;
            ukeire += 4u32.saturating_sub(h[t] as u32 + visible[t] as u32);
        }
        h[k] += 1;
        out.push(Discard {
            kind: k as u8,
            shanten: r as i8 - 1,
            ukeire,
        });
    }
}
