// Temporary: digest of best_discards outputs over many hands (old vs new comparison).
#[path = "../tests/common/mod.rs"]
mod common;
use common::*;
use std::hash::{Hash, Hasher};
use xuezhan_core::*;

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(300_000);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut count = 0u64;
    let mut seed = 0u64;
    while count < n {
        seed += 1;
        let mut rng = XRng::new(seed);
        let kind = rng.below(4);
        let (c, m) = if kind < 3 {
            let noise = [0, 1, 2, 3, 4, 6][rng.below(6)];
            let three = rng.below(3) == 0;
            match near_hand(&mut rng, 14, noise, three) {
                Some(x) => x,
                None => continue,
            }
        } else {
            let nsuits = 1 + rng.below(3);
            let s0 = rng.below(3);
            let kinds: Vec<usize> = (0..nsuits)
                .flat_map(|i| {
                    let s = (s0 + i) % 3;
                    s * 9..s * 9 + 9
                })
                .collect();
            (deal(&mut rng, 14, &kinds, &[0; 27]).unwrap(), Vec::new())
        };
        let void = match rng.below(4) {
            0 => Some(rng.below(3) as u8),
            _ => None,
        };
        let mc = meld_counts(&m);
        let mut visible = mc;
        if rng.below(2) == 0 {
            for k in 0..27 {
                let room = 4 - c[k] - visible[k];
                visible[k] += rng.below(room as usize + 1) as u8;
            }
        }
        let d = best_discards(&c, &m, &visible, void).unwrap();
        d.iter()
            .for_each(|r| (r.kind, r.shanten, r.ukeire).hash(&mut hasher));
        let held = (0..27).filter(|&k| c[k] > 0).fold(0u32, |a, k| a | 1 << k);
        let set = held & (rng.next() as u32) | (1 << held.trailing_zeros());
        let d = best_discards_lowest(&c, &m, &visible, void, set).unwrap();
        d.iter()
            .for_each(|r| (r.kind, r.shanten, r.ukeire).hash(&mut hasher));
        let g = greedy_discard(&c, &m, &visible, void, set, rng.below(2) == 0).unwrap();
        (g.kind, g.shanten).hash(&mut hasher);
        count += 1;
    }
    println!("{count} hands digest {:016x}", hasher.finish());
}
