//! `expert` (高手): `value`'s play, searched: each candidate action played on determinized
//! samples of the hand and finished by the native engine under the rules in force (their cap,
//! fan items, self-draw bonus, forced wins and 血流成河 are the engine's). A refinement of the
//! discards by simulating the seat's own hand (`samples`) is an option, off by default: it
//! gained less than the search and nothing on top of it (docs/strength.md).
//!
//! Written once, against [`Sight`]: the native engine plays it on a [`crate::hand::view::View`]
//! and the Python engine (the room, the environments, external matches) through the binding on
//! an [`crate::hand::sight::ObsSight`] copied from its `Observation`, so both engines decide the
//! same (the differential tests play it both ways).
//!
//! What it adds to `value` (each part an option, for ablations):
//!
//! - **Locked winners** (`avoid_locked`, 血流成河, R14): a winner that stays in the hand keeps
//!   its waits for good (R14.1) and the tiles it won on are public, so it never throws one of
//!   them while another legal discard exists.
//! - **Discards** (`samples`, `width`; `samples` 0, off, by default): `value`'s choice and the next `width − 1` discards of
//!   lowest shanten are each played out `samples` times in a simulation of the seat's own hand:
//!   the unseen tiles in a random order, the other seats drawing and throwing one each per round
//!   (a throw that completes the hand is a win on a discard, R6.1), the seat drawing (a
//!   self-draw, R6.2, paid by every other seat, with the self-draw bonus of the rules) and
//!   throwing by `greedy`'s ranking, until the wall ends (R7: a ready hand is paid its value by
//!   the seats that are not, one that is not pays). Each win is scored by the evaluator under
//!   the rules in force (their cap, fan items and self-draw bonus), so the choice weighs speed
//!   against value as the rules pay them. Every candidate sees the same simulated orders (common
//!   random numbers); one beats `value`'s choice only by more than `margin` points, after its
//!   danger to ready-looking opponents (`value`'s reading) costs `danger_cost` points per unit.
//! - **Discard wins** (`pass_wins`, winners leave only): a win on a discard pays the discarder's
//!   points alone, a self-draw pays every other seat; when waiting is worth more than the
//!   points on offer (the same simulation, with R4.3's lock until the seat's next draw), it
//!   passes.
//!
//! - **Search** (`rollouts`, `search_width`, `z`, `pick`): at a turn or a claim with more than
//!   one candidate (the choice above first, the next discards no more dangerous than it, every
//!   kong, win and claim answer), `rollouts` samples of what the seat cannot see are drawn
//!   ([`crate::hand::sample::determinize`], the readiest of `pick` deals), every candidate is
//!   played on each and the hand finished by `value` at all four seats in the native engine;
//!   an alternative replaces the choice only when its mean gain is `z` standard errors above
//!   zero (clearly worse or hopeless alternatives are dropped early, as `search` does). The
//!   setup is searched the same way (R11): the exchange among `greedy`'s three tiles of each
//!   suit held at least three times (its own choice first), the void among the legal suits.
//! - **Void plans** (`void_plans`, off by default: it lost points under leshan,
//!   docs/strength.md): where no void is declared, while the seat holds all three suits,
//!   `value`'s discard for clearing each other suit is a candidate too, and its rollouts keep
//!   the seat clearing that suit.
//! - **Read voids** (`read_voids`, off by default: no gain under leshan, docs/strength.md):
//!   where no void is declared, the samples deal no other seat the suit it has plainly been
//!   clearing by its discards.
//! - **Which decisions** (`search_turns`, `search_claims`, both on): the search of its turns
//!   and of its answers to a discard can each be turned off, to measure what each gains
//!   (docs/strength.md: both gain under leshan, the turns more).
//! - **Wins** (`search_wins`; by default on where a self-draw earns a bonus): a win is a
//!   candidate against passing it (R4.3's lock follows in the rollouts) or, on the seat's own
//!   draw, against the turn `value` would play; never in the last tiles, where it is forced.
//! - **Nested search** (`nest`, off by default: 21 times the CPU, docs/strength.md has what it
//!   gained): in each rollout the acting seat searches its next `nest_depth` decisions again,
//!   on `nest` samples of its `nest_width` best candidates (its own test, `nest_z`), before
//!   `value` finishes the hand.
//!
//! Its generator (SplitMix64, seeded per hand and seat) makes it deterministic for a seed, as
//! long as its time `budget` (a second a decision by default, far inside R10's limits) does
//! not run out: on a machine so loaded that it does, a decision answers with its best so far.

use crate::discards::{best_discards_unchecked, greedy_discard_unchecked, Discard};
use crate::fan::{ctx, fan_unchecked};
use crate::hand::action::{Act, Action};
use crate::hand::legal::suit_counts;
use crate::hand::policy::greedy::{self, ValueOptions};
use crate::hand::rules::{HandRules, SelfDrawBonus};
use crate::hand::sight::Sight;
use crate::hand::turn::Phase;
use crate::hand::Hand;
use crate::tiles::{Counts, Meld};
use crate::value::{
    danger, value_discard_unchecked, Opponent, ValueChoice, ValueParams, ValueTurn,
};
use crate::waits::{wait_mask_unchecked, waits_unchecked, Wait};

