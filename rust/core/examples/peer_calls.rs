//! One pass of one evaluator call over one peer hand set, for instruction counts under
//! callgrind (the machine is shared, so wall times are noisy; instructions are not):
//!
//! `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*peer_calls*run*'
//!  target/release/examples/peer_calls best_discards selfplay core`
//!
//! then divide the total `Ir` by the 4096 hands. Sides: `core` or `xiangting`; functions:
//! `is_win`, `shanten`, `waits`, `best_discards`, and for the cost of input validation
//! `is_win_checked` and `shanten_checked` (core only); sets: `selfplay`, `two14`, `three14`,
//! `two13`, `ready13`, `ready14`, `mixed14`.

use std::hint::black_box;

use xuezhan_core::*;

#[path = "../measure/hands.rs"]
mod hands;
#[path = "../measure/peer.rs"]
mod peer;
use hands::{peer_sets, N};

/// (14 or 13 tiles, tiles seen, void) per hand.
type Hand = (Counts, Counts, Option<u8>);

#[inline(never)]
fn run(f: &str, core: bool, hands: &[Hand]) -> u64 {
    let mut out = Vec::with_capacity(14);
    let mut acc = 0u64;
    for (c, v, void) in hands {
        let c = black_box(c);
        acc += match (f, core) {
            ("is_win", true) => is_win_unchecked(c, &[], None) as u64,
            ("is_win", false) => peer::is_win(c) as u64,
            ("is_win_checked", true) => is_win(c, &[], None).unwrap() as u64,
            ("shanten_checked", true) => shanten(c, &[], None).unwrap() as u64,
            ("shanten", true) => shanten_unchecked(c, &[], None) as u64,
            ("shanten", false) => peer::shanten(c) as u64,
            ("waits", true) => wait_mask_unchecked(c, &[], None) as u64,
            ("waits", false) => peer::wait_mask(c) as u64,
            ("best_discards", true) => {
                best_discards_unchecked(c, &[], v, *void, &mut out);
                out.len() as u64
            }
            ("best_discards", false) => {
                peer::best_discards(c, v, &mut out);
                out.len() as u64
            }
            _ => panic!("unknown function {f}"),
        };
    }
    acc
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, f, set, who] = &args[..] else {
        panic!("usage: peer_calls FUNCTION SET core|xiangting");
    };
    warm_up();
    let s = peer_sets();
    let plain = |v: &[Counts]| -> Vec<Hand> { v.iter().map(|&c| (c, [0; 27], None)).collect() };
    let hands: Vec<Hand> = match set.as_str() {
        "selfplay" => s
            .selfplay
            .iter()
            .map(|p| (p.counts, p.visible, Some(p.void)))
            .collect(),
        "two14" => plain(&s.two14),
        "three14" => plain(&s.three14),
        "two13" => plain(&s.two13),
        "ready13" => plain(&s.ready13),
        "ready14" => plain(&s.ready14),
        "mixed14" => plain(&s.mixed14),
        _ => panic!("unknown set {set}"),
    };
    assert_eq!(hands.len(), N);
    // A first pass warms the caches and the memo the way a long run would.
    black_box(run(f, who == "core", &hands));
    println!("{}", run(f, who == "core", &hands));
}
