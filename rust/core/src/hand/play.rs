//! Playing hands with the built-in policies: a whole hand from its seed, as a tournament plays
//! it, or the rest of a hand from any state (the play-outs of a searching strategy).

use crate::deal::PyRandom;
use crate::hand::policy::{Policy, PolicySpec};
use crate::hand::rules::HandRules;
use crate::hand::seeds::{derive_seed, first_dealer, random_key};
use crate::hand::view::View;
use crate::hand::{Hand, HandError};

/// Plays `hand` to its end with one policy per seat.
pub fn play_out(hand: &mut Hand, policies: &mut [Policy]) {
    while let Some(seat) = hand.turn.cur {
        let action = policies[seat as usize].act(&View::new(hand, seat), &hand.rules);
        hand.apply_legal(action, false);
    }
}

/// The seat's `random` seed in a tournament hand dealt from `seed`: as the tournament builds a
/// seeded strategy, `derive_seed(seed, "strategy", seat, option)` (`option`: the entry's
/// `seed` option written as Python's `str()`, empty without one).
pub fn strategy_seed(seed: i128, seat: u8, option: &str) -> i128 {
    derive_seed(seed, &["strategy", &seat.to_string(), option]) as i128
}

/// A whole hand dealt from `seed` with the dealer drawn from it (R1.4, R9.1), played by
/// `lineup` (seat order) as a tournament plays it: `random` seats are seeded per hand and seat
/// with an empty `seed` option.
pub fn play_seeded(
    rules: &HandRules,
    seed: i128,
    lineup: &[PolicySpec; 4],
    record: bool,
) -> Result<Hand, HandError> {
    let options = ["", "", "", ""];
    play_tournament_hand(rules, seed, lineup, &options, record)
}

/// [`play_seeded`] with each seat's `seed` option (as Python's `str()` of it; empty for none).
pub fn play_tournament_hand(
    rules: &HandRules,
    seed: i128,
    lineup: &[PolicySpec; 4],
    seed_options: &[&str; 4],
    record: bool,
) -> Result<Hand, HandError> {
    let dealer = first_dealer(seed);
    let (deal_rng, rngs) = generators(seed, lineup, seed_options);
    let mut hand = Hand::from_generator(*rules, deal_rng, dealer, record)?;
    let mut policies: Vec<Policy> = rngs
        .into_iter()
        .enumerate()
        .map(|(s, rng)| Policy::with_rng(&lineup[s], s as u8, rules, rng))
        .collect();
    play_out(&mut hand, &mut policies);
    Ok(hand)
}

/// The generators of a tournament hand: the deal's, from the hand's seed, and each `random`
/// seat's, from its strategy seed; seeded together.
pub fn generators(
    seed: i128,
    lineup: &[PolicySpec; 4],
    seed_options: &[&str; 4],
) -> (PyRandom, [Option<PyRandom>; 4]) {
    let deal_key = random_key(seed);
    let random: [bool; 4] = std::array::from_fn(|s| matches!(lineup[s], PolicySpec::Random));
    if !random.iter().any(|&r| r) {
        return (PyRandom::new(&deal_key), [None, None, None, None]);
    }
    let keys: [Vec<u32>; 4] = std::array::from_fn(|s| {
        if random[s] {
            random_key(strategy_seed(seed, s as u8, seed_options[s]))
        } else {
            vec![0]
        }
    });
    let [d, a, b, c, e] = PyRandom::new_many([&deal_key, &keys[0], &keys[1], &keys[2], &keys[3]]);
    let mut seats = [Some(a), Some(b), Some(c), Some(e)];
    for (s, slot) in seats.iter_mut().enumerate() {
        if !random[s] {
            *slot = None;
        }
    }
    (d, seats)
}