/// The options of `expert` (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExpertOptions {
    /// `value`'s options, the base of its play.
    pub value: ValueOptions,
    /// Simulations per candidate discard (0: `value`'s discards).
    pub samples: u16,
    /// Discards simulated at a turn: `value`'s choice and the next ones of lowest shanten.
    pub width: u8,
    /// Points a candidate must gain over `value`'s choice.
    pub margin: f64,
    /// Points one unit of `value`'s danger reading costs.
    pub danger_cost: f64,
    /// Never throw a tile a locked winner has won on (R14), when another discard is legal.
    pub avoid_locked: bool,
    /// Weigh passing a discard win against waiting for a better one (winners leave only).
    pub pass_wins: bool,
    /// Weight of the ready check (R7) at the end of a simulated wall.
    pub ready_weight: f64,
    /// The chance, per round of a simulation, that the hand goes on for the seat (the others
    /// win, R4.5, or it deals in): a win a round later is worth this much less.
    pub survival: f64,
    /// The seat plays its simulated hand as `value` (fan-aware) rather than as `greedy`.
    pub fan_play: bool,
    /// Seconds a decision may spend simulating: past it, the candidates not yet weighed are
    /// dropped and the best so far is played (far inside the decision limit of R10).
    pub budget: f64,
    /// Determinized samples per searched decision (0: no search): each candidate is played on
    /// every sample and the hand finished by `value` at all four seats.
    pub rollouts: u16,
    /// Discards searched at a turn (the base choice and the next ones no more dangerous).
    pub search_width: u8,
    /// Standard errors by which an alternative must beat the base choice.
    pub z: f64,
    /// Each sample is the readiest of this many deals of the other hands.
    pub pick: u8,
    /// Samples deal the other seats ready hands at the rate real players are ready.
    pub ready: bool,
    /// Where no void is declared (R11.2 off), the suit to clear is searched too: while the
    /// seat still holds tiles of all three suits, `value`'s discard for clearing each other
    /// suit is a candidate, whose rollouts keep the seat clearing that suit. Off by default:
    /// it lost points under leshan (docs/strength.md).
    pub void_plans: bool,
    /// Where no void is declared (R11.2 off), the samples read the suit each other seat has
    /// plainly been clearing from its discards, and deal it none (`determinize`'s `read_voids`).
    pub read_voids: bool,
    /// Search the decisions of its turns (discards, kongs); off, they are `value`'s.
    pub search_turns: bool,
    /// Search its answers to a discard (peng, kong, pass); off, they are `value`'s.
    pub search_claims: bool,
    /// Search a win against passing it (R4.3) or, on its own draw, playing on (`value` always
    /// takes one). `None` (the default): on where a self-draw earns a bonus (`self_draw_bonus`
    /// `point` or `fan`: chengdu, xueliu, 自摸加番), where waiting to draw a win gained
    /// (docs/strength.md); under leshan's plain self-draw it gained nothing, and its wins stay
    /// `value`'s.
    pub search_wins: Option<bool>,
    /// Nested search (0, the default: off): in each rollout the acting seat is an `expert` of
    /// its own that searches its next `nest_depth` decisions again, on `nest` samples of its
    /// `nest_width` best candidates, and plays `value` after them. It costs about 21 times
    /// the CPU at `nest` 8 (docs/strength.md has what it gained).
    pub nest: u16,
    /// Candidates weighed by a nested search (the base choice among them).
    pub nest_width: u8,
    /// The acting seat's decisions searched again in each rollout.
    pub nest_depth: u8,
    /// Standard errors by which a nested search's alternative must beat its base choice: on
    /// its few samples the outer test (1.5) lets noisy alternatives through, and the 8-sample
    /// search it gives plays worse than `value` (docs/strength.md).
    pub nest_z: f64,
}

impl Default for ExpertOptions {
    fn default() -> Self {
        ExpertOptions {
            value: ValueOptions::default(),
            samples: 0,
            width: 4,
            margin: 0.5,
            danger_cost: 0.3,
            avoid_locked: true,
            pass_wins: false,
            ready_weight: 1.0,
            survival: 0.8,
            fan_play: true,
            budget: 1.0,
            rollouts: 64,
            search_width: 4,
            z: 1.5,
            pick: 12,
            ready: true,
            void_plans: false,
            read_voids: false,
            search_turns: true,
            search_claims: true,
            search_wins: None,
            nest: 0,
            nest_width: 3,
            nest_depth: 1,
            nest_z: 1.5,
        }
    }
}

/// SplitMix64: a small, fast generator for the simulations (Rust only: Python calls this code).
#[derive(Debug, Clone, Copy)]
pub struct SplitMix(u64);

