//! Playing hands with the built-in policies: a whole hand from its seed, as a tournament plays
//! it, or the rest of a hand from any state (the play-outs of a searching strategy).

use crate::deal::PyRandom;
use crate::hand::policy::{Policy, PolicySpec};
use crate::hand::rules::HandRules;
use crate::hand::seeds::{decimal, derive_seed, first_dealer, random_key};
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
    let mut digits = [0u8; 40];
    let seat = std::str::from_utf8(decimal(seat as i128, &mut digits)).expect("ASCII digits");
    derive_seed(seed, &["strategy", seat, option]) as i128
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
    let (deal_rng, rngs) = generators(seed, lineup, seed_options);
    play_with(
        rules,
        seed,
        &lineup.each_ref(),
        seed_options,
        deal_rng,
        rngs,
        record,
    )
}

/// The hand of `seed` dealt by `deal_rng`, played by `lineup` with the `random` seats'
/// generators `rngs`.
fn play_with(
    rules: &HandRules,
    seed: i128,
    lineup: &[&PolicySpec; 4],
    seed_options: &[&str; 4],
    deal_rng: PyRandom,
    rngs: [Option<PyRandom>; 4],
    record: bool,
) -> Result<Hand, HandError> {
    let dealer = first_dealer(seed);
    let mut hand = Hand::from_generator(*rules, deal_rng, dealer, record)?;
    let mut policies: [Policy; 4] = {
        let mut rngs = rngs.into_iter();
        std::array::from_fn(|s| {
            let rng = rngs.next().flatten(); // the seat's own (None but for `random`)
            match lineup[s] {
                // expert's own generator is seeded by its seat's strategy seed
                PolicySpec::Expert(_) => Policy::new(
                    lineup[s],
                    s as u8,
                    rules,
                    Some(strategy_seed(seed, s as u8, seed_options[s])),
                ),
                spec => Policy::with_rng(spec, s as u8, rules, rng),
            }
        })
    };
    play_out(&mut hand, &mut policies);
    Ok(hand)
}

/// One tournament hand to play: its seed, its line-up in seat order and each seat's `seed`
/// option (as Python's `str()` of it; empty for none), as [`play_tournament_hand`] takes them.
#[derive(Debug, Clone, Copy)]
pub struct TournamentHand<'a> {
    /// The hand's seed (it deals the wall and draws the dealer, R1.4, R9.1).
    pub seed: i128,
    /// The policies, seat by seat.
    pub lineup: [&'a PolicySpec; 4],
    /// Each seat's `seed` option.
    pub seed_options: [&'a str; 4],
}

/// Plays `hands` as [`play_tournament_hand`] plays each, in order, handing each result to
/// `done` with its index. The generators of consecutive hands (the deal's and each `random`
/// seat's) are seeded together, up to sixteen at a time (see [`PyRandom::new_batch`]): a
/// hand of `greedy` seats seeds one generator, which alone takes as long as sixteen.
///
/// ```
/// use xuezhan_core::hand::play::{play_tournament_hand, play_tournament_hands, TournamentHand};
/// use xuezhan_core::hand::{policy::PolicySpec, HandRules};
/// let (r, g) = (PolicySpec::random(), PolicySpec::greedy());
/// let hands: Vec<TournamentHand> = (0..5)
///     .map(|seed| TournamentHand { seed, lineup: [&r, &g, &r, &g], seed_options: ["", "", "", ""] })
///     .collect();
/// let rules = HandRules::leshan();
/// play_tournament_hands(&rules, &hands, false, |i, h| {
///     let one = play_tournament_hand(&rules, i as i128, &[r.clone(), g.clone(), r.clone(), g.clone()], &["", "", "", ""], false);
///     assert_eq!(h.unwrap().ledger.deltas, one.unwrap().ledger.deltas);
/// });
/// ```
pub fn play_tournament_hands(
    rules: &HandRules,
    hands: &[TournamentHand],
    record: bool,
    mut done: impl FnMut(usize, Result<Hand, HandError>),
) {
    const LANES: usize = 16;
    let mut at = 0;
    while at < hands.len() {
        // the next hands whose generators fill the lanes (at least one hand)
        let mut keys: Vec<Vec<u32>> = Vec::with_capacity(LANES);
        let mut end = at;
        while end < hands.len() {
            let h = &hands[end];
            let mut k = vec![random_key(h.seed)];
            for s in 0..4 {
                if matches!(h.lineup[s], PolicySpec::Random) {
                    k.push(random_key(strategy_seed(
                        h.seed,
                        s as u8,
                        h.seed_options[s],
                    )));
                }
            }
            if end > at && keys.len() + k.len() > LANES {
                break;
            }
            keys.extend(k);
            end += 1;
        }
        let refs: Vec<&[u32]> = keys.iter().map(Vec::as_slice).collect();
        let mut gens = PyRandom::new_batch(&refs).into_iter();
        for (i, h) in hands.iter().enumerate().take(end).skip(at) {
            let deal = gens.next().expect("a deal generator per hand");
            let rngs: [Option<PyRandom>; 4] = std::array::from_fn(|s| {
                matches!(h.lineup[s], PolicySpec::Random).then(|| gens.next().expect("a seat's"))
            });
            done(
                i,
                play_with(
                    rules,
                    h.seed,
                    &h.lineup,
                    &h.seed_options,
                    deal,
                    rngs,
                    record,
                ),
            );
        }
        at = end;
    }
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
