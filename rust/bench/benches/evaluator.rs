//! Criterion benches of the evaluator: median time per hand on seeded, realistic hands.
//!
//! Hands are dealt from a shuffled wall restricted to two suits (72 tiles), as a Sichuan hand
//! that has settled its void looks; winning and ready hands are built from random sets.
//! Each iteration evaluates one hand (cycling through 4096), so criterion's time per
//! iteration is the time per hand. Run: `cargo bench -p xuezhan-bench --bench evaluator`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use xuezhan_core::suit_table::SuitTables;
use xuezhan_core::*;

#[path = "../../core/measure/hands.rs"]
mod hands;
use hands::{corpus, Corpus, Rng, N};

fn bench(cr: &mut Criterion) {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let Corpus {
        random14,
        random13,
        wins,
        ready,
        mixed14,
        mixed13,
    } = corpus(&mut rng);
    // Melded hands: a ready hand's triplet turned into a pung (the capped-distance path).
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
    // 14-tile melded positions (a turn after a peng): one more tile of a kind with a copy left.
    let melded14: Vec<(Counts, Vec<Meld>)> = melded
        .iter()
        .enumerate()
        .map(|(i, (h, m))| {
            let mut h = *h;
            let k = (0..27)
                .map(|j| (i * 7 + j) % 27)
                .find(|&k| h[k] + if k == m[0].kind as usize { 3 } else { 0 } < 4)
                .expect("a kind with a copy left");
            h[k] += 1;
            (h, m.clone())
        })
        .collect();
    let leshan = RulesCore::leshan();
    warm_up();

    let mut g = cr.benchmark_group("per_hand");
    g.sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    macro_rules! per_hand {
        ($name:expr, $set:expr, |$h:ident| $body:expr) => {{
            let set = &$set;
            let mut i = 0usize;
            g.bench_function($name, |b| {
                b.iter(|| {
                    i = (i + 1) & (N - 1);
                    let $h = black_box(&set[i]);
                    black_box($body)
                })
            });
        }};
    }
    per_hand!("is_win_unchecked/mixed14", mixed14, |h| is_win_unchecked(
        h,
        &[],
        None
    ));
    per_hand!("is_win_checked/mixed14", mixed14, |h| is_win(h, &[], None)
        .unwrap());
    per_hand!("shanten_unchecked/random14", random14, |h| {
        shanten_unchecked(h, &[], None)
    });
    per_hand!("shanten_unchecked/random13", random13, |h| {
        shanten_unchecked(h, &[], None)
    });
    // The cost of validation: each checked call against its unchecked twin on the same hands.
    per_hand!("shanten_checked/random13", random13, |h| shanten(
        h,
        &[],
        None
    )
    .unwrap());
    per_hand!("shanten_unchecked/melded13", melded, |h| shanten_unchecked(
        &h.0, &h.1, None
    ));
    per_hand!("wait_mask_unchecked/mixed13", mixed13, |h| {
        wait_mask_unchecked(h, &[], None)
    });
    let mut out = Vec::with_capacity(27);
    per_hand!("waits_unchecked/mixed13", mixed13, |h| {
        waits_unchecked(h, &[], &leshan, None, &mut out);
        out.len()
    });
    per_hand!("waits_unchecked/ready13", ready, |h| {
        waits_unchecked(h, &[], &leshan, None, &mut out);
        out.len()
    });
    per_hand!("fan_unchecked/wins14", wins, |h| fan_unchecked(
        &h.0,
        &[],
        h.1,
        0,
        &leshan,
        None
    ));
    per_hand!("fan_checked/wins14", wins, |h| fan(
        &h.0,
        &[],
        h.1,
        0,
        &leshan,
        None
    )
    .unwrap());
    let visible = [0u8; 27];
    let mut dout = Vec::with_capacity(14);
    per_hand!("best_discards_unchecked/random14", random14, |h| {
        best_discards_unchecked(h, &[], &visible, None, &mut dout);
        dout.len()
    });
    per_hand!("best_discards_unchecked/melded14", melded14, |h| {
        best_discards_unchecked(&h.0, &h.1, &visible, None, &mut dout);
        dout.len()
    });
    per_hand!("greedy_discard_unchecked/melded14", melded14, |h| {
        let legal = (0..27)
            .filter(|&k| h.0[k] > 0)
            .fold(0u32, |m, k| m | 1 << k);
        greedy_discard_unchecked(&h.0, &h.1, &visible, None, legal, true, &mut dout).kind
    });
    g.finish();

    let mut g = cr.benchmark_group("tables");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("build", |b| b.iter(|| black_box(SuitTables::build())));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