impl SplitMix {
    /// Seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// `xs` in a uniformly random order (Fisher–Yates, from the last place down).
    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            xs.swap(i, self.below(i + 1));
        }
    }
}

/// One seat's `expert` during a hand.
#[derive(Debug, Clone)]
pub struct Expert {
    opts: ExpertOptions,
    rules: HandRules,
    params: ValueParams,
    seat: u8,
    void: i8,
    rng: SplitMix,
    /// Searches it may still run this hand: unbounded for a seat at the table, `nest_depth`
    /// for the acting seat of a nested rollout (see [`ExpertOptions::nest`]).
    searches_left: u32,
}

fn void_opt(v: i8) -> Option<u8> {
    (v >= 0).then_some(v as u8)
}

fn meld_suits(melds: &[Meld]) -> u8 {
    melds.iter().fold(0, |m, x| m | 1 << (x.kind / 9))
}

impl Expert {
    /// The policy of `seat` for a hand under `rules`; `seed` seeds its simulations.
    pub fn new(opts: &ExpertOptions, seat: u8, rules: &HandRules, seed: u64) -> Expert {
        let mut params = opts.value.params;
        params.max_factor = (1u64 << (rules.core.max_fan - 1)) as f64;
        Expert {
            opts: *opts,
            rules: *rules,
            params,
            seat,
            void: -1,
            rng: SplitMix::new(seed ^ 0x6A09_E667_F3BC_C908),
            searches_left: u32::MAX,
        }
    }

    /// The suit it clears (-1 before its first decision).
    pub fn void(&self) -> i8 {
        self.void
    }

    /// The action it takes at its decision.
    pub fn act<S: Sight>(&mut self, s: &S) -> Action {
        let legal = s.legal();
        let seat = self.seat;
        if legal[0].act == Act::Hu {
            if s.phase() == Phase::Claim && self.should_pass(s) {
                return *legal
                    .iter()
                    .find(|a| a.act == Act::Pass)
                    .unwrap_or(&legal[0]);
            }
            if let Some(a) = self.search_win(s) {
                return a;
            }
            return legal[0];
        }
        match s.phase() {
            Phase::Exchange => {
                // greedy's three tiles of the suit held fewest of, or of another suit held
                let c = s.hand();
                let base = greedy::exchange_of(seat, c);
                let mut cands = vec![base];
                let held = suit_counts(c);
                for suit in 0..3u8 {
                    if held[suit as usize] < 3 {
                        continue;
                    }
                    let a = greedy::exchange_in(seat, c, suit);
                    if !cands.contains(&a) && legal.contains(&a) {
                        cands.push(a);
                    }
                }
                return self.setup_search(s, &cands);
            }
            Phase::Void => {
                self.void = self.choose_void(s.hand(), s.melds(seat));
                let base = *legal
                    .iter()
                    .find(|a| a.act == Act::Void(self.void as u8))
                    .unwrap_or(&legal[0]);
                let mut cands = vec![base];
                cands.extend(legal.iter().filter(|&&a| a != base));
                let a = self.setup_search(s, &cands);
                if let Act::Void(v) = a.act {
                    self.void = v as i8;
                }
                return a;
            }
            _ => {}
        }
        let counts = *s.hand();
        let melds = s.melds(seat);
        self.settle_void(s.void(seat), &counts, melds);
        let mask = s.discard_mask();
        // what the seat reads of the others (`value`'s danger), once for the whole turn (a
        // claim's answers do not weigh it), the base choice and whether this kind is searched
        let (opponents, base, searched) = if mask != 0 {
            let opponents = self.opponents(s);
            let base = self.turn(s, &counts, melds, mask, &opponents);
            (opponents, base, self.opts.search_turns)
        } else {
            let base = self.claim(s, &counts, melds);
            (Vec::new(), base, self.opts.search_claims)
        };
        if self.opts.rollouts > 0 && legal.len() > 1 && searched && self.searches_left > 0 {
            if let Some(truth) = s.truth() {
                let mut cands = self.candidates(s, &counts, melds, mask, base, &opponents);
                // the suit each candidate's rollouts keep the seat clearing (-1: chosen afresh)
                let mut plans = vec![-1; cands.len()];
                if mask != 0 {
                    for (a, v) in self.void_plans(s, &counts, melds, mask, &opponents) {
                        if !cands.contains(&a) {
                            cands.push(a);
                            plans.push(v);
                        }
                    }
                }
                if cands.len() > 1 {
                    self.searches_left -= 1;
                    let j = self.search(truth, &cands, &plans);
                    if plans[j] >= 0 {
                        self.void = plans[j];
                    }
                    return cands[j];
                }
            }
        }
        base
    }

