//! Checks the capped distances' fast path against the whole programme on every configuration
//! and cap pattern a hand can hold: one to four meld kinds in a suit (each a pung, cap 1, or a
//! kong, cap 0) and up to `15 − 3 × melds` tiles (a melded hand's concealed tiles in one suit,
//! one more while a draw is weighed). Run in release (about a minute on one core):
//! `cargo run --release -p xuezhan-core --example capped_sweep`.

use std::time::Instant;
use xuezhan_core::capped::{capped_fast, capped_suit_dist};

/// Every configuration of at most `left` tiles within `cap`, from rank `r` on.
fn each_config(
    r: usize,
    left: usize,
    h: &mut [u8; 9],
    cap: &[u8; 9],
    f: &mut impl FnMut(&[u8; 9]),
) {
    if r == 9 {
        f(h);
        return;
    }
    for x in 0..=(cap[r] as usize).min(left) {
        h[r] = x as u8;
        each_config(r + 1, left - x, h, cap, f);
    }
    h[r] = 0;
}

fn main() {
    let t = Instant::now();
    let (mut patterns, mut checked) = (0u64, 0u64);
    for pattern in 1..3u32.pow(9) {
        let mut cap = [4u8; 9];
        let (mut x, mut melds) = (pattern, 0usize);
        for c in cap.iter_mut() {
            match x % 3 {
                1 => *c = 1,
                2 => *c = 0,
                _ => {}
            }
            melds += (x % 3 != 0) as usize;
            x /= 3;
        }
        if melds > 4 {
            continue;
        }
        patterns += 1;
        each_config(0, 15 - 3 * melds, &mut [0; 9], &cap, &mut |h| {
            let (got, want) = (capped_fast(h, &cap), capped_suit_dist(h, &cap));
            assert_eq!(got, want, "counts {h:?}, caps {cap:?}");
            checked += 1;
        });
    }
    println!(
        "{patterns} cap patterns, {checked} configurations: the fast path agrees ({:.1} s)",
        t.elapsed().as_secs_f64()
    );
}
