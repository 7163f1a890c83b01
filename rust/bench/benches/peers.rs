//! The evaluator against its peer, the `xiangting` crate (6.0.2), on the same seeded hands:
//! win check, shanten, waits and best discards (see `common/peer.rs` for how the peer answers
//! each). Criterion times every pair; a table of the ratios follows (medians of 9 timed
//! passes over all hands of a set, alternating between the two sides; peer ÷ core). Run
//! pinned to one core:
//!
//! `taskset -c 1 cargo bench -p xuezhan-bench --bench peers`
//!
//! The answers agree wherever the rules do (checked by `tests/peer_agreement.rs`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use xuezhan_core::*;

#[path = "../../core/measure/hands.rs"]
mod hands;
#[path = "../../core/measure/peer.rs"]
mod peer;
use hands::{peer_sets, PeerSets, Position, N};

/// One side of a comparison: its name and the call on hand `i`.
type Call = Box<dyn FnMut(usize) -> u64>;

/// A best_discards hand: 14 tiles, the tiles seen, the void.
type Turn = (Counts, Counts, Option<u8>);

/// Mean ns per hand of one pass over all hands.
fn pass(f: &mut Call) -> f64 {
    let t = Instant::now();
    for i in 0..N {
        black_box(f(black_box(i)));
    }
    t.elapsed().as_nanos() as f64 / N as f64
}

/// Medians and minima over `PASSES` passes of each side, the passes alternating between the
/// two so that the load of a shared machine weighs on both alike: `(core median, peer median,
/// core minimum, peer minimum)`. A pass of the faster side is shorter, so preemption hits it
/// less often; the minima (the passes nothing interrupted) compare the two without that bias.
fn medians(core: &mut Call, peer: &mut Call) -> (f64, f64, f64, f64) {
    const PASSES: usize = 9;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..PASSES {
        a.push(pass(core));
        b.push(pass(peer));
    }
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    (a[PASSES / 2], b[PASSES / 2], a[0], b[0])
}

fn main() {
    warm_up();
    // Leaked so the timed closures can hold plain references for the whole run.
    let sets: &'static PeerSets = Box::leak(Box::new(peer_sets()));
    let PeerSets {
        selfplay,
        two14,
        three14,
        two13,
        ready13,
        ready14,
        mixed14,
    } = sets;
    let counts14: &'static [Counts] =
        Box::leak(selfplay.iter().map(|p: &Position| p.counts).collect());
    // (function, hand set, core, peer)
    let mut pairs: Vec<(&str, &str, Call, Call)> = Vec::new();
    let mut add = |f, set, core: Call, peer: Call| pairs.push((f, set, core, peer));
    add(
        "is_win",
        "mixed two-suit 14",
        Box::new(|i| is_win_unchecked(&mixed14[i], &[], None) as u64),
        Box::new(|i| peer::is_win(&mixed14[i]) as u64),
    );
    add(
        "is_win",
        "self-play 14",
        Box::new(|i| is_win_unchecked(&counts14[i], &[], None) as u64),
        Box::new(|i| peer::is_win(&counts14[i]) as u64),
    );
    add(
        "shanten",
        "self-play 14",
        Box::new(|i| shanten_unchecked(&counts14[i], &[], None) as u64),
        Box::new(|i| peer::shanten(&counts14[i]) as u64),
    );
    add(
        "shanten",
        "two-suit 13",
        Box::new(|i| shanten_unchecked(&two13[i], &[], None) as u64),
        Box::new(|i| peer::shanten(&two13[i]) as u64),
    );
    add(
        "shanten",
        "three-suit 14",
        Box::new(|i| shanten_unchecked(&three14[i], &[], None) as u64),
        Box::new(|i| peer::shanten(&three14[i]) as u64),
    );
    add(
        "waits",
        "ready 13",
        Box::new(|i| wait_mask_unchecked(&ready13[i], &[], None) as u64),
        Box::new(|i| peer::wait_mask(&ready13[i]) as u64),
    );
    add(
        "waits",
        "two-suit 13",
        Box::new(|i| wait_mask_unchecked(&two13[i], &[], None) as u64),
        Box::new(|i| peer::wait_mask(&two13[i]) as u64),
    );
    // best_discards: (14 tiles, tiles seen, void) per hand; the self-play positions keep
    // what the seat had seen and its void, the others see nothing and declare none.
    const ZERO: Counts = [0; 27];
    let plain = |v: &'static [Counts]| -> &'static [Turn] {
        Box::leak(v.iter().map(|&c| (c, ZERO, None)).collect())
    };
    let discard_sets: [(&str, &'static [Turn]); 4] = [
        (
            "self-play 14",
            Box::leak(
                selfplay
                    .iter()
                    .map(|p| (p.counts, p.visible, Some(p.void)))
                    .collect(),
            ),
        ),
        ("two-suit 14", plain(two14)),
        ("three-suit 14", plain(three14)),
        ("ready 13 + 1", plain(ready14)),
    ];
    for (set, hands) in discard_sets {
        let (mut co, mut po) = (Vec::with_capacity(14), Vec::with_capacity(14));
        add(
            "best_discards",
            set,
            Box::new(move |i| {
                let (c, v, void) = &hands[i];
                best_discards_unchecked(c, &[], v, *void, &mut co);
                co.len() as u64
            }),
            Box::new(move |i| {
                let (c, v, _) = &hands[i];
                peer::best_discards(c, v, &mut po);
                po.len() as u64
            }),
        );
    }

    let mut cr = Criterion::default().configure_from_args();
    {
        let mut g = cr.benchmark_group("peers");
        g.sample_size(20)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(1));
        for (f, set, core, peer) in pairs.iter_mut() {
            for (who, call) in [("core", &mut *core), ("xiangting", &mut *peer)] {
                let mut i = 0usize;
                g.bench_function(format!("{f}/{set}/{who}"), |b| {
                    b.iter(|| {
                        i = (i + 1) & (N - 1);
                        black_box(call(black_box(i)))
                    })
                });
            }
        }
        g.finish();
    }
    cr.final_summary();

    println!(
        "\nns per hand, median (and minimum) of 9 alternating passes over {N} hands (xiangting 6.0.2 as the peer):"
    );
    println!(
        "{:14} {:18} {:>9} {:>10} {:>8} {:>9} {:>10} {:>8}",
        "function", "hands", "core", "xiangting", "ratio", "core min", "peer min", "ratio"
    );
    for (f, set, core, peer) in pairs.iter_mut() {
        let (a, b, amin, bmin) = medians(core, peer);
        println!(
            "{f:14} {set:18} {a:9.1} {b:10.1} {:7.2}× {amin:9.1} {bmin:10.1} {:7.2}×",
            b / a,
            bmin / amin
        );
    }
}