    /// With `search_wins`, a win (`legal[0]`) or the answer that plays on (a pass at a claim,
    /// R4.3's lock and all; at its own draw, the turn `value` would play without the win),
    /// whichever the search finds clearly better; `None` where the win is not a choice.
    fn search_win<S: Sight>(&mut self, s: &S) -> Option<Action> {
        let on = self
            .opts
            .search_wins
            .unwrap_or(self.rules.self_draw_bonus != SelfDrawBonus::None);
        if !on || self.opts.rollouts == 0 || s.last_tiles() {
            return None;
        }
        let legal = s.legal();
        let truth = s.truth()?;
        let other = if s.phase() == Phase::Claim {
            *legal.iter().find(|a| a.act == Act::Pass)?
        } else {
            let mask = s.discard_mask();
            if mask == 0 {
                return None;
            }
            let counts = *s.hand();
            let melds = s.melds(self.seat);
            self.settle_void(s.void(self.seat), &counts, melds);
            let opponents = self.opponents(s);
            self.turn(s, &counts, melds, mask, &opponents)
        };
        let cands = [legal[0], other];
        Some(cands[self.search(truth, &cands, &[])])
    }

    /// With `void_plans`, where no void is declared and the seat still holds all three suits:
    /// `value`'s discard for clearing each other suit no meld uses, with that plan (the caller
    /// keeps those not already candidates).
    fn void_plans<S: Sight>(
        &self,
        s: &S,
        counts: &Counts,
        melds: &[Meld],
        mask: u32,
        opponents: &[Opponent<'_>],
    ) -> Vec<(Action, i8)> {
        let held = suit_counts(counts);
        if !self.opts.void_plans || s.void(self.seat) >= 0 || held.contains(&0) {
            return Vec::new();
        }
        let legal = self.unlocked(s, mask);
        let used = meld_suits(melds);
        (0..3u8)
            .filter(|&v| v as i8 != self.void && used >> v & 1 == 0)
            .map(|v| {
                let choice = self.value_choice(s, counts, melds, Some(v), legal, opponents);
                (Action::new(self.seat, Act::Discard(choice.kind)), v as i8)
            })
            .collect()
    }

    /// The setup's choice (R11): `cands[0]`, or the candidate the search finds clearly better.
    fn setup_search<S: Sight>(&mut self, s: &S, cands: &[Action]) -> Action {
        if self.opts.rollouts > 0 && cands.len() > 1 {
            if let Some(truth) = s.truth() {
                return cands[self.search(truth, cands, &[])];
            }
        }
        cands[0]
    }

    fn claim<S: Sight>(&self, s: &S, counts: &Counts, melds: &[Meld]) -> Action {
        let seat = self.seat;
        greedy::claim_with(
            seat,
            self.void,
            self.opts.value.kong_slack,
            Some(&self.params),
            self.opts.value.strict_peng,
            s.claim_tile(),
            s.wall_count(),
            s.legal(),
            counts,
            melds,
        )
    }

    /// The suit it clears at a turn or claim: the declared one, else the one it chose, chosen
    /// afresh before its first decision or once a meld of that suit makes it impossible.
    fn settle_void(&mut self, declared: i8, counts: &Counts, melds: &[Meld]) {
        if declared >= 0 {
            self.void = declared;
        } else if self.void < 0 || meld_suits(melds) >> self.void & 1 != 0 {
            self.void = self.choose_void(counts, melds);
        }
    }

    fn choose_void(&self, counts: &Counts, melds: &[Meld]) -> i8 {
        greedy::choose_void_of(counts, melds, self.opts.value.smart_void)
    }

    /// The kinds a locked winner has won on (R14.1: its waits never change, and they are public).
    fn locked_tiles<S: Sight>(&self, s: &S) -> u32 {
        if self.opts.avoid_locked {
            greedy::locked_wins(s, self.rules.stay)
        } else {
            0
        }
    }

    /// The discards of `mask` that feed no locked winner, or all of `mask` when every legal
    /// discard would (R14: never feed a locked winner while another discard exists).
    fn unlocked<S: Sight>(&self, s: &S, mask: u32) -> u32 {
        let locked = self.locked_tiles(s);
        if mask & !locked != 0 {
            mask & !locked
        } else {
            mask
        }
    }

    /// `value`'s discard among `legal` for a seat clearing `void`.
    fn value_choice<S: Sight>(
        &self,
        s: &S,
        counts: &Counts,
        melds: &[Meld],
        void: Option<u8>,
        legal: u32,
        opponents: &[Opponent<'_>],
    ) -> ValueChoice {
        let t = ValueTurn {
            counts,
            melds,
            visible: s.seen(),
            void,
            legal,
            wall_count: s.wall_count() as i64,
            opponents,
            rules: &self.rules.core,
        };
        value_discard_unchecked(&t, &self.params)
    }

    fn opponents<'a, S: Sight>(&self, s: &'a S) -> Vec<Opponent<'a>> {
        (0..s.seats())
            .filter(|&o| o != self.seat && !s.won(o) && !s.escaped(o))
            .map(|o| Opponent {
                melds: s.melds(o).len() as u8,
                meld_suits: meld_suits(s.melds(o)),
                declared_void: void_opt(s.void(o)),
                river: s.discards(o),
            })
            .collect()
    }

