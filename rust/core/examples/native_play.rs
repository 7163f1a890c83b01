//! Plays hands natively with one line-up, for profiling and timing the native engine:
//! `cargo run --release -p xuezhan-core --example native_play -- random 20000 [leshan|xueliu]`.
//!
//! It prints hands per wall-second and, on Linux, hands per CPU-second of the playing thread
//! (read from `/proc/thread-self/schedstat`), which is what to compare on a shared, loaded
//! machine. The tables are built and a few hands played before the clock starts.

use std::time::Instant;
use xuezhan_core::hand::play::{play_seeded, play_tournament_hands, TournamentHand};
use xuezhan_core::hand::policy::PolicySpec;
use xuezhan_core::hand::HandRules;

/// CPU time of this thread in seconds (Linux), or None where the kernel does not tell.
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let who = args.get(1).map_or("random", String::as_str);
    let n: i128 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let rules = match args.get(3).map(String::as_str) {
        Some("xueliu") => HandRules {
            stay: true,
            ..HandRules::chengdu()
        },
        Some("chengdu") => HandRules::chengdu(),
        _ => HandRules::leshan(),
    };
    let spec = match who {
        "greedy" => PolicySpec::greedy(),
        "value" => PolicySpec::value(),
        _ => PolicySpec::random(),
    };
    let lineup = [spec.clone(), spec.clone(), spec.clone(), spec];
    // warm up: the shared tables are built on first use
    for seed in 0..20 {
        play_seeded(&rules, -1 - seed, &lineup, false).expect("a hand");
    }
    // as a tournament's chunk plays them: the hands' generators seeded together
    let hands: Vec<TournamentHand> = (0..n)
        .map(|seed| TournamentHand {
            seed,
            lineup: lineup.each_ref(),
            seed_options: ["", "", "", ""],
        })
        .collect();
    let cpu0 = thread_cpu_seconds();
    let t = Instant::now();
    let mut total = 0i64;
    play_tournament_hands(&rules, &hands, false, |_, h| {
        total += h.expect("a hand").ledger.deltas[0];
    });
    let dt = t.elapsed().as_secs_f64();
    let cpu = match (cpu0, thread_cpu_seconds()) {
        (Some(a), Some(b)) => format!(", {:.0} hands/CPU-s", n as f64 / (b - a)),
        _ => String::new(),
    };
    println!("{who}: {:.0} hands/s{cpu} ({total})", n as f64 / dt);
}
