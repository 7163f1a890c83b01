//! Plays hands natively with one line-up, for profiling the native engine:
//! `cargo run --release -p xuezhan-core --example native_play -- random 20000 [leshan|xueliu]`.

use std::time::Instant;
use xuezhan_core::hand::play::play_seeded;
use xuezhan_core::hand::policy::PolicySpec;
use xuezhan_core::hand::HandRules;

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
    let t = Instant::now();
    let mut total = 0i64;
    for seed in 0..n {
        let h = play_seeded(&rules, seed, &lineup, false).expect("a hand");
        total += h.ledger.deltas[0];
    }
    let dt = t.elapsed().as_secs_f64();
    println!("{who}: {:.0} hands/s ({total})", n as f64 / dt);
}