    fn turn<S: Sight>(
        &mut self,
        s: &S,
        counts: &Counts,
        melds: &[Meld],
        legal_mask: u32,
        opponents: &[Opponent<'_>],
    ) -> Action {
        let seat = self.seat;
        let legal = s.legal();
        let no_kong = !legal
            .iter()
            .any(|a| matches!(a.act, Act::Angang(_) | Act::Jiagang(_)));
        let mask = self.unlocked(s, legal_mask);
        let choice = self.value_choice(s, counts, melds, void_opt(self.void), mask, opponents);
        if !no_kong {
            if let Some(now) = choice.shanten {
                if let Some(a) = greedy::kong_of(
                    seat,
                    self.void,
                    self.opts.value.kong_slack,
                    legal,
                    counts,
                    melds,
                    now,
                ) {
                    return a;
                }
            }
        }
        let mut kind = choice.kind;
        let in_void = self.void >= 0 && kind / 9 == self.void as u8;
        if self.opts.samples > 0 && !in_void && mask.count_ones() > 1 {
            kind = self.refine(s, counts, melds, mask, kind, opponents);
        }
        Action::new(seat, Act::Discard(kind))
    }

    /// `value`'s choice `base`, or a discard whose simulated worth beats it by `margin`.
    fn refine<S: Sight>(
        &mut self,
        s: &S,
        counts: &Counts,
        melds: &[Meld],
        mask: u32,
        base: u8,
        opponents: &[Opponent],
    ) -> u8 {
        let void = void_opt(self.void);
        let mut rows: Vec<Discard> = Vec::with_capacity(14);
        best_discards_unchecked(counts, melds, s.seen(), void, &mut rows);
        rows.retain(|r| mask >> r.kind & 1 != 0);
        let now = rows.iter().map(|r| r.shanten).min().unwrap_or(0);
        rows.retain(|r| r.kind != base && r.shanten <= now + 1);
        rows.sort_by_key(|r| (r.shanten, std::cmp::Reverse(r.ukeire), r.kind));
        rows.truncate(self.opts.width.saturating_sub(1) as usize);
        if rows.is_empty() {
            return base;
        }
        let mut cands = vec![base];
        cands.extend(rows.iter().map(|r| r.kind));
        let sim = Sim::new(self, s, counts);
        let orders = sim.orders(&mut self.rng, self.opts.samples as usize);
        // the decision's time budget: candidates not reached in time are not weighed (their
        // worth stays below every other), so a late decision answers with its best so far
        let start = std::time::Instant::now();
        let budget = std::time::Duration::from_secs_f64(self.opts.budget);
        let worth: Vec<f64> = cands
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                if i > 0 && start.elapsed() > budget {
                    return f64::NEG_INFINITY;
                }
                let mut c13 = *counts;
                c13[k as usize] -= 1;
                sim.worth(&c13, melds, void, &orders, 0)
                    - self.opts.danger_cost * danger(k, counts, s.seen(), opponents)
            })
            .collect();
        let mut best = 0;
        for i in 1..cands.len() {
            if worth[i] > worth[best] {
                best = i;
            }
        }
        if best != 0 && worth[best] > worth[0] + self.opts.margin {
            cands[best]
        } else {
            base
        }
    }

    /// R4.3: passing a win on a discard is worth it when waiting (locked to more fan until the
    /// seat's next draw) is worth more than the points on offer.
    fn should_pass<S: Sight>(&mut self, s: &S) -> bool {
        if !self.opts.pass_wins || self.rules.stay || s.last_tiles() || self.opts.samples == 0 {
            return false;
        }
        let Some(t) = s.claim_tile() else {
            return false;
        };
        let seat = self.seat;
        let counts = *s.hand();
        let melds = s.melds(seat);
        let void = void_opt(s.void(seat));
        let mut h = counts;
        h[t as usize] += 1;
        let Some(now) = fan_unchecked(&h, melds, t, 0, &self.rules.core, void) else {
            return false;
        };
        let sim = Sim::new(self, s, &counts);
        let orders = sim.orders(&mut self.rng, self.opts.samples as usize);
        let wait = sim.worth(&counts, melds, void, &orders, now.capped);
        wait > now.points as f64 + self.opts.margin
    }
}

/// The simulation of one seat's own hand to the end of the wall (see the module doc).
struct Sim {
    /// The tiles it has not seen, one entry per tile.
    pool: Vec<u8>,
    /// Tiles left in the wall.
    wall: usize,
    /// Seats still in the hand.
    active: usize,
    rules: HandRules,
    visible: Counts,
    ready_weight: f64,
    survival: f64,
    /// Its own play in the simulation is `value`'s (else `greedy`'s).
    fan_play: bool,
    params: ValueParams,
}

