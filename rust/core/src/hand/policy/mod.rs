//! The built-in strategies `random`, `greedy` and `value`, deciding exactly as their Python
//! versions (`xuezhan.strategies`) do, decision for decision: the differential tests play
//! thousands of hands both ways and compare every log line.
//!
//! A policy sees the hand only through its seat's [`View`] (what the Python `Observation`
//! holds). `greedy` and `value` keep one fact across a hand, the suit they are clearing;
//! `random` keeps its generator (Python's `random.Random`, bit for bit).

mod expert;
pub(crate) mod greedy;
mod random;

use crate::deal::PyRandom;
use crate::hand::action::Action;
use crate::hand::rules::HandRules;
use crate::hand::seeds::random_key;
use crate::hand::view::View;
use crate::value::ValueParams;

pub use expert::{estimate, Expert, ExpertOptions, SplitMix};
pub use greedy::ValueOptions;

/// Which built-in strategy, with its options.
#[derive(Debug, Clone, PartialEq)]
pub enum PolicySpec {
    /// `random`: uniform among the legal actions (a locked winner takes every win, R14.2).
    Random,
    /// `greedy`: lowest shanten, most useful tiles, void suit early, always wins.
    Greedy,
    /// `value`: greedy plus fan awareness and defence, with its options.
    Value(ValueOptions),
    /// `expert`: value refined by simulating its own hand, under the rules in force.
    Expert(ExpertOptions),
}

impl PolicySpec {
    /// `random`.
    pub fn random() -> PolicySpec {
        PolicySpec::Random
    }

    /// `greedy`.
    pub fn greedy() -> PolicySpec {
        PolicySpec::Greedy
    }

    /// `value` with its default options.
    pub fn value() -> PolicySpec {
        PolicySpec::Value(ValueOptions::default())
    }

    /// The strategy's name.
    pub fn name(&self) -> &'static str {
        match self {
            PolicySpec::Random => "random",
            PolicySpec::Greedy => "greedy",
            PolicySpec::Value(_) => "value",
            PolicySpec::Expert(_) => "expert",
        }
    }

    /// Its decisions depend on a seed (`random`, `expert`): a tournament seeds it per hand and
    /// seat, as it builds the Python strategy afresh.
    pub fn seeded(&self) -> bool {
        matches!(self, PolicySpec::Random | PolicySpec::Expert(_))
    }
}

/// One seat's policy during a hand: the spec and what it keeps across the hand.
#[derive(Clone)]
pub struct Policy {
    spec: PolicySpec,
    seat: u8,
    /// The suit it clears (R4.2, R11.2), -1 before its first decision (greedy and value).
    void: i8,
    rng: Option<PyRandom>,
    stay: bool,
    params: ValueParams,
    kong_slack: i8,
    expert: Option<Expert>,
}

impl Policy {
    /// The policy of `spec` for `seat` of a hand under `rules`, as the Python strategy is after
    /// `Strategy(seed=seed)` and `reset(seat, rules)`; `seed` seeds `random` (None is 0, as in
    /// Python).
    pub fn new(spec: &PolicySpec, seat: u8, rules: &HandRules, seed: Option<i128>) -> Policy {
        let rng = matches!(spec, PolicySpec::Random)
            .then(|| PyRandom::new(&random_key(seed.unwrap_or(0))));
        let mut p = Policy::with_rng(spec, seat, rules, rng);
        if let PolicySpec::Expert(o) = spec {
            p.expert = Some(Expert::new(o, seat, rules, seed.unwrap_or(0) as u64));
        }
        p
    }

    /// [`Policy::new`] with `random`'s generator already seeded (see
    /// [`PyRandom::new_many`]); None for the other policies.
    pub fn with_rng(
        spec: &PolicySpec,
        seat: u8,
        rules: &HandRules,
        rng: Option<PyRandom>,
    ) -> Policy {
        let (params, kong_slack) = match spec {
            PolicySpec::Value(o) => {
                let mut p = o.params;
                p.max_factor = (1u64 << (rules.core.max_fan - 1)) as f64;
                (p, o.kong_slack)
            }
            _ => (ValueParams::default(), 0),
        };
        Policy {
            spec: spec.clone(),
            seat,
            void: -1,
            rng,
            stay: rules.stay,
            params,
            kong_slack,
            expert: None,
        }
    }

    /// The action it takes at its decision (`view` is its seat's view; the decision is its own).
    pub fn act(&mut self, view: &View, rules: &HandRules) -> Action {
        match self.spec {
            PolicySpec::Random => random::act(self, view),
            PolicySpec::Greedy | PolicySpec::Value(_) => greedy::act(self, view, rules),
            PolicySpec::Expert(_) => self.expert.as_mut().expect("an expert policy").act(view),
        }
    }
}
