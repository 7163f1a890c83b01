//! Noise-robust timing of the evaluator: the *minimum* over repeated passes of the mean time
//! per hand (the machine is shared; the minimum filters out preemption, which the criterion
//! medians in `rust/bench/benches/evaluator.rs` do not). Same seeded hands as the bench.
//!
//! Run: `cargo run --release -p xuezhan-core --example timing`

use std::hint::black_box;
use std::time::Instant;

use xuezhan_core::suit_table::SuitTables;
use xuezhan_core::*;

#[path = "../measure/hands.rs"]
mod hands;
use hands::{corpus, two_suits, Corpus, Rng, N};

/// Minimum over `passes` of the mean ns per call of `f` over all N hands.
fn time<T>(passes: usize, mut f: impl FnMut(usize) -> T) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..passes {
        let t = Instant::now();
        for i in 0..N {
            black_box(f(black_box(i)));
        }
        best = best.min(t.elapsed().as_nanos() as f64 / N as f64);
    }
    best
}

fn main() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let Corpus {
        random14,
        random13,
        wins,
        ready,
        mixed14,
        mixed13,
    } = corpus(&mut rng);
    let leshan = RulesCore::leshan();
    let t0 = Instant::now();
    warm_up();
    let first_build = t0.elapsed();
    let mut build_min = f64::MAX;
    for _ in 0..10 {
        let t = Instant::now();
        black_box(SuitTables::build());
        build_min = build_min.min(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "table build: first {:.1} ms, min of 10 {:.1} ms, {} bytes",
        first_build.as_secs_f64() * 1e3,
        build_min,
        suit_table::tables().bytes()
    );
    let p = 200;
    let mut out = Vec::with_capacity(27);
    let mut dout = Vec::with_capacity(14);
    let visible = [0u8; 27];
    let rows: Vec<(&str, f64)> = vec![
        (
            "is_win_unchecked   mixed14",
            time(p, |i| is_win_unchecked(&mixed14[i], &[], None)),
        ),
        (
            "is_win (checked)   mixed14",
            time(p, |i| is_win(&mixed14[i], &[], None).unwrap()),
        ),
        (
            "shanten_unchecked  random14",
            time(p, |i| shanten_unchecked(&random14[i], &[], None)),
        ),
        (
            "shanten_unchecked  random13",
            time(p, |i| shanten_unchecked(&random13[i], &[], None)),
        ),
        (
            "shanten (checked)  random13",
            time(p, |i| shanten(&random13[i], &[], None).unwrap()),
        ),
        (
            "wait_mask_unchecked mixed13",
            time(p, |i| wait_mask_unchecked(&mixed13[i], &[], None)),
        ),
        (
            "waits_unchecked    mixed13",
            time(p, |i| {
                waits_unchecked(&mixed13[i], &[], &leshan, None, &mut out);
                out.len()
            }),
        ),
        (
            "waits_unchecked    ready13",
            time(p, |i| {
                waits_unchecked(&ready[i], &[], &leshan, None, &mut out);
                out.len()
            }),
        ),
        (
            "fan_unchecked      wins14",
            time(p, |i| {
                fan_unchecked(&wins[i].0, &[], wins[i].1, 0, &leshan, None)
            }),
        ),
        (
            "fan (checked)      wins14",
            time(p, |i| {
                fan(&wins[i].0, &[], wins[i].1, 0, &leshan, None).unwrap()
            }),
        ),
        (
            "best_discards_unch random14",
            time(30, |i| {
                best_discards_unchecked(&random14[i], &[], &visible, None, &mut dout);
                dout.len()
            }),
        ),
    ];
    // Melded hands: a ready hand's triplet turned into a pung (exercises the capped path).
    let with_pung: Vec<(Counts, Vec<Meld>)> = ready
        .iter()
        .filter_map(|h| {
            let k = (0..27).find(|&k| h[k] == 3)?;
            let mut h = *h;
            h[k] = 0;
            Some((
                h,
                vec![Meld {
                    ty: MeldType::Pung,
                    kind: k as u8,
                }],
            ))
        })
        .collect();
    let melded: Vec<(Counts, Vec<Meld>)> = (0..N)
        .map(|i| with_pung[i % with_pung.len()].clone())
        .collect();
    let mut rows = rows;
    rows.push((
        "shanten_unchecked  melded13",
        time(50, |i| shanten_unchecked(&melded[i].0, &melded[i].1, None)),
    ));
    rows.push((
        "waits_unchecked    melded13",
        time(50, |i| {
            waits_unchecked(&melded[i].0, &melded[i].1, &leshan, None, &mut out);
            out.len()
        }),
    ));
    // In-game hands with 1 or 2 pungs: the pung kinds (ranks 2–8, so both neighbours exist)
    // keep one copy in the wall, the concealed tiles are dealt from the same two suits, so
    // the pung's neighbours are usually held (the case the capped DP exists for).
    let pung_hand = |rng: &mut Rng, pungs: usize| -> (Counts, Vec<Meld>) {
        let s = two_suits(rng);
        let mut melds = Vec::new();
        while melds.len() < pungs {
            let k = (s[rng.below(2)] * 9 + 1 + rng.below(7)) as u8;
            if melds.iter().all(|m: &Meld| m.kind != k) {
                melds.push(Meld {
                    ty: MeldType::Pung,
                    kind: k,
                });
            }
        }
        let mut wall: Vec<usize> = s
            .iter()
            .flat_map(|&s| s * 9..s * 9 + 9)
            .flat_map(|k| {
                [k; 4]
                    .into_iter()
                    .take(if melds.iter().any(|m| m.kind as usize == k) {
                        1
                    } else {
                        4
                    })
            })
            .collect();
        for i in (1..wall.len()).rev() {
            wall.swap(i, rng.below(i + 1));
        }
        let mut c = [0u8; 27];
        for &k in &wall[..14 - 3 * pungs] {
            c[k] += 1;
        }
        (c, melds)
    };
    for pungs in [1, 2] {
        let hands: Vec<(Counts, Vec<Meld>)> = (0..N).map(|_| pung_hand(&mut rng, pungs)).collect();
        let name = if pungs == 1 {
            "best_discards_unch 11+1 pung"
        } else {
            "best_discards_unch 8+2 pungs"
        };
        rows.push((
            name,
            time(10, |i| {
                best_discards_unchecked(&hands[i].0, &hands[i].1, &visible, None, &mut dout);
                dout.len()
            }),
        ));
        // The same hands again and again: the per-thread memo of capped distances is warm.
        let name = if pungs == 1 {
            "  same, 64 hands repeated"
        } else {
            "  same, 64 hands repeated "
        };
        rows.push((
            name,
            time(10, |i| {
                let h = &hands[i % 64];
                best_discards_unchecked(&h.0, &h.1, &visible, None, &mut dout);
                dout.len()
            }),
        ));
    }
    for (name, ns) in rows {
        println!("{name:30} {ns:9.1} ns/hand");
    }
}