impl Sim {
    fn new<S: Sight>(e: &Expert, s: &S, counts: &Counts) -> Sim {
        let seen = s.seen();
        let mut pool = Vec::with_capacity(108);
        for k in 0..27 {
            let unseen = 4u8.saturating_sub(counts[k] + seen[k]);
            for _ in 0..unseen {
                pool.push(k as u8);
            }
        }
        let active = (0..s.seats())
            .filter(|&o| !s.escaped(o) && (e.rules.stay || !s.won(o)))
            .count();
        Sim {
            pool,
            wall: s.wall_count(),
            active: active.max(1),
            rules: e.rules,
            visible: *seen,
            ready_weight: e.opts.ready_weight,
            survival: e.opts.survival,
            fan_play: e.opts.fan_play,
            params: e.params,
        }
    }

    /// `n` random orders of the first tiles of the pool (the wall's tiles to come).
    fn orders(&self, rng: &mut SplitMix, n: usize) -> Vec<Vec<u8>> {
        let len = self.wall.min(self.pool.len());
        (0..n)
            .map(|_| {
                let mut p = self.pool.clone();
                for i in 0..len {
                    let j = i + rng.below(p.len() - i);
                    p.swap(i, j);
                }
                p.truncate(len);
                p
            })
            .collect()
    }

    /// The mean worth in points of holding `c13` (after a discard) over `orders`; `locked`: the
    /// fan of a win just passed (R4.3: no discard win worth no more until the seat's draw).
    fn worth(
        &self,
        c13: &Counts,
        melds: &[Meld],
        void: Option<u8>,
        orders: &[Vec<u8>],
        locked: u8,
    ) -> f64 {
        let mut total = 0.0;
        let mut rows = Vec::with_capacity(14);
        let mut ws: Vec<Wait> = Vec::with_capacity(9);
        let others = self.active - 1;
        let rc = &self.rules.core;
        for order in orders {
            let mut hand = *c13;
            let mut wait = wait_mask_unchecked(&hand, melds, void);
            let mut pos = 0;
            let mut lock = locked;
            let mut got = None;
            let mut alive = 1.0;
            'play: while pos < order.len() {
                // the others draw and throw a tile each
                for _ in 0..others {
                    if pos >= order.len() {
                        break 'play;
                    }
                    let t = order[pos];
                    pos += 1;
                    if wait >> t & 1 != 0 {
                        let mut h = hand;
                        h[t as usize] += 1;
                        if let Some(f) = fan_unchecked(&h, melds, t, 0, rc, void) {
                            if lock == 0 || f.capped > lock {
                                got = Some(alive * f.points as f64);
                                break 'play;
                            }
                        }
                    }
                }
                if pos >= order.len() {
                    break;
                }
                // its own draw
                let t = order[pos];
                pos += 1;
                lock = 0;
                hand[t as usize] += 1;
                if wait >> t & 1 != 0 {
                    if let Some(f) = fan_unchecked(&hand, melds, t, ctx::SELF_DRAW, rc, void) {
                        let bonus = if self.rules.self_draw_bonus == SelfDrawBonus::Point {
                            rc.base as f64
                        } else {
                            0.0
                        };
                        got = Some(alive * (f.points as f64 + bonus) * others as f64);
                        break;
                    }
                }
                let held = (0..27).fold(0u32, |m, k| if hand[k] != 0 { m | 1 << k } else { m });
                let legal = match void {
                    Some(v) if held & (0x1ff << (9 * v)) != 0 => held & (0x1ff << (9 * v)),
                    _ => held,
                };
                let kind = if self.fan_play {
                    let t = ValueTurn {
                        counts: &hand,
                        melds,
                        visible: &self.visible,
                        void,
                        legal,
                        wall_count: (self.wall - pos.min(self.wall)) as i64,
                        opponents: &[],
                        rules: rc,
                    };
                    value_discard_unchecked(&t, &self.params).kind
                } else {
                    greedy_discard_unchecked(
                        &hand,
                        melds,
                        &self.visible,
                        void,
                        legal,
                        true,
                        &mut rows,
                    )
                    .kind
                };
                hand[kind as usize] -= 1;
                wait = wait_mask_unchecked(&hand, melds, void);
                alive *= self.survival;
            }
            total += match got {
                Some(v) => v,
                None => alive * self.ready_end(&hand, melds, void, wait, &mut ws),
            };
        }
        total / orders.len().max(1) as f64
    }

    /// R7 at the end of the wall: a ready hand is paid its value by the seats that are not
    /// (about two in five), one that is not ready pays the ready ones (about three in five).
    fn ready_end(
        &self,
        hand: &Counts,
        melds: &[Meld],
        void: Option<u8>,
        wait: u32,
        ws: &mut Vec<Wait>,
    ) -> f64 {
        let others = (self.active - 1) as f64;
        if wait != 0 {
            waits_unchecked(hand, melds, &self.rules.core, void, ws);
            let v = ws.iter().map(|w| w.points).max().unwrap_or(0) as f64;
            self.ready_weight * 0.4 * others * v
        } else {
            -self.ready_weight * 0.6 * others * 2.0
        }
    }
}

/// Running mean and variance of one alternative's paired differences (Welford).
#[derive(Debug, Clone, Copy, Default)]
struct Diff {
    n: u32,
    mean: f64,
    m2: f64,
}

impl Diff {
    fn add(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    fn se(&self) -> f64 {
        if self.n > 1 {
            (self.m2 / (self.n - 1) as f64 / self.n as f64).sqrt()
        } else {
            f64::INFINITY
        }
    }

    /// Cannot plausibly pass `z` standard errors by `last` samples (at the spread seen so far).
    fn futile(&self, z: f64, last: u32) -> bool {
        if self.n < 2 {
            return false;
        }
        let sd = (self.m2 / (self.n - 1) as f64).sqrt();
        self.mean + FUTILITY_Z * sd / (self.n as f64).sqrt() <= z * sd / (last as f64).sqrt()
    }
}

/// Samples before an alternative may be dropped, and how often the check is made.
const MIN_SAMPLES: u32 = 8;
const CHECK_EVERY: u32 = 4;
/// An alternative is dropped once its mean difference plus this many standard errors falls
/// short of what it must reach by the last sample.
const FUTILITY_Z: f64 = 1.0;

impl Expert {
    /// The actions to search at a decision, `base` first: at a turn the base choice, the legal
    /// discards no more dangerous than it (never a locked winner's tile while another is legal)
    /// by the lowest shanten after them and the most ukeire, up to `search_width` discards in
    /// all, every kong and the win; at a claim every answer.
    fn candidates<S: Sight>(
        &self,
        s: &S,
        counts: &Counts,
        melds: &[Meld],
        mask: u32,
        base: Action,
        opponents: &[Opponent<'_>],
    ) -> Vec<Action> {
        let legal = s.legal();
        let mut out = vec![base];
        let push = |a: Action, out: &mut Vec<Action>| {
            if !out.contains(&a) {
                out.push(a);
            }
        };
        match s.phase() {
            Phase::Claim => {
                for &a in legal {
                    push(a, &mut out);
                }
            }
            Phase::Turn if mask != 0 => {
                let m = self.unlocked(s, mask);
                let mut rows: Vec<Discard> = Vec::with_capacity(14);
                best_discards_unchecked(counts, melds, s.seen(), void_opt(self.void), &mut rows);
                rows.retain(|r| m >> r.kind & 1 != 0);
                if let Act::Discard(k) = base.act {
                    let limit = danger(k, counts, s.seen(), opponents) + 1e-9;
                    rows.retain(|r| danger(r.kind, counts, s.seen(), opponents) <= limit);
                }
                rows.sort_by_key(|r| (r.shanten, std::cmp::Reverse(r.ukeire), r.kind));
                let mut n = usize::from(matches!(base.act, Act::Discard(_)));
                for r in rows {
                    let a = Action::new(self.seat, Act::Discard(r.kind));
                    if !out.contains(&a) && n < self.opts.search_width as usize {
                        out.push(a);
                        n += 1;
                    }
                }
                for &a in legal {
                    if matches!(a.act, Act::Hu | Act::Angang(_) | Act::Jiagang(_)) {
                        push(a, &mut out);
                    }
                }
            }
            _ => {}
        }
        out
    }

    /// The index of the candidate to play: each alternative is compared with `cands[0]` on the
    /// same samples (determinized from what the seat knows, played out by `value` at every
    /// seat, the seat clearing `plans[j]` where one is given); one clearly worse or that cannot
    /// plausibly pass is dropped after [`MIN_SAMPLES`]; the best alternative whose mean
    /// difference minus `z` standard errors is above 0 is played, else the base choice.
    fn search(&mut self, truth: &Hand, cands: &[Action], plans: &[i8]) -> usize {
        use crate::hand::policy::PolicySpec;
        use crate::hand::sample::determinize;
        let seat = self.seat;
        let rules = truth.rules;
        let start = std::time::Instant::now();
        let budget = std::time::Duration::from_secs_f64(self.opts.budget);
        let mut diffs: Vec<Option<Diff>> = (0..cands.len())
            .map(|j| (j > 0).then(Diff::default))
            .collect();
        let value = PolicySpec::value();
        let total = self.opts.rollouts as u32;
        for i in 0..total {
            if i > 0 && start.elapsed() > budget {
                break;
            }
            let Some(sample) = determinize(
                truth,
                seat,
                &mut self.rng,
                self.opts.pick,
                self.opts.ready,
                self.opts.read_voids,
            ) else {
                continue; // the hands that must win could not be drawn this time
            };
            let alive: Vec<usize> = (0..cands.len())
                .filter(|&j| j == 0 || diffs[j].is_some())
                .collect();
            let mut vals = vec![0i64; cands.len()];
            // Nested search: the acting seat of each rollout is an `expert` of its own that
            // searches its next `nest_depth` decisions (no deeper nesting, its wins `value`'s)
            // within what is left of this decision's budget, so that the whole decision still
            // answers in time (R10). Its seed is drawn only when nesting is on, so the default
            // search draws the same samples as before.
            let inner = (self.opts.nest > 0).then(|| {
                let left = budget.saturating_sub(start.elapsed()).as_secs_f64();
                let o = ExpertOptions {
                    rollouts: self.opts.nest,
                    search_width: self.opts.nest_width,
                    z: self.opts.nest_z,
                    nest: 0,
                    search_wins: Some(false),
                    budget: left.max(0.001),
                    ..self.opts
                };
                Nested {
                    spec: PolicySpec::Expert(o),
                    seed: self.rng.next_u64(),
                    searches: u32::from(self.opts.nest_depth),
                }
            });
            for &j in &alive {
                let plan = plans.get(j).copied().unwrap_or(-1);
                vals[j] = played_out(&sample, cands[j], &value, &rules, plan, inner.as_ref())
                    .map_or(0, |d| d[seat as usize]);
            }
            for &j in &alive[1..] {
                if let Some(d) = diffs[j].as_mut() {
                    d.add((vals[j] - vals[0]) as f64);
                }
            }
            let done = i + 1;
            if done >= MIN_SAMPLES && done % CHECK_EVERY == 0 {
                let z = self.opts.z;
                for d in diffs.iter_mut() {
                    if let Some(x) = d {
                        if x.mean + z * x.se() <= 0.0 || x.futile(z, total) {
                            *d = None;
                        }
                    }
                }
                if diffs.iter().all(Option::is_none) {
                    break;
                }
            }
        }
        let (mut best, mut gain) = (0, 0.0);
        for (j, d) in diffs.iter().enumerate() {
            if let Some(x) = d {
                if x.mean - self.opts.z * x.se() > 0.0 && x.mean > gain {
                    best = j;
                    gain = x.mean;
                }
            }
        }
        best
    }
}

/// The acting seat of a nested rollout: an `expert` (its options, its seed) that may search
/// `searches` more of its decisions.
struct Nested {
    spec: crate::hand::policy::PolicySpec,
    seed: u64,
    searches: u32,
}

/// Each seat's points after `action` is played on a copy of `hand` and the hand finished by
/// `policy` at all four seats (fresh policies, as a rollout builds them, the acting seat's set
/// to clear `plan` when it is a suit, and an `expert` of its own when `actor` nests a search);
/// None when the action is not legal there.
fn played_out(
    hand: &Hand,
    action: Action,
    policy: &crate::hand::policy::PolicySpec,
    rules: &HandRules,
    plan: i8,
    actor: Option<&Nested>,
) -> Option<[i64; 4]> {
    use crate::hand::play::play_out;
    use crate::hand::policy::Policy;
    let mut h = hand.clone();
    h.ledger.events = None;
    h.apply(action, false).ok()?;
    let mut pols: Vec<Policy> = (0..4u8)
        .map(|s| match actor {
            Some(n) if s == action.seat => {
                let mut p = Policy::new(&n.spec, s, rules, Some(i128::from(n.seed)));
                if let Some(e) = p.expert.as_mut() {
                    e.searches_left = n.searches;
                }
                p
            }
            _ => Policy::new(policy, s, rules, None),
        })
        .collect();
    if plan >= 0 {
        pols[action.seat as usize].void = plan;
    }
    play_out(&mut h, &mut pols);
    Some(h.ledger.deltas)
}

/// The expert's estimate of each of `actions` at `seat`'s pending decision of `hand` (what the
/// reviewer shows): `rollouts` samples of what the seat cannot see (the readiest of `pick`
/// deals), every action played on each and the hand finished by `value`; per action, the
/// seat's points on every sample (samples where the hands that must win could not be drawn are
/// skipped, for every action alike).
pub fn estimate(
    hand: &Hand,
    seat: u8,
    actions: &[Action],
    rollouts: u32,
    seed: u64,
    pick: u8,
) -> Vec<Vec<i64>> {
    use crate::hand::policy::PolicySpec;
    use crate::hand::sample::determinize;
    let mut rng = SplitMix::new(seed);
    let value = PolicySpec::value();
    let rules = hand.rules;
    let mut out = vec![Vec::with_capacity(rollouts as usize); actions.len()];
    let mut drawn = 0;
    let mut tries = 0;
    while drawn < rollouts && tries < 4 * rollouts.max(1) {
        tries += 1;
        let Some(sample) = determinize(hand, seat, &mut rng, pick, true, false) else {
            continue;
        };
        drawn += 1;
        for (j, &a) in actions.iter().enumerate() {
            out[j].push(
                played_out(&sample, a, &value, &rules, -1, None).map_or(0, |d| d[seat as usize]),
            );
        }
    }
    out
}
